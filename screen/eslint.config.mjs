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
// Pages import only shared/ and vendor/ (and their own folder): a page's folder is no other page's
// library. What two pages need is moved into shared/ (docs/desk.md "How it is built").
const only = (message, ...regexes) => ["error", { patterns: regexes.map((regex) => ({ regex, message })) }];
const pageFolder = "a page imports only its own folder, shared/ and vendor/ (move what two pages need into shared/)";
const sharedFolder = "shared/ imports only shared/ and vendor/: it is every page's, no page's";
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
  { files: ["desk/**/*.js", "bracket/**/*.js"],
    rules: { "no-restricted-imports": only(pageFolder, "^\\.\\./(?!shared/|vendor/)", "^/(?!shared/|vendor/)") } },
  { files: ["score/**/*.js"],
    rules: { "no-restricted-imports": only(pageFolder, "^\\.\\./(?!shared/|vendor/)", "^/(?!shared/|vendor/|score/)") } },
  { files: ["shared/**/*.js"], rules: { "no-restricted-imports": only(sharedFolder, "^\\.\\./(?!vendor/)", "^/(?!shared/|vendor/)") } },
  { files: ["*.js", "games/**/*.js"], rules: { "no-restricted-imports": only(pageFolder, "(^|/)(desk|score|bracket)/") } },
  { files: ["**/*.mjs"], languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: node }, rules },
];
