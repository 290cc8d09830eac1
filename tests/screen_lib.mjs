// Shared by the venue screen's end-to-end scripts (tests/screen_*.mjs) and bench/screen_driver.mjs:
// Debian's Chromium through playwright-core, mqtt.js publishers, what a card shows read back from
// the page, and how large it is drawn.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "screen", "package.json"));
export const { chromium } = require("playwright-core");
export const mqtt = require("mqtt");

export function check(ok, what) {
  if (!ok) throw new Error(`FAILED: ${what}`);
  console.log(`ok: ${what}`);
}

export async function launch(executablePath) {
  return chromium.launch({
    executablePath, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
      "--no-first-run", "--disable-sync", "--disable-background-timer-throttling", "--disable-renderer-backgrounding"],
  });
}

export function connect(port, options = {}) {
  return new Promise((resolve, reject) => {
    const c = mqtt.connect(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0, ...options });
    c.once("connect", () => resolve(c));
    c.once("error", reject);
  });
}

export const publish = (c, topic, payload, retain) => new Promise((resolve, reject) =>
  c.publish(topic, typeof payload === "string" ? payload : JSON.stringify(payload), { qos: 1, retain }, (e) => (e ? reject(e) : resolve())));

// The Python side of a test acts on the page's surroundings (stop or start the broker): the
// script asks on standard output ("need: stop-broker") and waits for "done" on standard input.
const lines = createInterface({ input: process.stdin });
const answers = [];
const waiting = [];
lines.on("line", (line) => { if (waiting.length) waiting.shift()(line); else answers.push(line); });
export async function ask(what) {
  console.log(`need: ${what}`);
  const line = answers.length ? answers.shift() : await new Promise((r) => waiting.push(r));
  if (line.trim() !== "done") throw new Error(`FAILED: asked for ${what}, got "${line}"`);
}
export const closeInput = () => lines.close();

// A page with its errors collected; `query` after the broker and venue.
export async function openPage(browser, plan, query = "", viewport = { width: 1920, height: 1080 }) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  // Anything the server's Content-Security-Policy refuses is an error too (docs/security.md).
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`Content-Security-Policy refused ${e.violatedDirective}: ${e.blockedURI || "inline"}`));
  });
  const page = await context.newPage();
  page.errors = [];
  page.on("pageerror", (e) => page.errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") page.errors.push(m.text()); });
  const response = await page.goto(`${plan.url}?broker=ws://127.0.0.1:${plan.ws_port}&venue=${plan.venue}${query ? `&${query}` : ""}`);
  page.policy = response ? response.headers()["content-security-policy"] || "" : "";
  return page;
}

// What a card shows, read back from the page (null: no card for that table on the page).
export async function shown(page, table) {
  return page.evaluate((table) => {
    const card = document.querySelector(`section.table[data-table="${CSS.escape(table)}"]`);
    if (!card) return null;
    const visible = (e) => e && !e.hidden && e.getClientRects().length > 0;
    const facts = {};
    for (const f of card.querySelectorAll(".fact")) {
      if (!visible(f)) continue;
      facts[[...f.classList].find((c) => c !== "fact")] = f.querySelector("b").textContent;
    }
    const clock = card.querySelector(".clock");
    return {
      offline: card.classList.contains("offline"),
      disconnected: card.classList.contains("disconnected"),
      info: card.querySelector(".match-info").textContent,
      sides: [...card.querySelectorAll(".side")].map((s) => ({
        name: s.querySelector(".name").title, shownName: s.querySelector(".name").textContent,
        score: visible(s.querySelector(".score")) ? s.querySelector(".score").textContent : null,
        group: visible(s.querySelector(".group")) ? s.querySelector(".group").textContent : null,
        frames: s.querySelector(".frames b").textContent,
        atTable: s.classList.contains("at-table"),
      })),
      facts,
      clock: visible(clock) ? { seconds: clock.querySelector("b").textContent, label: clock.querySelector("small").textContent,
        called: clock.classList.contains("called"), expired: clock.classList.contains("expired"),
        running: clock.classList.contains("running"), held: clock.classList.contains("held"),
        background: getComputedStyle(clock).backgroundColor } : null,
      worm: Number(card.querySelector("svg.worm")?.dataset.points ?? 0),
      status: card.querySelector(".status").hidden ? null : card.querySelector(".status").dataset.status,
      statusText: card.querySelector(".status").textContent,
    };
  }, table);
}

// How large each card on the page is drawn: for the digits, the height of their ink (canvas
// measureText of the element's own font: what a spectator sees, not the line box); for words,
// the cap height of their font; and whether each element lies whole on the screen.
export async function sizes(page) {
  return page.evaluate(() => {
    const ctx = document.createElement("canvas").getContext("2d");
    const fontOf = (e) => { const cs = getComputedStyle(e); return `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`; };
    const ink = (e) => { ctx.font = fontOf(e); const m = ctx.measureText(e.textContent); return m.actualBoundingBoxAscent + m.actualBoundingBoxDescent; };
    const cap = (e) => { ctx.font = fontOf(e); return ctx.measureText("H").actualBoundingBoxAscent; };
    const W = innerWidth, H = innerHeight;
    const onScreen = (r) => r.width > 0 && r.height > 0 && r.left >= -1 && r.top >= -1 && r.right <= W + 1 && r.bottom <= H + 1;
    const inside = (r, c) => r.left >= c.left - 1 && r.top >= c.top - 1 && r.right <= c.right + 1 && r.bottom <= c.bottom + 1;
    const shownEl = (e) => e && !e.hidden && e.getClientRects().length > 0;
    return [...document.querySelectorAll("#tables > section.table")].map((card) => {
      const c = card.getBoundingClientRect();
      const items = [];
      const add = (kind, e, measure) => {
        if (!shownEl(e)) return;
        const r = e.getBoundingClientRect();
        // Where the text itself is drawn (an element's box may be wider than its text, or narrower
        // when the text spills out of it).
        const range = document.createRange();
        range.selectNodeContents(e);
        const t = range.getBoundingClientRect();
        // The text's line boxes are taller than its ink (a tight line-height lets them overlap
        // harmlessly): take the font's own leading off, top and bottom.
        ctx.font = fontOf(e);
        const m = ctx.measureText(e.textContent);
        const ink = { left: Math.max(t.left, r.left), right: Math.min(t.right, r.right),
          top: t.top + m.fontBoundingBoxAscent - m.actualBoundingBoxAscent,
          bottom: t.bottom - (m.fontBoundingBoxDescent - m.actualBoundingBoxDescent) };
        items.push({ kind, text: e.textContent, px: measure(e), fontPx: parseFloat(getComputedStyle(e).fontSize),
          whole: onScreen(r) && inside(r, c), clipped: e.scrollWidth > e.clientWidth + 1, ink });
      };
      for (const s of card.querySelectorAll(".side")) {
        add("score", s.querySelector(".score"), ink);
        const big = card.dataset.game === "blackball";
        add(big ? "score" : "frames", s.querySelector(".frames b"), big ? ink : cap);
        add("name", s.querySelector(".name"), cap);
        add("group", s.querySelector(".group"), cap);
      }
      for (const f of card.querySelectorAll(".fact")) add(`fact:${[...f.classList].find((k) => k !== "fact")}`, f.querySelector("b"), cap);
      add("clock", card.querySelector(".clock b"), ink);
      add("table", card.querySelector(".table-name"), cap);
      // Nothing drawn over anything else: every two texts' boxes apart (a pixel's grace).
      const overlaps = [];
      for (let i = 0; i < items.length; i++) {
        for (let j = i + 1; j < items.length; j++) {
          const a = items[i].ink, b = items[j].ink;
          if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1)
            overlaps.push(`${items[i].kind} "${items[i].text}" and ${items[j].kind} "${items[j].text}"`);
        }
      }
      return { table: card.dataset.table, game: card.dataset.game, whole: onScreen(c), w: c.width, h: c.height, items, overlaps };
    });
  });
}

// Every table the page shows, page by page (window.cueboardShow(n) turns to page n).
export async function everyPage(page) {
  const pages = Number(await page.evaluate(() => document.getElementById("pager").dataset.pages || 1));
  const out = [];
  for (let i = 0; i < pages; i++) {
    await page.evaluate((i) => window.cueboardShow(i), i);
    await page.waitForFunction((i) => {
      const p = document.getElementById("pager");
      return p.hidden || Number(p.dataset.page) === i + 1;
    }, i, { timeout: 10000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    out.push({ page: i + 1, sizes: await sizes(page) });
  }
  return out;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
