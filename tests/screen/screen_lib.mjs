// Shared by the venue screen's end-to-end scripts (tests/screen_*.mjs) and bench/screen_driver.mjs:
// Debian's Chromium through playwright-core, mqtt.js publishers, what a card shows read back from
// the page, and how large it is drawn.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, "..", "..", "screen", "package.json"));
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
export async function openPage(browser, plan, query = "", viewport = { width: 1920, height: 1080 }, more = {}) {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1, ...more });
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
        // The group as read: its disc's letter, its name, the balls left ("R Reds · 3 left").
        group: visible(s.querySelector(".group")) ? [s.querySelector(".group .disc").textContent, s.querySelector(".group .gtext").textContent]
          .join(" ") + (s.querySelector(".group .gleft").textContent ? ` · ${s.querySelector(".group .gleft").textContent}` : "") : null,
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
        add("label", s.querySelector(".frames small"), cap); // drawn over nothing either
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
      // Names: shrunk before cut (card.js fitName). Whether the full name would fit its room at
      // the card's smallest name size, measured here in the name's own font.
      const names = [...card.querySelectorAll(".side .name")].filter(shownEl).map((e) => {
        const cs = getComputedStyle(e);
        const minPx = parseFloat(e.dataset.minPx);
        ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${minPx}px ${cs.fontFamily}`;
        const row = e.closest(".side");
        const extra = (row.classList.contains("winner") ? 1.3 : 0) + (document.body.classList.contains("view-list") && row.classList.contains("at-table") ? 0.9 : 0);
        const fullAtMin = ctx.measureText(e.title).width + extra * parseFloat(e.dataset.fullPx);
        return { full: e.title, shown: e.textContent, px: parseFloat(cs.fontSize), minPx, fullPx: parseFloat(e.dataset.fullPx), room: e.clientWidth,
          fullAtMin, cut: e.classList.contains("cut"), clipped: e.scrollWidth > e.clientWidth + 1 };
      });
      // The labels (BREAK, FRAMES, SHOT CLOCK): their capitals, measured as the words'.
      const labels = [...card.querySelectorAll(".fact small, .frames small, .clock small")].filter((e) => shownEl(e) && e.textContent && parseFloat(getComputedStyle(e).fontSize) > 0)
        .map((e) => ({ text: e.textContent, px: cap(e) }));
      return { table: card.dataset.table, game: card.dataset.game, whole: onScreen(c), w: c.width, h: c.height, items, overlaps, names, labels };
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

// The contrast of every text on the page against what is drawn behind it (WCAG 2 relative
// luminance), from the computed colours: the text's colour over the backgrounds of its
// ancestors composited (a gradient's stops each tried: the worst counts), over `backdrop` where
// the page itself is transparent (the overlay: white, the worst case for light text). Texts
// greyed on purpose (a table offline, a page without its broker: opacity below 1) are left out.
export async function contrasts(page, backdrop = [11, 29, 19]) {
  return page.evaluate((backdrop) => {
    const parse = (c) => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null; const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
    const over = (top, under) => [0, 1, 2].map((k) => top[k] * top[3] + under[k] * (1 - top[3]));
    const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
    const out = [];
    const all = [...document.querySelectorAll("body *")].filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()));
    for (const e of all) {
      if (!shown(e) || e.closest("[hidden]")) continue;
      let opacity = 1;
      const layers = []; // backgrounds from the element up: each a list of possible colours
      for (let a = e; a; a = a.parentElement) {
        const cs = getComputedStyle(a);
        opacity *= Number(cs.opacity);
        const stops = (cs.backgroundImage.match(/rgba?\([^)]+\)/g) || []).map(parse);
        const bg = parse(cs.backgroundColor);
        layers.push({ bg, stops });
      }
      if (opacity < 0.99) continue;
      const cs = getComputedStyle(e);
      const fg = parse(cs.color);
      // Composite from the page's backdrop up to the element; each gradient stop tried.
      let under = [[...backdrop]];
      for (const layer of layers.reverse()) {
        let next = under;
        if (layer.bg && layer.bg[3] > 0) next = next.map((u) => over(layer.bg, u));
        if (layer.stops.length) next = next.flatMap((u) => layer.stops.map((s) => over(s, u)));
        under = next;
      }
      const worst = Math.min(...under.map((u) => ratio(over(fg, u), u)));
      const px = parseFloat(cs.fontSize);
      const bold = Number(cs.fontWeight) >= 700;
      const large = px >= 24 || (bold && px >= 18.66); // WCAG "large text": 18 pt, or 14 pt bold
      out.push({ text: e.textContent.trim().slice(0, 30), ratio: Math.round(worst * 100) / 100, large, need: large ? 3 : 4.5,
        where: e.className || e.tagName });
    }
    return out;
  }, backdrop);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
