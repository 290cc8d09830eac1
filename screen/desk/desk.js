// @ts-check
// cueboard desk (docs/desk.md): every table of the venue at a glance, a match started on one
// table or several, and a table acted on (undo, redo, concede, award, the clock, re-rack,
// amend), each a line the table applies or refuses; the desk shows the table's answer.
// The page only shows and sends: the table's engine decides, the broker's ACL decides who may.
// Options (query parameters over config.js): broker (the desk's wss:// listener), venue,
// prefix, lang. Credentials are typed in the form, never taken from the address; the broker is
// the server's (config.js), a link naming another is refused (shared/venue_broker.js); a trusted
// device keeps the login in the browser's password store, never in web storage (shared/credentials.js).

import { html, render, useState, useEffect, useRef } from "../shared/ui.js";
import { deskWords, pageOptions } from "../shared/page.js";
import { forgetLogin, keepLogin, keptLogin } from "../shared/credentials.js";
import { OTHER_BROKER } from "../shared/venue_broker.js";
import { Link, byEnd } from "./link.js";
import { SheetView } from "../shared/sheet.js";

/**
 * @typedef {import("./link.js").Table} Table
 * @typedef {import("./link.js").SentLine} SentLine
 * @typedef {import("./link.js").Line} Line
 * @typedef {import("../shared/state.js").Clock} Clock
 * @typedef {import("../shared/types.gen.js").RecordPayload} RecordPayload
 * @typedef {import("../shared/ui.js").FieldEvent} FieldEvent
 * @typedef {{type?: string, insert?: Described, event?: Described, seq?: number, balls?: string[], points?: number,
 *   side?: number, reason?: string}} Described
 *   what the history's line says of an event (any event's fields the desk shows)
 * @typedef {import("../shared/types.gen.js").RecordFrame & {scores?: number[] | null,
 *   breaks?: {side: 0 | 1, player: string, points: number}[]}} SheetFrame
 *   a record's frame with a snooker frame's scores and breaks (schema/record.schema.json's if/then for the game)
 */
import { matchLine, newId, ACTIONS, awardLine, amendLine, untilTime } from "./lines.js";
import { Night } from "./night.js";
import { strokeKeys, strokeWords, withCalls, inEffect, framesOf, FOUL_CALLS } from "../shared/strokes.js";
import { roundName } from "../shared/bracket_view.js";
import { Tonight, ResultsPage } from "./tonight.js";

const opts = pageOptions("desk_broker", 8885);
// The trusted login's marker (no password: shared/credentials.js), bound to this broker and venue.
const TRUST_KEY = `cueboard-desk-trusted:${opts.broker}|${opts.venue}`;
const BINDING = { broker: opts.broker, place: opts.venue };
/** @type {{user: string, password: string} | null} a login to keep once the broker lets it in ("Trust this device") */
let toKeep = null;
let keptTried = false; // the login came from the browser's store: refused, its marker is forgotten

/** @type {import("../shared/page.js").Words} */
let t = (key) => key;

const link = new Link(opts, () => { trusting(); paced(); });

/** The broker's answer to a sign-in, for the trusted device: a login in is kept, one refused forgotten. */
function trusting() {
  if (link.connection === "online" && toKeep) {
    keepLogin(TRUST_KEY, BINDING, toKeep);
    toKeep = null;
  } else if (link.connection === "refused") {
    toKeep = null;
    if (keptTried) { forgetLogin(TRUST_KEY); keptTried = false; }
  }
}
link.store.subscribe((changed) => { news.count += changed.size; }); // what the tables send, for `busy`
const night = new Night(link); // tonight's competition (docs/desk.md), driven from the tables' topics
// For tests and the bench, read only: the night's driver (cueboardNight), the desk's link (cueboardDesk).
Object.assign(window, { cueboardNight: night, cueboardDesk: link });

/**
 * What the tables send is drawn at most every PACE_MS while they send more than BUSY_TOPICS
 * topics a second (issue 38, docs/desk.md "How fast"): a hall of 256 tables sends some 1,000 a
 * second, and drawing each animation frame that brought one (20-40 a second) kept the main
 * thread 70 % busy on the browser's own work per frame. A quieter venue is drawn at the next
 * frame, as before; what a person does at the desk (`draw`) is drawn at once always.
 */
const PACE_MS = 100;
const BUSY_TOPICS = 200; // some 50 tables at 2 events a second (an event and a state each)
let drawnAt = -Infinity;
/** @type {ReturnType<typeof setTimeout> | null} */
let pacer = null;
/** Topics received in the current second and in the one before it (`busy`). */
const news = { since: 0, count: 0, before: 0 };

/** Whether the tables send enough that the desk draws at its pace. @param {number} now */
function busy(now) {
  if (now - news.since >= 1000) {
    news.before = now - news.since < 2000 ? news.count : 0;
    news.count = 0;
    news.since = now;
  }
  return news.before > BUSY_TOPICS || news.count > BUSY_TOPICS;
}

function draw() {
  if (pacer !== null) { clearTimeout(pacer); pacer = null; }
  drawnAt = performance.now();
  render(html`<${App} />`, /** @type {HTMLElement} */ (document.getElementById("desk")));
}

/** The link's news drawn now, or once PACE_MS since the last drawing have passed. */
function paced() {
  if (pacer !== null) return;
  const now = performance.now();
  const wait = busy(now) ? drawnAt + PACE_MS - now : 0;
  if (wait <= 0) draw();
  else pacer = setTimeout(draw, wait);
}

// -- the parts of a table's line ---------------------------------------------------------------
function clockText(/** @type {Clock | null | undefined} */ clock, /** @type {number} */ now) {
  if (!clock || clock.length === null || clock.length === undefined) return null;
  if (clock.running && clock.ends_at) return { s: Math.max(0, Math.ceil((Date.parse(clock.ends_at) - now) / 1000)), how: "running" };
  return { s: Math.round(clock.left ?? clock.length), how: clock.paused ? "held" : "stopped" };
}

/**
 * A device's name on its chip: the language's word for it ("matrix2" is a board too), a scorer's
 * phone by its login (``scorer:<user>``, docs/mqtt.md), or the table's own key when the language
 * has no word for it (a device newer than this page).
 * @param {string} key
 */
function deviceLabel(key) {
  if (key.startsWith("scorer:")) return t("device.scorer", { user: key.slice("scorer:".length) });
  const id = `device.${key.replace(/\d+$/, "")}`;
  const word = t(id);
  return word === id ? key : word;
}

/**
 * A device's trouble in a few words ("Keypad unplugged", "Board failed"): the language's phrase
 * for that device and state when it has one, else the device's name and the state's word.
 * @param {string} key @param {string} value
 */
function troubleWords(key, value) {
  const state = value.split(":")[0].trim();
  const device = key.startsWith("scorer:") ? "scorer" : key.replace(/\d+$/, "");
  const own = `chip.${device}.${state}`;
  const phrase = t(own, { device: deviceLabel(key) });
  const said = phrase !== own ? phrase : t(`chip.${state}`, { device: deviceLabel(key) });
  const text = said === `chip.${state}` ? `${deviceLabel(key)}: ${state}` : said;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The table whose devices' detail is open (one at a time; a click elsewhere on the chip closes it). */
let detailOf = /** @type {string | null} */ (null);

/**
 * A table's devices in one short chip: "✓" when all are well, else the first trouble in words
 * ("Keypad unplugged", "+1" for more); the detail (each device, its state as the table says it,
 * when a phone was last heard) on a click or tap, so a row stays one line high (issue 38).
 * @param {{devices: (Record<string, unknown>) | null, table: string}} props
 */
function Devices({ devices, table }) {
  if (!devices) return html`<span class="devices unknown">${t("devices_unknown")}</span>`;
  const seen = /** @type {Record<string, string>} */ (devices.last_seen && typeof devices.last_seen === "object" ? devices.last_seen : {});
  const items = Object.entries(devices).filter(([k]) => !["schema", "ts", "last_seen"].includes(k))
    .map(([k, v]) => /** @type {[string, string]} */ ([k, String(v)]));
  const bad = items.filter(([, v]) => v !== "ok");
  const open = detailOf === table;
  const toggle = () => { detailOf = open ? null : table; draw(); };
  const chip = bad.length
    ? html`<button type="button" class="dev bad" data-device=${bad[0][0]} aria-expanded=${open} onClick=${toggle}
        title=${t("devices_detail")}>${troubleWords(bad[0][0], bad[0][1])}${bad.length > 1 ? html` <b>+${bad.length - 1}</b>` : ""}</button>`
    : html`<button type="button" class="dev ok" aria-expanded=${open} onClick=${toggle} title=${t("devices_ok")}>✓</button>`;
  return html`<span class="devices">${chip}${open ? html`<div class="dev-detail" role="dialog" aria-label=${t("devices_detail")}>
      <ul>${items.map(([k, v]) => html`<li class=${v === "ok" ? "ok" : "bad"} data-device=${k}><b>${deviceLabel(k)}</b>
        ${v === "ok" ? t("device_ok") : troubleWords(k, v)}${v.includes(":") ? html` <q>${v.slice(v.indexOf(":") + 1).trim()}</q>` : ""}
        ${v !== "ok" ? html`<code>${v.split(":")[0]}</code>` : ""}
        ${seen[k] ? html` <small>${t("last_seen", { time: new Date(seen[k]).toLocaleTimeString(opts.lang, { hour: "2-digit", minute: "2-digit" }) })}</small>` : ""}</li>`)}</ul>
      <button type="button" class="close" onClick=${toggle}>${t("close")}</button></div>` : ""}</span>`;
}

function TableRow(/** @type {{tb: Table, picked: boolean, open: boolean, now: number, toggle: () => void, show: () => void}} */ p) {
  const { tb, now } = p;
  const s = tb.state;
  const online = tb.status === "online";
  const clock = s && clockText(s.clock, now);
  const sides = (s && s.sides) || [];
  const alarm = tb.alarm;
  const message = s && s.message && s.message.text ? s.message : null;
  // One line a table (issue 38: 16 and more on a laptop): the match on one line, the rest in a
  // chip whose whole text is its title.
  return html`<tr class=${`table ${online ? "online" : "offline"}${p.open ? " open" : ""}${detailOf === tb.name ? " detail" : ""}`} data-table=${tb.name}>
    <td><input type="checkbox" aria-label=${t("pick", { table: tb.name })} checked=${p.picked} onChange=${p.toggle} /></td>
    <th scope="row"><button class="name" onClick=${p.show}>${tb.name}</button></th>
    <td class="status" data-status=${tb.status || "unknown"}>${online ? t("online") : tb.status === "offline" ? t("offline") : t("unknown")}
      ${tb.since && tb.status === "offline" ? html` <small class="since">${t("since", { time: new Date(tb.since).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) })}</small>` : ""}
      ${tb.next ? html` <small class="next" title=${tb.next.competition || ""}>${t("next_is", { match: (tb.next.sides || []).map((x) => (Array.isArray(x) ? x.join(" & ") : x)).join(" v ") })}</small>` : ""}</td>
    <td class="dev-cell"><${Devices} devices=${tb.devices} table=${tb.name} /></td>
    <td class="match">${s && s.waiting ? html`<span class="none waiting" data-waiting="yes">${t("waiting")}</span>` : sides.length ? sides.map((side, /** @type {number} */ i) => html`${i ? html`<span class="vs">–</span>` : ""}<span class=${`side${s && s.striker === i && !s.frame_over ? " at-table" : ""}`}>
        <span class="who">${side.name}</span> <b class="score" title=${t("col.points")}>${side.score}</b> <span class="frames" title=${t("frames")}>(${side.frames})</span></span>`)
      : html`<span class="none">${t("no_match")}</span>`}
      ${message ? html` <small class="msg" data-message=${message.text} title=${message.text}>✉ ${message.text}</small>` : ""}</td>
    <td class="frame">${s && s.sides && !s.waiting ? (s.match_over ? t("match_over") : t("frame_of", { n: s.frame, of: s.best_of ?? "" })) : ""}</td>
    <td class="clock">${clock ? html`<span class=${clock.how}>${clock.s}s</span>` : ""}</td>
    <td class="input">${tb.input ? tb.input.keys.join(" ") : ""}</td>
    <td class="rejected" title=${alarm ? alarm.reason : ""}><div>${alarm ? `${alarm.user ? `${alarm.user}: ` : ""}${alarm.reason}` : ""}</div></td>
  </tr>`;
}

// -- what the tables answered ------------------------------------------------------------------
function Answers(/** @type {{ids: string[]}} */ { ids }) {
  const shown = ids.map((id) => link.pending.get(id)).filter((p) => p !== undefined);
  if (!shown.length) return null;
  return html`<ul class="answers" aria-live="polite">${shown.map((p) => html`<li class="answer" data-table=${p.table}
      data-state=${p.state}><b>${p.table}</b> ${p.what}: ${t(`answer.${p.state}`)}${p.reason ? html` <q>${p.reason}</q>` : ""}</li>`)}</ul>`;
}

// -- start a match -----------------------------------------------------------------------------
/** @type {{players: string[], names: number, list: unknown} | null} */
let drawnPlayers = null;
/** The forms' typeahead (some 500 names at 256 tables), made again only when a name came. */
function playerList() {
  if (drawnPlayers && drawnPlayers.players === link.players && drawnPlayers.names === link.names.size) return drawnPlayers.list;
  const list = html`<datalist id="players">${[...new Set([...link.players, ...link.names])].sort().map((n) => html`<option value=${n} />`)}</datalist>`;
  drawnPlayers = { players: link.players, names: link.names.size, list };
  return list;
}

function StartForm(/** @type {{tables: string[]}} */ { tables }) {
  const [f, setF] = useState({ game: "snooker", a: "", b: "", a2: "", b2: "", format: "best_of", frames: 3, reds: 15,
    handicapA: 0, handicapB: 0, clock: "", four: false });
  const [errors, setErrors] = useState(/** @type {string[]} */ ([]));
  const [ids, setIds] = useState(/** @type {string[]} */ ([]));
  const [presetName, setPresetName] = useState("");
  const set = (/** @type {string} */ k) => (/** @type {FieldEvent} */ e) => setF({ ...f, [k]: e.target.type === "checkbox" ? e.target.checked : e.target.value });
  // A preset is the form's format (not its players), kept for the venue on its retained
  // `desk/presets` topic (docs/desk.md): every desk of the venue offers it.
  const usePreset = (/** @type {string} */ name) => {
    const p = link.presets.find((x) => x.name === name);
    if (p && p.form) setF({ ...f, ...p.form });
  };
  const savePreset = () => {
    const name = presetName.trim();
    const made = matchLine({ ...f, a: "A", b: "B", a2: f.four ? "C" : "", b2: f.four ? "D" : "", frames: Number(f.frames), reds: Number(f.reds),
      handicapA: 0, handicapB: 0, clock: f.clock === "" ? undefined : Number(f.clock) });
    if (!name || name.length > 60) { setErrors([t("preset_name")]); return; }
    if (!made.line) { setErrors(made.errors); return; }
    const { a: _a, b: _b, a2: _a2, b2: _b2, handicapA: _h, handicapB: _h2, ...form } = f;
    const { sides: _s, ...line } = made.line;
    const presets = [...link.presets.filter((x) => x.name !== name), { name, form, line }]
      .sort((x, y) => x.name.localeCompare(y.name));
    link.publishVenue("presets", { schema: 1, presets });
    setErrors([]);
  };
  const dropPreset = (/** @type {string} */ name) => link.publishVenue("presets", { schema: 1, presets: link.presets.filter((x) => x.name !== name) });
  const submit = (/** @type {Event} */ e) => {
    e.preventDefault();
    if (!tables.length) { setErrors([t("pick_first")]); return; }
    const made = matchLine({ ...f, a2: f.four ? f.a2 : "", b2: f.four ? f.b2 : "", frames: Number(f.frames),
      reds: Number(f.reds), handicapA: Number(f.handicapA), handicapB: Number(f.handicapB),
      clock: f.clock === "" ? undefined : Number(f.clock) });
    setErrors(made.errors);
    if (!made.line) return;
    const line = made.line;
    night.addPlayers([f.a, f.b, f.four ? f.a2 : "", f.four ? f.b2 : ""]);
    setIds(tables.map((table) => link.send(table, line, t("start_what"), newId(link.user)).id));
  };
  return html`<form class="start" onSubmit=${submit} aria-label=${t("start")}>
    <h2>${t("start_on", { tables: tables.join(", ") || "—" })}</h2>
    ${playerList()}
    <div class="row presets"><label>${t("preset")}<select name="preset" onChange=${(/** @type {FieldEvent} */ e) => usePreset(e.target.value)}>
        <option value="">—</option>${link.presets.map((p) => html`<option value=${p.name}>${p.name}</option>`)}</select></label>
      <label>${t("preset_new")}<input name="preset_name" maxlength="60" value=${presetName} placeholder=${t("preset_hint")}
        onInput=${(/** @type {FieldEvent} */ e) => setPresetName(e.target.value)} /></label>
      <button type="button" data-action="save_preset" onClick=${savePreset}>${t("preset_save")}</button>
      ${link.presets.some((p) => p.name === presetName.trim()) ? html`<button type="button" data-action="drop_preset"
        onClick=${() => dropPreset(presetName.trim())}>${t("preset_drop")}</button>` : ""}</div>
    <div class="row"><label>${t("game")}<select name="game" value=${f.game} onChange=${set("game")}>
      <option value="snooker">${t("snooker")}</option><option value="blackball">${t("blackball")}</option></select></label>
      <label class="check"><input type="checkbox" name="four" checked=${f.four} onChange=${set("four")} />${t("four_handed")}</label></div>
    <div class="row"><label>${t("side", { n: 1 })}<input name="a" list="players" autocomplete="off" value=${f.a} onInput=${set("a")} /></label>
      <label>${t("side", { n: 2 })}<input name="b" list="players" autocomplete="off" value=${f.b} onInput=${set("b")} /></label></div>
    ${f.four ? html`<div class="row"><label>${t("partner", { n: 1 })}<input name="a2" list="players" value=${f.a2} onInput=${set("a2")} /></label>
      <label>${t("partner", { n: 2 })}<input name="b2" list="players" value=${f.b2} onInput=${set("b2")} /></label></div>` : ""}
    <div class="row"><label>${t("format")}<select name="format" value=${f.format} onChange=${set("format")}>
        <option value="best_of">${t("best_of")}</option><option value="race_to">${t("race_to")}</option>
        <option value="aggregate">${t("aggregate")}</option></select></label>
      <label>${t("frames")}<input name="frames" type="number" min="1" max="99" value=${f.frames} onInput=${set("frames")} /></label></div>
    ${f.game === "snooker" ? html`<div class="row"><label>${t("reds")}<select name="reds" value=${f.reds} onChange=${set("reds")}>
        <option value="15">15</option><option value="10">10</option><option value="6">6</option></select></label>
      <label>${t("handicap", { n: 1 })}<input name="handicapA" type="number" min="0" value=${f.handicapA} onInput=${set("handicapA")} /></label>
      <label>${t("handicap", { n: 2 })}<input name="handicapB" type="number" min="0" value=${f.handicapB} onInput=${set("handicapB")} /></label></div>` : ""}
    <div class="row"><label>${t("shot_clock")}<input name="clock" type="number" min="5" max="600" placeholder=${t("table_default")}
      value=${f.clock} onInput=${set("clock")} /></label></div>
    ${errors.length ? html`<ul class="errors">${errors.map((/** @type {string} */ x) => html`<li>${x}</li>`)}</ul>` : ""}
    <button type="submit" class="primary" disabled=${!tables.length}>${t("start_button", { n: tables.length })}</button>
    <${Answers} ids=${ids} />
  </form>`;
}

// -- act on one table --------------------------------------------------------------------------
/** Where an event came from (docs/mqtt.md `source`), in the desk's words. */
function sourceWord(/** @type {string | undefined} */ source) {
  if (!source) return "";
  const kind = source.split(":")[0];
  return ["referee_box", "keypad", "command", "control", "clock", "scorer", "desk", "referee"].includes(kind) ? t(`source.${kind}`) : source;
}

/**
 * Where a table's match stands in tonight's competition ("Club Cup, Final"), when it is one of
 * its matches being played there; "" otherwise.
 * @param {string} table
 */
function whereInCompetition(table) {
  const c = link.competition;
  if (!c) return "";
  const m = c.matches.find((x) => x.table === table && x.started && (x.winner === null || x.winner === undefined));
  if (!m) return "";
  return c.kind === "knockout" ? `${c.name}, ${roundName(t, m.round, c.rounds)}` : `${c.name}, ${t("round.n", { n: m.round })}`;
}

/**
 * The correction dialog (docs/desk.md "Correcting a stroke"): the stroke picked shown in words,
 * the scorer's keys (shared/strokes.js) to say what it should have been, a foul's calls, remove
 * it or put a stroke before it. Nothing is sent from here: "Check and confirm" hands the line
 * to the panel's confirmation, which asks the table for the result first.
 * @param {{stroke: import("../shared/strokes.js").Stroke, game: string, names: string[],
 *   ask: (kind: string, line: Record<string, unknown>, to: Record<string, unknown> | null) => void, close: () => void}} props
 */
function Correction({ stroke, game, names, ask, close }) {
  const [to, setTo] = useState(/** @type {Record<string, unknown> | null} */ (null));
  const [calls, setCalls] = useState(/** @type {Record<string, boolean>} */ ({}));
  const [insert, setInsert] = useState(false);
  const picked = to ? withCalls(to, calls) : null;
  const same = picked && JSON.stringify(picked) === JSON.stringify(amendLine(stroke.seq, stroke.event).event);
  const snooker = game !== "blackball";
  return html`<div class="correction" role="dialog" aria-label=${t("amend_label", { seq: stroke.seq })}>
    <h3>${t("amend_label", { seq: stroke.seq })}</h3>
    <p class="was">${t("amend_was", { what: strokeWords(stroke.event, t, names) })}</p>
    <div class="mode"><label class="check"><input type="radio" name="amend_mode" checked=${!insert} onChange=${() => setInsert(false)} />${t("amend_replace")}</label>
      <label class="check"><input type="radio" name="amend_mode" data-mode="insert" checked=${insert} onChange=${() => setInsert(true)} />${t("amend_insert")}</label></div>
    <div class="keys">${strokeKeys(game).map((row) => html`<div class="key-row">${row.map((k) => html`<button type="button" data-key=${k.key}
        class=${`key${to && JSON.stringify(to) === JSON.stringify(k.line) ? " on" : ""}${k.line.type === "foul" ? " foul" : ""}`}
        onClick=${() => setTo(k.line)}>${strokeWords(k.line, t, names)}</button>`)}</div>`)}
      ${snooker ? html`<div class="key-row calls">${FOUL_CALLS.map((c) => html`<label class="check"><input type="checkbox" name=${`call_${c}`}
        checked=${!!calls[c]} onChange=${(/** @type {FieldEvent} */ e) => setCalls({ ...calls, [c]: e.target.checked })} />${t(`tap.${c}`)}</label>`)}</div>` : ""}</div>
    <p class="becomes" data-to=${picked ? JSON.stringify(picked) : ""}>${picked
      ? (insert ? t("amend_insert_is", { what: strokeWords(picked, t, names), seq: stroke.seq })
        : t("amend_becomes", { from: strokeWords(stroke.event, t, names), to: strokeWords(picked, t, names) }))
      : t("amend_pick")}</p>
    <div class="row">
      <button type="button" class="primary" data-action="amend" disabled=${!picked || (same && !insert)}
        onClick=${() => picked && ask(insert ? "amend_insert" : "amend", insert ? { type: "amend", seq: stroke.seq, insert: picked } : amendLine(stroke.seq, picked), picked)}>${t("amend_check")}</button>
      <button type="button" data-action="amend_remove" onClick=${() => ask("amend_remove", amendLine(stroke.seq, null), null)}>${t("action.amend_remove")}</button>
      <button type="button" data-action="amend_cancel" onClick=${close}>${t("cancel")}</button></div>
  </div>`;
}

function TablePanel(/** @type {{tb: Table}} */ { tb }) {
  const [asking, setAsking] = useState(/** @type {null | {what: string, sentence: string, line: Record<string, unknown>}} */ (null));
  const [ids, setIds] = useState(/** @type {string[]} */ ([]));
  const [amendSeq, setAmendSeq] = useState(/** @type {number | null} */ (null));
  const [awardSide, setAwardSide] = useState("0");
  const [awardReason, setAwardReason] = useState("conduct");
  const [message, setMessage] = useState("");
  const [until, setUntil] = useState("");
  const [previewId, setPreviewId] = useState(/** @type {string | null} */ (null));
  const [messageIds, setMessageIds] = useState(/** @type {string[]} */ ([]));
  const s = tb.state;
  const game = (s && s.game) || "snooker";
  const names = ((s && s.sides) || []).map((x) => x.name);
  const where = whereInCompetition(tb.name);
  const frame = s ? s.frame : 1;
  const striker = s && typeof s.striker === "number" ? names[s.striker] || "" : "";
  // The strokes in effect, a corrected one once, corrected (shared/strokes.js); newest first.
  const strokes = inEffect(tb.events);
  const frames = framesOf(strokes, Math.max(1, frame - strokes.filter((x) => x.event.type === "next_frame").length));
  const history = strokes.slice(-40).reverse();
  const stroke = amendSeq === null ? null : strokes.find((x) => x.seq === amendSeq) || null;
  const last = strokes[strokes.length - 1];
  /**
   * A confirmation in a sentence naming what, the frame, the player and, when known, the
   * competition and round (issue 38: never the line's JSON).
   * @param {string} kind @param {Record<string, unknown>} line @param {Record<string, unknown> | null} [to]
   */
  const sentenceOf = (kind, line, to = null) => {
    const side = typeof line.side === "number" ? names[line.side] || "" : "";
    const other = striker ? names.find((n) => n !== striker) || "" : "";
    const at = stroke ? frames.get(stroke.seq) ?? frame : frame;
    /** @type {Record<string, unknown>} */
    const vars = { table: tb.name, frame: kind.startsWith("amend") ? at : frame, next: frame + 1, name: striker || "—", other,
      side, reason: t(`reason.${line.reason}`), what: last ? strokeWords(last.event, t, names) : "—",
      seq: stroke ? stroke.seq : line.seq, from: stroke ? strokeWords(stroke.event, t, names) : "", to: to ? strokeWords(to, t, names) : "" };
    const said = t(`confirm.${kind}`, vars);
    return where ? `${where}: ${said}` : said; // "Club Cup, Final: Concede frame 2 for Ann Smith?"
  };
  const ask = (/** @type {string} */ kind, /** @type {Record<string, unknown>} */ line, /** @type {Record<string, unknown> | null} */ to = null) => {
    setPreviewId(null);
    setAsking({ what: t(`action.${kind}`), sentence: sentenceOf(kind, line, to), line });
    // An amend's result first (docs/mqtt.md `preview`): checked on a copy, never applied. A table
    // that publishes its `history` knows previews; an older one is not asked (it could take the
    // line for a real correction).
    if (line.type === "amend" && tb.history) setPreviewId(link.send(tb.name, { ...line, preview: true }, t("preview_what"), newId(link.user)).id);
  };
  const confirm = () => {
    if (!asking) return;
    const p = link.send(tb.name, asking.line, asking.what, newId(link.user));
    setIds([p.id, ...ids].slice(0, 6));
    setAsking(null);
    if (asking.line.type === "amend") setAmendSeq(null);
  };
  const preview = previewId ? link.pending.get(previewId) : null;
  const after = previewId ? link.previews.get(previewId) : null;
  const sendMessage = (/** @type {Event} */ e) => {
    e.preventDefault();
    const body = message.trim() ? { schema: 1, text: message.trim().slice(0, 120), until: untilTime(until, new Date()) } : null;
    setMessageIds([link.sendMessage(tb.name, body, body ? t("message_what") : t("message_clear_what")).id]);
  };
  const button = (/** @type {string} */ key, /** @type {Record<string, unknown>} */ line) => html`<button type="button" data-action=${key}
    onClick=${() => ask(key, line)}>${t(`action.${key}`)}</button>`;
  const score = (/** @type {import("../shared/state.js").Side[]} */ sides) => sides.map((x, /** @type {number} */ i) => html`${i ? " – " : ""}<b>${x.name} ${x.score} (${x.frames})</b>`);
  return html`<section class="panel" data-table=${tb.name} aria-label=${tb.name}>
    <h2>${t("table", { table: tb.name })} <small>${names.join(" – ")}${where ? ` · ${where}` : ""}</small></h2>
    <div class="actions">
      ${button("undo", ACTIONS.undo())}${button("redo", ACTIONS.redo())}${button("rerack", ACTIONS.rerack())}
      ${button("next_frame", ACTIONS.next_frame())}${button("concede", ACTIONS.concede())}${button("concede_match", ACTIONS.concede_match())}
      ${button("clock", ACTIONS.clock())}${button("hold", ACTIONS.hold(game))}${button("resume", ACTIONS.resume(game))}
    </div>
    <div class="row award"><label>${t("award_to")}<select name="award_side" value=${awardSide} onChange=${(/** @type {FieldEvent} */ e) => setAwardSide(e.target.value)}>
      ${((s && s.sides) || [{ name: "1" }, { name: "2" }]).map((x, /** @type {number} */ i) => html`<option value=${String(i)}>${x.name}</option>`)}</select></label>
      <label>${t("reason")}<select name="award_reason" value=${awardReason} onChange=${(/** @type {FieldEvent} */ e) => setAwardReason(e.target.value)}>
        <option value="conduct">${t("reason.conduct")}</option><option value="miss">${t("reason.miss")}</option></select></label>
      <button type="button" data-action="award" onClick=${() => ask("award", awardLine(Number(awardSide), awardReason, false))}>${t("action.award")}</button></div>
    ${asking ? html`<div class="confirm" role="alertdialog"><p class="sentence">${asking.sentence}</p>
      <small class="context">${[t("table", { table: tb.name }), names.join(" v ")].filter(Boolean).join(" · ")}</small>
      ${asking.line.type === "amend" ? html`<div class="preview" data-preview=${after ? "state" : preview ? preview.state : "none"}>${after && after.state
        ? html`${t("preview_after")} ${score(/** @type {import("../shared/state.js").Side[]} */ (after.state.sides || []))}`
        : preview && preview.state === "refused" ? html`${t("preview_refused")} <q>${preview.reason}</q>`
        : preview ? t("preview_waiting") : t("preview_none")}</div>` : ""}
      <button type="button" class="primary" data-confirm="yes" onClick=${confirm}>${t("yes")}</button>
      <button type="button" data-confirm="no" onClick=${() => setAsking(null)}>${t("no")}</button></div>` : ""}
    <${Answers} ids=${ids} />
    ${stroke && !asking ? html`<${Correction} key=${stroke.seq} stroke=${stroke} game=${game} names=${names} ask=${ask} close=${() => setAmendSeq(null)} />` : ""}
    <h3>${t("history")}</h3>
    <ol class="history">${history.map((e) => html`<li data-seq=${e.seq} data-type=${String(e.event.type)}
        class=${`${amendSeq === e.seq ? "picked" : ""}${e.was || e.inserted ? " corrected" : ""}`}>
      <button type="button" title=${t("amend_label", { seq: e.seq })} onClick=${() => { setAsking(null); setAmendSeq(e.seq); }}>#${e.seq}</button>
      <span class="what">${strokeWords(e.event, t, names)}</span>
      ${e.was ? html` <small class="fixed">${t("corrected_from", { was: strokeWords(e.was, t, names), user: e.fixedBy || "" })}</small>`
        : e.inserted ? html` <small class="fixed">${t("corrected_added", { user: e.fixedBy || "" })}</small>` : ""}
      <small class="from"> ${t("frame_n", { n: frames.get(e.seq) ?? "" })} · ${sourceWord(e.source ?? undefined)} ${e.user && e.user !== sourceWord(e.source ?? undefined) ? e.user : ""} ${e.ts ? new Date(e.ts).toLocaleTimeString(opts.lang, { hour: "2-digit", minute: "2-digit" }) : ""}</small></li>`)}</ol>
    ${tb.history && tb.history.truncated ? html`<p class="dim">${t("history_cut", { n: tb.history.truncated })}</p>` : ""}
    <form class="message" onSubmit=${sendMessage}><label>${t("message")}<input name="message" maxlength="120" value=${message}
      onInput=${(/** @type {FieldEvent} */ e) => setMessage(e.target.value)} /></label>
      <label class="until">${t("until")}<input name="until" type="time" value=${until} onInput=${(/** @type {FieldEvent} */ e) => setUntil(e.target.value)} /></label>
      <button type="submit">${t("send")}</button>
      ${tb.message && tb.message.text ? html`<button type="button" data-action="clear_message" onClick=${() => {
        setMessageIds([link.sendMessage(tb.name, null, t("message_clear_what")).id]);
      }}>${t("clear")}</button>` : ""}
      ${tb.message && tb.message.text && !(tb.message.until && Date.parse(tb.message.until) < Date.now()) ? html`<small>${t("message_now", { text: tb.message.text })}${tb.message.until
        ? ` ${t("until_time", { time: new Date(tb.message.until).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) })}` : ""}</small>` : ""}
      <${Answers} ids=${messageIds} /></form>
  </section>`;
}

/**
 * A message to the ticked tables, or to all (docs/desk.md "A message for the tables"): one
 * retained `message` a table, each table's answer listed (shown on it, refused, no answer).
 * @param {{tables: string[]}} props
 */
function MessageForm({ tables }) {
  const [text, setText] = useState("");
  const [until, setUntil] = useState("");
  const [to, setTo] = useState("picked");
  const [ids, setIds] = useState(/** @type {string[]} */ ([]));
  const all = link.sorted().map((x) => x.name);
  const targets = to === "all" ? all : tables;
  const send = (/** @type {boolean} */ clear) => {
    const body = clear || !text.trim() ? null : { schema: 1, text: text.trim().slice(0, 120), until: untilTime(until, new Date()) };
    setIds(targets.map((table) => link.sendMessage(table, body, body ? t("message_what") : t("message_clear_what")).id));
  };
  return html`<form class="message many" aria-label=${t("message_many")} onSubmit=${(/** @type {Event} */ e) => { e.preventDefault(); send(false); }}>
    <h2>${t("message_many")}</h2>
    <div class="row"><label class="check"><input type="radio" name="message_to" value="picked" checked=${to === "picked"} onChange=${() => setTo("picked")} />${t("message_to_picked", { n: tables.length })}</label>
      <label class="check"><input type="radio" name="message_to" value="all" checked=${to === "all"} onChange=${() => setTo("all")} />${t("message_to_all", { n: all.length })}</label></div>
    <label>${t("message")}<input name="message_all" maxlength="120" value=${text} onInput=${(/** @type {FieldEvent} */ e) => setText(e.target.value)} /></label>
    <label class="until">${t("until")}<input name="until_all" type="time" value=${until} onInput=${(/** @type {FieldEvent} */ e) => setUntil(e.target.value)} /></label>
    <button type="submit" class="primary" disabled=${!targets.length || !text.trim()}>${t("message_send_n", { n: targets.length })}</button>
    <button type="button" data-action="clear_messages" disabled=${!targets.length} onClick=${() => send(true)}>${t("message_clear_n", { n: targets.length })}</button>
    <${Answers} ids=${ids} />
  </form>`;
}

// -- tonight's results, and a match's sheet (A4, printed from the browser) ----------------------
/** The sheet a league accepts (shared/sheet.js). @param {{table: string, record: RecordPayload}} props */
function Sheet({ table, record }) {
  return html`<${SheetView} t=${t} lang=${opts.lang} venue=${opts.venue} table=${table} record=${record} competition=${link.competition} />`;
}

function Results() {
  const [shown, setShown] = useState(/** @type {string | null} */ (null));
  const [clearing, setClearing] = useState(false);
  // Kept for the venue on its retained `desk/results` (docs/desk.md): the same list after a
  // reload and on every desk, in the order the matches ended.
  const items = [...link.results.entries()].sort(([, a], [, b]) => byEnd(a.record, b.record));
  const picked = shown ? link.results.get(shown) : null;
  const kept = link.resultsKept;
  return html`<section class="results"><h2>${t("results")}</h2><${ResultsPage} t=${t} c=${link.competition} />
    ${kept && kept.night ? html`<p class="night">${t("results_since", { time: new Date(kept.night).toLocaleString(opts.lang) })}</p>` : ""}
    ${kept && kept.left_out ? html`<p class="left-out" role="status">${t("results_left_out", { n: kept.left_out })}</p>` : ""}
    ${items.length ? "" : html`<p class="none">${t("no_results")}</p>`}
    <ul>${items.map(([key, { table, record }]) => html`<li data-table=${table}><b>${table}</b>
      ${(record.sides || []).map((x) => x.name).join(" – ")} ${(record.frames_won || []).join("–")}
      <button type="button" data-sheet=${table} onClick=${() => setShown(key)}>${t("sheet")}</button></li>`)}</ul>
    ${picked ? html`<div class="sheet-box"><button type="button" class="primary" data-print="yes" onClick=${() => window.print()}>${t("print")}</button>
      <${Sheet} table=${picked.table} record=${picked.record} /></div>` : ""}
    <div class="new-night">${clearing ? html`<span class="confirm" role="alertdialog">${t("new_night_sure", { n: items.length })}
        <button type="button" data-confirm="yes" onClick=${() => { link.newNight(); setShown(null); setClearing(false); }}>${t("yes")}</button>
        <button type="button" data-confirm="no" onClick=${() => setClearing(false)}>${t("no")}</button></span>`
      : html`<button type="button" data-action="new_night" onClick=${() => setClearing(true)}>${t("new_night")}</button>`}</div>
  </section>`;
}

// -- signing in --------------------------------------------------------------------------------
function SignIn() {
  const [user, setUser] = useState("");
  const [password, setPassword] = useState("");
  const [trust, setTrust] = useState(false);
  const submit = (/** @type {Event} */ e) => {
    e.preventDefault();
    keptTried = false;
    toKeep = trust ? { user: user.trim(), password } : null;
    if (!trust) forgetLogin(TRUST_KEY);
    link.signIn(user.trim(), password);
  };
  return html`<form class="signin" onSubmit=${submit}>
    <h1>${t("title")}</h1><p>${t("venue", { venue: opts.venue || "?" })}</p>
    <label>${t("user")}<input name="user" autocomplete="username" required value=${user} onInput=${(/** @type {FieldEvent} */ e) => setUser(e.target.value)} /></label>
    <label>${t("password")}<input name="password" type="password" autocomplete="current-password" required value=${password}
      onInput=${(/** @type {FieldEvent} */ e) => setPassword(e.target.value)} /></label>
    <label class="check"><input type="checkbox" name="trust" checked=${trust} onChange=${(/** @type {FieldEvent} */ e) => setTrust(e.target.checked)} />${t("trust")}</label>
    ${link.connection === "refused" ? html`<p class="refused" role="alert">${t("refused", { reason: link.refusal })}</p>` : ""}
    ${link.connection === "connecting" ? html`<p class="connecting">${t("connecting")}</p>` : ""}
    <button type="submit" class="primary">${t("sign_in")}</button>
  </form>`;
}

// -- the page ----------------------------------------------------------------------------------
/** @type {Set<string>} */
const picked = new Set();
let open = /** @type {string | null} */ (null);
let filter = "";
let panel = "start";

/** @type {Map<string, {key: string, words: import("../shared/page.js").Words, row: unknown}>} */
const drawnRows = new Map();
/**
 * A table's row, drawn again only when something it shows may have changed: a message from the
 * table (its version), being picked or open, the language, and each second while its shot clock
 * runs. Any other render of the page (another table's message: 256 tables send some 500 a second)
 * hands Preact the same row, which it leaves as it is (issue 28: the desk stays fluid).
 * @param {Table} tb @param {number} now
 */
function tableRow(tb, now) {
  const clock = tb.state && tb.state.clock;
  const key = `${tb.version}|${picked.has(tb.name)}|${open === tb.name}|${detailOf === tb.name}|${clock && clock.running ? Math.floor(now / 1000) : ""}`;
  const kept = drawnRows.get(tb.name);
  if (kept && kept.key === key && kept.words === t) return kept.row;
  const row = html`<${TableRow} key=${tb.name} tb=${tb} now=${now} picked=${picked.has(tb.name)} open=${open === tb.name}
    toggle=${() => { if (picked.has(tb.name)) picked.delete(tb.name); else picked.add(tb.name); draw(); }}
    show=${() => { open = tb.name; link.follow(tb.name); panel = "table"; draw(); }} />`;
  drawnRows.set(tb.name, { key, words: t, row });
  return row;
}

/** @type {{key: string, words: import("../shared/page.js").Words, venue: unknown[], panel: unknown} | null} */
let drawnPanel = null;
/**
 * The side panel, drawn again only when its own inputs change (issue 38: drawn each frame, its
 * forms were some 14 % of the main thread at 256 tables): the tab, the ticked and open tables,
 * the open table's messages (its version), the lines sent and their answers (`link.asked`), the
 * venue's own topics, the language, and the second for the open table (a message's end). Its
 * forms' own state (typing) draws them by itself. Tonight's panel reads every table: drawn each time.
 * @param {Table | null | undefined} tb @param {number} now
 */
function sidePanel(tb, now) {
  if (panel === "tonight") return html`<${Tonight} t=${t} link=${link} night=${night} Answers=${Answers} />`;
  if (panel === "results") return html`<${Results} />`;
  const key = panel === "table" && tb
    ? `table|${tb.name}|${tb.version}|${link.asked}|${Math.floor(now / 1000)}|${link.competition ? link.competition.rev : ""}|${link.previews.size}`
    : `start|${[...picked].sort().join(",")}|${link.asked}|${link.names.size}|${link.tables.size}`;
  const venue = [link.presets, link.players, link.competition];
  if (drawnPanel && drawnPanel.key === key && drawnPanel.words === t && sameVenue(drawnPanel.venue, venue)) return drawnPanel.panel;
  const drawn = panel === "table" && tb ? html`<${TablePanel} key=${tb.name} tb=${tb} />`
    : html`<${StartForm} tables=${[...picked].sort()} /><${MessageForm} tables=${[...picked].sort()} />`;
  drawnPanel = { key, words: t, venue, panel: drawn };
  return drawn;
}
/** @param {unknown[]} a @param {unknown[]} b */
const sameVenue = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** A link naming another broker than the server's: said, and nothing sent anywhere (no form to type a password into). */
function OtherBroker() {
  const own = new URLSearchParams(location.search);
  own.delete("broker");
  return html`<div class="signin other-broker"><h1>${t("title")}</h1>
    <p class="refused" role="alert" data-code=${OTHER_BROKER}>${t("other_broker", { other: opts.otherBroker, broker: opts.broker })}</p>
    <p><a href=${`${location.pathname}${own.size ? `?${own}` : ""}`}>${t("own_desk")}</a></p></div>`;
}

/**
 * The session taken by another tab or device signed in with this login (one login per device,
 * docs/desk.md): said, not tried again by itself, and one button takes it back here. The kept
 * login ("Trust this device") stays: the login is good, only in use elsewhere.
 */
function Taken() {
  return html`<div class="signin taken"><h1>${t("title")}</h1><p>${t("venue", { venue: opts.venue || "?" })}</p>
    <p class="refused" role="alert" data-code="session-taken">${t("taken", { user: link.user })}</p>
    <button type="button" class="primary take-back" onClick=${() => link.takeBack()}>${t("take_back")}</button>
    <button type="button" class="sign-out" onClick=${() => { forgetLogin(TRUST_KEY); link.signOut(); }}>${t("sign_out")}</button></div>`;
}

function App() {
  const [now, setNow] = useState(Date.now());
  if (opts.otherBroker) return html`<${OtherBroker} />`;
  const filterRef = useRef(null);
  useEffect(() => { const id = setInterval(() => setNow(Date.now()), 1000); return () => clearInterval(id); }, []);
  if (link.connection === "taken") { drawnRows.clear(); drawnPanel = null; return html`<${Taken} />`; }
  if (link.connection === "signed-out" || link.connection === "refused" || (link.connection === "connecting" && !link.tables.size)) {
    // A drawing kept from before signing out is no drawing of the next session's tables.
    drawnRows.clear(); drawnPanel = null;
    return html`<${SignIn} />`;
  }
  const words = filter.toLowerCase();
  const rows = link.sorted().filter((tb) => !words || tb.name.toLowerCase().includes(words)
    || ((tb.state && tb.state.sides) || []).some((s) => s.name.toLowerCase().includes(words)));
  const online = rows.filter((tb) => tb.status === "online").length;
  const tb = open ? link.tables.get(open) : null;
  return html`<header class="bar"><h1>${t("title")}</h1><span class="venue">${opts.venue}</span>
      <span class="conn" data-state=${link.connection}>${t(`conn.${link.connection}`)}</span>
      <span class="count">${t("online_count", { n: online, of: rows.length })}</span>
      <input ref=${filterRef} class="filter" type="search" name="filter" placeholder=${t("filter")} value=${filter}
        onInput=${(/** @type {FieldEvent} */ e) => { filter = e.target.value; draw(); }} />
      ${link.problem ? html`<span class="problem" role="status" title=${link.problem.text}>${link.problem.text}</span>` : ""}
      <span class="user">${link.user}</span>
      <button type="button" onClick=${() => { forgetLogin(TRUST_KEY); link.signOut(); }}>${t("sign_out")}</button></header>
    <main class=${`desk${panel === "tonight" ? " wide" : ""}`}>
      <div class="list"><table class="tables"><thead><tr><th></th><th>${t("col.table")}</th><th>${t("col.status")}</th><th>${t("col.devices")}</th>
        <th>${t("col.match")}</th><th>${t("col.frame")}</th><th>${t("col.clock")}</th><th>${t("col.input")}</th><th>${t("col.refusal")}</th></tr></thead>
        <tbody>${rows.map((r) => tableRow(r, now))}</tbody></table></div>
      <aside class="side-panel">
        <nav class="tabs"><button type="button" class=${panel === "start" ? "on" : ""} onClick=${() => { panel = "start"; draw(); }}>${t("start")}</button>
          <button type="button" class=${panel === "table" ? "on" : ""} disabled=${!tb} onClick=${() => { panel = "table"; draw(); }}>${tb ? t("table", { table: tb.name }) : t("pick_table")}</button>
          <button type="button" data-tab="tonight" class=${panel === "tonight" ? "on" : ""} onClick=${() => { panel = "tonight"; draw(); }}>${t("tonight")}${link.competition ? " ●" : ""}</button>
          <button type="button" data-tab="results" class=${panel === "results" ? "on" : ""} onClick=${() => { panel = "results"; draw(); }}>${t("results")} (${link.results.size})</button></nav>
        ${sidePanel(tb, now)}
      </aside>
    </main>`;
}

async function start() {
  document.documentElement.lang = opts.lang;
  t = await deskWords(opts.lang, "the desk's");
  await link.loadSchemas();
  document.title = t("title");
  // A trusted device signs in again from the browser's store, only for this broker and venue.
  const kept = opts.otherBroker ? null : await keptLogin(TRUST_KEY, BINDING);
  if (kept) { keptTried = true; link.signIn(kept.user, kept.password); }
  // The page's "…" before its first drawing is not Preact's to keep (it would stay above the page).
  document.getElementById("desk")?.replaceChildren();
  draw();
}

start();
