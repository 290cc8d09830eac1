// The scorer's tap to the table's answer drawn (run by bench/scorer.py, which runs the venue, the
// real table daemon of t1 and the simulated tables, and the floor's echo; this script prints
// "result {...}").
//
// Debian's headless Chromium as a phone (touch, 390x844). The scorer page (/score) is opened as
// the table's card opens it (the login in the fragment). An init script records when each touch
// on a key began (pointerdown) and when the page drew a tap's answer (the ".last" line carrying
// the tap's id and its verdict), the time taken after that frame was painted. Taps alternate
// "pot red" and "undo" (both always applied), one at a time: the next tap after the answer to the
// last is drawn, or after `timeout` s (then it counts as a failure).
//
// The floor, in the same page (the same main thread) and run: a plain mqtt.js client signed in
// as the scorer of another table (t64, simulated: nothing reads its commands but the echo)
// publishes a ping on its scorer topic; bench/scorer.py's echo, on that table's own session,
// publishes it back on the table's `event`; the round trip from publish to receipt.
import { readFileSync } from "node:fs";
import { check, chromium } from "../tests/screen/screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));

function instrument() {
  const B = { touches: [], lifts: [], clicks: [], answers: [], seen: new Set(), sent: {}, received: {}, codes: {}, seqs: {}, states: [] };
  window.__bench = B;
  // Where the time goes: mqtt.js's client (vendor/mqtt.min.js, set as window.mqtt) wrapped as it
  // arrives, to note when a tap's line was handed to the socket and when its answer came in.
  let real;
  Object.defineProperty(window, "mqtt", { configurable: true, get: () => real, set: (lib) => {
    real = { ...lib, connect: (...args) => {
      const client = lib.connect(...args);
      const publish = client.publish.bind(client);
      client.publish = (topic, payload, ...rest) => {
        try { const id = JSON.parse(payload).id; if (id && !(id in B.sent)) B.sent[id] = Date.now(); } catch { /* not a line */ }
        return publish(topic, payload, ...rest);
      };
      const emit = client.emit.bind(client);
      client.emit = (name, ...rest) => {
        if (name === "message" && /\/(event|rejected|state)$/.test(rest[0])) {
          const at = Date.now();
          try {
            const body = JSON.parse(new TextDecoder().decode(rest[1]));
            if (rest[0].endsWith("/state")) B.states.push([body.seq, at]);
            else if (body.id) {
              if (!(body.id in B.received)) { B.received[body.id] = at; B.seqs[body.id] = body.seq ?? null; }
              (B.codes[body.id] ||= []).push(rest[0].endsWith("/event") ? "applied" : String(body.code));
            }
          } catch { /* not JSON */ }
        }
        return emit(name, ...rest);
      };
      return client;
    } };
  } });
  // The book's Web Lock (a round trip to the browser's process): from asked to granted, each time.
  B.lockWaits = [];
  if (navigator.locks) {
    const request = navigator.locks.request.bind(navigator.locks);
    navigator.locks.request = (name, ...rest) => {
      const fn = rest.pop();
      const asked = performance.now();
      return request(name, ...rest, (lock) => {
        if (String(name).startsWith("cueboard-score-book:")) B.lockWaits.push([performance.timeOrigin + asked, performance.now() - asked]);
        return fn(lock);
      });
    };
  }
  document.addEventListener("pointerdown", (e) => {
    if (e.target.closest && e.target.closest("button.key")) B.touches.push(Date.now());
  }, true);
  document.addEventListener("pointerup", (e) => {
    if (e.target.closest && e.target.closest("button.key")) B.lifts.push(Date.now());
  }, true);
  document.addEventListener("click", (e) => {
    if (e.target.closest && e.target.closest("button.key")) B.clicks.push(Date.now());
  }, true);
  const observer = new MutationObserver(() => {
    const last = document.querySelector(".last");
    if (!last) return;
    const key = `${last.dataset.id} ${last.dataset.status}`;
    if (B.seen.has(key)) return;
    B.seen.add(key);
    const channel = new MessageChannel();
    channel.port1.onmessage = () => B.answers.push([last.dataset.id, last.dataset.status, Date.now()]);
    channel.port2.postMessage(0);
  });
  const watch = () => observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  if (document.body) watch(); else document.addEventListener("DOMContentLoaded", watch);
}

const browser = await chromium.launch({
  executablePath: plan.chromium, headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
    `--ignore-certificate-errors-spki-list=${plan.spki}`],
});
try {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true,
    deviceScaleFactor: 2 });
  await context.addInitScript(instrument);
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  const login = `#user=${encodeURIComponent(plan.user)}&pass=${encodeURIComponent(plan.password)}&trust=1`;
  await page.goto(`${plan.url}/score?broker=${plan.broker}&venue=${plan.venue}&table=${plan.table}${login}`);
  await page.waitForFunction(() => {
    const m = window.cueboardScorer && window.cueboardScorer.model;
    return m && m.connection === "online" && m.state && m.state.sides && m.sender;
  }, null, { timeout: 120000 });
  check(true, "the scorer is online with the table's state");

  // The floor's client, in the page.
  await page.evaluate(({ broker, user, password, out, back }) => new Promise((resolve, reject) => {
    const c = window.mqtt.connect(broker, { username: user, password, clientId: `cueboard-${user}-floor`,
      protocolVersion: 5, clean: true, reconnectPeriod: 0 });
    window.__floor = { client: c, out, waiting: new Map() };
    c.on("message", (topic, payload) => {
      let body;
      try { body = JSON.parse(new TextDecoder().decode(payload)); } catch { return; }
      const done = body && window.__floor.waiting.get(body.ping);
      if (done) { window.__floor.waiting.delete(body.ping); done(Date.now()); }
    });
    c.once("connect", () => c.subscribe(back, { qos: 1 }, (e) => (e ? reject(e) : resolve())));
    c.once("error", reject);
  }), { broker: plan.broker, user: plan.floor_user, password: plan.floor_password, out: plan.floor_out, back: plan.floor_back });
  const ping = (k, timeoutMs) => page.evaluate(({ k, timeoutMs }) => new Promise((resolve) => {
    const f = window.__floor;
    const sent = Date.now();
    const timer = setTimeout(() => { f.waiting.delete(k); resolve(null); }, timeoutMs);
    f.waiting.set(k, (at) => { clearTimeout(timer); resolve(at - sent); });
    f.client.publish(f.out, JSON.stringify({ ping: k }), { qos: 1 });
  }), { k, timeoutMs });

  const LINES = [{ type: "pot", balls: ["red"] }, { type: "undo" }];
  const taps = [];
  const floor = [];
  for (let i = 0; i < plan.taps; i += 1) {
    const line = LINES[i % LINES.length];
    const before = await page.evaluate(() => [window.__bench.touches.length, window.cueboardScorer.outbox().read().next]);
    await page.locator(`button[data-tap='${JSON.stringify(line)}']`).first().tap();
    let id = null;
    let answer = null;
    try {
      await page.waitForFunction((n) => window.cueboardScorer.outbox().read().next > n, before[1], { timeout: plan.timeout * 1000 });
      id = await page.evaluate((n) => window.cueboardScorer.outbox().read().taps.find((t) => t.id.endsWith(`-${n}`)).id, before[1]);
      answer = await page.waitForFunction((id) => window.__bench.answers.find((a) => a[0] === id), id,
        { timeout: plan.timeout * 1000 }).then((h) => h.jsonValue());
    } catch (e) {
      answer = null;
    }
    const touched = await page.evaluate((n) => window.__bench.touches[n] ?? null, before[0]);
    const [lifted, clicked, sent, received, codes, state] = await page.evaluate(([id, n]) => {
      const B = window.__bench;
      const got = B.received[id] ?? null;
      const seq = B.seqs[id];
      // The state the table published with its answer: the last one of that seq before the answer
      // came (it publishes the state, then the event), or the first after.
      const mine = B.states.filter(([s]) => s === seq);
      const before = mine.filter(([, at]) => got !== null && at <= got).pop();
      return [B.lifts[n] ?? null, B.clicks[n] ?? null, B.sent[id] ?? null, got, B.codes[id] ?? [], (before || mine[0] || [null, null])[1]];
    }, [id, before[0]]);
    taps.push({ line: line.type, id, touched, lifted, clicked, sent, received, state, codes, answered: answer ? answer[2] : null,
      status: answer ? answer[1] : null });
    floor.push(await ping(i, plan.timeout * 1000));
    // A marker's pace, not a flood's: the table takes one source's lines at commands.rate (5 a
    // second after a burst of 10) and answers the rest "later", which the page sends again in
    // 0.5 s; that is the table's pacing, not the tap's path, so the next tap waits its turn.
    const next = Date.now() + plan.gap_ms;
    if (!answer) await page.waitForTimeout(100); // a tap with no answer: the next one goes on all the same
    await page.waitForTimeout(Math.max(0, next - Date.now()));
  }
  const lockWaits = await page.evaluate(() => window.__bench.lockWaits);
  console.log(`result ${JSON.stringify({ taps, floor, lockWaits, errors: errors.slice(0, 5) })}`);
} finally {
  await browser.close();
}
