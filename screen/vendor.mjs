// Copy what the page needs into vendor/, so venues need no npm and no CDN:
// mqtt.js's browser bundle and htm's Preact bundle (pinned in package-lock.json) and the project's JSON Schemas.
// Run after `npm ci`: `node vendor.mjs` (or `npm run vendor`); commit vendor/.
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "vendor");
mkdirSync(out, { recursive: true });
const version = JSON.parse(readFileSync(join(here, "node_modules/mqtt/package.json"), "utf8")).version;
copyFileSync(join(here, "node_modules/mqtt/dist/mqtt.min.js"), join(out, "mqtt.min.js"));
console.log(`vendor/mqtt.min.js: mqtt ${version}`);
// The desk's UI library (desk/): Preact with htm's tagged templates, one ES module, no build step.
const htm = JSON.parse(readFileSync(join(here, "node_modules/htm/package.json"), "utf8")).version;
copyFileSync(join(here, "node_modules/htm/preact/standalone.module.js"), join(out, "htm-preact.js"));
console.log(`vendor/htm-preact.js: htm ${htm} (Preact and its hooks bundled)`);
// The scorer's page (score/): Preact and htm, pinned here too, as ES modules with no imports.
for (const [pkg, file, name] of [["preact", "dist/preact.module.js", "preact.js"], ["htm", "dist/htm.module.js", "htm.js"]]) {
  const v = JSON.parse(readFileSync(join(here, `node_modules/${pkg}/package.json`), "utf8")).version;
  copyFileSync(join(here, `node_modules/${pkg}/${file}`), join(out, name));
  console.log(`vendor/${name}: ${pkg} ${v}`);
}
const schemas = join(here, "..", "schema");
for (const name of readdirSync(schemas).filter((n) => n.endsWith(".schema.json"))) {
  copyFileSync(join(schemas, name), join(out, name));
  console.log(`vendor/${name}`);
}
