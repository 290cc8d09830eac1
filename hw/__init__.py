"""cueboard's hardware: referee buttons on GPIO, the marker keypad on serial, LED boards.

Code that only runs on a Raspberry Pi (lgpio, spidev, rpi_ws281x) is imported
lazily, so the package imports and tests on any Linux machine.
"""
