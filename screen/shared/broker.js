// @ts-check
// The link every page keeps to the venue's broker (the screen, the desk, the scorer): one MQTT
// session over WebSockets that mqtt.js brings back by itself when the network or the broker
// drops, the page's topics subscribed again on every connect (sessions are clean: nothing is
// queued for a page while it is away, the retained topics bring it up to date), and the session's
// state said in one word the page shows. A login the broker refuses is not tried again with the
// same words: the page asks for others. A session another connection of the same login took over
// (one login per device: the venue's broker ties the client id to the login) is not tried again
// by itself either, or two tabs of one login would throw each other off for ever: the page says
// so and offers to take it back. The broker names a takeover (MQTT 5 DISCONNECT 142) from
// mosquitto 2.0.15 on; an older one only closes the connection, and the fight is seen (`Fight`).
//
// mqtt.js's browser bundle (vendor/mqtt.min.js) is loaded by a classic <script> before the
// modules and read from `window.mqtt`.

/**
 * @typedef {import("mqtt").MqttClient} MqttClient
 * @typedef {import("mqtt").IClientOptions} ClientOptions
 * @typedef {import("mqtt").IPublishPacket} PublishPacket
 * @typedef {"connecting" | "online" | "offline" | "refused" | "taken"} Link
 *   connecting: trying (first time or again); online: connected and subscribed; offline: lost,
 *   trying again; refused: the broker said no to the login, not tried again; taken: another
 *   connection with this login took the session (MQTT 5 DISCONNECT 142), not tried again until
 *   `takeBack` (the login stays good: nothing kept is forgotten)
 * @typedef {{
 *   broker: string, who: string, user?: string, password?: string, v5?: boolean,
 *   reconnectMs?: number, connectTimeoutMs?: number, keepalive?: number, stopWhenRefused?: boolean,
 *   extra?: Partial<ClientOptions>}} SessionOptions
 *   who: the client id's middle ("screen", a login's name); extra: anything more for mqtt.js (a will)
 * @typedef {{
 *   topics: () => string[],
 *   message: (topic: string, payload: Uint8Array, packet: PublishPacket) => void,
 *   link?: (link: Link, detail: string) => void}} SessionHandlers
 *   topics: what to subscribe to (QoS 1) on each connect; link: the session's state changed
 */

/** mqtt.js from its bundle. @returns {typeof import("mqtt")} */
function mqttjs() {
  const lib = /** @type {typeof globalThis & {mqtt?: typeof import("mqtt")}} */ (globalThis).mqtt;
  if (!lib || typeof lib.connect !== "function") throw new Error("vendor/mqtt.min.js is not loaded: the page cannot reach the broker");
  return lib;
}

/**
 * A client id starting "cueboard-", random after the name. The venue's broker does not use it on
 * the people's and pages' listeners: there the client id is the login (use_username_as_clientid,
 * docs/security.md), so two tabs or devices of one login are one session and the second takes it
 * from the first (see `isTakenOver`). It still names a page's connection to a broker that keeps
 * client ids (the screens' listener, a demo's broker), where two tabs are two sessions.
 * @param {string} who
 */
export function clientId(who) {
  return `cueboard-${who}-${Math.random().toString(16).slice(2, 10)}`;
}

/**
 * Whether a connection error is the broker refusing the login (CONNACK: MQTT 5 134 bad user name
 * or password, 135 not authorized; MQTT 3.1.1 4 and 5), rather than a network that may come back.
 * @param {unknown} error
 */
export function isRefusal(error) {
  const e = /** @type {{code?: unknown, message?: unknown}} */ (error || {});
  return [134, 135, 4, 5].includes(Number(e.code)) || /Not authorized|Bad User Name or Password/i.test(String(e.message));
}

/** MQTT 5's DISCONNECT reason "Session taken over": another connection with this client id came in. */
export const SESSION_TAKEN_OVER = 142;

/**
 * Whether a DISCONNECT the broker sent says another connection took this session over (MQTT 5,
 * mosquitto 2.0.15 on: eclipse/mosquitto#2607).
 * @param {unknown} packet
 */
export function isTakenOver(packet) {
  const p = /** @type {{reasonCode?: unknown}} */ (packet || {});
  return Number(p.reasonCode) === SESSION_TAKEN_OVER;
}

/**
 * A session taken over that the broker does not name: mosquitto before 2.0.15 (Debian 12's 2.0.11)
 * just closes the old connection, which then looks like any lost one. The sign is the fight two
 * connections of one login start: closed, in again, and closed again within `quickMs` of being let
 * in (the other came back). A broker restarting or a network coming back closes a connection once,
 * and the attempts that fail in between do not count (never let in). So the first device to be
 * thrown off twice stops: one more connection than with the reason code, then quiet.
 */
export class Fight {
  /** @param {number} quickMs */
  constructor(quickMs) {
    this.quickMs = quickMs;
    this.inAt = /** @type {number | null} */ (null); // when the broker last let this connection in
    this.run = 0; // closes in a row, each after a short connection
  }

  /** The broker let the connection in. @param {number} now */
  connected(now) { this.inAt = now; }

  /** The connection closed; whether it is the second close in a row of a short one. @param {number} now */
  closed(now) {
    if (this.inAt === null) return false; // an attempt the broker never let in
    this.run = now - this.inAt < this.quickMs ? this.run + 1 : 1;
    this.inAt = null;
    return this.run >= 2;
  }

  /** Start again (the page takes the session back on purpose). */
  reset() { this.inAt = null; this.run = 0; }
}

/**
 * The topics for some tables of a venue: `<base>/<table>/<kind>` for each name and kind; every
 * table ("+") when no names are given or one would be read by MQTT as a wildcard.
 * @param {string} base "<prefix>/<venue>"
 * @param {string[] | null} names
 * @param {string[]} kinds "state", "status", ...
 */
export function tableTopics(base, names, kinds) {
  const which = names && names.length && names.every((n) => !/[+#/]/.test(n)) ? names : ["+"];
  return which.flatMap((name) => kinds.map((kind) => `${base}/${name}/${kind}`));
}

/**
 * A table's topic read back: `.../<venue>/<table>/<kind>`, or null for a topic too short.
 * @param {string} topic
 * @returns {{venue: string, table: string, kind: string} | null}
 */
export function tableTopic(topic) {
  const parts = topic.split("/");
  if (parts.length < 4) return null;
  return { venue: parts[parts.length - 3], table: parts[parts.length - 2], kind: parts[parts.length - 1] };
}

/** One page's session with the broker. */
export class Session {
  /** @param {SessionOptions} options @param {SessionHandlers} handlers */
  constructor(options, handlers) {
    this.options = options;
    this.handlers = handlers;
    /** @type {Link} */
    this.link = "connecting";
    this.detail = "";
    const { broker, who, user, password, v5 = false, reconnectMs = 2000, connectTimeoutMs = 10000, keepalive = 30, extra = {} } = options;
    /** @type {ClientOptions} */
    const settings = { clientId: clientId(who), clean: true, reconnectPeriod: reconnectMs, connectTimeout: connectTimeoutMs,
      keepalive, ...extra };
    if (user !== undefined) { settings.username = user; settings.password = password; }
    if (v5) settings.protocolVersion = 5;
    // A fight over the session (see Fight): the reconnect periods of both sides, and the time to
    // connect. Only a login's session can be taken (its client id is the login); an anonymous
    // screen's never stops trying, however its network comes and goes.
    this.fight = new Fight(user === undefined ? 0 : 2 * reconnectMs + connectTimeoutMs);
    /** @type {MqttClient} */
    this.client = mqttjs().connect(broker, settings);
    const client = this.client;
    client.on("connect", () => {
      this.fight.connected(Date.now());
      // QoS 1, though it costs a PUBACK a message: mosquitto drops QoS 0 messages for a client
      // once 1000 wait to be sent to it (max_queued_messages), and subscribing in a hall of 500
      // tables or more brings that many retained messages at once. At QoS 1 the broker queues
      // them and paces them by the acknowledgements.
      const topics = handlers.topics();
      if (topics.length) client.subscribe(topics, { qos: 1 });
      this.set("online", "");
    });
    client.on("reconnect", () => this.set("connecting", ""));
    client.on("close", () => {
      if (this.stopped()) return;
      if (this.fight.closed(Date.now())) { this.takenHere(""); return; }
      this.set("offline", "");
    });
    client.on("offline", () => { if (!this.stopped()) this.set("offline", ""); });
    // Taken over: ended here, before the closed socket sets mqtt.js's reconnect timer going.
    client.on("disconnect", (packet) => { if (isTakenOver(packet)) this.takenHere(String(packet.reasonCode)); });
    client.on("error", (e) => {
      if (isRefusal(e)) {
        this.set("refused", e.message || String(e));
        if (options.stopWhenRefused !== false) client.end(true);
      } else {
        this.set("offline", e.message || String(e));
      }
    });
    client.on("message", (topic, payload, packet) => handlers.message(topic, payload, packet));
  }

  /** @param {Link} link @param {string} detail */
  set(link, detail) {
    this.link = link;
    this.detail = detail;
    if (this.handlers.link) this.handlers.link(link, detail);
  }

  get online() { return this.client.connected; }

  /** Taken over: said, and ended before mqtt.js's reconnect timer starts. @param {string} detail */
  takenHere(detail) {
    this.set("taken", detail);
    this.client.end(true);
  }

  /** Refused or taken: left alone until the page acts (no "offline" over its words). */
  stopped() { return this.link === "refused" || this.link === "taken"; }

  /**
   * Take the session back here after another connection took it ("taken"): connect again with the
   * same login, which takes it from the other (that one then says "taken" in its turn).
   */
  takeBack() {
    if (this.link !== "taken") return;
    this.fight.reset();
    this.set("connecting", "");
    this.client.reconnect();
  }

  /**
   * Publish `text` (QoS 1 unless told); `done` hears the broker's answer: an error for a topic the
   * login may not write ("Not authorized" in the PUBACK, MQTT 5).
   * @param {string} topic @param {string} text
   * @param {{retain?: boolean, qos?: 0 | 1 | 2}} [how]
   * @param {(error: Error | undefined) => void} [done]
   */
  publish(topic, text, how = {}, done) {
    this.client.publish(topic, text, { qos: how.qos ?? 1, retain: how.retain ?? false }, (e) => { if (done) done(e); });
  }

  /** Close for good (signing out, a refused login). */
  end() {
    this.client.end(true);
  }
}
