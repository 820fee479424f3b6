"""numpy views for many hands at once and for RL.

* Hands as ``(N, 15)`` ``uint8`` count arrays (R1 rank order); :func:`pack` / :func:`unpack`
  convert to and from the kernel's packed words.
* :func:`count_plays` and :func:`legal_plays` for many hands in one GIL-free kernel call;
  :func:`legal_plays` returns a :class:`PlayBatch` — the variable-length list of plays per hand
  (packed words, tags, per-play ``(M, 15)`` card vectors).
* The **action table** (:func:`action_table`): a fixed, versioned list of every reading a play
  can have under a rules preset — ``(kind, top, width, length, size)``, index 0 is PASS — with
  ``encode`` / ``decode`` and legal-action masks ``(N, A)``. Versioned by
  :data:`ACTION_TABLE_VERSION`: the order of the table never changes within a version.
* :func:`observation` – a fixed-size ``float32`` encoding of what a seat sees (:data:`OBS_FIELDS`).

Both RL styles are served: a fixed action space with masks (readings; the concrete cards for
an action come from :meth:`ActionTable.play_for`; the table tells apart how many wilds a play
uses, so an agent can keep a wild), and the exact
variable-length list of plays with their card vectors.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from . import _core
from ._check import as_int, as_seat
from .cards import CARD_RANKS, MAX_COPIES, N_RANKS, Hand, card_face, face_copies
from .errors import ArgumentError, IllegalPlayError
from .plays import NO_TABLE, PASS, Kind, Play, _fewest, _table_tag, pack_tag, unpack_tag
from .rules import FLAG_STARS, FLAG_UNEVEN, FLAG_WILD_BJ, FLAG_WILD_SJ, Rules, as_rules

__all__ = [
    "ACTION_TABLE_VERSION",
    "OBS_FIELDS",
    "OBS_OFFSETS",
    "OBS_SIZE",
    "OBS_VERSION",
    "ActionIndexError",
    "ActionTable",
    "PlayBatch",
    "action_table",
    "as_counts",
    "bomb_grade",
    "count_plays",
    "legal_action_mask",
    "legal_plays",
    "observation",
    "pack",
    "play_vectors",
    "unpack",
]

ACTION_TABLE_VERSION = 2
"""Version of the action table layout; bumped on any change of order or content (v2: each
reading is split by the number of wild cards the play uses; docs/rl.md)."""

_SHIFTS = (4 * np.arange(N_RANKS)).astype(np.uint64)
_MAX_TAG = (1 << 31) - 1
_MAX = np.array(MAX_COPIES, dtype=np.int64)
KEY_MASK = 0x7FC1FFFF
"""Tag bits that identify an action of the table: kind, top, width, length, size and wilds
(not stars, which follow from the others)."""


# -- hands -------------------------------------------------------------------------------------
def as_counts(hands: Any) -> np.ndarray:
    """``(N, 15)`` uint8 counts from an ``(N, 15)`` array, or a sequence of :class:`Hand`,
    card text or packed ints. Validated (R1: naturals ≤ 8, jokers ≤ 2)."""
    if isinstance(hands, np.ndarray) and hands.ndim == 2:
        arr = _integer_array(hands, "hands")
    elif isinstance(hands, (Hand, str, int, np.integer)):
        return as_counts([hands])
    else:
        if not isinstance(hands, Iterable):
            raise TypeError(f"hands must be an (N, 15) array or a sequence of Hand, card text "
                            f"or packed ints, not {type(hands).__name__}")
        rows = []
        for i, h in enumerate(hands):
            if isinstance(h, Hand):
                pass
            elif isinstance(h, (int, np.integer)):
                h = Hand.from_packed(h)
            elif isinstance(h, str):
                h = Hand.parse(h)
            elif isinstance(h, (Sequence, np.ndarray)):
                h = Hand.from_counts(list(h))
            else:  # a float of a 1-D float array, a dict, None
                raise TypeError(f"hands[{i}] must be a Hand, card text, a packed int or 15 "
                                f"counts, not {type(h).__name__}")
            rows.append(h.counts)
        arr = np.array(rows, dtype=np.int64).reshape(-1, N_RANKS)
    if arr.ndim != 2 or arr.shape[1] != N_RANKS:
        raise ValueError(f"hands must have shape (N, 15), got {arr.shape}")
    a = arr.astype(np.int64, copy=False)
    if (a < 0).any() or (a > _MAX).any():
        bad = np.argwhere((a < 0) | (a > _MAX))[0]
        raise ValueError(f"hand {bad[0]}: count {a[bad[0], bad[1]]} of rank {bad[1]} out of range")
    return a.astype(np.uint8)


def pack(counts: Any) -> np.ndarray:
    """``(N,)`` uint64 packed words of ``(N, 15)`` counts."""
    c = as_counts(counts).astype(np.uint64)
    words: np.ndarray = np.bitwise_or.reduce(c << _SHIFTS, axis=1).astype(np.uint64)
    return words


def unpack(words: Any) -> np.ndarray:
    """``(N, 15)`` uint8 counts of packed words: integers of ``0..2**60-1`` (a negative word or
    a float is refused, not wrapped or truncated); the counts themselves are not checked."""
    w = _ranged_array(words, "words", (1 << (4 * N_RANKS)) - 1, "a packed word (0..2**60-1)")
    w = w.astype(np.uint64)
    return ((w[:, None] >> _SHIFTS) & np.uint64(15)).astype(np.uint8)


play_vectors = unpack
"""Per-play card vectors: ``(M, 15)`` counts of packed play words."""


def _integer_array(a: Any, what: str) -> np.ndarray:
    """``a`` as a numpy array of an integer dtype: floats, bools and objects are refused, not
    truncated (a count of 7.9 is an error, not 7). An empty one (``[]`` is float64 to numpy)
    is an empty int64 array."""
    arr = np.asarray(a)
    if arr.size == 0:
        return arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise ArgumentError(f"{what} must be an integer array, not dtype {arr.dtype}")
    return arr


def _ranged_array(a: Any, what: str, hi: int, noun: str) -> np.ndarray:
    """``a`` as a flat integer array whose values all lie in ``0..hi``, checked before any cast
    (``-1`` must not wrap to ``2**64 - 1``, nor ``2**32 + tag`` to ``tag``); else an
    :class:`ArgumentError` naming the first bad entry as not ``noun``."""
    raw = _integer_array(a, what).reshape(-1)
    if raw.size and (int(raw.min()) < 0 or int(raw.max()) > hi):
        i = int(np.argmax((raw < 0) | (raw > hi)))
        raise ArgumentError(f"{what}[{i}] = {int(raw[i])} is not {noun}")
    return raw


def _tag_array(tags: Any, what: str) -> np.ndarray:
    """``(M,)`` int64 tags of an integer array, each within the kernel's 31 bits."""
    return _ranged_array(tags, what, _MAX_TAG, "a reading tag (0..2**31-1)").astype(np.int64)


def _tables(table: Any, n: int, rules: Rules) -> np.ndarray:
    """Per-hand table tags: None (leading), one Play / card text / tag for all, or ``(N,)``.

    The one check of batch tables: a Play or text goes through :func:`shuangkou.plays`'s
    table check (a reading its cards have under ``rules``); a bare tag has no cards, so it
    must be 0 or a reading of the rules' action table (every reading of a play of a real
    deal, R3: at most 27 cards)."""
    if table is None or isinstance(table, (str, Play)):
        return np.full(n, _table_tag(table, rules), dtype=np.uint32)
    if isinstance(table, (int, np.integer)):
        raw = np.full(n, as_int(table, "table tag", 0, _MAX_TAG), dtype=np.int64)
        what = "table tag"
    else:
        raw = _tag_array(table, "tables")
        what = "tables"
        if raw.shape[0] != n:
            raise ArgumentError(f"expected {n} table tags, got {raw.shape[0]}")
    bad = (raw != NO_TABLE) & ~_table_for(rules).has_tags(raw)
    if bad.any():
        i = int(np.argmax(bad))
        at = "" if what == "table tag" else f"[{i}]"
        raise IllegalPlayError(
            f"{what}{at} = {int(raw[i]):#x} is not a reading under {rules.name} (R3)")
    return raw.astype(np.uint32)


def _words(hands: Any) -> np.ndarray:
    return np.ascontiguousarray(pack(hands))


def count_plays(
    hands: Any, rules: Rules | str, table: Any = None, wilds: str = "all"
) -> np.ndarray:
    """``(N,)`` int64: how many plays each hand has that beat its table (every play when
    leading), as :func:`shuangkou.count_plays` per hand."""
    rules = as_rules(rules)
    w = _words(hands)
    tables = _tables(table, w.shape[0], rules)
    return _core.count_many(w, rules.flags, tables, _fewest(wilds))


@dataclass(frozen=True)
class PlayBatch:
    """The legal plays of N hands, concatenated: hand ``i``'s plays are rows
    ``offsets[i]:offsets[i+1]`` of ``words`` (packed cards) and ``tags`` (readings)."""

    offsets: np.ndarray
    words: np.ndarray
    tags: np.ndarray

    def __len__(self) -> int:
        return int(self.offsets.shape[0] - 1)

    @property
    def counts(self) -> np.ndarray:
        """Number of plays per hand."""
        return np.diff(self.offsets).astype(np.int32)

    @property
    def hand_index(self) -> np.ndarray:
        """``(M,)``: the hand each play belongs to."""
        return np.repeat(np.arange(len(self)), self.counts)

    @property
    def cards(self) -> np.ndarray:
        """``(M, 15)`` uint8 card vectors of every play."""
        return unpack(self.words)

    @property
    def fields(self) -> np.ndarray:
        """``(M, 7)`` reading fields (kind, top, width, length, stars, size, wilds)."""
        t = self.tags.astype(np.int64)
        return np.stack([t & 15, t >> 4 & 15, t >> 8 & 31, t >> 13 & 15, t >> 17 & 31,
                         t >> 22 & 63, t >> 28 & 7], axis=1)

    def plays(self, i: int) -> list[Play]:
        """Hand ``i``'s plays as :class:`Play` objects (same order as ``legal_plays``)."""
        i = as_int(i, "hand index", 0, len(self) - 1)
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        return [Play._from_codes(int(w), int(t)) for w, t in zip(self.words[a:b], self.tags[a:b])]


def legal_plays(
    hands: Any, rules: Rules | str, table: Any = None, wilds: str = "all"
) -> PlayBatch:
    """The plays of many hands in one kernel call (same plays, same order as
    :func:`shuangkou.legal_plays` per hand)."""
    rules = as_rules(rules)
    w = _words(hands)
    off, words, tags = _core.generate_batch(w, rules.flags, _tables(table, w.shape[0], rules),
                                           _fewest(wilds))
    return PlayBatch(off, words, tags)


# -- the action table --------------------------------------------------------------------------
Action = tuple[int, int, int, int, int, int, int]
"""One entry of the table: (kind, top, width, length, stars, size, wilds)."""


def _wild_counts(kind: int, top: int, size: int, wmax: int) -> range:
    """How many wild cards a play of this reading can use (R3, the tag's ``wilds`` field): none
    for a single (a wild alone is itself) and for 三王/天王 (jokers read naturally); a pair of
    SJ uses one when it is SJ + a wild BJ; a pair of BJ none; every other reading has a natural
    card, so up to ``size - 1`` wilds, and never more than the rules have."""
    if kind in (Kind.SINGLE, Kind.THREE_JOKERS, Kind.FOUR_JOKERS) or wmax == 0:
        return range(1)
    if kind == Kind.PAIR and top >= 13:
        return range(2 if top == 13 else 1)
    return range(min(wmax, size - 1) + 1)


def _enumerate_readings(flags: int) -> list[tuple[int, int, int, int, int, int]]:
    """Every reading (kind, top, width, length, stars, size) a play of ≤ 27 cards can have."""
    stars_on = bool(flags & FLAG_STARS)
    wmax = 2 * bool(flags & FLAG_WILD_SJ) + 2 * bool(flags & FLAG_WILD_BJ)
    out: list[tuple[int, int, int, int, int, int]] = []
    for top in range(15):
        out.append((Kind.SINGLE, top, 1, 1, 0, 1))
    for top in range(15):
        out.append((Kind.PAIR, top, 2, 1, 0, 2))
    for top in range(13):
        out.append((Kind.TRIPLE, top, 3, 1, 0, 3))
    for kind, width, lmin in ((Kind.STRAIGHT, 1, 5), (Kind.PAIR_CHAIN, 2, 3),
                              (Kind.TRIPLE_CHAIN, 3, 3)):
        for length in range(lmin, 13):
            if width * length > 27:
                break
            for top in range(length - 1, 12):
                out.append((kind, top, width, length, 0, width * length))
    for x in range(4, 9 + wmax):
        for top in range(13):
            out.append((Kind.BOMB, top, x, 1, x if stars_on else 0, x))
    if stars_on:
        out.append((Kind.THREE_JOKERS, 14, 3, 1, 6, 3))
    out.append((Kind.FOUR_JOKERS, 14, 4, 1, 7 if stars_on else 0, 4))
    if stars_on:
        uneven = bool(flags & FLAG_UNEVEN)
        for y in range(3, 7):
            for x in range(4, 9 + wmax):
                if y * max(0, x - 8) > wmax or x * y > 27:
                    break
                if uneven:
                    hi = min(27, x + 8 * (y - 1) + wmax - max(0, x - 8))
                    sizes = range(x * y, hi + 1)
                else:
                    sizes = range(x * y, x * y + 1)
                for size in sizes:
                    for top in range(y - 1, 12):
                        out.append((Kind.CHAIN_BOMB, top, x, y, x + y, size))
    return out


def _enumerate_actions(flags: int) -> list[Action]:
    """The table's actions after PASS (docs/rl.md, "The action table"): every reading in
    :func:`_enumerate_readings` order, each followed by its wild counts, fewest first."""
    wmax = 2 * bool(flags & FLAG_WILD_SJ) + 2 * bool(flags & FLAG_WILD_BJ)
    return [(k, t, w, ln, s, z, nw) for k, t, w, ln, s, z in _enumerate_readings(flags)
            for nw in _wild_counts(k, t, z, wmax)]


class ActionIndexError(ArgumentError, IndexError):
    """An action index that is no integer of ``0..len(table)-1``: a ``ValueError`` like every
    bad argument, and an ``IndexError`` like any sequence's."""


def _choice_key(play: Play) -> tuple[int, int]:
    """The documented rule choosing the cards of a table action (docs/rl.md): among the legal
    plays with the action's reading and wild count, the fewest big jokers (a wild small joker
    goes before a big one), then the smallest packed cards word (lower ranks first)."""
    return (play.packed >> 56 & 15, play.packed)


class ActionTable:
    """The fixed action space of one rules preset: index 0 is PASS, then every reading
    ``(kind, top, width, length, size)`` (stars follow from them) split by the number of wild
    cards the play uses, in a fixed order (docs/rl.md; frozen per :data:`ACTION_TABLE_VERSION`
    by the golden files ``tests/data/action_table_v*.json``)."""

    def __init__(self, rules: Rules | str) -> None:
        self.version = ACTION_TABLE_VERSION
        self.rules: Rules = as_rules(rules)
        self.flags: int = self.rules.flags
        actions = _enumerate_actions(self.flags)
        self.readings: np.ndarray = np.zeros((len(actions) + 1, 7), dtype=np.int16)
        """``(A, 7)``: (kind, top, width, length, stars, size, wilds) of each action (PASS: 0)."""
        self.readings[1:] = np.array(actions, dtype=np.int16)
        self.tags: np.ndarray = np.array([NO_TABLE] + [pack_tag(*a) for a in actions],
                                         dtype=np.uint32)
        """Tag of each action; 0 for PASS."""
        keys = self.tags.astype(np.int64) & KEY_MASK
        if len(np.unique(keys)) != len(keys):  # pragma: no cover - construction invariant
            raise AssertionError("action table keys collide")
        self._order = np.argsort(keys, kind="stable")
        self._sorted = keys[self._order]
        self._index = {int(k): i for i, k in enumerate(keys)}

    def __len__(self) -> int:
        return int(self.tags.shape[0])

    def __repr__(self) -> str:
        return f"ActionTable({self.rules.name!r}, version={self.version}, actions={len(self)})"

    # -- encode / decode -----------------------------------------------------------------------
    def encode(self, play: Play | str | int | None) -> int:
        """The action index of a play, its card text (read under the table's rules, as
        :meth:`Play.parse` reads it) or tag (its reading and wild count; 0 for PASS /
        ``None``). Raises ``KeyError`` for a reading not in the table, ``ValueError`` for a
        tag that is no integer of 0..2**31-1."""
        if isinstance(play, str):
            play = Play.parse(play, self.rules)
        if play is None or (isinstance(play, Play) and not play):
            return 0
        tag = play.tag if isinstance(play, Play) else as_int(
            play, "play (a Play, its card text or a tag)", 0, _MAX_TAG)
        i = self._index.get(tag & KEY_MASK)
        if i is None or int(self.tags[i]) != tag:  # stars included, as in _lookup
            raise KeyError(f"reading not in the action table: tag {tag:#x}")
        return i

    def _lookup(self, tags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(index, found)`` of int64 tags: the action of each, and whether it is exactly that
        action's tag (stars included: a tag whose stars disagree is no reading)."""
        pos = np.minimum(np.searchsorted(self._sorted, tags & KEY_MASK), len(self._sorted) - 1)
        idx = self._order[pos]
        return idx, self.tags[idx].astype(np.int64) == tags

    def has_tags(self, tags: np.ndarray) -> np.ndarray:
        """``(M,)`` bool: which of the int64 ``tags`` are the tag of an action (0 is PASS)."""
        return self._lookup(tags)[1]

    def encode_tags(self, tags: Any) -> np.ndarray:
        """Vectorised :meth:`encode` of an integer array of tags (0 → PASS); ``KeyError`` if
        any reading is missing, ``ValueError`` for a value that is no tag."""
        t = _tag_array(tags, "tags")
        idx, found = self._lookup(t)
        if not found.all():
            raise KeyError(f"readings not in the action table: tags {t[~found][:5]}")
        return idx.astype(np.int32)

    def _action(self, index: object) -> int:
        """The one check of an action index: a plain int of ``0..len-1``, else
        :class:`ActionIndexError` (``-1`` is not the last action, ``True`` not action 1)."""
        return as_int(index, "action index", 0, len(self) - 1, ActionIndexError)

    def decode(self, index: int) -> dict[str, Any]:
        """The reading of an action: ``kind`` (a :class:`Kind`, ``None`` for PASS), ``top``,
        ``width``, ``length``, ``stars``, ``size``, ``wilds`` and its ``tag``."""
        index = self._action(index)
        if index == 0:
            return {"kind": None, "top": 0, "width": 0, "length": 0, "stars": 0, "size": 0,
                    "wilds": 0, "tag": NO_TABLE}
        k, t, w, ln, s, z, nw = (int(v) for v in self.readings[index])
        return {"kind": Kind(k), "top": t, "width": w, "length": ln, "stars": s, "size": z,
                "wilds": nw, "tag": int(self.tags[index])}

    def describe(self, index: int) -> str:
        """Human text of an action: ``'pair of 5 (2 cards), 1 wild'``, ``'pass'``."""
        d = self.decode(index)
        if d["kind"] is None:
            return "pass"
        text = Play._from_codes(0, d["tag"]).describe()
        return text + (f", {d['wilds']} wild" + "s" * (d["wilds"] > 1) if d["wilds"] else "")

    # -- masks and plays -----------------------------------------------------------------------
    def mask(self, hands: Any, table: Any = None, wilds: str = "all") -> np.ndarray:
        """``(N, A)`` bool: the actions each hand may take (the actions of its legal plays
        listed with ``wilds``; PASS when answering, i.e. when the hand's table tag is not 0)."""
        w = _words(hands)
        tables = _tables(table, w.shape[0], self.rules)
        off, _, tags = _core.generate_batch(w, self.flags, tables, _fewest(wilds))
        batch = PlayBatch(off, np.empty(0, np.uint64), tags)
        out = np.zeros((w.shape[0], len(self)), dtype=bool)
        out[batch.hand_index, self.encode_tags(batch.tags)] = True
        out[:, 0] = tables != NO_TABLE
        return out

    def play_for(self, hand: Hand | str, action: int, table: Play | str | None = None) -> Play:
        """The concrete play for ``action`` from ``hand`` (the rule of :func:`_choice_key`:
        fewest big jokers, then lowest cards), or :data:`PASS`. Raises ``ValueError`` if the
        action is not legal here."""
        from .plays import legal_plays as per_hand

        action = self._action(action)
        if action == 0:
            if table is None:
                raise ValueError("PASS is not legal when leading (R4)")
            return PASS
        want = int(self.tags[action]) & KEY_MASK
        plays = [p for p in per_hand(hand, self.rules, table) if p.tag & KEY_MASK == want]
        if not plays:
            raise ValueError(f"action {action} ({self.describe(action)}) is not legal here")
        return min(plays, key=_choice_key)


@lru_cache(maxsize=32)
def _table_for(rules: Rules) -> ActionTable:
    return ActionTable(rules)


def action_table(rules: Rules | str) -> ActionTable:
    """The (cached) action table of a rules object or preset name."""
    return _table_for(as_rules(rules))


def legal_action_mask(
    hands: Any, rules: Rules | str, table: Any = None, wilds: str = "all"
) -> np.ndarray:
    """``action_table(rules).mask(hands, table, wilds)``."""
    return action_table(rules).mask(hands, table, wilds)


# -- observations ------------------------------------------------------------------------------
OBS_VERSION = 2
"""Version of the observation layout (:data:`OBS_FIELDS`); bumped on any change."""

OBS_FIELDS: tuple[tuple[str, int], ...] = (
    ("hand", 15),             # own counts per rank (R1 order)
    ("partner_hand", 15),     # partner's counts under 双明 (R6), else 0
    ("partner_visible", 1),   # 1 under 双明
    ("cards_left", 4),        # per relative seat: self, next, partner, previous
    ("played", 60),           # 4 × 15: cards each relative seat has played, per rank
    ("place", 4),             # per relative seat: finishing place 1..4, 0 while it has cards
    ("leading", 1),           # 1 when the observing seat is to lead (no table play)
    ("table_cards", 15),      # counts of the table play (0 when none)
    ("table_reading", 7),     # kind+1 (0: none), top, width, length, stars, size, wilds
    ("table_owner", 4),       # one-hot relative seat of the table play's owner
    ("passes", 1),            # passes since the table play
    ("bombs", 32),            # 4 × 8: bombs each relative seat played, by grade (bomb_grade)
    ("revealed_rank", 15),    # one-hot rank of the 明牌 card (R7; 0 with a random leader)
    ("revealed_holder", 4),   # one-hot relative seat that held it (the first leader)
    ("twin_holder", 4),       # one-hot relative seat that held its twin after the swap
)
"""Layout of an observation (docs/rl.md, "Observations"): (name, length) in order; float32,
raw counts. Seats are relative to the observing seat: 0 itself, 1 next, 2 partner, 3 previous."""
OBS_SIZE = sum(n for _, n in OBS_FIELDS)
OBS_OFFSETS: dict[str, int] = {
    name: sum(n for _, n in OBS_FIELDS[:i]) for i, (name, _) in enumerate(OBS_FIELDS)
}
"""Start of each field in the observation vector."""


def bomb_grade(tag: int) -> int:
    """The ``bombs`` field's column (0..7) of a bomb play: in star presets its stars − 4,
    capped at 7 (≥ 11★); in classic (no stars) its size − 4 for an X相 bomb, 7 for 天王.
    A value that is no bomb's tag is an :class:`~shuangkou.errors.ArgumentError`."""
    kind, _, _, _, stars, size, _ = unpack_tag(as_int(tag, "tag", 1, _MAX_TAG))
    if kind < Kind.BOMB or kind > Kind.CHAIN_BOMB or size < 3:
        raise ArgumentError(f"tag {tag:#x} is not a bomb's (kind {kind})")
    if stars:
        return min(stars, 11) - 4
    return 7 if kind == Kind.FOUR_JOKERS else min(size, 11) - 4


def observation(game: Any, seat: int) -> np.ndarray:
    """What ``seat`` sees in a :class:`~shuangkou.game.Game`, as a ``float32`` vector
    (layout :data:`OBS_FIELDS`, version :data:`OBS_VERSION`).

    This is the pure-Python reference: it reads the game's public history. ``shuangkou.rl``
    writes the same bytes from its incrementally updated C state."""
    seat = as_seat(seat)
    if not hasattr(game, "hand_ranks"):
        raise TypeError(f"game must be a Game, not {type(game).__name__}")
    obs = np.zeros(OBS_SIZE, np.float32)

    def put(name: str, values: Any, at: int = 0) -> None:
        v = np.asarray(values, np.float32).reshape(-1)
        start = OBS_OFFSETS[name] + at
        obs[start:start + v.shape[0]] = v

    def one_hot(name: str, abs_seat: int | None) -> None:
        if abs_seat is not None:
            obs[OBS_OFFSETS[name] + ((abs_seat - seat) & 3)] = 1

    rel = [(seat + k) & 3 for k in range(4)]
    put("hand", game.hand_ranks(seat).counts)
    if game.rules.partner_visible:
        put("partner_hand", game.hand_ranks(seat ^ 2).counts)
        put("partner_visible", [1])
    put("cards_left", [game.cards_left(s) for s in rel])
    for a in game.actions:
        if a.kind == "play" and a.play is not None:
            k = (a.seat - seat) & 3
            obs[OBS_OFFSETS["played"] + 15 * k:][:15] += a.play.cards.counts
            if a.play.is_bomb:
                obs[OBS_OFFSETS["bombs"] + 8 * k + bomb_grade(a.play.tag)] += 1
    for place, s in enumerate(game.places):
        put("place", [place + 1], (s - seat) & 3)
    table = game.table
    put("leading", [float(table is None and game.to_act == seat)])
    if table is not None:
        put("table_cards", table.cards.counts)
        k, t, w, ln, st, z, nw = unpack_tag(table.tag)
        put("table_reading", [k + 1, t, w, ln, st, z, nw])
        one_hot("table_owner", game.table_owner)
        put("passes", [game.passes])
    if game.revealed is not None:
        obs[OBS_OFFSETS["revealed_rank"] + CARD_RANKS[game.revealed]] = 1
        one_hot("revealed_holder", game.first_leader)
        one_hot("twin_holder", _twin_holder(game))
    return obs


def _twin_holder(game: Any) -> int:
    """The seat holding the other copy of the revealed card after the 明牌 swap (R7): the
    leader itself if it holds both, else the leader's partner."""
    a, b = face_copies(card_face(game.revealed))
    twin = b if game.revealed == a else a
    return int(game.first_leader if twin in game.initial_hands[game.first_leader]
               else game.first_leader ^ 2)
