"""The bot protocol of shuangkou.bots (docs/bots.md, "Your own bot"; issue #32 item 1 and 5,
issue #34's arena counts and options): a user's function and a user's class played by every
driver — simulate, play_deal, the arena in this process and in worker processes, both
commands, VecEnv (refused with the reason), a server's seats — the SeatView members the docs
list, and bots refusing the positions of other rules."""

from __future__ import annotations

import asyncio
import inspect
import json
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

from shuangkou import Game, Rules, SeatView, State, bots, simulate
from shuangkou.arena import MAX_PAIRS, _pooled, duel
from shuangkou.cli import main
from shuangkou.errors import ArgumentError
from shuangkou.rl import VecEnv
from shuangkou.rng import SplitMix64
from shuangkou.sim import play_deal
from tests.user_bots import Counting, lowest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FN, CLS = "tests.user_bots:lowest", "tests.user_bots:Counting:short=3"


def _margins(res: object, n: int) -> np.ndarray:
    """A's margin in the play with A on seats 0+2, from simulate's units directly."""
    u = res.units.astype(np.int64)  # type: ignore[attr-defined]
    return u[:, 0::2].sum(1) - u[:, 1::2].sum(1)


# -- SeatView: every member documented ---------------------------------------------------------
def test_seat_view_members_are_the_documented_ones() -> None:
    """docs/bots.md lists every public member of SeatView (and nothing else), each with a
    docstring on the class; methods are written with their arguments, properties bare."""
    text = (ROOT / "docs" / "bots.md").read_text()
    block = text.split("<!-- seat-view-members -->")[1].split("<!-- /seat-view-members -->")[0]
    documented = {}
    for row in re.findall(r"^\| `([^`]+)` \|", block, re.M):
        name = row.split("(")[0]
        documented[name] = "(" in row
    members = {n: v for n, v in vars(SeatView).items() if not n.startswith("_")}
    assert set(documented) == set(members)
    for name, value in members.items():
        assert documented[name] == callable(value), name  # a method shown with its arguments
        assert (value.__doc__ or "").strip(), f"SeatView.{name} has no docstring"
    # and the view really has them: read each on a live position
    view = State.deal("jj", 5).view(1)
    for name, is_method in documented.items():
        attr = getattr(view, name)
        if is_method:
            params = inspect.signature(getattr(SeatView, name)).parameters
            attr(1) if "seat" in params else attr()


# -- simulate and play_deal --------------------------------------------------------------------
@pytest.mark.parametrize("preset", ["classic", "jj"])
def test_a_users_function_and_class_in_simulate(preset: str) -> None:
    """The objects and their specs play the same deals; the Game path (play_deal) agrees
    with the State path deal for deal."""
    counting = Counting(Rules.preset(preset), short=3)
    by_object = simulate(6, preset, (lowest, counting), seed=2)
    by_spec = simulate(6, preset, (FN, CLS), seed=2)
    assert by_object == by_spec
    assert by_object.policies == ("lowest", "counting3") * 2
    assert (np.sort(by_object.places, 1) == np.arange(4)).all()
    for i in range(3):
        _, row = play_deal(preset, 2, (lowest, counting), index=i)
        assert all(np.array_equal(row[k], by_object.arrays[k][i]) for k in row)


def test_every_bot_name_plays_in_simulate_and_its_command() -> None:
    for name in bots.BOTS:
        spec = "pimc:worlds=2,max_nodes=50" if name == "pimc" else name
        assert simulate(1, "jj", (spec, "greedy"), seed=1).policies[0] == name


def test_simulate_command_takes_every_bot_and_a_users(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    for spec in (*(b for b in bots.BOTS if b != "pimc"), "pimc:worlds=2,max_nodes=50", FN,
                 CLS):
        assert main(["simulate", "-n", "2", "--rules", "classic", "--policy", f"{spec},greedy",
                     "--json", "--no-progress"]) == 0, spec
        out = json.loads(capsys.readouterr().out)
        assert out["policies"][1] == "greedy" and out["n"] == 2, spec
    assert main(["simulate", "-n", "1", "--policy", "tests.user_bots:nothing"]) == 2
    assert "has no 'nothing'" in capsys.readouterr().err


# -- the arena: in process, in workers, the command --------------------------------------------
def test_a_users_bots_in_the_arena_in_process_and_in_workers() -> None:
    rules = Rules.preset("classic")
    counting = Counting(rules, short=3)
    one = duel(lowest, counting, rules, 9, seed=4, processes=1, chunk=4)
    two = duel(FN, CLS, rules, 9, seed=4, processes=2, chunk=4)  # specs made in the workers
    objs = duel(lowest, counting, rules, 9, seed=4, processes=2, chunk=2)  # objects pickled
    for r in (two, objs):
        assert np.array_equal(one.margins, r.margins) and np.array_equal(one.first, r.first)
    assert (one.a, one.b) == ("lowest", "counting3") and (two.a, two.b) == (FN, CLS)
    # the margins, independently: simulate with A on seats 0+2
    res = simulate(9, rules, (lowest, counting), seed=4)
    assert np.array_equal(one.margins[:, 0], _margins(res, 9))
    assert one.timing[0] is not None and one.timing[0].size > 0  # a Python bot is timed


def test_a_bot_that_does_not_pickle_is_refused_for_workers_only() -> None:
    def closure(view: object, plays: object, rng: object) -> object:
        return lowest(view, plays, rng)

    for bot in (closure, lambda v, p, r: lowest(v, p, r)):
        with pytest.raises(ArgumentError, match="cannot be sent to worker processes: it does "
                                                "not pickle.*processes=1"):
            duel(bot, "greedy", "classic", 4, processes=2, chunk=2)
        assert duel(bot, "greedy", "classic", 2, processes=1).pairs == 2


def test_the_arena_command_takes_a_users_bots(capsys: pytest.CaptureFixture[str]
                                              ) -> None:
    assert main(["arena", FN, CLS, "--rules", "classic", "--deals", "3", "--processes", "2",
                 "--json", "--no-progress"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert (s["a"], s["b"], s["pairs"]) == (FN, CLS, 3)
    one = duel(FN, CLS, "classic", 3, seed=1, processes=1)
    assert s["margin"] == pytest.approx(float(one.margins.mean()))


def test_the_command_finds_a_module_in_the_current_folder(tmp_path: pathlib.Path) -> None:
    """``shuangkou arena mybots:first`` run where mybots.py is: as ``python -m`` would."""
    (tmp_path / "mybots.py").write_text(
        "def first(view, plays, rng):\n    return plays[0] if len(plays) else None\n")
    script = pathlib.Path(sys.executable).with_name("shuangkou")
    proc = subprocess.run([str(script), "arena", "mybots:first", "greedy", "--deals", "2",
                           "--processes", "1", "--no-progress", "--json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["a"] == "mybots:first"


@pytest.mark.parametrize("spec, says", [
    ("heuristic:max_wilds=many", "max_wilds must be an integer, not str"),
    ("heuristic:max_wilds=\u0663", "max_wilds must be an integer, not str"),  # '٣' is no 3
    ("heuristic:max_wilds=-1", "max_wilds must be in 0..108, got -1"),
    ("heuristic:wild_cards=1.5", "wild_cards must be an integer, not float"),
    ("heuristic:foo=1", "unexpected keyword argument 'foo'"),
    ("pimc:worlds=0", "worlds must be in 1.."),
    ("learned:max_plays=0", "max_plays must be a positive int"),
    ("tests.user_bots:lowest:x=1", "it takes no options"),
    ("tests.user_bots:Counting:depth=2", "unexpected keyword argument 'depth'"),
    ("tests.nowhere:bot", "cannot import module 'tests.nowhere'"),
    ("learned:weights=/no/such/weights.npz", "No such file or directory"),
])
def test_a_bad_bot_option_is_one_line_and_exit_2(spec: str, says: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Before: a traceback and exit 1 (an unknown option's TypeError), or a heuristic option
    taken as given (``max_wilds="many"`` failed at the first decision, in a worker)."""
    assert main(["arena", spec, "greedy", "--deals", "2", "--processes", "2"]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and err.startswith("shuangkou: error:"), err


def test_arena_counts_are_refused_up_front_or_streamed(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """Before: ``--deals 9223372036854775807`` built the whole job list and ended in a
    MemoryError (4.6e17 chunks)."""
    assert main(["arena", "greedy", "greedy", "--deals", str(2**63 - 1)]) == 2
    err = capsys.readouterr().err
    assert f"at most {MAX_PAIRS} pairs" in err and err.count("\n") == 1
    for bad in ({"pairs": MAX_PAIRS + 1}, {"pairs": 10, "start": 2**63 - 5},
                {"pairs": 2, "chunk": 0}, {"pairs": 2, "processes": 0}, {"pairs": 2, "seed": -1}):
        with pytest.raises(ArgumentError):
            duel("greedy", "random", "classic", **{"pairs": 2, **bad})  # type: ignore[arg-type]
    # the chunks are drawn as they are sent: at most 2 x processes ahead of the results
    drawn = []

    def jobs():  # an endless stream of one-pair chunks
        i = 0
        while True:
            drawn.append(i)
            yield (Rules.preset("classic"), 1, i, 1)
            i += 1

    results = _pooled(2, ("greedy", "random"), Rules.preset("classic"), jobs())
    first = next(results)
    assert first["margins"].shape == (1, 2) and len(drawn) <= 2 * 2 + 1
    results.close()  # the pool is terminated and joined


# -- VecEnv, the server ------------------------------------------------------------------------
def test_vecenv_plays_kernel_bots_and_says_why_it_refuses_others() -> None:
    env = VecEnv("classic", 2, opponents={1: bots.make("greedy", "classic"), 3: "random"})
    assert env.agent_seats == (0, 2)
    for bot in (bots.make("heuristic", "classic"), lowest, Counting(Rules.preset("classic"))):
        with pytest.raises(ValueError, match="runs in Python, and the VecEnv kernel plays "
                                             "only its own players"):
            VecEnv("classic", 2, opponents={1: bot})
    with pytest.raises(ValueError, match="made for baibian rules, not for these classic"):
        VecEnv("classic", 2, opponents={1: bots.make("greedy", "baibian")})


def test_server_seats_are_the_registered_bots_and_the_lobby_lists_them(
        tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("aiohttp")
    import aiohttp

    from shuangkou.server import Limits
    from shuangkou.server.client import create_table
    from shuangkou.server.config import ConfigError, TableConfig, seat_kinds
    from tests.server_harness import db_url, run, running

    assert seat_kinds() == ("open", *(b for b in bots.BOTS if b not in bots.UNTIMED))
    monkeypatch.setattr(bots, "_MAKERS", dict(bots._MAKERS))
    monkeypatch.setattr(bots, "BOTS", bots.BOTS)
    bots.register("lowest", lambda rules: lowest)
    assert "lowest" in bots.BOTS and bots.make("lowest", "jj") is lowest
    searching = bots.make("pimc", "jj", fallback="lowest", worlds=1, max_nodes=10)
    assert searching.wilds == "all" and len(simulate(1, "jj", searching, seed=2)) == 1
    assert simulate(2, "jj", ("lowest", "greedy"), seed=2) == simulate(
        2, "jj", (lowest, "greedy"), seed=2)
    assert "lowest" in seat_kinds()
    with pytest.raises(ConfigError, match="'seats' must be four of"):
        TableConfig.from_request({"seats": ["open", "pimc", "greedy", "greedy"]})

    async def body() -> None:
        unpaused = Limits(pause_unwatched=False, create_rate=0, tables_per_address=0)
        async with running(db_url(tmp_path), limits=unpaused) as (server, base), \
                aiohttp.ClientSession() as http:
            async with http.get(f"{base}/api/bots") as r:
                listed = (await r.json())["bots"]
            assert listed == list(seat_kinds()[1:])
            assert {"heuristic", "learned", "default", "lowest"} <= set(listed)
            t = await create_table(http, base, rules="classic",
                                   seats=["lowest", "heuristic", "default", "learned"])
            async with http.get(f"{base}/") as r:
                page = await r.text()
            async with http.get(f"{base}/static/table.js") as r:
                script = await r.text()
            assert 'name="bot"' in page and '"/api/bots"' in script
            table = server.tables[t["id"]]
            for _ in range(600):  # the bots play the deal out (bot_delay 0)
                if table.finished:
                    break
                await asyncio.sleep(0.05)
            assert table.finished

    run(body)


# -- rules awareness ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", bots.BOTS)
def test_a_bot_refuses_a_position_of_other_rules(name: str) -> None:
    """Before: a jj bot handed a 百变 position judged it by jj's rules, silently."""
    options = {"worlds": 2, "max_nodes": 50} if name == "pimc" else {}
    bot = bots.make(name, "jj", **options)
    game = Game("baibian", seed=3)
    with pytest.raises(ArgumentError, match=f"bot '{name}' was made for jj rules and would "
                                            "judge this position by them, but the position "
                                            "is under baibian rules"):
        bot(game.view(game.to_act), game.legal_plays(bot.wilds), SplitMix64(1))
    house = Rules.preset("jj").replace(partner_visible=False)
    state = State.deal(house, 3)
    with pytest.raises(ArgumentError, match="partner_visible True, not False"):
        bot(state.view(state.to_act), state.legal(bot.wilds), SplitMix64(1))
    for driver in (lambda: simulate(1, "baibian", (bot, "greedy")),
                   lambda: duel(bot, "greedy", "baibian", 1, processes=1),
                   lambda: play_deal("baibian", 1, (bot, "greedy"))):
        with pytest.raises(ArgumentError, match="made for jj rules, not for these baibian"):
            driver()
    same = bots.make(name, Rules.preset("jj").replace(name="jj"), **options)
    state = State.deal("jj", 3)  # equal rules, another object: accepted
    same(state.view(state.to_act), state.legal(same.wilds), SplitMix64(1))


def test_a_users_bot_with_rules_is_checked_by_every_driver() -> None:
    counting = Counting(Rules.preset("classic"))
    with pytest.raises(ArgumentError, match="bot 'counting5' was made for classic rules"):
        simulate(1, "jj", counting)
    with pytest.raises(ArgumentError, match="made for classic rules"):
        duel("greedy", counting, "jj", 1, processes=1)


def test_simulate_command_refuses_a_count_it_cannot_hold(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    """Before: ``shuangkou simulate -n 9223372036854775807`` allocated its rows and ended in a
    numpy MemoryError traceback (8 EiB)."""
    assert main(["simulate", "-n", str(2**63 - 1), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--deals 9223372036854775807: the run keeps" in err and "simulate_stats" in err
    assert err.count("\n") == 1


def last_fewest(view: object, plays: object, rng: object) -> object:
    """A fewest-wilds bot answering by index: the last play of its list (never a pass)."""
    return len(plays) - 1 if len(plays) else None  # type: ignore[arg-type]


last_fewest.wilds = "fewest"  # type: ignore[attr-defined]


def test_an_index_answer_is_into_the_list_the_bot_was_given() -> None:
    """Before: play_deal handed a fewest-wilds bot's index to Game.play, whose index is into
    the wilds="all" list: another play than the bot chose (百变 lists differ), so the Game path
    and the State path of simulate played different deals."""
    res = simulate(3, "baibian", (last_fewest, "greedy"), seed=8)
    for i in range(3):
        _, row = play_deal("baibian", 8, (last_fewest, "greedy"), index=i)
        assert all(np.array_equal(row[k], res.arrays[k][i]) for k in row)
