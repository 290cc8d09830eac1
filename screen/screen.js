// cueboard venue screen: the tables of a venue live, from the MQTT feed over WebSockets.
// Options (query parameters over config.js; docs/screen.md has the table): broker, venue, prefix,
// table (one table, the TV beside it), tables (a chosen set: "1-8", "t1,t2,final"), view (grid,
// list, single, overlay), per_page, rotate (seconds a page stays), page, lang (en nl sv de fr),
// overlay=1 with corner and size (the live-stream scorebug), stats=1 (lag figures for bench/).
//
// Keeping up with hundreds of tables: a message only updates the table's record and marks it
// dirty; once per animation frame the cards on the page that changed are patched (card.js), so
// a burst of states for one table costs one patch, and tables on other pages cost nothing but
// parsing. The `event` topic is not subscribed: every fact shown, the score worm included, is
// in the retained state (an undo comes as a state with a lower seq).

import { validate } from "./validate.js";
import { loadTranslator } from "./i18n.js";
import { readOptions } from "./options.js";
import { Card } from "./card.js";
import { nextChangeMs } from "./clock.js";

const opts = readOptions(location.search, window.CUEBOARD_SCREEN || {}, location.hostname);
const WORM_POINTS = 400;
const SKEW_SAMPLES = 16;
const $ = (id) => document.getElementById(id);
const decoder = new TextDecoder();

const tables = new Map(); // "venue/table" -> the table's record
const cards = new Map(); // "venue/table" -> Card, made when the table first comes on the page
const schemas = {};
let t = (key) => key; // the translator, once its catalogue is in
let connected = false;
let everConnected = false;
let pageIndex = opts.page;
let shown = []; // keys of the tables on the page now
let order = null; // sorted keys of the tables this screen shows; null: to be worked out again
let layoutDirty = true;
let allDirty = false;
let frameRequested = false;
let fallbackTimer = 0;
let clockTimer = 0;
const stats = opts.stats ? { handled: [], shown: [], states: 0, flushes: 0, patched: 0, pages: 0 } : null;
window.cueboardStats = stats;
if (stats && window.PerformanceObserver) {
  stats.long = []; // tasks over 50 ms: [when (epoch ms), how long]
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) stats.long.push([Math.round(performance.timeOrigin + e.startTime), Math.round(e.duration)]);
    }).observe({ type: "longtask" });
  } catch (e) { /* not in this browser */ }
}

// -- problems: for the venue's operator, at the bottom of the page (hidden in the overlay); the
// last five, each for a minute, so a TV is not covered for good by one bad payload --------------
const PROBLEM_MS = 60000;
function problem(text) {
  const list = $("problems");
  const item = document.createElement("li");
  item.className = "problem";
  item.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  list.prepend(item);
  while (list.children.length > 5) list.lastChild.remove();
  setTimeout(() => item.remove(), PROBLEM_MS);
  console.warn(text);
}

// -- what the page knows --------------------------------------------------------------------
function wanted(name) {
  if (opts.table) return name === opts.table;
  return !opts.tables || opts.tables.match(name);
}

function record(venue, name) {
  const key = `${venue}/${name}`;
  let tb = tables.get(key);
  if (!tb) {
    tb = { key, venue, name, state: null, status: null, next: null, worm: new Map(), wormVersion: 0, frame: null,
      dirty: true, skew: 0, skews: [], receivedAt: 0 };
    tables.set(key, tb);
    order = null;
    layoutDirty = true;
  }
  return tb;
}

function parse(topic, payload, schemaName) {
  let obj;
  const text = decoder.decode(payload);
  try { obj = JSON.parse(text); } catch (e) {
    problem(`Ignored a message on ${topic}: it is not JSON (${text.slice(0, 40)})`);
    return null;
  }
  const schema = schemas[schemaName];
  const errors = schema ? validate(schema, obj) : [];
  if (errors.length) {
    problem(`Ignored a message on ${topic}: ${errors.slice(0, 3).join("; ")}`);
    return null;
  }
  return obj;
}

// The page's clock minus the table's, from live states: the smallest (arrival - ts) of the last
// few is the skew plus the quickest delivery, which on a venue's network is a few ms.
function learnSkew(tb, state, now) {
  const ts = Date.parse(state.ts);
  if (!Number.isFinite(ts)) return;
  tb.skews.push(now - ts);
  if (tb.skews.length > SKEW_SAMPLES) tb.skews.shift();
  tb.skew = Math.min(...tb.skews);
}

function onState(tb, state, retained, now) {
  if (tb.frame !== state.frame || (tb.state && state.seq < tb.state.seq - 50)) { tb.worm = new Map(); tb.wormVersion++; }
  tb.frame = state.frame;
  tb.state = state;
  if (!retained) learnSkew(tb, state, now);
  if (state.game === "snooker") {
    let undone = false;
    for (const seq of tb.worm.keys()) if (seq > state.seq) { tb.worm.delete(seq); undone = true; }
    const before = tb.worm.get(state.seq);
    const s0 = state.sides[0].score, s1 = state.sides[1].score;
    if (undone || !before || before[0] !== s0 || before[1] !== s1) {
      tb.worm.set(state.seq, [s0, s1]);
      while (tb.worm.size > WORM_POINTS) tb.worm.delete(Math.min(...tb.worm.keys()));
      tb.wormVersion++;
    }
  }
}

function onMessage(topic, payload, packet) {
  const parts = topic.split("/");
  if (parts.length < 4) return;
  const kind = parts[parts.length - 1];
  const name = parts[parts.length - 2];
  const venue = parts[parts.length - 3];
  if (!wanted(name)) return;
  const now = Date.now();
  if (kind === "status") {
    const text = decoder.decode(payload).trim();
    if (text !== "online" && text !== "offline") { problem(`Ignored a status on ${topic}: "${text.slice(0, 20)}"`); return; }
    const tb = record(venue, name);
    if (tb.status === text) return;
    tb.status = text;
    tb.dirty = true;
  } else if (kind === "state") {
    if (payload.length === 0) { // the retained state cleared: the table is gone
      if (tables.delete(`${venue}/${name}`)) { order = null; layoutDirty = true; schedule(); }
      return;
    }
    const state = parse(topic, payload, "state");
    if (!state) return;
    const tb = record(venue, name);
    onState(tb, state, Boolean(packet && packet.retain), now);
    tb.dirty = true;
    tb.receivedAt = now;
    if (stats) {
      stats.states++;
      const lag = now - Date.parse(state.ts);
      stats.handled.push([now, lag]);
      tb.pendingTs = tb.pendingTs || state.ts;
    }
  } else if (kind === "next") {
    // The match the desk handed the table (shared/contract/mqtt.md), empty when none.
    const text = decoder.decode(payload).trim();
    let next = null;
    if (text) {
      try { next = JSON.parse(text); } catch (e) { problem(`Ignored a message on ${topic}: it is not JSON (${text.slice(0, 40)})`); return; }
      if (!next || typeof next !== "object" || !Array.isArray(next.sides)) { problem(`Ignored a message on ${topic}: no "sides" list`); return; }
    }
    const tb = tables.get(`${venue}/${name}`) || (next ? record(venue, name) : null);
    if (!tb) return;
    tb.next = next;
    tb.dirty = true;
  } else {
    return;
  }
  schedule();
}

// -- pages ----------------------------------------------------------------------------------
const collator = new Intl.Collator(undefined, { numeric: true });

function pages() {
  if (!order) order = [...tables.keys()].sort((a, b) => collator.compare(a, b));
  const per = perPage(order.length);
  const out = [];
  for (let i = 0; i < order.length; i += per) out.push(order.slice(i, i + per));
  return out;
}

// Cards a page (docs/screen.md, "Any number of tables"): `per_page` when given; else as many as
// the screen holds while the scores' digits stay at least 1/16 of its height, up to 16 (a grid's
// card must be at least GRID_MIN_H of the screen's height and GRID_MIN_W of its width: its
// compact layout draws the digits at 0.3 of the card's height), and the list's rows at least
// LIST_MIN_H (digits 0.86 x 0.73 of a row). Then the tables are spread evenly over the pages
// that need: 24 tables are 12 + 12, not 16 + 8.
const MAX_AUTO = 16, GRID_MIN_H = 0.215, GRID_MIN_W = 0.17, LIST_MIN_H = 0.0935;
function fits(n) {
  const w = window.innerWidth, h = window.innerHeight;
  if (opts.view === "list") return (h * 0.94) / n >= LIST_MIN_H * h;
  const [cols, rows] = gridShape(n);
  return (h * 0.94) / rows >= GRID_MIN_H * h && w / cols >= GRID_MIN_W * w;
}
function listRows() {
  let most = 1;
  for (let n = 2; n <= MAX_AUTO; n++) if (fits(n)) most = n;
  return most;
}
function perPage(count) {
  if (opts.perPage) return opts.perPage;
  let most = 1;
  for (let n = 2; n <= MAX_AUTO; n++) if (fits(n)) most = n;
  const pagesNeeded = Math.max(1, Math.ceil(count / most));
  return Math.max(1, Math.ceil(count / pagesNeeded));
}

// Columns and rows for n cards, on this screen's shape: the layout with the largest cards. Up
// to 8, a card a little wider than high reads best (the worm below the scores); more, a wide
// one (the compact card: each name beside its score, as large as the card is high).
function gridShape(n) {
  const w = window.innerWidth, h = window.innerHeight;
  const aspect = n > 8 ? 1.8 : 1.05;
  let best = [1, 1], bestSize = 0;
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    const cw = w / cols, ch = h / rows;
    const size = Math.min(cw / aspect, ch);
    if (size > bestSize + 0.5) { bestSize = size; best = [cols, rows]; }
  }
  return best;
}

function layout() {
  layoutDirty = false;
  const list = pages();
  if (pageIndex >= list.length) pageIndex = 0;
  const keys = list[pageIndex] || [];
  const main = $("tables");
  const changed = keys.length !== shown.length || keys.some((k, i) => k !== shown[i]);
  if (changed) {
    const nodes = keys.map((key) => {
      let card = cards.get(key);
      if (!card) { card = new Card(tables.get(key)); cards.set(key, card); }
      const tb = tables.get(key);
      tb.dirty = true; // a card coming on the page shows what happened while it was away
      return card.root;
    });
    main.replaceChildren(...nodes);
    shown = keys;
    for (const key of cards.keys()) if (!tables.has(key)) cards.delete(key);
  }
  main.classList.toggle("solo", opts.view === "grid" && keys.length === 1); // one table: as large as the TV view
  // Where each card goes: column --c and row --r of --cols by --rows (screen.css places them).
  const [cols, rows] = opts.view === "grid" ? gridShape(Math.max(1, keys.length))
    : [1, opts.perPage || listRows()];
  // Cards wider than high by a quarter (12 or 16 on a page) are drawn compact: the scores fill
  // the card's height (screen.css, .compact).
  main.classList.toggle("compact", opts.view === "grid" && keys.length > 1
    && (window.innerWidth / cols) / ((window.innerHeight * 0.94) / rows) > 1.25);
  main.style.setProperty("--cols", cols);
  main.style.setProperty("--rows", rows);
  const slot = `${opts.view} ${cols}x${rows} ${window.innerWidth}x${window.innerHeight}`;
  keys.forEach((key, i) => {
    const card = cards.get(key);
    card.root.style.setProperty("--c", i % cols);
    card.root.style.setProperty("--r", Math.floor(i / cols));
    card.root.classList.toggle("even", i % 2 === 1);
    // Names are fitted again only where the card's size may have changed.
    if (card.slot !== slot) { card.slot = slot; card.namesChanged = true; }
  });
  $("empty").hidden = tables.size > 0;
  main.dataset.tables = String(order.length);
  const pager = $("pager");
  pager.hidden = list.length < 2;
  if (list.length >= 2) {
    pager.replaceChildren();
    const label = document.createElement("span");
    label.className = "page-label";
    label.textContent = t("page", { n: pageIndex + 1, m: list.length });
    pager.append(label);
    if (list.length <= 16) {
      const dots = document.createElement("span");
      dots.className = "dots";
      for (let i = 0; i < list.length; i++) {
        const d = document.createElement("i");
        if (i === pageIndex) d.className = "on";
        dots.append(d);
      }
      pager.append(dots);
    }
    pager.dataset.page = String(pageIndex + 1);
    pager.dataset.pages = String(list.length);
  }
  if (stats) stats.pages = list.length;
}

function turnPage() {
  const n = pages().length;
  if (n < 2) return;
  pageIndex = (pageIndex + 1) % n;
  layoutDirty = true;
  schedule();
}

// -- drawing, once a frame --------------------------------------------------------------------
function schedule() {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(flush);
  // A hidden or throttled page gets no animation frames; a timer still draws it.
  fallbackTimer = setTimeout(flush, 250);
}

function flush() {
  if (!frameRequested) return;
  frameRequested = false;
  clearTimeout(fallbackTimer);
  if (layoutDirty) layout();
  const now = Date.now();
  const ctx = { t, connected, worm: opts.view === "grid" || opts.view === "single", list: opts.view === "list", now };
  const fit = [];
  for (const key of shown) {
    const tb = tables.get(key);
    const card = cards.get(key);
    if (!tb || !card) continue;
    if (tb.dirty || allDirty) {
      tb.dirty = false;
      card.update(tb, ctx);
      if (stats) {
        stats.patched++;
        if (tb.pendingTs) { stats.shown.push([now, now - Date.parse(tb.pendingTs)]); tb.pendingTs = null; }
      }
    }
    if (card.namesChanged) fit.push(card);
  }
  allDirty = false;
  if (fit.length) Card.fitNames(fit);
  if (stats) {
    stats.flushes++;
    // Off the page: its states were handled, nothing more to draw.
    for (const tb of tables.values()) if (tb.pendingTs && !shown.includes(tb.key)) tb.pendingTs = null;
  }
  scheduleClock();
}

// The shot clocks on the page count down between states: a timer for the next second that
// changes on any of them, and only their clock elements are written.
function scheduleClock() {
  clearTimeout(clockTimer);
  let next = Infinity;
  for (const key of shown) {
    const card = cards.get(key);
    if (card && card.clockView) next = Math.min(next, nextChangeMs(card.clockView));
  }
  if (next < Infinity) clockTimer = setTimeout(tickClocks, Math.max(5, next + 3));
}

function tickClocks() {
  const ctx = { t, connected, now: Date.now() };
  for (const key of shown) {
    const tb = tables.get(key);
    const card = cards.get(key);
    if (tb && card && card.clockView && card.clockView.running) card.updateClock(tb, ctx);
  }
  scheduleClock();
}

function setConnected(on, text, state) {
  const conn = $("conn");
  conn.textContent = text;
  conn.dataset.state = state;
  document.body.classList.toggle("disconnected", !on && everConnected);
  if (connected !== on) {
    connected = on;
    allDirty = true;
    schedule();
  }
}

// -- connecting ------------------------------------------------------------------------------
async function loadSchemas() {
  for (const name of ["state"]) {
    try {
      const r = await fetch(`vendor/${name}.schema.json`);
      schemas[name] = await r.json();
    } catch (e) {
      problem(`Could not load the ${name} schema (${e}); payloads are not checked`);
    }
  }
}

function connect() {
  // A client id starting "cueboard-": the venue's broker lets no other in (examples/mosquitto/venue.conf,
  // so that nobody can take a table's connection over with its id).
  const clientId = `cueboard-screen-${Math.random().toString(16).slice(2, 10)}`;
  const client = mqtt.connect(opts.broker, { clientId, reconnectPeriod: 2000, connectTimeout: 10000, clean: true });
  // One table, or a set of names: only their topics. Ranges ("1-8") cannot be subscribed to: all
  // the venue's tables are, and the others are dropped by their topic, before any parsing.
  const exact = opts.table ? [opts.table] : opts.tables && opts.tables.items.every((it) => it.lo === undefined)
    ? opts.tables.items.map((it) => it.name) : null;
  const names = exact && exact.every((n) => !/[+#/]/.test(n)) ? exact : ["+"]; // a name MQTT would read as a wildcard: all
  const topics = names.flatMap((name) => [`${opts.prefix}/${opts.venue}/${name}/state`, `${opts.prefix}/${opts.venue}/${name}/status`,
    `${opts.prefix}/${opts.venue}/${name}/next`]);
  client.on("connect", () => {
    everConnected = true;
    setConnected(true, `${t("live")} · ${opts.broker}`, "connected");
    // QoS 1, though it costs a PUBACK a state: mosquitto drops QoS 0 messages for a client
    // once 1000 wait to be sent to it (max_queued_messages), and subscribing in a hall of 500
    // tables or more brings that many retained messages at once: tables would be missing until
    // their next state. At QoS 1 the broker queues them and paces them by the acknowledgements.
    client.subscribe(topics, { qos: 1 });
  });
  client.on("reconnect", () => setConnected(false, `${t("connecting")} ${opts.broker}`, "connecting"));
  client.on("close", () => setConnected(false, `${t("no_connection")}: ${opts.broker}`, "error"));
  client.on("offline", () => setConnected(false, `${t("no_connection")}: ${opts.broker}`, "error"));
  client.on("error", (e) => setConnected(false, `${t("no_connection")}: ${e.message}`, "error"));
  client.on("message", (topic, payload, packet) => {
    try { onMessage(topic, payload, packet); } catch (e) { problem(`Could not show a message on ${topic}: ${e.message}`); }
  });
  window.cueboardClient = client;
}

async function main() {
  const body = document.body;
  body.classList.add(`view-${opts.view}`);
  if (opts.view === "overlay") {
    document.documentElement.classList.add("overlay");
    body.dataset.corner = opts.corner;
    body.style.setProperty("--scale", opts.scale);
  }
  for (const p of opts.problems) problem(p);
  t = await loadTranslator(opts.lang, problem);
  document.documentElement.lang = opts.lang;
  const title = opts.table || (opts.venue === "+" ? t("all_tables") : opts.venue);
  $("title").textContent = title;
  document.title = `cueboard · ${title}`;
  $("empty").textContent = t("waiting");
  $("conn").textContent = t("connecting");
  await loadSchemas();
  const rotate = opts.view === "overlay" && !new URLSearchParams(location.search).has("rotate") ? 0 : opts.rotate;
  if (rotate > 0) setInterval(turnPage, rotate * 1000);
  window.addEventListener("resize", () => { layoutDirty = true; schedule(); }); // the slot's size changes: names fitted again
  window.cueboardShow = (n) => { pageIndex = n; layoutDirty = true; schedule(); }; // tests and the bench
  layoutDirty = true;
  schedule();
  connect();
}

main();
