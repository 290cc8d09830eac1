// The page's history (screen/shared/history.js) under node: run by tests/table/test_history_feed.py.
// With a file argument (JSON: {"messages": [[kind, body], ...], "expected": [...items]}), it also
// replays messages a real subscriber got and checks the list they make.
import { emptyHistory, withEvent, withLine, withLive, withSnapshot, withState } from "../../screen/shared/history.js";
import { readFileSync } from "node:fs";

let failures = 0;
function check(ok, what) {
  if (ok) console.log(`ok: ${what}`);
  else { console.log(`FAILED: ${what}`); failures += 1; }
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const item = (seq, type, t, extra = {}) => ({ seq, event: { type, t, ...extra }, ts: null, source: "referee", user: null });
const slot = (epoch, n, line) => ({ schema: 1, epoch, n, line });
const live = (it) => ({ schema: 1, seq: it.seq, event: it.event, ts: it.ts });
const shown = (k) => k.events.map((e) => `${e.seq}:${e.event.type}`);
const apply = (k, [kind, body]) => (kind === "history" ? withSnapshot(k, body) : kind === "slot" ? withLine(k, body)
  : kind === "state" ? withState(k, body) : withLive(k, body));

const lines = [item(1, "pot", 1), item(2, "pot", 2), item(1, "undo", 3), item(2, "no_pot", 4), item(3, "pot", 5), item(4, "pot", 6)];
const snap = (epoch, upto, keep) => ({ schema: 1, match_id: "v/t1/x", events: lines.slice(Math.max(0, upto - keep), upto),
  truncated: Math.max(0, upto - keep), lines: upto, epoch, recent: 64 });

// an undone stroke keyed again takes its place; undo lines stay
let k = lines.reduce((k, it) => withLive(k, live(it)), emptyHistory());
check(same(shown(k), ["1:pot", "1:undo", "2:no_pot", "3:pot", "4:pot"]), `live events as the log reads: ${shown(k)}`);

// late subscriber: a snapshot to line 3, then the slots 4..6 in any order, then live, each once
for (const order of [[4, 5, 6], [6, 4, 5], [5, 6, 4]]) {
  let late = withSnapshot(emptyHistory(), snap("e1", 3, 2));
  for (const n of order) late = withLine(late, slot("e1", n, lines[n - 1]));
  late = withLive(late, live(lines[5])); // the last line again, on event
  check(same(shown(late), ["1:undo", "2:no_pot", "3:pot", "4:pot"]) && late.known === 6,
    `snapshot + slots ${order} + a live duplicate: each line once (${shown(late)})`);
}
// the slots before the snapshot (another topic's retained messages first)
let early = withLine(withLine(emptyHistory(), slot("e1", 5, lines[4])), slot("e1", 4, lines[3]));
early = withSnapshot(early, snap("e1", 3, 3));
check(same(shown(early), ["1:pot", "1:undo", "2:no_pot", "3:pot"]) && early.known === 5,
  `slots held until their snapshot comes: ${shown(early)}`);
// a gap: a slot past a missing one is held, not shown
let gap = withLine(withSnapshot(emptyHistory(), snap("e1", 3, 3)), slot("e1", 5, lines[4]));
check(gap.known === 3 && gap.events.length === 3 && gap.held.has(5), "a slot after a missing line waits for it");
gap = withLine(gap, slot("e1", 4, lines[3]));
check(gap.known === 5 && gap.held.size === 0, "and is taken once the missing line comes");
// stale slots of another epoch (the match before, a restart) are not taken
let stale = withLine(withSnapshot(emptyHistory(), snap("e2", 0, 0)), slot("e1", 1, lines[0]));
check(stale.events.length === 0 && stale.known === 0, "a slot of another epoch is not shown");
// a periodic snapshot the page is ahead of changes nothing; a snapshot past a gap rebuilds
let ahead = lines.reduce((k, it, i) => withLine(k, slot("e1", i + 1, it)), withSnapshot(emptyHistory(), snap("e1", 0, 0)));
const before = shown(ahead);
ahead = withSnapshot(ahead, snap("e1", 4, 2));
check(same(shown(ahead), before) && ahead.known === 6, "a snapshot behind the page's lines changes nothing");
let behind = withSnapshot(withSnapshot(emptyHistory(), snap("e1", 1, 1)), snap("e1", 5, 2));
check(behind.known === 5 && same(shown(behind), ["2:no_pot", "3:pot"]), `a snapshot past a gap rebuilds: ${shown(behind)}`);
let over = withSnapshot(withSnapshot(emptyHistory(), snap("e1", 3, 3)), snap("e1", 5, 3));
check(over.known === 5 && same(shown(over), ["1:pot", "1:undo", "2:no_pot", "3:pot"]),
  `a snapshot that overlaps the page's lines adds the ones past them: ${shown(over)}`);
// a new match: its snapshot of a new epoch starts the list again
let next = withSnapshot(ahead, { ...snap("e3", 0, 0), match_id: null });
check(next.events.length === 0 && next.epoch === "e3", "a new match's snapshot empties the list");
// a table before slots: the snapshot is the list, live events add to it; a new match's state
let old = withSnapshot(emptyHistory(), { schema: 1, match_id: "v/t1/x", events: lines.slice(0, 2), truncated: 0 });
old = withLive(old, live(lines[2]));
check(same(shown(old), ["1:pot", "2:pot", "1:undo"]) && old.epoch === null, "an old table's snapshot and events");
old = withLive(withState(old, { seq: 0 }), live(item(1, "pot", 9)));
check(same(shown(old), ["1:pot"]), "a new match (state seq 0) starts the list at its first event");
let undone = withLive(withState(withLive(emptyHistory(), live(lines[0])), { seq: 0 }), live(item(0, "undo", 2)));
check(same(shown(undone), ["1:pot", "0:undo"]), "an undo back to seq 0 is no new match");
check(same(withEvent([item(1, "pot", 1)], { ...live(item(1, "pot", 1)), id: "x" })[0].source, "referee"),
  "a line from two topics is merged: the slot's source stays");

if (process.argv[2]) {
  const { messages, expected } = JSON.parse(readFileSync(process.argv[2], "utf8"));
  const got = messages.reduce(apply, emptyHistory());
  const key = (e) => `${e.seq}:${e.event.type}:${e.event.t}`;
  const want = expected.reduce((events, e) => withEvent(events, e), []).map(key);
  check(same(got.events.map(key).slice(-want.length), want) && got.events.length >= want.length,
    `the recorded messages make the table's list (${got.events.length} lines, known ${got.known})`);
}
if (failures) { console.log(`${failures} failed`); process.exit(1); }
