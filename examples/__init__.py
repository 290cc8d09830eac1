"""Example configurations, keymaps and match logs. Installed as the package data
``cueboard.examples``; ``cueboard.common.resources.examples_dir()`` finds it."""
