"""The venue's CA and the broker's certificate, made with the ``openssl`` command (Debian's
``openssl`` package; every Pi OS has it).

The CA signs one server certificate, for every name and address the broker and the pages are
reached by (``--host``): MQTT over TLS, WebSockets over TLS and the pages' HTTPS all show it.
Tables, the desk's laptops, scorers' phones and screens trust ``venue-ca.crt``. Keys are
P-256, written 0600 (0640 to the ``mosquitto`` group for the broker's key, when run as root).
"""

from __future__ import annotations

import ipaddress
import shutil
import subprocess
import tempfile
from pathlib import Path

from cueboard.common.errors import PkiError

__all__ = ["PkiError", "make_ca", "make_server_cert"]

CA_DAYS = 3650
SERVER_DAYS = 825  # what browsers accept for a certificate from a private CA


def _openssl(*args: str, cwd: Path) -> None:
    binary = shutil.which("openssl")
    if binary is None:
        raise PkiError("openssl is not installed (Debian: apt-get install openssl)")
    run = subprocess.run([binary, *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    if run.returncode != 0:
        raise PkiError(f"openssl {args[0]} failed: {run.stderr.strip()[-400:]}")


def make_ca(directory: Path, name: str) -> tuple[Path, Path]:
    """``venue-ca.crt`` and ``venue-ca.key`` in ``directory`` (an existing pair is kept)."""
    cert, key = directory / "venue-ca.crt", directory / "venue-ca.key"
    if cert.exists() and key.exists():
        return cert, key
    directory.mkdir(parents=True, exist_ok=True)
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-keyout", str(key), "-out", str(cert), "-days", str(CA_DAYS), "-subj", f"/CN={name} CA",
             "-addext", "basicConstraints=critical,CA:TRUE,pathlen:0",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=directory)
    key.chmod(0o600)
    return cert, key


def _alt_names(hosts: list[str]) -> str:
    names = []
    for host in hosts:
        try:
            ipaddress.ip_address(host)
            names.append(f"IP:{host}")
        except ValueError:
            names.append(f"DNS:{host}")
    return ",".join(names)


def make_server_cert(directory: Path, ca: tuple[Path, Path], hosts: list[str]) -> tuple[Path, Path]:
    """``server.crt`` and ``server.key`` for ``hosts`` (names and addresses), signed by ``ca``."""
    cert, key = directory / "server.crt", directory / "server.key"
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        (work / "ext").write_text(f"subjectAltName={_alt_names(hosts)}\nextendedKeyUsage=serverAuth\n"
                                  "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n")
        _openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                 "-keyout", str(key), "-out", str(work / "csr"), "-subj", f"/CN={hosts[0]}", cwd=work)
        _openssl("x509", "-req", "-in", str(work / "csr"), "-CA", str(ca[0]), "-CAkey", str(ca[1]),
                 "-CAcreateserial", "-CAserial", str(work / "serial"), "-out", str(cert),
                 "-days", str(SERVER_DAYS), "-extfile", str(work / "ext"), cwd=work)
    key.chmod(0o600)
    return cert, key
