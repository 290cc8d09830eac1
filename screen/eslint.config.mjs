// The desk's linter (npm run check): ESLint's recommended rules over screen/desk/, in the
// browser's globals; the vendored bundles are not ours to lint.
import js from "@eslint/js";

const browser = Object.fromEntries(["window", "document", "location", "sessionStorage", "fetch", "console", "setTimeout",
  "clearTimeout", "setInterval", "clearInterval", "requestAnimationFrame", "TextDecoder", "URLSearchParams", "Event",
  "HTMLElement", "Element", "CSS", "Intl"].map((name) => [name, "readonly"]));

export default [
  { ignores: ["vendor/**", "node_modules/**"] },
  {
    files: ["desk/**/*.js"],
    ...js.configs.recommended,
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: browser },
    rules: { ...js.configs.recommended.rules, "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }] },
  },
];
