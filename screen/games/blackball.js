// @ts-check
// Blackball on a table's card: the frames won are the big numbers; each side's group (its disc
// with its letter, never colour alone, and the balls it has left) and the frame's facts: an open
// table, the visits of the player at the table, a free shot, the black on (blackball-fr.txt).

/** @typedef {import("./game.js").CardGame} CardGame */

/** @type {CardGame} */
export const blackball = {
  name: "blackball",
  points: false,
  worm: false,
  facts: ["open", "visits", "free-shot", "black-on"],
  // First to n frames ("race to").
  length: (match, t) => (match.race_to ? t("race_to", { n: match.race_to }, "blackball") : ""),
  group(side, t) {
    if (!side.group) return null;
    return { group: side.group, letter: t(`letter.${side.group}`), text: t(`group.${side.group}`),
      left: side.balls_left === null || side.balls_left === undefined ? "" : t("balls_left", { n: side.balls_left }) };
  },
  shown(s, t) {
    return {
      open: s.open_table && !s.frame_over ? { value: t("open_table") } : null,
      visits: s.frame_over || s.striker === null ? null : { label: t("visits"), value: s.visits ?? 0 },
      "free-shot": s.free_shot ? { value: t("free_shot") } : null,
      "black-on": s.black_on && !s.frame_over ? { value: t("black_on") } : null,
    };
  },
};
