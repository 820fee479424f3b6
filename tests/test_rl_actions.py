"""The action table v2 (docs/rl.md): frozen by a golden file, readings split by the number of
wilds used, encode/decode round-trips for every legal play of seeded hands, the documented
rule choosing the cards of a table action."""

from __future__ import annotations

import json
import pathlib
import random

import numpy as np
import pytest

from shuangkou import Hand, Rules, legal_plays
from shuangkou import batch as B
from shuangkou.plays import Play
from shuangkou.rng import deal

PRESETS = ("classic", "baibian", "jj", "qianbian")
GOLDEN = pathlib.Path(__file__).parent / "data" / f"action_table_v{B.ACTION_TABLE_VERSION}.json"
TABLES = (None, "5 6 7 8 9", "3 3", "7 7 7", "4 4 4 4", "3 3 4 4 5 5")


def _hands(n: int, seed: int = 1) -> list[Hand]:
    """Seeded deal hands, then joker-rich short and long hands."""
    out = [Hand.from_cards(deal(s, "random").hands[s % 4]) for s in range(n)]
    rnd = random.Random(seed)
    for _ in range(n):
        ids = rnd.sample(range(104), rnd.randint(0, 23))
        ids += rnd.sample(range(104, 108), rnd.randint(0, 4))
        out.append(Hand.from_cards(ids))
    return out


def test_golden_file() -> None:
    doc = json.loads(GOLDEN.read_text())
    assert doc["version"] == B.ACTION_TABLE_VERSION
    assert doc["columns"] == ["kind", "top", "width", "length", "stars", "size", "wilds"]
    for preset in PRESETS:
        at = B.action_table(preset)
        assert at.readings.tolist() == doc["presets"][preset], preset


@pytest.mark.parametrize("preset", PRESETS)
def test_every_legal_play_round_trips(preset: str) -> None:
    rules = Rules.preset(preset)
    at = B.action_table(rules)
    for i in range(1, len(at)):
        assert at.encode(int(at.tags[i])) == i
    for table in TABLES:
        pb = B.legal_plays(_hands(40), rules, table)
        idx = at.encode_tags(pb.tags)
        # the action keeps everything of the reading, the number of wilds included
        assert (at.readings[idx] == pb.fields).all()
        for i in np.unique(idx)[:50]:
            d = at.decode(int(i))
            assert at.encode(d["tag"]) == i and d["wilds"] == at.readings[i, 6]


def test_wild_counts_are_distinct_actions() -> None:
    rules = Rules.preset("baibian")
    at = B.action_table(rules)
    plays = legal_plays("5 5 BJ", rules)
    pairs = [p for p in plays if p.kind == 1 and p.top == 2]
    assert sorted(p.wilds for p in pairs) == [0, 1]
    a0, a1 = (at.encode(p) for p in sorted(pairs, key=lambda p: p.wilds))
    assert a0 != a1 and at.decode(a1)["wilds"] == 1
    assert at.play_for("5 5 BJ", a0) == Play.parse("5 5", rules)
    assert str(at.play_for("5 5 BJ", a1).cards) == "5 BJ"
    assert at.describe(a1) == "pair of 5 (2 cards), 1 wild"
    # classic has no wilds: one action per reading
    assert (B.action_table("classic").readings[:, 6] == 0).all()


def _rule_min(plays: list[Play]) -> Play:
    """The documented choice, from the plays' own fields: fewest BJ cards, then lowest word."""
    return min(plays, key=lambda p: (p.cards.counts[14], p.cards.packed))


@pytest.mark.parametrize("preset", PRESETS)
def test_play_for_rule_and_masks(preset: str) -> None:
    rules = Rules.preset(preset)
    at = B.action_table(rules)
    hands = _hands(15, seed=2)
    for table in TABLES[:4]:
        mask = at.mask(hands, table)
        for i, h in enumerate(hands):
            plays = legal_plays(h, rules, table)
            groups: dict[int, list[Play]] = {}
            for p in plays:
                groups.setdefault(at.encode(p), []).append(p)
            exp = set(groups) | ({0} if table is not None else set())
            assert set(np.flatnonzero(mask[i]).tolist()) == exp
            for a, ps in list(groups.items())[:20]:
                assert at.play_for(h, a, table) == _rule_min(ps)
    with pytest.raises(IndexError):
        at.decode(len(at))
