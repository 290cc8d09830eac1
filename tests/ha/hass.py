"""A real Home Assistant for the tests: Python 3.13 from a Debian Trixie root, as Raspberry Pi OS
Trixie has it.

Home Assistant 2026.3 and later need Python 3.14.2 (PyPI's ``Requires-Python``); 2026.2.3 is
the last release for 3.13 (>= 3.13.2; Trixie has 3.13.5), so that is the one run here.
The root is tests/install/debian_root.py's development root (the one the install test and the
3.13 run use: built once, kept in ``.cache/install-test/``), extracted for the run and removed
after it. Home Assistant's venv lives in ``~/.cache/cueboard-ha/`` and pip's wheel cache is
this machine's ``~/.cache/pip``, so a fresh clone in CI installs nothing again: the first
install takes minutes, a later one is a check of a marker file.

Home Assistant shares this machine's network (the root has a mount namespace of its own, not a
network one): it listens on a loopback port and reaches the test's mosquitto on loopback.

Needs root (chroot, mount namespace) and mmdebstrap; :func:`unavailable` says why not, and the
test skips on that reason unless ``CI=true`` makes it a failure.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.install import debian_root

HA_VERSION = "2026.2.3"
# What its MQTT integration and its frontend pin (homeassistant/components/*/manifest.json),
# installed with it, so Home Assistant installs nothing when it starts (it runs with --skip-pip);
# the frontend's services list imports the base platforms (helpers/service.py), which import
# conversation, camera and stream: their pins too, or the page never leaves "Loading data".
REQUIREMENTS = (f"homeassistant=={HA_VERSION}", "paho-mqtt==2.1.0", "home-assistant-frontend==20260128.6",
                "hassil==3.5.0", "home-assistant-intents==2026.1.28", "PyTurboJPEG==1.8.0", "av==16.0.1",
                "numpy==2.3.2", "mutagen==1.47.0", "pymicro-vad==1.0.1", "pyspeex-noise==1.0.2",
                "ha-ffmpeg==3.2.2")
# The development root and what Home Assistant needs besides: g++ for pymicro-vad
# (assist_pipeline's, on that import path; no wheel for 3.13), libturbojpeg for camera's import.
# A root of its own, built once and kept as the others are (debian_root.root_tarball).
PACKAGES = (*debian_root.DEV_PACKAGES, "g++", "libturbojpeg0")
CACHE = Path.home() / ".cache" / "cueboard-ha"
VENV_INSIDE = "/opt/cueboard-ha"
CONFIG_INSIDE = "/config"
USER, PASSWORD = "club", "snooker-147"
TIMEOUT = 600.0
"""Bounds a broken Home Assistant only: every wait ends on its answer (a first start on a busy
2-core machine takes a minute)."""


class HassError(RuntimeError):
    """Home Assistant could not be installed, started or asked (the message says which)."""


def unavailable() -> str | None:
    """Why a real Home Assistant cannot run here, or None."""
    if os.geteuid() != 0:
        return "a real Home Assistant runs in a Debian Trixie root: needs root (chroot, mount namespace)"
    if shutil.which("mmdebstrap") is None:
        return "mmdebstrap is missing (apt-get install mmdebstrap; scripts/lib.sh installs it)"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _venv() -> Path:
    return CACHE / f"venv-{HA_VERSION}"


def _binds(config: Path) -> tuple[tuple[Path, str], ...]:
    pip_cache = Path.home() / ".cache" / "pip"
    pip_cache.mkdir(parents=True, exist_ok=True)
    return ((_venv(), VENV_INSIDE), (pip_cache, "/root/.cache/pip"), (config, CONFIG_INSIDE))


INSTALL = f"""set -e
python3 -c 'import sys; assert sys.version_info >= (3, 13, 2), sys.version'
marker={VENV_INSIDE}/.installed-{hashlib.sha256(" ".join(REQUIREMENTS).encode()).hexdigest()[:16]}
[ -f $marker ] && exit 0
[ -x {VENV_INSIDE}/bin/python ] || python3 -m venv {VENV_INSIDE}
{VENV_INSIDE}/bin/python -m pip install --quiet --disable-pip-version-check {" ".join(REQUIREMENTS)}
touch $marker
"""


def _configuration(port: int) -> str:
    # No default_config: only what the test reads (the API, the WebSocket API, the config
    # entries, the frontend and its dashboards); the rest would want packages and time.
    return f"""homeassistant:
  name: Club
  latitude: 53.38
  longitude: -1.47
  elevation: 0
  unit_system: metric
  time_zone: UTC
  country: GB
  currency: GBP
  language: en
http:
  server_host: 127.0.0.1
  server_port: {port}
api:
config:
frontend:
logger:
  default: warning
"""


@dataclass
class Hass:
    """A running Home Assistant: its base URL and an access token of its owner."""

    base: str
    token: str
    log: Path

    def request(self, method: str, path: str, body: Any = None, *, auth: bool = True,
                form: dict[str, str] | None = None) -> Any:
        """One REST call; its JSON answer (None for an empty one). HassError on an error status."""
        headers = {"Authorization": f"Bearer {self.token}"} if auth else {}
        data = None
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=60) as reply:
                text = reply.read()
        except urllib.error.HTTPError as error:
            raise HassError(f"{method} {path}: {error.code} {error.read()[:500]!r}") from error
        return json.loads(text) if text else None

    def states(self) -> dict[str, dict[str, Any]]:
        """``/api/states``, by entity id."""
        return {s["entity_id"]: s for s in self.request("GET", "/api/states")}

    @property
    def ws_url(self) -> str:
        return self.base.replace("http://", "ws://") + "/api/websocket"


def _wait_http(base: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Until Home Assistant answers on its port (its onboarding API needs no login)."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise HassError(f"Home Assistant exited with {proc.returncode}:\n{log.read_text()[-4000:]}")
        try:
            poll = base + "/api/onboarding"
            with urllib.request.urlopen(poll, timeout=10) as reply:  # not a wall-clock limit: one poll
                if reply.status == 200:
                    return
        except (OSError, urllib.error.URLError):
            time.sleep(0.2)  # still starting: its port is not open yet
    raise HassError(f"Home Assistant did not answer within {TIMEOUT:g} s:\n{log.read_text()[-4000:]}")


def _onboard(hass: Hass) -> None:
    """Onboarding through its REST API, as its frontend does: the owner (a login the browser
    uses too), a token for the tests, then the remaining steps so the frontend shows dashboards."""
    client_id = hass.base + "/"
    code = hass.request("POST", "/api/onboarding/users", {
        "client_id": client_id, "name": "Club", "username": USER, "password": PASSWORD, "language": "en"},
        auth=False)["auth_code"]
    tokens = hass.request("POST", "/auth/token", auth=False,
                          form={"grant_type": "authorization_code", "code": code, "client_id": client_id})
    hass.token = tokens["access_token"]
    hass.request("POST", "/api/onboarding/core_config", {})
    hass.request("POST", "/api/onboarding/analytics", {})
    hass.request("POST", "/api/onboarding/integration", {"client_id": client_id, "redirect_uri": client_id})


def add_mqtt(hass: Hass, port: int) -> dict[str, Any]:
    """The MQTT integration, through its config flow over REST (as its settings page does):
    the broker on loopback at ``port``. Returns the flow's last answer (``create_entry``)."""
    flow = hass.request("POST", "/api/config/config_entries/flow", {"handler": "mqtt", "show_advanced_options": False})
    if flow.get("step_id") != "broker":
        raise HassError(f"MQTT's config flow did not ask for the broker: {flow}")
    done: dict[str, Any] = hass.request("POST", f"/api/config/config_entries/flow/{flow['flow_id']}",
                                        {"broker": "127.0.0.1", "port": port})
    if done.get("type") != "create_entry":
        raise HassError(f"MQTT's config flow did not make an entry: {done}")
    return done


@contextmanager
def home_assistant(workdir: Path) -> Iterator[Hass]:
    """Home Assistant running (installed first if needed), onboarded; stopped at the end."""
    why = unavailable()
    if why is not None:
        raise HassError(why)
    try:
        tarball = debian_root.root_tarball("trixie", PACKAGES)
    except debian_root.RootError as error:
        raise HassError(str(error)) from error
    _venv().mkdir(parents=True, exist_ok=True)
    config = workdir / "ha-config"
    config.mkdir()
    port = _free_port()
    (config / "configuration.yaml").write_text(_configuration(port))
    root = workdir / "root"
    root.mkdir()
    log = workdir / "home-assistant.log"
    proc: subprocess.Popen[bytes] | None = None
    try:
        with tarfile.open(tarball) as tar:
            tar.extractall(root, filter="fully_trusted")
        debian_root.trust_this_machine(root)
        installed = debian_root.chroot(root, INSTALL, binds=_binds(config), timeout=3600)
        if installed.returncode != 0:
            raise HassError(f"installing Home Assistant failed:\n{installed.stdout}\n{installed.stderr}")
        command = f"exec {VENV_INSIDE}/bin/hass --config {CONFIG_INSIDE} --skip-pip --log-no-color"
        with log.open("wb") as out:
            proc = subprocess.Popen(debian_root.chroot_argv(root, command, binds=_binds(config)),
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        hass = Hass(base=f"http://127.0.0.1:{port}", token="", log=log)
        _wait_http(hass.base, proc, log)
        _onboard(hass)
        yield hass
    finally:
        if proc is not None:
            _stop(proc)
        shutil.rmtree(root, ignore_errors=True)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    # Its own session (start_new_session): the group is unshare, chroot's shell and hass.
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
