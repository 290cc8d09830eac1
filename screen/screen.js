// @ts-check
// cueboard venue screen: the tables of a venue live, from the MQTT feed over WebSockets.
// Options (query parameters over config.js; docs/screen.md has the table): venue, prefix,
// table (one table, the TV beside it), tables (a chosen set: "1-8", "t1,t2,final"), view (grid,
// list, single, overlay), per_page, rotate (seconds a page stays), page, lang (en nl sv de fr),
// overlay=1 with corner and size (the live-stream scorebug), stats=1 (lag figures for bench/).
// The broker is config.js's only: a link's ?broker= naming another is refused (shared/venue_broker.js).
//
// Keeping up with hundreds of tables: a message is read (checked against its schema) into the
// pages' shared store (shared/store.js), which keeps each topic's latest payload and tells the
// page once per animation frame what changed; the page then takes the changed topics into its
// tables' records and patches the cards on the page that changed (card.js), so a burst of states
// for one table costs one patch, and tables on other pages cost nothing but parsing. (What
// every state adds, the score worm's point for its stroke, is taken as it comes.) The `event` topic is not subscribed: every fact shown, the score worm included, is
// in the retained state (an undo comes as a state with a lower seq).
//
// Everything the page knows is one Screen (below); the connection, the payloads' checks and the
// words are the pages' shared modules (shared/).

import { loadTranslator, translator, errorText } from "./shared/i18n.js";
import { Session, tableTopic, tableTopics } from "./shared/broker.js";
import { loadSchemas, readPayload, textOf } from "./shared/payloads.js";
import { Store } from "./shared/store.js";
import { readOptions } from "./options.js";
import { Card } from "./card.js";
import { cardGame } from "./games.js";
import { nextChangeMs } from "./clock.js";

/**
 * @typedef {import("./options.js").Options} Options
 * @typedef {import("./card.js").TableRecord} TableRecord
 * @typedef {import("./shared/state.js").State} State
 * @typedef {import("./shared/i18n.js").Translator} Translator
 * @typedef {import("./probe.js").Probe} Probe
 */

const WORM_POINTS = 400;
const SKEW_SAMPLES = 16;
const PROBLEM_MS = 60000;

/** @param {string} id @returns {HTMLElement} */
function $(id) {
  const e = document.getElementById(id);
  if (!e) throw new Error(`index.html has no #${id}`);
  return e;
}

// -- problems: for the venue's operator, at the bottom of the page (hidden in the overlay); the
// last five, each for a minute, so a TV is not covered for good by one bad payload --------------
/** @param {string} text */
function problem(text) {
  const list = $("problems");
  const item = document.createElement("li");
  item.className = "problem";
  item.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  list.prepend(item);
  while (list.children.length > 5) list.lastChild?.remove();
  setTimeout(() => item.remove(), PROBLEM_MS);
  console.warn(text);
}

// Cards a page (docs/screen.md, "Any number of tables"): `per_page` when given; else as many as
// the screen holds while the scores' digits stay at least 1/16 of its height, up to 16 (a grid's
// card must be at least GRID_MIN_H of the screen's height and GRID_MIN_W of its width: its
// compact layout draws the digits at 0.3 of the card's height), and the list's rows at least
// LIST_MIN_H (digits 0.86 x 0.73 of a row). Then the tables are spread evenly over the pages
// that need: 24 tables are 12 + 12, not 16 + 8.
const MAX_AUTO = 16, GRID_MIN_H = 0.215, GRID_MIN_W = 0.17, LIST_MIN_H = 0.0935;

// Columns and rows for n cards, on this screen's shape: the layout with the largest cards. Up
// to 8, a card a little wider than high reads best (the worm below the scores); more, a wide
// one (the compact card: each name beside its score, as large as the card is high).
/** @param {number} n @returns {[number, number]} */
function gridShape(n) {
  const w = window.innerWidth, h = window.innerHeight;
  const aspect = n > 8 ? 1.8 : 1.05;
  /** @type {[number, number]} */
  let best = [1, 1];
  let bestSize = 0;
  for (let cols = 1; cols <= n; cols++) {
    const rows = Math.ceil(n / cols);
    const cw = w / cols, ch = h / rows;
    const size = Math.min(cw / aspect, ch);
    if (size > bestSize + 0.5) { bestSize = size; best = [cols, rows]; }
  }
  return best;
}

const collator = new Intl.Collator(undefined, { numeric: true });

/** The page: its tables, its cards, what is on it now, and when it draws next. */
class Screen {
  /** @param {Options} opts @param {Probe | null} probe the bench's figures (?stats=1), else none */
  constructor(opts, probe) {
    this.opts = opts;
    this.probe = probe;
    /** @type {Map<string, TableRecord>} "venue/table" -> the table's record */
    this.tables = new Map();
    /** @type {Map<string, Card>} "venue/table" -> its card, made when the table first comes on the page */
    this.cards = new Map();
    /** @type {Record<string, import("./shared/validate.js").Schema>} */
    this.schemas = {};
    /** @type {Translator} the words, once the catalogue is in */
    this.t = translator("en", null, null);
    this.connected = false;
    this.everConnected = false;
    this.pageIndex = opts.page;
    /** @type {string[]} keys of the tables on the page now */
    this.shown = [];
    /** @type {string[] | null} sorted keys of the tables this screen shows; null: to be worked out again */
    this.order = null;
    this.layoutDirty = true;
    this.allDirty = false;
    /** What the page received: the latest payload of each of its topics, read and checked; the
     * page drawn when it tells (once a frame, however many came), or when `touch`ed for the
     * page's own changes (a page turned, the window resized, the connection, a card's wake).
     * @type {Store} */
    this.store = new Store();
    this.store.subscribe((changed) => this.draw(changed));
    this.clockTimer = 0;
    this.wakeTimer = 0;
    this.wakeAt = Infinity;
  }

  // -- what the page knows ----------------------------------------------------------------------
  /** @param {string} name */
  wanted(name) {
    if (this.opts.table) return name === this.opts.table;
    return !this.opts.tables || this.opts.tables.match(name);
  }

  /** @param {string} venue @param {string} name @returns {TableRecord} */
  record(venue, name) {
    const key = `${venue}/${name}`;
    let tb = this.tables.get(key);
    if (!tb) {
      tb = { key, venue, name, state: null, status: null, next: null, worm: new Map(), wormVersion: 0, frame: null, heard: null,
        dirty: true, skew: 0, skews: [], receivedAt: 0 };
      this.tables.set(key, tb);
      this.order = null;
      this.layoutDirty = true;
    }
    return tb;
  }

  // The page's clock minus the table's, from live states: the smallest (arrival - ts) of the last
  // few is the skew plus the quickest delivery, which on a venue's network is a few ms.
  /** @param {TableRecord} tb @param {State} state @param {number} now */
  learnSkew(tb, state, now) {
    const ts = Date.parse(state.ts);
    if (!Number.isFinite(ts)) return;
    tb.skews.push(now - ts);
    if (tb.skews.length > SKEW_SAMPLES) tb.skews.shift();
    tb.skew = Math.min(...tb.skews);
  }

  // What every state adds, as it comes (not only a frame's last, which the store keeps): the
  // score worm's point for its stroke, and the clock's skew. The state shown is the store's latest (`take`).
  /** @param {TableRecord} tb @param {State} state @param {boolean} retained @param {number} now */
  hear(tb, state, retained, now) {
    if (tb.frame !== state.frame || (tb.heard !== null && state.seq < tb.heard - 50)) { tb.worm = new Map(); tb.wormVersion++; }
    tb.frame = state.frame;
    tb.heard = state.seq;
    if (!retained) this.learnSkew(tb, state, now);
    if (cardGame(state.game).worm) {
      let undone = false;
      for (const seq of tb.worm.keys()) if (seq > state.seq) { tb.worm.delete(seq); undone = true; }
      const before = tb.worm.get(state.seq);
      const s0 = state.sides[0].score ?? 0, s1 = state.sides[1].score ?? 0;
      if (undone || !before || before[0] !== s0 || before[1] !== s1) {
        tb.worm.set(state.seq, [s0, s1]);
        while (tb.worm.size > WORM_POINTS) tb.worm.delete(Math.min(...tb.worm.keys()));
        tb.wormVersion++;
      }
    }
  }

  /**
   * A message read into the store (taken into the tables' records at the frame: `take`; a
   * state's worm point and skew at once: `hear`): a payload that is not as its topic says is
   * refused and said, and not kept.
   * @param {string} topic @param {Uint8Array} payload @param {{retain?: boolean}} packet
   */
  onMessage(topic, payload, packet) {
    const where = tableTopic(topic);
    if (!where || !this.wanted(where.table)) return;
    const retained = Boolean(packet && packet.retain);
    const kind = where.kind;
    if (kind === "status") {
      const text = textOf(payload).trim();
      if (text !== "online" && text !== "offline") { problem(`Ignored a status on ${topic}: "${text.slice(0, 20)}"`); return; }
      this.store.put(topic, text, retained);
    } else if (kind === "state") {
      // An empty payload (null) is the retained state cleared: the table is gone.
      const read = readPayload(topic, payload, this.schemas.state);
      if (read.problem !== undefined) { problem(read.problem); return; }
      this.store.put(topic, read.value, retained);
      if (read.value === null) return;
      const tb = this.record(where.venue, where.table);
      const now = Date.now();
      this.hear(tb, /** @type {State} */ (read.value), retained, now);
      if (this.probe) this.probe.handled(tb.key, read.value.ts, now);
    } else if (kind === "next") {
      // The match the desk handed the table (docs/mqtt.md), empty when none: said on an idle
      // table's card when the table's own state does not say it (a table from before `next`).
      const read = readPayload(topic, payload);
      if (read.problem !== undefined) { problem(read.problem); return; }
      const next = read.value;
      if (next !== null && (typeof next !== "object" || !Array.isArray(next.sides))) { problem(`Ignored a message on ${topic}: no "sides" list`); return; }
      this.store.put(topic, next, retained);
    }
  }

  /** A topic's latest payload (from the store) taken into its table's record. @param {string} topic @param {import("./shared/store.js").Entry} entry */
  take(topic, entry) {
    const where = tableTopic(topic);
    if (!where) return;
    const { venue, table: name, kind } = where;
    const key = `${venue}/${name}`;
    if (kind === "status") {
      const tb = this.record(venue, name);
      const status = /** @type {string | null} */ (entry.value);
      if (tb.status === status) return;
      tb.status = status;
      tb.dirty = true;
    } else if (kind === "state") {
      if (entry.value === null) { // the retained state cleared: the table is gone
        if (this.tables.delete(key)) { this.order = null; this.layoutDirty = true; }
        return;
      }
      const tb = this.record(venue, name);
      tb.state = /** @type {State} */ (entry.value);
      tb.dirty = true;
      tb.receivedAt = entry.at;
    } else if (kind === "next") {
      const next = /** @type {TableRecord["next"]} */ (entry.value);
      const tb = this.tables.get(key) || (next ? this.record(venue, name) : null);
      if (!tb) return;
      tb.next = next;
      tb.dirty = true;
    }
  }

  // -- pages --------------------------------------------------------------------------------------
  pages() {
    if (!this.order) this.order = [...this.tables.keys()].sort((a, b) => collator.compare(a, b));
    const order = this.order;
    const per = this.perPage(order.length);
    const out = [];
    for (let i = 0; i < order.length; i += per) out.push(order.slice(i, i + per));
    return out;
  }

  /** @param {number} n */
  fits(n) {
    const w = window.innerWidth, h = window.innerHeight;
    if (this.opts.view === "list") return (h * 0.94) / n >= LIST_MIN_H * h;
    const [cols, rows] = gridShape(n);
    return (h * 0.94) / rows >= GRID_MIN_H * h && w / cols >= GRID_MIN_W * w;
  }

  listRows() {
    let most = 1;
    for (let n = 2; n <= MAX_AUTO; n++) if (this.fits(n)) most = n;
    return most;
  }

  /** @param {number} count */
  perPage(count) {
    if (this.opts.perPage) return this.opts.perPage;
    const most = this.listRows();
    const pagesNeeded = Math.max(1, Math.ceil(count / most));
    return Math.max(1, Math.ceil(count / pagesNeeded));
  }

  layout() {
    const opts = this.opts;
    this.layoutDirty = false;
    const list = this.pages();
    if (this.pageIndex >= list.length) this.pageIndex = 0;
    const keys = list[this.pageIndex] || [];
    const main = $("tables");
    const changed = keys.length !== this.shown.length || keys.some((k, i) => k !== this.shown[i]);
    if (changed) {
      const nodes = keys.map((key) => {
        const tb = /** @type {TableRecord} */ (this.tables.get(key));
        let card = this.cards.get(key);
        if (!card) { card = new Card(tb); this.cards.set(key, card); }
        tb.dirty = true; // a card coming on the page shows what happened while it was away
        return card.root;
      });
      main.replaceChildren(...nodes);
      this.shown = keys;
      for (const key of this.cards.keys()) if (!this.tables.has(key)) this.cards.delete(key);
    }
    main.classList.toggle("solo", opts.view === "grid" && keys.length === 1); // one table: as large as the TV view
    // Where each card goes: column --c and row --r of --cols by --rows (screen.css places them).
    const [cols, rows] = opts.view === "grid" ? gridShape(Math.max(1, keys.length))
      : [1, opts.perPage || this.listRows()];
    // Cards wider than high by a quarter (12 or 16 on a page) are drawn compact: the scores fill
    // the card's height (screen.css, .compact).
    main.classList.toggle("compact", opts.view === "grid" && keys.length > 1
      && (window.innerWidth / cols) / ((window.innerHeight * 0.94) / rows) > 1.25);
    main.style.setProperty("--cols", String(cols));
    main.style.setProperty("--rows", String(rows));
    const slot = `${opts.view} ${cols}x${rows} ${window.innerWidth}x${window.innerHeight}`;
    keys.forEach((key, i) => {
      const card = /** @type {Card} */ (this.cards.get(key));
      card.root.style.setProperty("--c", String(i % cols));
      card.root.style.setProperty("--r", String(Math.floor(i / cols)));
      card.root.classList.toggle("even", i % 2 === 1);
      // Names are fitted again only where the card's size may have changed.
      if (card.slot !== slot) { card.slot = slot; card.namesChanged = true; }
    });
    $("empty").hidden = this.tables.size > 0;
    main.dataset.tables = String(this.tables.size);
    const pager = $("pager");
    pager.hidden = list.length < 2;
    if (list.length >= 2) {
      pager.replaceChildren();
      const label = document.createElement("span");
      label.className = "page-label";
      label.textContent = this.t("page", { n: this.pageIndex + 1, m: list.length });
      pager.append(label);
      if (list.length <= 16) {
        const dots = document.createElement("span");
        dots.className = "dots";
        for (let i = 0; i < list.length; i++) {
          const d = document.createElement("i");
          if (i === this.pageIndex) d.className = "on";
          dots.append(d);
        }
        pager.append(dots);
      }
      pager.dataset.page = String(this.pageIndex + 1);
      pager.dataset.pages = String(list.length);
    }
    if (this.probe) this.probe.pages(list.length);
  }

  turnPage() {
    const n = this.pages().length;
    if (n < 2) return;
    this.show((this.pageIndex + 1) % n);
  }

  /** Page n (from 0): the rotation, the tests and the bench. @param {number} n */
  show(n) {
    this.pageIndex = n;
    this.layoutDirty = true;
    this.store.touch();
  }

  // -- drawing, once a frame (when the store tells) ----------------------------------------------
  /** @param {Map<string, import("./shared/store.js").Entry>} changed the topics changed since the last frame */
  draw(changed) {
    for (const [topic, entry] of changed) {
      try { this.take(topic, entry); } catch (e) { problem(`Could not show a message on ${topic}: ${errorText(e)}`); }
    }
    if (this.layoutDirty) this.layout();
    const now = Date.now();
    const view = this.opts.view;
    /** @type {import("./card.js").DrawContext} */
    const ctx = { t: this.t, connected: this.connected, worm: view === "grid" || view === "single", list: view === "list", now };
    const fit = [];
    let wakeAt = Infinity;
    for (const key of this.shown) {
      const tb = this.tables.get(key);
      const card = this.cards.get(key);
      if (!tb || !card) continue;
      if (tb.dirty || this.allDirty) {
        tb.dirty = false;
        card.update(tb, ctx);
        if (this.probe) this.probe.drawn(key, now);
      }
      if (card.namesChanged) fit.push(card);
      wakeAt = Math.min(wakeAt, card.wakeAt);
    }
    this.allDirty = false;
    if (fit.length) Card.fitNames(fit);
    if (this.probe) this.probe.flushed(new Set(this.shown));
    this.scheduleClock();
    this.scheduleWake(wakeAt);
  }

  // The shot clocks on the page count down between states: a timer for the next second that
  // changes on any of them, and only their clock elements are written.
  scheduleClock() {
    clearTimeout(this.clockTimer);
    let next = Infinity;
    for (const key of this.shown) {
      const card = this.cards.get(key);
      if (card && card.clockView) next = Math.min(next, nextChangeMs(card.clockView));
    }
    if (next < Infinity) this.clockTimer = window.setTimeout(() => this.tickClocks(), Math.max(5, next + 3));
  }

  tickClocks() {
    const ctx = { t: this.t, connected: this.connected, now: Date.now() };
    for (const key of this.shown) {
      const tb = this.tables.get(key);
      const card = this.cards.get(key);
      if (tb && card && card.clockView && card.clockView.running) card.updateClock(tb, ctx);
    }
    this.scheduleClock();
  }

  // A card that changes with no new state (the desk's message ending at its `until`): the cards
  // on the page are drawn again then.
  /** @param {number} at */
  scheduleWake(at) {
    if (at === this.wakeAt) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    if (at === Infinity) return;
    this.wakeTimer = window.setTimeout(() => { this.wakeAt = Infinity; this.allDirty = true; this.store.touch(); },
      Math.min(2 ** 31 - 1, Math.max(0, at - Date.now()) + 5));
  }

  /** @param {boolean} on @param {string} text @param {string} state */
  setConnected(on, text, state) {
    const conn = $("conn");
    conn.textContent = text;
    conn.dataset.state = state;
    document.body.classList.toggle("disconnected", !on && this.everConnected);
    if (this.connected !== on) {
      this.connected = on;
      this.allDirty = true;
      this.store.touch();
    }
  }

  // -- connecting ---------------------------------------------------------------------------------
  connect() {
    const opts = this.opts;
    // One table, or a set of names: only their topics. Ranges ("1-8") cannot be subscribed to: all
    // the venue's tables are, and the others are dropped by their topic, before any parsing.
    const exact = opts.table ? [opts.table] : opts.tables && opts.tables.items.every((it) => it.lo === undefined)
      ? opts.tables.items.map((it) => it.name) : null;
    const topics = tableTopics(`${opts.prefix}/${opts.venue}`, exact, ["state", "status", "next"]);
    const session = new Session({ broker: opts.broker, who: "screen" }, {
      topics: () => topics,
      message: (topic, payload, packet) => {
        try { this.onMessage(topic, payload, packet); } catch (e) { problem(`Could not show a message on ${topic}: ${errorText(e)}`); }
      },
      link: (link, detail) => {
        const t = this.t;
        if (link === "online") {
          this.everConnected = true;
          this.setConnected(true, `${t("live")} · ${opts.broker}`, "connected");
        } else if (link === "connecting") {
          this.setConnected(false, `${t("connecting")} ${opts.broker}`, "connecting");
        } else {
          this.setConnected(false, `${t("no_connection")}: ${detail || opts.broker}`, "error");
        }
      },
    });
    Object.assign(window, { cueboardClient: session.client }); // tests and the bench
  }

  async start() {
    const opts = this.opts;
    const body = document.body;
    body.classList.add(`view-${opts.view}`);
    if (opts.view === "overlay") {
      document.documentElement.classList.add("overlay");
      body.dataset.corner = opts.corner;
      body.style.setProperty("--scale", String(opts.scale));
    }
    for (const p of opts.problems) problem(p);
    this.t = await loadTranslator(opts.lang, problem);
    document.documentElement.lang = opts.lang;
    const title = opts.table || (opts.venue === "+" ? this.t("all_tables") : opts.venue);
    $("title").textContent = title;
    document.title = `cueboard · ${title}`;
    $("empty").textContent = this.t("waiting");
    $("conn").textContent = this.t("connecting");
    this.schemas = await loadSchemas(["state"], problem);
    const rotate = opts.view === "overlay" && !new URLSearchParams(location.search).has("rotate") ? 0 : opts.rotate;
    if (rotate > 0) setInterval(() => this.turnPage(), rotate * 1000);
    window.addEventListener("resize", () => { this.layoutDirty = true; this.store.touch(); }); // the slot's size changes: names fitted again
    Object.assign(window, { cueboardShow: (/** @type {number} */ n) => this.show(n) }); // tests and the bench
    this.layoutDirty = true;
    this.store.touch();
    if (opts.otherBroker) { // a link naming another broker: said (problems), and no connection anywhere
      this.setConnected(false, `${this.t("no_connection")}: ${opts.otherBroker}`, "error");
      return;
    }
    this.connect();
  }
}

async function main() {
  const config = /** @type {{CUEBOARD_SCREEN?: import("./options.js").Config}} */ (/** @type {unknown} */ (window)).CUEBOARD_SCREEN;
  const opts = readOptions(location.search, config || {}, location.hostname);
  // The bench's figures only when asked for: nothing is counted otherwise.
  const probe = opts.stats ? new (await import("./probe.js")).Probe() : null;
  await new Screen(opts, probe).start();
}

main();
