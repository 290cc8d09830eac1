// The strokes in the club's words (screen/shared/strokes.js) under node: run by
// tests/screen/test_desk_words.py. The words come from the real catalogue (screen/i18n/en.json:
// the scorer's tap.* and the screen's ball.*, as the desk reads them).
import { readFileSync } from "node:fs";
import { inEffect, framesOf, strokeWords, strokeKeys, withCalls, isResend } from "../../screen/shared/strokes.js";

let failures = 0;
function check(ok, what) {
  if (ok) console.log(`ok: ${what}`);
  else { console.log(`FAILED: ${what}`); failures += 1; }
}
const en = JSON.parse(readFileSync(new URL("../../screen/i18n/en.json", import.meta.url), "utf8"));
const words = { ...Object.fromEntries(Object.entries({ ...en.scorer, ...en.screen })
  .filter(([k]) => k.startsWith("tap.") || k.startsWith("ball.") || k === "reds_n")), ...en.desk };
const t = (key, vars = {}) => {
  let w = words[key] ?? key;
  if (typeof w === "object") w = w[vars.n === 1 ? "one" : "other"];
  return w.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
};
const line = (seq, event, user = null) => ({ seq, event, ts: null, source: "keypad", user });
const said = (strokes) => strokes.map((s) => `${s.seq}:${strokeWords(s.event, t)}`).join(", ");

// Words, never a raw type.
check(strokeWords({ type: "no_pot" }, t) === "No pot / safety", `no_pot in words: ${strokeWords({ type: "no_pot" }, t)}`);
check(strokeWords({ type: "pot", balls: ["red", "red"] }, t) === "Pot 2 reds", "two reds");
check(strokeWords({ type: "pot", balls: ["black"] }, t) === "Pot Black", "the black");
check(strokeWords({ type: "foul", points: 4, miss: true }, t) === "Foul 4 · Miss", `a foul and a miss: ${strokeWords({ type: "foul", points: 4, miss: true }, t)}`);
check(strokeWords({ type: "award", side: 1, reason: "conduct" }, t, ["Ann", "Bob"]) === "Frame awarded to Bob: conduct (Section 4)", "an award names the side");
check(strokeWords({ type: "something_new" }, t) === "something new", "an unknown type without its underscores");
for (const game of ["snooker", "blackball"]) {
  for (const row of strokeKeys(game)) for (const k of row) {
    const w = strokeWords(k.line, t);
    check(!/[a-z]+_[a-z]+/.test(w) && !w.includes("tap.") && !w.includes("ball."), `${game} key ${k.key} said in words: ${w}`);
  }
}
check(JSON.stringify(withCalls({ type: "foul", points: 5 }, { miss: true, free_ball: false })) === '{"type":"foul","points":5,"miss":true}', "a foul's calls");

// A corrected stroke is shown once, corrected, with what it was; undo of the amend puts it back.
const pot = (b) => ({ type: "pot", balls: [b] });
const keyed = [line(0, { type: "match" }), line(1, pot("red")), line(2, pot("black")), line(3, pot("red")),
  line(4, { type: "amend", seq: 2, event: pot("pink") }, "desk")];
let s = inEffect(keyed);
check(said(s) === "1:Pot Red, 2:Pot Pink, 3:Pot Red", `corrected once: ${said(s)}`);
check(s[1].was && s[1].was.balls[0] === "black" && s[1].fixedBy === "desk", "the corrected stroke says what it was and who");
s = inEffect([...keyed, line(3, { type: "undo" })]);
check(said(s) === "1:Pot Red, 2:Pot Black, 3:Pot Red" && !s[1].was, `the amend undone: ${said(s)}`);
s = inEffect([...keyed, line(3, { type: "undo" }), line(3, { type: "redo" })]);
check(said(s) === "1:Pot Red, 2:Pot Pink, 3:Pot Red", `and redone: ${said(s)}`);
// Removed, inserted.
s = inEffect([...keyed.slice(0, 4), line(2, { type: "amend", seq: 2, event: null })]);
check(said(s) === "1:Pot Red, 2:Pot Red", `removed, the later renumbered: ${said(s)}`);
s = inEffect([...keyed.slice(0, 4), line(4, { type: "amend", seq: 2, insert: { type: "no_pot" } })]);
check(said(s) === "1:Pot Red, 2:No pot / safety, 3:Pot Black, 4:Pot Red" && s[1].inserted, `inserted before: ${said(s)}`);
// An undone stroke keyed again (shared/history.js drops the undone line): the new one.
s = inEffect([line(1, pot("red")), line(0, { type: "undo" }), line(1, { type: "no_pot" })]);
check(said(s) === "1:No pot / safety", `undone and keyed again: ${said(s)}`);
// Frames.
s = inEffect([line(1, pot("red")), line(2, { type: "concede" }), line(3, { type: "next_frame" }), line(4, pot("red"))]);
const f = framesOf(s);
check(f.get(1) === 1 && f.get(3) === 1 && f.get(4) === 2, "the frame of each stroke");

// A scorer's catch-up resends are no alarm; everything else is.
check(isResend({ source: "scorer", code: "later", short: "rate" }), "a scorer over its rate (its outbox resends)");
check(isResend({ source: "scorer", code: "repeat_applied" }), "a scorer's repeat of an applied id");
check(!isResend({ source: "scorer", code: "refused" }), "a scorer's stroke the rules refuse is an alarm");
check(!isResend({ source: "command", code: "later" }), "a desk's line over its rate is an alarm");
check(!isResend({ source: "keypad", code: "refused" }), "a referee's refused key is");

if (failures) { console.log(`${failures} FAILED`); process.exit(1); }
