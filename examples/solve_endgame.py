"""Solve a Shuangkou endgame exactly, then ask for hints and let PIMC play it blind.

    python examples/solve_endgame.py

A 百变 position (docs/position.md): seat 1 is out; seat 3 leads holding 3 5 6, its opponents
hold 3 5 (seat 0) and 3 3 6 (seat 2). The solver sees all hands; PIMC sees only its own and
samples the rest (docs/solver.md).
"""

from __future__ import annotations

import shuangkou as sk

TEXT = "baibian 35/-/336/356 3 - 0 1 -/-/-/- -"


def main() -> None:
    state = sk.State.parse(TEXT, "baibian")
    sol = sk.solve(state, all_values=True)  # every move's exact value, not only the best
    print(f"position: {TEXT}")
    print(sol)
    for play, value in sol.values:
        print(f"  {str(play) if play else 'pass':<6} {value:+d}")
    print("hints:", ", ".join(str(p) for p in sk.hints(state)))
    # the same position as a game, then the line played out
    for play in sol.pv:
        state.play(play)
    assert state.result is not None
    print("after the principal variation:", state.result.units, "units per seat")

    # a decomposition: the fewest plays that empty a hand
    rules = sk.Rules.preset("baibian")
    print(sk.decompose("3 4 5 6 7 7 7 7 BJ", rules, keep_bombs=True))

    # PIMC against greedy on one seeded deal
    game, _ = sk.sim.play_deal(rules, 7, [sk.pimc_policy(worlds=4, max_nodes=200), "greedy"] * 2)
    assert game.result is not None
    print("PIMC (seats 0, 2) vs greedy, deal 7:", game.result.units)


if __name__ == "__main__":
    main()
