"""The reference engine: a deliberately simple, obviously-correct pure-Python game state.

:class:`RefState` has exactly the API of the kernel's ``State`` (the position of one deal at
rank level, docs/internals.md "The game state") and is its judge in the differential tests
(``tests/test_engine_diff*.py``). It favours the obvious over the fast:

* every field is an immutable value (hands are packed rank words, places and bombs tuples), and
  every action first pushes a snapshot of all of them, so ``undo`` is "restore the snapshot"
  and ``copy`` is "copy the fields";
* the legal plays come from the plays oracle :mod:`shuangkou._reference` (never the kernel,
  whatever ``SHUANGKOU_BACKEND`` says), and a play is legal exactly when it is in that list;
* R7's flow is written out below once, step by step, and R8's scores come from the reference
  arithmetic :func:`shuangkou._reference_scoring.score`; the seeded deal is :mod:`shuangkou.rng`'s
  specification in plain Python (the kernel's is C);
* ``hash`` is computed from scratch from a canonical tuple of the position (BLAKE2b, 64 bits),
  so it shares nothing with the kernel's incremental Zobrist hash.

Choices made where RULES.md is silent (the same as :class:`shuangkou.Game`'s):

* Unplaced seats are ranked (R7) by fewer cards left, ties by play order after the last
  finisher; if nobody finished (an abandon), by play order starting with the first leader —
  the deal's first leader for :meth:`RefState.deal`, the ``leader`` given to
  :meth:`RefState.from_position` (game.py documents this choice; its code, before the engine
  became the kernel's, started one seat early).
* 接风 with the partner out too (impossible by R7, the deal would be over): the next seat in
  play order after the owner that still has cards leads.
* ``abandon(seat)`` is allowed for any seat at any time before the end, in or out of turn.
* ``play(Play.PASS)`` passes.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import _reference
from ._check import as_int, as_seat
from ._reference_scoring import score
from .cards import HAND_SIZE, N_RANKS, Hand, card_face, face_copies
from .errors import IllegalPlayError
from .plays import NO_TABLE, Play, WildsMode
from .position import check_position
from .rules import Rules, as_rules
from .scoring import Result

__all__ = ["RefState", "RefView"]

HandLike = Hand | str | int


@lru_cache(maxsize=1 << 16)
def _legal(hand: int, flags: int, table: int, fewest: bool) -> tuple[Play, ...]:
    """The oracle's legal plays (its order: docs/internals.md "Plays"), memoised."""
    return tuple(_reference.generate_plays(hand, flags, table, fewest, Play))


_MASK64 = (1 << 64) - 1


def _seeded_deal(seed: int, last_draw: int) -> tuple[list[list[int]], int]:
    """The seeded deal of :mod:`shuangkou.rng`, from its specification, in plain Python:
    SplitMix64 from the state ``seed``, Fisher–Yates over the 108 ids (i = 107 … 1,
    j = bounded(i + 1)), 27 cards a seat, then one more draw ``bounded(last_draw)`` (the
    revealed card, or the leader seat)."""
    state = seed & _MASK64

    def bounded(n: int) -> int:
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return ((z ^ (z >> 31)) * n) >> 64

    deck = list(range(108))
    for i in range(107, 0, -1):
        j = bounded(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return [deck[27 * s : 27 * s + 27] for s in range(4)], bounded(last_draw)


def _as_packed(hand: HandLike) -> int:
    if isinstance(hand, Hand):
        return hand.packed
    if isinstance(hand, str):
        return Hand.parse(hand).packed
    if isinstance(hand, int) and not isinstance(hand, bool):
        return Hand.from_packed(hand).packed
    raise TypeError(f"a hand must be a Hand, rank text or a packed int, not {type(hand).__name__}")


def _fewest(wilds: str) -> bool:
    if wilds not in ("all", "fewest"):
        raise ValueError(f"wilds must be 'all' or 'fewest', not {wilds!r}")
    return wilds == "fewest"


def _size(packed: int) -> int:
    return sum(packed >> (4 * r) & 15 for r in range(N_RANKS))


def _seat(value: object, what: str) -> int:
    """A seat by the argument rule, as the engine reads it (an int-like normalised)."""
    return as_seat(value, what)


def _genuine(play: object, rules: Rules, what: str) -> Play:
    """``play`` (a Play, or card text with one reading) if it is a real reading of its cards
    under ``rules`` (R3, read by the oracle), else ValueError."""
    if isinstance(play, str):
        cards = Hand.parse(play)
        tags = _reference.classify(cards.packed, rules.flags)
        if len(tags) != 1:
            raise ValueError(f"{what} {cards} has {len(tags)} readings under {rules.name}, not 1")
        play = Play._from_codes(cards.packed, tags[0])
    if not isinstance(play, Play) or not play:
        raise ValueError(f"{what} must be a Play, got {play!r}")
    if play.tag not in _reference.classify(play.packed, rules.flags):
        raise ValueError(f"{what} {play.cards} does not read as {play.describe()}")
    return play


@dataclass(frozen=True)
class RefView:
    """What one seat may know of a position (R6/R7), with the members of the kernel's
    ``SeatView``: its hand, the partner's only under 双明 (``rules.partner_visible``), the
    public facts, and its own legal plays when it is to act. A snapshot: it holds no reference
    to the state it was taken from."""

    seat: int
    rules: Rules
    hand: Hand
    partner_hand: Hand | None
    to_act: int | None
    card_counts: tuple[int, int, int, int]
    table: Play | None
    table_owner: int | None
    passes: int
    leader: int
    trick: int
    places: tuple[int, ...]
    is_over: bool
    result: Result | None
    _played: tuple[int, int, int, int]
    _bombs: tuple[tuple[Play, ...], ...]

    def cards_left(self, seat: int) -> int:
        return self.card_counts[seat]

    def cards_played(self, seat: int) -> Hand:
        """The cards ``seat`` played since the position was set up."""
        return Hand._from_packed_unchecked(self._played[seat])

    def bombs_played(self, seat: int) -> tuple[Play, ...]:
        return self._bombs[seat]

    def can_pass(self) -> bool:
        """Is passing legal for this seat now?"""
        return self.to_act == self.seat and self.table is not None

    def legal(self, wilds: WildsMode = "all") -> list[Play]:
        """This seat's legal plays (empty unless it is to act)."""
        fewest = _fewest(wilds)
        if self.to_act != self.seat:
            return []
        table = self.table.tag if self.table is not None else NO_TABLE
        return list(_legal(self.hand.packed, self.rules.flags, table, fewest))


class RefState:
    """The position of one deal at rank level (R7), with the kernel ``State``'s API."""

    __slots__ = (
        "_rules", "_hands", "_to_act", "_table", "_owner", "_passes", "_leader", "_trick",
        "_places", "_bombs", "_escape", "_played", "_result", "_first", "_undo",
    )

    _rules: Rules
    _hands: tuple[int, int, int, int]
    _to_act: int | None
    _table: Play | None
    _owner: int | None
    _passes: int
    _leader: int
    _trick: int
    _places: tuple[int, ...]
    _bombs: tuple[tuple[Play, ...], ...]
    _escape: int | None
    _played: tuple[int, int, int, int]
    _result: Result | None
    _first: int
    _undo: list[tuple[Any, ...]]

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def deal(cls, rules: Rules | str, seed: int) -> RefState:
        """The start of play of ``Game(rules, seed)``: the seeded deal (:mod:`shuangkou.rng`),
        then R7's first leader — the revealed card's holder, whose partner becomes the holder
        of the other copy (it swaps hands with the leader's partner unless it already sits
        opposite or is the leader) — or the drawn seat."""
        rules = as_rules(rules)
        hands, draw = _seeded_deal(seed, 108 if rules.first_leader == "revealed" else 4)
        if rules.first_leader == "revealed":
            leader = next(s for s in range(4) if draw in hands[s])
            a, b = face_copies(card_face(draw))
            other = b if draw == a else a
            holder = next(s for s in range(4) if other in hands[s])
            partner = leader ^ 2
            if holder not in (leader, partner):
                hands[holder], hands[partner] = hands[partner], hands[holder]
        else:
            leader = draw
        packed = [Hand.from_cards(h).packed for h in hands]
        return cls.from_position(rules, packed, leader)

    # The signature is the kernel's State.from_position (_engine.pyi) on purpose: the oracle
    # offers the same API so that the differential tests drive both through one call.
    @classmethod
    def from_position(
        cls,
        rules: Rules | str,
        hands: Sequence[HandLike],
        to_act: int | None,
        *,
        table: Play | str | None = None,
        table_owner: int | None = None,
        passes: int = 0,
        places: Sequence[int] = (),
        bombs: Sequence[Sequence[Play | str]] = ((), (), (), ()),
        leader: int | None = None,
        trick: int = 0,
        escape: int | None = None,
        hand_size: int | None = HAND_SIZE,
    ) -> RefState:
        """Any position of a deal: ``hands`` per seat (Hand, rank text or packed word), the seat
        to act (``None`` only for a finished deal), the table play and its owner mid-trick with
        the passes since it, the seats already out in order, the bombs each seat played (R8),
        the trick's leader (default: the table's owner, else the seat to act), the trick
        counter and the seat that abandoned, the cards a seat was dealt (``None``: a scripted
        deal). Raises ``ValueError`` on an impossible position (the cards: the one rule,
        ``position.check_position``)."""
        rules = as_rules(rules)
        if len(hands) != 4:
            raise ValueError("a position has 4 hands")
        packed = tuple(_as_packed(h) for h in hands)
        out = tuple(_seat(s, "a place") for s in places)
        if len(set(out)) != len(out) or set(out) != {s for s in range(4) if not packed[s]}:
            raise ValueError("places must be the seats with no cards left, each once")
        if len(bombs) != 4:
            raise ValueError("bombs must list the bombs of each of the 4 seats")
        played = tuple(tuple(_genuine(p, rules, "a bomb") for p in b) for b in bombs)
        if any(not p.is_bomb for b in played for p in b):
            raise ValueError("bombs may only list bomb plays")
        esc = None if escape is None else _seat(escape, "escape")
        # R7: at most the three other seats pass a play (the engine's rule, finished deals too)
        passes = as_int(passes, "passes", 0, 3)
        trick = as_int(trick, "trick", 0, 32767)  # the engine's int16 counter
        if hand_size is not None:
            hand_size = as_int(hand_size, "hand_size", 1, 108)
        state = object.__new__(cls)
        state._rules = rules
        state._hands = packed  # type: ignore[assignment]
        state._places = out
        state._bombs = played
        state._escape = esc
        over = esc is not None or state._decided()
        if over:
            if to_act is not None:
                raise ValueError("the deal is over: nobody is to act")
        else:
            to_act = _seat(to_act, "to_act")
            if not packed[to_act]:
                raise ValueError(f"seat {to_act} is to act but has no cards")
        if table is None:
            if table_owner is not None or passes:
                raise ValueError("table_owner and passes need a table play")
        else:
            table = _genuine(table, rules, "the table")
            owner = _seat(table_owner, "table_owner")
            if not packed[owner] and out[-1:] != (owner,):
                # R7: a seat out is skipped, so a table play of a seat out is its last card,
                # and nobody went out after it (that would have covered it).
                raise ValueError(f"seat {owner} is out but was not the last to go out")
            if not over:
                # R7: after the top play, each seat with cards in turn passed or is to act.
                after = [(owner + k) & 3 for k in (1, 2, 3) if packed[(owner + k) & 3]]
                if passes >= len(after):
                    raise ValueError("every other seat has passed: the trick is over")
                if after[passes] != to_act:
                    raise ValueError(
                        f"seat {after[passes]} is to act after {passes} passes on seat "
                        f"{owner}'s play, not seat {to_act}"
                    )
        check_position([Hand._from_packed_unchecked(w) for w in packed], table,
                       None if table is None else table_owner, played, hand_size)
        if leader is None:
            leader = table_owner if table is not None else to_act
        state._leader = _seat(leader, "leader") if leader is not None else 0
        state._first = state._leader
        state._to_act = to_act
        state._table = table
        state._owner = table_owner
        state._passes = passes
        state._trick = trick
        state._played = (0, 0, 0, 0)
        state._result = state._score() if over else None
        state._undo = []
        return state

    @classmethod
    def parse(cls, text: str, rules: Rules | str | None = None) -> RefState:
        """A position from its text (docs/position.md)."""
        from .position import parse_position

        state: RefState = parse_position(text, rules, cls)
        return state

    def __str__(self) -> str:
        from .position import format_position

        return format_position(self)

    # -- the position ----------------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def to_act(self) -> int | None:
        """The seat to act, ``None`` once the deal is over."""
        return self._to_act

    @property
    def table(self) -> Play | None:
        """The top play of the current trick, ``None`` when leading."""
        return self._table

    @property
    def table_owner(self) -> int | None:
        return self._owner

    @property
    def passes(self) -> int:
        """Passes since the top play."""
        return self._passes

    @property
    def leader(self) -> int:
        """The seat that led the current trick."""
        return self._leader

    @property
    def trick(self) -> int:
        """Tricks completed since the position was set up (plus the ``trick`` given)."""
        return self._trick

    @property
    def places(self) -> tuple[int, ...]:
        """The seats already out, in order."""
        return self._places

    @property
    def escape(self) -> int | None:
        """The seat that abandoned, if any."""
        return self._escape

    @property
    def is_over(self) -> bool:
        return self._to_act is None

    @property
    def result(self) -> Result | None:
        """The R8 result once the deal is over, else ``None``."""
        return self._result

    @property
    def card_counts(self) -> tuple[int, int, int, int]:
        return tuple(self.cards_left(s) for s in range(4))  # type: ignore[return-value]

    def can_pass(self) -> bool:
        """Is passing legal (R4: the deal goes on and a play is on the table)?"""
        return self._to_act is not None and self._table is not None

    def hand(self, seat: int) -> Hand:
        return Hand._from_packed_unchecked(self._hands[seat])

    def cards_left(self, seat: int) -> int:
        return _size(self._hands[seat])

    def cards_played(self, seat: int) -> Hand:
        """The cards ``seat`` played since the position was set up."""
        return Hand._from_packed_unchecked(self._played[seat])

    def bombs_played(self, seat: int) -> tuple[Play, ...]:
        """The bombs ``seat`` played, in order (those given to :meth:`from_position` first)."""
        return self._bombs[seat]

    def legal(self, wilds: WildsMode = "all") -> list[Play]:
        """The plays the seat to act may make (the oracle's, in its order); pass is not listed
        (:meth:`can_pass`). Empty once the deal is over."""
        fewest = _fewest(wilds)
        if self._to_act is None:
            return []
        table = self._table.tag if self._table is not None else NO_TABLE
        return list(_legal(self._hands[self._to_act], self._rules.flags, table, fewest))

    def view(self, seat: int) -> RefView:
        """What ``seat`` may know (R6: the partner's hand only under 双明)."""
        seat = _seat(seat, "seat")
        partner = self.hand(seat ^ 2) if self._rules.partner_visible else None
        return RefView(
            seat, self._rules, self.hand(seat), partner, self._to_act, self.card_counts,
            self._table, self._owner, self._passes, self._leader, self._trick, self._places,
            self.is_over, self._result, self._played, self._bombs,
        )

    # -- actions ---------------------------------------------------------------------------
    def play(self, play: Play | int) -> None:
        """Play a legal play of the seat to act: a :class:`Play` or an index into
        ``legal()``. Anything else raises :class:`IllegalPlayError` and changes nothing."""
        if self._to_act is None:
            raise IllegalPlayError("illegal play: the deal is over")
        legal = self.legal()
        if isinstance(play, int) and not isinstance(play, bool):
            if not 0 <= play < len(legal):
                raise IllegalPlayError(f"illegal play: no legal play at index {play}")
            play = legal[play]
        elif not isinstance(play, Play):
            raise IllegalPlayError(f"illegal play: expected a Play or an index, got {play!r}")
        elif not play:
            self.pass_()
            return
        elif play not in legal:
            raise IllegalPlayError(
                f"illegal play {play.describe()} [{play}] by seat {self._to_act}: not a legal "
                "play here (not held, or does not beat the table)"
            )
        self._push()
        s = self._to_act
        hands = list(self._hands)
        hands[s] -= play.packed
        self._hands = tuple(hands)  # type: ignore[assignment]
        played = list(self._played)
        played[s] += play.packed
        self._played = tuple(played)  # type: ignore[assignment]
        if play.is_bomb:  # R8 needs every bomb: the multiplier and contributions
            bombs = list(self._bombs)
            bombs[s] = bombs[s] + (play,)
            self._bombs = tuple(bombs)
        self._table, self._owner, self._passes = play, s, 0
        if not hands[s]:
            self._places = self._places + (s,)  # R7: out, its place recorded
            if self._decided():
                self._end()  # R7: the outcome is decided, at once, even mid-trick
                return
        self._to_act = self._next_with_cards(s)

    def pass_(self) -> None:
        """Pass (R4: not when leading). When every other seat with cards has passed since the
        top play, the trick ends and its owner leads — or the owner's partner (接风, R7)."""
        if self._to_act is None:
            raise IllegalPlayError("illegal pass: the deal is over")
        if self._table is None or self._owner is None:
            raise IllegalPlayError(
                f"illegal pass by seat {self._to_act}: the leader of a trick must play (R4)"
            )
        self._push()
        owner = self._owner
        self._passes += 1
        others = sum(1 for s in range(4) if s != owner and self._hands[s])
        if self._passes < others:
            self._to_act = self._next_with_cards(self._to_act)
            return
        if self._hands[owner]:
            lead = owner
        elif self._hands[owner ^ 2]:
            lead = owner ^ 2  # 接风
        else:  # pragma: no cover - the deal would be over (R7)
            lead = self._next_with_cards(owner)
        self._table, self._owner, self._passes = None, None, 0
        self._trick += 1
        self._leader = self._to_act = lead

    def abandon(self, seat: int) -> None:
        """``seat`` abandons (逃跑): the deal ends at once with R8's escape penalty."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < 4:
            raise IllegalPlayError(f"illegal abandon: seat must be 0..3, got {seat!r}")
        if self._to_act is None:
            raise IllegalPlayError(f"illegal abandon by seat {seat}: the deal is over")
        self._push()
        self._escape = seat
        self._end()

    def undo(self) -> None:
        """Revert the last action exactly. Raises :class:`IllegalPlayError` if there is none."""
        if not self._undo:
            raise IllegalPlayError("nothing to undo")
        (
            self._hands, self._to_act, self._table, self._owner, self._passes, self._leader,
            self._trick, self._places, self._bombs, self._escape, self._played, self._result,
        ) = self._undo.pop()

    def copy(self) -> RefState:
        """An independent copy (undo history included)."""
        other = object.__new__(RefState)
        for name in RefState.__slots__:
            setattr(other, name, getattr(self, name))
        other._undo = list(self._undo)
        return other

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, object]) -> RefState:
        return self.copy()

    # -- R7 helpers ------------------------------------------------------------------------
    def _push(self) -> None:
        self._undo.append((
            self._hands, self._to_act, self._table, self._owner, self._passes, self._leader,
            self._trick, self._places, self._bombs, self._escape, self._played, self._result,
        ))

    def _next_with_cards(self, seat: int) -> int:
        """The next seat after ``seat`` in play order 0→1→2→3→0 that still has cards."""
        for k in (1, 2, 3):
            s = (seat + k) & 3
            if self._hands[s]:
                return s
        raise AssertionError("no other seat has cards")  # pragma: no cover

    def _decided(self) -> bool:
        """R7: the first finisher's partner is out, or both of the other team are."""
        if not self._places:
            return False
        first = self._places[0]
        return (first ^ 2) in self._places or (
            (first + 1) & 3 in self._places and (first + 3) & 3 in self._places
        )

    def _end(self) -> None:
        self._to_act = None
        self._result = self._score()

    def _final_places(self) -> tuple[int, ...]:
        """R7: finishers in order, then the rest by fewer cards left, ties by play order after
        the last finisher (from the first leader if nobody finished)."""
        start = (self._places[-1] + 1) & 3 if self._places else self._first
        rest = sorted(
            (s for s in range(4) if s not in self._places),
            key=lambda s: (self.cards_left(s), (s - start) & 3),
        )
        return self._places + tuple(rest)

    def _score(self) -> Result:
        held = [self.hand(s) for s in range(4)]
        return score(self._rules, self._final_places(), self._bombs, held, self._escape)

    # -- identity --------------------------------------------------------------------------
    def key(self) -> tuple[object, ...]:
        """The position as a canonical tuple (what ``==`` and ``hash`` see): rules, hands, seat
        to act, table play and owner, passes, places, each seat's bombs (as R8 sees them: their
        readings, in any order) and the escape. Not the trick counter or the history."""
        table = None if self._table is None else (self._table.packed, self._table.tag)
        bombs = tuple(tuple(sorted(p.tag for p in b)) for b in self._bombs)
        return (
            dataclasses.astuple(self._rules), self._hands, self._to_act, table, self._owner,
            self._passes, self._places, bombs, self._escape,
        )

    @property
    def hash(self) -> int:
        """64-bit hash of :meth:`key`, computed from scratch (BLAKE2b of its ``repr``)."""
        digest = hashlib.blake2b(repr(self.key()).encode(), digest_size=8).digest()
        return int.from_bytes(digest, "little")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RefState) and self.key() == other.key()

    def __hash__(self) -> int:
        return self.hash

    def __repr__(self) -> str:
        status = "over" if self.is_over else f"seat {self._to_act} to act"
        return f"<RefState {self._rules.name} {status}>"

