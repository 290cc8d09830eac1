// A knockout of 8 on 4 real tables, from the desk (driven by tests/screen/test_desk_knockout.py):
// drawn, each ready match handed to the next free table by the desk itself, started by the desk
// (start_next, confirmed), and ended by the striker's concession sent from the desk; the winners
// move on from the tables' records until the final. node tests/screen/desk_knockout_e2e.mjs plan.json
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, launch, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const WAIT = { timeout: 90000 };
mkdirSync(plan.screenshots, { recursive: true });

async function waitFor(page, what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, WAIT);
  } catch (e) {
    const c = await page.evaluate(() => JSON.stringify((window.cueboardDesk.competition?.matches || [])
      .map((m) => [m.label, m.sides, m.winner, m.table, m.started])));
    throw new Error(`FAILED: ${what}: ${e.message.split("\n")[0]} (${c}; page errors: ${page.errors.join(" | ")})`);
  }
  check(true, what);
}

const browser = await launch(plan.chromium);
try {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") page.errors.push(m.text()); });
  await page.goto(`${plan.base}/desk`);
  await page.fill("input[name=user]", plan.desk.user);
  await page.fill("input[name=password]", plan.desk.password);
  await page.click("form.signin button[type=submit]");
  await waitFor(page, "the 4 tables are online", () => document.querySelectorAll('tr.table .status[data-status="online"]').length === 4);
  // A fresh table plays its [match] default (docs/daemon.md): conceded from the desk, so the 4 are free.
  for (const t of ["t1", "t2", "t3", "t4"]) {
    await page.evaluate((t) => window.cueboardDesk.send(t, { type: "concede", match: true }, "concede", `desk-ko-idle-${t}`), t);
  }
  await waitFor(page, "the 4 tables are idle (their default match over)", () => ["t1", "t2", "t3", "t4"].every((t) => {
    const s = window.cueboardDesk.tables.get(t)?.state;
    return s && (!s.sides || s.match_over);
  }));
  await page.click('nav.tabs button[data-tab="tonight"]');
  await page.fill("form.begin input[name=comp_name]", "Club Cup");
  await page.fill("form.begin textarea[name=players]", "Ann\nBob\nCat\nDan\nEve\nFay\nGus\nHal");
  await page.fill("form.begin input[name=comp_best_of]", "1");
  await page.click("form.begin button[type=submit]");
  await waitFor(page, "the draw: 7 matches", () => document.querySelectorAll(".match-box").length === 7);
  await page.check(".tonight input[name=auto]");
  const started = new Set();
  for (let step = 0; step < 40; step += 1) {
    if (await page.$(".champion-name")) break;
    // Each match handed and shown on its table's next: started by the desk, once.
    await waitFor(page, `step ${step}: a match handed (on its table's next) or playing`, () =>
      [...document.querySelectorAll('.match-box[data-status="handed"]')].some((b) => {
        const table = (window.cueboardDesk.competition.matches.find((m) => m.fixture === b.dataset.fixture) || {}).table;
        return window.cueboardDesk.tables.get(table)?.next?.fixture === b.dataset.fixture;
      }) || document.querySelector('.match-box[data-status="playing"]') || document.querySelector(".champion-name"));
    for (const fixture of await page.$$eval('.match-box[data-status="handed"]', (b) => b.map((x) => x.dataset.fixture))) {
      const ready = await page.evaluate((f) => {
        const m = window.cueboardDesk.competition.matches.find((x) => x.fixture === f);
        return m && window.cueboardDesk.tables.get(m.table)?.next?.fixture === f;
      }, fixture);
      if (!ready || started.has(fixture)) continue;
      started.add(fixture);
      await page.click(`.match-box[data-fixture="${fixture}"] button[data-start]`);
      await page.click('.tonight .confirm button[data-confirm="yes"]');
    }
    // Each match playing ends: its striker concedes (the desk's line, as a referee's call would).
    await waitFor(page, `step ${step}: a match playing`, () => document.querySelector('.match-box[data-status="playing"]')
      || document.querySelector(".champion-name"));
    const playing = await page.evaluate(() => window.cueboardDesk.competition.matches
      .filter((m) => m.started && m.winner === null).map((m) => m.table));
    for (const table of playing) {
      await page.evaluate((t) => window.cueboardDesk.send(t, { type: "concede", match: true }, "concede", `desk-ko-${t}-${Date.now()}`), table);
    }
    await waitFor(page, `step ${step}: the conceded matches are settled`, (tables) => tables.every((t) =>
      !window.cueboardDesk.competition.matches.some((m) => m.table === t && m.started && m.winner === null)), playing);
  }
  await waitFor(page, "the bracket is complete", () => document.querySelector(".champion-name")
    && window.cueboardDesk.competition.matches.every((m) => m.winner !== null));
  check(started.size === 7, `7 matches started by the desk, each once: ${[...started]}`);
  await page.screenshot({ path: join(plan.screenshots, "desk-knockout-real-tables.png") });
  check(page.errors.length === 0, `no errors on the desk's page: ${page.errors.join(" | ")}`);
} finally {
  await browser.close();
  closeInput();
}
