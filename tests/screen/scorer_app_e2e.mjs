// The scorer as an app (tests/screen/test_scorer_app.py runs it): Debian's Chromium as a phone, with a
// profile of its own (an app cannot be installed from an incognito context), the venue's server
// key trusted as a phone that installed the venue's CA trusts it. The page is opened at the
// address read back from the table's printed card (QR code 1): it signs in from the fragment,
// keeps the login on the device and wipes the fragment; Chromium finds it installable
// (Page.getInstallabilityErrors: none); with the server gone, the installed app's start page
// (/score, no query) loads from the service worker with the table and the login it was opened with.
// Asks the Python side on standard output ("need: stop-server") and waits for "done".
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ask, check, chromium, closeInput } from "./screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const profile = mkdtempSync(join(tmpdir(), "cueboard-scorer-app-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: plan.chromium, headless: true,
  viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    `--ignore-certificate-errors-spki-list=${plan.spki}`],
});
try {
  const page = context.pages()[0] || await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  await page.goto(plan.card_url);
  await page.waitForFunction(() => {
    const m = window.cueboardScorer && window.cueboardScorer.model;
    return m && m.login && m.connection === "online";
  }, null, { timeout: 60000 });
  check(!(await page.evaluate(() => location.hash)) && !page.url().includes("pass="),
    `the card's login left the address bar (${page.url()})`);
  const kept = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("cueboard-score-login:"))
    .map((k) => JSON.parse(localStorage.getItem(k))));
  check(kept.length === 1 && kept[0].user === plan.user && kept[0].trusted === true,
    `the login is kept on the trusted device (${kept.map((l) => l.user)})`);

  // Installable: the manifest complete, its icons PNG (192 and 512, maskable too), a service worker.
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
  await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 30000 }).catch(() => {});
  const cdp = await context.newCDPSession(page);
  const manifest = await cdp.send("Page.getAppManifest");
  check(manifest.errors.length === 0, `the manifest parses with no error (${JSON.stringify(manifest.errors)})`);
  check(manifest.url.endsWith("/score/manifest.json"), `Chromium read the manifest (${manifest.url})`);
  const parsed = JSON.parse(manifest.data);
  const icons = parsed.icons.filter((i) => i.type === "image/png");
  check(["192x192", "512x512"].every((s) => icons.some((i) => i.sizes === s && i.purpose === "maskable"))
    && ["192x192", "512x512"].every((s) => icons.some((i) => i.sizes === s && (i.purpose || "any") === "any")),
  "PNG icons of 192 and 512 px, maskable and any");
  const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors");
  check(installabilityErrors.length === 0, `installable: no installability error (${JSON.stringify(installabilityErrors)})`);
  for (const icon of icons) {
    const got = await page.evaluate(async (src) => {
      const r = await fetch(src);
      const b = await createImageBitmap(await r.blob());
      return [r.headers.get("content-type"), b.width, b.height];
    }, icon.src);
    check(got[0] === "image/png" && `${got[1]}x${got[2]}` === icon.sizes, `${icon.src}: ${got.join(" ")}`);
  }
  await page.screenshot({ path: plan.shot });

  // Once installed, it opens at its start_url (/score, no query) — with the server gone.
  await ask("stop-server");
  await page.goto(new URL(parsed.start_url, plan.card_url).href);
  await page.waitForFunction(() => window.cueboardScorer && window.cueboardScorer.model.login, null, { timeout: 60000 });
  const where = await page.evaluate(() => ({ table: window.cueboardScorer.settings.table,
    user: window.cueboardScorer.model.login.user, shown: document.querySelector(".bar .where")?.textContent,
    problem: window.cueboardScorer.model.problem }));
  check(where.table === plan.table && where.shown === plan.table && where.user === plan.user,
    `with no server the installed app opens from its service worker: table ${where.shown}, signed in as ${where.user}`);
  // Its words and the schemas it checks the table's payloads against came from the cache too.
  check(where.problem === null, `with no server nothing failed to load (${JSON.stringify(where.problem)})`);
  const pageErrors = errors.filter((e) => !/^WebSocket connection to .* failed|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e));
  check(pageErrors.length === 0, `no page errors (${pageErrors.join("; ")})`);
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
  closeInput();
}
console.log("all ok");
