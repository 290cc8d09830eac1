// The venue screen's own logic under node, without a browser: run by tests/screen/test_screen.py
// (test_screen_units). Imports the page's modules as they are served (screen/*.js, screen/shared/,
// screen/games/).
import { parseTables, readOptions } from "../../screen/options.js";
import { translator, pickLanguage } from "../../screen/shared/i18n.js";
import { clockAt, clockShown, nextChangeMs } from "../../screen/clock.js";
import { validate } from "../../screen/shared/validate.js";
import { readPayload } from "../../screen/shared/payloads.js";
import { isRefusal, tableTopic, tableTopics } from "../../screen/shared/broker.js";
import { fitName, messageShown, nextMatch, shortName } from "../../screen/card.js";
import { cardGame, FACTS, GAMES } from "../../screen/games.js";
import { freeTables, reserve } from "../../screen/desk/competition.js";
import { Store } from "../../screen/shared/store.js";
import { readFileSync } from "node:fs";

let failures = 0;
function check(ok, what) {
  if (ok) console.log(`ok: ${what}`);
  else { console.log(`FAILED: ${what}`); failures += 1; }
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// tables=: names and ranges
const names = ["table-1", "table-2", "table-8", "table-9", "table-10", "t3", "final", "3", "table-1-8"];
const pick = (spec) => names.filter(parseTables(spec).match);
check(same(pick("1-8"), ["table-1", "table-2", "table-8", "t3", "3", "table-1-8"]), `tables=1-8 takes names ending in 1 to 8: ${pick("1-8")}`);
check(same(pick("t1-t8"), ["t3"]), "tables=t1-t8 takes t<number> only");
check(same(pick("final,table-10"), ["table-10", "final"]), "tables=final,table-10 takes those names");
check(same(pick("table-1-8"), ["table-1", "table-2", "table-8", "table-1-8"]), "a table named like a range is still taken by its name");
check(same(pick("9-10"), ["table-9", "table-10"]), "tables=9-10");
check(parseTables("8-1").errors[0] === 'tables: the range "8-1" runs backwards', "a backward range is refused with its reason");

// options: defaults, the config from `cueboard screen`, refusals
let o = readOptions("", {}, "screen.lan");
check(o.broker === "ws://screen.lan:9001" && o.view === "grid" && o.perPage === null && o.rotate === 10 && o.lang === "en",
  "defaults: the page's host, the grid, cards a page chosen by the page, 10 s a page, English");
o = readOptions("?table=t1", {}, "h");
check(o.view === "single" && o.perPage === 1, "table=NAME: the TV view");
o = readOptions("?view=list", { lang: "sv", rotate: 20, tables: "1-20" }, "h");
check(o.view === "list" && o.perPage === null && o.lang === "sv" && o.rotate === 20 && o.tables.match("table-20") && !o.tables.match("table-21"),
  "config.js settings (cueboard screen --lang --rotate --tables) with the address's view=list");
o = readOptions("?lang=sv", { lang: "de" }, "h");
check(o.lang === "sv", "the address wins over config.js");
o = readOptions("?lang=xx&rotate=-1&per_page=0&view=wall&overlay=maybe&size=huge&corner=middle", {}, "h");
check(o.lang === "en" && o.rotate === 10 && o.perPage === null && o.view === "grid" && !o.overlay && o.scale === 1 && o.corner === "bl",
  "nonsense values fall back to the defaults");
check(o.problems.length === 7, `each is refused with its reason:\n    ${o.problems.join("\n    ")}`);
o = readOptions("?overlay=1&table=t2&corner=tr&size=l", {}, "h");
check(o.view === "overlay" && o.corner === "tr" && o.scale === 1.35 && o.perPage === 1, "overlay=1 with corner and size");

// translator: per-game words, plurals, fallback to English
const cat = (l) => JSON.parse(readFileSync(new URL(`../../screen/i18n/${l}.json`, import.meta.url)));
const en = cat("en");
const fr = translator("fr", cat("fr"), en);
check(fr("frame", { n: 3 }, "blackball") === "Partie 3" && fr("frame", { n: 3 }, "snooker") === "Frame 3",
  "French: a blackball frame is a partie, a snooker frame a frame");
check(fr("snookers", { name: "Ann", n: 1 }) === "Ann : 1 snooker nécessaire" && fr("snookers", { name: "Ann", n: 2 }) === "Ann : 2 snookers nécessaires",
  "French plurals");
const sv = translator("sv", { screen: { break: "Serie" } }, en);
check(sv("break") === "Serie" && sv("remaining") === "Remaining", "a key the catalogue lacks falls back to English");

// clock
const t0 = Date.parse("2025-05-01T20:00:00Z");
const iso = (ms) => new Date(ms).toISOString();
const running = { clock: { running: true, ends_at: iso(t0 + 60000), call_at: iso(t0 + 30000), length: 60 } };
check(clockAt(running, 0, t0).seconds === 60 && !clockAt(running, 0, t0).called, "60 at the start, no call");
check(clockAt(running, 0, t0 + 100).seconds === 60 && clockAt(running, 0, t0 + 1000).seconds === 59, "rounded up: 60 until a whole second has gone");
check(!clockAt(running, 0, t0 + 29999).called && clockAt(running, 0, t0 + 30000).called, "the call at call_at");
check(clockAt(running, 0, t0 + 59001).seconds === 1 && clockAt(running, 0, t0 + 60000).seconds === 0 && clockAt(running, 0, t0 + 61000).expired,
  "1 in the last second, 0 once time is up");
check(clockAt(running, 5000, t0 + 5000).seconds === 60, "a page 5 s ahead of the table counts the table's seconds");
check(nextChangeMs(clockAt(running, 0, t0 + 250)) === 750, "the next change: the next whole second");
const paused = { shot_clock_call: 30, clock: { running: false, left: 42.4, length: 60 } };
check(clockAt(paused, 0, t0).seconds === 43 && !clockAt(paused, 0, t0).running && !clockAt(paused, 0, t0).called, "paused: its seconds, still");
check(clockAt({ shot_clock_call: 30, clock: { running: false, left: 12, length: 60 } }, 0, t0).called, "paused after the call: still called");
check(clockAt({ clock: { running: false, paused: true, left: 41.8, length: 60 } }, 0, t0).held
  && !clockAt({ clock: { running: false, left: 60, length: 60 } }, 0, t0).held, "paused: held; not started: not held");
check(clockAt({ shot_clock: 60 }, 0, t0).still && clockAt({ shot_clock: 60 }, 0, t0).seconds === 60, "no clock object: shot_clock, still");
check(clockAt({ shot_clock: null }, 0, t0) === null, "no clock at all: nothing");

// names
check(shortName("Ronnie O'Sullivan") === "R. O'Sullivan", "R. O'Sullivan");
check(shortName("Ann Lee & Bob Ray", ["Ann Lee", "Bob Ray"]) === "Lee & Ray", "doubles: the surnames");
check(shortName("赵心童") === "赵心童", "a name without spaces stays whole");

// the validator against the project's schema: a running clock must say when it ends
const schema = JSON.parse(readFileSync(new URL("../../screen/vendor/state.schema.json", import.meta.url)));
const base = { // shared/contract/state.md's blackball example, with the feed's table and ts
  schema: 1, game: "blackball", seq: 12, table: "t1", ts: "2025-05-01T20:00:00.000Z",
  sides: [{ name: "Ann", players: ["Ann"], frames: 2, group: "red", balls_left: 3 },
    { name: "Bob", players: ["Bob"], frames: 1, group: "yellow", balls_left: 6 }],
  frame: 4, race_to: 5, breaker: 1, striker: 0, player: "Ann", open_table: false, balls: { red: 3, yellow: 6, black: 1 },
  visits: 2, free_shot: true, black_on: false, shot_clock: 60, frame_over: false, frame_winner: null, match_over: false, match_winner: null,
};
check(validate(schema, base).length === 0, "a blackball state without a clock fits");
check(validate(schema, { ...base, clock: running.clock }).length === 0, "with a running clock");
check(validate(schema, { ...base, clock: paused.clock }).length === 0, "with a paused clock");
check(validate(schema, { ...base, clock: null }).length === 0, "with clock null");
check(validate(schema, { ...base, clock: { running: true, left: 3, length: 60 } }).some((e) => /clock matches 0 of its 3 forms/.test(e)),
  "a running clock without ends_at is refused");


// names: shrink before shortening, shortening before cutting (card.js fitName)
const w10 = (text) => text.length * 10; // 10 px a character
check(JSON.stringify(fitName("Ronnie O'Sullivan", null, w10, 200, 0.7)) === JSON.stringify(["Ronnie O'Sullivan", 1, false]), "a name that fits stays whole and full size");
check(JSON.stringify(fitName("Ronnie O'Sullivan", null, w10, 140, 0.7)) === JSON.stringify(["Ronnie O'Sullivan", 0.816, false]), "a name a little too long is drawn smaller, whole");
check(JSON.stringify(fitName("Ronnie O'Sullivan", null, w10, 100, 0.7)) === JSON.stringify(["R. O'Sullivan", 0.76, false]), "too long even at the smallest size: shortened, as large as fits");
check(JSON.stringify(fitName("Ronnie O'Sullivan", null, w10, 60, 0.7)) === JSON.stringify(["R. O'Sullivan", 0.7, true]), "only then cut, at the smallest size");
check(fitName("赵心童赵心童赵心童", null, w10, 50, 0.7)[2] === true, "a name without spaces: cut as its last resort");

// the clock shown only when the match has one in use
check(clockShown(clockAt({ clock: { running: false, left: 60, length: 60 } }, 0, t0)) === null, "a clock not started on this shot: nothing shown");
check(clockShown(clockAt({ shot_clock: 60 }, 0, t0)) === null, "only the shot_clock setting: nothing shown");
check(clockShown(clockAt(paused, 0, t0)).seconds === 43, "stopped part-way through a shot: shown");
check(clockShown(clockAt(running, 0, t0)).seconds === 60, "running: shown from its first second");

// the next match, in the language's words
const tn = translator("nl", JSON.parse(readFileSync(new URL("../../screen/i18n/nl.json", import.meta.url))), null);
check(nextMatch({ fixture: "f1", sides: ["Ann", { name: "Bob" }], format: { best_of: 7 }, competition: "Clubcompetitie" }, tn)
  === "Volgende: Ann – Bob · Beste uit 7 · Clubcompetitie", "the next match: its sides, its length, its competition");
check(nextMatch({ sides: [] }, tn) === null, "a next match without two sides: nothing");
check(nextMatch({ fixture: "f2", sides: [["Ann", "Cy"], ["Bob", "Di"]], format: { game: "blackball", race_to: 4 }, competition: null }, tn)
  === "Volgende: Ann & Cy – Bob & Di · Race tot 4", "doubles as the match line gives them, blackball's length");
// From the table's state (docs/state.md `next`): its names and competition; the format from what
// the desk handed only when it is the same fixture.
const handed = { fixture: "f1", sides: ["Ann", "Bob"], format: { best_of: 5 }, competition: "Club" };
check(nextMatch({ fixture: "f1", competition: "Club", names: ["Ann", "Bob"] }, tn, handed) === "Volgende: Ann – Bob · Beste uit 5 · Club",
  "the state's next with the handed fixture's format");
check(nextMatch({ fixture: "f9", competition: null, names: ["Eve", "Fay"] }, tn, handed) === "Volgende: Eve – Fay",
  "the state's next, another fixture than handed: no format guessed");

// the desk's message, until its `until` (on the table's clock: the page's skew applied)
const until = "2025-05-01T20:10:00Z";
check(messageShown({ text: "Final at 21:00", until }, 0, Date.parse(until) - 1)?.text === "Final at 21:00", "a message before its until: shown");
check(messageShown({ text: "Final at 21:00", until }, 0, Date.parse(until)) === null, "at its until: gone");
check(messageShown({ text: "Final at 21:00", until }, 5000, Date.parse(until) + 4000) !== null, "a page 5 s ahead shows it 5 s longer on its own clock");
check(messageShown({ text: "Bar open", until: null }, 0, t0)?.endsAt === Infinity, "no until: shown until cleared");
check(messageShown({ text: "  ", until: null }, 0, t0) === null && messageShown(null, 0, t0) === null, "no text: nothing");

// the games a card knows: one list, each game's own facts, none of them given to the other
check(GAMES.map((g) => g.name).join() === schema.properties.game.enum.join(), "the card's games are the schema's");
check(FACTS.length === GAMES.reduce((n, g) => n + g.facts.length, 0), "no fact slot shared by two games");
const en0 = translator("en", en, en);
for (const g of GAMES) {
  const shown = g.shown(g.name === "blackball" ? base : { ...base, game: "snooker", break: 12, remaining: 59, ball_on: "red" }, en0, (i) => String(i));
  check(Object.keys(shown).every((f) => g.facts.includes(f)), `${g.name}: shows only its own facts (${Object.keys(shown)})`);
}
check(cardGame("snooker").length({ best_of: 7 }, en0) === "Best of 7" && cardGame("snooker").length({ best_of: 1 }, en0) === ""
  && cardGame("blackball").length({ race_to: 5 }, en0) === "Race to 5", "each game says its match's length");
{
  const respot = (over) => cardGame("snooker").shown({ ...base, game: "snooker", striker: 0, break: 0, remaining: 7, respotted_black: true,
    frame_over: over }, en0, (i) => String(i)).respot;
  check(respot(false)?.value === "Re-spotted black" && respot(true) === null, "a re-spotted black is shown while it is to be played, not after the frame");
}
check(cardGame("bowls").facts.length === 0 && !cardGame("bowls").points, "a game the list lacks: a card without facts, not a crash");

// the shared modules: topics, payloads, refusals, languages
check(same(tableTopics("cueboard/club", ["t1", "t2"], ["state", "next"]),
  ["cueboard/club/t1/state", "cueboard/club/t1/next", "cueboard/club/t2/state", "cueboard/club/t2/next"]), "a table's topics by name");
check(same(tableTopics("cueboard/club", ["t+1"], ["state"]), ["cueboard/club/+/state"]) && same(tableTopics("cueboard/club", null, ["state"]), ["cueboard/club/+/state"]),
  "a name MQTT reads as a wildcard, or none: every table");
check(same(tableTopic("cueboard/club/t1/state"), { venue: "club", table: "t1", kind: "state" }) && tableTopic("a/b/c") === null, "a topic read back");
const bytes = (text) => new TextEncoder().encode(text);
check(readPayload("x/state", bytes("")).value === null, "an empty payload: cleared");
check(readPayload("x/state", bytes("{nope")).problem === "Ignored a message on x/state: it is not JSON ({nope)", "not JSON: refused with what it was");
check(/payload lacks "sides"/.test(readPayload("x/state", bytes(JSON.stringify({ ...base, sides: undefined })), schema).problem), "a state that does not fit: refused with the schema's reason");
check(readPayload("x/state", bytes(JSON.stringify(base)), schema).value.seq === 12, "a state that fits: read");
check(isRefusal({ code: 135, message: "Not authorized" }) && isRefusal({ code: 4 }) && !isRefusal(new Error("connack timeout")),
  "a refused login is told from a network that may come back");
check(pickLanguage("SV") === "sv" && pickLanguage("es") === "en" && pickLanguage(undefined) === "en", "a language the pages speak, else English");
const scorerWords = translator("de", { scorer: { title: "Zähler" }, screen: { break: "Serie" } }, en, ["scorer", "screen"]);
check(scorerWords("title") === "Zähler" && scorerWords("break") === "Serie" && scorerWords("remaining") === "Remaining",
  "a page's own section first, then the screen's, then English");

// the desk's next free table: fewest of tonight's matches first, then the venue's order
{
  const m = (fixture, table, winner, started) => ({ fixture, label: fixture, round: 1, sides: ["A", "B"], handicap: [0, 0], bye: [false, false],
    winner, next: null, format: null, table, started });
  const night = { schema: 1, id: "n", name: "n", kind: "knockout", format: null, rounds: 1,
    matches: [m("R1-1", "t1", 0, true), m("R1-2", "t3", null, true), m("R1-3", null, null, false)] };
  const tb = (name, over = true, status = "online") => ({ name, status, next: null, state: { sides: [{}, {}], match_over: over } });
  const free = freeTables(night, [tb("t1"), tb("t2"), tb("t3"), tb("t4"), tb("t5", false), tb("t6", true, "offline")]);
  check(same(free, ["t2", "t4", "t1"]), `a table that has not played tonight before one just finished; busy, playing and offline ones left out: ${free}`);
}


// shared/store.js: the latest payload of each topic, the page told once a frame (issue 36)
{
  const frames = [], timers = new Map();
  let nextTimer = 1;
  const clock = { frame: (run) => frames.push(run), timer: (run) => { const id = nextTimer++; timers.set(id, run); return id; },
    cancel: (id) => timers.delete(id), now: () => 1000 };
  const store = new Store(clock);
  const told = [];
  store.subscribe((changed) => told.push(new Map(changed)));
  for (let seq = 1; seq <= 500; seq++) store.put(`cueboard/v/t${seq % 5}/state`, { seq });
  store.put("cueboard/v/t9/status", "online", true);
  check(told.length === 0 && frames.length === 1 && timers.size === 1,
    `501 messages in one frame: nothing told yet, one frame asked for and one fallback timer (${frames.length}, ${timers.size})`);
  frames.shift()();
  check(told.length === 1 && told[0].size === 6, `the frame: one notification with the six topics changed (${told.length}, ${told[0] && told[0].size})`);
  check(told[0].get("cueboard/v/t0/state").value.seq === 500 && store.get("cueboard/v/t1/state").seq === 496,
    "the latest value of each topic wins");
  check(told[0].get("cueboard/v/t9/status").retained === true && store.entry("cueboard/v/t9/status").at === 1000,
    "an entry says whether it was retained and when it came");
  check(timers.size === 0, "the frame cancels the fallback timer");
  // A hidden page gets no frames: the timer tells it, once, and the frame that comes later does nothing.
  store.put("cueboard/v/t1/state", { seq: 501 });
  store.put("cueboard/v/t1/state", { seq: 502 });
  [...timers.values()][0]();
  check(told.length === 2 && told[1].size === 1 && told[1].get("cueboard/v/t1/state").value.seq === 502,
    "hidden (no frame): the fallback timer tells the page once, the latest value");
  frames.shift()();
  check(told.length === 2, "the late frame finds nothing to tell");
  store.touch();
  frames.shift()();
  check(told.length === 3 && told[2].size === 0, "touch: one notification with no topic (the page's own change)");
  store.drop("cueboard/v/t1/state");
  frames.shift()();
  check(store.get("cueboard/v/t1/state") === undefined && told[3].get("cueboard/v/t1/state").value === null, "a dropped topic is told as cleared");
  check(frames.length === 0 && store.notifications === 4, `nothing else asked for (${frames.length}, ${store.notifications})`);
}

{
  // A match reserved on the desk (issue 38 row 10): written, cleared, refused once begun or handed elsewhere.
  const m = (fixture, extra = {}) => ({ fixture, label: fixture, round: 1, sides: ["A", "B"], winner: null, next: null, table: null, started: false, ...extra });
  const c = { matches: [m("F"), m("P", { table: "t2", started: true }), m("H", { table: "t2" })] };
  const kept = reserve(c, "F", "t1");
  check(!kept.refused && kept.competition.matches[0].reserved === "t1" && c.matches[0].reserved === undefined, "reserved on a copy");
  const cleared = reserve(kept.competition, "F", "");
  check(!cleared.refused && !("reserved" in cleared.competition.matches[0]), "cleared: the key gone");
  check(/already begun on t2/.test(reserve(c, "P", "t1").refused || ""), "a match begun is not reserved");
  check(/handed to t2; take it back first/.test(reserve(c, "H", "t1").refused || ""), "a match handed elsewhere is taken back first");
  check(/no match X/.test(reserve(c, "X", "t1").refused || ""), "an unknown fixture is refused by name");
}

process.exit(failures ? 1 : 0);
