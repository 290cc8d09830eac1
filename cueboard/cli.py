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
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
