"""Every scripted deal of ``tests/test_game.py`` (R7/R8 worked by hand) run on the reference
engine and the kernel's ``State`` too: each test of that module runs with its ``Game`` replaced
by a subclass that mirrors every action it makes onto each engine class
(``test_engine_diff.CLASSES``), set up at the same position, and compares them after each one
(``test_engine_diff.assert_same``: to act, table, owner, passes, leader, trick, places, hands,
bombs, pass, legal plays, result)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from shuangkou.game import Game

from . import test_game
from .test_engine_diff import CLASSES, assert_same

MIRRORED: list[int] = []  # actions mirrored in the current test


class MirroredGame(Game):
    """A Game that replays each of its actions on every engine class (the reference first),
    each set up at the game's starting position, and compares them after each action."""

    def _mirrors(self) -> list[Any]:
        mirrors: list[Any] | None = self.__dict__.get("mirrors")
        if mirrors is None:  # first action: the game is still at its start
            assert not self.actions
            hands = [self.hand_ranks(s) for s in range(4)]
            mirrors = [
                cls.from_position(self.rules, hands, self.to_act, leader=self.first_leader)
                for cls in CLASSES
            ]
            if self.seed is not None and self.players == (0, 1, 2, 3):
                for cls, m in zip(CLASSES, mirrors):
                    dealt = cls.deal(self.rules, self.seed)
                    if self.rules.first_leader == "revealed" or dealt.to_act == self.to_act:
                        assert dealt == m  # R7: the seeded deal and the 明牌 swap agree
            self.__dict__.update(mirrors=mirrors, depth=0, mirrored=[])
        return mirrors

    def _run(self, action: Callable[[], Any]) -> Any:
        mirrors = self._mirrors()
        self.__dict__["depth"] += 1
        try:
            out = action()
        finally:
            self.__dict__["depth"] -= 1
        if self.__dict__["depth"] == 0:
            done: list[Any] = self.__dict__["mirrored"]
            while len(done) > len(self.actions):
                for m in mirrors:
                    m.undo()
                done.pop()
            for a in self.actions[len(done):]:
                for m in mirrors:
                    if a.kind == "play":
                        m.play(a.play)
                    elif a.kind == "pass":
                        m.pass_()
                    else:
                        m.abandon(a.seat)
                done.append(a)
                MIRRORED.append(1)
            assert_same(mirrors[0], [self, *mirrors[1:]])
        return out

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
