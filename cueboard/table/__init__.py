"""One table's daemon and everything only it uses: the engine thread, journal, keymaps, shot clock, links."""
