// The venue screen under load (run by bench/screen.py, which starts the broker and the page's
// server and gives the plan): `tables` tables publish `rate` events a second each for `seconds`,
// each event as a daemon sends it (the event, then the retained state, QoS 1, the state's "ts"
// the moment it is sent), over one MQTT connection per 32 tables; one page in headless Chromium
// (Debian's) shows them with ?stats=1 and records, per state, when it was handled and, for the
// tables on its page, when the card showing it was drawn. Prints one JSON line: the page's
// records and the run's counts.
import { readFileSync } from "node:fs";
import { connect, launch, mqtt, openPage, sleep } from "../tests/screen/screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const PREFIX = `cueboard/${plan.venue}`;
const TABLES_A_CLIENT = 32;

async function main() {
  const browser = await launch(plan.chromium);
  const clients = [];
  try {
    const names = Array.from({ length: plan.tables }, (_, i) => `table-${i + 1}`);
    for (let i = 0; i < names.length; i += TABLES_A_CLIENT) clients.push(await connect(plan.mqtt_port, { clientId: `bench-${i}` }));
    const clientOf = (i) => clients[Math.floor(i / TABLES_A_CLIENT)];
    const matches = plan.matches; // [[state, ...], ...]: whole matches, played round and round
    const tables = names.map((name, i) => ({ name, match: matches[i % matches.length], step: (i * 17) % matches[i % matches.length].length,
      sides: plan.names[i % plan.names.length] }));
    const pub = (c, topic, payload, retain) => new Promise((resolve, reject) =>
      c.publish(topic, payload, { qos: 1, retain }, (e) => (e ? reject(e) : resolve())));
    const stateOf = (t) => {
      const base = t.match[t.step];
      const sides = base.sides.map((s, k) => ({ ...s, name: t.sides[k], players: [t.sides[k]] }));
      return { ...base, sides, player: base.striker === null ? null : t.sides[base.striker], table: t.name, ts: new Date().toISOString() };
    };
    // Every table online with its state retained before the page opens, as in a hall.
    await Promise.all(tables.map((t, i) => pub(clientOf(i), `${PREFIX}/${t.name}/status`, "online", true)));
    await Promise.all(tables.map((t, i) => pub(clientOf(i), `${PREFIX}/${t.name}/state`, JSON.stringify(stateOf(t)), true)));
    // The floor: a plain mqtt.js subscriber in this process, over the same WebSockets listener,
    // timing the states of the first 32 tables as the page does (what the broker and the machine
    // cost without a page; a sample, so as not to double the broker's work).
    const floor = [];
    const floorClient = mqtt.connect(`ws://127.0.0.1:${plan.ws_port}`, { reconnectPeriod: 0 });
    await new Promise((resolve, reject) => { floorClient.once("connect", resolve); floorClient.once("error", reject); });
    let floorOn = false;
    floorClient.on("message", (topic, payload, packet) => {
      if (!floorOn || packet.retain) return;
      const now = Date.now();
      floor.push([now, now - Date.parse(JSON.parse(payload.toString()).ts)]);
    });
    await new Promise((resolve) => floorClient.subscribe(names.slice(0, 32).map((n) => `${PREFIX}/${n}/state`), { qos: 1 }, resolve));
    clients.push(floorClient);
    const page = await openPage(browser, plan, `stats=1&${plan.query}`, { width: plan.width, height: plan.height });
    await page.waitForFunction((n) => document.getElementById("tables").dataset.tables === String(n), plan.tables, { timeout: 120000 });
    await page.evaluate(() => { const s = window.cueboardStats; s.handled.length = 0; s.shown.length = 0; s.states = 0; });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Performance.enable");
    const metric = async () => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
    const m0 = await metric();
    floorOn = true;

    // Publish: table i's events fall evenly through each 1/rate s, a 5 ms tick sending what is due.
    const period = 1000 / plan.rate;
    const started = Date.now();
    const end = started + plan.seconds * 1000;
    let sent = 0, events = 0, late = 0;
    const next = tables.map((_, i) => started + (i / tables.length) * period);
    const inflight = new Set();
    while (Date.now() < end) {
      const now = Date.now();
      for (let i = 0; i < tables.length; i++) {
        if (next[i] > now) continue;
        if (now - next[i] > period) late++; // the publisher itself fell behind
        next[i] += period;
        const t = tables[i];
        t.step = (t.step + 1) % t.match.length;
        const state = stateOf(t);
        const c = clientOf(i);
        const p = pub(c, `${PREFIX}/${t.name}/event`, JSON.stringify({ schema: 1, seq: state.seq, event: { type: "no_pot" }, ts: state.ts }), false)
          .then(() => pub(c, `${PREFIX}/${t.name}/state`, JSON.stringify(state), true));
        inflight.add(p);
        p.finally(() => inflight.delete(p));
        sent++;
        events++;
      }
      await sleep(5);
    }
    const publishEnded = Date.now();
    await Promise.all(inflight);
    // Let the page catch up: until it has handled every state, or `drain` seconds.
    const drainUntil = publishEnded + plan.drain * 1000;
    let handled = 0;
    while (Date.now() < drainUntil) {
      handled = await page.evaluate(() => window.cueboardStats.states);
      if (handled >= sent) break;
      await sleep(200);
    }
    const m1 = await metric();
    const stats = await page.evaluate(() => {
      const s = window.cueboardStats;
      return { handled: s.handled, shown: s.shown, states: s.states, flushes: s.flushes, patched: s.patched, pages: s.pages, long: s.long || [] };
    });
    const problems = await page.$$eval("#problems li", (l) => l.map((e) => e.textContent));
    console.log(JSON.stringify({
      tables: plan.tables, rate: plan.rate, seconds: plan.seconds, query: plan.query, started, publish_ended: publishEnded,
      sent, events, publisher_late: late, handled_by_end: stats.states, caught_up_ms: stats.states >= sent ? Date.now() - publishEnded : null,
      page: { handled: stats.handled, shown: stats.shown, flushes: stats.flushes, patched: stats.patched, pages: stats.pages, long: stats.long },
      floor,
      main_thread_busy_s: m1.TaskDuration - m0.TaskDuration, script_s: m1.ScriptDuration - m0.ScriptDuration,
      layout_s: m1.LayoutDuration - m0.LayoutDuration, style_s: m1.RecalcStyleDuration - m0.RecalcStyleDuration,
      layouts: m1.LayoutCount - m0.LayoutCount, style_recalcs: m1.RecalcStyleCount - m0.RecalcStyleCount,
      wall_s: (Date.now() - started) / 1000, js_heap_mb: m1.JSHeapUsedSize / 1e6, nodes: m1.Nodes,
      problems: problems.slice(0, 3), errors: page.errors.slice(0, 3),
    }));
  } finally {
    for (const c of clients) c.end(true);
    await browser.close();
  }
}

main().then(() => process.exit(0), (e) => { console.error(e.stack || e.message || e); process.exit(1); });
