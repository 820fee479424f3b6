"""``VecEnv``: N deals stepped together in the kernel (docs/rl.md, "VecEnv").

::

    env = VecEnv("baibian", 1024, threads=2, opponents={1: "greedy", 3: "greedy"})
    out = env.reset(seed=1)
    while True:
        actions = my_policy(out.obs, out.mask, out.offsets, out.features)   # (N,) int64
        out = env.step(actions)              # legal-list indices, -1 = pass
        ...                                  # out.rewards[out.done] are finished deals

Every array of a :class:`Step` is a view of a preallocated buffer, overwritten by the next
``step``: copy what you keep.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping
from typing import Any

import numpy as np

from .. import _rl
from .._check import as_int, as_seat, as_seed
from .._engine import State
from ..batch import KEY_MASK, OBS_SIZE, ActionTable, action_table
from ..errors import ArgumentError, ConcurrentUseError, IllegalPlayError
from ..plays import Play
from ..position import check_position
from ..rules import Rules, as_rules

__all__ = ["Step", "VecEnv"]

_POLICIES = {"random": _rl.RANDOM, "greedy": _rl.GREEDY}
_REASONS = {
    1: "pass is not legal when leading (R4)",
    2: "index out of the legal list",
    3: "table action not legal here",
}


class Step:
    """What ``reset`` / ``step`` return: views of the env's buffers (valid until the next
    call; the same object is returned every step). Deal ``i`` is row ``i``; its legal plays
    are rows ``offsets[i]:offsets[i + 1]`` of the play arrays (``words``, ``tags``,
    ``action_ids``, ``cards``, ``features``).

    * ``obs`` ``(N, OBS_SIZE)`` float32: the observation of the seat to act (batch.OBS_FIELDS);
    * ``mask`` ``(N, A)`` bool: legal actions of the action table (0 = PASS when answering);
    * ``can_pass`` ``(N,)`` bool: the seat to act is answering (pass is legal);
    * ``offsets`` ``(N + 1,)`` int64: CSR offsets of each deal's legal plays (pass not listed);
    * ``words`` ``(M,)`` uint64 packed cards, ``tags`` ``(M,)`` uint32 reading tags
      (docs/internals.md), ``action_ids`` ``(M,)`` int32 action-table ids, ``cards``
      ``(M, 15)`` uint8 card counts, ``features`` ``(M, 7)`` uint8 kind, top, width, length,
      stars, size, wilds — of each legal play;
    * ``rewards`` ``(N, 4)`` float32: R8 scores per seat of the deal that finished at this step
      (0 elsewhere); ``team_rewards`` ``(N, 2)``: per team (seats 0+2, 1+3) the sum of its
      seats' scores;
    * ``done`` ``(N,)`` bool: a deal finished at this step (the row already shows the next deal
      unless ``autoreset=False``); ``outcome`` ``(N,)`` int8: 0 双扣, 1 单扣, 2 平扣 of the
      finished deal, -1 if none; ``places`` ``(N, 4)`` int8: its seats in place order;
    * ``to_act`` ``(N,)`` int8: the seat to act (an agent seat; -1 for a finished deal without
      autoreset); ``deal_index`` ``(N,)`` int64: the current deal's index in the seeded stream.
    """

    FIELDS = ("obs", "mask", "can_pass", "offsets", "words", "tags", "action_ids", "cards",
              "features", "rewards", "team_rewards", "done", "outcome", "places", "to_act",
              "deal_index")
    __slots__ = ("obs", "mask", "can_pass", "offsets", "_words", "_tags", "_action_ids",
                 "_cards", "_features", "rewards", "team_rewards", "done", "outcome", "places",
                 "to_act", "deal_index")

    def __init__(self, b: dict[str, np.ndarray]) -> None:
        self.obs: np.ndarray = b["obs"]
        self.mask: np.ndarray = b["mask"].view(bool)
        self.can_pass: np.ndarray = b["mask"][:, 0].view(bool)
        self.offsets: np.ndarray = b["offsets"]
        self._words: np.ndarray = b["words"]
        self._tags: np.ndarray = b["tags"]
        self._action_ids: np.ndarray = b["action_ids"]
        self._cards: np.ndarray = b["cards"]
        self._features: np.ndarray = b["features"]
        self.rewards: np.ndarray = b["rewards"]
        self.team_rewards: np.ndarray = b["team_rewards"]
        self.done: np.ndarray = b["done"].view(bool)
        self.outcome: np.ndarray = b["outcome"]
        self.places: np.ndarray = b["places"]
        self.to_act: np.ndarray = b["to_act"]
        self.deal_index: np.ndarray = b["deal_index"]

    @property
    def words(self) -> np.ndarray:
        return self._words[: self.offsets[-1]]

    @property
    def tags(self) -> np.ndarray:
        return self._tags[: self.offsets[-1]]

    @property
    def action_ids(self) -> np.ndarray:
        return self._action_ids[: self.offsets[-1]]

    @property
    def cards(self) -> np.ndarray:
        return self._cards[: self.offsets[-1]]

    @property
    def features(self) -> np.ndarray:
        return self._features[: self.offsets[-1]]


def _kernel_name(bot: object, seat: int, rules: Rules) -> str:
    """The kernel policy an opponent stands for: ``"random"``/``"greedy"``, or a bot of the
    protocol (:mod:`shuangkou.bots`) the kernel plays (its ``kernel``), made for ``rules``."""
    if isinstance(bot, str):
        if bot in _POLICIES:
            return bot
        raise ValueError(f"opponent policy of seat {seat} must be 'random' or 'greedy' (the "
                         f"kernel's players), not {bot!r}")
    if not callable(bot):
        raise ValueError(f"opponent policy of seat {seat} must be 'random', 'greedy' or a "
                         f"bot, not {type(bot).__name__}")
    from ..bots import check_rules  # local: the bots pull in the solver and the network

    check_rules(bot, rules)
    kernel = getattr(bot, "kernel", None)
    if kernel in _POLICIES:
        return str(kernel)
    name = getattr(bot, "name", None) or getattr(bot, "__name__", type(bot).__name__)
    raise ValueError(
        f"opponent policy of seat {seat}: bot {name!r} runs in Python, and the VecEnv kernel "
        "plays only its own players, 'random' and 'greedy' (bots.make of either): leave the "
        "seat to the agent and play the bot there, or use simulate / the arena, which play "
        "any bot")


def _in_use(what: str = "VecEnv") -> ConcurrentUseError:
    return ConcurrentUseError(
        f"this {what} is in use by another thread: a {what} serves one thread at a time "
        "(give each thread its own)")


def _key_hash(table: ActionTable) -> tuple[np.ndarray, np.ndarray]:
    """Open-addressing table action key → action id for the kernel (``_rl._action_id``)."""
    keys = table.tags.astype(np.uint64) & KEY_MASK
    size = 1 << int(4 * len(table)).bit_length()
    hk = np.zeros(size, np.uint32)
    hv = np.zeros(size, np.int32)
    for a in range(1, len(table)):
        k = int(keys[a])
        h = (k * 2654435761) & (size - 1)
        while hk[h]:
            h = (h + 1) & (size - 1)
        hk[h], hv[h] = k, a
    return hk, hv


class VecEnv:
    """``n`` deals of ``rules`` stepped together in C with the GIL released; ``threads``
    workers split the batch (the results do not depend on it).

    ``opponents`` maps seats to a built-in policy (``"random"``: uniform over the legal plays
    and pass; ``"greedy"``: the kernel's heuristic; or ``shuangkou.bots.make`` of either, for
    these rules) played inside the kernel — any other bot is refused, saying why; the other
    seats
    are the agent's: every returned row is an agent seat's decision. ``log=True`` keeps each
    deal's actions (:meth:`deal_log`), for replays and tests. With ``autoreset=False`` a
    finished deal stays over (``to_act`` -1, no legal plays, its actions ignored) until
    ``reset``: what the single-deal PettingZoo and Gymnasium envs use.

    Threads: a VecEnv is used by one thread at a time (its ``threads`` workers are its own).
    A call made while another thread's call on the same env is still running raises
    :class:`~shuangkou.errors.ConcurrentUseError` (a ``RuntimeError``) and changes nothing;
    give each thread its own VecEnv. A step interrupted by Ctrl-C (``KeyboardInterrupt``, within
    milliseconds even for a large batch) leaves its deals part-way: ``reset`` before stepping
    again."""

    def __init__(
        self,
        rules: Rules | str,
        n: int,
        *,
        threads: int = 1,
        opponents: Mapping[int, str] | None = None,
        log: bool = False,
        autoreset: bool = True,
    ) -> None:
        self.rules: Rules = as_rules(rules)
        n = as_int(n, "n", 1, 2**31 - 1)  # the kernel counts rows in a C int
        threads = as_int(threads, "threads", 1, n)
        policy = [_rl.AGENT] * 4
        if opponents is not None and not isinstance(opponents, Mapping):
            raise ArgumentError("opponents must map seats to 'random' or 'greedy' (a dict), not "
                                f"{type(opponents).__name__}")
        for key, name in (opponents or {}).items():
            seat = as_seat(key, "opponent seat")
            policy[seat] = _POLICIES[_kernel_name(name, seat, self.rules)]
        if _rl.AGENT not in policy:
            raise ValueError("every seat is an opponent: the agent must control at least one")
        self.n: int = n
        self.threads: int = threads
        self.agent_seats: tuple[int, ...] = tuple(s for s in range(4) if policy[s] == _rl.AGENT)
        self.table: ActionTable = action_table(self.rules)
        hk, hv = _key_hash(self.table)
        # held by the call using the kernel (never waited on; the one-row step takes it in C)
        busy = _rl.Busy()
        self._template = State.deal(self.rules, 0)  # carries the rules as the engine reads them
        params = {
            "state": self._template,
            "revealed": int(self.rules.first_leader == "revealed"),
            "partner_visible": int(self.rules.partner_visible), "policy": policy, "n": n,
            "threads": threads, "hash_keys": hk, "hash_values": hv, "key_mask": KEY_MASK,
            "autoreset": int(autoreset),
            "busy": busy,
        }
        self._capacity = 0
        self._buf: dict[str, np.ndarray] = {
            "obs": np.zeros((n, OBS_SIZE), np.float32),
            "mask": np.zeros((n, len(self.table)), np.uint8),
            "offsets": np.zeros(n + 1, np.int64),
            "rewards": np.zeros((n, 4), np.float32),
            "team_rewards": np.zeros((n, 2), np.float32),
            "done": np.zeros(n, np.uint8),
            "to_act": np.zeros(n, np.int8),
            "deal_index": np.zeros(n, np.int64),
            "outcome": np.full(n, -1, np.int8),
            "places": np.zeros((n, 4), np.int8),
        }
        self._offsets_view = self._buf["offsets"].data
        self._mask_view = self._buf["mask"].reshape(-1).data
        self._grow(256 * n)
        if log:
            for name, dt in (("seat", np.int8), ("word", np.uint64), ("tag", np.uint32)):
                self._buf[f"log_{name}"] = np.zeros((n, _rl.LOG_LENGTH), dt)
                self._buf[f"last_{name}"] = np.zeros((n, _rl.LOG_LENGTH), dt)
            self._buf["last_n"] = np.zeros(n, np.int32)
            self._buf["last_deal"] = np.full(n, -1, np.int64)
        self._kernel = _rl.VecKernel(params, self._buf)
        # workers 1..threads-1 wait in the kernel (GIL released) for each step's share; the
        # caller's thread does share 0. The finalizer stops them if close() is never called.
        self._workers = [
            threading.Thread(target=self._kernel.serve, args=(t,), daemon=True,
                             name=f"shuangkou-vecenv-{t}")
            for t in range(1, threads)]
        for w in self._workers:
            w.start()
        self._stop = weakref.finalize(self, self._kernel.stop)
        self._last: Step | None = None
        self._busy = busy

    def _enter(self) -> _rl.VecKernel:
        """The kernel, for one call (``try: … finally: self._busy.release()``): a second
        thread's call meanwhile is refused, not waited for (the kernel writes its slots and
        buffers with the GIL released; two calls at once would race)."""
        if not self._busy.acquire(False):
            raise _in_use()
        return self._kernel

    def _grow(self, capacity: int) -> None:
        """Play arrays for ``capacity`` legal plays in all (thread ``t`` lists into its
        ``1/threads`` region of them; the kernel then compacts them into the CSR)."""
        self._capacity = capacity
        b = self._buf
        b["words"] = np.zeros(capacity, np.uint64)
        b["tags"] = np.zeros(capacity, np.uint32)
        b["action_ids"] = np.zeros(capacity, np.int32)
        b["cards"] = np.zeros((capacity, 15), np.uint8)
        b["features"] = np.zeros((capacity, 7), np.uint8)
        # memoryviews for _legal_actions: an element or a slice of one costs tens of
        # instructions, of a numpy array hundreds (a scalar object, an index parsed)
        self._aids_view = b["action_ids"].data

    def _run(self, k: _rl.VecKernel, mode: int) -> Step:
        """Run the kernel (``mode``: 0 reset, 1 step, 2 list again) with ``_enter`` held."""
        if self._kernel_run(k, mode) < 0:
            return self._relist(k)
        if self._last is None:
            self._last = Step(self._buf)
        return self._last

    def _kernel_run(self, k: _rl.VecKernel, mode: int) -> int:
        try:
            return k.run(mode)
        except BaseException:  # Ctrl-C stopped the deals part-way: only reset may follow
            self._last = None
            raise

    def _relist(self, k: _rl.VecKernel) -> Step:
        """A thread's region overflowed: grow, list again (the deals do not move twice) until
        the arrays hold every play; the Step of the new arrays. With ``_enter`` held."""
        while True:
            self._grow(2 * self._capacity)
            k.bind(self._buf)
            if self._kernel_run(k, 2) >= 0:
                break
        self._last = Step(self._buf)
        return self._last

    @property
    def last(self) -> Step:
        """The arrays of the last ``reset`` / ``step``."""
        if self._last is None:
            raise RuntimeError("call reset() first")
        return self._last

    def reset(self, seed: int = 0) -> Step:
        """Start deal ``i`` of the stream seeded ``seed`` in row ``i`` (later deals of row
        ``i``: ``i + N``, ``i + 2N``, …); deal ``k``'s cards are those of
        ``Game(rules, rng.deal_seed(seed, k))``."""
        seed = as_seed(seed)
        k = self._enter()
        try:
            k.set_seed(seed)
            return self._run(k, 0)
        finally:
            self._busy.release()

    def step(self, actions: Any, *, table_ids: bool = False) -> Step:
        """Apply one action per deal and run to the next agent decision of each.

        ``actions`` (N,) ints: indices into each deal's legal list (``-1`` passes), or with
        ``table_ids=True`` action-table ids (0 passes; the cards are chosen by the rule of
        docs/rl.md). An illegal action raises :class:`IllegalPlayError` naming the deal, and
        no deal moves."""
        a = np.asarray(actions)
        if a.shape != (self.n,) or a.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.n} ints, got {a.dtype} {a.shape}")
        if a.dtype.kind == "u" and a.dtype.itemsize == 8 and self.n and int(a.max()) >= 2**63:
            # as int64 it would wrap (2**64-1 → -1, a pass): no action is that large
            bad = int(np.argmax(a >= 2**63))
            why = _REASONS[3 if table_ids else 2]
            raise IllegalPlayError(f"deal {bad}: action {int(a[bad])}: {why}")
        return self._step(np.ascontiguousarray(a, dtype=np.int64), table_ids)

    def _step(self, a: np.ndarray, table_ids: bool) -> Step:
        """``step`` past its argument checks: ``a`` is a contiguous (N,) int64 array (the
        single-deal envs build theirs once and call this each step)."""
        k = self._enter()
        try:
            if self._last is None:
                raise RuntimeError("call reset() before step()")
            bad, why = k.resolve(a, table_ids)
            if bad >= 0:
                raise IllegalPlayError(f"deal {bad}: action {int(a[bad])}: {_REASONS[why]}")
            return self._run(k, 1)
        finally:
            self._busy.release()

    def _step_one(self, action: int, table_ids: bool) -> int:
        """``_step`` of a one-deal, one-thread env, its one action an int, in one kernel call
        (``VecKernel.step_row``: what the single-deal PettingZoo and Gymnasium envs call each
        step; no array is built or converted): the seat to act next, -1 once the deal is over
        (:attr:`last` holds the arrays)."""
        if self._last is None:
            raise RuntimeError("call reset() before step()")
        try:
            seat: int = self._kernel.step_row(action, table_ids)
        except BaseException:  # Ctrl-C stopped the deal part-way: only reset may follow
            self._last = None
            raise
        if seat >= -1:
            return seat
        if seat == _rl.ROW_BUSY:
            raise _in_use()
        if seat != _rl.ROW_OVERFLOW:
            why = _rl.ROW_ILLEGAL - seat
            raise IllegalPlayError(f"deal 0: action {action}: {_REASONS[why]}")
        try:  # step_row left the env entered
            self._relist(self._kernel)
        finally:
            self._busy.release()
        return int(self._buf["to_act"][0])

    def set_position(self, i: int, state: State) -> Step:
        """Row ``i`` continues from ``state`` (a :class:`shuangkou.State` of the same rules
        whose seat to act is an agent seat): endgames, puzzles, curricula. The row keeps its
        deal index; it has no 明牌 facts (those observation fields are 0) and the cards played
        are those since the position was set up. Returns the refreshed :class:`Step`.

        The position must be one of a standard deal (``check_position`` with 27 cards a seat:
        the action table holds the plays of such hands); a scripted deal's bigger hands are
        refused with a ``ValueError`` and the row is left as it was."""
        i = self._row(i)
        if not isinstance(state, State) or state.rules != self.rules:
            raise ValueError(f"state must be a shuangkou.State under {self.rules.name}")
        if state.is_over or state.to_act not in self.agent_seats:
            raise ValueError(f"the seat to act must be an agent seat {self.agent_seats}, "
                             f"got {state.to_act!r}")
        check_position([state.hand(s) for s in range(4)], state.table, state.table_owner,
                       [state.bombs_played(s) for s in range(4)])
        k = self._enter()
        try:
            if self._last is None:
                raise RuntimeError("call reset() before set_position()")
            k.load(i, state)
            out = self._run(k, 2)
            row = k.unmapped_row()
            if row >= 0:  # a play the action table lacks (C left it out of the mask row)
                self._last = None
                raise ValueError(f"row {row}: a legal play is missing from the action table; "
                                 "reset() before stepping again")
            return out
        finally:
            self._busy.release()

    # -- inspection ------------------------------------------------------------------------------
    def _row(self, i: object) -> int:
        """A row index 0..n-1 by the argument rule (``hands(-1)`` is refused, not the last
        row; the kernel checks the row again in C before it reads a slot)."""
        return as_int(i, "row", 0, self.n - 1)

    def legal_plays(self, i: int) -> list[Play]:
        """Row ``i``'s legal plays as :class:`Play` objects (the order of ``legal_plays``)."""
        i = self._row(i)
        self._enter()
        try:
            o = self._buf["offsets"]
            lo, hi = int(o[i]), int(o[i + 1])
            return [Play._from_codes(int(w), int(t))
                    for w, t in zip(self._buf["words"][lo:hi], self._buf["tags"][lo:hi])]
        finally:
            self._busy.release()

    def _legal_actions(self) -> list[int]:
        """Row 0's legal action-table ids, ascending, pass (0) first when it is legal: the
        single-deal envs' ``legal_actions()`` (no argument checks; the caller holds its own
        one-call-at-a-time flag). From the CSR plays' ``action_ids`` (about 10 a decision),
        not from the 1,079-entry mask: several plays can share an action, hence the set."""
        ids = sorted(set(self._aids_view[: self._offsets_view[1]].tolist()))
        if self._mask_view[0]:  # row 0's pass
            ids.insert(0, 0)
        return ids

    def observe(self, i: int, seat: int) -> np.ndarray:
        """Row ``i``'s observation from ``seat``'s point of view (any seat)."""
        out = np.empty(OBS_SIZE, np.float32)
        i, seat = self._row(i), as_seat(seat)
        k = self._enter()
        try:
            k.observe(i, seat, out)
        finally:
            self._busy.release()
        return out

    def position(self, i: int) -> tuple[Any, ...]:
        """``(to_act, table_word, table_tag, owner, passes, places)`` of row ``i``."""
        i = self._row(i)
        k = self._enter()
        try:
            return tuple(k.position(i))
        finally:
            self._busy.release()

    def state(self, i: int) -> State:
        """Row ``i``'s position as a :class:`shuangkou.State`: a copy (playing on it does not
        move the row), with no undo history and no R7 明牌 facts. It holds every hand —
        hidden information, as :meth:`hands` — for training, search and tests; what a seat may
        know is ``state(i).view(seat)``, the view every bot of :mod:`shuangkou.bots` plays
        from (``examples/train_dmc.py`` builds its features from it)."""
        i = self._row(i)
        k = self._enter()
        try:
            return k.state(i, self._template)
        finally:
            self._busy.release()

    def hands(self, i: int) -> tuple[int, int, int, int]:
        """The four packed hands of row ``i`` (hidden information: for tests and renders)."""
        i = self._row(i)
        k = self._enter()
        try:
            return k.hands(i)
        finally:
            self._busy.release()

    def deal_log(self, i: int, last: bool = False) -> tuple[int, list[tuple[int, Play | None]]]:
        """``(deal index, [(seat, play or None for a pass)])`` of row ``i``'s current deal
        (``last=True``: of its last finished deal). Needs ``log=True``."""
        i = self._row(i)
        k = self._enter()
        try:
            index, rows = k.log(i, last)
        finally:
            self._busy.release()
        return index, [(s, Play._from_codes(w, t) if t else None) for s, w, t in rows]

    @property
    def memory_bytes(self) -> int:
        """Bytes of the env's buffers and deal slots (numpy arrays + C structs)."""
        arrays: int = sum(int(v.nbytes) for v in self._buf.values())
        return arrays + self.n * _rl.SLOT_BYTES + self.threads * _rl.OPPONENT_BUFFER * 12

    def close(self) -> None:
        """Stop the worker threads (later steps run in the caller's thread alone)."""
        self._enter()
        try:
            self._stop()
            for w in self._workers:
                w.join()
            self._workers = []
        finally:
            self._busy.release()

    def __repr__(self) -> str:
        return (f"VecEnv({self.rules.name!r}, n={self.n}, threads={self.threads}, "
                f"agent_seats={self.agent_seats})")

