// The venue's player list in the draw form, a groups night and a withdrawal at the desk (driven
// by tests/screen/test_desk_players.py, which retains last night's list and reads back what the
// desk published).
// node tests/screen/desk_players_e2e.mjs plan.json
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, launch, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const WAIT = { timeout: 60000 };
mkdirSync(plan.screenshots, { recursive: true });

async function waitFor(page, what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, WAIT);
  } catch (e) {
    const text = await page.evaluate(() => document.querySelector(".tonight")?.innerText.slice(0, 800) || "");
    throw new Error(`FAILED: ${what}: ${e.message.split("\n")[0]} (tonight: ${JSON.stringify(text)}; errors: ${page.errors.join(" | ")})`);
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
  await page.goto(`${plan.base}/desk?lang=en`);
  await page.fill("input[name=user]", plan.desk.user);
  await page.fill("input[name=password]", plan.desk.password);
  await page.click("form.signin button[type=submit]");
  await page.click('nav.tabs button[data-tab="tonight"]');
  await page.selectOption("select[name=kind]", "groups");
  await waitFor(page, "the draw form offers a page of the venue's list, the rest on typing, with the kept handicaps", (listed) =>
    document.querySelectorAll("fieldset.pick input[name=pick]").length === 60
    && (document.querySelector("fieldset.pick .more")?.textContent || "").startsWith(`${listed - 60} more`)
    && document.querySelector('fieldset.pick label[data-player="Gus Park"] .hc')?.textContent === "+21", plan.listed);
  for (const name of plan.tonight) await page.check(`fieldset.pick label[data-player="${name}"] input`);
  await page.fill("fieldset.pick input[name=pick_find]", "zed member 6");
  const narrowed = await page.$$eval("fieldset.pick input[name=pick]", (b) => b.map((x) => x.value));
  check(narrowed.length === 8 + 10 && narrowed.filter((n) => n.startsWith("Zed")).length === 10,
    `typing narrows the list (the ticked stay): ${narrowed.length} shown`);
  await page.click('fieldset.pick button[data-action="add-picked"]');
  const lines = (await page.inputValue("textarea[name=players]")).split("\n");
  check(lines.length === 8 && lines.includes("Bob Jones, 7") && lines.includes("Ann Smith"),
    `the ticked players are added with their handicaps: ${JSON.stringify(lines)}`);
  await page.fill("textarea[name=players]", `${lines.join("\n")}\nIvy Chen, 5`);
  await page.fill("input[name=comp_name]", "Winter Cup");
  await page.fill("input[name=groups]", "2");
  await page.fill("input[name=advance]", "2");
  await page.screenshot({ path: join(plan.screenshots, "desk-players-en.png") });
  await page.click("form.begin button[type=submit]");
  await waitFor(page, "the groups night is drawn: two groups' tables beside the knockout", () =>
    document.querySelector('.tonight[data-kind="groups"]') && document.querySelectorAll(".group-table").length === 2
    && [...document.querySelectorAll(".group-table")].every((x) => x.dataset.state === "ranked"));
  await page.selectOption("select[name=withdraw]", "Hal Wood");
  await page.click('.withdraw button[data-action="withdraw"]');
  const sentence = await page.textContent(".withdraw .confirm");
  check(sentence.includes("Withdraw Hal Wood?") && sentence.includes("walkovers"), `the withdrawal is asked in a sentence: ${sentence}`);
  await page.click('.withdraw .confirm button[data-confirm="yes"]');
  await waitFor(page, "the withdrawal is said and Hal Wood's 4 group matches (a group of 5) are walkovers", () =>
    (document.querySelector(".tonight .said")?.textContent || "").includes("Hal Wood is withdrawn")
    && [...document.querySelectorAll(".match-box")].filter((b) => b.querySelector(".st.walkover")).length === 4
    && document.querySelector('.group-table tr.withdrawn[data-player="Hal Wood"]'));
  const said = await page.textContent(".tonight .said");
  check(/Hal Wood is withdrawn; 4 walkovers/.test(said), `the withdrawal is said: ${said}`);
  const handable = await page.$$eval(".match-box", (bs) => bs.filter((b) => b.querySelector(".st.walkover") && b.querySelector("[data-hand]")).length);
  check(handable === 0, `a walkover is never offered to a table (${handable})`);
  await page.screenshot({ path: join(plan.screenshots, "desk-groups-en.png") });
  check(page.errors.length === 0, `no errors on the desk: ${page.errors.join(" | ")}`);
} finally {
  await browser.close();
  closeInput();
}
