// The desk in the club's words (driven by tests/screen/test_desk_words.py: the broker, two real
// tables, 14 stand-ins, the server; "need: press t1:6,0" presses t1's referee box, "need: phone
// resend" sends a scorer's tap twice with one id, "need: phone red" a tap the rules refuse).
// node tests/screen/desk_words_e2e.mjs plan.json
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, launch, ask, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const WAIT = { timeout: 60000 };
mkdirSync(plan.screenshots, { recursive: true });

async function open(browser, viewport, lang = "en") {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") page.errors.push(m.text()); });
  await page.goto(`${plan.url}?lang=${lang}`);
  return page;
}

async function signIn(page, who) {
  await page.fill("input[name=user]", who.user);
  await page.fill("input[name=password]", who.password);
  await page.click("form.signin button[type=submit]");
}

async function waitFor(page, what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, WAIT);
  } catch (e) {
    throw new Error(`FAILED: ${what}: ${e.message.split("\n")[0]}`);
  }
  check(true, what);
}

const text = (page, selector) => page.$eval(selector, (e) => e.textContent.replace(/\s+/g, " ").trim());
const score = (page, table) => page.$eval(`tr.table[data-table="${table}"] .side .score`, (e) => e.textContent);

/** Every row on screen, none taller than one line of the list. */
const fit = (page) => page.evaluate(() => {
  const rows = [...document.querySelectorAll("tr.table")];
  return { n: rows.length, bottom: Math.max(...rows.map((r) => r.getBoundingClientRect().bottom)), height: innerHeight,
    tallest: Math.max(...rows.map((r) => r.getBoundingClientRect().height)), wide: document.documentElement.scrollWidth <= innerWidth + 1 };
});

const browser = await launch(plan.chromium);
try {
  const page = await open(browser, { width: 1366, height: 768 });
  await signIn(page, plan.desk);
  await waitFor(page, "all 16 tables are listed, online", (n) => document.querySelectorAll('tr.table .status[data-status="online"]').length === n,
    plan.tables.length);

  // Device trouble: a short chip, the detail on a press; the rows stay one line high.
  await waitFor(page, "t5's unplugged keypad is a short chip", () =>
    document.querySelector('tr.table[data-table="t5"] .dev.bad')?.textContent.trim() === "Keypad unplugged");
  await waitFor(page, "t9's failed board is one too", () =>
    document.querySelector('tr.table[data-table="t9"] .dev.bad')?.textContent.trim() === "Board failed");
  let f = await fit(page);
  const sideways = await page.$eval(".desk > .list", (l) => l.scrollWidth <= l.clientWidth + 1);
  check(sideways, "the list of tables needs no sideways scrolling");
  check(f.n === 16 && f.bottom <= f.height && f.tallest <= 40 && f.wide,
    `16 tables fit 1366x768, one line each (last row ends at ${f.bottom} of ${f.height}px, tallest ${f.tallest}px)`);
  check(!(await page.$(".dev-detail")), "no device detail before a press");
  await page.screenshot({ path: join(plan.screenshots, "desk-16-tables-en.png") });
  await page.click('tr.table[data-table="t5"] .dev.bad');
  await page.waitForSelector('tr.table[data-table="t5"] .dev-detail', WAIT);
  const detail = await text(page, 'tr.table[data-table="t5"] .dev-detail');
  check(detail.includes("keypad") && detail.includes("Keypad unplugged") && detail.includes("journal"), `the detail lists each device: ${detail}`);
  f = await fit(page);
  check(f.tallest <= 40, `the open detail does not make its row taller (${f.tallest}px)`);
  await page.screenshot({ path: join(plan.screenshots, "desk-device-detail-en.png") });
  await page.click('tr.table[data-table="t5"] .dev-detail button.close');
  await page.click('tr.table[data-table="t9"] .dev.bad');
  check((await text(page, 'tr.table[data-table="t9"] .dev-detail')).includes("SPI bus"), "the board's own reason is in its detail");
  await page.click('tr.table[data-table="t9"] .dev.bad');

  // A match on t1, scored from a phone: its resend after a catch-up (an id answered already) is no alarm.
  await page.check('tr.table[data-table="t1"] input[type=checkbox]');
  await page.fill("form.start input[name=a]", "Cath Jones");
  await page.fill("form.start input[name=b]", "Dave Ng");
  await page.fill("form.start input[name=frames]", "3");
  await page.click("form.start button[type=submit]");
  await waitFor(page, "t1 begins Cath Jones v Dave Ng", () => document.querySelector('form.start .answer[data-table="t1"]')?.dataset.state === "applied");
  await ask("phone resend");
  await waitFor(page, "the phone's resend is answered (applied already) and counted, quietly", () =>
    window.cueboardDesk.tables.get("t1").resends >= 1);
  check(await score(page, "t1") === "1", "the phone's red counted once");
  check(await text(page, 'tr.table[data-table="t1"] .rejected') === "", "the resend is no alarm on t1's row");
  await ask("press t1:6,0");
  await waitFor(page, "the referee's black and red on t1: 9", () =>
    document.querySelector('tr.table[data-table="t1"] .side .score')?.textContent === "9");
  await ask("phone red");
  await waitFor(page, "a tap the rules refuse is an alarm on the row, with who sent it", () =>
    document.querySelector('tr.table[data-table="t1"] .rejected')?.textContent.startsWith("scorer-t1: "));

  // The history in words; a stroke corrected with the scorer's keys.
  await page.click('tr.table[data-table="t1"] button.name');
  await waitFor(page, "t1's history lists its three strokes in words", () =>
    [...document.querySelectorAll("section.panel .history li .what")].map((w) => w.textContent).join() === "Pot Red,Pot Black,Pot Red");
  await page.click('section.panel .history li[data-seq="2"] button');
  await page.waitForSelector("section.panel .correction", WAIT);
  check((await text(page, "section.panel .correction .was")) === "Keyed as: Pot Black", "the dialog says the stroke as keyed");
  const keys = await page.$$eval("section.panel .correction .key", (k) => k.map((b) => b.textContent.trim()));
  check(keys.includes("Pot Pink") && keys.includes("Foul 4") && keys.includes("No pot / safety") && keys.includes("Pot 2 reds")
    && keys.every((k) => !/[a-z]_[a-z]/.test(k)), `the scorer's keys, in words: ${keys.join(" | ")}`);
  await page.click('section.panel .correction .key[data-key="pot_pink"]');
  check((await text(page, "section.panel .correction .becomes")) === "Pot Black becomes Pot Pink", "the correction said before it is checked");
  await page.screenshot({ path: join(plan.screenshots, "desk-correction-en.png") });
  await page.click('section.panel .correction button[data-action="amend"]');
  await page.waitForSelector("section.panel .confirm", WAIT);
  check((await text(page, "section.panel .confirm .sentence")) === "Correct stroke #2 of frame 1: Pot Black becomes Pot Pink?",
    `the confirmation is a sentence: ${await text(page, "section.panel .confirm .sentence")}`);
  check(!(await page.$("section.panel .confirm code")), "no line's JSON in the confirmation");
  await waitFor(page, "the table's preview of the result, in words", () =>
    document.querySelector("section.panel .preview")?.textContent.replace(/\s+/g, " ").includes("After the correction: Cath Jones 8 (0) – Dave Ng 0 (0)"));
  check(await score(page, "t1") === "9", "nothing applied before the confirmation");
  await page.screenshot({ path: join(plan.screenshots, "desk-confirm-amend-en.png") });
  await page.click('section.panel button[data-confirm="yes"]');
  await waitFor(page, "t1 applies the correction: 8", () => document.querySelector('tr.table[data-table="t1"] .side .score')?.textContent === "8");
  await waitFor(page, "the corrected stroke is shown once, corrected, with what it was", () => {
    const lis = [...document.querySelectorAll("section.panel .history li")];
    const two = document.querySelector('section.panel .history li[data-seq="2"]');
    return lis.length === 3 && two && two.querySelector(".what").textContent === "Pot Pink"
      && two.querySelector(".fixed").textContent.includes("corrected by desk, was Pot Black");
  });
  const history = await page.$$eval("section.panel .history li", (lis) => lis.map((li) => li.textContent.replace(/\s+/g, " ")));
  check(history.every((h) => !/\b[a-z]+_[a-z]+\b/.test(h) && !h.includes("correct #")), `no raw type, no second row: ${history.join(" | ")}`);

  // Every confirmation a sentence: the frame and the player conceding.
  await page.click('section.panel button[data-action="concede"]');
  check((await text(page, "section.panel .confirm .sentence")) === "Concede frame 1 for Cath Jones?", "a concession names the frame and the player");
  check((await text(page, "section.panel .confirm .context")).includes("Cath Jones v Dave Ng"), "and the match it is in");
  await page.screenshot({ path: join(plan.screenshots, "desk-confirm-en.png") });
  await page.click('section.panel button[data-confirm="no"]');
  // A match of tonight's knockout: the sentence names the competition and the round.
  await page.evaluate(() => window.cueboardDesk.publishVenue("competition", { schema: 1, id: "cup", name: "Club Cup", kind: "knockout",
    format: { game: "snooker", best_of: 3 }, rounds: 1, rev: 1, matches: [{ fixture: "cup-F", label: "F", round: 1,
      sides: ["Cath Jones", "Dave Ng"], handicap: [0, 0], bye: [false, false], winner: null, next: null, table: "t1", started: true }] }));
  await page.click('section.panel button[data-action="concede_match"]');
  check((await text(page, "section.panel .confirm .sentence")) === "Club Cup, Final: Concede the match for Cath Jones? Dave Ng wins it.",
    `a concession of tonight's final names it: ${await text(page, "section.panel .confirm .sentence")}`);
  await page.click('section.panel button[data-confirm="no"]');
  await page.evaluate(() => window.cueboardDesk.publishVenue("competition", null));
  await page.click('section.panel button[data-action="award"]');
  check((await text(page, "section.panel .confirm .sentence")) === "Award frame 1 to Cath Jones: conduct (Section 4)?", "an award names the frame, the side and why");
  await page.click('section.panel button[data-confirm="no"]');
  check(await score(page, "t1") === "8", "a confirmation answered no sends nothing");

  // A message to every table: one line each, each table's answer, the message in every row.
  await page.click("nav.tabs button:first-child");
  await page.check('.message.many input[value="all"]');
  await page.fill(".message.many input[name=message_all]", "Final at 22:00 on table 1");
  await page.click(".message.many button[type=submit]");
  await waitFor(page, "every table shows the message: 16 answers, each shown on its table", (n) => {
    const a = [...document.querySelectorAll(".message.many .answer")];
    return a.length === n && a.every((x) => x.dataset.state === "shown" && x.textContent.includes("shown on the table"));
  }, plan.tables.length);
  await waitFor(page, "the desk's list shows it on every row", (n) =>
    [...document.querySelectorAll("tr.table .msg")].filter((m) => m.dataset.message === "Final at 22:00 on table 1").length === n, plan.tables.length);
  f = await fit(page);
  check(f.tallest <= 40, `a message keeps the rows one line (${f.tallest}px)`);
  await page.$eval(".message.many .answers", (e) => e.scrollIntoView({ block: "end" })); // the answers in the picture
  await page.screenshot({ path: join(plan.screenshots, "desk-message-all-en.png") });
  // Cleared on the ticked table only.
  await page.check('.message.many input[value="picked"]');
  await page.click('.message.many button[data-action="clear_messages"]');
  await waitFor(page, "cleared on t1, each answered", () => document.querySelector('.message.many .answer[data-table="t1"]')?.dataset.state === "shown"
    && !document.querySelector('tr.table[data-table="t1"] .msg') && document.querySelector('tr.table[data-table="t2"] .msg'));
  check(page.errors.length === 0, `no errors on the desk's page: ${page.errors.join(" | ")}`);

  // A tablet, in German: the same 16 tables, the correction dialog in German words.
  const tablet = await open(browser, { width: 1280, height: 800 }, "de");
  await signIn(tablet, plan.desk2);
  await waitFor(tablet, "the tablet lists the 16 tables", (n) => document.querySelectorAll('tr.table .status[data-status="online"]').length === n, plan.tables.length);
  await waitFor(tablet, "t5's chip in German", () => document.querySelector('tr.table[data-table="t5"] .dev.bad')?.textContent.trim() === "Tastatur ausgesteckt");
  f = await fit(tablet);
  check(f.bottom <= f.height && f.tallest <= 40 && f.wide, `16 tables fit 1280x800 (${f.bottom} of ${f.height}px, tallest ${f.tallest}px)`);
  await tablet.click('tr.table[data-table="t1"] button.name');
  await tablet.waitForSelector('section.panel .history li[data-seq="2"]', WAIT);
  check((await text(tablet, 'section.panel .history li[data-seq="2"] .what')) === "Lochen Rosa", "the corrected stroke in German");
  await tablet.click('section.panel .history li[data-seq="3"] button');
  await tablet.click('section.panel .correction .key[data-key="foul_4"]');
  await tablet.check("section.panel .correction input[name=call_miss]");
  check((await text(tablet, "section.panel .correction .becomes")) === "Lochen Rot wird zu Foul 4 · Miss", "a foul and its call, in German");
  f = await fit(tablet);
  check(f.wide, "the tablet's page is no wider than the tablet");
  const list = await tablet.$eval(".desk > .list", (l) => [l.scrollWidth, l.clientWidth,
    [...l.querySelectorAll("thead th")].map((h) => Math.round(h.getBoundingClientRect().width)).join("/")]);
  check(list[0] <= list[1] + 1, `nor its list of tables (${list.join(" ")})`);
  await tablet.$eval("section.panel .correction button[data-action=amend]", (e) => e.scrollIntoView({ block: "end" }));
  await tablet.screenshot({ path: join(plan.screenshots, "desk-correction-tablet-de.png") });
  check(tablet.errors.length === 0, `no errors on the tablet: ${tablet.errors.join(" | ")}`);
} finally {
  await browser.close();
  closeInput();
}
