"""The keypad's wiring and timings: edit to match the board (see docs/firmware.md).

GPIO numbers are those of a Raspberry Pi Pico. A matrix of ROWS x COLUMNS keys; key
``row * len(COLUMNS) + column`` is the one between those two lines, top left first.
The host's default keymaps (examples/keymaps/keypad-4x5*.toml) expect 5 rows of 4.
"""

ROWS = (2, 3, 4, 5, 6)  # driven low one at a time, top row first
COLUMNS = (7, 8, 9, 10)  # inputs with pull-ups: low while a key on the driven row is down
BUZZER = 15  # an active buzzer, sounding while the pin is high; None if there is none
LED_ACCEPTED = 14  # green; None if there is none
LED_REFUSED = 13  # red; None if there is none
LED_STATUS = "LED"  # the Pico's own LED: on while the host answers, blinking while it does not

PRESS_MS = 5  # a key reading down this long without a break is pressed (shorter: noise)
DEBOUNCE_MS = 20  # a key reading up this long without a break is released (shorter: bounce)
HOLD_MS = 800  # still down this long after its first edge: reported once more, as held
SAFE_MODE_KEY = 0  # held at power-up: main.py does not start the keypad (REPL only)
