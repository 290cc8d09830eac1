"""One launcher for the end-to-end scripts that drive real Chromium under node (tests/*_e2e.mjs).

The script gets its plan as a JSON file, prints what it does on standard output, and asks the
Python side for what only it can do with a line ``need: <verb> <args>`` (screen_lib.mjs's
``ask``), then waits for ``done`` on standard input. :func:`run_e2e` answers each ask with the
handler named by its verb; a verb with no handler fails the test at once (never a silent
``done``). The run is killed after ``timeout`` seconds, a bound for a script that hangs, not a
speed requirement; a failed script's last lines and its standard error are the assertion's text.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

Handler = Callable[[list[str]], None]
"""Answers one ``need:`` line: given the words after its verb."""


def run_e2e(script: Path, plan: dict[str, Any], plan_file: Path, *, timeout: float,
            handlers: Mapping[str, Handler] | None = None, on_line: Callable[[str], None] | None = None,
            tail: int = 15) -> list[str]:
    """Run ``node script plan_file`` (``plan`` written there first), answering its asks with
    ``handlers``; ``on_line`` sees every line of its output first. The output's lines (each
    also printed for pytest's report); asserts the script exited 0."""
    plan_file.write_text(json.dumps(plan))
    node = subprocess.Popen(["node", str(script), str(plan_file)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(timeout, node.kill)
    timer.start()
    out: list[str] = []
    try:
        assert node.stdout is not None and node.stdin is not None
        for line in node.stdout:
            out.append(line)
            print(line, end="")
            if on_line is not None:
                on_line(line)
            if line.startswith("need: "):
                verb, *args = line[len("need: "):].split()
                handler = (handlers or {}).get(verb)
                assert handler is not None, f"{script.name} asked for {line.strip()!r}: this test has no answer"
                handler(args)
                node.stdin.write("done\n")
                node.stdin.flush()
        node.wait()
    except BaseException:
        # A failed check on this side: the browser is not left running behind the test.
        node.kill()
        node.wait()
        raise
    finally:
        timer.cancel()
    err = node.stderr.read() if node.stderr else ""
    assert node.returncode == 0, "".join(out[-tail:]) + err
    return out
