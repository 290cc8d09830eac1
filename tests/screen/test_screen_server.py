"""``cueboard screen``'s file server (issue 16, finding 6; docs/security.md): only the page's
own files, the path decoded and normalised before the check, no directory listings, a 404
and never a dropped connection or a 500 for a bad path, and the security headers the page
runs under (tests/screen/test_screen.py runs the page under them in headless Chromium).

Requests go out over a plain socket, byte for byte as written here: an HTTP library would
tidy the paths up first."""

from __future__ import annotations

import json
import socket
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cueboard.venue.pages import (
    CONTENT_SECURITY_POLICY,
    PAGE_FILES,
    SCREEN_DIR,
    SECURITY_HEADERS,
    make_server,
    page_files,
    run_screen,
    serve_in_thread,
)

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes


def request(port: int, target: str, method: str = "GET", host: str = "screen") -> Answer:
    """One HTTP/1.1 request with ``target`` sent as it is (``Host: host``); the answer, read to the end."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(f"{method} {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode("latin-1"))
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    assert data, f"{target!r}: the server closed the connection without an answer"
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return Answer(int(status_line.split()[1]), headers, body)


def fake_page(directory: Path) -> Path:
    """A page folder as a checkout has it after ``npm ci``: the page, and its tooling beside it."""
    files = {
        "index.html": "<!doctype html><title>page</title>", "screen.js": "// page", "screen.css": "body{}",
        "config.js": "// the checkout's defaults", "favicon.ico": "ico", "vendor/mqtt.min.js": "// mqtt",
        "vendor/state.schema.json": "{}", "i18n/fr.json": "{}",
        # not the page's:
        "package.json": '{"private": true}', "package-lock.json": "{}", "vendor.mjs": "// tool",
        "__init__.py": "", ".eslintrc.js": "// tool", "tools/build.js": "// tool", "vendor/deep/x.js": "// tool",
        "node_modules/mqtt/package.json": "{}", "node_modules/x.js": "// tool", "vendor/notes.txt": "notes",
    }
    for name, text in files.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(text)
    return directory


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    server = make_server("127.0.0.1", 0, directory=fake_page(tmp_path_factory.mktemp("screen")), venue="club")
    serve_in_thread(server)
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


PAGE = ["/", "/index.html", "/screen.js", "/screen.css", "/favicon.ico", "/vendor/mqtt.min.js",
        "/vendor/state.schema.json", "/i18n/fr.json", "/config.js", "/screen.js?v=2", "/vendor/./mqtt.min.js",
        "/%73creen.js", "//vendor//mqtt.min.js"]

NOT_THE_PAGE = [
    # finding 6 as measured
    "/./node_modules/x.js", "/%6eode_modules/x.js", "/vendor/../node_modules/x.js", "/package%2ejson",
    "/package.json%00", "/./node_modules/mqtt/package.json", "/%6eode_modules/mqtt/package.json",
    "/vendor/../node_modules/mqtt/package.json",
    # the tooling, plainly and encoded
    "/package.json", "/package-lock.json", "/vendor.mjs", "/__init__.py", "/.eslintrc.js", "/tools/build.js",
    "/vendor/deep/x.js", "/vendor/notes.txt", "/node_modules/x.js", "/%2e/package.json", "/%2E%2Fpackage.json",
    "/vendor%2f..%2fpackage.json", "/vendor/%2e%2e/package.json", "/node_modules%2fx.js", "/%6E%6F%64%65_modules/x.js",
    "/package.json%20", "/package.json/.", "/PACKAGE.JSON", "/index.html%00.js", "/screen.js%00",
    "/vendor\\..\\package.json", "/%5cpackage.json", "/%252e%252e/package.json", "/%c0%ae%c0%ae/package.json",
    "/%ff", "/%", "/%zz", "/screen.js%0d%0aX-Injected:%201",
    # outside the folder
    "/../pyproject.toml", "/%2e%2e/pyproject.toml", "/..%2fpyproject.toml", "/vendor/../../pyproject.toml",
    "/../../../../etc/passwd", "/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    # folders: no listings
    "/vendor/", "/vendor", "/node_modules/", "/i18n/", "/..",
]


@pytest.mark.parametrize("target", PAGE)
def test_the_page_is_served(port: int, target: str) -> None:
    answer = request(port, target)
    assert answer.status == 200, answer
    assert answer.headers["content-type"].split(";")[0] in (
        "text/html", "text/javascript", "text/css", "application/json", "image/x-icon")
    assert answer.headers["content-length"] == str(len(answer.body))


@pytest.mark.parametrize("target", NOT_THE_PAGE)
def test_anything_else_is_a_404(port: int, target: str) -> None:
    answer = request(port, target)
    assert answer.status == 404, (target, answer)
    assert b"tool" not in answer.body and b"private" not in answer.body and b"root:" not in answer.body
    assert "x-injected" not in answer.headers
    assert request(port, "/").status == 200  # and the server serves on


@pytest.mark.parametrize(("method", "status"), [("GET", 200), ("HEAD", 200), ("GET", 404), ("POST", 501),
                                                ("PUT", 501), ("DELETE", 501)])
def test_every_answer_has_the_security_headers(port: int, method: str, status: int) -> None:
    answer = request(port, "/index.html" if status != 404 else "/package.json", method)
    assert answer.status == status
    for name, value in SECURITY_HEADERS.items():
        assert answer.headers[name.lower()] == value
    assert "content-security-policy" in answer.headers
    if method == "HEAD":
        assert answer.body == b""


def _policy(header: str) -> dict[str, str]:
    return dict(d.split(" ", 1) for d in header.split("; "))


def test_the_headers_say_what_the_page_may_do() -> None:
    assert SECURITY_HEADERS["X-Content-Type-Options"] == "nosniff"
    assert SECURITY_HEADERS["Referrer-Policy"] == "no-referrer"
    policy = _policy(CONTENT_SECURITY_POLICY)
    assert policy["default-src"] == "'none'"
    assert policy["script-src"] == "'self'"  # no inline scripts, no eval
    assert policy["connect-src"] == "'self'"  # what is no page connects nowhere else


def test_config_js_is_the_servers_settings(port: int) -> None:
    """No broker configured: the venue's listeners on the host the page was asked by."""
    answer = request(port, "/config.js")
    assert answer.body == (b'window.CUEBOARD_SCREEN = {"venue": "club", "broker": "wss://screen:9001", '
                           b'"desk_broker": "wss://screen:8885"};\n')
    assert answer.headers["cache-control"] == "no-store"


# Each page's document and the policy's connect-src: the page's own broker, exactly (issue 37, row 1).
PAGE_BROKERS = [("/", "broker"), ("/index.html", "broker"), ("/bracket", "broker"), ("/desk", "desk_broker"),
                ("/score", "desk_broker"), ("/score/sw.js", "desk_broker")]


@pytest.mark.parametrize(("target", "key"), PAGE_BROKERS)
def test_connect_src_names_exactly_the_configured_broker(target: str, key: str) -> None:
    server = make_server("127.0.0.1", 0, venue="club", broker_ws="wss://Screens.Club.lan:9001/mqtt",
                         page={"desk_broker": "wss://broker.club.lan"})
    serve_in_thread(server)
    try:
        answer = request(server.server_address[1], target, host="evil.example:8080")
        assert answer.status == 200, target
        wanted = {"broker": "wss://screens.club.lan:9001", "desk_broker": "wss://broker.club.lan:443"}[key]
        assert _policy(answer.headers["content-security-policy"])["connect-src"] == f"'self' {wanted}"
        config = request(server.server_address[1], "/config.js", host="evil.example:8080").body.decode()
        assert json.loads(config.split("=", 1)[1].rstrip().rstrip(";")) == {
            "venue": "club", "broker": "wss://Screens.Club.lan:9001/mqtt", "desk_broker": "wss://broker.club.lan"}
        script = request(server.server_address[1], "/screen.js")
        assert _policy(script.headers["content-security-policy"])["connect-src"] == "'self'"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("host", "screens", "pages"), [
    ("tv.club.lan:8080", "wss://tv.club.lan:9001", "wss://tv.club.lan:8885"),
    ("[::1]:8080", "wss://[::1]:9001", "wss://[::1]:8885"),
    ("127.0.0.1", "wss://127.0.0.1:9001", "wss://127.0.0.1:8885")])
def test_with_no_broker_configured_the_pages_use_their_own_host(host: str, screens: str, pages: str) -> None:
    """A plain ``cueboard screen`` (a hall TV): the venue's listeners on the page's own host, in
    config.js and in the policy alike."""
    server = make_server("127.0.0.1", 0)
    serve_in_thread(server)
    try:
        port = server.server_address[1]
        config = request(port, "/config.js", host=host).body.decode()
        assert json.loads(config.split("=", 1)[1].rstrip().rstrip(";")) == {"broker": screens, "desk_broker": pages}
        assert _policy(request(port, "/", host=host).headers["content-security-policy"])["connect-src"] == \
            f"'self' {screens}"
        assert _policy(request(port, "/desk", host=host).headers["content-security-policy"])["connect-src"] == \
            f"'self' {pages}"
        # A Host that is no host name gives no broker at all, rather than one made of it.
        odd = request(port, "/config.js", host="a@b")
        assert odd.body == b"window.CUEBOARD_SCREEN = {};\n"
        assert _policy(request(port, "/", host="a@b").headers["content-security-policy"])["connect-src"] == "'self'"
    finally:
        server.shutdown()
        server.server_close()


def test_the_allow_list_is_the_installed_package_data() -> None:
    """What cueboard screen serves is what pip installs as cueboard.web: one list, twice."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert tuple(data["cueboard.web"]) == PAGE_FILES


def test_the_real_page_is_served_and_its_tooling_is_not() -> None:
    files = page_files(SCREEN_DIR)
    assert {"index.html", "screen.js", "screen.css", "vendor/mqtt.min.js", "vendor/state.schema.json"} <= files
    assert not any(f.startswith("node_modules/") or f in ("package.json", "package-lock.json", "vendor.mjs",
                                                          "__init__.py") for f in files)
    server = make_server("127.0.0.1", 0)
    serve_in_thread(server)
    try:
        for name in files:
            assert request(server.server_address[1], "/" + name).status == 200, name
        for target in ("/package.json", "/vendor.mjs", "/./node_modules/mqtt/package.json", "/package%2ejson"):
            assert request(server.server_address[1], target).status == 404, target
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("option", "url"), [("--broker-ws", "broker.club.lan:9001"),
                                             ("--desk-broker", "https://broker.club.lan:8885")])
def test_a_broker_that_is_no_websockets_url_is_refused_before_the_server_starts(
        option: str, url: str, capsys: pytest.CaptureFixture[str]) -> None:
    broker_ws = url if option == "--broker-ws" else None
    page: dict[str, str | int | float] = {"desk_broker": url} if option == "--desk-broker" else {}
    assert run_screen(host="127.0.0.1", port=0, broker_ws=broker_ws, venue=None, table=None, page=page) == 2
    said = capsys.readouterr().err
    assert option in said and repr(url) in said and "wss://host:port" in said
