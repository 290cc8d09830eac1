// The scorer's UI stack: Preact with htm's tagged templates (no build step), both vendored
// from screen/package-lock.json by vendor.mjs. Text goes in as text: htm never parses HTML
// out of a value, so a player's name cannot inject markup.
import { h, render } from "/vendor/preact.js";
import htm from "/vendor/htm.js";

export const html = htm.bind(h);
export { render };
