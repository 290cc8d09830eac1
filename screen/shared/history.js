// @ts-check
// A table's match history as a page shows it (docs/mqtt.md, "The match's history"): the
// retained snapshot (`<prefix>/history`), the retained slots of single lines
// (`<prefix>/history/<n mod recent>`, a table that publishes `epoch`) and the live `event`s,
// merged into one list, each line once. Pure: no I/O, no clock; each function returns a new value.

export const HISTORY = 500; // events kept a table (a long frame is ~150)

/**
 * @typedef {{seq: number, event: Record<string, unknown>, ts?: string | null, source?: string | null,
 *   user?: string | null, id?: string | null}} Line
 *   a line of the history: a slot's or the snapshot's (HistoryLine), or a live `event` (EventPayload)
 * @typedef {{events: Line[], fresh: boolean, epoch: string | null, known: number,
 *   held: Map<number, any>, match_id: string | null, truncated: number}} Kept
 * `known`: the number of the last line in `events` in an unbroken run from the snapshot (0 for a
 * table before slots); `held`: slots (by `n`) that came before the lines ahead of them.
 */

/** @returns {Kept} */
export function emptyHistory() {
  return { events: [], fresh: false, epoch: null, known: 0, held: new Map(), match_id: null, truncated: 0 };
}

/** The same line (its seq, type and `t`), from another topic or again. */
const same = (/** @type {Line} */ a, /** @type {Line} */ b) => a.seq === b.seq && !!a.event && !!b.event
  && a.event.type === b.event.type && a.event.t === b.event.t;

/**
 * The history's events with one more, as the table's log reads: a stroke keyed after an undo
 * takes the undone one's place (the history shows what is in effect), and a line the list holds
 * already (from a slot and from `event`, in either order) is kept once, where it is, with what
 * both say. At most HISTORY, the newest.
 * @param {any[]} events @param {any} body
 * @returns {any[]}
 */
export function withEvent(events, body) {
  const had = events.findIndex((e) => same(e, body));
  if (had >= 0) return events.map((e, i) => (i === had ? { ...e, ...body } : e));
  const kind = body.event && body.event.type;
  let out = events;
  if (kind !== "undo" && kind !== "redo" && kind !== "amend" && typeof body.seq === "number") {
    out = out.filter((e) => !(typeof e.seq === "number" && e.seq >= body.seq));
  }
  out = [...out, body];
  return out.length > HISTORY ? out.slice(-HISTORY) : out;
}

/** Apply the held slots that come next, in order. @param {Kept} kept @returns {Kept} */
function drain(kept) {
  let { events, known } = kept;
  const held = new Map(kept.held);
  for (let next = held.get(known + 1); next && next.epoch === kept.epoch; next = held.get(known + 1)) {
    held.delete(known + 1);
    events = withEvent(events, next.line);
    known += 1;
  }
  for (const n of held.keys()) if (n <= known) held.delete(n);
  return { ...kept, events, known, held };
}

/**
 * The retained snapshot. From a table before slots (no `epoch`): the list, whole, as it says.
 * Else: the list rebuilt from it when it is another match or restart's (`epoch`), or when it
 * starts past the lines this page has in an unbroken run (a gap); its lines past the page's added
 * when it overlaps them; nothing when this page is ahead of it.
 * @param {Kept} kept @param {any} body @returns {Kept}
 */
export function withSnapshot(kept, body) {
  if (!body || !Array.isArray(body.events)) return kept;
  const base = { match_id: body.match_id ?? null, truncated: body.truncated || 0, fresh: false };
  const rebuilt = () => body.events.reduce((/** @type {Line[]} */ events, /** @type {Line} */ e) => withEvent(events, e), []);
  if (typeof body.epoch !== "string" || typeof body.lines !== "number") {
    return { ...kept, ...base, events: rebuilt(), epoch: null, known: 0, held: new Map() };
  }
  if (body.epoch === kept.epoch && body.lines <= kept.known) return { ...kept, match_id: base.match_id };
  const first = body.lines - body.events.length + 1; // the number of its first line
  if (body.epoch === kept.epoch && first <= kept.known + 1) {
    // It overlaps the page's lines (it came before the newest slots): the lines past them, added.
    const events = body.events.slice(kept.known + 1 - first).reduce(withEvent, kept.events);
    return drain({ ...kept, match_id: base.match_id, events, known: body.lines });
  }
  const held = new Map([...kept.held].filter(([n, s]) => s.epoch === body.epoch && n > body.lines));
  return drain({ ...kept, ...base, events: rebuilt(), epoch: body.epoch, known: body.lines, held });
}

/**
 * A slot: one line with its number `n` in the match. Taken at once when it is the next line of
 * the snapshot's run, held while lines before it are still to come (retained slots arrive in
 * any order), dropped when it is of another epoch than the snapshot's and older than it.
 * @param {Kept} kept @param {any} body @returns {Kept}
 */
export function withLine(kept, body) {
  if (!body || typeof body.n !== "number" || typeof body.epoch !== "string" || !body.line) return kept;
  if (body.epoch === kept.epoch && body.n <= kept.known) return kept; // had
  const held = new Map(kept.held);
  held.set(body.n, body);
  while (held.size > 4 * HISTORY) held.delete(Math.min(...held.keys()));
  return drain({ ...kept, held });
}

/**
 * The table's state: a new match (seq 0 not reached by an undo, whose event may come before or
 * after this state) starts its history with its first event.
 * @param {Kept} kept @param {any} state @returns {Kept}
 */
export function withState(kept, state) {
  const last = kept.events[kept.events.length - 1];
  if (state && state.seq === 0 && !(last && last.seq === 0 && last.event && last.event.type === "undo")) {
    return { ...kept, fresh: true };
  }
  return kept;
}

/**
 * A live `event` (a logged one: `"logged": false` is no line of the history).
 * @param {Kept} kept @param {any} body @returns {Kept}
 */
export function withLive(kept, body) {
  if (!body || body.logged === false) return kept;
  let events = kept.events;
  if (kept.fresh && !(body.seq === 0 && body.event && body.event.type === "undo")) events = [];
  return { ...kept, fresh: false, events: withEvent(events, body) };
}
