"""Issue #35: errors that teach. Every public function either accepts what a user would
naturally pass (a position text where a position is expected, card text where a play is,
a preset name where rules are) or refuses it with a ``ValueError``/``TypeError`` that names the
argument, says what it got and what to pass instead; the object called on is left unchanged.

The walk below passes wrong-but-natural arguments to the public API (``shuangkou.__all__`` and
the documented submodules ``cards``, ``game``, ``solve``, ``sim``, ``rng``, ``batch``,
``bots``, ``arena``, ``position``, ``rl`` and the server's ``config``, ``store``, ``app``) and
checks each message names the argument."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import shuangkou as sk
from shuangkou import arena, batch, bots, position, rng, sim
from shuangkou.game import Observation, play_from_dict, replay
from shuangkou.rl import VecEnv

BAIBIAN = sk.Rules.preset("baibian")
CLASSIC = sk.Rules.preset("classic")
# docs/position.md's example: seat 0 (holding 5 5 BJ) to act over seat 1's 9 9
TEXT = "baibian 55D/-/77/3 0 99@1 2 1 -/666666/-/- -"


# -- the five first mistakes of issue #35 ------------------------------------------------------
def test_hints_takes_a_position_text() -> None:
    # was AttributeError: 'str' object has no attribute 'to_act'
    dealt = sk.State.deal(BAIBIAN, 3)  # leading with 27 cards: many hints
    found = sk.hints(str(dealt))
    assert found == sk.hints(dealt) and found
    assert set(found) == set(sk.legal_plays(dealt.hand(dealt.to_act), BAIBIAN))
    assert sk.hints(TEXT) == sk.hints(sk.State.parse(TEXT, BAIBIAN)) == []  # nothing beats 9 9


def test_hints_refuses_other_things_naming_position() -> None:
    for bad in (42, None, ["55D", "-", "77", "3"], b"baibian"):
        with pytest.raises((ValueError, TypeError), match=r"position.*State.*text"):
            sk.hints(bad)  # type: ignore[arg-type]


def test_a_bad_position_text_in_hints_names_the_field() -> None:
    with pytest.raises(sk.NotationError, match="field 4 .table."):
        sk.hints("baibian 55D/-/77/3 0 99@7 2 1 -/666666/-/- -")


def test_play_beats_takes_card_text() -> None:
    # was TypeError: Cannot convert str to shuangkou._core.Play
    straight = sk.Play.parse("6 7 8 9 10", BAIBIAN)
    assert straight.beats("5 6 7 8 9", BAIBIAN)
    assert not straight.beats("7 8 9 10 J", BAIBIAN)
    assert straight.beats("5 6 7 8 9", BAIBIAN) == straight.beats(
        sk.Play.parse("5 6 7 8 9", BAIBIAN), BAIBIAN)
    assert straight.beats("pass", BAIBIAN)  # a pass is no table: a free lead
    assert straight.beats(None, BAIBIAN)


def test_play_beats_refuses_other_things_naming_other() -> None:
    straight = sk.Play.parse("6 7 8 9 10", BAIBIAN)
    with pytest.raises(TypeError, match=r"other must be a Play, card text .* or None, not int"):
        straight.beats(5, BAIBIAN)  # type: ignore[arg-type]
    with pytest.raises(sk.IllegalPlayError, match="not a valid play"):
        straight.beats("5 6 8", BAIBIAN)
    with pytest.raises(ValueError, match="unknown preset 'baibain'; choose from"):
        straight.beats("5 6 7 8 9", "baibain")


def test_rules_constructor_points_to_preset() -> None:
    # was TypeError: Rules.__init__() missing 9 required positional arguments ...
    with pytest.raises(TypeError, match=r"Rules\.preset\('baibian'\)"):
        sk.Rules("baibian")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"replace\("):
        sk.Rules("baibian")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        sk.Rules(**{**BAIBIAN.to_dict(), "colour": 1})  # type: ignore[arg-type]
    assert sk.Rules(**BAIBIAN.to_dict()) == BAIBIAN  # the full form still builds


@pytest.mark.parametrize("text", [
    "baibian 5 5 BJ/-/77/3 0 99@1 2 1 -/666666/-/- -",
    "baibian 55D/-/77/3 0 9 9@1 2 1 -/666666/-/- -",
])
def test_position_text_with_spaced_cards_says_the_one_character_notation(text) -> None:
    # was "a position text has 8 fields ... got 10" and nothing on how cards are written
    with pytest.raises(sk.NotationError, match=r"one character.*glued.*T for 10"):
        sk.State.parse(text, BAIBIAN)


def test_position_text_with_a_10_says_t() -> None:
    with pytest.raises(sk.NotationError, match=r"unknown card '1'.*T for 10"):
        sk.State.parse("baibian 5510/-/77/3 0 99@1 2 1 -/666666/-/- -", BAIBIAN)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "shuangkou", *args], capture_output=True,
                          text=True, timeout=60)


def test_hand_count_reads_a_rank_token() -> None:
    # was silently wrong: count("3") read index 3, the rank 6
    hand = sk.Hand("3 3 6 10 BJ")
    assert [hand.count(t) for t in ("3", "6", "10", "T", "BJ", "2")] == [2, 1, 1, 1, 1, 0]
    assert hand.count(sk.Rank.THREE) == hand.count(0) == 2


def test_table_config_takes_a_preset_name() -> None:
    # was stored as the str 'baibian', to fail inside a running table
    assert _server().config.TableConfig("baibian", 1).rules is BAIBIAN


def test_cli_hint_rules_flag_says_the_position_names_its_rules() -> None:
    # was "unrecognized arguments: --rules classic"
    done = _cli("hint", TEXT, "--rules", "classic")
    assert done.returncode == 2
    assert "names its rules" in done.stderr and "'baibian'" in done.stderr, done.stderr
    agree = _cli("hint", TEXT, "--rules", "baibian")  # the same rules: a check that passes
    assert agree.returncode == 0, agree.stderr
    assert agree.stdout == _cli("hint", TEXT).stdout
    solved = _cli("solve", TEXT, "--rules", "classic")
    assert solved.returncode == 2 and "names its rules" in solved.stderr


# -- the walk: wrong-but-natural arguments, each message names the argument ----------------------
def _game() -> sk.Game:
    return sk.Game(BAIBIAN, seed=1)


def _server() -> Any:
    """The server package (the ``server`` extra, part of the test extra)."""
    from shuangkou.server import app, config, store

    return SimpleNamespace(app=app, config=config, store=store)


def _parsed() -> sk.State:
    return sk.State.parse(TEXT, BAIBIAN)


def _state() -> sk.State:
    return sk.State.deal(BAIBIAN, 1)


Case = tuple[str, Callable[[], object], str]

WALK: list[Case] = [
    # rules
    ("Rules.preset(None)", lambda: sk.Rules.preset(None), "preset"),  # type: ignore[arg-type]
    ("Rules.preset('baibain')", lambda: sk.Rules.preset("baibain"), "preset"),
    ("Rules.replace(base_score='10')", lambda: BAIBIAN.replace(base_score="10"), "base_score"),
    ("Rules.replace(colour=1)", lambda: BAIBIAN.replace(colour=1), "colour"),
    ("legal_plays(rules=1)", lambda: sk.legal_plays("5 5", 1), "rules"),  # type: ignore
    ("legal_plays(rules='百变x')", lambda: sk.legal_plays("5 5", "百变x"), "preset"),
    # cards and hands
    ("Hand.parse(['3','4'])", lambda: sk.Hand.parse(["3", "4"]), "card notation"),
    ("Hand.parse('3 4 11')", lambda: sk.Hand.parse("3 4 11"), "11"),
    ("Hand.from_counts('345')", lambda: sk.Hand.from_counts("345"), "counts"),
    ("Hand.from_cards('3 4')", lambda: sk.Hand.from_cards("3 4"), "card"),
    ("parse_cards(3)", lambda: sk.parse_cards(3), "card"),  # type: ignore[arg-type]
    ("format_cards('3 4')", lambda: sk.format_cards("3 4"), "card"),
    ("legal_plays(hand=[3,4])", lambda: sk.legal_plays([3, 4], BAIBIAN), "hand"),
    ("legal_plays(table=5)", lambda: sk.legal_plays("5 5", BAIBIAN, 5), "table"),
    ("legal_plays(wilds=True)", lambda: sk.legal_plays("5 5", BAIBIAN, wilds=True), "wilds"),
    ("count_plays(table=5)", lambda: sk.count_plays("5 5", BAIBIAN, 5), "table"),
    ("classify(hand=5)", lambda: sk.classify(5, BAIBIAN), "card"),  # type: ignore[arg-type]
    ("Play.parse(5)", lambda: sk.Play.parse(5, BAIBIAN), "play notation"),
    ("Play.beats(other=5)", lambda: sk.Play.parse("7 7", BAIBIAN).beats(5, BAIBIAN), "other"),
    ("Play.beats(rules=None)",
     lambda: sk.Play.parse("7 7", BAIBIAN).beats("6 6", None), "rules"),
    ("decompose(hand=[3])", lambda: sk.decompose([3], BAIBIAN), "hand"),
    ("decompose(rules=None)", lambda: sk.decompose("3 4", None), "rules"),
    # State
    ("State.deal(rules=None)", lambda: sk.State.deal(None, 1), "rules"),
    ("State.deal(seed='1')", lambda: sk.State.deal(BAIBIAN, "1"), "seed"),
    ("State.parse(text=None)", lambda: sk.State.parse(None, BAIBIAN), "position text"),
    ("State.parse(rules='classic')", lambda: sk.State.parse(TEXT, "classic"), "rules"),
    ("State.hand('0')", lambda: _state().hand("0"), "seat"),
    ("State.play('5 5')", lambda: _state().play("3 4 5 6 7 8"), "play"),
    ("State.play(3.0)", lambda: _state().play(3.0), "play"),
    ("State.view(4)", lambda: _state().view(4), "seat"),
    ("State.perft(depth='2')", lambda: _state().perft("2"), "depth"),
    ("State.from_position(to_act='0')",  # said "seat must be ..."
     lambda: sk.State.from_position(BAIBIAN, ["5", "6", "7", "8"], "0"), "to_act"),
    ("State.from_position(table_owner=4)",
     lambda: sk.State.from_position(BAIBIAN, ["5", "66", "7", "8"], 0, table="6",
                                    table_owner=4), "table_owner"),
    ("State.from_position(hands='55D')",
     lambda: sk.State.from_position(BAIBIAN, "55D", 0), "hands"),
    # Game
    ("Game(rules=None)", lambda: sk.Game(None), "rules"),  # type: ignore[arg-type]
    ("Game(seed='7')", lambda: sk.Game(BAIBIAN, seed="7"), "seed"),  # type: ignore
    ("Game(seed=1.5)", lambda: sk.Game(BAIBIAN, seed=1.5), "seed"),  # type: ignore
    ("Game.play(2.0)", lambda: _game().play(2.0), "play"),
    ("Game.play('3 4 5 6 7 8')", lambda: _game().play("3 4 5 6 7 8"), "play"),
    ("Game.hand('0')", lambda: _game().hand("0"), "seat"),
    ("Game.view(4)", lambda: _game().view(4), "seat"),
    ("Game.observation(None)", lambda: _game().observation(None), "seat"),  # type: ignore
    ("Game.abandon('0')", lambda: _game().abandon("0"), "seat"),
    ("Game.cards_for(play='5 5')", lambda: _game().cards_for("5 5 5 5 5 5 5 5 5"), "play"),
    ("Game.from_json(5)", lambda: sk.Game.from_json(5), "text"),  # type: ignore[arg-type]
    ("Game.from_deal(leader='0')",  # was taken: int('0')
     lambda: sk.Game.from_deal(BAIBIAN, [[0], [1], [2], [3]], leader="0"), "leader"),
    ("Game.from_deal(leader=1.5)",  # was read as seat 1
     lambda: sk.Game.from_deal(BAIBIAN, [[0], [1], [2], [3]], leader=1.5), "leader"),
    ("Game.from_deal(hands='...')",
     lambda: sk.Game.from_deal(BAIBIAN, "3 4 5"), "hands"),
    ("Match(seed=-1)", lambda: sk.Match(BAIBIAN, seed=-1), "seed"),
    ("replay(5)", lambda: replay(5), "log"),  # type: ignore[arg-type]
    ("Observation.from_dict('x')", lambda: Observation.from_dict("x"), "observation"),
    ("play_from_dict('5 5')", lambda: play_from_dict("5 5"), "play"),
    # solver
    ("hints(42)", lambda: sk.hints(42), "position"),  # type: ignore[arg-type]
    ("solve(5)", lambda: sk.solve(5), "position"),  # type: ignore[arg-type]
    ("solve(objective='win')", lambda: sk.solve(_parsed(), "win"), "objective"),  # type: ignore
    ("solve(max_nodes='1e6')", lambda: sk.solve(_parsed(), max_nodes="1e6"), "max_nodes"),
    ("solve(time_limit='1s')", lambda: sk.solve(_parsed(), time_limit="1s"), "time_limit"),
    ("decompose(keep_bombs='yes')",
     lambda: sk.decompose("3 4", BAIBIAN, keep_bombs="yes"), "keep_bombs"),  # type: ignore
    ("sample_worlds(game=text)", lambda: sk.sample_worlds(TEXT, 0, 2, 1), "game"),
    ("sample_worlds(seat='0')", lambda: sk.sample_worlds(_game(), "0", 2, 1), "seat"),
    ("sample_deals(n=2.0)", lambda: sk.sample_deals(_game(), 0, 2.0, 1), "n"),
    ("sample_deals(seed=None)", lambda: sk.sample_deals(_game(), 0, 2, None), "seed"),
    ("pimc_policy(worlds='16')", lambda: sk.pimc_policy("16"), "worlds"),  # type: ignore
    ("pimc_policy(fallback='greedy')",
     lambda: sk.pimc_policy(fallback="greedy"), "fallback"),  # type: ignore[arg-type]
    # simulation, bots, arena
    ("simulate(n='10')", lambda: sk.simulate("10"), "n"),  # type: ignore[arg-type]
    ("simulate(rules=None)", lambda: sk.simulate(2, None), "rules"),  # type: ignore
    ("simulate(policy='smart')", lambda: sk.simulate(2, policy="smart"), "policy"),
    ("simulate(policy=5)", lambda: sk.simulate(2, policy=5), "policy"),  # type: ignore
    ("simulate(threads=0)", lambda: sk.simulate(2, threads=0), "threads"),
    ("simulate(seed=-1)", lambda: sk.simulate(2, seed=-1), "seed"),
    ("play_deal(seed='1')", lambda: sim.play_deal(BAIBIAN, "1"), "seed"),  # type: ignore
    ("chunk_ranges(chunk=0)", lambda: sim.chunk_ranges(10, 0), "chunk"),
    ("chunk_ranges(n='10')", lambda: sim.chunk_ranges("10", 2), "n"),  # type: ignore
    ("simulate(progress='yes')", lambda: sk.simulate(2, progress="yes"), "progress"),
    ("with_game(5)", lambda: sim.with_game(5), "fn"),  # type: ignore[arg-type]
    ("arena.elo(5)", lambda: arena.elo(5), "results"),  # type: ignore[arg-type]
    ("rng.shuffle_deck(1)", lambda: rng.shuffle_deck(1), "rng"),  # type: ignore[arg-type]
    ("batch.observation(game=text)", lambda: batch.observation(TEXT, 0), "game"),
    ("Hand.count('11')", lambda: sk.Hand("3 3").count("11"), "11"),
    ("Hand.count(15)", lambda: sk.Hand("3 3").count(15), "rank"),
    ("bots.make('smart')", lambda: bots.make("smart", BAIBIAN), "smart"),
    ("bots.make(rules=None)", lambda: bots.make("greedy", None), "rules"),  # type: ignore
    ("arena.duel(pairs='10')",
     lambda: arena.duel("greedy", "random", pairs="10"), "pairs"),  # type: ignore[arg-type]
    ("arena.duel(a='smart')", lambda: arena.duel("smart", "random", pairs=1), "smart"),
    ("arena.parse_bot(5)", lambda: arena.parse_bot(5), "spec"),  # type: ignore[arg-type]
    # seeds and deals
    ("rng.deal(seed='1')", lambda: rng.deal("1", "revealed"), "seed"),  # type: ignore
    ("rng.deal(first_leader='first')", lambda: rng.deal(1, "first"), "first_leader"),
    ("rng.deal_seed(index=-1)", lambda: rng.deal_seed(1, -1), "index"),
    ("SplitMix64('1')", lambda: rng.SplitMix64("1"), "seed"),  # type: ignore[arg-type]
    ("SplitMix64.bounded(0)", lambda: rng.SplitMix64(1).bounded(0), "n"),
    # positions
    ("parse_position(None)", lambda: position.parse_position(None), "position text"),
    ("format_position(text)", lambda: position.format_position(TEXT), "state"),
    # the server's Python entry points (the HTTP body is checked by TableConfig.from_request)
    ("TableConfig(seed='1')", lambda: _server().config.TableConfig(BAIBIAN, "1"), "seed"),
    ("TableConfig(deals=0)", lambda: _server().config.TableConfig(BAIBIAN, 1, deals=0),
     "deals"),
    ("TableConfig(timer='30')",
     lambda: _server().config.TableConfig(BAIBIAN, 1, timer="30"), "timer"),
    ("TableConfig(seats=('open',))",
     lambda: _server().config.TableConfig(BAIBIAN, 1, seats=("open",)), "seats"),
    ("open_store(5)", lambda: _server().store.open_store(5), "url"),  # type: ignore[arg-type]
    ("Limits(rate='20')", lambda: _server().app.Limits(rate="20"), "rate"),  # type: ignore
    ("Limits(queue=-1)", lambda: _server().app.Limits(queue=-1), "queue"),
    ("serve(port='80x')", lambda: _server().app.serve("sqlite://:memory:", port="80x"), "port"),
    # batch and RL
    ("batch.action_table(None)", lambda: batch.action_table(None), "rules"),  # type: ignore
    ("batch.legal_action_mask(hands='55D')",
     lambda: batch.legal_action_mask(np.zeros(3), BAIBIAN), "hands"),
    ("ActionTable.encode(1.0)", lambda: batch.action_table(BAIBIAN).encode(1.0), "play"),
    ("ActionTable.encode('5 6 8')",
     lambda: batch.action_table(BAIBIAN).encode("5 6 8"), "not a valid play"),
    ("ActionTable.decode('3')", lambda: batch.action_table(BAIBIAN).decode("3"), "index"),
    ("VecEnv(n=0)", lambda: VecEnv(BAIBIAN, 0), "n"),
    ("VecEnv(n='8')", lambda: VecEnv(BAIBIAN, "8"), "n"),  # type: ignore[arg-type]
    ("VecEnv(rules=None)", lambda: VecEnv(None, 2), "rules"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("name,call,names", WALK, ids=[c[0] for c in WALK])
def test_a_natural_mistake_names_the_argument(name, call, names) -> None:
    with pytest.raises((ValueError, TypeError)) as caught:
        call()
    message = str(caught.value)
    assert names.lower() in message.lower(), f"{name}: {type(caught.value).__name__}: {message}"
    # a message to act on: says what it got or what to pass, never a bare C conversion error
    assert "Cannot convert" not in message and "object has no attribute" not in message


def test_a_refused_argument_leaves_the_game_and_state_unchanged() -> None:
    game, state = _game(), _state()
    before = (game.to_json(), str(state))
    for call in (lambda: game.play(2.0), lambda: game.play("3 4 5 6 7 8"),
                 lambda: game.abandon("0"), lambda: game.observation(None),
                 lambda: state.play(3.0), lambda: state.play("3 4 5 6 7 8"),
                 lambda: state.view(4)):
        with pytest.raises((ValueError, TypeError)):
            call()  # type: ignore[no-untyped-call]
    assert (game.to_json(), str(state)) == before
