// @ts-check
// The lines the desk sends to a table (docs/events.md), built from its forms, and what the page
// checks before sending. The table's engine decides: a line that passes here may still be
// refused, and the desk then shows the table's reason. Nothing here talks to the network.

/** @typedef {{game: string, a: string, b: string, a2?: string, b2?: string, format: string, frames: number,
 *   reds?: number, handicapA?: number, handicapB?: number, clock?: number | null}} MatchForm */

/**
 * A match line from the form, or the reasons it cannot be one (each naming the field).
 * @param {MatchForm} f
 * @returns {{line?: Record<string, unknown>, errors: string[]}}
 */
export function matchLine(f) {
  /** @type {string[]} */
  const errors = [];
  const side = (/** @type {string} */ first, /** @type {string | undefined} */ second) => {
    const names = [first, second].map((n) => (n || "").trim()).filter(Boolean);
    return names.length === 2 ? names : names[0] || "";
  };
  const a = side(f.a, f.a2), b = side(f.b, f.b2);
  if (!a || !b) errors.push("players: both sides need a name");
  if (Array.isArray(a) !== Array.isArray(b)) errors.push("players: four-handed needs two players on each side");
  if (!["snooker", "blackball"].includes(f.game)) errors.push(`game: "${f.game}" is not snooker or blackball`);
  const n = Number(f.frames);
  if (!Number.isInteger(n) || n < 1 || n > 99) errors.push("frames: a whole number from 1 to 99");
  /** @type {Record<string, unknown>} */
  const line = { type: "match", game: f.game, sides: [a, b] };
  if (f.format === "race_to") line.race_to = n;
  else if (f.format === "aggregate") {
    if (f.game !== "snooker") errors.push("aggregate: snooker only");
    line.best_of = n;
    line.aggregate = true;
  } else {
    if (n % 2 === 0) errors.push("best of: an odd number of frames (or aggregate)");
    line.best_of = n;
  }
  if (f.game === "snooker") {
    if (f.reds && f.reds !== 15) {
      if (![6, 10].includes(Number(f.reds))) errors.push("reds: 15, 10 or 6");
      line.reds = Number(f.reds);
    }
    const h = [Number(f.handicapA || 0), Number(f.handicapB || 0)];
    if (h.some((x) => !Number.isInteger(x) || x < 0)) errors.push("handicap: whole points from 0");
    else if (h[0] || h[1]) line.handicap = h;
  }
  if (f.clock !== undefined && f.clock !== null && String(f.clock) !== "") {
    const s = Number(f.clock);
    if (!Number.isInteger(s) || s < 5 || s > 600) errors.push("shot clock: seconds from 5 to 600");
    else line.shot_clock = s;
  } else if (f.clock === null) line.shot_clock = null;
  return errors.length ? { errors } : { line, errors };
}

let counter = 0;
/** An id for a line: the table answers it once and only once (docs/events.md). */
export function newId(/** @type {string} */ user) {
  counter += 1;
  const random = Math.random().toString(36).slice(2, 8);
  return `desk-${user}-${Date.now().toString(36)}-${random}-${counter}`;
}

/** The actions on a table, each one line (the desk asks before sending any). */
export const ACTIONS = {
  undo: () => ({ type: "undo" }),
  redo: () => ({ type: "redo" }),
  rerack: () => ({ type: "rerack" }),
  next_frame: () => ({ type: "next_frame" }),
  concede: () => ({ type: "concede" }),
  concede_match: () => ({ type: "concede", match: true }),
  clock: () => ({ type: "clock" }),
  hold: (/** @type {string} */ game) => (game === "blackball" ? { type: "clock_hold" } : { type: "clock", action: "hold" }),
  resume: (/** @type {string} */ game) => (game === "blackball" ? { type: "clock_resume" } : { type: "clock", action: "resume" }),
};

/**
 * An award line: the frame (or the match) to `side`, with its reason (Rule 14(c)(ii) "miss",
 * Section 4 Rule 1 "conduct").
 * @param {number} side @param {string} reason @param {boolean} match
 */
export function awardLine(side, reason, match) {
  /** @type {Record<string, unknown>} */
  const line = { type: "award", side, reason };
  if (match) line.match = true;
  return line;
}

/**
 * An amend line: the stroke that made `seq` replaced by `event` (null: as if never keyed).
 * @param {number} seq @param {Record<string, unknown> | null} event
 */
export function amendLine(seq, event) {
  if (event === null) return { type: "amend", seq, event: null };
  /** @type {Record<string, unknown>} */
  const clean = {};
  for (const [k, v] of Object.entries(event)) if (!["t", "id", "user"].includes(k)) clean[k] = v;
  return { type: "amend", seq, event: clean };
}

// One collator for every comparison: localeCompare with options builds one per call, which was
// the desk's largest cost at 256 tables (bench/desk.py, docs/performance.md).
const tableOrder = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/** Table names in the venue's order: "t2" before "t10". */
export function byTable(/** @type {string} */ a, /** @type {string} */ b) {
  return tableOrder.compare(a, b);
}

/**
 * A message's `until` (ISO 8601 UTC) from the form's "HH:MM" (the desk's local time): today,
 * or tomorrow when that time has passed today (a club night runs past midnight); "" is none.
 * @param {string} hhmm @param {Date} now @returns {string | null}
 */
export function untilTime(hhmm, now) {
  const m = /^(\d{1,2}):(\d{2})$/.exec(hhmm || "");
  if (!m) return null;
  const at = new Date(now);
  at.setHours(Number(m[1]), Number(m[2]), 0, 0);
  if (at.getTime() <= now.getTime()) at.setDate(at.getDate() + 1);
  return at.toISOString();
}
