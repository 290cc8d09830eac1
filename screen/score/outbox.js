// @ts-check
// The scorer's taps, kept in the page's storage until the table answers each (docs/scorer.md).
//
// Every tap gets an id the moment it is made (the login, this device's tag, a counter kept in
// storage), so a tap sent twice (a retry, a reload in the middle of a send, a second tab) is
// applied once: the table answers a known id again without applying it (docs/events.md, "Any
// input: an id for retries"). Taps go one at a time, in the order they were made; a tap the
// table refuses while later taps wait holds them until the scorer chooses to send or drop them,
// since they were made on the understanding that the refused one counted.
//
// Pure logic over a Storage (localStorage in the page, a Map-like object in tests): the page
// calls it under a Web Lock, so two tabs never interleave a read and a write.

export const KEEP_ANSWERED = 40; // answered taps kept to show, newest last

/**
 * @typedef {"waiting" | "sent" | "applied" | "refused" | "dropped"} TapStatus
 * @typedef {{id: string, line: {[field: string]: unknown, id: string}, label: string, status: TapStatus, made: number,
 *   reason: string | null, answer: string | null, held?: boolean}} Tap
 * @typedef {{next: number, device: string, taps: Tap[], held: boolean}} Book
 * @typedef {Pick<Storage, "getItem" | "setItem">} Store
 */

/** @param {string} device @returns {Book} */
export function emptyBook(device) {
  return { next: 1, device, taps: [], held: false };
}

export function randomTag() {
  const bytes = new Uint8Array(4);
  crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export class Outbox {
  /** @param {Store} storage @param {string} key */
  constructor(storage, key) {
    this.storage = storage;
    this.key = key;
  }

  /** @returns {Book} */
  read() {
    try {
      const book = JSON.parse(this.storage.getItem(this.key) || "null");
      if (book && Array.isArray(book.taps) && Number.isInteger(book.next)) return book;
    } catch {
      // unreadable: a new book below (the table still knows every id it answered)
    }
    return emptyBook(randomTag());
  }

  /** @param {Book} book */
  write(book) {
    const answered = book.taps.filter((t) => t.status === "applied" || t.status === "refused" || t.status === "dropped");
    const extra = answered.length - KEEP_ANSWERED;
    if (extra > 0) {
      const gone = new Set(answered.slice(0, extra).map((t) => t.id));
      book.taps = book.taps.filter((t) => !gone.has(t.id));
    }
    this.storage.setItem(this.key, JSON.stringify(book));
    return book;
  }

  // A new tap, waiting: its id is `<user>-<device>-<n>` (at most 64 characters), and `t` the
  // time it was tapped (Unix seconds: docs/events.md), so a tap made offline keeps its time.
  /** @param {string} user @param {{[field: string]: unknown}} line @param {string} label @param {number} now */
  add(user, line, label, now) {
    const book = this.read();
    const id = `${user}-${book.device}-${book.next}`.slice(-64);
    book.next += 1;
    /** @type {Tap} */
    const tap = { id, line: { ...line, id, t: Math.round(now) / 1000 }, label, status: "waiting", made: now, reason: null, answer: null };
    book.taps.push(tap);
    this.write(book);
    return tap;
  }

  // The tap to send next, or null: the first not answered, unless the book is held.
  /** @param {Book} [book] */
  head(book = this.read()) {
    if (book.held) return null;
    return book.taps.find((t) => t.status === "waiting" || t.status === "sent") || null;
  }

  /** @param {string} id @param {TapStatus} status */
  mark(id, status) {
    const book = this.read();
    const tap = book.taps.find((t) => t.id === id);
    if (tap && (tap.status === "waiting" || tap.status === "sent")) tap.status = status;
    return this.write(book);
  }

  // The table's answer to `id`: "applied" (with what it did) or "refused" (with the reason).
  // A refusal while later taps wait holds them. An id not in the book (another device's, or an
  // answer given again) changes nothing.
  /**
   * @param {string} id @param {"applied" | "refused"} verdict @param {string | null} reason
   * @param {string | null} [answer]
   */
  answer(id, verdict, reason, answer = null) {
    const book = this.read();
    const tap = answerIn(book, id, verdict, reason, answer);
    if (tap) this.write(book);
    return tap;
  }

  // The scorer's choice after a refusal: send the held taps on, or drop them (never sent).
  /** @param {boolean} send */
  release(send) {
    const book = this.read();
    if (!send) {
      for (const t of book.taps) if (t.status === "waiting" || t.status === "sent") t.status = "dropped";
    }
    book.held = false;
    return this.write(book);
  }

  /** @param {Book} [book] */
  pending(book = this.read()) {
    return book.taps.filter((t) => t.status === "waiting" || t.status === "sent");
  }
}

/**
 * The table's answer to `id` written into `book` (changed in place), as `Outbox.answer` keeps it;
 * the tap, or null when `id` is not waiting for an answer in it. The page draws an answer from its
 * copy of the book at once with this, before the book in storage has it.
 * @param {Book} book @param {string} id @param {"applied" | "refused"} verdict @param {string | null} reason
 * @param {string | null} [answer]
 */
export function answerIn(book, id, verdict, reason, answer = null) {
  const tap = book.taps.find((t) => t.id === id);
  if (!tap || tap.status === "applied" || tap.status === "refused" || tap.status === "dropped") return null;
  tap.status = verdict;
  tap.reason = reason;
  tap.answer = answer;
  if (verdict === "refused" && book.taps.some((t) => t.status === "waiting" || t.status === "sent")) {
    book.held = true;
    tap.held = true;
  }
  return tap;
}

// What a `rejected` answer to one of our ids means, read off its machine `code` only (docs/mqtt.md,
// "Refusal codes"; its `reason` is words for the person, in the table's language, and may change):
// a repeat of an id already applied is an application (the first answer given again), `later`
// (a rate, a queue, no answer in time) is no answer yet; anything else is a refusal, shown.
/**
 * @param {{code?: unknown, reason?: unknown}} msg
 * @returns {{verdict: "applied" | "refused" | "later", reason: string | null}}
 */
export function verdictOf(msg) {
  const text = String(msg.reason || "");
  if (msg.code === "repeat_applied") return { verdict: "applied", reason: null };
  if (msg.code === "later") return { verdict: "later", reason: text };
  return { verdict: "refused", reason: text };
}
