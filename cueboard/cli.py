"""The ``cueboard`` command."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any


def _replay(args: argparse.Namespace) -> int:
    from .replay import run

    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(encoding="utf-8")
    if args.file in (None, "-"):
        return run(sys.stdin.buffer, sys.stdout, sys.stderr, args.each)
    try:
        with open(args.file, "rb") as f:
            return run(f, sys.stdout, sys.stderr, args.each)
    except OSError as exc:
        print(f"cueboard replay: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 1


def _keypad_sim(args: argparse.Namespace) -> int:
    from .keypad_sim import run_terminal

    return run_terminal(args.port, create=args.create, rows=args.rows, columns=args.columns,
                        stdin=sys.stdin, stdout=sys.stdout)


def _render(args: argparse.Namespace) -> int:
    from .boards.render_command import run

    return run(args.state, args.out, layout=args.layout, size=args.size, game=args.game, mode=args.mode,
               clock=args.clock, at=args.at, scale=args.scale, pixels=args.pixels, flash=args.flash,
               stdin=sys.stdin.buffer, stderr=sys.stderr)


DEFAULT_CONFIG = "/etc/cueboard/cueboard.toml"


def _logging(verbose: bool) -> None:
    import logging

    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")


def _load(path: str) -> Any:
    from .config import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError as exc:
        print(f"cueboard: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _run(args: argparse.Namespace) -> int:
    from .service import run

    _logging(args.verbose)
    return run(_load(args.config))


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

    from .daemon import ask_daemon

    path = _socket(args)
    try:
        answer = ask_daemon(path, obj)
    except OSError as exc:
        print(f"cueboard: cannot reach the daemon at {path}: {exc.strerror or exc} "
              "(is cueboard running?)", file=sys.stderr)
        return 1
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
    return _ask(args, obj)


def _demo(args: argparse.Namespace) -> int:
    import logging

    from .demo import run_demo

    logging.basicConfig(level=logging.WARNING, filename=args.log, format="%(levelname)s %(name)s: %(message)s")
    return run_demo(broker=args.broker, game=args.game, autoplay=True if args.autoplay else None,
                    events=args.events, journal=args.journal)


def _screen(args: argparse.Namespace) -> int:
    from .screen import run_screen

    page = {"tables": args.tables, "view": args.view, "per_page": args.per_page, "rotate": args.rotate,
            "lang": args.lang}
    return run_screen(host=args.host, port=args.port, broker_ws=args.broker_ws, venue=args.venue, table=args.table,
                      page={k: v for k, v in page.items() if v is not None})


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
    p = argparse.ArgumentParser(prog="cueboard", description="Scoreboard controller for snooker "
                                "and blackball tables.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    r = sub.add_parser("replay", help="apply an event log and print the scoreboard state as JSON",
                       description="Apply an event log (JSON Lines: a match line, then one event "
                       "a line) and print the final state as one JSON line. On a rejected line, "
                       "print 'line N: reason' on standard error and exit with status 2.")
    r.add_argument("file", nargs="?", help="the log (standard input when left out or '-')")
    r.add_argument("--each", action="store_true", help="print the state after every line")
    r.set_defaults(func=_replay)
    k = sub.add_parser("keypad-sim", help="a marker's keypad in the terminal, speaking the real protocol",
                       description="Simulate the marker's keypad on PORT: type key numbers (or "
                       "'row,column'; add 'h' to hold the key) and see the host's verdicts. "
                       "With --create, PORT becomes a link to a new pseudo-terminal for the "
                       "daemon to open as its keypad port. At the end of input, wait for the "
                       "host to take what is queued.")
    k.add_argument("port", metavar="PORT", help="the serial port or pseudo-terminal to talk on")
    k.add_argument("--create", action="store_true",
                   help="make a pseudo-terminal and link PORT to it (removed on exit)")
    k.add_argument("--rows", type=int, default=5, help="rows of keys (default 5)")
    k.add_argument("--columns", type=int, default=4, help="columns of keys (default 4)")
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
    d.add_argument("--journal", help="keep the journal in this folder (default: a temporary one)")
    d.add_argument("--log", default=None, help="write the daemon's log to this file (default: standard error)")
    d.set_defaults(func=_demo)
    sc = sub.add_parser("screen", help="serve the venue screen: every table live in a browser, over MQTT",
                        description="Serve the venue screen page (screen/ of the project) over HTTP. The "
                        "page connects to the broker's MQTT-over-WebSockets listener. These options are the "
                        "page's defaults; ?broker=, ?venue=, ?table=, ?tables=, ?view=, ?per_page=, ?rotate= and "
                        "?lang= in its address override them (docs/screen.md).")
    sc.add_argument("--port", type=int, default=8080, help="HTTP port (default 8080)")
    sc.add_argument("--host", default="0.0.0.0", help="address to listen on (default: all)")
    sc.add_argument("--broker-ws", dest="broker_ws", metavar="URL",
                    help="the broker's WebSockets URL (default ws://<the page's host>:9001)")
    sc.add_argument("--venue", help="show this venue's tables (default: every venue)")
    sc.add_argument("--table", help="show this table only, large (the TV view)")
    sc.add_argument("--tables", type=_screen_tables, metavar="LIST",
                    help='show these tables only: names and ranges, e.g. "1-8" or "t1-t8,final" (default: all)')
    sc.add_argument("--view", choices=["grid", "list", "single", "overlay"],
                    help="grid of cards (default), compact list for a big hall, one table, or the stream overlay")
    sc.add_argument("--per-page", dest="per_page", type=_bounded(int, 1, 64), metavar="N",
                    help="tables a page (default: grid 8, list 12)")
    sc.add_argument("--rotate", type=_bounded(float, 0, 3600), metavar="SECONDS",
                    help="seconds a page stays before the next (default 10; 0: pages do not turn)")
    sc.add_argument("--lang", choices=["en", "nl", "sv", "de", "fr"], help="the words on the screen (default en)")
    sc.set_defaults(func=_screen)
    run = sub.add_parser("run", help="run the table's daemon (under systemd on the Pi)",
                         description="Run the scoreboard daemon for one table: inputs, rules, journal, "
                         "LED boards and the MQTT feed, as the configuration says.")
    run.add_argument("--config", default=DEFAULT_CONFIG, help=f"the configuration (default {DEFAULT_CONFIG})")
    run.add_argument("-v", "--verbose", action="store_true", help="log debugging detail")
    run.set_defaults(func=_run)
    m = sub.add_parser("match", help="start a match, or print the state, on a running daemon")
    msub = m.add_subparsers(dest="match_command", required=True, metavar="ACTION")
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
    st = msub.add_parser("state", help="print the state of the running daemon's match")
    _daemon_options(st)
    st.set_defaults(func=lambda args: _ask(args, {"type": "state"}))
    send = sub.add_parser("send", help="send one event (JSON) to the running daemon, as if keyed in")
    send.add_argument("event", help='e.g. \'{"type": "undo"}\'')
    _daemon_options(send)
    send.set_defaults(func=_send)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
