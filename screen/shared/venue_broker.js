// @ts-check
// Where a page connects: the broker the server that served it is configured with (config.js,
// `cueboard screen --broker-ws/--desk-broker`, or the server's own host on the venue's ports),
// never a broker a link names (issue 37, row 1). A link (a QR code, a bookmark) may still carry
// `?broker=`, as the scorer's cards do: the same broker is simply ignored, another one is refused
// with words and nothing is sent anywhere, so no link can collect a login. The page's content
// policy (connect-src, cueboard/venue/pages.py) names the same broker, so even a script that got
// in could not open a connection elsewhere.

/** The code a refusal carries for machines and tests (data-code on the words shown). */
export const OTHER_BROKER = "other-broker";

/**
 * A broker URL read for comparing: scheme, host and port (the scheme's default written out) and
 * path ("" and "/" alike); null for what is not a ws:// or wss:// URL.
 * @param {string} url
 */
export function brokerKey(url) {
  let u;
  try { u = new URL(url); } catch { return null; }
  if (u.protocol !== "ws:" && u.protocol !== "wss:") return null;
  const port = u.port || (u.protocol === "wss:" ? "443" : "80");
  return `${u.protocol}//${u.hostname.toLowerCase()}:${port}${u.pathname === "/" ? "" : u.pathname}`;
}

/** Whether two broker URLs name the same broker. @param {string} a @param {string} b */
export function sameBroker(a, b) {
  const ka = brokerKey(a);
  return ka !== null && ka === brokerKey(b);
}

/**
 * The page's broker: config.js's `key`, else `fallback` (the page's own host on the venue's port:
 * a page copied to a plain web server with no config.js of its own). `linked` is the link's
 * `?broker=`: `other` is set when it names another broker, and the page must then connect nowhere.
 * @param {{[key: string]: unknown}} config
 * @param {string} key "broker" (the screens' listener) or "desk_broker" (the pages' one: desk, scorer)
 * @param {string} fallback
 * @param {string | null} linked
 * @returns {{broker: string, other: string | null}}
 */
export function venueBroker(config, key, fallback, linked) {
  const configured = typeof config[key] === "string" && config[key] ? String(config[key]) : fallback;
  return { broker: configured, other: linked && !sameBroker(linked, configured) ? linked : null };
}
