"""Every refusal the table can make has a short form in the referee's words, in every board
language, short enough to read at a glance (issue 24): the engine's (``IllegalEvent``'s
``short``), the key grammar's (``Refusal.short``) and the daemon's own (``Reason``).

The calls are found in the source (every ``IllegalEvent(...)``, ``Refusal(...)`` and
``Reason(...)`` of the package), so a refusal added without a short form, or with a code the
boards cannot say, fails here; mypy makes ``short=`` required on ``IllegalEvent``."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from cueboard.boards import render
from cueboard.boards.bar import READ_SECONDS
from cueboard.boards.render import Renderer
from cueboard.boards.words import LANGUAGES, catalogue_path
from cueboard.contract.codes import CODES as CLIENT_CODES
from cueboard.contract.codes import NETWORK_SHORTS, TABLE_SHORTS, Reason, code_of
from cueboard.engine import IllegalEvent, Match
from cueboard.engine.errors import SHORTS
from tests.helpers.boards import golden, shown, simple_state

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*(ROOT / "engine").rglob("*.py"), *(ROOT / "cueboard").rglob("*.py")])
CODES = {**SHORTS, **TABLE_SHORTS}


def calls(name: str) -> list[tuple[str, ast.Call]]:
    """Every call of ``name`` in the package's source, with where it is."""
    out = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (
                    (isinstance(node.func, ast.Name) and node.func.id == name)
                    or (isinstance(node.func, ast.Attribute) and node.func.attr == name)):
                out.append((f"{path.relative_to(ROOT)}:{node.lineno}", node))
    return out


def short_of(call: ast.Call, position: int | None) -> str | None:
    """The literal short code a call passes (``short=`` or its ``position``-th argument)."""
    values = [k.value for k in call.keywords if k.arg == "short"]
    if not values and position is not None and len(call.args) > position:
        values = [call.args[position]]
    if not values:
        return None
    value = values[0]
    if isinstance(value, ast.Attribute) and value.attr == "short":
        return "passed on"  # another refusal's short form, passed on (checked where it is made)
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else "?"


def test_every_illegal_event_the_engine_raises_names_a_short_form() -> None:
    found = [(where, short_of(call, None)) for where, call in calls("IllegalEvent")
             if not where.startswith("engine/errors.py")]
    assert len(found) > 90  # all of them, not a few
    wrong = [(where, short) for where, short in found if short not in SHORTS]
    assert not wrong, f"IllegalEvent without a short form of engine/errors.py SHORTS: {wrong}"
    assert {short for _, short in found} == set(SHORTS), "a short form no refusal uses"


def test_every_refusal_of_the_keys_and_the_daemon_names_a_short_form() -> None:
    refusals = [(where, short_of(call, None)) for where, call in calls("Refusal")]
    assert len(refusals) > 20
    wrong = [(where, short) for where, short in refusals if short not in (None, "passed on", *TABLE_SHORTS)]
    assert not wrong, f"a Refusal whose short form is not in TABLE_SHORTS: {wrong}"  # None: wrong_key
    reasons = [(where, short_of(call, 1)) for where, call in calls("Reason") if "seams.py" not in where]
    assert len(reasons) >= 10
    wrong = [(where, short) for where, short in reasons if short not in (*CODES, *NETWORK_SHORTS, "passed on")]
    assert not wrong, f"a Reason whose short form is not in SHORTS, TABLE_SHORTS or NETWORK_SHORTS: {wrong}"


def test_every_short_form_has_a_code_a_client_decides_on() -> None:
    """Each short form is of one kind only, and reads as one of the contract's codes; the
    network's are never drawn on the boards, the rest are what a client shows (``refused``,
    or ``malformed`` for the engine's ``invalid``)."""
    assert not set(NETWORK_SHORTS) & set(CODES), "a short form both the boards' and the network's"
    assert {code_of(short) for short in NETWORK_SHORTS} <= set(CLIENT_CODES)
    assert {code_of(short) for short in CODES} == {"refused", "malformed"}
    assert {"repeat_applied", "repeat_refused", "later"} <= {code_of(short) for short in NETWORK_SHORTS}
    assert Reason("words", "rate").codes() == {"reason": "words", "code": "later", "short": "rate"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_short_form_is_in_each_boards_language(language: str) -> None:
    board = json.loads(catalogue_path(language).read_text(encoding="utf-8"))["board"]
    missing = sorted(code for code in CODES if f"refusal.{code}" not in board)
    assert not missing, f"{language}: no board word for the refusals {missing}"
    assert "refused" in board


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("size", [(32, 8), (64, 16), (128, 32), (64, 32), (128, 64), (192, 96)])
def test_a_short_form_never_holds_the_board_long(language: str, size: tuple[int, int]) -> None:
    """On every layout, in every language, each short form is said in at most 5 s (the whole
    reason of the old board took 19 s of marquee over the names on 64x16)."""
    from cueboard.boards.layout import LayoutOptions
    from cueboard.boards.words import words_for

    state = golden("snooker", "break", striker=0, player="Ronnie", ball_on="red", sides=[
        {"name": "Ronnie", "players": ["Ronnie"], "score": 104, "frames": 1, "high_break": 104, "total": 104},
        {"name": "Judd", "players": ["Judd"], "score": 0, "frames": 1, "high_break": 0, "total": 0}])
    slow = []
    for code in CODES:
        renderer = Renderer(*size, "RGB", options=LayoutOptions(words=words_for(language)))
        renderer.update(state, None, 0.0)
        renderer.refuse(Reason("the whole reason (Section 3 Rule 10)", code, ball="pink", n=6, name="keypad"), 0.0)
        until = renderer.message_until
        assert until is not None and renderer.message is not None
        if until > 5.0:
            slow.append(f"{code}: {renderer.message.tail!r} {until:.1f} s")
        assert until >= READ_SECONDS
    assert not slow, f"{language} {size}: {slow}"


def test_a_refusal_of_the_engine_carries_its_ball_and_number() -> None:
    match = Match.from_json({"type": "match", "game": "snooker", "sides": ["A", "B"]})
    with pytest.raises(IllegalEvent) as refused:
        match.check(match.parse({"type": "pot", "balls": ["pink"]}))
    assert (refused.value.short, refused.value.ball) == ("not_on", "red")
    match.apply(match.parse({"type": "pot", "balls": ["red"]}))
    with pytest.raises(IllegalEvent) as refused:
        match.check(match.parse({"type": "claim"}))
    assert refused.value.short == "claim_black_only"


def test_the_board_says_the_short_form_not_the_rule() -> None:
    """The golden of a short refusal is in test_board_golden; here: the words it draws are
    the short form's, whatever the whole reason says."""
    state = shown(simple_state(1, 0), striker=0, player="A")
    whole = "red is on: potting the pink is a foul, enter a foul (Section 3 Rule 10(b)(iii))"
    short = render(state, 128, 32, refusal=Reason(whole, "not_on", ball="red"))
    same = render(state, 128, 32, refusal="RED IS ON: FOUL?")
    assert short.tobytes() == same.tobytes()
