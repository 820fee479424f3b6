"""Stub of the self-play extension ``shuangkou._sim`` (hand-written; checked by stubtest)."""

from typing import Any

import numpy.typing as npt

MAX_STARS: int
PLAY_BUFFER: int
FIELDS: dict[str, tuple[str, tuple[int, ...]]]

def run(
    params: dict[str, Any],
    seed: int,
    start: int,
    count: int,
    out: dict[str, npt.NDArray[Any]],
    offset: int = 0,
) -> None: ...
def play_logged(
    params: dict[str, Any], deal_seed: int
) -> tuple[dict[str, Any], list[tuple[int, int, int]]]: ...
def held_value(hand: int, flags: int, mode: int) -> int: ...
def held_split(hand: int, flags: int, mode: int) -> tuple[int, list[tuple[int, int]]]: ...
def greedy_shortcut_choice(
    hand: int, flags: int, table: int, partner_owns: bool, opp_min: int, my_cards: int
) -> tuple[int, int, int]: ...
def deal_seed(seed: int, index: int) -> int: ...
