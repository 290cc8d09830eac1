// The archive's pages (cueboard archive serve) in real Chromium, under the server's own
// Content-Security-Policy: no console error (a style the policy refused would be one), the
// charts' own style applied (the rating line unfilled), nothing wider than the window.
// node tests/league/archive_page_e2e.mjs PLAN.json   (PLAN: {chromium, sizes, urls})
import { readFileSync } from "node:fs";
import { check, closeInput, launch } from "../screen/screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf-8"));
const browser = await launch(plan.chromium);
try {
  for (const size of plan.sizes) {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
    const page = await context.newPage();
    const problems = [];
    page.on("console", (m) => { if (m.type() === "error" || m.type() === "warning") problems.push(m.text()); });
    page.on("pageerror", (e) => problems.push(String(e)));
    for (const url of plan.urls) {
      const response = await page.goto(url);
      check(response !== null && response.ok(), `${size.name}: ${url} opens`);
      const facts = await page.evaluate(() => {
        const line = document.querySelector("figure.rating .series path.line");
        const bar = document.querySelector("figure.breaks rect.rect");
        return {
          overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          charts: document.querySelectorAll("figure.chart svg").length,
          lineFill: line ? getComputedStyle(line).fill : null,
          barFill: bar ? getComputedStyle(bar).fill : null,
          th: getComputedStyle(document.querySelector("th") || document.body).backgroundColor,
        };
      });
      console.log(`facts: ${size.name} ${url} ${JSON.stringify(facts)}`);
      check(facts.overflow <= 0, `${size.name}: ${url} nothing wider than the window (${facts.overflow} px)`);
    }
    check(problems.length === 0, `${size.name}: no console error (${problems.join(" | ")})`);
    await context.close();
  }
} finally {
  await browser.close();
  closeInput();
}
