// @ts-check
// What a page has received from the broker, kept apart from the session that brought it
// (shared/broker.js is the transport; this is the store): the latest payload of each topic, read
// as every page reads one (shared/payloads.js), and the page told once an animation frame what
// changed. Many messages in one frame (every table's retained topics on a connect, 256 tables'
// states a second) are one notification, each topic with its latest value. A page that is hidden
// gets no animation frames: a timer notifies it then, so nothing piles up behind a frame that
// never comes (what piles up is only the latest value of each topic, whatever the rate).

import { readPayload } from "./payloads.js";

/**
 * @typedef {{value: unknown, at: number, retained: boolean}} Entry
 *   a topic's latest payload (null: cleared), when it came (ms since the epoch), and whether the
 *   broker sent it as retained (on subscribing) rather than live
 * @typedef {(changed: Map<string, Entry>) => void} Listener
 *   the topics changed since the last notification, each with its latest entry (empty when only
 *   the page's own things changed: `touch`)
 * @typedef {{frame?: (run: () => void) => unknown, timer?: (run: () => void, ms: number) => unknown,
 *   cancel?: (id: unknown) => void, now?: () => number, fallbackMs?: number}} Clock
 *   how notifications are timed (tests give their own): an animation frame, and a timer for a
 *   page that gets none (hidden, throttled) after `fallbackMs`
 */

export class Store {
  /** @param {Clock} [clock] */
  constructor(clock = {}) {
    /** @type {Map<string, Entry>} */
    this.entries = new Map();
    /** @type {Map<string, Entry>} the topics changed since the last notification */
    this.changed = new Map();
    /** @type {Set<Listener>} */
    this.listeners = new Set();
    this.frame = clock.frame || ((run) => requestAnimationFrame(run));
    this.timer = clock.timer || ((run, ms) => setTimeout(run, ms));
    this.cancel = clock.cancel || ((id) => clearTimeout(/** @type {ReturnType<typeof setTimeout>} */ (id)));
    this.now = clock.now || Date.now;
    this.fallbackMs = clock.fallbackMs ?? 250;
    this.scheduled = false;
    /** @type {unknown} */
    this.fallback = null;
    this.notifications = 0; // how many times the listeners were told (the bench, the tests)
  }

  /** A topic's latest payload, or undefined when none came (null: it was cleared). @param {string} topic */
  get(topic) {
    const e = this.entries.get(topic);
    return e ? e.value : undefined;
  }

  /** A topic's latest entry. @param {string} topic */
  entry(topic) {
    return this.entries.get(topic);
  }

  /**
   * Keep `value` as the topic's latest (it replaces the one before, told or not) and notify at
   * the next frame. @param {string} topic @param {unknown} value @param {boolean} [retained]
   */
  put(topic, value, retained = false) {
    const e = { value, at: this.now(), retained };
    this.entries.set(topic, e);
    this.changed.set(topic, e);
    this.schedule();
  }

  /** Forget a topic (a table gone), told as cleared (null). @param {string} topic */
  drop(topic) {
    if (!this.entries.delete(topic)) return;
    this.changed.set(topic, { value: null, at: this.now(), retained: false });
    this.schedule();
  }

  /** Forget everything (signing out); the listeners told at the next frame. */
  clear() {
    this.entries.clear();
    this.changed.clear();
    this.schedule();
  }

  /** Something the page shows changed that came from no topic (its own bookkeeping): notify at the next frame. */
  touch() {
    this.schedule();
  }

  /** Be told at most once a frame. @param {Listener} listener @returns {() => void} to stop */
  subscribe(listener) {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    this.frame(() => this.flush());
    // A hidden or throttled page gets no animation frames; the timer tells it still.
    this.fallback = this.timer(() => this.flush(), this.fallbackMs);
  }

  /** Tell the listeners now (the frame's or the timer's turn; the other one then finds nothing to do). */
  flush() {
    if (!this.scheduled) return;
    this.scheduled = false;
    if (this.fallback !== null) { this.cancel(this.fallback); this.fallback = null; }
    const changed = this.changed;
    this.changed = new Map();
    this.notifications += 1;
    for (const listener of [...this.listeners]) listener(changed);
  }
}

/**
 * The session's message handler (shared/broker.js's `message`) that reads each payload into the
 * store as every page reads one (shared/payloads.js): checked against its topic's schema, a
 * refused one said through `problem` and not kept.
 * @param {Store} store
 * @param {{schemaOf?: (topic: string) => import("./validate.js").Schema | undefined,
 *   problem?: (text: string, topic: string) => void}} [how]
 * @returns {(topic: string, payload: Uint8Array, packet?: {retain?: boolean}) => void}
 */
export function intoStore(store, how = {}) {
  return (topic, payload, packet) => {
    const read = readPayload(topic, payload, how.schemaOf ? how.schemaOf(topic) : undefined);
    if (read.problem !== undefined) { if (how.problem) how.problem(read.problem, topic); return; }
    store.put(topic, read.value, Boolean(packet && packet.retain));
  };
}
