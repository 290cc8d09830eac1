// Copy what the page needs into vendor/, so venues need no npm and no CDN:
// mqtt.js's browser bundle, Preact with its hooks and htm (pinned in package-lock.json) and the project's JSON Schemas.
// Run after `npm ci`: `node vendor.mjs` (or `npm run vendor`); commit vendor/.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "vendor");
mkdirSync(out, { recursive: true });
const version = JSON.parse(readFileSync(join(here, "node_modules/mqtt/package.json"), "utf8")).version;
copyFileSync(join(here, "node_modules/mqtt/dist/mqtt.min.js"), join(out, "mqtt.min.js"));
console.log(`vendor/mqtt.min.js: mqtt ${version}`);
// The desk's and the scorer's UI stack (shared/ui.js), one copy: Preact, its hooks and htm, pinned
// here, as ES modules. The hooks import "preact" by its package name, which a browser cannot
// resolve without a build step: pointed at the file beside them.
const rewrites = { "hooks.js": [['from"preact"', 'from"./preact.js"']] };
for (const [pkg, file, name] of [["preact", "dist/preact.module.js", "preact.js"], ["preact", "hooks/dist/hooks.module.js", "hooks.js"],
  ["htm", "dist/htm.module.js", "htm.js"]]) {
  const v = JSON.parse(readFileSync(join(here, `node_modules/${pkg}/package.json`), "utf8")).version;
  let text = readFileSync(join(here, `node_modules/${pkg}/${file}`), "utf8");
  for (const [from, to] of rewrites[name] || []) {
    if (!text.includes(from)) throw new Error(`${pkg}/${file} no longer has ${from}: vendor.mjs needs a look`);
    text = text.split(from).join(to);
  }
  if (/\bfrom\s*"(?![./])/.test(text)) throw new Error(`${pkg}/${file} imports a package by name: the browser cannot load it`);
  writeFileSync(join(out, name), text);
  console.log(`vendor/${name}: ${pkg} ${v}`);
}
const schemas = join(here, "..", "schema");
for (const name of readdirSync(schemas).filter((n) => n.endsWith(".schema.json"))) {
  copyFileSync(join(schemas, name), join(out, name));
  console.log(`vendor/${name}`);
}
