"""The journal: every event fsync'd; a torn tail dropped with a warning, never a crash;
a damaged line keeps what came before it; a failed write changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from cueboard.engine import Match
from cueboard.table.journal import CHUNK, SPARE, Journal, _line, written
from tests.helpers.daemon import scripted_events

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
    assert recovered.match is not None and recovered.match.state().to_json() == live.state().to_json()


def test_a_torn_last_line_is_dropped_with_a_warning_and_cut_off(tmp_path: Path) -> None:
    """A file without preallocated space (a match file closed and cut to its lines, or one
    grown line by line on a disk without room to preallocate)."""
    events = scripted_events(30)
    journal = Journal(tmp_path)
    live = play(journal, events[:29])
    journal.close()
    path = Journal(tmp_path).matches()[-1]
    assert path.read_bytes().endswith(b"\n")  # cut to its lines
    with open(path, "ab") as f:  # the power went half way through the 30th line
        f.write(json.dumps(events[29]).encode()[:9])
    journal = Journal(tmp_path)
    recovered = journal.open()
    assert recovered.match is not None and recovered.match.state().to_json() == live.state().to_json()
    assert len(recovered.warnings) == 1 and "line 31 was torn" in recovered.warnings[0]
    # The next event goes on a whole line: the file replays cleanly with it.
    journal.append(events[29])
    again = Journal(tmp_path).open()
    assert again.warnings == [] and again.match is not None and again.match.seq == 30


def in_flight(journal: Journal, event: dict) -> tuple[Path, int, bytes]:
    """The journal's file, where the next line goes and its bytes: a write the power cut."""
    assert journal.path is not None
    data = journal.path.read_bytes()
    return journal.path, written(data)[0], _line(event)


def test_a_write_torn_over_the_preallocated_zeros_is_dropped(tmp_path: Path) -> None:
    """The power went while the 30th line was going over the zeros: its first sectors made it."""
    events = scripted_events(30)
    journal = Journal(tmp_path)
    live = play(journal, events[:29])
    path, at, line = in_flight(journal, events[29])
    size = path.stat().st_size
    assert size >= CHUNK and size > at + len(line)  # room ahead, written before the events
    with open(path, "r+b") as f:
        f.seek(at)
        f.write(line[:9])
    journal = Journal(tmp_path)
    recovered = journal.open()
    assert recovered.match is not None and recovered.match.state().to_json() == live.state().to_json()
    assert recovered.warnings == ["match-000001.jsonl: line 31 was torn (power cut?): 9 bytes dropped"]
    assert not path.with_name(path.name + ".damaged").exists()
    journal.append(events[29])
    again = Journal(tmp_path).open()
    assert again.warnings == [] and again.match is not None and again.match.seq == 30


def test_every_way_a_power_cut_can_tear_one_line_keeps_every_saved_event(tmp_path: Path) -> None:
    """A line in flight reaches the disk a sector (512 bytes) at a time, in any order: each
    sector of it is either written or still zeros. For a line across a sector boundary, at
    every byte of it, each of the four outcomes recovers the saved events, plus the line
    itself only when all of it made it; a hole (a later sector without an earlier one)
    keeps the file as .damaged for the record."""
    events = scripted_events(3)
    line = _line(events[2])
    outcomes: Counter[str] = Counter()
    for cut in range(1, len(line)):  # the line's first `cut` bytes lie before the boundary
        for first, second in ((False, False), (True, False), (False, True), (True, True)):
            directory = tmp_path / f"{cut}-{first}-{second}"
            journal = Journal(directory)
            # A handicap with as many digits as it takes to put the boundary `cut` bytes into the
            # line (a name would do it more plainly, but a name is at most 40 characters).
            base = Match.from_json({**LINE, "handicap": [0, 0]}).setup.to_json()
            short = len(_line(base)) + sum(len(_line(e)) for e in events[:2])
            setup = {**LINE, "handicap": [0, 10 ** (512 - cut - short)]}
            live = Match.from_json(setup)
            journal.start(live.setup.to_json())
            for obj in events[:2]:
                journal.append(obj)
                live.apply(live.parse(obj))
            path, at, _ = in_flight(journal, events[2])
            assert at == 512 - cut
            with open(path, "r+b") as f:
                if first:
                    f.seek(at)
                    f.write(line[:cut])
                if second:
                    f.seek(512)
                    f.write(line[cut:])
            recovered = Journal(directory).open()
            assert recovered.match is not None
            damaged = path.with_name(path.name + ".damaged")
            if first and second:
                outcomes["whole line kept"] += 1
                assert recovered.warnings == [] and recovered.match.seq == 3
            elif first:
                outcomes["torn, dropped"] += 1
                assert recovered.match.state().to_json() == live.state().to_json()
                assert len(recovered.warnings) == 1 and "line 4 was torn" in recovered.warnings[0]
            elif second:
                outcomes["hole, dropped and kept as .damaged"] += 1
                assert recovered.match.state().to_json() == live.state().to_json()
                assert "stray bytes" in recovered.warnings[0] and damaged.exists()
                assert damaged.read_bytes()[512:len(line) - cut + 512] == line[cut:]
            else:
                outcomes["nothing written"] += 1
                assert recovered.warnings == [] and recovered.match.state().to_json() == live.state().to_json()
            assert Journal(directory).open().warnings == []  # recovered once, clean since
    assert set(outcomes.values()) == {len(line) - 1}


@pytest.mark.system
def test_a_file_keeps_its_size_while_events_go_in_and_is_cut_to_its_lines_at_the_end(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    journal.start(LINE)
    assert journal.path is not None
    size = journal.path.stat().st_size
    match = Match.from_json(LINE)
    for obj in scripted_events(40):
        journal.append(obj)
        match.apply(match.parse(obj))
        assert journal.path.stat().st_size == size  # nothing but the data changes on disk
    # `cueboard replay` reads the live file, zeros and all.
    live = subprocess.run([sys.executable, "-m", "cueboard.cli", "replay", str(journal.path)],
                          capture_output=True, text=True, check=False)
    assert live.returncode == 0, live.stderr
    assert json.loads(live.stdout) == match.state().to_json()
    journal.close()
    data = journal.path.read_bytes()
    assert b"\0" not in data and data.endswith(b"\n") and data.count(b"\n") == 41
    # A torn line running into the zeros: `cueboard replay` names it.
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(data + b'{"type":"no' + bytes(100))
    result = subprocess.run([sys.executable, "-m", "cueboard.cli", "replay", str(torn)],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 2 and result.stderr.startswith("line 42: torn: it runs into zero bytes")


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


@pytest.mark.system
def test_each_match_has_its_own_file_and_old_ones_are_kept(tmp_path: Path) -> None:
    journal = Journal(tmp_path)
    play(journal, scripted_events(5))
    second = Match.from_json({**LINE, "sides": ["Cy", "Di"]})
    journal.start(second.setup.to_json())
    names = [p.name for p in journal.matches()]
    assert names == ["match-000001.jsonl", "match-000002.jsonl"]
    recovered = Journal(tmp_path).open()
    assert recovered.match is not None and recovered.match.state().to_json()["sides"][0]["name"] == "Cy"
    # The old match replays with `cueboard replay`.
    result = subprocess.run([sys.executable, "-m", "cueboard.cli", "replay", str(tmp_path / names[0])],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0 and json.loads(result.stdout)["seq"] == 5


@pytest.mark.system
def test_a_nearly_full_disk_gets_no_zeros_ahead_and_the_events_go_in_line_by_line(tmp_path: Path) -> None:
    """On a disk with less than SPARE free the journal does not take the rest for zeros."""
    from tests.table.test_reliability import small_tmpfs

    with small_tmpfs(tmp_path / "disk", "512k") as disk:
        journal = Journal(disk / "journal")
        match = play(journal, scripted_events(20))
        assert journal.path is not None
        data = journal.path.read_bytes()
        assert b"\0" not in data and data.count(b"\n") == 21  # the lines, nothing ahead of them
        journal.close()
        recovered = Journal(disk / "journal").open()
        assert recovered.warnings == [] and recovered.match is not None
        assert recovered.match.state().to_json() == match.state().to_json()
    assert SPARE + CHUNK > 512 * 1024


def test_an_empty_or_missing_directory_holds_no_match(tmp_path: Path) -> None:
    assert Journal(tmp_path / "new").open().match is None
    assert (tmp_path / "new").is_dir()


FULL_DISK = r"""
import json, resource, signal, sys
from pathlib import Path
from cueboard.engine import Match
from cueboard.table.journal import CHUNK, Journal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
journal = Journal(Path(sys.argv[1]))
match = Match.from_json(json.loads(sys.argv[2]))
journal.start(match.setup.to_json())
first = journal.path.stat().st_size  # the match line and the zeros ahead of the events
limit = CHUNK + 40  # the file cannot grow much past its first chunk
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
results = []
while len(results) < 10_000 and "failed" not in "".join(results[-1:]):
    try:
        journal.append({"type": "no_pot"})
        results.append("saved")
    except OSError as exc:
        results.append(f"failed: {exc.strerror}")
for obj in [{"type": "pot", "balls": ["red"]}, {"type": "foul", "points": 4}]:  # longer lines: no room either
    try:
        journal.append(obj)
        results.append("saved")
    except OSError as exc:
        results.append(f"failed: {exc.strerror}")
print(json.dumps({"results": results, "size": journal.path.stat().st_size, "limit": limit, "first": first,
                  "line": len(json.dumps(match.setup.to_json(), ensure_ascii=False, separators=(",", ":"))) + 1}))
"""


@pytest.mark.system
def test_a_full_disk_refuses_the_write_and_leaves_whole_lines(tmp_path: Path, finding: Callable[..., None]) -> None:
    """A real write failure from the operating system (a file-size limit), not a mock: the
    events fill the space preallocated for them; more zeros cannot be had, so lines are
    appended to the file's end until one does not fit; that one and every later one are
    refused, and the file holds whole lines only."""
    result = subprocess.run([sys.executable, "-c", FULL_DISK, str(tmp_path), json.dumps(LINE)],
                            capture_output=True, text=True, check=True)
    out = json.loads(result.stdout)
    # What is on disk is whole lines only: it replays, with just the events that were saved.
    recovered = Journal(tmp_path).open()
    seq = recovered.match.seq if recovered.match is not None else None
    saved = out["results"].count("saved")
    errors = sorted({r.removeprefix("failed: ") for r in out["results"] if r != "saved"})
    room = (out["limit"] - out["line"]) // len(b'{"type":"no_pot"}\n')  # no_pot lines that fit under the limit
    finding(f"journal file limited to {out['limit']} bytes (RLIMIT_FSIZE) once {out['first']} were preallocated: "
            f"{saved} of {len(out['results'])} appends saved ({room} fit), {len(out['results']) - saved} refused "
            f"({', '.join(errors) or 'no error'}); the file is {out['size']} bytes of whole lines and replays to "
            f"event {seq} with {len(recovered.warnings)} warnings", limit_bytes=out["limit"],
            preallocated_bytes=out["first"], appends=len(out["results"]), saved=saved, fit=room,
            refused=len(out["results"]) - saved, errors=errors, file_bytes=out["size"], recovered_seq=seq,
            warnings=len(recovered.warnings))
    assert out["first"] == CHUNK
    assert out["results"] == ["saved"] * room + ["failed: File too large"] * 3
    assert out["size"] == out["line"] + 18 * room <= out["limit"]
    assert recovered.warnings == []
    assert seq == room


def test_a_new_match_that_cannot_be_saved_leaves_the_current_one_going(tmp_path: Path) -> None:
    """start() on a disk that refuses the new file: the current match's file stays open."""
    journal = Journal(tmp_path)
    play(journal, scripted_events(3))
    tmp_path.chmod(0o500)  # the directory refuses a new file
    try:
        if os.access(tmp_path, os.W_OK):  # root ignores the mode: make the new file's name a directory
            tmp_path.chmod(0o700)
            (tmp_path / "match-000002.tmp").mkdir()
        with pytest.raises(OSError):
            journal.start(LINE)
    finally:
        tmp_path.chmod(0o700)
    journal.append(scripted_events(4)[3])
    recovered = Journal(tmp_path).open()
    assert recovered.match is not None and recovered.match.seq == 4
    assert [p.name for p in Journal(tmp_path).matches()] == ["match-000001.jsonl"]
