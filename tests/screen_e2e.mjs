// End-to-end test of the venue screen (screen/) in headless Chromium, driven by playwright-core.
// Run by tests/test_screen.py: node tests/screen_e2e.mjs PLAN.json, where the plan gives the page's
// address, the broker's MQTT (TCP) and WebSockets ports, the tables' states and events to publish,
// and where to save screenshots. Publishes with mqtt.js over TCP; prints one line a check; exit 1 on
// the first failure.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "screen", "package.json"));
const { chromium } = require("playwright-core");
const mqtt = require("mqtt");

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const PREFIX = `cueboard/${plan.venue}`;
const UPDATE_MS = 1000; // the page must show a new state within a second

function check(ok, what) {
  if (!ok) throw new Error(`FAILED: ${what}`);
  console.log(`ok: ${what}`);
}

function connect(options = {}) {
  return new Promise((resolve, reject) => {
    const c = mqtt.connect(`mqtt://127.0.0.1:${plan.mqtt_port}`, { reconnectPeriod: 0, ...options });
    c.once("connect", () => resolve(c));
    c.once("error", reject);
  });
}
const publish = (c, topic, payload, retain) => new Promise((resolve, reject) =>
  c.publish(topic, typeof payload === "string" ? payload : JSON.stringify(payload), { qos: 1, retain }, (e) => e ? reject(e) : resolve()));

// The page runs under the Content-Security-Policy cueboard screen sends (cueboard/screen.py): the
// header is there, and nothing the page does is refused by it (each refusal is a
// securitypolicyviolation event, recorded from before the page's first script runs).
async function watchPolicy(context) {
  await context.addInitScript(() => {
    window.cueboardRefused = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      window.cueboardRefused.push(`${e.violatedDirective}: ${e.blockedURI || "inline"}`));
  });
}
async function checkPolicy(page, response, what) {
  const policy = response.headers()["content-security-policy"] || "";
  check(policy.includes("default-src 'none'"), `${what} is served with its Content-Security-Policy`);
  const refused = await page.evaluate(() => window.cueboardRefused);
  check(refused.length === 0, `${what} does nothing its Content-Security-Policy refuses (${refused.join("; ")})`);
}

// What a card shows, read back from the page.
async function shown(page, table) {
  return page.evaluate((table) => {
    const card = document.querySelector(`section.table[data-table="${table}"]`);
    if (!card) return null;
    const text = (sel) => { const e = card.querySelector(sel); return e ? e.textContent.trim() : null; };
    const facts = {};
    for (const f of card.querySelectorAll(".fact")) facts[[...f.classList].find((c) => c !== "fact")] = f.querySelector("b").textContent;
    return {
      offline: card.classList.contains("offline"),
      sides: [...card.querySelectorAll(".side")].map((s) => ({
        name: s.querySelector(".name").textContent, score: s.querySelector(".score")?.textContent ?? null,
        group: s.querySelector(".group")?.textContent ?? null, frames: s.querySelector(".frames").textContent,
        atTable: s.classList.contains("at-table"),
      })),
      facts, worm: Number(card.querySelector("svg.worm")?.dataset.points ?? 0), status: text(".status"),
    };
  }, table);
}

function expected(state) {
  const facts = { frame: String(state.frame) };
  if (state.player) facts.player = state.player;
  if (state.game === "snooker") {
    facts.break = String(state.break);
    facts.remaining = String(state.remaining);
    if (state.ball_on) facts["ball-on"] = state.free_ball ? `${state.ball_on} (free ball)` : state.ball_on;
    const sr = state.snookers_required;
    if (sr) facts.snookers = sr.count === null ? "cannot win the frame" : `${sr.count} snooker${sr.count === 1 ? "" : "s"}`;
  } else {
    facts.visits = String(state.visits);
    facts["shot-clock"] = state.shot_clock === null ? "off" : `${state.shot_clock}s`;
  }
  return {
    sides: state.sides.map((s, i) => ({
      name: s.name, score: state.game === "snooker" ? String(s.score) : null,
      group: state.game === "snooker" ? null : s.group ? `${s.group} ${s.balls_left}` : "open",
      frames: String(s.frames), atTable: state.striker === i,
    })),
    facts,
  };
}

function matches(got, state) {
  if (!got) return false;
  const want = expected(state);
  if (JSON.stringify(got.sides) !== JSON.stringify(want.sides)) return false;
  return Object.entries(want.facts).every(([k, v]) => got.facts[k] === v);
}

async function waitShown(page, table, state, ms, what) {
  const start = Date.now();
  let got = null;
  while (Date.now() - start < ms) {
    got = await shown(page, table);
    if (matches(got, state)) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`FAILED: ${what}: ${table} shows ${JSON.stringify(got)}, expected ${JSON.stringify(expected(state))}`);
}

// Smoke mode (plan.smoke): a page on a running `cueboard demo`: its table appears and plays on.
async function smoke(browser) {
  const context = await browser.newContext();
  await watchPolicy(context);
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const response = await page.goto(`${plan.url}?broker=ws://127.0.0.1:${plan.ws_port}&venue=${plan.venue}`);
  const card = `section.table[data-table="${plan.smoke}"] .side .score`;
  await page.waitForSelector(card, { timeout: 10000 });
  const seen = async () => (await shown(page, plan.smoke)).sides.map((s) => s.score).join("-") + JSON.stringify((await shown(page, plan.smoke)).facts);
  const first = await seen();
  check((await shown(page, plan.smoke)).sides.length === 2, `demo's ${plan.smoke} on the page: ${first}`);
  const start = Date.now();
  let now = first;
  while (now === first && Date.now() - start < 10000) { await new Promise((r) => setTimeout(r, 100)); now = await seen(); }
  check(now !== first, `the demo's match plays on on the page: ${now}`);
  check((await page.$$("#problems li")).length === 0 && errors.length === 0, "no problems reported on the demo's feed");
  await checkPolicy(page, response, "the page");
}

async function main() {
  const browser = await chromium.launch({
    executablePath: plan.chromium, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
      "--no-first-run", "--disable-sync"],
  });
  if (plan.smoke) {
    try { await smoke(browser); } finally { await browser.close(); }
    return;
  }
  const clients = [];
  try {
    const pub = await connect();
    clients.push(pub);
    // Each table's daemon: its own connection with the last will, status online (retained).
    const daemons = {};
    for (const name of Object.keys(plan.tables)) {
      daemons[name] = await connect({ clientId: `daemon-${name}`, will: { topic: `${PREFIX}/${name}/status`, payload: "offline", qos: 1, retain: true } });
      clients.push(daemons[name]);
      await publish(daemons[name], `${PREFIX}/${name}/status`, "online", true);
    }
    // A screen that joins late gets the retained states at once: publish each table's first state before opening.
    for (const [name, steps] of Object.entries(plan.tables)) await publish(daemons[name], `${PREFIX}/${name}/state`, steps[0].state, true);

    const context = await browser.newContext({ viewport: { width: 1400, height: 380 }, deviceScaleFactor: 1 });
    await watchPolicy(context);
    const page = await context.newPage();
    const consoleErrors = [];
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    const gridResponse = await page.goto(`${plan.url}?broker=ws://127.0.0.1:${plan.ws_port}&venue=${plan.venue}`);
    await page.waitForSelector(".conn[data-state=connected]", { timeout: 10000 });
    for (const [name, steps] of Object.entries(plan.tables)) {
      await waitShown(page, name, steps[0].state, 5000, `retained state of ${name}`);
    }
    check(true, `grid shows ${Object.keys(plan.tables).length} tables from their retained states`);

    // The single-table view, for a TV beside the table, open for the whole frame (its score worm grows).
    const tv = plan.single_table;
    const single = await context.newPage();
    single.on("pageerror", (e) => consoleErrors.push(String(e)));
    await single.setViewportSize({ width: 1280, height: 720 });
    const singleResponse = await single.goto(`${plan.url}?broker=ws://127.0.0.1:${plan.ws_port}&venue=${plan.venue}&table=${tv}`);
    await waitShown(single, tv, plan.tables[tv][0].state, 5000, `single view of ${tv}`);

    // Play every table forward, interleaved, stroke by stroke: each new state shown within a second.
    let slowest = 0, count = 0;
    const longest = Math.max(...Object.values(plan.tables).map((s) => s.length));
    for (let i = 1; i < longest; i++) {
      for (const [name, steps] of Object.entries(plan.tables)) {
        if (i >= steps.length) continue;
        await publish(daemons[name], `${PREFIX}/${name}/event`, steps[i].event, false);
        await publish(daemons[name], `${PREFIX}/${name}/state`, steps[i].state, true);
        slowest = Math.max(slowest, await waitShown(page, name, steps[i].state, UPDATE_MS, `${name} step ${i} within ${UPDATE_MS} ms`));
        count += 1;
      }
    }
    check(true, `${count} states shown, each within ${UPDATE_MS} ms (slowest ${slowest} ms)`);
    for (const [name, steps] of Object.entries(plan.tables)) {
      const last = steps[steps.length - 1].state;
      if (last.game !== "snooker") continue;
      const strokes = steps.filter((s) => s.state.frame === last.frame).length;
      const got = await shown(page, name);
      check(got.worm === strokes, `${name}: the score worm has ${got.worm} points, one a stroke of frame ${last.frame} (${strokes})`);
    }

    // The last will: a table's daemon drops off the network, the broker says offline, the card shows it.
    const gone = plan.offline_table;
    const t0 = Date.now();
    daemons[gone].stream.destroy();
    await page.waitForSelector(`section.table.offline[data-table="${gone}"]`, { timeout: 5000 });
    check((await shown(page, gone)).status === "offline", `${gone} marked offline ${Date.now() - t0} ms after its connection dropped (last will)`);
    const others = Object.keys(plan.tables).filter((n) => n !== gone);
    for (const n of others) check(!(await shown(page, n)).offline, `${n} still live`);

    await page.screenshot({ path: join(plan.screenshots, "screen-grid.png") });
    check(true, "grid screenshot");

    // Malformed payloads: not JSON, not the schema, a bad status. The page says so and goes on.
    const victim = others[0];
    const before = plan.tables[victim][plan.tables[victim].length - 1].state;
    await publish(pub, `${PREFIX}/${victim}/state`, "{not json", true);
    await publish(pub, `${PREFIX}/${victim}/state`, { schema: 1, game: "snooker", sides: "nobody" }, true);
    await publish(pub, `${PREFIX}/${victim}/state`, { ...before, sides: [{ ...before.sides[0], score: -3 }, before.sides[1]] }, true);
    await publish(pub, `${PREFIX}/${victim}/status`, "sideways", false);
    await page.waitForFunction(() => document.querySelectorAll("#problems li").length >= 4, null, { timeout: 3000 });
    const problems = await page.$$eval("#problems li", (l) => l.map((e) => e.textContent));
    console.log(problems.map((p) => `  page says: ${p}`).join("\n"));
    check(problems.some((p) => /not JSON/.test(p)), "a message for a payload that is not JSON");
    check(problems.some((p) => /lacks "seq"/.test(p)), "a message naming what a state lacks");
    check(problems.some((p) => /score should be at least 0/.test(p)), "a message for a negative score");
    await waitShown(page, victim, before, 500, `${victim} still shows its last good state`);
    check(true, `${victim} still shows its last good state`);
    const fixed = { ...before, seq: before.seq + 1, sides: [{ ...before.sides[0], score: before.sides[0].score + 1 }, before.sides[1]] };
    if (fixed.game === "snooker") fixed.break = before.break + 1;
    await publish(pub, `${PREFIX}/${victim}/state`, fixed, true);
    await waitShown(page, victim, fixed, UPDATE_MS, `${victim} updates after the bad payloads`);
    check(true, `${victim} updates again after the bad payloads`);
    check(consoleErrors.length === 0, `no uncaught errors in the page (${consoleErrors.join("; ")})`);
    await checkPolicy(page, gridResponse, "the grid");

    // The single-table view, seen through the frame and the bad payloads.
    const tvState = plan.tables[tv][plan.tables[tv].length - 1].state;
    await waitShown(single, tv, tv === victim ? fixed : tvState, 5000, `single view of ${tv}`);
    const cards = await single.$$eval("section.table", (l) => l.map((e) => e.dataset.table));
    check(cards.length === 1 && cards[0] === tv, `single view shows ${tv} only`);
    const tvWorm = (await shown(single, tv)).worm;
    check(tvWorm === plan.tables[tv].length + (tv === victim ? 1 : 0), `single view's score worm has every stroke (${tvWorm})`);
    await single.screenshot({ path: join(plan.screenshots, "screen-table.png") });
    check(true, "single-table screenshot");
    await checkPolicy(single, singleResponse, "the single-table view");
  } finally {
    for (const c of clients) c.end(true);
    await browser.close();
  }
}

main().then(() => process.exit(0), (e) => { console.error(e.message || e); process.exit(1); });
