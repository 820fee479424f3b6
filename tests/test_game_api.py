"""The Game API a server builds on: JSON observations, per-seat logs that hide what a seat may
not see (R6 双明, R7 明牌 swap), playing by index into the legal list, and the physical cards a
play takes."""

from __future__ import annotations

import json
import random

import pytest

import shuangkou.game as game_module
from shuangkou import IllegalPlayError, Play, Rules
from shuangkou.cards import CARD_RANKS
from shuangkou.game import SPECTATOR, Game, Observation, play_from_dict, play_to_dict, replay

PRESETS = ("classic", "baibian", "jj", "qianbian")
R = {name: Rules.preset(name) for name in PRESETS}


def random_step(g: Game, rnd: random.Random) -> None:
    plays = g.legal_plays()
    if g.can_pass() and (not plays or rnd.random() < 0.4):
        g.pass_()
    else:
        g.play(rnd.randrange(len(plays)))


def json_round_trip(d: object) -> object:
    return json.loads(json.dumps(d, ensure_ascii=False))


def swapped_game(preset: str) -> Game:
    """A seeded deal whose 明牌 swap moved two players (R7)."""
    for seed in range(200):
        g = Game(R[preset], seed=seed)
        if g.swap is not None:
            return g
    raise AssertionError("no swap in 200 seeds")  # pragma: no cover


# -- observations ------------------------------------------------------------------------------
@pytest.mark.parametrize("preset", PRESETS)
def test_observation_json_round_trip_through_whole_games(preset: str) -> None:
    rnd = random.Random(preset)
    for seed in range(6):
        g = Game(R[preset], seed=seed)
        while True:
            for seat in range(4):
                obs = g.observation(seat)
                d = obs.to_dict()
                assert json_round_trip(d) == d  # plain JSON types only
                assert Observation.from_dict(json_round_trip(d)) == obs  # type: ignore[arg-type]
            if g.is_over:
                break
            for _ in range(rnd.randrange(1, 12)):
                if not g.is_over:
                    random_step(g, rnd)
        assert g.result is not None and g.observation(0).to_dict()["result"]["units"] == list(
            g.result.units
        )


def test_observation_dict_shows_only_the_seats_hands() -> None:
    g = Game(R["baibian"], seed=3)
    d = g.observation(1).to_dict()
    assert d["hand"] == list(g.hand(1)) and d["partner_hand"] is None
    others = {c for s in (0, 2, 3) for c in g.hand(s)}
    assert not others & set(d["hand"]) and len(d["hand"]) == 27
    jj = Game(R["jj"], seed=3).observation(1).to_dict()
    assert jj["partner_hand"] is not None and len(jj["partner_hand"]) == 27  # 双明 (R6)


def test_observation_history_is_the_public_action_list() -> None:
    g = Game.from_deal(R["classic"], ["Ks 4s", "3h 5h", "5h 6h", "7h"], leader=0)
    g.play("4s")
    g.play("5h")
    g.pass_()
    d = g.observation(3).to_dict()
    assert [a["kind"] for a in d["history"]] == ["play", "play", "pass"]
    assert d["history"][1] == {
        "kind": "play", "seat": 1, "cards": list(g.actions[1].cards),
        "play": play_to_dict(g.actions[1].play), "trick": 0,  # type: ignore[arg-type]
    }
    assert d["table"]["text"] == "5" and d["table_owner"] == 1 and d["to_act"] == 3


def test_play_dict_is_the_reading_and_rejects_garbage() -> None:
    for preset in PRESETS:
        g = Game(R[preset], seed=11)
        for p in g.legal_plays():
            assert play_from_dict(json_round_trip(play_to_dict(p))) == p  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        play_from_dict({"cards": "3 3"})
    with pytest.raises(ValueError):
        Observation.from_dict({"seat": 0})


# -- per-seat logs -----------------------------------------------------------------------------
def finished(g: Game, seed: int = 0) -> Game:
    rnd = random.Random(seed)
    while not g.is_over:
        random_step(g, rnd)
    return g


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
def test_seat_log_keeps_only_the_own_hand_across_a_swap(preset: str) -> None:
    g = finished(swapped_game(preset))
    full = g.log()
    for seat in range(4):
        log = g.log(seat=seat)
        assert json_round_trip(log) == log
        hands = log["deal"]["hands"]
        shown = [h for h in hands if h is not None]
        # the one hand shown is the one this seat holds after the swap, wherever it was dealt
        assert len(shown) == 1 and sorted(shown[0]) == list(g.initial_hands[seat])
        assert log["seed"] is None and log["view"] == seat
        assert log["deal"]["hand_sizes"] == [len(h) for h in g.dealt]
        assert log["actions"] == full["actions"] and log["deal"]["revealed"] == g.revealed
        assert log["deal"]["players"] == full["deal"]["players"]
    a, b = g.swap  # type: ignore[misc]
    hands_a = g.log(seat=a)["deal"]["hands"]
    assert hands_a[b] is not None and hands_a[a] is None  # dealt at b, held at a after the swap


def test_seat_log_under_shuangming_shows_the_partner() -> None:
    g = finished(swapped_game("jj"))
    for seat in range(4):
        hands = g.log(seat=seat)["deal"]["hands"]
        shown = sorted(sorted(h) for h in hands if h is not None)
        assert shown == sorted([list(g.initial_hands[seat]), list(g.initial_hands[seat ^ 2])])


def test_spectator_log_and_errors() -> None:
    g = finished(Game(R["classic"], seed=4))
    log = g.log(seat=SPECTATOR)
    assert log["deal"]["hands"] == [None] * 4 and log["view"] == "spectator"
    assert log["seed"] is None and log["actions"] == g.log()["actions"]
    assert g.log(seat=None) == g.log() and replay(g.log()) == g
    for bad in (4, -1, True, "north"):
        with pytest.raises(ValueError, match="seat"):
            g.log(seat=bad)
    for view in (0, SPECTATOR):
        with pytest.raises(ValueError, match="redacted"):
            replay(g.log(seat=view))
        with pytest.raises(ValueError, match="redacted"):
            Game.from_json(g.to_json(seat=view))


def test_seat_json_redacts_the_snapshot() -> None:
    g = Game(R["jj"], seed=9)
    g.play(0)
    doc = json.loads(g.to_json(seat=1))
    assert doc["state"]["hands"] == [None, list(g.hand(1)), None, list(g.hand(3))]
    assert doc["state"]["to_act"] == g.to_act and doc["deal"]["hands"].count(None) == 2
    assert json.loads(g.to_json())["state"]["hands"] == [list(g.hand(s)) for s in range(4)]


# -- play by index, listed plays, cards_for ----------------------------------------------------
@pytest.mark.parametrize("preset", PRESETS)
def test_play_by_index_is_the_listed_play(preset: str) -> None:
    rnd = random.Random(1)
    a, b = Game(R[preset], seed=21), Game(R[preset], seed=21)
    while not a.is_over:
        plays = a.legal_plays()
        if a.can_pass() and (not plays or rnd.random() < 0.4):
            a.pass_()
            b.pass_()
            continue
        i = rnd.randrange(len(plays))
        expect = a.cards_for(plays[i])
        assert a.cards_for(i) == expect
        assert a.play(i) == plays[i] and a.actions[-1].cards == expect
        b.play(Play.parse(str(plays[i]), R[preset]))  # a fresh object: classified
        assert a.key() == b.key()


def test_bad_index_changes_nothing() -> None:
    g = Game(R["baibian"], seed=2)
    n = len(g.legal_plays())
    before = g.key()
    for bad in (n, -1, 10**6):
        with pytest.raises(IllegalPlayError, match=f"index {bad} is not in 0..{n - 1}"):
            g.play(bad)
        assert g.key() == before
    with pytest.raises(IllegalPlayError, match="turn"):
        g.play(0, seat=(g.to_act + 1) % 4)  # type: ignore[operator]
    with pytest.raises(IllegalPlayError, match="not bomb"):
        g.play(0, "bomb")
    assert g.key() == before


def test_listed_play_is_not_classified_again(monkeypatch: pytest.MonkeyPatch) -> None:
    g = Game(R["qianbian"], seed=5)
    plays = g.legal_plays()

    def no_classify(*_: object) -> list[Play]:
        raise AssertionError("classify called for a listed play")

    monkeypatch.setattr(game_module, "classify", no_classify)
    g.play(plays[-1])
    g.play(len(g.legal_plays()) - 1)
    assert len(g.actions) == 2
    # a play that is not from the current list is validated (and here: classify is asked)
    with pytest.raises(AssertionError, match="classify called"):
        g.play(plays[0])


def test_cards_for_other_seats_and_errors() -> None:
    g = Game.from_deal(R["classic"], ["3s 3h 3s", "4h 4c", "5h", "6h"], leader=0)
    three_pair = Play.parse("3 3", R["classic"])
    assert g.cards_for(three_pair) == tuple(sorted(g.hand(0)))[:2]  # lowest ids of the rank
    four_pair = Play.parse("4 4", R["classic"])
    assert g.cards_for(four_pair, seat=1) == g.hand(1)
    with pytest.raises(IllegalPlayError, match="does not hold"):
        g.cards_for(four_pair)
    with pytest.raises(ValueError, match="seat to act"):
        g.cards_for(0, seat=1)
    with pytest.raises(TypeError):
        g.cards_for("3s")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        g.cards_for(three_pair, seat=5)


def test_cards_for_takes_the_lowest_ids_of_each_rank() -> None:
    """Against a naive reading of "the lowest held ids of each needed rank" (cards.CARD_RANKS),
    on random hands of both decks and jokers, for every legal play."""
    rnd = random.Random(7)
    for preset in PRESETS:
        for _ in range(15):
            deck = list(range(108))
            rnd.shuffle(deck)
            hands = [deck[27 * s: 27 * s + rnd.randrange(1, 28)] for s in range(4)]
            g = Game.from_deal(R[preset], hands, leader=0)
            held = sorted(g.hand(0))
            for p in g.legal_plays():
                expect: list[int] = []
                for rank, need in enumerate(p.cards.counts):
                    expect += [c for c in held if CARD_RANKS[c] == rank][:need]
                assert g.cards_for(p) == tuple(sorted(expect))
