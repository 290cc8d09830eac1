// One table's card: built once, then patched. update() writes only what changed since the last
// time (text, a class, hidden), so a new state touches a handful of nodes, and a card that did
// not change is not touched at all. The same elements serve every view (grid, single table,
// list row, overlay scorebug); screen.css lays them out per view.

import { clockAt } from "./clock.js";

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

// "Ronnie O'Sullivan" -> "R. O'Sullivan"; doubles "Ann Lee & Bob Ray" (players given) -> "Lee & Ray".
// Names without spaces (赵心童) stay whole: the ellipsis is their last resort.
export function shortName(name, players) {
  const last = (n) => n.trim().split(/\s+/).pop();
  if (players && players.length > 1) return players.map(last).join(" & ");
  const words = name.trim().split(/\s+/);
  if (words.length < 2) return name;
  return `${words[0][0]}. ${words.slice(1).join(" ")}`;
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
      const player = el("span", "player", sub);
      player.hidden = true;
      const score = el("span", "score", row);
      return { row, name, frames, framesLabel, framesValue, group, player, score, full: null, players: null };
    });
    this.clock = el("span", "clock", root);
    this.clock.hidden = true;
    this.clockLabel = el("small", null, this.clock);
    this.clockValue = el("b", null, this.clock);
    const facts = el("div", "facts", root);
    this.facts = {};
    for (const name of ["break", "remaining", "ball-on", "free-ball", "snookers", "respot", "open", "visits",
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
    if (!s) {
      this.text("empty-t", this.empty, t("no_match"));
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
      this.flag(`at${i}`, v.row, "at-table", s.striker === i);
      this.flag(`won${i}`, v.row, "winner", (s.match_over ? s.match_winner : s.frame_over ? s.frame_winner : null) === i);
      this.text(`fl${i}`, v.framesLabel, framesLabel);
      this.text(`fv${i}`, v.framesValue, String(side.frames));
      this.text(`sc${i}`, v.score, snooker ? String(side.score) : "");
      this.flag(`scw${i}`, v.score, "wide", snooker && side.score >= 100);
      this.hide(`sch${i}`, v.score, !snooker);
      const group = snooker ? null : side.group;
      this.hide(`gh${i}`, v.group, !group);
      if (group) {
        this.attr(`g${i}`, v.group, "data-group", group);
        const left = side.balls_left === null ? "" : ` · ${t("balls_left", { n: side.balls_left })}`;
        this.text(`gt${i}`, v.group, `${t(`group.${group}`)}${left}`);
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
      this.setFact("respot", null, s.respotted_black ? t("respotted_black") : null);
      for (const f of ["open", "visits", "free-shot", "black-on"]) this.setFact(f, null, null);
    } else {
      for (const f of ["break", "remaining", "ball-on", "free-ball", "snookers", "respot"]) this.setFact(f, null, null);
      this.setFact("open", null, s.open_table && !s.frame_over ? t("open_table") : null);
      this.setFact("visits", t("visits"), s.frame_over || s.striker === null ? null : s.visits);
      this.setFact("free-shot", null, s.free_shot ? t("free_shot") : null);
      this.setFact("black-on", null, s.black_on && !s.frame_over ? t("black_on") : null);
    }
    this.setFact("result", null, s.match_over ? t("match_won", { name: name(s.match_winner) }, game)
      : s.frame_over ? t("frame_won", { name: name(s.frame_winner) }, game) : null);
    this.updateClock(tb, ctx);
    const worm = ctx.worm && snooker;
    this.hide("worm-h", this.wormBox, !worm);
    if (worm && tb.wormVersion !== this.wormVersion) this.drawWorm(tb, t);
  }

  // The shot clock alone, on its own timer between states. Returns what it shows (or null).
  updateClock(tb, ctx) {
    const s = tb.state;
    const view = s && !s.frame_over ? clockAt(s, tb.skew, ctx.now) : null;
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

  // Long names shorten gracefully, never smaller: the initial for the first name ("R. O'Sullivan",
  // doubles by surnames), and only then an ellipsis. Run while the card is on the page (it
  // measures); only when a name changed, the card came on the page, or the window resized.
  // In three passes over all the cards to fit (write, read, write), so the page is laid out once
  // for all of them, not once a name.
  static fitNames(cards) {
    const sides = [];
    for (const card of cards) {
      card.namesChanged = false;
      for (const v of card.sides) if (v.full !== null) { v.name.textContent = v.full; sides.push(v); }
    }
    const long = sides.filter((v) => v.name.scrollWidth > v.name.clientWidth);
    for (const v of long) v.name.textContent = shortName(v.full, v.players);
  }
}
