"""Batch / RL API (issue #4): batch results equal the per-hand API; the action table's
encode/decode round-trip; masks equal the legal plays' readings; observations."""

from __future__ import annotations

import random

import numpy as np
import pytest

from shuangkou import Hand, Rules, count_plays, legal_plays
from shuangkou import batch as B
from shuangkou.game import Game
from shuangkou.plays import PASS, Kind, Play
from shuangkou.rng import deal

PRESETS = ("classic", "baibian", "jj", "qianbian")
TABLES = (None, "5 6 7 8 9", "3 3", "7 7 7", "4 4 4 4", "3 3 4 4 5 5")


def _hands(n: int) -> list[Hand]:
    out = [Hand.from_cards(deal(s, "random").hands[s % 4]) for s in range(n)]
    rnd = random.Random(1)
    for _ in range(n // 2):  # joker-rich, short and long hands
        ids = rnd.sample(range(104), rnd.randint(0, 23))
        ids += rnd.sample(range(104, 108), rnd.randint(0, 4))
        out.append(Hand.from_cards(ids))
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_batch_equals_per_hand_api(preset: str) -> None:
    rules = Rules.preset(preset)
    hands = _hands(60)
    counts = B.as_counts(hands)
    assert counts.shape == (len(hands), 15) and counts.dtype == np.uint8
    assert (B.unpack(B.pack(counts)) == counts).all()
    assert list(B.pack(counts)) == [h.packed for h in hands]
    for table in TABLES:
        for wilds in ("all", "fewest"):
            n = B.count_plays(counts, rules, table, wilds)
            pb = B.legal_plays(counts, rules, table, wilds)
            assert (pb.counts == n).all()
            for i, h in enumerate(hands):
                exp = legal_plays(h, rules, table, wilds)
                assert n[i] == len(exp) == count_plays(h, rules, table, wilds)
                assert pb.plays(i) == exp
            cards = pb.cards
            assert cards.shape == (len(pb.words), 15)
            assert (cards.sum(1) == pb.fields[:, 5]).all()  # card vectors sum to the size
            assert (cards.astype(int) <= counts[pb.hand_index].astype(int)).all()


def test_per_hand_tables() -> None:
    rules = Rules.preset("baibian")
    hands = _hands(20)
    plays = ([Play.parse(t, rules) if t else None for t in TABLES] * 10)[: len(hands)]
    tables = np.array([p.tag if p else 0 for p in plays], dtype=np.uint32)
    n = B.count_plays(hands, rules, tables)
    for i, h in enumerate(hands):
        assert n[i] == count_plays(h, rules, plays[i])


@pytest.mark.parametrize("preset", PRESETS)
def test_action_table_roundtrip(preset: str) -> None:
    rules = Rules.preset(preset)
    at = B.action_table(rules)
    assert at is B.action_table(preset) and at.version == B.ACTION_TABLE_VERSION
    assert at.encode(PASS) == at.encode(None) == 0 and at.decode(0)["kind"] is None
    for i in range(1, len(at)):
        d = at.decode(i)
        assert at.encode(d["tag"]) == i
        p = Play._from_codes(0, d["tag"])
        assert (p.kind, p.top, p.width, p.length, p.stars, p.size) == (
            d["kind"], d["top"], d["width"], d["length"], d["stars"], d["size"])
    assert (at.encode_tags(at.tags) == np.arange(len(at))).all()
    # every legal play's reading is in the table, and decodes back to it
    pb = B.legal_plays(_hands(80), rules)
    idx = at.encode_tags(pb.tags)
    f = pb.fields
    assert (at.readings[idx] == f).all()
    with pytest.raises(IndexError):
        at.decode(len(at))


@pytest.mark.parametrize("preset", PRESETS)
def test_masks_equal_legal_readings(preset: str) -> None:
    rules = Rules.preset(preset)
    at = B.action_table(rules)
    hands = _hands(40)
    for table in TABLES[:4]:
        mask = at.mask(hands, table)
        assert mask.shape == (len(hands), len(at))
        for i, h in enumerate(hands):
            exp = {at.encode(p) for p in legal_plays(h, rules, table)}
            if table is not None:
                exp.add(0)
            assert set(np.flatnonzero(mask[i]).tolist()) == exp
            # each legal action maps to a concrete legal play with that reading
            for a in list(exp)[:5]:
                p = at.play_for(h, a, table)
                assert at.encode(p) == a
                if a:
                    assert p in legal_plays(h, rules, table)
    assert (B.legal_action_mask(hands, rules) == at.mask(hands)).all()


def test_play_for_errors() -> None:
    at = B.action_table("baibian")
    with pytest.raises(ValueError):
        at.play_for(Hand.parse("3 4"), 0)
    bomb = at.encode(Play.parse("2 2 2 2 2 2 2 2", Rules.preset("baibian")))
    with pytest.raises(ValueError):
        at.play_for(Hand.parse("3 4"), bomb)


def test_as_counts_validation() -> None:
    assert B.as_counts("3 3 BJ").tolist() == [[2] + [0] * 13 + [1]]
    assert B.as_counts([Hand.parse("4").packed, "5"]).shape == (2, 15)
    with pytest.raises(ValueError):
        B.as_counts(np.full((2, 15), 9))
    with pytest.raises(ValueError):
        B.as_counts(np.zeros((2, 14)))


def test_observation() -> None:
    for preset in ("baibian", "jj"):
        game = Game(Rules.preset(preset), seed=3)
        for _ in range(12):
            seat = game.to_act
            obs = B.observation(game, seat)
            assert obs.shape == (B.OBS_SIZE,) and obs.dtype == np.float32
            hand = obs[:15]
            assert hand.sum() == game.cards_left(seat)
            partner = obs[15:30]
            assert (partner.sum() > 0) == (preset == "jj")
            plays = game.legal_plays()
            game.play(plays[0]) if game.table is None or not plays else game.pass_()
    assert Kind.SINGLE == 0
