"""Decomposition and hint benchmarks (docs/solver.md "Decomposition", "Hints"): CPU time of
``decompose`` (the 手数 of a hand, the plain count) and of ``hints`` leading and answering,
median and worst over seeded 27-card deals of every preset plus the hands the first
decomposition search found hardest; beside them, in the same run, the first search
(``_solve.reference_costs``, exponential: capped at ``--cap`` sub-hands) on the same hands::

    python benchmarks/bench_hints.py                   # 1,000 deals a preset
    python benchmarks/bench_hints.py --deals 200 --old 50 --cap 2000000
    python benchmarks/bench_hints.py --climb           # the hand with the most legal plays
    python benchmarks/bench_hints.py --whole-deck      # decompose all 108 cards in one hand
    python benchmarks/bench_hints.py --instructions    # callgrind: the largest hint call

Times are CPU seconds of this process (the machine is shared: wall clock is noisy). Answering:
the hand answers one of ``TABLES`` in turn (a single, a pair, a straight, a pair chain, a
triple, a bomb; the next one when the deck lacks its cards), played by the seat before it.
The old hints are the old damage computation (``reference_costs`` of every ``hand − play``
from one memo) on the first ``--old`` deals; a hand past the cap counts as the cap's time, so
its ratio is a lower bound. ``--climb`` hill-climbs over 27-card hands (one card moved at a
time, kept when the count does not drop) for the most legal plays, from the known worst hand and
random starts: the size of the largest hint call. ``--whole-deck`` times ``decompose`` of all
108 cards in one hand (far past a deal: the decomposition's worst case, bounded by
``_solve.DECO_MAX_NODES``), best of three per preset. ``--instructions`` counts, under
callgrind (``instructions.py``: exact, whatever the load), the instructions of the largest
hint call: leading with the 千变 hand of the most legal plays (the first of ``WORST``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import instructions  # type: ignore[import-not-found]
from deals import deals  # type: ignore[import-not-found]
from shuangkou import Hand, Play, Rules, State, _solve, count_plays, decompose, hints, legal_plays
from shuangkou._reference_game import RefState
from shuangkou.cards import MAX_COPIES

TABLES = ("5", "7 7", "3 4 5 6 7", "4 4 5 5 6 6", "8 8 8", "6 6 6 6")
WORST = {
    "baibian": ["33445566778899TTJJQQKKAXXDD"],
    "qianbian": ["33445566778899TTJJQQKKA X X D D", "3 44556677889 9TTJJQQKKAA XXDD",
                 str(State.deal("qianbian", 8).hand(3))],
}


def cpu(fn: object, *args: object) -> tuple[float, object]:
    t = time.process_time()
    out = fn(*args)  # type: ignore[operator]
    return time.process_time() - t, out


def state(rules: Rules, hand: Hand, table: str | None) -> RefState:
    """Seat 0 holds ``hand``, the others one card each of a rank it holds least of."""
    spare = min(range(13), key=lambda r: hand.counts[r])
    other = Hand.from_counts([int(r == spare) for r in range(15)])
    hands = [hand, other, other, other]
    if table is None:
        return RefState.from_position(rules, hands, 0)
    return RefState.from_position(rules, hands, 0, table=Play.parse(table, rules), table_owner=3)


def answering(rules: Rules, hand: Hand, i: int) -> RefState:
    """Seat 0 answering ``TABLES[i]``, or the next table whose cards the deck still has."""
    for k in range(len(TABLES)):
        try:
            return state(rules, hand, TABLES[(i + k) % len(TABLES)])
        except ValueError:
            continue
    raise ValueError(f"no table fits beside {hand}")


def ms(xs: list[float]) -> str:
    """Median and worst in ms; dashes when nothing was timed (``--old 0``, a preset without
    worst hands)."""
    if not xs:
        return f"{'-':>7} {'-':>8}"
    return f"{1e3 * statistics.median(xs):7.3f} {1e3 * max(xs):8.2f}"


def ratio(old: list[float], new: list[float]) -> str:
    """The old search's median time over the new one's on the same hands, or a dash."""
    return f"{statistics.median(old) / statistics.median(new):6.0f}" if old else f"{'-':>6}"


def run(preset: str, n: int, n_old: int, cap: int) -> dict[str, object]:
    rules = Rules.preset(preset)
    hands = [Hand.from_packed(h) for h in deals(n)]
    hands += [Hand.parse(t) for t in WORST.get(preset, [])]
    dec, lead, answer, old_dec, old_hint = [], [], [], [], []
    over_dec = over_hint = 0
    for i, hand in enumerate(hands):
        dec.append(cpu(decompose, hand, rules)[0])
        lead.append(cpu(hints, state(rules, hand, None))[0])
        answer.append(cpu(hints, answering(rules, hand, i))[0])
        if i < n_old or i >= n:
            t, c = cpu(_solve.reference_costs, hand.packed, rules.flags, False, [0], cap)
            old_dec.append(t)
            over_dec += c is None
            words = [p.packed for p in legal_plays(hand, rules, None)]
            t, c = cpu(_solve.reference_costs, hand.packed, rules.flags, True, words, cap)
            old_hint.append(t)
            over_hint += c is None
    return {"dec": dec, "lead": lead, "answer": answer, "old_dec": old_dec,
            "old_hint": old_hint, "over_dec": over_dec, "over_hint": over_hint,
            "n": len(hands), "new_dec_old": dec[:n_old] + dec[n:],
            "new_lead_old": lead[:n_old] + lead[n:]}


def climb(preset: str, starts: int, steps: int) -> None:
    """Print, for each start, the most legal plays (leading) the hill-climb reached."""
    rules = Rules.preset(preset)
    rng = random.Random(1)
    deck = [r for r in range(13) for _ in range(8)] + [13, 13, 14, 14]
    best: tuple[int, str] = (0, "")
    for start in range(starts):
        counts = [0] * 15
        if start == 0:
            counts = list(Hand.parse(WORST["qianbian"][0]).counts)
        else:
            for r in rng.sample(deck, 27):
                counts[r] += 1
        cur = count_plays(Hand.from_counts(counts), rules)
        for _ in range(steps):
            a, b = rng.randrange(15), rng.randrange(15)
            if a == b or counts[a] == 0 or counts[b] >= (8 if b < 13 else 2):
                continue
            counts[a] -= 1
            counts[b] += 1
            n = count_plays(Hand.from_counts(counts), rules)
            if n >= cur:
                cur = n
            else:
                counts[a] += 1
                counts[b] -= 1
        print(f"start {start:2}: {cur:6} plays  {Hand.from_counts(counts)}", flush=True)
        best = max(best, (cur, str(Hand.from_counts(counts))))
    print(f"most: {best[0]} plays  {best[1]}")


def largest_hint_calls(n: int) -> int:
    """``n`` hint calls leading with the 千变 hand of the most legal plays; returns ``n``."""
    position = state(Rules.preset("qianbian"), Hand.parse(WORST["qianbian"][0]), None)
    for _ in range(n):
        hints(position)
    return n


def whole_deck(preset: str) -> None:
    """Print the CPU time of decomposing the whole deck as one hand (best of three)."""
    hand, rules = Hand.from_counts(list(MAX_COPIES)), Rules.preset(preset)
    times = []
    for _ in range(3):
        t0 = time.process_time()
        d = decompose(hand, rules)
        times.append(time.process_time() - t0)
    print(f"{preset:9} all 108 cards in one hand: {d.count} plays, decompose "
          f"{min(times) * 1e3:,.0f} ms CPU (best of 3)", flush=True)


def main() -> None:
    if instructions.count_main(sys.argv[1:], {"largest hint call (千变)": largest_hint_calls}):
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", nargs="*", default=["classic", "baibian", "jj", "qianbian"])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--old", type=int, default=100, help="deals also timed with the old search")
    ap.add_argument("--cap", type=int, default=3_000_000, help="the old search's sub-hands")
    ap.add_argument("--climb", action="store_true", help="search the hand with the most plays")
    ap.add_argument("--whole-deck", action="store_true",
                    help="time decompose of all 108 cards in one hand, nothing else")
    ap.add_argument("--instructions", action="store_true",
                    help="instructions of the largest hint call under callgrind, nothing else")
    args = ap.parse_args()
    if args.instructions:
        sys.exit(instructions.report(Path(__file__), {"largest hint call (千变)": ("call", 1, 2)}))
    if args.whole_deck:
        for preset in args.rules:
            whole_deck(preset)
        return
    if args.climb:
        for preset in args.rules:
            climb(preset, 2, 20) if instructions.SMALL else climb(preset, 12, 3000)
        return
    print("CPU ms, median and worst; old = the first search on the first --old deals and the "
          "worst hands (x: over the cap)")
    print(f"{'preset':9} {'hands':>5} | {'decompose':>16} | {'hints lead':>16} | "
          f"{'hints answer':>16} || {'old decompose':>16} {'x':>2} {'ratio':>6} | "
          f"{'old hints lead':>16} {'x':>2} {'ratio':>6}")
    for preset in args.rules:
        r = run(preset, args.deals, args.old, args.cap)
        rd = ratio(r["old_dec"], r["new_dec_old"])  # type: ignore[arg-type]
        rh = ratio(r["old_hint"], r["new_lead_old"])  # type: ignore[arg-type]
        print(f"{preset:9} {r['n']:5} | {ms(r['dec'])} | {ms(r['lead'])} | {ms(r['answer'])} || "  # type: ignore[arg-type]
              f"{ms(r['old_dec'])} {r['over_dec']:2} {rd} | "  # type: ignore[arg-type]
              f"{ms(r['old_hint'])} {r['over_hint']:2} {rh}", flush=True)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
