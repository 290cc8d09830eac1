// The scorer's page end to end (tests/screen/test_scorer.py runs it): Chromium as a phone (touch,
// 390x844) against the venue broker over secure WebSockets and real table daemons. Asks the
// Python side on standard output ("need: hold-t1") and reports what it saw ("report key json").
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ask, check, chromium, closeInput, mqtt } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
// A card expires (its exp, cueboard venue card): hours after the run, whatever the time of day.
const CARD_EXP = new Date(Date.now() + 6 * 3600 * 1000).toISOString().replace(/\.\d+Z$/, "Z");
const report = (key, value) => console.log(`report ${key} ${JSON.stringify(value)}`);
const PHONE = { width: 390, height: 844 };
mkdirSync(plan.shots, { recursive: true });

const browser = await chromium.launch({
  executablePath: plan.chromium, headless: true,
  // The venue's server key, trusted as a phone that installed the venue's CA trusts it (docs/scorer.md).
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    `--ignore-certificate-errors-spki-list=${plan.spki}`],
});

async function phone(table, { lang = "en", viewport = PHONE, fragment = true, login = plan.logins[table] } = {}) {
  const context = await browser.newContext({ viewport, isMobile: true, hasTouch: true, deviceScaleFactor: 2, locale: lang });
  const page = await open(context, table, { lang, fragment, login });
  return { context, page };
}

async function open(context, table, { lang = "en", fragment = true, login = plan.logins[table] } = {}) {
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") page.errors.push(m.text()); });
  const hash = fragment ? `#user=${encodeURIComponent(login.user)}&pass=${encodeURIComponent(login.pass)}&trust=1&exp=${CARD_EXP}` : "";
  await page.goto(`${plan.url}?broker=${plan.broker}&venue=${plan.venue}&table=${table}&lang=${lang}${hash}`);
  return page;
}

const online = (page) => page.waitForFunction(() => {
  const m = window.cueboardScorer && window.cueboardScorer.model;
  return m && m.connection === "online" && m.state && m.state.sides;
}, null, { timeout: 60000 });

const book = (page) => page.evaluate(() => window.cueboardScorer.outbox().read());

// Tap the key that sends `line`; the tap's id, once the page has it in its outbox.
async function tap(page, line) {
  const before = (await book(page)).next;
  await page.locator(`button[data-tap='${JSON.stringify(line)}']`).first().tap();
  await page.waitForFunction((n) => window.cueboardScorer.outbox().read().next > n, before);
  const after = await book(page);
  return after.taps.find((t) => t.id.endsWith(`-${before}`)).id;
}

const settled = (page) => page.waitForFunction(() => {
  const b = window.cueboardScorer.outbox().read();
  return !b.held && !b.taps.some((t) => t.status === "waiting" || t.status === "sent");
}, null, { timeout: 120000 });

async function statuses(page, ids) {
  const b = await book(page);
  return ids.map((id) => (b.taps.find((t) => t.id === id) || { status: "gone" }).status);
}

const pot = (...balls) => ({ type: "pot", balls });
const NO_POT = { type: "no_pot" };

// ---- 1. A frame scored by taps alone (snooker, six reds), from break to frame end.
const { context: phoneCtx, page } = await phone("t1");
await online(page);
check(!(await page.evaluate(() => location.hash)), "the login left the address bar (the fragment is wiped)");
check(page.url().indexOf("pass=") < 0, "no password in the address");
const sizes = await page.evaluate(() => [...document.querySelectorAll("button.key")].map((b) => {
  const r = b.getBoundingClientRect();
  return { text: b.textContent, w: r.width, h: r.height };
}));
check(sizes.length >= 20 && sizes.every((s) => s.w >= 48 && s.h >= 48), `every key is at least 48x48 px (${sizes.length} keys)`);
const frame = [];
for (const line of [pot("red"), pot("black"), pot("red"), pot("pink"), NO_POT, pot("red"), pot("blue"),
  { type: "foul", points: 4 }]) frame.push(await tap(page, line));
await settled(page);
const undo = await tap(page, { type: "undo" });
await settled(page);
const undoText = await page.locator(".last").textContent();
check(/undone: Foul · 4/.test(undoText), `the undo says what it took back: "${undoText}"`);
frame.push(undo, await tap(page, { type: "redo" }));
await settled(page);
check(/redone: Foul · 4/.test(await page.locator(".last").textContent()), "the redo says what it put back");
for (let i = 0; i < 3; i += 1) frame.push(await tap(page, pot("red")), await tap(page, pot("black")));
await page.screenshot({ path: join(plan.shots, "scorer-snooker-en.png") });
for (const c of ["yellow", "green", "brown", "blue", "pink", "black"]) frame.push(await tap(page, pot(c)));
await settled(page);
check((await statuses(page, frame)).every((s) => s === "applied"), `the ${frame.length} taps of the frame all applied`);
const state = await page.evaluate(() => window.cueboardScorer.model.state);
check(state.frame_over && state.frame_winner === 0 && state.sides[0].score === 70 && state.sides[1].score === 6,
  `the frame is over, Ann 70 Bob 6 (${state.sides[0].score}-${state.sides[1].score})`);
const scoresShown = await page.locator(".side .score").allTextContents();
check(scoresShown.join(" ") === "70 6", `the phone shows 70 and 6 (${scoresShown})`);
report("state-t1", state);
await ask("check-state-t1"); // the daemon's state equals the phone's
await page.screenshot({ path: join(plan.shots, "scorer-snooker-frame-over-en.png") });
frame.push(await tap(page, { type: "next_frame" }));
await settled(page);
report("applied-frame", frame);

// ---- 2. The Wi-Fi gone (the proxy black-holes the bytes: no close comes) while 20 taps are made,
// then back: the badge says so within a few seconds, and the 20 are applied once, in order, each
// with the time it was tapped.
const startedAt = Date.now();
await ask("cut-wifi");
const cutAt = Date.now();
await page.waitForFunction(() => window.cueboardScorer.model.connection !== "online", null, { timeout: 60000 });
const noticed = Date.now() - cutAt;
// 4.5 s at most by the keepalive (3 s, and half of it for the answer); 10 s here, for a loaded
// machine's late timers: the old keepalive (20 s) said "Connected" for 30 s.
check(noticed < 10000, `the badge left "Connected" ${noticed} ms after the Wi-Fi went`);
const badge = await page.locator(".conn").textContent();
check(/^Offline/.test(badge), `the badge says "${badge}"`);
report("offline-noticed-ms", noticed);
const offline = [];
for (let i = 0; i < 6; i += 1) offline.push(await tap(page, pot("red")), await tap(page, pot("black")));
for (const c of ["yellow", "green", "brown", "blue", "pink", "black"]) offline.push(await tap(page, pot(c)));
offline.push(await tap(page, { type: "next_frame" }), await tap(page, NO_POT));
check(offline.length === 20, "20 taps made offline");
report("made-offline", Object.fromEntries((await book(page)).taps.filter((x) => offline.includes(x.id)).map((x) => [x.id, x.made])));
check((await statuses(page, offline)).every((s) => s === "waiting" || s === "sent"), "all 20 wait while offline");
check((await page.locator(".pending li[data-id]").count()) === 20 && /20 taps waiting/.test(await page.locator(".pending .count").textContent()), "the page lists the 20 waiting taps");
await page.screenshot({ path: join(plan.shots, "scorer-offline-en.png") });
const rest = plan.offline_seconds * 1000 - (Date.now() - startedAt);
if (rest > 0) await page.waitForTimeout(rest); // the scenario: the Wi-Fi is gone this long
report("restored-at", Date.now());
await ask("restore-wifi");
await settled(page);
check((await statuses(page, offline)).every((s) => s === "applied"), "the 20 taps applied after the connection came back");
report("applied-offline", offline);

// ---- 3. A reload in the middle of a send, and a second phone at the table: each tap applied once.
await ask("hold-t1"); // the table's engine is busy: the tap is sent and not yet answered
const held = await tap(page, pot("red"));
await page.waitForFunction((id) => window.cueboardScorer.outbox().read().taps.find((t) => t.id === id).status === "sent", held);
await page.reload();
await page.waitForFunction(() => window.cueboardScorer && window.cueboardScorer.model.connection === "online", null, { timeout: 60000 });
check((await statuses(page, [held]))[0] !== "applied", "after the reload the tap still waits for the table");
// The second phone has a card of its own: one login per device (a second connection of one login
// takes the first one's session, docs/scorer.md; tests/screen/test_page_sessions.py).
const { context: secondCtx, page: second } = await phone("t1", { login: plan.second });
await online(second);
const fromSecond = await tap(second, pot("blue"));
await ask("release-t1");
await settled(page);
await settled(second);
check([...await statuses(page, [held]), ...await statuses(second, [fromSecond])].every((s) => s === "applied"),
  "the reloaded tap and the second phone's applied");
check(await page.evaluate(() => window.cueboardScorer.model.connection) === "online", "the first phone kept its session");
report("applied-reload", [held, fromSecond]);
await secondCtx.close();

// ---- 4. The page loads with no connection (its service worker), and a tap refused after a
// wait holds the later ones until the scorer decides.
await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
await phoneCtx.setOffline(true); // no page loads from the network
await ask("cut-wifi"); // and the open socket is gone
await page.waitForFunction(() => window.cueboardScorer.model.connection !== "online", null, { timeout: 60000 });
await page.reload();
await page.waitForFunction(() => window.cueboardScorer && window.cueboardScorer.model.state, null, { timeout: 60000 });
const offlineShown = await page.locator(".side .score").allTextContents();
check(offlineShown.length === 2 && (await page.locator(".conn").getAttribute("data-connection")) !== "online",
  `reloaded with no connection: the page and the last state shown (${offlineShown}), marked offline`);
const wrong = await tap(page, pot("pink")); // red is on: a pink is a foul, not a pot
const after = await tap(page, NO_POT);
const seqBefore = await page.evaluate(() => window.cueboardScorer.model.state.seq);
await phoneCtx.setOffline(false);
await ask("restore-wifi");
await page.waitForSelector(".held", { timeout: 60000 });
check((await statuses(page, [wrong, after])).join(" ") === "refused waiting", "the pink refused, the next tap held");
const reason = await page.locator(".last").textContent();
check(/red is on/.test(reason), `the refusal's reason shown: "${reason}"`);
check((await page.evaluate(() => window.cueboardScorer.model.state.seq)) === seqBefore, "the held tap was not applied");
await page.screenshot({ path: join(plan.shots, "scorer-held-en.png") });
await page.locator(".held .key.send").tap();
await settled(page);
check((await statuses(page, [after]))[0] === "applied", "sent on the scorer's word: applied");
report("applied-held", [after]);
report("refused", [wrong]);

// ---- 4b. A call keyed on the phone is the table's to show, as a keypad's: "+ Miss" before the
// foul's value is on the table's `input` (source scorer:<login>, the keypad's key names, what it
// waits for), and no tap; the value ends it. Watched with a t1 scorer's login of its own (it reads its
// table; the phone's login would take the phone's session).
const watcher = mqtt.connect(plan.broker, { username: plan.watch.user, password: plan.watch.pass,
  protocolVersion: 5, clientId: "cueboard-scorer-t1-watch", rejectUnauthorized: false, reconnectPeriod: 0 });
await new Promise((resolve, reject) => { watcher.once("connect", resolve); watcher.once("error", reject); });
const inputs = [];
watcher.on("message", (topic, payload) => inputs.push(JSON.parse(payload.toString())));
await new Promise((resolve, reject) => watcher.subscribe(`cueboard/${plan.venue}/t1/input`, { qos: 1 },
  (e) => (e ? reject(e) : resolve())));
const fromScorer = (m) => m.source === `scorer:${plan.logins.t1.user}`;
// The first input (from `since` on) that `pred` accepts, as the table publishes it.
const inputWhere = (since, pred, what) => new Promise((resolve, reject) => {
  const look = () => inputs.slice(since).find(pred);
  if (look()) { resolve(look()); return; }
  const timer = setTimeout(() => { watcher.off("message", on); reject(new Error(`no input ${what}: ${JSON.stringify(inputs)}`)); }, 60000);
  const on = () => { const m = look(); if (m) { clearTimeout(timer); watcher.off("message", on); resolve(m); } };
  watcher.on("message", on);
});
const beforeCall = await book(page);
await page.locator("button.toggle", { hasText: "Miss" }).tap();
const call = await inputWhere(0, (m) => fromScorer(m) && m.keys.length > 0, "with the scorer's call");
check(JSON.stringify(call.keys) === '["MISS"]' && /foul's value/.test(call.next),
  `"+ Miss" is shown on the table's input: ${JSON.stringify(call)}`);
const afterCall = await book(page);
check(afterCall.next === beforeCall.next && afterCall.taps.length === beforeCall.taps.length, "a call is no tap: the outbox is as it was");
const shownAt = inputs.indexOf(call) + 1;
const missFoul = await tap(page, { type: "foul", points: 4, miss: true });
const ended = await inputWhere(shownAt, (m) => fromScorer(m) && m.keys.length === 0, "ending the scorer's call");
check(ended.keys.length === 0 && !ended.expired, `the foul's value ends the call on the table's input: ${JSON.stringify(ended)}`);
await settled(page);
check((await statuses(page, [missFoul]))[0] === "applied", "the foul with its miss applied");
check(!(await page.locator("button.toggle.on").count()), "the toggles are off after the foul");
report("applied-call", [missFoul]);
watcher.end(true);

// ---- 5. The broker: a scorer's login for t1 (the watcher's: the phone's would take its session) writes nothing of t2's.
const client = mqtt.connect(plan.broker, { username: plan.watch.user, password: plan.watch.pass,
  protocolVersion: 5, clientId: "cueboard-scorer-t1-probe", rejectUnauthorized: false, reconnectPeriod: 0 });
await new Promise((resolve, reject) => { client.once("connect", resolve); client.once("error", reject); });
const answer = (topic) => new Promise((resolve) => client.publish(topic, JSON.stringify({ type: "no_pot", id: "probe" }),
  { qos: 1 }, (e, packet) => resolve(e ? String(e.message || e) : `ok ${packet && packet.reasonCode}`)));
const toT2 = await answer(`cueboard/${plan.venue}/t2/score/${plan.watch.user}`);
check(/Not authorized|135/.test(toT2), `t1's scorer writing to t2: refused by the broker (${toT2})`);
const asCommand = await answer(`cueboard/${plan.venue}/t1/command/${plan.watch.user}`);
check(/Not authorized|135/.test(asCommand), `t1's scorer writing t1's command topic: refused (${asCommand})`);
const asDesk = await answer(`cueboard/${plan.venue}/t1/command/desk`);
check(/Not authorized|135/.test(asDesk), `t1's scorer writing as the desk: refused (${asDesk})`);
client.end(true);

// ---- 6. Landscape, another language; blackball in two languages; a revoked login refused. Each
// phone with a card of its own (one login per device), the first phone's page left as it is.
const wide = await phone("t1", { lang: "fr", viewport: { width: 844, height: 390 }, login: plan.second });
await online(wide.page);
const wideSizes = await wide.page.evaluate(() => [...document.querySelectorAll("button.key")].map((b) => b.getBoundingClientRect())
  .map((r) => [r.width, r.height, r.bottom]));
check(wideSizes.every(([w, h]) => w >= 48 && h >= 48), "landscape: every key at least 48x48 px");
check(wideSizes.every(([, , bottom]) => bottom <= 390), "landscape: every key on the screen, none below the fold");
await wide.page.screenshot({ path: join(plan.shots, "scorer-snooker-fr-landscape.png") });
await wide.page.close(); // the same phone turned: one tab of its login at a time
const portraitFr = await wide.context.newPage();
await portraitFr.setViewportSize(PHONE);
await portraitFr.goto(`${plan.url}?broker=${plan.broker}&venue=${plan.venue}&table=t1&lang=fr`);
await online(portraitFr);
await portraitFr.screenshot({ path: join(plan.shots, "scorer-snooker-fr.png") });
await wide.context.close();

const bb = await phone("t2", { lang: "en" });
await online(bb.page);
const bbTaps = [await tap(bb.page, pot("red")), await tap(bb.page, pot("red"))];
await settled(bb.page);
await bb.page.screenshot({ path: join(plan.shots, "scorer-blackball-en.png") });
const bbFr = await phone("t2", { lang: "fr", login: plan.second_t2 });
await online(bbFr.page);
await bbFr.page.screenshot({ path: join(plan.shots, "scorer-blackball-fr.png") });
report("blackball", bbTaps);
report("state-t2", await bb.page.evaluate(() => window.cueboardScorer.model.state));
await ask("check-state-t2");
await ask("revoke-scorer-t2");
await bb.page.reload();
// Refused before it ever got in since the page loaded: back on the sign-in form, saying why,
// the stored login forgotten (a reload does not try it again).
await bb.page.waitForSelector("form.login .error", { timeout: 60000 });
const refusedLogin = await bb.page.locator("form.login .error").first().textContent();
check(/refused this login/.test(refusedLogin), `a revoked login is refused, on the sign-in form: "${refusedLogin}"`);
check(await bb.page.evaluate(() => Object.keys(localStorage).concat(Object.keys(sessionStorage))
  .every((k) => !k.startsWith("cueboard-score-login"))), "the refused login is not kept");
await bb.page.screenshot({ path: join(plan.shots, "scorer-refused-en.png") });
await bbFr.context.close();
await bb.context.close();

// ---- 7. The desk's message on the phone; Concede asks first, naming the frame, who concedes
// (the striker) and who wins it: "no" sends nothing, "yes" the concession.
const desk = mqtt.connect(plan.direct, { username: plan.desk.user, password: plan.desk.pass,
  protocolVersion: 5, clientId: "cueboard-desk-test", rejectUnauthorized: false, reconnectPeriod: 0 });
await new Promise((resolve, reject) => { desk.once("connect", resolve); desk.once("error", reject); });
const words = "Final next on this table at 21:00";
await new Promise((resolve, reject) => desk.publish(`cueboard/${plan.venue}/t1/message`,
  JSON.stringify({ schema: 1, text: words, until: null }), { qos: 1, retain: true }, (e) => (e ? reject(e) : resolve())));
await page.waitForSelector(".message", { timeout: 60000 });
check((await page.locator(".message").textContent()).includes(words), "the desk's message is on the phone");
const s7 = await page.evaluate(() => window.cueboardScorer.model.state);
check(!s7.frame_over, `a frame in play to concede (frame ${s7.frame})`);
const striker = s7.striker ?? 0;
const concedeKey = page.locator(`button[data-tap='${JSON.stringify({ type: "concede" })}']`);
const nextBefore = (await book(page)).next;
await concedeKey.tap();
await page.waitForSelector(".confirm");
const question = await page.locator(".confirm p").textContent();
check(question === `Concede frame ${s7.frame} for ${s7.sides[striker].name}? ${s7.sides[1 - striker].name} wins it.`,
  `Concede asks, naming the frame and the sides: "${question}"`);
await page.screenshot({ path: join(plan.shots, "scorer-concede-en.png") });
await page.locator(".confirm .no").tap();
await page.waitForSelector(".confirm", { state: "detached" });
check((await book(page)).next === nextBefore, "no: nothing sent, nothing in the outbox");
await concedeKey.tap();
check(/concedes$/.test(await page.locator(".confirm .yes").textContent()), "the yes says who concedes");
await page.locator(".confirm .yes").tap();
await page.waitForFunction((n) => window.cueboardScorer.outbox().read().next > n, nextBefore);
const concede = (await book(page)).taps.find((x) => x.id.endsWith(`-${nextBefore}`)).id;
await settled(page);
check((await statuses(page, [concede]))[0] === "applied", "yes: the concession applied");
const s8 = await page.evaluate(() => window.cueboardScorer.model.state);
check(s8.frame_over && s8.frame_winner === 1 - striker, `frame ${s7.frame} to ${s7.sides[1 - striker].name}`);
report("applied-concede", [concede]);
await new Promise((resolve) => desk.publish(`cueboard/${plan.venue}/t1/message`, "", { qos: 1, retain: true }, resolve));
desk.end(true);

// The browser logs each WebSocket it could not open while offline: expected, not the page's error.
const pageErrors = page.errors.filter((e) => !/^WebSocket connection to .* failed/.test(e));
check(pageErrors.length === 0, `no page errors (${pageErrors.join("; ")})`);
await phoneCtx.close();
await browser.close();
closeInput();
console.log("all ok");
