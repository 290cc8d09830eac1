"""Runs at power-up: the keypad, unless the safe-mode key is held (then the REPL)."""

import machine

import keypad
import keypad_config

if keypad.safe_mode_requested(machine.Pin, keypad_config):
    print("cueboard keypad: safe mode (key", keypad_config.SAFE_MODE_KEY, "held); REPL")
else:
    keypad.run()
