// @ts-check
// What the pages read from the broker, read the same way everywhere: UTF-8 JSON, checked against
// the project's JSON Schemas (schema/, copied to vendor/ by vendor.mjs) with the small validator
// beside this file. A payload that is not JSON or does not fit is refused with the reason, in
// words a venue's operator can act on, and nothing of it is shown.

import { validate } from "./validate.js";
import { errorText } from "./i18n.js";

/** @typedef {import("./validate.js").Schema} Schema */

const decoder = new TextDecoder();

/** A payload's text. @param {Uint8Array} payload */
export function textOf(payload) {
  return decoder.decode(payload);
}

/**
 * A payload read: `{value}` (null for an empty payload, which clears a retained topic), or
 * `{problem}` saying why it was refused.
 * @param {string} topic @param {Uint8Array} payload @param {Schema} [schema]
 * @returns {{value: any, problem?: undefined} | {problem: string, value?: undefined}}
 */
export function readPayload(topic, payload, schema) {
  const text = textOf(payload).trim();
  if (!text) return { value: null };
  let value;
  try { value = JSON.parse(text); } catch {
    return { problem: `Ignored a message on ${topic}: it is not JSON (${text.slice(0, 40)})` };
  }
  const errors = schema ? validate(schema, value) : [];
  if (errors.length) return { problem: `Ignored a message on ${topic}: ${errors.slice(0, 3).join("; ")}` };
  return { value };
}

/**
 * The schemas named ("state", "event", ...) from `base` (vendor/ beside the page); one that
 * cannot be loaded is said through `problem`, and its payloads go unchecked.
 * @param {string[]} names @param {(text: string) => void} problem @param {string} [base]
 * @returns {Promise<Record<string, Schema>>}
 */
export async function loadSchemas(names, problem, base = "vendor/") {
  /** @type {Record<string, Schema>} */
  const schemas = {};
  for (const name of names) {
    try {
      const r = await fetch(`${base}${name}.schema.json`);
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      schemas[name] = await r.json();
    } catch (e) {
      problem(`Could not load the ${name} schema (${errorText(e)}); payloads are not checked`);
    }
  }
  return schemas;
}
