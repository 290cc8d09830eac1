// @ts-check
// The link every page keeps to the venue's broker (the screen, the desk, the scorer): one MQTT
// session over WebSockets that mqtt.js brings back by itself when the network or the broker
// drops, the page's topics subscribed again on every connect (sessions are clean: nothing is
// queued for a page while it is away, the retained topics bring it up to date), and the session's
// state said in one word the page shows. A login the broker refuses is not tried again with the
// same words: the page asks for others.
//
// mqtt.js's browser bundle (vendor/mqtt.min.js) is loaded by a classic <script> before the
// modules and read from `window.mqtt`.

/**
 * @typedef {import("mqtt").MqttClient} MqttClient
 * @typedef {import("mqtt").IClientOptions} ClientOptions
 * @typedef {import("mqtt").IPublishPacket} PublishPacket
 * @typedef {"connecting" | "online" | "offline" | "refused"} Link
 *   connecting: trying (first time or again); online: connected and subscribed; offline: lost,
 *   trying again; refused: the broker said no to the login, not tried again
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
 * A client id starting "cueboard-": the venue's broker lets no other in (examples/mosquitto/venue.conf),
 * so that nobody can take a table's connection over with its id. Random after the name: two tabs
 * of one login are two sessions, neither throws the other off.
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
    /** @type {MqttClient} */
    this.client = mqttjs().connect(broker, settings);
    const client = this.client;
    client.on("connect", () => {
      // QoS 1, though it costs a PUBACK a message: mosquitto drops QoS 0 messages for a client
      // once 1000 wait to be sent to it (max_queued_messages), and subscribing in a hall of 500
      // tables or more brings that many retained messages at once. At QoS 1 the broker queues
      // them and paces them by the acknowledgements.
      const topics = handlers.topics();
      if (topics.length) client.subscribe(topics, { qos: 1 });
      this.set("online", "");
    });
    client.on("reconnect", () => this.set("connecting", ""));
    client.on("close", () => { if (this.link !== "refused") this.set("offline", ""); });
    client.on("offline", () => { if (this.link !== "refused") this.set("offline", ""); });
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
