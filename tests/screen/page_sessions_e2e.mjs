// Two devices on one login (driven by tests/screen/test_page_sessions.py, which runs the venue's
// broker with the venue tool's ACL and the pages over HTTPS, and counts connections at the broker).
// node tests/screen/page_sessions_e2e.mjs plan.json
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, launch, ask, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const WAIT = { timeout: 60000 };
mkdirSync(plan.shots, { recursive: true });
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const LAPTOP = { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1 };

/** A page in a context of its own (another device), counting the WebSockets it opens. */
async function device(browser, size, url) {
  const ctx = await browser.newContext({ ...size, ignoreHTTPSErrors: true });
  const page = await ctx.newPage();
  page.sockets = [];
  page.errors = [];
  page.on("websocket", (ws) => page.sockets.push(ws.url()));
  page.on("pageerror", (e) => page.errors.push(String(e)));
  await page.goto(url);
  return page;
}

async function waitFor(page, what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, WAIT);
  } catch (e) {
    throw new Error(`FAILED: ${what}: ${e.message.split("\n")[0]}`);
  }
  check(true, what);
}

/**
 * Nothing comes back by itself: that can only be seen by watching for a while. Three of the page's
 * reconnect periods and one more (a page that tried again would have opened a WebSocket in each);
 * a slow machine only makes the watch longer, never the test fail wrongly.
 */
const watch = (page, periodMs) => page.waitForTimeout(3 * periodMs + 1000);

/**
 * Settled: what the takeover cost is reported (the broker's connections of `login` since the last
 * mark: the newcomer's, and on a broker that does not name a takeover one more from each side),
 * then neither page opens a WebSocket and the broker takes no connection of the login while watched.
 */
async function quiet(pages, periodMs, login, what) {
  const before = pages.map((p) => p.sockets.length);
  console.log(`  ${what}: WebSockets so far ${before.join(", ")}`);
  await ask(`settled ${login} ${what.replace(/ /g, "_")}`);
  await watch(pages[0], periodMs);
  const after = pages.map((p) => p.sockets.length);
  check(after.every((n, i) => n === before[i]), `${what}: no page tried again by itself (${before} then ${after} WebSockets)`);
  await ask(`count ${login} 0`);
}

/** The words a taken page says, checked and returned. */
async function sayTaken(page, what) {
  const said = (await page.locator("[data-code=session-taken]").first().textContent()).trim();
  console.log(`  said: ${said}`);
  check(/another tab or on another/.test(said), `${what}: says the login is in use in another tab or device`);
  check(await page.locator(".take-back").count() === 1, `${what}: one button to take it back`);
  return said;
}

const deskOnline = () => document.querySelector(".bar .conn")?.dataset.state === "online";
const deskTaken = () => document.querySelector("[data-code=session-taken]") !== null && window.cueboardDesk.connection === "taken";
const scorerOnline = () => window.cueboardScorer?.model.connection === "online";
const scorerTaken = () => window.cueboardScorer?.model.connection === "taken"
  && document.querySelector(".error[data-code=session-taken]") !== null;

const browser = await launch(plan.chromium);
try {
  // ---- the desk on two laptops with one login ---------------------------------------------------
  const signIn = async (page) => {
    await page.fill("input[name=user]", plan.desk.user);
    await page.fill("input[name=password]", plan.desk.password);
    await page.click("form.signin button[type=submit]");
  };
  const first = await device(browser, LAPTOP, `${plan.url}/desk`);
  await signIn(first);
  await waitFor(first, "the first desk is signed in", deskOnline);
  await ask(`mark ${plan.desk.user}`);
  const second = await device(browser, LAPTOP, `${plan.url}/desk`);
  await signIn(second);
  await waitFor(second, "the second desk on the same login is signed in", deskOnline);
  await waitFor(first, "the first desk says its session was taken", deskTaken);
  await waitFor(second, "the second desk is in", deskOnline);
  await sayTaken(first, "the first desk");
  await first.screenshot({ path: join(plan.shots, "desk-taken-laptop.png") });
  await quiet([first, second], plan.desk_reconnect_ms, plan.desk.user, "desk");
  check(await second.evaluate(deskOnline) && await first.evaluate(deskTaken), "the second is still in, the first still says taken");

  // The button takes it back; the other desk then says the same, and neither tries again.
  await first.click(".take-back");
  await waitFor(first, "the first desk took its session back", deskOnline);
  await waitFor(second, "the second desk says its session was taken", deskTaken);
  await waitFor(first, "the first desk is in", deskOnline);
  await sayTaken(second, "the second desk");
  await second.screenshot({ path: join(plan.shots, "desk-taken-back-laptop.png") });
  await quiet([first, second], plan.desk_reconnect_ms, plan.desk.user, "desk taken back");
  check(await first.evaluate(deskOnline) && await second.evaluate(deskTaken), "the first is in, the second says taken");
  check(first.errors.length === 0 && second.errors.length === 0, `no page errors (${[...first.errors, ...second.errors]})`);
  await first.context().close();
  await second.context().close();

  // ---- the scorer on two phones with one card ---------------------------------------------------
  const loginKey = `cueboard-score-login:${plan.pages_broker}|${plan.venue}/${plan.table}`;
  const keptLogin = (page) => page.evaluate((k) => localStorage.getItem(k), loginKey);
  const phoneA = await device(browser, PHONE, plan.card_url);
  await waitFor(phoneA, "the first phone is signed in with the card", scorerOnline);
  await ask(`mark ${plan.scorer.user}`);
  const phoneB = await device(browser, PHONE, plan.card_url);
  await waitFor(phoneB, "the second phone with the same card is signed in", scorerOnline);
  await waitFor(phoneA, "the first phone says its session was taken", scorerTaken);
  await waitFor(phoneB, "the second phone is in", scorerOnline);
  await sayTaken(phoneA, "the first phone");
  check(await keptLogin(phoneA) !== null, "the first phone keeps its card's login (not refused: no new card needed)");
  check(!/scan a new card/i.test(await phoneA.locator("main").textContent()), "and is not told to scan a new card");
  check(await phoneA.locator(".board, main.scorer").count() > 0, "the board stays in view");
  await phoneA.screenshot({ path: join(plan.shots, "scorer-taken-phone.png") });
  await quiet([phoneA, phoneB], plan.scorer_reconnect_ms, plan.scorer.user, "scorer");
  check(await phoneB.evaluate(scorerOnline) && await phoneA.evaluate(scorerTaken), "the second is in, the first says taken");

  await phoneA.click(".take-back");
  await waitFor(phoneA, "the first phone took its session back", scorerOnline);
  check(await phoneA.locator("[data-code=session-taken]").count() === 0, "and no longer says taken");
  await waitFor(phoneB, "the second phone says its session was taken", scorerTaken);
  await waitFor(phoneA, "the first phone is in", scorerOnline);
  await sayTaken(phoneB, "the second phone");
  check(await keptLogin(phoneB) !== null, "the second phone keeps its card's login");
  await phoneB.screenshot({ path: join(plan.shots, "scorer-taken-back-phone.png") });
  await quiet([phoneA, phoneB], plan.scorer_reconnect_ms, plan.scorer.user, "scorer taken back");
  check(await phoneA.evaluate(scorerOnline) && await phoneB.evaluate(scorerTaken), "the first is in, the second says taken");
  check(phoneA.errors.length === 0 && phoneB.errors.length === 0, `no page errors (${[...phoneA.errors, ...phoneB.errors]})`);

  // In another of the page's languages, the same in its words.
  const german = await device(browser, PHONE, plan.card_url.replace("#", "&lang=de#"));
  await waitFor(german, "a third phone (German) is signed in", scorerOnline);
  await waitFor(phoneA, "the first phone is taken again", scorerTaken);
  await phoneA.click(".take-back");
  await waitFor(german, "the German phone says its session was taken", scorerTaken);
  const deutsch = (await german.locator("[data-code=session-taken]").textContent()).trim();
  console.log(`  said: ${deutsch}`);
  check(/anderen Tab/.test(deutsch) && (await german.locator(".take-back").textContent()).includes("zurückholen"), "in German");
  await german.screenshot({ path: join(plan.shots, "scorer-taken-phone-de.png") });
  // A second tab of the same phone (the kept login): it takes the session, and the sender lock
  // the tabs of one login share moves to it, so its taps are sent (the taken tab sends nothing).
  const tab = await phoneA.context().newPage();
  tab.sockets = [];
  tab.on("websocket", (ws) => tab.sockets.push(ws.url()));
  await tab.goto(`${plan.url}/score`);
  await waitFor(tab, "a second tab on the same phone is signed in with the kept login", scorerOnline);
  await waitFor(phoneA, "the first tab says its session was taken", scorerTaken);
  await waitFor(tab, "the second tab is the one that sends", () => window.cueboardScorer.model.sender === true);
  check(await phoneA.evaluate(() => window.cueboardScorer.model.sender) === false, "the taken tab let the sender lock go");
  await phoneA.click(".take-back");
  await waitFor(phoneA, "the first tab took it back", scorerOnline);
  await waitFor(tab, "the second tab says taken", scorerTaken);
  await waitFor(phoneA, "and the first tab sends again", () => window.cueboardScorer.model.sender === true);
  await tab.close();
  await german.close();
  await phoneA.close();
  await phoneB.close();
} finally {
  await browser.close();
  closeInput();
}
console.log("all ok");
