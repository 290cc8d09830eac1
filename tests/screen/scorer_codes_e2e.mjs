// The scorer's exactly-once over reworded refusals (tests/screen/test_scorer_codes.py runs it): a phone
// with a tap in flight loses its Wi-Fi, keeps tapping, and comes back over a tight rate limit.
// The table's refusals are in words the page has never seen; the page must decide on `code`.
import { readFileSync } from "node:fs";
import { ask, check, chromium, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
// A card expires (its exp, cueboard venue card): hours after the run, whatever the time of day.
const CARD_EXP = new Date(Date.now() + 6 * 3600 * 1000).toISOString().replace(/\.\d+Z$/, "Z");
const report = (key, value) => console.log(`report ${key} ${JSON.stringify(value)}`);
const browser = await chromium.launch({
  executablePath: plan.chromium, headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    `--ignore-certificate-errors-spki-list=${plan.spki}`],
});
const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: "de" });
const page = await context.newPage();
const hash = `#user=${encodeURIComponent(plan.login.user)}&pass=${encodeURIComponent(plan.login.pass)}&trust=1&exp=${CARD_EXP}`;
await page.goto(`${plan.url}?broker=${plan.broker}&venue=${plan.venue}&table=t1&lang=de${hash}`);
const online = () => page.waitForFunction(() => {
  const m = window.cueboardScorer && window.cueboardScorer.model;
  return m && m.connection === "online" && m.state && m.state.sides;
}, null, { timeout: 60000 });
const book = () => page.evaluate(() => window.cueboardScorer.outbox().read());
async function tap(line) {
  const before = (await book()).next;
  await page.locator(`button[data-tap='${JSON.stringify(line)}']`).first().tap();
  await page.waitForFunction((n) => window.cueboardScorer.outbox().read().next > n, before);
  return (await book()).taps.find((t) => t.id.endsWith(`-${before}`)).id;
}
// Nothing left to send: every tap answered, or the book held by a refusal (which fails below).
const quiet = () => page.waitForFunction(() => {
  const b = window.cueboardScorer.outbox().read();
  return b.held || !b.taps.some((t) => t.status === "waiting" || t.status === "sent");
}, null, { timeout: 120000 });
const statuses = async (ids) => { const b = await book(); return ids.map((id) => (b.taps.find((t) => t.id === id) || { status: "gone" }).status); };
const pot = (...balls) => ({ type: "pot", balls });

await online();
const made = [await tap(pot("red"))];
await quiet();
// A tap in flight when the Wi-Fi goes: the table applies it, its answer is lost.
await ask("hold-t1");
const inFlight = await tap(pot("black"));
made.push(inFlight);
await page.waitForFunction((id) => window.cueboardScorer.outbox().read().taps.find((t) => t.id === id).status === "sent", inFlight);
await context.setOffline(true);
await page.waitForFunction(() => window.cueboardScorer.model.connection !== "online", null, { timeout: 60000 });
await ask(`release-t1 ${inFlight}`);
// Taps made offline: the rest of the frame.
for (let i = 0; i < 5; i += 1) made.push(await tap(pot("red")), await tap(pot("black")));
for (const c of ["yellow", "green", "brown", "blue", "pink", "black"]) made.push(await tap(pot(c)));
made.push(await tap({ type: "next_frame" }), await tap({ type: "no_pot" }));
check((await statuses(made.slice(2))).every((s) => s === "waiting"), `${made.length - 2} taps wait while offline`);
await context.setOffline(false);
await quiet();
const b = await book();
check(!b.held, `no tap held: no repeat or "later" was taken for a refusal (${JSON.stringify(b.taps.filter((t) => t.status === "refused").map((t) => t.reason))})`);
const got = await statuses(made);
check(got.every((s) => s === "applied"), `every tap applied, the one in flight too: ${got.join(" ")}`);
report("made", made);
await context.close();
await browser.close();
closeInput();
console.log("all ok");
