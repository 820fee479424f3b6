"""The PettingZoo AEC env and the Gymnasium single-agent env (docs/rl.md): PettingZoo's
api_test and seed_test, Gymnasium's check_env, rewards equal to Game's scores, text render."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from shuangkou import Rules
from shuangkou import batch as B
from shuangkou.errors import IllegalPlayError
from shuangkou.game import Game
from shuangkou.rl import SingleAgentEnv, env
from shuangkou.rng import deal_seed


@pytest.mark.parametrize("preset", ["baibian", "qianbian"])
def test_pettingzoo_api(preset: str) -> None:
    api_test(env(preset), num_cycles=300)


def test_pettingzoo_seed() -> None:
    seed_test(lambda: env("jj"), num_cycles=200)


def test_pettingzoo_deal_matches_game() -> None:
    """A whole deal through the AEC env: observations are the reference encoder's for each
    agent, rewards Game's R8 scores, the mask marks only the agent to act."""
    e = env("baibian", render_mode="ansi")
    e.reset(seed=3)
    seed = int(np.random.default_rng(3).integers(0, 2**63))
    game = Game(Rules.preset("baibian"), seed=deal_seed(seed, 0))
    at = B.action_table("baibian")
    rng = np.random.default_rng(0)
    totals = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        totals[agent] += reward
        if term:
            e.step(None)
            continue
        seat = int(agent[-1])
        assert seat == game.to_act
        for a in e.agents:
            o = e.observe(a)
            assert o["observation"].tobytes() == B.observation(game, int(a[-1])).tobytes()
            assert o["action_mask"].any() == (a == agent)
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        play = at.play_for(game.hand_ranks(seat), action, game.table)
        game.play(play) if play else game.pass_()
        e.step(action)
        assert "table" in e.render()
    assert game.is_over
    assert tuple(totals[f"seat_{s}"] for s in range(4)) == game.result.scores
    e.close()


def test_gymnasium_check_env_with_defaults() -> None:
    check_env(SingleAgentEnv(), skip_render_check=False)
    check_env(SingleAgentEnv("jj", seat=2, opponents="random"))


def test_gymnasium_episode() -> None:
    g = SingleAgentEnv("baibian", seat=1, render_mode="ansi")
    obs, _ = g.reset(seed=4)
    rng = np.random.default_rng(1)
    steps, done, reward = 0, False, 0.0
    while not done:
        assert (obs["action_mask"] == g.action_masks()).all()
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, done, trunc, info = g.step(a)
        assert not trunc
        steps += 1
    assert steps > 5 and "outcome" in info and isinstance(reward, float)
    assert "seat" in g.render()
    obs, _ = g.reset(seed=4)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[-1])
    assert g.step(illegal)[4]["illegal"] is True  # the default: fall back, and say so
    strict = SingleAgentEnv("baibian", seat=1, illegal="raise")
    strict.reset(seed=4)
    with pytest.raises(IllegalPlayError):
        strict.step(illegal)
    with pytest.raises(ValueError):
        SingleAgentEnv("baibian", illegal="ignore")
