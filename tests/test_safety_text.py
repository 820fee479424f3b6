"""Numbers in user text are ASCII decimal digits only (issue 34): ``int()`` also reads ``'٢'``
(Arabic-Indic two) as 2 and raises a bare ``ValueError`` naming nothing on ``'²'``, which
``str.isdigit`` accepts. Each place a number is read from text refuses both, with the error
of its domain naming the field; and the reference ``RefState`` and the engine's ``State``
accept the same positions (one rule, docs/position.md)."""

from __future__ import annotations

import pytest

from shuangkou import State
from shuangkou._reference_game import RefState
from shuangkou.errors import NotationError
from shuangkou.position import format_position, parse_position

OTHER_DIGITS = ("٢", "²", "２", "𝟐", "߂")  # Arabic-Indic, superscript, fullwidth, math, NKo
BUILDERS = (State, RefState)
# seat 0 led a 7, seats 1 and 2 passed: seat 3 to act after 2 passes
TWO_PASSES = "classic 3/4/5/6 3 7@0 {} - -/-/-/- -"
# 双扣 (R8): seats 0 and 2 are out, seat 2's last card on the table; nobody is to act
FINISHED = "baibian -/3/-/4 - 5@2 {} 02 -/-/-/- -"


@pytest.mark.parametrize("cls", BUILDERS)
def test_passes_field_reads_ascii_digits(cls: type) -> None:
    st = parse_position(TWO_PASSES.format("2"), cls=cls)
    assert st.passes == 2 and st.to_act == 3
    assert format_position(st) == TWO_PASSES.format("2")


@pytest.mark.parametrize("cls", BUILDERS)
@pytest.mark.parametrize("digit", OTHER_DIGITS)
def test_passes_field_refuses_other_digits_naming_the_field(cls: type, digit: str) -> None:
    # '٢' read as 2 and '²' was int()'s bare "invalid literal for int() with base 10"
    with pytest.raises(NotationError, match=r"position field 5 \(passes\): expected a count"):
        parse_position(TWO_PASSES.format(digit), cls=cls)


@pytest.mark.parametrize("passes", [0, 1, 2, 3])
def test_a_finished_position_reads_the_same_in_both(passes: int) -> None:
    text = FINISHED.format(passes)
    assert [format_position(parse_position(text, cls=c)) for c in BUILDERS] == [text, text]


@pytest.mark.parametrize("cls", BUILDERS)
@pytest.mark.parametrize("passes", [4, 9])
def test_a_finished_position_with_more_passes_than_seats_is_refused_by_both(
        cls: type, passes: int) -> None:
    # RefState accepted passes 9 after the deal was over; State refused (at most 3 seats pass)
    with pytest.raises(ValueError, match="passes"):
        cls.from_position("baibian", ["", "3", "", "4"], None, table="5", table_owner=2,
                          passes=passes, places=(0, 2))
    with pytest.raises(NotationError, match="passes"):
        parse_position(FINISHED.format(passes), cls=cls)
