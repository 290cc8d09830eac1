"""A plain install runs with no checkout: the page, the keymaps and the examples the program
needs ship inside the package (``cueboard/common/resources.py``).

From this checkout, ``python3 -m venv V && V/bin/pip install .``, then from another folder
with nothing of the checkout on the path: ``cueboard screen --help``, ``cueboard screen``
serving ``index.html``, and ``cueboard demo --autoplay`` playing a frame (its own mosquitto).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.helpers.mosquitto import mosquitto_binary

pytestmark = pytest.mark.system

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a new virtual environment with ``pip install .`` of the checkout."""
    venv = tmp_path_factory.mktemp("plain-install") / "v"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", str(ROOT)],
                   check=True, timeout=900)
    return venv / "bin"


def run(installed: Path, *args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(installed / "cueboard"), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False, stdin=subprocess.DEVNULL)


def test_the_package_is_the_installed_one_not_the_checkout(installed: Path, tmp_path: Path) -> None:
    where = subprocess.run([str(installed / "python"), "-c", "import cueboard, cueboard.web; "
                            "print(cueboard.__file__); print(list(cueboard.web.__path__)[0])"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout.split()
    for path in where:
        assert not Path(path).resolve().is_relative_to(ROOT), where


def test_screen_help_and_the_page_served(installed: Path, tmp_path: Path) -> None:
    assert run(installed, "screen", "--help", cwd=tmp_path).returncode == 0
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    server = subprocess.Popen([str(installed / "cueboard"), "screen", "--host", "127.0.0.1", "--port", "0"],
                              cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line
        with urllib.request.urlopen(f"http://127.0.0.1:{found.group(1)}/index.html", timeout=30) as answer:
            page = answer.read().decode()
        assert answer.status == 200 and "<script" in page and "screen.js" in page
    finally:
        server.terminate()
        server.wait(30)


@pytest.mark.skipif(mosquitto_binary() is None and not os.environ.get("CUEBOARD_REQUIRE_MOSQUITTO"),
                    reason="the demo's broker is Debian's mosquitto (not installed)")
def test_demo_autoplay_plays_a_frame(installed: Path, tmp_path: Path) -> None:
    result = run(installed, "demo", "--autoplay", "--events", "400", "--journal", str(tmp_path / "demo"),
                 cwd=tmp_path)  # the demo keeps its journal: here, not in the temporary directory
    assert result.returncode == 0, result.stderr
    found = re.search(r"demo: (\d+) events applied, (\d+) refused; frame (\d+), frames won \[(\d+), (\d+)\]",
                      result.stderr)
    assert found, result.stderr
    applied, refused, frame, won = int(found[1]), int(found[2]), int(found[3]), int(found[4]) + int(found[5])
    assert applied >= 100 and refused == 0
    assert won >= 1 and frame >= 2, result.stderr  # at least one frame played to its end
