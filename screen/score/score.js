// @ts-check
// The scorer's page (/score, docs/scorer.md): one table, scored from a phone with a scorer's
// login. The page only shows and sends: the table's engine decides every tap (its state and its
// answers, read back here), the broker's ACL decides who may write the table's command topic.
// What every page needs comes from shared/: the session with the broker (broker.js), the
// payloads read and checked against the contract's schemas (payloads.js), kept in the pages' one
// store (store.js: the latest of each topic, the page drawn once a frame when it tells), the
// words (i18n.js). The table's answers (`event`, `rejected`) are each taken as they come too: every
// one answers a tap, and the outbox (outbox.js) decides on each.
import { html, render } from "/score/ui.js";
import { Outbox, answerIn, verdictOf } from "/score/outbox.js";
import { Session } from "/shared/broker.js";
import { forgetLogin, keepLogin as keepInBrowser, keptLogin } from "/shared/credentials.js";
import { OTHER_BROKER, venueBroker } from "/shared/venue_broker.js";
import { loadTranslator, pickLanguage, translator } from "/shared/i18n.js";
import { loadSchemas, readPayload, textOf } from "/shared/payloads.js";
import { Store } from "/shared/store.js";
import { validate } from "/shared/validate.js";

/**
 * @typedef {import("/shared/state.js").State} State
 * @typedef {import("/shared/state.js").Clock} Clock
 * @typedef {import("/shared/i18n.js").Vars} Vars
 * @typedef {import("/shared/validate.js").Schema} Schema
 * @typedef {import("/score/outbox.js").Book} Book
 * @typedef {import("/score/outbox.js").Tap} Tap
 * @typedef {import("preact").ComponentChildren} Children
 * @typedef {{user: string, pass: string, trusted: boolean, exp?: string}} Login
 *   exp: when the card's login stops (UTC ISO 8601, the card's `exp`): a login with none was typed,
 *   or is an old card's
 * @typedef {{
 *   type: string, balls?: string[], points?: number, miss?: boolean, free_ball?: boolean,
 *   before_stroke?: boolean, striker?: number, [field: string]: unknown}} Line
 *   a tap's line as sent on the scorer's topic, and an event as the table applied it
 *   (docs/events.md): the fields this page reads; the rest it passes through
 * @typedef {{schema: number, seq: number, event: Line, id?: string, user?: string, logged?: boolean, ts: string}} Applied
 *   `<prefix>/event` (schema/event.schema.json); `logged: false` answers a command in no log
 * @typedef {{schema: number, event: object | null, reason: string, code?: string, short?: string, source: string, id?: string | null,
 *   type?: string | null, user?: string, ts: string}} Rejected `<prefix>/rejected` (schema/rejected.schema.json)
 * @typedef {{miss: boolean, free_ball: boolean, before_stroke: boolean}} Foul the calls keyed for the next foul
 * @typedef {{
 *   login: Login | null, connection: "idle" | "connecting" | "online" | "offline" | "taken", error: string, code: string,
 *   otherBroker: string | null,
 *   problem: {topic: string, text: string} | null, state: State | null, clock: Clock | null,
 *   status: string | null, sender: boolean, book: Book | null, last: Tap | null, foul: Foul,
 *   seen: Map<number, Line>, confirm: {line: Line, vars: Vars} | null}} Model
 *   error: the login refused or the card not taken, in words, and its code (data-code); otherBroker: the
 *   link's broker when it is not the server's (nothing is sent); problem: the last payload refused,
 *   until one on its topic is read
 */

const RESEND_MS = 5000; // a tap sent and not answered is sent again, same id (the table answers it once)
// A tap the table did not take yet ("send it again later": a marker keying faster than
// commands.rate, or its queue full) goes again soon, not after RESEND_MS: a token is back within
// 1/rate s (0.2 s at the default 5 a second). Doubled while the table keeps saying later.
const LATER_MS = 500;
// "Offline" within 5 s of a drop (issue 38). A Wi-Fi gone leaves the socket open with nothing on
// it: no close comes, only MQTT's keepalive finds out. mqtt.js pings after `keepalive` s without
// a packet from the broker and gives the link up half a keepalive later: 3 s says "Offline" within
// 4.5 s (at 20 s it said "Connected" for up to 30 s). A ping every 3 s is a few bytes.
const KEEPALIVE_S = 3;

// ---- settings: the address's query (never a password), config.js, then the QR card's fragment.
// The broker is the server's (config.js's desk_broker: the pages' listener), never the link's: a
// card or link naming another broker is refused with words and nothing is sent (shared/venue_broker.js).
const query = new URLSearchParams(location.search);
const defaults = /** @type {{CUEBOARD_SCREEN?: import("../options.js").Config}} */ (/** @type {unknown} */ (window)).CUEBOARD_SCREEN || {};
// The installed app opens at /score with no query: the table it was installed for, kept here.
const SETTINGS_KEY = "cueboard-score-settings";
/** @type {{[name: string]: unknown}} */
const remembered = (() => {
  try {
    const kept = JSON.parse(localStorage.getItem(SETTINGS_KEY) || "{}");
    return kept && typeof kept === "object" ? kept : {};
  } catch { return {}; }
})();
const where = venueBroker(defaults, "desk_broker", `wss://${location.hostname || "localhost"}:8885`, query.get("broker"));
const fromQuery = !where.other && query.get("venue") && query.get("table");
/** @param {unknown} value */
const asText = (value) => (typeof value === "string" ? value : "");
/** @param {string} name @param {unknown} fallback */
const pick = (name, fallback) => query.get(name) || (fromQuery ? "" : asText(remembered[name])) || asText(fallback);
const settings = {
  broker: where.broker,
  venue: pick("venue", defaults.venue),
  table: pick("table", defaults.table),
  lang: pick("lang", defaults.lang) || (navigator.language || "en").slice(0, 2),
};
if (fromQuery) localStorage.setItem(SETTINGS_KEY, JSON.stringify({ venue: settings.venue, table: settings.table, lang: settings.lang }));
settings.lang = pickLanguage(settings.lang);
const prefix = `cueboard/${settings.venue}/${settings.table}`;
const place = `${settings.venue}/${settings.table}`;
// A kept login, the last state and the last refusal are this broker's and this table's: a login
// is never offered to another broker.
const bound = `${settings.broker}|${place}`;
const LOGIN_KEY = `cueboard-score-login:${bound}`; // a card's login, until its exp
const TRUSTED_KEY = `cueboard-score-trusted:${bound}`; // a typed login's marker (shared/credentials.js)
const REFUSED_KEY = `cueboard-score-refused:${bound}`; // why the last login was refused, for the form after the reload
let everOnline = false; // the login got in since the page loaded
const STATE_KEY = `cueboard-score-state:${bound}`;
const MAX_TIMER_MS = 2 ** 31 - 1; // setTimeout's longest wait; a card's exp further off is waited for in steps

/** A login as kept or carried: a user and a password, or null. @param {unknown} value @returns {Login | null} */
function asLogin(value) {
  if (!value || typeof value !== "object") return null;
  const { user, pass, trusted, exp } = /** @type {{user?: unknown, pass?: unknown, trusted?: unknown, exp?: unknown}} */ (value);
  if (!(typeof user === "string" && user && typeof pass === "string" && pass)) return null;
  return { user, pass, trusted: trusted === true, ...(typeof exp === "string" ? { exp } : {}) };
}

/** Whether a card's `exp` has passed (an unreadable one has). @param {string} exp */
const expired = (exp) => !(Date.parse(exp) > Date.now());

/**
 * The QR card's login, from the fragment (#user=..&pass=..&trust=1&exp=..): a fragment never
 * leaves the phone (not sent to the server, not in its log). It is wiped from the address at once.
 * A card for another broker, an expired card or one whose exp is not a date is not taken: why, in
 * `notTaken` (the words' key and the code).
 * @returns {{login: Login | null, notTaken: {key: string, code: string, exp: string} | null}}
 */
function loginFromFragment() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const user = fragment.get("user");
  const pass = fragment.get("pass");
  const exp = fragment.get("exp");
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  if (!user || !pass || where.other) return { login: null, notTaken: null };
  if (exp !== null && Number.isNaN(Date.parse(exp))) return { login: null, notTaken: { key: "card_unreadable", code: "card-exp-unreadable", exp } };
  if (exp !== null && expired(exp)) return { login: null, notTaken: { key: "card_expired", code: "card-expired", exp } };
  return { login: { user, pass, trusted: fragment.get("trust") === "1", ...(exp !== null ? { exp } : {}) }, notTaken: null };
}

/** A card's login kept for this broker and table, forgotten once its exp has passed (said on the form). */
function storedLogin() {
  for (const store of [localStorage, sessionStorage]) {
    try {
      const login = asLogin(JSON.parse(store.getItem(LOGIN_KEY) || "null"));
      if (login && login.exp && !expired(login.exp)) return login;
      if (login) { // an old card's (no exp: kept no more) or an expired card's: forgotten
        store.removeItem(LOGIN_KEY);
        if (login.exp) {
          model.error = t("card_expired", { exp: login.exp });
          model.code = "card-expired";
        }
      }
    } catch { store.removeItem(LOGIN_KEY); }
  }
  return null;
}

/** @param {Login} login */
function keepLogin(login) {
  // A card's login (it has an exp) is kept until then: on a device its owner trusts after the tab
  // closes (localStorage), otherwise in this tab (sessionStorage), so a reload does not sign out.
  // A login with no exp (typed, or an old card's) is never kept in web storage: a trusted device
  // hands it to the browser's password store once the broker lets it in (shared/credentials.js).
  localStorage.removeItem(LOGIN_KEY);
  sessionStorage.removeItem(LOGIN_KEY);
  if (login.exp) (login.trusted ? localStorage : sessionStorage).setItem(LOGIN_KEY, JSON.stringify(login));
}

/** Forget the kept login, on this phone: signing out, a refusal, the card's exp. */
function forgetKept() {
  localStorage.removeItem(LOGIN_KEY);
  sessionStorage.removeItem(LOGIN_KEY);
  forgetLogin(TRUSTED_KEY);
}

/** What the page received from the table (shared/store.js): the page is drawn when it tells. */
const store = new Store();
store.subscribe(fromStore);

/** @type {Model} */
const model = {
  login: null, connection: "idle", error: "", code: "", otherBroker: where.other, problem: null, state: null, clock: null, status: null, sender: false,
  book: null, last: null, foul: { miss: false, free_ball: false, before_stroke: false }, seen: new Map(), confirm: null,
};
try { // said once, on the form
  const said = JSON.parse(sessionStorage.getItem(REFUSED_KEY) || "null");
  if (said && typeof said.error === "string") { model.error = said.error; model.code = String(said.code || ""); }
} catch { /* not ours: nothing to say */ }
sessionStorage.removeItem(REFUSED_KEY);

/**
 * A payload refused, or a file that could not be loaded (shared/payloads.js, shared/i18n.js say
 * why): shown under the board until a good payload comes on that topic, and in the console.
 * @param {string} text @param {string} [topic]
 */
function problem(text, topic = "") {
  model.problem = { topic, text };
  console.warn(text);
  draw();
}

// ---- words: the scorer's own first, then the screen's (balls, frames), then English (shared/i18n.js)
let say = translator("en", null, null);
/** @param {string} key @param {Vars} [vars] */
const t = (key, vars) => say(key, vars);
/** @type {Record<string, Schema>} the contract's schemas (schema/, served in /vendor/), what the table sends is checked against */
let schemas = {};

// ---- the outbox, shared by the tabs of this login at this table under a Web Lock
/** @type {Outbox | null} */
let outbox = null;
/** @template T @param {string} name @param {() => T} fn @returns {Promise<T>} */
const withLock = (name, fn) => (navigator.locks ? navigator.locks.request(name, fn) : Promise.resolve(fn()));

/** The login and its outbox: set by start(), before anything that sends or keeps a tap. */
function signedIn() {
  if (!model.login || !outbox) throw new Error("the scorer is not signed in");
  return { login: model.login, outbox };
}
const bookLock = () => `cueboard-score-book:${place}:${signedIn().login.user}`;

/** @template T @param {(box: Outbox) => T} fn */
async function changeBook(fn) {
  const box = signedIn().outbox;
  const result = await withLock(bookLock(), () => fn(box));
  model.book = box.read();
  draw();
  pump();
  return result;
}

// ---- MQTT
/** @type {Session | null} */
let session = null;
/** @type {{id: string, at: number} | null} */
let inflight = null; // the tap this tab sent last and waits for
/** @type {ReturnType<typeof setTimeout> | undefined} */
let resendTimer;
let laterInARow = 0; // "send it again later" answers since the last tap answered

/** @param {Login} login */
function connect({ user, pass }) {
  model.connection = "connecting";
  // The shared session (shared/broker.js). A refused login is the scorer's to act on; a lost
  // connection is shown by the badge (and the session tries again by itself), not as a technical message.
  // The table shows this phone on its devices (scorer:<login>: ok or lost): present while
  // connected, and the broker says it is gone (the last will) when the connection drops.
  const presence = `${prefix}/score/${user}/presence`;
  const link = new Session({ broker: settings.broker, who: user, user, password: pass, v5: true, reconnectMs: 2000,
    connectTimeoutMs: 8000, keepalive: KEEPALIVE_S, stopWhenRefused: false,
    extra: { will: { topic: presence, payload: JSON.stringify({ schema: 1, online: false }), qos: 1, retain: true } } }, {
    topics: () => [`${prefix}/state`, `${prefix}/event`, `${prefix}/rejected`, `${prefix}/status`],
    message: (topic, payload, packet) => received(topic, payload, packet),
    link: (state) => {
      if (state === "online") {
        link.publish(presence, JSON.stringify({ schema: 1, online: true, ts: new Date().toISOString() }), { qos: 1, retain: true });
        model.connection = "online";
        model.error = "";
        if (!everOnline && model.login && model.login.trusted && !model.login.exp) {
          keepInBrowser(TRUSTED_KEY, { broker: settings.broker, place }, { user: model.login.user, password: model.login.pass });
        }
        everOnline = true;
        becomeSender(); // again after a taken session was taken back (else it holds or waits already)
        callSent = callSent === NO_CALL ? NO_CALL : null; // a call shown before the drop: shown again, or ended
        sendCall();
        inflight = null; // whatever was in flight is sent again, same id
        pump();
      } else if (state === "refused") {
        model.error = t("bad_login");
        model.code = "login-refused";
        // Refused (a typo, a card expired or revoked): forgotten on this phone at once, so nothing
        // tries it again. One that never got in since the page loaded: back to the form, saying
        // why. One refused after it was in keeps the board and its taps in view, with the error
        // and the way out (sign out).
        forgetKept();
        if (!everOnline) {
          sessionStorage.setItem(REFUSED_KEY, JSON.stringify({ error: model.error, code: model.code }));
          signOut();
        }
      }
      else if (state === "taken") {
        // Another tab or phone signed in with this login and took the session (one login per
        // device): not tried again by itself, or the two would throw each other off for ever.
        // The login stays good, so nothing kept is forgotten; taps wait; one button takes it back.
        model.connection = "taken";
        model.error = t("taken");
        model.code = "session-taken";
        inflight = null;
        if (leaveSender) leaveSender(); // another tab of this login may hold the session now: it sends
      }
      else if (state === "connecting" && model.connection === "taken") { model.connection = "connecting"; model.error = ""; }
      else if (state === "offline") { model.connection = "offline"; inflight = null; }
      draw();
    },
  });
  session = link;
}

/**
 * A message read into the store (the page drawn from it at the next frame, `fromStore`): the
 * table's status as its text, its state, events and refusals checked against their schemas (one
 * that does not fit is said, and not kept). Each answer is taken at once as well: two in one
 * frame are two taps answered, not one topic's latest.
 * @param {string} topic @param {Uint8Array} payload @param {{retain?: boolean}} [packet]
 */
function received(topic, payload, packet) {
  const kind = topic.slice(prefix.length + 1);
  const retained = Boolean(packet && packet.retain);
  if (kind === "status") {
    store.put(topic, textOf(payload).trim(), retained); // "online" or "offline", plain text (docs/mqtt.md)
  } else if (kind === "state" || kind === "event" || kind === "rejected") {
    const read = readPayload(topic, payload, schemas[kind]);
    if (read.problem !== undefined) { problem(read.problem, topic); return; }
    if (model.problem && model.problem.topic === topic) model.problem = null;
    store.put(topic, read.value, retained);
    if (read.value === null) return; // a retained topic cleared
    if (kind === "state") {
      // Shown again at once after a reload with no connection (marked offline by the badge).
      localStorage.setItem(STATE_KEY, textOf(payload));
    } else if (kind === "event") {
      onEvent(/** @type {Applied} */ (read.value));
    } else {
      onRejected(/** @type {Rejected} */ (read.value));
    }
  }
}

/**
 * The store told what changed since the last frame: the table's latest state and status taken
 * into the model (a cleared state leaves the last one shown), and the page drawn.
 * @param {Map<string, import("/shared/store.js").Entry>} changed
 */
function fromStore(changed) {
  const state = changed.get(`${prefix}/state`);
  if (state && state.value) {
    model.state = /** @type {State} */ (state.value);
    model.clock = model.state.clock || null;
  }
  const status = changed.get(`${prefix}/status`);
  if (status) model.status = /** @type {string | null} */ (status.value);
  render(html`<${App} />`, /** @type {HTMLElement} */ (document.getElementById("app")));
}

/** A line or an event in the scorer's words ("Pot 2 reds Blue"). @param {Line | undefined} event */
function describe(event) {
  if (!event) return "";
  const type = event.type;
  if (type === "pot") {
    const balls = event.balls || [];
    const reds = balls.filter((b) => b === "red").length;
    const rest = balls.filter((b) => b !== "red").map((b) => ballName(b));
    return [t("tap.pot"), reds > 1 ? t("reds_n", { n: reds }) : reds ? ballName("red") : "", ...rest].filter(Boolean).join(" ");
  }
  if (type === "foul") {
    const bits = [t("tap.foul")];
    if (event.points) bits.push(String(event.points));
    if (event.miss) bits.push(t("tap.miss"));
    if (event.free_ball) bits.push(t("tap.free_ball"));
    if (event.before_stroke) bits.push(t("tap.before_stroke"));
    if (event.balls) bits.push(...event.balls.map(ballName));
    return bits.join(" · ");
  }
  return t(`tap.${type}`);
}

/** @param {string} b */
const ballName = (b) => t(`ball.${b}`);

/** @param {Applied} msg */
function onEvent(msg) {
  const event = msg.event;
  const seq = msg.seq;
  // What undo takes back: the event that made the state after `seq` (seen here as it was applied).
  /** @type {Line | null} */
  let answer = null;
  if (msg.logged === false) { // the answer to a command in no log (the clock's): no stroke of the frame
    if (msg.id && model.login && outbox) answered(msg.id, "applied", null, null);
    return;
  }
  if (event.type === "undo") answer = model.seen.get(seq + 1) || null;
  else if (event.type === "redo") answer = model.seen.get(seq) || null;
  else model.seen.set(seq, event);
  // The table ends this login's call when one of its lines is applied: a call still being
  // keyed here (toggles on while an earlier tap was answered) is shown again.
  if (model.login && msg.user === model.login.user) { callSent = NO_CALL; sendCall(); }
  if (msg.id && model.login && outbox) answered(msg.id, "applied", null, answer ? describe(answer) : null);
}

/** @param {Rejected} msg */
function onRejected(msg) {
  if (!msg.id || !outbox) return;
  const { verdict, reason } = verdictOf(msg);
  if (verdict === "later") {
    if (inflight && inflight.id === msg.id) inflight = null; // not taken: sent again shortly, same id
    scheduleResend(Math.min(RESEND_MS, LATER_MS * 2 ** laterInARow));
    laterInARow += 1;
    return;
  }
  answered(msg.id, verdict, reason, null);
}

/**
 * The table's answer to one of this login's taps, kept in the book.
 * @param {string} id @param {"applied" | "refused"} verdict @param {string | null} reason @param {string | null} tookBack
 */
function answered(id, verdict, reason, tookBack) {
  // Drawn at once, not at the next frame: the answer is what the scorer waits for, and one comes
  // per tap (the store's frame is for the flood of states). The state the table sent before its
  // answer (cueboard/table/daemon.py publishes the state, then the event) is taken from the store
  // with it. The book (shared with this login's other tabs) keeps the answer under its lock just after.
  if (inflight && inflight.id === id) inflight = null;
  const book = model.book && structuredClone(model.book);
  const tap = book && answerIn(book, id, verdict, reason, tookBack);
  if (tap) {
    model.book = book;
    model.last = tap;
    store.touch();
    store.flush();
  }
  changeBook((box) => {
    const tap = box.answer(id, verdict, reason, tookBack);
    if (tap) model.last = tap;
  });
  laterInARow = 0;
}

/** @param {number} [ms] */
function scheduleResend(ms = RESEND_MS) {
  clearTimeout(resendTimer);
  resendTimer = setTimeout(() => { inflight = null; pump(); }, ms);
}

// One tab sends (the one holding the sender lock); the others show and add taps to the book.
async function pump() {
  if (!model.sender || !session || !session.online || inflight) return;
  const box = signedIn().outbox;
  await withLock(bookLock(), () => sendHead(box));
  model.book = box.read();
  draw();
}

/** The book's next tap sent, if this tab sends and none is in flight: called under the book's lock. @param {Outbox} box */
function sendHead(box) {
  if (!model.sender || !session || !session.online || inflight || !model.login) return;
  const head = box.head();
  if (!head) return;
  inflight = { id: head.id, at: Date.now() };
  box.mark(head.id, "sent");
  // A scorer's own topic: the broker lets its login write only this one, and the table takes
  // from it what a marker keys (docs/mqtt.md, Roles).
  session.publish(`${prefix}/score/${model.login.user}`, JSON.stringify(head.line), { qos: 1 });
  scheduleResend();
}

/** @type {(() => void) | null} */
let leaveSender = null; // lets the sender lock go: this tab's session was taken
let senderWanted = false; // this tab holds the sender lock or waits for it

/**
 * This tab sends the login's taps while it holds the lock (held while the tab lives), unless its
 * session is taken: then another tab of this login may have the session, and sends them.
 */
function becomeSender() {
  if (senderWanted) return;
  senderWanted = true;
  withLock(`cueboard-score-sender:${place}:${signedIn().login.user}`, () => {
    if (model.connection === "taken") { senderWanted = false; return undefined; }
    model.sender = true;
    pump();
    return new Promise((resolve) => {
      leaveSender = () => { leaveSender = null; model.sender = false; senderWanted = false; resolve(undefined); };
    });
  });
}

/** @param {Line} line */
async function tap(line) {
  const login = model.login;
  if (!login) return;
  if (navigator.vibrate) navigator.vibrate(15);
  // A foul's calls (miss, free ball, before the stroke) are for that foul only.
  if (line.type === "foul") { model.foul = { miss: false, free_ball: false, before_stroke: false }; sendCall(); }
  // Kept and sent under one turn of the book's lock (a Web Lock is a round trip to the browser):
  // the tap is in storage before it goes, as ever.
  await changeBook((box) => { box.add(login.user, line, describe(line), Date.now()); sendHead(box); });
}

// ---- the call being keyed: shown on the table's boards and its `input` as a keypad's is
// (docs/scorer.md). Only the foul's calls (miss, free ball, before the stroke) are keyed in
// parts here; every other key is a whole line. Keys in the keypad's legends
// (cueboard/games/key_sequences.py LEGENDS), in the order of the keys on the page. A call is not a
// stroke: no id, never in the outbox, never a tap; offline it is simply not sent (QoS 0, and
// only while connected, so nothing stale is queued for later).
const NO_CALL = "[]";
/** @type {[keyof Foul, string][]} */
const CALL_KEYS = [["miss", "MISS"], ["free_ball", "FREE BALL"], ["before_stroke", "BEFORE STROKE"]];
/** @type {string | null} */
let callSent = NO_CALL; // the keys the table was last sent (JSON), null: not known since the connection

function callKeys() {
  const s = model.state;
  if (!s || s.game !== "snooker") return [];
  return CALL_KEYS.filter(([k]) => model.foul[k]).map(([, legend]) => legend);
}

function sendCall() {
  if (!model.login || !session || !session.online) return;
  const keys = callKeys();
  const json = JSON.stringify(keys);
  if (json === callSent) return;
  const line = keys.length ? { type: "call", keys, needs: "the foul's value (4 to 7)" } : { type: "call", keys: [] };
  session.publish(`${prefix}/score/${model.login.user}`, JSON.stringify(line), { qos: 0 });
  callSent = json;
}

// ---- what the table allows now (offered first; the rest stays reachable, the table decides)
/** @param {State} s */
function snookerAllows(s) {
  const over = s.frame_over;
  return {
    red: !over && (s.ball_on === "red" || (!!s.free_ball && (s.reds ?? 0) > 0)),
    /** @param {string} c */
    colour: (c) => !over && (s.ball_on === "colour" || s.ball_on === c),
    free: !over && !!s.free_ball,
  };
}

// ---- drawing
function Header() {
  const conn = model.connection === "online" ? (model.status === "offline" ? "table_offline" : "online") : model.connection;
  return html`<header class="bar">
    <span class="where">${settings.table}</span>
    <span class=${`conn ${conn}`} data-connection=${conn}>${t(`conn.${conn}`)}</span>
    <span class="who">${model.login ? model.login.user : ""}</span>
    ${model.state ? "" : html`<span class="hint">${t("waiting_state")}</span>`}
  </header>`;
}

function clockText() {
  const c = model.clock;
  if (!c) return null;
  if (c.running && c.ends_at) return `${Math.max(0, Math.ceil((Date.parse(c.ends_at) - Date.now()) / 1000))} s`;
  if (c.left == null) return null;
  return c.paused ? `${Math.ceil(c.left)} s ${t("held")}` : `${Math.ceil(c.left)} s`;
}

function Board() {
  const s = model.state;
  if (!s || !s.sides) return html`<section class="board empty">${t("no_match")}</section>`;
  const snooker = s.game === "snooker";
  /** @type {[string, string, string | number | undefined][]} the fact's class, its label, its value */
  const facts = [];
  if (snooker) {
    facts.push(["break", t("break"), s.break]);
    facts.push(["remaining", t("remaining"), s.remaining]);
    if (s.ball_on) facts.push(["ball_on", t("ball_on"), s.ball_on === "colour" ? t("ball.colour") : ballName(s.ball_on)]);
    const need = s.snookers_required;
    if (need) {
      const name = s.sides[need.side].name;
      facts.push(["snookers", "", need.count == null ? t("cannot_win", { name }) : t("snookers", { name, n: need.count })]);
    }
    if (s.free_ball) facts.push(["free_ball", t("free_ball"), "✓"]);
  } else {
    facts.push(["frame", "", t("frame", { n: s.frame })]);
    if (s.open_table) facts.push(["open", t("open_table"), "✓"]);
    if (s.visits) facts.push(["visits", t("visits"), s.visits]);
    if (s.free_shot) facts.push(["free_shot", t("free_shot"), "✓"]);
    if (s.black_on) facts.push(["black_on", t("black_on"), "✓"]);
  }
  const clock = clockText();
  if (clock) facts.push(["clock", t("shot_clock"), clock]);
  const ended = s.frame_over && s.frame_winner != null ? t("frame_won", { name: s.sides[s.frame_winner].name }) : null;
  return html`<section class="board" data-game=${s.game}>
    <div class="sides">
      ${s.sides.map((side, i) => html`<div class=${`side${s.striker === i ? " striker" : ""}`} data-side=${i}>
        <div class="name">${s.striker === i ? "▶ " : ""}${side.name}${!snooker && side.group ? html` <i class=${`group ${side.group}`}>${t(`group.${side.group}`)} ${side.balls_left}</i>` : ""}</div>
        <div class="score">${snooker ? side.score : side.frames}</div>
        <div class="frames">${snooker ? `${t("frames")} ${side.frames}` : t("frames")}</div>
      </div>`)}
    </div>
    <div class="facts">${facts.map(([k, label, value]) => html`<span class=${`fact ${k}`}><small>${label}</small> <b>${value}</b></span>`)}</div>
    ${ended ? html`<div class="ended">${ended}</div>` : ""}
  </section>`;
}

/**
 * A key that sends one line; with `confirm` (the question's words), only once the scorer says yes.
 * @param {{line: Line, label: Children, cls?: string, offered?: boolean, sub?: string, confirm?: Vars | null}} props
 */
function Key({ line, label, cls = "", offered = true, sub = "", confirm = null }) {
  const press = () => { if (confirm) { model.confirm = { line, vars: confirm }; draw(); } else tap(line); };
  return html`<button type="button" class=${`key ${cls}${offered ? "" : " later"}`} data-tap=${JSON.stringify(line)}
    onClick=${press}>${label}${sub ? html`<small>${sub}</small>` : ""}</button>`;
}

/**
 * The question a frame's end asks before it is sent (issue 38: a frame of a final was conceded
 * for the wrong player): which frame, who concedes or claims it (the striker: the rules' Concede
 * and Claim are the striker's), and who it goes to. Named so the scorer sees a wrong striker.
 * @param {State} s @returns {Vars}
 */
function ending(s) {
  const striker = s.striker ?? 0;
  return { frame: s.frame, name: s.sides[striker]?.name ?? "", other: s.sides[1 - striker]?.name ?? "" };
}

/** The question asked before a frame's end is sent: yes sends it, no sends nothing. */
function Confirm() {
  const asked = model.confirm;
  if (!asked) return "";
  const answer = (/** @type {boolean} */ yes) => { model.confirm = null; if (yes) tap(asked.line); else draw(); };
  const question = t(`confirm.${asked.line.type}`, asked.vars);
  return html`<div class="confirm" role="alertdialog" aria-label=${question} data-type=${asked.line.type}>
    <p>${question}</p>
    <button type="button" class="key yes" onClick=${() => answer(true)}>${t(`confirm.yes_${asked.line.type}`, asked.vars)}</button>
    <button type="button" class="key no" onClick=${() => answer(false)}>${t("confirm.no")}</button>
  </div>`;
}

/** The desk's message to this table (the state's `message`, as the boards show it), until its time is over. */
function Message() {
  const m = model.state && model.state.message;
  if (!m || (m.until && Date.parse(m.until) <= Date.now())) return "";
  return html`<p class="message" role="status">✉ ${m.text}</p>`;
}

/** @type {[string, number][]} the colours and their values */
const COLOURS = [["yellow", 2], ["green", 3], ["brown", 4], ["blue", 5], ["pink", 6], ["black", 7]];
/** The least a foul on the ball on costs (Section 3 Rule 12): 4, or the ball on's value when higher. @type {Record<string, number>} */
const LEAST_FOUL = { yellow: 4, green: 4, brown: 4, blue: 5, pink: 6, black: 7 };
/** @param {string} ball */
const letter = (ball) => t(`ball_letter.${ball}`); // the language's own initial (J for jaune)

// A ball's key: its letter and its name, never its colour alone (one line on a phone held
// upright, two when the keys are narrow).
/** @param {string} initial @param {string} name */
const ballLabel = (initial, name) => html`<span class="lbl"><b>${initial}</b><span class="dot"> · </span><span class="bname">${name}</span></span>`;

/** @param {{s: State}} props */
function SnookerKeys({ s }) {
  const allows = snookerAllows(s);
  const f = model.foul;
  /** @param {keyof Foul} k */
  const toggle = (k) => () => { model.foul = { ...f, [k]: !f[k] }; sendCall(); draw(); };
  /** @param {number} points @returns {Line} */
  const foulLine = (points) => ({ type: "foul", points, ...(f.miss ? { miss: true } : {}),
    ...(f.free_ball ? { free_ball: true } : {}), ...(f.before_stroke ? { before_stroke: true } : {}) });
  const least = (s.ball_on && LEAST_FOUL[s.ball_on]) || 4;
  const lastSeen = model.seen.get(s.seq); // the event that made this state, when seen here
  const afterFoul = !!lastSeen && lastSeen.type === "foul";
  return html`<div class="keys snooker">
    <div class="row reds">
      ${[1, 2, 3].map((n) => html`<${Key} cls="ball red" line=${{ type: "pot", balls: Array.from({ length: n }, () => "red") }}
        label=${n === 1 ? ballLabel(letter("red"), ballName("red")) : `${n} × ${letter("red")}`} offered=${allows.red} />`)}
    </div>
    <div class="row colours">
      ${COLOURS.map(([c, v]) => html`<${Key} cls=${`ball ${c}`} line=${{ type: "pot", balls: [c] }}
        label=${ballLabel(letter(c), ballName(c))} sub=${String(v)} offered=${allows.colour(c)} />`)}
    </div>
    <div class="row strokes">
      <${Key} cls="plain" line=${{ type: "no_pot" }} label=${t("tap.no_pot")} offered=${!s.frame_over} />
      <${Key} cls="ball free" line=${{ type: "pot", balls: ["free"] }} label=${t("tap.pot_free")} offered=${allows.free} />
    </div>
    <div class="row foul">
      <button type="button" class=${`toggle${f.miss ? " on" : ""}`} aria-pressed=${f.miss} onClick=${toggle("miss")}>${f.miss ? "✓" : "+"} ${t("tap.miss")}</button>
      <button type="button" class=${`toggle${f.free_ball ? " on" : ""}`} aria-pressed=${f.free_ball} onClick=${toggle("free_ball")}>${f.free_ball ? "✓" : "+"} ${t("tap.free_ball")}</button>
      <button type="button" class=${`toggle${f.before_stroke ? " on" : ""}`} aria-pressed=${f.before_stroke} onClick=${toggle("before_stroke")}>${f.before_stroke ? "✓" : "+"} ${t("tap.before_stroke")}</button>
    </div>
    <div class="row foul values">
      ${[4, 5, 6, 7].map((p) => html`<${Key} cls="foul" line=${foulLine(p)} label=${`${t("tap.foul")} ${p}`} offered=${!s.frame_over && p >= least} />`)}
    </div>
    <div class="row after">
      <${Key} cls="plain" line=${{ type: "play_again" }} label=${t("tap.play_again")} offered=${afterFoul} />
      <${Key} cls="plain" line=${{ type: "replace" }} label=${t("tap.replace")} offered=${afterFoul && !!lastSeen?.miss} />
    </div>
    <div class="row end">
      <${Key} cls="plain" line=${{ type: "concede" }} label=${t("tap.concede")} offered=${!s.frame_over} confirm=${ending(s)} />
      <${Key} cls="plain" line=${{ type: "claim" }} label=${t("tap.claim")} offered=${!s.frame_over && s.reds === 0 && (s.colours || []).length === 1} confirm=${ending(s)} />
      ${s.respotted_black && s.striker == null
        ? s.sides.map((side, i) => html`<${Key} cls="plain" line=${{ type: "respotted_black", striker: i }} label=${`${t("tap.respotted_black")}: ${side.name}`} />`)
        : ""}
      <${Key} cls="plain next" line=${{ type: "next_frame" }} label=${t("tap.next_frame")} offered=${s.frame_over && !s.match_over} />
    </div>
  </div>`;
}

/** @param {{s: State}} props */
function BlackballKeys({ s }) {
  const over = s.frame_over;
  const mine = s.sides[s.striker ?? 0]?.group;
  const theirs = mine === "red" ? "yellow" : mine === "yellow" ? "red" : null;
  /** @param {string} g @param {string} label */
  const groupKey = (g, label) => html`<${Key} cls=${`ball ${g}`} line=${{ type: "pot", balls: [g] }}
    label=${ballLabel(letter(g), label)} offered=${!over && (!mine || g === mine || s.free_shot)} />`;
  return html`<div class="keys blackball">
    <div class="row colours">
      ${groupKey(mine || "red", mine ? `${t("own_ball")} (${ballName(mine)})` : ballName("red"))}
      ${groupKey(theirs || "yellow", theirs ? `${t("opponent_ball")} (${ballName(theirs)})` : ballName("yellow"))}
      <${Key} cls="ball black" line=${{ type: "pot", balls: ["black"] }} label=${ballLabel(letter("black"), ballName("black"))} offered=${!over && s.black_on} />
    </div>
    <div class="row strokes">
      <${Key} cls="plain" line=${{ type: "no_pot" }} label=${t("tap.no_pot")} offered=${!over} />
      <${Key} cls="foul" line=${{ type: "foul" }} label=${t("tap.foul")} offered=${!over} />
      <${Key} cls="foul" line=${{ type: "loss" }} label=${t("tap.loss")} offered=${!over} />
    </div>
    <div class="row clock">
      <${Key} cls="plain" line=${{ type: "clock" }} label=${t("tap.clock")} offered=${!over && !(model.clock && model.clock.running)} />
      <${Key} cls="plain" line=${{ type: "clock_hold" }} label=${t("tap.clock_hold")} offered=${!!(model.clock && model.clock.running)} />
      <${Key} cls="plain" line=${{ type: "clock_resume" }} label=${t("tap.clock_resume")} offered=${!!(model.clock && model.clock.paused)} />
    </div>
    <div class="row end">
      <${Key} cls="plain" line=${{ type: "rerack" }} label=${t("tap.rerack")} offered=${!over} />
      <${Key} cls="plain next" line=${{ type: "next_frame" }} label=${t("tap.next_frame")} offered=${over && !s.match_over} />
    </div>
  </div>`;
}

function Answers() {
  const book = model.book;
  if (!book) return "";
  const pending = book.taps.filter((x) => x.status === "waiting" || x.status === "sent");
  const last = [...book.taps].reverse().find((x) => x.status === "applied" || x.status === "refused");
  return html`<section class="answers">
    ${last ? html`<div class=${`last ${last.status}`} data-status=${last.status} data-id=${last.id}>
      <b>${last.label}</b>: ${last.status === "applied"
        ? (last.answer ? t(last.line.type === "undo" ? "undid" : "redid", { what: last.answer }) : t("applied"))
        : `${t("refused")}: ${last.reason}`}
    </div>` : ""}
    ${book.held ? html`<div class="held" role="alert">
      <p>${t("held_after_refusal", { n: pending.length })}</p>
      <button type="button" class="key send" onClick=${() => changeBook((b) => b.release(true))}>${t("send_them")}</button>
      <button type="button" class="key drop" onClick=${() => changeBook((b) => b.release(false))}>${t("drop_them")}</button>
    </div>` : ""}
    ${pending.length ? html`<div class="waiting">
      <ol class="pending" aria-label=${t("waiting_taps")}><li class="count">${t("n_waiting", { n: pending.length })}</li>
      ${pending.map((x) => html`<li data-id=${x.id} data-status=${x.status}>${x.label}</li>`)}
    </ol></div>` : ""}
  </section>`;
}

function Problem() {
  return model.problem ? html`<p class="problem">${model.problem.text}</p>` : "";
}

/** A link or card naming another broker than the server's: said, nothing sent, no form to type into. */
function OtherBroker() {
  return html`<section class="login other-broker">
    <h1>${t("title", { table: settings.table })}</h1>
    <p class="error" role="alert" data-code=${OTHER_BROKER}>${t("other_broker", { other: model.otherBroker, broker: settings.broker })}</p>
  </section>`;
}

function Login() {
  /** @param {SubmitEvent} e */
  const submit = (e) => {
    e.preventDefault();
    const form = new FormData(/** @type {HTMLFormElement} */ (e.currentTarget));
    start({ user: String(form.get("user") ?? "").trim(), pass: String(form.get("pass") ?? ""), trusted: form.get("trusted") !== null });
  };
  return html`<form class="login" onSubmit=${submit}>
    <h1>${t("title", { table: settings.table })}</h1>
    ${model.error ? html`<p class="error" role="alert" data-code=${model.code}>${model.error}</p>` : ""}
    <${Problem} />
    <label>${t("user")} <input name="user" autocomplete="username" required /></label>
    <label>${t("password")} <input name="pass" type="password" autocomplete="current-password" required /></label>
    <label class="check"><input name="trusted" type="checkbox" /> ${t("trust_device")}</label>
    <button class="key" type="submit">${t("sign_in")}</button>
  </form>`;
}

function App() {
  if (model.otherBroker) return html`<${OtherBroker} />`;
  if (!settings.broker || !settings.venue || !settings.table) {
    return html`<p class="error" role="alert">${t("no_settings")}</p>`;
  }
  if (!model.login) return html`<${Login} />`;
  const s = model.state;
  return html`<${Header} />
    <main class="scorer">
      <${Message} />
      <${Board} />
      <${Confirm} />
      ${model.error ? html`<p class="error" role="alert" data-code=${model.code}>${model.error}</p>` : ""}
      ${model.connection === "taken" ? html`<button type="button" class="key take-back" onClick=${() => session && session.takeBack()}>${t("take_back")}</button>` : ""}
      <${Problem} />
      <${Answers} />
      ${s && s.game === "blackball" ? html`<${BlackballKeys} s=${s} />` : s && s.sides ? html`<${SnookerKeys} s=${s} />` : ""}
      <div class="corrections">
        <${Key} cls="plain undo" line=${{ type: "undo" }} label=${`↶ ${t("tap.undo")}`} />
        <${Key} cls="plain redo" line=${{ type: "redo" }} label=${`↷ ${t("tap.redo")}`} />
      </div>
      <button type="button" class="signout" onClick=${signOut}>${t("sign_out")}</button>
    </main>`;
}

/** The page drawn again at the next frame (with whatever the store tells then): the store's turn, once. */
function draw() {
  store.touch();
}

function signOut() {
  forgetKept();
  location.reload();
}

/**
 * A card's login stops at its exp: forgotten then, the session closed, and the scorer told on the
 * form to scan a new card (the broker stops taking it as well: cueboard venue's cards, docs/security.md).
 * @param {Login} login
 */
function expireAt(login) {
  if (!login.exp) return;
  const exp = login.exp;
  const wait = () => {
    const left = Date.parse(exp) - Date.now();
    if (left > 0) { setTimeout(wait, Math.min(left, MAX_TIMER_MS)); return; }
    forgetKept();
    if (session) session.end();
    sessionStorage.setItem(REFUSED_KEY, JSON.stringify({ error: t("card_expired", { exp }), code: "card-expired" }));
    location.reload();
  };
  wait();
}

/** The state kept from the last visit, if it still fits the schema (a reload with no connection shows it). */
function keptState() {
  try {
    const state = JSON.parse(localStorage.getItem(STATE_KEY) || "null");
    return state && typeof state === "object" && !validate(schemas.state, state).length ? /** @type {State} */ (state) : null;
  } catch { return null; }
}

/** A typed login the browser's password store keeps for this broker and table (a trusted device), or null. */
async function typedLogin() {
  const kept = await keptLogin(TRUSTED_KEY, { broker: settings.broker, place });
  return kept ? { user: kept.user, pass: kept.password, trusted: true } : null;
}

/** @param {Login} login */
function start(login) {
  model.login = login;
  model.state = keptState();
  keepLogin(login);
  const box = new Outbox(localStorage, `cueboard-score-taps:${place}:${login.user}`);
  outbox = box;
  model.book = box.read();
  window.addEventListener("storage", (e) => {
    if (e.key === box.key) { model.book = box.read(); draw(); pump(); }
  });
  becomeSender();
  expireAt(login);
  connect(login);
  keepAwake();
  draw();
}

async function keepAwake() {
  // A marker's phone must not sleep between strokes (Screen Wake Lock, where the browser has it).
  if (!("wakeLock" in navigator)) return;
  const ask = async () => { try { await navigator.wakeLock.request("screen"); } catch { /* refused: fine */ } };
  await ask();
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") ask(); });
}

// The test drivers (tests/screen/scorer_e2e.mjs) read what the page holds.
/** @type {Window & {cueboardScorer?: {model: Model, settings: typeof settings, outbox: () => Outbox | null}}} */
(window).cueboardScorer = { model, settings, outbox: () => outbox };

// Installable, and loads with no connection once loaded (screen/score/sw.js).
if ("serviceWorker" in navigator) navigator.serviceWorker.register("/score/sw.js", { scope: "/score" }).catch(() => {});

// The words and the schemas before the first picture: one that cannot be loaded is said
// (English is shown, or the table's payloads go unchecked), the page works on.
[say, schemas] = await Promise.all([
  loadTranslator(settings.lang, problem, { base: "/i18n/", sections: ["scorer", "screen"] }),
  loadSchemas(["state", "event", "rejected"], problem, "/vendor/"),
]);
document.documentElement.lang = say.lang;
// Nothing is tried for a link naming another broker: no kept login, no card's, no connection.
const card = loginFromFragment();
if (card.notTaken) {
  model.error = t(card.notTaken.key, { exp: card.notTaken.exp });
  model.code = card.notTaken.code;
}
const login = where.other ? null
  : card.login || (card.notTaken ? null : storedLogin() || await typedLogin());
if (login) start(login); else draw();
setInterval(() => { if (model.clock && model.clock.running) draw(); }, 1000);
