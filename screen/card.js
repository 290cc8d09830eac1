// One table's card: built once, then patched. update() writes only what changed since the last
// time (text, a class, hidden), so a new state touches a handful of nodes, and a card that did
// not change is not touched at all. The same elements serve every view (grid, single table,
// list row, overlay scorebug); screen.css lays them out per view.

import { clockAt, clockShown } from "./clock.js";

const NS = "http://www.w3.org/2000/svg";

function el(tag, cls, parent, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  if (parent) parent.append(e);
  return e;
}

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
export function shortName(name, players) {
  const last = (n) => n.trim().split(/\s+/).pop();
  if (players && players.length > 1) return players.map(last).join(" & ");
  const words = name.trim().split(/\s+/);
  if (words.length < 2) return name;
  return `${words[0][0]}. ${words.slice(1).join(" ")}`;
}

// The next match as the audience reads it: "Next: Ann v Bob · Best of 7 · Club league".
export function nextMatch(next, t) {
  const sides = Array.isArray(next.sides) ? next.sides.map((x) => (typeof x === "string" ? x : x && x.name)).filter(Boolean) : [];
  if (sides.length < 2) return null;
  const f = next.format && typeof next.format === "object" ? next.format : {};
  const game = f.game === "blackball" ? "blackball" : "snooker";
  const length = f.race_to ? t("race_to", { n: f.race_to }, game) : f.best_of > 1 ? t("best_of", { n: f.best_of }, game) : "";
  const parts = [t("versus", { a: sides[0], b: sides[1] }), length, typeof next.competition === "string" ? next.competition : ""];
  return t("next_match", { match: parts.filter(Boolean).join(" · ") });
}

export class Card {
  constructor(table) {
    this.key = table.key;
    this.v = Object.create(null); // what each slot shows now
    const root = el("section", "table");
    root.dataset.table = table.name;
    root.dataset.venue = table.venue;
    this.root = root;
    const head = el("div", "head", root);
    this.tableName = el("span", "table-name", head, table.name);
    this.info = el("span", "match-info", head);
    this.status = el("span", "status", head);
    this.status.hidden = true;
    this.empty = el("p", "no-match", root);
    this.next = el("p", "next-match", root); // the match the desk handed the table (<prefix>/next)
    this.next.hidden = true;
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
    this.facts = {};
    for (const name of ["break", "remaining", "ball-on", "free-ball", "snookers", "snookers-n", "respot", "open", "visits",
      "free-shot", "black-on", "result"]) this.facts[name] = fact(facts, name);
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
    this.wormVersion = -1;
    this.clockView = null;
    this.namesChanged = true;
  }

  text(slot, node, value) {
    if (this.v[slot] !== value) { this.v[slot] = value; node.textContent = value; }
  }

  hide(slot, node, hidden) {
    if (this.v[slot] !== hidden) { this.v[slot] = hidden; node.hidden = hidden; }
  }

  flag(slot, node, cls, on) {
    if (this.v[slot] !== on) { this.v[slot] = on; node.classList.toggle(cls, on); }
  }

  attr(slot, node, name, value) {
    if (this.v[slot] !== value) {
      this.v[slot] = value;
      if (value === null) node.removeAttribute(name); else node.setAttribute(name, value);
    }
  }

  setFact(name, label, value, extra) {
    const f = this.facts[name];
    const shown = value !== null && value !== undefined;
    this.hide(`f:${name}`, f.root, !shown);
    if (!shown) return;
    this.text(`fl:${name}`, f.label, label || "");
    this.hide(`flh:${name}`, f.label, !label);
    this.text(`fv:${name}`, f.value, String(value));
    if (extra !== undefined) this.attr(`fx:${name}`, f.value, "data-ball", extra);
  }

  // ctx: {t: translator, connected: bool, worm: bool (this view draws the worm), now: ms}
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
    // The next match, while the table is idle: no match yet, or the last one over.
    const next = tb.next && (!s || s.match_over) ? nextMatch(tb.next, t) : null;
    this.hide("next-h", this.next, !next);
    if (next) this.text("next", this.next, next);
    this.flag("idle", this.root, "idle", !s || Boolean(s.match_over));
    this.flag("has-next", this.root, "has-next", Boolean(next));
    if (!s) {
      this.text("empty-t", this.empty, t("no_match"));
      this.clockView = null;
      return;
    }
    const game = s.game;
    this.attr("game", this.root, "data-game", game);
    // The match's length as each game says it: snooker best of n (nothing for a single frame),
    // blackball first to n frames.
    const length = game === "blackball" && s.race_to ? t("race_to", { n: s.race_to }, game)
      : s.best_of > 1 ? t("best_of", { n: s.best_of }, game) : "";
    this.text("info", this.info, length ? `${t("frame", { n: s.frame }, game)} · ${length}` : t("frame", { n: s.frame }, game));
    const snooker = game === "snooker";
    const framesLabel = t("frames", null, game);
    for (let i = 0; i < 2; i++) {
      const side = s.sides[i];
      const v = this.sides[i];
      if (v.full !== side.name) {
        v.full = side.name;
        v.players = side.players;
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
      this.text(`sc${i}`, v.score, snooker ? String(side.score) : "");
      this.flag(`scw${i}`, v.score, "wide", snooker && side.score >= 100);
      this.hide(`sch${i}`, v.score, !snooker);
      const group = snooker ? null : side.group;
      this.hide(`gh${i}`, v.group, !group);
      if (group) {
        this.attr(`g${i}`, v.group, "data-group", group);
        this.text(`gd${i}`, v.disc, t(`letter.${group}`));
        this.text(`gt${i}`, v.groupText, t(`group.${group}`));
        this.text(`gl${i}`, v.groupLeft, side.balls_left === null ? "" : t("balls_left", { n: side.balls_left }));
      }
      // Doubles: which of the side's players is at the table.
      const player = s.striker === i && side.players && side.players.length > 1 && s.player ? s.player : null;
      this.hide(`ph${i}`, v.player, !player);
      if (player) this.text(`p${i}`, v.player, `${t("at_table")}: ${player}`);
    }
    const name = (i) => (i === null || i === undefined ? "—" : s.sides[i].name);
    if (snooker) {
      this.setFact("break", t("break"), s.striker === null ? null : s.break);
      this.setFact("remaining", t("remaining"), s.frame_over ? null : s.remaining);
      this.setFact("ball-on", t("ball_on"), s.ball_on ? t(`ball.${s.ball_on}`) : null, s.ball_on || null);
      this.setFact("free-ball", null, s.free_ball ? t("free_ball") : null);
      const sr = s.snookers_required;
      this.setFact("snookers", null, !sr || s.frame_over ? null : sr.count === null ? t("cannot_win", { name: name(sr.side) })
        : t("snookers", { name: name(sr.side), n: sr.count }));
      // The list has no room for the sentence: the count, labelled (the side behind needs them).
      this.setFact("snookers-n", t("snookers_label"), !sr || s.frame_over || sr.count === null ? null : sr.count);
      this.setFact("respot", null, s.respotted_black ? t("respotted_black") : null);
      for (const f of ["open", "visits", "free-shot", "black-on"]) this.setFact(f, null, null);
    } else {
      for (const f of ["break", "remaining", "ball-on", "free-ball", "snookers", "snookers-n", "respot"]) this.setFact(f, null, null);
      this.setFact("open", null, s.open_table && !s.frame_over ? t("open_table") : null);
      this.setFact("visits", t("visits"), s.frame_over || s.striker === null ? null : s.visits);
      this.setFact("free-shot", null, s.free_shot ? t("free_shot") : null);
      this.setFact("black-on", null, s.black_on && !s.frame_over ? t("black_on") : null);
    }
    this.setFact("result", null, s.match_over ? t("match_won", { name: name(s.match_winner) }, game)
      : s.frame_over ? t("frame_won", { name: name(s.frame_winner) }, game) : null);
    this.updateClock(tb, ctx);
    // The worm only when it has something to draw: two strokes or more, and a point scored.
    let scored = false;
    if (ctx.worm && snooker && tb.worm.size > 1) for (const p of tb.worm.values()) if (p[0] || p[1]) { scored = true; break; }
    const worm = ctx.worm && snooker && scored;
    this.hide("worm-h", this.wormBox, !worm);
    if (worm && tb.wormVersion !== this.wormVersion) this.drawWorm(tb, t);
  }

  // The shot clock alone, on its own timer between states. Returns what it shows (or null).
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

  drawWorm(tb, t) {
    this.wormVersion = tb.wormVersion;
    const seqs = [...tb.worm.keys()].sort((a, b) => a - b);
    let top = 10;
    for (const seq of seqs) { const p = tb.worm.get(seq); top = Math.max(top, p[0], p[1]); }
    const n = Math.max(1, seqs.length - 1);
    this.worm.setAttribute("viewBox", `0 ${-top * 0.05} ${n} ${top * 1.1}`); // a margin: lines at 0 and top stay whole
    this.worm.dataset.points = String(seqs.length);
    for (const side of [0, 1]) {
      let points = "";
      for (let i = 0; i < seqs.length; i++) points += `${i},${top - tb.worm.get(seqs[i])[side]} `;
      this.wormLines[side].setAttribute("points", points);
    }
    this.text("worm-l", this.wormLabel, t("worm"));
    this.wormTitle.textContent = `${t("worm")}, ${t("frame", { n: tb.frame }, "snooker")}: ${seqs.length}`;
  }

  // Names fitted (fitName above): only when a name changed, the card came on the page, or the
  // window resized. Measured with a canvas in each name's own font (no layout a try), written,
  // then checked against the page's own layout once for all the cards (a star, a marker beside
  // the name): one still too wide goes on to the next step.
  static fitNames(cards) {
    const sides = [];
    for (const card of cards) {
      card.namesChanged = false;
      for (const v of card.sides) if (v.full !== null) { v.name.style.fontSize = ""; v.name.classList.remove("cut"); sides.push(v); }
    }
    // Read: every room and font at once (one layout).
    const ctx = Card.canvas || (Card.canvas = document.createElement("canvas").getContext("2d"));
    const list = document.body.classList.contains("view-list");
    const read = sides.map((v) => {
      const cs = getComputedStyle(v.name);
      const px = parseFloat(cs.fontSize);
      const min = Math.min(1, Math.max(parseFloat(cs.getPropertyValue("--name-min")) || 0.7, 0.3));
      return { v, px, min, room: v.name.clientWidth, font: `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`,
        // What the view draws beside the name inside its box: a winner's " ★", the list's "▶ ".
        extra: (v.row.classList.contains("winner") ? 1.3 * px : 0) + (list && v.row.classList.contains("at-table") ? 0.9 * px : 0) };
    });
    const width = (r) => (text) => { ctx.font = r.font; return ctx.measureText(text).width + r.extra; };
    for (const r of read) {
      const [text, scale, cut] = fitName(r.v.full, r.v.players, width(r), r.room, r.min);
      r.v.name.textContent = text;
      r.v.name.classList.toggle("cut", cut);
      if (scale < 1) r.v.name.style.fontSize = `${(r.px * scale).toFixed(2)}px`;
      r.v.minPx = r.px * r.min; // for the tests: the smallest this name may be drawn
      r.v.name.dataset.minPx = r.v.minPx.toFixed(2);
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
