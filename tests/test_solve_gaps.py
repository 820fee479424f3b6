"""Shortened gaps in the table key while chains can still be formed (docs/solver.md "Search",
SV_F_GAPS): two positions whose hands differ only in how long a long gap of the ranks 3..A is
get one key, and they are the same game (the same value, the same values of their moves)."""

from __future__ import annotations

import random

from shuangkou import Rules, State
from shuangkou import _solve
from tests.conftest import PRESET_NAMES

RANKS = "3456789TJQKA2"
WILD_NIBBLES = {"classic": (), "baibian": (14,), "jj": (14,), "qianbian": (13, 14)}  # R3, R6
NO_GAPS = [t for t in _solve.TECHNIQUES if t != "gaps"]


def _nib(x: int, r: int) -> int:
    return (x >> (4 * r)) & 15


def _gaps(held: list[bool]) -> list[tuple[int, int]]:
    """The runs of ranks 3..A nobody holds: (first rank, length), lowest first, the runs at
    both ends included (length 0 where a held rank is at the end)."""
    runs, start = [], 0
    for r in range(12):
        if held[r]:
            runs.append((start, r - start))
            start = r + 1
    runs.append((start, 12 - start))
    return runs


def _held(state: State) -> list[bool]:
    top = int(state.table.top) if state.table is not None else 99
    return [any(_nib(state.hand(t).packed, r) for t in range(4)) or r == top for r in range(12)]


def _wilds(state: State, preset: str) -> int:
    return max(sum(_nib(state.hand(t).packed, r) for r in WILD_NIBBLES[preset])
               for t in range(4))


def _keep(gap: int, runs: int, w: int) -> int | None:
    """The length a gap is shortened to (None: the gap above the highest held rank, whose
    length counts up to ``w``): ``w`` below the lowest held rank, ``w + 1`` between two."""
    return w if gap == 0 else (None if gap == runs - 1 else w + 1)


def form(state: State, preset: str) -> tuple:
    """What the key keeps, computed independently: the hands with each gap at its kept length
    (the one above the highest held rank at most ``w``), the table's reading renumbered."""
    held, w = _held(state), _wilds(state, preset)
    runs = _gaps(held)
    if not any(held):
        runs = []
    index, pos = {}, 0
    for g, (start, length) in enumerate(runs[:-1]):
        pos += min(length, _keep(g, len(runs), w))   # type: ignore[type-var]
        index[start + length] = pos
        pos += 1
    above = min(runs[-1][1], w) if runs else 0
    hands = tuple(
        tuple((index[r], _nib(h, r)) for r in range(12) if _nib(h, r))
        + (_nib(h, 12), _nib(h, 13), _nib(h, 14))
        for h in (state.hand(t).packed for t in range(4)))
    table = state.table
    tag = 0 if table is None else table.tag
    if table is not None and int(table.top) < 12:
        tag -= (int(table.top) - index[int(table.top)]) << 4
    return w, hands, tag, above


def _relabel(text: str, shift: dict[int, int]) -> str:
    """The position ``text`` with each natural rank ``r`` of 3..A in the hands and the table
    moved to ``shift[r]`` (a table play's ranks move with its top)."""
    fields = text.split(" ")

    def move(cards: str, f: object) -> str:
        return "".join(RANKS[f(RANKS.index(c))] if c in RANKS[:12] else c  # type: ignore[operator]
                       for c in cards)

    fields[1] = "/".join("-" if h == "-" else move(h, lambda r: shift[r])
                         for h in fields[1].split("/"))
    if fields[3] != "-":
        cards, seat = fields[3].split("@")
        top = max(RANKS.index(c) for c in cards if c in RANKS[:12]) if any(
            c in RANKS[:12] for c in cards) else None
        by = shift[top] - top if top is not None else 0
        fields[3] = move(cards, lambda r: r + by) + "@" + seat
    return " ".join(fields)


def _moved(state: State, preset: str, rng: random.Random, keep_form: bool) -> State | None:
    """``state`` with one empty rank taken from one gap and put into another (the ranks
    between them move by one): when ``keep_form``, from a gap longer than its kept length to
    one at least as long as its kept length, so the key should not change."""
    held, w = _held(state), _wilds(state, preset)
    if not any(held):
        return None
    runs = _gaps(held)
    n = len(runs)

    def long_enough(g: int, extra: int) -> bool:
        keep = _keep(g, n, w)
        return runs[g][1] >= (w if keep is None else keep) + extra

    sources = [g for g in range(n) if runs[g][1] > 0 and (not keep_form or long_enough(g, 1))]
    if not sources:
        return None
    src = rng.choice(sources)
    targets = [g for g in range(n) if g != src and (not keep_form or long_enough(g, 0))]
    if not targets:
        return None
    dst = rng.choice(targets)
    lo, hi = sorted((runs[src][0], runs[dst][0]))
    step = -1 if src < dst else 1        # the held ranks between the gaps move towards src
    shift = {r: r + (step if lo <= r < hi else 0) for r in range(12)}
    try:
        moved = State.parse(_relabel(str(state), shift), state.rules)
    except ValueError:  # a table play moved off the ranks 3..A
        return None
    return moved


def _chains(state: State) -> bool:
    """Some hand can still form a chain (else the key is the relative one, docs/solver.md)."""
    return any(len(state.hand(t)) > 4
               and not _solve.chainless(state.hand(t).packed, state.rules.flags)
               for t in range(4))


def _positions(rng: random.Random, preset: str) -> list[State]:
    """Small deals where a chain can be formed: seat 0 with a run of 4-5 ranks and one or
    two more cards (a wild among them in the wild presets, R3), the others 1-3 cards,
    sometimes after one lead (no bomb: its ranks stay in R8's record)."""
    out: list[State] = []
    jokers = "XD"
    while len(out) < 12:
        first = rng.randint(0, 7)
        run = RANKS[first : first + rng.randint(4, 5)]
        extra = "".join(rng.choice(RANKS + jokers) for _ in range(rng.randint(1, 2)))
        others = ["".join(rng.choice(RANKS + jokers) for _ in range(rng.randint(1, 3)))
                  for _ in range(3)]
        text = f"{preset} {run + extra}/{'/'.join(others)} 0 - 0 - -/-/-/- -"
        try:
            state = State.parse(text, Rules.preset(preset))
        except ValueError:      # e.g. more jokers than the deck holds
            continue
        if rng.random() < 0.5:
            state.play(rng.choice(list(state.legal())))
            if state.is_over:
                continue
        if str(state).split(" ")[6] == "-/-/-/-" and _chains(state):
            out.append(state)
    return out


def _key(state: State) -> int:
    searcher = _solve.Searcher(state, "score", 10)
    searcher.set_position(state)
    return searcher.table_key


def test_gap_keys_match_their_form_and_the_game() -> None:
    """On random small positions of every preset and one-rank moves of their gaps: the key is
    the same exactly when the independently computed form is, and then the two positions
    have the same value and the same value for each move (searched without the technique)."""
    rng = random.Random("gaps")
    same = differ = 0
    for preset in PRESET_NAMES:
        for state in _positions(rng, preset):
            for keep_form in (True, False, True, False):
                other = _moved(state, preset, rng, keep_form)
                if other is None or not _chains(other):
                    continue
                keys = [_key(s) for s in (state, other)]
                forms = [form(s, preset) for s in (state, other)]
                assert (keys[0] == keys[1]) == (forms[0] == forms[1]), (str(state), str(other))
                if forms[0] != forms[1]:
                    differ += 1
                    continue
                same += 1
                found = []
                for s, techniques in ((state, None), (other, NO_GAPS)):
                    searcher = _solve.Searcher(s, "score", 16, "hand_count", techniques)
                    searcher.set_position(s)
                    _, values, optimal, _, stopped, _ = searcher.root_values(
                        0, 0.0, _solve.EXACT_DEPTH, True, 1)
                    assert not stopped
                    found.append((values[optimal[0]], sorted(values)))
                assert found[0] == found[1], (str(state), str(other))
    assert same >= 40 and differ >= 40, (same, differ)
