"""A table's join bundle (``cueboard venue add-table``, ``venue init``) and ``cueboard join`` (issue 38):
one private file holds what the Pi needs; join writes it with the right modes, refuses a bad
bundle or another venue's naming the file and with a machine code, and then changes nothing."""

from __future__ import annotations

import grp
import json
import os
import stat
from pathlib import Path

import pytest

from cueboard.cli import main
from cueboard.common.errors import ConfigFileError
from cueboard.common.resources import examples_dir
from cueboard.table.config import parse_config
from tests.helpers.feed import HealthLog
from tests.helpers.mosquitto import TIMEOUT
from tests.helpers.venue import Venue as Club
from tests.helpers.venue import venue_cli

GROUP = grp.getgrgid(os.getgid()).gr_name  # the service's group stands in as the tester's own


def venue(tmp_path: Path, *argv: str) -> Path:
    """A venue with tables t1 and t2 (``venue init``), and its joins folder."""
    d = tmp_path / "venue"
    print(venue_cli("init", "--venue", "club", "--tables", "2", "--host", "hall.lan", "--dir", str(d), *argv))
    return d / "joins"


def join(bundle: Path, root: Path, *argv: str) -> int:
    return main(["join", str(bundle), "--root", str(root), "--group", GROUP, "--no-restart", *argv])


def files(root: Path) -> dict[str, tuple[int, bytes]]:
    return {str(p.relative_to(root)): (stat.S_IMODE(p.stat().st_mode), p.read_bytes() if p.is_file() else b"")
            for p in sorted(root.rglob("*"))}


@pytest.mark.system  # venue init makes its CA with openssl
def test_init_and_add_table_write_a_private_bundle_per_table_and_say_the_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    joins = venue(tmp_path)
    init_out = capsys.readouterr().out
    assert sorted(p.name for p in joins.iterdir()) == ["cueboard-join-club-t1.json", "cueboard-join-club-t2.json"]
    assert "sudo cueboard join cueboard-join-club-<table>.json" in init_out
    out = venue_cli("add-table", "t3", "--game", "blackball", "--dir", str(joins.parent), "--no-reload")
    path = joins / "cueboard-join-club-t3.json"
    assert f"its join bundle in {path}" in out and "sudo cueboard join cueboard-join-club-t3.json" in out
    assert "install.sh --join cueboard-join-club-t3.json" in out
    assert 'username = "t3"' in out  # the [mqtt] block still, for a Pi set up by hand
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(joins.stat().st_mode) == 0o700
    bundle = json.loads(path.read_text())
    assert bundle["password"] == (joins.parent / "logins" / "t3.password").read_text().strip()
    assert bundle["ca"] == (joins.parent / "ca" / "venue-ca.crt").read_text()
    # The table's own configuration, every path absolute: joined under a folder, it is what the
    # daemon reads there (its /etc/cueboard/ moved with it), as the daemon reads it.
    text = bundle["config"]
    assert "keymaps/" not in text.replace("/etc/cueboard/keymaps/", "")
    root = tmp_path / "pi"
    assert join(path, root) == 0
    import tomllib

    raw = tomllib.loads(text.replace("/etc/cueboard/", f"{root}/etc/cueboard/"))
    config = parse_config(raw, root / "etc/cueboard/cueboard.toml")
    assert (config.venue, config.table, config.start, config.match["game"]) == ("club", "t3", "idle", "blackball")
    assert config.mqtt is not None and (config.mqtt.host, config.mqtt.port) == ("hall.lan", 8883)
    # Each desk login on a link of its own at the table (docs/mqtt.md "A link per desk login").
    assert "venue" in config.mqtt.desks
    assert config.keypad_keymap == root / "etc/cueboard/keymaps/keypad-4x5-blackball.toml"


@pytest.mark.system  # venue init makes its CA with openssl
def test_join_writes_the_table_with_its_modes_and_again_is_the_same(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    joins = venue(tmp_path)
    root = tmp_path / "pi"
    etc = root / "etc/cueboard"
    etc.mkdir(parents=True)
    (etc / "cueboard.toml").write_text((examples_dir() / "snooker-table.toml").read_text())  # the installer's
    capsys.readouterr()
    assert join(joins / "cueboard-join-club-t1.json", root) == 0
    assert "this Pi is table t1 of venue club" in capsys.readouterr().out
    bundle = json.loads((joins / "cueboard-join-club-t1.json").read_text())
    assert (etc / "cueboard.toml").read_text() == bundle["config"]
    assert (etc / "mqtt-password").read_text() == bundle["password"] + "\n"
    assert (etc / "cueboard.toml.before-join").read_text() == (examples_dir() / "snooker-table.toml").read_text()
    for name, mode in (("cueboard.toml", 0o640), ("mqtt-password", 0o640), ("venue-ca.crt", 0o644),
                       ("keymaps/referee-box-12.toml", 0o640), ("keymaps/keypad-4x5.toml", 0o640)):
        st = (etc / name).stat()
        assert stat.S_IMODE(st.st_mode) == mode, name
        assert st.st_gid == os.getgid() or name == "venue-ca.crt", name
    # A keymap edited on the Pi stays; joining again (the same table) changes nothing else.
    (etc / "keymaps/keypad-4x5.toml").write_text((etc / "keymaps/keypad-4x5.toml").read_text() + "# ours\n")
    before = files(root)
    assert join(joins / "cueboard-join-club-t1.json", root) == 0
    assert files(root) == before


@pytest.mark.parametrize(("content", "why"), [
    ("not json {", "not JSON"),
    ("[1, 2]", "not a JSON object"),
    ('{"cueboard_join": 1, "venue": "club"}', "no table, config, ca, password"),
    ('{"cueboard_join": 2, "venue": "c", "table": "t", "config": "", "ca": "", "password": ""}',
     "cueboard_join is 2; this cueboard reads version 1"),
])
def test_a_bad_bundle_is_refused_naming_the_file_and_changes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, why: str) -> None:
    bad = tmp_path / "cueboard-join-club-t1.json"
    bad.write_text(content)
    root = tmp_path / "pi"
    root.mkdir()
    assert join(bad, root) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cueboard join: refused (bad_bundle): {bad}: not a cueboard join bundle: ") and why in err
    assert list(root.iterdir()) == []


@pytest.mark.system  # venue init makes its CA with openssl
def test_a_bundle_whose_parts_disagree_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    joins = venue(tmp_path)
    bundle = json.loads((joins / "cueboard-join-club-t1.json").read_text())
    root = tmp_path / "pi"
    root.mkdir()
    for key, value, why in (("table", "t2", "config's [table] is not venue 'club', name 't2'"),
                            ("ca", "hello", "ca is not a PEM certificate"),
                            ("config", "[table\n", "config is not TOML"),
                            ("password", "a\nb", "password must be one line")):
        path = tmp_path / "edited.json"
        path.write_text(json.dumps({**bundle, key: value}))
        capsys.readouterr()
        assert join(path, root) == 2, key
        assert why in capsys.readouterr().err, key
        assert list(root.iterdir()) == []
    assert join(tmp_path / "missing.json", root) == 2
    assert f"{tmp_path / 'missing.json'}: cannot read the bundle" in capsys.readouterr().err


@pytest.mark.system  # venue init makes its CA with openssl
def test_another_venues_table_is_refused_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ours = venue(tmp_path)
    theirs = tmp_path / "theirs"
    venue_cli("init", "--venue", "other", "--tables", "1", "--dir", str(theirs))
    root = tmp_path / "pi"
    assert join(ours / "cueboard-join-club-t1.json", root) == 0
    before = files(root)
    capsys.readouterr()
    other = theirs / "joins" / "cueboard-join-other-t1.json"
    assert join(other, root) == 2
    err = capsys.readouterr().err
    assert err.startswith("cueboard join: refused (joined_elsewhere): ")
    assert "is table t1 of venue club already" in err and f"{other} is table t1 of venue other" in err
    assert "--force" in err and files(root) == before
    assert join(ours / "cueboard-join-club-t2.json", root) == 2  # another table of the same venue: the same
    assert join(other, root, "--force") == 0
    assert 'venue = "other"' in (root / "etc/cueboard/cueboard.toml").read_text()


@pytest.mark.system  # venue init makes its CA with openssl
def test_join_without_the_service_group_says_to_install_first(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    joins = venue(tmp_path)
    root = tmp_path / "pi"
    root.mkdir()
    assert main(["join", str(joins / "cueboard-join-club-t1.json"), "--root", str(root), "--group",
                 "no-such-group-cb", "--no-restart"]) == 2
    err = capsys.readouterr().err
    assert "refused (no_group)" in err and "install.sh --join" in err and list(root.iterdir()) == []


@pytest.mark.system  # venue init makes its CA with openssl
def test_join_restarts_the_service_and_says_when_it_cannot(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    joins = venue(tmp_path)
    bundle = str(joins / "cueboard-join-club-t1.json")
    root = str(tmp_path / "pi")
    assert main(["join", bundle, "--root", root, "--group", GROUP, "--restart", "true"]) == 0
    assert "restarted (true)" in capsys.readouterr().out
    assert main(["join", bundle, "--root", root, "--group", GROUP, "--restart", "false"]) == 1
    assert "the files are written, but 'false' failed (status 1)" in capsys.readouterr().err


def test_table_start_is_match_or_idle(tmp_path: Path) -> None:
    path = tmp_path / "cueboard.toml"
    assert parse_config({"table": {"name": "t1"}}, path).start == "match"  # a table on its own, the demo
    assert parse_config({"table": {"name": "t1", "start": "idle"}}, path).start == "idle"
    with pytest.raises(ConfigFileError, match=r"table\.start.*'waiting' is not one of match, idle"):
        parse_config({"table": {"name": "t1", "start": "waiting"}}, path)


@pytest.mark.system  # venue init makes its CA with openssl
def test_revoking_a_table_deletes_its_bundle(tmp_path: Path) -> None:
    joins = venue(tmp_path)
    venue_cli("revoke", "t2", "--dir", str(joins.parent), "--no-reload")
    assert sorted(p.name for p in joins.iterdir()) == ["cueboard-join-club-t1.json"]


@pytest.mark.system
def test_a_joined_table_logs_in_at_its_venues_broker(club: Club, tmp_path: Path) -> None:
    """The bundle as the Pi uses it: the configuration ``cueboard join`` wrote (under a folder:
    its /etc/cueboard/ moved with it), read as the daemon reads it, logs in at the venue's real
    broker over TLS with the table's login and takes the desk's commands."""
    import tomllib

    from cueboard.table.mqtt.feed import Feed

    root = tmp_path / "pi"
    assert join(club.directory / "joins" / "cueboard-join-club-t1.json", root) == 0
    text = (root / "etc/cueboard/cueboard.toml").read_text().replace("/etc/cueboard/", f"{root}/etc/cueboard/")
    config = parse_config(tomllib.loads(text), root / "etc/cueboard/cueboard.toml")
    assert config.mqtt is not None and config.start == "idle"
    health = HealthLog()
    feed = Feed(config.mqtt, table=config.table, on_health=health, on_command=lambda payload, retained, user: None)
    feed.start()
    try:
        health.wait_for("ok")
        assert feed.flush(TIMEOUT)
    finally:
        feed.stop()
    assert "failed" not in " ".join(health.history)
