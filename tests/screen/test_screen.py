"""The venue screen (``screen/``): served by ``cueboard screen``, and end to end in headless Chromium.

Each end-to-end test runs a real mosquitto with a WebSockets listener, serves the page with
``cueboard.venue.pages`` and runs one scenario of ``tests/screen/screen_e2e.mjs`` (node, playwright-core
driving Debian's ``chromium``), which publishes real states (the examples' logs replayed) and
reads the page back: the numbers on the cards, how large they are drawn against the targets
(docs/screen.md), the pages, the overlay's transparency, the words of each language, the shot
clock counting down, a table's last will and the page losing its broker. The screenshots of the
README and docs/screen.md are saved where ``CUEBOARD_SCREENSHOTS`` says (else a temporary folder).

Needs: Debian ``chromium``, ``nodejs`` and ``fonts-noto-cjk``, and ``npm ci`` in ``screen/``
(playwright-core, mqtt); without them the end-to-end tests are skipped
(``CUEBOARD_REQUIRE_SCREEN=1``: a failure).
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import subprocess
import threading
import urllib.request
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import pytest
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from cueboard.cli import parser
from cueboard.engine import Match
from cueboard.games.replay import replay
from cueboard.games.simulate import final_log
from cueboard.venue.pages import SCREEN_DIR, make_server, serve_in_thread
from tests.helpers.mosquitto import Mosquitto
from tests.screen.node_e2e import run_e2e

pytestmark = pytest.mark.system


ROOT = Path(__file__).resolve().parents[2]
E2E = Path(__file__).with_name("screen_e2e.mjs")
CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium") if p and os.access(p, os.X_OK)), None)
LANGUAGES = ["en", "nl", "sv", "de", "fr"]
NAMES = ["Ronnie O'Sullivan", "Judd Trump", "赵心童", "Mark Selby", "Anne-Sophie Vandermeulen", "Bob",
         "Ding Junhui", "Kyren Wilson", "Jürgen Müller", "Åsa Sjöström", "Luca Brecel", "Neil Robertson",
         "Bernadette Fitzgerald", "Alexander Ursenbacher", "Zhou Yuelong", "Si Jiahui"]


def _require(what: bool, why: str) -> None:
    if not what:
        if os.environ.get("CUEBOARD_REQUIRE_SCREEN", "") not in ("", "0"):
            pytest.fail(why)
        pytest.skip(why)


def _require_browser() -> None:
    _require(CHROMIUM is not None, "chromium is not installed: apt-get install chromium")
    _require(shutil.which("node") is not None, "node is not installed: apt-get install nodejs")
    modules = SCREEN_DIR / "node_modules"
    _require((modules / "playwright-core").is_dir() and (modules / "mqtt").is_dir(),
             "screen/node_modules is missing: (cd screen && npm ci)")


def _require_cjk_font() -> None:
    fonts = subprocess.run(["fc-list", ":lang=zh", "family"], capture_output=True, text=True).stdout \
        if shutil.which("fc-list") else ""
    _require(bool(fonts.strip()), "no Chinese font: apt-get install fonts-noto-cjk (names like 赵心童 show as boxes)")


Serve = Callable[[int], str]
"""The page's address on a server configured with the broker's WebSockets port: a page connects
only to its server's broker (issue 37; the link's ``?broker=``, the same one, is ignored)."""


@pytest.fixture
def screen_server() -> Iterator[Serve]:
    stops: list[Callable[[], None]] = []

    def serve(ws_port: int) -> str:
        server = make_server("127.0.0.1", 0, broker_ws=f"ws://127.0.0.1:{ws_port}")
        serve_in_thread(server)
        stops.extend((server.shutdown, server.server_close))
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield serve
    for stop in stops:
        stop()


@pytest.fixture
def screenshots(tmp_path: Path) -> Path:
    where = Path(os.environ.get("CUEBOARD_SCREENSHOTS", tmp_path / "shots"))
    where.mkdir(parents=True, exist_ok=True)
    return where


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, ""


# -- the files ----------------------------------------------------------------------------------


def test_server_serves_the_page_and_its_settings() -> None:
    server = make_server("127.0.0.1", 0, broker_ws="ws://broker.club.lan:9001", venue="club")
    serve_in_thread(server)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        status, page = _get(base)
        assert status == 200 and "screen.js" in page and "vendor/mqtt.min.js" in page and "favicon.svg" in page
        status, config = _get(base + "config.js")
        assert status == 200
        assert json.loads(config.split("=", 1)[1].rstrip().rstrip(";")) == {
            "broker": "ws://broker.club.lan:9001", "venue": "club", "desk_broker": "wss://127.0.0.1:8885"}
        for path in ("vendor/mqtt.min.js", "vendor/state.schema.json", "favicon.ico", "favicon.svg", "i18n/sv.json",
                     "card.js", "shared/validate.js", "shared/broker.js", "games/snooker.js", "vendor/hooks.js"):
            assert _get(base + path)[0] == 200, path
        assert _get(base + "package.json")[0] == 404
        assert _get(base + "node_modules/mqtt/package.json")[0] == 404
    finally:
        server.shutdown()
        server.server_close()


def test_cueboard_screen_options_reach_the_page(capsys: pytest.CaptureFixture[str]) -> None:
    """``cueboard screen --tables --view --per-page --rotate --lang`` become the page's defaults
    in config.js; nonsense is refused before the server starts, naming the option."""
    args = parser().parse_args(["screen", "--tables", "1-8,final", "--view", "list", "--per-page", "10",
                                "--rotate", "15", "--lang", "sv"])
    page = {"tables": args.tables, "view": args.view, "per_page": args.per_page, "rotate": args.rotate,
            "lang": args.lang}
    server = make_server("127.0.0.1", 0, venue="club", page=page)
    serve_in_thread(server)
    try:
        status, config = _get(f"http://127.0.0.1:{server.server_address[1]}/config.js")
        assert status == 200
        assert json.loads(config.split("=", 1)[1].rstrip().rstrip(";")) == {
            "venue": "club", "tables": "1-8,final", "view": "list", "per_page": 10, "rotate": 15.0, "lang": "sv",
            "broker": "wss://127.0.0.1:9001", "desk_broker": "wss://127.0.0.1:8885"}
    finally:
        server.shutdown()
        server.server_close()
    refused = [(["--tables", "8-1"], 'the range "8-1" runs backwards'), (["--per-page", "0"], "0 is not from 1 to 64"),
               (["--rotate", "soon"], "'soon' is not a number"), (["--lang", "es"], "invalid choice: 'es'")]
    for bad, why in refused:
        with pytest.raises(SystemExit):
            parser().parse_args(["screen", *bad])
        assert why in capsys.readouterr().err


def test_vendored_files_are_current() -> None:
    """screen/vendor/ holds the project's schemas as they are, and mqtt.js at the locked version."""
    for schema in (ROOT / "schema").glob("*.schema.json"):
        assert (SCREEN_DIR / "vendor" / schema.name).read_text() == schema.read_text(), \
            f"screen/vendor/{schema.name} is stale: run `node screen/vendor.mjs`"
    lock = json.loads((SCREEN_DIR / "package-lock.json").read_text())
    version = lock["packages"]["node_modules/mqtt"]["version"]
    assert json.loads((SCREEN_DIR / "package.json").read_text())["dependencies"]["mqtt"] == version
    bundle = (SCREEN_DIR / "vendor" / "mqtt.min.js").read_text()
    assert len(bundle) > 100_000 and "mqtt" in bundle
    installed = SCREEN_DIR / "node_modules" / "mqtt" / "dist" / "mqtt.min.js"
    if installed.exists():
        assert installed.read_text() == bundle, "screen/vendor/mqtt.min.js is stale: run `node screen/vendor.mjs`"
    # The desk's and the scorer's UI stack (screen/shared/ui.js): Preact, its hooks and htm, as the
    # lock pins them; the hooks import the Preact beside them, nothing by a package's name.
    stack = (("preact", "preact.js", "dist/preact.module.js", {}),
             ("preact", "hooks.js", "hooks/dist/hooks.module.js", {'from"preact"': 'from"./preact.js"'}),
             ("htm", "htm.js", "dist/htm.module.js", {}))
    for package, name, file, rewrites in stack:
        version = lock["packages"][f"node_modules/{package}"]["version"]
        assert json.loads((SCREEN_DIR / "package.json").read_text())["dependencies"][package] == version
        vendored = (SCREEN_DIR / "vendor" / name).read_text()
        imports = re.findall(r'\bfrom\s*"([^"]*)"', vendored)
        assert all(i == "./preact.js" for i in imports) and "export" in vendored, name  # no CDN, no bare import
        installed = SCREEN_DIR / "node_modules" / package / file
        if installed.exists():
            expected = installed.read_text()
            for old, new in rewrites.items():
                expected = expected.replace(old, new)
            assert expected == vendored, f"screen/vendor/{name} is stale: run `node screen/vendor.mjs`"


def test_every_page_script_is_type_checked_and_linted() -> None:
    """Every page's own JavaScript (the screen, shared/, games/, the desk, the scorer and its
    service worker) is in `npm run check`: tsc reads the files each of its configs includes
    (tsconfig.json the pages', tsconfig.worker.json the service worker's, with the worker's
    globals) and checks those marked `// @ts-check` (strict), eslint lints the folder; the
    vendored bundles are neither."""
    check = json.loads((SCREEN_DIR / "package.json").read_text())["scripts"]["check"]
    covered: dict[Path, list[str]] = {}
    for name in ("tsconfig.json", "tsconfig.worker.json"):
        assert f"tsc -p {name}" in check
        config = json.loads((SCREEN_DIR / name).read_text())
        options = config["compilerOptions"]
        if "extends" in config:
            base = json.loads((SCREEN_DIR / config["extends"]).read_text())
            options = {**base["compilerOptions"], **options}
        assert options["strict"] is True, name
        excluded = {path for pattern in config.get("exclude", []) for path in SCREEN_DIR.glob(pattern)}
        for path in {path for pattern in config["include"] for path in SCREEN_DIR.glob(pattern)} - excluded:
            covered.setdefault(path, []).append(name)
    ours = {path for path in SCREEN_DIR.rglob("*.js")
            if not {"vendor", "node_modules"} & set(path.relative_to(SCREEN_DIR).parts)}
    assert ours and ours <= set(covered), sorted(str(p) for p in ours - set(covered))
    twice = {str(p.relative_to(SCREEN_DIR)): names for p, names in covered.items() if len(names) > 1}
    assert not twice, f"checked with two sets of globals: {twice}"
    unchecked = sorted(str(p.relative_to(SCREEN_DIR)) for p in ours if not p.read_text().startswith("// @ts-check"))
    assert not unchecked, f"start these with // @ts-check: {unchecked}"


def test_the_scorers_service_worker_keeps_every_file_the_page_loads() -> None:
    """The scorer loads with no connection from its service worker's cache (screen/score/sw.js,
    SHELL): every file its page names, every module score.js imports (shared/ and vendor/ ones
    too, followed through their imports), the schemas it checks payloads against and the five
    catalogues. A file left out would be missing offline."""
    worker = (SCREEN_DIR / "score" / "sw.js").read_text()
    listed = re.search(r"const SHELL = (\[.*?\]);", worker, re.S)
    assert listed, "sw.js: no SHELL list"
    shell = set(json.loads(listed.group(1)))
    html = (SCREEN_DIR / "score" / "index.html").read_text()
    wanted = {"/score"} | set(re.findall(r'(?:src|href)="(/[^"]+)"', html))
    modules = [url for url in wanted if url.endswith(".js")]
    while modules:
        url = modules.pop()
        source = (SCREEN_DIR / url[1:]).read_text()
        for name in re.findall(r'^(?:import|export)\b[^;"]*?from\s*"([^"]+)"', source, re.M):
            found = name if name.startswith("/") else posixpath.normpath(posixpath.join(posixpath.dirname(url), name))
            if found not in wanted:
                wanted.add(found)
                modules.append(found)
    page = (SCREEN_DIR / "score" / "score.js").read_text()
    schemas = re.search(r"loadSchemas\(\[([^\]]*)\]", page)
    assert schemas, "score.js loads no schema"
    wanted |= {f"/vendor/{name}.schema.json" for name in re.findall(r'"(\w+)"', schemas.group(1))}
    wanted |= {f"/i18n/{lang}.json" for lang in LANGUAGES}
    assert {"/shared/payloads.js", "/shared/validate.js", "/vendor/preact.js", "/vendor/state.schema.json"} <= wanted
    assert wanted <= shell, f"sw.js SHELL lacks {sorted(wanted - shell)}"
    missing = [url for url in shell - {"/score"} if not (SCREEN_DIR / url[1:]).is_file()]
    assert not missing, f"sw.js SHELL names files that are not there: {missing}"


def test_the_screen_keeps_its_state_in_one_place_and_knows_no_game_by_name() -> None:
    """screen.js has no module-level `let` (the page is one Screen), and neither it nor card.js
    names a game: what differs by game is in screen/games/, listed in games.js."""
    page, card = (SCREEN_DIR / "screen.js").read_text(), (SCREEN_DIR / "card.js").read_text()
    assert not re.findall(r"^(?:let|var) ", page, re.M)
    for text in (page, card):
        assert not re.findall(r"""["'](?:snooker|blackball)["']""", text)
    games = (SCREEN_DIR / "games.js").read_text()
    modules = [path.name for path in (SCREEN_DIR / "games").glob("*.js") if path.name != "game.js"]
    assert modules and all(f'from "./games/{name}"' in games for name in modules)


def test_scorer_catalogues_have_every_word() -> None:
    """The scorer's words (the ``scorer`` section) in every language: English's keys, placeholders
    and plural forms, and every key the page asks for is there."""
    english = json.loads((SCREEN_DIR / "i18n" / "en.json").read_text())["scorer"]
    for lang in LANGUAGES:
        words = json.loads((SCREEN_DIR / "i18n" / f"{lang}.json").read_text())["scorer"]
        assert set(words) == set(english), f"{lang}: {set(words) ^ set(english)}"
        for key, text in words.items():
            assert _placeholders(text) == _placeholders(english[key]), f"{lang}: scorer {key}"
            assert isinstance(text, str) == isinstance(english[key], str), f"{lang}: scorer {key}"
    page = (SCREEN_DIR / "score" / "score.js").read_text()
    screen = json.loads((SCREEN_DIR / "i18n" / "en.json").read_text())["screen"]
    asked = set(re.findall(r"""\bt\("([a-z_.]+)"[,)]""", page))
    assert asked and asked <= set(english) | set(screen), asked - set(english) - set(screen)


def test_page_files_are_package_data() -> None:
    """What ships in screen/ (package data): only the kinds of file the page is made of."""
    allowed = {".html", ".js", ".mjs", ".css", ".json", ".svg", ".ico", ".png"}
    tracked = subprocess.run(["git", "ls-files", "screen"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    # __init__.py makes screen/ the package cueboard.web (cueboard/common/resources.py).
    odd = [f for f in tracked.split() if Path(f).suffix not in allowed and f != "screen/__init__.py"]
    assert not odd, f"files in screen/ the package would not ship: {odd}"


def _placeholders(text: Any) -> list[str]:
    texts = [text] if isinstance(text, str) else list(text.values()) if isinstance(text, dict) else []
    return sorted({p for t in texts if isinstance(t, str) for p in re.findall(r"\{(\w+)\}", t)})


def test_catalogues_have_every_word() -> None:
    """Each language's catalogue has every key English has (and no other), the same placeholders,
    the same plural forms, and the boards' words as forms from the longest to the shortest."""
    english = json.loads((SCREEN_DIR / "i18n" / "en.json").read_text())
    for lang in LANGUAGES:
        cat = json.loads((SCREEN_DIR / "i18n" / f"{lang}.json").read_text())
        assert cat["language"], lang
        base_keys = {k.split(".", 1)[1] if k.startswith(("snooker.", "blackball.")) else k for k in cat["screen"]}
        assert base_keys == set(english["screen"]), f"{lang}: {base_keys ^ set(english['screen'])}"
        for key, text in cat["screen"].items():
            base = key.split(".", 1)[1] if key.startswith(("snooker.", "blackball.")) else key
            assert _placeholders(text) == _placeholders(english["screen"][base]), f"{lang}: {key}"
            assert isinstance(text, str) == isinstance(english["screen"][base], str), f"{lang}: {key}"
            if isinstance(text, dict):
                assert set(text) == {"one", "other"}, f"{lang}: {key}"
        board_keys = {k.split(".", 1)[1] if k.startswith(("snooker.", "blackball.")) else k for k in cat["board"]}
        assert board_keys == set(english["board"]), f"{lang}: board {board_keys ^ set(english['board'])}"
        for key, forms in cat["board"].items():
            base = key.split(".", 1)[1] if key.startswith(("snooker.", "blackball.")) else key
            assert isinstance(forms, dict) == isinstance(english["board"][base], dict), f"{lang}: board {key}"
            for words in forms.values() if isinstance(forms, dict) else [forms]:
                # The forms of a word from the longest to the shortest (a board shows the first
                # that fits), each with the placeholders English has.
                assert words and all(isinstance(w, str) and w for w in words), f"{lang}: board {key}"
                assert len(words[-1]) == min(len(w) for w in words), f"{lang}: board {key}: the last is the shortest"
                english_forms = english["board"][base]
                english_words = english_forms["other"] if isinstance(english_forms, dict) else english_forms
                wanted = set(_placeholders(english_words[0]))
                assert all(set(_placeholders(w)) <= wanted for w in words), f"{lang}: board {key}"
                assert set(_placeholders(words[0])) == wanted, f"{lang}: board {key}"


# Where a language keeps the English word, it is its own term: the rule book of that language
# uses it (docs/screen.md, "The terms, from the rule books"), or it is the language's own word
# that happens to be spelt the same. Every other word must differ from English.
SAME_AS_ENGLISH = {
    "nl": {  # the EBSRA text keeps "zoveel mogelijk de originele Engelse termen"
        "frame": "frame (2.1, 'aantal frames')", "frames": "frames (2.1)", "break": "break (2.8)",
        "ball_on": "ball on (2.11)", "free_ball": "free ball (2.13)",
        "snookers_label": "snookers (2.16, 'snookers nodig')", "snookers": "snookers (2.16)",
        "miss": "miss (3.14, 'Foul and a Miss')",
        "frame_n": "frame (2.1)", "letter.red": "R: Rood", "group.red": "R: Rood",
        "event.foul": "foul (3.10, 'Foul')", "event.foul_miss": "foul, miss (3.14)", "event.foul_plain": "foul (3.10)",
        "event.claim": "claimen (3.11(c), 'succesvol geclaimd')"},
    "sv": {"frame": "frame (regel 2.1)", "frame_n": "frame (2.1)", "miss": "miss (3.14, 'Foul och miss')",
           "letter.red": "R: Röd", "group.red": "R: Röd", "event.foul": "foul (regel 15, 'Foul')",
           "event.foul_miss": "foul, miss (14, 'Foul och miss')", "event.foul_plain": "foul (15)"},
    "de": {"frame": "Frame (2.1, 'Anzahl von Frames')", "frames": "Frames (2.1)", "frame_n": "Frame (2.1)",
           "best_of": "Best of: the German federations' term for the format",
           "race_to": "Race to: the German pool federations' term", "letter.red": "R: Rot", "group.red": "R: Rot",
           "event.foul": "Foul (2.14, 'Verstoß (Foul)')", "event.foul_miss": "Foul, Miss (3.14)",
           "event.foul_plain": "Foul (2.14)"},
    "fr": {"frame": "frame: French snooker's word (blackball says partie)", "frames": "frames, as frame",
           "frame_n": "frame", "break": "break: French snooker's word for a break",
           "snookers": "snooker: the French word", "snookers_label": "snookers", "letter.red": "R: Rouge",
           "group.red": "R: Rouge", "event.amend": "correction: the French word"},
}


def test_no_english_word_left() -> None:
    """Every word on the screen and the boards is the language's own: a value that is English's
    is one of the rule books' terms listed above, nothing forgotten."""
    english = json.loads((SCREEN_DIR / "i18n" / "en.json").read_text())
    for lang in LANGUAGES[1:]:
        cat = json.loads((SCREEN_DIR / "i18n" / f"{lang}.json").read_text())
        for section in ("screen", "board"):
            for key, value in cat[section].items():
                base = key.split(".", 1)[1] if key.startswith(("snooker.", "blackball.")) else key
                if value == english[section].get(base):
                    assert base in SAME_AS_ENGLISH[lang], f"{lang} {section} {key} = {value!r}: still English"


def test_screen_units() -> None:
    """The page's own logic under node: the tables= ranges, the options refused with reasons,
    the translator's per-game words and plurals, the clock's seconds and call, the validator."""
    _require(shutil.which("node") is not None, "node is not installed: apt-get install nodejs")
    run = subprocess.run(["node", str(Path(__file__).with_name("screen_units.mjs"))], capture_output=True, text=True,
                         timeout=60)
    print(run.stdout)
    assert run.returncode == 0, run.stdout + run.stderr


# -- states to publish --------------------------------------------------------------------------


def _states(log: Path) -> list[dict[str, Any]]:
    """The state after each event of a log (the match line's own left out), as `cueboard replay --each`."""
    return [match.state().to_json() for match, _ in replay(log.read_bytes().splitlines(keepends=True))][1:]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _named(state: dict[str, Any], table: str, names: tuple[str, str] | None) -> dict[str, Any]:
    state = {**state, "table": table, "ts": _now()}
    if names:
        state["sides"] = [{**side, "name": n, "players": [n]} for side, n in zip(state["sides"], names, strict=True)]
        if state["player"] is not None:
            state["player"] = names[state["striker"]]
    return state


def _steps(log: str, table: str, upto: int | None = None, names: tuple[str, str] | None = None) -> list[dict[str, Any]]:
    path = ROOT / "examples" / log
    events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()][1:]  # after the match line
    states = _states(path)
    assert len(events) == len(states)
    steps = []
    for event, state in list(zip(events, states, strict=True))[:upto]:
        state = _named(state, table, names)
        steps.append({"event": {"schema": 1, "seq": state["seq"], "event": event, "ts": state["ts"]}, "state": state})
    return steps


def _final() -> list[dict[str, Any]]:
    """The states of a whole synthetic best-of-35 final (cueboard.games.simulate.final_log)."""
    log = final_log(35, seed=2025)
    match = Match.from_json(log[0])
    states = []
    for event in log[1:]:
        match.apply(match.parse(event))
        states.append(match.state().to_json())
    return states


def _hall(n: int) -> tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """``n`` tables in different states of their matches: snooker (a final's frames, some with
    three figures) and blackball, long names, a Chinese one, a frame over; and for each snooker
    table the states of its frame before the one shown (for a page to draw the score worm)."""
    final = _final()
    big = [k for k, s in enumerate(final) if max(side["score"] for side in s["sides"]) >= 100]
    blackball = _states(ROOT / "examples" / "blackball-match.jsonl")
    tables, history = {}, {}
    for i in range(1, n + 1):
        names = (NAMES[(2 * i) % len(NAMES)], NAMES[(2 * i + 1) % len(NAMES)])
        name = f"table-{i}"
        if i % 3 == 2:
            tables[name] = _named(blackball[(i * 7) % len(blackball)], name, names)
            continue
        k = big[(i * 5) % len(big)] if i % 4 == 1 else (i * 137) % len(final)
        state = final[k]
        tables[name] = _named(state, name, names)
        history[name] = [_named(s, name, names) for s in final[:k] if s["frame"] == state["frame"]]
    return tables, history


# -- running a scenario ---------------------------------------------------------------------------


def _run(plan: dict[str, Any], tmp_path: Path, broker: Mosquitto | None = None, timeout: float = 240) -> str:
    """Run one scenario of screen_e2e.mjs; stop or start ``broker`` when it asks."""
    handlers = {} if broker is None else {"stop-broker": lambda args: broker.stop(),
                                          "start-broker": lambda args: broker.start()}
    out = run_e2e(E2E, plan, tmp_path / f"plan-{plan['scenario']}.json", timeout=timeout, handlers=handlers)
    return "".join(out)


def _plan(scenario: str, serve: Serve, broker: Mosquitto, shots: Path | None, **more: Any) -> dict[str, Any]:
    return {"scenario": scenario, "url": serve(broker.ws_port), "venue": "club", "mqtt_port": broker.port,
            "ws_port": broker.ws_port, "chromium": CHROMIUM, "screenshots": str(shots) if shots else None, **more}


# -- end to end -----------------------------------------------------------------------------------


def test_screen_end_to_end(mosquitto_factory: Callable[..., Mosquitto], screen_server: Serve, tmp_path: Path) -> None:
    _require_browser()
    broker = mosquitto_factory(websockets=True)
    plan = _plan("feed", screen_server, broker, None, tables={
        "table-1": _steps("snooker-frame.jsonl", "table-1", upto=20),
        "table-2": _steps("blackball-match.jsonl", "table-2", upto=10),
        "table-3": _steps("snooker-frame.jsonl", "table-3", names=("Mark Selby", "赵心童")),
        "table-4": _steps("blackball-match.jsonl", "table-4", names=("Cath", "Dave")),
    }, offline_table="table-4", single_table="table-1")
    _run(plan, tmp_path)


# Targets (docs/screen.md): the scores' digits at least 1/5 of the screen's height for one table,
# 1/16 in a grid (8, 12 or 16 cards a page), 1/23 in the list (10 rows a page); the names and
# facts with capitals of at least 1/45 of the height in a grid of up to 8 (1.5 cm on a 55-inch
# TV), 1/65 on 12 or 16 cards, 1/60 in the list; the labels (BREAK, FRAMES) at least 1/75, 1/90
# on 12 or 16 cards.
SCORE_ONE, SCORE_GRID, SCORE_LIST = 1 / 5, 1 / 16, 1 / 23
TEXT_GRID, TEXT_DENSE, TEXT_LIST, LABELS, LABELS_DENSE = 1 / 45, 1 / 65, 1 / 60, 1 / 75, 1 / 90
# A name too long for its room is drawn smaller before it is shortened, down to 0.72 of its size:
NAME_ONE, NAME_GRID, NAME_DENSE, NAME_LIST = 1 / 45, 1 / 56, 1 / 80, 1 / 75
GRID_MOST, LIST_MOST = 16, 10  # cards and rows a page on a 16:9 screen (screen.js perPage)


def _pages(n: int, most: int) -> list[int]:
    """The cards on each page: as few pages as hold ``n`` at ``most`` a page, evenly filled."""
    pages = -(-n // most)
    per = -(-n // pages)
    return [min(per, n - k * per) for k in range(pages)]


def test_pages_as_stated() -> None:
    assert _pages(8, GRID_MOST) == [8] and _pages(16, GRID_MOST) == [16]
    assert _pages(24, GRID_MOST) == [12, 12] and _pages(64, GRID_MOST) == [16, 16, 16, 16]
    assert _pages(24, LIST_MOST) == [8, 8, 8] and _pages(64, LIST_MOST) == [10, 10, 10, 10, 10, 10, 4]


def test_screen_layout(mosquitto_factory: Callable[..., Mosquitto], screen_server: Serve, tmp_path: Path,
                       screenshots: Path) -> None:
    """1, 8, 16, 24 and 64 tables at 1920x1080 and 3840x2160, grid, single and list: every table
    on some page, the pages as docs/screen.md states them, every card and element whole on the
    screen, no name cut that would fit at its card's smallest name size, the measured sizes
    against the targets, the text's contrast (WCAG AA); then a page opening on a hall of 1000
    tables has every one."""
    _require_browser()
    _require_cjk_font()
    broker = mosquitto_factory(websockets=True)
    cases: list[dict[str, Any]] = []
    for width, height in ((1920, 1080), (3840, 2160)):
        suffix = "" if width == 1920 else "-4k"
        cases.append({"view": "single", "n": 1, "width": width, "height": height, "score_target_fraction": SCORE_ONE,
                      "text_target_fraction": TEXT_GRID, "label_target_fraction": LABELS,
                      "name_target_fraction": NAME_ONE,
                      "screenshots": [{"page": 1, "file": f"screen-table{suffix}.png"}] if not suffix else []})
        for n in (1, 8, 16, 24, 64):
            shot = "screen-grid.png" if n == 8 and not suffix else f"screen-grid-{n}{suffix}.png"
            cases.append({"view": "grid", "n": n, "width": width, "height": height,
                          "score_target_fraction": SCORE_ONE if n == 1 else SCORE_GRID,
                          "text_target_fraction": TEXT_GRID if n <= 8 else TEXT_DENSE,
                          "label_target_fraction": LABELS if n <= 8 else LABELS_DENSE,
                          "name_target_fraction": NAME_ONE if n == 1 else NAME_GRID if n <= 8 else NAME_DENSE,
                          "pages": _pages(n, GRID_MOST),
                          "screenshots": [{"page": 1, "file": shot}] if n > 1 else []})
        for n in (8, 16, 24, 64):
            shot = "screen-list.png" if n == 24 and not suffix else f"screen-list-{n}{suffix}.png"
            cases.append({"view": "list", "n": n, "width": width, "height": height,
                          "score_target_fraction": SCORE_LIST, "text_target_fraction": TEXT_LIST,
                          "label_target_fraction": LABELS, "name_target_fraction": NAME_LIST,
                          "pages": _pages(n, LIST_MOST),
                          "screenshots": [{"page": 1, "file": shot}]})
    tables, history = _hall(64)
    out = _run(_plan("layout", screen_server, broker, screenshots, tables=tables, history=history, cases=cases,
                     hall=1000), tmp_path, timeout=900)
    report = json.loads(out.split("report: ", 1)[1].splitlines()[0])
    assert len(report) == len(cases)
    for case in cases:
        for shot in case["screenshots"]:
            path = screenshots / shot["file"]
            with Image.open(path) as img:
                assert img.size == (case["width"], case["height"]), path
                if case["width"] > 1920:
                    # Drawn at 3840x2160, kept at half size (the same picture, a quarter of the bytes).
                    img.resize((1920, 1080), Image.Resampling.LANCZOS).save(path, optimize=True)


def _table_picture(size: tuple[int, int]) -> Image.Image:
    """A stand-in for a camera's picture of a match: a snooker table from above, a little soft."""
    w, h = size
    img = Image.new("RGB", size, (36, 24, 18))
    d = ImageDraw.Draw(img)
    d.rectangle((int(w * .06), int(h * .1), int(w * .94), int(h * .9)), fill=(92, 52, 24))  # cushions' wood
    cloth = (int(w * .09), int(h * .16), int(w * .91), int(h * .84))
    d.rectangle(cloth, fill=(28, 118, 58))
    x0, y0, x1, y1 = cloth
    baulk = x0 + (x1 - x0) * .2
    d.line((baulk, y0, baulk, y1), fill=(200, 230, 200), width=3)
    r = (y1 - y0) / 6
    d.arc((baulk - r, (y0 + y1) / 2 - r, baulk + r, (y0 + y1) / 2 + r), 90, 270, fill=(200, 230, 200), width=3)
    ball = h * .018
    for px, py in [(x0, y0), ((x0 + x1) / 2, y0 - 6), (x1, y0), (x0, y1), ((x0 + x1) / 2, y1 + 6), (x1, y1)]:
        d.ellipse((px - 2.2 * ball, py - 2.2 * ball, px + 2.2 * ball, py + 2.2 * ball), fill=(10, 10, 10))
    apex = x0 + (x1 - x0) * .72
    for row in range(5):
        for k in range(row + 1):
            cx, cy = apex + row * ball * 1.75, (y0 + y1) / 2 + (k - row / 2) * ball * 2.02
            d.ellipse((cx - ball, cy - ball, cx + ball, cy + ball), fill=(190, 20, 25))
    mid = (y0 + y1) / 2
    spots = [(x0 + (x1 - x0) * .91, mid, (15, 15, 15)), (apex - 2.2 * ball, mid, (240, 120, 160)),
             ((x0 + x1) / 2, mid, (30, 80, 200)), (baulk, mid, (120, 70, 30)), (baulk, mid - r, (40, 150, 60)),
             (baulk, mid + r, (240, 200, 40)), (x0 + (x1 - x0) * .45, y0 + (y1 - y0) * .7, (245, 245, 240))]
    for cx, cy, colour in spots:
        d.ellipse((cx - ball, cy - ball, cx + ball, cy + ball), fill=colour)
    return img.filter(ImageFilter.GaussianBlur(1.2))


def test_screen_overlay(mosquitto_factory: Callable[..., Mosquitto], screen_server: Serve, tmp_path: Path,
                        screenshots: Path) -> None:
    """?overlay=1: the page is transparent (alpha 0 in the screenshot) but for the scorebug, which
    sits in the corner asked for, at the size asked for; composited over a picture for the docs.
    Its texts' contrast over white; OBS's custom CSS variables restyle it; a table with no
    match draws nothing, and shows the next match handed to it (<prefix>/next)."""
    _require_browser()
    broker = mosquitto_factory(websockets=True)
    hall, _ = _hall(3)
    cases = [
        {"query": "overlay=1&table=table-1", "table": "table-1", "file": "overlay-bl.png"},
        {"query": "overlay=1&table=table-2&corner=tr&size=s", "table": "table-2", "file": "overlay-tr-s.png"},
        {"query": "overlay=1&table=table-3&corner=br&size=l", "table": "table-3", "file": "overlay-br-l.png"},
    ]
    out = _run(_plan("overlay", screen_server, broker, tmp_path, tables=hall, cases=cases, idle_table="table-9"),
               tmp_path)
    boxes = json.loads(out.split("boxes: ", 1)[1].splitlines()[0])
    quadrant = {"overlay-bl.png": (0, 1), "overlay-tr-s.png": (1, 0), "overlay-br-l.png": (1, 1)}
    for case in cases:
        img = Image.open(tmp_path / case["file"])
        assert img.mode == "RGBA" and img.size == (1920, 1080)
        box = boxes[case["query"]]
        alpha = img.getchannel("A")
        inside = alpha.crop((int(box["x"]) + 20, int(box["y"] + box["h"] * .45), int(box["x"] + box["w"]) - 20,
                             int(box["y"] + box["h"] * .55)))
        near = (box["x"] - 60, box["y"] - 60, box["x"] + box["w"] + 60, box["y"] + box["h"] + 60)  # its shadow
        outside = [cast(int, alpha.getpixel((x, y))) for x in range(0, 1920, 97) for y in range(0, 1080, 89)
                   if not (near[0] <= x <= near[2] and near[1] <= y <= near[3])]
        assert max(outside) == 0, f"{case['file']}: the page outside the scorebug is not transparent"
        lowest = cast(int, inside.getextrema()[0])
        assert lowest >= 200, f"{case['file']}: the scorebug is see-through (alpha {lowest})"
        qx, qy = quadrant[case["file"]]
        cx, cy = box["x"] + box["w"] / 2, box["y"] + box["h"] / 2
        assert (cx > 960) == bool(qx) and (cy > 540) == bool(qy), f"{case['file']}: not in its corner: {box}"
    widths = {c["file"]: boxes[c["query"]]["w"] for c in cases}
    assert widths["overlay-tr-s.png"] < widths["overlay-bl.png"] < widths["overlay-br-l.png"]
    picture = _table_picture((1920, 1080)).convert("RGBA")
    picture.alpha_composite(Image.open(tmp_path / "overlay-bl.png"))
    picture.convert("RGB").save(screenshots / "screen-overlay.png")
    picture = _table_picture((1920, 1080)).convert("RGBA")
    picture.alpha_composite(Image.open(tmp_path / "overlay-next.png"))
    picture.convert("RGB").save(screenshots / "screen-overlay-next.png")


def test_obs_custom_css_is_allowed_by_the_policy(screen_server: Serve) -> None:
    """OBS injects a Browser source's custom CSS as a <style> element (obs-browser's
    OnLoadEnd): the page's Content-Security-Policy must allow inline styles (never scripts)."""
    with urllib.request.urlopen(screen_server(9001), timeout=30) as r:
        policy = r.headers["Content-Security-Policy"]
    directives = {d.split()[0]: d.split()[1:] for d in policy.split(";") if d.strip()}
    style = directives.get("style-src-elem") or directives.get("style-src") or directives.get("default-src", [])
    assert "'unsafe-inline'" in style, policy
    assert "'unsafe-inline'" not in directives.get("script-src", []), policy


def test_screen_next_and_message(mosquitto_factory: Callable[..., Mosquitto], screen_server: Serve, tmp_path: Path,
                                 screenshots: Path) -> None:
    """The table's `next` (an idle table's card: "Next: Ann v Bob", the competition, the format the
    desk handed when it is the same fixture) and the desk's `message` (on any card, in the worm's
    room, until its `until` on the page's own timer, or until the table clears it), in English and
    German, at a laptop's and a phone's size and in the list; docs/screen.md's screenshots."""
    _require_browser()
    broker = mosquitto_factory(websockets=True)
    snooker = _states(ROOT / "examples" / "snooker-frame.jsonl")
    blackball = _states(ROOT / "examples" / "blackball-match.jsonl")
    over = next(s for s in snooker if s["match_over"])
    live = [s for s in snooker if not s["frame_over"]]
    played = max(range(min(40, len(live))), key=lambda k: sum(side["score"] for side in live[k]["sides"]))
    message = "Final at 21:00 on table 1: Cath Jones v Dave Smith"
    tables = {
        "table-1": {**_named(over, "table-1", ("Ann Lee", "Bob Ray")),
                    "next": {"fixture": "L-17", "competition": "Club league", "names": ["Cath Jones", "Dave Smith"]},
                    "message": None},
        "table-2": {**_named(live[played], "table-2", ("Ronnie O'Sullivan", "Judd Trump")), "next": None,
                    "message": {"text": message, "until": None}},
        "table-3": {**_named(blackball[12], "table-3", ("Åsa Sjöström", "Jürgen Müller")), "next": None,
                    "message": {"text": "Bar closes at 23:30", "until": None}},
        "table-4": {**_named(over, "table-4", ("Eve Cole", "Fay Dunn")),
                    "next": {"fixture": "L-18", "competition": None, "names": ["Gus Hart", "Hal Innes"]},
                    "message": {"text": "Table 4: 10 minutes' break", "until": None}},
    }
    history = {"table-2": [_named(s, "table-2", ("Ronnie O'Sullivan", "Judd Trump")) for s in live[:played]]}
    handed = {"table-1": {"schema": 1, "fixture": "L-17", "competition": "Club league",
                          "sides": ["Cath Jones", "Dave Smith"], "format": {"game": "snooker", "best_of": 5},
                          "handed_by": "desk"}}
    expect = {
        "table-1": {"next": {"versus": {"a": "Cath Jones", "b": "Dave Smith"}, "more": ["{best_of}", "Club league"]},
                    "message": None},
        "table-2": {"next": None, "message": message},
        "table-3": {"next": None, "message": "Bar closes at 23:30"},
        "table-4": {"next": {"versus": {"a": "Gus Hart", "b": "Hal Innes"}, "more": []},
                    "message": "Table 4: 10 minutes' break"},
    }
    laptop, phone = {"width": 1366, "height": 768}, {"width": 390, "height": 844}
    cases: list[dict[str, Any]] = [
        {"query": "rotate=0", "viewport": laptop, "file": "screen-notices-laptop.png"},
        {"query": "rotate=0", "viewport": phone},
        {"query": "rotate=0&per_page=2", "viewport": phone, "file": "screen-notices-phone.png",
         "pages": [["table-1", "table-2"], ["table-3", "table-4"]]},
        {"query": "rotate=0&lang=de", "lang": "de", "viewport": laptop, "file": "screen-notices-de.png"}]
    words = {lang: json.loads((SCREEN_DIR / "i18n" / f"{lang}.json").read_text())["screen"] for lang in ("en", "de")}
    for case in cases:
        lang = str(case.get("lang", "en"))
        best_of = words[lang].get("snooker.best_of", words[lang]["best_of"]).replace("{n}", "5")
        case["expect"] = {name: {**want, "next": want["next"] and {**want["next"], "more": [
            best_of if m == "{best_of}" else m for m in want["next"]["more"]]}} for name, want in expect.items()}
    out = _run(_plan("notices", screen_server, broker, screenshots, tables=tables, history=history, handed=handed,
                     cases=cases, expires_in_s=6, expiring="table-2", cleared="table-3"), tmp_path)
    assert "FAILED" not in out


def test_screen_languages(mosquitto_factory: Callable[..., Mosquitto], screen_server: Serve, tmp_path: Path,
                          screenshots: Path) -> None:
    """?lang= for each catalogue: every card reads in that language's words; lang=xx is refused."""
    _require_browser()
    broker = mosquitto_factory(websockets=True)
    snooker = _states(ROOT / "examples" / "snooker-frame.jsonl")
    blackball = _states(ROOT / "examples" / "blackball-match.jsonl")
    behind = next(s for s in snooker if s["snookers_required"])
    tables = {
        "table-1": _named(next(s for s in snooker if s["ball_on"] == "colour"), "table-1",
                          ("Ronnie O'Sullivan", "Judd Trump")),
        "table-2": _named(next(s for s in blackball if s["free_shot"]), "table-2", ("Åsa Sjöström", "Jürgen Müller")),
        "table-3": _named(behind, "table-3", ("Mark Selby", "赵心童")),
        "table-4": _named(next(s for s in blackball if s["frame_over"]), "table-4", ("Cath", "Dave")),
    }
    _run(_plan("languages", screen_server, broker, tmp_path, tables=tables, languages=LANGUAGES), tmp_path)
    # One picture of the same tables in every language, for docs/screen.md.
    shots = [Image.open(tmp_path / f"screen-lang-{lang}.png").convert("RGB") for lang in LANGUAGES]
    w, h = shots[0].size[0] // 3, shots[0].size[1] // 3
    sheet = Image.new("RGB", (w * 3 + 40, h * 2 + 30), (8, 20, 13))
    draw = ImageDraw.Draw(sheet)
    label = ImageFont.load_default(size=22)
    for i, (lang, shot) in enumerate(zip(LANGUAGES, shots, strict=True)):
        x, y = 10 + (i % 3) * (w + 10), 10 + (i // 3) * (h + 10)
        sheet.paste(shot.resize((w, h), Image.Resampling.LANCZOS), (x, y))
        draw.rounded_rectangle((x + w // 2 - 30, y + 2, x + w // 2 + 30, y + 30), 6, fill=(242, 193, 78))
        draw.text((x + w // 2, y + 16), lang, fill=(20, 20, 0), font=label, anchor="mm")
    sheet.save(screenshots / "screen-languages.png")


def test_screen_clock(mosquitto_factory: Callable[..., Mosquitto], screen_server: Serve, tmp_path: Path,
                      screenshots: Path) -> None:
    """The shot clock counts down from the state's clock.ends_at, turns to the call colour at
    call_at, stops when paused, shows the table's seconds when its clock is ahead of the page's,
    and without a clock object shows the state's shot_clock still."""
    _require_browser()
    broker = mosquitto_factory(websockets=True)
    blackball = _states(ROOT / "examples" / "blackball-match.jsonl")
    state = _named(next(s for s in blackball if s["striker"] is not None and not s["frame_over"]), "table-1", None)
    _run(_plan("clock", screen_server, broker, screenshots, tables={"table-1": state}), tmp_path)


def test_screen_losing_the_broker(mosquitto_factory: Callable[..., Mosquitto], screen_server: Serve, tmp_path: Path,
                                  screenshots: Path) -> None:
    """The broker goes: every card says the page has no connection (keeping its last state);
    the broker comes back: the page reconnects and the cards are live again."""
    _require_browser()
    broker = mosquitto_factory(websockets=True)
    _run(_plan("connection", screen_server, broker, screenshots, tables=_hall(4)[0]), tmp_path, broker=broker)


def test_screen_on_the_demo(screen_server: Serve, tmp_path: Path) -> None:
    """``cueboard demo`` opens a WebSockets listener on its embedded broker: the page works on it as is."""
    _require_browser()
    demo = subprocess.Popen([str(ROOT / ".venv" / "bin" / "cueboard"), "demo", "--autoplay",
                             "--journal", str(tmp_path / "demo")],  # the demo keeps its journal
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert demo.stdout is not None
        ws_port = None
        for line in demo.stdout:  # the status lines come first
            found = re.search(r"\(WebSockets :(\d+)\)", line)
            if found:
                ws_port = int(found.group(1))
                break
        assert ws_port, "the demo printed no WebSockets port"
        threading.Thread(target=lambda: [None for _ in demo.stdout or ()], daemon=True).start()  # keep the pipe drained
        plan = {"scenario": "smoke", "url": screen_server(ws_port), "venue": "demo", "ws_port": ws_port,
                "chromium": CHROMIUM, "smoke": "table-1"}
        _run(plan, tmp_path, timeout=120)
    finally:
        demo.terminate()
        demo.wait(timeout=30)
