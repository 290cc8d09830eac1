// @ts-check
// The desk's "Tonight" tab (docs/desk.md): a competition begun from a fixture file, a knockout or
// a round robin; its matches handed to tables (or to the next free one by itself) and started;
// the bracket or the table of the night. What the tables answer is shown as the desk shows any
// answer; a fixture file's or a draw's refusal with its line and reason.

import { html, useEffect, useState } from "../shared/ui.js";
import { BracketView } from "../shared/bracket_view.js";
import { status, parsePlayers } from "./competition.js";

/**
 * @typedef {(key: string, vars?: Record<string, unknown>) => string} T
 * @typedef {import("./competition.js").Match} Match
 * @typedef {import("./link.js").Link} Link
 * @typedef {import("./link.js").Preset} Preset
 * @typedef {import("./night.js").Night} Night
 * @typedef {import("../shared/ui.js").FieldEvent} FieldEvent
 * @typedef {(props: {ids: string[]}) => unknown} AnswersView the desk's list of the tables' answers
 */

const MAX_FILE = 1024 * 1024; // cueboard/league/match_day.py MAX_BYTES: refused before it is sent
const MAX_LIST = 5000; // the venue's player list (docs/mqtt.md `desk/players`)
const PICK_SHOWN = 60; // names of the list shown at once in the draw form

/**
 * The venue's player list as the desks keep it (the retained `desk/players`): its names and the
 * handicaps kept between nights (docs/desk.md "The venue's players"). A desk that wrote names
 * only (before issue 38) leaves the handicaps empty.
 * @param {Link} link @returns {{names: string[], handicaps: Record<string, number>}}
 */
function venuePlayers(link) {
  const body = /** @type {{handicaps?: unknown} | null | undefined} */ (link.store.get(`${link.where.prefix}/${link.where.venue}/desk/players`));
  /** @type {Record<string, number>} */
  const handicaps = {};
  if (body && body.handicaps && typeof body.handicaps === "object") {
    for (const [k, v] of Object.entries(body.handicaps)) if (Number.isInteger(v)) handicaps[k] = /** @type {number} */ (v);
  }
  return { names: link.players, handicaps };
}

/**
 * The player list with tonight's draw in it: names added, each drawn player's handicap kept
 * as the draw checked it (cueboard/venue/competition.py: RFC 8266 names, -200 to 200).
 * @param {Link} link @param {Record<string, number>} drawn
 */
function keepPlayers(link, drawn) {
  if (!link.venueSeen) return; // never write over a list not read yet
  const kept = venuePlayers(link);
  const names = [...new Set([...kept.names, ...Object.keys(drawn)])].sort((a, b) => a.localeCompare(b)).slice(0, MAX_LIST);
  const all = { ...kept.handicaps, ...drawn };
  /** @type {Record<string, number>} */
  const handicaps = {};
  for (const n of names) if (n in all) handicaps[n] = all[n];
  link.publishVenue("players", { schema: 1, names, handicaps });
}

/**
 * Whether the competition has something `advance` would fill: a finished group's place, or a
 * match a withdrawn player is in, not started, both sides known (docs/desk.md "Walkovers").
 * @param {import("./competition.js").Competition} c
 */
export function needsAdvance(c) {
  const out = new Set(c.withdrawn || []);
  const over = (/** @type {string} */ g) => c.matches.every((m) => m.group !== g || m.walkover || (m.winner !== null && m.winner !== undefined));
  return c.matches.some((m) => (m.from || []).some((f, i) => f && m.sides[i] === null && over(f.group))
    || (status(m) === "ready" && !m.started && m.sides.some((x) => typeof x === "string" && out.has(x))));
}

async function ask(/** @type {string} */ path, /** @type {BodyInit} */ body) {
  const answer = await fetch(path, { method: "POST", body });
  const json = await answer.json();
  if (!answer.ok) throw Object.assign(new Error(json.error?.text || json.error?.reason || `${answer.status}`), { detail: json.error });
  return json;
}

/** A new competition: a match day's file, or a draw of players. */
function Begin(/** @type {{t: T, night: Night, presets: Preset[], link: Link}} */ { t, night, presets, link }) {
  const [f, setF] = useState({ kind: "knockout", name: "", players: "", seeded: true, twice: false, game: "snooker", best_of: 3, preset: "",
    groups: 2, advance: 2 });
  const [picked, setPicked] = useState(/** @type {string[]} */ ([]));
  const [file, setFile] = useState(/** @type {File | null} */ (null));
  const [errors, setErrors] = useState(/** @type {string[]} */ ([]));
  const [busy, setBusy] = useState(false);
  const set = (/** @type {string} */ k) => (/** @type {FieldEvent} */ e) => setF({ ...f, [k]: e.target.type === "checkbox" ? e.target.checked : e.target.value });
  /** @returns {import("./competition.js").Format} */
  const format = () => {
    const p = presets.find((x) => x.name === f.preset);
    if (p && p.line) { const { type: _t, sides: _s, ...rest } = p.line; return /** @type {import("./competition.js").Format} */ (rest); }
    return { game: f.game, best_of: Number(f.best_of) };
  };
  const submit = async (/** @type {Event} */ e) => {
    e.preventDefault();
    const name = f.name.trim();
    const problems = [];
    if (!name) problems.push(t("comp.need_name"));
    if (f.kind === "league" && !file) problems.push(t("comp.need_file"));
    if (file && f.kind === "league" && file.size > MAX_FILE) problems.push(`${file.name}: ${t("comp.too_big", { n: file.size, max: MAX_FILE })}`);
    const parsed = parsePlayers(f.players);
    if (f.kind !== "league") problems.push(...parsed.errors);
    if (f.kind !== "league" && parsed.players.length < 2) problems.push(t("comp.need_players"));
    const fmt = format();
    if (!Number.isInteger(fmt.best_of ?? fmt.race_to ?? 1) || (fmt.best_of && fmt.best_of % 2 === 0)) problems.push(t("comp.odd"));
    setErrors(problems);
    if (problems.length) return;
    setBusy(true);
    try {
      if (f.kind === "league" && file) {
        const made = await ask(`desk/api/fixtures?name=${encodeURIComponent(file.name)}&competition=${encodeURIComponent(name)}`, file);
        night.begin(name, "league", fmt, { rounds: 1, matches: made.matches });
      } else {
        const seed = f.seeded ? null : window.crypto.getRandomValues(new Uint32Array(1))[0];
        const made = await ask("desk/api/draw", JSON.stringify({ kind: f.kind, name, players: parsed.players, seeded: f.seeded, seed, twice: f.twice,
          ...(f.kind === "groups" ? { groups: Number(f.groups), advance: Number(f.advance) } : {}) }));
        night.begin(name, f.kind, fmt, made);
        if (f.kind === "groups") night.publish({ ...(/** @type {import("./competition.js").Competition} */ (link.competition)), groups: made.groups, advance: made.advance });
        keepPlayers(link, made.handicaps || {});
      }
    } catch (err) {
      setErrors([err instanceof Error ? err.message : String(err)]);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="begin" onSubmit=${submit} aria-label=${t("comp.begin")}>
    <h2>${t("comp.begin")}</h2>
    <div class="row"><label>${t("comp.kind")}<select name="kind" value=${f.kind} onChange=${set("kind")}>
      <option value="knockout">${t("comp.knockout")}</option><option value="round_robin">${t("comp.round_robin")}</option>
      <option value="groups">${t("comp.groups")}</option>
      <option value="league">${t("comp.league")}</option></select></label>
      <label>${t("comp.name")}<input name="comp_name" value=${f.name} onInput=${set("name")} placeholder=${t("comp.name_hint")} /></label></div>
    ${f.kind === "league" ? html`<div class="row"><label>${t("comp.file")}<input name="fixtures" type="file" accept=".csv,.json,text/csv,application/json"
        onChange=${(/** @type {FieldEvent} */ e) => setFile((e.target.files && e.target.files[0]) || null)} /></label></div>`
      : html`<div class="row"><label class="wide">${t("comp.players")}<textarea name="players" rows="6" value=${f.players}
          onInput=${set("players")} placeholder=${t("comp.players_hint")}></textarea></label>
          ${venuePlayers(link).names.length ? html`<${Pick} t=${t} link=${link} picked=${picked} setPicked=${setPicked}
            add=${() => { setF({ ...f, players: withPicked(f.players, picked, venuePlayers(link).handicaps) }); setPicked([]); }} />` : ""}</div>
        <div class="row">${f.kind === "knockout" ? html`<label class="check"><input type="checkbox" name="seeded" checked=${f.seeded} onChange=${set("seeded")} />${t("comp.seeded")}</label>`
          : html`<label class="check"><input type="checkbox" name="twice" checked=${f.twice} onChange=${set("twice")} />${t("comp.twice")}</label>`}
          ${f.kind === "groups" ? html`<label>${t("comp.group_count")}<input name="groups" type="number" min="1" max="32" value=${f.groups} onInput=${set("groups")} /></label>
            <label>${t("comp.advance")}<input name="advance" type="number" min="1" max="16" value=${f.advance} onInput=${set("advance")} /></label>` : ""}</div>`}
    <div class="row"><label>${t("preset")}<select name="comp_preset" value=${f.preset} onChange=${set("preset")}>
        <option value="">—</option>${presets.map((p) => html`<option value=${p.name}>${p.name}</option>`)}</select></label>
      ${f.preset ? "" : html`<label>${t("game")}<select name="comp_game" value=${f.game} onChange=${set("game")}>
          <option value="snooker">${t("snooker")}</option><option value="blackball">${t("blackball")}</option></select></label>
        <label>${t("best_of")}<input name="comp_best_of" type="number" min="1" max="99" value=${f.best_of} onInput=${set("best_of")} /></label>`}</div>
    ${errors.length ? html`<ul class="errors comp-errors" role="alert">${errors.map((/** @type {string} */ x) => html`<li>${x}</li>`)}</ul>` : ""}
    <button type="submit" class="primary" disabled=${busy}>${t("comp.make")}</button>
  </form>`;
}

/** The lines of the players' field with the ticked players of the venue's list added (each once, with its kept handicap). */
function withPicked(/** @type {string} */ text, /** @type {string[]} */ picked, /** @type {Record<string, number>} */ handicaps) {
  const have = new Set(parsePlayers(text).players.map((p) => p.name.toLowerCase()));
  const add = picked.filter((n) => !have.has(n.toLowerCase())).map((n) => (handicaps[n] ? `${n}, ${handicaps[n]}` : n));
  return [...text.split("\n").filter((x) => x.trim()), ...add].join("\n");
}

/** The venue's player list to tick players from, each with the handicap kept for them. */
function Pick(/** @type {{t: T, link: Link, picked: string[], setPicked: (x: string[]) => void, add: () => void}} */ { t, link, picked, setPicked, add }) {
  const { names, handicaps } = venuePlayers(link);
  const [find, setFind] = useState("");
  // A list of up to 5,000: a page of it at a time, narrowed by typing (the ticked stay shown).
  const wanted = find.trim().toLowerCase();
  const found = names.filter((n) => picked.includes(n) || !wanted || n.toLowerCase().includes(wanted));
  const shown = found.slice(0, PICK_SHOWN);
  return html`<fieldset class="pick" aria-label=${t("comp.pick")}><legend>${t("comp.pick")}</legend>
    ${names.length > PICK_SHOWN / 4 ? html`<input type="search" name="pick_find" placeholder=${t("comp.pick_find")} value=${find}
      onInput=${(/** @type {FieldEvent} */ e) => setFind(e.target.value)} />` : ""}
    <div class="pick-list">${shown.map((n) => html`<label class="check" data-player=${n}><input type="checkbox" name="pick" value=${n}
      checked=${picked.includes(n)} onChange=${(/** @type {FieldEvent} */ e) => setPicked(e.target.checked ? [...picked, n] : picked.filter((x) => x !== n))} />
      ${n}${handicaps[n] ? html` <small class="hc">${handicaps[n] > 0 ? "+" : ""}${handicaps[n]}</small>` : ""}</label>`)}
      ${found.length > shown.length ? html`<small class="more">${t("comp.pick_more", { n: found.length - shown.length })}</small>` : ""}</div>
    <button type="button" data-action="add-picked" disabled=${!picked.length} onClick=${add}>${t("comp.add_picked")}</button></fieldset>`;
}

/** Withdraw a player (confirmed in a sentence): their matches not yet started become walkovers, by the server's `advance`. */
function Withdraw(/** @type {{t: T, night: Night, c: import("./competition.js").Competition, say: (x: string) => void}} */ { t, night, c, say }) {
  const [who, setWho] = useState("");
  const [sure, setSure] = useState(false);
  const out = new Set(c.withdrawn || []);
  const players = [...new Set(c.matches.flatMap((m) => m.sides.filter((x) => typeof x === "string")))]
    .filter((n) => !out.has(/** @type {string} */ (n))).sort();
  const go = async () => {
    setSure(false);
    try {
      const made = await ask("desk/api/advance", JSON.stringify({ competition: c, withdraw: who }));
      const before = c.matches.filter((m) => m.walkover).length;
      night.publish(made.competition);
      say(t("comp.withdrew", { name: who, n: made.competition.matches.filter((/** @type {Match} */ m) => m.walkover).length - before }));
      setWho("");
    } catch (err) {
      say(err instanceof Error ? err.message : String(err));
    }
  };
  return html`<span class="withdraw"><select name="withdraw" aria-label=${t("comp.withdraw_who")} value=${who}
      onChange=${(/** @type {FieldEvent} */ e) => { setWho(e.target.value); setSure(false); }}>
      <option value="">${t("comp.withdraw_who")}</option>${players.map((n) => html`<option value=${n}>${n}</option>`)}</select>
    ${sure ? html`<span class="confirm" role="alertdialog">${t("comp.withdraw_sure", { name: who })}
        <button type="button" data-confirm="yes" onClick=${go}>${t("yes")}</button>
        <button type="button" data-confirm="no" onClick=${() => setSure(false)}>${t("no")}</button></span>`
      : html`<button type="button" data-action="withdraw" disabled=${!who} onClick=${() => setSure(true)}>${t("comp.withdraw")}</button>`}</span>`;
}

/** A match's controls on the desk: hand it to a table, start it, take it back. */
function Controls(/** @type {{m: Match, t: T, night: Night, tables: string[], say: (x: string) => void, asking: Match | null, setAsking: (x: Match | null) => void}} */ p) {
  const { m, t, night, tables } = p;
  const st = status(m);
  const [to, setTo] = useState("");
  // A table kept for the match (the final on the table with the cameras), for a match not handed
  // yet: once handed its table is chosen (take it back to reserve another).
  const keep = ["ready", "waiting"].includes(st) ? html`<select name="reserve" class="reserve" data-reserve=${m.fixture}
        title=${t("comp.reserve")} aria-label=${t("comp.reserve_for", { match: m.label })} value=${m.reserved || ""}
        onChange=${(/** @type {FieldEvent} */ e) => {
          const table = e.target.value;
          const refused = night.reserve(m.fixture, table);
          p.say(refused || (table ? t("comp.reserved_now", { match: m.label, table }) : t("comp.unreserved_now", { match: m.label })));
        }}><option value="">${t("comp.no_reserve")}</option>
        ${[...new Set([...tables, ...(m.reserved ? [m.reserved] : [])])].map((/** @type {string} */ x) => html`<option value=${x}>${t("comp.reserve_to", { table: x })}</option>`)}</select>` : "";
  if (st === "waiting") return html`<div class="ctl">${keep}</div>`;
  if (st === "ready") {
    return html`<div class="ctl"><select name="hand_to" aria-label=${t("comp.table_for", { match: m.label })} value=${to}
        onChange=${(/** @type {FieldEvent} */ e) => setTo(e.target.value)}><option value="">${t("comp.next_free")}</option>
        ${tables.map((/** @type {string} */ x) => html`<option value=${x}>${x}</option>`)}</select>
      <button type="button" data-hand=${m.fixture} onClick=${() => {
        const table = to || night.freeTable();
        p.say(table ? night.hand(m.fixture, table) : t("comp.no_free"));
      }}>${t("comp.hand")}</button>${keep}</div>`;
  }
  if (st === "handed") {
    return html`<div class="ctl">
      <button type="button" class="primary" data-start=${m.fixture} onClick=${() => p.setAsking(m)}>${t("comp.start")}</button>
      <button type="button" data-take-back=${m.fixture} onClick=${() => p.say(night.hand(m.fixture, null))}>${t("comp.take_back")}</button></div>`;
  }
  return null;
}

/**
 * The archive's standings and results page, where the venue service serves it (config.js
 * `results`: `cueboard venue serve`'s /results/, docs/venue-service.md), for tonight's
 * competition when there is one; nothing where no archive is served (`cueboard screen`).
 */
export function ResultsPage(/** @type {{t: T, c: import("./competition.js").Competition | null | undefined}} */ { t, c }) {
  const config = /** @type {Window & {CUEBOARD_SCREEN?: {results?: unknown}}} */ (window).CUEBOARD_SCREEN || {};
  // A path of this server only ("//host" would be another's).
  if (typeof config.results !== "string" || !/^\/[a-z]/.test(config.results)) return "";
  const href = c && c.name ? `${config.results}?competition=${encodeURIComponent(c.name)}` : config.results;
  return html`<p class="results-page"><a href=${href} target="_blank" rel="noopener" data-link="results-page">${t("results_page")}</a></p>`;
}

/** Who hands the night's matches, in words (the venue service, this desk, another, nobody). */
function serviceText(/** @type {T} */ t, /** @type {Night} */ night) {
  const who = night.hander;
  if (night.serviceOnline) return t(who ? "comp.service_hands" : "comp.service_idle");
  return who === "here" ? t("comp.no_service_here") : who ? t("comp.no_service_other", { desk: who }) : t("comp.no_service");
}

export function Tonight(/** @type {{t: T, link: Link, night: Night, Answers: AnswersView}} */ { t, link, night, Answers }) {
  const [said, say] = useState("");
  const [asking, setAsking] = useState(/** @type {Match | null} */ (null));
  const [ids, setIds] = useState(/** @type {string[]} */ ([]));
  const [ending, setEnding] = useState(false);
  const c = link.competition;
  // A group over, or a withdrawn player's opponent known: the server's `advance` fills it in
  // (cueboard/venue/competition.py), and the desk publishes the result as any change.
  const waiting = c && needsAdvance(c) ? JSON.stringify({ competition: c }) : "";
  useEffect(() => {
    if (!waiting) return;
    let live = true;
    ask("desk/api/advance", waiting).then((made) => {
      if (live && JSON.stringify(made.competition.matches) !== JSON.stringify(JSON.parse(waiting).competition.matches)) night.publish(made.competition);
    }, (err) => { if (live) say(err instanceof Error ? err.message : String(err)); });
    return () => { live = false; };
  }, [waiting]);
  if (!c) return html`<section class="tonight"><${Begin} t=${t} night=${night} presets=${link.presets} link=${link} /></section>`;
  const tables = link.sorted().map((tb) => tb.name);
  const counts = c.matches.reduce((/** @type {Record<string, number>} */ a, m) => { const s = status(m); a[s] = (a[s] || 0) + 1; return a; }, {});
  const live = (/** @type {string} */ name) => link.tables.get(name)?.state;
  return html`<section class="tonight" data-kind=${c.kind}>
    <h2>${c.name} <small>${t(`comp.${c.kind}`)} · ${t("comp.counts", { done: (counts.done || 0), playing: (counts.playing || 0), of: c.matches.filter((m) => !(m.bye && (m.bye[0] || m.bye[1]))).length })}</small></h2>
    <div class="row comp-bar">
      <label class="check"><input type="checkbox" name="auto" checked=${night.auto}
        onChange=${(/** @type {FieldEvent} */ e) => { night.setAuto(e.target.checked); link.changed(); }} />${t("comp.auto")}</label>
      <span class="service" role="status" data-service=${night.serviceOnline ? "online" : "offline"} data-hander=${night.hander}>${serviceText(t, night)}</span>
      ${c.kind !== "league" ? html`<${Withdraw} t=${t} night=${night} c=${c} say=${say} />` : ""}
      <button type="button" data-action="feed" onClick=${() => { const d = night.feed(); say(d.length ? t("comp.handed", { n: d.length }) : t("comp.no_free")); }}>${t("comp.feed")}</button>
      ${ending ? html`<span class="confirm" role="alertdialog">${t("comp.end_sure")}
          <button type="button" data-confirm="yes" onClick=${() => { night.end(); setEnding(false); }}>${t("yes")}</button>
          <button type="button" data-confirm="no" onClick=${() => setEnding(false)}>${t("no")}</button></span>`
        : html`<button type="button" data-action="end" onClick=${() => setEnding(true)}>${t("comp.end")}</button>`}
    </div>
    ${said ? html`<p class="said" role="status">${said}</p>` : ""}
    ${asking ? html`<div class="confirm" role="alertdialog"><span>${t("comp.start_sure", { match: asking.label, table: asking.table })}</span>
      <button type="button" class="primary" data-confirm="yes" onClick=${() => {
        const p = night.start(asking.fixture, t("comp.start_what", { match: asking.label }));
        if (p) setIds([p.id, ...ids].slice(0, 6));
        setAsking(null);
      }}>${t("yes")}</button><button type="button" data-confirm="no" onClick=${() => setAsking(null)}>${t("no")}</button></div>` : ""}
    <${Answers} ids=${ids} />
    <${BracketView} c=${c} t=${t} live=${live} slot=${(/** @type {Match} */ m) => html`<${Controls} m=${m} t=${t} night=${night}
      tables=${tables} say=${say} asking=${asking} setAsking=${setAsking} />`} />
  </section>`;
}
