// @ts-check
// The desk's link to the venue broker: one MQTT 5 session over secure WebSockets as the desk's
// login, every table's topics read into one store, and each line sent on the table's
// `command/<user>` topic with an id whose answer (`event` or `rejected`, or for a match line
// the new match's state) is matched back to it. The broker's ACL decides who may: a login that
// may not write the topic gets "Not authorized" in its PUBACK, shown as such.

import { byTable } from "./lines.js";
import { Session, tableTopics } from "../shared/broker.js";

const decoder = new TextDecoder();
const HISTORY = 500; // events kept a table (a long frame is ~150)
const UNANSWERED_MS = 15000; // a table answers in well under a second; an offline one never

/**
 * @typedef {{name: string, status: string | null, devices: Record<string, string> | null,
 *   state: any, rejected: any, input: any, record: any, events: any[], message: any, seen: number, fresh: boolean,
 *   next: any, nextSeen: boolean, history: any, since: number}} Table
 * @typedef {{id: string, table: string, what: string, line: any, state: string, reason?: string, sentAt: number}} Pending
 */

export class Link {
  /**
   * @param {{broker: string, venue: string, prefix: string}} where
   * @param {() => void} changed called (at most once a frame) when anything shown changed
   */
  constructor(where, changed) {
    this.where = where;
    /** @type {Map<string, Table>} */
    this.tables = new Map();
    /** @type {Map<string, Pending>} */
    this.pending = new Map();
    /** @type {Set<string>} */
    this.names = new Set(); // players seen this session: the forms' typeahead
    /** @type {Map<string, {table: string, record: any}>} */
    this.results = new Map();
    this.connection = "signed-out"; // signed-out, connecting, online, offline, refused
    this.refusal = "";
    this.user = "";
    /** @type {any} */
    this.client = null;
    /** The venue's own retained topics (docs/mqtt.md): tonight's competition, the desks' presets and players. */
    this.competition = /** @type {any} */ (null);
    this.presets = /** @type {any[]} */ ([]);
    this.players = /** @type {string[]} */ ([]);
    this.venueSeen = false; // the retained venue topics have been read once (or are empty)
    /** @type {Map<string, any>} */
    this.previews = new Map(); // an amend's preview answers (`<prefix>/preview`), by the line's id
    /** @type {(() => void) | null} */
    this.onTables = null; // called after a table's state, next or record changed (the night's driver)
    this._changed = changed;
    this._scheduled = false;
  }

  changed() {
    if (this._scheduled) return;
    this._scheduled = true;
    requestAnimationFrame(() => { this._scheduled = false; this._changed(); });
  }

  /** Sign in: the session is the proof; a refused login is said with the broker's reason. */
  signIn(/** @type {string} */ user, /** @type {string} */ password) {
    this.signOut();
    this.user = user;
    this.connection = "connecting";
    this.refusal = "";
    const topics = tableTopics(`${this.where.prefix}/${this.where.venue}`, null,
      ["state", "status", "devices", "rejected", "event", "input", "record", "message", "next", "history", "preview"])
      .concat(Object.keys(this.venueTopics()));
    // The shared session (shared/broker.js): a refused login (CONNACK 134/135) is not tried again.
    const session = new Session({ broker: this.where.broker, who: user, user, password, v5: true, reconnectMs: 3000 }, {
      topics: () => topics,
      message: (topic, payload) => this.received(topic, payload),
      link: (link, detail) => {
        if (link === "online") {
          this.connection = "online";
          // The venue's retained topics come right after the subscription; one that has not
          // come by then does not exist yet (a new venue): the desk may write it.
          setTimeout(() => { this.venueSeen = true; }, 1500);
        } else if (link === "refused") { this.connection = "refused"; this.refusal = detail; }
        else if (link === "offline" && this.connection === "online") this.connection = "offline";
        this.changed();
      },
    });
    this.client = session.client;
  }

  signOut() {
    if (this.client) this.client.end(true);
    this.client = null;
    this.connection = "signed-out";
    this.tables.clear();
    this.pending.clear();
    this.competition = null;
    this.presets = [];
    this.players = [];
    this.venueSeen = false;
    this.changed();
  }

  /** The venue's topics the desk reads and writes, by topic: what each is kept as. */
  venueTopics() {
    const v = `${this.where.prefix}/${this.where.venue}`;
    return { [`${v}/competition`]: "competition", [`${v}/desk/presets`]: "presets", [`${v}/desk/players`]: "players" };
  }

  /** Publish one of the venue's topics (retained; null clears it), kept here at once. */
  publishVenue(/** @type {string} */ kind, /** @type {any} */ body, /** @type {(e: any) => void} */ done = () => {}) {
    const topic = Object.entries(this.venueTopics()).find(([, k]) => k === kind)?.[0];
    if (!this.client || !topic) { done(new Error("not connected to the broker")); return; }
    this.keepVenue(kind, body);
    this.client.publish(topic, body === null ? "" : JSON.stringify(body), { qos: 1, retain: true }, done);
    this.changed();
  }

  keepVenue(/** @type {string} */ kind, /** @type {any} */ body) {
    if (kind === "competition") {
      const c = body && Array.isArray(body.matches) ? body : null;
      // Our own publishes come back in order, but an older one may arrive after a newer one was
      // kept here: a competition older (by `rev`) than the one kept is no news.
      const kept = this.competition;
      if (c && kept && c.id === kept.id && (c.rev || 0) < (kept.rev || 0)) return;
      this.competition = c;
    }
    else if (kind === "presets") this.presets = body && Array.isArray(body.presets) ? body.presets : [];
    else if (kind === "players") this.players = body && Array.isArray(body.names) ? body.names.filter((/** @type {any} */ n) => typeof n === "string") : [];
  }

  table(/** @type {string} */ name) {
    let tb = this.tables.get(name);
    if (!tb) {
      tb = { name, status: null, devices: null, state: null, rejected: null, input: null, record: null, events: [],
        message: null, seen: 0, fresh: false, next: null, nextSeen: false, history: null, since: 0 };
      this.tables.set(name, tb);
    }
    return tb;
  }

  /** The tables, in the venue's order. */
  sorted() {
    return [...this.tables.values()].sort((a, b) => byTable(a.name, b.name));
  }

  received(/** @type {string} */ topic, /** @type {Uint8Array} */ payload) {
    const text = decoder.decode(payload);
    let body = null;
    if (text && !topic.endsWith("/status")) {
      try { body = JSON.parse(text); } catch (e) { console.warn(`${topic}: not JSON`); return; }
    }
    const venueKind = this.venueTopics()[topic];
    if (venueKind) {
      this.keepVenue(venueKind, body);
      this.venueSeen = true;
      if (venueKind === "competition" && this.onTables) this.onTables();
      this.changed();
      return;
    }
    const parts = topic.split("/");
    const kind = parts[parts.length - 1];
    const name = parts[parts.length - 2];
    const tb = this.table(name);
    tb.seen = Date.now();
    if (kind === "status") {
      const now = text || null;
      if (now !== tb.status) tb.since = Date.now();
      tb.status = now;
      if (this.onTables) this.onTables();
      this.changed();
      return;
    }
    if (kind === "state") {
      tb.state = body;
      for (const side of (body && body.sides) || []) for (const p of side.players || [side.name]) this.names.add(p);
      // A new match (seq 0 not reached by an undo, whose event may come before or after this
      // state): its history starts with its first event.
      const last = tb.events[tb.events.length - 1];
      if (body && body.seq === 0 && !(last && last.seq === 0 && last.event && last.event.type === "undo")) tb.fresh = true;
      this.settleMatch(name, body);
      if (this.onTables) this.onTables();
    } else if (kind === "devices") tb.devices = body;
    else if (kind === "input") tb.input = body && body.keys && body.keys.length ? body : null;
    else if (kind === "record") {
      tb.record = body;
      // Tonight's results: every finished match seen, kept by table and start (a reprint of any).
      if (body && body.winner !== null && body.winner !== undefined) this.results.set(`${name} ${body.started || ""} ${(body.sides || []).map((/** @type {any} */ s) => s.name).join(" v ")}`, { table: name, record: body });
      if (this.onTables) this.onTables();
    }
    else if (kind === "message") tb.message = body;
    else if (kind === "next") {
      tb.next = body && body.fixture ? body : null;
      tb.nextSeen = tb.nextSeen || !!tb.next;
      if (this.onTables) this.onTables();
    }
    else if (kind === "history" && body && Array.isArray(body.events)) {
      // The table's own list of the match's events (retained): after a reload the history is whole.
      tb.history = { match_id: body.match_id, truncated: body.truncated || 0 };
      tb.events = body.events.slice(-HISTORY);
      tb.fresh = false;
    } else if (kind === "preview" && body && typeof body.id === "string") {
      this.previews.set(body.id, body);
      this.answer(body.id, "previewed", "");
    }
    else if (kind === "event" && body && body.logged === false) {
      // The answer to a command that is in no log (the clock's): not a line of the history.
      this.answer(body.id, "applied", "");
    } else if (kind === "event" && body) {
      if (tb.fresh) {
        tb.fresh = false;
        if (!(body.seq === 0 && body.event && body.event.type === "undo")) tb.events = [];
      }
      // A stroke keyed after an undo takes the undone one's place: the history shows what is in effect.
      const kind = body.event && body.event.type;
      if (kind !== "undo" && kind !== "redo" && kind !== "amend" && typeof body.seq === "number") {
        tb.events = tb.events.filter((e) => !(typeof e.seq === "number" && e.seq >= body.seq));
      }
      tb.events.push(body);
      if (tb.events.length > HISTORY) tb.events.splice(0, tb.events.length - HISTORY);
      this.answer(body.id, "applied", "");
    } else if (kind === "rejected" && body) {
      tb.rejected = body;
      this.answer(body.id, "refused", body.reason || "");
    }
    this.changed();
  }

  answer(/** @type {unknown} */ id, /** @type {string} */ state, /** @type {string} */ reason) {
    const p = typeof id === "string" ? this.pending.get(id) : undefined;
    if (!p || (p.state !== "sent" && p.state !== "delivered")) return;
    p.state = state;
    p.reason = reason;
  }

  /** A match line and the daemon's `clock` command are answered by the table's state (the new
   * match's, seq 0 with its sides as sent; the clock's, running or held as asked), or on `rejected`. */
  settleMatch(/** @type {string} */ name, /** @type {any} */ state) {
    if (!state) return;
    for (const p of this.pending.values()) {
      if (p.table !== name || (p.state !== "sent" && p.state !== "delivered")) continue;
      if (p.line.type === "clock") {
        const c = state.clock || {};
        const action = p.line.action || "start";
        if ((action === "hold" && c.paused) || ((action === "start" || action === "resume") && c.running)
          || (action === "stop" && !c.running)) { p.state = "applied"; p.reason = ""; }
        continue;
      }
      if (p.line.type !== "match" || state.seq !== 0) continue;
      const sent = p.line.sides.map((/** @type {string | string[]} */ s) => (Array.isArray(s) ? s.join(" & ") : s));
      const got = (state.sides || []).map((/** @type {any} */ s) => s.name);
      if (JSON.stringify(sent) === JSON.stringify(got)) { p.state = "applied"; p.reason = ""; }
    }
  }

  /**
   * Send a line to a table under an id; its answer lands in `pending`.
   * @param {string} table @param {Record<string, unknown>} line @param {string} what @param {string} id
   */
  send(table, line, what, id) {
    /** @type {Pending} */
    const p = { id, table, what, line: { ...line, id }, state: "sent", sentAt: Date.now() };
    this.pending.set(id, p);
    const topic = `${this.where.prefix}/${this.where.venue}/${table}/command/${this.user}`;
    if (!this.client || this.connection !== "online") {
      p.state = "failed";
      p.reason = "not connected to the broker";
      this.changed();
      return p;
    }
    // A table that is offline never hears the line (sessions are clean: it is not applied later).
    setTimeout(() => {
      if (p.state === "sent" || p.state === "delivered") {
        p.state = "unanswered";
        p.reason = `no answer from ${table} in ${UNANSWERED_MS / 1000} s: is it online?`;
        this.changed();
      }
    }, UNANSWERED_MS);
    this.client.publish(topic, JSON.stringify(p.line), { qos: 1, retain: false }, (/** @type {any} */ err) => {
      if (err) {
        p.state = "denied";
        p.reason = err.message || String(err);
      } else if (p.state === "sent") p.state = "delivered";
      this.changed();
    });
    this.changed();
    return p;
  }

  /** Publish the desk's own retained topic for a table (`message`). */
  publishRetained(/** @type {string} */ table, /** @type {string} */ kind, /** @type {any} */ body, /** @type {(e: any) => void} */ done) {
    if (!this.client) { done(new Error("not connected to the broker")); return; }
    this.client.publish(`${this.where.prefix}/${this.where.venue}/${table}/${kind}`, body === null ? "" : JSON.stringify(body),
      { qos: 1, retain: true }, done);
  }
}
