// @ts-check
// The night's driver (docs/desk.md "Tonight's competition"): keeps the retained competition
// up to date with what the tables say (a match begun, a winner), hands a match to a table (its
// retained `next`) or, when asked, each ready match to the next free table, and asks a table
// to start its next match (`start_next`). The tables decide: a table that has begun a fixture
// never begins it again, and the desk never hands again a fixture a table has begun. With the
// venue service running (docs/venue-service.md) the service does the handing and the moving on,
// and the desk shows it and switches it (`auto`, kept in the competition).

import { observe, hand, reserve, freeTables, planHand, nextPayload, sideName } from "./competition.js";
import { newId } from "./lines.js";

/** @typedef {import("./competition.js").Competition} Competition */

export class Night {
  /** @param {import("./link.js").Link} link */
  constructor(link) {
    this.link = link;
    this._queued = false;
    link.onTables = () => this.soon();
  }

  /** Whether the night's ready matches are handed to free tables by themselves: the
   * competition's `auto`, kept by the broker (a reload or a sleeping laptop forgets nothing). */
  get auto() {
    return Boolean(this.link.competition?.auto);
  }

  /** The venue service (`cueboard venue serve`, its retained presence) is up: it hands the
   * matches and moves the winners on, and this desk only shows and switches (docs/venue-service.md). */
  get serviceOnline() {
    const s = this.link.service;
    return Boolean(s && s.online === true);
  }

  /** Who hands the ready matches now: "service", this desk ("here"), another desk's login, or "" (nobody:
   * `auto` is off). With no service running, the desk that switched it on hands while it stays open. */
  get hander() {
    const c = this.link.competition;
    if (!c || !c.auto) return "";
    if (this.serviceOnline) return "service";
    return !c.auto_by || c.auto_by === this.link.user ? "here" : c.auto_by;
  }

  /** Switch handing by itself on or off for every desk and the service (the competition's `auto`). */
  setAuto(/** @type {boolean} */ on) {
    const c = this.link.competition;
    if (!c) return;
    this.publish({ ...c, auto: on, auto_by: this.link.user });
    this.sync();
  }

  soon() {
    if (this._queued) return;
    this._queued = true;
    Promise.resolve().then(() => { this._queued = false; this.sync(); });
  }

  /** The competition brought up to date, published when it changed; then the free tables fed. */
  sync() {
    const link = this.link;
    let c = link.competition;
    if (!c || !link.client || link.connection !== "online") return;
    let changed = false;
    // A start_next the table applied: its match has begun (its state and record say so too).
    for (const p of link.pending.values()) {
      if (p.line.type !== "start_next" || p.state !== "applied") continue;
      const fixture = p.line.fixture;
      /** @type {import("./competition.js").Match | undefined} */
      const m = c.matches.find((x) => x.fixture === fixture);
      if (m && !m.started && m.winner === null) {
        c = { ...c, matches: c.matches.map((x) => (x === m ? { ...x, started: true, table: p.table } : x)) };
        changed = true;
      }
    }
    // With the venue service up, it keeps the competition: two writers of one retained topic
    // would only cross each other. Without it, this desk moves the winners on.
    if (!this.serviceOnline) {
      const seen = observe(c, link.tables.values());
      if (seen.changed) { c = seen.competition; changed = true; }
    }
    if (changed) this.publish(c);
    if (this.hander === "here") this.feed();
  }

  publish(/** @type {Competition} */ c) {
    const rev = Math.max(c.rev || 0, this.link.competition?.rev || 0) + 1;
    this.link.publishVenue("competition", { ...c, rev, by: this.link.user, ts: new Date().toISOString() });
  }

  /** The first free table, or "" (docs/desk.md: online, idle, nothing handed to it). */
  freeTable() {
    const c = this.link.competition;
    return c ? freeTables(c, this.link.sorted())[0] || "" : "";
  }

  /** Each ready match to the next free table (its reserved one), in the draw's order. @returns {string[]} what was handed */
  feed() {
    const link = this.link;
    const done = [];
    for (;;) {
      const c = link.competition;
      if (!c) break;
      const [step] = planHand(c, link.sorted());
      if (!step || this.hand(step[0], step[1])) break;
      done.push(`${step[0]} ${step[1]}`);
    }
    return done;
  }

  /**
   * Hand `fixture` to `table` (null: take it back): the table's retained `next`, and the
   * competition. @returns {string} the refusal, or "" when handed
   */
  hand(/** @type {string} */ fixture, /** @type {string | null} */ table) {
    const link = this.link;
    const c = link.competition;
    if (!c) return "no competition tonight";
    const step = hand(c, fixture, table, link.user);
    if (step.refused) return step.refused;
    const m = step.competition.matches.find((x) => x.fixture === fixture);
    if (!m) return `no match ${fixture}`;
    // A match taken from one table for another: the first table's `next` is cleared, if still this one.
    const held = step.from ? link.tables.get(step.from)?.next : null;
    if (step.from && step.from !== table && (!held || held.fixture === fixture)) {
      link.publishRetained(step.from, "next", null, () => {});
    }
    if (table) link.publishRetained(table, "next", nextPayload(step.competition, m, link.user), () => {});
    this.publish(step.competition);
    this.addPlayers(m.sides.flatMap((s) => (Array.isArray(s) ? s : s ? [s] : [])));
    return "";
  }

  /** Reserve `fixture` for `table` ("": clear it), in the retained competition; the service (or
   * the handing desk) then hands it there only. @returns {string} the refusal, or "" when done */
  reserve(/** @type {string} */ fixture, /** @type {string} */ table) {
    const c = this.link.competition;
    if (!c) return "no competition tonight";
    const step = reserve(c, fixture, table);
    if (step.refused) return step.refused;
    this.publish(step.competition);
    return "";
  }

  /** Ask the table `fixture` is handed to to start it now (the manager confirmed). */
  start(/** @type {string} */ fixture, /** @type {string} */ what) {
    const link = this.link;
    const m = link.competition?.matches.find((x) => x.fixture === fixture);
    if (!m || !m.table) return null;
    return link.send(m.table, { type: "start_next", fixture }, what, newId(link.user));
  }

  /** The venue's player list with these names added (published when one is new). */
  addPlayers(/** @type {string[]} */ names) {
    const link = this.link;
    const have = new Set(link.players);
    const fresh = names.map((n) => n.trim()).filter((n) => n && !have.has(n));
    if (!fresh.length || !link.venueSeen) return;
    const all = [...new Set([...link.players, ...fresh])].sort((a, b) => a.localeCompare(b)).slice(0, 5000);
    // The handicaps kept between nights go back as they were (docs/desk.md "The venue's players").
    const kept = /** @type {{handicaps?: unknown} | null | undefined} */ (link.store.get(`${link.where.prefix}/${link.where.venue}/desk/players`));
    const handicaps = kept && kept.handicaps && typeof kept.handicaps === "object" ? kept.handicaps : undefined;
    link.publishVenue("players", handicaps ? { schema: 1, names: all, handicaps } : { schema: 1, names: all });
  }

  /**
   * A new competition from the desk's route's answer (cueboard/venue/desk_routes.py).
   * @param {string} name @param {string} kind @param {import("./competition.js").Format} format
   * @param {{rounds?: number, handicaps?: Record<string, number>, seed?: number | null, seeded?: boolean, matches: import("./competition.js").Match[]}} made
   */
  begin(name, kind, format, made) {
    /** @type {Competition} */
    const c = { schema: 1, id: `${kind}-${Date.now().toString(36)}`, name, kind, format, created: new Date().toISOString(), rounds: made.rounds || 1,
      handicaps: made.handicaps || {}, seed: made.seed ?? null, seeded: made.seeded ?? null, matches: made.matches,
      // a groups night's groups and how many go through; a round robin's home and away (docs/mqtt.md)
      ...Object.fromEntries(["groups", "advance", "twice", "withdrawn"].filter((k) => k in made).map((k) => [k, /** @type {Record<string, unknown>} */ (made)[k]])) };
    this.publish(c);
    this.addPlayers(c.matches.flatMap((m) => m.sides.flatMap((s) => (Array.isArray(s) ? s : s ? [s] : []))));
    this.sync();
  }

  /** The night's competition ended: the retained topic cleared, and every `next` it handed. */
  end() {
    const link = this.link;
    const c = link.competition;
    if (c) {
      for (const m of c.matches) {
        if (m.table && !m.started && link.tables.get(m.table)?.next?.fixture === m.fixture) link.publishRetained(m.table, "next", null, () => {});
      }
    }
    link.publishVenue("competition", null); // the next competition hands nothing by itself until the manager says so
  }
}

export { sideName };
