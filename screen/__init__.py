"""The venue screen: a static page over MQTT on WebSockets (see docs/screen.md). Installed as
the package data ``cueboard.web``; ``cueboard.common.resources.screen_dir()`` finds it."""
