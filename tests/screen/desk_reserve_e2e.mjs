// The desk's "Reserve a table" (issue 38 row 10), driven by tests/screen/test_desk_night.py, which
// runs the broker, three stand-in tables and `cueboard venue serve`, and answers "need: play-semis".
// node tests/screen/desk_reserve_e2e.mjs plan.json
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, launch, ask, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const WAIT = { timeout: 60000 };
mkdirSync(plan.screenshots, { recursive: true });

async function waitFor(page, what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, WAIT);
  } catch (e) {
    const seen = await page.evaluate(() => { const l = window.cueboardDesk; return JSON.stringify(l && l.competition && l.competition.matches); });
    throw new Error(`FAILED: ${what}: ${e.message.split("\n")[0]} (page errors: ${page.errors.join(" | ")}; matches ${seen})`);
  }
  check(true, what);
}

const final = plan.final;
const reservedIs = (table) => (f) => { const c = window.cueboardDesk.competition;
  const m = c && c.matches.find((x) => x.fixture === f.fixture); return m && (m.reserved || "") === f.table; };
const select = `.tonight select[data-reserve="${final}"]`;

const browser = await launch(plan.chromium);
try {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  await page.goto(`${plan.base}/desk?lang=en`);
  await page.fill("input[name=user]", plan.desk.user);
  await page.fill("input[name=password]", plan.desk.password);
  await page.click("form.signin button[type=submit]");
  await waitFor(page, "signed in, the tables listed", () => document.querySelector('tr.table[data-table="t3"]'));
  await page.click('nav.tabs button[data-tab="tonight"]');
  await waitFor(page, "the semi-finals handed to t1 and t2 by the service", () => {
    const c = window.cueboardDesk.competition;
    const r1 = c && c.matches.filter((m) => m.round === 1);
    return r1 && r1.length === 2 && r1.map((m) => m.table).sort().join() === "t1,t2";
  });

  // Reserved, cleared, reserved again: each written into the broker's competition.
  await page.selectOption(select, "t2");
  await waitFor(page, "the final reserved for t2", reservedIs("t2"), { fixture: final, table: "t2" });
  check((await page.textContent(".tonight p.said")).includes("reserved for t2"), "the desk says so in words");
  await page.selectOption(select, "");
  await waitFor(page, "the reservation cleared", reservedIs(""), { fixture: final, table: "" });
  check(!(await page.$(`.tonight .match-box[data-fixture="${final}"] .reserved`)), "the card shows no reservation once cleared");
  await page.selectOption(select, "t1");
  await waitFor(page, "the final reserved for t1", reservedIs("t1"), { fixture: final, table: "t1" });
  await waitFor(page, "the final's card says it is reserved for t1",
    (f) => document.querySelector(`.tonight .match-box[data-fixture="${f}"] .reserved[data-reserved="t1"]`)?.textContent.includes("reserved for t1"), final);
  await page.screenshot({ path: join(plan.screenshots, "desk-reserved-en.png") });

  // The semi-finals played (t3 stands free all along): the final goes to t1, its reserved table.
  await ask("play-semis");
  await waitFor(page, "the final handed to t1", (f) => {
    const m = window.cueboardDesk.competition.matches.find((x) => x.fixture === f); return m && m.table === "t1"; }, final);
  check(await page.$eval(`.tonight .match-box[data-fixture="${final}"] .st`, (s) => s.textContent.includes("t1")), "its card says where");

  // Tonight's results link to the archive's standings of tonight's competition.
  await page.click('nav.tabs button[data-tab="results"]');
  const href = await page.getAttribute("a[data-link=results-page]", "href");
  check(href === "/results/?competition=Club%20Cup", `Tonight's results link to the standings page (${href})`);
  check(page.errors.length === 0, `no page errors (${page.errors.join(" | ")})`);
  console.log("ok");
} finally {
  closeInput();
  await browser.close();
}
