// @ts-check
// Tonight's competition drawn (the desk's "Tonight" tab and the venue's /bracket page): a
// knockout as its rounds side by side, a round robin or a match day as its matches and its
// table. Only shows: `t` is the page's translator, `live` a table's state by name (the score of
// a match being played), `rows` a round robin's table as the page has it ranked (the desk's standings).

import { html } from "./ui.js";
import { sideName, status, champion } from "./competition.js";

/**
 * @typedef {(key: string, vars?: Record<string, unknown>) => string} T
 * @typedef {{name: string, played: number, won: number, lost: number, ff: number, fa: number, points: number}} Row
 *   a player's or pair's line of a round robin's table
 */

function roundName(/** @type {T} */ t, /** @type {number} */ r, /** @type {number} */ rounds) {
  if (r === rounds) return t("round.final");
  if (r === rounds - 1) return t("round.semi");
  if (r === rounds - 2) return t("round.quarter");
  return t("round.n", { n: r });
}

/** One match: both sides (the winner marked, frames won, a handicap's start), where it is played. */
export function MatchBox(/** @type {{m: any, t: T, live: (table: string) => any, children?: any}} */ { m, t, live, children }) {
  const st = status(m);
  const state = m.table && st === "playing" ? live(m.table) : null;
  const frames = m.frames || (state && state.sides ? state.sides.map((/** @type {any} */ s) => s.frames) : null);
  return html`<div class="match-box" data-fixture=${m.fixture} data-status=${st}>
    ${[0, 1].map((i) => html`<div class=${`who${m.winner === i ? " won" : ""}${m.winner === 1 - i ? " lost" : ""}`}>
      <span class="n">${m.sides[i] === null ? (m.bye && m.bye[i] ? t("bye") : "…") : sideName(m.sides[i])}${m.handicap && m.handicap[i]
        ? html` <small class="hc">+${m.handicap[i]}</small>` : ""}</span>
      <b class="f">${frames && !(m.bye && (m.bye[0] || m.bye[1])) ? frames[i] : ""}</b></div>`)}
    <div class="where"><span class="label">${m.label}</span> <span class=${`st ${st}`}>${t(`status.${st}`, { table: m.table || "" })}</span></div>
    ${children || ""}
  </div>`;
}

/** The whole competition. `slot` renders a match's controls (the desk's), or nothing. */
export function BracketView(/** @type {{c: any, t: T, live: (table: string) => any, rows: Row[], slot?: (m: any) => any}} */ { c, t, live, rows, slot }) {
  const rounds = [...new Set(c.matches.map((/** @type {any} */ m) => m.round))].sort((a, b) => a - b);
  const won = champion(c);
  if (c.kind === "knockout") {
    return html`<div class="bracket knockout" data-rounds=${c.rounds}>
      ${rounds.map((r) => html`<section class="round" data-round=${r}><h3>${roundName(t, r, c.rounds)}</h3>
        <div class="round-matches">${c.matches.filter((/** @type {any} */ m) => m.round === r).map((/** @type {any} */ m) =>
          html`<${MatchBox} m=${m} t=${t} live=${live}>${slot ? slot(m) : ""}</${MatchBox}>`)}</div></section>`)}
      ${won ? html`<section class="round champion"><h3>${t("champion")}</h3><div class="round-matches"><div class="champion-name">${won}</div></div></section>` : ""}
    </div>`;
  }
  const table = rows;
  return html`<div class="bracket table-kind">
    <table class="standings"><thead><tr><th>${t("col.player")}</th><th>${t("col.played")}</th><th>${t("col.won")}</th>
      <th>${t("col.lost")}</th><th>${t("col.frames_for")}</th><th>${t("col.frames_against")}</th><th>${t("col.pts")}</th></tr></thead>
      <tbody>${table.map((r) => html`<tr data-player=${r.name}><th scope="row">${r.name}</th><td>${r.played}</td><td>${r.won}</td><td>${r.lost}</td>
        <td>${r.ff}</td><td>${r.fa}</td><td><b>${r.points}</b></td></tr>`)}</tbody></table>
    <div class="rounds">${rounds.map((r) => html`<section class="round" data-round=${r}>
      <h3>${c.kind === "round_robin" ? t("round.n", { n: r }) : t("fixtures")}</h3>
      <div class="round-matches">${c.matches.filter((/** @type {any} */ m) => m.round === r).map((/** @type {any} */ m) =>
        html`<${MatchBox} m=${m} t=${t} live=${live}>${slot ? slot(m) : ""}</${MatchBox}>`)}</div></section>`)}</div>
  </div>`;
}
