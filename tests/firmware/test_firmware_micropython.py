"""The shared codec, the doc's vectors and session, and the debounce logic, run by real
MicroPython: the WebAssembly port from npm (``@micropython/micropython-webassembly-pyscript``)
under node. Required (issue 17): without node and that package, in ./node_modules or where
``CUEBOARD_MICROPYTHON_WASM`` (the path of its micropython.mjs) says, the test fails,
saying how to get them; scripts/test installs both.

    npm install --no-save @micropython/micropython-webassembly-pyscript
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.helpers.keypad import FIRMWARE, ROOT, session_lines, vectors

pytestmark = pytest.mark.system

PACKAGE = "node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs"

RUNNER = """
import { loadMicroPython } from %(module)s;
import fs from "fs";
let out = "";
const say = (s) => { out += s + "\\n"; };
const mp = await loadMicroPython({stdout: say, stderr: say});
for (const name of ["keyproto.py", "matrix.py"]) {
    mp.FS.writeFile("/" + name, fs.readFileSync(%(firmware)s + "/" + name));
}
try {
    mp.runPython(fs.readFileSync(process.argv[2], "utf8"));
} catch (e) {
    out += "ERROR " + e.message + "\\n";
}
process.stdout.write(out);
"""

CHECKS = """
import sys
sys.path.append("/")
import keyproto as kp
import matrix
assert sys.implementation.name == "micropython"
assert kp.crc32(b"123456789") == 0xCBF43926 == kp.crc32_table(b"123456789")
for fields, line in FRAMES:
    assert kp.encode_frame(*fields) == line, line
    frames = kp.FrameDecoder().feed(line)
    assert len(frames) == 1 and frames[0].fields() == fields, line
for line in REJECTS:
    assert kp.FrameDecoder().feed(line) == [], line
keypad = kp.Link(False, 0x12345678, 0, beat_payload=kp.keypad_beat(5, 4, 1))
host = kp.Link(True, 0x0BADCAFE, 0)
ends = {"keypad": (keypad, host), "host": (host, keypad)}
actions = {(400, "keypad"): kp.key_message(7), (410, "host"): kp.feedback_message(True),
           (500, "keypad"): kp.key_message(3)}
written = []
for t, sender in STEPS:
    me, peer = ends[sender]
    if (t, sender) in actions:
        me.send(actions[(t, sender)])
    for frame in me.poll(t):
        written.append((t, sender, frame))
        if (t, sender) != (500, "keypad"):
            peer.feed(frame, t)
assert written == SESSION, written
keys = matrix.Keys(4, 5, 20, 800, 0)
events = []
for t in range(0, 1000):
    events += keys.update([t % 7 < 4, t >= 100, False, False], t)
assert events == [(1, False), (1, True)], events
print("MICROPYTHON OK", sys.implementation.version)
"""


def find_package() -> Path | None:
    given = os.environ.get("CUEBOARD_MICROPYTHON_WASM")
    candidates = [Path(given)] if given else [ROOT / PACKAGE]
    return next((p for p in candidates if p.is_file()), None)


def test_the_codec_runs_on_micropython(tmp_path: Path) -> None:
    node = shutil.which("node")
    package = find_package()
    if node is None or package is None:
        pytest.fail("needs node (Debian's nodejs) and @micropython/micropython-webassembly-pyscript: "
                    "npm install --no-save @micropython/micropython-webassembly-pyscript (scripts/test does it)")
    frames, rejects = vectors()
    documented = session_lines()
    steps = list(dict.fromkeys((t, sender) for t, sender, _ in documented))
    script = (f"FRAMES = {[(v.fields, v.line) for v in frames]!r}\n"
              f"REJECTS = {[v.line for v in rejects]!r}\n"
              f"STEPS = {steps!r}\nSESSION = {documented!r}\n" + CHECKS)
    (tmp_path / "checks.py").write_text(script)
    runner = tmp_path / "run.mjs"
    runner.write_text(RUNNER % {"module": repr(package.as_uri()), "firmware": repr(str(FIRMWARE))})
    result = subprocess.run([node, str(runner), str(tmp_path / "checks.py")], capture_output=True, text=True,
                            timeout=120, check=False)
    assert "MICROPYTHON OK" in result.stdout, result.stdout + result.stderr
