"""Files with a secret in them are refused at start-up when other users can read them (issue
16, finding 5; docs/security.md): the MQTT password file, the TLS client key, and a
configuration file that holds ``mqtt.password``; a configuration any user can change is
refused too. ``cueboard run`` exits with status 2, naming the file and the command that
fixes it."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from cueboard.common.private_files import exposure
from cueboard.table.config import ConfigFileError, load_config
from cueboard.table.mqtt.feed import MqttConfigError, parse_mqtt

NOBODY = 65534  # a user that is neither root nor the one running the tests
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="changing a file's owner needs root (CI runs as root)")


def secret(path: Path, mode: int, text: str = "s3cret\n") -> Path:
    path.write_text(text)
    path.chmod(mode)
    return path


def parse(section: dict[str, Any]) -> Any:
    return parse_mqtt(section, venue="club", table="t1")


# -- the password file ----------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o644, 0o604, 0o660, 0o620])
def test_a_password_file_others_can_read_or_write_is_refused(tmp_path: Path, mode: int) -> None:
    name = secret(tmp_path / "mqtt-password", mode)
    with pytest.raises(MqttConfigError) as info:
        parse({"username": "t1", "password_file": str(name)})
    message = str(info.value)
    assert message.startswith(f"mqtt.password_file: {name} holds a secret that other users can read: "), message
    assert f"mode {mode:04o}" in message
    assert message.endswith(f"chmod {'600' if os.geteuid() != 0 else '640'} {name}"), message


@pytest.mark.parametrize("mode", [0o600, 0o400, 0o640, 0o440])
def test_a_password_file_for_the_daemon_alone_is_read(tmp_path: Path, mode: int) -> None:
    """0640 root:cueboard is how a root-installed file is shared with the daemon's group."""
    if os.geteuid() != 0 and mode & 0o070:
        pytest.skip("group access is accepted on root's files only")
    name = secret(tmp_path / "mqtt-password", mode)
    assert parse({"username": "t1", "password_file": str(name)}).password == "s3cret"


@as_root
def test_a_password_file_of_another_user_is_refused(tmp_path: Path) -> None:
    name = secret(tmp_path / "mqtt-password", 0o600)
    os.chown(name, NOBODY, -1)
    with pytest.raises(MqttConfigError, match=r"^mqtt\.password_file: .* it belongs to nobody, who can read and "
                                              r"change it; it must belong to root: chown root "):
        parse({"username": "t1", "password_file": str(name)})


@as_root
def test_the_daemons_own_file_must_be_0600(tmp_path: Path) -> None:
    """For a file the daemon's user owns (not root), no group access either, as ssh says."""
    name = secret(tmp_path / "mqtt-password", 0o640)
    os.chown(name, NOBODY, -1)
    assert exposure(name, user=NOBODY) == f"mode 0640 gives its group access; it must be 0600 or less: chmod 600 {name}"
    name.chmod(0o600)
    assert exposure(name, user=NOBODY) is None


def _acl(path: Path, *named_users: int) -> bool:
    """Give ``path`` a POSIX access ACL letting ``named_users`` read it (as setfacl -m u:N:r)."""
    entries = [(0x01, 0o6, 0xFFFFFFFF)] + [(0x02, 0o4, uid) for uid in named_users] + [
        (0x04, 0o0, 0xFFFFFFFF), (0x10, 0o4, 0xFFFFFFFF), (0x20, 0o0, 0xFFFFFFFF)]
    data = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *entry) for entry in entries)
    try:
        os.setxattr(path, "system.posix_acl_access", data)
    except OSError:
        return False
    return True


def test_an_acl_that_lets_another_user_read_is_refused(tmp_path: Path) -> None:
    name = secret(tmp_path / "mqtt-password", 0o600)
    if not _acl(name, NOBODY):
        pytest.skip("this file system has no POSIX ACLs")
    assert oct(name.stat().st_mode & 0o777) == "0o640"  # the mask shows as the group's bits
    with pytest.raises(MqttConfigError, match=r"its access ACL lets nobody read it: setfacl -b "):
        parse({"username": "t1", "password_file": str(name)})


def test_a_systemd_credential_is_read(tmp_path: Path) -> None:
    """systemd's credentials (LoadCredential=): mode 0400 plus an ACL entry for the service's user."""
    name = secret(tmp_path / "mqtt", 0o400)
    if not _acl(name, os.geteuid()):
        pytest.skip("this file system has no POSIX ACLs")
    assert parse({"username": "t1", "password_file": str(name)}).password == "s3cret"


# -- the TLS client key ---------------------------------------------------------------------


def test_a_client_key_others_can_read_is_refused(tmp_path: Path, tls_files: Any) -> None:
    key = tmp_path / "table.key"
    key.write_bytes(tls_files.client_key.read_bytes())
    key.chmod(0o644)
    tls = {"ca": str(tls_files.ca), "cert": str(tls_files.client_cert), "key": str(key)}
    with pytest.raises(MqttConfigError, match=rf"^mqtt\.tls\.key: {key} holds a secret that other users can read"):
        parse({"tls": tls})
    key.chmod(0o600)
    assert parse({"tls": tls}).tls is not None


def test_a_key_inside_the_certificate_file_is_checked(tmp_path: Path, tls_files: Any) -> None:
    both = tmp_path / "table.pem"
    both.write_bytes(tls_files.client_cert.read_bytes() + tls_files.client_key.read_bytes())
    both.chmod(0o644)
    with pytest.raises(MqttConfigError, match=r"^mqtt\.tls\.cert: .* holds a secret that other users can read"):
        parse({"tls": {"ca": str(tls_files.ca), "cert": str(both)}})


# -- the configuration file -----------------------------------------------------------------


def table_config(tmp_path: Path, mode: int, mqtt: str = "") -> Path:
    path = tmp_path / "cueboard.toml"
    path.write_text(f"""
[table]
name = "t1"
[journal]
dir = "{tmp_path}/journal"
[control]
socket = "{tmp_path}/control.sock"
{mqtt}""")
    path.chmod(mode)
    return path


WITH_PASSWORD = '[mqtt]\nhost = "127.0.0.1"\nusername = "t1"\npassword = "s3cret"\n'


def test_a_config_with_the_password_that_others_can_read_is_refused(tmp_path: Path) -> None:
    path = table_config(tmp_path, 0o644, WITH_PASSWORD)
    with pytest.raises(ConfigFileError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}: mqtt.password: the file holds the password and other users can read it: "
                              "mode 0644"), message
    assert "chmod" in message and "mqtt.password_file" in message


def test_a_config_with_the_password_for_the_daemon_alone_is_read(tmp_path: Path) -> None:
    """0640 root:cueboard, as systemd/install.sh installs /etc/cueboard/cueboard.toml."""
    assert load_config(table_config(tmp_path, 0o600, WITH_PASSWORD)).mqtt.password == "s3cret"
    if os.geteuid() == 0:
        assert load_config(table_config(tmp_path, 0o640, WITH_PASSWORD)).mqtt.password == "s3cret"


def test_a_config_without_a_secret_may_be_read_by_anyone(tmp_path: Path) -> None:
    """Nothing secret in it (a checkout's example): readable by all is fine."""
    assert load_config(table_config(tmp_path, 0o644, '[mqtt]\nhost = "127.0.0.1"\n')).table == "t1"


def test_a_config_anyone_can_change_is_refused(tmp_path: Path) -> None:
    path = table_config(tmp_path, 0o666)
    with pytest.raises(ConfigFileError, match=rf"^{path}: every user can change it \(mode 0666\): chmod o-w {path}$"):
        load_config(path)


@pytest.mark.system
def test_the_daemon_exits_2_naming_the_file(tmp_path: Path) -> None:
    path = table_config(tmp_path, 0o644, WITH_PASSWORD)
    run = subprocess.run([sys.executable, "-m", "cueboard.cli", "run", "--config", str(path)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith(f"cueboard: {path}: mqtt.password: the file holds the password"), run.stderr
    password_file = secret(tmp_path / "mqtt-password", 0o644)
    path = table_config(tmp_path, 0o644, f'[mqtt]\nusername = "t1"\npassword_file = "{password_file}"\n')
    run = subprocess.run([sys.executable, "-m", "cueboard.cli", "run", "--config", str(path)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith(f"cueboard: {path}: mqtt.password_file: {password_file} holds a secret"), run.stderr
