"""Issue #11 regressions, second pass: every int read from a play/observation dict, a
``VecEnv`` argument and a rules argument goes through one validation point (``_check`` for
ints, ``rules.as_rules`` for rules), so a float is refused rather than truncated, a bool is not
an int, and a preset name is accepted wherever a :class:`Rules` is."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import shuangkou as sk
from shuangkou.errors import DocumentError
from shuangkou.game import Game, Observation, play_from_dict, play_to_dict

BAIBIAN = sk.Rules.preset("baibian")


# -- item 1: play and observation dicts (the server client reads them from the wire) ----------
def _bomb_dict() -> dict[str, object]:
    return play_to_dict(sk.Play.parse("7 7 7 7", BAIBIAN))


@pytest.mark.parametrize("field", ["top", "width", "length", "stars", "wilds"])
@pytest.mark.parametrize("bad", [0.7, True, "4", None, b"4"])
def test_play_dict_fields_are_ints_never_truncated_or_bools(field, bad):
    d = _bomb_dict()
    d[field] = d[field] + bad if isinstance(bad, float) else bad  # 4.7: was read as 4
    before = copy.deepcopy(d)
    with pytest.raises(DocumentError, match=field):
        play_from_dict(d)
    assert d == before


def test_play_dict_int_like_fields_are_normalised():
    d = _bomb_dict()
    d["top"] = np.int64(d["top"])
    assert play_from_dict(d) == sk.Play.parse("7 7 7 7", BAIBIAN)


def test_observation_card_ids_are_never_truncated():
    g = Game(BAIBIAN, seed=1)
    seat = g.to_act
    good = g.observation(seat).to_dict()
    assert Observation.from_dict(copy.deepcopy(good)) == g.observation(seat)
    for key, bad in [("hand", 0.7), ("hand", True), ("seat", 0.0), ("trick", 0.5),
                     ("card_counts", 0.5)]:
        d = copy.deepcopy(good)
        if isinstance(d[key], list):
            d[key][0] = d[key][0] + bad if isinstance(bad, float) else bad
        else:
            d[key] = d[key] + bad if isinstance(bad, float) else bad
        with pytest.raises(DocumentError, match=key):
            Observation.from_dict(d)
