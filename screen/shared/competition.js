// @ts-check
// Tonight's competition as every page reads it (the retained `cueboard/<venue>/competition`,
// docs/mqtt.md): its shape, a side's name, where a match stands, the champion. Pure. The desk's
// desk/competition.js keeps the competition (hands, moves winners on, ranks the table); the
// bracket page only shows it.

/**
 * @typedef {string | string[]} Side
 * @typedef {{game?: string, best_of?: number, race_to?: number, handicap?: number[], [field: string]: unknown}} Format
 *   a match's format as a line of the table's `match` command has it (docs/mqtt.md `next`)
 * @typedef {{fixture: string, label: string, round: number, sides: (Side | null)[], handicap: number[],
 *   bye: boolean[], winner: number | null, next: {fixture: string, side: number} | null, format?: Format | null,
 *   table?: string | null, started?: boolean, frames?: number[] | null, handed_by?: string | null,
 *   competition?: string, home_team?: string | null, away_team?: string | null, reserved?: string | null,
 *   walkover?: boolean, group?: string, from?: ({group: string, place: number} | null)[]}} Match
 *   (`walkover`: won without being played, `frames` null; `group`: a groups night's group match;
 *   `from`: a knockout side still to come from a group's place; docs/desk.md "Groups into a knockout")
 * @typedef {{schema: number, id: string, name: string, kind: string, format: Format, rounds: number,
 *   handicaps?: Record<string, number>, seed?: number | null, seeded?: boolean | null, matches: Match[],
 *   rev?: number, by?: string, ts?: string, created?: string, auto?: boolean, auto_by?: string,
 *   groups?: Record<string, string[]>, advance?: number, withdrawn?: string[]}} Competition
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
  if (m.walkover) return "done"; // never handed to a table (two withdrawn players' group match has no winner)
  if (m.winner !== null && m.winner !== undefined) return m.bye && (m.bye[0] || m.bye[1]) ? "bye" : "done";
  if (m.table && m.started) return "playing";
  if (m.table) return "handed";
  if (m.sides[0] !== null && m.sides[1] !== null) return "ready";
  return "waiting";
}

/** The champion of a knockout (the final's winner), or null. */
export function champion(/** @type {Competition} */ c) {
  if ((c.kind !== "knockout" && c.kind !== "groups") || !c.matches.length) return null; // a groups night ends in its knockout's final
  const final = c.matches[c.matches.length - 1];
  return final.winner === null || final.winner === undefined ? null : sideName(final.sides[final.winner]);
}

/**
 * @typedef {{position: number, name: string, played: number, won: number, lost: number, frames_for: number,
 *   frames_against: number, frame_difference: number, points: number}} StandingsRow
 */

/**
 * What the night's table is made of, for `POST /desk/api/standings` (cueboard/venue/desk_routes.py):
 * its players or pairs (every side drawn, in the draw's order) and its finished matches (a bye is
 * none). Not ranked here: the order is the league's one ranking, cueboard/league/standings.py's
 * `rank`, as the route answers it (docs/league.md "The league table's rules").
 * @param {Competition} c
 * @returns {{players: string[], results: {sides: string[], winner: number, frames: number[] | null}[]}}
 */
export function standingsRequest(c) {
  /** @type {Set<string>} */
  const players = new Set();
  const results = [];
  for (const m of c.matches) {
    const names = m.sides.map(sideName);
    for (const n of names) if (n) players.add(n);
    if (m.winner === null || m.winner === undefined || (m.bye && (m.bye[0] || m.bye[1]))) continue;
    results.push({ sides: names, winner: m.winner, frames: m.frames ? [m.frames[0] || 0, m.frames[1] || 0] : null });
  }
  return { players: [...players], results };
}
