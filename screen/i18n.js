// The words the audience reads, from the catalogues in i18n/<lang>.json (plain JSON a translator
// edits: docs/screen.md says which rule book each term comes from). English fills any key a
// catalogue lacks, so a half-done translation still shows every fact.

export const LANGUAGES = ["en", "nl", "sv", "de", "fr"];

async function fetchCatalogue(lang) {
  const r = await fetch(`i18n/${lang}.json`);
  if (!r.ok) throw new Error(`i18n/${lang}.json: HTTP ${r.status}`);
  return r.json();
}

// A translator for one language: t(key, vars, game). A key may have a per-game form
// ("blackball.frame" before "frame": French calls a blackball frame a "partie"); a value may be
// plural forms {"one": ..., "other": ...} chosen by vars.n with the language's plural rules;
// {name} and {n} are filled in from vars.
export function translator(lang, catalogue, english) {
  const words = (catalogue && catalogue.screen) || {};
  const fallback = (english && english.screen) || {};
  const plural = new Intl.PluralRules(lang);
  const cache = new Map();
  function lookup(key, game) {
    const id = game ? `${game}.${key}` : key;
    let v = cache.get(id);
    if (v === undefined) {
      v = (game && (words[id] ?? fallback[id])) ?? words[key] ?? fallback[key] ?? key;
      cache.set(id, v);
    }
    return v;
  }
  const t = (key, vars, game) => {
    let v = lookup(key, game);
    if (typeof v === "object") v = v[plural.select(vars && typeof vars.n === "number" ? vars.n : 0)] ?? v.other;
    if (vars) v = v.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
    return v;
  };
  t.lang = lang;
  return t;
}

export async function loadTranslator(lang, problem) {
  let english = null;
  try { english = await fetchCatalogue("en"); } catch (e) { problem(`Could not load the English words (${e.message})`); }
  if (lang === "en") return translator("en", english, english);
  try {
    return translator(lang, await fetchCatalogue(lang), english);
  } catch (e) {
    problem(`Could not load the words for lang=${lang} (${e.message}): showing English`);
    return translator("en", english, english);
  }
}
