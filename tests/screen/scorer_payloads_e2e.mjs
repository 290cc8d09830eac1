// The scorer's page (screen/score/score.js) reading what the table publishes through the shared
// payload reader (screen/shared/payloads.js): a state, an event or a refusal that is not JSON or
// does not fit the contract's schema is said under the board and changes nothing shown; the
// next good one on that topic clears the note. Chromium at a phone's size (touch), a plain
// broker (tests/screen/test_scorer_payloads.py starts it and the page's server; no table daemon: the
// script publishes as the table would).
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { check, launch, connect, publish, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const base = `cueboard/${plan.venue}/${plan.table}`;
const browser = await launch(plan.chromium);
const table = await connect(plan.port);
try {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  const [good, next] = plan.states;
  await publish(table, `${base}/state`, good, true);
  await page.goto(`${plan.url}/score?broker=ws://127.0.0.1:${plan.ws_port}&venue=${plan.venue}&table=${plan.table}&lang=en#user=scorer-${plan.table}&pass=secret`);
  const model = () => page.evaluate(() => {
    const m = window.cueboardScorer.model;
    return { connection: m.connection, seq: m.state ? m.state.seq : null, problem: m.problem, book: m.book };
  });
  await page.waitForFunction((seq) => {
    const m = window.cueboardScorer && window.cueboardScorer.model;
    return m && m.connection === "online" && m.state && m.state.seq === seq;
  }, good.seq, { timeout: 60000 });
  const scores = async () => (await page.locator(".side .score").allTextContents()).join(" ");
  const before = await scores();
  check((await model()).problem === null && (await page.locator(".problem").count()) === 0, `the table's state shown, no note (${before})`);

  // A state that lacks its sides: refused with the schema's reason, the board as it was.
  const broken = { ...next, sides: undefined };
  await publish(table, `${base}/state`, broken, true);
  await page.waitForSelector(".problem");
  const said = await page.locator(".problem").textContent();
  check(said.includes(`${base}/state`) && said.includes('lacks "sides"'), `the refused state said under the board: ${said}`);
  const m1 = await model();
  check(m1.seq === good.seq && (await scores()) === before, `nothing of it shown (seq ${m1.seq}, scores ${await scores()})`);
  await page.screenshot({ path: join(plan.shots, "scorer-refused-state-en.png") });

  // The next good state: shown, and the note gone.
  await publish(table, `${base}/state`, next, true);
  await page.waitForFunction((seq) => window.cueboardScorer.model.state.seq === seq, next.seq);
  await page.waitForFunction(() => !document.querySelector(".problem"));
  check((await model()).problem === null, `the next good state shown (seq ${next.seq}) and the note gone`);

  // An event that is not JSON and a refusal without its reason: each said, no tap's answer changed.
  const book = JSON.stringify((await model()).book);
  await publish(table, `${base}/event`, "{not json", false);
  await page.waitForFunction(() => window.cueboardScorer.model.problem && /not JSON/.test(window.cueboardScorer.model.problem.text));
  check(true, `an event that is not JSON said: ${(await model()).problem.text}`);
  await publish(table, `${base}/rejected`, { schema: 1, event: null, source: "command", id: "scorer-t1-x-1", ts: next.ts }, false);
  await page.waitForFunction(() => window.cueboardScorer.model.problem && /rejected: payload lacks "reason"/.test(window.cueboardScorer.model.problem.text));
  check(JSON.stringify((await model()).book) === book && (await model()).seq === next.seq,
    `a refusal without its reason said, the book and the state unchanged: ${(await model()).problem.text}`);
  check(errors.length === 0, `no page errors (${errors.join("; ")})`);
} finally {
  table.end(true);
  await browser.close();
  closeInput();
}
console.log("all ok");
