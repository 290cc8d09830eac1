// @ts-check
// The scorer's UI stack: the pages' one copy of Preact with htm (shared/ui.js), vendored from
// screen/package-lock.json by vendor.mjs. Text goes in as text: htm never parses HTML out of a
// value, so a player's name cannot inject markup.
export { html, render } from "/shared/ui.js";
