"""Solvers (docs/solver.md): hand decomposition (手数), hints (提示), sampling of hidden hands,
the exact endgame solver and a PIMC policy.

::

    import shuangkou as sk
    rules = sk.Rules.preset("baibian")
    sk.decompose("3 4 5 6 7 7 7 BJ", rules).count      # 2: 3..7 and 777+BJ (7777)
"""

from __future__ import annotations

import math
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np

from . import _solve
from ._check import as_int, as_seat, as_seconds, as_seed
from ._engine import State
from .cards import MAX_COPIES, N_RANKS, Hand, card_face, face_copies
from .errors import ArgumentError
from .game import Game
from .plays import PASS, Kind, Play, _as_hand, legal_plays
from .position import PositionFields, parse_position
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

    Bounded time on any hand (docs/solver.md "Decomposition"; about a millisecond on the worst
    dealt hands on an earlier build, docs/solver-history.md), GIL released; safe from many
    threads at once (each call owns its memo).
    Ctrl-C stops it (``KeyboardInterrupt``)."""
    h = _as_hand(hand)
    r = as_rules(rules)
    keep = _flag(keep_bombs, "keep_bombs")  # "yes" or 0.0 must not pick a split silently
    count, _, words, tags = _solve.decompose_split(h.packed, r.flags, keep)
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


def _ranks(position: Position | SeatKnowledge, seat: int) -> Hand:
    """A seat's rank multiset: ``hand_ranks`` on a Game (whose ``hand`` is card ids); a seat's
    view holds its own hand only (its ``hand`` a property), else ArgumentError."""
    get = getattr(position, "hand_ranks", None) or position.hand  # type: ignore[union-attr]
    if callable(get):
        hand: Hand = get(seat)
        return hand
    own: int = position.seat  # type: ignore[union-attr]
    if seat != own:
        raise ArgumentError(f"position: seat {own}'s view holds its own hand only, and seat "
                            f"{seat} is to act: pass the State or Game, or that seat's view")
    return get


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


def hints(position: Position | SeatKnowledge | str) -> list[Play]:
    """What a 提示 button cycles through for the seat to act: every legal play, in the order
    of docs/solver.md ("Hints"); passing is never a hint (an empty list: nothing beats the
    table). The *damage* of a play is how much it spoils the rest of the hand (:func:`_breaks`:
    0 when it is part of an optimal valued split, :func:`decompose` with ``keep_bombs``).

    Answering: the plays of the table's kind first, then the bombs, whoever owns the table
    (over the partner's play a bomb is never offered before a plain answer); each part by
    least damage, then wild-free before wild-using, then the smallest (the lowest top; bombs
    in R5 order). Leading: least damage first; plain before bombs; wild-free first; then the
    play whose reading starts lowest (a rank a wild stands for counts), and of those the one
    shedding the most cards (a straight
    3..9 before a lone 3: it rids the hand of the same low card and six more); then the
    lowest top.

    ``position`` is a ``State``, ``RefState``, :class:`~shuangkou.Game`, the seat to act's
    view (``view(seat)`` of either: what a policy gets; another seat's view is refused) or a
    position text (docs/position.md: ``"baibian 55D/-/77/3 0 99@1 2 1 -/666666/-/- -"``,
    read with the rules it names).

    Milliseconds on any hand (the damages from one pass over the hand, the order in C, GIL
    released); safe from many threads at once."""
    pos = parse_position(position) if isinstance(position, str) else _snapshot(position)
    if not all(hasattr(pos, a) for a in ("to_act", "rules", "table", "hand")) or (
        isinstance(pos, type)
    ):
        raise ArgumentError(
            f"position must be a State, RefState, Game, a seat's view or a position text "
            f"(docs/position.md), not {type(position).__name__}"
        )
    seat = pos.to_act
    if seat is None:
        return []
    rules = pos.rules
    hand = _ranks(pos, seat)
    plays = legal_plays(hand, rules, pos.table)
    return _solve.hint_order(hand.packed, rules.flags, pos.table is None, plays)


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
    likely each makes the plays seen. A Game is read in one position (a copy under its lock:
    another thread may be playing it)."""
    seat, n, seed = _check_sampling(game, seat, n, seed)
    return _deals(_snapshot(game), seat, n, seed)


def _snapshot(game: Any) -> Any:
    """A Game copied under its lock (one position, whatever other threads play meanwhile: the
    sampler reads many of its fields); a view as it is."""
    return game.copy() if isinstance(game, Game) else game


def _deals(game: Game | SeatKnowledge, seat: int, n: int, seed: int
           ) -> list[tuple[Hand, ...]]:
    """:func:`sample_deals` of a position no other thread changes (arguments checked)."""
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
    seat, n, seed = _check_sampling(game, seat, n, seed)
    pos: Any = _snapshot(game)
    if pos.to_act is None:
        raise ValueError("the deal is over: there is no world to sample")
    bombs = [pos.bombs_played(s) for s in range(4)]
    return [
        State.from_position(
            pos.rules, hands, pos.to_act, table=pos.table, table_owner=pos.table_owner,
            passes=pos.passes, places=pos.places, bombs=bombs, leader=pos.leader,
            trick=pos.trick, hand_size=None,  # the seats' sizes are the position's own
        )
        for hands in _deals(pos, seat, n, seed)
    ]


# -- the exact endgame solver ----------------------------------------------------------------
Objective = Literal["score", "base"]


Evaluation = Literal["hand_count", "rollout"]

DEFAULT_MAX_NODES = 20_000_000
""":func:`solve`'s default node limit: a few seconds where nodes are cheap (8–10 M nodes/s
at 5–8 cards a seat on this machine's class; ``exact=False`` past it); ``None`` lifts it."""

DEFAULT_TIME_LIMIT = 4.0
""":func:`solve`'s default time limit in seconds: on a whole deal a node costs ~1 µs, and
:data:`DEFAULT_MAX_NODES` alone took ~19 s there; with it a call returns in about 4 s on any
legal position, with a play and what it proved (``None`` lifts it: then only the nodes
bound the call)."""

START_TT_BITS = 12
""":func:`solve`'s table starts at ``2**12`` entries (64 KiB) and doubles each time half of it
is filled, keeping every entry, up to its cap (``tt_bits``, by default
:func:`default_tt_bits`): its memory follows the search, 32–64 bytes a stored position (a
node stores at most one), and a small solve never pays for a big table (docs/solver.md
"Memory")."""

TT_BITS = 22
"""The default cap of :func:`solve`'s table: ``2**22`` entries of 16 bytes (64 MiB), less
on a machine with under 1 GiB of memory (see :func:`default_tt_bits`). A bigger one
costs more time than it saves up to 7 cards a seat (docs/solver.md)."""

BIG_TT_BITS = 25
"""The default cap of the table from :data:`BIG_TT_CARDS` cards in hand on: ``2**25`` entries
(512 MiB).
An 8-card search visits tens of millions of nodes, so 2^22 entries evict costly results: on
the 8-card benchmark positions 2^24 took up to 1.8× fewer nodes than 2^22 on one thread, and
2^25 up to another 1.37× (1.15–1.18× on two threads, which fill the table twice as fast;
2^26 no fewer), each doubling for ~0.5 s more of page zeroing (docs/solver.md "Search",
docs/solver-history.md)."""

BIG_TT_CARDS = 29
"""Cards in the four hands from which :func:`default_tt_bits` gives :data:`BIG_TT_BITS`
(8 a seat: 32; 7 a seat, 28, keeps :data:`TT_BITS`: there 2^24 cost 24% more CPU)."""


def default_tt_bits(cards: int = 0) -> int:
    """The most :func:`solve`'s table grows to: :data:`TT_BITS`, or :data:`BIG_TT_BITS` for a
    position of ``cards`` cards in hand from :data:`BIG_TT_CARDS` on; at most 1/16 of the
    physical memory."""
    bits = BIG_TT_BITS if cards >= BIG_TT_CARDS else TT_BITS
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf (Windows): the default
        return TT_BITS
    return max(16, min(bits, (memory // 16 // 16).bit_length() - 1))


def _node_limit(value: object, what: str = "max_nodes") -> int:
    """A node limit: ``None`` (none: 0 for the search) or an int ``>= 1``."""
    return 0 if value is None else as_int(value, what, 1, 2**62)


def as_state(position: Position | str) -> State:
    """``position`` as the engine's :class:`~shuangkou.State` (itself if it is one): a State,
    a ``RefState``, a :class:`~shuangkou.Game` or a position text (docs/position.md, read as
    :func:`hints` reads one); anything else is refused with an
    :class:`~shuangkou.errors.ArgumentError` (a seat's view hides hands: solve the worlds of
    :func:`sample_worlds` instead)."""
    from ._reference_game import RefState

    if isinstance(position, str):
        position = parse_position(position)
    if isinstance(position, State):
        _refuse_finished(position)
        return position
    if not isinstance(position, (Game, RefState)):
        hint = (
            ": a seat's view hides the other hands (sample_worlds gives full positions)"
            if hasattr(position, "seat") and hasattr(position, "cards_left") else ""
        )
        raise ArgumentError(
            f"position must be a State, RefState, Game or a position text (docs/position.md), "
            f"not {type(position).__name__}{hint}"
        )
    _refuse_finished(position)
    return State.from_position(
        position.rules, [_ranks(position, s) for s in range(4)], position.to_act,
        table=position.table, table_owner=position.table_owner, passes=position.passes,
        places=position.places, bombs=[position.bombs_played(s) for s in range(4)],
        leader=position.leader,
    )


def _refuse_finished(position: Position) -> None:
    if position.to_act is None:
        raise ArgumentError("position: the deal is over (no seat to act): there is nothing "
                            "to solve; pass a position with a seat to act")


def searcher(
    state: State, objective: Objective = "score", tt_bits: int = 20,
    evaluation: Evaluation = "hand_count", *, max_tt_bits: int | None = None,
) -> _solve.Searcher:
    """A reusable search context for positions of ``state``'s rules (transposition table of
    ``2**tt_bits`` entries of 16 bytes, growing as it fills up to ``2**max_tt_bits``: None,
    it stays as it is); ``evaluation`` scores the horizon of depth-limited searches. Pass it
    to :func:`solve` (``searcher=``) to keep its table warm from call to call. One instance
    may be shared by threads: its calls run one at a time (it holds a lock; ``with
    searcher:`` holds it for several, as :func:`solve` does for a whole call); searches on
    separate instances run in parallel."""
    if not isinstance(state, State):
        raise ArgumentError(f"state must be a State, not {type(state).__name__}")
    return _solve.Searcher(state, objective, tt_bits, evaluation, None, max_tt_bits)


def _play(word: int, tag: int) -> Play:
    return PASS if tag == 0 else Play._from_codes(word, tag)


@dataclass(frozen=True)
class Solution:
    """What :func:`solve` found (docs/solver.md "Value").

    ``value`` – the exact value for the side to act (``None`` if a limit stopped the search
    first); ``best`` – every optimal play of the side to act (:data:`~shuangkou.PASS` when
    passing is one; with ``solve(best="one")`` the ones the search proved optimal, at least
    one); ``pv`` – a principal variation starting with ``best[0]``, each play
    optimal for its seat, to the end of the deal; ``nodes`` – positions searched; ``exact`` –
    the search completed; ``lower``/``upper`` – bounds on the value, always numbers (equal to
    it when exact; after a limit, the static R8 bounds of the position — the finishing orders
    still possible and what the bombs in hand can add, docs/solver.md "Search" — narrowed by
    what the exact search proved: ``lower`` the most a play was proven to reach, ``upper``
    the most any play may reach);
    ``values`` – per play, its exact value or (when it is not optimal, unless ``solve`` was
    asked for ``all_values``) an upper bound (with ``best="one"``, for every play not in
    ``best``, and it may equal ``value``); ``None`` for a play a limit stopped before it
    was valued. ``guess`` – the play to make: ``best[0]`` when exact; after a limit, the play
    proven to reach ``lower`` when one is, else the best play of the deepest depth-limited
    search that finished (iterative deepening over the moves left, horizon scored by 手数),
    else the first play the search tried (``None`` only when that is passing); ``depth`` –
    that depth-limited search's depth in moves (``None`` otherwise); ``all_values`` –
    ``values`` are all exact (``solve(all_values=True)``; ``str`` then lists them)."""

    value: int | None
    best: tuple[Play, ...]
    pv: tuple[Play, ...]
    nodes: int
    exact: bool
    lower: int
    upper: int
    objective: str
    seat: int
    values: tuple[tuple[Play, int | None], ...]
    guess: Play | None = None
    depth: int | None = None
    all_values: bool = False

    def __str__(self) -> str:
        if not self.exact:
            how = "proven to reach the lower bound" if self.depth is None else (
                f"best of a search {self.depth} moves deep")
            text = (f"not solved: a limit stopped the search after {self.nodes} nodes\n"
                    f"value in [{self.lower:+d}, {self.upper:+d}] ({self.objective}) for seat "
                    f"{self.seat}'s team\nbest so far ({how}): {self.guess or 'pass'}")
        else:
            best = ", ".join(str(p) if p else "pass" for p in self.best)
            line = " ; ".join(str(p) if p else "pass" for p in self.pv)
            text = (
                f"value {self.value:+d} ({self.objective}) for seat {self.seat}'s team\n"
                f"optimal: {best}\nline: {line}\nnodes: {self.nodes}"
            )
        if self.all_values:     # every move's value is exact: show them (? : not reached)
            text += "\nvalues: " + ", ".join(
                f"{p or 'pass'} {'?' if v is None else format(v, '+d')}" for p, v in self.values)
        return text


THREADS = min(2, os.cpu_count() or 1)
""":func:`solve`'s threads by default: two on a machine of two or more cores (docs/solver.md
"Threads": on 40 7-card positions the busiest thread searched 1.83× fewer nodes than one
thread, for 3% more in all), one on a single core. Read at each call: assign it to change the
default of every later call. The threads start only once a search has proven big
(:data:`SOLO_NODES`)."""

SOLO_NODES = 100_000
"""A search of several threads starts on one: the helper threads (and the table's full size,
which they share: it cannot grow under them) only once this many nodes did not finish it.
Small positions, most of them below 6 cards a seat, never pay for threads (docs/solver.md
"Threads"); a big one starts them after ~30 ms on one thread (100,000 nodes at ~3 M a
second), whose results the table keeps."""

FIRST_ROUND_BITS = 2
"""With several threads :func:`solve` searches in rounds (the table cannot grow under the
threads; docs/solver.md "Threads"): the first round's table has ``2**FIRST_ROUND_BITS`` (4)
times the entries the search on one thread grew it to, and room for as many nodes (a node
stores once at most): a search of up to about a million nodes ends there, in a table of
16 MiB. A search that outgrows it grows the table to its cap at once (under a time limit
4× a round: zero-filling 512 MiB at once could take past the deadline) and goes on from the
root over the warm table. The restart itself is cheap (the root's tests pass again in a few
nodes from the table); what a round stopped by its cap loses is the work its table could
not keep: the 9-card 百变 positions, the two-thread schedule replayed on one thread, took
120.0 M nodes this way, 130.5 M growing the table 4× a round, 123.2 M 16× a round (and
growing to the cap for the first round zero-fills 512 MiB, ~0.5 s, for searches of a few
hundred thousand nodes)."""

GUESS_SHARE = 8
"""A limited :func:`solve` holds an eighth of its nodes and of its time back from the exact
search, which runs first with the rest: a search that ends within that pays nothing for a
guess. Only one that a limit stopped spends the reserve on its answer: probes at the bounds
(:data:`PROBE_NODES`), then, unless a play is proven to reach the lower bound, the deepening
(:data:`ANYTIME_DEPTHS`) over the exact search's warm table, then the exact search again
with whatever is left (docs/solver.md "Search", *Limits*)."""

PROBE_NODES = 20_000
"""Nodes of each of :func:`solve`'s null-window probes at the bounds (at most
:data:`PROBE_STEPS` a side, within half of the reserve, :data:`GUESS_SHARE`), made once
the exact search has not finished: a probe that finishes narrows the bounds (docs/solver.md
"Search", *Limits*)."""

PROBE_STEPS = 8

ANYTIME_DEPTHS = (2, 4, 6, 8, 12, 16)
"""The depths of :func:`solve`'s anytime guess (moves, passes included), searched with the
rest of the reserve (:data:`GUESS_SHARE`) after a limit stopped the exact search."""

RIVAL = ANYTIME_DEPTHS
"""A portfolio on two threads or more, with one optimal move (``best="one"``) from
:data:`RIVAL_CARDS` cards in hand (docs/solver.md "Threads", *A portfolio*): deepening passes
of the root at these depths (the anytime guess's) first; where they find a static bound of
the root, one thread (the rival) then searches exactly in the order they found while the
others run the exact search, the first to finish stopping the other; elsewhere every thread
runs the exact search. What the passes leave in the table changes the exact search's nodes
several times either way at 9 cards a seat: their order pays where one test settles the
value (``()``: no passes, no rival). Read at each call (:func:`rival_passes`)."""

RIVAL_CARDS = 36
"""The fewest cards in hand (9 a seat) for which :func:`solve` runs the portfolio's rival
(:data:`RIVAL`): below, the search without it is cheaper (7 cards a seat, 百变: the busiest
thread's nodes 1.19x more with it; docs/solver.md "Threads", *A portfolio*)."""


def rival_passes(cards: int, threads: int, one: bool) -> tuple[int, ...]:
    """The rival's passes (``Searcher.root_values(rival=...)``) for an exact search of
    ``cards`` cards in hand on ``threads`` threads (``one``: one optimal move is enough):
    :data:`RIVAL` on two threads or more with one optimal move from :data:`RIVAL_CARDS` cards,
    else none (with every optimal move it did not pay: docs/solver.md "Threads")."""
    return RIVAL if threads > 1 and one and cards >= RIVAL_CARDS else ()


def solve(
    position: Position | str,
    objective: Objective = "score",
    max_nodes: int | None = DEFAULT_MAX_NODES,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    *,
    all_values: bool = False,
    best: str = "all",
    tt_bits: int | None = None,
    threads: int | None = None,
    searcher: _solve.Searcher | None = None,
) -> Solution:
    """Exact perfect-information value of ``position`` (a ``State``, ``RefState``,
    :class:`~shuangkou.Game` or a position text, docs/position.md): team alpha-beta in C over
    the engine's state, GIL released (docs/solver.md "Search": a bucketed transposition table,
    relative ranks, forced passes, MTD(f), quick-trick and finishing-order bounds; "Threads":
    the root on several threads).

    The value (docs/solver.md) is the side to act's team total minus the other team's, of the
    final R8 units (``objective="score"``) or base units (``"base"``), with best play by all
    four seats (partners cooperate). ``max_nodes`` (default :data:`DEFAULT_MAX_NODES`;
    ``None``: no limit) and ``time_limit`` (seconds of wall clock, default
    :data:`DEFAULT_TIME_LIMIT`; ``None``: no limit) stop the search: the solution is then
    ``exact=False`` with bounds on the value (``lower``, ``upper``: the static R8 bounds,
    narrowed by what the search proved) and a play
    (``Solution.guess``). The search runs in stages: the exact search on one thread for
    :data:`SOLO_NODES` nodes (most small positions end there), then on ``threads`` threads;
    under a limit it has all but an eighth of the nodes and time (:data:`GUESS_SHARE`), and
    only when it stopped does the call spend that reserve on its answer: probes at the bounds,
    then, unless a play is proven to reach ``lower``, a guess by deepening over the moves
    left (:data:`ANYTIME_DEPTHS`), then the exact search again with whatever is left. Ctrl-C raises
    :class:`KeyboardInterrupt` within milliseconds. ``all_values``: every move's value exact
    in ``Solution.values`` (else only the optimal ones are). ``best``: ``"all"`` finds every
    optimal play (``Solution.best``); ``"one"`` is content with one: the value by MTD(f)
    over the root as a whole, each test asking whether any play reaches a bound, never
    proving that a second play reaches the value (docs/solver.md "Root"): the same value,
    often several times fewer nodes where many plays are optimal (8 cards a seat:
    "Figures"), ``Solution.best`` the plays proven optimal (at least one; the first the one
    that reached the value) and every other value an upper bound that may equal the value;
    not with ``all_values``. ``tt_bits``: the transposition
    table grows (from :data:`START_TT_BITS`) as the search fills it up to ``2**tt_bits``
    entries of 16 bytes (default :func:`default_tt_bits` of the cards in hand): a call takes
    at most that memory, and 32–64 bytes a node stored below it (docs/solver.md "Memory").
    ``searcher``: a :func:`searcher` of the position's rules and objective to search with
    (``tt_bits`` is then its own): its table stays warm from call to call, so solving many
    positions of one deal reuses what earlier calls stored (``nodes`` then depends on them).
    Without it, the call searches with the searcher the calling thread kept from its last
    call, emptied first: the same solution and nodes as a new one, without a new one's
    buffers (:data:`WARM_TT_BITS`; :func:`release_searcher` frees it).
    ``threads``: the exact search is split over that many threads sharing the table, the
    root's moves and each move's tree (``None``: :data:`THREADS`, read at the call; helpers
    start only past :data:`SOLO_NODES`; with ``best="one"`` from :data:`RIVAL_CARDS` cards
    in hand one of them searches by another strategy, :data:`RIVAL`; docs/solver.md
    "Threads"): the value, the optimal plays and every exact value are those of one thread,
    ``nodes`` counts every
    thread's (it varies from run to run with more than one), and ``max_nodes``,
    ``time_limit`` and Ctrl-C bound all of them together. A JJ position whose bombs played
    multiply its values past ±:data:`~shuangkou._solve.MAX_VALUE` units (R8.3) is searched
    in steps of their multiplier (``Searcher.unit``), exactly; one whose bombs still in hand
    could multiply its value past that many steps is refused with
    :class:`~shuangkou.errors.ArgumentError` (docs/solver.md "Value")."""
    state = as_state(position)
    _choice(objective, "objective", ("score", "base"))
    nodes_left = _node_limit(max_nodes)
    seconds = None if time_limit is None else as_seconds(time_limit, "time_limit")
    all_values = _flag(all_values, "all_values")
    one = _choice(best, "best", ("all", "one")) == "one"
    if one and all_values:
        raise ArgumentError("best='one' with all_values=True: all_values values every play "
                            "exactly, so every optimal play is found anyway; pass best='all'")
    bits = (default_tt_bits(sum(state.card_counts)) if tt_bits is None
            else as_int(tt_bits, "tt_bits", 4, 34))
    workers = as_int(THREADS if threads is None else threads, "threads", 1,
                     _solve.MAX_THREADS)
    nodes = nodes_left if max_nodes is not None else None
    if searcher is not None:
        return _search(_own_searcher(searcher, state, objective), state, objective, nodes,
                       seconds, all_values, one, workers)
    if nodes is not None:   # a search stores at most a position a node
        bits = max(4, min(bits, (2 * nodes).bit_length()))
    s = _warm_searcher(state, objective, min(START_TT_BITS, bits), bits)
    keep = True
    try:
        return _search(s, state, objective, nodes, seconds, all_values, one, workers)
    except MemoryError:
        keep = False    # (a search out of memory stays so: the thread's next call makes a new one)
        raise
    finally:    # kept for the thread's next call, after Ctrl-C too (reset makes it as new)
        if keep and s.table_bits <= WARM_TT_BITS:
            _warm.searcher = s


def _search(s: _solve.Searcher, state: State, objective: str, nodes: int | None,
            seconds: float | None, all_values: bool, one: bool, workers: int) -> Solution:
    """:func:`solve`'s search of ``state`` with ``s`` (its arguments checked): ``nodes`` and
    ``seconds`` the limits (``None``: none). ``s`` is held for the whole call: another
    thread's calls on a shared searcher wait (each would set its own position)."""
    with s:
        return _searched(s, state, objective, nodes, seconds, all_values, one, workers)


def _searched(s: _solve.Searcher, state: State, objective: str, nodes: int | None,
              seconds: float | None, all_values: bool, one: bool, workers: int) -> Solution:
    """:func:`_search`'s work, ``s`` held."""
    seat = state.to_act
    assert seat is not None  # as_state refuses finished deals
    s.set_position(state)
    lo, hi = _solve.score_bounds(s, state)
    reach = _solve.MAX_VALUE * s.unit   # (a JJ position's values: in steps of its unit)
    if lo <= -reach or hi >= reach:
        raise ArgumentError(
            f"position: its value may pass the solver's range of ±{reach:,} units (the "
            "bombs still in hand can multiply its base past it: R8.3), so it cannot be "
            "solved exactly; docs/solver.md \"Value\"")
    run = _Run(s, nodes, None if seconds is None else time.monotonic() + seconds,
               all_values, one, sum(state.card_counts))
    limited = nodes is not None or seconds is not None
    if limited:     # the guess's reserve, held back from the exact search (GUESS_SHARE)
        run.hold(GUESS_SHARE)
    # 1. the exact search on one thread; 2. on several (in rounds) only once SOLO_NODES did
    # not end it: a small search never starts a helper thread
    found = run.exact(SOLO_NODES if workers > 1 else None, 1)
    if found is None:
        found = run.rounds(workers)
    if found is None and limited:
        # 3. a limit stopped the exact search: the reserve makes its answer. Null-window
        # probes at the bounds with half of it (cheap where a bomb or the finishing
        # orders settle a side soon, and over the exact search's warm table); then, unless a
        # move is proven to reach ``lower`` (the play returned), a guess by deepening over the
        # moves left (over that table often done in milliseconds); then the exact search
        # again with whatever is left (from the root over the warm table: it may yet end)
        run.hold(None)
        run.probe(2)
        if not run.proven:
            run.deepen(1)
        found = run.rounds(workers)
    moves, values, optimal = run.last
    plays = [_play(w, t) for w, t in moves]
    vals = tuple(zip(plays, values))
    if found is None:
        proven = run.proven or run.guess is None    # else the deepening's guess
        guess = _play(*moves[run.pick]) if proven else run.guess
        assert run.lower is not None and run.upper is not None     # the first search's
        return Solution(None, (), (), run.nodes, False, run.lower, run.upper, objective, seat,
                        vals, guess, None if proven else run.depth, all_values)
    value = values[optimal[0]]
    assert value is not None
    pv = tuple(_play(w, t) for w, t in s.principal_variation(optimal[0], value))
    found_best = tuple(plays[i] for i in optimal)
    return Solution(value, found_best, pv, run.nodes, True, value, value, objective, seat, vals,
                    found_best[0], None, all_values)


class _Run:
    """One :func:`solve` call's searches over its searcher: the budget left (nodes, a
    ``time.monotonic()`` deadline), the nodes spent, the bounds proven so far and the
    anytime guess."""

    def __init__(self, s: _solve.Searcher, nodes: int | None, deadline: float | None,
                 all_values: bool, one: bool, cards: int) -> None:
        self.s, self.budget, self.deadline, self.all_values = s, nodes, deadline, all_values
        self.one = one  # root_values(one=...): one optimal move is enough
        self.cards = cards  # in hand at the root (rival_passes)
        self.nodes = 0
        self.lower: int | None = None
        self.upper: int | None = None
        self.proven = False     # a move was proven to reach ``lower`` (``pick``)
        self.pick = 0
        self.guess: Play | None = None
        self.depth: int | None = None
        self.last: tuple[list[tuple[int, int]], list[int | None], list[int]] = ([], [], [])
        self.held = (0, 0.0)    # nodes and seconds that ``left`` keeps back (``hold``)
        self.first = True       # no round on several threads yet (``rounds``)
        self.seconds = None if deadline is None else deadline - time.monotonic()

    def hold(self, share: int | None) -> None:
        """Keep a ``1/share`` of the call's nodes and time back from every later search
        (``None``: release it)."""
        if share is None:
            self.held = (0, 0.0)
        else:
            self.held = (0 if self.budget is None else self.budget // share,
                         0.0 if self.seconds is None else self.seconds / share)

    def left(self, share: int = 1) -> tuple[int, float] | None:
        """``root_values``' limits for a ``1/share`` of what is left (0: none), or ``None``
        when nothing is."""
        held_nodes, held_seconds = self.held
        nodes = 0 if self.budget is None else (self.budget - held_nodes - self.nodes) // share
        seconds = 0.0 if self.deadline is None else (
            self.deadline - held_seconds - time.monotonic()) / share
        if (self.budget is not None and nodes <= 0) or (self.deadline is not None
                                                         and seconds <= 0):
            return None
        return nodes, seconds

    def exact(self, cap: int | None, threads: int) -> int | None:
        """An exact root search within what is left (and ``cap`` nodes); the bounds it
        proved join the call's. Returns the best move's index once it finished, else
        ``None``."""
        limits = self.left()
        if limits is None:
            if self.last[0]:
                return None
            limits = (1, 0.0)   # the first search, however little is left: a move to play
        nodes, seconds = limits
        if cap is not None:
            nodes = min(nodes, cap) if nodes else cap
        moves, values, optimal, spent, stopped, _ = self.s.root_values(
            nodes, seconds, _solve.EXACT_DEPTH, self.all_values, threads, one=self.one,
            rival=rival_passes(self.cards, threads, self.one))
        self.nodes += spent
        self.last = moves, values, optimal
        lower, upper, pick = self.s.bounds
        assert lower is not None and upper is not None     # a root search sets them
        if self.lower is None or lower > self.lower or (
                self.s.proven and lower == self.lower and not self.proven):
            self.lower, self.pick, self.proven = lower, pick, self.s.proven
        if self.upper is None or upper < self.upper:
            self.upper = upper
        return None if stopped else optimal[0]

    def rounds(self, workers: int) -> int | None:
        """The exact search on ``workers`` threads with what is left, after a search that
        stopped (:meth:`exact`'s result). On one thread one search; on several in rounds: they
        share the table, which cannot grow under them, so each round has room for its nodes
        (a node stores once at most): the first in a table 4x the one thread's
        (:data:`FIRST_ROUND_BITS`), the next at the table's cap, from the root again over the
        warm table. Growing maps and fills a new table (2^24 -> 2^25 entries took 1.5 s where
        the memory was fresh to the machine): under a time limit the table grows 4x a round,
        not at all once under a quarter of the limit is left to the search, and only where
        the doubling is predicted to take at most a quarter of the time left
        (``Searcher.grow_seconds``); else the round goes on in the table as it is."""
        found = None
        while found is None and (left := self.left()) is not None:
            if workers == 1:
                return self.exact(None, 1)
            s, seconds = self.s, self.seconds
            if seconds is None or left[1] > seconds / 4:
                s.grow(s.table_bits + FIRST_ROUND_BITS if self.first or seconds is not None
                       else s.max_table_bits, left[1])
            self.first = False
            found = self.exact(1 << s.table_bits if s.table_bits < s.max_table_bits else None,
                               workers)
        return found

    def probe(self, share: int) -> None:
        """Null-window tests of the root at the bounds (:meth:`_solve.Searcher.probe`,
        :data:`PROBE_NODES` each, at most :data:`PROBE_STEPS` a side, within a ``1/share`` of
        what is left): does the value reach ``upper``? (no: the fail-soft value is a lower
        ``upper``; yes: it is the value); does it pass ``lower``? (yes: a move proven to reach
        more; no: ``lower`` is the value). A side stops at its first unfinished probe."""
        limits = self.left(share)
        if limits is None or self.lower is None or self.upper is None:
            return
        nodes, seconds = limits
        end = None if self.deadline is None else time.monotonic() + seconds
        for side in ("upper", "lower"):
            for _ in range(PROBE_STEPS):
                left = 0.0 if end is None else end - time.monotonic()
                if self.lower >= self.upper or (end is not None and left <= 0) or (
                        self.budget is not None and nodes <= 0):
                    return
                cap = PROBE_NODES if self.budget is None else min(PROBE_NODES, nodes)
                bound = self.upper if side == "upper" else self.lower + 1
                reached, value, move, spent = self.s.probe(bound, cap, left)
                self.nodes += spent
                nodes -= spent
                if reached is None:
                    break
                assert value is not None
                if reached:     # a move reaching ``value``, at least ``bound``
                    assert move is not None
                    self.lower, self.pick, self.proven = value, move, True
                    if side == "upper":
                        self.upper = self.lower     # (``value`` ≥ ``upper``: it is the value)
                else:           # no move reaches ``bound``: the value is at most ``value``
                    self.upper = min(self.upper, value)
                    if side == "lower":
                        break

    def deepen(self, share: int) -> None:
        """The anytime guess: depth-limited searches (:data:`ANYTIME_DEPTHS`, the horizon
        scored by 手数) within a ``1/share`` of what is left; the best move of the deepest
        that finished."""
        limits = self.left(share)
        if limits is None:
            return
        nodes, seconds = limits
        end = None if self.deadline is None else time.monotonic() + seconds
        for d in ANYTIME_DEPTHS:
            left = 0.0 if end is None else end - time.monotonic()
            if (end is not None and left <= 0) or (self.budget is not None and nodes <= 0):
                break
            moves, _, optimal, spent, stopped, horizon = self.s.root_values(
                nodes, left, d, False)
            self.nodes += spent
            nodes -= spent if self.budget is not None else 0
            if stopped:
                break
            self.guess, self.depth = _play(*moves[optimal[0]]), d
            if not horizon:  # the whole tree fitted in d moves: the exact search is as cheap
                break


WARM_TT_BITS = 16
""":func:`solve` called without ``searcher`` searches with a searcher kept for the calling
thread from its last call (in a ``threading.local``: one a thread, freed with the thread or by
:func:`release_searcher`), emptied first (``Searcher.reset``: it searches as a new one would,
the same nodes), or a new one where the rules or the objective differ: a new searcher's buffers
cost ~25 µs a call, and up to 0.5 ms where glibc's allocator maps them afresh
(docs/solver-history.md "The cost of a call on the build before the kept searcher"). It is
kept only while its table holds at most ``2**16`` entries (1 MiB): a call whose table grew
past that frees it, so no thread keeps a big table between calls (docs/solver.md "Memory")."""

_warm = threading.local()


def release_searcher() -> None:
    """Free the searcher that :func:`solve` keeps for the calling thread between calls
    (:data:`WARM_TT_BITS`; ~1 MiB); the thread's next call makes a new one."""
    vars(_warm).pop("searcher", None)


def _warm_searcher(state: State, objective: str, bits: int, max_bits: int) -> _solve.Searcher:
    """The calling thread's searcher for ``state``'s rules and ``objective``, emptied to a
    table of ``2**bits`` entries growing to ``2**max_bits`` (a new one where it has none of
    those), taken from the thread's slot until the call puts it back: a solve run inside
    this one (a signal handler, a callback) finds none there and makes its own."""
    # taken in one step (no signal handler runs in between)
    s: _solve.Searcher | None = vars(_warm).pop("searcher", None)
    if s is None or s.objective != objective or (s.rules is not state.rules
                                                 and s.rules != state.rules):
        return _solve.Searcher(state, objective, bits, "hand_count", None, max_bits)
    s.reset(bits, max_bits)
    return s


def _own_searcher(s: object, state: State, objective: str) -> _solve.Searcher:
    """``solve``'s ``searcher`` argument: a Searcher of the position's rules and objective."""
    if not isinstance(s, _solve.Searcher):
        raise ArgumentError(f"searcher must be a Searcher (from shuangkou.solve import "
                            f"searcher) or None, not {type(s).__name__}")
    if s.rules != state.rules or s.objective != objective:
        raise ArgumentError(f"searcher: its rules and objective ({s.rules.name}, "
                            f"{s.objective!r}) are not the call's ({state.rules.name}, "
                            f"{objective!r})")
    return s


def _flag(value: object, what: str) -> bool:
    """A yes/no argument: ``True`` or ``False`` (numpy's bool too), nothing else (a string
    such as ``"no"`` would read as true)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ArgumentError(f"{what} must be True or False, not {type(value).__name__} "
                        f"({value!r})")


def _choice(value: object, what: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        names = " or ".join(repr(a) for a in allowed)
        raise ArgumentError(f"{what} must be {names}, not {value!r}")
    return value


# -- PIMC ----------------------------------------------------------------------------------------
Values = tuple[list[tuple[int, int]], list[int]]

WORLDS_CHUNK = 256
""":func:`pimc_policy` draws a decision's worlds this many at a time (a draw takes ~60 µs a
world from a 27-card Game), reading its clock before each draw: a time limit then bounds the
sampling too, and ``worlds`` may pass :data:`MAX_SAMPLES`. The first chunk's seed is the
decision's, so a decision of at most this many worlds draws what one call would."""


def _drawn(draw: Callable[[Any, int, int, int], list[State]], game: Any, seat: int, n: int,
           seed: int, deadline: float | None) -> Iterator[State]:
    """``n`` worlds by ``draw(game, seat, k, seed)``, :data:`WORLDS_CHUNK` at a time (chunk
    ``c`` seeded ``seed + c × 0x9E3779B97F4A7C15`` modulo 2**64), until ``deadline`` (a
    ``time.monotonic()`` time; ``None``: none) passes: no chunk is drawn after it."""
    for start in range(0, n, WORLDS_CHUNK):
        if _seconds_left(deadline) is None:
            return
        chunk_seed = (seed + start // WORLDS_CHUNK * 0x9E3779B97F4A7C15) % 2**64
        yield from draw(game, seat, min(WORLDS_CHUNK, n - start), chunk_seed)


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


def _shortlist(pos: Any, seat: int, plays: list[Play], k: int) -> list[Play]:
    """The midgame's candidates: the first ``k`` of ``plays`` in :func:`_tie_order` (the least
    damage first); ``plays`` itself where ``k`` is 0 or covers them. ``pos``: a Game or a
    seat's view, ``seat`` to act."""
    if not k or len(plays) <= k:
        return plays
    hand = pos.hand_ranks(seat) if isinstance(pos, Game) else pos.hand
    order = _tie_order(hand, plays, pos.rules, pos.table_owner == seat ^ 2)
    return sorted(plays, key=lambda p: order[(p.packed, p.tag)])[:k]


Policy = Callable[[Any, Any, Any], "Play | None"]


_MIDGAME_TT_BITS = 12
"""The midgame search's table: 2^12 entries (64 KiB), made afresh each decision (~20–70 µs),
so that a decision's depth-limited values, which depend on what the table holds, are the same
whatever was searched before it (a seeded run is reproducible)."""


@dataclass(frozen=True)
class _Midgame:
    worlds: int
    nodes: int
    depth: int
    margin: float
    shortlist: int
    cards: int


def _mid_search(nodes: object, depth: object, names: tuple[str, str]) -> tuple[int, int]:
    """A midgame search's node limit and depth, checked (``names``: the caller's names for
    them in its messages: ``pimc_policy``'s tuple, the PIMC bot's options)."""
    return (as_int(nodes, names[0], 1, 2**62), as_int(depth, names[1], 1, _solve.MAX_DEPTH))


def _midgame(midgame: object, margin: object, shortlist: object, cards: object,
             fallback: object) -> _Midgame | None:
    """``pimc_policy``'s midgame arguments, checked (``margin``, ``shortlist`` and
    ``cards`` without a midgame too: a wrong one is refused, never ignored)."""
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not (
            0 <= margin < math.inf):
        raise ArgumentError(f"margin must be a number >= 0, not {margin!r}")
    k = as_int(shortlist, "shortlist", 0, 1 << 20)
    mid_cards = as_int(cards, "mid_cards", 0, 108)
    if midgame is None:
        return None
    if fallback is None:
        raise ArgumentError("midgame: a midgame search overrides a fallback's move: pass a "
                            "fallback too (without one every decision is searched)")
    if not isinstance(midgame, tuple) or len(midgame) != 3:
        raise ArgumentError(f"midgame must be a tuple (worlds, nodes, depth) or None, not "
                            f"{midgame!r}")
    n = as_int(midgame[0], "midgame's worlds", 1, MAX_SAMPLES)
    nodes, depth = _mid_search(midgame[1], midgame[2], ("midgame's nodes", "midgame's depth"))
    return _Midgame(n, nodes, depth, float(margin), k, mid_cards)


def pimc_policy(
    worlds: int = 16, max_nodes: int = 20_000, *, objective: Objective = "score",
    max_depth: int = 64, tt_bits: int = 20, evaluation: Evaluation = "rollout",
    fallback: Policy | None = None, max_cards: int = 108, seconds: float | None = None,
    sampler: Callable[[Any, int, int, int], list[State]] | None = None,
    midgame: tuple[int, int, int] | None = None, margin: float = 0.0, shortlist: int = 0,
    mid_cards: int = 108, exact_misses: int = 0,
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
    value is never trusted over the fallback. ``exact_misses``: that many worlds may
    go unsolved (the node limit, not the clock), the means then over the worlds solved.

    A decision costs at most ``worlds × max_nodes`` search nodes, and, with ``seconds``, the
    searches stop once that many seconds have passed since the decision began (the fallback's
    own time counts; so does the sampler's), then the fallback decides, or without one the
    worlds searched so far:
    the decision's time is bounded by ``seconds`` plus what the fallback alone takes beyond it
    and a poll interval of the search (about a thousand nodes). The arguments are checked
    here, not at the first decision. The policy may be called from several threads: each
    thread searches with its own searchers (``2**tt_bits`` table entries a rules preset).

    ``sampler(game, seat, n, seed)`` draws the worlds: :func:`sample_worlds` (uniform, exact)
    by default; :func:`shuangkou.inference.weighted_worlds` weighs them by the plays seen.

    ``midgame=(worlds, nodes, depth)`` (with a fallback) searches the decisions the exact
    search leaves to the fallback too — above ``max_cards``, or where a world did not finish:
    that many worlds (:func:`sample_worlds`), each by a search of ``depth`` moves within
    ``nodes`` nodes, its horizon scored by ``evaluation``. The fallback's move stands unless
    one of the ``shortlist`` candidates (the fallback's move, pass, and the first
    ``shortlist`` plays in the hints' order; 0: every play) beats it by more than ``margin``
    (mean value over the worlds, in the objective's units) in the mean over every world; a
    world the limits stop leaves the fallback's move standing. ``mid_cards``: the midgame
    searches only once at most that many cards are left in the four hands (108: from the
    first trick); before that the fallback's move stands."""
    worlds = as_int(worlds, "worlds", 1, 1 << 20)  # (drawn WORLDS_CHUNK at a time)
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
    mid = _midgame(midgame, margin, shortlist, mid_cards, fallback)
    exact_misses = as_int(exact_misses, "exact_misses", 0, worlds)
    local = threading.local()

    def search(world: State, first: bool) -> _solve.Searcher:
        """This thread's searcher for the world's rules, the world loaded; emptied for a
        decision's ``first`` world: what an earlier decision left in its table and memos
        would decide which worlds finish within ``max_nodes`` (and a depth-limited value), so
        a decision would depend on the decisions played before it on this thread."""
        searchers: dict[Rules, _solve.Searcher] = local.__dict__.setdefault("searchers", {})
        s = searchers.get(world.rules)
        if s is None:
            s = searchers[world.rules] = searcher(world, objective, tt_bits, evaluation)
        elif first:
            s.reset(tt_bits, tt_bits)
        s.set_position(world)
        return s

    def searched(game: Game | SeatKnowledge, seat: int, seed: int, deadline: float | None
                 ) -> tuple[dict[tuple[int, int], float], bool]:
        """The moves' summed values over the worlds, and whether every world was exact."""
        total: dict[tuple[int, int], float] = {}
        misses = drawn = 0
        for world in _drawn(draw, game, seat, worlds, seed, deadline):
            s = search(world, drawn == 0)
            drawn += 1
            if fallback is not None:
                found = _exact_values(s, max_nodes, deadline)
                if found is None:
                    misses += 1
                    if misses > exact_misses or _seconds_left(deadline) is None:
                        return total, False
                    continue
            else:
                found = _world_values(s, max_nodes, max_depth, deadline)
                if found is None:
                    continue
            for move, v in zip(*found):
                total[move] = total.get(move, 0.0) + v
        # (worlds left undrawn when the time ran out: the fallback's move, as for a world
        # the clock stopped)
        return total, fallback is None or drawn == worlds

    def midgame_move(mid: _Midgame, game: Game | SeatKnowledge, seat: int, seed: int,
                     deadline: float | None, plays: list[Play], prior: Play | None, left: int
                     ) -> Play | None:
        """The fallback's move ``prior`` unless a shortlisted move beats it by more than
        ``margin`` in the depth-limited searches of ``mid``'s worlds (``left``: the cards
        left in the four hands)."""
        n, nodes, depth = mid.worlds, mid.nodes, mid.depth
        if left > mid.cards:
            return prior
        mine = (0, 0) if prior is None else (prior.packed, prior.tag)
        pos: Any = game
        if mine == (0, 0) and pos.table is None:
            return prior  # a lead passed: no legal move of the fallback's to weigh
        candidates = _shortlist(pos, seat, plays, mid.shortlist)
        options: dict[tuple[int, int], Play | None] = {(p.packed, p.tag): p for p in candidates}
        if pos.table is not None:
            options[(0, 0)] = None
        # only these moves can decide: the search values them alone (a depth-1 value is the
        # same as among every move; the ~100 other root moves' rollouts were most of the cost)
        only = None if candidates is plays else [mine, *options]
        total: dict[tuple[int, int], float] = {}
        s: _solve.Searcher | None = None
        drawn = 0
        for world in _drawn(sample_worlds, game, seat, n, seed, deadline):
            drawn += 1
            seconds = _seconds_left(deadline)
            if seconds is None:
                return prior
            if s is None:  # a fresh table a decision: depth-limited values depend on its
                s = searcher(world, objective, _MIDGAME_TT_BITS, evaluation)  # contents
            s.set_position(world)
            moves, values, _, _, stopped, _ = s.root_values(nodes, seconds, depth, True,
                                                            only=only)
            if stopped:
                return prior
            for move, v in zip(moves, values):
                if v is not None:  # every move has one once the search was not stopped
                    total[move] = total.get(move, 0.0) + v
        if mine not in total or drawn < n:  # (the time ran out before every world was drawn)
            return prior
        found = [m for m in options if m in total]
        best = max(found, key=total.__getitem__, default=mine)
        if total[best] - total[mine] > mid.margin * n:
            return options[best]
        return prior

    def policy(game: Game | SeatKnowledge, plays: list[Play], rng: object) -> Play | None:
        deadline = None if limit is None else time.monotonic() + limit
        pos: Any = game  # a Game (with_game) or the seat's view
        plays = list(plays)
        seat = pos.to_act
        if seat is None:    # the deal is over: no move, as every bot answers there
            return None
        if not plays and pos.table is None:
            raise ArgumentError("plays: none on a lead, which always has a legal play: pass "
                                "the seat's legal plays")
        if len(plays) + (pos.table is not None) == 1:
            return plays[0] if plays else None
        seed = rng.next() if hasattr(rng, "next") else 0
        prior: Play | None = None
        left = 0
        if fallback is not None:
            prior = fallback(game.view(seat) if isinstance(game, Game) else game, plays, rng)
            left = sum(pos.cards_left(s) for s in range(4))
            if left > max_cards:
                return prior if mid is None else midgame_move(mid, game, seat, seed, deadline,
                                                              plays, prior, left)
        total, exact = searched(game, seat, seed, deadline)
        by_codes = {(p.packed, p.tag): p for p in plays}
        found = [m for m in total if m in by_codes or m == (0, 0)]
        if fallback is not None and not (exact and found):
            return prior if mid is None else midgame_move(mid, game, seat, seed, deadline,
                                                          plays, prior, left)
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
