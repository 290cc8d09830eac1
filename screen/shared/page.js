// @ts-check
// What the desk (desk/desk.js) and the hall's bracket page (bracket/bracket.js) share as pages:
// their options, query parameters over config.js, and their words, the catalogues' `desk` section.

import { LANGUAGES, translator } from "./i18n.js";
import { venueBroker } from "./venue_broker.js";

/**
 * @typedef {{broker: string, otherBroker: string | null, venue: string, prefix: string, lang: string}} PageOptions
 *   otherBroker: the link's ?broker= when it names another broker: the page must connect nowhere
 * @typedef {(key: string, vars?: Record<string, unknown>) => string} Words
 */

/**
 * The page's options: each query parameter, else config.js's, else the default; the broker only
 * config.js's (`brokerKey`: the desk's and the screens' listeners differ), else this host's
 * listener on `port`; a language with no catalogue is English.
 * @param {string} brokerKey
 * @param {number} port
 * @returns {PageOptions}
 */
export function pageOptions(brokerKey, port) {
  const config = /** @type {Window & {CUEBOARD_SCREEN?: Record<string, string | undefined>}} */ (window).CUEBOARD_SCREEN || {};
  const query = new URLSearchParams(location.search);
  // The server's broker, never the link's (shared/venue_broker.js): another is refused, in `otherBroker`.
  const where = venueBroker(config, brokerKey, `wss://${location.hostname || "localhost"}:${port}`, query.get("broker"));
  const opts = {
    broker: where.broker,
    otherBroker: where.other,
    venue: query.get("venue") || config.venue || "",
    prefix: (query.get("prefix") || config.prefix || "cueboard").replace(/\/+$/, ""),
    lang: query.get("lang") || config.lang || "en",
  };
  if (!LANGUAGES.includes(opts.lang)) opts.lang = "en";
  return opts;
}

/**
 * The catalogues' `desk` words in `lang`, English behind them; if they cannot be loaded, the
 * keys themselves (the page still works) and the reason on the console, naming `page`.
 * @param {string} lang
 * @param {string} page
 * @returns {Promise<Words>}
 */
export async function deskWords(lang, page) {
  const load = async (/** @type {string} */ name) => (await fetch(`i18n/${name}.json`)).json();
  try {
    const english = await load("en");
    const own = lang === "en" ? english : await load(lang);
    // The strokes' words are the scorer's (`tap.*`, `reds_n`, `ball.free`) and the screen's
    // (`ball.*`), so a stroke is said alike on the phone and the desk (shared/strokes.js).
    /** @type {(c: Record<string, Record<string, import("./i18n.js").Word>>) => Record<string, import("./i18n.js").Word>} */
    const strokes = (c) => Object.fromEntries(
      [...Object.entries(c.scorer || {}), ...Object.entries(c.screen || {})]
        .filter(([k]) => k.startsWith("tap.") || k.startsWith("ball.") || k === "reds_n"));
    return translator(lang, { screen: own.desk, strokes: strokes(own) }, { screen: english.desk, strokes: strokes(english) },
      ["screen", "strokes"]);
  } catch (e) {
    console.error(`${page} words could not be loaded: ${e}`);
    return (key) => key;
  }
}
