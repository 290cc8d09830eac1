// @ts-check
// The desk's link to the venue broker: one MQTT 5 session over secure WebSockets as the desk's
// login, every table's topics read into one store, and each line sent on the table's
// `command/<user>` topic with an id whose answer (`event` or `rejected`, or for a match line
// the new match's state) is matched back to it. The broker's ACL decides who may: a login that
// may not write the topic gets "Not authorized" in its PUBACK, shown as such.

import { byTable } from "./lines.js";
import { Session, tableTopics } from "../shared/broker.js";
import { emptyHistory, withLine, withLive, withSnapshot, withState } from "../shared/history.js";
import { loadSchemas, readPayload, textOf } from "../shared/payloads.js";
import { Store } from "../shared/store.js";
import { isResend } from "../shared/strokes.js";

/** The tables' topics the desk checks against the contract's schemas (vendor/<kind>.schema.json). */
export const SCHEMAS = ["state", "event", "rejected", "devices", "history", "preview", "record"];
const UNANSWERED_MS = 15000; // a table answers in well under a second; an offline one never
// A table whose last event is newer than its last state has lost that state on the way: the
// broker drops what a slow desk has not taken past its queue (max_queued_messages), and a
// table's last state before a pause would otherwise stay unseen until its next. Once the table
// has been quiet this long, its retained state is asked for again (docs/desk.md).
const REREAD_QUIET_MS = 1000;
// The broker drops the newest messages, so a lost last state often goes with its event, and a
// burst (tables catching up) can fill the queue while what came before was on time: a live
// message that comes this late, or the desk receiving more than FLOOD_TOPICS a second while the
// table was sending, says it may have lost the table's last state, and it is read again once quiet.
const BEHIND_MS = 1000;
const FLOOD_TOPICS = 200; // a second (the broker's queue for the desk is 1,000 messages)
const REREAD_AGAIN_MS = 5000; // asked at most this often for one table (a table that keeps sending catches itself up)
// Tonight's results are one retained message: kept under the broker's message_size_limit (1 MiB,
// docs/security.md) with room to spare; past it the oldest sheets are left out of the venue's copy.
const RESULTS_BYTES = 900 * 1024;
const RESULTS_WRITE_MS = 500; // records come in bursts (every table's retained one on a reconnect)
const encoder = new TextEncoder();

/**
 * The payloads the desk reads, as the schemas say (shared/types.gen.js): every table's topic is
 * checked against its schema before it is kept.
 * @typedef {import("../shared/state.js").State} State
 * @typedef {import("../shared/state.js").HandedNext} HandedNext
 * @typedef {import("../shared/state.js").Message} Message
 * @typedef {import("../shared/types.gen.js").RecordPayload} RecordPayload
 * @typedef {import("../shared/types.gen.js").RejectedPayload} RejectedPayload
 * @typedef {import("../shared/types.gen.js").DevicesPayload} DevicesPayload
 * @typedef {import("../shared/types.gen.js").PreviewPayload} PreviewPayload
 * @typedef {import("../shared/types.gen.js").EventPayload & {logged?: boolean}} EventPayload
 *   `logged: false`: the answer to a command that is in no log (the clock's)
 * @typedef {import("../shared/history.js").Line} Line
 * @typedef {import("../shared/competition.js").Competition} Competition
 * @typedef {{keys: string[], [field: string]: unknown}} Input a keypad's keys being typed (`input`)
 * @typedef {{name: string, form?: Record<string, unknown>, line?: Record<string, unknown>}} Preset
 *   a start form's format kept for the venue (`desk/presets`): the form's fields, and the line made of them
 * @typedef {{table: string, record: RecordPayload}} Result
 * @typedef {Record<string, unknown> | null} VenueBody one of the venue's own topics, as a desk wrote it (no schema)
 */

/** Whether a record is a finished match's (docs/record.md: `ended` and the winner set). */
const finished = (/** @type {RecordPayload | null | undefined} */ r) => !!r && typeof r === "object" && r.winner !== null && r.winner !== undefined;
/** The order matches ended (to the second), then began (match_id has the millisecond). */
export const byEnd = (/** @type {RecordPayload} */ a, /** @type {RecordPayload} */ b) =>
  String(a.ended || "").localeCompare(String(b.ended || "")) || String(a.match_id).localeCompare(String(b.match_id));
/** A record's rank among copies of one match: [corrections, ended, its text] (compared as JSON). */
const rank = (/** @type {RecordPayload} */ r) => [String(Array.isArray(r.corrections) ? r.corrections.length : 0).padStart(6, "0"),
  String(r.ended || ""), JSON.stringify(r)];
/** A record's key: its match_id (docs/record.md), the same for a corrected record of the match. */
const resultKey = (/** @type {string} */ table, /** @type {RecordPayload} */ r) => (typeof r.match_id === "string" ? r.match_id
  : `${table} ${r.started || ""} ${(r.sides || []).map((s) => s.name).join(" v ")}`);

/**
 * One table as the desk knows it: its topics' latest payloads (null: none, or cleared), read from
 * the store (no copies: getters), the history merged from its snapshot, slots and events, and the
 * desk's bookkeeping.
 * @typedef {{name: string, status: string | null, devices: DevicesPayload | null,
 *   state: State | null, rejected: RejectedPayload | null, input: Input | null, record: RecordPayload | null,
 *   events: Line[], message: Message | null, seen: number, fresh: boolean,
 *   next: HandedNext | null, nextSeen: boolean, history: {match_id: string | null, truncated: number} | null,
 *   since: number, version: number, kept: import("../shared/history.js").Kept, alarm: RejectedPayload | null,
 *   resends: number}} Table
 *   `alarm`: the latest refusal worth the desk's attention (not a scorer's own catch-up resend:
 *   shared/strokes.js `isResend`); `resends`: how many of those were left quiet
 * @typedef {{type: string, id?: string, sides?: (string | string[])[], action?: string, fixture?: string,
 *   [field: string]: unknown}} SentLine
 *   a line sent to a table (desk/lines.js), with its id
 * @typedef {{id: string, table: string, what: string, line: SentLine, state: string, reason?: string, sentAt: number}} Pending
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
    /** @type {Table[] | null} the tables in the venue's order (`sorted`) */
    this._sorted = null;
    /** @type {{of: string, kinds: Record<string, string>} | null} `venueTopics` for the venue `of` */
    this._venueTopics = null;
    /** @type {Map<string, Pending>} */
    this.pending = new Map();
    /** Per table, the seq of the last event and state heard, and when its retained topics were
     * last asked for again (`reread`), and whether a live one came late (`behind`).
     * @type {Map<string, {event: number, state: number, asked: number, behind: boolean, live: number}>} */
    this.seqs = new Map();
    this.rereads = 0;
    /** Messages received in the current second, and when the desk last received more than FLOOD_TOPICS in one. */
    this.flood = { since: 0, count: 0, at: 0 };
    /** The tables whose `event` the desk reads (`follow`). @type {Set<string>} */
    this.followed = new Set(); // how many tables' retained topics were asked for again (the bench, the tests)
    /** @type {ReturnType<typeof setInterval> | null} */
    this._rereadTimer = null;
    /** Moves whenever a line is sent or a pending line's answer changes: the side panel, drawn
     * again only when its own inputs change (desk.js `sidePanel`), watches it. */
    this.asked = 0;
    /** @type {Set<string>} */
    this.names = new Set(); // players seen this session: the forms' typeahead
    /** Tonight's results by match_id: the finished records seen, merged with the venue's
     * retained `desk/results` (docs/mqtt.md), which this desk writes back when it knows more.
     * @type {Map<string, Result>} */
    this.results = new Map();
    /** The venue's copy as last read or written: its night, rev and records (JSON, to compare). */
    this.resultsKept = /** @type {{night: string | null, rev: number, left_out: number, records: string} | null} */ (null);
    this.resultsSeen = false; // the retained results have been read (or there are none yet)
    /** @type {ReturnType<typeof setTimeout> | null} */
    this._resultsTimer = null;
    this.connection = "signed-out"; // signed-out, connecting, online, offline, refused, taken (shared/broker.js)
    this.refusal = "";
    this.user = "";
    /** @type {import("../shared/broker.js").MqttClient | null} */
    this.client = null;
    /** @type {Session | null} */
    this.session = null;
    /** The venue's own retained topics (docs/mqtt.md): tonight's competition, the desks' presets and players. */
    this.competition = /** @type {Competition | null} */ (null);
    this.service = /** @type {{online?: unknown, since?: unknown} | null} */ (null); // the venue service's presence (docs/venue-service.md)
    this.presets = /** @type {Preset[]} */ ([]);
    this.players = /** @type {string[]} */ ([]);
    this.venueSeen = false; // the retained venue topics have been read once (or are empty)
    /** @type {Map<string, PreviewPayload>} */
    this.previews = new Map(); // an amend's preview answers (`<prefix>/preview`), by the line's id
    /** @type {(() => void) | null} */
    this.onTables = null; // called after a table's state, next or record changed (the night's driver)
    /** What the desk received: the latest payload of each topic (shared/store.js), kept apart from the
     * session that brings it; the page drawn once a frame however many came. The tables' rows
     * (`tables`) are the desk's reading of it, with its own bookkeeping (the history merged, the answers).
     * @type {Store} */
    this.store = new Store();
    this.store.subscribe(() => changed());
    /** The contract's schemas by topic kind (SCHEMAS), set by the page once loaded: every payload is read through them.
     * @type {Record<string, import("../shared/validate.js").Schema>} */
    this.schemas = {};
    /** The last payload refused (not JSON, or not as its schema says), until one on its topic is read:
     * shown as a note; it changed nothing. @type {{topic: string, text: string} | null} */
    this.problem = null;
  }

  /** The contract's schemas, from vendor/ beside the venue screen's: the tables' payloads are read through them. */
  async loadSchemas() {
    this.schemas = await loadSchemas(SCHEMAS, (text) => { this.problem = { topic: "", text }; }, "vendor/");
  }

  /** Something shown changed: the page is drawn at the next frame (once, whatever else changes in it). */
  changed() {
    this.store.touch();
  }

  /** Sign in: the session is the proof; a refused login is said with the broker's reason. */
  signIn(/** @type {string} */ user, /** @type {string} */ password) {
    this.signOut();
    this.user = user;
    this.connection = "connecting";
    this.refusal = "";
    // Not every table's `event` (issue 38: at 256 tables half of the some 1,000 messages a second,
    // each the browser's and mqtt.js's work): the state shows what a row shows, the history's
    // retained snapshot and slots hold the lines. A table's events are read once it is opened or
    // sent a line (`follow`), for the live history and the answers to the desk's lines.
    const topics = tableTopics(`${this.where.prefix}/${this.where.venue}`, null,
      ["state", "status", "devices", "rejected", "input", "record", "message", "next", "history", "history/+",
        "preview"])
      .concat(Object.keys(this.venueTopics()));
    // The shared session (shared/broker.js): a refused login (CONNACK 134/135) is not tried again.
    const session = new Session({ broker: this.where.broker, who: user, user, password, v5: true, reconnectMs: 3000 }, {
      topics: () => topics.concat([...this.followed].map((name) => this.eventTopic(name))),
      message: (topic, payload, packet) => this.received(topic, payload, packet),
      link: (link, detail) => {
        if (link === "online") {
          this.connection = "online";
          // The venue's retained topics come right after the subscription; one that has not
          // come by then does not exist yet (a new venue): the desk may write it.
          setTimeout(() => { this.venueSeen = true; this.resultsSeen = true; this.syncResults(); }, 1500);
        } else if (link === "refused") { this.connection = "refused"; this.refusal = detail; }
        // Another tab or device signed in with this login and took the session: not tried again
        // by itself (the two would throw each other off for ever); the desk offers `takeBack`.
        else if (link === "taken") this.connection = "taken";
        else if (link === "connecting" && this.connection === "taken") this.connection = "connecting";
        else if (link === "offline" && this.connection === "online") this.connection = "offline";
        this.changed();
      },
    });
    this.session = session;
    this.client = session.client;
    this._rereadTimer = setInterval(() => this.reread(), REREAD_QUIET_MS);
  }

  eventTopic(/** @type {string} */ table) {
    return `${this.where.prefix}/${this.where.venue}/${table}/event`;
  }

  /** Read a table's events from now on (opened at the desk, or sent a line): subscribed before
   * any line is sent on this session, so its answer cannot come before the subscription. */
  follow(/** @type {string} */ table) {
    if (this.followed.has(table)) return;
    this.followed.add(table);
    if (this.client && this.connection === "online") this.client.subscribe(this.eventTopic(table), { qos: 1 });
  }

  /** The tables whose last state was lost on the way (their last event is newer), quiet since:
   * their retained state subscribed again, which the broker answers with it. */
  reread() {
    if (!this.client || this.connection !== "online") return;
    const now = Date.now();
    /** @type {string[]} */
    const topics = [];
    for (const [name, s] of this.seqs) {
      const tb = this.tables.get(name);
      const flooded = this.flood.at > s.asked && s.live > s.asked; // live news of it since it was last asked
      if ((s.event <= s.state && !s.behind && !flooded) || !tb || now - tb.seen < REREAD_QUIET_MS || now - s.asked < REREAD_AGAIN_MS) continue;
      s.asked = now;
      s.behind = false;
      const base = `${this.where.prefix}/${this.where.venue}/${name}`;
      // The state alone (one retained message a table): the history's slots are many, and asking
      // for them while the desk is behind would only fill the broker's queue for it again.
      topics.push(`${base}/state`);
    }
    if (!topics.length) return;
    this.rereads += topics.length;
    this.client.subscribe(topics, { qos: 1 });
  }

  /** The session taken by another tab or device of this login: taken back here (the other then says so). */
  takeBack() {
    if (this.session && this.connection === "taken") this.session.takeBack();
  }

  signOut() {
    if (this._rereadTimer !== null) { clearInterval(this._rereadTimer); this._rereadTimer = null; }
    this.seqs.clear();
    this.followed.clear();
    if (this.client) this.client.end(true);
    this.client = null;
    this.session = null;
    this.connection = "signed-out";
    this.tables.clear();
    this._sorted = null;
    this.store.clear();
    this.pending.clear();
    this.competition = null;
    this.service = null;
    this.presets = [];
    this.players = [];
    this.venueSeen = false;
    this.results.clear();
    this.resultsKept = null;
    this.resultsSeen = false;
    this.changed();
  }

  /** The venue's topics the desk reads and writes, by topic: what each is kept as. */
  venueTopics() {
    const v = `${this.where.prefix}/${this.where.venue}`;
    // Made once for the venue: every message asks (some 1,000 a second at 256 tables).
    if (this._venueTopics && this._venueTopics.of === v) return this._venueTopics.kinds;
    /** @type {Record<string, string>} */
    const kinds = { [`${v}/competition`]: "competition", [`${v}/desk/presets`]: "presets", [`${v}/desk/players`]: "players",
      [`${v}/desk/results`]: "results", [`${v}/service`]: "service" };
    this._venueTopics = { of: v, kinds };
    return kinds;
  }

  /** Publish one of the venue's topics (retained; null clears it), kept here at once. */
  publishVenue(/** @type {string} */ kind, /** @type {unknown} */ body, /** @type {(e: Error | undefined) => void} */ done = () => {}) {
    const topic = Object.entries(this.venueTopics()).find(([, k]) => k === kind)?.[0];
    if (!this.client || !topic) { done(new Error("not connected to the broker")); return; }
    this.keepVenue(kind, /** @type {VenueBody} */ (body));
    this.client.publish(topic, body === null ? "" : JSON.stringify(body), { qos: 1, retain: true }, done);
    this.changed();
  }

  keepVenue(/** @type {string} */ kind, /** @type {VenueBody} */ body) { // the venue's own topics, as the desks write them (no schema)
    if (kind === "competition") {
      const c = /** @type {Competition | null} */ (body && Array.isArray(body.matches) ? body : null);
      // Our own publishes come back in order, but an older one may arrive after a newer one was
      // kept here: a competition older (by `rev`) than the one kept is no news.
      const kept = this.competition;
      if (c && kept && c.id === kept.id && (c.rev || 0) < (kept.rev || 0)) return;
      this.competition = c;
    }
    else if (kind === "service") this.service = body && typeof body === "object" ? /** @type {{online?: unknown, since?: unknown}} */ (body) : null;
    else if (kind === "presets") this.presets = body && Array.isArray(body.presets) ? body.presets : [];
    else if (kind === "results") this.keepResults(body);
    else if (kind === "players") this.players = body && Array.isArray(body.names) ? body.names.filter((/** @type {unknown} */ n) => typeof n === "string") : [];
  }

  /** The venue's retained results: a higher rev than the one kept (a rev rises with every
   * write, a new night's too), merged into this desk's; a new night drops the last night's. */
  keepResults(/** @type {VenueBody} */ body) { // as a desk wrote it (no schema)
    if (!body || !Array.isArray(body.records)) return; // none yet: this desk writes the first
    const kept = this.resultsKept;
    const rev = typeof body.rev === "number" ? body.rev : 0;
    if (kept && rev < kept.rev) return; // a late copy of an older write
    const night = typeof body.night === "string" ? body.night : null;
    if (kept && night !== kept.night) this.results.clear();
    else if (!kept) {
      // The first copy read: what this desk saw before it from an older night is no result of this one.
      for (const [k, v] of this.results) if (!this.ofTonight(v.record, night)) this.results.delete(k);
    }
    const records = /** @type {RecordPayload[]} */ (body.records.filter((/** @type {RecordPayload} */ r) => finished(r)));
    this.resultsKept = { night, rev, left_out: typeof body.left_out === "number" ? body.left_out : 0, records: JSON.stringify(records) };
    for (const r of records) this.addResult(typeof r.table === "string" ? r.table : "?", r);
  }

  /** A finished match of tonight's (ended after the night began; any, before a night was begun). */
  ofTonight(/** @type {RecordPayload} */ record, /** @type {string | null} */ night) {
    if (!night) return true;
    const ended = Date.parse(record.ended || record.started || "");
    return !(ended < Date.parse(night));
  }

  /** Keep one finished record: a match's corrected record (more corrections, or ended later) replaces it. */
  addResult(/** @type {string} */ table, /** @type {RecordPayload} */ record) {
    if (!finished(record) || !this.ofTonight(record, this.resultsKept ? this.resultsKept.night : null)) return;
    const key = resultKey(table, record);
    const had = this.results.get(key);
    // One order every desk agrees on (more corrections, then ended later, then the text), so two
    // desks holding two copies of a match keep the same one and stop writing.
    if (had && JSON.stringify(rank(had.record)) >= JSON.stringify(rank(record))) return;
    this.results.set(key, { table, record });
  }

  /** What this desk would keep for the venue: the records by end, the oldest left out past the limit. */
  resultsBody() {
    let records = [...this.results.values()].map((v) => v.record)
      .sort(byEnd);
    let left = 0;
    const size = () => encoder.encode(JSON.stringify(records)).length;
    while (records.length && size() > RESULTS_BYTES) { records = records.slice(1); left += 1; }
    return { records, left };
  }

  /** Write the venue's results when this desk knows a record the venue's copy lacks (after it has
   * read that copy: a desk never overwrites what it has not seen). Two desks that each write what
   * they know read each other's copy (a higher rev) and write the union once: both are kept. */
  syncResults() {
    if (!this.resultsSeen || !this.client || this.connection !== "online" || this._resultsTimer) return;
    this._resultsTimer = setTimeout(() => {
      this._resultsTimer = null;
      const { records, left } = this.resultsBody();
      const kept = this.resultsKept;
      if (kept ? JSON.stringify(records) === kept.records : !records.length) return;
      this.publishVenue("results", { schema: 1, night: kept ? kept.night : null, records, left_out: left,
        rev: (kept ? kept.rev : 0) + 1, by: this.user, ts: new Date().toISOString() });
    }, RESULTS_WRITE_MS);
  }

  /** Start a new night: tonight's results cleared for every desk (the tables' retained records of
   * matches ended before now are no longer tonight's). */
  newNight() {
    this.results.clear();
    this.resultsKept = this.resultsKept || { night: null, rev: 0, left_out: 0, records: "[]" };
    this.publishVenue("results", { schema: 1, night: new Date().toISOString(), records: [], left_out: 0,
      rev: this.resultsKept.rev + 1, by: this.user, ts: new Date().toISOString() });
  }

  table(/** @type {string} */ name) {
    let tb = this.tables.get(name);
    if (!tb) {
      // A topic's latest payload as the store has it (null: none, or cleared).
      const store = this.store, base = `${this.where.prefix}/${this.where.venue}/${name}/`;
      const at = (/** @type {string} */ kind) => /** @type {any} */ (store.get(base + kind) ?? null);
      tb = { name, events: [], seen: 0, fresh: false, nextSeen: false, history: null, since: 0, version: 0, kept: emptyHistory(),
        alarm: null, resends: 0,
        get status() { return /** @type {string | null} */ (at("status")); },
        get devices() { return /** @type {DevicesPayload | null} */ (at("devices")); },
        get state() { return /** @type {State | null} */ (at("state")); },
        get record() { return /** @type {RecordPayload | null} */ (at("record")); },
        get message() { return /** @type {Message | null} */ (at("message")); },
        get rejected() { return /** @type {RejectedPayload | null} */ (at("rejected")); },
        get input() { const b = at("input"); return /** @type {Input | null} */ (b && b.keys && b.keys.length ? b : null); },
        get next() { const b = at("next"); return /** @type {HandedNext | null} */ (b && b.fixture ? b : null); } };
      this.tables.set(name, tb);
      this._sorted = null;
    }
    return tb;
  }

  /** The tables, in the venue's order: sorted again only when a table came or went (the page asks
   * every frame; shared by every caller, so not to be changed). @returns {Table[]} */
  sorted() {
    if (!this._sorted) {
      this._sorted = [...this.tables.values()].sort((a, b) => byTable(a.name, b.name));
    }
    return this._sorted;
  }

  received(/** @type {string} */ topic, /** @type {Uint8Array} */ payload, /** @type {{retain?: boolean}} */ packet = {}) {
    const at = Date.now();
    if (at - this.flood.since >= 1000) { this.flood.since = at; this.flood.count = 0; }
    // Live ones only: a re-read's retained answers are no flood (else they would call for more).
    if (!packet.retain && ++this.flood.count > FLOOD_TOPICS) this.flood.at = at;
    const text = textOf(payload);
    const venueKind = this.venueTopics()[topic];
    let body = null;
    if (!topic.endsWith("/status")) {
      // Read as every page reads a payload (shared/payloads.js): one that is not JSON or not as
      // its schema says is refused, said in a note, and changes nothing.
      const read = readPayload(topic, payload, venueKind ? undefined : this.schemas[topic.slice(topic.lastIndexOf("/") + 1)]);
      if (read.problem !== undefined) { console.warn(read.problem); this.problem = { topic, text: read.problem }; this.changed(); return; }
      if (this.problem && this.problem.topic === topic) this.problem = null;
      body = read.value;
    }
    const statusBefore = topic.endsWith("/status") ? this.store.get(topic) ?? null : null;
    // Kept in the store, which the tables' rows read (`table`): the desk keeps no copy.
    this.store.put(topic, topic.endsWith("/status") ? text || null : body, Boolean(packet.retain));
    if (venueKind) {
      this.keepVenue(venueKind, body);
      this.venueSeen = true;
      if (venueKind === "results") { this.resultsSeen = true; this.syncResults(); }
      if (venueKind === "competition" && this.onTables) this.onTables();
      this.changed();
      return;
    }
    const parts = topic.split("/");
    if (parts.length > 3 && parts[parts.length - 2] === "history") {
      // A retained slot of one line (<prefix>/history/<i>): the lines since the snapshot.
      const t = this.table(parts[parts.length - 3]);
      t.kept = withLine(t.kept, body);
      t.events = t.kept.events;
      t.version += 1;
      this.changed();
      return;
    }
    const kind = parts[parts.length - 1];
    const name = parts[parts.length - 2];
    const tb = this.table(name);
    tb.seen = Date.now();
    tb.version += 1; // the desk draws a table's row again only when this moves
    if (kind === "status") {
      if (statusBefore !== (text || null)) tb.since = Date.now();
      if (this.onTables) this.onTables();
      this.changed();
      return;
    }
    if ((kind === "state" || kind === "event") && body && typeof body.seq === "number") {
      const s = this.seqs.get(name) || { event: -1, state: -1, asked: 0, behind: false, live: 0 };
      if (!packet.retain) s.live = Date.now();
      // Retained ones (a subscription's, a re-read's) are old by nature: only a live one says the desk is behind.
      if (!packet.retain && typeof body.ts === "string" && Date.now() - Date.parse(body.ts) > BEHIND_MS) s.behind = true;
      // A new match starts its seq again: its state (seq 0) comes before its first event.
      if (kind === "state") { s.state = body.seq; if (body.seq === 0) s.event = -1; }
      else s.event = body.seq;
      this.seqs.set(name, s);
    }
    if (kind === "state") {
      for (const side of (body && body.sides) || []) for (const p of side.players || [side.name]) this.names.add(p);
      tb.kept = withState(tb.kept, body); // a new match: its history starts with its first event
      this.settleMatch(name, body);
      this.settleMessage(name, "shown", "");
      if (this.onTables) this.onTables();
    } else if (kind === "record") {
      // Tonight's results: every finished match seen, by match_id (a reprint of any), kept for
      // the venue on its retained `desk/results`.
      if (finished(body)) { this.addResult(name, body); this.syncResults(); }
      if (this.onTables) this.onTables();
    }
    else if (kind === "next") {
      tb.nextSeen = tb.nextSeen || !!tb.next;
      if (this.onTables) this.onTables();
    }
    else if (kind === "history" && body && Array.isArray(body.events)) {
      // The table's retained snapshot of the match's newest lines (shared/history.js).
      tb.kept = withSnapshot(tb.kept, body);
      tb.history = { match_id: tb.kept.match_id, truncated: tb.kept.truncated };
      tb.events = tb.kept.events;
    } else if (kind === "preview" && body && typeof body.id === "string") {
      this.previews.set(body.id, body);
      this.answer(body.id, "previewed", "");
    }
    else if (kind === "event" && body && body.logged === false) {
      // The answer to a command that is in no log (the clock's): not a line of the history.
      this.answer(body.id, "applied", "");
    } else if (kind === "event" && body) {
      tb.kept = withLive(tb.kept, body);
      tb.events = tb.kept.events;
      this.answer(body.id, "applied", "");
    } else if (kind === "rejected" && body) {
      this.answer(body.id, "refused", body.reason || "");
      // A scorer's phone resending after a Wi-Fi catch-up is answered "later" or "already":
      // its outbox settles that by itself, so it is no alarm here (issue 38).
      if (isResend(body)) tb.resends += 1;
      else tb.alarm = body;
      if (body.source === "message") this.settleMessage(name, "refused", body.reason || "");
    }
    this.changed();
  }

  answer(/** @type {unknown} */ id, /** @type {string} */ state, /** @type {string} */ reason) {
    const p = typeof id === "string" ? this.pending.get(id) : undefined;
    if (!p || (p.state !== "sent" && p.state !== "delivered")) return;
    p.state = state;
    p.reason = reason;
    this.asked += 1;
  }

  /** A match line and the daemon's `clock` command are answered by the table's state (the new
   * match's, seq 0 with its sides as sent; the clock's, running or held as asked), or on `rejected`. */
  settleMatch(/** @type {string} */ name, /** @type {State | null} */ state) {
    if (!state) return;
    for (const p of this.pending.values()) {
      if (p.table !== name || (p.state !== "sent" && p.state !== "delivered")) continue;
      if (p.line.type === "clock") {
        const c = state.clock;
        const running = !!(c && c.running), paused = !!(c && c.paused);
        const action = p.line.action || "start";
        if ((action === "hold" && paused) || ((action === "start" || action === "resume") && running)
          || (action === "stop" && !running)) { p.state = "applied"; p.reason = ""; this.asked += 1; }
        continue;
      }
      if (p.line.type !== "match" || state.seq !== 0) continue;
      const sent = (p.line.sides || []).map((s) => (Array.isArray(s) ? s.join(" & ") : s));
      const got = (state.sides || []).map((s) => s.name);
      if (JSON.stringify(sent) === JSON.stringify(got)) { p.state = "applied"; p.reason = ""; this.asked += 1; }
    }
  }

  /**
   * Send a line to a table under an id; its answer lands in `pending`.
   * @param {string} table @param {Record<string, unknown>} line @param {string} what @param {string} id
   */
  send(table, line, what, id) {
    /** @type {Pending} */
    const p = { id, table, what, line: /** @type {SentLine} */ ({ ...line, id }), state: "sent", sentAt: Date.now() };
    this.pending.set(id, p);
    this.asked += 1;
    this.follow(table);
    const topic = `${this.where.prefix}/${this.where.venue}/${table}/command/${this.user}`;
    if (!this.client || this.connection !== "online") {
      p.state = "failed";
      p.reason = "not connected to the broker";
      this.asked += 1;
      this.changed();
      return p;
    }
    // A table that is offline never hears the line (sessions are clean: it is not applied later).
    setTimeout(() => {
      if (p.state === "sent" || p.state === "delivered") {
        p.state = "unanswered";
        p.reason = `no answer from ${table} in ${UNANSWERED_MS / 1000} s: is it online?`;
        this.asked += 1;
        this.changed();
      }
    }, UNANSWERED_MS);
    this.client.publish(topic, JSON.stringify(p.line), { qos: 1, retain: false }, (err) => {
      if (err) {
        p.state = "denied";
        p.reason = err.message || String(err);
      } else if (p.state === "sent") p.state = "delivered";
      this.asked += 1;
      this.changed();
    });
    this.changed();
    return p;
  }

  /**
   * A message to a table (its retained `message`; null clears it), answered like a line: *delivered*
   * when the broker has it, *shown* when the table's state shows it (or shows none, for a
   * clear), *refused* with the table's reason (`rejected`, source `message`), else *no answer*.
   * @param {string} table @param {{schema: number, text: string, until: string | null} | null} body @param {string} what
   */
  sendMessage(table, body, what) {
    const id = `message-${table}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
    /** @type {Pending} */
    const p = { id, table, what, line: { type: "message", text: body ? body.text : "" }, state: "sent", sentAt: Date.now() };
    for (const other of this.pending.values()) {
      // An older message to this table is overtaken: the table keeps one.
      if (other.table === table && other.line.type === "message" && (other.state === "sent" || other.state === "delivered")) {
        other.state = "replaced";
      }
    }
    this.pending.set(id, p);
    this.asked += 1;
    this.publishRetained(table, "message", body, (err) => {
      if (err) { p.state = "denied"; p.reason = err.message || String(err); }
      else if (p.state === "sent") p.state = "delivered";
      this.asked += 1;
      // Already shown (the same text again, or a clear of none): the state will not change.
      this.settleMessage(table, "shown", "");
      this.changed();
    });
    setTimeout(() => {
      if (p.state === "sent" || p.state === "delivered") {
        p.state = "unanswered";
        p.reason = `no answer from ${table} in ${UNANSWERED_MS / 1000} s: is it online?`;
        this.asked += 1;
        this.changed();
      }
    }, UNANSWERED_MS);
    return p;
  }

  /** A message waiting for its table's answer: shown on its state (applied), or refused. */
  settleMessage(/** @type {string} */ table, /** @type {string} */ state, /** @type {string} */ reason) {
    const tb = this.tables.get(table);
    const shown = tb && tb.state ? tb.state.message : undefined;
    for (const p of this.pending.values()) {
      if (p.table !== table || p.line.type !== "message" || p.state !== "delivered") continue;
      const text = shown && typeof shown === "object" ? shown.text : "";
      if (state === "refused" || (text || "") === p.line.text) { p.state = state; p.reason = reason; this.asked += 1; }
    }
  }

  /** Publish the desk's own retained topic for a table (`message`). */
  publishRetained(/** @type {string} */ table, /** @type {string} */ kind, /** @type {unknown} */ body, /** @type {(e: Error | undefined) => void} */ done) {
    if (!this.client) { done(new Error("not connected to the broker")); return; }
    this.client.publish(`${this.where.prefix}/${this.where.venue}/${table}/${kind}`, body === null ? "" : JSON.stringify(body),
      { qos: 1, retain: true }, done);
  }
}
