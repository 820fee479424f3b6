"""Stub of the learned bot's feature rows ``shuangkou._learned`` (hand-written; checked by
stubtest)."""

from typing import Any

import numpy as np
import numpy.typing as npt

DIMS: tuple[int, int]

def play_arrays(plays: Any) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]: ...
def play_words(plays: Any) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32]]: ...
def greedy_choice(
    plays: Any,
    hand: int,
    flags: int,
    table: int,
    partner_owns: bool,
    opp_min: int,
    my_cards: int,
) -> int: ...
def greedy_rows(
    obs: npt.ArrayLike, env: npt.ArrayLike, cards: npt.ArrayLike, feat: npt.ArrayLike, n: int
) -> npt.NDArray[np.int64]: ...
def encode(
    obs: npt.ArrayLike,
    offsets: npt.ArrayLike,
    cards: npt.ArrayLike,
    feat: npt.ArrayLike,
    can_pass: npt.ArrayLike,
    preset: int,
    damage: npt.ArrayLike,
    choice: npt.ArrayLike,
    plays_left: npt.ArrayLike,
    judged: npt.ArrayLike,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64], npt.NDArray[np.bool_]]: ...
