// The night's table at the desk and on the hall's bracket page (driven by tests/screen/test_desk_standings.py,
// which retains the night on the broker): a round robin only head to head separates, shown in the
// order the league's archive gives it, as `POST /desk/api/standings` ranks it (docs/desk.md).
// node tests/screen/desk_standings_e2e.mjs plan.json
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, launch, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const WAIT = { timeout: 60000 };
mkdirSync(plan.screenshots, { recursive: true });

async function open(browser, path, viewport) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  page.errors = [];
  page.asked = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") page.errors.push(m.text()); });
  page.on("request", (r) => { if (r.url().endsWith("/desk/api/standings")) page.asked.push(r.method()); });
  await page.goto(`${plan.base}${path}?lang=en`);
  return page;
}

async function waitFor(page, what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, WAIT);
  } catch (e) {
    const rows = await page.$$eval(".standings tbody tr", (r) => r.map((x) => x.textContent));
    throw new Error(`FAILED: ${what}: ${e.message.split("\n")[0]} (rows: ${JSON.stringify(rows)}; page errors: ${page.errors.join(" | ")})`);
  }
  check(true, what);
}

// The table once its rows are the route's answer for the night as it is (not a pending or unranked fallback).
const shown = () => {
  const table = document.querySelector(".standings");
  const rows = [...document.querySelectorAll(".standings tbody tr")];
  return table && !["pending", "unranked"].includes(table.dataset.state || "") && rows.length === 4
    && rows.every((r) => r.lastElementChild?.textContent !== "");
};
const table = (page) => page.$$eval(".standings tbody tr", (rows) => rows.map((r) =>
  ({ name: r.dataset.player, cells: [...r.children].slice(1).map((c) => c.textContent) })));

const browser = await launch(plan.chromium);
try {
  const page = await open(browser, "/desk", { width: 1366, height: 768 });
  await page.fill("input[name=user]", plan.desk.user);
  await page.fill("input[name=password]", plan.desk.password);
  await page.click("form.signin button[type=submit]");
  await page.click('nav.tabs button[data-tab="tonight"]');
  await waitFor(page, "the desk shows the night's round robin: 6 matches and its table", () =>
    document.querySelectorAll(".match-box").length === 6 && document.querySelectorAll(".standings tbody tr").length === 4);
  await waitFor(page, "the desk's table is ranked", shown);
  const desk = await table(page);
  check(JSON.stringify(desk.map((r) => r.name)) === JSON.stringify(plan.order),
    `the desk orders the night as the archive does, Zoe above Amy on head to head: ${JSON.stringify(desk)}`);
  const [zoe, amy] = desk;
  // P W L F+ F− Pts: level on points, frames for and against; only the match between them parts them.
  check(JSON.stringify(zoe.cells) === JSON.stringify(amy.cells) && zoe.cells.join() === "3,2,1,5,3,4",
    `Zoe and Amy are level on every column shown: ${JSON.stringify([zoe.cells, amy.cells])}`);
  check(page.asked.length > 0 && page.asked.every((m) => m === "POST"), `the desk asked the route: ${page.asked}`);
  await page.screenshot({ path: join(plan.screenshots, "desk-standings-en.png") });
  check(page.errors.length === 0, `no errors on the desk's page: ${page.errors.join(" | ")}`);

  const hall = await open(browser, "/bracket", { width: 1920, height: 1080 });
  await waitFor(hall, "the bracket page's table is ranked", shown);
  const order = (await table(hall)).map((r) => r.name);
  check(JSON.stringify(order) === JSON.stringify(plan.order), `the bracket page orders the night alike: ${order}`);
  await hall.screenshot({ path: join(plan.screenshots, "bracket-standings-en.png") });
  check(hall.errors.length === 0, `no errors on the bracket page: ${hall.errors.join(" | ")}`);
} finally {
  await browser.close();
  closeInput();
}
