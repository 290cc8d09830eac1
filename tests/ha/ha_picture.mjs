// A picture of a Home Assistant dashboard, as a person sees it: Debian's Chromium through
// playwright-core (screen/node_modules), Home Assistant's own login page, then the dashboard.
// Usage: node tests/ha/ha_picture.mjs <chromium> <base url> <user> <password> <out.png> <text awaited>
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "..", "screen", "package.json"));
const { chromium } = require("playwright-core");

const [executablePath, base, user, password, out, awaited] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath, headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--no-first-run", "--disable-sync"],
});
try {
  const page = await browser.newPage({ viewport: { width: 900, height: 700 }, deviceScaleFactor: 1 });
  // A busy 2-core machine draws Home Assistant's frontend slowly: each wait ends on what it awaits.
  page.setDefaultTimeout(180000);
  await page.goto(base + "/", { waitUntil: "domcontentloaded" });
  // Home Assistant's login form (its inputs sit in shadow roots: Playwright's CSS pierces them).
  await page.locator('input[name="username"]').fill(user);
  await page.locator('input[name="password"]').fill(password);
  await page.locator('input[name="password"]').press("Enter");
  await page.waitForURL((url) => !url.pathname.startsWith("/auth/"));
  // The dashboard from the sidebar, as a person would (a new page load before the login is
  // exchanged for tokens would land on the login page again).
  await page.getByText("Tables", { exact: true }).first().click();
  await page.waitForURL((url) => url.pathname.startsWith("/club-tables"));
  // The card is drawn once the state it shows is there (Playwright's text match pierces shadow roots).
  await page.getByText(awaited, { exact: true }).first().waitFor();
  await page.locator("hui-card").first().waitFor();
  await page.screenshot({ path: out });
  console.log(`ok: ${out}`);
} catch (error) {
  // What the page showed instead, for the failure's reader.
  for (const page of browser.contexts().flatMap((c) => c.pages())) await page.screenshot({ path: out + ".failed.png" });
  throw error;
} finally {
  await browser.close();
}
