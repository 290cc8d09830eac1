// @ts-check
// The venue's bracket page (/bracket, docs/league.md "On the night"): tonight's competition as
// the desk keeps it (the retained `cueboard/<venue>/competition`), a knockout's rounds or a
// round robin's table, with each match being played's frames from its table's state. Read
// only, as the venue screen: the screens' anonymous listener, nothing written. For a hall: big
// type, the rounds across the screen.
// Options (query parameters over config.js): venue, prefix, lang; the broker is config.js's
// (default: the screens' listener, wss://<host>:9001), a link naming another is refused.
// The shared session (shared/broker.js) brings the payloads; the shared store (shared/store.js)
// keeps the latest of each topic, read as every page reads one (shared/payloads.js: a table's
// state checked against its schema), and draws the page once a frame.

import { html, render } from "../shared/ui.js";
import { deskWords, pageOptions } from "../shared/page.js";
import { BracketView } from "../shared/bracket_view.js";
import { Session } from "../shared/broker.js";
import { OTHER_BROKER } from "../shared/venue_broker.js";
import { loadSchemas } from "../shared/payloads.js";
import { Store, intoStore } from "../shared/store.js";

/**
 * @typedef {import("../shared/competition.js").Competition} Competition
 * @typedef {import("../shared/state.js").State} State
 */

const opts = pageOptions("broker", 9001);
const base = `${opts.prefix}/${opts.venue}`;

/** @type {import("../shared/page.js").Words} */
let t = (key) => key;
let connected = false;
let seen = false;
const store = new Store();
store.subscribe(() => draw());

/** Tonight's competition, if the desk keeps one (a payload without matches is none). */
function competition() {
  const body = /** @type {Partial<Competition> | null | undefined} */ (store.get(`${base}/competition`));
  return body && Array.isArray(body.matches) ? /** @type {Competition} */ (body) : null;
}

function draw() {
  const root = /** @type {HTMLElement} */ (document.getElementById("bracket"));
  const c = competition();
  if (store.get(`${base}/competition`) !== undefined) seen = true;
  render(html`<header class="hall-bar"><h1>${c ? c.name : t("bracket_title")}</h1>
      <span class="venue">${opts.venue}</span>${connected ? "" : html`<span class="conn">${t("bracket_connecting")}</span>`}</header>
    <main class="hall-main">${c ? html`<${BracketView} c=${c} t=${t}
      live=${(/** @type {string} */ name) => /** @type {State | null | undefined} */ (store.get(`${base}/${name}/state`))} />`
      : html`<p class="none">${seen ? t("bracket_none") : "…"}</p>`}</main>`, root);
}

async function connect() {
  const schemas = await loadSchemas(["state"], (text) => console.warn(text));
  const topics = [`${base}/competition`, `${base}/+/state`];
  new Session({ broker: opts.broker, who: "bracket" }, {
    topics: () => topics,
    // The competition is the desks' own topic (no schema); a table's state is checked against its schema.
    message: intoStore(store, { schemaOf: (topic) => (topic.endsWith("/state") ? schemas.state : undefined),
      problem: (text) => console.warn(text) }),
    link: (link) => { connected = link === "online"; store.touch(); },
  });
  // A venue with no competition has no retained message: say so once the broker had time to send it.
  setTimeout(() => { seen = true; store.touch(); }, 3000);
}

async function start() {
  // The static "…" of index.html goes: render() adds beside what is there, and the TV would scroll.
  document.querySelector("#bracket > .loading")?.remove();
  document.documentElement.lang = opts.lang;
  t = await deskWords(opts.lang, "the page's");
  document.title = t("bracket_title");
  if (opts.otherBroker) { // a link naming another broker than the server's: said, nothing sent
    render(html`<header class="hall-bar"><h1>${t("bracket_title")}</h1><span class="venue">${opts.venue}</span></header>
      <main class="hall-main"><p class="none refused" role="alert" data-code=${OTHER_BROKER}>
        ${t("other_broker", { other: opts.otherBroker, broker: opts.broker })}</p></main>`,
    /** @type {HTMLElement} */ (document.getElementById("bracket")));
    return;
  }
  draw();
  connect();
}

start();
