// @ts-check
// The words every page shows, from the catalogues in i18n/<lang>.json (plain JSON a translator
// edits: docs/screen.md says which rule book each term comes from). Each page reads its own
// section first ("desk", "scorer") and the screen's words after it (balls, groups, frames are
// said once). English fills any key a catalogue lacks, so a half-done translation still shows
// every fact.

/** The languages every page speaks (`lang=`; cueboard/common/languages.py lists the same five). */
export const LANGUAGES = ["en", "nl", "sv", "de", "fr"];

/**
 * @typedef {string | {one?: string, other: string, [form: string]: string | undefined}} Word
 *   a word, or its plural forms chosen by the language's plural rules
 * @typedef {{[section: string]: {[key: string]: Word} | string | undefined}} Catalogue
 * @typedef {{[name: string]: unknown}} Vars
 * @typedef {((key: string, vars?: Vars | null, game?: string) => string) & {lang: string}} Translator
 *   t(key, vars, game): the key's word in the page's language, {name} and {n} filled in from vars;
 *   with a game, the game's own form first ("blackball.frame": French calls a blackball frame a "partie")
 */

/** The language asked for if the pages speak it, else English. @param {unknown} wanted */
export function pickLanguage(wanted) {
  const lang = typeof wanted === "string" ? wanted.toLowerCase() : "";
  return LANGUAGES.includes(lang) ? lang : "en";
}

/**
 * A translator for one language, reading `sections` in order from the catalogue, then from English.
 * @param {string} lang @param {Catalogue | null} catalogue @param {Catalogue | null} english
 * @param {string[]} [sections] the catalogue's sections, the page's own first (default: the screen's)
 * @returns {Translator}
 */
export function translator(lang, catalogue, english, sections = ["screen"]) {
  /** @param {Catalogue | null} cat */
  const tables = (cat) => sections.map((name) => {
    const part = cat && cat[name];
    return part && typeof part === "object" ? part : {};
  });
  const words = [...tables(catalogue), ...tables(english)];
  const plural = new Intl.PluralRules(lang);
  /** @type {Map<string, Word>} */
  const cache = new Map();
  /** @param {string} id */
  const find = (id) => {
    for (const table of words) if (table[id] !== undefined) return table[id];
    return undefined;
  };
  /** @param {string} key @param {string | undefined} game */
  function lookup(key, game) {
    const id = game ? `${game}.${key}` : key;
    let v = cache.get(id);
    if (v === undefined) {
      v = (game ? find(id) : undefined) ?? find(key) ?? key;
      cache.set(id, v);
    }
    return v;
  }
  /** @type {(key: string, vars?: Vars | null, game?: string) => string} */
  const say = (key, vars, game) => {
    const word = lookup(key, game);
    let v = typeof word === "string" ? word
      : word[plural.select(vars && typeof vars.n === "number" ? vars.n : 0)] ?? word.other;
    if (vars) v = v.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
    return v;
  };
  return Object.assign(say, { lang });
}

/**
 * A language's catalogue from the page's server.
 * @param {string} lang @param {string} [base] where the catalogues are ("i18n/" beside the page, "/i18n/")
 * @returns {Promise<Catalogue>}
 */
export async function fetchCatalogue(lang, base = "i18n/") {
  const r = await fetch(`${base}${lang}.json`);
  if (!r.ok) throw new Error(`${base}${lang}.json: HTTP ${r.status}`);
  return /** @type {Promise<Catalogue>} */ (r.json());
}

/**
 * The translator for `lang`, English for anything its catalogue lacks; a catalogue that cannot
 * be loaded is said through `problem` and English is shown.
 * @param {string} lang @param {(text: string) => void} problem
 * @param {{base?: string, sections?: string[]}} [where]
 * @returns {Promise<Translator>}
 */
export async function loadTranslator(lang, problem, where = {}) {
  const { base = "i18n/", sections = ["screen"] } = where;
  /** @type {Catalogue | null} */
  let english = null;
  try { english = await fetchCatalogue("en", base); } catch (e) { problem(`Could not load the English words (${errorText(e)})`); }
  if (lang === "en") return translator("en", english, english, sections);
  try {
    return translator(lang, await fetchCatalogue(lang, base), english, sections);
  } catch (e) {
    problem(`Could not load the words for lang=${lang} (${errorText(e)}): showing English`);
    return translator("en", english, english, sections);
  }
}

/** An error's words, whatever was thrown. @param {unknown} e */
export function errorText(e) {
  return e instanceof Error ? e.message : String(e);
}
