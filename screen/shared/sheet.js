// @ts-check
// A match's result sheet as a page shows it (the desk's "Sheet", printed from the browser): what a
// league accepts (issue 38) — the competition, its round and the fixture, the venue and the table,
// the dates in the page's language (day before month: English is written as in Britain, never
// the US order), and every correction written out (which frame and stroke, what it was and what
// it became, who and when), as the printed sheet has them (cueboard/league/result_sheet.py). Only
// shows: `t` is the page's translator, `competition` tonight's (for the round).

import { html } from "./ui.js";
import { roundName } from "./bracket_view.js";

/**
 * @typedef {(key: string, vars?: Record<string, unknown>) => string} T
 * @typedef {import("./types.gen.js").RecordPayload} RecordPayload
 * @typedef {NonNullable<RecordPayload["corrections"]>[number]} Correction
 * @typedef {{type: string, balls?: unknown, points?: unknown, [field: string]: unknown}} Stroke
 * @typedef {import("./types.gen.js").RecordFrame & {scores?: number[] | null,
 *   breaks?: {side: 0 | 1, player: string, points: number}[]}} SheetFrame
 * @typedef {import("./competition.js").Competition} Competition
 */

/** The locale a language's dates are written in: English in the British order (28 November 2026). @param {string} lang */
export const dateLocale = (lang) => (lang === "en" ? "en-GB" : lang);

/**
 * A day in words in `lang` ("samedi 28 novembre 2026"), or "": as the printed sheet writes it
 * (cueboard/league/result_sheet.py DATE_WORDS), so English has no comma after the day's name.
 * @param {string | null | undefined} iso @param {string} lang
 */
export function longDate(iso, lang) {
  if (!iso) return "";
  const text = new Intl.DateTimeFormat(dateLocale(lang), { weekday: "long", day: "numeric", month: "long", year: "numeric" })
    .format(new Date(iso));
  return lang === "en" ? text.replace(",", "") : text;
}

/** A time of day, 24-hour ("19:41"), or "". @param {string | null | undefined} iso @param {string} lang */
export function clock(iso, lang) {
  if (!iso) return "";
  return new Intl.DateTimeFormat(dateLocale(lang), { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(iso));
}

/**
 * A stroke in words ("pot pink", "foul 4, miss"): the page's words for the balls and the strokes
 * it knows, the stroke's type with spaces for the rest (never a raw `no_pot`).
 * @param {T} t @param {Stroke | null | undefined} e
 */
export function strokeWords(t, e) {
  if (!e) return t("sheet.nothing");
  const ball = (/** @type {unknown} */ b) => t(`sheet.ball.${String(b)}`);
  if (e.type === "pot") return t("sheet.stroke.pot", { balls: (Array.isArray(e.balls) ? e.balls : []).map(ball).join(", ") });
  const extra = Object.entries(e).filter(([k]) => !["type", "t", "id", "user", "applied"].includes(k))
    .map(([k, v]) => (v === true ? k.replace(/_/g, " ") : `${k.replace(/_/g, " ")} ${String(v)}`));
  const known = t(`sheet.stroke.${e.type}`);
  const kind = known === `sheet.stroke.${e.type}` ? e.type.replace(/_/g, " ") : known;
  return [kind, ...extra].join(", ");
}

/** One correction written out ("Frame 1, stroke 6: pot black corrected to pot pink (by desk at 19:41)"). @param {T} t @param {Correction} c @param {string} lang */
export function correctionWords(t, c, lang) {
  const vars = { frame: c.frame ?? "—", seq: c.seq, was: strokeWords(t, /** @type {Stroke | null} */ (c.was)),
    now: strokeWords(t, /** @type {Stroke | null} */ (c.now)) };
  const what = !c.was ? t("sheet.inserted", vars) : !c.now ? t("sheet.deleted", vars) : t("sheet.corrected", vars);
  const by = c.user ? t("sheet.by", { user: c.user }) : "";
  const at = c.at ? t("sheet.at", { time: clock(c.at, lang) }) : "";
  const who = [by, at].filter(Boolean).join(" ");
  return who ? `${what} (${who})` : what;
}

/** The round of the record's fixture in tonight's competition, or "". @param {T} t @param {RecordPayload} r @param {Competition | null | undefined} c */
export function roundOf(t, r, c) {
  if (!c || !r.fixture) return "";
  const m = (c.matches || []).find((x) => x.fixture === r.fixture);
  if (!m) return "";
  return c.kind === "knockout" ? roundName(t, m.round, c.rounds) : c.kind === "round_robin" ? t("round.n", { n: m.round }) : "";
}

// The sheet's own layout, inline: a page drawing it needs no style sheet of this module's (the
// desk's desk.css gives the sheet its page and print rules).
const FACTS = "display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0 0 10px";

/**
 * The sheet of one record.
 * @param {{t: T, lang: string, venue: string, table: string, record: RecordPayload, competition?: Competition | null}} props
 */
export function SheetView({ t, lang, venue, table, record, competition = null }) {
  const r = record;
  const names = (r.sides || []).map((x) => x.name);
  const won = r.frames_won || [0, 0];
  const round = roundOf(t, r, competition);
  /** @type {[string, string, string][]} the fact's class, its label, its value */
  const facts = [
    ["competition", t("sheet.competition"), r.competition || ""],
    ["round", t("sheet.round"), round],
    ["fixture", t("sheet.fixture"), r.fixture || ""],
    ["venue", t("sheet.venue"), r.venue || venue],
    ["table", t("sheet.table"), r.table || table],
    ["date", t("sheet.date"), longDate(r.started, lang)],
    ["times", t("sheet.times"), r.started ? `${clock(r.started, lang)} – ${clock(r.ended, lang)}` : ""],
  ];
  const corrections = r.corrections || [];
  return html`<article class="sheet" data-table=${table}>
    <h2>${r.competition ? `${r.competition}${round ? ` · ${round}` : ""}` : t("sheet_title", { venue: r.venue || venue, table: r.table || table })}</h2>
    <dl class="sheet-facts" style=${FACTS}>${facts.filter(([k, , v]) => v || !["competition", "round", "fixture"].includes(k))
      .map(([k, label, value]) => html`<div data-fact=${k} style="display: contents"><dt style="color: #555">${label}</dt><dd style="margin: 0">${value}</dd></div>`)}</dl>
    <p class="sheet-match"><b>${names[0]}</b> ${won[0]} – ${won[1]} <b>${names[1]}</b></p>
    <p>${t(r.game)} · ${r.best_of ? t("best_of") + " " + r.best_of : t("race_to") + " " + r.race_to}</p>
    <p>${t("winner", { name: r.winner !== null ? names[r.winner] : "—" })}${r.how && r.how !== "played" ? ` (${t(`how.${r.how}`)})` : ""}</p>
    <table class="frames-table"><thead><tr><th>${t("col.frame")}</th><th>${names[0]}</th><th>${names[1]}</th><th>${t("won_by")}</th><th>${t("how")}</th><th>${t("breaks")}</th></tr></thead>
      <tbody>${(/** @type {SheetFrame[]} */ (r.frames || [])).map((f) => html`<tr><td>${f.frame}</td><td>${f.scores ? f.scores[0] : ""}</td><td>${f.scores ? f.scores[1] : ""}</td>
        <td>${f.winner !== null ? names[f.winner] : "—"}</td><td>${f.how}${f.rule ? ` (${f.rule})` : ""}</td>
        <td>${(f.breaks || []).map((b) => `${b.player} ${b.points}`).join(", ")}</td></tr>`)}</tbody></table>
    ${corrections.length ? html`<div class="sheet-corrections"><h3 style="color: inherit">${t("sheet.corrections")}</h3>
      <ul>${corrections.map((c) => html`<li data-seq=${c.seq}>${correctionWords(t, c, lang)}</li>`)}</ul></div>` : ""}
    <div class="signatures">${[names[0], names[1], t("referee")].map((n) => html`<span>${n}</span>`)}</div>
  </article>`;
}
