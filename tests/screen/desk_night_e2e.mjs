// The desk and the venue service (driven by tests/screen/test_desk_night.py, which runs the broker,
// the stand-in tables and `cueboard venue serve`, and answers "need: stop-service").
// node tests/screen/desk_night_e2e.mjs plan.json
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
    const seen = await page.evaluate(() => { const l = window.cueboardDesk; const s = document.querySelector(".tonight .service");
      return `${l && l.connection} service=${JSON.stringify(l && l.service)} auto=${l && l.competition && l.competition.auto} shown=${s && s.outerHTML}`; });
    throw new Error(`FAILED: ${what}: ${e.message.split("\n")[0]} (page errors: ${page.errors.join(" | ")}; ${seen})`);
  }
  check(true, what);
}

const service = (page) => page.$eval(".tonight .service", (s) => ({ state: s.dataset.service, hander: s.dataset.hander, text: s.textContent }));

const browser = await launch(plan.chromium);
try {
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1, ignoreHTTPSErrors: true });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  const signIn = async () => {
    await page.goto(`${plan.base}/desk?lang=en`);
    await page.fill("input[name=user]", plan.desk.user);
    await page.fill("input[name=password]", plan.desk.password);
    await page.click("form.signin button[type=submit]");
    await waitFor(page, "signed in, the tables listed", () => document.querySelector('tr.table[data-table="t2"]'));
    await page.click('nav.tabs button[data-tab="tonight"]');
  };
  await signIn();

  // The service runs and hands nothing until asked: the desk says so.
  await waitFor(page, "the desk shows the venue service running, handing nothing",
    () => { const s = document.querySelector(".tonight .service"); return s && s.dataset.service === "online" && s.dataset.hander === ""; });
  check((await service(page)).text.includes("it hands nothing until this is ticked"), "in words: running, handing nothing");
  check(!(await page.isChecked(".tonight input[name=auto]")), "handing by itself is off");

  // Switched on from the desk: the service hands round 1 (as the `venue` login), this tab does not.
  await page.check(".tonight input[name=auto]");
  await waitFor(page, "the desk shows the service handing", () => document.querySelector(".tonight .service")?.dataset.hander === "service");
  check((await service(page)).text.includes("The venue service hands the ready matches"), "in words: the service hands");
  await waitFor(page, "round 1 handed to both tables by the service, not by this desk", () => {
    const c = window.cueboardDesk.competition;
    const r1 = c && c.matches.filter((m) => m.round === 1);
    return r1 && r1.length === 2 && r1.every((m) => m.table && m.handed_by === "venue");
  });
  await page.screenshot({ path: join(plan.screenshots, "desk-service-en.png") });

  // A reload forgets nothing: the switch is the competition's, kept by the broker.
  await signIn();
  await waitFor(page, "after a reload the service still hands, and the desk says so",
    () => document.querySelector(".tonight .service")?.dataset.hander === "service");
  check(await page.isChecked(".tonight input[name=auto]"), "handing by itself is still on after a reload");

  // Switched off from the desk: kept for the service too.
  await page.uncheck(".tonight input[name=auto]");
  await waitFor(page, "switched off: the service hands nothing", () => document.querySelector(".tonight .service")?.dataset.hander === "");
  await ask("auto-off");

  // The service stops: the desk says so, and says this tab hands only while it stays open.
  await ask("stop-service");
  await waitFor(page, "the desk shows the service not running", () => document.querySelector(".tonight .service")?.dataset.service === "offline");
  check((await service(page)).text.includes("is not running"), "in words: not running");
  await page.check(".tonight input[name=auto]");
  await waitFor(page, "with no service, the desk says it hands while it stays open",
    () => document.querySelector(".tonight .service")?.dataset.hander === "here");
  check((await service(page)).text.includes("this desk hands the matches only while it stays open"), "in words: this desk hands");
  check(page.errors.length === 0, `no page errors (${page.errors.join(" | ")})`);
  console.log("ok");
} finally {
  closeInput();
  await browser.close();
}
