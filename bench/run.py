"""All of cueboard's performance figures in one command (issues 7 and 20): prints one JSON object.

    .venv/bin/python bench/run.py            # the full run (some 7 minutes); writes
                                             # docs/performance.json and the figures in docs/performance.md
    .venv/bin/python bench/run.py --quick    # a shorter run (some 3 minutes); writes nothing unless --write

- ``engine``: ``bench/engine.py``'s replay of a best-of-35 final (state after each event)
  and undo at 100 vs 100,000 events (its functions, imported);
- ``journal``: ``Journal.append`` against the plain append + fsync, warm and cold
  (bench/journal.py);
- ``latency``: press to pixels and press to venue screen per layout, and the bare MQTT
  floor, on one loopback mosquitto (bench/latency.py);
- ``daemon``: ``cueboard run`` as a subprocess: first frame, idle CPU, memory
  (bench/footprint.py);
- ``tables``: 64 tables on one mosquitto, 2 events a second each (bench/tables.py);
- ``flood`` and ``flood_by_desk``: one scorer's login (``score/flood``), then a second desk login
  (``command/flood``), floods a table as fast as this machine sends while the referee presses and
  the desk sends commands, against the same steps without the flood (bench/flood.py: 10 s of
  flood with ``--quick``, 60 s otherwise; then ``flood_presence``, ``flood_message``,
  ``flood_next``: a login's flood of those values, issue 37); a step without its answer, or a flood line read
  without exactly one answer, fails the target;
- ``league``: 16 venue brokers of 64 tables bridged to one league broker with 70
  subscribers, then a ramp of faster strokes (bench/league.py, two minutes at most);
- ``archive`` (``--no-archive`` leaves it out): the league's results archive (bench/archive.py,
  issue 41): 3,072 match ends at the tables' pace (quick: 192) for last event -> standings, then
  the 3,072 in 10 s, a burst, for lost/doubled and the service's rate against its floor;
- ``reliability``: the reliability tests (``RELIABILITY`` below) run by pytest with
  ``--findings-json``: what each did and found, in its own words and figures;
- ``desk`` and ``scorer`` (``--no-pages`` leaves them out): the desk under 256 tables (quick:
  64 for 15 s) and the scorer's tap to answer drawn with 64 tables live (quick: 40 taps), in
  headless Chromium against a live venue (bench/desk.py, bench/scorer.py);
- ``screen`` (only with ``--screen``, some 3 more minutes): the venue screen in headless
  Chromium under 256, 512 and 1000 tables (bench/screen.py); its figures go in their own
  section of docs/performance.md.

Journals go to /var/tmp (on disk, so fsync is real; tmpfs would make it free).
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(ROOT))  # tests.helpers

import archive  # noqa: E402
import desk  # noqa: E402
import flood  # noqa: E402
import footprint  # noqa: E402
import journal  # noqa: E402
import latency  # noqa: E402
import league  # noqa: E402
import scorer  # noqa: E402
import tables  # noqa: E402

import screen  # noqa: E402
from cueboard.games.simulate import final_log  # noqa: E402
from tests.helpers.mosquitto import Mosquitto  # noqa: E402

BEGIN, END = "<!-- figures:begin (written by bench/run.py) -->", "<!-- figures:end -->"
PI_FACTORS = {"Raspberry Pi 5": 2.0, "Raspberry Pi 4": 4.0, "Raspberry Pi Zero 2 W": 10.0}
"""Estimated slow-down of CPU-bound Python against one core of this machine (not measured)."""
RELIABILITY = ["tests/table/test_reliability.py", "tests/table/test_crash.py", "tests/table/test_journal.py",
               "tests/table/test_feed_broker.py", "tests/league/test_league.py",
               "tests/hw/test_keypad_fuzz.py", "tests/hw/test_keypad_link.py", "tests/hw/test_buttons.py"]
"""The tests behind issue 7's reliability items (docs/reliability.md)."""


def reliability_findings(long: bool = False) -> dict[str, Any]:
    """Run the reliability tests (the CI versions, or ``--long``) and collect their findings."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "findings.json"
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *RELIABILITY,
                   f"--findings-json={out}", *(["--long"] if long else [])]
        started = time.monotonic()
        proc = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        findings = json.loads(out.read_text()) if out.exists() else []
    # pytest's closing line ("85 passed, 4 skipped in 46.1s"), wherever the plugins put their sections.
    summary = next((line.strip("= ") for line in reversed(proc.stdout.splitlines())
                    if " passed" in line or " failed" in line or " error" in line), proc.stderr.strip()[-200:])
    shown = "python -m pytest -q " + " ".join(RELIABILITY) + (" --long" if long else "")
    return {"command": shown,
            "exit_code": proc.returncode, "summary": summary, "seconds": round(time.monotonic() - started, 1),
            "findings": findings}


def _bench_engine() -> Any:
    # bench/engine.py by its path: a plain "import engine" could find the top-level engine package.
    spec = importlib.util.spec_from_file_location("bench_engine", HERE / "engine.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def engine_figures() -> dict[str, Any]:
    bench = _bench_engine()
    log = final_log(35, seed=bench.SEED)
    replay = bench.replay_figures(log)
    return {"log": f"cueboard.games.simulate.final_log(35, seed={bench.SEED})", "replay": replay,
            "undo": bench.undo_figures(log), "target_events_per_second": bench.TARGET,
            "meets_target": replay["events_per_second"] >= bench.TARGET}


def run(quick: bool, reliability: bool = True, league_bench: bool = True,
        venue_screen: bool = False, pages: bool = True, archive_bench: bool = True) -> dict[str, Any]:
    presses = 300 if quick else 1000
    idle = 10.0 if quick else 30.0
    table_seconds = 15.0 if quick else 60.0
    journal_root = Path("/var/tmp")
    started = time.time()
    result: dict[str, Any] = {
        "command": "bench/run.py" + (" --quick" if quick else ""),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
        "load_average_at_start": list(os.getloadavg()),
    }
    print("engine ...", file=sys.stderr)
    result["engine"] = engine_figures()
    print("journal ...", file=sys.stderr)
    result["journal"] = journal.compare(journal_root, 150 if quick else 300, latency.PACE)
    print(f"press latency ({presses} presses a layout) ...", file=sys.stderr)
    result["latency"] = latency.latency_figures(presses, presses, journal_root)
    with tempfile.TemporaryDirectory() as bdir, Mosquitto(Path(bdir)) as broker:
        print(f"daemon footprint ({idle:.0f} s idle) ...", file=sys.stderr)
        result["daemon"] = footprint.daemon_footprint(broker.host, broker.port, idle)
    with tempfile.TemporaryDirectory() as bdir, Mosquitto(Path(bdir)) as broker:
        print(f"64 tables ({table_seconds:.0f} s) ...", file=sys.stderr)
        result["tables"] = tables.many_tables(broker.host, broker.port, 64, table_seconds, 2.0, journal_root)
    flood_seconds = 10.0 if quick else 60.0
    print(f"flood ({flood_seconds:.0f} s of one scorer's flood, then a desk login's) ...", file=sys.stderr)
    result["flood"] = flood.flood_run(flood_seconds, 10.0 if quick else 30.0, "scorer")
    result["flood_by_desk"] = flood.flood_run(flood_seconds, 10.0 if quick else 30.0, "desk")
    for lane in ("presence", "message", "next"):  # the values (issue 37)
        result[f"flood_{lane}"] = flood.flood_run(flood_seconds, 10.0 if quick else 30.0, lane)
    if league_bench:
        seconds = 20.0 if quick else league.SECONDS
        ramp = tuple((r, 5.0) for r, _ in league.RAMP) if quick else league.RAMP
        print(f"league ({league.VENUES} venues x {league.TABLES} tables, {seconds:.0f} s at {league.RATE:g} "
              f"strokes/s, then {', '.join(f'{r:g}' for r, _ in ramp)}) ...", file=sys.stderr)
        result["league"] = league.league_figures(seconds, league.RATE, ramp)
    if archive_bench:
        print("archive (paced, then a burst of 3,072 match ends in 10 s) ...", file=sys.stderr)
        result["archive"] = archive.archive_figures(quick)
    if reliability:
        print("reliability tests ...", file=sys.stderr)
        result["reliability"] = reliability_findings()
    if pages:
        tables_, seconds_ = (64, 15.0) if quick else (256, 60.0)
        print(f"desk ({tables_} tables, {seconds_:.0f} s) ...", file=sys.stderr)
        result["desk"] = {"command": f"bench/desk.py --tables {tables_} --seconds {seconds_:g}",
                          **desk.run(tables_, seconds_)}
        taps = 40 if quick else 200
        print(f"scorer ({taps} taps, 64 tables live) ...", file=sys.stderr)
        result["scorer"] = {"command": f"bench/scorer.py --taps {taps}", **scorer.run(taps)}
    if venue_screen:
        result["screen"] = screen.figures(screen.default_runs(quick), 2.0, 15.0)
    d = result["daemon"]
    lat = result["latency"]
    result["targets"] = {
        "engine_events_per_second >= 50000": result["engine"]["meets_target"],
        f"press_to_pixels_p99 <= {latency.PRESS_TO_JOURNAL:g}x the journal write's p99 (every layout)":
        lat["meets_pixels_target"],
        f"press_to_pixels_p99 under the command flood <= {latency.FLOOD_P99_MS:g} ms, every press answered":
        lat["meets_flood_target"],
        "frame_to_venue_p99 <= 2x floor_p99": lat["meets_venue_target"],
        "idle_cpu < 1 %": d["idle"]["cpu_percent_of_one_core"] < 1.0,
        "rss < 60 MB": d["rss_mb"] < 60,
        "first_frame <= 1.5 s": d["first_frame_s"] is not None and d["first_frame_s"] <= 1.5,
        "64 tables: none lost": result["tables"]["meets_target"],
        "flood by a scorer: every step answered, every flood line read answered once, none applied, p99 <= 3x "
        "without, RSS bounded": result["flood"]["meets"],
        "flood by a desk login: the same": result["flood_by_desk"]["meets"],
        **{f"flood of {lane} values: the same": result[f"flood_{lane}"]["meets"] for lane in ("presence", "message",
                                                                                                "next")},
    }
    if pages:
        result["targets"]["desk: every event drawn"] = result["desk"]["ok"]
        result["targets"]["scorer: every tap answered and drawn"] = result["scorer"]["ok"]
        result["targets"][f"scorer: {result['scorer']['target']}"] = result["scorer"]["meets_target"]
    if "league" in result:
        result["targets"]["league, 1,024 tables at 0.2 strokes/s: none lost"] = result["league"]["meets_target"]
    if "archive" in result:
        met = result["archive"]["meets"]
        result["targets"][f"archive: stored/s in the burst >= {archive.RATE_TARGET:g}x its floor's (or the "
                          "tables' offer, when less)"] = met["rate"]
        result["targets"][f"archive: last event -> standings p99 <= {archive.STANDINGS_P99_MS:g} ms"] = met["standings"]
        result["targets"]["archive: a burst of 3,072 match ends, 0 lost and 0 doubled"] = met["burst"]
    result["load_average_at_end"] = list(os.getloadavg())
    result["seconds"] = round(time.time() - started, 1)
    # The run says by itself what it met (issue 41): each target on stderr, the press's with its figures.
    print("\n".join(latency.verdicts(lat)), file=sys.stderr)
    for target, met in result["targets"].items():
        print(f"{'met' if met else 'MISSED'}: {target}", file=sys.stderr)
    return result


def figures_markdown(r: dict[str, Any]) -> str:
    e, lat, d, t, j = r["engine"], r["latency"], r["daemon"], r["tables"], r["journal"]
    rp, undo = e["replay"], e["undo"]
    yes = {True: "met", False: "**missed**"}
    jw, jo = j["ways"]["journal"], j["ways"]["append_fsync"]
    out = [BEGIN, "", f"Command: `.venv/bin/python {r['command']}`, {r['date']}, Python {r['python']}, "
           f"{r['cpus']} CPUs ({r['machine']}), load average {r['load_average_at_start'][0]:.2f} at the start, "
           f"{r['load_average_at_end'][0]:.2f} at the end; the run took {r['seconds']} s. "
           "All figures below are from that run (`docs/performance.json`).", "",
           "| figure | measured | target | |", "|---|---|---|---|",
           f"| engine, events/s (state after each) | {rp['events_per_second']:,} (wall), "
           f"{rp['events_per_cpu_second']:,} (CPU time) | >= 50,000 | {yes[e['meets_target']]} |",
           f"| undo, pop+push at 100 / 100,000 events | {undo['pop_push_us_short']} / {undo['pop_push_us_long']} us "
           f"(ratio {undo['ratio_long_to_short']}) | flat | |",
           f"| journal, one event durable, alone ({j['file_system']}; `Journal.append`, warm / cold) | "
           f"p50 {jw['warm']['p50_ms']} / {jw['cold']['p50_ms']} ms, p99 {jw['warm']['p99_ms']} / "
           f"{jw['cold']['p99_ms']} ms (append + fsync, as before: p50 {jo['warm']['p50_ms']} / "
           f"{jo['cold']['p50_ms']} ms, p99 {jo['warm']['p99_ms']} / {jo['cold']['p99_ms']} ms) | | |",
           "| journal inside the press run (`Journal.append`, worst layout: the floor of a press) | "
           f"p99 {lat['journal_p99_ms_worst_layout']} ms | | |"]
    for name, v in lat["layouts"].items():
        px, jp = v["press_to_pixels"], v["press_to_pixels_stages"].get("journal_write_fsync", {})
        ratio = lat["press_to_journal_ratio_p99"][name]
        ok = ratio is not None and ratio <= latency.PRESS_TO_JOURNAL and not v["presses_without_frame_or_state"]
        out.append(f"| press to pixels, {name} ({px['n']} presses; "
                   f"{len(v['presses_without_frame_or_state'])} without a frame) | p50 {px['p50_ms']} ms, "
                   f"p99 {px['p99_ms']} ms (max {px['max_ms']}); journal write p99 {jp.get('p99_ms')} ms: "
                   f"**{ratio}x** | p99 <= {latency.PRESS_TO_JOURNAL:g}x the journal's | {yes[ok]} |")
    fv = lat["under_flood"]
    out.append(f"| press to pixels, {fv['layout']}, the command topic flooded at {latency.FLOOD_RATE:,} lines/s "
               f"({fv['presses']} presses; {len(fv['presses_without_frame_or_state'])} without a frame or a state) "
               f"| p50 {fv['press_to_pixels']['p50_ms']} ms, p99 {fv['press_to_pixels']['p99_ms']} ms | "
               f"p99 <= {latency.FLOOD_P99_MS:g} ms, every press answered | {yes[lat['meets_flood_target']]} |")
    if "hub75" in lat:
        hv = lat["hub75"]
        px, jf = hv["press_to_pixels"], hv["press_to_pixels_stages"].get("journal_to_frame", {})
        out.append(f"| press to frame handed to the panel, {hv['layout']} on RGBMatrixEmulator, headless "
                   f"({px['n']} presses) | p50 {px['p50_ms']} ms, p99 {px['p99_ms']} ms (max {px['max_ms']}); "
                   f"journal to frame p50 {jf.get('p50_ms')} ms | | |")
    fl, fw = lat["mqtt_floor"], lat["mqtt_floor_back_to_back"]
    for name, v in lat["layouts"].items():
        fv = v["frame_to_venue"]
        out.append(f"| frame handed over to state received (the feed's own part), {name} | p50 {fv['p50_ms']} ms, "
                   f"p99 {fv['p99_ms']} ms (x{round(fv['p99_ms'] / fl['p99_ms'], 2)} the floor; "
                   f"x{round(fv['p99_ms'] / fw['p99_ms'], 2)} the back-to-back floor) | p99 <= 2x floor | "
                   f"{yes[fv['p99_ms'] <= 2 * fl['p99_ms']]} |")
    for name, v in lat["layouts"].items():
        vn = v["press_to_venue"]
        out.append(f"| press to venue screen, {name} (the state is published after the journal and the board) | "
                   f"p50 {vn['p50_ms']} ms, p99 {vn['p99_ms']} ms | | |")
    fl = lat["mqtt_floor"]
    out += [f"| bare MQTT floor, paced as the presses ({fl['n']} messages, {latency.PACE * 1e3:g} ms apart) | "
            f"p50 {fl['p50_ms']} ms, p99 {fl['p99_ms']} ms | | |",
            f"| bare MQTT floor, back to back ({fw['n']} messages, 2 ms apart) | p50 {fw['p50_ms']} ms, "
            f"p99 {fw['p99_ms']} ms | | |",
            f"| idle CPU, `cueboard run`, {d['idle']['seconds']} s | {d['idle']['cpu_percent_of_one_core']} % of a "
            f"core ({d['idle']['cpu_seconds']} s CPU; clock tick {d['idle']['clock_tick_s']} s), "
            f"{d['idle']['wakeups_per_second']} voluntary context switches/s | < 1 % | "
            f"{yes[r['targets']['idle_cpu < 1 %']]} |",
            f"| resident memory (luma's `dummy` board, as on a Pi) | {d['rss_mb']} MB (peak {d['hwm_mb']} MB), "
            f"{d['threads']} threads (on the `capture` emulator, which imports pygame: {d['capture_rss_mb']} MB, "
            f"{d['capture_threads']} threads) | < 60 MB | {yes[r['targets']['rss < 60 MB']]} |",
            f"| start to first frame on the board | {d['first_frame_s']} s (control socket answers at "
            f"{d['control_socket_s']} s) | <= 1.5 s | {yes[r['targets']['first_frame <= 1.5 s']]} |"]
    e2e = t["end_to_end"] or {}
    out += [f"| {t['tables']} tables x {t['events_per_second_per_table']:g} events/s, {t['seconds']:g} s | "
            f"{t['submitted']} sent, {t['received']} received, **{t['lost']} lost**; submit to subscriber "
            f"p50 {e2e.get('p50_ms')} ms, p99 {e2e.get('p99_ms')} ms (max {e2e.get('max_ms')}); process CPU "
            f"{t['process_cpu_percent_of_one_core']} % of a core | none lost | {yes[t['meets_target']]} |", ""]
    out += ["Press to pixels, where the time goes (p50 / p99, ms; per layout):", "",
            "| layout | edge to submit | queue to engine thread | journal write (`Journal.append`) | journal to "
            "frame |",
            "|---|---|---|---|---|"]
    for name, v in lat["layouts"].items():
        s = v["press_to_pixels_stages"]
        cells = [f"{s[k]['p50_ms']} / {s[k]['p99_ms']}" for k in
                 ("edge_to_submit", "submit_to_journal", "journal_write_fsync", "journal_to_frame")]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    out += flood_markdown(r["flood"])
    if "flood_by_desk" in r:
        out += flood_markdown(r["flood_by_desk"])
    if "league" in r:
        out += league_markdown(r["league"])
    if "archive" in r:
        out += archive_markdown(r["archive"])
    out += ["", "Estimates for the Pis (**not measured**: this machine's CPU-bound figures multiplied by a "
            "stated factor; fsync on an SD card does not scale this way and is left out):", "",
            "| board | factor | engine events/s | press to pixels p50 without fsync |", "|---|---|---|---|"]
    worst = max(lat["layouts"].values(), key=lambda v: v["press_to_pixels"]["p50_ms"])
    no_fsync = worst["press_to_pixels"]["p50_ms"] - worst["press_to_pixels_stages"]["journal_write_fsync"]["p50_ms"]
    for board, factor in PI_FACTORS.items():
        out.append(f"| {board} | x{factor:g} slower | ~{round(rp['events_per_cpu_second'] / factor, -3):,.0f} | "
                   f"~{no_fsync * factor:.1f} ms ({worst['layout']}) |")
    rel = r.get("reliability")
    if rel is not None:
        out += ["", f"Reliability: `{rel['command']}` ({rel['summary']}, exit code {rel['exit_code']}, "
                f"{rel['seconds']} s). What each test did and found:", ""]
        out += [f"- `{f['test']}` ({f['outcome']}): {f['finding']}" for f in rel["findings"]] or ["- (none recorded)"]
    out += ["", END]
    return "\n".join(out)


def flood_markdown(f: dict[str, Any]) -> list[str]:
    """The flood's figures (bench/flood.py): each step's p50/p99 without and during the flood."""
    yes = {True: "met", False: "**missed**"}
    rss = f["rss_kib"]
    who = "a desk login" if f.get("by") == "desk" else "one scorer"
    out = ["", f"{who.capitalize()} floods a table (`{f['command']}`, inside this run): "
           f"{f['flood_lines_sent']:,} lines in {f['flood_seconds']:g} s ({f['flood_lines_a_second']} a second); "
           "the table read and refused "
           f"{f['flood_lines_refused_by_the_table']:,}, {f.get('flood_lines_read_without_their_answer', 0)} of them "
           f"without their answer by id, {f.get('flood_lines_not_read_by_the_table', 0):,} not read (said in "
           f"summaries) ({f['answers_dropped_from_the_floods_own_lane']} answers dropped); "
           f"{f['flood_events_in_the_journal']} flood events in the journal; failures (no answer within 5 s): "
           f"{f['failures']}; RSS {rss['before'] // 1024} MiB before, {rss['during_max'] // 1024} MiB at most "
           f"during, {rss['after'] // 1024} MiB after: {yes[f['meets']]}.", "",
           "| step | without flood p50 / p99 | during flood p50 / p99 | p99 ratio |", "|---|---|---|---|"]
    for name in ("press_to_pixels", "press_to_venue", "desk_to_answer", "desk_to_venue"):
        q, d = f["without_flood"][name], f["during_flood"][name]
        out.append(f"| {name.replace('_', ' ')} | {q['p50_ms']} / {q['p99_ms']} ms | {d['p50_ms']} / {d['p99_ms']} ms "
                   f"| {f['p99_during_to_without_ratio'][name]} |")
    return out


def archive_markdown(a: dict[str, Any]) -> list[str]:
    """The archive's figures (bench/archive.py, issue 41): the paced run and the burst."""
    yes = {True: "met", False: "**missed**"}
    out = ["", "The results archive (bench/archive.py, PostgreSQL with fsync on; issue 41):", "",
           "| run | matches in the archive | lost | doubled | stored/s end to end "
           "| per second of the service's work (floor) | the service's work: read / store / acknowledge "
           "| last event to standings p50 / p99 |",
           "|---|---|---|---|---|---|---|---|"]
    for name in ("paced", "burst"):
        b = a[name]
        busy = b["service_busy_s"] or {}
        lat = b["last_event_to_standings_ms"] or {}
        rate = archive.service_rate(b)
        out.append(f"| `{b['command']}` (load {b['load_average'][0]:.1f}) | {b['matches_finished_in_archive']:,} of "
                   f"{b['matches']:,} | {b['lost']} | {b['doubled']} | {b['stored_per_s']} | "
                   f"{rate and round(rate, 1)} ({b['floor_bare_writes_per_s']}) | "
                   f"{busy.get('read')} / {busy.get('store')} / {busy.get('acknowledge')} s "
                   f"({busy.get('batches')} transactions) | "
                   f"{lat.get('p50')} / {lat.get('p99')} ms |")
    m = a["meets"]
    b = a["burst"]
    out += ["", f"In the burst the archive stored {b['stored_per_s']} records a second end to end, the tables offered "
            f"{b['offered_per_s']} and the floor is {b['floor_bare_writes_per_s']}: "
            f"{a['stored_to_floor_or_offer']}x the lesser (target >= {archive.RATE_TARGET:g}; "
            f"{a['stored_to_floor']}x the floor itself): {yes[m['rate']]}; last event to standings at the "
            f"tables' pace p99 <= "
            f"{archive.STANDINGS_P99_MS:g} ms: {yes[m['standings']]}; the burst with 0 lost and 0 doubled: "
            f"{yes[m['burst']]}."]
    return out


def league_markdown(g: dict[str, Any]) -> list[str]:
    """The league's figures (bench/league.py): the main phase per kind of subscriber, then the ramp."""
    m = g["main"]
    cpu = m["cpu_percent_of_one_core"]
    mem = g["memory_mb_at_end_of_main_phase"]
    out = ["", f"League ({g['topology']}; {g['payload']}; the bench took {g['seconds']} s): "
           f"{g['tables']:,} tables at {m['events_per_second_per_table']:g} strokes/s each for {m['seconds']:g} s, "
           f"{m['states_published']:,} states published (each with its event):", "",
           "| subscriber | how many | states lost | publish to receipt p50 / p90 / p99 (max), ms | the venue's "
           "screen to it (bridge and league broker) p50 / p90 / p99, ms | received a second (messages, bytes) |",
           "|---|---|---|---|---|---|"]
    for kind, k in m["per_kind"].items():
        lat, rec = k["publish_to_receipt"], g["received_in_main_phase"][kind]
        hop = k.get("venue_screen_to_receipt")
        hops = f"{hop.get('p50_ms')} / {hop.get('p90_ms')} / {hop.get('p99_ms')}" if hop else "(itself)"
        out.append(f"| {kind} | {k['subscribers']} | {k['lost']} of {k['states_expected']:,} | {lat.get('p50_ms')} / "
                   f"{lat.get('p90_ms')} / {lat.get('p99_ms')} ({lat.get('max_ms')}) | {hops} | "
                   f"{rec['messages_per_second']:g}, {rec['bytes_per_second']:,} B |")
    out += ["", f"Brokers in the main phase: the league's used {cpu['league_broker']} % of a core to deliver "
            f"{m['league_messages_delivered_per_second']:,} messages a second "
            f"({m['league_cpu_us_per_delivered_message']} us each), resident {mem['league_broker_rss']} MB (peak "
            f"{mem['league_broker_peak']} MB); the {g['venues']} venue brokers {cpu['venue_brokers_total']} % "
            "together (at most "
            f"{cpu['venue_broker_max']} % one), at most {mem['venue_broker_rss_max']} MB each. The bench's own "
            f"processes: the tables' {cpu['table_processes_total']} %, the subscribers' "
            f"{cpu['subscriber_processes_total']} %. A state payload is {g['state_payload_bytes']['p50']} bytes "
            f"(p50). Feeds dropped {g['feeds_dropped']} messages; the tables' strokes were at most "
            f"{g['publisher_late_max_ms']} ms late.", "",
            "Faster strokes, to find where this machine saturates:", "",
            "| strokes/s a table | states | strokes the table processes skipped | lost (everything / one venue / "
            "venue screen) | p99 ms (same) | CPU %: league broker, venue brokers, tables, subscribers |",
            "|---|---|---|---|---|---|"]
    for ph in g["phases"]:
        kinds = list(ph["per_kind"].values())
        c = ph["cpu_percent_of_one_core"]
        out.append(f"| {ph['events_per_second_per_table']:g} ({ph['seconds']:g} s) | {ph['states_published']:,} | "
                   f"{ph['strokes_skipped_by_table_processes']:,} | "
                   + " / ".join(str(k["lost"]) for k in kinds) + " | "
                   + " / ".join(str(k["publish_to_receipt"].get("p99_ms")) for k in kinds)
                   + f" | {c['league_broker']}, {c['venue_brokers_total']}, {c['table_processes_total']}, "
                   f"{c['subscriber_processes_total']} |")
    return out


def write_docs(result: dict[str, Any]) -> None:
    (ROOT / "docs" / "performance.json").write_text(json.dumps(result, indent=2) + "\n")
    md = ROOT / "docs" / "performance.md"
    text = md.read_text() if md.exists() else "# Performance\n\n" + BEGIN + "\n" + END + "\n"
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        text = head + figures_markdown(result) + tail
    else:
        text += "\n" + figures_markdown(result) + "\n"
    md.write_text(text)
    if "screen" in result:
        screen.write_docs(result["screen"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer presses, 10 s idle, 15 s of 64 tables")
    parser.add_argument("--write", action="store_true", help="with --quick: write the docs all the same")
    parser.add_argument("--no-reliability", action="store_true", help="do not run the reliability tests")
    parser.add_argument("--no-league", action="store_true", help="do not run the league (bench/league.py)")
    parser.add_argument("--no-archive", action="store_true", help="do not run the archive (bench/archive.py)")
    parser.add_argument("--no-pages", action="store_true",
                        help="do not run the desk's and the scorer's benches (bench/desk.py, bench/scorer.py)")
    parser.add_argument("--screen", action="store_true",
                        help="the venue screen under many tables too (bench/screen.py)")
    args = parser.parse_args()
    result = run(args.quick, reliability=not args.no_reliability, league_bench=not args.no_league,
                 venue_screen=args.screen, pages=not args.no_pages, archive_bench=not args.no_archive)
    print(json.dumps(result, indent=2))
    if not args.quick or args.write:
        write_docs(result)
        print("wrote docs/performance.json and the figures in docs/performance.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
