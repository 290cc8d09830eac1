"""The journal: every event fsync'd; a torn tail dropped with a warning, never a crash;
a damaged line keeps what came before it; a failed write changes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from daemon_helpers import scripted_events

from cueboard.engine import Match
from cueboard.journal import Journal

LINE = {"type": "match", "game": "snooker", "sides": ["Ann", "Bob"], "best_of": 3}


def play(journal: Journal, events: list[dict]) -> Match:
    match = Match.from_json(LINE)
    journal.start(match.setup.to_json())
    for obj in events:
        event = match.parse(obj)
        journal.append(obj)
        match.apply(event)
    return match


def test_reopening_replays_the_match(tmp_path: Path) -> None:
    events = scripted_events(60)
    live = play(Journal(tmp_path), events)
    recovered = Journal(tmp_path).open()
    assert recovered.warnings == []
    assert recovered.match is not None and recovered.match.state() == live.state()


def test_a_torn_last_line_is_dropped_with_a_warning_and_cut_off(tmp_path: Path) -> None:
    events = scripted_events(30)
    live = play(Journal(tmp_path), events[:29])
    path = Journal(tmp_path).matches()[-1]
    with open(path, "ab") as f:  # the power went half way through the 30th line
        f.write(json.dumps(events[29]).encode()[:9])
    journal = Journal(tmp_path)
    recovered = journal.open()
    assert recovered.match is not None and recovered.match.state() == live.state()
    assert len(recovered.warnings) == 1 and "line 31 was torn" in recovered.warnings[0]
    # The next event goes on a whole line: the file replays cleanly with it.
    journal.append(events[29])
    again = Journal(tmp_path).open()
    assert again.warnings == [] and again.match is not None and again.match.seq == 30


def test_a_damaged_line_in_the_middle_keeps_the_lines_before_it(tmp_path: Path) -> None:
    events = scripted_events(20)
    play(Journal(tmp_path), events)
    path = Journal(tmp_path).matches()[-1]
    lines = path.read_bytes().split(b"\n")
    lines[10] = b'{"type": "pot", "balls": ["re\xffd"]}'
    path.write_bytes(b"\n".join(lines))
    recovered = Journal(tmp_path).open()
    assert recovered.match is not None and recovered.match.seq == 9
    assert any("line 11 is damaged" in w for w in recovered.warnings)
    assert path.with_name(path.name + ".damaged").exists()
    assert Journal(tmp_path).open().warnings == []


def test_each_match_has_its_own_file_and_old_ones_are_kept(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    play(journal, scripted_events(5))
    second = Match.from_json({**LINE, "sides": ["Cy", "Di"]})
    journal.start(second.setup.to_json())
    names = [p.name for p in journal.matches()]
    assert names == ["match-000001.jsonl", "match-000002.jsonl"]
    recovered = Journal(tmp_path).open()
    assert recovered.match is not None and recovered.match.state()["sides"][0]["name"] == "Cy"
    # The old match replays with `cueboard replay`.
    result = subprocess.run([sys.executable, "-m", "cueboard.cli", "replay", str(tmp_path / names[0])],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0 and json.loads(result.stdout)["seq"] == 5


def test_an_empty_or_missing_directory_holds_no_match(tmp_path: Path) -> None:
    assert Journal(tmp_path / "new").open().match is None
    assert (tmp_path / "new").is_dir()


FULL_DISK = r"""
import json, resource, signal, sys
from pathlib import Path
from cueboard.engine import Match
from cueboard.journal import Journal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
journal = Journal(Path(sys.argv[1]))
match = Match.from_json(json.loads(sys.argv[2]))
journal.start(match.setup.to_json())
size = journal.path.stat().st_size
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 40, size + 40))
results = []
for obj in [{"type": "no_pot"}, {"type": "pot", "balls": ["red"]}, {"type": "foul", "points": 4}]:
    try:
        journal.append(obj)
        results.append("saved")
    except OSError as exc:
        results.append(f"failed: {exc.strerror}")
print(json.dumps({"results": results, "size": journal.path.stat().st_size, "limit": size + 40}))
"""


def test_a_full_disk_refuses_the_write_and_leaves_whole_lines(tmp_path: Path, finding: Callable[..., None]) -> None:
    """A real write failure from the operating system (a file-size limit), not a mock."""
    result = subprocess.run([sys.executable, "-c", FULL_DISK, str(tmp_path), json.dumps(LINE)],
                            capture_output=True, text=True, check=True)
    out = json.loads(result.stdout)
    # What is on disk is whole lines only: it replays, with just the event that was saved.
    recovered = Journal(tmp_path).open()
    seq = recovered.match.seq if recovered.match is not None else None
    saved = out["results"].count("saved")
    errors = sorted({r.removeprefix("failed: ") for r in out["results"] if r != "saved"})
    finding(f"journal file limited to {out['limit']} bytes (RLIMIT_FSIZE): {saved} of {len(out['results'])} "
            f"appends saved, {len(out['results']) - saved} refused ({', '.join(errors) or 'no error'}); the file "
            f"is {out['size']} bytes of whole lines and replays to event {seq} with {len(recovered.warnings)} "
            "warnings", limit_bytes=out["limit"], appends=len(out["results"]), saved=saved,
            refused=len(out["results"]) - saved, errors=errors, file_bytes=out["size"], recovered_seq=seq,
            warnings=len(recovered.warnings))
    assert out["results"][0] == "saved"
    assert out["results"][1].startswith("failed")
    assert recovered.warnings == []
    assert seq == 1
