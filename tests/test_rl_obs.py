"""Observations v2 (docs/rl.md): the reference encoder's fields, no hidden-card leak (hidden
hands changed ⇒ byte-identical observation)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from shuangkou import Rules, State
from shuangkou import batch as B
from shuangkou.cards import CARD_RANKS, card_face, face_copies
from shuangkou.game import Game
from shuangkou.rl import VecEnv

PRESETS = ("classic", "baibian", "jj", "qianbian")


def field(obs: np.ndarray, name: str) -> np.ndarray:
    n = dict(B.OBS_FIELDS)[name]
    return obs[B.OBS_OFFSETS[name]:B.OBS_OFFSETS[name] + n]


def _advance(game: Game, rnd: random.Random, steps: int) -> None:
    """Random legal actions (plays and passes)."""
    for _ in range(steps):
        if game.is_over:
            return
        plays = game.legal_plays()
        if game.can_pass() and (not plays or rnd.random() < 0.4):
            game.pass_()
        else:
            game.play(rnd.choice(plays))


def test_layout() -> None:
    from shuangkou import _rl

    assert B.OBS_VERSION == 2 and _rl.OBS == B.OBS_SIZE  # the kernel's copy of the layout
    assert B.OBS_SIZE == sum(n for _, n in B.OBS_FIELDS) == 182
    assert list(B.OBS_OFFSETS) == [name for name, _ in B.OBS_FIELDS]


@pytest.mark.parametrize("preset", PRESETS)
def test_reference_fields(preset: str) -> None:
    rules = Rules.preset(preset)
    rnd = random.Random(preset)
    for seed in range(3):
        game = Game(rules, seed=seed)
        while not game.is_over:
            for seat in range(4):
                obs = B.observation(game, seat)
                rel = [(seat + k) & 3 for k in range(4)]
                assert obs.dtype == np.float32 and obs.shape == (B.OBS_SIZE,)
                assert tuple(field(obs, "hand")) == game.hand_ranks(seat).counts
                partner = field(obs, "partner_hand")
                if rules.partner_visible:
                    assert tuple(partner) == game.hand_ranks(seat ^ 2).counts
                else:
                    assert not partner.any()
                left = field(obs, "cards_left")
                played = field(obs, "played").reshape(4, 15)
                assert list(left) == [game.cards_left(s) for s in rel]
                # cards played + cards left = the cards dealt, seat by seat
                for k, s in enumerate(rel):
                    assert played[k].sum() + left[k] == len(game.initial_hands[s])
                bombs = field(obs, "bombs").reshape(4, 8)
                assert list(bombs.sum(1)) == [len(game.bombs_played(s)) for s in rel]
                assert field(obs, "leading")[0] == (game.table is None and game.to_act == seat)
                owner = field(obs, "table_owner")
                if game.table is None:
                    assert not owner.any() and not field(obs, "table_reading").any()
                else:
                    assert owner[(game.table_owner - seat) & 3] == 1 and owner.sum() == 1
                    assert field(obs, "table_cards").sum() == game.table.size
                    assert field(obs, "passes")[0] == game.passes
                rr = field(obs, "revealed_rank")
                if rules.first_leader == "revealed":
                    assert rr[CARD_RANKS[game.revealed]] == 1 and rr.sum() == 1
                    holder = field(obs, "revealed_holder")
                    assert holder[(game.first_leader - seat) & 3] == 1
                    twin = field(obs, "twin_holder")
                    assert twin.sum() == 1 and (np.flatnonzero(twin)[0] - holder.argmax()) % 2 == 0
                else:
                    assert not rr.any()
            _advance(game, rnd, 7)
        places = field(B.observation(game, 0), "place")
        assert sorted(places[places > 0].tolist()) == list(range(1, len(game.places) + 1))


def hidden_reshuffle(game: Game, seat: int, rnd: random.Random) -> Game:
    """The same public history with the cards ``seat`` cannot see dealt differently: the unplayed
    cards of the hidden seats (not ``seat``, not its partner under 双明) are shuffled among them,
    hand sizes kept; the revealed card and its twin stay where they are (R7 leader and swap)."""
    seen = {seat, seat ^ 2} if game.rules.partner_visible else {seat}
    hidden = [s for s in range(4) if s not in seen]
    played = {s: {c for a in game.actions if a.seat == s for c in a.cards} for s in range(4)}
    fixed = set() if game.revealed is None else set(face_copies(card_face(game.revealed)))
    pool = [c for s in hidden for c in game.initial_hands[s]
            if c not in played[s] and c not in fixed]
    rnd.shuffle(pool)
    hands = []
    for s in range(4):
        if s not in hidden:
            hands.append(list(game.initial_hands[s]))
            continue
        keep = [c for c in game.initial_hands[s] if c in played[s] or c in fixed]
        n = len(game.initial_hands[s]) - len(keep)
        hands.append(keep + pool[:n])
        pool = pool[n:]
    if game.revealed is not None:
        other = Game.from_deal(game.rules, hands, revealed=game.revealed)
    else:
        other = Game.from_deal(game.rules, hands, leader=game.first_leader)
    for a in game.actions:
        if a.kind == "play":
            other.play(list(a.cards))
        else:
            other.pass_()
    return other


@pytest.mark.parametrize("preset", PRESETS)
def test_no_hidden_card_leak(preset: str) -> None:
    rules = Rules.preset(preset)
    rnd = random.Random(11)
    checked = 0
    for seed in range(4):
        game = Game(rules, seed=seed)
        while not game.is_over:
            seat = game.to_act
            other = hidden_reshuffle(game, seat, rnd)
            assert B.observation(other, seat).tobytes() == B.observation(game, seat).tobytes()
            # count the positions where the hidden hands really differ (by rank)
            checked += any(other.hand_ranks(s) != game.hand_ranks(s) for s in range(4))
            _advance(game, rnd, 9)
    assert checked > 10


def _positions(rules: Rules, rnd: random.Random, seat: int) -> tuple[State, State, State]:
    """Three positions with ``seat`` to act: a base one, one whose hidden hands differ (same
    sizes), one where only ``seat``'s own hand differs."""
    deck = [r for r in range(13) for _ in range(8)] + [13, 13, 14, 14]
    rnd.shuffle(deck)
    sizes = [rnd.randint(5, 20) for _ in range(4)]
    hands, k = [], 0
    for n in sizes:
        hands.append(deck[k:k + n])
        k += n
    seen = {seat, seat ^ 2} if rules.partner_visible else {seat}
    hidden = [s for s in range(4) if s not in seen]
    pool = [c for s in hidden for c in hands[s]] + deck[k:k + 4]
    rnd.shuffle(pool)
    other = [list(h) for h in hands]
    for s in hidden:
        other[s], pool = pool[:sizes[s]], pool[sizes[s]:]
    mine = [list(h) for h in hands]
    spare = next(c for c in deck[k + 4:] if c != mine[seat][0])  # an unused card, other rank
    mine[seat] = mine[seat][1:] + [spare]

    def make(hs: list[list[int]]) -> State:
        words = [sum(1 << (4 * r) for r in h) for h in hs]
        return State.from_position(rules, words, seat, table=None, bombs=((), (), (), ()))

    return make(hands), make(other), make(mine)


@pytest.mark.parametrize("preset", PRESETS)
def test_vecenv_observation_has_no_hidden_cards(preset: str) -> None:
    """The kernel's encoder, on positions loaded into a VecEnv: other hidden hands ⇒ the same
    bytes for every seat that cannot see them; another own hand ⇒ different bytes."""
    rules = Rules.preset(preset)
    rnd = random.Random(preset)
    env = VecEnv(rules, 1)
    env.reset(0)
    for trial in range(20):
        seat = trial % 4
        base, other, mine = _positions(rules, rnd, seat)
        obs = [env.set_position(0, s).obs[0].copy() for s in (base, other, mine)]
        assert obs[0].tobytes() == obs[1].tobytes()
        assert obs[0].tobytes() != obs[2].tobytes()
        assert tuple(field(obs[0], "hand")) == base.hand(seat).counts
        assert env.legal_plays(0) == list(mine.legal())  # the last position loaded
