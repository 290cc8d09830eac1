// The hall's bracket page for a groups night (driven by tests/screen/test_bracket_groups.py, which
// retains the night on the venue broker): the groups' tables as the server places them, the
// knockout with its places from the groups, walkovers; at 1920x1080 on one screen, on a phone
// nothing wider than the screen.
// node tests/screen/bracket_groups_e2e.mjs plan.json
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, launch, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const WAIT = { timeout: 60000 };
mkdirSync(plan.screenshots, { recursive: true });

async function open(browser, viewport) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") page.errors.push(m.text()); });
  await page.goto(`${plan.base}/bracket?lang=en`);
  return page;
}

async function waitFor(page, what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, WAIT);
  } catch (e) {
    const text = await page.evaluate(() => document.body.innerText.slice(0, 600));
    throw new Error(`FAILED: ${what}: ${e.message.split("\n")[0]} (page: ${JSON.stringify(text)}; errors: ${page.errors.join(" | ")})`);
  }
  check(true, what);
}

const ranked = () => [...document.querySelectorAll(".group-table")].length === 2
  && [...document.querySelectorAll(".group-table")].every((x) => x.dataset.state === "ranked");
const order = (page) => page.$$eval(".group", (gs) => Object.fromEntries(gs.map((g) =>
  [g.dataset.group, [...g.querySelectorAll("tbody tr")].map((r) => r.dataset.player)])));

const browser = await launch(plan.chromium);
try {
  const hall = await open(browser, { width: 1920, height: 1080 });
  await waitFor(hall, "the bracket page shows both groups' tables, placed by the server", ranked);
  const shown = await order(hall);
  check(JSON.stringify(shown) === JSON.stringify(plan.order), `each group in the server's order: ${JSON.stringify(shown)}`);
  const withdrawn = await hall.$$eval(".group-table tr.withdrawn", (r) => r.map((x) => x.dataset.player));
  check(JSON.stringify(withdrawn) === JSON.stringify(["Hal Wood"]), `the withdrawn player is marked: ${withdrawn}`);
  const through = await hall.$$eval('.group[data-group="A"] tr.through', (r) => r.map((x) => x.dataset.player));
  check(through.length === 2 && through[0] === plan.order.A[0], `group A's two going through are marked: ${through}`);
  const notYet = await hall.$$eval('.group[data-group="B"] tr.through', (r) => r.length);
  check(notYet === 0, `group B, still playing, marks nobody through yet (${notYet})`);
  const r1 = await hall.$eval(`.match-box[data-fixture="${plan.r1}"]`, (b) => [...b.querySelectorAll(".who .n")].map((n) => n.textContent.trim()));
  check(r1[0].startsWith(plan.a1) && r1[1] === "B2", `the knockout has group A's winner and waits for B's runner-up: ${r1}`);
  const wo = await hall.$$eval(".match-box .f", (f) => f.filter((x) => x.textContent === "w/o").length);
  const groupsShown = await hall.$$eval(".group .match-box", (b) => b.map((x) => x.dataset.status));
  check(wo === 0 && JSON.stringify(groupsShown) === JSON.stringify(["playing"]),
    `on the hall a group shows only its match on a table (${groupsShown}); walkovers are in the tables, not boxes`);
  await hall.screenshot({ path: join(plan.screenshots, "bracket-groups-en.png") });
  const fit = await hall.evaluate(() => ({
    h: document.documentElement.scrollHeight, w: document.documentElement.scrollWidth, vh: innerHeight, vw: innerWidth,
    names: [...document.querySelectorAll(".group-table tbody th, .match-box .who .n")].map((n) => parseFloat(getComputedStyle(n).fontSize)),
    parts: [...document.querySelectorAll("body *")].filter((x) => x.getBoundingClientRect().bottom > innerHeight).slice(0, 4)
      .map((x) => `${x.className || x.tagName}: ${Math.round(x.getBoundingClientRect().bottom)}`).join(", "),
    cut: [...document.querySelectorAll(".group-table, .match-box")].filter((x) => { const r = x.getBoundingClientRect(); return r.bottom > innerHeight || r.right > innerWidth; }).length,
  }));
  check(fit.h <= fit.vh && fit.w <= fit.vw && fit.cut === 0 && Math.min(...fit.names) >= 24,
    `at 1920x1080 everything is on one screen (${fit.w}x${fit.h}, ${fit.cut} cut off; below the screen: ${fit.parts || "nothing"}), every name at least 24 px (${Math.min(...fit.names)})`);
  check(hall.errors.length === 0, `no errors on the bracket page: ${hall.errors.join(" | ")}`);

  const phone = await open(browser, { width: 390, height: 844 });
  await waitFor(phone, "the phone shows both groups' tables", ranked);
  const narrow = await phone.evaluate(() => ({ w: document.documentElement.scrollWidth, vw: innerWidth,
    tables: [...document.querySelectorAll(".group-table")].map((x) => x.getBoundingClientRect().right) }));
  check(narrow.w <= narrow.vw && narrow.tables.every((r) => r <= narrow.vw),
    `on a phone nothing is wider than the screen (${narrow.w} <= ${narrow.vw}; tables end at ${narrow.tables})`);
  await phone.screenshot({ path: join(plan.screenshots, "bracket-groups-phone-en.png"), fullPage: true });
  check(phone.errors.length === 0, `no errors on the phone: ${phone.errors.join(" | ")}`);
} finally {
  await browser.close();
  closeInput();
}
