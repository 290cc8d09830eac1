// @ts-check
// Strokes in the club's words, for any page (the desk's corrections and history; the scorer's
// keys are the same set): the keys a marker presses, each the event line it makes
// (docs/events.md), a line said in words ("Pot pink", "Foul 4 · Miss"), the strokes in effect
// with a corrected one shown once, corrected, and which refusals are a scorer's own catch-up
// resends rather than news. Pure: no I/O, no clock. The words are the scorer's (`tap.*`) and
// the screen's (`ball.*`) of screen/i18n/<lang>.json.

/** @typedef {(key: string, vars?: Record<string, unknown>) => string} Words */
/** @typedef {{seq: number, event: Record<string, unknown>, ts?: string | null, source?: string | null,
 *   user?: string | null}} Line a line of a table's history (shared/history.js) */
/** @typedef {Line & {was?: Record<string, unknown>, fixedBy?: string | null, fixedAt?: string | null, inserted?: boolean}} Stroke
 *   a stroke in effect: `was` the stroke as first keyed when a correction replaced it */
/** @typedef {{key: string, line: Record<string, unknown>}} Key one key: the event it makes */

/** The colours and their values (Section 2 Rule 2). @type {[string, number][]} */
export const COLOURS = [["yellow", 2], ["green", 3], ["brown", 4], ["blue", 5], ["pink", 6], ["black", 7]];

/** The calls a snooker foul may carry, as the scorer toggles them. */
export const FOUL_CALLS = ["miss", "free_ball", "before_stroke"];

/**
 * The keys of a game, in the scorer's order, each a stroke line (a foul's calls are added by
 * `withCalls`). Only the strokes a correction can stand for: no undo, redo or end of frame.
 * @param {string} game @returns {Key[][]} rows of keys
 */
export function strokeKeys(game) {
  if (game === "blackball") {
    return [
      ["red", "yellow", "black"].map((b) => ({ key: `pot_${b}`, line: { type: "pot", balls: [b] } })),
      [{ key: "pot_red_red", line: { type: "pot", balls: ["red", "red"] } }, { key: "pot_yellow_yellow", line: { type: "pot", balls: ["yellow", "yellow"] } }],
      [{ key: "no_pot", line: { type: "no_pot" } }, { key: "foul", line: { type: "foul" } }, { key: "loss", line: { type: "loss" } }],
    ];
  }
  return [
    [1, 2, 3].map((n) => ({ key: `reds_${n}`, line: { type: "pot", balls: Array.from({ length: n }, () => "red") } })),
    COLOURS.map(([c]) => ({ key: `pot_${c}`, line: { type: "pot", balls: [c] } })),
    [{ key: "no_pot", line: { type: "no_pot" } }, { key: "pot_free", line: { type: "pot", balls: ["free"] } }],
    [4, 5, 6, 7].map((p) => ({ key: `foul_${p}`, line: { type: "foul", points: p } })),
    [{ key: "play_again", line: { type: "play_again" } }, { key: "replace", line: { type: "replace" } }],
  ];
}

/**
 * A snooker foul's line with the calls ticked (miss, free ball, before the stroke); any other line as it is.
 * @param {Record<string, unknown>} line @param {Record<string, boolean>} calls
 */
export function withCalls(line, calls) {
  if (line.type !== "foul" || line.points === undefined) return line;
  /** @type {Record<string, unknown>} */
  const out = { ...line };
  for (const c of FOUL_CALLS) if (calls[c]) out[c] = true;
  return out;
}

/**
 * A stroke or any line of a table's log in words: "Pot 2 reds", "Pot pink", "Foul 4 · Miss",
 * "No pot / safety", "Award to Ann (conduct)". Never a raw type: one the catalogue has no word
 * for is said with its underscores as spaces.
 * @param {Record<string, unknown> | null | undefined} event @param {Words} t
 * @param {string[]} [names] the sides' names, for a line that names a side
 */
export function strokeWords(event, t, names = []) {
  if (!event) return t("stroke.removed");
  const type = String(event.type || "");
  const ball = (/** @type {unknown} */ b) => t(`ball.${b}`);
  const balls = Array.isArray(event.balls) ? event.balls.map(String) : [];
  if (type === "pot") {
    const reds = balls.filter((b) => b === "red").length;
    const rest = balls.filter((b) => b !== "red").map((b) => (b === "free" ? t("ball.free") : ball(b)));
    return [t("tap.pot"), reds > 1 ? t("reds_n", { n: reds }) : reds ? ball("red") : "", ...rest].filter(Boolean).join(" ");
  }
  if (type === "foul") {
    const bits = [event.points ? `${t("tap.foul")} ${event.points}` : t("tap.foul")];
    for (const c of FOUL_CALLS) if (event[c]) bits.push(t(`tap.${c}`));
    if (balls.length) bits.push(balls.map(ball).join(" "));
    if (event.reason === "time") bits.push(t("stroke.time"));
    return bits.join(" · ");
  }
  const side = typeof event.side === "number" ? names[event.side] || t("side", { n: event.side + 1 }) : "";
  if (type === "award") {
    const what = event.match ? t("stroke.award_match", { name: side }) : t("stroke.award", { name: side });
    return event.reason ? `${what}: ${t(`reason.${event.reason}`)}` : what;
  }
  if (type === "concede") return event.match ? t("stroke.concede_match") : t("tap.concede");
  if (type === "started_by") return `${t("tap.started_by")} ${side}`;
  if (type === "respotted_black" && typeof event.striker === "number") return `${t("tap.respotted_black")}: ${names[event.striker] || event.striker + 1}`;
  if (type === "touching" && event.ball) return `${t("tap.touching")}: ${ball(event.ball)}`;
  const key = `tap.${type}`;
  const word = t(key);
  return word === key ? type.replace(/_/g, " ") : word;
}

const SNAPSHOT_LIMIT = 200; // the undo steps kept while folding (a match's few corrections)

/**
 * The strokes in effect from a table's history lines, oldest first, numbered as the table
 * numbers them (`seq`): an `amend` changes the stroke it names in place (shown once, corrected,
 * with what it was), removes it, or inserts one before it; undo and redo go back and forth over
 * what the lines made. The lines are shared/history.js's merged list (a stroke keyed after an
 * undo has taken the undone one's place); a history that starts mid-match (capped) is read from
 * where it starts.
 * @param {Line[]} lines @returns {Stroke[]}
 */
export function inEffect(lines) {
  /** @type {Stroke[]} */
  let now = [];
  /** @type {Stroke[][]} */
  const back = [];
  /** @type {Stroke[][]} */
  let ahead = [];
  const upTo = (/** @type {number} */ seq) => now.filter((s) => s.seq <= seq);
  for (const line of lines) {
    const ev = line.event || {};
    const type = ev.type;
    if (type === "match") { now = []; back.length = 0; ahead = []; continue; }
    if (type === "undo") {
      const before = back.pop();
      ahead.push(now);
      // The snapshot before the step undone, when this page saw that step; else what the table's seq says.
      const top = before && before.length ? before[before.length - 1].seq : 0;
      now = before && top === line.seq ? before : upTo(line.seq);
      continue;
    }
    if (type === "redo") {
      const again = ahead.pop();
      back.push(now);
      if (again) now = again;
      continue;
    }
    back.push(now);
    if (back.length > SNAPSHOT_LIMIT) back.shift();
    ahead = [];
    if (type === "amend") {
      const k = Number(ev.seq);
      const by = line.user || (typeof ev.user === "string" ? ev.user : null);
      if (ev.insert && typeof ev.insert === "object") {
        const made = /** @type {Stroke} */ ({ seq: k, event: /** @type {Record<string, unknown>} */ (ev.insert), ts: line.ts, source: line.source,
          user: by, inserted: true, fixedBy: by, fixedAt: line.ts });
        now = [...now.filter((s) => s.seq < k), made, ...now.filter((s) => s.seq >= k).map((s) => ({ ...s, seq: s.seq + 1 }))];
      } else if (ev.event === null) {
        now = now.filter((s) => s.seq !== k).map((s) => (s.seq > k ? { ...s, seq: s.seq - 1 } : s));
      } else if (ev.event && typeof ev.event === "object") {
        const to = /** @type {Record<string, unknown>} */ (ev.event);
        now = now.map((s) => (s.seq === k ? { ...s, event: to, was: s.was || s.event, fixedBy: by, fixedAt: line.ts } : s));
      }
      continue;
    }
    now = [...upTo(line.seq - 1), { ...line }];
  }
  return now;
}

/**
 * Which frame each stroke is in: 1, and one more after each `next_frame` in effect (a history
 * capped mid-match starts at `first`).
 * @param {Stroke[]} strokes @param {number} [first] @returns {Map<number, number>} seq -> frame
 */
export function framesOf(strokes, first = 1) {
  const out = new Map();
  let frame = first;
  for (const s of strokes) {
    out.set(s.seq, frame);
    if (s.event && s.event.type === "next_frame") frame += 1;
  }
  return out;
}

/** The codes of a refusal a scorer's phone sends again or is done with (docs/mqtt.md "Refusal
 * codes"): a limit's "later" (its outbox waits and resends, same id) and a repeat of an id
 * already answered (a resend after a Wi-Fi catch-up). */
const RESEND_CODES = ["later", "repeat_applied", "repeat_refused"];

/**
 * Whether a table's refusal is the scorer's own catch-up (its outbox resending after a drop),
 * which the phone settles by itself: never an alarm on the desk. Any other refusal, and every
 * refusal of a line from the desk, the keypad or a referee box, is.
 * @param {{source?: string, code?: string, user?: string} | null | undefined} rejected
 */
export function isResend(rejected) {
  if (!rejected) return false;
  const fromScorer = rejected.source === "scorer";
  return fromScorer && RESEND_CODES.includes(String(rejected.code || ""));
}
