// Pages connect only to their server's broker (driven by tests/screen/test_page_brokers.py, which
// runs the venue's broker, the pages over HTTPS and another broker that counts connections).
// node tests/screen/page_brokers_e2e.mjs plan.json
import { readFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, launch, ask, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const WAIT = { timeout: 60000 };
mkdirSync(plan.shots, { recursive: true });
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
const TABLET = { viewport: { width: 1280, height: 800 }, hasTouch: true, deviceScaleFactor: 1 };
const LAPTOP = { viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1 };
const otherPort = new URL(plan.other).port;

// A context whose pages record every WebSocket they open and every address the policy refused.
async function context(browser, size) {
  const ctx = await browser.newContext({ ...size, ignoreHTTPSErrors: true });
  await ctx.addInitScript(() => {
    window.refusedByPolicy = [];
    document.addEventListener("securitypolicyviolation", (e) => window.refusedByPolicy.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return ctx;
}

async function open(ctx, url) {
  const page = await ctx.newPage();
  page.sockets = [];
  page.errors = [];
  page.on("websocket", (ws) => page.sockets.push(ws.url()));
  page.on("pageerror", (e) => page.errors.push(String(e)));
  const response = await page.goto(url);
  page.policy = response ? response.headers()["content-security-policy"] || "" : "";
  return page;
}

const connectSrc = (policy) => (policy.split("; ").find((d) => d.startsWith("connect-src ")) || "").slice("connect-src ".length);
const toOther = (urls) => urls.filter((u) => u.includes(`:${otherPort}`));

/** Every value in this origin's web storage, as one text (to look for a password in). */
const storage = (page) => page.evaluate(() => [localStorage, sessionStorage]
  .flatMap((s) => Object.keys(s).map((k) => `${k}=${s.getItem(k)}`)).join("\n"));

async function waitFor(page, what, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, WAIT);
  } catch (e) {
    throw new Error(`FAILED: ${what}: ${e.message.split("\n")[0]}`);
  }
  check(true, what);
}

/** A refusal shown in words with its code, and no WebSocket opened by the page at all. */
async function refused(page, selector, code, what, shot) {
  await waitFor(page, `${what}: refused in words`, ([s, c]) => {
    const e = document.querySelector(s);
    return e && e.textContent.trim().length > 20 && (c === null || e.dataset.code === c);
  }, [selector, code]);
  const words = (await page.locator(selector).first().textContent()).trim();
  console.log(`  said: ${words}`);
  await page.screenshot({ path: join(plan.shots, shot) });
  check(page.sockets.length === 0, `${what}: no WebSocket opened (${page.sockets.join(", ")})`);
  return words;
}

const pagesSrc = `'self' ${plan.pages_broker}`;
const screensSrc = `'self' ${plan.screens_broker}`;
const browser = await launch(plan.chromium);
try {
  // ---- the scorer, on a phone -----------------------------------------------------------------
  const phone = await context(browser, PHONE);
  // 1. The real card: signed in on the venue's broker, the login kept for that broker only.
  const scorer = await open(phone, plan.card_url);
  check(connectSrc(scorer.policy) === pagesSrc, `the scorer's connect-src is its broker exactly: ${connectSrc(scorer.policy)}`);
  await waitFor(scorer, "the card's login is in", () => window.cueboardScorer?.model.connection === "online");
  check(scorer.sockets.length > 0 && scorer.sockets.every((u) => u.startsWith(plan.pages_broker)),
    `the scorer's WebSockets all go to the venue's broker (${scorer.sockets})`);
  const keys = await scorer.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("cueboard-score-login:")));
  check(keys.length === 1 && keys[0] === `cueboard-score-login:${plan.pages_broker}|${plan.venue}/${plan.table}`,
    `the card's login is kept under its broker, venue and table (${keys})`);
  const kept = await scorer.evaluate((k) => JSON.parse(localStorage.getItem(k)), keys[0]);
  check(typeof kept.exp === "string" && Date.parse(kept.exp) > Date.now(), `kept until the card's exp (${kept.exp})`);
  // A script on the page cannot reach another broker either: the policy stops it.
  const blocked = await scorer.evaluate((other) => {
    try { new WebSocket(other); } catch (e) { return `threw ${e.name}`; }
    return new Promise((r) => setTimeout(() => r(window.refusedByPolicy.join("; ")), 500));
  }, plan.other);
  check(/connect-src/.test(blocked), `a WebSocket to another broker from the page is refused by its policy (${blocked})`);
  await scorer.close();

  // 2. A link naming another broker, on the phone that holds the login: refused, nothing sent.
  const otherLink = await open(phone, `${plan.url}/score?broker=${encodeURIComponent(plan.other)}&venue=${plan.venue}&table=${plan.table}`);
  const saidScorer = await refused(otherLink, ".other-broker .error", "other-broker", "a scorer's link to another broker",
    "scorer-other-broker-phone.png");
  check(saidScorer.includes(plan.other) && saidScorer.includes(plan.pages_broker), "the words name both brokers");
  check(await otherLink.locator("input[type=password]").count() === 0, "no form to type a password into");
  await otherLink.close();

  // 3. A card for another broker, its login in the fragment: refused, the login neither used nor kept.
  const otherCard = await open(phone, `${plan.url}/score?broker=${encodeURIComponent(plan.other_ws)}&venue=${plan.venue}&table=${plan.table}`
    + `#user=${plan.scorer.user}&pass=${encodeURIComponent(plan.scorer.password)}&trust=1&exp=${plan.future}`);
  await refused(otherCard, ".other-broker .error", "other-broker", "a card for another broker", "scorer-other-card-phone.png");
  check(!(await otherCard.evaluate(() => location.hash)), "the card's login left the address bar");
  const afterCard = await storage(otherCard);
  check(!afterCard.includes(otherPort), "nothing is kept for the other broker");
  await otherCard.close();

  // 4. Plain /score (the installed app) goes on with the venue's broker and the kept login.
  const app = await open(phone, `${plan.url}/score`);
  await waitFor(app, "plain /score signs in again on the venue's broker", () => window.cueboardScorer?.model.connection === "online");
  check(app.sockets.every((u) => u.startsWith(plan.pages_broker)), `and nowhere else (${app.sockets})`);
  await app.close();
  await ask("count-other");

  // 5. The same broker in a link is no refusal: ignored, as the cards carry it.
  const same = await open(phone, `${plan.url}/score?broker=${encodeURIComponent(plan.pages_broker)}&venue=${plan.venue}&table=${plan.table}`);
  await waitFor(same, "a link naming the server's own broker is taken as it is", () => window.cueboardScorer?.model.connection === "online");
  await same.close();
  await phone.close();

  // 6. A login kept for another broker is never offered to this one.
  const plantedCtx = await context(browser, PHONE);
  await plantedCtx.addInitScript(([other, venue, table, login, future]) => {
    if (!localStorage.getItem("planted")) {
      localStorage.setItem("planted", "1");
      localStorage.setItem(`cueboard-score-login:${other}|${venue}/${table}`,
        JSON.stringify({ user: login.user, pass: login.password, trusted: true, exp: future }));
    }
  }, [plan.other, plan.venue, plan.table, plan.scorer, plan.future]);
  const planted = await open(plantedCtx, `${plan.url}/score?venue=${plan.venue}&table=${plan.table}`);
  await planted.waitForSelector("form.login input[name=user]", WAIT);
  check(planted.sockets.length === 0 && await planted.evaluate(() => window.cueboardScorer.model.login === null),
    "a login kept for another broker is not used here: the form, no WebSocket");
  await plantedCtx.close();

  const fresh = await context(browser, PHONE);

  // 7. An expired card: refused in words, nothing tried, nothing kept.
  const expired = await open(fresh, `${plan.url}/score?venue=${plan.venue}&table=${plan.table}`
    + `#user=${plan.scorer.user}&pass=${encodeURIComponent(plan.scorer.password)}&trust=1&exp=${plan.past}`);
  const saidExpired = await refused(expired, "form.login .error", "card-expired", "an expired card", "scorer-card-expired-phone.png");
  check(saidExpired.includes(plan.past), "the words say when it expired");
  check(!(await storage(expired)).includes(plan.scorer.password), "the expired card's password is kept nowhere");
  // A card's login kept past its exp is forgotten when the page opens, with the same words.
  await expired.evaluate(([key, login, past]) => localStorage.setItem(key,
    JSON.stringify({ user: login.user, pass: login.password, trusted: true, exp: past })),
  [`cueboard-score-login:${plan.pages_broker}|${plan.venue}/${plan.table}`, plan.scorer, plan.past]);
  expired.sockets.length = 0;
  await expired.reload();
  await refused(expired, "form.login .error", "card-expired", "a kept login past its card's exp", "scorer-kept-expired-phone.png");
  check(!(await storage(expired)).includes(plan.scorer.password), "the expired login is forgotten");
  await expired.close();

  // A card that expires while the page is open: the login forgotten at its exp, the session
  // closed, the scorer told on the form. (Seconds from now: on a slow machine the page may open
  // after it, and then refuses the card as it is scanned, with the same words and code.)
  const soon = new Date(Date.now() + 8000).toISOString();
  const expiring = await open(fresh, `${plan.url}/score?venue=${plan.venue}&table=${plan.table}`
    + `#user=${plan.scorer.user}&pass=${encodeURIComponent(plan.scorer.password)}&trust=1&exp=${soon}`);
  await waitFor(expiring, "a card expiring while open: back on the form, saying so", () =>
    document.querySelector("form.login .error")?.dataset.code === "card-expired");
  check(!(await storage(expiring)).includes(plan.scorer.password), "the login is forgotten at the card's exp");
  await expiring.close();

  // 8. A card the broker refuses (a wrong or revoked password): forgotten, the scorer told to scan a new card.
  const wrong = await open(fresh, `${plan.url}/score?venue=${plan.venue}&table=${plan.table}`
    + `#user=${plan.scorer.user}&pass=not-the-password&trust=1&exp=${plan.future}`);
  await waitFor(wrong, "a refused card: back on the form, in words", () =>
    document.querySelector("form.login .error")?.dataset.code === "login-refused");
  const saidWrong = (await wrong.locator("form.login .error").textContent()).trim();
  console.log(`  said: ${saidWrong}`);
  check(/scan a new card/i.test(saidWrong), "the scorer is told to scan a new card");
  check(!(await storage(wrong)).includes("not-the-password"), "the refused login is forgotten");
  await wrong.screenshot({ path: join(plan.shots, "scorer-refused-card-phone.png") });
  await wrong.close();
  await fresh.close();

  // ---- the desk, on a laptop and a tablet -----------------------------------------------------
  for (const [size, name] of [[LAPTOP, "laptop"], [TABLET, "tablet"]]) {
    const ctx = await context(browser, size);
    const desk = await open(ctx, `${plan.url}/desk?broker=${encodeURIComponent(plan.other)}`);
    check(connectSrc(desk.policy) === pagesSrc, `the desk's connect-src is its broker exactly: ${connectSrc(desk.policy)}`);
    const said = await refused(desk, ".other-broker .refused", "other-broker", `the desk's link to another broker (${name})`,
      `desk-other-broker-${name}.png`);
    check(said.includes(plan.other), "the words name the other broker");
    check(await desk.locator("input[type=password]").count() === 0, "no form to type the desk's password into");
    await ctx.close();
  }
  // "Trust this device": no password in web storage, before or after a reload.
  const deskCtx = await context(browser, LAPTOP);
  const desk = await open(deskCtx, `${plan.url}/desk`);
  await desk.fill("input[name=user]", plan.desk.user);
  await desk.fill("input[name=password]", plan.desk.password);
  await desk.check("form.signin input[name=trust]");
  await desk.click("form.signin button[type=submit]");
  await waitFor(desk, "the trusted desk is signed in", () => document.querySelector(".bar .conn")?.dataset.state === "online");
  check(desk.sockets.every((u) => u.startsWith(plan.pages_broker)), `the desk's WebSockets go to its broker only (${desk.sockets})`);
  const trusted = await storage(desk);
  check(!trusted.includes(plan.desk.password), "after trusting, no password in localStorage or sessionStorage");
  console.log(`  kept: ${trusted.split("\n").filter((l) => l.startsWith("cueboard-desk")).join("; ") || "nothing"}`);
  await desk.reload();
  await waitFor(desk, "after a reload: signed in from the browser's store, or asked again",
    () => document.querySelector(".bar .conn")?.dataset.state === "online" || document.querySelector("form.signin input[name=password]"));
  const again = await desk.evaluate(() => (document.querySelector("form.signin") ? "asked again" : "signed in from the browser's store"));
  console.log(`  after the reload: ${again}`);
  check(!(await storage(desk)).includes(plan.desk.password), "no password in web storage after the reload");
  await deskCtx.close();

  // ---- the hall's pages: the screen and the bracket -------------------------------------------
  const hall = await context(browser, LAPTOP);
  const screen = await open(hall, `${plan.url}/?broker=${encodeURIComponent(plan.other_ws)}&venue=${plan.venue}`);
  check(connectSrc(screen.policy) === screensSrc, `the screen's connect-src is its broker exactly: ${connectSrc(screen.policy)}`);
  await refused(screen, "#problems", null, "the screen's link to another broker", "screen-other-broker-laptop.png");
  check(/other-broker/.test(await screen.locator("#problems").textContent()), "the screen's words carry the code");
  const bracket = await open(hall, `${plan.url}/bracket?broker=${encodeURIComponent(plan.other)}&venue=${plan.venue}`);
  check(connectSrc(bracket.policy) === screensSrc, `the bracket's connect-src is its broker exactly: ${connectSrc(bracket.policy)}`);
  await refused(bracket, "[data-code=other-broker]", "other-broker", "the bracket's link to another broker", "bracket-other-broker-laptop.png");
  await hall.close();
  await ask("count-other");
} finally {
  await browser.close();
  closeInput();
}
console.log("all ok");
