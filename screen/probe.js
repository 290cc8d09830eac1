// @ts-check
// The screen's figures for bench/screen.py (`?stats=1`), loaded only then: the page calls these
// hooks when it has one, and no figure is kept otherwise. Per state: when it was handled (parsed,
// checked, in the table's record), and for a table on the page when its card was drawn with it,
// each with its lag from the state's `ts`; the frames drawn, the cards patched, the pages, and
// the main thread's long tasks. bench/screen_driver.mjs reads them as `window.cueboardStats`.

/**
 * @typedef {{handled: [number, number][], shown: [number, number][], states: number, flushes: number,
 *   patched: number, pages: number, long: [number, number][]}} Stats
 */

export class Probe {
  constructor() {
    /** @type {Stats} */
    this.stats = { handled: [], shown: [], states: 0, flushes: 0, patched: 0, pages: 0, long: [] };
    /** @type {Map<string, string>} a table's oldest state not yet drawn (its `ts`) */
    this.waiting = new Map();
    Object.assign(window, { cueboardStats: this.stats });
    const long = this.stats.long; // tasks over 50 ms: [when (epoch ms), how long]
    try {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) long.push([Math.round(performance.timeOrigin + e.startTime), Math.round(e.duration)]);
      }).observe({ type: "longtask" });
    } catch { /* not in this browser */ }
  }

  /** A state taken into its table's record. @param {string} key @param {string} ts @param {number} now */
  handled(key, ts, now) {
    this.stats.states++;
    this.stats.handled.push([now, now - Date.parse(ts)]);
    if (!this.waiting.has(key)) this.waiting.set(key, ts);
  }

  /** A card drawn with its table's newest state. @param {string} key @param {number} now */
  drawn(key, now) {
    this.stats.patched++;
    const ts = this.waiting.get(key);
    if (ts === undefined) return;
    this.stats.shown.push([now, now - Date.parse(ts)]);
    this.waiting.delete(key);
  }

  /** A frame drawn: the tables off the page had their states handled, nothing more to draw. @param {Set<string>} onPage */
  flushed(onPage) {
    this.stats.flushes++;
    for (const key of this.waiting.keys()) if (!onPage.has(key)) this.waiting.delete(key);
  }

  /** @param {number} n */
  pages(n) {
    this.stats.pages = n;
  }
}
