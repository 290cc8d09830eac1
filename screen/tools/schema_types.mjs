// The payloads' JSDoc types written from the contract's JSON Schemas (schema/*.schema.json, the
// one source: vendor.mjs copies them beside the pages), so the pages' types cannot drift from
// what the tables publish. `node tools/schema_types.mjs` writes shared/types.gen.js;
// `--check` (run by `npm run check`) fails when that file is not what the schemas give.
//
// Each schema is one typedef named after its file (state -> StatePayload) and one for each of
// its $defs (state's snooker_side -> StateSnookerSide). A schema's per-game parts (allOf of
// if game is X then $ref) are folded in as optional fields: the pages read one shape whatever
// the game, and the validator has checked the rest.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const SCHEMAS = join(here, "..", "..", "schema");
const OUT = join(here, "..", "shared", "types.gen.js");

const title = (/** @type {string} */ s) => s.split(/[_\-\s]+/).map((w) => w[0].toUpperCase() + w.slice(1)).join("");
const KEY = /^[A-Za-z_$][\w$]*$/;

/** The TypeScript type of a schema. */
function type(schema, ctx) {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  if (schema.$ref) {
    const m = /^#\/\$defs\/(.+)$/.exec(schema.$ref);
    if (!m) throw new Error(`${ctx.name}: unsupported $ref ${schema.$ref}`);
    return ctx.prefix + title(m[1]);
  }
  if ("const" in schema) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.oneOf || schema.anyOf) return [...new Set((schema.oneOf || schema.anyOf).map((s) => wrap(type(s, ctx))))].join(" | ");
  const types = schema.type === undefined ? (schema.properties ? ["object"] : []) : [].concat(schema.type);
  if (!types.length) return "unknown";
  return types.map((t) => {
    if (t === "integer" || t === "number") return "number";
    if (t === "string" || t === "boolean" || t === "null") return t;
    if (t === "array") return `${wrap(type(schema.items, ctx))}[]`;
    if (t === "object") return object(schema, ctx);
    throw new Error(`${ctx.name}: unsupported type ${t}`);
  }).join(" | ");
}

const wrap = (/** @type {string} */ t) => (/[|&]/.test(t) ? `(${t})` : t);

/** The fields of an object schema and of its per-game parts (optional, unless required). */
function fields(schema, ctx) {
  const required = new Set(schema.required || []);
  /** @type {Map<string, {types: Set<string>, optional: boolean}>} */
  const out = new Map();
  const narrowed = new Set();
  for (const [key, sub] of Object.entries(schema.properties || {})) {
    out.set(key, { types: new Set([type(sub, ctx)]), optional: !required.has(key) });
  }
  for (const part of schema.allOf || []) {
    const then = part.then ? (part.then.$ref ? ctx.defs[part.then.$ref.split("/").pop()] : part.then) : part;
    for (const [key, f] of fields(then, ctx)) {
      const had = out.get(key);
      if (!had) out.set(key, { types: new Set(f.types), optional: true });
      else if (!schema.properties || !(key in schema.properties)) for (const t of f.types) had.types.add(t);
      // The common part says less (sides: an array) than the game's part (of snooker's sides): the game's is read.
      else if (narrowed.has(key) || [...had.types].every((t) => t.includes("unknown"))) {
        if (!narrowed.has(key)) { had.types.clear(); narrowed.add(key); }
        for (const t of f.types) had.types.add(t);
      }
    }
  }
  return out;
}

/** An object schema's fields, each "name?: type". */
function fieldList(schema, ctx) {
  const extra = schema.additionalProperties;
  const parts = [...fields(schema, ctx)].map(([key, f]) => `${KEY.test(key) ? key : JSON.stringify(key)}${f.optional ? "?" : ""}: ${union(f.types)}`);
  if (parts.length && extra !== undefined && extra !== false) parts.push("[field: string]: unknown");
  return parts;
}

/** Types joined, each simple member once ("number | null" and "number": "number | null"). */
function union(/** @type {Set<string>} */ types) {
  const simple = [...types].every((t) => !/[{(<[]/.test(t));
  return simple ? [...new Set([...types].flatMap((t) => t.split(" | ")))].join(" | ") : [...types].join(" | ");
}

function object(schema, ctx) {
  const parts = fieldList(schema, ctx);
  const extra = schema.additionalProperties;
  if (!parts.length) return extra === undefined || extra === true ? "Record<string, unknown>" : `Record<string, ${type(extra, ctx)}>`;
  return `{${parts.join(", ")}}`;
}

/** A JSDoc typedef, an object's fields one a line, and its description. */
function typedef(name, schema, ctx, about) {
  const body = schema && typeof schema === "object" && !schema.$ref && !schema.oneOf && !("const" in schema) && !schema.enum
    && [].concat(schema.type || (schema.properties ? "object" : [])).join() === "object" ? fieldList(schema, ctx) : [];
  const lines = body.length ? [` * @typedef {{`, ...body.map((f, i) => ` *   ${f}${i < body.length - 1 ? "," : ""}`), ` * }} ${name}`]
    : [` * @typedef {${type(schema, ctx)}} ${name}`];
  if (about) lines.push(...about.split(/(?<=\.)\s+/).map((s) => ` *   ${s}`));
  return lines.join("\n");
}

export function generate() {
  const files = readdirSync(SCHEMAS).filter((f) => f.endsWith(".schema.json")).sort();
  const blocks = [];
  for (const file of files) {
    const name = file.replace(/\.schema\.json$/, "");
    const schema = JSON.parse(readFileSync(join(SCHEMAS, file), "utf8"));
    const ctx = { name: file, prefix: title(name), defs: schema.$defs || {} };
    const lines = [typedef(`${title(name)}Payload`, schema, ctx, schema.title ? `schema/${file}: ${schema.title}` : `schema/${file}`)];
    for (const [def, sub] of Object.entries(ctx.defs)) lines.push(typedef(ctx.prefix + title(def), sub, ctx, sub.description));
    blocks.push(`/**\n${lines.join("\n")}\n */`);
  }
  return `// @ts-check
// GENERATED by tools/schema_types.mjs from schema/*.schema.json: do not edit; run
// \`node tools/schema_types.mjs\` after changing a schema (\`npm run check\` fails until then).
// The payloads' types, for JSDoc only: import("../shared/types.gen.js").StatePayload.

${blocks.join("\n\n")}

export {};
`;
}

const text = generate();
if (process.argv.includes("--check")) {
  let had = "";
  try { had = readFileSync(OUT, "utf8"); } catch { had = ""; }
  if (had !== text) {
    console.error("shared/types.gen.js is not what schema/*.schema.json give: run `node tools/schema_types.mjs`");
    process.exit(1);
  }
} else {
  writeFileSync(OUT, text);
}
