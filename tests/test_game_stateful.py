"""A hypothesis state machine drives one deal through random interleavings of legal plays,
passes, illegal attempts, undo, copy and JSON round trips (R7), checking after
every step that nothing was lost or changed that should not have been."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from shuangkou import Game, IllegalPlayError, Rules
from shuangkou.rules import PRESETS


class DealMachine(RuleBasedStateMachine):
    game: Game
    snapshots: list[tuple[object, ...]]

    @initialize(preset=st.sampled_from(PRESETS), seed=st.integers(0, 2**32))
    def deal(self, preset: str, seed: int) -> None:
        self.game = Game(Rules.preset(preset), seed=seed)
        self.snapshots = []

    def _act(self, action) -> None:  # type: ignore[no-untyped-def]
        before = self.game.key()
        action()
        self.snapshots.append(before)

    @precondition(lambda self: not self.game.is_over)
    @rule(data=st.data())
    def play_a_legal_play(self, data: st.DataObject) -> None:
        plays = self.game.legal_plays()
        if plays:
            play = data.draw(st.sampled_from(plays))
            self._act(lambda: self.game.play(play))

    @precondition(lambda self: not self.game.is_over and self.game.can_pass())
    @rule()
    def pass_(self) -> None:
        self._act(self.game.pass_)

    @precondition(lambda self: not self.game.is_over)
    @rule(data=st.data())
    def illegal_attempts_change_nothing(self, data: st.DataObject) -> None:
        before = self.game.key()
        seat = self.game.to_act
        assert seat is not None
        own = list(self.game.hand(seat))
        cards = data.draw(st.lists(st.sampled_from(own), unique=True, max_size=8) if own
                          else st.just([]))
        legal = {p for p in self.game.legal_plays()}
        other = data.draw(st.sampled_from([s for s in range(4) if s != seat]))
        attempts = [lambda: self.game.pass_(seat=other),
                    lambda: self.game.play(cards, seat=other)]
        if not self.game.can_pass():
            attempts.append(self.game.pass_)
        for attempt in attempts:
            try:
                attempt()
            except IllegalPlayError:
                assert self.game.key() == before
            else:
                raise AssertionError("an out-of-turn action or a pass on a lead went through")
        try:
            self.game.play(cards)
        except IllegalPlayError:
            assert self.game.key() == before
        else:  # a random card set that happens to be legal must be one of the legal plays
            played = self.game.actions[-1].play
            self.game.undo()
            assert played in legal and self.game.key() == before

    @precondition(lambda self: bool(self.snapshots))
    @rule()
    def undo_restores_the_previous_state(self) -> None:
        self.game.undo()
        assert self.game.key() == self.snapshots.pop()

    @rule()
    def copies_and_json_are_faithful_and_independent(self) -> None:
        twin = self.game.copy()
        assert twin == self.game and Game.from_json(self.game.to_json()) == self.game
        if not twin.is_over and twin.legal_plays():
            before = self.game.key()
            twin.play(twin.legal_plays()[0])
            assert self.game.key() == before

    @invariant()
    def every_card_is_accounted_for(self) -> None:
        held = [c for s in range(4) for c in self.game.hand(s)]
        played = [c for a in self.game.actions for c in a.cards]
        assert sorted(held + played) == list(range(108))

    @invariant()
    def places_follow_the_end_rule(self) -> None:
        places = self.game.places
        if not self.game.is_over:
            first = places[:1]
            out = set(places)
            # R7: still running, so neither the first finisher's partner nor a whole team is out
            assert not (first and first[0] ^ 2 in out)
            assert not ({0, 2} <= out or {1, 3} <= out)
        else:
            assert self.game.result is not None


DealMachine.TestCase.settings = settings(
    max_examples=30, stateful_step_count=250, deadline=None
)
test_deal_state_machine = DealMachine.TestCase
