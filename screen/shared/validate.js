// @ts-check
// A JSON Schema validator for the subset the project's schemas (schema/, copied to vendor/) use:
// type, const, enum, minimum/maximum/exclusiveMinimum, minLength, pattern, minItems/maxItems,
// items, required, properties, additionalProperties, allOf, oneOf, if/then, $ref to "#/...".
// It returns every reason a payload does not fit, in words a venue's operator can act on.
// Hot path: every state and event goes through it, so patterns are compiled once and
// primitives are compared without JSON.stringify.

/**
 * @typedef {boolean | undefined | {
 *   $ref?: string, type?: string | string[], const?: unknown, enum?: unknown[], minimum?: number, maximum?: number,
 *   exclusiveMinimum?: number, minLength?: number, pattern?: string, minItems?: number, maxItems?: number,
 *   items?: Schema, required?: string[], properties?: {[key: string]: Schema}, additionalProperties?: Schema,
 *   allOf?: Schema[], oneOf?: Schema[], if?: Schema, then?: Schema, [other: string]: unknown}} Schema
 */

/** @type {Map<string, RegExp>} */
const patterns = new Map();

/** @param {unknown} v */
function typeOf(v) {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/** @param {unknown} a @param {unknown} b */
function same(a, b) {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** @param {Schema} root @param {string} ref @returns {Schema} */
function resolve(root, ref) {
  if (!ref.startsWith("#/")) throw new Error(`unsupported $ref ${ref}`);
  return ref.slice(2).split("/").reduce((node, key) => /** @type {Record<string, Schema>} */ (node)[key], root);
}

/** @param {string} source */
function pattern(source) {
  let re = patterns.get(source);
  if (!re) { re = new RegExp(source, "u"); patterns.set(source, re); }
  return re;
}

/**
 * Every reason `value` does not fit `schema` (none: it fits).
 * @param {Schema} schema @param {any} value @param {Schema} [root] @param {string} [path] @param {string[]} [errors]
 * @returns {string[]}
 */
export function validate(schema, value, root, path, errors) {
  root = root || schema; path = path || "payload"; errors = errors || [];
  if (schema === true || schema === undefined) return errors;
  if (schema === false) { errors.push(`${path} is not allowed`); return errors; }
  if (schema.$ref) validate(resolve(root, schema.$ref), value, root, path, errors);
  const t = typeOf(value);
  if (schema.type !== undefined) {
    const types = typeof schema.type === "string" ? [schema.type] : schema.type;
    if (!types.some((want) => want === t || (want === "number" && t === "integer"))) {
      errors.push(`${path} should be ${types.join(" or ")}, not ${t}`);
      return errors;
    }
  }
  if ("const" in schema && !same(schema.const, value)) errors.push(`${path} should be ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.some((/** @type {unknown} */ e) => same(e, value)))
    errors.push(`${path} should be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  if (t === "integer" || t === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${path} should be at least ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${path} should be at most ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
      errors.push(`${path} should be more than ${schema.exclusiveMinimum}`);
  } else if (t === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength) errors.push(`${path} should not be empty`);
    if (schema.pattern && !pattern(schema.pattern).test(value)) errors.push(`${path} is not in the right format`);
  } else if (t === "array") {
    if (schema.minItems !== undefined && value.length < schema.minItems) errors.push(`${path} should have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) errors.push(`${path} should have at most ${schema.maxItems} items`);
    if (schema.items) for (let i = 0; i < value.length; i++) validate(schema.items, value[i], root, `${path}[${i}]`, errors);
  } else if (t === "object") {
    if (schema.required) for (const key of schema.required) if (!(key in value)) errors.push(`${path} lacks "${key}"`);
    const props = schema.properties;
    if (props || schema.additionalProperties !== undefined) {
      for (const key in value) {
        if (props && key in props) validate(props[key], value[key], root, `${path}.${key}`, errors);
        else if (schema.additionalProperties !== undefined) validate(schema.additionalProperties, value[key], root, `${path}.${key}`, errors);
      }
    }
  }
  if (schema.allOf) for (const sub of schema.allOf) validate(sub, value, root, path, errors);
  if (schema.oneOf) {
    const ok = schema.oneOf.filter((sub) => validate(sub, value, root, path, []).length === 0).length;
    if (ok !== 1) errors.push(`${path} matches ${ok} of its ${schema.oneOf.length} forms, not one`);
  }
  if (schema.if && schema.then && validate(schema.if, value, root, path, []).length === 0)
    validate(schema.then, value, root, path, errors);
  return errors;
}
