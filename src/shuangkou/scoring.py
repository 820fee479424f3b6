"""Outcome and scores of a deal (RULES.md R8), as people read them.

A :class:`Result` holds the outcome (双扣 / 单扣 / 平扣, or 逃跑 for an abandoned deal), every
seat's place and score, and the parts the score was made of (base, multiplier and the bombs
behind it, contributions per bomb, the clamp), with :meth:`Result.breakdown` printing them for
a UI. Everything is counted in *units* (``Result.units``); ``Result.scores`` are units × the
rules' ``base_score`` (R8: "scores are in units of the rules' base score").

The engine computes results. The pure-Python R8 arithmetic the tests check it against is the
private test oracle ``shuangkou._reference_scoring`` (not API; its docstring lists the choices
made where RULES.md is silent).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from .plays import Play

__all__ = ["BombScore", "Outcome", "Result"]


class Outcome(Enum):
    """R8 outcomes; the value is the Chinese name."""

    DOUBLE_WIN = "双扣"
    SINGLE_WIN = "单扣"
    TIE = "平扣"
    ESCAPE = "逃跑"

    @property
    def english(self) -> str:
        return {
            "DOUBLE_WIN": "double win",
            "SINGLE_WIN": "single win",
            "TIE": "tie",
            "ESCAPE": "escape",
        }[self.name]


# -- result ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BombScore:
    """One bomb that counted: who owns it, the bomb, whether it was still held at the end, and
    what it did — the multiplier factor it gave (1 if none) and the units it moved per seat."""

    seat: int
    play: Play
    held: bool
    stars: int
    factor: int
    contribution: tuple[int, int, int, int]


@dataclass(frozen=True)
class Result:
    """The outcome and scores of one deal (R8), with everything needed to explain them.

    Per-seat tuples are indexed by seat 0..3.
    """

    outcome: Outcome
    places: tuple[int, ...]
    """Seats in place order: ``places[0]`` finished first."""
    first_team: tuple[int, int]
    """Team T (头家方): the first finisher and partner."""
    base: tuple[int, int, int, int]
    """Base units per seat, before the multiplier."""
    multiplier: int
    multiplier_bombs: tuple[BombScore, ...]
    """The bomb(s) behind the multiplier: the largest of team T's (R8.1, R8.2, R8.4), every
    bomb with a factor above 1 (R8.3)."""
    contributions: tuple[BombScore, ...]
    """Every bomb that moved contribution units, played or held."""
    unclamped: tuple[int, int, int, int]
    """base × multiplier + contributions, in units, before the cap."""
    units: tuple[int, int, int, int]
    """Final units per seat (after the cap, or the escape penalty)."""
    clamped: tuple[bool, bool, bool, bool]
    escape: int | None
    base_score: int
    rules_name: str = ""
    scoring: str = ""
    notes: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        """'双扣', '单扣', '平扣' or '逃跑'."""
        return self.outcome.value

    @property
    def scores(self) -> tuple[int, int, int, int]:
        """Final score per seat: units × base score."""
        return tuple(u * self.base_score for u in self.units)  # type: ignore[return-value]

    @property
    def place_of(self) -> tuple[int, int, int, int]:
        """Place (1..4) of each seat."""
        out = [0, 0, 0, 0]
        for i, seat in enumerate(self.places):
            out[seat] = i + 1
        return tuple(out)  # type: ignore[return-value]

    @property
    def contribution_totals(self) -> tuple[int, int, int, int]:
        tot = [0, 0, 0, 0]
        for b in self.contributions:
            for s in range(4):
                tot[s] += b.contribution[s]
        return tuple(tot)  # type: ignore[return-value]

    @property
    def zero_sum(self) -> bool:
        return sum(self.units) == 0

    def to_dict(self) -> dict[str, object]:
        """Plain JSON-able form (plays as card text + description)."""

        def bomb(b: BombScore) -> dict[str, object]:
            return {
                "seat": b.seat, "cards": str(b.play.cards), "bomb": b.play.describe(),
                "held": b.held, "stars": b.stars, "factor": b.factor,
                "contribution": list(b.contribution),
            }

        return {
            "outcome": self.outcome.value, "outcome_en": self.outcome.english,
            "places": list(self.places), "first_team": list(self.first_team),
            "base": list(self.base), "multiplier": self.multiplier,
            "multiplier_bombs": [bomb(b) for b in self.multiplier_bombs],
            "contributions": [bomb(b) for b in self.contributions],
            "unclamped": list(self.unclamped), "units": list(self.units),
            "clamped": list(self.clamped), "escape": self.escape,
            "base_score": self.base_score, "scores": list(self.scores),
        }

    def breakdown(self) -> str:
        """A printable explanation of every seat's score."""
        lines: list[str] = []
        if self.outcome is Outcome.ESCAPE:
            lines.append(f"{self.name} ({self.outcome.english}): seat {self.escape} abandoned")
        else:
            t = self.first_team
            lines.append(
                f"{self.name} ({self.outcome.english}): team {t[0]}+{t[1]} "
                f"(first finisher seat {self.places[0]}); scoring {self.scoring}"
            )
        order = ", ".join(f"{i + 1}. seat {s}" for i, s in enumerate(self.places))
        lines.append("places: " + order)
        if self.outcome is not Outcome.ESCAPE:
            src = ", ".join(
                f"seat {b.seat} {b.play.describe()} ×{b.factor}" for b in self.multiplier_bombs
            )
            lines.append(f"multiplier ×{self.multiplier}" + (f" ({src})" if src else ""))
            for b in self.contributions:
                moved = " ".join(f"{v:+d}" for v in b.contribution)
                where = "held" if b.held else "played"
                lines.append(f"contribution: seat {b.seat} {where} {b.play.describe()}: {moved}")
        lines.append("seat  place   base   mult  contrib  result  units  score")
        contrib = self.contribution_totals
        place = self.place_of
        for s in range(4):
            clamp = " (capped)" if self.clamped[s] else ""
            lines.append(
                f"{s:>4}  {place[s]:>5}  {self.base[s]:>5}  ×{self.multiplier:<4} {contrib[s]:>7}"
                f"  {self.unclamped[s]:>6}  {self.units[s]:>5}  {self.scores[s]:>5}{clamp}"
            )
        if self.escape is not None:
            lines.append(f"escape: seat {self.escape} loses {-self.units[self.escape]} units")
        lines.extend(self.notes)
        return "\n".join(lines)

