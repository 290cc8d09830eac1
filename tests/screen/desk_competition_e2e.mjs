// Tonight's competition at the desk end to end (driven by tests/screen/test_desk_competition.py, which
// runs the broker, the stand-in tables and the server, and plays the tables when asked:
// "need: play" (each table with a match handed starts it and its home side wins), "need: finish t1").
// node tests/screen/desk_competition_e2e.mjs plan.json
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, launch, ask, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const WAIT = { timeout: 60000 };
mkdirSync(plan.screenshots, { recursive: true });

async function open(browser, path, viewport, lang = "en") {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  // The refused fixture file is a 422 the page shows; Chromium also logs it as a failed load.
  page.on("console", (m) => { if (m.type() === "error" && !m.text().includes("status of 422")) page.errors.push(m.text()); });
  await page.goto(`${plan.base}${path}?lang=${lang}`);
  return page;
}

// Each desk device signs in with a login of its own (one login per device: a second connection of
// one login takes the first one's session).
async function signIn(page, login = plan.desk) {
  await page.fill("input[name=user]", login.user);
  await page.fill("input[name=password]", login.password);
  await page.click("form.signin button[type=submit]");
  await waitFor(page, `signed in, the tables listed (page errors: ${page.errors.join(" | ")})`,
    () => document.querySelector('tr.table[data-table="t4"]'));
}

async function waitFor(page, what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, WAIT);
  } catch (e) {
    const link = await page.evaluate(() => { const l = window.cueboardDesk; return l && `${l.connection} ${l.refusal} ${[...l.tables.keys()]} ${JSON.stringify((l.competition?.matches || []).map((m) => [m.label, m.sides, m.winner, m.table, m.started]))} ${JSON.stringify([...l.tables.values()].map((t) => [t.name, t.next?.fixture, t.state?.sides?.length, t.state?.match_over]))}`; });
    throw new Error(`FAILED: ${what}: ${e.message.split("\n")[0]} (page errors: ${page.errors.join(" | ")}; link: ${link})`);
  }
  check(true, what);
}

const box = (page, fixture) => page.$eval(`.match-box[data-fixture="${fixture}"]`, (b) => ({ status: b.dataset.status, text: b.textContent }));

const browser = await launch(plan.chromium);
try {
  const page = await open(browser, "/desk", { width: 1366, height: 768 });
  await signIn(page);
  await page.click('nav.tabs button[data-tab="tonight"]');

  // A hostile match day: refused with the file's line and reason, nothing begun.
  await page.selectOption("form.begin select[name=kind]", "league");
  await page.fill("form.begin input[name=comp_name]", "Division 1");
  await page.setInputFiles("form.begin input[name=fixtures]", { name: "day5.csv", mimeType: "text/csv",
    buffer: Buffer.from("fixture,home,away,best_of\nD1-1,Ann,Bob,3\nD1-2,Cat\u0007Lee,Dan,3\n") });
  await page.click("form.begin button[type=submit]");
  await waitFor(page, "a fixture file with a control character is refused with its line and reason", () => {
    const e = document.querySelector(".comp-errors");
    return e && e.textContent.includes("day5.csv line 3") && e.textContent.includes("control character");
  });
  check(await page.evaluate(() => window.cueboardDesk.competition) === null, "a refused file begins no competition");

  // A seeded knockout of 8 with handicaps, best of 1.
  await page.selectOption("form.begin select[name=kind]", "knockout");
  await page.fill("form.begin input[name=comp_name]", "Club Cup");
  await page.fill("form.begin textarea[name=players]", "Ann\nBob, 7\nCat, 14\nDan\nEve, 21\nFay\nGus, 7\nHal, 28");
  await page.fill("form.begin input[name=comp_best_of]", "1");
  await page.click("form.begin button[type=submit]");
  await waitFor(page, "the draw: 7 matches, the 4 of round 1 ready", () => document.querySelectorAll(".match-box").length === 7
    && document.querySelectorAll('.match-box[data-status="ready"]').length === 4);
  const first = await box(page, "club-cup-R1-1");
  check(first.text.includes("Ann") && first.text.includes("Hal") && first.text.includes("+28"), `seed 1 meets seed 8, Hal receives 28: ${first.text}`);

  // Handed to t1 by hand: t1's retained next; then started by the desk, once.
  await page.selectOption('.match-box[data-fixture="club-cup-R1-1"] select[name=hand_to]', "t1");
  await page.click('.match-box[data-fixture="club-cup-R1-1"] button[data-hand]');
  await waitFor(page, "t1 shows the match handed to it (its retained next, read back)", () =>
    document.querySelector('tr.table[data-table="t1"] .status .next')?.textContent.includes("Ann v Hal"));
  await page.click('.match-box[data-fixture="club-cup-R1-1"] button[data-start]');
  await page.click('.tonight .confirm button[data-confirm="yes"]');
  await waitFor(page, "t1 answers the desk's start_next: applied", () => document.querySelector(".tonight .answer")?.dataset.state === "applied");
  await waitFor(page, "R1-1 is playing on t1", () => document.querySelector('.match-box[data-fixture="club-cup-R1-1"]')?.dataset.status === "playing");
  const again = await page.evaluate(() => window.cueboardNight.hand("club-cup-R1-1", "t2"));
  check(/already begun on t1/.test(again), `a fixture a table has begun is not handed again: ${again}`);
  const twice = await page.evaluate(() => new Promise((resolve) => {
    const p = window.cueboardDesk.send("t1", { type: "start_next", fixture: "club-cup-R1-1" }, "again", "desk-again-1");
    const poll = () => (["sent", "delivered"].includes(p.state) ? setTimeout(poll, 50) : resolve({ state: p.state, reason: p.reason }));
    poll();
  }));
  check(twice.state === "refused" && /already/.test(twice.reason), `a second start_next of the fixture is refused by the table: ${JSON.stringify(twice)}`);

  // t1's match over: the winner moves on by himself.
  await ask("finish t1");
  await waitFor(page, "R1-1 is done and Ann is in R2-1", () => document.querySelector('.match-box[data-fixture="club-cup-R1-1"]')?.dataset.status === "done"
    && document.querySelector('.match-box[data-fixture="club-cup-R2-1"] .who .n')?.textContent.startsWith("Ann"));

  // The rest by themselves: each ready match to the next free table.
  await page.check(".tonight input[name=auto]");
  await waitFor(page, "the three other matches of round 1 are handed to free tables", () =>
    document.querySelectorAll('.match-box[data-status="handed"]').length === 3);
  const handed = await page.$$eval('.match-box[data-status="handed"] .st', (e) => e.map((x) => x.textContent));
  check(new Set(handed).size === 3, `each to its own table: ${handed}`);
  await page.screenshot({ path: join(plan.screenshots, "desk-competition-laptop-en.png") });
  for (let round = 0; round < 4; round += 1) {
    if (await page.$(".champion-name")) break;
    const before = await page.$$eval('.match-box[data-status="done"]', (e) => e.length);
    await ask("play");
    await waitFor(page, `round of play ${round + 1}: more matches done, the next handed or a champion`, (before) =>
      document.querySelector(".champion-name") || (document.querySelectorAll('.match-box[data-status="done"]').length > before
        && document.querySelectorAll('.match-box[data-status="handed"]').length > 0), before);
  }
  await waitFor(page, "the knockout is complete: Ann wins", () => document.querySelector(".champion-name")?.textContent === "Ann");
  const night = await page.evaluate(() => window.cueboardDesk.competition);
  check(night.matches.filter((m) => m.winner !== null).length === 7, "all 7 matches have a winner in the retained competition");

  // Issue 28's leftovers on t1: its history from the table's retained list, a correction's
  // preview (the table's answer before anything is sent), a message until a time, offline and back.
  await ask("history t1");
  await page.click('tr.table[data-table="t1"] button.name');
  await waitFor(page, "t1's history comes from its retained list, with where each came from", () => {
    const items = [...document.querySelectorAll("section.panel .history li")].map((li) => li.textContent);
    // Where each came from as the table says it (schema/history.schema.json `source`: referee, desk).
    return items.length === 2 && items.some((x) => x.includes("Pot Red") && x.includes("referee"))
      && items.some((x) => x.includes("Pot Pink") && x.includes("desk"));
  });
  await page.click('section.panel .history li[data-seq="1"] button');
  await page.click('section.panel .correction .key[data-key="pot_black"]'); // the scorer's keys (issue 38)
  await page.click('section.panel button[data-action="amend"]');
  await waitFor(page, "the correction's result is shown before it is sent", () =>
    document.querySelector("section.panel .preview")?.dataset.preview === "state"
    && document.querySelector("section.panel .preview").textContent.includes("Ann 5"));
  check(await page.$$eval("section.panel .answer", (a) => a.every((x) => x.dataset.state !== "applied")), "nothing was applied by the preview");
  await page.click('section.panel button[data-confirm="no"]');
  await page.evaluate(() => { window.cueboardDesk.tables.get("t1").events.push({ seq: 9, event: { type: "pot", balls: ["red"] } }); });
  await page.click('section.panel button[data-action="undo"]'); // redraws the panel with the made-up stroke 9
  await page.click('section.panel button[data-confirm="no"]');
  await page.click('section.panel .history li[data-seq="9"] button');
  await page.click('section.panel .correction .key[data-key="pot_black"]');
  await page.click('section.panel button[data-action="amend"]');
  await waitFor(page, "a correction the table would refuse shows the table's reason before anything is sent", () =>
    document.querySelector("section.panel .preview")?.dataset.preview === "refused"
    && document.querySelector("section.panel .preview").textContent.includes("no event 9"));
  await page.click('section.panel button[data-confirm="no"]');
  await page.fill("section.panel input[name=message]", "Final at 22:00");
  await page.fill("section.panel input[name=until]", "23:59");
  await page.click("section.panel form.message button[type=submit]");
  await waitFor(page, "the message and its time are on t1's retained topic, read back", () => {
    const m = window.cueboardDesk.tables.get("t1").message;
    const at = m && m.until ? new Date(m.until) : null;
    return m && m.text === "Final at 22:00" && at && at.getHours() === 23 && at.getMinutes() === 59 && at > new Date()
      && document.querySelector("section.panel form.message small")?.textContent.includes("(until");
  });
  await page.click('section.panel button[data-action="clear_message"]');
  await waitFor(page, "the message is cleared", () => !window.cueboardDesk.tables.get("t1").message);
  await ask("offline t4");
  await waitFor(page, "t4 is shown offline, with since when", () =>
    document.querySelector('tr.table[data-table="t4"] .status')?.dataset.status === "offline"
    && document.querySelector('tr.table[data-table="t4"] .status .since'));
  await ask("online t4");
  await waitFor(page, "t4 is shown online again", () =>
    document.querySelector('tr.table[data-table="t4"] .status')?.dataset.status === "online");

  // A preset for the venue, from the start form.
  await page.click("nav.tabs button:first-child");
  await page.fill("form.start input[name=frames]", "3");
  await page.fill("form.start input[name=preset_name]", "League singles, best of 3");
  await page.click('form.start button[data-action="save_preset"]');
  check(page.errors.length === 0, `no errors on the desk's page: ${page.errors.join(" | ")}`);

  // Another desk (a tablet, in German): the same night, the preset, the players.
  const tablet = await open(browser, "/desk", { width: 1280, height: 800 }, "de");
  await signIn(tablet, plan.desk2);
  await waitFor(tablet, "the second desk has the preset", () =>
    [...document.querySelectorAll("form.start select[name=preset] option")].some((o) => o.value === "League singles, best of 3"));
  await waitFor(tablet, "the second desk offers tonight's players", () =>
    [...document.querySelectorAll("#players option")].some((o) => o.value === "Hal"));
  await tablet.selectOption("form.start select[name=preset]", "League singles, best of 3");
  check(await tablet.inputValue("form.start input[name=frames]") === "3", "the preset fills the form's format");
  await tablet.click('tr.table[data-table="t1"] button.name');
  await waitFor(tablet, "a desk opened later has t1's history at once", () =>
    document.querySelectorAll("section.panel .history li").length === 2);
  await tablet.click('nav.tabs button[data-tab="tonight"]');
  await waitFor(tablet, "the second desk shows the same night, complete", () => document.querySelector(".champion-name")?.textContent === "Ann"
    && document.querySelector("h3")?.textContent.includes("Viertelfinale"));
  const fits = await tablet.evaluate(() => document.documentElement.scrollWidth <= innerWidth + 1);
  check(fits, "the tablet's page is no wider than the tablet");
  await tablet.screenshot({ path: join(plan.screenshots, "desk-competition-tablet-de.png") });

  // The venue's bracket page: anonymous, read only, readable across a hall.
  for (const lang of ["en", "de"]) {
    const hall = await open(browser, "/bracket", { width: 1920, height: 1080 }, lang);
    await waitFor(hall, `the bracket page (${lang}) shows the night and its winner`, () =>
      document.querySelectorAll(".match-box").length === 7 && document.querySelector(".champion-name")?.textContent === "Ann");
    const size = await hall.$eval(".match-box .who", (e) => parseFloat(getComputedStyle(e).fontSize));
    check(size >= 24, `names on the bracket page are ${size}px (at least 24 on 1080 lines)`);
    check(await hall.$$eval(".match-box .ctl", (e) => e.length) === 0, "the bracket page has no controls");
    await hall.screenshot({ path: join(plan.screenshots, `bracket-${lang}.png`) });
    check(hall.errors.length === 0, `no errors on the bracket page: ${hall.errors.join(" | ")}`);
  }

  // The night's knockout ended (for every desk): a league match day from a good file, then a round robin.
  await page.click('nav.tabs button[data-tab="tonight"]');
  await page.click('.tonight button[data-action="end"]');
  await page.click('.tonight .confirm button[data-confirm="yes"]');
  await waitFor(tablet, "the other desk sees the competition ended", () => document.querySelector("form.begin"));
  await page.selectOption("form.begin select[name=kind]", "league");
  await page.fill("form.begin input[name=comp_name]", "Division 1");
  await page.setInputFiles("form.begin input[name=fixtures]", { name: "day5.csv", mimeType: "text/csv", buffer: Buffer.from(
    "day,fixture,home_team,away_team,home,away,best_of\n2026-12-03,D1-05-1,Red Lion,Crown,Ann Smith,Bob Jones,3\n"
    + "2026-12-03,D1-05-2,Red Lion,Crown,Cat Lee & Dan Ross,Eve Hart & Fay Moss,1\n") });
  await page.click("form.begin button[type=submit]");
  await waitFor(page, "the match day's two fixtures are tonight's matches", () =>
    [...document.querySelectorAll(".match-box")].map((b) => b.dataset.fixture).join() === "D1-05-1,D1-05-2"
    && document.querySelector('.match-box[data-fixture="D1-05-2"]').textContent.includes("Cat Lee & Dan Ross"));
  await page.click('.match-box[data-fixture="D1-05-2"] button[data-hand]');
  await waitFor(page, "a pair's fixture handed to the next free table", () =>
    document.querySelector('.match-box[data-fixture="D1-05-2"]').dataset.status === "handed");
  // The hand-off comes back from the broker as the table's retained next (the desk's own publish, read back).
  await waitFor(page, "the table's next, read back from the broker", () =>
    [...window.cueboardDesk.tables.values()].some((x) => x.next?.fixture === "D1-05-2"));
  const pairs = await page.evaluate(() => { const t = [...window.cueboardDesk.tables.values()].find((x) => x.next?.fixture === "D1-05-2"); return t && t.next; });
  check(pairs && JSON.stringify(pairs.sides) === '[["Cat Lee","Dan Ross"],["Eve Hart","Fay Moss"]]' && pairs.format.best_of === 1
    && pairs.competition === "Division 1" && pairs.handed_by === "desk", `the table's next carries the pairs, the format and the competition: ${JSON.stringify(pairs)}`);
  await page.click('.match-box[data-fixture="D1-05-2"] button[data-take-back]');
  await waitFor(page, "taken back: the table's next is cleared", () =>
    ![...window.cueboardDesk.tables.values()].some((x) => x.next?.fixture === "D1-05-2"));
  await page.click('.tonight button[data-action="end"]');
  await page.click('.tonight .confirm button[data-confirm="yes"]');
  await page.selectOption("form.begin select[name=kind]", "round_robin");
  await page.fill("form.begin input[name=comp_name]", "Friday Round Robin");
  await page.fill("form.begin textarea[name=players]", "Ann\nBob, 7\nCat\nDan, 14");
  await page.selectOption("form.begin select[name=comp_preset]", "League singles, best of 3");
  await page.click("form.begin button[type=submit]");
  await waitFor(page, "a round robin of 4: 6 matches in 3 rounds, and its table", () => document.querySelectorAll(".match-box").length === 6
    && document.querySelectorAll(".standings tbody tr").length === 4);
  await page.click('.tonight button[data-action="feed"]');
  await waitFor(page, "round 1's two matches handed to free tables", () => document.querySelectorAll('.match-box[data-status="handed"]').length >= 2);
  await waitFor(page, "the tables' next are read back", () =>
    [...window.cueboardDesk.tables.values()].filter((x) => x.next?.fixture?.startsWith("friday-")).length === 2);
  const rrNext = await page.evaluate(() => [...window.cueboardDesk.tables.values()].map((x) => x.next).find(Boolean));
  check(rrNext && rrNext.format.best_of === 3, `the preset's format goes with the match: ${JSON.stringify(rrNext && rrNext.format)}`);
  await ask("play");
  await waitFor(page, "the round robin's table counts the winners", () =>
    [...document.querySelectorAll(".standings tbody tr")].filter((r) => r.children[2].textContent === "1").length >= 2);
  await page.screenshot({ path: join(plan.screenshots, "desk-round-robin-en.png") });
  const rrHall = await open(browser, "/bracket", { width: 1920, height: 1080 }, "fr");
  await waitFor(rrHall, "the bracket page shows the round robin's table (in French)", () =>
    document.querySelectorAll(".standings tbody tr").length === 4 && document.querySelector("h3")?.textContent.includes("Tour"));
  await rrHall.screenshot({ path: join(plan.screenshots, "bracket-round-robin-fr.png") });
  check(page.errors.length === 0 && rrHall.errors.length === 0, `no errors: ${[...page.errors, ...rrHall.errors].join(" | ")}`);
} finally {
  await browser.close();
  closeInput();
}
