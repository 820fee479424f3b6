"""Solvers (docs/solver.md): hand decomposition (手数), hints (提示), sampling of hidden hands,
the exact endgame solver and a PIMC policy.

::

    import shuangkou as sk
    rules = sk.Rules.preset("baibian")
    sk.decompose("3 4 5 6 7 7 7 BJ", rules).count      # 2: 3..7 and 777+BJ (7777)
"""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from . import _solve
from ._check import as_int, as_seat, as_seconds, as_seed
from ._engine import State
from .cards import MAX_COPIES, N_RANKS, Hand, card_face, face_copies
from .errors import ArgumentError
from .game import Game
from .plays import PASS, Kind, Play, legal_plays
from .position import PositionFields
from .rules import Rules, as_rules

__all__ = [
    "MAX_SAMPLES", "Decomposition", "Solution", "decompose", "hints", "pimc_policy", "sample_deals",
    "sample_worlds", "solve",
]


@dataclass(frozen=True)
class Decomposition:
    """An optimal split of a hand into plays: ``count`` is its 手数 (the fewest plays that
    empty the hand), ``plays`` one split reaching it (largest plays first), ``bomb_cards`` the
    number of cards of that split that are in bombs."""

    count: int
    plays: tuple[Play, ...]
    bomb_cards: int

    def __str__(self) -> str:
        return f"{self.count}: " + " | ".join(str(p) for p in self.plays)


def _bomb_cards(plays: tuple[Play, ...]) -> int:
    return sum(p.size for p in plays if p.kind >= Kind.BOMB)


def decompose(hand: Hand | str, rules: Rules | str, *, keep_bombs: bool = False) -> Decomposition:
    """The fewest plays that empty ``hand`` (手数) and one split that reaches it, exact with
    wilds (the kernel's plays, R2/R3: any card set that is a legal play).

    With ``keep_bombs`` the split is, among those with the fewest plays, one with the most cards
    in bombs (the valued split that hints use: bombs kept whole). The count is the same.

    Bounded time on any hand (docs/solver.md "Decomposition": about a millisecond on the worst
    dealt hands), GIL released; safe from many threads at once (each call owns its memo).
    Ctrl-C stops it (``KeyboardInterrupt``)."""
    h = hand if isinstance(hand, Hand) else Hand.parse(hand)
    r = as_rules(rules)
    count, _, words, tags = _solve.decompose_split(h.packed, r.flags, keep_bombs)
    plays = tuple(
        sorted(
            (Play._from_codes(w, t) for w, t in zip(words, tags)),
            key=lambda p: (-p.size, p.tag, p.packed),
        )
    )
    return Decomposition(count, plays, _bomb_cards(plays))



# -- positions ---------------------------------------------------------------------------------
class Position(PositionFields, Protocol):
    """What :func:`solve` reads from a position: :class:`~shuangkou.Game`, ``State`` and
    ``RefState`` all have it (a Game's ranks come from ``hand_ranks``)."""

    @property
    def leader(self) -> int: ...


def _ranks(position: Position, seat: int) -> Hand:
    """A seat's rank multiset: ``hand_ranks`` on a Game (whose ``hand`` is card ids)."""
    get = getattr(position, "hand_ranks", None) or position.hand  # type: ignore[attr-defined]
    hand: Hand = get(seat)
    return hand


# -- hints (提示) ------------------------------------------------------------------------------
def _breaks(hand: Hand, plays: list[Play], rules: Rules) -> list[int]:
    """How much each play spoils the rest of the hand (docs/solver.md "Hints"): the valued split
    cost (keep-bombs) of the play plus the rest, minus the hand's own; 0 when the play is part
    of an optimal split of the hand, one ``UNIT`` per extra play needed, a little more for
    each card a split loses from its bombs."""
    base = _solve.decompose_cost(hand.packed, rules.flags, True)
    rest = _solve.decompose_costs(hand.packed, rules.flags, True, [p.packed for p in plays])
    unit = _solve.UNIT
    return [
        (unit - p.size if p.is_bomb else unit) + c - base for p, c in zip(plays, rest)
    ]


def hints(position: Position) -> list[Play]:
    """What a 提示 button cycles through for the seat to act: every legal play, in the order
    of docs/solver.md ("Hints"); passing is never a hint (an empty list: nothing beats the
    table). The *damage* of a play is how much it spoils the rest of the hand (:func:`_breaks`:
    0 when it is part of an optimal valued split, :func:`decompose` with ``keep_bombs``).

    Answering: the plays of the table's kind first, then the bombs, whoever owns the table
    (over the partner's play a bomb is never offered before a plain answer); each part by
    least damage, then wild-free before wild-using, then the smallest (the lowest top; bombs
    in R5 order). Leading: least damage first; plain before bombs; wild-free first; then the
    play holding the lowest rank, and of those the one shedding the most cards (a straight
    3..9 before a lone 3: it rids the hand of the same low card and six more); then the
    lowest top.

    Milliseconds on any hand (the damages from one pass over the hand, the order in C, GIL
    released); safe from many threads at once."""
    seat = position.to_act
    if seat is None:
        return []
    rules = position.rules
    hand = _ranks(position, seat)
    plays = legal_plays(hand, rules, position.table)
    return _solve.hint_order(hand.packed, rules.flags, position.table is None, plays)


# -- sampling the hidden hands -------------------------------------------------------------------
MAX_SAMPLES = 100_000
"""Most deals (worlds) one :func:`sample_deals` / :func:`sample_worlds` call draws: the list is
built at once (a world is a few hundred bytes, 10**9 of them would exhaust memory); draw more
in several calls with other seeds."""


def _check_sampling(game: object, seat: object, n: object, seed: object) -> tuple[int, int, int]:
    """The sampler's arguments by the argument rule: a Game or a seat's view, a seat, ``n``
    0..MAX_SAMPLES, a seed 0..2**64-1."""
    if not isinstance(game, Game) and not all(
        hasattr(game, a) and not isinstance(game, type)
        for a in ("seat", "hand", "partner_hand", "cards_left", "cards_played", "to_act")
    ):
        raise ArgumentError(f"game must be a Game or a seat's view (view(seat)), not "
                            f"{type(game).__name__}")
    return (as_seat(seat), as_int(n, "n", 0, MAX_SAMPLES), as_seed(seed))


def _other_copy(card: int) -> int:
    """The same rank and suit in the other deck (R7 明牌: the leader's partner holds it)."""
    a, b = face_copies(card_face(card))
    return b if card == a else a


class SeatKnowledge(Protocol):
    """What a seat's view (``State.view(seat)``, ``Game.view(seat)``) tells the sampler."""

    @property
    def seat(self) -> int: ...
    @property
    def hand(self) -> Hand: ...
    @property
    def partner_hand(self) -> Hand | None: ...
    def cards_left(self, seat: int) -> int: ...
    def cards_played(self, seat: int) -> Hand: ...


def _hidden_seats(known: set[int], cards_left: Callable[[int], int]) -> list[int]:
    return [s for s in range(4) if s not in known and cards_left(s)]


def _deal_view(view: SeatKnowledge, n: int, rng: random.Random) -> list[tuple[Hand, ...]]:
    """A view has no physical cards: the unseen cards are the 108-card deck (R1) less the
    seat's hand, the partner's when visible and every card played; dealt uniformly."""
    seat = view.seat
    partner = view.partner_hand
    known = {seat} if partner is None else {seat, seat ^ 2}
    hidden = _hidden_seats(known, view.cards_left)
    unseen = list(MAX_COPIES)
    for h in [view.hand, partner or Hand(), *(view.cards_played(s) for s in range(4))]:
        for r, c in enumerate(h.counts):
            unseen[r] -= c
    pool = [r for r, c in enumerate(unseen) for _ in range(c)]
    if len(pool) != sum(view.cards_left(s) for s in hidden):
        raise ValueError("the view is not of a full deal: the unseen cards do not fill the hands")
    out = []
    for _ in range(n):
        rng.shuffle(pool)
        hands = {seat: view.hand}
        if partner is not None:
            hands[seat ^ 2] = partner
        k = 0
        for s in range(4):
            if s in hidden:
                counts = [0] * N_RANKS
                for r in pool[k : k + view.cards_left(s)]:
                    counts[r] += 1
                k += view.cards_left(s)
                hands[s] = Hand.from_counts(counts)
            elif s not in hands:
                hands[s] = Hand()
        out.append(tuple(hands[s] for s in range(4)))
    return out


def _deal_game(game: Game, seat: int, n: int, rng: random.Random) -> list[tuple[Hand, ...]]:
    """A Game's seat also knows the physical cards played and R7 明牌 (see sample_deals)."""
    known = {seat, seat ^ 2} if game.rules.partner_visible else {seat}
    hidden = _hidden_seats(known, game.cards_left)
    unseen = set().union(*map(set, game.initial_hands))
    for a in game.actions:
        unseen.difference_update(a.cards)
    for s in known:
        unseen.difference_update(game.hand(s))
    # R7 明牌: where the revealed card and its other copy must be, if nobody has seen them
    forced: dict[int, list[int]] = {}
    if game.revealed is not None:
        lead = game.first_leader
        forced[game.revealed] = [lead]
        forced[_other_copy(game.revealed)] = [lead ^ 2] if game.swap else [lead, lead ^ 2]
    pinned = [(c, [s for s in seats if s in hidden]) for c, seats in forced.items() if c in unseen]
    free = sorted(unseen.difference(c for c, _ in pinned))
    known_hands = {s: game.hand_ranks(s) for s in range(4) if s not in hidden}
    out = []
    for _ in range(n):
        slots = {s: game.cards_left(s) for s in hidden}
        dealt: dict[int, list[int]] = {s: [] for s in hidden}
        for card, seats in pinned:
            # uniform over the completions: a seat is as likely as the free slots it has
            s = rng.choices(seats, [slots[t] for t in seats])[0]
            dealt[s].append(card)
            slots[s] -= 1
        rest = free[:]
        rng.shuffle(rest)
        k = 0
        for s in hidden:
            dealt[s].extend(rest[k : k + slots[s]])
            k += slots[s]
        out.append(tuple(
            Hand.from_cards(dealt[s]) if s in dealt else known_hands[s] for s in range(4)
        ))
    return out


def sample_deals(
    game: Game | SeatKnowledge, seat: int, n: int, seed: int
) -> list[tuple[Hand, ...]]:
    """``n`` current hands of the four seats, drawn uniformly among the deals consistent with
    what ``seat`` knows (docs/solver.md "Sampling"): its own hand, the partner's under 双明,
    the cards played by each seat, the cards left per seat. From a :class:`Game` (a trusted
    caller) also the physical cards played and R7 明牌: the revealed card was dealt to the
    first leader, its other copy to the leader or the leader's partner (to the partner when a
    swap was made); cards nobody was dealt (a scripted deal) stay out. From a seat's view
    (``view(seat)``, what ``simulate`` hands a policy) the rank-level facts only, over the full
    108-card deck. ``n`` is at most :data:`MAX_SAMPLES`; ``seed`` an int 0..2**64-1.
    Uniform and exact: :func:`shuangkou.inference.weighted_worlds` weighs these deals by how
    likely each makes the plays seen."""
    seat, n, seed = _check_sampling(game, seat, n, seed)
    rng = random.Random(seed)
    if isinstance(game, Game):
        return _deal_game(game, seat, n, rng)
    if game.seat != seat:
        raise ValueError(f"a view of seat {game.seat} cannot sample for seat {seat}")
    return _deal_view(game, n, rng)


def sample_worlds(game: Game | SeatKnowledge, seat: int, n: int, seed: int) -> list[State]:
    """:func:`sample_deals` as positions: the current position of ``game`` (a Game or a seat's
    view) with the hidden hands replaced by each sample (ready for :func:`solve`); at most
    :data:`MAX_SAMPLES` of them."""
    pos: Any = game
    _check_sampling(game, seat, n, seed)
    if pos.to_act is None:
        raise ValueError("the deal is over: there is no world to sample")
    bombs = [pos.bombs_played(s) for s in range(4)]
    return [
        State.from_position(
            pos.rules, hands, pos.to_act, table=pos.table, table_owner=pos.table_owner,
            passes=pos.passes, places=pos.places, bombs=bombs, leader=pos.leader,
            trick=pos.trick, hand_size=None,  # the seats' sizes are the position's own
        )
        for hands in sample_deals(game, seat, n, seed)
    ]


# -- the exact endgame solver ----------------------------------------------------------------
Objective = Literal["score", "base"]


Evaluation = Literal["hand_count", "rollout"]

DEFAULT_MAX_NODES = 20_000_000
""":func:`solve`'s default node limit: a few seconds on this machine's class (8–10 M nodes/s),
so an interactive call on any legal position returns (``exact=False`` past it); ``None``
lifts it."""

TT_BITS = 22
"""The default transposition table of :func:`solve`: ``2**22`` entries of 16 bytes (64 MiB),
fewer on a machine with under 1 GiB of memory (see :func:`default_tt_bits`). A bigger one
costs more time than it saves up to 7 cards a seat (docs/solver.md)."""

BIG_TT_BITS = 25
"""The default table from :data:`BIG_TT_CARDS` cards in hand on: ``2**25`` entries (512 MiB).
An 8-card search visits tens of millions of nodes, so 2^22 entries evict costly results: on
the 8-card benchmark positions 2^24 took up to 1.8× fewer nodes than 2^22 on one thread, and
2^25 up to another 1.37× (1.15–1.18× on two threads, which fill the table twice as fast;
2^26 no fewer), each doubling for ~0.5 s more of page zeroing (docs/solver.md)."""

BIG_TT_CARDS = 29
"""Cards in the four hands from which :func:`default_tt_bits` gives :data:`BIG_TT_BITS`
(8 a seat: 32; 7 a seat, 28, keeps :data:`TT_BITS`: there 2^24 cost 24% more CPU)."""


def default_tt_bits(cards: int = 0) -> int:
    """:data:`TT_BITS`, or :data:`BIG_TT_BITS` for a position of ``cards`` cards in hand from
    :data:`BIG_TT_CARDS` on; capped so the table takes at most 1/16 of the physical memory
    (its pages are mapped on first touch, so a small search uses little of it)."""
    bits = BIG_TT_BITS if cards >= BIG_TT_CARDS else TT_BITS
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): the default
        return TT_BITS
    return max(16, min(bits, (memory // 16 // 16).bit_length() - 1))


def _node_limit(value: object, what: str = "max_nodes") -> int:
    """A node limit: ``None`` (none: 0 for the search) or an int ``>= 1``."""
    return 0 if value is None else as_int(value, what, 1, 2**62)


def as_state(position: Position) -> State:
    """``position`` as the engine's :class:`~shuangkou.State` (itself if it is one): a State,
    a ``RefState`` or a :class:`~shuangkou.Game`; anything else is refused with an
    :class:`~shuangkou.errors.ArgumentError` (a seat's view hides hands: solve the worlds of
    :func:`sample_worlds` instead)."""
    from ._reference_game import RefState

    if isinstance(position, State):
        return position
    if not isinstance(position, (Game, RefState)):
        hint = (
            ": a seat's view hides the other hands (sample_worlds gives full positions)"
            if hasattr(position, "seat") and hasattr(position, "cards_left") else ""
        )
        raise ArgumentError(
            f"position must be a State, RefState or Game, not {type(position).__name__}{hint}"
        )
    if position.to_act is None:
        raise ArgumentError("position: the deal is over: there is nothing to solve")
    return State.from_position(
        position.rules, [_ranks(position, s) for s in range(4)], position.to_act,
        table=position.table, table_owner=position.table_owner, passes=position.passes,
        places=position.places, bombs=[position.bombs_played(s) for s in range(4)],
        leader=position.leader,
    )


def searcher(
    state: State, objective: Objective = "score", tt_bits: int = 20,
    evaluation: Evaluation = "hand_count",
) -> _solve.Searcher:
    """A reusable search context for positions of ``state``'s rules (transposition table of
    ``2**tt_bits`` entries of 16 bytes); ``evaluation`` scores the horizon of depth-limited
    searches. One instance may be shared by threads: its calls run one at a time (it holds a
    lock); searches on separate instances run in parallel."""
    if not isinstance(state, State):
        raise ArgumentError(f"state must be a State, not {type(state).__name__}")
    return _solve.Searcher(state, objective, tt_bits, evaluation)


def _play(word: int, tag: int) -> Play:
    return PASS if tag == 0 else Play._from_codes(word, tag)


@dataclass(frozen=True)
class Solution:
    """What :func:`solve` found (docs/solver.md "Value").

    ``value`` – the exact value for the side to act (``None`` if a limit stopped the search
    first); ``best`` – every optimal play of the side to act (:data:`~shuangkou.PASS` when
    passing is one); ``pv`` – a principal variation starting with ``best[0]``, each play
    optimal for its seat, to the end of the deal; ``nodes`` – positions searched; ``exact`` –
    the search completed; ``lower``/``upper`` – bounds on the value (equal to it when exact;
    ``upper`` is ``None`` when a limit stopped the search before every play was searched);
    ``values`` – per play, its exact value or (when it is not optimal, unless ``solve`` was
    asked for ``all_values``) an upper bound. ``guess`` – the anytime answer: ``best[0]`` when
    exact, else the best play of the deepest depth-limited search that finished (iterative
    deepening over the moves left, horizon scored by 手数), ``None`` if none did; ``depth`` –
    that search's depth in moves (``None`` when exact)."""

    value: int | None
    best: tuple[Play, ...]
    pv: tuple[Play, ...]
    nodes: int
    exact: bool
    lower: int | None
    upper: int | None
    objective: str
    seat: int
    values: tuple[tuple[Play, int | None], ...]
    guess: Play | None = None
    depth: int | None = None

    def __str__(self) -> str:
        if not self.exact:
            bound = "unknown" if self.lower is None else f">= {self.lower:+d}"
            guess = "" if self.guess is None else (
                f"; best so far (depth {self.depth}): {self.guess or 'pass'}"
            )
            return (f"not solved: a limit stopped the search after {self.nodes} nodes; "
                    f"value {bound}{guess}")
        best = ", ".join(str(p) if p else "pass" for p in self.best)
        line = " ; ".join(str(p) if p else "pass" for p in self.pv)
        return (
            f"value {self.value:+d} ({self.objective}) for seat {self.seat}'s team\n"
            f"optimal: {best}\nline: {line}\nnodes: {self.nodes}"
        )


THREADS = min(2, os.cpu_count() or 1)
""":func:`solve`'s threads by default: two on a machine of two or more cores (docs/solver.md
"Threads": on 40 7-card positions the busiest thread searched 1.83× fewer nodes than one
thread, for 3% more in all), one on a single core. Read at each call: assign it to change the
default of every later call."""


ANYTIME_DEPTHS = (2, 4, 6, 8, 12, 16)
"""The depths of :func:`solve`'s anytime stage (moves, passes included), searched before the
exact search when a time limit is given."""


def solve(
    position: Position,
    objective: Objective = "score",
    max_nodes: int | None = DEFAULT_MAX_NODES,
    time_limit: float | None = None,
    *,
    all_values: bool = False,
    tt_bits: int | None = None,
    threads: int | None = None,
) -> Solution:
    """Exact perfect-information value of ``position`` (a ``State``, ``RefState`` or
    :class:`~shuangkou.Game`): team alpha-beta in C over the engine's state, GIL released
    (docs/solver.md "Search": a bucketed transposition table, relative ranks, forced passes,
    MTD(f), quick-trick and finishing-order bounds; "Threads": the root on several threads).

    The value (docs/solver.md) is the side to act's team total minus the other team's, of the
    final R8 units (``objective="score"``) or base units (``"base"``), with best play by all
    four seats (partners cooperate). ``max_nodes`` (default :data:`DEFAULT_MAX_NODES`: a few
    seconds; ``None``: no limit) and ``time_limit`` (seconds; default none) stop the search:
    the solution is then ``exact=False`` with the bounds proven so far. With a time limit the
    search first deepens by moves left (:data:`ANYTIME_DEPTHS`), so ``Solution.guess`` holds
    the best play found so far whenever the limit stops it. Ctrl-C raises
    :class:`KeyboardInterrupt` within milliseconds. ``all_values``: every move's value exact
    in ``Solution.values`` (else only the optimal ones are). ``tt_bits``: the transposition
    table holds ``2**tt_bits`` entries of 16 bytes (default :func:`default_tt_bits` of the
    cards in hand).
    ``threads``: the exact search's root moves are split over that many threads sharing the
    table (``None``: :data:`THREADS`, read at the call; docs/solver.md "Threads"): the value,
    the optimal plays and every exact value are those of one thread, ``nodes`` counts every
    thread's (it varies from run to run with more than one), and ``max_nodes``,
    ``time_limit`` and Ctrl-C bound all of them together."""
    state = as_state(position)
    _choice(objective, "objective", ("score", "base"))
    nodes_left = _node_limit(max_nodes)
    seconds = None if time_limit is None else as_seconds(time_limit, "time_limit")
    bits = (default_tt_bits(sum(state.card_counts)) if tt_bits is None
            else as_int(tt_bits, "tt_bits", 4, 34))
    workers = as_int(THREADS if threads is None else threads, "threads", 1,
                     _solve.MAX_THREADS)
    seat = state.to_act
    assert seat is not None  # as_state refuses finished deals
    s = searcher(state, objective, bits)
    s.set_position(state)
    deadline = None if seconds is None else time.monotonic() + seconds
    guess: Play | None = None
    depth: int | None = None
    spent = 0
    for d in ANYTIME_DEPTHS if seconds is not None else ():
        left = deadline - time.monotonic() if deadline is not None else 0.0
        if left <= 0 or (max_nodes is not None and nodes_left - spent <= 0):
            break
        moves, values, optimal, nodes, stopped, horizon = s.root_values(
            max(nodes_left - spent, 0), left, d, False
        )
        spent += nodes
        if stopped:
            break
        guess, depth = _play(*moves[optimal[0]]), d
        if not horizon:  # the whole tree fitted in d moves: the next search is exact
            break
    left = deadline - time.monotonic() if deadline is not None else 0.0
    out_of_budget = (deadline is not None and left <= 0) or (
        max_nodes is not None and nodes_left - spent <= 0
    )
    if out_of_budget:
        moves, values, nodes, stopped = [], [], 0, True
    else:
        moves, values, optimal, nodes, stopped, _ = s.root_values(
            nodes_left - spent if max_nodes is not None else 0,
            left if deadline is not None else 0.0, _solve.EXACT_DEPTH, all_values, workers,
        )
    nodes += spent
    plays = [_play(w, t) for w, t in moves]
    vals = tuple(zip(plays, values))
    if stopped:
        done = [v for v in values if v is not None]
        lower = max(done) if done else None
        upper = lower if values and all(v is not None for v in values) else None
        return Solution(None, (), (), nodes, False, lower, upper, objective, seat, vals,
                        guess, depth)
    value = values[optimal[0]]
    assert value is not None
    pv = tuple(_play(w, t) for w, t in s.principal_variation(optimal[0], value))
    best = tuple(plays[i] for i in optimal)
    return Solution(value, best, pv, nodes, True, value, value, objective, seat, vals,
                    best[0])


def _choice(value: object, what: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        names = " or ".join(repr(a) for a in allowed)
        raise ArgumentError(f"{what} must be {names}, not {value!r}")
    return value


# -- PIMC ----------------------------------------------------------------------------------------
Values = tuple[list[tuple[int, int]], list[int]]


def _seconds_left(deadline: float | None) -> float | None:
    """Seconds to a ``time.monotonic()`` deadline for ``root_values`` (0.0: none), ``None``
    once it has passed."""
    if deadline is None:
        return 0.0
    left = deadline - time.monotonic()
    return left if left > 0 else None


def _world_values(s: _solve.Searcher, max_nodes: int, max_depth: int,
                  deadline: float | None = None) -> Values | None:
    """Each root move's value in the loaded world: iterative deepening from depth 1 (the
    horizon scored by the searcher's evaluation, docs/solver.md "PIMC") until a search meets no
    horizon (exact) or the node budget or the deadline runs out (the last completed depth is
    kept)."""
    best: Values | None = None
    left = max_nodes
    depth = 1
    while left > 0 and (seconds := _seconds_left(deadline)) is not None:
        moves, values, _, nodes, stopped, horizon = s.root_values(
            left, seconds, depth if depth < max_depth else _solve.EXACT_DEPTH, True
        )
        left -= nodes
        if stopped:
            break
        best = moves, [v for v in values if v is not None]
        if not horizon or depth >= max_depth:
            break
        depth += 1
    return best


def _exact_values(s: _solve.Searcher, max_nodes: int, deadline: float | None) -> Values | None:
    """Each root move's exact value in the loaded world, or ``None`` if ``max_nodes`` or the
    deadline (``time.monotonic()``) stopped the search first."""
    seconds = _seconds_left(deadline)
    if seconds is None:
        return None
    moves, values, _, _, stopped, _ = s.root_values(max_nodes, seconds, _solve.EXACT_DEPTH, True)
    return None if stopped else (moves, [v for v in values if v is not None])


def _tie_order(hand: Hand, plays: list[Play], rules: Rules,
               partner_owns: bool) -> dict[tuple[int, int], tuple[int, ...]]:
    """The order among moves of equal mean value (a coarse horizon value ties many): the
    hints' lead order (least damage first, plain before bombs, wild-free, lowest top, more
    cards); pass, keyed ``(0, 0)``, first on the partner's play, else after the plays that
    break nothing."""
    keys: dict[tuple[int, int], tuple[int, ...]] = {
        (p.packed, p.tag): (d, p.is_bomb, p.wilds > 0, int(p.top), -p.size)
        for p, d in zip(plays, _breaks(hand, plays, rules))
    }
    keys[(0, 0)] = (-1 if partner_owns else _solve.UNIT // 2, False, False, 0, 0)
    return keys


Policy = Callable[[Any, Any, Any], "Play | None"]


def pimc_policy(
    worlds: int = 16, max_nodes: int = 20_000, *, objective: Objective = "score",
    max_depth: int = 64, tt_bits: int = 20, evaluation: Evaluation = "rollout",
    fallback: Policy | None = None, max_cards: int = 108, seconds: float | None = None,
    sampler: Callable[[Any, int, int, int], list[State]] | None = None,
) -> Callable[[Game | SeatKnowledge, list[Play], object], Play | None]:
    """A Perfect-Information Monte Carlo policy for :func:`~shuangkou.simulate` and
    :class:`~shuangkou.Game` loops: ``policy(view_or_game, plays, rng)`` — a seat's view (what
    ``simulate`` hands policies) or, wrapped in ``sim.with_game``, the Game (then R7 明牌 is
    known too).

    Each decision samples ``worlds`` deals consistent with what the seat knows
    (:func:`sample_deals`), searches each (exactly once it fits in ``max_nodes`` nodes, else a
    depth-limited search of at most ``max_depth`` moves, the horizon scored by
    ``evaluation``) and makes the play (or pass) with the best mean value; among equal means,
    the hints' order (least damage to the hand first). The sampling seed comes from ``rng``
    (the deal's generator), so a seeded game is reproducible.

    With a ``fallback`` policy (called with the seat's view; ``bots.make("pimc")`` gives a
    bot of :data:`shuangkou.bots.PIMC_FALLBACK`) the worlds are only searched exactly, and
    only when at most ``max_cards`` cards are left in the four hands: the policy makes the
    best mean exact value's move when every world was solved within ``max_nodes`` nodes (the
    fallback's move if it is one of the best), and the fallback's move otherwise — a horizon
    value is never trusted over the fallback.

    A decision costs at most ``worlds × max_nodes`` search nodes, and, with ``seconds``, the
    searches stop once that many seconds have passed since the decision began (the fallback's
    own time counts; so does the sampler's), then the fallback decides, or without one the
    worlds searched so far:
    the decision's time is bounded by ``seconds`` plus what the fallback alone takes beyond it
    and a poll interval of the search (about a thousand nodes). The arguments are checked
    here, not at the first decision. The policy may be called from several threads: each
    thread searches with its own searchers (``2**tt_bits`` table entries a rules preset).

    ``sampler(game, seat, n, seed)`` draws the worlds: :func:`sample_worlds` (uniform, exact)
    by default; :func:`shuangkou.inference.weighted_worlds` weighs them by the plays seen."""
    worlds = as_int(worlds, "worlds", 1, 1 << 20)
    max_nodes = as_int(max_nodes, "max_nodes", 1, 2**62)
    _choice(objective, "objective", ("score", "base"))
    max_depth = as_int(max_depth, "max_depth", 1, _solve.MAX_DEPTH)
    tt_bits = as_int(tt_bits, "tt_bits", 4, 34)
    _choice(evaluation, "evaluation", ("hand_count", "rollout"))
    if fallback is not None and not callable(fallback):
        raise ArgumentError(f"fallback must be a policy (a callable) or None, not "
                            f"{type(fallback).__name__}")
    max_cards = as_int(max_cards, "max_cards", 0, 108)
    limit = None if seconds is None else as_seconds(seconds, "seconds")
    if sampler is not None and not callable(sampler):
        raise ArgumentError(f"sampler must be a callable (game, seat, n, seed) or None, not "
                            f"{type(sampler).__name__}")
    draw = sample_worlds if sampler is None else sampler
    local = threading.local()

    def searched(game: Game | SeatKnowledge, seat: int, seed: int, deadline: float | None
                 ) -> tuple[dict[tuple[int, int], float], bool]:
        """The moves' summed values over the worlds, and whether every world was exact."""
        pos: Any = game
        total: dict[tuple[int, int], float] = {}
        searchers: dict[Rules, _solve.Searcher] = local.__dict__.setdefault("searchers", {})
        for world in draw(game, seat, worlds, seed):
            s = searchers.get(pos.rules)
            if s is None:
                s = searchers[pos.rules] = searcher(world, objective, tt_bits, evaluation)
            s.set_position(world)
            if fallback is not None:
                found = _exact_values(s, max_nodes, deadline)
                if found is None:
                    return total, False
            else:
                found = _world_values(s, max_nodes, max_depth, deadline)
                if found is None:
                    continue
            for move, v in zip(*found):
                total[move] = total.get(move, 0.0) + v
        return total, True

    def policy(game: Game | SeatKnowledge, plays: list[Play], rng: object) -> Play | None:
        deadline = None if limit is None else time.monotonic() + limit
        pos: Any = game  # a Game (with_game) or the seat's view
        plays = list(plays)
        if len(plays) + (pos.table is not None) == 1:
            return plays[0] if plays else None
        seat = pos.to_act
        assert seat is not None
        seed = rng.next() if hasattr(rng, "next") else 0
        prior: Play | None = None
        if fallback is not None:
            prior = fallback(game.view(seat) if isinstance(game, Game) else game, plays, rng)
            if sum(pos.cards_left(s) for s in range(4)) > max_cards:
                return prior
        total, exact = searched(game, seat, seed, deadline)
        by_codes = {(p.packed, p.tag): p for p in plays}
        found = [m for m in total if m in by_codes or m == (0, 0)]
        if fallback is not None and not (exact and found):
            return prior
        if not found:  # no world searched within the budget: the first play
            return plays[0] if plays else None
        top = max(total[m] for m in found)
        best = [m for m in found if total[m] == top]
        if fallback is not None:
            mine = (0, 0) if prior is None else (prior.packed, prior.tag)
            if mine in best:
                return prior
        if len(best) > 1:
            hand = pos.hand_ranks(seat) if isinstance(pos, Game) else pos.hand
            order = _tie_order(hand, [by_codes[m] for m in best if m != (0, 0)], pos.rules,
                               pos.table_owner == seat ^ 2)
            best.sort(key=order.__getitem__)
        move = best[0]
        return None if move == (0, 0) else by_codes[move]

    policy.wilds = "all"  # type: ignore[attr-defined]
    return policy
