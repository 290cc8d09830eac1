// The desk under a live venue (run by bench/desk.py, which runs the venue broker, the HTTPS
// server and the simulated tables, and speaks to this script by lines: it prints "ready {...}"
// once the desk's first complete page is drawn, reads "stop {table: last ts}" once publishing is
// over, and prints "result {...}").
//
// Two pages in one headless Chromium (Debian's):
// - the floor: a blank page with mqtt.js alone, signed in with a desk login of its own over the same secure
//   WebSockets listener, subscribed to every table's `event`; it records, per event, when it
//   arrived (the broker, TLS, WebSockets and the browser, and nothing of the desk);
// - the desk (/desk), signed in through its form. An init script records, for every table, when
//   the desk drew each of its states: a MutationObserver sees each render's changes; a table is
//   credited with the state in the desk's store at that render when its row changed in it (or,
//   for a state nothing in the row shows differently, at the next render or within 100 ms); the time is taken
//   after that frame was painted (a message posted from the render runs after the paint).
//   Each credit is [table, the state's ts in ms, drawn at in ms].
// What it reads of the desk (screen/desk/): the sign-in form (input[name=user|password],
// form.signin), one row a table (tr.table[data-table] with .match .side and .score), and the
// store the page exposes for tests and benches (window.cueboardDesk.tables: name -> {state}).
// tests/bench/test_bench_pages.py runs this tiny, so a change there that breaks it is seen at once.
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { check, chromium } from "../tests/screen/screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const input = createInterface({ input: process.stdin });
const lines = [];
const waiters = [];
input.on("line", (l) => (waiters.length ? waiters.shift()(l) : lines.push(l)));
const nextLine = () => (lines.length ? Promise.resolve(lines.shift()) : new Promise((r) => waiters.push(r)));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function instrument(tables) {
  const B = { credits: [], complete: null, mismatches: [], renders: 0, started: Date.now() };
  window.__bench = B;
  const last = new Map(); // table -> {ts, key}: the state last credited
  // What a table's row shows of its state (docs/desk.md): names, points, frames, the striker, the
  // frame, the match's end, the shot clock. A state that changes none of these draws nothing new.
  const keyOf = (s) => JSON.stringify([(s.sides || []).map((x) => [x.name, x.score, x.frames]),
    s.frame_over ? null : s.striker, s.frame, s.best_of, s.match_over,
    s.clock && s.clock.length != null ? [s.clock.running, s.clock.paused, s.clock.ends_at, s.clock.left] : null]);
  const rowOf = (node) => {
    const el = node.nodeType === 1 ? node : node.parentElement;
    return el && el.closest ? el.closest("tr.table") : null;
  };
  // Credited on each mutation of the page (the rows just drawn), and 10 times a second besides: a
  // state that changes nothing a row shows makes no mutation, and the last one a table sends would
  // otherwise wait for another table's to be credited (or never be). A timer, not every animation
  // frame: a loop of frames kept the page drawing 60 frames a second and looking at every table in
  // each, time counted as the desk's own (issue 38: some 7 % of its main thread at 256 tables).
  const pass = (records) => {
    const link = window.cueboardDesk;
    if (!link) return;
    if (records.length) B.renders += 1;
    const changed = new Set();
    for (const r of records) {
      const row = rowOf(r.target);
      if (row) changed.add(row.dataset.table);
      for (const n of r.addedNodes) {
        if (n.nodeType !== 1) continue;
        if (n.matches("tr.table")) changed.add(n.dataset.table);
        for (const x of n.querySelectorAll("tr.table")) changed.add(x.dataset.table);
      }
    }
    const credited = [];
    for (const [name, tb] of link.tables) {
      const s = tb.state;
      if (!s || !s.ts) continue;
      const ts = Date.parse(s.ts);
      const prev = last.get(name);
      if (prev && prev.ts >= ts) continue;
      const key = keyOf(s);
      if (!changed.has(name) && !(prev && prev.key === key)) continue;
      // The row changed in this render: it must show the store's points (else the desk drew something stale).
      if (changed.has(name)) {
        const row = document.querySelector(`tr.table[data-table="${name}"]`);
        const shown = row ? [...row.querySelectorAll(".score")].map((e) => e.textContent).join(" ") : null;
        const want = (s.sides || []).map((x) => String(x.score ?? "")).join(" ");
        if (shown !== want && B.mismatches.length < 20) B.mismatches.push([name, shown, want]);
      }
      credited.push([name, ts]);
      last.set(name, { ts, key });
    }
    if (!credited.length && B.complete) return;
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const at = Date.now();
      for (const [name, ts] of credited) B.credits.push([name, ts, at]);
      if (!B.complete && document.querySelectorAll("tr.table .match .side").length >= 2 * tables) B.complete = at;
    };
    channel.port2.postMessage(0);
  };
  const observer = new MutationObserver(pass);
  setInterval(() => pass([]), 100);
  const watch = () => observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  if (document.body) watch(); else document.addEventListener("DOMContentLoaded", watch);
}

const browser = await chromium.launch({
  executablePath: plan.chromium, headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-background-timer-throttling", "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows",
    `--ignore-certificate-errors-spki-list=${plan.spki}`],
});
try {
  // The floor first, so that it hears every event the desk does.
  const floorContext = await browser.newContext();
  const floor = await floorContext.newPage();
  await floor.addScriptTag({ content: readFileSync(plan.mqtt_js, "utf8") });
  await floor.evaluate(({ broker, user, password, topic }) => new Promise((resolve, reject) => {
    window.__floor = [];
    const c = window.mqtt.connect(broker, { username: user, password, clientId: `cueboard-${user}-floor`,
      protocolVersion: 5, clean: true, reconnectPeriod: 0 });
    c.on("message", (t, payload) => {
      const at = Date.now();
      const body = JSON.parse(new TextDecoder().decode(payload));
      window.__floor.push([t.split("/")[2], Date.parse(body.ts), at]);
    });
    c.once("connect", () => c.subscribe(topic, { qos: 1 }, (e) => (e ? reject(e) : resolve())));
    c.once("error", reject);
  }), { broker: plan.broker, user: plan.floor_user, password: plan.floor_password, topic: `cueboard/${plan.venue}/+/event` });

  const context = await browser.newContext({ viewport: { width: 1366, height: 768 }, deviceScaleFactor: 1 });
  await context.addInitScript(instrument, plan.tables);
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  const opened = Date.now();
  await page.goto(`${plan.url}/desk?broker=${encodeURIComponent(plan.broker)}&venue=${plan.venue}`);
  await page.fill("input[name=user]", plan.user);
  await page.fill("input[name=password]", plan.password);
  const signedIn = Date.now();
  await page.click("form.signin button[type=submit]");
  await page.waitForFunction(() => window.__bench.complete, null, { timeout: 180000 });
  const complete = await page.evaluate(() => window.__bench.complete);
  check(true, `the desk's first complete page: ${plan.tables} tables drawn ${complete - signedIn} ms after signing in`);
  await page.evaluate(() => { window.__bench.credits.length = 0; });
  await floor.evaluate(() => { window.__floor.length = 0; });
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const metric = async () => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
  // --trace FILE (bench/desk.py): Chrome's timeline of the measured part, to see where the main thread's time goes.
  if (plan.trace) await browser.startTracing(page, { path: plan.trace, categories: ["devtools.timeline", "v8.execute"] });
  if (plan.profile) { await cdp.send("Profiler.enable"); await cdp.send("Profiler.start"); }
  const m0 = await metric();
  const began = Date.now();
  console.log(`ready ${JSON.stringify({ opened, signed_in: signedIn, complete })}`);

  const stop = await nextLine();
  const lastTs = JSON.parse(stop.split(" ").slice(1).join(" "));
  const ended = Date.now();
  // Drain: until the desk has drawn every table's last state (and the floor heard it), or `drain` s.
  const until = Date.now() + plan.drain * 1000;
  let caughtUp = null;
  while (Date.now() < until) {
    const done = await page.evaluate((want) => {
      const got = new Map();
      for (const [name, ts] of window.__bench.credits) got.set(name, Math.max(got.get(name) || 0, ts));
      return Object.entries(want).every(([name, ts]) => (got.get(name) || 0) >= ts);
    }, lastTs);
    if (done) { caughtUp = Date.now() - ended; break; }
    await sleep(250);
  }
  const m1 = await metric();
  if (plan.trace) await browser.stopTracing();
  if (plan.profile) writeFileSync(plan.profile, JSON.stringify((await cdp.send("Profiler.stop")).profile));
  const wall = (Date.now() - began) / 1000;
  const desk = await page.evaluate(() => ({ credits: window.__bench.credits, mismatches: window.__bench.mismatches,
    renders: window.__bench.renders, rereads: window.cueboardDesk.rereads }));
  const heard = await floor.evaluate(() => window.__floor);
  console.log(`result ${JSON.stringify({
    credits: desk.credits, floor: heard, mismatches: desk.mismatches, renders: desk.renders, rereads: desk.rereads,
    caught_up_ms: caughtUp, main_thread_busy_percent: Math.round(1000 * (m1.TaskDuration - m0.TaskDuration) / wall) / 10,
    script_percent: Math.round(1000 * (m1.ScriptDuration - m0.ScriptDuration) / wall) / 10,
    style_percent: Math.round(1000 * (m1.RecalcStyleDuration - m0.RecalcStyleDuration) / wall) / 10,
    layout_percent: Math.round(1000 * (m1.LayoutDuration - m0.LayoutDuration) / wall) / 10,
    js_heap_mb: Math.round(m1.JSHeapUsedSize / 1e5) / 10, dom_nodes: m1.Nodes, errors: errors.slice(0, 5),
  })}`);
} finally {
  await browser.close();
  input.close();
}
