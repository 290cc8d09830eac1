// @ts-check
// Tonight's competition (docs/desk.md, docs/mqtt.md `competition`): the matches of a league
// match day, a knockout or a round robin, which table each is handed to, and who won. Pure: the
// desk reads the tables (their state, `next` and `record`) into it and publishes it retained on
// `cueboard/<venue>/competition`, so every desk and the bracket page see the same night.
// A match's winner comes from its table's record (matched by `fixture`); a knockout's winner
// moves on by itself, as cueboard/venue/pairings.py's Bracket.won does.

import { sideName, status, champion, standingsRequest } from "../shared/competition.js";

/**
 * @typedef {import("../shared/competition.js").Side} Side
 * @typedef {import("../shared/competition.js").Match} Match
 * @typedef {import("../shared/competition.js").Competition} Competition
 * @typedef {import("../shared/competition.js").Format} Format
 * @typedef {{name: string, status: string | null, state: import("../shared/state.js").State | null,
 *   next: import("../shared/state.js").HandedNext | null, nextSeen?: boolean,
 *   record: import("../shared/types.gen.js").RecordPayload | null}} TableSeen
 *   what the competition reads of a table (desk/link.js's Table)
 */

// What every page reads of a competition is shared (shared/competition.js); the desk's modules take it from here.
export { sideName, status, champion, standingsRequest };

/** The match's format: its own (a fixture's), else the competition's. */
export function formatOf(/** @type {Competition} */ c, /** @type {Match} */ m) {
  const f = { ...(m.format || c.format || { game: "snooker", best_of: 1 }) };
  if (m.handicap && (m.handicap[0] || m.handicap[1]) && f.game === "snooker") f.handicap = [...m.handicap];
  return f;
}

/**
 * The retained `next` payload the desk hands a table (spec: docs/mqtt.md `next`).
 * @param {Competition} c @param {Match} m @param {string} user
 */
export function nextPayload(c, m, user) {
  return { schema: 1, fixture: m.fixture, competition: m.competition || c.name, sides: [m.sides[0], m.sides[1]],
    format: formatOf(c, m), handed_by: user };
}

/** @param {Competition} c @returns {Competition} */
function copy(c) {
  return { ...c, matches: c.matches.map((m) => ({ ...m, sides: [...m.sides], handicap: [...(m.handicap || [0, 0])] })) };
}

/**
 * The competition with `side` the winner of `fixture` and the winner moved on to the next
 * match. The same result again changes nothing (it is idempotent: a record published at every
 * frame's end and again on a reconnect); a different winner is taken only while the next match
 * has not been started.
 * @param {Competition} c @param {string} fixture @param {number} side @param {number[] | null} frames
 * @returns {{competition: Competition, changed: boolean, refused?: string}}
 */
export function won(c, fixture, side, frames) {
  const m = c.matches.find((x) => x.fixture === fixture);
  if (!m) return { competition: c, changed: false, refused: `no match ${fixture} tonight` };
  if (m.winner === side && JSON.stringify(m.frames || null) === JSON.stringify(frames)) return { competition: c, changed: false };
  if (m.winner !== null && m.winner !== side && m.next) {
    const n = c.matches.find((x) => x.fixture === m.next?.fixture);
    if (n && (n.started || n.winner !== null)) {
      return { competition: c, changed: false, refused: `${m.label}: its winner has already played ${n.label}; correct that first` };
    }
  }
  const out = copy(c);
  const mm = /** @type {Match} */ (out.matches.find((x) => x.fixture === fixture));
  mm.winner = side;
  mm.frames = frames;
  if (mm.next) {
    const n = out.matches.find((x) => x.fixture === mm.next?.fixture);
    if (n) {
      n.sides[mm.next.side] = mm.sides[side];
      const h = out.handicaps || {};
      const a = h[sideName(n.sides[0])] || 0, b = h[sideName(n.sides[1])] || 0;
      n.handicap = [Math.max(0, a - b), Math.max(0, b - a)];
    }
  }
  return { competition: out, changed: true };
}

/**
 * The competition brought up to date with what the tables say: a match whose table has begun
 * it (its state has the fixture, or the table cleared its `next` and plays those sides) is
 * playing; a record of the fixture with a winner settles it.
 * @param {Competition} c
 * @param {Iterable<TableSeen>} tables
 * @returns {{competition: Competition, changed: boolean}}
 */
export function observe(c, tables) {
  let out = c;
  let changed = false;
  for (const tb of tables) {
    // A table's retained record of a match begun before tonight's competition was made (last
    // week's "Club Cup", a draw made again) is not one of its matches, whatever its fixture id;
    // five minutes allow for a Pi's clock behind the desk's.
    const old = tb.record && tb.record.started && c.created
      && Date.parse(tb.record.started) < Date.parse(c.created) - 5 * 60 * 1000;
    const r = old ? null : tb.record;
    if (r && r.fixture && r.winner !== null && r.winner !== undefined) {
      const step = won(out, r.fixture, r.winner, r.frames_won || null);
      if (step.changed) { out = step.competition; changed = true; }
    }
    for (const m of out.matches) {
      if (m.started || m.winner !== null) continue;
      const names = (tb.state && tb.state.sides || []).map((s) => s.name);
      const same = names.length === 2 && names[0] === sideName(m.sides[0]) && names[1] === sideName(m.sides[1]);
      // A state names no fixture (schema/state.schema.json; the table's `next` and record do): kept for one that would.
      const byFixture = (tb.state && /** @type {{fixture?: unknown}} */ (tb.state).fixture === m.fixture) || (r && r.fixture === m.fixture);
      const byNext = m.table === tb.name && tb.nextSeen && !tb.next && same && tb.state && !tb.state.match_over;
      if (byFixture || byNext) {
        if (out === c) out = copy(c);
        const mm = /** @type {Match} */ (out.matches.find((x) => x.fixture === m.fixture));
        mm.started = true;
        mm.table = tb.name;
        changed = true;
      }
    }
  }
  return { competition: out, changed };
}

/**
 * The competition with `fixture` handed to `table` (or taken back with null). Refused for a
 * match a table has begun or finished: a fixture handed twice starts one match.
 * @param {Competition} c @param {string} fixture @param {string | null} table @param {string} user
 * @returns {{competition: Competition, refused?: string, from?: string | null}}
 */
export function hand(c, fixture, table, user) {
  const m = c.matches.find((x) => x.fixture === fixture);
  if (!m) return { competition: c, refused: `no match ${fixture} tonight` };
  const st = status(m);
  if (st === "playing" || st === "done" || st === "bye") return { competition: c, refused: `${m.label}: already ${st === "playing" ? `begun on ${m.table}` : "played"}` };
  if (st === "waiting") return { competition: c, refused: `${m.label}: a player is still to come from an earlier match` };
  if (table && m.reserved && table !== m.reserved) return { competition: c, refused: `${m.label}: reserved for ${m.reserved}` };
  const busy = busyPlayers(c, fixture);
  const player = table ? playersOf(m).find((p) => busy.has(p)) : undefined;
  if (player) {
    const other = /** @type {Match} */ (busy.get(player));
    return { competition: c, refused: `${player} has ${other.label} ${status(other) === "playing" ? "on" : "handed to"} ${other.table} already` };
  }
  if (table && c.matches.some((x) => x.table === table && x.fixture !== fixture && status(x) === "handed")) {
    return { competition: c, refused: `${table} has a match handed already` };
  }
  const out = copy(c);
  const mm = /** @type {Match} */ (out.matches.find((x) => x.fixture === fixture));
  const from = mm.table || null;
  mm.table = table;
  mm.handed_by = table ? user : null;
  return { competition: out, from };
}

/**
 * The competition with `fixture` reserved for `table` (docs/mqtt.md a match's `reserved`: the
 * only table it may be handed to), or the reservation cleared with "". Refused for a match
 * begun, played or a bye (nothing left to place), and for one handed to another table (take it
 * back first: the table's `next` already names it).
 * @param {Competition} c @param {string} fixture @param {string} table
 * @returns {{competition: Competition, refused?: string}}
 */
export function reserve(c, fixture, table) {
  const m = c.matches.find((x) => x.fixture === fixture);
  if (!m) return { competition: c, refused: `no match ${fixture} tonight` };
  const st = status(m);
  if (st === "playing" || st === "done" || st === "bye") return { competition: c, refused: `${m.label}: already ${st === "playing" ? `begun on ${m.table}` : "played"}` };
  if (table && st === "handed" && m.table !== table) return { competition: c, refused: `${m.label}: handed to ${m.table}; take it back first` };
  const out = copy(c);
  const mm = /** @type {Match} */ (out.matches.find((x) => x.fixture === fixture));
  if (table) mm.reserved = table;
  else delete mm.reserved;
  return { competition: out };
}

/**
 * The tables free for a match: online, no match on or the match over, nothing on `next`, none
 * of tonight's matches handed to it or playing there. Those that have had fewest of tonight's
 * matches come first, then the venue's order: play is spread over the hall, and a table whose
 * players have only just shaken hands is not handed the next match while another stands idle.
 * @param {Competition} c
 * @param {Omit<TableSeen, "record">[]} tables sorted
 */
export function freeTables(c, tables) {
  const busy = new Set(c.matches.filter((m) => ["handed", "playing"].includes(status(m))).map((m) => m.table));
  // A `next` still retained for a match already begun (its table clears it when it starts it) is no claim.
  const begun = new Set(c.matches.filter((m) => m.started || m.winner !== null).map((m) => m.fixture));
  /** @type {Map<string, number>} */
  const played = new Map();
  for (const m of c.matches) if (m.table && (m.started || m.winner !== null)) played.set(m.table, (played.get(m.table) || 0) + 1);
  return tables.filter((tb) => tb.status === "online" && !(tb.next && !begun.has(tb.next.fixture || "")) && !busy.has(tb.name)
    // Idle as the state's schema says (`next`): no match, one not begun (seq 0), or one over.
    && (!tb.state || !tb.state.sides || tb.state.seq === 0 || tb.state.match_over))
    .map((tb, i) => ({ name: tb.name, i, n: played.get(tb.name) || 0 }))
    .sort((a, b) => a.n - b.n || a.i - b.i).map((tb) => tb.name);
}

/** The players of a match (a pair's two), by name. */
function playersOf(/** @type {Match} */ m) {
  return m.sides.flatMap((s) => (Array.isArray(s) ? s : s ? [s] : []));
}

/** Who is at a table tonight or has a match handed: they play one match at a time. */
function busyPlayers(/** @type {Competition} */ c, /** @type {string | null} */ except = null) {
  return new Map(c.matches.filter((m) => m.fixture !== except && ["handed", "playing"].includes(status(m)))
    .flatMap((m) => playersOf(m).map((p) => [p, m])));
}

/** The matches ready to be handed, in the draw's order (a round's first, then the next round's),
 * leaving out those with a player who has a match handed or on already (a round robin's later rounds). */
export function readyMatches(/** @type {Competition} */ c) {
  const busy = busyPlayers(c);
  return c.matches.filter((m) => status(m) === "ready" && !playersOf(m).some((p) => busy.has(p)))
    .sort((a, b) => a.round - b.round);
}

/**
 * Which ready match goes to which free table now, in the draw's order (cueboard/venue/runner_rules.py
 * `plan_hand`, which the venue service runs): a match reserved for a table waits for that table; an
 * unreserved one may play there until the reserved match is ready, and from then on never takes it.
 * @param {Competition} c @param {Omit<TableSeen, "record">[]} tables sorted
 * @returns {[string, string][]} [fixture, table] pairs
 */
export function planHand(c, tables) {
  const kept = new Set(c.matches.filter((m) => m.reserved && status(m) === "ready").map((m) => m.reserved));
  const free = freeTables(c, tables);
  /** @type {[string, string][]} */
  const plan = [];
  const taken = new Set();
  const busy = new Set();
  for (const m of readyMatches(c)) {
    if (playersOf(m).some((p) => busy.has(p))) continue;
    const table = m.reserved ? (free.includes(m.reserved) && !taken.has(m.reserved) ? m.reserved : undefined)
      : free.find((t) => !taken.has(t) && !kept.has(t));
    if (!table) continue;
    plan.push([m.fixture, table]);
    taken.add(table);
    for (const p of playersOf(m)) busy.add(p);
  }
  return plan;
}

/**
 * A players' list as the draw form has it, one a line, "Name" or "Name, handicap".
 * @param {string} text @returns {{players: {name: string, handicap: number}[], errors: string[]}}
 */
export function parsePlayers(text) {
  /** @type {string[]} */
  const errors = [];
  const players = [];
  let n = 0;
  for (const raw of text.split("\n")) {
    n += 1;
    const line = raw.trim();
    if (!line) continue;
    const m = line.match(/^(.*?)(?:\s*[,;]\s*(-?\d+))?$/);
    const name = m ? m[1].trim() : line;
    const handicap = m && m[2] !== undefined ? Number(m[2]) : 0;
    if (!name) errors.push(`line ${n}: no name`);
    else players.push({ name, handicap });
  }
  return { players, errors };
}
