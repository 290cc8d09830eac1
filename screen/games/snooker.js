// @ts-check
// Snooker on a table's card: the points this frame are the big numbers, the worm below them,
// and the frame's facts (docs/screen.md): the break, the points remaining, the ball on, a free
// ball (Section 3 Rule 10), snookers required, a re-spotted black (Section 3 Rule 4(c)).

/** @typedef {import("./game.js").CardGame} CardGame */

/** @type {CardGame} */
export const snooker = {
  name: "snooker",
  points: true,
  worm: true,
  facts: ["break", "remaining", "ball-on", "free-ball", "snookers", "snookers-n", "respot"],
  // Best of n frames; nothing for a single frame.
  length: (match, t) => (match.best_of && match.best_of > 1 ? t("best_of", { n: match.best_of }, "snooker") : ""),
  group: () => null,
  shown(s, t, name) {
    const sr = s.snookers_required;
    const counted = sr && !s.frame_over && sr.count !== null ? sr.count : null;
    return {
      break: s.striker === null ? null : { label: t("break"), value: s.break ?? 0 },
      remaining: s.frame_over ? null : { label: t("remaining"), value: s.remaining ?? 0 },
      "ball-on": s.ball_on ? { label: t("ball_on"), value: t(`ball.${s.ball_on}`), ball: s.ball_on } : null,
      "free-ball": s.free_ball ? { value: t("free_ball") } : null,
      snookers: !sr || s.frame_over ? null
        : { value: sr.count === null ? t("cannot_win", { name: name(sr.side) }) : t("snookers", { name: name(sr.side), n: sr.count }) },
      // The list has no room for the sentence: the count, labelled (the side behind needs them).
      "snookers-n": counted === null ? null : { label: t("snookers_label"), value: counted },
      // Once the frame is over the re-spotted black is history, not something to play (Section 3 Rule 4(c)).
      respot: s.respotted_black && !s.frame_over ? { value: t("respotted_black") } : null,
    };
  },
};
