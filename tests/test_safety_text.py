"""Numbers in user text are ASCII decimal digits only (issue 34): ``int()`` also reads ``'٢'``
(Arabic-Indic two) as 2 and raises a bare ``ValueError`` naming nothing on ``'²'``, which
``str.isdigit`` accepts. Each place a number is read from text refuses both, with the error
of its domain naming the field; and the reference ``RefState`` and the engine's ``State``
accept the same positions (one rule, docs/position.md)."""

from __future__ import annotations

import numpy as np
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


# -- the command line and saved results ---------------------------------------------------------
@pytest.mark.parametrize("text", ["٣", "３", "𝟑", "1_000", "+3", " 3", "3 ", "0x10"])
def test_command_line_counts_are_ascii_digits(text: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # int(text, 10) read '٣' and '３' as 3 and '1_000' as 1000: 3 or 1000 deals simulated
    from shuangkou.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "-n", text, "--rules", "classic", "--no-progress"])
    assert exit_.value.code == 2
    assert "expected an integer 0..9223372036854775807" in capsys.readouterr().err


def test_command_line_counts_in_ascii_still_read() -> None:
    from shuangkou.cli import main

    assert main(["simulate", "-n", "3", "--seed", "18446744073709551615", "--start", "7",
                 "--rules", "classic", "--no-progress"]) == 0


@pytest.mark.parametrize(("field", "text"), [("meta_seed", "٣"), ("meta_start", "٢"),
                                              ("meta_seed", "1_0"), ("meta_start", "-1"),
                                              ("meta_start", str(2**63))])
def test_a_saved_result_reads_its_numbers_in_ascii(tmp_path: object, field: str,
                                                   text: str) -> None:
    # load_npz used int(str(...)): a seed '٣' loaded as 3, a start of 2**63 as is
    import pathlib

    import numpy as np

    from shuangkou import simulate
    from shuangkou.errors import DocumentError
    from shuangkou.sim import SimResult

    path = pathlib.Path(str(tmp_path)) / "r.npz"
    res = simulate(3, "classic", seed=3, start=2)
    res.save(path)
    assert SimResult.load_npz(path) == res
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays[field] = np.array(text)
    np.savez(path, **arrays)
    with pytest.raises(DocumentError, match=field):
        SimResult.load_npz(path)



# -- one rule for the reference and the engine ---------------------------------------------------
ODD = {
    "trick": [0, 32767, 32768, 2**40, -1, True, np.int64(3), 1.0, "1"],
    "leader": [0, 3, 4, -1, np.int64(2), np.uint8(1), True, 2.0],
    "hand_size": [None, 1, 27, 108, 109, 0, -1, np.int64(27), True],
    "escape": [None, 0, 3, 4, np.int64(0), True],
    "to_act": [1, np.int64(1), np.int8(1), True, 5, 1.0],
    "passes": [0, np.int64(0), np.uint16(0), True, -1, 0.0],
}


@pytest.mark.parametrize(("field", "value"), [(f, v) for f, vs in ODD.items() for v in vs])
def test_the_reference_and_the_engine_take_the_same_arguments(field: str, value: object) -> None:
    # RefState accepted trick 32768 and hand_size 0 or 109 (State: ArgumentError) and refused
    # numpy ints as seats and counts (State normalises them, the argument rule); State took
    # passes=0.0 when leading (it checked passes only against a table)
    args: dict[str, object] = {"to_act": 1, field: value}
    outcome = []
    for cls in BUILDERS:
        try:
            st = cls.from_position("classic", ["3 4", "5", "6", "7"], **args)
            outcome.append(("ok", format_position(st), st.trick, st.leader))
        except ValueError:
            outcome.append(("refused",))
    assert outcome[0] == outcome[1]
