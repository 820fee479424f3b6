"""Issue #11 regressions on Game: untrusted documents, int-like seats, threads."""

from __future__ import annotations

import json
import threading

import numpy as np
import pytest

import shuangkou as sk
from shuangkou.errors import DocumentError, IllegalPlayError

BAIBIAN = sk.Rules.preset("baibian")


def played(rules: sk.Rules = BAIBIAN, seed: int = 3, steps: int = 12) -> sk.Game:
    g = sk.Game(rules, seed)
    for _ in range(steps):
        g.play(0) if g.table is None else g.pass_()
    return g


# -- documents ---------------------------------------------------------------------------------
@pytest.mark.parametrize("mutate", [
    lambda d: d.pop("rules"),
    lambda d: d.update(rules=[1]),
    lambda d: d.update(seed="7"),
    lambda d: d.update(seed=1.5),
    lambda d: d.update(seed=-1),
    lambda d: d.update(seed=2**80),
    lambda d: d.update(deal=[]),
    lambda d: d["deal"].update(players=[0, 1]),
    lambda d: d["deal"].update(hands=[[1, 2]] * 3),
    lambda d: d["deal"].update(hands=[["x"]] * 4),
    lambda d: d.update(actions={"0": 1}),
    lambda d: d["actions"].append(["play", 0]),
    lambda d: d["actions"].append(["play", True, [1]]),
    lambda d: d["actions"].append(["play", 0, [1.5]]),
    lambda d: d["actions"].append(["pass", "1"]),
    lambda d: d["actions"].append([[[[[[[[[[[[[["deep"]]]]]]]]]]]]]]),
    lambda d: d["rules"].update(jj_single_win="3"),
    lambda d: d["rules"].pop("scoring"),
])
def test_every_malformed_document_is_a_value_error_naming_the_problem(mutate):
    doc = json.loads(played().to_json())
    mutate(doc)
    with pytest.raises(ValueError) as err:
        sk.Game.from_json(json.dumps(doc))
    assert isinstance(err.value, DocumentError)
    with pytest.raises(sk.ReplayError):
        sk.replay(json.dumps(doc))


@pytest.mark.parametrize("mutate", [lambda d: d.pop("actions"), lambda d: d.update(state=[])])
def test_a_snapshot_that_does_not_match_is_a_document_error(mutate):
    doc = json.loads(played().to_json())
    mutate(doc)
    with pytest.raises(DocumentError):
        sk.Game.from_json(json.dumps(doc))


@pytest.mark.parametrize("text", [
    "[" * 100_000 + "]" * 100_000, '{"format": "shuangkou.game", "version": Infinity}',
    '{"seed": NaN}', "not json", "", "x" * 3_000_000, '"a string"',
])
def test_hostile_json_text_is_a_document_error(text):
    with pytest.raises(DocumentError):
        sk.Game.from_json(text)
    with pytest.raises(DocumentError):
        sk.Match.from_json(text)


def test_a_server_pins_rules_and_requires_the_seeded_deal():
    doc = json.loads(played().to_json())
    doc["rules"]["escape_penalty"] = 0  # a client lowering its own penalty
    text = json.dumps(doc)
    sk.Game.from_json(text)  # trusted loading keeps working
    with pytest.raises(DocumentError, match="escape_penalty"):
        sk.Game.from_json(text, rules=BAIBIAN)
    # A scripted deal (no seed) giving one seat 105 cards: 5 M legal plays on every call.
    hands = [list(range(105)), [105], [106], [107]]
    scripted = sk.Game.from_deal(BAIBIAN, hands)
    with pytest.raises(DocumentError, match="seed"):
        sk.Game.from_json(scripted.to_json(), seeded=True)
    assert sk.Game.from_json(played().to_json(), rules=BAIBIAN, seeded=True) == played()


def test_match_games_must_have_the_match_rules():
    m = sk.Match(BAIBIAN, seed=5)
    g = m.deal()
    while not g.is_over:
        g.play(0) if g.table is None else g.pass_()
    doc = json.loads(m.to_json())
    doc["games"][0]["rules"]["escape_penalty"] = 0
    with pytest.raises(DocumentError, match="rules"):
        sk.Match.from_json(json.dumps(doc))
    assert sk.Match.from_json(m.to_json()).totals == m.totals


# -- seats -------------------------------------------------------------------------------------
def test_int_like_seats_are_normalised():
    g = sk.Game(BAIBIAN, 1)
    g.abandon(np.int64(1))
    assert g.escape == 1 and json.loads(g.to_json())["actions"][-1] == ["abandon", 1]
    g = sk.Game(BAIBIAN, 1)
    g.play(0, seat=np.int8(g.to_act))
    assert g.hand(np.int64(0)) == g.hand(0)


@pytest.mark.parametrize("bad", [True, 1.0, 11.9, "1", b"\x01", -1, 4, None])
def test_bad_seats_are_refused_and_change_nothing(bad):
    g = sk.Game(BAIBIAN, 1)
    before = g.to_json()
    with pytest.raises(ValueError):
        g.abandon(bad)
    if bad is not None:
        with pytest.raises(ValueError):
            g.hand(bad)
        with pytest.raises(ValueError):
            g.play(0, seat=bad)
    assert g.to_json() == before


# -- threads -----------------------------------------------------------------------------------
def _race(g: sk.Game, seat: int, barrier: threading.Barrier, outcomes: list[str]) -> None:
    barrier.wait()
    try:
        g.play(0, seat=seat)
        outcomes.append("ok")
    except IllegalPlayError:
        outcomes.append("refused")


def test_two_threads_playing_one_game_are_serialised():
    for seed in range(40):
        g = sk.Game(BAIBIAN, seed)
        barrier = threading.Barrier(2)
        outcomes: list[str] = []
        args = (g, g.to_act, barrier, outcomes)
        threads = [threading.Thread(target=_race, args=args) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(outcomes) == ["ok", "refused"]  # exactly one move was accepted
        assert len(g.actions) == 1
        assert sk.Game.from_json(g.to_json()) == g  # and the game is whole
