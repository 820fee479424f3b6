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
an action come from :meth:`ActionTable.play_for`, the fewest-wild way), and the exact
variable-length list of plays with their card vectors.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from . import _core
from ._check import as_int
from .cards import MAX_COPIES, N_RANKS, Hand
from .errors import ArgumentError
from .plays import NO_TABLE, PASS, Kind, Play, _fewest, _table_tag, pack_tag, unpack_tag
from .rules import FLAG_STARS, FLAG_UNEVEN, FLAG_WILD_BJ, FLAG_WILD_SJ, Rules, as_rules

__all__ = [
    "ACTION_TABLE_VERSION",
    "OBS_FIELDS",
    "OBS_VERSION",
    "ActionTable",
    "PlayBatch",
    "action_table",
    "as_counts",
    "count_plays",
    "legal_action_mask",
    "legal_plays",
    "observation",
    "pack",
    "play_vectors",
    "unpack",
]

ACTION_TABLE_VERSION = 1
"""Version of the action table layout; bumped on any change of order or content."""

_SHIFTS = (4 * np.arange(N_RANKS)).astype(np.uint64)
_MAX_TAG = (1 << 31) - 1
_MAX = np.array(MAX_COPIES, dtype=np.int64)
KEY_MASK = 0x0FC1FFFF
"""Tag bits that identify a reading in the action table: kind, top, width, length, size (not
stars, which follow from them, nor wilds)."""


# -- hands -------------------------------------------------------------------------------------
def as_counts(hands: Any) -> np.ndarray:
    """``(N, 15)`` uint8 counts from an ``(N, 15)`` array, or a sequence of :class:`Hand`,
    card text or packed ints. Validated (R1: naturals ≤ 8, jokers ≤ 2)."""
    if isinstance(hands, np.ndarray) and hands.ndim == 2:
        arr = _integer_array(hands, "hands")
    elif isinstance(hands, (Hand, str, int, np.integer)):
        return as_counts([hands])
    else:
        rows = []
        for h in hands:
            if isinstance(h, (int, np.integer)):
                h = Hand.from_packed(h)
            elif not isinstance(h, Hand):
                h = Hand.parse(h) if isinstance(h, str) else Hand.from_counts(list(h))
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
    """``(N, 15)`` uint8 counts of packed words (no validation)."""
    w = np.asarray(words, dtype=np.uint64).reshape(-1)
    return ((w[:, None] >> _SHIFTS) & np.uint64(15)).astype(np.uint8)


play_vectors = unpack
"""Per-play card vectors: ``(M, 15)`` counts of packed play words."""


def _integer_array(a: Any, what: str) -> np.ndarray:
    """``a`` as a numpy array of an integer dtype: floats, bools and objects are refused, not
    truncated (a count of 7.9 is an error, not 7)."""
    arr = np.asarray(a)
    if arr.dtype.kind not in "iu":
        raise ArgumentError(f"{what} must be an integer array, not dtype {arr.dtype}")
    return arr


def _tables(table: Any, n: int, rules: Rules) -> np.ndarray:
    """Per-hand table tags: None (leading), one Play / card text / tag for all, or ``(N,)``.
    Tags are checked to fit the kernel's 31 bits before any cast (``2**32 + tag`` must not
    wrap to ``tag``); the kernel then checks each is a reading."""
    if table is None or isinstance(table, (str, Play)):
        return np.full(n, _table_tag(table, rules), dtype=np.uint32)
    if isinstance(table, (int, np.integer)):
        return np.full(n, as_int(table, "table tag", 0, _MAX_TAG), dtype=np.uint32)
    raw = _integer_array(table, "tables").reshape(-1)
    if raw.shape[0] != n:
        raise ArgumentError(f"expected {n} table tags, got {raw.shape[0]}")
    if raw.size and (int(raw.min()) < 0 or int(raw.max()) > _MAX_TAG):
        i = int(np.argmax((raw < 0) | (raw > _MAX_TAG)))
        raise ArgumentError(f"tables[{i}] = {int(raw[i])} is not a reading tag (0..2**31-1)")
    return np.ascontiguousarray(raw, dtype=np.uint32)


def _words(hands: Any) -> np.ndarray:
    return np.ascontiguousarray(pack(hands))


def count_plays(hands: Any, rules: Rules, table: Any = None, wilds: str = "all") -> np.ndarray:
    """``(N,)`` int64: how many plays each hand has that beat its table (every play when
    leading), as :func:`shuangkou.count_plays` per hand."""
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
        a, b = int(self.offsets[i]), int(self.offsets[i + 1])
        return [Play._from_codes(int(w), int(t)) for w, t in zip(self.words[a:b], self.tags[a:b])]


def legal_plays(hands: Any, rules: Rules, table: Any = None, wilds: str = "all") -> PlayBatch:
    """The plays of many hands in one kernel call (same plays, same order as
    :func:`shuangkou.legal_plays` per hand)."""
    w = _words(hands)
    off, words, tags = _core.generate_batch(w, rules.flags, _tables(table, w.shape[0], rules),
                                           _fewest(wilds))
    return PlayBatch(off, words, tags)


# -- the action table --------------------------------------------------------------------------
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


class ActionTable:
    """The fixed action space of one rules preset: index 0 is PASS, then every reading
    ``(kind, top, width, length, size)`` (stars follow from them) in a fixed order."""

    def __init__(self, rules: Rules) -> None:
        self.version = ACTION_TABLE_VERSION
        self.rules = rules
        self.flags: int = rules.flags
        readings = _enumerate_readings(self.flags)
        self.readings: np.ndarray = np.zeros((len(readings) + 1, 6), dtype=np.int16)
        self.readings[1:] = np.array(readings, dtype=np.int16)
        tags = [NO_TABLE] + [pack_tag(k, t, w, ln, s, z, 0) for k, t, w, ln, s, z in readings]
        self.tags: np.ndarray = np.array(tags, dtype=np.uint32)
        """Tag (wilds = 0) of each action; 0 for PASS."""
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
    def encode(self, play: Play | int | None) -> int:
        """The action index of a play's reading (0 for PASS / ``None``). Raises ``KeyError``
        for a reading not in the table."""
        if play is None or (isinstance(play, Play) and not play):
            return 0
        tag = play.tag if isinstance(play, Play) else int(play)
        if tag == NO_TABLE:
            return 0
        return self._index[tag & KEY_MASK]

    def encode_tags(self, tags: Any) -> np.ndarray:
        """Vectorised :meth:`encode` of an array of tags (0 → PASS); ``KeyError`` if any
        reading is missing."""
        k = np.asarray(tags, dtype=np.int64) & KEY_MASK
        pos = np.searchsorted(self._sorted, k)
        pos = np.minimum(pos, len(self._sorted) - 1)
        idx = self._order[pos]
        bad = self._sorted[pos] != k
        if bad.any():
            raise KeyError(f"readings not in the action table: tags {np.asarray(tags)[bad][:5]}")
        return idx.astype(np.int32)

    def decode(self, index: int) -> dict[str, Any]:
        """The reading of an action: ``kind`` (a :class:`Kind`, ``None`` for PASS), ``top``,
        ``width``, ``length``, ``stars``, ``size`` and its ``tag`` (wilds 0)."""
        if not 0 <= index < len(self):
            raise IndexError(f"action {index} out of range 0..{len(self) - 1}")
        if index == 0:
            return {"kind": None, "top": 0, "width": 0, "length": 0, "stars": 0, "size": 0,
                    "tag": NO_TABLE}
        k, t, w, ln, s, z = (int(v) for v in self.readings[index])
        return {"kind": Kind(k), "top": t, "width": w, "length": ln, "stars": s, "size": z,
                "tag": int(self.tags[index])}

    def describe(self, index: int) -> str:
        if index == 0:
            return "pass"
        d = self.decode(index)
        return Play._from_codes(0, d["tag"]).describe()

    # -- masks and plays -----------------------------------------------------------------------
    def mask(self, hands: Any, table: Any = None, wilds: str = "all") -> np.ndarray:
        """``(N, A)`` bool: the actions each hand may take (readings of its legal plays; PASS
        when answering, i.e. when the hand's table tag is not 0)."""
        w = _words(hands)
        tables = _tables(table, w.shape[0], self.rules)
        off, _, tags = _core.generate_batch(w, self.flags, tables, _fewest(wilds))
        batch = PlayBatch(off, np.empty(0, np.uint64), tags)
        out = np.zeros((w.shape[0], len(self)), dtype=bool)
        out[batch.hand_index, self.encode_tags(batch.tags)] = True
        out[:, 0] = tables != NO_TABLE
        return out

    def play_for(self, hand: Hand | str, action: int, table: Play | str | None = None) -> Play:
        """The concrete play for ``action`` from ``hand``: the fewest-wild play with that reading
        (``wilds="fewest"``), or :data:`PASS`. Raises ``ValueError`` if illegal."""
        from .plays import legal_plays as per_hand

        if action == 0:
            if table is None:
                raise ValueError("PASS is not legal when leading (R4)")
            return PASS
        want = int(self.tags[action]) & KEY_MASK
        for p in per_hand(hand, self.rules, table, wilds="fewest"):
            if p.tag & KEY_MASK == want:
                return p
        raise ValueError(f"action {action} ({self.describe(action)}) is not legal here")


@lru_cache(maxsize=32)
def _table_for(rules: Rules) -> ActionTable:
    return ActionTable(rules)


def action_table(rules: Rules | str) -> ActionTable:
    """The (cached) action table of a rules object or preset name."""
    return _table_for(as_rules(rules))


def legal_action_mask(
    hands: Any, rules: Rules, table: Any = None, wilds: str = "all"
) -> np.ndarray:
    """``action_table(rules).mask(hands, table, wilds)``."""
    return action_table(rules).mask(hands, table, wilds)


# -- observations ------------------------------------------------------------------------------
OBS_VERSION = 1
OBS_FIELDS: tuple[tuple[str, int], ...] = (
    ("hand", 15),            # own counts
    ("partner_hand", 15),    # partner's counts under 双明 (R6), else 0
    ("partner_visible", 1),
    ("played", 15),          # cards played so far by all seats, per rank
    ("cards_left", 4),       # per seat, relative: self, next, partner, previous
    ("finished", 4),         # per relative seat: 1 if out
    ("leading", 1),          # 1 when the seat to act leads
    ("table_cards", 15),     # counts of the table play
    ("table_reading", 6),    # kind+1 (0: none), top, width, length, stars, size
    ("table_owner", 4),      # one-hot relative seat of the table's owner
    ("bombs_played", 4),     # per relative seat
    ("to_act", 4),           # one-hot relative seat to act
)
"""Layout of :func:`observation`: (name, length) in order; all float32, raw counts."""
OBS_SIZE = sum(n for _, n in OBS_FIELDS)


def observation(game: Any, seat: int) -> np.ndarray:
    """A fixed-size ``float32`` vector of what ``seat`` sees in a
    :class:`~shuangkou.game.Game` (layout :data:`OBS_FIELDS`, version :data:`OBS_VERSION`);
    seats are relative to ``seat``."""
    if seat not in range(4):
        raise ValueError(f"seat must be 0..3, got {seat!r}")
    parts: dict[str, np.ndarray] = {}
    rel = [(seat + k) & 3 for k in range(4)]
    parts["hand"] = np.array(game.hand_ranks(seat).counts, np.float32)
    vis = bool(game.rules.partner_visible)
    parts["partner_hand"] = (np.array(game.hand_ranks(seat ^ 2).counts, np.float32) if vis
                             else np.zeros(15, np.float32))
    parts["partner_visible"] = np.array([float(vis)], np.float32)
    played = np.zeros(15, np.float32)
    for a in game.actions:
        if a.kind == "play" and a.play is not None:
            played += np.array(a.play.cards.counts, np.float32)
    parts["played"] = played
    counts = game.card_counts
    parts["cards_left"] = np.array([counts[s] for s in rel], np.float32)
    places = set(game.places)
    parts["finished"] = np.array([float(s in places) for s in rel], np.float32)
    table = game.table
    parts["leading"] = np.array([float(table is None)], np.float32)
    if table is not None:
        parts["table_cards"] = np.array(table.cards.counts, np.float32)
        k, t, w, ln, s, z, _ = unpack_tag(table.tag)
        parts["table_reading"] = np.array([k + 1, t, w, ln, s, z], np.float32)
    else:
        parts["table_cards"] = np.zeros(15, np.float32)
        parts["table_reading"] = np.zeros(6, np.float32)
    owner = np.zeros(4, np.float32)
    if game.table_owner is not None:
        owner[(game.table_owner - seat) & 3] = 1
    parts["table_owner"] = owner
    parts["bombs_played"] = np.array([len(game.bombs_played(s)) for s in rel], np.float32)
    to_act = np.zeros(4, np.float32)
    if game.to_act is not None:
        to_act[(game.to_act - seat) & 3] = 1
    parts["to_act"] = to_act
    return np.concatenate([parts[name] for name, _ in OBS_FIELDS])
