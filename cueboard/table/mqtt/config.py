"""The ``[mqtt]`` section of the daemon's configuration: :class:`MqttConfig` (and
:class:`TlsConfig`), read and checked by :func:`parse_mqtt`, with the TLS files and the
password file it names (``docs/mqtt.md``, ``docs/security.md``). The feed's client is
:mod:`cueboard.table.mqtt.feed`, its payloads :mod:`cueboard.contract.payloads`.
"""

from __future__ import annotations

import os
import re
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, overload

from cueboard.common.errors import MqttConfigError
from cueboard.common.private_files import exposure
from cueboard.common.settings import Required, Section, key_path, refusal
from cueboard.contract.topics import TableTopics

RECONNECT_MIN = 1  # seconds; paho doubles it up to ``reconnect_max``

Protocol = Literal["3.1.1", "5"]


def _fail(key: str, why: str) -> MqttConfigError:
    return MqttConfigError(refusal(key_path("mqtt", key), why))


def _check_topic_level(key: str, value: str) -> None:
    if not value or any(c in value for c in "/+#\0"):
        raise _fail(key, f"{value!r} cannot be a topic level (empty, or has '/', '+', '#')")


def _fields(config: Any) -> dict[str, Any]:
    """A config's fields as a table for :class:`Section`: None is a key left out."""
    return {name: value for name, value in vars(config).items() if value is not None}


@dataclass(frozen=True)
class TlsConfig:
    """TLS to the broker: ``ca`` is the CA certificate file (PEM) the broker's certificate
    must chain to (``/etc/ssl/certs/ca-certificates.crt`` for a broker with a public
    certificate); ``cert`` and ``key`` a client certificate, for brokers that ask for one."""

    ca: str
    cert: str | None = None
    key: str | None = None

    def __post_init__(self) -> None:
        s = Section(_fields(self), "mqtt.tls", error=MqttConfigError)
        s.getstr("ca", Required("the CA certificate file the broker's certificate chains to"))
        s.getstr("cert", None)
        s.getstr("key", None)
        if self.key is not None and self.cert is None:
            raise s.fail("key", "needs mqtt.tls.cert (the client certificate)")

    def context(self) -> ssl.SSLContext:
        """The client's SSL context: the broker's certificate and host name are checked."""
        try:
            context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=self.ca)
        except (OSError, ssl.SSLError) as exc:
            raise _fail("tls.ca", f"cannot load {self.ca}: {exc}") from None
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        if self.cert is not None:
            try:
                context.load_cert_chain(self.cert, self.key)
            except (OSError, ssl.SSLError) as exc:
                raise _fail("tls.cert", f"cannot load {self.cert}: {exc}") from None
        return context


SCORERS = ".scorers"
"""What the table's scorers' link adds to its login (``t1.scorers``: cueboard.table.mqtt.paced_link). No
venue login can be named so (names take no '.')."""

COMMANDS_LOGIN = ".commands"
"""What the table's commands' link adds to its login (``t1.commands``: cueboard.table.mqtt.paced_link)."""

DESK_LOGIN = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
"""A desk login's name as ``cueboard venue`` makes them: a link of its own is opened only for such a
name (``t1.commands.<desk>``: cueboard.table.mqtt.desk_links)."""


def desk_link_login(table_login: str, desk: str) -> str:
    """The login of the table's link for one desk login's commands: ``t1.commands.desk``."""
    return f"{table_login}{COMMANDS_LOGIN}.{desk}"


@dataclass(frozen=True, kw_only=True)
class MqttConfig:
    """Where and how the feed connects. Build it with :func:`parse_mqtt` from ``[mqtt]``.

    ``port`` defaults to 1883, or 8883 with ``tls``. ``prefix`` is the topic prefix
    (``cueboard/<venue>/<table>`` from :func:`parse_mqtt`). ``command`` subscribes to
    ``<prefix>/command/+`` (each login writes the topic ending in its own name: the table
    knows who sent each command), over MQTT 5 (retain-as-published: a retained command is
    seen as one, live or after a restart), which needs ``tls`` and a ``username`` (or the TLS
    client certificate ``tls.cert``), unless ``insecure_commands``: then anyone who can publish
    to the broker can change the score (a warning at every start). ``unnamed_commands`` also
    takes commands on the bare ``<prefix>/command`` of older tools, whose sender the table
    cannot name (a warning at every start); without it they are refused, naming the key.
    ``queue`` bounds the event/rejected messages waiting for the broker, per lane
    (:class:`Feed`). ``client_id`` ``None`` lets the broker choose one. ``reconnect_max``: the
    longest wait between connection attempts. ``protocol``: MQTT 5 with commands, else 3.1.1
    unless given. ``desks``: the venue's desk logins, each read on a link of its own
    (``<username>.commands.<desk>``: cueboard.table.mqtt.desk_links; ``cueboard venue`` writes the
    list and the logins).
    """

    prefix: str
    host: str = "localhost"
    port: int = 0
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    tls: TlsConfig | None = None
    command: bool = False
    insecure_commands: bool = False
    unnamed_commands: bool = False
    keepalive: int = 30
    queue: int = 1000
    client_id: str | None = None
    protocol: Protocol | None = None
    # A try every second: a broker that comes back has the retained state again within about a
    # second, however long it was away (tests/table/test_reliability.py).
    reconnect_max: int = 1
    desks: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.port == 0 and not isinstance(self.port, bool):
            object.__setattr__(self, "port", 8883 if self.tls is not None else 1883)
        if self.protocol is None:
            object.__setattr__(self, "protocol", "5" if self.command is True else "3.1.1")
        s = Section(_fields(self), "mqtt", error=MqttConfigError)
        _read(s)
        for name in ("prefix", "host", "port", "command", "insecure_commands", "unnamed_commands", "keepalive",
                     "queue", "protocol", "reconnect_max"):
            s.get(name)  # a field that cannot be None (checked by _read when given)
        if self.tls is not None and not isinstance(self.tls, TlsConfig):
            raise s.fail("tls", "must be a TlsConfig")
        if self.password is not None and self.username is None:
            raise s.fail("password", "needs mqtt.username")
        _check_commands(self, s)

    @property
    def topics(self) -> TableTopics:
        """The table's topics under ``prefix`` (:mod:`cueboard.contract.topics`)."""
        return TableTopics(self.prefix)

    def topic(self, name: str) -> str:
        """``<prefix>/<name>``, for a name of :mod:`cueboard.contract.topics` (``STATE`` ...)."""
        return self.topics.under(name)


def _check_commands(config: MqttConfig, s: Section) -> None:
    """The command topic changes the score: it is subscribed only when the broker knows who
    the table is over an encrypted connection, or when the venue says it knows the risk; only
    over MQTT 5, whose retain-as-published shows a retained command live too."""
    if config.unnamed_commands and not config.command:
        raise s.fail("unnamed_commands", "only with mqtt.command = true (it also takes commands on the bare "
                                         "<prefix>/command topic of older tools)")
    if config.command and config.protocol != "5":
        raise s.fail("protocol", "commands need MQTT 5: over 3.1.1 the broker clears the retain flag of a "
                                 "command delivered live, and a retained command would be applied; remove "
                                 "mqtt.protocol or set it to 5")
    if config.insecure_commands:
        if not config.command:
            raise s.fail("insecure_commands", "only with mqtt.command = true (it lets commands in without TLS "
                                              "and authentication)")
        if config.tls is not None and (config.username is not None or config.tls.cert is not None):
            raise s.fail("insecure_commands", "not needed: the table has TLS and authentication; remove it, so "
                                              "that it cannot outlive them")
        return
    if not config.command:
        return
    authenticated = config.username is not None or (config.tls is not None and config.tls.cert is not None)
    missing = [name for name, gap in (("mqtt.tls", config.tls is None), ("mqtt.username", not authenticated)) if gap]
    if missing:
        raise s.fail("command", f"needs {' and '.join(missing)}: the command topic changes the score, so it is only "
                                "subscribed over TLS with a username (or a client certificate); "
                                "mqtt.insecure_commands = true subscribes without (docs/security.md)")


def _read(s: Section) -> dict[str, Any]:
    """The keys of ``[mqtt]`` that are fields of :class:`MqttConfig`, each checked on its own
    (from the TOML table in :func:`parse_mqtt`, from the fields in ``MqttConfig``): those given."""
    values = {
        "host": s.getstr("host", None),
        "port": s.getint("port", None, minval=1, maxval=65535),
        "username": s.getstr("username", None),
        "password": s.getstr("password", None, empty=True),
        "prefix": s.getstr("prefix", None),
        "command": s.getbool("command", None),
        "insecure_commands": s.getbool("insecure_commands", None),
        "unnamed_commands": s.getbool("unnamed_commands", None),
        "keepalive": s.getint("keepalive", None, minval=5, maxval=65535),
        "queue": s.getint("queue", None, minval=1, maxval=1_000_000),
        "client_id": s.getstr("client_id", None),
        "protocol": s.getchoice("protocol", ("3.1.1", "5"), None),
        "reconnect_max": s.getint("reconnect_max", None, minval=RECONNECT_MIN, maxval=3600),
        "desks": _desks(s),
    }
    prefix = values["prefix"]
    if isinstance(prefix, str) and (any(c in prefix for c in "+#\0") or prefix.startswith("/")
                                    or prefix.endswith("/") or "//" in prefix):
        raise s.fail("prefix", "must be topic levels joined by '/', without '+', '#' or empty levels")
    return {key: value for key, value in values.items() if value is not None}


MAX_DESKS = 64
"""Desk logins a table opens a link of its own for, at most (each a connection and a backlog)."""


def _desks(s: Section) -> tuple[str, ...] | None:
    """``mqtt.desks``: desk login names, each once, at most :data:`MAX_DESKS`."""
    desks = s.getlist("desks", None, of="desk login names")
    if desks is None:
        return None
    for n, desk in enumerate(desks):
        if not isinstance(desk, str) or not DESK_LOGIN.fullmatch(desk):
            raise _fail(f"desks[{n}]", f"{desk!r} is not a desk login's name (1 to 32 of a-z, 0-9, '-' and '_')")
    if len(set(desks)) != len(desks):
        raise _fail("desks", "names a login twice")
    if len(desks) > MAX_DESKS:
        raise _fail("desks", f"{len(desks)} desk logins: at most {MAX_DESKS}")
    return tuple(desks)


def parse_mqtt(section: Mapping[str, Any], *, venue: str, table: str) -> MqttConfig:
    """The ``[mqtt]`` table of the daemon's TOML configuration as an :class:`MqttConfig`.

    Unknown keys and bad values raise :class:`MqttConfigError` naming the key.
    ``password_file`` reads the password from a file (one line; for systemd credentials,
    ``LoadCredential=`` and ``password_file = "${CREDENTIALS_DIRECTORY}/mqtt"``: the
    variable is expanded). The password file and the TLS client key are refused when other
    users can read them (:mod:`cueboard.common.private_files`). Relative file names are taken as
    they are (from the daemon's working directory). Defaults: ``prefix =
    "cueboard/<venue>/<table>"``, ``client_id = "cueboard-<venue>-<table>"``.

    >>> parse_mqtt({"host": "broker.lan"}, venue="club", table="t1").port
    1883
    >>> parse_mqtt({"port": 0}, venue="club", table="t1")
    Traceback (most recent call last):
    ...
    cueboard.common.errors.MqttConfigError: mqtt.port: must be a whole number from 1 to 65535, not 0
    """
    if isinstance(section, Mapping) and _is_five(section.get("protocol")):
        section = {**section, "protocol": "5"}  # protocol = 5, as a number
    s = Section(section, "mqtt", error=MqttConfigError)
    _check_topic_level("venue", venue)
    _check_topic_level("table", table)
    values = _read(s)
    password_file = _path(s, "password_file", None)
    if password_file is not None:
        if "password" in values:
            raise s.fail("password_file", "give mqtt.password or mqtt.password_file, not both")
        values["password"] = _read_password(password_file)
    tls = s.getsection("tls", None)
    if tls is not None:
        config = TlsConfig(ca=_path(tls, "ca", Required("the CA certificate file the broker's certificate "
                                                         "chains to")),
                           cert=_path(tls, "cert", None), key=_path(tls, "key", None))
        tls.check_unused()
        config.context()  # unreadable files are a configuration error, found now
        # The client's private key: in tls.key, or in tls.cert after the certificate.
        _check_private("tls.key" if config.key is not None else "tls.cert", config.key or config.cert)
        values["tls"] = config
    s.check_unused()
    values.setdefault("prefix", TableTopics.of(venue, table).prefix)
    values.setdefault("client_id", f"cueboard-{venue}-{table}")
    return MqttConfig(**values)


def _is_five(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == 5


@overload
def _path(s: Section, key: str, default: None) -> str | None: ...


@overload
def _path(s: Section, key: str, default: Required) -> str: ...


def _path(s: Section, key: str, default: Required | None) -> str | None:
    """A file name, with ``${VAR}`` expanded."""
    value = s.getstr(key, default)
    return None if value is None else os.path.expandvars(value)


def _check_private(key: str, name: str | None) -> None:
    """A file with a secret in it (the password, the client's TLS key) that other users can
    read is refused, naming the file and the command that fixes it."""
    if name is None:
        return
    try:
        why = exposure(name)
    except OSError as exc:
        raise _fail(key, f"cannot read {name}: {exc.strerror or exc}") from None
    if why is not None:
        raise _fail(key, f"{name} holds a secret that other users can read: {why}")


def _read_password(name: str) -> str:
    _check_private("password_file", name)
    try:
        text = Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail("password_file", f"cannot read {name}: {exc}") from None
    password = text.rstrip("\r\n")
    if not password or "\n" in password:
        raise _fail("password_file", f"{name} must hold the password on one line")
    return password
