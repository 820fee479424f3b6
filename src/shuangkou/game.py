"""The game: one deal of Shuangkou over physical cards (RULES.md R7) with its scores (R8),
matches of several deals, JSON state, per-seat logs and replay.

**One engine.** A :class:`Game` is a facade over the kernel's game state
(:class:`~shuangkou.State`, ``game.state``): R7's flow and R8's scores are the State's; the
Game adds what the State, at rank level, does not hold — physical card ids, the 明牌 deal and
swap, seating, the action log, JSON, replay, and error messages naming the play and the
reason. ``SHUANGKOU_BACKEND=reference`` runs it on the pure-Python reference engine
(:class:`~shuangkou._reference_game.RefState`) instead, so the same tests judge both.

::

    game = Game(Rules.preset("baibian"), seed=7)
    while not game.is_over:
        plays = game.legal_plays()          # through the kernel (plays.legal_plays)
        game.play(plays[0]) if plays else game.pass_()
    print(game.result.breakdown())

**Physical cards.** Hands are sets of card ids 0..107 (:mod:`shuangkou.cards`). ``play``
accepts a :class:`~shuangkou.plays.Play` (the lowest-id held cards of each needed rank are
taken), a :class:`~shuangkou.cards.Hand` of ranks (likewise), physical card text
(``"3s 3h"``: each card the held copy of that rank and suit, deck 0 first) or a list of ids
(exactly those cards) or an int, the index of the play in ``legal_plays()``. An index or a
``Play`` of the current legal list is applied as it is (the State checks it in C, no
classifying); other client cards are validated once: held, a valid play (``classify``), and
beating the table (``Play.beats``); a 千变 set with two plain readings (R3.3) takes the declared
``kind``, or the table's kind when answering. Anything illegal raises
:class:`~shuangkou.errors.IllegalPlayError` naming the play and the reason, and changes nothing.

**Seats and players.** Seats 0..3 play in order 0→1→2→3; 0+2 and 1+3 are partners. ``players``
says which player sits at each seat: a 明牌 deal (R7) may swap two players — with their hands —
before play starts (``game.swap``). Scores are per seat; a :class:`Match` adds them up per player.

**Search.** ``copy()`` is independent of the original; ``undo()`` reverts the last action
exactly (play, pass or abandon). Both are cheap (see benchmarks/bench_game.py).

**Servers.** ``cards_for(play, seat)`` gives the ids a play would take; ``observation(seat)``
is what a seat may see, ``Observation.to_dict()`` its plain-JSON form; ``log(seat=s)`` and
``to_json(seat=s)`` hide what seat ``s`` may not see (``seat="spectator"``: every hand).

**Threads.** A Game may be shared by threads: actions are serialised by the Game's lock, and
every reader of more than one field (``copy``, ``log``, ``to_json``, ``observation``,
``actions``, ``legal_plays``, ``cards_for``, ``==``) takes the same lock, so it sees whole
moves, never one half made (tests/test_game_threads.py).

**Persistence.** ``to_json()`` is a versioned JSON document (format ``shuangkou.game``,
version :data:`JSON_VERSION`) holding the rules, the deal, every action and a snapshot of the
current state; ``from_json`` rebuilds the game by re-validating every action and checks the
snapshot. ``log()`` is the same without the snapshot; :func:`replay` rebuilds a game from a log
and raises :class:`ReplayError` (with ``step``) at the first illegal action.

Choices made where RULES.md is silent:

* A seeded ``Game(rules, seed)`` uses the SplitMix64 deal of :mod:`shuangkou.rng` with ``seed``
  as the generator's state; deal ``i`` of a :class:`Match` uses ``rng.deal_seed(seed, i)``.
* 明牌 swap (R7): the leader keeps its seat; the player holding the other copy of the revealed
  card and the player opposite the leader exchange seats (and hands). If the leader holds both
  copies, or the other copy's holder already sits opposite, nothing moves.
* In a match with random first leaders (R7), the previous first finisher leads after 单扣 or
  平扣 (at the seat where that player now sits); after 双扣, an abandoned deal, or in the first
  deal, the seat drawn by the generator leads. Seating carries over from deal to deal (a 明牌
  swap stays in force in the next deal).
* Unplaced seats (R7) are ranked by fewer cards left, ties by play order starting after the last
  finisher; if nobody finished (an abandon), starting with the deal's first leader.
* 接风 with the partner out too (impossible by R7, kept for house rules): the next seat in play
  order after the owner that still has cards leads.
* ``abandon(seat)`` is allowed for any seat at any time before the end, in or out of turn.
* Scripted deals (:meth:`Game.from_deal`) may give hands of any size (disjoint ids), for tests
  and puzzles; the cards nobody holds are out of play.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple

from . import documents
from ._check import as_seat, as_seed
from ._engine import State as _KernelState
from ._physical import GameLock, _Base
from ._physical import ids_of as _ids_of
from ._physical import mask_of as _mask_of
from ._physical import ranks_of as _ranks_of
from ._physical import take_lowest as _take
from .cards import (
    CARD_RANKS,
    N_CARDS,
    Hand,
    card_face,
    face_copies,
    format_cards,
    parse_faces,
)
from .documents import Trust, integer
from .errors import ArgumentError, DocumentError, IllegalPlayError, NotationError
from .plays import PASS, Kind, Play, classify
from .rng import deal as rng_deal
from .rng import deal_seed
from .rules import Rules, as_rules
from .scoring import BombScore, Outcome, Result

__all__ = [
    "JSON_VERSION", "Action", "Game", "Match", "Observation", "ReplayError", "play_from_dict",
    "play_to_dict", "replay", "reveal_swap",
]

JSON_VERSION = 1
GAME_FORMAT = "shuangkou.game"
LOG_FORMAT = "shuangkou.log"
MATCH_FORMAT = "shuangkou.match"
SPECTATOR = "spectator"
"""The ``seat`` of :meth:`Game.log` that sees no hand."""

Viewer = int | str | None
"""Who a log is for: ``None`` (everything), a seat 0..3, or :data:`SPECTATOR`."""


def _state_class() -> Any:
    """The engine a Game runs on: the kernel's ``State``, or the pure-Python reference engine
    ``RefState`` under ``SHUANGKOU_BACKEND=reference`` (the test suite runs on both)."""
    if os.environ.get("SHUANGKOU_BACKEND", "core") == "reference":
        from ._reference_game import RefState

        return RefState
    from ._engine import State

    return State


_State = _state_class()


_SEATS = (0, 1, 2, 3)


def _players(players: Sequence[int]) -> tuple[int, ...]:
    """The ``players`` argument: the player at each of the 4 seats, as ints."""
    if players is _SEATS:  # the default, without a conversion
        return _SEATS
    players = tuple(int(p) for p in players)
    if len(players) != 4:
        raise ValueError("players must name the player at each of the 4 seats")
    return players


def _leader(leader: Any) -> int:
    """A first leader seat 0..3, else ``ValueError`` ("0" or 1.5 refused, never read as a
    seat)."""
    if leader is None:
        raise ArgumentError("leader must be a seat 0..3, got None")
    return as_seat(leader, "leader")


def _packed_of(ids: Iterable[int]) -> int:
    p = 0
    for c in ids:
        p += 1 << (4 * CARD_RANKS[c])
    return p


class Action(NamedTuple):
    """One action of a deal: ``kind`` is ``"play"``, ``"pass"`` or ``"abandon"``; ``cards`` are
    the physical ids played; ``play`` the reading (``None`` for pass and abandon); ``trick`` the
    number of the trick (0-based) it belongs to."""

    kind: str
    seat: int
    cards: tuple[int, ...] = ()
    play: Play | None = None
    trick: int = 0

    def __str__(self) -> str:
        if self.kind == "play":
            assert self.play is not None
            return f"seat {self.seat}: {format_cards(self.cards)} ({self.play.describe()})"
        return f"seat {self.seat}: {self.kind}"


Record = tuple[str, int, tuple[int, ...], Play | None, int]
"""A Game's log record: an :class:`Action`'s fields (kind, seat, the ids played, ascending,
play, trick) in a plain tuple, which the C paths make without a Python call."""


def _action(record: Record) -> Action:
    """The Action of a Game's log record."""
    # tuple.__new__: the fields as they are, without the NamedTuple's Python-level __new__
    return tuple.__new__(Action, record)


@dataclass(frozen=True)
class Observation:
    """What ``seat`` may see (R6/R7): its own hand, the partner's hand only under 双明
    (``rules.partner_visible``), every seat's card count, the table and the history. Every
    action of the history is public (plays are made face up, passes and abandons are seen by
    all), so the history is the whole list of actions; the hidden part of a deal is the other
    hands, which an observation never holds.

    :meth:`to_dict` gives plain JSON types (for a server to send); :meth:`from_dict` rebuilds
    an equal observation. The dict has one key per field:

    * ``seat``, ``to_act`` (``null`` once over), ``table_owner`` (``null`` on a lead),
      ``leader`` (seat that led the trick), ``trick`` (0-based), ``first_leader``: ints;
    * ``hand``: the seat's card ids, ascending; ``partner_hand``: the partner's ids under 双明,
      else ``null``; ``card_counts``: 4 ints; ``places``: seats out so far, in order;
      ``players``: the player at each seat; ``revealed``: the 明牌 card id or ``null``;
    * ``table``: the play to beat as a *play dict* (below) or ``null``; ``table_cards``: its
      card ids;
    * ``history``: one dict per action, ``{"kind": "play"|"pass"|"abandon", "seat": int,
      "cards": [ids], "play": play dict | null, "trick": int}``;
    * ``is_over``: bool; ``result``: ``null`` or :meth:`Result.to_dict
      <shuangkou.scoring.Result.to_dict>` with, in each bomb entry, ``"play"`` (a play dict)
      and at the top ``"rules_name"``, ``"scoring"`` and ``"notes"`` (what a lossless round
      trip needs).

    A *play dict* is ``{"text": str(play), "cards": rank text of Play.cards, "kind": kind name
    (lower case), "top": int, "width": int, "length": int, "stars": int, "wilds": int}``: the
    reading itself, so it is rebuilt without the rules (``text`` is for people).
    """

    seat: int
    to_act: int | None
    hand: tuple[int, ...]
    partner_hand: tuple[int, ...] | None
    card_counts: tuple[int, int, int, int]
    table: Play | None
    table_cards: tuple[int, ...]
    table_owner: int | None
    leader: int
    trick: int
    places: tuple[int, ...]
    history: tuple[Action, ...]
    players: tuple[int, int, int, int]
    first_leader: int
    revealed: int | None
    is_over: bool
    result: Result | None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types (``json.dumps`` takes it as is); see the class docstring."""
        return {
            "seat": self.seat,
            "to_act": self.to_act,
            "hand": list(self.hand),
            "partner_hand": None if self.partner_hand is None else list(self.partner_hand),
            "card_counts": list(self.card_counts),
            "table": None if self.table is None else play_to_dict(self.table),
            "table_cards": list(self.table_cards),
            "table_owner": self.table_owner,
            "leader": self.leader,
            "trick": self.trick,
            "places": list(self.places),
            "history": [_action_to_dict(a) for a in self.history],
            "players": list(self.players),
            "first_leader": self.first_leader,
            "revealed": self.revealed,
            "is_over": self.is_over,
            "result": None if self.result is None else _result_to_dict(self.result),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Observation:
        """Rebuild an observation from :meth:`to_dict` (after a JSON round trip too). Raises
        ``ValueError`` on a malformed dict."""
        try:
            return cls(
                _int(d, "seat"), _opt_int(d, "to_act"), _ints(d, "hand"),
                None if d["partner_hand"] is None else _ints(d, "partner_hand"),
                _ints(d, "card_counts"),  # type: ignore[arg-type]
                None if d["table"] is None else play_from_dict(d["table"]),
                _ints(d, "table_cards"), _opt_int(d, "table_owner"), _int(d, "leader"),
                _int(d, "trick"), _ints(d, "places"),
                tuple(_action_from_dict(a) for a in d["history"]),
                _ints(d, "players"),  # type: ignore[arg-type]
                _int(d, "first_leader"), _opt_int(d, "revealed"), bool(d["is_over"]),
                None if d["result"] is None else _result_from_dict(d["result"]),
            )
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"not an observation dict: {e!r}") from None


def play_to_dict(play: Play) -> dict[str, Any]:
    """A play as plain JSON types: its reading (see :class:`Observation`)."""
    return {
        "text": str(play), "cards": str(play.cards), "kind": play.kind.name.lower(),
        "top": int(play.top), "width": play.width, "length": play.length,
        "stars": play.stars, "wilds": play.wilds,
    }


def play_from_dict(d: dict[str, Any]) -> Play:
    """The play of :func:`play_to_dict`. Raises ``ValueError`` on a malformed dict (a
    :class:`~shuangkou.errors.DocumentError` naming a field that is not an int: ``4.7`` is
    refused, never read as 4)."""
    try:
        return Play(
            Hand.parse(d["cards"]), Kind[str(d["kind"]).upper()],
            *(_int(d, k, "play ") for k in ("top", "width", "length", "stars", "wilds")),
        )
    except (KeyError, TypeError) as e:
        raise ValueError(f"not a play dict: {d!r}") from e


# The ints of a play/observation/result dict, through the one check of document ints (a
# float, bool or string field is a DocumentError naming it, never truncated by int()).
def _int(d: dict[str, Any], key: str, where: str = "") -> int:
    return integer(d[key], where + key)


def _opt_int(d: dict[str, Any], key: str) -> int | None:
    return None if d[key] is None else _int(d, key)


def _ints(d: dict[str, Any], key: str) -> tuple[int, ...]:
    return tuple(integer(x, f"{key}[{i}]") for i, x in enumerate(d[key]))


def _action_to_dict(a: Action) -> dict[str, Any]:
    return {
        "kind": a.kind, "seat": a.seat, "cards": list(a.cards),
        "play": None if a.play is None else play_to_dict(a.play), "trick": a.trick,
    }


def _action_from_dict(d: dict[str, Any]) -> Action:
    play = d["play"]
    return Action(
        str(d["kind"]), _int(d, "seat"), _ints(d, "cards"),
        None if play is None else play_from_dict(play), _int(d, "trick"),
    )


def _result_to_dict(r: Result) -> dict[str, Any]:
    d = r.to_dict()
    parts = (("multiplier_bombs", r.multiplier_bombs), ("contributions", r.contributions))
    for key, bombs in parts:
        for entry, b in zip(d[key], bombs):  # type: ignore[call-overload]
            entry["play"] = play_to_dict(b.play)
    d.update(rules_name=r.rules_name, scoring=r.scoring, notes=list(r.notes))
    return d


def _result_from_dict(d: dict[str, Any]) -> Result:
    def bombs(key: str) -> tuple[BombScore, ...]:
        return tuple(
            BombScore(_int(b, "seat"), play_from_dict(b["play"]), bool(b["held"]),
                      _int(b, "stars"), _int(b, "factor"), _ints(b, "contribution"))  # type: ignore[arg-type]
            for b in d[key]
        )

    return Result(
        Outcome(d["outcome"]), _ints(d, "places"),
        _ints(d, "first_team"), _ints(d, "base"),  # type: ignore[arg-type]
        _int(d, "multiplier"), bombs("multiplier_bombs"), bombs("contributions"),
        _ints(d, "unclamped"), _ints(d, "units"),  # type: ignore[arg-type]
        tuple(bool(c) for c in d["clamped"]),  # type: ignore[arg-type]
        _opt_int(d, "escape"), _int(d, "base_score"), str(d["rules_name"]),
        str(d["scoring"]), tuple(str(n) for n in d["notes"]),
    )


class ReplayError(IllegalPlayError, DocumentError):
    """A log action that is illegal where it stands: ``step`` is its index in the log's
    actions, ``action`` the action as logged, ``game`` the state just before it."""

    def __init__(self, message: str, step: int, action: object, game: Game | None) -> None:
        super().__init__(message)
        self.step = step
        self.action = action
        self.game = game


class _PlayName:
    """Names what a client sent, lazily (error messages only)."""

    __slots__ = ("cards",)

    def __init__(self, cards: object) -> None:
        self.cards = cards

    def __str__(self) -> str:
        try:
            return f"play {_show(self.cards)}"
        except Exception:  # noqa: BLE001 - naming a bad argument must not fail
            return "play"


def _kind_of(kind: Kind | str, what: object, seat: int) -> Kind:
    try:
        return kind if isinstance(kind, Kind) else Kind[str(kind).upper()]
    except KeyError:
        raise _illegal(what, seat, f"unknown play kind {kind!r}") from None


def _seat(seat: object) -> int:
    """A seat index argument of a view (``hand(-1)`` is refused, not seat 3)."""
    if type(seat) is int and 0 <= seat < 4:  # the common case, without a call
        return seat
    return as_seat(seat)


def _seat_arg(what: object, seat: object) -> int:
    """A seat argument as a plain int 0..3 (``numpy.int64(1)`` is seat 1; ``True``, ``1.0``,
    ``"1"`` and ``-1`` are refused), else :class:`IllegalPlayError`."""
    try:
        return as_seat(seat)
    except ValueError as e:
        raise _illegal(what, None, str(e)) from None


def _illegal(what: object, seat: int | None, reason: str) -> IllegalPlayError:
    who = f" by seat {seat}" if seat is not None else ""
    return IllegalPlayError(f"illegal {what}{who}: {reason}")


class Game(_Base):
    """One deal (R7) over physical cards. See the module docstring.

    Its per-decision paths (``to_act``, ``is_over``, ``can_pass``, ``legal_plays``, ``play``
    and ``pass_`` of a play of the legal list) are the C base class's (``_physical._Base``),
    which hands everything else to the checks here."""

    __slots__ = (
        "rules", "seed", "dealt", "revealed", "swap", "players", "initial_hands", "first_leader",
        "_built",
    )

    rules: Rules
    seed: int | None
    dealt: tuple[tuple[int, ...], ...]
    revealed: int | None
    swap: tuple[int, int] | None
    players: tuple[int, int, int, int]
    initial_hands: tuple[tuple[int, ...], ...]
    first_leader: int
    _built: list[Action]

    def __init__(
        self,
        rules: Rules | str,
        seed: int = 7,
        *,
        players: Sequence[int] = _SEATS,
        leader: int | None = None,
    ) -> None:
        """Shuffle and deal from ``seed`` (:mod:`shuangkou.rng`) and pick the first leader (R7):
        the revealed card's holder with the partner swap, or the drawn seat; ``leader`` (a
        seat) overrides a random draw (a match's previous first finisher)."""
        rules = as_rules(rules)
        if leader is not None and rules.first_leader == "revealed":
            raise ValueError("leader can only be given when rules.first_leader is 'random'")
        if _State is not _KernelState:  # the reference engine: the generic set-up
            d = rng_deal(seed, rules.first_leader)
            self._setup(rules, d.hands, players, d.revealed,
                        d.leader if leader is None else leader)
            self.seed = d.seed
            return
        # the kernel's State: the deal, the 明牌 swap, the State and the masks in one C call
        # (what _setup makes from rng.deal's hands, a few times cheaper)
        self.seed = as_seed(seed)
        if leader is not None and (type(leader) is not int or not 0 <= leader < 4):
            leader = _leader(leader)
        seated = list(_players(players))
        self.rules = rules
        self.dealt, self.initial_hands, self.swap, self.revealed, self.first_leader = (
            self._deal(rules, self.seed, leader))
        if self.swap is not None:
            a, b = self.swap
            seated[a], seated[b] = seated[b], seated[a]
        self.players = tuple(seated)  # type: ignore[assignment]
        self._log = []
        self._built = []
        self._lock = GameLock()

    @classmethod
    def from_deal(
        cls,
        rules: Rules | str,
        hands: Sequence[Iterable[int] | str],
        *,
        leader: int | None = None,
        revealed: int | str | None = None,
        players: Sequence[int] = _SEATS,
    ) -> Game:
        """A scripted deal: ``hands`` per seat as card ids or physical-card text (any sizes,
        disjoint). The first leader is ``leader``, or the holder of ``revealed`` (a card id or
        text, R7 明牌 with the partner swap), or seat 0."""
        if len(hands) != 4:
            raise ValueError("a deal has 4 hands")
        ids: list[tuple[int, ...]] = []
        seen: set[int] = set()
        for h in hands:
            if isinstance(h, str):
                # Each card is the first copy (deck 0, then deck 1) not dealt yet.
                hid = []
                for face in parse_faces(h):
                    a, b = face_copies(face)
                    if a not in seen and a not in hid:
                        hid.append(a)
                    elif b not in seen and b not in hid:
                        hid.append(b)
                    else:
                        raise NotationError(f"more than two copies of a card in the deal: {h!r}")
            else:
                hid = [int(c) for c in h]
            for c in hid:
                if not 0 <= c < N_CARDS:
                    raise NotationError(f"card id {c!r} is out of range 0..107")
                if c in seen:
                    raise ValueError(f"card {format_cards([c])} (id {c}) is dealt twice")
                seen.add(c)
            ids.append(tuple(hid))
        if isinstance(revealed, str):
            held = parse_faces(revealed)
            if len(held) != 1:
                raise NotationError(f"revealed must be one card, got {revealed!r}")
            a, b = face_copies(held[0])
            revealed = a if a in seen else b
        if revealed is not None and leader is not None:
            raise ValueError("give either leader or revealed, not both")
        game = cls.__new__(cls)
        if leader is None and revealed is None:
            leader = 0
        game._setup(as_rules(rules), tuple(ids), players, revealed, leader)
        game.seed = None
        return game

    def _setup(
        self,
        rules: Rules,
        hands: Sequence[tuple[int, ...]],
        players: Sequence[int],
        revealed: int | None,
        leader: int | None,
    ) -> None:
        self.rules = rules
        players = _players(players)
        self.dealt = tuple(tuple(h) for h in hands)
        masks = [_mask_of(h) for h in hands]
        seat_hands = [_ids_of(m) for m in masks]  # ascending
        seated = list(players)
        self.swap = None
        self.revealed = None
        if revealed is not None:
            revealed = int(revealed)
            leader, self.swap = _reveal_swap(masks, revealed)
            if self.swap is not None:
                a, b = self.swap
                seat_hands[a], seat_hands[b] = seat_hands[b], seat_hands[a]
                masks[a], masks[b] = masks[b], masks[a]
                seated[a], seated[b] = seated[b], seated[a]
            self.revealed = revealed
        leader = _leader(leader)
        self.players = tuple(seated)  # type: ignore[assignment]
        self.initial_hands = tuple(seat_hands)
        self.first_leader = leader
        if any(not h for h in seat_hands):
            raise ValueError("every seat needs at least one card")
        self._set_masks(masks)
        self._st = _State.from_position(
            rules, [Hand._from_packed_unchecked(_ranks_of(m)) for m in masks], leader,
            leader=leader, hand_size=None,  # a scripted deal may give a seat any number
        )
        self._sync()
        # One record per action (Record): undo pops it; the Action objects are built from the
        # records when asked for (_built caches them).
        self._log: list[Record] = []
        self._built = []
        # One action at a time: two threads playing on one Game are serialised (the second
        # is then judged on the position the first left), never interleaved; every reader of
        # more than one field (copy, log, to_json, observation, actions, ...) takes it too, so
        # it never sees a move half made (the State moved, the log or the hands not yet).
        self._lock = GameLock()

    # -- views ---------------------------------------------------------------------------------
    @property
    def state(self) -> Any:
        """The position at rank level as a :class:`~shuangkou.State` (a copy: searching on it
        leaves the game as it is). Under ``SHUANGKOU_BACKEND=reference`` a
        :class:`~shuangkou._reference_game.RefState`."""
        return self._st.copy()

    @property
    def result(self) -> Result | None:
        """The :class:`~shuangkou.scoring.Result` once the deal is over, else ``None``."""
        result: Result | None = self._st.result
        return result

    @property
    def table_cards(self) -> tuple[int, ...]:
        """The card ids of the play to beat (``()`` when leading)."""
        with self._lock:  # the State's table and the log, of one position
            if self._st.table is None:
                return ()
            for kind, _, taken, _, _ in reversed(self._log):  # the top play is the last play
                if kind == "play":
                    return taken
            return ()  # pragma: no cover - a table play is in the log

    @property
    def table_owner(self) -> int | None:
        owner: int | None = self._st.table_owner
        return owner

    @property
    def leader(self) -> int:
        """The seat that led the current trick."""
        return int(self._st.leader)

    @property
    def trick(self) -> int:
        """Number of the current trick, 0-based."""
        return int(self._st.trick)

    @property
    def passes(self) -> int:
        """Passes since the top play."""
        return int(self._st.passes)

    @property
    def places(self) -> tuple[int, ...]:
        """Seats that finished, in order (the full ranking is ``result.places``)."""
        return tuple(self._st.places)

    @property
    def escape(self) -> int | None:
        """The seat that abandoned (R8 逃跑), else ``None``."""
        result = self.result
        return None if result is None else result.escape

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every action so far, in order (the history)."""
        with self._lock:
            return tuple(self._actions())

    def _actions(self) -> list[Action]:
        """The Action of each log record (the caller holds the lock: this fills the cache)."""
        built = self._built
        log = self._log
        for k in range(len(built), len(log)):
            built.append(_action(log[k]))
        return built

    history = actions

    def hand(self, seat: int) -> tuple[int, ...]:
        """The card ids ``seat`` holds, ascending."""
        return _ids_of(self._hand_mask(_seat(seat)))

    def hand_ranks(self, seat: int) -> Hand:
        """The rank multiset ``seat`` holds."""
        hand: Hand = self._st.hand(_seat(seat))
        return hand

    def cards_left(self, seat: int) -> int:
        return self._hand_mask(_seat(seat)).bit_count()

    @property
    def card_counts(self) -> tuple[int, int, int, int]:
        with self._lock:
            m = self._masks()
            return (m[0].bit_count(), m[1].bit_count(), m[2].bit_count(), m[3].bit_count())

    def bombs_played(self, seat: int) -> tuple[Play, ...]:
        return tuple(self._st.bombs_played(_seat(seat)))

    def view(self, seat: int) -> Any:
        """``seat``'s view of the position at rank level, ``State.view(seat)``: what the seat
        may know (what :mod:`shuangkou.sim` hands a Python policy). It is live: it shows the
        game's position at the time it is read."""
        return self._st.view(seat)

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may see (R6/R7): own hand, the partner's hand under 双明, card counts,
        table, history (all public). See :class:`Observation` for its JSON form."""
        seat = _seat(seat)
        with self._lock:  # every field of one position
            partner = self.hand(seat ^ 2) if self.rules.partner_visible else None
            return Observation(
                seat, self.to_act, self.hand(seat), partner, self.card_counts, self.table,
                self.table_cards, self.table_owner, self.leader, self.trick, self.places,
                self.actions, self.players, self.first_leader, self.revealed, self.is_over,
                self.result,
            )

    # -- actions -------------------------------------------------------------------------------
    def _check_turn(self, what: object, seat: int | None) -> int:
        if seat is not None and type(seat) is not int:
            seat = _seat_arg(what, seat)
        to_act: int | None = self._st.to_act
        if to_act is None:
            raise _illegal(what, seat, "the deal is over")
        if seat is not None and seat != to_act:
            raise _illegal(what, seat, f"it is seat {to_act}'s turn")
        return to_act

    def _play(
        self, cards: Play | Hand | str | Iterable[int] | int, kind: Kind | str | None,
        seat: int | None,
    ) -> Play:
        st = self._st
        chosen: Play | int
        if isinstance(cards, int) and not isinstance(cards, bool):
            s = st.to_act
            if s is None or seat is not None and seat != s:
                s = self._check_turn(_PlayName(cards), seat)  # raises unless int-like
            legal = st.legal()
            if not 0 <= cards < len(legal):
                raise _illegal(
                    _PlayName(cards), s, f"index {cards} is not in 0..{len(legal) - 1}"
                )
            play: Play = legal[cards]
            chosen = cards
        elif isinstance(cards, Play) and (not cards or cards in st.legal()):
            if not cards:
                self._pass(seat)
                return PASS
            s = st.to_act
            if s is None or seat is not None and seat != s:
                s = self._check_turn(_PlayName(cards), seat)  # raises
            play = chosen = cards
        else:
            what = _PlayName(cards)  # formatted only if an error is raised
            s = self._check_turn(what, seat)
            ids, play = self._resolve(cards, kind, s, what)
            table = st.table
            if table is not None and not play.beats(table, self.rules):
                raise _illegal(
                    f"play {play.describe()} [{format_cards(ids)}]", s,
                    f"it does not beat the table {table.describe()}",
                )
            trick = st.trick
            st.play(play)  # a last check by the engine (IllegalPlayError, nothing changed)
            self._toggle(s, ids)
            self._log.append(("play", s, ids, play, trick))
            self._sync()
            return play
        if kind is not None:
            declared = _kind_of(kind, _PlayName(cards), s)
            if play.kind != declared:
                raise _illegal(
                    _PlayName(cards), s,
                    f"the play is a {play.kind.name.lower()}, not {declared.name.lower()}",
                )
        mask = _take(play.packed, self._hand_mask(s))
        if mask < 0:  # pragma: no cover - the state's hands are the physical hands' ranks
            raise AssertionError("the rank-level hand and the physical hand disagree")
        taken = _ids_of(mask)
        trick = st.trick
        st.play(chosen)
        self._toggle(s, taken)
        self._log.append(("play", s, taken, play, trick))
        self._sync()
        return play

    def cards_for(self, play: Play | int, seat: int | None = None) -> tuple[int, ...]:
        """The card ids ``play`` (a :class:`Play`, or an index into :meth:`legal_plays`) would
        take from ``seat``'s hand (default: the seat to act), as :meth:`play` takes them: the
        lowest ids of each needed rank. Raises :class:`IllegalPlayError` if the hand does not
        hold the cards; says nothing about whether the play is legal now."""
        with self._lock:  # the seat to act, its legal list and its hand, of one position
            return self._cards_for(play, seat)

    def _cards_for(self, play: Play | int, seat: int | None) -> tuple[int, ...]:
        to_act = self._st.to_act
        if seat is None:
            if to_act is None:
                raise _illegal(_PlayName(play), None, "the deal is over (give a seat)")
            seat = to_act
        if isinstance(seat, bool) or seat not in range(4):
            raise ValueError(f"seat must be 0..3, got {seat!r}")
        if not isinstance(play, Play):
            if isinstance(play, bool) or not isinstance(play, int):
                raise TypeError(f"cards_for takes a Play or an index, not {play!r}")
            if seat != to_act:
                raise ValueError("an index names a legal play of the seat to act only")
            legal = self._st.legal()
            if not 0 <= play < len(legal):
                raise _illegal(_PlayName(play), seat, f"index {play} is not in 0..{len(legal) - 1}")
            chosen: Play = legal[play]
            play = chosen
        return self._take_lowest(play.cards, self._hand_mask(seat), seat, _PlayName(play))

    def _resolve(
        self, cards: object, kind: Kind | str | None, seat: int, what: object
    ) -> tuple[tuple[int, ...], Play]:
        """Physical ids and the reading of what a client sent (validated), or raise."""
        mask = self._hand_mask(seat)
        declared = None if kind is None else _kind_of(kind, what, seat)
        if isinstance(cards, Play):
            # Genuine reading of those ranks? (A hand-built Play could claim anything.)
            if cards not in classify(cards.cards, self.rules):
                raise _illegal(what, seat, f"{cards.cards} does not read as {cards.describe()}")
            ids = self._take_lowest(cards.cards, mask, seat, what)
            if declared is not None and cards.kind != declared:
                raise _illegal(
                    what, seat,
                    f"the play is a {cards.kind.name.lower()}, not {declared.name.lower()}",
                )
            return ids, cards
        if isinstance(cards, Hand):
            ids = self._take_lowest(cards, mask, seat, what)
        elif isinstance(cards, str):
            text = cards
            if "/" in text:
                text, _, suffix = text.rpartition("/")
                try:
                    k = Kind[suffix.strip().upper()]
                except KeyError:
                    raise _illegal(what, seat, f"unknown play kind {suffix.strip()!r}") from None
                if declared is not None and declared != k:
                    raise _illegal(what, seat, "two different kinds declared")
                declared = k
            try:
                faces = parse_faces(text)
            except NotationError as e:
                raise _illegal(what, seat, str(e)) from None
            picked: list[int] = []
            for face in faces:
                a, b = face_copies(face)
                if mask >> a & 1 and a not in picked:
                    picked.append(a)
                elif mask >> b & 1 and b not in picked:
                    picked.append(b)
                else:
                    raise _illegal(
                        what, seat, f"{format_cards([a])} is not in the hand (or not that many)"
                    )
            ids = tuple(picked)
        elif isinstance(cards, (bytes, bytearray, memoryview)):
            # iterable as ints, but b"3" is no card id 51: text must be a str
            raise _illegal(what, seat, f"cards must be text (str), ids or a Play, not "
                                       f"{type(cards).__name__}")
        else:
            try:
                raw = list(cards)  # type: ignore[call-overload]
            except TypeError:
                reason = f"cannot read cards from a {type(cards).__name__}"
                raise _illegal(what, seat, reason) from None
            picked = []
            for c in raw:
                if isinstance(c, bool) or not isinstance(c, int):
                    raise _illegal(what, seat, f"card ids must be ints, got {c!r}")
                if not 0 <= c < N_CARDS:
                    raise _illegal(what, seat, f"card id {c} is out of range 0..107")
                if c in picked:
                    raise _illegal(what, seat, f"card {format_cards([c])} (id {c}) is given twice")
                if not mask >> c & 1:
                    reason = f"card {format_cards([c])} (id {c}) is not in the hand"
                    raise _illegal(what, seat, reason)
                picked.append(c)
            ids = tuple(picked)
        if not ids:
            raise _illegal(what, seat, "no cards given (use pass_() to pass)")
        readings = classify(Hand._from_packed_unchecked(_packed_of(ids)), self.rules)
        if not readings:
            reason = f"{format_cards(ids)} is not a valid play under {self.rules.name}"
            raise _illegal(what, seat, reason)
        if declared is not None:
            readings = [p for p in readings if p.kind == declared]
            if not readings:
                reason = f"{format_cards(ids)} cannot be read as a {declared.name.lower()}"
                raise _illegal(what, seat, reason)
        if len(readings) > 1:
            table = self._st.table
            if table is None:
                kinds = " or ".join(p.kind.name.lower() for p in readings)
                reason = f"{format_cards(ids)} reads as two plays: declare kind={kinds}"
                raise _illegal(what, seat, reason)
            same = [p for p in readings if p.kind == table.kind]
            readings = same or readings[:1]  # R3.3: answering takes the table's kind
        return tuple(sorted(ids)), readings[0]

    def _take_lowest(self, ranks: Hand, mask: int, seat: int, what: object) -> tuple[int, ...]:
        taken = _take(ranks.packed, mask)
        if taken < 0:
            raise _illegal(what, seat, f"the hand does not hold {ranks}")
        return _ids_of(taken)

    def _pass(self, seat: int | None) -> None:
        s = self._check_turn("pass", seat)
        if self._st.table is None:
            raise _illegal("pass", s, "the leader of a trick must play (R4)")
        trick = self._st.trick
        self._st.pass_()
        self._log.append(("pass", s, (), None, trick))
        self._sync()

    def abandon(self, seat: int) -> None:
        """``seat`` abandons (逃跑): the deal ends at once with R8's escape penalty."""
        seat = _seat_arg("abandon", seat)
        with self._lock:
            if self._st.is_over:
                raise _illegal("abandon", seat, "the deal is over")
            trick = self._st.trick
            self._st.abandon(seat)
            self._log.append(("abandon", seat, (), None, trick))
            self._sync()

    # -- search support ------------------------------------------------------------------------
    def undo(self) -> Action:
        """Revert the last action exactly; returns it. Raises if there is none."""
        with self._lock:
            log = self._log
            if not log:
                raise IllegalPlayError("nothing to undo")
            self._st.undo()
            record = log.pop()
            self._toggle(record[1], record[2])  # the ids played, back in the hand
            self._sync()
            built = self._built
            return built.pop() if len(built) > len(log) else _action(record)

    def copy(self) -> Game:
        """An independent copy (undo history included), of one position: taken under the
        game's lock, so a move made meanwhile by another thread is wholly in it or not."""
        with self._lock:
            return self._copy()

    def _copy(self) -> Game:
        g = Game.__new__(Game)
        g.rules = self.rules
        g.seed = self.seed
        g.dealt = self.dealt
        g.revealed = self.revealed
        g.swap = self.swap
        g.players = self.players
        g.initial_hands = self.initial_hands
        g.first_leader = self.first_leader
        g._st = self._st.copy()
        g._copy_masks(self)
        g._sync()
        g._log = self._log[:]
        g._built = self._built[:]
        g._lock = GameLock()
        return g

    __copy__ = copy

    def __deepcopy__(self, memo: dict[int, object]) -> Game:
        return self.copy()

    def key(self) -> tuple[Any, ...]:
        """Everything that defines the game, history included: ``a == b`` compares it (it was
        ``Game.state()`` before :attr:`state` became the game's State)."""
        with self._lock:
            return (
                self.rules, self.seed, self.dealt, self.revealed, self.swap, self.players,
                self.first_leader, self._masks(), self.to_act, self.table, self.table_cards,
                self.table_owner, self.passes, self.leader, self.trick, self.places,
                self.is_over, self.escape, self.result,
                tuple(self.bombs_played(s) for s in range(4)), self.actions,
            )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.key() == other.key()

    __hash__: ClassVar[None] = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        with self._lock:
            status = "over" if self.is_over else f"seat {self.to_act} to act"
            n = len(self._log)
        return f"<Game {self.rules.name} seed={self.seed} {status}, {n} actions>"

    # -- persistence ---------------------------------------------------------------------------
    def _deal_dict(self) -> dict[str, Any]:
        return {
            "hands": [list(h) for h in self.dealt],
            "players": list(_unswap(self.players, self.swap)),
            "revealed": self.revealed,
            "leader": self.first_leader,
        }

    def _visible_seats(self, seat: Viewer) -> frozenset[int]:
        """The seats whose hands ``seat`` may see: its own and, under 双明, its partner's."""
        if seat is None:
            return frozenset(range(4))
        if seat == SPECTATOR:
            return frozenset()
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in range(4):
            raise ValueError(f"seat must be 0..3, None or {SPECTATOR!r}, got {seat!r}")
        return frozenset((seat, seat ^ 2) if self.rules.partner_visible else (seat,))

    def log(self, seat: Viewer = None) -> dict[str, Any]:
        """The game log: rules, seed, the deal and every action (JSON-able).

        ``seat=None`` is the full log (:func:`replay` rebuilds the game from it). ``seat=s``
        (0..3) is what the player at seat ``s`` may see, for a server to send to that client;
        ``seat="spectator"`` shows no hand at all. A redacted log has ``"view"`` (the seat or
        ``"spectator"``), ``"seed": null`` (the seed would give every hand away),
        ``deal.hands`` with ``null`` for each hand the viewer may not see (its own and, under
        双明, its partner's are kept — listed where they were dealt, before a 明牌 swap) and
        ``deal.hand_sizes``; the revealed card, the seating and every action are public and
        kept. A redacted log cannot be replayed."""
        visible = self._visible_seats(seat)
        with self._lock:  # the actions of one position
            return self._log_doc(seat, visible)

    def _log_doc(self, seat: Viewer, visible: frozenset[int]) -> dict[str, Any]:
        deal = self._deal_dict()
        doc = {
            "format": LOG_FORMAT,
            "version": JSON_VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "deal": deal,
            "actions": [_action_to_json(a) for a in self._actions()],
        }
        if seat is not None:
            # The dealt hands are indexed by the seat before the 明牌 swap; seat s now holds
            # the hand dealt at the seat it swapped with.
            dealt_at = list(range(4))
            if self.swap is not None:
                a, b = self.swap
                dealt_at[a], dealt_at[b] = b, a
            shown = {dealt_at[s] for s in visible}
            deal["hand_sizes"] = [len(h) for h in self.dealt]
            deal["hands"] = [h if i in shown else None for i, h in enumerate(deal["hands"])]
            doc["seed"] = None
            doc["view"] = seat
        return doc

    def to_json(self, indent: int | None = None, *, seat: Viewer = None) -> str:
        """Versioned JSON of the whole state (log + a snapshot of the position). ``seat``
        redacts it as :meth:`log` does (the snapshot's hidden hands become ``null``); only the
        full document (``seat=None``) can be read back by :meth:`from_json`."""
        visible = self._visible_seats(seat)
        with self._lock:  # the actions and the snapshot of one position
            doc = self._log_doc(seat, visible)
            snap = self._snapshot_dict()
        doc["format"] = GAME_FORMAT
        if seat is not None:
            snap["hands"] = [h if s in visible else None for s, h in enumerate(snap["hands"])]
        doc["state"] = snap
        return json.dumps(doc, ensure_ascii=False, indent=indent)

    def _snapshot_dict(self) -> dict[str, Any]:
        """The snapshot of :meth:`to_json` (the caller holds the lock, or owns the game)."""
        table = self.table
        result = self.result
        return {
            "hands": [list(self.hand(s)) for s in range(4)],
            "players": list(self.players),
            "to_act": self.to_act,
            "table": list(self.table_cards) if table is not None else None,
            "table_kind": table.kind.name.lower() if table is not None else None,
            "table_owner": self.table_owner,
            "passes": self.passes,
            "leader": self.leader,
            "trick": self.trick,
            "places": list(self.places),
            "over": self.is_over,
            "escape": self.escape,
            "result": result.to_dict() if result is not None else None,
        }

    @classmethod
    def from_json(
        cls, text: str | dict[str, Any], *, rules: Rules | str | None = None, seeded: bool = False
    ) -> Game:
        """Rebuild a game from :meth:`to_json` (or a log): every action is re-validated and
        the stored snapshot, if any, must match.

        Documents are untrusted input (:mod:`shuangkou.documents`): a bad one raises
        :class:`~shuangkou.errors.DocumentError` naming the field (:class:`ReplayError` for an
        illegal action), in time linear in its size. A server pins what it would have made
        itself: ``rules=`` (the document's rules must equal them) and ``seeded=True`` (only
        the standard seeded deal, no scripted hands)."""
        return _from_doc(documents.load(text, "game document"), Trust.pinned(rules, seeded))


def _from_doc(doc: dict[str, Any], trust: Trust) -> Game:
    fmt = doc.get("format")
    if fmt not in (GAME_FORMAT, LOG_FORMAT):
        raise DocumentError("not a shuangkou game document (format field)")
    if doc.get("version") != JSON_VERSION:
        raise DocumentError(f"unsupported game document version {str(doc.get('version'))[:20]}")
    game = _replay(doc, trust)
    snap = documents.get(doc, "state", dict, "game document", None, nullable=True)
    if snap is not None and json.loads(json.dumps(game._snapshot_dict())) != snap:
        raise DocumentError("the stored state does not match the replayed actions")
    return game


def reveal_swap(
    hands: Sequence[Collection[int]], revealed: int
) -> tuple[int, tuple[int, int] | None]:
    """R7 明牌 on dealt ``hands`` (card ids per seat): the first leader (the holder of the
    ``revealed`` card id) and the two seats that swap players and hands, lowest first — the
    holder of the other copy and the leader's partner — or ``None`` when the leader holds both
    copies or the other copy's holder already sits opposite (or nobody holds it)."""
    return _reveal_swap([_mask_of(h) for h in hands], revealed)


def _reveal_swap(masks: Sequence[int], revealed: int) -> tuple[int, tuple[int, int] | None]:
    """:func:`reveal_swap` on the hands' masks of ids."""
    holder = [s for s in range(4) if masks[s] >> revealed & 1]
    if not holder:
        raise ValueError(f"revealed card {revealed} is in no hand")
    leader = holder[0]
    a, b = face_copies(card_face(revealed))
    other = b if revealed == a else a
    other_holder = [s for s in range(4) if masks[s] >> other & 1]
    partner = leader ^ 2
    if other_holder and other_holder[0] not in (leader, partner):
        o = other_holder[0]
        return leader, (min(o, partner), max(o, partner))
    return leader, None


def _unswap(players: tuple[int, ...], swap: tuple[int, int] | None) -> tuple[int, ...]:
    seated = list(players)
    if swap is not None:
        a, b = swap
        seated[a], seated[b] = seated[b], seated[a]
    return tuple(seated)


def _show(cards: object) -> str:
    if isinstance(cards, Play):
        return f"{cards.describe()} [{cards}]"
    if isinstance(cards, (str, Hand)):
        return repr(str(cards))
    if isinstance(cards, (bytes, bytearray, memoryview)):
        return repr(bytes(cards)[:20])
    return repr(list(cards))  # type: ignore[call-overload]


def _action_to_json(a: Action) -> list[Any]:
    if a.kind == "play":
        assert a.play is not None
        return ["play", a.seat, list(a.cards), a.play.kind.name.lower()]
    return [a.kind, a.seat]


def _deal_from_log(doc: dict[str, Any], trust: Trust) -> Game:
    if doc.get("view") is not None:
        raise DocumentError("a log redacted for a seat cannot be replayed (hands hidden)")
    rules = documents.rules_of(doc, trust, "log")
    deal = documents.get(doc, "deal", dict, "log", {}, nullable=True) or {}
    seed = documents.get(doc, "seed", int, "log", None, nullable=True)
    players = documents.int_list(deal.get("players", [0, 1, 2, 3]), "deal.players", 0, 2**31, 4)
    revealed = deal.get("revealed")
    if revealed is not None:
        revealed = documents.integer(revealed, "deal.revealed", 0, N_CARDS - 1)
    leader = deal.get("leader")
    if leader is not None:
        leader = documents.integer(leader, "deal.leader", 0, 3)
    hands = deal.get("hands")
    if hands is not None:
        if not isinstance(hands, list) or len(hands) != 4:
            raise DocumentError("deal.hands must be a list of 4 hands")
        hands = [documents.int_list(h, f"deal.hands[{i}]", 0, N_CARDS - 1)
                 for i, h in enumerate(hands)]
    if seed is not None:
        seed = documents.integer(seed, "seed", 0, 2**64 - 1)
        game = Game(rules, seed, players=players,
                    leader=leader if rules.first_leader == "random" else None)
        if hands is not None and [list(h) for h in game.dealt] != hands:
            raise DocumentError("the logged hands are not the deal of the logged seed")
        if revealed is not None and revealed != game.revealed:
            raise DocumentError("the logged revealed card is not the seed's")
        return game
    if trust.seeded:
        raise DocumentError("the document has no seed: only seeded standard deals are accepted")
    if hands is None:
        raise DocumentError("deal.hands is missing (a document without a seed must list them)")
    try:
        return Game.from_deal(
            rules, hands, players=players,
            revealed=revealed, leader=None if revealed is not None else (leader or 0),
        )
    except ValueError as e:
        raise DocumentError(f"deal: {e}") from None


def replay(log: dict[str, Any] | str, *, rules: Rules | str | None = None,
           seeded: bool = False) -> Game:
    """Rebuild a game from a log (:meth:`Game.log` or :meth:`Game.to_json`), re-validating every
    action. Raises :class:`ReplayError` at the first illegal action (``step``, ``action`` and
    the ``game`` just before it) and for a malformed document (``step`` −1). ``rules`` and
    ``seeded`` pin what is accepted, as for :meth:`Game.from_json`."""
    try:
        doc = documents.load(log, "log")
        if doc.get("version") != JSON_VERSION:
            raise DocumentError("not a shuangkou log of a supported version")
        return _replay(doc, Trust.pinned(rules, seeded))
    except ReplayError:
        raise
    except DocumentError as e:
        raise ReplayError(str(e), -1, None, None) from None


def _replay(doc: dict[str, Any], trust: Trust) -> Game:
    game = _deal_from_log(doc, trust)
    actions = documents.get(doc, "actions", list, "log", [])
    for i, a in enumerate(actions):
        try:
            if not isinstance(a, list) or not 2 <= len(a) <= 4 or not isinstance(a[0], str):
                raise IllegalPlayError(f"malformed action {str(a)[:60]}")
            kind = a[0]
            seat = documents.integer(a[1], f"actions[{i}] seat", 0, 3)
            if kind == "play":
                if len(a) < 3 or not isinstance(a[2], list):
                    raise IllegalPlayError(f"malformed play action {str(a)[:60]}")
                cards = documents.int_list(a[2], f"actions[{i}] cards", 0, N_CARDS - 1)
                kind_name = a[3] if len(a) > 3 else None
                if kind_name is not None and not isinstance(kind_name, str):
                    raise IllegalPlayError(f"malformed play kind {str(kind_name)[:20]}")
                game.play(cards, kind_name, seat=seat)
            elif kind == "pass" and len(a) == 2:
                game.pass_(seat=seat)
            elif kind == "abandon" and len(a) == 2:
                game.abandon(seat)
            else:
                raise IllegalPlayError(f"unknown action {kind[:20]!r}")
        except (IllegalPlayError, DocumentError) as e:
            raise ReplayError(f"step {i}: {e}", i, a, game) from None
    return game


# -- matches -------------------------------------------------------------------------------------
class Match:
    """Several deals (R7) by four players: deal ``i`` is seeded ``rng.deal_seed(seed, i)``,
    seating carries over, and with random first leaders the previous first finisher leads
    after 单扣/平扣 (random after 双扣). ``totals`` adds up each player's scores. A match holds
    at most :data:`~shuangkou.documents.MAX_MATCH_DEALS` deals (1,000), so its document is
    bounded and every one :meth:`to_json` writes, :meth:`from_json` reads back."""

    def __init__(self, rules: Rules | str, seed: int = 7) -> None:
        self.rules: Rules = as_rules(rules)
        self.seed: int = as_seed(seed)  # 0..2^64-1, as every seed (rng)
        self.games: list[Game] = []

    @property
    def seating(self) -> tuple[int, ...]:
        """The player at each seat for the next deal."""
        return self.games[-1].players if self.games else (0, 1, 2, 3)

    @property
    def current(self) -> Game | None:
        return self.games[-1] if self.games else None

    def next_leader(self) -> int | None:
        """The seat the match forces as first leader of the next deal, or ``None`` (drawn)."""
        if self.rules.first_leader != "random" or not self.games:
            return None
        prev = self.games[-1]
        res = prev.result
        if res is None or res.outcome not in (Outcome.SINGLE_WIN, Outcome.TIE):
            return None
        player = prev.players[res.places[0]]
        return self.seating.index(player)

    def deal(self) -> Game:
        """Start the next deal (the previous one must be over) and return it."""
        if self.games and not self.games[-1].is_over:
            raise IllegalPlayError("the current deal is not over")
        if len(self.games) >= documents.MAX_MATCH_DEALS:
            raise IllegalPlayError(f"the match is over: a match holds at most "
                                   f"{documents.MAX_MATCH_DEALS:,} deals (start another)")
        game = Game(
            self.rules, deal_seed(self.seed, len(self.games)), players=self.seating,
            leader=self.next_leader(),
        )
        self.games.append(game)
        return game

    @property
    def totals(self) -> tuple[int, int, int, int]:
        """Each player's total score over the finished deals."""
        tot = [0, 0, 0, 0]
        for g in self.games:
            if g.result is not None:
                for seat, s in enumerate(g.result.scores):
                    tot[g.players[seat]] += s
        return tuple(tot)  # type: ignore[return-value]

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": MATCH_FORMAT, "version": JSON_VERSION, "rules": self.rules.to_dict(),
                "seed": self.seed, "games": [json.loads(g.to_json()) for g in self.games],
            },
            ensure_ascii=False,
        )

    @classmethod
    def from_json(
        cls, text: str, *, rules: Rules | str | None = None, seeded: bool = False
    ) -> Match:
        """Rebuild a match from :meth:`to_json`. Every game must have the match's rules (and
        ``rules``, if given) and follow from its seed and history; errors as for
        :meth:`Game.from_json`."""
        doc = documents.load(text, "match document", documents.MAX_MATCH_DOCUMENT)
        if doc.get("format") != MATCH_FORMAT or doc.get("version") != JSON_VERSION:
            raise DocumentError("not a shuangkou match document of a supported version")
        trust = Trust.pinned(rules, seeded)
        m_rules = documents.rules_of(doc, trust, "match")
        m = cls(m_rules, documents.integer(doc.get("seed"), "match seed", 0, 2**64 - 1))
        games = documents.get(doc, "games", list, "match")
        if len(games) > documents.MAX_MATCH_DEALS:
            raise DocumentError(f"match: {len(games):,} games, a match holds at most "
                                f"{documents.MAX_MATCH_DEALS:,}")
        for i, gdoc in enumerate(games):
            if m.games and not m.games[-1].is_over:
                raise DocumentError(f"games[{i}]: the deal before it is not over")
            expect = m.deal()
            if not isinstance(gdoc, dict):
                raise DocumentError(f"games[{i}] must be a game document")
            got = _from_doc(gdoc, Trust(m_rules, seeded))
            same = (got.seed, got.players, got.first_leader) == (
                expect.seed, expect.players, expect.first_leader
            )
            if not same:
                raise DocumentError(f"deal {i} does not follow from the match's seed and history")
            m.games[-1] = got
        return m
