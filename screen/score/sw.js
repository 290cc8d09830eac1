// @ts-check
// The scorer's service worker (docs/scorer.md): the page loads with no connection once it has
// loaded once. Network first, so a new version of the page is taken as soon as the server is
// reachable; the cached copy when it is not. Only the page's own files, never the broker.
// A classic worker script, type-checked with the worker's globals (tsconfig.worker.json).

const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));
const CACHE = "cueboard-score-6";
// Everything the page loads: its modules and the shared ones they import, the words, the schemas
// its payloads are checked against (a file left out here is missing offline).
const SHELL = ["/score", "/score/score.js", "/score/outbox.js", "/score/ui.js", "/score/score.css",
  "/score/manifest.json", "/score/icon-192.png", "/score/icon-512.png", "/score/icon-maskable-192.png",
  "/score/icon-maskable-512.png", "/shared/ui.js", "/shared/broker.js", "/shared/i18n.js", "/shared/payloads.js",
  "/shared/store.js", "/shared/validate.js", "/shared/credentials.js", "/shared/venue_broker.js", "/vendor/preact.js", "/vendor/hooks.js", "/vendor/htm.js", "/vendor/mqtt.min.js",
  "/vendor/state.schema.json", "/vendor/event.schema.json", "/vendor/rejected.schema.json", "/config.js",
  "/favicon.svg", "/i18n/en.json", "/i18n/nl.json", "/i18n/sv.json", "/i18n/de.json", "/i18n/fr.json"];

worker.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => worker.skipWaiting()));
});

worker.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => worker.clients.claim()));
});

worker.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== worker.location.origin) return;
  // The page itself under one key, whatever its query (?broker=&venue=&table=) says.
  const key = request.mode === "navigate" ? "/score" : url.pathname;
  event.respondWith(fetch(request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      event.waitUntil(caches.open(CACHE).then((cache) => cache.put(key, copy)));
    }
    return response;
  }).catch(() => caches.match(key).then((cached) => cached || Response.error())));
});
