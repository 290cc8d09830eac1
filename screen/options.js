// @ts-check
// What the screen shows, from its address (?view=list&lang=nl...) over the defaults `cueboard screen`
// serves in config.js. A value that makes no sense is refused with its reason (shown at the
// bottom of the page) and the default is used instead: nothing is guessed.

import { LANGUAGES } from "./shared/i18n.js";
import { OTHER_BROKER, venueBroker } from "./shared/venue_broker.js";

/**
 * @typedef {{name: string, prefix?: string, lo?: number, hi?: number}} TableItem
 * @typedef {{items: TableItem[], errors: string[], match: (name: string) => boolean}} Tables
 * @typedef {{[key: string]: unknown}} Config the settings `cueboard screen` serves in config.js
 * @typedef {{
 *   broker: string, otherBroker: string | null, venue: string, prefix: string, table: string | null, lang: string, overlay: boolean,
 *   stats: boolean, corner: string, problems: string[], scale: number, view: string, tables: Tables | null,
 *   rotate: number, perPage: number | null, page: number}} Options
 *   otherBroker: the link's ?broker= when it names another broker than the server's: refused, the
 *   page connects nowhere (shared/venue_broker.js)
 */

export const VIEWS = ["grid", "list", "single", "overlay"];
export const CORNERS = ["bl", "br", "tl", "tr", "bc", "tc"];
/** @type {{[size: string]: number}} */
export const SIZES = { s: 0.75, m: 1, l: 1.35 };
const MAX_PER_PAGE = 64;

// `tables`: a comma-separated list of table names and ranges. "1-8" takes every table whose name
// ends in a number from 1 to 8 ("table-3", "t3", "3"); "t1-t8" only those named t<number>.
// A name that is itself a table's name (even one with a dash) always means that table.
/** @param {unknown} spec @returns {Tables} */
export function parseTables(spec) {
  /** @type {TableItem[]} */
  const items = [];
  /** @type {string[]} */
  const errors = [];
  for (const raw of String(spec).split(",")) {
    const item = raw.trim();
    if (!item) continue;
    const m = /^(.*?)(\d+)-(.*?)(\d+)$/.exec(item);
    if (m && (m[3] === "" || m[3] === m[1])) {
      const lo = Number(m[2]), hi = Number(m[4]);
      if (lo > hi) errors.push(`tables: the range "${item}" runs backwards`);
      else items.push({ name: item, prefix: m[1], lo, hi });
    } else {
      items.push({ name: item });
    }
  }
  if (!items.length && !errors.length) errors.push(`tables: "${spec}" names no table`);
  /** @param {string} name */
  const match = (name) => items.some((it) => {
    if (it.name === name) return true;
    if (it.lo === undefined || it.hi === undefined) return false;
    const n = it.prefix ? (name.startsWith(it.prefix) && /^\d+$/.test(name.slice(it.prefix.length)) ? Number(name.slice(it.prefix.length)) : NaN)
      : Number((/(\d+)$/.exec(name) || [])[1]);
    return n >= it.lo && n <= it.hi;
  });
  return { items, errors, match };
}

/**
 * @param {URLSearchParams} params @param {Config} config @param {string} key
 * @param {{min: number, max: number, integer: boolean}} range @param {string[]} problems
 */
function number(params, config, key, { min, max, integer }, problems) {
  const raw = params.get(key) ?? config[key];
  if (raw === undefined || raw === null || raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    problems.push(`${key}=${raw} is not ${integer ? "a whole number" : "a number"} from ${min} to ${max}: using the default`);
    return undefined;
  }
  return n;
}

/** @param {URLSearchParams} params @param {Config} config @param {string} key @param {string[]} allowed @param {string[]} problems */
function choice(params, config, key, allowed, problems) {
  const raw = params.get(key) ?? config[key];
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (!allowed.includes(String(raw))) {
    problems.push(`${key}=${raw} is not one of ${allowed.join(", ")}: using the default`);
    return undefined;
  }
  return String(raw);
}

/** @param {URLSearchParams} params @param {Config} config @param {string} key @param {string[]} problems */
function flag(params, config, key, problems) {
  const raw = params.get(key) ?? config[key];
  if (raw === undefined || raw === null || raw === "" || raw === false) return false;
  if (raw === true || ["1", "true", "yes", "on"].includes(String(raw))) return true;
  if (["0", "false", "no", "off"].includes(String(raw))) return false;
  problems.push(`${key}=${raw} is not 1 or 0: taken as 0`);
  return false;
}

/** @param {string} search @param {Config} config @param {string} host @returns {Options} */
export function readOptions(search, config, host) {
  const params = new URLSearchParams(search);
  /** @type {string[]} */
  const problems = [];
  /** @param {string} key @returns {string | null} */
  const get = (key) => params.get(key) || (config[key] ? String(config[key]) : null);
  // The broker is the server's (config.js), never the link's (shared/venue_broker.js).
  const where = venueBroker(config, "broker", `ws://${host || "127.0.0.1"}:9001`, params.get("broker"));
  if (where.other) {
    problems.push(`broker=${where.other} is not this venue's broker (${where.broker}): refused, nothing is sent [${OTHER_BROKER}]`);
  }
  /** @type {Options} */
  const o = {
    broker: where.broker,
    otherBroker: where.other,
    venue: get("venue") || "+",
    prefix: get("prefix") || "cueboard",
    table: get("table"),
    lang: choice(params, config, "lang", LANGUAGES, problems) || "en",
    overlay: flag(params, config, "overlay", problems),
    stats: flag(params, config, "stats", problems),
    corner: choice(params, config, "corner", CORNERS, problems) || "bl",
    problems,
    scale: 1,
    view: "grid",
    tables: null,
    rotate: 10,
    perPage: null,
    page: 0,
  };
  const size = params.get("size") ?? config.size;
  if (size !== undefined && size !== null && size !== "") {
    if (String(size) in SIZES) o.scale = SIZES[String(size)];
    else if (Number.isFinite(Number(size)) && Number(size) >= 0.25 && Number(size) <= 4) o.scale = Number(size);
    else problems.push(`size=${size} is not s, m, l or a scale from 0.25 to 4: using m`);
  }
  let view = choice(params, config, "view", VIEWS, problems);
  if (o.overlay) view = "overlay";
  if (!view) view = o.table ? "single" : "grid";
  if (view === "single" && !o.table && !get("tables")) {
    problems.push("view=single needs table=NAME: showing the first table");
  }
  o.view = view;
  const tables = get("tables");
  if (tables) {
    const parsed = parseTables(tables);
    problems.push(...parsed.errors);
    if (parsed.items.length) o.tables = parsed;
  }
  o.rotate = number(params, config, "rotate", { min: 0, max: 3600, integer: false }, problems) ?? 10;
  // Not given: chosen from the number of tables and the screen (screen.js, perPage).
  o.perPage = number(params, config, "per_page", { min: 1, max: MAX_PER_PAGE, integer: true }, problems) ?? null;
  if (view === "single" || view === "overlay") o.perPage = 1;
  o.page = (number(params, config, "page", { min: 1, max: 10000, integer: true }, problems) ?? 1) - 1;
  return o;
}
