// @ts-check
// The venue's bracket page (/bracket, docs/league.md "On the night"): tonight's competition as
// the desk keeps it (the retained `cueboard/<venue>/competition`), a knockout's rounds or a
// round robin's table, with each match being played's frames from its table's state. Read
// only, as the venue screen: the screens' anonymous listener, nothing written. For a hall: big
// type, the rounds across the screen.
// Options (query parameters over config.js): broker (default: the screens' listener, wss://<host>:9001),
// venue, prefix, lang.

import { html, render } from "../shared/ui.js";
import { deskWords, pageOptions } from "../shared/page.js";
import { BracketView } from "../shared/bracket_view.js";

const mqtt = /** @type {any} */ (window).mqtt;
const opts = pageOptions("broker", 9001);

/** @type {import("../shared/page.js").Words} */
let t = (key) => key;
let competition = /** @type {any} */ (null);
let connected = false;
let seen = false;
/** @type {Map<string, any>} */
const states = new Map();
const decoder = new TextDecoder();

function draw() {
  const root = /** @type {HTMLElement} */ (document.getElementById("bracket"));
  const c = competition;
  render(html`<header class="hall-bar"><h1>${c ? c.name : t("bracket_title")}</h1>
      <span class="venue">${opts.venue}</span>${connected ? "" : html`<span class="conn">${t("bracket_connecting")}</span>`}</header>
    <main class="hall-main">${c ? html`<${BracketView} c=${c} t=${t}
      live=${(/** @type {string} */ name) => states.get(name)} />`
      : html`<p class="none">${seen ? t("bracket_none") : "…"}</p>`}</main>`, root);
}

function connect() {
  const clientId = `cueboard-bracket-${Math.random().toString(16).slice(2, 10)}`;
  const client = mqtt.connect(opts.broker, { clientId, reconnectPeriod: 2000, connectTimeout: 10000, clean: true });
  const base = `${opts.prefix}/${opts.venue}`;
  client.on("connect", () => {
    connected = true;
    client.subscribe([`${base}/competition`, `${base}/+/state`], { qos: 1 });
    draw();
  });
  client.on("close", () => { connected = false; draw(); });
  client.on("message", (/** @type {string} */ topic, /** @type {Uint8Array} */ payload) => {
    const text = decoder.decode(payload);
    let body = null;
    try { body = text ? JSON.parse(text) : null; } catch (e) { console.warn(`${topic}: not JSON`); return; }
    if (topic === `${base}/competition`) {
      competition = body && Array.isArray(body.matches) ? body : null;
      seen = true;
    } else states.set(topic.split("/").slice(-2)[0], body);
    draw();
  });
  // A venue with no competition has no retained message: say so once the broker had time to send it.
  setTimeout(() => { seen = true; draw(); }, 3000);
}

async function start() {
  document.documentElement.lang = opts.lang;
  t = await deskWords(opts.lang, "the page's");
  document.title = t("bracket_title");
  draw();
  connect();
}

start();
