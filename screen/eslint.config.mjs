// The pages' linter (npm run check): ESLint's recommended rules over every page's JavaScript
// (the venue screen, shared/, games/, the desk, the scorer) in the browser's globals, and over
// the folder's node tools; the vendored bundles are not ours to lint.
import js from "@eslint/js";

const readonly = (names) => Object.fromEntries(names.map((name) => [name, "readonly"]));
const browser = readonly(["window", "document", "location", "history", "navigator", "localStorage", "sessionStorage",
  "fetch", "Response", "console", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "requestAnimationFrame",
  "TextDecoder", "TextEncoder", "URL", "URLSearchParams", "Event", "HTMLElement", "Element", "Node", "CSS", "Intl",
  "getComputedStyle", "performance", "PerformanceObserver", "globalThis", "crypto", "caches", "self", "Blob", "matchMedia",
  "addEventListener", "removeEventListener", "structuredClone", "queueMicrotask", "AbortController", "alert", "confirm",
  "print", "open", "btoa", "atob", "FormData"]);
const node = readonly(["process", "console", "URL", "globalThis"]);
const rules = {
  ...js.configs.recommended.rules,
  "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
  eqeqeq: ["error", "always", { null: "ignore" }],
  "no-var": "error",
  "prefer-const": "error",
};

export default [
  { ignores: ["vendor/**", "node_modules/**"] },
  { files: ["**/*.js"], languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: browser }, rules },
  // config.js is a classic script (the settings, before the modules); so is the scorer's service worker.
  { files: ["config.js", "score/sw.js"], languageOptions: { sourceType: "script" } },
  { files: ["**/*.mjs"], languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: node }, rules },
];
