"""A venue as ``cueboard venue init`` writes it, on a real mosquitto running those files.

:func:`running_venue` makes the venue's folder on free loopback ports (TLS, the password files,
the ACL), adds a scorer login for each table named, and starts mosquitto with the venue's own
``venue.conf``; :class:`Venue` reads its logins and changes it as an installer would (a
``cueboard venue`` command, then the reload systemd sends). :func:`venue_pages` serves the
pages over HTTPS with the venue's certificate, as ``cueboard screen`` does at a venue, and
:func:`spki_hash` has Chromium trust that certificate. bench/live_venue.py builds on these too.
"""

from __future__ import annotations

import base64
import hashlib
import io
import signal
import ssl
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cueboard.cli import parser
from cueboard.common.web_server import WebServer, tls_context
from cueboard.venue.command import run as venue_command
from cueboard.venue.pages import make_server, serve_in_thread
from tests.helpers.mosquitto import Mosquitto, free_port, port_taken, require_mosquitto

LISTENERS = ("tables", "people", "pages", "screens")


def venue_run(*argv: str) -> tuple[int, str]:
    """``cueboard venue <argv>``: its exit status and what it printed."""
    out = io.StringIO()
    status = venue_command(parser().parse_args(["venue", *argv]), out)
    return status, out.getvalue()


def venue_cli(*argv: str) -> str:
    """``cueboard venue <argv>``, which must succeed: what it printed."""
    status, out = venue_run(*argv)
    assert status == 0, out
    return out


@dataclass
class Venue:
    directory: Path
    broker: Mosquitto
    ports: dict[str, int]

    def password(self, login: str) -> str:
        return (self.directory / "logins" / f"{login}.password").read_text().strip()

    @property
    def ca(self) -> Path:
        return self.directory / "ca" / "venue-ca.crt"

    def change(self, *argv: str) -> str:
        """A ``cueboard venue`` change, then the broker reloaded as systemd does (SIGHUP)."""
        out = venue_cli(*argv, "--dir", str(self.directory), "--no-reload")
        since = len(self.broker.log)
        process = self.broker._process
        assert process is not None
        process.send_signal(signal.SIGHUP)
        self.broker.wait_for_log(lambda line: "Reloading config" in line, since=since)
        return out

    def add_user(self, name: str, role: str = "desk", table: str | None = None) -> dict[str, str]:
        """A login of its own for another device (one login per device: ``cueboard venue add-user``,
        the broker reloaded): its user and password as the desk's form takes them."""
        self.change("add-user", name, "--role", role, *(["--table", table] if table else []))
        return {"user": name, "password": self.password(name)}

    def desk_pages(self) -> AbstractContextManager[Pages]:
        """:func:`venue_pages` for the desk and the hall's pages: the desk's broker on the pages'
        listener, the screens' (the bracket's) on theirs."""
        return venue_pages(self.directory, venue="club", broker_ws=f"wss://localhost:{self.ports['screens']}",
                           page={"desk_broker": f"wss://localhost:{self.ports['pages']}"})


def init_venue(directory: Path, tables: int, scorers: Sequence[str] = (), venue: str = "club",
               desks: Sequence[str] = ()) -> dict[str, int]:
    """``cueboard venue init`` of ``venue`` in ``directory`` with ``tables`` tables (t1,
    t2, ...), its listeners on free loopback ports, a certificate for localhost and 127.0.0.1;
    a scorer login ``scorer-<table>`` for each of ``scorers``. The listeners' ports."""
    ports = {name: free_port() for name in LISTENERS}
    venue_cli("init", "--dir", str(directory), "--venue", venue, "--tables", str(tables), "--host", "localhost",
              "--host", "127.0.0.1", "--bind", "127.0.0.1", *(f"--{k}-port={v}" for k, v in ports.items()))
    for desk in desks:  # more desk logins, made before the broker starts (no reload to wait for)
        venue_cli("add-user", desk, "--role", "desk", "--dir", str(directory), "--no-reload")
    for table in scorers:
        venue_cli("add-user", f"scorer-{table}", "--role", "scorer", "--table", table, "--dir", str(directory),
                  "--no-reload")
    return ports


@contextmanager
def running_venue(tmp_path: Path, tables: int = 2, scorers: Sequence[str] = (),
                  desks: Sequence[str] = ()) -> Iterator[Venue]:
    """The venue of :func:`init_venue` in ``tmp_path/venue``, its broker running the files it wrote."""
    require_mosquitto()
    for attempt in range(3):
        # A port found free can be taken before mosquitto binds it: then the venue is written
        # again on new ones (tests/helpers/mosquitto.py free_port).
        directory = tmp_path / ("venue" if attempt == 0 else f"venue-{attempt}")
        ports = init_venue(directory, tables, scorers, desks=desks)
        config = (directory / "mosquitto" / "venue.conf").read_text()
        broker = Mosquitto(tmp_path / f"broker-{attempt}" if attempt else tmp_path / "broker",
                           port=ports["tables"], config=config)
        try:
            broker.start()
        except RuntimeError as error:
            if not port_taken(error) or attempt == 2:
                raise
            continue
        with broker:
            yield Venue(directory, broker, ports)
        return


def spki_hash(certificate: Path) -> str:
    """Chromium's --ignore-certificate-errors-spki-list form of the venue's server key: the
    browser trusts that one key, as a device that installed the venue's CA trusts its certificate."""
    der = ssl.PEM_cert_to_DER_cert(certificate.read_text())
    public = subprocess.run(["openssl", "x509", "-inform", "DER", "-pubkey", "-noout"], input=der,
                            capture_output=True, check=True).stdout
    spki = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "DER"], input=public, capture_output=True,
                          check=True).stdout
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


@dataclass
class Pages:
    server: WebServer
    stopped: bool = False

    @property
    def base(self) -> str:
        """``https://localhost:<port>``: the certificate's name, not the address it listens on."""
        return f"https://localhost:{self.server.server_address[1]}"

    def stop(self) -> None:
        """Stopped (again: nothing more), as the venue's server going away under a page."""
        if not self.stopped:
            self.stopped = True
            self.server.shutdown()
            self.server.server_close()


@contextmanager
def venue_pages(directory: Path, **options: Any) -> Iterator[Pages]:
    """The pages (``cueboard screen``'s server, ``options`` as :func:`make_server` takes them)
    over HTTPS with the venue's certificate, stopped at the end."""
    certs = directory / "certs"
    tls = tls_context(str(certs / "server.crt"), str(certs / "server.key"))
    pages = Pages(make_server("127.0.0.1", 0, tls=tls, **options))
    serve_in_thread(pages.server)
    try:
        yield pages
    finally:
        pages.stop()
