"""sk.sample_deals / sample_worlds: uniform over the deals consistent with what the seat knows.

The oracle is Bayes by enumeration: every pre-swap deal of the cards in play (each as likely,
R7) is dealt through Game.from_deal with the revealed card (明牌 and its swap) and kept when the
seat would have seen exactly what it saw (its hand, the swap) and the history replays legally;
the kept deals' current hands are the posterior. Samples are compared to it with a chi-square
test (Wilson–Hilferty normal approximation: no scipy); the same samples must fail against the
distribution that ignores the 明牌 knowledge, so the test can tell."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator, Sequence

import pytest

from shuangkou import Game, Hand, Rules, hints, sample_deals, sample_worlds, solve

World = tuple[Hand, ...]


def splits(cards: Sequence[int], sizes: Sequence[int]) -> Iterator[list[list[int]]]:
    """Every way to deal ``cards`` into groups of ``sizes``."""
    if not sizes:
        yield []
        return
    for first in itertools.combinations(cards, sizes[0]):
        rest = [c for c in cards if c not in first]
        for tail in splits(rest, sizes[1:]):
            yield [list(first), *tail]


def replays(game: Game, pre: list[list[int]]) -> Game | None:
    if game.revealed is None:
        g = Game.from_deal(game.rules, pre, leader=game.first_leader)
    else:
        g = Game.from_deal(game.rules, pre, revealed=game.revealed)
    if g.swap != game.swap:
        return None
    try:
        for a in game.actions:
            if a.kind == "play":
                g.play(list(a.cards), seat=a.seat)
            else:
                g.pass_(seat=a.seat)
    except ValueError:
        return None
    return g


def posterior(game: Game, seat: int) -> Counter[World]:
    """Bayes by enumeration over the pre-swap deals (see the module docstring)."""
    mine = sorted(game.initial_hands[seat])
    partner = sorted(game.initial_hands[seat ^ 2]) if game.rules.partner_visible else None
    others = sorted(set().union(*map(set, game.initial_hands)) - set(mine))
    sizes = [len(h) for h in game.dealt]
    out: Counter[World] = Counter()
    for my_seat in range(4):  # where the seat's player sat before a swap
        rest = [sizes[s] for s in range(4) if s != my_seat]
        for groups in splits(others, rest):
            pre = groups[:my_seat] + [mine] + groups[my_seat:]
            g = replays(game, pre)
            if g is None or sorted(g.initial_hands[seat]) != mine:
                continue
            if partner is not None and sorted(g.initial_hands[seat ^ 2]) != partner:
                continue
            out[tuple(g.hand_ranks(s) for s in range(4))] += 1
    return out


def ignorant(game: Game, seat: int) -> Counter[World]:
    """Uniform over the unseen cards by cards left, ignoring the 明牌 knowledge."""
    hidden = [s for s in range(4) if s != seat and game.cards_left(s)]
    unseen = sorted(set().union(*map(set, game.initial_hands)).difference(
        *(a.cards for a in game.actions), game.hand(seat)))
    out: Counter[World] = Counter()
    for groups in splits(unseen, [game.cards_left(s) for s in hidden]):
        hands = {s: Hand.from_cards(g) for s, g in zip(hidden, groups)}
        out[tuple(hands.get(s, game.hand_ranks(s)) for s in range(4))] += 1
    return out


def z_score(samples: list[World], expected: Counter[World]) -> float:
    """Chi-square of the samples against ``expected`` as a normal deviate (Wilson–Hilferty);
    a sample outside the support is infinitely unlikely."""
    seen = Counter(samples)
    if not set(seen) <= set(expected):
        return math.inf
    total, n, k = sum(expected.values()), len(samples), len(expected) - 1
    chi2 = sum((seen[w] - n * c / total) ** 2 / (n * c / total) for w, c in expected.items())
    return ((chi2 / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))


def scripted(preset: str) -> Game:
    # 百变/JJ 明牌: card id 0 (3♠ of deck 0) is revealed; seat 1 holds the other copy, so it
    # swaps with seat 2 (R7). Then seat 0 leads and the others answer or pass.
    hands = ["3s 3h 4s", "3s 4h 3d", "6s 7s 5h", "5s 6h 7h"]
    game = Game.from_deal(Rules.preset(preset), hands, revealed=0)
    assert game.swap == (1, 2)
    for _ in range(3):
        plays = game.legal_plays()
        game.play(plays[0]) if plays else game.pass_()
    return game


def same_law(a: Counter[World], b: Counter[World]) -> bool:
    ta, tb = sum(a.values()), sum(b.values())
    return a.keys() == b.keys() and all(a[w] * tb == b[w] * ta for w in a)


@pytest.mark.parametrize("preset", ["baibian", "jj"])
def test_sampling_is_uniform_over_what_the_seat_knows(preset: str) -> None:
    game = scripted(preset)
    informed = 0
    for seat in range(4):
        expected = posterior(game, seat)
        samples = [tuple(d) for d in sample_deals(game, seat, 20_000, seed=seat)]
        assert z_score(samples, expected) < 4.0, (seat, expected)
        if not same_law(expected, ignorant(game, seat)):
            # the 明牌 / 双明 knowledge matters here: the law ignoring it is rejected
            informed += 1
            assert z_score(samples, ignorant(game, seat)) > 4.0, seat
    assert informed  # the example exercises the knowledge


def test_no_swap_and_random_leader() -> None:
    rules = Rules.preset("classic")  # random first leader: nothing but the counts is known
    game = Game.from_deal(rules, ["3s 4s", "5s 6s", "7s 8s", "9s 3h"], leader=1)
    game.play(game.legal_plays()[0])
    samples = [tuple(d) for d in sample_deals(game, 0, 20_000, seed=5)]
    assert z_score(samples, posterior(game, 0)) < 4.0
    assert posterior(game, 0).keys() == ignorant(game, 0).keys()


def test_worlds_are_positions_of_the_game() -> None:
    game = scripted("baibian")
    seat = game.to_act
    assert seat is not None
    for world in sample_worlds(game, seat, 5, seed=1):
        assert world.to_act == seat and world.table == game.table
        assert world.hand(seat) == game.hand_ranks(seat)
        assert [world.cards_left(s) for s in range(4)] == list(game.card_counts)
        assert solve(world).exact


def test_bad_arguments() -> None:
    game = scripted("baibian")
    with pytest.raises(ValueError):
        sample_deals(game, 4, 1, seed=0)
    with pytest.raises(ValueError):
        sample_deals(game, 0, -1, seed=0)


def test_a_seat_view_samples_rank_hands_uniformly_over_physical_deals() -> None:
    # a real deal played on until few cards are hidden: the view (rank level) samples the
    # unseen ranks; each rank world weighs as many physical deals as the multinomials count
    game = Game(Rules.preset("baibian"), seed=11)
    while sum(game.card_counts) - game.cards_left(0) > 7 and not game.is_over:
        plays = game.legal_plays()
        game.play(plays[0]) if plays else game.pass_()
    assert not game.is_over
    view = game.view(0)
    hidden = [s for s in range(1, 4) if game.cards_left(s)]
    pool = [r for s in hidden for r in game.hand_ranks(s)]  # the unseen ranks, as a multiset
    expected: Counter[World] = Counter()
    for groups in splits(list(range(len(pool))), [game.cards_left(s) for s in hidden]):
        hands = {s: Hand.from_counts([sum(pool[i] == r for i in g) for r in range(15)])
                 for s, g in zip(hidden, groups)}
        hands[0] = game.hand_ranks(0)
        expected[tuple(hands.get(s, Hand()) for s in range(4))] += 1
    samples = [tuple(d) for d in sample_deals(view, 0, 20_000, seed=3)]
    assert z_score(samples, expected) < 4.0
    with pytest.raises(ValueError, match="seat"):
        sample_deals(view, 1, 1, seed=0)


class _Racing(Game):
    """A Game another thread plays while a reader is half-way: its first ``hand`` read makes
    a move first (as a thread acting between two of the reader's reads would)."""

    raced = False

    def hand(self, seat: int) -> list[int]:
        if not self.raced:
            self.raced = True
            self.play(self.legal_plays()[0])
        return super().hand(seat)


def test_a_game_played_meanwhile_is_sampled_in_one_position() -> None:
    """A hostile check's finding: ``sample_worlds`` read a Game field by field, so a move made
    meanwhile by another thread gave worlds of no position (or a PositionError: 0.6% of the
    calls under a thread playing and undoing moves). It now reads a copy taken under the
    Game's lock: the worlds are of the position before the move, as is ``hints``."""
    for preset in ("baibian", "qianbian"):
        for read in ("worlds", "hints"):
            game = _Racing(Rules.preset(preset), seed=11)
            before = game.copy()
            seat = before.to_act
            assert seat is not None
            if read == "hints":
                assert hints(game) == hints(before)
                continue
            for world in sample_worlds(game, seat, 20, 1):
                assert world.to_act == seat and world.hand(seat) == before.hand_ranks(seat)
                assert world.card_counts == tuple(before.cards_left(s) for s in range(4))
