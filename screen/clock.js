// @ts-check
// The shot clock as the audience sees it, from the state's `clock` (shared/contract/mqtt.md):
// {"running": true, "ends_at": ts, "call_at": ts, "length": 60} counts down on the screen itself
// (the daemon republishes only when the clock starts, stops, pauses, resumes or calls);
// {"running": false, "left": 42.0, "length": 60} stands still; with "paused": true the referee holds
// it (`held`: the card says so in words and dims the seconds). A state without `clock` (a daemon
// from before the clock was published) shows its `shot_clock` seconds, still.
//
// Whole seconds rounded up, as the LED boards count (cueboard/boards/view.py): the last second
// shows 1, and 0 only once time is up. The call (blackball rule 8a: "30 secondes", 30 s into a
// 60 s shot) is made at `call_at`; a paused clock shows it made once `shot_clock_call` seconds
// of the shot have gone.
//
// `skew` is how far the page's clock is ahead of the table's (ms), estimated from live messages'
// `ts`: a TV whose clock is a few seconds out still counts the right seconds.

/**
 * @typedef {{seconds: number, running: boolean, called: boolean, expired: boolean, length?: number,
 *   held?: boolean, still?: boolean, leftMs?: number, callInMs?: number}} ClockView
 *   what a clock shows now: its whole seconds, running or still, held by the referee, the call
 *   made, out of time; `still`: only the match's setting, from a daemon before `clock`
 */

/** @param {unknown} ts */
const parseTime = (ts) => (typeof ts === "string" ? Date.parse(ts) : NaN);

/**
 * @param {import("./shared/state.js").State} state @param {number} skew @param {number} now
 * @returns {ClockView | null}
 */
export function clockAt(state, skew, now) {
  const c = state.clock;
  if (c && typeof c === "object") {
    const length = c.length;
    if (c.running) {
      const ends = parseTime(c.ends_at) + skew;
      if (!Number.isFinite(ends)) return null;
      const leftMs = ends - now;
      const callAt = parseTime(c.call_at) + skew;
      const called = Number.isFinite(callAt) ? now >= callAt : false;
      return { seconds: Math.min(999, Math.ceil(Math.max(0, leftMs) / 1000)), running: true, called,
        expired: leftMs <= 0, leftMs, callInMs: Number.isFinite(callAt) ? callAt - now : Infinity, length };
    }
    const left = Math.max(0, Number(c.left) || 0);
    const call = state.shot_clock_call;
    const called = typeof call === "number" && typeof length === "number" && length - left >= call;
    // Held by the referee (rule 8a: "paused": true): shown as held, never as a clock running.
    return { seconds: Math.min(999, Math.ceil(left)), running: false, held: c.paused === true, called,
      expired: left <= 0, length };
  }
  if (typeof state.shot_clock === "number") {
    return { seconds: Math.ceil(state.shot_clock), running: false, called: false, expired: false, still: true,
      length: state.shot_clock };
  }
  return null;
}

// Whether the audience sees a clock at all: only when the match has one and it is in use, running,
// stopped part-way through a shot, or out of time. A clock that has not started on this shot
// (left == length) says nothing ("◷ 60" on every idle table), and a state with only its
// `shot_clock` setting (a daemon from before `clock` was published) has no clock to show.
/** @param {ClockView | null} view */
export function clockShown(view) {
  if (!view || view.still) return null;
  if (view.running || view.expired || view.called) return view;
  return typeof view.length === "number" && view.seconds >= Math.ceil(view.length) ? null : view;
}

// Milliseconds until what a running clock shows next changes: its next whole second or its call.
/** @param {ClockView | null} view */
export function nextChangeMs(view) {
  if (!view || !view.running || view.expired || view.leftMs === undefined) return Infinity;
  const toSecond = ((view.leftMs % 1000) + 1000) % 1000 || 1000;
  return Math.min(toSecond, view.callInMs !== undefined && view.callInMs > 0 ? view.callInMs : Infinity);
}
