"""The text table the PettingZoo and Gymnasium envs render (``render_mode="ansi"`` returns it,
``"human"`` prints it). It is the whole table, every hand shown: a view for people watching,
not an observation."""

from __future__ import annotations

from ..cards import Hand
from ..plays import Play
from .vecenv import VecEnv


def table_text(vec: VecEnv, i: int = 0) -> str:
    """Row ``i`` of ``vec`` as a small text table: each seat's cards left and hand, the table
    play and its owner, the passes, the seats out, the seat to act."""
    to_act, word, tag, owner, passes, places = vec.position(i)
    hands = vec.hands(i)
    head = f"{vec.rules.name} · deal {int(vec.last.deal_index[i])}"
    head += " · over" if to_act < 0 else f" · seat {to_act} to act"
    lines = [head, "seat  left  hand"]
    for s in range(4):
        mark = ">" if s == to_act else " "
        place = f"  (out {places.index(s) + 1})" if s in places else ""
        hand = Hand.from_packed(hands[s])
        lines.append(f"{mark} {s}   {len(hand):>4}  {hand or '-'}{place}")
    if tag:
        play = Play._from_codes(word, tag)
        lines.append(f"table: {play} — {play.describe()} — by seat {owner}, {passes} pass(es)")
    else:
        lines.append("table: empty (free lead)")
    return "\n".join(lines)


def render(vec: VecEnv, render_mode: str | None) -> str | None:
    """What an env's ``render()`` does: ``"ansi"`` returns :func:`table_text`, ``"human"``
    prints it."""
    text = table_text(vec)
    if render_mode == "human":
        print(text)
        return None
    return text
