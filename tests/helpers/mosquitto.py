"""A real mosquitto broker for tests, and an MQTT subscriber that records what it gets.

Each :class:`Mosquitto` runs Debian's ``mosquitto`` (never a system service) on a free
loopback port with its own configuration file in a temporary directory: optionally a
password file made with ``mosquitto_passwd``, TLS with certificates made at test time by
``openssl`` (:func:`make_tls_files`), a WebSockets listener, persistence, or extra lines
(a bridge). ``stop()`` and ``start()`` again keep the port, so clients see the broker
restart. Readiness is awaited on the broker's own log line, not guessed with a sleep.

Fixtures (``pytest_plugins = ["mosquitto"]`` in a test module, or import them):

- ``mosquitto_broker``: a plain broker, anonymous access, for the test.
- ``mosquitto_factory``: ``mosquitto_factory(users={"t1": "pw"}, tls=tls_files, ...)``
  makes brokers (started), all stopped at the end of the test.
- ``tls_files``: a CA, a broker certificate for ``127.0.0.1``/``localhost``, a client
  certificate and a second, unrelated CA; made once per session.

Without mosquitto installed the fixtures skip the test (``apt-get install mosquitto
mosquitto-clients``), unless ``CUEBOARD_REQUIRE_MOSQUITTO=1`` makes that a failure (CI).

Test modules import from here and also load it as a plugin; pytest would warn that it
cannot rewrite its asserts then, so it does not try: PYTEST_DONT_REWRITE.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTProtocolVersion

HOST = "127.0.0.1"
TIMEOUT = 30.0
"""Upper bound for anything awaited in these tests (they finish far sooner)."""


def mosquitto_binary() -> str | None:
    """Debian installs the broker in /usr/sbin, which is not on every user's PATH."""
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.access(p, os.X_OK)), None)


def require_mosquitto() -> str:
    binary = mosquitto_binary()
    if binary is None or shutil.which("mosquitto_passwd") is None:
        why = "mosquitto is not installed: apt-get install mosquitto mosquitto-clients"
        if os.environ.get("CUEBOARD_REQUIRE_MOSQUITTO", "") not in ("", "0"):
            pytest.fail(why)
        pytest.skip(why)
    return binary


def _ephemeral_ports() -> range:
    """The ports the kernel hands out to outgoing connections (Linux's default if unknown)."""
    try:
        low, high = (int(n) for n in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    except (OSError, ValueError):
        low, high = 32768, 60999
    return range(low, high + 1)


_EPHEMERAL = _ephemeral_ports()
_GIVEN: set[int] = set()
_RANDOM = random.Random()  # its own: a test seeding ``random`` must not make two runs pick alike


def free_port() -> int:
    """A loopback port free now, for a server the test is about to start.

    Not one the kernel picks (bind to port 0): those come from the ephemeral range, which every
    outgoing connection on the machine also draws its local port from, so one could take the
    port between this check and the server's bind (CI saw mosquitto fail "Unable to create
    websockets listener"). Ports below the range are never given to outgoing connections;
    one is drawn at random there, checked free, and never handed out twice by this process.
    """
    low, high = 10000, min(_EPHEMERAL.start, 30000) - 1
    for _ in range(1000):
        port = _RANDOM.randint(low, high)
        if port in _GIVEN or port in _EPHEMERAL:
            continue
        with socket.socket() as s:
            try:
                s.bind((HOST, port))
            except OSError:
                continue
        _GIVEN.add(port)
        return port
    raise OSError(f"no free port on {HOST} in {low}-{high} after 1000 tries")


BIND_FAILED = ("Address already in use", "Unable to create")
"""mosquitto's words when a listener's port is taken (then a start may retry on new ports)."""


def port_taken(error: BaseException) -> bool:
    """Whether ``error`` is :meth:`Mosquitto.start` failing because a port was taken."""
    return isinstance(error, RuntimeError) and any(words in str(error) for words in BIND_FAILED)


# -- TLS --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TlsFiles:
    ca: Path  # the venue's CA certificate
    server_cert: Path  # the broker's, for 127.0.0.1 and localhost, signed by ca
    server_key: Path
    client_cert: Path  # a table's, signed by ca (for require_certificate)
    client_key: Path
    other_ca: Path  # an unrelated CA: the broker's certificate does not chain to it


def _openssl(*args: str | Path, cwd: Path) -> None:
    subprocess.run(["openssl", *map(str, args)], cwd=cwd, check=True, capture_output=True, timeout=TIMEOUT)


def _make_ca(directory: Path, name: str) -> tuple[Path, Path]:
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", key, "-out", cert, "-days", "2", "-subj", f"/CN={name}",
             "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=directory)
    return cert, key


def _make_cert(directory: Path, name: str, ca: tuple[Path, Path], extensions: str) -> tuple[Path, Path]:
    cert, key, csr, ext = (directory / f"{name}{s}" for s in (".crt", ".key", ".csr", ".ext"))
    _openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", key, "-out", csr, "-subj", f"/CN={name}", cwd=directory)
    ext.write_text(extensions)
    _openssl("x509", "-req", "-in", csr, "-CA", ca[0], "-CAkey", ca[1], "-CAcreateserial", "-out", cert,
             "-days", "2", "-extfile", ext, cwd=directory)
    return cert, key


def make_tls_files(directory: Path) -> TlsFiles:
    """A CA, a broker certificate for 127.0.0.1 and localhost, a client certificate, and an
    unrelated CA, made with the ``openssl`` command (Debian package ``openssl``)."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed: apt-get install openssl")
    directory.mkdir(parents=True, exist_ok=True)
    ca = _make_ca(directory, "venue-ca")
    server = _make_cert(directory, "broker", ca, "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                        "extendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n")
    client = _make_cert(directory, "table", ca, "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n")
    other, _ = _make_ca(directory, "other-ca")
    return TlsFiles(ca[0], server[0], server[1], client[0], client[1], other)


# -- the broker -------------------------------------------------------------------------


def make_password_file(path: Path, users: Mapping[str, str]) -> Path:
    """A mosquitto password file (hashed, by ``mosquitto_passwd``) for name -> password."""
    path.unlink(missing_ok=True)
    for name, password in users.items():
        create = [] if path.exists() else ["-c"]
        subprocess.run(["mosquitto_passwd", "-b", *create, str(path), name, password], check=True,
                       capture_output=True, timeout=TIMEOUT)
    return path


class Mosquitto:
    """A mosquitto process on ``HOST:port`` (free port unless given), configured in ``directory``.

    ``users``: name -> password; when given, anonymous clients are refused. ``tls``: the
    listener speaks TLS with ``tls.server_cert``; ``require_certificate``: clients must
    show a certificate signed by ``tls.ca``. ``websockets``: a second listener speaking
    MQTT over WebSockets on ``ws_port``. ``persistence``: retained messages and sessions
    survive ``stop()``/``start()``. ``extra``: more configuration lines (a bridge).
    ``config``: a whole configuration instead (logging to the test is added; give ``port``).
    """

    def __init__(self, directory: Path, *, port: int | None = None, users: Mapping[str, str] | None = None,
                 tls: TlsFiles | None = None, require_certificate: bool = False, websockets: bool = False,
                 persistence: bool = False, extra: str = "", config: str | None = None) -> None:
        self.binary = require_mosquitto()
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.host = HOST
        self.port = port if port is not None else free_port()
        self.ws_port = free_port() if websockets else None
        self._ports_chosen_here = port is None and config is None
        self.users = dict(users or {})
        self.tls = tls
        self.require_certificate = require_certificate
        self.persistence = persistence
        self.extra = extra
        self.config = config
        self.config_file = directory / "mosquitto.conf"
        self.log: list[str] = []
        self._log_lock = threading.Condition()
        self._process: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None
        self._write_config()

    def _write_config(self) -> None:
        lines = ["# written by tests/helpers/mosquitto.py", "log_dest stderr", "log_type all",
                 "connection_messages true"]
        if os.geteuid() == 0:
            lines.append("user root")  # else it switches to user mosquitto, who cannot read our files
        if self.config is not None:  # a whole configuration of the test's own
            self.config_file.write_text("\n".join([*lines, self.config]) + "\n")
            return
        lines.append(f"persistence {'true' if self.persistence else 'false'}")
        if self.persistence:
            lines.append(f"persistence_location {self.directory}/")
        lines.append(f"listener {self.port} {self.host}")
        if self.tls is not None:
            lines += [f"cafile {self.tls.ca}", f"certfile {self.tls.server_cert}",
                      f"keyfile {self.tls.server_key}"]
            if self.require_certificate:
                lines.append("require_certificate true")
        if self.ws_port is not None:
            lines += [f"listener {self.ws_port} {self.host}", "protocol websockets"]
        if self.users:
            password_file = make_password_file(self.directory / "passwords", self.users)
            lines += [f"password_file {password_file}", "allow_anonymous false"]
        else:
            lines.append("allow_anonymous true")
        if self.extra:
            lines.append(self.extra)
        self.config_file.write_text("\n".join(lines) + "\n")

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout: float = TIMEOUT) -> None:
        """Start the broker and wait for its "running" log line (its listeners are open).

        If a port this object chose was taken meanwhile by another program, it starts again
        on new ones (a port given by the caller or in a whole ``config`` is the caller's:
        :func:`start_on_free_ports` retries those)."""
        for attempt in range(3):
            try:
                self._start(timeout)
                return
            except RuntimeError as error:
                if not (self._ports_chosen_here and port_taken(error)) or attempt == 2:
                    raise
            self.port = free_port()
            self.ws_port = free_port() if self.ws_port is not None else None
            self._write_config()

    def _start(self, timeout: float) -> None:
        assert not self.running
        with self._log_lock:
            start = len(self.log)
        self._process = subprocess.Popen([self.binary, "-c", str(self.config_file)], stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._read_log, args=(self._process,), daemon=True)
        self._reader.start()
        try:
            self.wait_for_log(lambda line: " running" in line, timeout, since=start)
        except TimeoutError:
            self.stop()
            raise RuntimeError("mosquitto did not start:\n" + "\n".join(self.log[start:])) from None

    def _read_log(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            with self._log_lock:
                self.log.append(line.rstrip("\n"))
                self._log_lock.notify_all()
        with self._log_lock:
            self.log.append(f"(mosquitto exited: {process.wait()})")
            self._log_lock.notify_all()

    def wait_for_log(self, match: Callable[[str], bool], timeout: float = TIMEOUT, since: int = 0) -> str:
        """The first log line from index ``since`` that ``match``es, waiting for it."""
        deadline = time.monotonic() + timeout
        with self._log_lock:
            while True:
                for line in self.log[since:]:
                    if match(line):
                        return line
                    if line.startswith("(mosquitto exited"):
                        raise TimeoutError(line)
                since = len(self.log)
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no such line in mosquitto's log")
                self._log_lock.wait(left)

    def stop(self, timeout: float = TIMEOUT) -> None:
        """SIGTERM (mosquitto saves its persistence database), then wait for it to exit."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout)
        if self._reader is not None:
            self._reader.join(timeout)  # its last lines, "exited" included, are in the log now

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> Mosquitto:
        if not self.running:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def client_options(self, **overrides: Any) -> dict[str, Any]:
        """Keyword arguments for :class:`Subscriber` that reach this broker."""
        options: dict[str, Any] = {"host": self.host, "port": self.port}
        if self.tls is not None:
            options["ca"] = self.tls.ca
            if self.require_certificate:
                options["cert"], options["key"] = self.tls.client_cert, self.tls.client_key
        options.update(overrides)
        return options


# -- a subscriber -----------------------------------------------------------------------


@dataclass(frozen=True)
class Message:
    topic: str
    payload: bytes
    retain: bool

    def json(self) -> Any:
        return json.loads(self.payload)


class Subscriber:
    """An MQTT client (paho) that subscribes to ``topics`` on every connect and records
    every message; tests wait on it (``get``, ``wait_for``), never sleep.

    ``clean_session=False`` with a ``client_id`` keeps the session (and QoS 1 messages
    for it) at the broker while it is away, e.g. across a broker restart with persistence.
    """

    def __init__(self, topics: str | list[str], *, host: str = HOST, port: int, username: str | None = None,
                 password: str | None = None, ca: Path | None = None, cert: Path | None = None,
                 key: Path | None = None, client_id: str = "", clean_session: bool = True,
                 transport: Literal["tcp", "websockets"] = "tcp",
                 protocol: MQTTProtocolVersion = MQTTProtocolVersion.MQTTv311) -> None:
        self.topics = [topics] if isinstance(topics, str) else list(topics)
        self.messages: queue.Queue[Message] = queue.Queue()
        self.seen: list[Message] = []
        self.connected = threading.Event()
        self.subscribed = threading.Event()
        self.refused: queue.Queue[str] = queue.Queue()
        extra: dict[str, Any] = {} if protocol == mqtt.MQTTv5 else {"clean_session": clean_session}
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=protocol,
                                  transport=transport, **extra)
        if username is not None:
            self.client.username_pw_set(username, password)
        if ca is not None:
            self.client.tls_set(str(ca), str(cert) if cert else None, str(key) if key else None)
        self.client.reconnect_delay_set(0, 1)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_subscribe = self._on_subscribe
        self.client.on_message = self._on_message
        self.client.connect_async(host, port, keepalive=10)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if reason.is_failure:
            self.refused.put(str(reason))
            return
        self.connected.set()
        client.subscribe([(t, 1) for t in self.topics])

    def _on_disconnect(self, *args: Any) -> None:
        self.connected.clear()
        self.subscribed.clear()

    def _on_subscribe(self, *args: Any) -> None:
        self.subscribed.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        m = Message(message.topic, bytes(message.payload), bool(message.retain))
        self.seen.append(m)
        self.messages.put(m)

    def wait_subscribed(self, timeout: float = TIMEOUT) -> Subscriber:
        if not self.subscribed.wait(timeout):
            raise TimeoutError(f"not subscribed to {self.topics} within {timeout} s")
        return self

    def get(self, timeout: float = TIMEOUT) -> Message:
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no message on {self.topics} within {timeout} s") from None

    def wait_for(self, match: Callable[[Message], bool], timeout: float = TIMEOUT) -> Message:
        """The next message that ``match``es (the ones before it are consumed)."""
        deadline = time.monotonic() + timeout
        while True:
            m = self.get(max(0.0, deadline - time.monotonic()))
            if match(m):
                return m

    def wait_topic(self, topic: str, payload: bytes | None = None, timeout: float = TIMEOUT) -> Message:
        return self.wait_for(lambda m: m.topic == topic and payload in (None, m.payload), timeout)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def __enter__(self) -> Subscriber:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- a network cable to pull ---------------------------------------------------------------


class TcpProxy:
    """A TCP forwarder from ``HOST:port`` to a broker, to break the network between a client
    and the broker without stopping the broker.

    ``hold()`` black-holes both directions (bytes are read and dropped, as when a cable is
    pulled: the client's packets are lost and no acknowledgement comes back);
    ``wait_dropped()`` waits until the client has sent something into the hole; ``cut()``
    closes every connection and lets new ones through again.
    """

    def __init__(self, target_port: int, target_host: str = HOST) -> None:
        self.target = (target_host, target_port)
        self.listener = socket.create_server((HOST, 0))
        self.port = int(self.listener.getsockname()[1])
        self.holding = threading.Event()
        self.dropped = threading.Event()
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.target, timeout=TIMEOUT)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, from_client: bool) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if self.holding.is_set():
                    if from_client:
                        self.dropped.set()
                    continue
                sink.sendall(data)
        for s in (source, sink):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def hold(self) -> None:
        self.dropped.clear()
        self.holding.set()

    def wait_dropped(self, timeout: float = TIMEOUT) -> None:
        if not self.dropped.wait(timeout):
            raise TimeoutError("the client sent nothing into the hole")

    def cut(self) -> None:
        with self._lock:
            sockets, self._sockets = self._sockets, []
        self.holding.clear()
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def close(self) -> None:
        self.listener.close()
        self.cut()


# -- fixtures ---------------------------------------------------------------------------


@pytest.fixture(scope="session")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> TlsFiles:
    return make_tls_files(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def mosquitto_factory(tmp_path: Path) -> Iterator[Callable[..., Mosquitto]]:
    brokers: list[Mosquitto] = []

    def make(**options: Any) -> Mosquitto:
        broker = Mosquitto(tmp_path / f"broker{len(brokers)}", **options)
        brokers.append(broker)
        broker.start()
        return broker

    try:
        yield make
    finally:
        for broker in brokers:
            with contextlib.suppress(Exception):
                broker.stop()


@pytest.fixture
def mosquitto_broker(mosquitto_factory: Callable[..., Mosquitto]) -> Mosquitto:
    return mosquitto_factory()
