// End-to-end tests of the venue screen (screen/) in headless Chromium (Debian's), driven by
// playwright-core, against a real mosquitto. Run by tests/screen/test_screen.py:
//   node tests/screen/screen_e2e.mjs PLAN.json
// The plan names a scenario and gives the page's address, the broker's MQTT (TCP) and WebSockets
// ports, the states to publish and where to save screenshots. Prints one line a check; exits 1
// on the first failure. Scenarios:
//   feed        states of four tables stroke by stroke: every number on the page, each update
//               within a second, the score worm, a last will, malformed payloads, the TV view
//   layout      1, 4, 8, 16 and 40 tables at 1920x1080 and 3840x2160: measured sizes against
//               the targets, every table on some page, the list view
//   overlay     ?overlay=1: a transparent page, the scorebug in its corner at its size
//   languages   ?lang= for each catalogue: the page's words are the catalogue's
//   clock       the shot clock counting down from clock.ends_at, the call, a pause, a skewed clock
//   connection  the page losing the broker and getting it back (the Python side stops it)
//   smoke       a page on a running `cueboard demo`
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import {
  ask, check, closeInput, connect, contrasts, everyPage, launch, openPage, publish, shown, sizes, sleep,
} from "./screen_lib.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const PREFIX = `cueboard/${plan.venue}`;
const UPDATE_MS = 1000; // the page must show a new state within a second
const catalogue = (lang) => JSON.parse(readFileSync(join(here, "..", "..", "screen", "i18n", `${lang}.json`), "utf8")).screen;
const EN = catalogue("en");

// What a card should show for a state, worked out here from the state and the English words.
function fill(text, vars) { return text.replace(/\{(\w+)\}/g, (m, k) => String(vars[k])); }
function plural(words, key, n, vars) { const v = words[key]; return fill(typeof v === "string" ? v : n === 1 ? v.one : v.other, vars); }
function expected(state, words = EN) {
  const w = (k) => words[`${state.game}.${k}`] ?? words[k];
  const facts = {};
  const name = (i) => state.sides[i].name;
  if (state.game === "snooker") {
    if (state.striker !== null) facts.break = String(state.break);
    if (!state.frame_over) facts.remaining = String(state.remaining);
    if (state.ball_on) facts["ball-on"] = words[`ball.${state.ball_on}`];
    if (state.free_ball) facts["free-ball"] = words.free_ball;
    const sr = state.snookers_required;
    if (sr && !state.frame_over) facts.snookers = sr.count === null ? fill(words.cannot_win, { name: name(sr.side) })
      : plural(words, "snookers", sr.count, { name: name(sr.side), n: sr.count });
    if (state.respotted_black && !state.frame_over) facts.respot = words.respotted_black;
  } else {
    if (state.open_table && !state.frame_over) facts.open = words.open_table;
    if (!state.frame_over && state.striker !== null) facts.visits = String(state.visits);
    if (state.free_shot) facts["free-shot"] = words.free_shot;
    if (state.black_on && !state.frame_over) facts["black-on"] = words.black_on;
  }
  if (state.match_over) facts.result = fill(w("match_won"), { name: name(state.match_winner) });
  else if (state.frame_over) facts.result = fill(w("frame_won"), { name: name(state.frame_winner) });
  const length = state.game === "blackball" && state.race_to ? fill(w("race_to"), { n: state.race_to })
    : state.best_of > 1 ? fill(w("best_of"), { n: state.best_of }) : "";
  return {
    info: [fill(w("frame"), { n: state.frame }), length].filter(Boolean).join(" · "),
    sides: state.sides.map((s, i) => ({
      name: s.name, score: state.game === "snooker" ? String(s.score) : null,
      group: state.game === "snooker" || !s.group ? null
        : `${words[`letter.${s.group}`]} ${words[`group.${s.group}`]}${s.balls_left === null ? "" : ` · ${fill(words.balls_left, { n: s.balls_left })}`}`,
      frames: String(s.frames), atTable: state.striker === i,
    })),
    facts,
  };
}

function matches(got, state, words) {
  if (!got) return false;
  const want = expected(state, words);
  // A compact card or a list row says "needs n snookers" as the count, labelled.
  if (got.facts["snookers-n"] !== undefined) {
    const sr = state.snookers_required;
    if (!sr || String(sr.count) !== got.facts["snookers-n"] || "snookers" in got.facts) return false;
    got = { ...got, facts: { ...got.facts, snookers: want.facts.snookers } };
    delete got.facts["snookers-n"];
  }
  const sides = got.sides.map(({ name, score, group, frames, atTable }) => ({ name, score, group, frames, atTable }));
  return got.info === want.info && JSON.stringify(sides) === JSON.stringify(want.sides)
    && JSON.stringify(Object.keys(got.facts).sort()) === JSON.stringify(Object.keys(want.facts).sort())
    && Object.entries(want.facts).every(([k, v]) => got.facts[k] === v);
}

async function waitShown(page, table, state, ms, what, words) {
  const start = Date.now();
  let got = null;
  while (Date.now() - start < ms) {
    got = await shown(page, table);
    if (matches(got, state, words)) return Date.now() - start;
    await sleep(20);
  }
  throw new Error(`FAILED: ${what}: ${table} shows ${JSON.stringify(got)}, expected ${JSON.stringify(expected(state, words))}`);
}

const fresh = (state) => ({ ...state, ts: new Date().toISOString() });

async function daemonsFor(names) {
  const daemons = {};
  for (const name of names) {
    daemons[name] = await connect(plan.mqtt_port, { clientId: `daemon-${name}`,
      will: { topic: `${PREFIX}/${name}/status`, payload: "offline", qos: 1, retain: true } });
    await publish(daemons[name], `${PREFIX}/${name}/status`, "online", true);
  }
  return daemons;
}

// -- feed ---------------------------------------------------------------------------------------
async function feed(browser, clients) {
  const pub = await connect(plan.mqtt_port);
  clients.push(pub);
  const daemons = await daemonsFor(Object.keys(plan.tables));
  clients.push(...Object.values(daemons));
  // A screen that joins late gets the retained states at once.
  for (const [name, steps] of Object.entries(plan.tables)) await publish(daemons[name], `${PREFIX}/${name}/state`, fresh(steps[0].state), true);
  const page = await openPage(browser, plan);
  await page.waitForSelector(".conn[data-state=connected]", { state: "attached", timeout: 10000 });
  for (const [name, steps] of Object.entries(plan.tables)) await waitShown(page, name, steps[0].state, 5000, `retained state of ${name}`);
  check(true, `grid shows ${Object.keys(plan.tables).length} tables from their retained states`);
  // A chosen set by name: only those tables (subscribed to by name).
  const chosen = Object.keys(plan.tables).filter((_, i) => i % 2 === 0);
  const some = await openPage(browser, plan, `tables=${chosen.join(",")}`, { width: 1280, height: 720 });
  for (const name of chosen) await waitShown(some, name, plan.tables[name][0].state, 5000, `tables=${chosen}: ${name}`);
  const onSome = await some.$$eval("section.table", (l) => l.map((e) => e.dataset.table));
  check(JSON.stringify(onSome) === JSON.stringify(chosen), `tables=${chosen.join(",")} shows ${onSome.join(", ")} only`);
  await some.context().close();
  const tv = plan.single_table;
  const single = await openPage(browser, plan, `table=${tv}`, { width: 1280, height: 720 });
  await waitShown(single, tv, plan.tables[tv][0].state, 5000, `single view of ${tv}`);

  // Every table forward, interleaved, stroke by stroke: each new state shown within a second.
  let slowest = 0, count = 0;
  const longest = Math.max(...Object.values(plan.tables).map((s) => s.length));
  for (let i = 1; i < longest; i++) {
    for (const [name, steps] of Object.entries(plan.tables)) {
      if (i >= steps.length) continue;
      await publish(daemons[name], `${PREFIX}/${name}/event`, steps[i].event, false);
      await publish(daemons[name], `${PREFIX}/${name}/state`, fresh(steps[i].state), true);
      slowest = Math.max(slowest, await waitShown(page, name, steps[i].state, UPDATE_MS, `${name} step ${i} within ${UPDATE_MS} ms`));
      count += 1;
    }
  }
  check(true, `${count} states shown, each within ${UPDATE_MS} ms (slowest ${slowest} ms)`);
  for (const [name, steps] of Object.entries(plan.tables)) {
    const last = steps[steps.length - 1].state;
    if (last.game !== "snooker") continue;
    const strokes = new Set(steps.filter((s) => s.state.frame === last.frame).map((s) => s.state.seq)).size;
    const got = await shown(page, name);
    check(got.worm === strokes, `${name}: the score worm has ${got.worm} points, one a stroke in effect of frame ${last.frame} (${strokes})`);
  }
  // An undo comes as a state with a lower seq: the worm loses that stroke.
  const wormTable = Object.keys(plan.tables).find((n) => plan.tables[n][0].state.game === "snooker");
  const wsteps = plan.tables[wormTable];
  const lastW = wsteps[wsteps.length - 1].state;
  const before = (await shown(page, wormTable)).worm;
  const undone = wsteps.map((s) => s.state).filter((s) => s.seq === lastW.seq - 1 && s.frame === lastW.frame).pop();
  if (undone) {
    await publish(daemons[wormTable], `${PREFIX}/${wormTable}/state`, fresh(undone), true);
    await waitShown(page, wormTable, undone, UPDATE_MS, `${wormTable} after an undo`);
    const after = (await shown(page, wormTable)).worm;
    check(after === before - 1, `${wormTable}: an undo takes its stroke off the worm (${before} -> ${after})`);
    await publish(daemons[wormTable], `${PREFIX}/${wormTable}/state`, fresh(lastW), true);
    await waitShown(page, wormTable, lastW, UPDATE_MS, `${wormTable} after the redo`);
  }
  const key = await page.evaluate((t) => [...document.querySelectorAll(`section.table[data-table="${t}"] .worm-key .kname`)].map((e) => e.textContent), wormTable);
  check(JSON.stringify(key) === JSON.stringify(lastW.sides.map((s) => s.name)), `the worm's key names the sides (${key.join(", ")})`);

  // The last will: a table's daemon drops off the network, the broker says offline, the card shows it.
  const gone = plan.offline_table;
  const t0 = Date.now();
  daemons[gone].stream.destroy();
  await page.waitForSelector(`section.table.offline[data-table="${gone}"]`, { timeout: 5000 });
  const goneShown = await shown(page, gone);
  check(goneShown.status === "offline" && goneShown.statusText === EN.offline,
    `${gone} marked "${goneShown.statusText}" ${Date.now() - t0} ms after its connection dropped (last will)`);
  const others = Object.keys(plan.tables).filter((n) => n !== gone);
  for (const n of others) check(!(await shown(page, n)).offline, `${n} still live`);
  if (plan.screenshots) {
    await page.screenshot({ path: join(plan.screenshots, "screen-feed.png") });
  }

  // Malformed payloads: not JSON, not the schema, a bad status. The page says so and goes on.
  const victim = others[0];
  const last = plan.tables[victim][plan.tables[victim].length - 1].state;
  await publish(pub, `${PREFIX}/${victim}/state`, "{not json", true);
  await publish(pub, `${PREFIX}/${victim}/state`, { schema: 1, game: "snooker", sides: "nobody" }, true);
  await publish(pub, `${PREFIX}/${victim}/state`, { ...fresh(last), sides: [{ ...last.sides[0], frames: -3 }, last.sides[1]] }, true);
  await publish(pub, `${PREFIX}/${victim}/state`, { ...fresh(last), clock: { running: true, length: 60 } }, true);
  await publish(pub, `${PREFIX}/${victim}/status`, "sideways", false);
  await page.waitForFunction(() => document.querySelectorAll("#problems li").length >= 5, null, { timeout: 5000 });
  const problems = await page.$$eval("#problems li", (l) => l.map((e) => e.textContent));
  console.log(problems.map((p) => `  page says: ${p}`).join("\n"));
  check(problems.some((p) => /not JSON/.test(p)), "a message for a payload that is not JSON");
  check(problems.some((p) => /lacks "seq"/.test(p)), "a message naming what a state lacks");
  check(problems.some((p) => /frames should be at least 0/.test(p)), "a message for negative frames");
  check(problems.some((p) => /clock matches 0 of its 3 forms/.test(p)), "a message for a clock that is neither running nor stopped");
  check(problems.some((p) => /status .*"sideways"/.test(p)), "a message for a status that is neither online nor offline");
  await waitShown(page, victim, last, 500, `${victim} still shows its last good state`);
  check(true, `${victim} still shows its last good state`);
  const fixed = { ...last, seq: last.seq + 1, sides: [{ ...last.sides[0], frames: last.sides[0].frames + 1 }, last.sides[1]] };
  await publish(pub, `${PREFIX}/${victim}/state`, fresh(fixed), true);
  await waitShown(page, victim, fixed, UPDATE_MS, `${victim} updates after the bad payloads`);
  check(true, `${victim} updates again after the bad payloads`);
  check(page.errors.length === 0 && single.errors.length === 0, `no uncaught errors in the pages (${[...page.errors, ...single.errors].join("; ")})`);

  // The TV view, open through the frame and the bad payloads.
  const tvLast = plan.tables[tv][plan.tables[tv].length - 1].state;
  await waitShown(single, tv, tv === victim ? fixed : tvLast, 5000, `single view of ${tv}`);
  const cards = await single.$$eval("section.table", (l) => l.map((e) => e.dataset.table));
  check(cards.length === 1 && cards[0] === tv, `single view shows ${tv} only`);
  const tvWorm = (await shown(single, tv)).worm;
  const tvStrokes = new Set(plan.tables[tv].filter((s) => s.state.frame === tvLast.frame).map((s) => s.state.seq)).size + (tv === victim ? 1 : 0);
  check(tvWorm === tvStrokes, `single view's score worm has every stroke (${tvWorm})`);
}

// -- layout -------------------------------------------------------------------------------------
async function layout(browser, clients) {
  // Sizes against the targets: every case measured and said before the test fails on any.
  const missed = [];
  const soft = (ok, what) => { if (ok) console.log(`ok: ${what}`); else { console.log(`MISSED: ${what}`); missed.push(what); } };
  const pub = await connect(plan.mqtt_port);
  clients.push(pub);
  const names = Object.keys(plan.tables);
  for (const name of names) {
    await publish(pub, `${PREFIX}/${name}/status`, "online", true);
    await publish(pub, `${PREFIX}/${name}/state`, fresh(plan.tables[name]), true);
  }
  const report = [];
  for (const c of plan.cases) {
    const { width, height, n, view } = c;
    const query = c.query ?? (view === "single" ? `table=${names[0]}` : `tables=1-${n}&rotate=0${view === "list" ? "&view=list" : ""}`);
    const page = await openPage(browser, plan, query, { width, height });
    const want = view === "single" ? [names[0]] : names.slice(0, n);
    await page.waitForFunction((k) => document.getElementById("tables").dataset.tables === String(k)
      && [...document.querySelectorAll("#tables > section.table")].every((c) => c.classList.contains("has-state")), want.length, { timeout: 15000 });
    const pages = await everyPage(page);
    const seen = pages.flatMap((p) => p.sizes.map((s) => s.table));
    const label = `${view} ${n} table${n > 1 ? "s" : ""} at ${width}x${height}`;
    check(JSON.stringify([...seen].sort()) === JSON.stringify([...want].sort()),
      `${label}: every table on some page, once (${pages.length} page${pages.length > 1 ? "s" : ""}: ${pages.map((p) => p.sizes.length).join("+")})`);
    if (c.pages) {
      const counts = pages.map((p) => p.sizes.length);
      check(JSON.stringify(counts) === JSON.stringify(c.pages), `${label}: pages as stated: ${counts.join("+")} (docs/screen.md)`);
    }
    const H = height;
    let minScore = Infinity, minText = Infinity, minTextWhat = "", minName = Infinity, minNameWhat = "", minLabel = Infinity, minLabelWhat = "", nameCount = 0, shrunk = 0, shortened = 0, cut = 0;
    for (const p of pages) {
      for (const card of p.sizes) {
        for (const nm of card.names) {
          nameCount++;
          // Shrink before cut: a name that fits at the card's smallest name size is shown whole.
          // (card.js allows the browser a pixel and a half of rounding, as here)
          if (nm.fullAtMin + 1.5 <= nm.room && (nm.shown !== nm.full || nm.cut)) {
            throw new Error(`FAILED: ${label}, page ${p.page}: ${card.table}'s "${nm.full}" is shown as "${nm.shown}"${nm.cut ? " (cut)" : ""} though it fits at ${nm.minPx.toFixed(1)} px (${nm.fullAtMin.toFixed(0)} of ${nm.room} px)`);
          }
          if (nm.px < nm.minPx - 0.5) throw new Error(`FAILED: ${label}: "${nm.shown}" drawn at ${nm.px} px, below its smallest ${nm.minPx}`);
          if (nm.clipped && !nm.cut) throw new Error(`FAILED: ${label}: "${nm.shown}" runs out of its room without being cut on purpose`);
          if (nm.cut) cut++; else if (nm.shown !== nm.full) shortened++; else if (nm.px < nm.fullPx - 0.5) shrunk++;
        }
        for (const lb of card.labels) if (lb.px < minLabel) { minLabel = lb.px; minLabelWhat = `${card.table}'s "${lb.text}"`; }
      }
    }
    check(true, `${label}: ${nameCount} names, none cut that would fit at the card's smallest name size (${shrunk} drawn smaller, ${shortened} shortened, ${cut} cut at the smallest size)`);
    for (const p of pages) {
      for (const card of p.sizes) {
        if (!card.whole) throw new Error(`FAILED: ${label}, page ${p.page}: ${card.table}'s card is not whole on the screen`);
        if (card.overlaps.length) throw new Error(`FAILED: ${label}, page ${p.page}: on ${card.table}, ${card.overlaps.join("; ")} are drawn over each other`);
        for (const it of card.items) {
          if (!it.whole) throw new Error(`FAILED: ${label}, page ${p.page}: ${card.table}'s ${it.kind} "${it.text}" is cut off`);
          if (it.kind === "score") minScore = Math.min(minScore, it.px);
          else if (it.kind === "name" && c.name_target_fraction) { if (it.px < minName) { minName = it.px; minNameWhat = `${card.table}'s "${it.text}"`; } }
          else if (it.kind !== "table" && it.kind !== "label" && it.px < minText) { minText = it.px; minTextWhat = `${card.table}'s ${it.kind} "${it.text}"`; }
        }
      }
    }
    check(true, `${label}: every card and every number and word on it whole on the screen, nothing drawn over anything else`);
    const scoreTarget = c.score_target_fraction * H;
    soft(minScore >= scoreTarget, `${label}: the smallest score's digits are ${minScore.toFixed(0)} px high, 1/${(H / minScore).toFixed(1)} of the screen (target 1/${(1 / c.score_target_fraction).toFixed(0)})`);
    const textTarget = c.text_target_fraction * H;
    soft(minText >= textTarget, `${label}: the smallest name or fact (${minTextWhat}) has ${minText.toFixed(0)} px capitals, 1/${(H / minText).toFixed(1)} of the screen (target 1/${(1 / c.text_target_fraction).toFixed(0)})`);
    if (pages.length > 1) {
      const pager = await page.evaluate(() => document.querySelector("#pager .page-label").textContent);
      check(pager === `Page ${pages.length} of ${pages.length}`, `${label}: the page indicator says "${pager}"`);
    }
    if (c.name_target_fraction && minName < Infinity) {
      soft(minName >= c.name_target_fraction * H, `${label}: the smallest name (${minNameWhat}; names drawn smaller to stay whole included) has ${minName.toFixed(0)} px capitals, 1/${(H / minName).toFixed(1)} of the screen (target 1/${(1 / c.name_target_fraction).toFixed(0)})`);
    }
    if (c.label_target_fraction) {
      soft(minLabel >= c.label_target_fraction * H, `${label}: the smallest label (${minLabelWhat}) has ${minLabel.toFixed(0)} px capitals, 1/${(H / minLabel).toFixed(1)} of the screen (target 1/${(1 / c.label_target_fraction).toFixed(0)})`);
    }
    // Text contrast, WCAG AA (4.5:1, large text 3:1), on every page.
    let worst = { ratio: Infinity };
    for (let i = 0; i < pages.length; i++) {
      await page.evaluate((i) => window.cueboardShow(i), i);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      for (const t of await contrasts(page)) {
        if (t.ratio < t.need) throw new Error(`FAILED: ${label}, page ${i + 1}: "${t.text}" (${t.where}) has contrast ${t.ratio}:1, below ${t.need}:1`);
        if (t.ratio / t.need < (worst.ratio / worst.need || Infinity)) worst = t;
      }
    }
    check(true, `${label}: every text at least WCAG AA; the lowest "${worst.text}" ${worst.ratio}:1 (needs ${worst.need})`);
    report.push({ view, n, width, height, pages: pages.length, per_page: pages.map((p) => p.sizes.length), min_score_px: Math.round(minScore),
      min_text_px: Math.round(minText), min_name_px: Math.round(minName), min_label_px: Math.round(minLabel), lowest_contrast: worst.ratio });
    for (const shot of c.screenshots || []) {
      await page.evaluate((i) => window.cueboardShow(i), shot.page - 1);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      // The frame so far, stroke by stroke, while the page is open: its score worms drawn.
      const onPage = await page.$$eval("#tables > section.table", (l) => l.map((e) => e.dataset.table));
      for (const name of onPage) {
        const earlier = (plan.history || {})[name] || [];
        for (const state of [...earlier, plan.tables[name]]) await publish(pub, `${PREFIX}/${name}/state`, fresh(state), true);
        if (earlier.length && view !== "list") { // the list draws no worm
          await page.waitForFunction(([t, n]) => Number(document.querySelector(`section.table[data-table="${t}"] svg.worm`).dataset.points) === n,
            [name, earlier.length + 1], { timeout: 15000 });
        }
      }
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await page.screenshot({ path: join(plan.screenshots, shot.file) });
    }
    check(page.errors.length === 0, `${label}: no errors in the page (${page.errors.join("; ")})`);
    await page.context().close();
  }
  // Pages turn by themselves every `rotate` seconds.
  const page = await openPage(browser, plan, `tables=1-24&rotate=1`, { width: 1280, height: 720 });
  await page.waitForFunction(() => document.getElementById("pager").dataset.page === "2", null, { timeout: 30000 });
  await page.waitForFunction(() => document.getElementById("pager").dataset.page === "1", null, { timeout: 30000 });
  check(true, "with rotate=1 the pages turn by themselves and come round again");
  await page.context().close();
  // A big hall: a page opening on 1000 tables gets every one of their retained states at once
  // (mosquitto drops QoS 0 messages past 1000 waiting for a client: the page subscribes at QoS 1).
  const hall = plan.hall || 0;
  if (hall) {
    const base = Object.values(plan.tables);
    const sends = [];
    for (let i = names.length + 1; i <= hall; i++) {
      const state = { ...base[i % base.length], table: `table-${i}` };
      sends.push(publish(pub, `${PREFIX}/table-${i}/status`, "online", true), publish(pub, `${PREFIX}/table-${i}/state`, fresh(state), true));
    }
    await Promise.all(sends);
    const page = await openPage(browser, plan, "rotate=0", { width: 1280, height: 720 });
    const t0 = Date.now();
    await page.waitForFunction((n) => document.getElementById("tables").dataset.tables === String(n), hall, { timeout: 60000 });
    const pages = await page.evaluate(() => document.getElementById("pager").dataset.pages);
    check(pages === String(Math.ceil(hall / 16)), `a page opening on ${hall} tables has every one within ${Date.now() - t0} ms (${pages} pages of 16)`);
    await page.context().close();
  }
  console.log(`report: ${JSON.stringify(report)}`);
  check(missed.length === 0, `every size on target (${missed.length} missed)`);
}

// -- overlay ------------------------------------------------------------------------------------
async function overlay(browser, clients) {
  const pub = await connect(plan.mqtt_port);
  clients.push(pub);
  for (const [name, state] of Object.entries(plan.tables)) {
    await publish(pub, `${PREFIX}/${name}/status`, "online", true);
    await publish(pub, `${PREFIX}/${name}/state`, fresh(state), true);
  }
  const boxes = {};
  for (const c of plan.cases) {
    const page = await openPage(browser, plan, c.query, { width: 1920, height: 1080 });
    await page.waitForSelector("section.table.has-state", { timeout: 10000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const bg = await page.evaluate(() => [getComputedStyle(document.documentElement).backgroundColor, getComputedStyle(document.body).backgroundColor]);
    check(bg.every((c) => c === "rgba(0, 0, 0, 0)"), `${c.query}: the page's background is transparent (${bg.join(", ")})`);
    const box = await page.evaluate(() => { const r = document.querySelector("section.table").getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; });
    boxes[c.query] = box;
    const got = await shown(page, c.table);
    const state = plan.tables[c.table];
    check(matches(got, state), `${c.query}: the scorebug shows ${got.sides.map((s) => `${s.name} ${s.frames} ${s.score ?? s.group}`).join(" v ")}`);
    await page.screenshot({ path: join(plan.screenshots, c.file), omitBackground: true });
    check(page.errors.length === 0, `${c.query}: no errors (${page.errors.join("; ")})`);
    await page.context().close();
  }
  // Contrast on the overlay: its texts over the worst a camera could put behind it (white).
  {
    const page = await openPage(browser, plan, "overlay=1&table=table-1", { width: 1920, height: 1080 });
    await page.waitForSelector("section.table.has-state", { timeout: 10000 });
    let worst = { ratio: Infinity };
    for (const t of await contrasts(page, [255, 255, 255])) {
      check(t.ratio >= t.need || false, `overlay: "${t.text}" contrast ${t.ratio}:1 (needs ${t.need})`);
      if (t.ratio < worst.ratio) worst = t;
    }
    await page.context().close();
  }
  {
    // OBS's custom CSS sets the documented variables: the bug takes them. OBS injects it as
    // obs-browser does (a <style> element made by script once the page has loaded); the served
    // Content-Security-Policy must let that in (style-src 'unsafe-inline'): it is set aside here,
    // and test_screen.py::test_obs_custom_css_is_allowed_by_the_policy says whether it does.
    const page = await openPage(browser, plan, "overlay=1&table=table-1", { width: 1920, height: 1080 }, { bypassCSP: true });
    await page.waitForSelector("section.table.has-state", { timeout: 10000 });
    await page.evaluate((css) => {
      const style = document.createElement("style");
      style.id = "obs-browser-custom-style";
      style.append(document.createTextNode(css));
      document.querySelector("head").appendChild(style);
    }, ":root { --bug-bg: rgb(90, 0, 20); --bug-score-bg: rgb(255, 230, 0); --bug-font: serif; }");
    const look = await page.evaluate(() => {
      const side = document.querySelector(".side"), score = document.querySelector(".side .score");
      return [getComputedStyle(side).backgroundColor, getComputedStyle(score).backgroundColor, getComputedStyle(side).fontFamily];
    });
    check(look[0] === "rgb(90, 0, 20)" && look[1] === "rgb(255, 230, 0)" && look[2] === "serif",
      `custom CSS variables restyle the bug: ${look.join(", ")}`);
    await page.context().close();
  }
  // A table with no match: no bug at all. A match handed to it (<prefix>/next): said on its own;
  // taken back (empty): gone again.
  const idle = plan.idle_table;
  if (idle) {
    await publish(pub, `${PREFIX}/${idle}/status`, "online", true);
    const page = await openPage(browser, plan, `overlay=1&table=${idle}`, { width: 1920, height: 1080 });
    await page.waitForSelector(".conn[data-state=connected]", { state: "attached", timeout: 10000 });
    await page.waitForSelector(`section.table[data-table="${idle}"]`, { state: "attached", timeout: 10000 });
    const drawn = () => page.evaluate(() => [...document.querySelectorAll("section.table")].filter((e) => e.getClientRects().length > 0).length);
    check(await drawn() === 0, `overlay of ${idle} with no match: nothing drawn`);
    const next = { fixture: "L-17", sides: ["Cath Jones", "Dave Smith"], format: { game: "snooker", best_of: 7 }, competition: "Club league" };
    await publish(pub, `${PREFIX}/${idle}/next`, next, true);
    await page.waitForFunction(() => document.querySelector(".next-match") && !document.querySelector(".next-match").hidden
      && document.querySelector("section.table").getClientRects().length > 0, null, { timeout: 10000 });
    const said = await page.$eval(".next-match", (e) => e.textContent);
    check(said === "Next: Cath Jones v Dave Smith · Best of 7 · Club league", `the next match handed to ${idle}: "${said}"`);
    if (plan.screenshots) await page.screenshot({ path: join(plan.screenshots, "overlay-next.png"), omitBackground: true });
    // The venue's TVs say it too, on the idle table's card.
    const grid = await openPage(browser, plan, `tables=${idle}&rotate=0`, { width: 1280, height: 720 });
    await grid.waitForFunction(() => { const e = document.querySelector(".next-match"); return e && e.getClientRects().length > 0; }, null, { timeout: 10000 });
    check(await grid.$eval(".next-match", (e) => e.textContent) === said, `the grid's card of ${idle} says it too`);
    await grid.context().close();
    await publish(pub, `${PREFIX}/${idle}/next`, "", true);
    await page.waitForFunction(() => [...document.querySelectorAll("section.table")].every((e) => e.getClientRects().length === 0), null, { timeout: 10000 });
    check(true, "the next match taken back: nothing drawn again");
    check(page.errors.length === 0, `no errors (${page.errors.join("; ")})`);
    await page.context().close();
  }
  console.log(`boxes: ${JSON.stringify(boxes)}`);
}

// -- the next match and the desk's message on the cards (docs/mqtt.md `next`, `message`) ---------

// plan.tables: states carrying `next` and `message` as the table publishes them (a match over with
// the next handed; a match live with a message; no match with both); plan.expiring: a table whose
// message is then given an end a few seconds away, with no new state after it; plan.cleared: a
// table whose message the table then clears.
async function notices(browser, clients) {
  const pub = await connect(plan.mqtt_port);
  clients.push(pub);
  for (const [name, state] of Object.entries(plan.tables)) {
    await publish(pub, `${PREFIX}/${name}/status`, "online", true);
    for (const earlier of (plan.history || {})[name] || []) await publish(pub, `${PREFIX}/${name}/state`, fresh(earlier), true);
    await publish(pub, `${PREFIX}/${name}/state`, fresh(state), true);
  }
  // The desk's own `next` for one of them: its format is said as well (the same fixture).
  for (const [name, next] of Object.entries(plan.handed || {})) await publish(pub, `${PREFIX}/${name}/next`, next, true);
  const card = (page, name) => page.$eval(`section.table[data-table="${name}"]`, (e) => {
    const visible = (sel) => { const n = e.querySelector(sel); return n && n.getClientRects().length > 0 ? n.textContent : null; };
    return { next: visible(".next-match"), message: visible(".message"), messageText: e.querySelector(".message span").textContent,
      worm: visible(".worm-box") !== null };
  });
  for (const c of plan.cases) {
    const page = await openPage(browser, plan, c.query, c.viewport);
    await page.waitForFunction((n) => document.getElementById("tables").dataset.tables === String(n), Object.keys(plan.tables).length, { timeout: 15000 });
    for (const [i, onPage] of (c.pages || [Object.keys(plan.tables)]).entries()) {
      await page.evaluate((i) => window.cueboardShow(i), i);
      await page.waitForFunction((names) => [...document.querySelectorAll("section.table")].map((e) => e.dataset.table).join() === names.join(), onPage, { timeout: 10000 });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await notesShown(page, c, i === 0 ? c.file : null, onPage);
    }
    check(page.errors.length === 0, `${c.query}: no errors (${page.errors.join("; ")})`);
    await page.context().close();
  }
  async function notesShown(page, c, file, onPage) {
    if (plan.screenshots && file) await page.screenshot({ path: join(plan.screenshots, file) });
    const words = catalogue(c.lang || "en");
    for (const [name, want] of Object.entries(c.expect).filter(([n]) => onPage.includes(n))) {
      const got = await card(page, name);
      const next = want.next === null ? null : fill(words.next_match, { match: [fill(words.versus, want.next.versus), ...want.next.more].join(" · ") });
      check(got.next === next, `${c.query}: ${name}'s next match: ${JSON.stringify(got.next)} (wanted ${JSON.stringify(next)})`);
      const message = want.message === null ? null : `${words.message}${want.message}`;
      check(got.message === message, `${c.query}: ${name}'s message: ${JSON.stringify(got.message)} (wanted ${JSON.stringify(message)})`);
      if (want.message !== null) check(!got.worm, `${c.query}: ${name}: the message in the worm's room`);
    }
    // Each message and next match is whole on the card (two lines at most; these are short) and inside it.
    const fits = await page.$$eval("section.table .message, section.table .next-match", (list) => list.filter((m) => m.getClientRects().length > 0).map((m) => {
      const r = m.getBoundingClientRect(), card = m.closest("section.table").getBoundingClientRect();
      return { table: m.closest("section.table").dataset.table, what: m.className, inside: r.bottom <= card.bottom + 0.5 && r.top >= card.top, whole: m.scrollHeight <= m.clientHeight + 1 };
    }));
    for (const f of fits) check(f.inside && f.whole, `${c.query}: ${f.table}'s ${f.what} is inside its card and whole (${JSON.stringify(f)})`);
  }
  // A message with an `until` goes at its time on the page's own timer: no new state comes.
  const page = await openPage(browser, plan, `tables=${plan.expiring}&rotate=0`, { width: 1280, height: 720 });
  const sel = `section.table[data-table="${plan.expiring}"] .message`;
  await page.waitForFunction((s) => { const m = document.querySelector(s); return m && !m.hidden; }, sel, { timeout: 10000 });
  // The frame so far, live (the worm's points), then the state whose message ends soon.
  for (const earlier of (plan.history || {})[plan.expiring] || []) await publish(pub, `${PREFIX}/${plan.expiring}/state`, fresh(earlier), true);
  const until = new Date(Date.now() + plan.expires_in_s * 1000).toISOString();
  const ending = fresh(plan.tables[plan.expiring]);
  const text = `${ending.message.text} (until ${until.slice(11, 19)})`;
  await publish(pub, `${PREFIX}/${plan.expiring}/state`, { ...ending, message: { text, until } }, true);
  await page.waitForFunction(([s, text]) => { const m = document.querySelector(s); return !m.hidden && m.querySelector("span").textContent === text; },
    [sel, text], { timeout: plan.expires_in_s * 1000 });
  check(Date.now() < Date.parse(until), `${plan.expiring}'s message shown before its until`);
  await page.waitForFunction((s) => document.querySelector(s).hidden, sel, { timeout: plan.expires_in_s * 1000 + 10000 });
  const late = Date.now() - Date.parse(until);
  check(late >= -50, `${plan.expiring}'s message gone at its until, not before (${late} ms after it)`);
  const worm = await page.$eval(`section.table[data-table="${plan.expiring}"] .worm-box`, (e) => !e.hidden && e.getClientRects().length > 0);
  check(worm, `${plan.expiring}: the worm back in its room`);
  // Cleared by the table (a state without it): gone at once from a card that showed one.
  const other = plan.cleared;
  const p2 = await openPage(browser, plan, `tables=${other}&rotate=0`, { width: 1280, height: 720 });
  await p2.waitForFunction((n) => { const m = document.querySelector(`section.table[data-table="${n}"] .message`); return m && !m.hidden; }, other, { timeout: 10000 });
  await publish(pub, `${PREFIX}/${other}/state`, fresh({ ...plan.tables[other], message: null }), true);
  await p2.waitForFunction((n) => document.querySelector(`section.table[data-table="${n}"] .message`).hidden, other, { timeout: 10000 });
  check(true, `${other}'s message cleared by the table: gone`);
  check(page.errors.length === 0 && p2.errors.length === 0, `no errors (${[...page.errors, ...p2.errors].join("; ")})`);
  await page.context().close();
  await p2.context().close();
}

// -- languages ----------------------------------------------------------------------------------
async function languages(browser, clients) {
  const pub = await connect(plan.mqtt_port);
  clients.push(pub);
  for (const [name, state] of Object.entries(plan.tables)) {
    await publish(pub, `${PREFIX}/${name}/status`, "online", true);
    await publish(pub, `${PREFIX}/${name}/state`, fresh(state), true);
  }
  for (const lang of plan.languages) {
    const words = catalogue(lang);
    const page = await openPage(browser, plan, `lang=${lang}&rotate=0`, { width: 1920, height: 1080 });
    for (const [name, state] of Object.entries(plan.tables)) await waitShown(page, name, state, 10000, `${lang}: ${name} in its words`, words);
    const labels = await page.evaluate(() => {
      const out = {};
      for (const f of document.querySelectorAll(".fact")) {
        const small = f.querySelector("small");
        if (!f.hidden && small && !small.hidden) out[[...f.classList].find((c) => c !== "fact")] = small.textContent;
      }
      out.frames = document.querySelector(".side .frames small").textContent;
      out.lang = document.documentElement.lang;
      return out;
    });
    const want = { break: words.break, remaining: words.remaining, "ball-on": words.ball_on, visits: words.visits };
    for (const [k, v] of Object.entries(want)) check(labels[k] === v, `${lang}: the ${k} label reads "${labels[k]}"`);
    check(labels.lang === lang, `${lang}: <html lang="${labels.lang}">`);
    if (lang !== "en") {
      // One language at a time: no English word on the page where the language has its own.
      const text = await page.evaluate(() => [...document.querySelectorAll("body *")].filter((e) => e.getClientRects().length > 0
        && getComputedStyle(e).visibility !== "hidden" && !e.closest("#problems"))
        .flatMap((e) => [...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent)).join(" | "));
      const left = [];
      for (const [key, en] of Object.entries(EN)) {
        const own = words[key];
        for (const form of typeof en === "string" ? [en] : Object.values(en)) {
          const fixed = form.split(/\{\w+\}/).map((p) => p.trim()).filter((p) => p.length >= 4);
          const ownForms = own === undefined ? [] : typeof own === "string" ? [own] : Object.values(own);
          for (const piece of fixed) if (!ownForms.some((f) => f.includes(piece)) && text.includes(piece)) left.push(`${key}: "${piece}"`);
        }
      }
      check(left.length === 0, `${lang}: no English left on the page (${left.join(", ") || "none"})`);
    }
    if (plan.screenshots) await page.screenshot({ path: join(plan.screenshots, `screen-lang-${lang}.png`) });
    check(page.errors.length === 0, `${lang}: no errors (${page.errors.join("; ")})`);
    await page.context().close();
  }
  const bad = await openPage(browser, plan, "lang=xx&rotate=0", { width: 1280, height: 720 });
  await bad.waitForFunction(() => document.querySelectorAll("#problems li").length > 0, null, { timeout: 10000 });
  const said = await bad.$$eval("#problems li", (l) => l.map((e) => e.textContent));
  check(said.some((p) => /lang=xx is not one of en, nl, sv, de, fr/.test(p)), `lang=xx is refused with its reason: ${said[0]}`);
  await bad.context().close();
}

// -- clock --------------------------------------------------------------------------------------
async function clock(browser, clients) {
  const pub = await connect(plan.mqtt_port);
  clients.push(pub);
  const name = Object.keys(plan.tables)[0];
  const base = plan.tables[name];
  await publish(pub, `${PREFIX}/${name}/status`, "online", true);
  const iso = (ms) => new Date(ms).toISOString();
  const page = await openPage(browser, plan, `table=${name}`, { width: 1280, height: 720 });
  await page.waitForSelector(".conn[data-state=connected]", { state: "attached", timeout: 10000 });

  // No clock object (a daemon from before it was published): only the setting, no clock shown;
  // nor a clock that has not started on this shot ("◷ 60" on every idle table said nothing).
  await publish(pub, `${PREFIX}/${name}/state`, fresh(base), true);
  await page.waitForSelector("section.table.has-state", { timeout: 10000 });
  let c = (await shown(page, name)).clock;
  check(c === null, `without "clock" no clock is shown (${JSON.stringify(c)})`);
  const visits = base.visits === 1 ? 2 : 1; // something to see that the state has been drawn
  await publish(pub, `${PREFIX}/${name}/state`, { ...fresh(base), visits, clock: { running: false, left: 60, length: 60 } }, true);
  await page.waitForFunction((v) => document.querySelector(".fact.visits b")?.textContent === String(v), visits, { timeout: 10000 });
  c = (await shown(page, name)).clock;
  check(c === null, `a clock not started on this shot is not shown (${JSON.stringify(c)})`);

  // Running: 60 s shot, the call at 30 s; published 27.5 s into it.
  let now = Date.now();
  const ends = now + 32500;
  await publish(pub, `${PREFIX}/${name}/state`, { ...base, seq: base.seq + 1, ts: iso(now),
    clock: { running: true, ends_at: iso(ends), call_at: iso(ends - 30000), length: 60 } }, true);
  await page.waitForFunction(() => document.querySelector(".clock")?.classList.contains("running"), null, { timeout: 10000 });
  const samples = [];
  const start = Date.now();
  while (Date.now() - start < 4600) {
    const got = (await shown(page, name)).clock;
    const at = Date.now();
    samples.push({ at, seconds: Number(got.seconds), called: got.called, background: got.background, expect: Math.ceil((ends - at) / 1000) });
    await sleep(150);
  }
  const values = samples.map((s) => s.seconds);
  check(values.every((v, i) => i === 0 || v <= values[i - 1]), `the clock only counts down: ${[...new Set(values)].join(", ")}`);
  check(new Set(values).size >= 4, `it showed ${new Set(values).size} different seconds in 4.6 s`);
  check(samples.every((s) => Math.abs(s.seconds - s.expect) <= 1), "each reading within a second of ends_at - now");
  const before = samples.filter((s) => s.expect >= 32), after = samples.filter((s) => s.expect <= 29);
  check(before.length > 0 && before.every((s) => !s.called), `not called before call_at (${before.map((s) => s.seconds).join(",")})`);
  check(after.length > 0 && after.every((s) => s.called), `called after call_at (${after.map((s) => s.seconds).join(",")}), in ${after[0].background}`);
  check(after[0].background !== before[0].background, "the call turns the clock to the call colour");

  // Paused: it stops at what it had left.
  await publish(pub, `${PREFIX}/${name}/state`, { ...base, seq: base.seq + 2, ts: iso(Date.now()), clock: { running: false, left: 12.0, length: 60 } }, true);
  await page.waitForFunction(() => !document.querySelector(".clock").classList.contains("running"), null, { timeout: 10000 });
  const paused = (await shown(page, name)).clock;
  await sleep(1600);
  const still = (await shown(page, name)).clock;
  check(paused.seconds === "12" && still.seconds === "12" && paused.called, `paused at 12 s left it stays at ${still.seconds} (call made: ${paused.called})`);
  check(!paused.held && paused.label === EN.shot_clock, "a clock not held by the referee is not marked held");

  // Held by the referee (rule 8a: "paused": true): marked held in words, never like one running.
  await publish(pub, `${PREFIX}/${name}/state`, { ...base, seq: base.seq + 3, ts: iso(Date.now()), clock: { running: false, paused: true, left: 41.8, length: 60 } }, true);
  await page.waitForFunction(() => document.querySelector(".clock").classList.contains("held"), null, { timeout: 10000 });
  const held = (await shown(page, name)).clock;
  check(held.held && !held.running && held.seconds === "42" && held.label === EN.shot_clock_held,
    `a held clock says so: "${held.label}" ${held.seconds}`);

  // A table whose clock is 5 s ahead of the page's: the page counts the table's seconds.
  now = Date.now();
  const skew = 5000;
  await publish(pub, `${PREFIX}/${name}/state`, { ...base, seq: base.seq + 3, ts: iso(now + skew),
    clock: { running: true, ends_at: iso(now + skew + 20000), call_at: iso(now + skew - 10000), length: 60 } }, false);
  await page.waitForFunction(() => document.querySelector(".clock").classList.contains("running"), null, { timeout: 10000 });
  c = (await shown(page, name)).clock;
  const want = Math.ceil((now + 20000 - Date.now()) / 1000);
  check(Math.abs(Number(c.seconds) - want) <= 1, `a table clock 5 s ahead: ${c.seconds} s shown, ${want} s left in the table's time`);

  // Time up: 0, in the colour of time up.
  now = Date.now();
  await publish(pub, `${PREFIX}/${name}/state`, { ...base, seq: base.seq + 4, ts: iso(now),
    clock: { running: true, ends_at: iso(now + 1500), call_at: iso(now - 28500), length: 60 } }, false);
  await page.waitForFunction(() => document.querySelector(".clock").classList.contains("expired"), null, { timeout: 10000 });
  c = (await shown(page, name)).clock;
  check(c.seconds === "0" && c.expired, `time up: the clock shows ${c.seconds}, in ${c.background}`);
  if (plan.screenshots) {
    now = Date.now();
    await publish(pub, `${PREFIX}/${name}/state`, { ...base, seq: base.seq + 5, ts: iso(now),
      clock: { running: true, ends_at: iso(now + 24200), call_at: iso(now - 5800), length: 60 } }, false);
    await page.waitForFunction(() => document.querySelector(".clock").classList.contains("called"), null, { timeout: 10000 });
    await page.screenshot({ path: join(plan.screenshots, "screen-clock.png") });
  }
  check(page.errors.length === 0, `no errors (${page.errors.join("; ")})`);
}

// -- connection ---------------------------------------------------------------------------------
async function connection(browser, clients) {
  const names = Object.keys(plan.tables);
  const daemons = await daemonsFor(names);
  for (const name of names) await publish(daemons[name], `${PREFIX}/${name}/state`, fresh(plan.tables[name]), true);
  const page = await openPage(browser, plan, "rotate=0", { width: 1280, height: 720 });
  await page.waitForFunction((k) => document.querySelectorAll("section.table.has-state").length === k, names.length, { timeout: 10000 });
  for (const n of names) check(!(await shown(page, n)).disconnected, `${n} shown connected`);
  for (const d of Object.values(daemons)) d.end(true);
  await ask("stop-broker");
  const t0 = Date.now();
  await page.waitForFunction((k) => document.querySelectorAll("section.table.disconnected").length === k, names.length, { timeout: 30000 });
  for (const n of names) {
    const got = await shown(page, n);
    check(got.disconnected && got.status === "no_connection" && got.statusText === EN.no_connection,
      `${n} says "${got.statusText}" ${Date.now() - t0} ms after the broker went, keeping its last state (${got.sides.map((s) => s.score ?? s.frames).join("-")})`);
  }
  const conn = await page.evaluate(() => document.getElementById("conn").dataset.state);
  check(conn === "error", "the bar says the broker is unreachable");
  if (plan.screenshots) await page.screenshot({ path: join(plan.screenshots, "screen-disconnected.png") });
  await ask("start-broker");
  await page.waitForFunction(() => document.querySelectorAll("section.table.disconnected").length === 0, null, { timeout: 30000 });
  check(true, `every card connected again once the broker is back (${Date.now() - t0} ms after it went)`);
  check(page.errors.filter((e) => !/WebSocket/.test(e)).length === 0, `no errors but the WebSocket's own (${page.errors.join("; ")})`);
}

// -- smoke: a page on a running `cueboard demo` --------------------------------------------------
async function smoke(browser) {
  const page = await openPage(browser, plan, "", { width: 1280, height: 720 });
  const card = `section.table[data-table="${plan.smoke}"] .side .score`;
  await page.waitForSelector(card, { timeout: 10000 });
  const seen = async () => { const s = await shown(page, plan.smoke); return s.sides.map((x) => x.score).join("-") + JSON.stringify(s.facts); };
  const first = await seen();
  check((await shown(page, plan.smoke)).sides.length === 2, `demo's ${plan.smoke} on the page: ${first}`);
  const start = Date.now();
  let now = first;
  while (now === first && Date.now() - start < 10000) { await sleep(100); now = await seen(); }
  check(now !== first, `the demo's match plays on on the page: ${now}`);
  check((await page.$$("#problems li")).length === 0 && page.errors.length === 0,
    `no problems reported on the demo's feed, nothing refused by the page's policy (${page.errors.join("; ")})`);
  check(page.policy.includes("default-src 'none'"), "cueboard screen serves the page with its Content-Security-Policy");
}

const SCENARIOS = { feed, layout, overlay, notices, languages, clock, connection, smoke };

async function main() {
  const browser = await launch(plan.chromium);
  const clients = [];
  try {
    await SCENARIOS[plan.scenario](browser, clients);
  } finally {
    for (const c of clients) c.end(true);
    await browser.close();
    closeInput();
  }
}

main().then(() => process.exit(0), (e) => { console.error(e.message || e); process.exit(1); });
