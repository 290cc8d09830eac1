// @ts-check
// One table's card: built once, then patched. update() writes only what changed since the last
// time (text, a class, hidden), so a new state touches a handful of nodes, and a card that did
// not change is not touched at all. The same elements serve every view (grid, single table,
// list row, overlay scorebug); screen.css lays them out per view. What differs by game (the big
// numbers, groups, the facts, how a match's length is said) is the game's own module in games/.

import { clockAt, clockShown } from "./clock.js";
import { cardGame, FACTS } from "./games.js";

/**
 * @typedef {import("./shared/state.js").State} State
 * @typedef {import("./shared/state.js").Next} Next
 * @typedef {import("./shared/state.js").HandedNext} HandedNext
 * @typedef {import("./shared/state.js").Message} Message
 * @typedef {import("./shared/i18n.js").Translator} Translator
 * @typedef {import("./clock.js").ClockView} ClockView
 * @typedef {{
 *   key: string, venue: string, name: string, state: State | null, status: string | null,
 *   next: HandedNext | null, worm: Map<number, [number, number]>, wormVersion: number, frame: number | null,
 *   heard: number | null, dirty: boolean, skew: number, skews: number[], receivedAt: number}} TableRecord
 *   what the page knows of a table (screen.js keeps one a table); frame and heard: the frame and
 *   seq of the last state heard (the worm's, each state as it comes; `state` is the latest drawn)
 * @typedef {{t: Translator, connected: boolean, worm?: boolean, list?: boolean, now: number}} DrawContext
 *   worm: this view draws the worm; list: the list view; now: the page's clock (ms)
 * @typedef {{root: HTMLElement, label: HTMLElement, value: HTMLElement}} FactSlot
 * @typedef {{row: HTMLElement, name: HTMLElement, frames: HTMLElement, framesLabel: HTMLElement, framesValue: HTMLElement,
 *   group: HTMLElement, disc: HTMLElement, groupText: HTMLElement, groupLeft: HTMLElement, player: HTMLElement,
 *   score: HTMLElement, full: string | null, players: string[] | null}} SideSlots
 */

const NS = "http://www.w3.org/2000/svg";

/**
 * @param {string} tag @param {string | null} cls @param {Element | null} [parent] @param {string} [text]
 * @returns {HTMLElement}
 */
function el(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.append(e);
  return e;
}

/** @param {Element} parent @param {string} name @returns {FactSlot} */
function fact(parent, name) {
  const f = el("span", `fact ${name}`, parent);
  f.hidden = true;
  return { root: f, label: el("small", null, f), value: el("b", null, f) };
}

// A name fits its room the same way in every view (grid, list, single table, overlay) and as the LED
// boards fit theirs: first drawn smaller, down to the view's smallest name size (--name-min, a
// share of the name's own size, never below the words' size target); only a name too long even
// then is shortened ("R. O'Sullivan", doubles by surnames), again as large as fits; and only then
// cut with an ellipsis, at the smallest size. Returns [text, scale, cut] for a name whose width at
// full size is `width(text)` in a room of `room` pixels.
/**
 * @param {string} full @param {string[] | null | undefined} players @param {(text: string) => number} width
 * @param {number} room @param {number} min
 * @returns {[string, number, boolean]}
 */
export function fitName(full, players, width, room, min) {
  const tries = [full];
  const short = shortName(full, players);
  if (short !== full) tries.push(short);
  for (const text of tries) {
    const w = width(text) + 1.5; // a pixel and a half of grace: the page rounds where the canvas does not
    if (w <= room) return [text, 1, false];
    const scale = Math.floor((room / w) * 1000) / 1000;
    if (scale >= min) return [text, scale, false];
  }
  return [tries[tries.length - 1], min, true];
}

// "Ronnie O'Sullivan" -> "R. O'Sullivan"; doubles "Ann Lee & Bob Ray" (players given) -> "Lee & Ray".
// Names without spaces (赵心童) stay whole: the ellipsis is their last resort.
/** @param {string} name @param {string[] | null} [players] */
export function shortName(name, players) {
  /** @param {string} n */
  const last = (n) => n.trim().split(/\s+/).pop() || n;
  if (players && players.length > 1) return players.map(last).join(" & ");
  const words = name.trim().split(/\s+/);
  if (words.length < 2) return name;
  return `${words[0][0]}. ${words.slice(1).join(" ")}`;
}

/**
 * A side's name as the match line gives it: a name, a pair of players ("Ann & Cy"), or {name}.
 * @param {unknown} side
 */
function sideName(side) {
  if (typeof side === "string") return side;
  if (Array.isArray(side)) return side.filter((p) => typeof p === "string").join(" & ");
  const named = /** @type {{name?: unknown}} */ (side && typeof side === "object" ? side : {});
  return typeof named.name === "string" ? named.name : "";
}

/**
 * The next match as the audience reads it: "Next: Ann v Bob · Best of 7 · Club league". From the
 * table's state (`next`: the fixture the table will start, its names and competition) or, from a
 * table older than that, from what the desk handed it (`<prefix>/next`: the sides and the format);
 * the format is said when the two are the same fixture.
 * @param {Next | HandedNext} next @param {Translator} t @param {HandedNext | null} [handed]
 * @returns {string | null}
 */
export function nextMatch(next, t, handed) {
  const names = "names" in next && Array.isArray(next.names) ? next.names
    : "sides" in next && Array.isArray(next.sides) ? next.sides.map(sideName) : [];
  const sides = names.filter((n) => typeof n === "string" && n);
  if (sides.length < 2) return null;
  const described = "format" in next ? next : handed && handed.fixture === next.fixture ? handed : null;
  const f = described && described.format && typeof described.format === "object" ? described.format : {};
  const length = cardGame(f.game).length(f, t); // no game given: the first of the list
  const parts = [t("versus", { a: sides[0], b: sides[1] }), length, typeof next.competition === "string" ? next.competition : ""];
  return t("next_match", { match: parts.filter(Boolean).join(" · ") });
}

/**
 * The desk's message while it lasts: its text, and when it ends on the page's clock (ms; Infinity
 * for a message with no end), or null once `until` has passed (the table drops it then too, and
 * says so with a new state; the page does not wait for that).
 * @param {Message | null | undefined} message @param {number} skew @param {number} now
 * @returns {{text: string, endsAt: number} | null}
 */
export function messageShown(message, skew, now) {
  if (!message || typeof message.text !== "string" || !message.text.trim()) return null;
  const until = typeof message.until === "string" ? Date.parse(message.until) + skew : Infinity;
  if (Number.isNaN(until) || until <= now) return null;
  return { text: message.text, endsAt: until };
}

export class Card {
  /** @type {CanvasRenderingContext2D | null} one canvas measures every card's names */
  static canvas = null;

  /** @param {TableRecord} table */
  constructor(table) {
    this.key = table.key;
    /** @type {{[slot: string]: unknown}} what each slot shows now */
    this.v = Object.create(null);
    const root = el("section", "table");
    root.dataset.table = table.name;
    root.dataset.venue = table.venue;
    this.root = root;
    /** @type {string | null} the place and size the names were last fitted for (screen.js) */
    this.slot = null;
    const head = el("div", "head", root);
    this.tableName = el("span", "table-name", head, table.name);
    this.info = el("span", "match-info", head);
    this.status = el("span", "status", head);
    this.status.hidden = true;
    this.empty = el("p", "no-match", root);
    this.next = el("p", "next-match", root); // the match the desk handed the table
    this.next.hidden = true;
    /** @type {SideSlots[]} */
    this.sides = [0, 1].map((i) => {
      const row = el("div", "side", root);
      row.dataset.side = String(i);
      const turn = el("span", "turn", row, "▶");
      turn.setAttribute("aria-hidden", "true");
      const name = el("span", "name", row);
      const sub = el("span", "sub", row);
      const frames = el("span", "frames", sub);
      const framesLabel = el("small", null, frames);
      const framesValue = el("b", null, frames);
      const group = el("span", "group", sub);
      group.hidden = true;
      const disc = el("i", "disc", group); // the group's colour, with its letter: never colour alone
      disc.setAttribute("aria-hidden", "true");
      const groupText = el("span", "gtext", group);
      const groupLeft = el("span", "gleft", group);
      const player = el("span", "player", sub);
      player.hidden = true;
      const score = el("span", "score", row);
      return { row, name, frames, framesLabel, framesValue, group, disc, groupText, groupLeft, player, score, full: null, players: null };
    });
    this.clock = el("span", "clock", root);
    this.clock.hidden = true;
    this.clockLabel = el("small", null, this.clock);
    this.clockValue = el("b", null, this.clock);
    const facts = el("div", "facts", root);
    /** @type {{[name: string]: FactSlot}} every game's facts (games.js), then the match's result */
    this.facts = {};
    for (const name of [...FACTS, "result"]) this.facts[name] = fact(facts, name);
    this.wormBox = el("div", "worm-box", root);
    this.wormBox.hidden = true;
    const svg = document.createElementNS(NS, "svg");
    svg.setAttribute("class", "worm");
    svg.setAttribute("preserveAspectRatio", "none");
    this.wormLines = [0, 1].map((i) => {
      const line = document.createElementNS(NS, "polyline");
      line.setAttribute("class", `s${i}`);
      svg.append(line);
      return line;
    });
    this.wormTitle = document.createElementNS(NS, "title");
    svg.append(this.wormTitle);
    this.worm = svg;
    this.wormBox.append(svg);
    const key = el("div", "worm-key", this.wormBox);
    this.wormLabel = el("span", "worm-label", key);
    this.wormKeys = [0, 1].map((i) => {
      const k = el("span", `k k${i}`, key);
      el("i", "swatch", k);
      return el("span", "kname", k);
    });
    // The desk's message (the state's `message`), last: across the card's foot, in any state.
    this.message = el("p", "message", root);
    this.message.hidden = true;
    this.message.setAttribute("role", "status");
    this.messageLabel = el("small", null, this.message);
    this.messageText = el("span", null, this.message);
    this.wormVersion = -1;
    /** @type {ClockView | null} */
    this.clockView = null;
    /** When this card next changes with no new state (a message's end), on the page's clock (ms). */
    this.wakeAt = Infinity;
    this.namesChanged = true;
  }

  /** @param {string} slot @param {Node} node @param {string} value */
  text(slot, node, value) {
    if (this.v[slot] !== value) { this.v[slot] = value; node.textContent = value; }
  }

  /** @param {string} slot @param {HTMLElement} node @param {boolean} hidden */
  hide(slot, node, hidden) {
    if (this.v[slot] !== hidden) { this.v[slot] = hidden; node.hidden = hidden; }
  }

  /** @param {string} slot @param {Element} node @param {string} cls @param {boolean} on */
  flag(slot, node, cls, on) {
    if (this.v[slot] !== on) { this.v[slot] = on; node.classList.toggle(cls, on); }
  }

  /** @param {string} slot @param {Element} node @param {string} name @param {string | null} value */
  attr(slot, node, name, value) {
    if (this.v[slot] !== value) {
      this.v[slot] = value;
      if (value === null) node.removeAttribute(name); else node.setAttribute(name, value);
    }
  }

  /** @param {string} name @param {import("./games/game.js").Fact | null | undefined} shown */
  setFact(name, shown) {
    const f = this.facts[name];
    this.hide(`f:${name}`, f.root, !shown);
    if (!shown) return;
    const label = shown.label || "";
    this.text(`fl:${name}`, f.label, label);
    this.hide(`flh:${name}`, f.label, !label);
    this.text(`fv:${name}`, f.value, String(shown.value));
    this.attr(`fx:${name}`, f.value, "data-ball", shown.ball || null);
  }

  /** @param {TableRecord} tb @param {DrawContext} ctx */
  update(tb, ctx) {
    const t = ctx.t;
    const s = tb.state;
    const offline = tb.status === "offline";
    this.flag("offline", this.root, "offline", offline);
    this.flag("disconnected", this.root, "disconnected", !ctx.connected);
    const status = !ctx.connected ? "no_connection" : offline ? "offline" : tb.status === "online" ? "live" : null;
    this.hide("status-h", this.status, status === null);
    if (status) {
      this.text("status", this.status, t(status));
      this.attr("status-k", this.status, "data-status", status);
    }
    this.hide("empty", this.empty, Boolean(s));
    this.flag("has-state", this.root, "has-state", Boolean(s));
    // The next match, while the table is idle: no match yet, or the last one over. A table that
    // publishes `next` on its state is the one to say (it may have started it already).
    const idle = !s || Boolean(s.match_over) || Boolean(s.waiting);
    const pending = s && "next" in s ? s.next ?? null : tb.next;
    const next = idle && pending ? nextMatch(pending, t, tb.next) : null;
    this.hide("next-h", this.next, !next);
    if (next) this.text("next", this.next, next);
    this.flag("idle", this.root, "idle", idle);
    this.flag("has-next", this.root, "has-next", Boolean(next));
    const message = s ? messageShown(s.message, tb.skew, ctx.now) : null;
    this.hide("message-h", this.message, !message);
    if (message) {
      this.text("message-l", this.messageLabel, t("message"));
      this.text("message", this.messageText, message.text);
    }
    this.flag("has-message", this.root, "has-message", Boolean(message));
    this.wakeAt = message ? message.endsAt : Infinity;
    if (!s) {
      this.text("empty-t", this.empty, t("no_match"));
      this.clockView = null;
      return;
    }
    const game = cardGame(s.game);
    this.attr("game", this.root, "data-game", s.game);
    const length = game.length(s, t);
    const frame = t("frame", { n: s.frame }, s.game);
    this.text("info", this.info, length ? `${frame} · ${length}` : frame);
    const framesLabel = t("frames", null, s.game);
    for (let i = 0; i < 2; i++) {
      const side = s.sides[i];
      const v = this.sides[i];
      if (v.full !== side.name) {
        v.full = side.name;
        v.players = side.players || null;
        v.name.textContent = side.name;
        v.name.title = side.name;
        this.text(`k${i}`, this.wormKeys[i], side.name);
        this.namesChanged = true;
      }
      const at = s.striker === i, won = (s.match_over ? s.match_winner : s.frame_over ? s.frame_winner : null) === i;
      // A star (and the list's marker) is drawn inside the name's room: the name is fitted again.
      if (this.v[`won${i}`] !== won || (this.v[`at${i}`] !== at && ctx.list)) this.namesChanged = true;
      this.flag(`at${i}`, v.row, "at-table", at);
      this.flag(`won${i}`, v.row, "winner", won);
      this.text(`fl${i}`, v.framesLabel, framesLabel);
      this.text(`fv${i}`, v.framesValue, String(side.frames));
      this.text(`sc${i}`, v.score, game.points ? String(side.score) : "");
      this.flag(`scw${i}`, v.score, "wide", game.points && (side.score ?? 0) >= 100);
      this.hide(`sch${i}`, v.score, !game.points);
      const group = game.group(side, t);
      this.hide(`gh${i}`, v.group, !group);
      if (group) {
        this.attr(`g${i}`, v.group, "data-group", group.group);
        this.text(`gd${i}`, v.disc, group.letter);
        this.text(`gt${i}`, v.groupText, group.text);
        this.text(`gl${i}`, v.groupLeft, group.left);
      }
      // Doubles: which of the side's players is at the table.
      const player = s.striker === i && side.players && side.players.length > 1 && s.player ? s.player : null;
      this.hide(`ph${i}`, v.player, !player);
      if (player) this.text(`p${i}`, v.player, `${t("at_table")}: ${player}`);
    }
    /** @param {number | null | undefined} i */
    const name = (i) => (i === null || i === undefined ? "—" : s.sides[i].name);
    const shown = game.shown(s, t, name);
    for (const f of FACTS) this.setFact(f, shown[f]);
    this.setFact("result", s.match_over ? { value: t("match_won", { name: name(s.match_winner) }, s.game) }
      : s.frame_over ? { value: t("frame_won", { name: name(s.frame_winner) }, s.game) } : null);
    this.updateClock(tb, ctx);
    // The worm only when it has something to draw: two strokes or more, and a point scored.
    let scored = false;
    if (ctx.worm && game.worm && tb.worm.size > 1) for (const p of tb.worm.values()) if (p[0] || p[1]) { scored = true; break; }
    const worm = Boolean(ctx.worm && game.worm && scored);
    this.hide("worm-h", this.wormBox, !worm);
    if (worm && tb.wormVersion !== this.wormVersion) this.drawWorm(tb, t);
  }

  // The shot clock alone, on its own timer between states. Returns what it shows (or null).
  /** @param {TableRecord} tb @param {DrawContext} ctx */
  updateClock(tb, ctx) {
    const s = tb.state;
    const view = s && !s.frame_over ? clockShown(clockAt(s, tb.skew, ctx.now)) : null;
    this.clockView = view;
    this.hide("clock-h", this.clock, !view);
    if (!view) return null;
    this.text("clock-l", this.clockLabel, ctx.t(view.held ? "shot_clock_held" : "shot_clock"));
    this.text("clock-v", this.clockValue, String(view.seconds));
    this.flag("clock-run", this.clock, "running", view.running);
    this.flag("clock-held", this.clock, "held", view.held === true);
    this.flag("clock-call", this.clock, "called", view.called && !view.expired);
    this.flag("clock-exp", this.clock, "expired", view.expired && !view.still);
    return view;
  }

  /** @param {TableRecord} tb @param {Translator} t */
  drawWorm(tb, t) {
    this.wormVersion = tb.wormVersion;
    const seqs = [...tb.worm.keys()].sort((a, b) => a - b);
    const points = seqs.map((seq) => tb.worm.get(seq) || [0, 0]);
    let top = 10;
    for (const p of points) top = Math.max(top, p[0], p[1]);
    const n = Math.max(1, seqs.length - 1);
    this.worm.setAttribute("viewBox", `0 ${-top * 0.05} ${n} ${top * 1.1}`); // a margin: lines at 0 and top stay whole
    this.worm.dataset.points = String(seqs.length);
    for (const side of [0, 1]) {
      let line = "";
      for (let i = 0; i < points.length; i++) line += `${i},${top - points[i][side]} `;
      this.wormLines[side].setAttribute("points", line);
    }
    this.text("worm-l", this.wormLabel, t("worm"));
    this.wormTitle.textContent = `${t("worm")}, ${t("frame", { n: tb.frame }, tb.state?.game)}: ${seqs.length}`;
  }

  // Names fitted (fitName above): only when a name changed, the card came on the page, or the
  // window resized. Measured with a canvas in each name's own font (no layout a try), written,
  // then checked against the page's own layout once for all the cards (a star, a marker beside
  // the name): one still too wide goes on to the next step.
  /** @param {Card[]} cards */
  static fitNames(cards) {
    /** @type {(SideSlots & {full: string})[]} */
    const sides = [];
    for (const card of cards) {
      card.namesChanged = false;
      for (const v of card.sides) {
        if (v.full === null) continue;
        v.name.style.fontSize = "";
        v.name.classList.remove("cut");
        sides.push({ ...v, full: v.full });
      }
    }
    // Read: every room and font at once (one layout).
    const ctx = Card.canvas || (Card.canvas = document.createElement("canvas").getContext("2d"));
    if (!ctx) return;
    const list = document.body.classList.contains("view-list");
    const read = sides.map((v) => {
      const cs = getComputedStyle(v.name);
      const px = parseFloat(cs.fontSize);
      const min = Math.min(1, Math.max(parseFloat(cs.getPropertyValue("--name-min")) || 0.7, 0.3));
      return { v, px, min, room: v.name.clientWidth, font: `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`,
        // What the view draws beside the name inside its box: a winner's " ★", the list's "▶ ".
        extra: (v.row.classList.contains("winner") ? 1.3 * px : 0) + (list && v.row.classList.contains("at-table") ? 0.9 * px : 0) };
    });
    /** @param {typeof read[number]} r @returns {(text: string) => number} */
    const width = (r) => (text) => { ctx.font = r.font; return ctx.measureText(text).width + r.extra; };
    for (const r of read) {
      const [text, scale, cut] = fitName(r.v.full, r.v.players, width(r), r.room, r.min);
      r.v.name.textContent = text;
      r.v.name.classList.toggle("cut", cut);
      if (scale < 1) r.v.name.style.fontSize = `${(r.px * scale).toFixed(2)}px`;
      r.v.name.dataset.minPx = (r.px * r.min).toFixed(2); // for the tests: the smallest this name may be drawn
      r.v.name.dataset.fullPx = r.px.toFixed(2);
    }
    // Check: the page's own layout (one, for all of them). A name still too wide (a star or a
    // marker wider than thought) is drawn smaller again while it may, else takes the next step.
    const over = read.filter((r) => r.v.name.scrollWidth > r.v.name.clientWidth + 0.5)
      .map((r) => ({ r, ratio: r.v.name.clientWidth / r.v.name.scrollWidth, px: parseFloat(r.v.name.style.fontSize) || r.px }));
    for (const { r, ratio, px } of over) {
      const smaller = px * ratio * 0.98;
      const short = shortName(r.v.full, r.v.players);
      if (smaller >= r.px * r.min) {
        r.v.name.style.fontSize = `${smaller.toFixed(2)}px`;
      } else if (r.v.name.textContent === r.v.full && short !== r.v.full) {
        r.v.name.textContent = short;
        const w = width(r)(short);
        r.v.name.style.fontSize = `${(r.px * Math.max(r.min, Math.min(1, (r.room / w) * 0.97))).toFixed(2)}px`;
      } else {
        r.v.name.style.fontSize = `${(r.px * r.min).toFixed(2)}px`;
        r.v.name.classList.add("cut");
      }
    }
  }
}
