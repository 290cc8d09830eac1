// cueboard venue screen: every table of a venue live, from the MQTT feed over WebSockets.
// Query parameters: broker (ws://host:9001), venue (default: every venue), table (one table,
// the TV view), prefix (topic prefix before the venue, default "cueboard").
"use strict";
(function () {
  const params = new URLSearchParams(location.search);
  const config = window.CUEBOARD_SCREEN || {};
  const broker = params.get("broker") || config.broker || `ws://${location.hostname || "127.0.0.1"}:9001`;
  const venue = params.get("venue") || config.venue || "+";
  const only = params.get("table") || config.table || null;
  const prefix = params.get("prefix") || config.prefix || "cueboard";
  const WORM_POINTS = 400;

  // -- a JSON Schema validator for the subset the project's schemas use ----------------
  function typeOf(v) {
    if (v === null) return "null";
    if (Array.isArray(v)) return "array";
    if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
    return typeof v;
  }
  function resolve(root, ref) {
    if (!ref.startsWith("#/")) throw new Error(`unsupported $ref ${ref}`);
    return ref.slice(2).split("/").reduce((node, key) => node[key], root);
  }
  function validate(schema, value, root, path, errors) {
    root = root || schema; path = path || "payload"; errors = errors || [];
    if (schema === true || schema === undefined) return errors;
    if (schema === false) { errors.push(`${path} is not allowed`); return errors; }
    if (schema.$ref) validate(resolve(root, schema.$ref), value, root, path, errors);
    const t = typeOf(value);
    if (schema.type !== undefined) {
      const types = [].concat(schema.type);
      if (!types.some((want) => want === t || (want === "number" && t === "integer"))) {
        errors.push(`${path} should be ${types.join(" or ")}, not ${t}`);
        return errors;
      }
    }
    if ("const" in schema && JSON.stringify(schema.const) !== JSON.stringify(value))
      errors.push(`${path} should be ${JSON.stringify(schema.const)}`);
    if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value)))
      errors.push(`${path} should be one of ${schema.enum.map((e) => JSON.stringify(e)).join(", ")}`);
    if (t === "integer" || t === "number") {
      if (schema.minimum !== undefined && value < schema.minimum) errors.push(`${path} should be at least ${schema.minimum}`);
      if (schema.maximum !== undefined && value > schema.maximum) errors.push(`${path} should be at most ${schema.maximum}`);
      if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
        errors.push(`${path} should be more than ${schema.exclusiveMinimum}`);
    }
    if (t === "string") {
      if (schema.minLength !== undefined && value.length < schema.minLength) errors.push(`${path} should not be empty`);
      if (schema.pattern && !new RegExp(schema.pattern, "u").test(value)) errors.push(`${path} is not in the right format`);
    }
    if (t === "array") {
      if (schema.minItems !== undefined && value.length < schema.minItems) errors.push(`${path} should have at least ${schema.minItems} items`);
      if (schema.maxItems !== undefined && value.length > schema.maxItems) errors.push(`${path} should have at most ${schema.maxItems} items`);
      if (schema.items) value.forEach((item, i) => validate(schema.items, item, root, `${path}[${i}]`, errors));
    }
    if (t === "object") {
      for (const key of schema.required || []) if (!(key in value)) errors.push(`${path} lacks "${key}"`);
      const props = schema.properties || {};
      for (const [key, v] of Object.entries(value)) {
        if (key in props) validate(props[key], v, root, `${path}.${key}`, errors);
        else if (schema.additionalProperties !== undefined) validate(schema.additionalProperties, v, root, `${path}.${key}`, errors);
      }
    }
    for (const sub of schema.allOf || []) validate(sub, value, root, path, errors);
    if (schema.oneOf) {
      const ok = schema.oneOf.filter((sub) => validate(sub, value, root, path, []).length === 0).length;
      if (ok !== 1) errors.push(`${path} matches ${ok} of its ${schema.oneOf.length} forms, not one`);
    }
    if (schema.if && validate(schema.if, value, root, path, []).length === 0 && schema.then)
      validate(schema.then, value, root, path, errors);
    return errors;
  }
  window.cueboardValidate = validate;

  // -- what the page knows --------------------------------------------------------------
  const tables = new Map(); // key "venue/table" -> {venue, name, state, status, worm: Map(seq -> [s0, s1]), frame}
  const schemas = {};
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = String(text); return e; };

  function table(v, name) {
    const key = `${v}/${name}`;
    if (!tables.has(key)) tables.set(key, { key, venue: v, name, state: null, status: null, worm: new Map(), frame: null, events: 0 });
    return tables.get(key);
  }

  function problem(text) {
    const list = $("problems");
    const item = el("li", "problem", `${new Date().toLocaleTimeString()} ${text}`);
    list.prepend(item);
    while (list.children.length > 5) list.lastChild.remove();
    console.warn(text);
  }

  function parse(topic, payload, schemaName) {
    let obj;
    const text = new TextDecoder().decode(payload);
    try { obj = JSON.parse(text); } catch (e) {
      problem(`Ignored a message on ${topic}: it is not JSON (${text.slice(0, 40)})`);
      return null;
    }
    const schema = schemas[schemaName];
    const errors = schema ? validate(schema, obj) : [];
    if (errors.length) {
      problem(`Ignored a message on ${topic}: ${errors.slice(0, 3).join("; ")}`);
      return null;
    }
    return obj;
  }

  function onMessage(topic, payload) {
    const parts = topic.split("/");
    if (parts.length < 4) return;
    const kind = parts[parts.length - 1];
    const name = parts[parts.length - 2];
    const v = parts[parts.length - 3];
    if (only && name !== only) return;
    if (kind === "status") {
      const text = new TextDecoder().decode(payload).trim();
      if (text !== "online" && text !== "offline") { problem(`Ignored a status on ${topic}: "${text.slice(0, 20)}"`); return; }
      table(v, name).status = text;
    } else if (kind === "state") {
      if (payload.length === 0) { tables.delete(`${v}/${name}`); render(); return; } // retained state cleared
      const state = parse(topic, payload, "state");
      if (!state) return;
      const t = table(v, name);
      if (t.frame !== state.frame || (t.state && state.seq < t.state.seq - 50)) t.worm = new Map();
      t.frame = state.frame;
      t.state = state;
      if (state.game === "snooker") {
        for (const seq of [...t.worm.keys()]) if (seq > state.seq) t.worm.delete(seq); // undone
        t.worm.set(state.seq, [state.sides[0].score, state.sides[1].score]);
        while (t.worm.size > WORM_POINTS) t.worm.delete(t.worm.keys().next().value);
      }
    } else if (kind === "event") {
      const ev = parse(topic, payload, "event");
      if (!ev) return;
      const t = table(v, name);
      t.events += 1;
      if (ev.event.type === "undo") for (const seq of [...t.worm.keys()]) if (seq > ev.seq) t.worm.delete(seq);
    } else {
      return;
    }
    render();
  }

  // -- drawing -------------------------------------------------------------------------
  function fact(label, value, cls) {
    const f = el("span", `fact ${cls}`);
    f.append(`${label} `, el("b", null, value));
    return f;
  }

  function wormSvg(t) {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("class", "worm");
    svg.setAttribute("preserveAspectRatio", "none");
    const points = [...t.worm.entries()].sort((a, b) => a[0] - b[0]);
    const top = Math.max(10, ...points.map(([, s]) => Math.max(s[0], s[1])));
    const n = Math.max(1, points.length - 1);
    svg.setAttribute("viewBox", `0 ${-top * 0.05} ${n} ${top * 1.1}`); // a margin: lines at 0 and top stay whole
    svg.dataset.points = String(points.length);
    for (const side of [0, 1]) {
      const line = document.createElementNS(ns, "polyline");
      line.setAttribute("class", `s${side}`);
      line.setAttribute("points", points.map(([, s], i) => `${i},${top - s[side]}`).join(" "));
      svg.append(line);
    }
    const title = document.createElementNS(ns, "title");
    title.textContent = `Score worm, frame ${t.frame}: ${points.length} strokes`;
    svg.append(title);
    return svg;
  }

  function card(t) {
    const s = t.state;
    const c = el("section", "table");
    c.dataset.table = t.name;
    c.dataset.venue = t.venue;
    const offline = t.status === "offline";
    if (offline) c.classList.add("offline");
    const h = el("h2");
    h.append(el("span", "table-name", t.name), el("span", "status", offline ? "offline" : t.status === "online" ? "live" : "…"));
    c.append(h);
    if (!s) { c.append(el("p", "facts", "No match yet")); return c; }
    s.sides.forEach((side, i) => {
      const row = el("div", "side");
      row.dataset.side = String(i);
      if (s.striker === i) row.classList.add("at-table");
      row.append(el("span", "name", side.name));
      if (s.game === "snooker") row.append(el("span", "score", side.score));
      else row.append(el("span", `group group-${side.group || "open"}`, side.group ? `${side.group} ${side.balls_left}` : "open"));
      row.append(el("span", "frames", side.frames));
      c.append(row);
    });
    const facts = el("div", "facts");
    facts.append(fact("frame", s.frame, "frame"));
    if (s.best_of) facts.append(fact("best of", s.best_of, "best-of"));
    if (s.game === "blackball" && s.race_to) facts.append(fact("race to", s.race_to, "race-to"));
    if (s.match_over) facts.append(fact("match to", s.sides[s.match_winner] ? s.sides[s.match_winner].name : "—", "winner"));
    else if (s.frame_over) facts.append(fact("frame to", s.sides[s.frame_winner] ? s.sides[s.frame_winner].name : "—", "winner"));
    if (s.player) facts.append(fact("at the table", s.player, "player"));
    if (s.game === "snooker") {
      facts.append(fact("break", s["break"], "break"));
      facts.append(fact("remaining", s.remaining, "remaining"));
      if (s.ball_on) facts.append(fact("on", s.free_ball ? `${s.ball_on} (free ball)` : s.ball_on, "ball-on"));
      const sr = s.snookers_required;
      if (sr) facts.append(sr.count === null ? fact(s.sides[sr.side].name, "cannot win the frame", "snookers")
        : fact(`${s.sides[sr.side].name} needs`, `${sr.count} snooker${sr.count === 1 ? "" : "s"}`, "snookers"));
      if (s.respotted_black) facts.append(fact("", "re-spotted black", "respot"));
    } else {
      if (s.open_table) facts.append(fact("table", "open", "open"));
      facts.append(fact("visits", s.visits, "visits"));
      if (s.free_shot) facts.append(fact("", "free shot", "free-shot"));
      if (s.black_on) facts.append(fact("on", "black", "black-on"));
      facts.append(fact("shot clock", s.shot_clock === null ? "off" : `${s.shot_clock}s`, "shot-clock"));
    }
    c.append(facts);
    if (s.game === "snooker") c.append(wormSvg(t));
    return c;
  }

  function render() {
    const main = $("tables");
    const list = [...tables.values()].sort((a, b) => a.key.localeCompare(b.key, undefined, { numeric: true }));
    main.replaceChildren(...list.map(card));
    $("empty").hidden = list.length > 0;
  }

  // -- connecting ----------------------------------------------------------------------
  async function loadSchemas() {
    for (const name of ["state", "event"]) {
      try {
        const r = await fetch(`vendor/${name}.schema.json`);
        schemas[name] = await r.json();
      } catch (e) {
        problem(`Could not load the ${name} schema (${e}); payloads are not checked`);
      }
    }
  }

  function connect() {
    const conn = $("conn");
    // A client id starting "cueboard-": the venue's broker lets no other in (examples/mosquitto/venue.conf,
    // so that nobody can take a table's connection over with its id).
    const clientId = `cueboard-screen-${Math.random().toString(16).slice(2, 10)}`;
    const client = mqtt.connect(broker, { clientId, reconnectPeriod: 2000, connectTimeout: 10000, clean: true });
    const base = `${prefix}/${venue}/${only || "+"}`;
    client.on("connect", () => {
      conn.textContent = `live · ${broker}`; conn.dataset.state = "connected";
      client.subscribe([`${base}/state`, `${base}/status`, `${base}/event`], { qos: 1 });
    });
    client.on("reconnect", () => { conn.textContent = `reconnecting to ${broker}…`; conn.dataset.state = "connecting"; });
    client.on("offline", () => { conn.textContent = `broker unreachable: ${broker}`; conn.dataset.state = "error"; });
    client.on("error", (e) => { conn.textContent = `broker error: ${e.message}`; conn.dataset.state = "error"; });
    client.on("message", (topic, payload) => {
      try { onMessage(topic, payload); } catch (e) { problem(`Could not show a message on ${topic}: ${e.message}`); }
    });
    window.cueboardClient = client;
  }

  document.body.classList.toggle("single-view", Boolean(only));
  $("tables").className = only ? "single" : "grid";
  $("title").textContent = only ? `${only}` : venue === "+" ? "cueboard · all venues" : `cueboard · ${venue}`;
  loadSchemas().then(connect);
})();
