"""Which GPIO each device of a table's configuration takes, so that two never share one:
:func:`gpio_number` reads a pin as gpiozero names it, :func:`table_claims` lists the GPIO each
device drives, :func:`check_pins` refuses one with two owners. The rules: docs/config.md,
"One GPIO, one device".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .display_config import DisplayConfig

__all__ = ["HEADER", "HUB75_PINOUTS", "Buttons", "Claim", "board_claims", "check_pins", "check_spi_devices",
           "gpio_number", "hub75_claims", "spi_claims", "table_claims", "uart_claims"]

HEADER: dict[int, int] = {
    3: 2, 5: 3, 7: 4, 8: 14, 10: 15, 11: 17, 12: 18, 13: 27, 15: 22, 16: 23, 18: 24, 19: 10, 21: 9, 22: 25,
    23: 11, 24: 8, 26: 7, 27: 0, 28: 1, 29: 5, 31: 6, 32: 12, 33: 13, 35: 19, 36: 16, 37: 26, 38: 20, 40: 21}
"""Physical header pin -> its GPIO (BCM) number; the other pins are power and ground."""
GPIOS = range(28)
"""The GPIO the 40-pin header brings out."""



class Buttons(Protocol):
    """What the claims read of a referee box (``box_config.BoxConfig``): its buttons' pins. A
    protocol, not an import: ``box_config`` imports this module (:func:`gpio_number`)."""

    @property
    def pins(self) -> Sequence[int | str]: ...


_NAMED = re.compile(r"^(?:(GPIO|BCM)(\d+)|(BOARD|J8:)(\d+)|(\d+))$", re.IGNORECASE)


def gpio_number(pin: int | str) -> int:
    """The GPIO (BCM) number of a pin as gpiozero names it; ValueError saying why if the
    header has no such GPIO. A Raspberry Pi's 40-pin header (Pi 2 to 5, Zero 2 W) brings out
    GPIO 0 to 27 ("BOARD1" is 3V3).

    >>> gpio_number(17), gpio_number("GPIO17"), gpio_number("BOARD11"), gpio_number("J8:11")
    (17, 17, 17, 17)
    >>> gpio_number(66)
    Traceback (most recent call last):
    ...
    ValueError: GPIO 66 is not on the Raspberry Pi's 40-pin header (GPIO 0 to 27)
    """
    if isinstance(pin, bool):
        raise ValueError(f"{pin!r} is not a GPIO pin")
    if isinstance(pin, int):
        number = pin
    else:
        named = _NAMED.match(pin.strip())
        if named is None:
            raise ValueError(f"{pin!r} is not a pin name cueboard knows: a GPIO number (17), \"GPIO17\", \"BCM17\", "
                             "\"BOARD11\" or \"J8:11\"")
        if named.group(4) is not None:
            physical = int(named.group(4))
            if physical not in HEADER:
                what = "not a header pin (1 to 40)" if not 1 <= physical <= 40 else "power or ground, not a GPIO"
                raise ValueError(f"header pin {physical} ({pin}) is {what}")
            return HEADER[physical]
        number = int(named.group(2) or named.group(5))
    if number not in GPIOS:
        raise ValueError(f"GPIO {number} is not on the Raspberry Pi's 40-pin header (GPIO 0 to 27)")
    return number


@dataclass(frozen=True)
class Claim:
    """``gpio`` is driven by the device configured under ``key``, as ``what``; claims with the
    same ``shared`` token (a bus several chip-selected devices share) do not conflict."""

    gpio: int
    key: str
    what: str
    shared: str = ""


# rpi-rgb-led-matrix, lib/hardware-mapping.c: (line, GPIO) of each mapping.
_REGULAR_CONTROL = (("OE", 18), ("CLK", 17), ("LAT", 4), ("A", 22), ("B", 23), ("C", 24), ("D", 25))
_REGULAR_CHAINS = ((("R1", 11), ("G1", 27), ("B1", 7), ("R2", 8), ("G2", 9), ("B2", 10)),
                   (("R1", 12), ("G1", 5), ("B1", 6), ("R2", 19), ("G2", 13), ("B2", 20)),
                   (("R1", 14), ("G1", 2), ("B1", 3), ("R2", 26), ("G2", 16), ("B2", 21)))
_ADAFRUIT = (("OE", 4), ("CLK", 17), ("LAT", 21), ("A", 22), ("B", 26), ("C", 27), ("D", 20),
             ("R1", 5), ("G1", 13), ("B1", 6), ("R2", 12), ("G2", 16), ("B2", 23))
HUB75_PINOUTS: dict[str, tuple[tuple[tuple[str, int], ...], int]] = {
    "regular": (_REGULAR_CONTROL, 15),
    "adafruit-hat": (_ADAFRUIT, 24),
    # OE moved to GPIO 18 by the bridge from GPIO 4, which stays wired to it: both taken.
    "adafruit-hat-pwm": ((*_ADAFRUIT, ("OE (PWM, bridged to GPIO 4)", 18)), 24),
}
"""Each HAT's control and first-chain lines, and its E line (for 1:32 scan panels)."""


def hub75_claims(key: str, hat: str, panel_rows: int, parallel: int) -> list[Claim]:
    """The GPIO a HUB75 board on ``hat`` drives."""
    lines, e_line = HUB75_PINOUTS[hat]
    owned = [*lines]
    if hat == "regular":
        for chain in range(parallel):
            owned += [(f"chain {chain + 1} {name}", gpio) for name, gpio in _REGULAR_CHAINS[chain]]
    if panel_rows >= 64:
        owned.append(("E", e_line))
    label = f"a hub75 board on hat = \"{hat}\""
    return [Claim(gpio, key, f"{label}: its {name} line") for name, gpio in owned]


SPI_BUSES: dict[int, tuple[tuple[str, int], ...]] = {
    # dtparam=spi=on gives the kernel both chip selects of SPI0, whichever a board uses.
    0: (("MISO", 9), ("MOSI", 10), ("SCLK", 11), ("CE0", 8), ("CE1", 7)),
    1: (("MISO", 19), ("MOSI", 20), ("SCLK", 21)),
}
SPI1_CHIP_SELECTS = (18, 17, 16)
"""SPI1's chip selects (``dtoverlay=spi1-3cs``): each taken only by the board that uses it."""


def spi_claims(key: str, device: str, port: int, chip_select: int) -> list[Claim]:
    """The GPIO a board on ``/dev/spidev<port>.<chip_select>`` takes; [] for a bus cueboard
    does not know the pins of (the kernel then says what it has).

    SPI0 is GPIO 7-11 (with ``dtparam=spi=on`` the kernel takes both chip selects, CE1 7 and
    CE0 8, with MISO 9, MOSI 10, SCLK 11); SPI1 is MISO 19, MOSI 20, SCLK 21 and the board's
    own chip select (CE0 18, CE1 17, CE2 16). MAX7219 chains on one bus share it (each on its
    own chip select: :func:`check_spi_devices`); a WS2812 panel has no chip select, so it hears
    everything on its MOSI and shares its bus with nothing."""
    if port not in SPI_BUSES:
        return []
    shared = f"SPI{port}" if device != "ws2812" else ""  # a WS2812 has no chip select: a bus of its own
    label = f"a {device} board on SPI{port}"
    owned = [Claim(gpio, key, f"{label}: {name}", shared) for name, gpio in SPI_BUSES[port]]
    if port == 1 and chip_select < len(SPI1_CHIP_SELECTS):
        owned.append(Claim(SPI1_CHIP_SELECTS[chip_select], key, f"{label}: CE{chip_select}"))
    return owned


UART_PORTS = ("/dev/ttyAMA0", "/dev/serial0", "/dev/ttyS0")


def uart_claims(key: str, port: str) -> list[Claim]:
    """A keypad on the Pi's own UART takes TXD and RXD."""
    if port not in UART_PORTS:
        return []
    return [Claim(14, key, f"the keypad on the UART ({port}): TXD"),
            Claim(15, key, f"the keypad on the UART ({port}): RXD")]


def board_claims(key: str, board: DisplayConfig) -> list[Claim]:
    """The GPIO a configured board takes (none for an emulator, nor for a HUB75 board drawn by
    RGBMatrixEmulator: ``backend = "emulator"``)."""
    if board.device == "hub75" and board.backend == "emulator":
        return []
    if board.device == "hub75":
        return hub75_claims(key, board.hat, int(board.panel.split("x")[1]), board.parallel)
    if board.device == "ws2812" and board.driver == "pwm":
        return [Claim(18, key, "a ws2812 board on driver = \"pwm\": PWM0")]
    if board.device in ("max7219", "ws2812"):
        return spi_claims(key, board.device, board.spi_port, board.spi_device)
    return []


def table_claims(boxes: Sequence[Buttons], boards: Sequence[DisplayConfig], keypad_port: str | None,
                 board_key: str = "display") -> list[Claim]:
    """Every GPIO the table's devices take, under their configuration keys. The pins of the
    boxes are GPIO numbers already (``BoxConfig.check`` refused the rest)."""
    claims = [Claim(gpio_number(pin), f"referee_box[{i}].pins[{n}]", f"button {n} of referee box {i}")
              for i, box in enumerate(boxes) for n, pin in enumerate(box.pins)]
    for i, board in enumerate(boards):
        claims += board_claims(board_key if len(boards) == 1 else f"{board_key}[{i}]", board)
    if keypad_port is not None:
        claims += uart_claims("keypad.port", keypad_port)
    return claims


def check_pins(claims: Iterable[Claim]) -> str | None:
    """The first GPIO two owners claim, said with both; None when every GPIO has one owner
    (a device's own lines, and a bus its chip-selected boards share, are one owner)."""
    seen: dict[int, Claim] = {}
    clashes: list[tuple[Claim, Claim]] = []
    for claim in claims:
        first = seen.setdefault(claim.gpio, claim)
        if first is claim or first.key == claim.key or (first.shared and first.shared == claim.shared):
            continue
        if all(c.gpio != claim.gpio for c, _ in clashes):
            clashes.append((first, claim))
    if not clashes:
        return None
    first, claim = clashes[0]
    more = sorted(c.gpio for c, _ in clashes[1:])
    also = f"; {len(more)} more GPIO have two owners: {', '.join(map(str, more))}" if more else ""
    return (f"GPIO {claim.gpio} has two owners: {first.key} ({first.what}) and {claim.key} ({claim.what}){also}; "
            "give each device its own pins (docs/hardware.md)")


def check_spi_devices(boards: Sequence[DisplayConfig], board_key: str = "display") -> str | None:
    """Two boards on one ``/dev/spidev<port>.<device>`` would take each other's frames."""
    seen: dict[tuple[int, int], str] = {}
    for i, board in enumerate(boards):
        if board.device not in ("max7219", "ws2812") or (board.device == "ws2812" and board.driver == "pwm"):
            continue
        key = board_key if len(boards) == 1 else f"{board_key}[{i}]"
        node = (board.spi_port, board.spi_device)
        if node in seen:
            return (f"{seen[node]} and {key} are both on /dev/spidev{node[0]}.{node[1]}: give one another "
                    "spi_port or spi_device")
        seen[node] = key
    return None
