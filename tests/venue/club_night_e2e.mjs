// The club night in Chromium (driven by tests/venue/test_club_night.py): the desk of
// `cueboard venue serve` at 1366x768, signed in as the venue's `desk` login; 8 players drawn into
// a knockout; handing switched on (the service hands, not this tab); each match begun from the
// desk when its table shows it, then played at the table by the referee's buttons (asked of the
// Python side: mock pins); the final's result, tonight's results and a match's sheet.
// Pictures: docs/img/club-night-*.png (plan.shots). node tests/venue/club_night_e2e.mjs plan.json
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, launch, closeInput, ask } from "../screen/screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const WAIT = { timeout: 120000 }; // a bound for a hang, not a speed figure
const TABLES = ["t1", "t2", "t3", "t4"];
mkdirSync(plan.shots, { recursive: true });

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

const shot = (page, name) => page.screenshot({ path: join(plan.shots, `club-night-${name}.png`) });

const browser = await launch(plan.chromium);
try {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") page.errors.push(m.text()); });
  await page.goto(plan.url);
  await page.fill("input[name=user]", plan.desk.user);
  await page.fill("input[name=password]", plan.desk.password);
  await page.click("form.signin button[type=submit]");
  await waitFor(page, "the 4 joined tables are online", () => document.querySelectorAll('tr.table .status[data-status="online"]').length === 4);
  // A joined table starts idle (`[table] start = "idle"`): free for the desk, nothing to concede.
  await waitFor(page, "the 4 tables are idle (nothing played on them)", (ts) => ts.every((t) => {
    const s = window.cueboardDesk.tables.get(t)?.state;
    return s && (!s.sides || s.seq === 0 || s.match_over);
  }), TABLES);
  await shot(page, "1-tables");
  await page.click('nav.tabs button[data-tab="tonight"]');
  await page.fill("form.begin input[name=comp_name]", "Club Cup");
  await page.fill("form.begin textarea[name=players]", plan.players.join("\n"));
  await page.fill("form.begin input[name=comp_best_of]", "1");
  await page.click("form.begin button[type=submit]");
  await waitFor(page, "the draw: 7 matches", () => document.querySelectorAll(".match-box").length === 7);
  await shot(page, "2-draw");
  // Handing by itself: kept in the competition, so the service hands with or without this tab.
  await page.check(".tonight input[name=auto]");
  // The final kept for t1 (the table with the TV camera), as the manager picks on the desk.
  await page.selectOption(`.tonight select[data-reserve="${plan.final}"]`, "t1");
  await waitFor(page, "the final reserved for t1", (f) => window.cueboardDesk.competition.matches.find((m) => m.fixture === f)?.reserved === "t1", plan.final);
  await waitFor(page, "the service handed the 4 first-round matches to the 4 tables", (ts) => ts.every((t) => {
    const next = window.cueboardDesk.tables.get(t)?.next;
    return next && window.cueboardDesk.competition.matches.some((m) => m.fixture === next.fixture && m.table === t);
  }), TABLES);
  await shot(page, "3-handed");
  await ask("board t1");  // t1's board, idle, showing the match handed to it
  const started = new Set();
  for (let step = 0; step < 20 && !(await page.$(".champion-name")); step += 1) {
    await waitFor(page, `step ${step}: a match handed and on its table, or the champion`, (done) =>
      document.querySelector(".champion-name") || window.cueboardDesk.competition.matches.some((m) =>
        m.table && m.winner === null && !done.includes(m.fixture)
        && window.cueboardDesk.tables.get(m.table)?.next?.fixture === m.fixture), [...started]);
    const ready = await page.evaluate((done) => window.cueboardDesk.competition.matches.filter((m) =>
      m.table && m.winner === null && !done.includes(m.fixture)
      && window.cueboardDesk.tables.get(m.table)?.next?.fixture === m.fixture).map((m) => [m.fixture, m.table]), [...started]);
    for (const [fixture, table] of ready) {
      started.add(fixture);
      // Begun from the desk (its confirmation), as the referee's NEW MATCH at the table would.
      await page.click(`.match-box[data-fixture="${fixture}"] button[data-start]`);
      await page.click('.tonight .confirm button[data-confirm="yes"]');
      await waitFor(page, `${fixture} playing on ${table}`, ([f, t]) => {
        const s = window.cueboardDesk.tables.get(t)?.state;
        return s && s.sides && !s.match_over && (window.cueboardDesk.competition.matches.find((m) => m.fixture === f) || {}).started;
      }, [fixture, table]);
      if (fixture === plan.final) {
        check(table === "t1", `the final went to t1, the table reserved for it (${table})`);
        await shot(page, "5-final-playing");
      }
      await ask(`play ${table}`);  // the referee's buttons: a break of 8, then the match conceded
    }
    await waitFor(page, `step ${step}: the matches played are settled`, (fs) => fs.every((f) =>
      (window.cueboardDesk.competition.matches.find((m) => m.fixture === f) || {}).winner != null),
    ready.map(([f]) => f));
  }
  await waitFor(page, "the knockout has its champion", () => document.querySelector(".champion-name")
    && window.cueboardDesk.competition.matches.every((m) => m.winner !== null));
  check(started.size === 7, `7 matches begun, each once: ${[...started]}`);
  console.log(`champion: ${await page.$eval(".champion-name", (e) => e.textContent)}`);
  await shot(page, "6-champion");
  await page.click('nav.tabs button[data-tab="results"]');
  // All 7 listed before the last is taken as the final's (the final's record may come last of all).
  await waitFor(page, "tonight's results: the 7 matches", () => document.querySelectorAll(".results button[data-sheet]").length >= 7);
  await shot(page, "7-results");
  // The final's sheet: the result of the final's two players (in a knockout they meet once; the
  // list's order is by end time, which a fast night can tie to the second).
  const finalists = await page.evaluate((f) => window.cueboardDesk.competition.matches.find((m) => m.fixture === f).sides.join(" – "), plan.final);
  await page.locator(".results li", { hasText: finalists }).locator("button[data-sheet]").click();
  await page.waitForSelector(".sheet", WAIT);
  const sheet = await page.$eval(".sheet", (e) => e.textContent);
  check(sheet.includes("Club Cup") && sheet.includes("Final") && sheet.includes("club") && /Winner: /.test(sheet),
    `the final's sheet names the competition, the round, the venue and the winner (${sheet.slice(0, 400)})`);
  await page.locator(".sheet").screenshot({ path: join(plan.shots, "club-night-8-sheet.png") });
  check(page.errors.length === 0, `no errors on the desk's page: ${page.errors.join(" | ")}`);

  // The night's standings: the archive's page, served by the venue service at /results/ and
  // linked from Tonight's results, once the archive has the final (asked of the Python side).
  const champion = await page.evaluate(() => { const c = window.cueboardDesk.competition; const f = c.matches[c.matches.length - 1];
    return f.sides[f.winner]; });
  await ask("archived");
  const standings = new URL(await page.getAttribute("a[data-link=results-page]", "href"), page.url()).href;
  for (const [size, viewport] of [["laptop", { width: 1366, height: 768 }], ["phone", { width: 390, height: 844 }]]) {
    const other = await browser.newContext({ viewport, deviceScaleFactor: 1, ignoreHTTPSErrors: true, isMobile: size === "phone" });
    const p = await other.newPage();
    const errors = [];
    p.on("pageerror", (e) => errors.push(String(e)));
    p.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    await p.goto(standings);
    const table = await p.$eval("table", (t) => [...t.tBodies[0].rows].map((r) => [...r.cells].map((c) => c.textContent.trim())));
    check(table.length === 8 && table[0][1] === champion && table[0][3] === "3", `${size}: the standings, the champion ${champion} first with 3 wins`);
    check((await p.textContent("h1")) === "Club Cup", `${size}: the page is tonight's competition's`);
    check(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${size}: nothing off the page sideways`);
    check(errors.length === 0, `${size}: no errors (the page's content policy kept): ${errors.join(" | ")}`);
    await p.screenshot({ path: join(plan.shots, `venue-results-${size}.png`), fullPage: size === "phone" });
    await other.close();
  }
} finally {
  await browser.close();
  closeInput();
}
