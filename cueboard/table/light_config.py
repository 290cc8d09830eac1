"""``[light]``: the table light's relay and wall switch (docs/hardware.md, "The table's light").

Read with the rest of the file by :func:`cueboard.table.config.parse_config`; its pins join
the others' claims there, so the pins check refuses the light on a GPIO another device holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from cueboard.common.settings import Required, Section
from cueboard.hw.pins import Claim, gpio_number

__all__ = ["OFF_AFTER", "LightConfig", "light_claims", "parse_light"]

OFF_AFTER = 300.0
"""Seconds the light stays on after a match ends, unless ``[light] off_after`` says: time to
shake hands, put the cues away and read the result."""


@dataclass(frozen=True)
class LightConfig:
    pin: int
    """The relay's GPIO (BCM)."""
    active_high: bool = True
    """False for the many relay modules switched on by a low pin."""
    off_after: float = OFF_AFTER
    switch: int | None = None
    """A latching wall switch to ground (GPIO, BCM), or None."""


def parse_light(section: Section) -> LightConfig | None:
    """The ``[light]`` section (None when absent); a wrong value names its key."""
    if not section.raw:
        return None
    pins: dict[str, int | None] = {}
    for key in ("pin", "switch"):
        raw = section.get(key, None if key == "switch" else Required("the relay's GPIO (BCM), e.g. 17"))
        if raw is None:
            pins[key] = None
            continue
        if not isinstance(raw, int | str) or isinstance(raw, bool):
            raise section.fail(key, f"must be a GPIO number (BCM, e.g. 17) or a gpiozero pin name, not {raw!r}")
        try:
            pins[key] = gpio_number(raw)
        except ValueError as exc:
            raise section.fail(key, str(exc)) from None
    pin = pins["pin"]
    assert pin is not None  # section.get("pin") raised when it is missing
    if pins["switch"] == pin:
        raise section.fail("switch", f"GPIO {pin} is the relay's own pin ([light] pin): the switch needs another")
    return LightConfig(pin=pin, active_high=bool(section.getbool("active_high", True)),
                       off_after=float(section.getfloat("off_after", OFF_AFTER, minval=0, maxval=86400,
                                                        unit="seconds")),
                       switch=pins["switch"])


def light_claims(light: LightConfig | None) -> list[Claim]:
    """The GPIO the light takes, under their keys, for :func:`cueboard.hw.pins.check_pins`."""
    if light is None:
        return []
    claims = [Claim(light.pin, "light.pin", "the table light's relay")]
    if light.switch is not None:
        claims.append(Claim(light.switch, "light.switch", "the table light's wall switch"))
    return claims
