// @ts-check
// The shapes the pages read, as JSDoc types for `npm run check` (the browser never loads this
// file: only `import("./state.js")` in comments names it). They follow the contract
// (docs/state.md, schema/state.schema.json): what a page shows it first checks against the
// schema, so these are the fields it may rely on; the rest the pages pass through unread.

/**
 * @typedef {{
 *   name: string, players?: string[], score: number, frames: number,
 *   group?: string | null, balls_left?: number | null}} Side
 * @typedef {{running: boolean, ends_at?: string, call_at?: string, left?: number, length?: number, paused?: boolean}} Clock
 * @typedef {{side: number, count: number | null}} SnookersRequired
 * @typedef {{fixture: string, competition: string | null, names: string[]}} Next
 *   the match the desk handed the table, as the table holds it
 * @typedef {{text: string, until: string | null}} Message the desk's message, as the table shows it
 * @typedef {{
 *   schema: number, game: string, seq: number, frame: number, best_of?: number, race_to?: number | null,
 *   striker: number | null, player?: string | null, frame_over: boolean, frame_winner?: number | null,
 *   match_over: boolean, match_winner?: number | null, shot_clock?: number | null, shot_clock_call?: number | null,
 *   clock?: Clock | null, table?: string, ts: string, sides: Side[],
 *   break?: number, remaining?: number, reds?: number, colours?: string[], ball_on?: string | null, free_ball?: boolean,
 *   snookers_required?: SnookersRequired | null, respotted_black?: boolean,
 *   open_table?: boolean, visits?: number, free_shot?: boolean, black_on?: boolean,
 *   next?: Next | null, message?: Message | null}} State
 * @typedef {{
 *   schema?: number, fixture?: string, competition?: string | null,
 *   sides: (string | string[] | {name?: string})[],
 *   format?: {game?: string, best_of?: number, race_to?: number, [field: string]: unknown},
 *   handed_by?: string}} HandedNext
 *   `<prefix>/next` as the desk writes it (docs/mqtt.md)
 */

export {};
