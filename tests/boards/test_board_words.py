"""The LED boards' words in the venue's language: the catalogues' ``board`` section
(``cueboard/boards/words.py``), ``[display] language``, ``cueboard render --lang``, and that a
board in another language says none of the English words it has its own for.

The goldens of every state in each language are in ``test_board_golden.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from cueboard.boards import LayoutOptions, render
from cueboard.boards.catalogue import find_layout
from cueboard.boards.scene import Item, Pages, Text
from cueboard.boards.shown import Shown, clock_shown
from cueboard.boards.words import CatalogueError, Words, catalogue_path, parse_board_section, words_for
from cueboard.cli import main
from cueboard.common.languages import LANGUAGES, plural
from cueboard.hw.clock import ManualClock
from cueboard.hw.display_config import DisplayConfigError, parse_display
from cueboard.table.devices import open_board

STATES = json.loads((Path(__file__).parents[1] / "golden" / "states.json").read_text(encoding="utf-8"))
CASES = [(game, c) for game, cases in STATES.items() for c in cases]
SIZES = [(32, 8), (64, 16), (128, 32), (64, 32), (128, 64), (192, 96)]
OTHERS = [lang for lang in LANGUAGES if lang != "en"]


def board_entries(language: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(catalogue_path(language).read_text(encoding="utf-8"))["board"]
    return data


# -- the catalogues ---------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_word_a_layout_asks_for_is_in_each_catalogue(language: str) -> None:
    """A translator's catalogue has every word (the English one can fill no gap silently)."""
    english = set(board_entries("en"))
    own = {k.split(".", 1)[1] if k.startswith(("snooker.", "blackball.")) else k for k in board_entries(language)}
    assert own == english
    words = words_for(language)
    for key in english:
        assert words(key, n=2, name="Judd"), key


def test_a_word_has_the_languages_own_plural_and_the_games_own_form() -> None:
    assert words_for("sv")("snookers", n=1)[0] == "MASK"
    assert words_for("sv")("snookers", n=3)[0] == "MASKER"
    assert words_for("nl")("visits", n=2)[0] == "2 beurten"
    assert words_for("de")("visits", n=1)[0] == "1 Aufnahme"
    # French counts 0 and 1 as singular; the others 1 alone.
    assert (plural("fr", 0), plural("fr", 1), plural("fr", 2)) == ("one", "one", "other")
    assert (plural("en", 0), plural("de", 1)) == ("other", "one")
    assert words_for("fr")("frames", game="blackball")[0] == "PARTIES"
    assert words_for("fr")("frames", game="snooker")[0] == "FRAMES"
    assert words_for("fr")("name_wins_frame", game="blackball", name="Ann")[0] == "Ann gagne la partie"


def test_a_word_a_catalogue_lacks_is_said_in_english() -> None:
    partial = Words("xx", {"break": ("SERIE",)}, words_for("en"))
    assert partial("break") == ["SERIE"]
    assert partial("remaining") == ["REMAINING", "REMAIN", "REM"]
    with pytest.raises(KeyError, match="no board word 'bogus'"):
        partial("bogus")


@pytest.mark.parametrize(("section", "named"), [
    ({"break": "BREAK"}, "board.break: a list of forms"),
    ({"break": []}, "board.break: a list of forms"),
    ({"break": ["BREAK", ""]}, "board.break: a list of forms"),
    ({"snookers": {"one": ["S"]}}, "board.snookers: plural forms are \"one\" and \"other\""),
    ({"snookers": {"one": ["S"], "other": "S"}}, "board.snookers.other: a list of forms"),
    ([], "\"board\" must be an object"),
])
def test_a_bad_catalogue_is_refused_naming_the_file_and_the_word(section: Any, named: str) -> None:
    with pytest.raises(CatalogueError, match=re.escape(f"sv.json: {named}") if "board." in named else named):
        parse_board_section("sv.json", section)


def test_an_unknown_language_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="the boards speak en, nl, sv, de, fr, not 'es'"):
        words_for("es")


# -- what a board says ------------------------------------------------------------------


def texts(items: tuple[Item, ...] | list[Item]) -> Iterator[str]:
    for item in items:
        if isinstance(item, Text):
            yield item.text
        elif isinstance(item, Pages):
            for page in item.pages:
                yield from texts(list(page))


def said(language: str, game: str, case: dict[str, Any], size: tuple[int, int]) -> set[str]:
    """Every text a board of ``size`` shows for the case, on every page, in ``language``."""
    shown = Shown.from_json(case["state"])
    shot = clock_shown(shown, case.get("clock"))
    layout = find_layout(shown.state, *size, LayoutOptions(words=words_for(language)))
    return set(texts(layout.scene(shown.state, shot, True)))


def english_only(language: str) -> list[re.Pattern[str]]:
    """Patterns of the English forms ``language`` says otherwise ({n}: a number, {name}: a name)."""
    def forms(entries: dict[str, Any], key: str) -> set[str]:
        value = entries.get(key)
        if value is None:
            return set()
        return {f for group in (value.values() if isinstance(value, dict) else [value]) for f in group}

    english, own = board_entries("en"), board_entries(language)
    own_forms = {f for key in own for f in forms(own, key)}
    patterns = []
    for key in english:
        theirs = forms(own, key) | {f for k in own if k.endswith("." + key) for f in forms(own, k)}
        for form in forms(english, key) - theirs:
            pattern = re.escape(form).replace(r"\{n\}", r"(\d+|-)").replace(r"\{name\}", ".+")
            compiled = re.compile(pattern)
            if len(form) > 2 and not any(compiled.fullmatch(f) for f in own_forms):
                patterns.append(compiled)
    return patterns


@pytest.mark.parametrize("language", OTHERS)
def test_a_board_in_another_language_says_none_of_the_english_words(language: str) -> None:
    """Every page of every state on every layout: no English word the language has its own for
    (an abbreviation of two letters may be the same in both, as FR or FB)."""
    patterns = english_only(language)
    assert patterns, "the language has words of its own"
    seen_own = False
    own_first = {f[0] if isinstance(f, list) else f["other"][0] for f in board_entries(language).values()}
    for game, case in CASES:
        for size in SIZES:
            for text in said(language, game, case, size):
                english = [p.pattern for p in patterns if p.fullmatch(text)]
                assert not english, f"{language} {game} {case['name']} {size}: {text!r} is English"
                seen_own = seen_own or text in own_first
    assert seen_own


def test_each_language_shows_its_words_for_the_same_state() -> None:
    case = next(c for g, c in CASES if c["name"] == "snookers")
    shown = {lang: said(lang, "snooker", case, (128, 32)) for lang in LANGUAGES}
    assert "SERIE" in shown["sv"] and "KVAR" in shown["sv"] and "GUL" in shown["sv"]
    assert "RESTEREND" in shown["nl"] and "GEEL" in shown["nl"]
    assert "REST" in shown["de"] and "GELB" in shown["de"]
    assert "RESTE" in shown["fr"] and "JAUNE" in shown["fr"]
    assert "REMAINING" in shown["en"] and "YELLOW" in shown["en"]
    state = Shown.from_json(case["state"])
    pictures = {lang: render(state, 128, 32, options=LayoutOptions(words=words_for(lang))).tobytes()
                for lang in LANGUAGES}
    assert len(set(pictures.values())) == len(LANGUAGES)


def test_the_board_fonts_draw_the_languages_letters() -> None:
    """ÖPPET is not OPPET: the pixel fonts have the letters with diacritics of the words."""
    from cueboard.boards.fonts import NORMAL, TINY

    for font in (NORMAL, TINY):
        for accented, plain in (("ÖPPET", "OPPET"), ("FÄRGAD", "FARGAD"), ("BLÅ", "BLA"), ("GRÜN", "GRUN")):
            assert font.render(accented).tobytes() != font.render(plain).tobytes(), (font, accented)
    assert NORMAL.render("Stoß").tobytes() != NORMAL.render("Stos").tobytes()
    assert NORMAL.render("replacée").tobytes() != NORMAL.render("replacee").tobytes()
    # A letter the fonts lack is its base letter, never a box.
    assert NORMAL.render("Ó").tobytes() == NORMAL.render("O").tobytes()


# -- choosing it ------------------------------------------------------------------------


def test_a_boards_language_is_a_key_of_its_display_section() -> None:
    clock = ManualClock()
    state = Shown.from_json(next(c for g, c in CASES if c["name"] == "snookers")["state"])
    config = parse_display({"device": "dummy", "width": 128, "height": 32, "language": "sv"})
    assert config.language == "sv"
    board = open_board(config, time_source=clock)
    assert board.show(state)
    swedish = render(state, 128, 32, options=LayoutOptions(words=words_for("sv")))
    assert board.device.image.tobytes() == swedish.tobytes()
    assert swedish.tobytes() != render(state, 128, 32).tobytes()
    assert parse_display({"device": "dummy", "width": 8, "height": 8}).language == "en"


def test_a_language_the_boards_do_not_speak_is_refused_by_name() -> None:
    with pytest.raises(DisplayConfigError, match=r"display\.language: must be one of 'en', 'nl', 'sv', 'de', "
                       r"'fr', not 'es'"):
        parse_display({"device": "dummy", "width": 8, "height": 8, "language": "es"})


def test_cueboard_render_draws_the_board_in_a_language(tmp_path: Path) -> None:
    state = next(c for g, c in CASES if c["name"] == "free-shot")["state"]
    source = tmp_path / "state.json"
    source.write_text(json.dumps(state), encoding="utf-8")
    out = {}
    for lang in ("en", "fr"):
        path = tmp_path / f"{lang}.png"
        assert main(["render", str(source), "--layout", "128x32", "--lang", lang, "--pixels", "--scale", "1",
                     "--out", str(path)]) == 0
        with Image.open(path) as image:
            out[lang] = image.convert("RGB").tobytes()
    french = render(Shown.from_json(state), 128, 32, options=LayoutOptions(words=words_for("fr"))).convert("RGB")
    assert out["fr"] == french.tobytes()
    assert out["fr"] != out["en"]


def test_a_broken_catalogue_stops_the_start_naming_the_file_and_the_word(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A translator's slip in a board's language is a configuration error at start-up (exit 2
    from ``cueboard run``), with the catalogue's file and the word named."""
    from cueboard.boards import words as words_module
    from cueboard.table.config import ConfigFileError, load_config

    broken = json.loads(catalogue_path("nl").read_text(encoding="utf-8"))
    broken["board"]["remaining"] = "RESTEREND"
    catalogue = tmp_path / "nl.json"
    catalogue.write_text(json.dumps(broken), encoding="utf-8")
    real = words_module.catalogue_path
    monkeypatch.setattr(words_module, "catalogue_path", lambda lang: catalogue if lang == "nl" else real(lang))
    words_for.cache_clear()
    try:
        config = tmp_path / "cueboard.toml"
        config.write_text(f"""
[table]
venue = "club"
name = "t1"
[journal]
dir = "{tmp_path / 'journal'}"
[display]
device = "dummy"
width = 64
height = 16
language = "nl"
""", encoding="utf-8")
        config.chmod(0o600)
        named = r"display\.language = 'nl': .*nl\.json: board\.remaining: a list of forms"
        with pytest.raises(ConfigFileError, match=named):
            load_config(config)
    finally:
        words_for.cache_clear()
