"""The ``cueboard`` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


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
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
