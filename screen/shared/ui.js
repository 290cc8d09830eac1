// @ts-check
// The desk's and the scorer's UI stack, one copy: Preact with its hooks and htm's tagged
// templates (no build step), each vendored from screen/package-lock.json by vendor.mjs (the
// hooks' `import "preact"` pointed at the file beside them). Text goes in as text: htm never
// parses HTML out of a value, so a player's name cannot inject markup. The types are the
// packages' own (node_modules), read by `npm run check`.
import * as preact from "../vendor/preact.js";
import * as hooks from "../vendor/hooks.js";
import htm from "../vendor/htm.js";

const P = /** @type {typeof import("preact")} */ (/** @type {unknown} */ (preact));
const H = /** @type {typeof import("preact/hooks")} */ (/** @type {unknown} */ (hooks));

export const { h, render } = P;
export const { useState, useEffect, useRef, useMemo, useCallback } = H;
/** htm bound to Preact's h: html`<p>${text}</p>`. */
export const html = /** @type {typeof import("htm").default} */ (/** @type {unknown} */ (htm)).bind(P.h);

/**
 * An input's, a select's or a textarea's event as a form's handler reads it: `e.target.value`,
 * `.checked`, `.type`, `.files` (htm's templates bind handlers to the control itself).
 * @typedef {Event & {target: HTMLInputElement}} FieldEvent
 */
