"""Every scripted deal of ``tests/test_game.py`` (R7/R8 worked by hand) run on the reference
engine too: each test of that module runs with its ``Game`` replaced by a subclass that mirrors
every action it makes onto a :class:`~shuangkou._reference_game.RefState` set up at the same
position, and compares the two after each one (``test_engine_diff.facts``: to act, table,
owner, passes, leader, trick, places, hands, bombs, pass, legal plays, result)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from shuangkou._reference_game import RefState
from shuangkou.game import Game

from . import test_game
from .test_engine_diff import facts

MIRRORED: list[int] = []  # actions mirrored in the current test


class MirroredGame(Game):
    """A Game that replays each of its actions on a reference engine and compares."""

    def _ref(self) -> RefState:
        ref: RefState | None = self.__dict__.get("ref")
        if ref is None:  # first action: the game is still at its start
            assert not self.actions
            hands = [self.hand_ranks(s) for s in range(4)]
            ref = RefState.from_position(self.rules, hands, self.to_act, leader=self.first_leader)
            if self.seed is not None and self.players == (0, 1, 2, 3):
                dealt = RefState.deal(self.rules, self.seed)
                if self.rules.first_leader == "revealed" or dealt.to_act == self.to_act:
                    assert dealt == ref  # R7: the seeded deal and the 明牌 swap agree
            self.__dict__["ref"] = ref
            self.__dict__["depth"] = 0
        return ref

    def _run(self, action: Callable[[], Any]) -> Any:
        ref = self._ref()
        self.__dict__["depth"] += 1
        try:
            out = action()
        finally:
            self.__dict__["depth"] -= 1
        if self.__dict__["depth"] == 0:
            while len(self._ref_actions()) > len(self.actions):
                ref.undo()
                self._ref_actions().pop()
            for a in self.actions[len(self._ref_actions()):]:
                if a.kind == "play":
                    ref.play(a.play)  # type: ignore[arg-type]
                elif a.kind == "pass":
                    ref.pass_()
                else:
                    ref.abandon(a.seat)
                self._ref_actions().append(a)
                MIRRORED.append(1)
            assert facts(self) == facts(ref)
        return out

    def _ref_actions(self) -> list[Any]:
        return self.__dict__.setdefault("ref_actions", [])  # type: ignore[no-any-return]

    def play(self, *args: Any, **kwargs: Any) -> Any:
        return self._run(lambda: super(MirroredGame, self).play(*args, **kwargs))

    def pass_(self, *args: Any, **kwargs: Any) -> None:
        self._run(lambda: super(MirroredGame, self).pass_(*args, **kwargs))

    def abandon(self, seat: int) -> None:
        self._run(lambda: super(MirroredGame, self).abandon(seat))

    def undo(self) -> Any:
        if not self.actions:
            return super().undo()  # raises: nothing to undo
        return self._run(lambda: super(MirroredGame, self).undo())


def _scripted() -> list[str]:
    """The tests of test_game.py that take no parameters and set up a game of their own."""
    names = []
    for name, fn in vars(test_game).items():
        if name.startswith("test_") and callable(fn) and not inspect.signature(fn).parameters:
            src = inspect.getsource(fn)
            if "Game.from_deal(" in src or "Game(" in src:
                names.append(name)
    return sorted(names)


SCRIPTED = _scripted()


def test_the_scripted_deals_are_found() -> None:
    assert "test_classic_double_win_ends_mid_trick" in SCRIPTED and len(SCRIPTED) >= 15


@pytest.mark.parametrize("name", SCRIPTED)
def test_scripted_deal_on_the_reference(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(test_game, "Game", MirroredGame)
    MIRRORED.clear()
    getattr(test_game, name)()
    source = inspect.getsource(getattr(test_game, name))
    if "from_deal(" in source and ".play(" in source:
        assert MIRRORED, f"{name}: no action was mirrored"
