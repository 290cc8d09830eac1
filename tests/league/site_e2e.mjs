// The league's static site (cueboard archive site) in real Chromium, from file:// with no server:
// every page reached by following links from index.html, at a phone's and a laptop's size; no
// page scrolls sideways, none holds a script, a hostile name is text; each competition's table
// and every link target read back for the Python side to check against the archive.
// node tests/league/site_e2e.mjs PLAN.json   (PLAN: {root, chromium, sizes, shots, hostile})
import { readFileSync, mkdirSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { check, closeInput, launch } from "../screen/screen_lib.mjs";

const plan = JSON.parse(readFileSync(process.argv[2], "utf-8"));
const base = pathToFileURL(plan.root + "/").href;
const browser = await launch(plan.chromium);
mkdirSync(plan.shots, { recursive: true });
try {
  for (const size of plan.sizes) {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height },
      deviceScaleFactor: size.scale, javaScriptEnabled: true });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const seen = new Set();
    const queue = ["index.html"];
    const tables = {};
    while (queue.length) {
      const path = queue.shift();
      if (seen.has(path)) continue;
      seen.add(path);
      const response = await page.goto(base + path);
      if (response === null || !response.ok()) check(false, `${size.name}: ${path} does not open`);
      const facts = await page.evaluate(() => ({
        scripts: document.querySelectorAll("script").length,
        pwned: "pwned" in window,
        overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
        links: [...document.querySelectorAll("a[href]")].map((a) => a.href),
        text: document.body.innerText,
        standings: [...document.querySelectorAll("table.standings tbody tr")].map(
          (tr) => [...tr.querySelectorAll("td")].map((td) => td.innerText.trim())),
        title: document.title,
        // A player's page: the statistics table and each chart (drawn, inside the viewport),
        // with the figures of its table (in a closed <details>: textContent, not innerText).
        figures: [...document.querySelectorAll("table.figures tbody tr")].map(
          (tr) => [...tr.querySelectorAll("td")].map((td) => td.childNodes[0].textContent.trim())),
        charts: [...document.querySelectorAll("figure.chart")].map((f) => {
          const svg = f.querySelector("svg");
          const box = svg.getBoundingClientRect();
          return { kind: f.classList[1], left: box.left, right: box.right, height: box.height,
            label: svg.getAttribute("aria-label"),
            lines: svg.querySelectorAll(".series path.line").length, bars: svg.querySelectorAll("rect.rect").length,
            dots: svg.querySelectorAll("circle.dot").length,
            rows: [...f.querySelectorAll("table.chart-figures tbody tr")].map(
              (tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent.trim())) };
        }),
        width: document.documentElement.clientWidth,
      }));
      if (facts.scripts !== 0 || facts.pwned || facts.overflow > 0) {
        check(false, `${size.name}: ${path}: ${facts.scripts} scripts, pwned ${facts.pwned}, ${facts.overflow} px sideways`);
      }
      if (facts.standings.length) tables[path] = facts.standings;
      for (const chart of facts.charts) {
        if (chart.left < 0 || chart.right > facts.width || chart.height < 100) {
          check(false, `${size.name}: ${path}: the ${chart.kind} chart is not in view (${JSON.stringify(chart)})`);
        }
      }
      if (facts.figures.length || facts.charts.length) {
        console.log(`player: ${size.name} ${path} ${JSON.stringify({ figures: facts.figures, charts: facts.charts })}`);
      }
      if (facts.text.includes(plan.hostile)) console.log(`hostile-as-text: ${size.name} ${path}`);
      for (const href of facts.links) {
        if (!href.startsWith(base)) check(false, `${size.name}: ${path} links outside the site (${href})`);
        const target = href.slice(base.length).split("#")[0];
        if (!seen.has(target)) queue.push(target);
      }
      for (const shot of plan.pictures.filter((p) => p.path === path || (p.prefix && path.startsWith(p.prefix) && !p.taken?.[size.name]))) {
        shot.taken = { ...(shot.taken || {}), [size.name]: true };
        await page.screenshot({ path: `${plan.shots}/${shot.name}-${size.name}.png`, fullPage: true });
      }
    }
    check(errors.length === 0, `${size.name}: no page error (${errors.join("; ")})`);
    console.log(`pages: ${size.name} ${JSON.stringify([...seen].sort())}`);
    console.log(`tables: ${size.name} ${JSON.stringify(tables)}`);
    await context.close();
  }
} finally {
  await browser.close();
  closeInput();
}
