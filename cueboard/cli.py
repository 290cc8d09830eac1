"""The ``cueboard`` command."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from cueboard.common.languages import LANGUAGES
from cueboard.contract.topics import ANY, TableTopics


def _replay(args: argparse.Namespace) -> int:
    from cueboard.games.replay import run

    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")
    if args.file in (None, "-"):
        return run(sys.stdin.buffer, sys.stdout, sys.stderr, args.each)
    try:
        # Closed below, after run (whose OSErrors, a closed pipe, are not "cannot read").
        f = open(args.file, "rb")  # noqa: SIM115
    except OSError as exc:
        print(f"cueboard replay: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 1
    with f:
        return run(f, sys.stdout, sys.stderr, args.each)


def _report(args: argparse.Namespace) -> int:
    from cueboard.league.report import run

    tz = None
    if args.tz:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            tz = ZoneInfo(args.tz)
        except (ZoneInfoNotFoundError, ValueError):
            print(f"cueboard report: --tz: unknown time zone {args.tz!r} (e.g. Europe/London, UTC)",
                  file=sys.stderr)
            return 2
    venue, table, lang = args.venue, args.table, args.lang
    if args.config:  # the table's own configuration names its venue, itself and its boards' language
        from cueboard.common.errors import CueboardError
        from cueboard.table.config import load_config

        try:
            config = load_config(args.config)
        except (CueboardError, OSError) as exc:
            print(f"cueboard report: --config {args.config}: {exc}", file=sys.stderr)
            return 2
        venue, table = venue or config.venue, table or config.table
        lang = lang or next((d.language for d in config.displays), None)
    from cueboard.common.languages import LANGUAGES

    if lang is not None and lang not in LANGUAGES:
        print(f"cueboard report: --lang: {lang!r} is not one of {', '.join(LANGUAGES)}", file=sys.stderr)
        return 2
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")
    return run(args.logs, sys.stdout, sys.stderr, html=args.html, breaks_from=args.breaks_from,
               title=args.title, tz=tz, lang=lang or "en", venue=venue, table=table)


def _keypad_sim(args: argparse.Namespace) -> int:
    from pathlib import Path

    from cueboard.common.resources import examples_dir
    from cueboard.tools.keypad_sim import run_terminal

    keymap = args.keymap
    if keymap is None and (args.rows, args.columns) == (5, 4):
        keymap = "keypad-4x5.toml"
    if keymap is not None and keymap != "none" and not Path(keymap).exists() and "/" not in keymap:
        # The name of a shipped keymap (examples/keymaps/), where it is installed.
        keymap = str(examples_dir() / "keymaps" / keymap)
    return run_terminal(args.port, create=args.create, rows=args.rows, columns=args.columns,
                        stdin=sys.stdin, stdout=sys.stdout, keymap=None if keymap == "none" else keymap,
                        broker=args.broker, prefix=args.topic)


def _render(args: argparse.Namespace) -> int:
    from cueboard.tools.render import run

    return run(args.state, args.out, layout=args.layout, size=args.size, game=args.game, mode=args.mode,
               clock=args.clock, at=args.at, scale=args.scale, pixels=args.pixels, flash=args.flash,
               stdin=sys.stdin.buffer, stderr=sys.stderr, prompt=args.prompt, needs=args.needs,
               lapsed=args.lapsed, refusal=args.refusal, language=args.lang, idle=args.idle, time_of_day=args.time)


DEFAULT_CONFIG = "/etc/cueboard/cueboard.toml"


def _logging(verbose: bool) -> None:
    import logging

    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")


def _load(path: str) -> Any:
    from cueboard.common.errors import ConfigFileError
    from cueboard.table.config import load_config

    try:
        return load_config(path)
    except ConfigFileError as exc:
        print(f"cueboard: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _run(args: argparse.Namespace) -> int:
    from cueboard.table.service import run

    _logging(args.verbose)
    return run(_load(args.config))


def _home_assistant(args: argparse.Namespace) -> int:
    from cueboard.table.home_assistant import HomeAssistantConfig, send_once

    config = _load(args.config)
    if config.mqtt is None:
        print(f"cueboard home-assistant: {args.config}: the table has no [mqtt]", file=sys.stderr)
        return 2
    ha = config.home_assistant or HomeAssistantConfig()
    try:
        print(send_once(ha, config.mqtt, venue=config.venue, table=config.table, remove=args.action == "remove"))
    except OSError as exc:
        print(f"cueboard home-assistant: {exc}", file=sys.stderr)
        return 1
    return 0


def _hwtest(args: argparse.Namespace) -> int:
    from cueboard.tools.hwtest import command

    if args.step_seconds is not None and not args.step_seconds >= 0:
        print(f"cueboard hwtest: --step-seconds: 0 or more, not {args.step_seconds:g}", file=sys.stderr)
        return 2
    return command(_load(args.config), step_seconds=args.step_seconds, stdin=sys.stdin, stdout=sys.stdout,
                   stderr=sys.stderr)


def _socket(args: argparse.Namespace) -> Any:
    from pathlib import Path

    if args.socket:
        return Path(args.socket)
    config = _load(args.config)
    if config.control_socket is None:
        print(f"cueboard: {args.config}: control.socket is not set", file=sys.stderr)
        raise SystemExit(2)
    return config.control_socket


def _ask(args: argparse.Namespace, obj: dict[str, Any]) -> int:
    import json

    from cueboard.table.daemon import ask_daemon

    path = _socket(args)
    try:
        answer = ask_daemon(path, obj)
    except OSError as exc:
        print(f"cueboard: cannot reach the daemon at {path}: {exc.strerror or exc} "
              "(is cueboard running?)", file=sys.stderr)
        return 1
    if answer.get("queued"):
        # Not refused: applied or refused once, later. Ask again with the same id to know.
        print(f"cueboard: queued: {answer.get('reason')}", file=sys.stderr)
        return 3
    if not answer.get("ok"):
        print(f"cueboard: refused: {answer.get('reason')}", file=sys.stderr)
        return 2
    if answer.get("state") is not None:
        print(json.dumps(answer["state"], ensure_ascii=False))
    return 0


def _match_new(args: argparse.Namespace) -> int:
    line: dict[str, Any] = {"type": "match"}
    if args.game:
        line["game"] = args.game
    if args.sides:
        line["sides"] = [s.split("&") if "&" in s else s for s in args.sides]
        line["sides"] = [[p.strip() for p in s] if isinstance(s, list) else s for s in line["sides"]]
    for key in ("best_of", "race_to", "first", "reds", "shot_clock"):
        value = getattr(args, key)
        if value is not None:
            line[key] = value
    if args.handicap:
        line["handicap"] = args.handicap
    if args.aggregate:
        line["aggregate"] = True
    return _ask(args, line)


def _send(args: argparse.Namespace) -> int:
    import json

    try:
        obj = json.loads(args.event)
    except json.JSONDecodeError as exc:
        print(f"cueboard send: not JSON: {exc}", file=sys.stderr)
        return 2
    if not isinstance(obj, dict):
        print("cueboard send: send one JSON object", file=sys.stderr)
        return 2
    if "id" not in obj:
        # Each line gets an id, so that sending it again (after a timeout) never counts twice.
        import uuid

        obj["id"] = args.id or f"send-{uuid.uuid4().hex[:16]}"
    print(f"id: {obj['id']}", file=sys.stderr)
    return _ask(args, obj)


def _demo(args: argparse.Namespace) -> int:
    import logging

    from cueboard.tools.demo import run_demo

    logging.basicConfig(level=logging.WARNING, filename=args.log, format="%(levelname)s %(name)s: %(message)s")
    return run_demo(broker=args.broker, game=args.game, autoplay=True if args.autoplay else None,
                    events=args.events, journal=args.journal, layout=args.layout, board=args.board,
                    window=args.window, language=args.lang)


def _screen(args: argparse.Namespace) -> int:
    from cueboard.venue.pages import run_screen

    page = {"tables": args.tables, "view": args.view, "per_page": args.per_page, "rotate": args.rotate,
            "lang": args.lang, "desk_broker": args.desk_broker}
    return run_screen(host=args.host, port=args.port, broker_ws=args.broker_ws, venue=args.venue, table=args.table,
                      page={k: v for k, v in page.items() if v is not None}, tls_cert=args.tls_cert,
                      tls_key=args.tls_key, venue_ca=args.venue_ca)


def _screen_tables(text: str) -> str:
    """``--tables``: names and ranges ("1-8", "t1-t8", "final"), as the page reads them."""
    for item in (i.strip() for i in text.split(",")):
        found = re.fullmatch(r"(.*?)(\d+)-(.*?)(\d+)", item)
        if found and found[3] in ("", found[1]) and int(found[2]) > int(found[4]):
            raise argparse.ArgumentTypeError(f'the range "{item}" runs backwards')
    if not any(i.strip() for i in text.split(",")):
        raise argparse.ArgumentTypeError(f'"{text}" names no table')
    return text


def _bounded(kind: type[int] | type[float], low: float, high: float) -> Callable[[str], int | float]:
    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {'whole ' if kind is int else ''}number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is not from {low:g} to {high:g}")
        return value
    return parse


def _daemon_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", default=DEFAULT_CONFIG, help=f"the configuration (default {DEFAULT_CONFIG})")
    p.add_argument("--socket", help="the daemon's control socket (default: control.socket of --config)")


def parser() -> argparse.ArgumentParser:
    from cueboard import __version__

    p = argparse.ArgumentParser(prog="cueboard", description="Scoreboard controller for snooker "
                                "and blackball tables.", epilog="'cueboard COMMAND --help' tells more of each; "
                                "'cueboard' alone prints this help.")
    p.add_argument("--version", action="version", version=f"cueboard {__version__}")
    p.set_defaults(func=lambda args: _help(p))
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    r = sub.add_parser("replay", help="apply an event log and print the scoreboard state as JSON",
                       description="Apply an event log (JSON Lines: a match line, then one event "
                       "a line) and print the final state as one JSON line. On a rejected line, "
                       "print 'line N: reason' on standard error and exit with status 2.")
    r.add_argument("file", nargs="?", help="the log (standard input when left out or '-')")
    r.add_argument("--each", action="store_true", help="print the state after every line")
    r.set_defaults(func=_replay)
    rp = sub.add_parser("report", help="the match record of event logs: JSON, or a printable result sheet",
                        description="Work out the match record (docs/record.md) of each log and print it "
                        "as one JSON line, or with --html write the printable A4 result sheet. On a "
                        "refused line, print 'FILE line N: reason' on standard error and exit with "
                        "status 2, printing and writing nothing.")
    rp.add_argument("logs", nargs="+", metavar="LOG", help="an event log or journal file ('-': standard input)")
    rp.add_argument("--html", metavar="FILE", help="write the result sheet (HTML, A4) to FILE ('-': standard "
                    "output) instead of the JSON")
    rp.add_argument("--breaks-from", type=int, default=50, dest="breaks_from", metavar="POINTS",
                    help="list breaks of this many points or more (default 50)")
    rp.add_argument("--title", help="the sheet's heading (default 'Match result')")
    rp.add_argument("--tz", help="the time zone of the sheet's times, e.g. Europe/London (default: this "
                    "machine's)")
    rp.add_argument("--config", metavar="TOML", help="the table's configuration: the sheet's Venue and Table "
                    "(and its date's language) from its [table] and [[display]] (a journal does not name them)")
    rp.add_argument("--venue", help="the sheet's Venue when the record does not name it")
    rp.add_argument("--table", help="the sheet's Table when the record does not name it")
    rp.add_argument("--lang", help="the language of the sheet's date: en, fr, nl, sv or de (default: the "
                    "--config's boards', else en)")
    rp.set_defaults(func=_report)
    from cueboard.league.archive_command import add_parser as add_archive

    add_archive(sub)  # cueboard archive ...: the results archive (docs/league.md)
    k = sub.add_parser("keypad-sim", help="a marker's keypad in the terminal, speaking the real protocol",
                       description="Simulate the marker's keypad on PORT: type a key's label as the "
                       "legend shows it ('black', 'foul', 'free ball'; a shifted action presses SHIFT "
                       "first), or its number (or 'row,column'; add 'h' to hold the key) and see the "
                       "host's verdicts. "
                       "With --create, PORT becomes a link to a new pseudo-terminal for the "
                       "daemon to open as its keypad port. At the end of input, wait for the "
                       "host to take what is queued. The keymap's legend says which number is which "
                       "action. The keypad protocol carries only accepted or refused; the reasons, and "
                       "what the table has understood of a call, come from the daemon's MQTT topics "
                       "(rejected, input) with --broker.")
    k.add_argument("port", metavar="PORT", help="the serial port or pseudo-terminal to talk on")
    k.add_argument("--create", action="store_true",
                   help="make a pseudo-terminal and link PORT to it (removed on exit)")
    k.add_argument("--rows", type=int, default=5, help="rows of keys (default 5)")
    k.add_argument("--columns", type=int, default=4, help="columns of keys (default 4)")
    k.add_argument("--keymap", help="the keypad's keymap, for the legend: a file, or the name of a shipped one "
                   "(keypad-4x5-blackball.toml); default keypad-4x5.toml for a 5 x 4 keypad; 'none': no legend")
    k.add_argument("--broker", metavar="HOST[:PORT]",
                   help="the daemon's MQTT broker: print why the host refused a key, and what it has read")
    k.add_argument("--topic", default=TableTopics.of(ANY, ANY).prefix, metavar="PREFIX",
                   help="the daemon's topic prefix (default %(default)s: every table; the daemon's is "
                   "cueboard/<venue>/<table>)")
    k.set_defaults(func=_keypad_sim)
    rd = sub.add_parser("render", help="draw an LED board showing a state, as a PNG",
                        description="Draw the board a state (a JSON object, or the last of JSON "
                        "lines) or an event log (replayed to its end) would show, with the boards' "
                        "own layouts, and save it as a PNG of round LEDs.")
    rd.add_argument("state", metavar="STATE", help="the state or log file ('-': standard input)")
    rd.add_argument("--layout", default="64x16", help="32x8, 64x16 or 128x32 (default 64x16); another "
                    "WIDTHxHEIGHT draws that board with the largest layout that fits")
    rd.add_argument("--size", help="the board's WIDTHxHEIGHT when larger than the layout")
    rd.add_argument("--out", required=True, help="the PNG to write")
    rd.add_argument("--game", help="draw the state as this game's (sets its 'game')")
    rd.add_argument("--mode", choices=["1", "RGB"], default="RGB",
                    help="RGB: a colour panel (WS2812); 1: one colour (MAX7219), drawn red")
    rd.add_argument("--clock", type=float, help="seconds left on a running shot clock")
    rd.add_argument("--at", type=float, default=0.0,
                    help="seconds after the state appeared (pages take turns, long names scroll)")
    rd.add_argument("--scale", type=int, default=8, help="picture pixels an LED (default 8)")
    rd.add_argument("--pixels", action="store_true", help="square pixels rather than round LEDs")
    rd.add_argument("--flash", action="store_true", help="as the refusal flash shows it")
    rd.add_argument("--prompt", metavar="KEY,KEY", help="a call being keyed in: its keys' legends "
                    "(such as FOUL,MISS), drawn in the bar")
    rd.add_argument("--needs", metavar="TEXT", help="what the call waits for (with --prompt)")
    rd.add_argument("--lapsed", action="store_true", help="the call lapsed (with --prompt)")
    rd.add_argument("--refusal", metavar="REASON", help="a refused key's reason, drawn in the bar")
    rd.add_argument("--lang", choices=LANGUAGES, default="en",
                    help="the board's words (FRAME, BREAK, REM...) in this language, as [display] language "
                    "sets them (default en)")
    rd.add_argument("--idle", metavar="VENUE", help="the idle board of a venue's table waiting for its match "
                    "(its [table] start = \"idle\"): the venue's name, the time and the state's next")
    rd.add_argument("--time", default="20:15", metavar="HH:MM", help="the time on the idle board (default 20:15)")
    rd.set_defaults(func=_render)
    d = sub.add_parser("demo", help="the whole table on a laptop: keyboard as the referee box, board in "
                       "the terminal, MQTT", description="Run the real daemon with no hardware: the "
                       "referee box on mock pins driven from the keyboard, the keypad on a pseudo-terminal "
                       "for cueboard keypad-sim, the LED board drawn in the terminal, and MQTT to --broker "
                       "or an embedded broker. Without a terminal it plays a match by itself.")
    d.add_argument("--broker", metavar="HOST[:PORT]", help="an MQTT broker (default: an embedded one)")
    d.add_argument("--game", choices=["snooker", "blackball"], default="snooker")
    d.add_argument("--autoplay", action="store_true", help="play a match by itself (the default without a terminal)")
    d.add_argument("--events", type=int, help="with autoplay: stop after this many events, at full speed")
    d.add_argument("--journal", help="keep the journal in this folder (default: a new folder under the "
                   "temporary directory, kept after the demo; its path is printed)")
    d.add_argument("--layout", choices=["32x8", "64x16", "128x32"], default="64x16",
                   help="the LED board's size and layout (default 64x16)")
    d.add_argument("--board", choices=["hub75-64x32", "hub75-128x64", "hub75-192x96"], default=None,
                   help="a hall board of HUB75 panels instead, on RGBMatrixEmulator (the demo extra)")
    d.add_argument("--window", action="store_true", help="with --board: draw it in a window (pygame), "
                   "not the terminal")
    d.add_argument("--lang", choices=LANGUAGES, default="en",
                   help="the board's words (and the screen's, in the line it prints) in this language (default en)")
    d.add_argument("--log", default=None, help="write the daemon's log to this file (default: standard error)")
    d.set_defaults(func=_demo)
    sc = sub.add_parser("screen", help="serve the venue screen: every table live in a browser, over MQTT",
                        description="Serve the venue screen page (screen/ of the project) over HTTP. The "
                        "page connects to the broker's MQTT-over-WebSockets listener. These options are the "
                        "page's defaults; ?venue=, ?table=, ?tables=, ?view=, ?per_page=, ?rotate= and ?lang= in its "
                        "address override them. The brokers are these options' only: a link naming another is "
                        "refused (docs/screen.md).")
    sc.add_argument("--port", type=int, default=8080, help="HTTP port (default 8080)")
    sc.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, this machine "
                    "only; 0.0.0.0 for the venue's LAN)")
    sc.add_argument("--tls-cert", dest="tls_cert", metavar="FILE", help="serve HTTPS with this certificate "
                    "(cueboard venue init writes certs/server.crt)")
    sc.add_argument("--tls-key", dest="tls_key", metavar="FILE", help="its key (certs/server.key)")
    sc.add_argument("--venue-ca", dest="venue_ca", metavar="FILE", help="serve the venue's CA certificate at "
                    "/venue-ca.crt, for phones to trust (ca/venue-ca.crt; the scorer card's second QR code)")
    sc.add_argument("--broker-ws", dest="broker_ws", metavar="URL",
                    help="the broker's WebSockets URL (default wss://<the page's host>:9001, "
                         "the venue's screens listener)")
    sc.add_argument("--desk-broker", dest="desk_broker", metavar="URL",
                    help="the broker's secure WebSockets URL for the desk's page at /desk and the scorer's at /score, "
                    "where they sign in "
                    "(default wss://<the page's host>:8885, the pages' listener of cueboard venue init; docs/desk.md)")
    sc.add_argument("--venue", help="show this venue's tables (default: every venue)")
    sc.add_argument("--table", help="show this table only, large (the TV view)")
    sc.add_argument("--tables", type=_screen_tables, metavar="LIST",
                    help='show these tables only: names and ranges, e.g. "1-8" or "t1-t8,final" (default: all)')
    sc.add_argument("--view", choices=["grid", "list", "single", "overlay"],
                    help="grid of cards (default), compact list for a big hall, one table, or the stream overlay")
    sc.add_argument("--per-page", dest="per_page", type=_bounded(int, 1, 64), metavar="N",
                    help="tables a page (default: as many as the screen holds with large digits, up to 16)")
    sc.add_argument("--rotate", type=_bounded(float, 0, 3600), metavar="SECONDS",
                    help="seconds a page stays before the next (default 10; 0: pages do not turn)")
    sc.add_argument("--lang", choices=LANGUAGES, help="the words on the screen (default en)")
    sc.set_defaults(func=_screen)
    run = sub.add_parser("run", help="run the table's daemon (under systemd on the Pi)",
                         formatter_class=argparse.RawDescriptionHelpFormatter,
                         description="Run the scoreboard daemon for one table: inputs, rules, journal, "
                         "LED boards and the MQTT feed, as the configuration says.",
                         epilog="exit status:\n"
                         "  0  stopped by SIGTERM or SIGINT\n"
                         "  2  the configuration cannot be used: the message names the file and the key\n"
                         "\n"
                         "without GPIO (a laptop, a CI machine):\n"
                         "  GPIOZERO_PIN_FACTORY=mock cueboard run --config FILE\n"
                         "      the referee boxes on gpiozero's mock pins (nothing presses them)\n"
                         "  leave [[referee_box]] out of the configuration: no boxes are opened\n"
                         "  cueboard demo: the whole table with no hardware, the keyboard as the box")
    run.add_argument("--config", default=DEFAULT_CONFIG, help=f"the configuration (default {DEFAULT_CONFIG})")
    run.add_argument("-v", "--verbose", action="store_true", help="log debugging detail")
    run.set_defaults(func=_run)
    hw = sub.add_parser("hwtest", help="check the table's hardware: light every LED, echo every button and key",
                        description="Check the hardware of the configuration, with the daemon stopped "
                        "(sudo systemctl stop cueboard): light every LED of each board (a MAX7219's "
                        "display test too), walk a lit row and a lit column across it and number its 8x8 "
                        "blocks, beep and light the keypad, and echo every referee button and keypad key with its "
                        "number, pin or row and column, and its action. A step lasts until Enter (or "
                        "--step-seconds). Exit status: 0 every device worked, 1 one did not open or answer, "
                        "2 the daemon is running or the configuration is wrong, 130 Ctrl-C, SIGTERM or SIGHUP "
                        "(every device closed). docs/hardware.md shows a run.")
    hw.add_argument("--config", default=DEFAULT_CONFIG, help=f"the configuration (default {DEFAULT_CONFIG})")
    hw.add_argument("--step-seconds", type=float, dest="step_seconds", metavar="N",
                    help="each step lasts N seconds instead of until Enter (a run nobody attends)")
    hw.set_defaults(func=_hwtest)
    ha = sub.add_parser("home-assistant", help="announce the table to Home Assistant, or remove it from there",
                        description="Publish the table's Home Assistant discovery message (announce), or the "
                        "empty one that removes the device and its sensors from Home Assistant (remove: for a "
                        "table taken out of the venue), on the broker of the table's [mqtt]. The daemon announces "
                        "by itself with [home_assistant] discovery = true (docs/home-assistant.md).")
    ha.add_argument("action", choices=["announce", "remove"])
    ha.add_argument("--config", default=DEFAULT_CONFIG, help=f"the configuration (default {DEFAULT_CONFIG})")
    ha.set_defaults(func=_home_assistant)
    m = sub.add_parser("match", help="start a match, or print the state, on a running daemon",
                       description="Talk to the running daemon over its control socket (control.socket "
                       "of --config, or --socket): 'new' starts a match, 'state' prints the scoreboard "
                       "state as JSON.")
    m.set_defaults(func=lambda args: _help(m))
    msub = m.add_subparsers(dest="match_command", metavar="ACTION")
    new = msub.add_parser("new", help="start a new match (fields left out: the table's [match] format)",
                          description="Start a new match on the running daemon. Fields left out come from "
                          "the table's [match] configuration. Doubles: --sides 'A1 & A2' 'B1 & B2'.")
    new.add_argument("--game", choices=["snooker", "blackball"])
    new.add_argument("--sides", nargs=2, metavar="NAME", help="the two sides' names")
    new.add_argument("--best-of", type=int, dest="best_of")
    new.add_argument("--race-to", type=int, dest="race_to")
    new.add_argument("--first", type=int, choices=[0, 1], help="the side that breaks in frame 1")
    new.add_argument("--reds", type=int, choices=[15, 10, 6])
    new.add_argument("--handicap", type=int, nargs=2, metavar="POINTS")
    new.add_argument("--aggregate", action="store_true")
    new.add_argument("--shot-clock", type=float, dest="shot_clock", help="seconds a shot")
    _daemon_options(new)
    new.set_defaults(func=_match_new)
    st = msub.add_parser("state", help="print the state of the running daemon's match (with a shot clock: its "
                         "'clock', the seconds 'left' now, running or held)")
    _daemon_options(st)
    st.set_defaults(func=lambda args: _ask(args, {"type": "state"}))
    send = sub.add_parser("send", help="send one event (JSON) to the running daemon, as if keyed in",
                          description="Send one JSON object to the running daemon's control socket, as if "
                          "keyed in: an event of the event log (docs/events.md), a match line, or a "
                          "daemon command ({\"type\": \"clock\", \"action\": \"hold\"}). Prints "
                          "the state after it; a refusal prints its reason and exits with status 2.")
    send.add_argument("event", help='e.g. \'{"type": "undo"}\'')
    send.add_argument("--id", help="the line's id (default: a new one, printed): send a line again with the "
                      "same id to learn its outcome; it is never applied twice. Exit status 3: queued, not yet "
                      "answered")
    _daemon_options(send)
    send.set_defaults(func=_send)
    from cueboard.venue.command import add_arguments as venue_arguments

    v = sub.add_parser("venue", help="set up and keep a venue's broker: logins, certificates, ACL",
                       description="A venue's mosquitto set up by one command (init), tables and people added "
                       "and removed by others, each change in effect at once without dropping a table "
                       "(docs/security.md).")
    venue_arguments(v)
    v.set_defaults(func=_venue)
    from cueboard.venue.league import add_arguments as league_arguments

    lg = sub.add_parser("league", help="set up a league's broker, hardened, and its venues' bridges",
                        description="A league's mosquitto set up by one command (init): bridges authenticate "
                        "with a login a venue, anonymous readers on their own listener only, nobody writes a "
                        "venue's state but its bridge (docs/security.md, docs/scale.md).")
    league_arguments(lg)
    lg.set_defaults(func=_league)
    from cueboard.venue.join import add_arguments as join_arguments

    jn = sub.add_parser("join", help="make this Pi a table of a venue, from its bundle (cueboard venue add-table)",
                        description="Write /etc/cueboard/cueboard.toml, the table's password and the venue's CA "
                        "from the bundle cueboard venue add-table wrote for this table, then restart the service: "
                        "the table starts idle, free for the desk (docs/install.md).")
    join_arguments(jn)
    jn.set_defaults(func=_join)
    return p


def _league(args: argparse.Namespace) -> int:
    from cueboard.venue.league import run

    return int(run(args))


def _venue(args: argparse.Namespace) -> int:
    from cueboard.venue.command import run

    return int(run(args))


def _join(args: argparse.Namespace) -> int:
    from cueboard.venue.join import run

    return int(run(args))


def _help(p: argparse.ArgumentParser) -> int:
    """A command given without its subcommand: its help, as --help prints it (status 0)."""
    p.print_help()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        status = int(args.func(args))
        sys.stdout.flush()
    except KeyboardInterrupt:
        # Ctrl-C (or, for the commands that ask it, a kill or a closed terminal: stop_signals)
        # before the command had its own answer: what it opened is closed, no traceback.
        return 130
    except BrokenPipeError:
        # The reader went away (cueboard match state | head): stop quietly, as a tool killed
        # by SIGPIPE would, with no traceback; stdout is pointed at /dev/null so that the
        # interpreter's own flush at exit does not fail again.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13  # SIGPIPE
    return status


if __name__ == "__main__":
    sys.exit(main())
