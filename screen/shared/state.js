// @ts-check
// The shapes the pages read, as JSDoc types for `npm run check` (the browser never loads this
// file: only `import("./state.js")` in comments names it). They follow the contract
// (docs/state.md, schema/state.schema.json): what a page shows it first checks against the
// schema, so these are the fields it may rely on; the rest the pages pass through unread.

/**
 * The payloads' own types are generated from the schemas (types.gen.js, tools/schema_types.mjs);
 * these names are the pages' for them: one shape whatever the game, a side of either game's.
 * @typedef {import("./types.gen.js").StatePayload} StatePayload
 * @typedef {import("./types.gen.js").StateSnookerSide} SnookerSide
 * @typedef {import("./types.gen.js").StateBlackballSide} BlackballSide
 * @typedef {Pick<SnookerSide, "name" | "players" | "frames"> & Partial<SnookerSide> & Partial<BlackballSide>} Side
 * @typedef {NonNullable<StatePayload["clock"]>} ScheduledClock
 * @typedef {ScheduledClock & {left?: number, ends_at?: string, call_at?: string, paused?: boolean}} Clock
 *   the shot clock; `paused` (held) the table publishes (cueboard/table/clock_control.py) but
 *   schema/state.schema.json does not list yet
 * @typedef {Omit<StatePayload, "sides" | "clock"> & {sides: Side[], clock?: Clock | null}} State
 * @typedef {NonNullable<State["snookers_required"]>} SnookersRequired
 * @typedef {NonNullable<State["next"]>} Next
 *   the match the desk handed the table, as the table holds it
 * @typedef {NonNullable<State["message"]>} Message the desk's message, as the table shows it
 * @typedef {{
 *   schema?: number, fixture?: string, competition?: string | null,
 *   sides: (string | string[] | {name?: string})[],
 *   format?: {game?: string, best_of?: number, race_to?: number, [field: string]: unknown},
 *   handed_by?: string}} HandedNext
 *   `<prefix>/next` as the desk writes it (docs/mqtt.md)
 */

export {};
