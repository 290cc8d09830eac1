"""The keypad's answer to the marker: the buzzer and the LEDs.

Accepted input: one short beep and the green LED. Refused input: two longer beeps and
the red LED. The status LED is on while the host answers, and blinks while it does not.
Nothing here waits: ``update(now, host_alive)`` sets the pins for the moment ``now``.
"""

ACCEPTED_BEEPS = ((0, 60),)  # (from, until) milliseconds after the verdict
REFUSED_BEEPS = ((0, 150), (250, 400))
ACCEPTED_LIGHT_MS = 300
REFUSED_LIGHT_MS = 600
BLINK_MS = 500


class Indicator:
    """``pin`` is ``machine.Pin`` (or a fake); each pin number may be None (not fitted)."""

    def __init__(self, pin, buzzer=None, accepted_led=None, refused_led=None, status_led=None):
        self._buzzer = _output(pin, buzzer)
        self._accepted = _output(pin, accepted_led)
        self._refused = _output(pin, refused_led)
        self._status = _output(pin, status_led)
        self._since = 0
        self._beeps = ()
        self._light = None
        self._light_until = 0

    def show(self, accepted, now):
        """Start the answer to one input: accepted (True) or refused (False)."""
        self._since = now
        self._beeps = ACCEPTED_BEEPS if accepted else REFUSED_BEEPS
        self._light = self._accepted if accepted else self._refused
        self._light_until = now + (ACCEPTED_LIGHT_MS if accepted else REFUSED_LIGHT_MS)

    def update(self, now, host_alive):
        elapsed = now - self._since
        beeping = False
        for start, end in self._beeps:
            if start <= elapsed < end:
                beeping = True
        _set(self._buzzer, beeping)
        lit = now < self._light_until
        _set(self._accepted, lit and self._light is self._accepted)
        _set(self._refused, lit and self._light is self._refused)
        _set(self._status, host_alive or (now // BLINK_MS) % 2 == 0)


def _output(pin, number):
    return None if number is None else pin(number, pin.OUT, value=0)


def _set(output, on):
    if output is not None:
        output.value(1 if on else 0)
