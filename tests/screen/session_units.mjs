// The shared session's reading of a taken session (screen/shared/broker.js) under node, with a
// stand-in for mqtt.js that only emits what mqtt.js emits: run by tests/screen/test_page_sessions.py
// (test_session_units). What mosquitto does is the e2e test's (page_sessions_e2e.mjs).
import { EventEmitter } from "node:events";
import { Fight, isTakenOver, Session, SESSION_TAKEN_OVER } from "../../screen/shared/broker.js";

let failures = 0;
function check(ok, what) {
  if (ok) console.log(`ok: ${what}`);
  else { console.log(`FAILED: ${what}`); failures += 1; }
}

/** mqtt.js as the Session sees it: events, end() and reconnect() counted. */
class FakeClient extends EventEmitter {
  constructor(options) { super(); this.options = options; this.ended = 0; this.reconnects = 0; this.connected = false; }
  end() { this.ended += 1; }
  reconnect() { this.reconnects += 1; }
  subscribe() {}
}
const made = [];
globalThis.mqtt = { connect: (url, options) => { const c = new FakeClient(options); made.push(c); return c; } };

/** A session and the link states it told, its client. */
function session(options = {}) {
  const told = [];
  const s = new Session({ broker: "wss://broker.test:8885", who: "desk", user: "desk", password: "pw", v5: true,
    reconnectMs: 3000, connectTimeoutMs: 10000, ...options },
  { topics: () => ["t"], message: () => {}, link: (link, detail) => told.push([link, detail]) });
  return { s, told, client: made[made.length - 1] };
}

// The reason code, MQTT 5.
check(SESSION_TAKEN_OVER === 142 && isTakenOver({ cmd: "disconnect", reasonCode: 142 }), "DISCONNECT 142 is a takeover");
check(!isTakenOver({ cmd: "disconnect", reasonCode: 0 }) && !isTakenOver(undefined) && !isTakenOver({ reasonCode: 141 }),
  "another reason (or none) is not");

// The broker names it: taken at once, ended, and the close after it is no "offline".
{
  const { s, told, client } = session();
  client.emit("connect");
  client.emit("disconnect", { cmd: "disconnect", reasonCode: 142 });
  client.emit("close");
  client.emit("offline");
  check(s.link === "taken" && client.ended === 1, `DISCONNECT 142: taken, the client ended (${s.link}, ${client.ended})`);
  check(told.map(([l]) => l).join(" ") === "online taken", `nothing said over it: ${told.map(([l]) => l)}`);
  s.takeBack();
  check(client.reconnects === 1 && s.link === "connecting", "takeBack connects again with the same client");
  s.takeBack();
  check(client.reconnects === 1, "takeBack only from taken");
}

// Another DISCONNECT (the broker going down): tried again as any lost connection.
{
  const { s, client } = session();
  client.emit("connect");
  client.emit("disconnect", { cmd: "disconnect", reasonCode: 139 });
  client.emit("close");
  check(s.link === "offline" && client.ended === 0, `DISCONNECT 139 (server shutting down): offline, not ended (${s.link})`);
}

// The fight (mosquitto < 2.0.15 only closes): the rule on its own, then in the session.
{
  const f = new Fight(16000);
  f.connected(0);
  check(!f.closed(600000), "a long connection closed: once is a lost connection");
  check(!f.closed(601000), "attempts never let in do not count");
  f.connected(605000);
  check(f.closed(608000), "let in again and closed within the window: the session is fought over");
  const g = new Fight(16000);
  g.connected(0);
  check(!g.closed(1000), "a short first connection, closed once: not yet");
  g.connected(4000);
  check(!g.closed(40000), "then a long one: the run starts again");
  g.reset();
  g.connected(41000);
  check(!g.closed(42000), "reset: a fresh start");
  check(!new Fight(0).closed(1) && (() => { const z = new Fight(0); z.connected(0); z.closed(1); z.connected(2); return !z.closed(3); })(),
    "a window of 0 (an anonymous screen) never sees a fight");
}
{
  let now = 1_000_000;
  const realNow = Date.now;
  Date.now = () => now;
  try {
    const { s, client } = session();
    client.emit("connect");
    now += 600000;
    client.emit("close");
    check(s.link === "offline", "thrown off after a long while: offline, tried again");
    client.emit("reconnect");
    now += 3000;
    client.emit("connect");
    now += 3000;
    client.emit("close");
    check(s.link === "taken" && client.ended === 1, `thrown off again 3 s after coming back: taken, ended (${s.link})`);
    s.takeBack();
    check(s.link === "connecting" && client.reconnects === 1, "taken back");
    now += 1000;
    client.emit("connect");
    now += 3000;
    client.emit("close");
    check(s.link === "offline", "after taking it back, one short close is not yet a fight (the window starts again)");

    const screen = session({ user: undefined, password: undefined });
    for (let i = 0; i < 5; i += 1) {
      screen.client.emit("connect");
      now += 1000;
      screen.client.emit("close");
    }
    check(screen.s.link === "offline" && screen.client.ended === 0, "an anonymous screen's short connections never stop it");
  } finally {
    Date.now = realNow;
  }
}

process.exit(failures ? 1 : 0);
