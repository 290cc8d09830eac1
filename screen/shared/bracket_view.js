// @ts-check
// Tonight's competition drawn (the desk's "Tonight" tab and the venue's /bracket page): a
// knockout as its rounds side by side, a round robin or a match day as its matches and its
// table, a groups night as its groups' tables beside its knockout. Only shows: `t` is the page's translator, `live` a table's state by name (the score of
// a match being played). A round robin's table is ranked by `cueboard screen` (POST api/standings).

import { html, useEffect, useState } from "./ui.js";
import { sideName, status, standingsRequest, champion } from "./competition.js";

/** @typedef {(key: string, vars?: Record<string, unknown>) => string} T */
/** @typedef {import("./competition.js").StandingsRow} StandingsRow */
/**
 * @typedef {import("./competition.js").Match} Match
 * @typedef {import("./competition.js").Competition} Competition
 * @typedef {(table: string) => import("./state.js").State | null | undefined} Live a table's state by name
 */

/** The route that ranks the night (cueboard/venue/desk_routes.py): /desk/api/standings on the server of the desk and the bracket. */
const STANDINGS = new URL("../desk/api/standings", import.meta.url).href;
/** The route that places each group (cueboard/venue/competition.py group_table, through /desk/api/advance). */
const ADVANCE = new URL("../desk/api/advance", import.meta.url).href;

/**
 * @typedef {{name: string, played: number, won: number, lost: number, frames_for: number,
 *   frames_against: number, withdrawn: boolean}} GroupRow a group's place as the server ranks it
 */

/**
 * A groups night's tables as `cueboard screen` places them (never ranked here): by group, or
 * null while it answers or when it refused (the players then shown in the draw's order).
 * @param {Competition} c
 * @returns {Record<string, GroupRow[]> | null}
 */
function useGroups(c) {
  const body = JSON.stringify({ competition: { ...c, rev: 0, ts: "" } }); // a new rev alone asks nothing new
  const [got, setGot] = useState(/** @type {{body: string, groups: Record<string, GroupRow[]> | null}} */ ({ body: "", groups: null }));
  useEffect(() => {
    let live = true;
    fetch(ADVANCE, { method: "POST", body, headers: { "Content-Type": "application/json" } })
      .then(async (r) => {
        const json = await r.json();
        if (!r.ok) throw new Error(json.error?.reason || `${r.status}`);
        return /** @type {Record<string, GroupRow[]>} */ (json.groups);
      })
      .then((groups) => { if (live) setGot({ body, groups }); },
        (e) => { console.warn(`the groups' tables: ${e.message || e}`); if (live) setGot({ body, groups: null }); });
    return () => { live = false; };
  }, [body]);
  return got.groups;
}

/**
 * The night's table as `cueboard screen` ranks it: the route's rows for the night as it is now
 * (`ranked`); its rows for the night as it was while the route answers the change (`pending`);
 * else none, the players shown unranked (`unranked`: not asked yet, or the route refused).
 * @param {Competition} c
 * @returns {{rows: StandingsRow[] | null, state: "ranked" | "pending" | "unranked", failed: string}}
 */
function useStandings(c) {
  const body = JSON.stringify(standingsRequest(c));
  const [got, setGot] = useState(/** @type {{body: string, rows: StandingsRow[] | null, failed: string}} */ ({ body: "", rows: null, failed: "" }));
  useEffect(() => {
    let live = true;
    fetch(STANDINGS, { method: "POST", body, headers: { "Content-Type": "application/json" } })
      .then(async (r) => {
        const json = await r.json();
        if (!r.ok) throw new Error(json.error?.reason || `${r.status}`);
        return /** @type {StandingsRow[]} */ (json.standings);
      })
      .then((rows) => { if (live) setGot({ body, rows, failed: "" }); },
        (e) => { if (live) setGot({ body, rows: null, failed: String(e.message || e) }); });
    return () => { live = false; };
  }, [body]);
  if (got.failed || !got.rows) return { rows: null, state: "unranked", failed: got.failed };
  return { rows: got.rows, state: got.body === body ? "ranked" : "pending", failed: "" };
}

/** A round robin's or a match day's table, as the route ranks it (never ranked here). */
function Standings(/** @type {{c: Competition, t: T}} */ { c, t }) {
  const { rows, state, failed } = useStandings(c);
  const players = rows ? [] : standingsRequest(c).players;
  return html`<table class="standings" data-state=${state} title=${failed || undefined}>
    <thead><tr><th>${t("col.player")}</th><th>${t("col.played")}</th><th>${t("col.won")}</th>
      <th>${t("col.lost")}</th><th>${t("col.frames_for")}</th><th>${t("col.frames_against")}</th><th>${t("col.pts")}</th></tr></thead>
    <tbody>${rows ? rows.map((r) => html`<tr data-player=${r.name} data-position=${r.position}><th scope="row">${r.name}</th>
        <td>${r.played}</td><td>${r.won}</td><td>${r.lost}</td><td>${r.frames_for}</td><td>${r.frames_against}</td><td><b>${r.points}</b></td></tr>`)
      : players.map((name) => html`<tr data-player=${name}><th scope="row">${name}</th><td></td><td></td><td></td><td></td><td></td><td></td></tr>`)}</tbody></table>`;
}

/** A round's name: the final, the semi-finals, the quarter-finals, else its number. */
export function roundName(/** @type {T} */ t, /** @type {number} */ r, /** @type {number} */ rounds) {
  if (r === rounds) return t("round.final");
  if (r === rounds - 1) return t("round.semi");
  if (r === rounds - 2) return t("round.quarter");
  return t("round.n", { n: r });
}

/** One match: both sides (the winner marked, frames won, a handicap's start), where it is played. */
export function MatchBox(/** @type {{m: Match, t: T, live: Live, children?: unknown}} */ { m, t, live, children }) {
  const st = status(m);
  const state = m.table && st === "playing" ? live(m.table) : null;
  const frames = m.frames || (state && state.sides ? state.sides.map((s) => s.frames) : null);
  return html`<div class="match-box" data-fixture=${m.fixture} data-status=${st}>
    ${[0, 1].map((i) => html`<div class=${`who${m.winner === i ? " won" : ""}${m.winner === 1 - i ? " lost" : ""}`}>
      <span class="n">${m.sides[i] === null ? (m.bye && m.bye[i] ? t("bye") : placeholder(m, i)) : sideName(m.sides[i])}${m.handicap && m.handicap[i]
        ? html` <small class="hc">+${m.handicap[i]}</small>` : ""}</span>
      <b class="f">${m.walkover ? (m.winner === i ? t("walkover") : "") : frames && !(m.bye && (m.bye[0] || m.bye[1])) ? frames[i] : ""}</b></div>`)}
    <div class="where"><span class="label">${m.label}</span> <span class=${`st ${m.walkover ? "walkover" : st}`}>${m.walkover
      ? t("status.walkover") : t(`status.${st}`, { table: m.table || "" })}</span>${m.reserved && (st === "ready" || st === "waiting")
      ? html` <span class="reserved" data-reserved=${m.reserved}>${t("status.reserved", { table: m.reserved })}</span>` : ""}</div>
    ${children || ""}
  </div>`;
}

/** A side still to come: from a group's place ("A1": group A's winner), else from an earlier match. */
function placeholder(/** @type {Match} */ m, /** @type {number} */ i) {
  const from = m.from && m.from[i];
  return from ? html`<span class="from">${from.group}${from.place}</span>` : "…";
}

/** The knockout's rounds side by side, then the winner; `first` rounds before it (a groups night's). */
function Rounds(/** @type {{c: Competition, t: T, live: Live, slot?: (m: Match) => unknown, matches: Match[], first: number}} */ p) {
  const { c, t, live, slot, matches, first } = p;
  const rounds = [...new Set(matches.map((m) => m.round))].sort((a, b) => a - b);
  const won = champion(c);
  return html`<div class="bracket knockout" data-rounds=${c.rounds - first}>
    ${rounds.map((r) => html`<section class="round" data-round=${r}><h3>${roundName(t, r - first, c.rounds - first)}</h3>
      <div class="round-matches">${matches.filter((m) => m.round === r).map((m) =>
        html`<${MatchBox} m=${m} t=${t} live=${live}>${slot ? slot(m) : ""}</${MatchBox}>`)}</div></section>`)}
    ${won ? html`<section class="round champion"><h3>${t("champion")}</h3><div class="round-matches"><div class="champion-name">${won}</div></div></section>` : ""}
  </div>`;
}

/**
 * A groups night: each group's table (as the server places it) with its matches, and the
 * knockout beside. On the hall (no `slot`) a group shows only its matches on or next on a table.
 */
function Groups(/** @type {{c: Competition, t: T, live: Live, slot?: (m: Match) => unknown}} */ { c, t, live, slot }) {
  const placed = useGroups(c);
  const names = Object.keys(c.groups || {});
  const grouped = c.matches.filter((m) => m.group);
  const first = Math.max(0, ...grouped.map((m) => m.round));
  const out = new Set(c.withdrawn || []);
  return html`<div class="bracket groups">
    <div class="group-list">${names.map((g) => {
      const rows = placed && placed[g] ? placed[g] : (c.groups || {})[g].map((name) => ({ name, played: null, won: null, lost: null,
        frames_for: null, frames_against: null, withdrawn: out.has(name) }));
      const over = grouped.every((m) => m.group !== g || status(m) === "done" || status(m) === "bye");
      const shown = grouped.filter((m) => m.group === g && (slot || ["playing", "handed"].includes(status(m))));
      return html`<section class="group" data-group=${g}><h3>${t("group", { g })}</h3>
        <table class="standings group-table" data-state=${placed ? "ranked" : "unranked"}>
          <thead><tr><th>${t("col.player")}</th><th>${t("col.played")}</th><th>${t("col.won")}</th>
            <th>${t("col.lost")}</th><th>${t("col.frames_for")}</th><th>${t("col.frames_against")}</th></tr></thead>
          <tbody>${rows.map((r, n) => html`<tr data-player=${r.name} class=${`${r.withdrawn ? "withdrawn" : ""}${placed && over && n < (c.advance || 0) && !r.withdrawn ? " through" : ""}`}>
            <th scope="row">${r.name}${r.withdrawn ? html` <small>${t("withdrawn")}</small>` : ""}</th>
            <td>${r.played ?? ""}</td><td>${r.won ?? ""}</td><td>${r.lost ?? ""}</td><td>${r.frames_for ?? ""}</td><td>${r.frames_against ?? ""}</td></tr>`)}</tbody>
        </table>
        ${shown.length ? html`<div class="round-matches">${shown.map((m) =>
          html`<${MatchBox} m=${m} t=${t} live=${live}>${slot ? slot(m) : ""}</${MatchBox}>`)}</div>` : ""}
      </section>`;
    })}</div>
    <${Rounds} c=${c} t=${t} live=${live} slot=${slot} matches=${c.matches.filter((m) => !m.group)} first=${first} />
  </div>`;
}

/** The whole competition. `slot` renders a match's controls (the desk's), or nothing. */
export function BracketView(/** @type {{c: Competition, t: T, live: Live, slot?: (m: Match) => unknown}} */ { c, t, live, slot }) {
  const rounds = [...new Set(c.matches.map((m) => m.round))].sort((a, b) => a - b);
  if (c.kind === "knockout") return html`<${Rounds} c=${c} t=${t} live=${live} slot=${slot} matches=${c.matches} first=${0} />`;
  if (c.kind === "groups") return html`<${Groups} c=${c} t=${t} live=${live} slot=${slot} />`;
  return html`<div class="bracket table-kind">
    <${Standings} c=${c} t=${t} />
    <div class="rounds">${rounds.map((r) => html`<section class="round" data-round=${r}>
      <h3>${c.kind === "round_robin" ? t("round.n", { n: r }) : t("fixtures")}</h3>
      <div class="round-matches">${c.matches.filter((m) => m.round === r).map((m) =>
        html`<${MatchBox} m=${m} t=${t} live=${live}>${slot ? slot(m) : ""}</${MatchBox}>`)}</div></section>`)}</div>
  </div>`;
}
