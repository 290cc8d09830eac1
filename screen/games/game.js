// @ts-check
// What a game puts on a table's card (card.js), one module a game beside this file, one list in
// games.js: a new game is a module and a line there. The card itself knows no game by name.

/**
 * @typedef {import("../shared/state.js").State} State
 * @typedef {import("../shared/state.js").Side} Side
 * @typedef {import("../shared/i18n.js").Translator} Translator
 * @typedef {{label?: string, value: string | number, ball?: string}} Fact
 *   a fact shown: its value, with a label above it and a ball's colour where it has them
 * @typedef {{group: string, letter: string, text: string, left: string}} Group
 * @typedef {{
 *   name: string,
 *   points: boolean,
 *   worm: boolean,
 *   facts: readonly string[],
 *   length: (match: {best_of?: number, race_to?: number | null}, t: Translator) => string,
 *   group: (side: Side, t: Translator) => Group | null,
 *   shown: (s: State, t: Translator, name: (side: number | null | undefined) => string) => Record<string, Fact | null>}} CardGame
 *   name: the state's `game`; points: the sides' points this frame are the big numbers (else the
 *   frames won are); worm: the score worm is drawn; facts: the fact slots it fills, in order;
 *   length: the match's length as the game says it ("" for none); group: a side's group, if the
 *   game has them; shown: each of its facts, null where there is nothing to say
 */

export {};
