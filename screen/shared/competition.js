// @ts-check
// Tonight's competition as every page reads it (the retained `cueboard/<venue>/competition`,
// docs/mqtt.md): its shape, a side's name, where a match stands, the champion. Pure. The desk's
// desk/competition.js keeps the competition (hands, moves winners on, ranks the table); the
// bracket page only shows it.

/**
 * @typedef {string | string[]} Side
 * @typedef {{fixture: string, label: string, round: number, sides: (Side | null)[], handicap: number[],
 *   bye: boolean[], winner: number | null, next: {fixture: string, side: number} | null, format: any,
 *   table?: string | null, started?: boolean, frames?: number[] | null, handed_by?: string | null,
 *   competition?: string, home_team?: string | null, away_team?: string | null}} Match
 * @typedef {{schema: number, id: string, name: string, kind: string, format: any, rounds: number,
 *   handicaps?: Record<string, number>, seed?: number | null, seeded?: boolean, matches: Match[],
 *   rev?: number, by?: string, ts?: string, created?: string}} Competition
 */

/** A side's name as the table shows it ("Cat Lee & Dan Ross" for a pair). */
export function sideName(/** @type {Side | null} */ side) {
  if (side === null || side === undefined) return "";
  return Array.isArray(side) ? side.join(" & ") : side;
}

/**
 * Where a match stands: waiting (a player to come), ready (to be handed), handed (on a table's
 * `next`), playing (started on its table), done (a winner), bye (a walkover of the draw).
 * @param {Match} m
 */
export function status(m) {
  if (m.winner !== null && m.winner !== undefined) return m.bye && (m.bye[0] || m.bye[1]) ? "bye" : "done";
  if (m.table && m.started) return "playing";
  if (m.table) return "handed";
  if (m.sides[0] !== null && m.sides[1] !== null) return "ready";
  return "waiting";
}

/** The champion of a knockout (the final's winner), or null. */
export function champion(/** @type {Competition} */ c) {
  if (c.kind !== "knockout" || !c.matches.length) return null;
  const final = c.matches[c.matches.length - 1];
  return final.winner === null || final.winner === undefined ? null : sideName(final.sides[final.winner]);
}
