// @ts-check
// The games a table's card knows (games/*.js): the one list. A state whose game is not here is
// refused by the schema before it reaches a card (schema/state.schema.json lists the same games).
import { snooker } from "./games/snooker.js";
import { blackball } from "./games/blackball.js";

/** @typedef {import("./games/game.js").CardGame} CardGame */

/** @type {readonly CardGame[]} */
export const GAMES = [snooker, blackball];

/** Every game's fact slots, in the card's order (each game's, then the list's next). */
export const FACTS = [...new Set(GAMES.flatMap((g) => g.facts))];

/**
 * The game's card hooks; a game the list lacks (a newer table's) is drawn as the first game's
 * card without its facts rather than not at all.
 * @param {string | undefined} name
 * @returns {CardGame}
 */
export function cardGame(name) {
  return GAMES.find((g) => g.name === name) ?? { ...GAMES[0], name: String(name), points: false, worm: false, facts: [], shown: () => ({}) };
}
