"""``cueboard hwtest`` drives the table light's relay (issue 43) on gpiozero's mock pins: a
step of its own switches it on and off again, the wall switch is echoed, and the check leaves
the lamp off."""

from __future__ import annotations

from pathlib import Path

from gpiozero.pins.mock import MockFactory  # type: ignore[import-untyped]  # no type hints

from cueboard.tools.hwtest import EXIT_OK, run
from tests.tools.test_hwtest import Output, Script, write_config

RELAY, SWITCH = 16, 26


def test_hwtest_switches_the_relay_on_in_its_step_and_off_after(tmp_path: Path) -> None:
    factory, out = MockFactory(), Output()
    config = write_config(tmp_path, f"[light]\npin = {RELAY}\nactive_high = false\nswitch = {SWITCH}\n")
    def flick() -> None:
        factory.pin(SWITCH).drive_low()

    script = Script(look=lambda: factory.pin(RELAY).state, at={
        "the relay on: it clicks and the table's lamp lights (off again after)": flick})
    assert run(config, out, out, script, pin_factory=factory) == EXIT_OK
    seen = [(device, what, looks) for device, what, looks in script.seen if device == "light"]
    assert seen and seen[0][2] == [False]  # active low: on is a low pin, while the step shows
    assert factory.pin(RELAY).state is True  # off again: the check leaves the lamp off
    lines = out.lines
    assert f"light: relay open on GPIO {RELAY} (active low), wall switch on GPIO {SWITCH}" in lines
    assert "light: wall switch on" in lines
    assert "  light: relay switched on and off" in lines
