// The scorer's outbox under node, without a browser (tests/screen/test_scorer.py, test_outbox_units):
// ids, order, a refusal holding the taps after it, the scorer's send or drop, the table's
// repeated answers read as what they mean.
import { Outbox, answerIn, verdictOf, KEEP_ANSWERED } from "../../screen/score/outbox.js";

let failures = 0;
function check(ok, what) {
  if (ok) console.log(`ok: ${what}`);
  else { console.log(`FAILED: ${what}`); failures += 1; }
}
class Store { constructor() { this.m = new Map(); } getItem(k) { return this.m.has(k) ? this.m.get(k) : null; } setItem(k, v) { this.m.set(k, String(v)); } }

const store = new Store();
const box = new Outbox(store, "taps");
const a = box.add("scorer-t1", { type: "pot", balls: ["red"] }, "Pot Red", 1);
const b = box.add("scorer-t1", { type: "pot", balls: ["pink"] }, "Pot Pink", 2);
const c = box.add("scorer-t1", { type: "no_pot" }, "No pot", 3);
check(a.id !== b.id && b.id !== c.id && a.id.startsWith("scorer-t1-") && a.line.id === a.id, `ids made once a tap: ${a.id} ${b.id}`);
check(new Outbox(store, "taps").head().id === a.id, "a second tab (the same storage) sees the same first tap");
const other = new Outbox(store, "taps").add("scorer-t1", { type: "undo" }, "Undo", 4);
check(other.id.endsWith("-4"), "a second tab's tap takes the next number: never an id twice");
box.mark(a.id, "sent");
box.answer(a.id, "applied", null);
check(box.head().id === b.id, "answered: the next one is sent");
check(box.answer(a.id, "refused", "late") === null, "an answer to an answered id changes nothing");
box.answer(b.id, "refused", "red is on");
check(box.read().held && box.head() === null, "a refusal with taps after it holds them");
box.release(true);
check(!box.read().held && box.head().id === c.id, "send: the held taps go on, in order");
box.answer(c.id, "refused", "no");
box.release(false);
check(box.pending().length === 0 && box.read().taps.find((t) => t.id === other.id).status === "dropped", "drop: never sent");
const lone = box.add("scorer-t1", { type: "redo" }, "Redo", 5);
box.answer(lone.id, "refused", "nothing to redo");
check(!box.read().held, "a refusal with nothing after it holds nothing");
for (let i = 0; i < KEEP_ANSWERED + 10; i += 1) box.answer(box.add("u", { type: "no_pot" }, "x", i).id, "applied", null);
check(box.read().taps.length === KEEP_ANSWERED, `answered taps kept: the last ${KEEP_ANSWERED}`);
store.setItem("broken", "{not json");
check(new Outbox(store, "broken").read().taps.length === 0, "an unreadable book starts again (the table still knows every id)");

// The verdict is the code's, whatever the words (any language, reworded at will).
check(verdictOf({ code: "repeat_applied", reason: "Kennung x schon angewandt" }).verdict === "applied", "a repeat of an applied id: applied");
const again = verdictOf({ code: "repeat_refused", reason: "Kennung x schon abgelehnt: Rot ist dran" });
check(again.verdict === "refused" && again.reason === "Kennung x schon abgelehnt: Rot ist dran", "a repeat of a refused id: refused, its words shown");
check(verdictOf({ code: "later", reason: "Zu schnell: später nochmal" }).verdict === "later", "a limit: no answer yet");
check(verdictOf({ code: "refused", reason: "send it again later (words that say later: not the code)" }).verdict === "refused", "a refusal whose words say later: refused");
check(verdictOf({ code: "refused", reason: "id 'x' was applied already" }).verdict === "refused", "a refusal whose words say applied: refused");
check(verdictOf({ reason: "no code at all" }).verdict === "refused", "no code: a refusal, shown, never resent");

// The page draws an answer from its copy of the book at once (answerIn), then keeps it in storage
// (Outbox.answer): both say the same, and the copy leaves storage as it was.
const drawn = new Outbox(new Store(), "drawn");
const first = drawn.add("scorer-t1", { type: "pot", balls: ["red"] }, "Pot Red", 1);
const second = drawn.add("scorer-t1", { type: "no_pot" }, "No pot", 2);
const copy = structuredClone(drawn.read());
const shown = answerIn(copy, first.id, "refused", "red is not on");
check(shown !== null && shown.status === "refused" && copy.held && drawn.read().taps[0].status === "waiting",
  "an answer in the page's copy: refused and the next held there, storage not changed yet");
const kept = drawn.answer(first.id, "refused", "red is not on");
check(JSON.stringify(kept) === JSON.stringify(shown) && drawn.read().held && drawn.head() === null,
  "kept in storage: the same tap, the same hold");
check(answerIn(copy, first.id, "applied", null) === null && answerIn(copy, "nobody-0", "applied", null) === null,
  "answerIn: an answered id or an unknown one changes nothing");
check(second.id !== first.id, "two taps, two ids");

if (failures) { console.log(`${failures} failed`); process.exit(1); }
