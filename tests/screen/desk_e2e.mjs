// The desk end to end (driven by tests/screen/test_desk.py, which runs the broker, the tables and the
// server, and acts on the tables when asked: "need: press t1:0" (buttons of its referee box), "need: stop t3").
// node tests/screen/desk_e2e.mjs plan.json
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, launch, ask, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const WAIT = { timeout: 60000 };
mkdirSync(plan.screenshots, { recursive: true });

async function open(browser, viewport, lang = "en") {
  // The venue's CA is not in this headless browser's store: certificate errors are ignored for
  // the page and its wss:// broker alike (a venue's laptops trust venue-ca.crt: docs/desk.md).
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, ignoreHTTPSErrors: true });
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`Content-Security-Policy refused ${e.violatedDirective}: ${e.blockedURI || "inline"}`));
  });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") page.errors.push(m.text()); });
  await page.goto(`${plan.url}?lang=${lang}`);
  return page;
}

async function signIn(page, who, password = who.password) {
  await page.fill("input[name=user]", who.user);
  await page.fill("input[name=password]", password);
  await page.click("form.signin button[type=submit]");
}

const row = (page, table) => page.evaluate((table) => {
  const r = document.querySelector(`tr.table[data-table="${table}"]`);
  if (!r) return null;
  return { status: r.querySelector(".status").dataset.status, sides: [...r.querySelectorAll(".side")].map((s) =>
    [s.querySelector(".who").textContent, s.querySelector(".score").textContent, s.classList.contains("at-table")]),
  rejected: r.querySelector(".rejected").textContent, devices: [...r.querySelectorAll(".dev")].map((d) => d.textContent.trim()) };
}, table);

const answers = (page, scope) => page.evaluate((scope) => [...document.querySelectorAll(`${scope} .answer`)]
  .map((a) => ({ table: a.dataset.table, state: a.dataset.state, text: a.textContent })), scope);

async function waitFor(page, what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, WAIT);
  } catch (e) {
    throw new Error(`FAILED: ${what}: ${e.message.split("\n")[0]}`);
  }
  check(true, what);
}

const browser = await launch(plan.chromium);
try {
  const page = await open(browser, { width: 1366, height: 768 });
  check(!page.url().includes(plan.desk.password), "the address carries no credentials");
  // A wrong password: the broker refuses, the page says so.
  await signIn(page, plan.desk, "not-the-password");
  await waitFor(page, "a wrong password is refused by the broker", () => document.querySelector(".signin .refused"));
  await signIn(page, plan.desk);
  await waitFor(page, "every table is listed, online", () => ["t1", "t2", "t3"].every((t) =>
    document.querySelector(`tr.table[data-table="${t}"] .status`)?.dataset.status === "online"));
  const order = await page.$$eval("tr.table", (rows) => rows.map((r) => r.dataset.table));
  check(JSON.stringify(order) === JSON.stringify(["t1", "t2", "t3"]), `sorted by table: ${order}`);
  const devices = (await row(page, "t1")).devices;
  check(devices.join() === "✓", `t1's devices healthy, one short chip: ${devices}`);
  // The detail on a press: each device in words (the table's paced links, docs/mqtt.md), never a catalogue key or an object.
  await page.click('tr.table[data-table="t1"] .dev');
  const detail = await page.$$eval('tr.table[data-table="t1"] .dev-detail li b', (b) => b.map((x) => x.textContent));
  check(detail.length >= 2 && detail.every((d) => !d.startsWith("device.") && !d.includes("[object")) && detail.includes("commands"),
    `t1's devices named in words: ${detail}`);
  await page.click('tr.table[data-table="t1"] .dev');
  check(await page.evaluate(() => sessionStorage.length) === 0, "an untrusted device keeps no login");

  // Start the same match on two tables at once.
  await page.check('tr.table[data-table="t1"] input[type=checkbox]');
  await page.check('tr.table[data-table="t2"] input[type=checkbox]');
  await page.fill("form.start input[name=a]", "Cath");
  await page.fill("form.start input[name=b]", "Dave");
  await page.fill("form.start input[name=frames]", "3");
  await page.fill("form.start input[name=clock]", "60");
  await page.click("form.start button[type=submit]");
  await waitFor(page, "both tables answered the match line: applied", () => {
    const a = [...document.querySelectorAll("form.start .answer")];
    return a.length === 2 && a.every((x) => x.dataset.state === "applied");
  });
  for (const t of ["t1", "t2"]) {
    const r = await row(page, t);
    check(JSON.stringify(r.sides.map((s) => s[0])) === '["Cath","Dave"]', `${t} shows Cath and Dave`);
  }
  await page.screenshot({ path: join(plan.screenshots, "desk-laptop-en.png") });

  // A referee's press on t1 arrives.
  await ask("press t1:0");
  await waitFor(page, "the referee's red on t1 is shown", () =>
    document.querySelector('tr.table[data-table="t1"] .side .score')?.textContent === "1");

  // Undo from the desk, with a confirmation first.
  await page.click('tr.table[data-table="t1"] button.name');
  await waitFor(page, "the history shows the referee's red, in words", () =>
    [...document.querySelectorAll("section.panel .history li")].some((li) => li.textContent.includes("Pot Red")));
  await page.click('section.panel button[data-action="undo"]');
  check(await page.$eval("section.panel .confirm .sentence", (e) => e.textContent) === "Undo the last stroke (Pot Red) on table t1?",
    "the undo is asked in a sentence naming the stroke");
  await page.waitForSelector("section.panel .confirm", WAIT);
  check(await page.$eval('tr.table[data-table="t1"] .side .score', (e) => e.textContent) === "1", "nothing is sent before the confirmation");
  await page.click('section.panel button[data-confirm="yes"]');
  await waitFor(page, "the undo is applied by t1", () => document.querySelector("section.panel .answer")?.dataset.state === "applied");
  await waitFor(page, "t1's score is back to 0", () =>
    document.querySelector('tr.table[data-table="t1"] .side .score')?.textContent === "0");
  await waitFor(page, "the undone red is no longer in the history (what is in effect)", () =>
    ![...document.querySelectorAll("section.panel .history li")].some((li) => li.textContent.includes("Pot Red")));

  // The shot clock: started, then held, each confirmed and answered by the table's state.
  const act = async (action, what) => {
    const before = await page.$$eval("section.panel .answer", (a) => a.length);
    await page.click(`section.panel button[data-action="${action}"]`);
    await page.click('section.panel button[data-confirm="yes"]');
    await waitFor(page, what, (before) => {
      const a = document.querySelectorAll("section.panel .answer");
      return a.length > before && a[0].dataset.state === "applied";
    }, Math.min(before, 5));
  };
  await act("clock", "t1 starts its shot clock for the desk");
  await waitFor(page, "t1's clock is shown running", () => document.querySelector('tr.table[data-table="t1"] .clock .running'));
  await act("hold", "t1 holds its shot clock for the desk");
  await waitFor(page, "t1's clock is shown held", () => document.querySelector('tr.table[data-table="t1"] .clock .held'));
  await act("resume", "t1 resumes its shot clock");

  // A stroke five strokes back corrected: seven strokes (red, black, ...), the first black made a pink.
  await ask("press t1:0,6,0,6,0,6,0");
  await waitFor(page, "seven strokes on t1: 25", () =>
    document.querySelector('tr.table[data-table="t1"] .side .score')?.textContent === "25");
  await page.click('section.panel .history li[data-seq="2"] button');
  check(await page.$eval("section.panel .correction .was", (e) => e.textContent) === "Keyed as: Pot Black", "the stroke picked is the black of seq 2");
  await page.click('section.panel .correction .key[data-key="pot_pink"]'); // the scorer's keys (issue 38)
  await act("amend", "t1 applies the correction of stroke 2");
  await waitFor(page, "t1's score is 24 after the correction", () =>
    document.querySelector('tr.table[data-table="t1"] .side .score')?.textContent === "24");
  await waitFor(page, "the history shows the stroke corrected", () =>
    document.querySelector('section.panel .history li[data-seq="2"]')?.textContent.includes("corrected by desk, was Pot Black"));
  // Once, though it comes both live (`event`) and in the table's retained `history`, and in its place (issue 38).
  const corrections = await page.$$eval("section.panel .history li", (lis) => lis.filter((li) => li.textContent.includes("corrected by")).length);
  check(corrections === 1, `the correction is listed once in the history (${corrections})`);
  // The red undone at the start and keyed again is listed once: the history is what is in effect.
  const strokes = await page.$$eval("section.panel .history li", (lis) => lis.map((li) => li.dataset.seq));
  check(strokes.join() === "7,6,5,4,3,2,1", `each of the seven strokes listed once: ${strokes}`);
  await page.screenshot({ path: join(plan.screenshots, "desk-table-en.png") });

  // A frame awarded with its reason, on t2; a message for t2's boards.
  await page.click('tr.table[data-table="t2"] button.name');
  await page.selectOption("section.panel select[name=award_side]", "1");
  await page.selectOption("section.panel select[name=award_reason]", "conduct");
  await act("award", "t2 applies the award of the frame to Dave for conduct");
  await waitFor(page, "t2 shows Dave a frame up", () =>
    document.querySelectorAll('tr.table[data-table="t2"] .side .frames')[1]?.textContent === "(1)");
  await page.fill("section.panel input[name=message]", "Table 2: your next match starts in 5 minutes");
  await page.click("section.panel form.message button[type=submit]");
  await waitFor(page, "the message is on t2's retained topic, read back", () =>
    document.querySelector("section.panel form.message small")?.textContent.includes("5 minutes"));

  // t2's match finished (the next frame, then conceded by its striker): tonight's results, and
  // its sheet printed (Chromium's PDF of the page in print media: the sheet alone, A4).
  await act("next_frame", "t2 goes on to its next frame");
  await act("concede_match", "t2's striker concedes the match");
  await page.click('nav.tabs button[data-tab="results"]');
  await page.click('.results button[data-sheet="t2"]');
  await page.waitForSelector('.sheet[data-table="t2"]', WAIT);
  const sheet = await page.$eval('.sheet[data-table="t2"]', (e) => e.textContent);
  check(sheet.includes("club") && sheet.includes("t2") && sheet.includes("Cath") && sheet.includes("Dave")
    && /awarded/.test(sheet) && /Winner: (Cath|Dave)/.test(sheet), `t2's sheet names the venue, the table, both players, the award and the winner`);
  await page.screenshot({ path: join(plan.screenshots, "desk-results-en.png") });
  await page.emulateMedia({ media: "print" });
  const printed = await page.evaluate(() => ({
    bar: getComputedStyle(document.querySelector(".bar")).display, sheet: getComputedStyle(document.querySelector(".sheet")).display }));
  check(printed.bar === "none" && printed.sheet !== "none", "printing shows the sheet alone");
  const pdf = await page.pdf({ path: plan.pdf, format: "A4", printBackground: true });
  check(pdf.length > 1000 && pdf.subarray(0, 5).toString() === "%PDF-", `the sheet prints as an A4 PDF (${pdf.length} bytes)`);
  await page.emulateMedia({ media: "screen" });

  // Tonight's results are the venue's, not the page's: a second match on t2 finishes (so t2's
  // retained record is no longer Cath v Dave's), and after a reload both sheets are listed,
  // read back from the desk's retained `desk/results`.
  await page.click("nav.tabs button:first-child");
  await page.uncheck('tr.table[data-table="t1"] input[type=checkbox]');
  await page.check('tr.table[data-table="t2"] input[type=checkbox]');
  await page.fill("form.start input[name=a]", "Eve");
  await page.fill("form.start input[name=b]", "Finn");
  await page.fill("form.start input[name=frames]", "1");
  await page.fill("form.start input[name=clock]", "");
  await page.click("form.start button[type=submit]");
  await waitFor(page, "t2 begins Eve v Finn", () =>
    [...document.querySelectorAll('tr.table[data-table="t2"] .side .who')].map((w) => w.textContent).join() === "Eve,Finn");
  await page.click('tr.table[data-table="t2"] button.name');
  await act("concede_match", "Eve v Finn is conceded on t2");
  const results = (page, n) => waitFor(page, `${n} results listed`, (n) => {
    const li = [...document.querySelectorAll(".results li")].map((l) => l.textContent);
    return li.length === n && li[0].includes("Cath") && li[1].includes("Eve"); // in the order they ended
  }, n);
  await page.click('nav.tabs button[data-tab="results"]');
  await results(page, 2);
  await waitFor(page, "the desk has written both to the venue's results, acknowledged by the broker", () => {
    const link = window.cueboardDesk;
    return link.resultsKept && JSON.parse(link.resultsKept.records).length === 2 && Object.keys(link.client.outgoing).length === 0;
  });
  const printable = async (page, who) => {
    await page.click(`.results li:has-text("${who}") button[data-sheet]`);
    await waitFor(page, `${who}'s sheet is shown`, (who) => document.querySelector(".sheet")?.textContent.includes(who), who);
    await page.emulateMedia({ media: "print" });
    const shown = await page.evaluate(() => ({
      bar: getComputedStyle(document.querySelector(".bar")).display, sheet: getComputedStyle(document.querySelector(".sheet")).display,
      night: getComputedStyle(document.querySelector(".results .new-night")).display }));
    await page.emulateMedia({ media: "screen" });
    return shown.bar === "none" && shown.night === "none" && shown.sheet !== "none";
  };
  await page.reload();
  await signIn(page, plan.desk);
  await page.waitForSelector('nav.tabs button[data-tab="results"]', WAIT);
  await page.click('nav.tabs button[data-tab="results"]');
  await results(page, 2);
  check(await printable(page, "Cath"), "after a reload, Cath v Dave's sheet (no longer t2's retained record) is listed and prints alone");
  await page.screenshot({ path: join(plan.screenshots, "desk-results-reload-en.png") });

  // A set-up the table refuses: the table's reason in the form.
  await page.click("nav.tabs button:first-child");
  await page.uncheck('tr.table[data-table="t1"] input[type=checkbox]');
  await page.uncheck('tr.table[data-table="t2"] input[type=checkbox]');
  await page.check('tr.table[data-table="t3"] input[type=checkbox]');
  await page.fill("form.start input[name=a]", "Ann");
  await page.fill("form.start input[name=b]", "Ann");
  await page.click("form.start button[type=submit]");
  await waitFor(page, "t3 refuses two players of one name, and the form shows its reason", () => {
    const a = document.querySelector('form.start .answer[data-table="t3"]');
    return a && a.dataset.state === "refused" && a.textContent.includes("every player needs a different name");
  });
  await waitFor(page, "the refusal is t3's latest, on its line", () =>
    document.querySelector('tr.table[data-table="t3"] .rejected').textContent.includes("different name"));

  // A table going offline (its will) and coming back.
  await ask("stop t3");
  await waitFor(page, "t3 is shown offline", () =>
    document.querySelector('tr.table[data-table="t3"] .status').dataset.status === "offline");
  await page.screenshot({ path: join(plan.screenshots, "desk-offline-en.png") });
  // A line for an offline table gets no answer, and the desk says so (never "applied").
  await page.click('tr.table[data-table="t3"] button.name');
  await page.click('section.panel button[data-action="redo"]');
  await page.click('section.panel button[data-confirm="yes"]');
  await waitFor(page, "the offline t3 leaves the desk's redo unanswered, said as such", () =>
    document.querySelector('section.panel[data-table="t3"] .answer')?.dataset.state === "unanswered");
  await page.click("nav.tabs button:first-child");
  await ask("start t3");
  await waitFor(page, "t3 is shown online again", () =>
    document.querySelector('tr.table[data-table="t3"] .status').dataset.status === "online");

  // Filtering: a player's name keeps the tables they play at.
  await page.fill("input.filter", "dave");
  await waitFor(page, "the filter keeps t1 (Dave plays there; t2 is Eve v Finn's now)", () =>
    [...document.querySelectorAll("tr.table")].map((r) => r.dataset.table).join() === "t1");
  await page.fill("input.filter", "");
  check(page.errors.length === 0, `no errors on the desk's page: ${page.errors.join(" | ")}`);

  // The tablet, and German.
  const tablet = await open(browser, { width: 1280, height: 800 }, "de");
  await signIn(tablet, plan.desk2); // each device its own login (one login per device)
  await waitFor(tablet, "the tablet in German lists the tables", () => document.querySelectorAll("tr.table").length === 3
    && document.querySelector("thead").textContent.includes("Tisch"));
  await tablet.click('tr.table[data-table="t2"] button.name');
  await tablet.waitForSelector("section.panel", WAIT);
  const fits = await tablet.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1);
  check(fits, "the tablet's page is no wider than the tablet");
  await tablet.screenshot({ path: join(plan.screenshots, "desk-tablet-de.png") });
  // The second desk has tonight's results too, from the venue's copy.
  await tablet.click('nav.tabs button[data-tab="results"]');
  await results(tablet, 2);
  check(await printable(tablet, "Cath"), "a second desk lists Cath v Dave's sheet and prints it alone");
  const laptopDe = await open(browser, { width: 1366, height: 768 }, "de");
  await signIn(laptopDe, plan.desk3);
  await laptopDe.waitForSelector('tr.table[data-table="t3"]', WAIT);
  await laptopDe.check('tr.table[data-table="t1"] input[type=checkbox]');
  await laptopDe.screenshot({ path: join(plan.screenshots, "desk-laptop-de.png") });
  // A trusted device keeps the login in the browser's password store, never in web storage
  // (shared/credentials.js): a reload signs in from the store where the browser keeps one, else
  // asks again (headless Chromium has no password manager: asked again).
  const tabletEn = await open(browser, { width: 1280, height: 800 });
  await tabletEn.check("form.signin input[name=trust]");
  await signIn(tabletEn, plan.desk4);
  await tabletEn.waitForSelector('tr.table[data-table="t3"]', WAIT);
  const webStorage = () => tabletEn.evaluate(() => [localStorage, sessionStorage]
    .flatMap((s) => Object.keys(s).map((k) => `${k}=${s.getItem(k)}`)).join("\n"));
  check(!(await webStorage()).includes(plan.desk4.password), "a trusted tablet keeps no password in web storage");
  await tabletEn.reload();
  await waitFor(tabletEn, "a trusted tablet after a reload: signed in from the browser's store, or asked again",
    () => document.querySelectorAll("tr.table").length === 3 || document.querySelector("form.signin"));
  if (await tabletEn.$("form.signin")) await signIn(tabletEn, plan.desk4);
  await waitFor(tabletEn, "the trusted tablet is signed in", () => document.querySelectorAll("tr.table").length === 3);
  check(!tabletEn.url().includes(plan.desk4.password), "the address still carries no credentials");
  check(!(await webStorage()).includes(plan.desk4.password), "nor web storage, after the reload");
  await tabletEn.screenshot({ path: join(plan.screenshots, "desk-tablet-en.png") });

  // A scorer's login: the broker lets it read its own table only, and refuses its match line for
  // another table ("Not authorized" in the PUBACK): the page shows the broker's denial.
  const scorer = await open(browser, { width: 1366, height: 768 });
  await signIn(scorer, plan.scorer);
  await waitFor(scorer, "the scorer's page shows t1 only", () => document.querySelector('tr.table[data-table="t1"]'));
  check(await scorer.$$eval("tr.table", (r) => r.length) === 1, "the broker gives a scorer no other table");
  const denied = await scorer.evaluate(() => new Promise((resolve) => {
    const link = window.cueboardDesk;
    const p = link.send("t2", { type: "match", game: "snooker", sides: ["Eve", "Mallory"], best_of: 1 }, "new match", "desk-scorer-test-1");
    const poll = () => (p.state === "sent" ? setTimeout(poll, 50) : resolve({ state: p.state, reason: p.reason }));
    poll();
  }));
  check(denied.state === "denied" && /not authori[sz]ed/i.test(denied.reason), `a scorer's match line for t2 is denied by the broker: ${JSON.stringify(denied)}`);
  const t2 = await row(page, "t2");
  check(JSON.stringify(t2.sides.map((s) => s[0])) === '["Eve","Finn"]', "t2's match is still Eve v Finn on the desk");

  // "Start a new night" (confirmed) clears tonight's results on every desk; the tables' retained
  // records of matches that ended before it do not come back after a reload.
  await page.click('nav.tabs button[data-tab="results"]');
  await tablet.click('.results button[data-action="new_night"]');
  check(await page.$$eval(".results li", (l) => l.length) === 2, "nothing is cleared before the confirmation");
  await tablet.click('.results button[data-confirm="yes"]');
  await waitFor(page, "the new night has cleared the first desk's results", () =>
    !document.querySelector(".results li") && document.querySelector(".results .none"));
  await waitFor(tablet, "the broker has the new night", () => Object.keys(window.cueboardDesk.client.outgoing).length === 0);
  await page.reload();
  await signIn(page, plan.desk);
  await page.waitForSelector('nav.tabs button[data-tab="results"]', WAIT);
  await page.click('nav.tabs button[data-tab="results"]');
  await waitFor(page, "after a reload the new night has no results, though t2's record is retained", () =>
    window.cueboardDesk.resultsSeen && window.cueboardDesk.tables.get("t2")?.record && document.querySelector(".results .none"));
  check(page.errors.length === 0, `no errors on the desk's page: ${page.errors.join(" | ")}`);
} finally {
  await browser.close();
  closeInput();
}
