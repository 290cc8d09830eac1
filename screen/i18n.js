// @ts-check
// Where the desk (desk/desk.js) finds the words until it imports shared/i18n.js itself.
export { LANGUAGES, translator } from "./shared/i18n.js";
