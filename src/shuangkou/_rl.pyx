# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The RL vector environment's kernel: N deals over the game state of ``_state.pxd``, stepped
in ``noexcept nogil`` C (docs/rl.md). :class:`shuangkou.rl.VecEnv` owns the numpy buffers and
the threads; this module fills them.

A step has three phases, so that a bad action changes nothing and threads never share memory:

1. ``resolve`` (serial, cheap): each deal's action — an index into its legal list or an action
   table id (docs/rl.md: the documented card choice) — becomes a (word, tag) or a pass, read
   from the output CSR of the previous step. An illegal action is reported before any deal
   moves.
2. ``run``: thread ``t`` (deals ``lo[t]:hi[t]``; the caller's thread is thread 0, the others
   wait in ``serve``) applies the action, lets the built-in opponents
   (``_selfplay.greedy_shortcut``, listing plays only when it must, or uniform random)
   play the seats the agent does not control, score a finished deal (``sk_score``) and start
   the next one from the seeded stream (deal ``k`` of env ``i`` is deal index ``i + k·N``:
   ``sk_deal(sk_deal_seed(seed, index))``, the same whatever N and threads), then list the legal plays of the seat to act
   (``sk_legal``) into thread ``t``'s region of the play arrays, set the mask row, write the
   observation from the deal's incrementally kept state and each play's card counts and
   reading features.
3. ``run``, serial: the CSR offsets, and each region's plays moved down to follow the previous
   region's (one ``memmove`` per array and thread; thread 0's region is already in place).

Every index the kernel writes from its input is checked in C before the write: the row of a
``def`` call (``_slot``), the action id of a listed play in its mask row (a play the action
table does not hold marks its row ``unmapped`` instead, and VecEnv refuses the position). Ctrl-C
reaches a step through the shared budget (``_budget.pxd``): thread 0 ticks once a deal; when a
signal handler raised it sets ``halt``, which the workers read before each deal, every share
ends early, nothing is compacted, and ``run`` raises the ``KeyboardInterrupt`` (VecEnv then
needs a ``reset``: the deals stopped part-way through the step). Thread safety is VecEnv's: one call at a time (it refuses a second
thread's call while one runs).

One wake-up per thread per step and no Python between the phases: at a batch of 1,024 a step
is ~0.3 ms of work, and two thread-pool round trips a step (tens of µs each, the GIL taken
and dropped by every worker) cost more than the second core gave.
"""

cimport cython
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memmove, memset
from cpython.pythread cimport (
    WAIT_LOCK, PyThread_acquire_lock, PyThread_allocate_lock, PyThread_free_lock,
    PyThread_release_lock, PyThread_type_lock,
)

from _packed cimport nib
from _readings cimport (
    K_BOMB, K_FOUR_JOKERS, tag_kind, tag_length, tag_size, tag_stars, tag_top, tag_width,
    tag_wilds,
)
from _selfplay cimport (
    POL_GREEDY, POL_RANDOM, SP_CAP, SP_LIST, fewest_cards, greedy_listed, greedy_shortcut,
)
from shuangkou._engine cimport State
from _state cimport (
    SkDeal, SkParams, SkScore, SkState, sk_card_rank, sk_deal, sk_deal_seed, sk_init, sk_legal,
    sk_pass, sk_play, sk_rng_bounded, sk_score,
)
from _budget cimport SkBudget, budget_init, budget_raise, budget_tick

cdef extern from *:
    """
    /* ``halt``: written by thread 0, read by the workers while they run (relaxed atomics) */
    #if defined(_MSC_VER)
    static int sk_load_flag(int* p) { return *(volatile int*)p; }
    static void sk_store_flag(int* p, int v) { *(volatile int*)p = v; }
    #else
    static int sk_load_flag(int* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static void sk_store_flag(int* p, int v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    #endif
    """
    int sk_load_flag(int* p) noexcept nogil
    void sk_store_flag(int* p, int v) noexcept nogil

cdef extern from *:
    """
    /* ``Busy.held``: taken (0 -> 1) by one thread at a time, never waited on */
    #if defined(_MSC_VER)
    #include <intrin.h>
    static int sk_try_take(int* p) {
        return _InterlockedCompareExchange((volatile long*)p, 1, 0) == 0;
    }
    static void sk_give_back(int* p) { _InterlockedExchange((volatile long*)p, 0); }
    #else
    static int sk_try_take(int* p) {
        int free_ = 0;
        return __atomic_compare_exchange_n(p, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
    }
    static void sk_give_back(int* p) { __atomic_store_n(p, 0, __ATOMIC_RELEASE); }
    #endif
    """
    bint sk_try_take(int* p) noexcept nogil
    void sk_give_back(int* p) noexcept nogil

cdef enum:
    POL_AGENT = 2           # the seat is played by the caller
    LOG_CAP = 640           # decisions of one deal (≤ 108 plays, each followed by ≤ 3 passes)
    # the observation layout (shuangkou.batch.OBS_FIELDS, version 2; tests assert equality)
    OBS_SIZE = 182
    O_HAND = 0
    O_PARTNER = 15
    O_PVIS = 30
    O_LEFT = 31
    O_PLAYED = 35
    O_PLACE = 95
    O_LEADING = 99
    O_TCARDS = 100
    O_TREAD = 115
    O_TOWNER = 122
    O_PASSES = 126
    O_BOMBS = 127
    O_RRANK = 159
    O_RHOLDER = 174
    O_TWIN = 178

OBS = OBS_SIZE
AGENT = POL_AGENT
RANDOM = POL_RANDOM
GREEDY = POL_GREEDY
OPPONENT_BUFFER = SP_CAP
# what VecKernel.step_row returns besides the seat to act (-1: the deal is over)
ROW_OVERFLOW = -2       # the play arrays were too small: grow, list again, then release Busy
ROW_BUSY = -3           # another thread's call holds the env: nothing done
ROW_ILLEGAL = -4        # ROW_ILLEGAL - why: the action is illegal (why as resolve's), nothing moved


@cython.final
@cython.auto_pickle(False)
cdef class Busy:
    """The one-call-at-a-time flag of a VecEnv (``threading.Lock``'s non-blocking
    ``acquire(False)`` / ``release()``): a call that finds it taken is refused, never waits.
    A C int, so that the kernel's one-row step reads and takes it without a Python call."""

    cdef int held

    def acquire(self, bint blocking):
        """Take the flag if it is free (``blocking`` must be False: nothing waits): whether
        it was taken."""
        if blocking:
            raise ValueError("a VecEnv's Busy flag is never waited on: acquire(False)")
        return sk_try_take(&self.held)

    def release(self):
        sk_give_back(&self.held)


cdef struct Slot:
    SkState st
    uint64_t rng            # the opponents' randomness: the deal's generator after its draws
    int64_t deal            # deal index in the seeded stream
    uint8_t bombs[32]       # 4 × 8: bombs per seat by grade (batch.bomb_grade)
    int8_t rev_rank         # rank of the 明牌 card, -1 with a random leader
    int8_t twin             # seat holding its twin after the swap
    int32_t n_log
    # phase 1 → 2: the resolved action
    uint64_t ch_word
    uint32_t ch_tag         # 0: pass
    # phase 2 → 3: how many plays the thread listed
    int32_t n_plays


cdef inline int bomb_grade(uint32_t tag) noexcept nogil:
    """shuangkou.batch.bomb_grade."""
    cdef int s = tag_stars(tag), z
    if s:
        return (s if s < 11 else 11) - 4
    if tag_kind(tag) == K_FOUR_JOKERS:
        return 7
    z = tag_size(tag)
    return (z if z < 11 else 11) - 4


@cython.final
@cython.auto_pickle(False)
cdef class AgentIter:
    """``agent_iter(max_iter)`` of the PettingZoo env (``shuangkou.rl.aec``): the env's
    ``agent_selection``, step after step, while ``env.agents`` is not empty, at most
    ``max_iter`` times (counted in 64 bits: a bigger bound is 2**64 - 1 steps). An iterator
    in C: a Python generator's resumption and PettingZoo's ``__next__`` frame cost a few
    hundred instructions a step."""

    cdef object env
    cdef uint64_t left

    def __init__(self, env, max_iter):
        self.env = env
        self.left = 0 if max_iter <= 0 else min(max_iter, 0xFFFFFFFFFFFFFFFF)

    def __iter__(self):
        return self

    def __next__(self):
        if self.left == 0 or not self.env.agents:
            raise StopIteration
        self.left -= 1
        return self.env.agent_selection


@cython.auto_pickle(False)  # holds C pointers: not picklable
cdef class VecKernel:
    """N deals and the buffers they are written into (see the module docstring). Built and
    driven by :class:`shuangkou.rl.VecEnv`, which checks every argument first."""

    cdef SkParams p
    cdef int revealed, partner_visible, n, threads, log_on, autoreset
    cdef int policy[4]
    cdef uint64_t seed
    cdef Slot* slots
    # the action-key hash (open addressing; keys never 0)
    cdef uint32_t[::1] hkeys
    cdef int32_t[::1] hvals
    cdef uint32_t hmask
    cdef uint32_t key_mask      # shuangkou.batch.KEY_MASK: the tag bits of an action
    # outputs
    cdef float[:, ::1] obs
    cdef uint8_t[:, ::1] mask
    cdef int64_t[::1] offsets
    cdef uint64_t[::1] words
    cdef uint32_t[::1] tags
    cdef int32_t[::1] aids
    cdef uint8_t[:, ::1] cards
    cdef uint8_t[:, ::1] feats
    cdef float[:, ::1] rewards
    cdef float[:, ::1] team_rewards
    cdef uint8_t[::1] done
    cdef int8_t[::1] to_act
    cdef int64_t[::1] deal_index
    cdef int8_t[::1] outcome
    cdef int8_t[:, ::1] places
    # scratch: thread regions of the listed plays, opponents' play buffers
    cdef int64_t rcap           # play capacity: thread t lists into [rcap·t/T, rcap·(t+1)/T)
    cdef uint64_t* owords       # per thread: SP_CAP plays for the opponents
    cdef uint32_t* otags
    cdef int64_t* need          # per thread: plays its deals listed (overflow if > region)
    cdef int64_t* unmapped      # per thread: a row with a play missing from the action table
    cdef SkBudget budget        # Ctrl-C during run (thread 0's share ticks it)
    cdef int halt               # set by thread 0 when the budget stopped: every share ends
    # workers 1..T-1: ``wake[t]`` released = a step to run (``cmd``: its mode, -1 = stop),
    # ``idle[t]`` released = its share done
    cdef Busy busy              # VecEnv's call flag (step_row takes it itself)
    cdef PyThread_type_lock* wake
    cdef PyThread_type_lock* idle
    cdef int cmd
    cdef bint serving
    # the action log of each deal (optional): this deal's and the last finished deal's
    cdef int8_t[:, ::1] log_seat
    cdef uint64_t[:, ::1] log_word
    cdef uint32_t[:, ::1] log_tag
    cdef int8_t[:, ::1] last_seat
    cdef uint64_t[:, ::1] last_word
    cdef uint32_t[:, ::1] last_tag
    cdef int32_t[::1] last_n
    cdef int64_t[::1] last_deal

    def __cinit__(self, dict params, dict buffers):
        cdef int n = params["n"], threads = params["threads"], t
        self.threads = threads
        self.slots = <Slot*>calloc(n, sizeof(Slot))
        self.owords = <uint64_t*>calloc(<size_t>threads * SP_CAP, sizeof(uint64_t))
        self.otags = <uint32_t*>calloc(<size_t>threads * SP_CAP, sizeof(uint32_t))
        self.need = <int64_t*>calloc(threads, sizeof(int64_t))
        self.unmapped = <int64_t*>calloc(threads, sizeof(int64_t))
        self.wake = <PyThread_type_lock*>calloc(threads, sizeof(PyThread_type_lock))
        self.idle = <PyThread_type_lock*>calloc(threads, sizeof(PyThread_type_lock))
        if not (self.slots and self.owords and self.otags and self.need and self.unmapped
                and self.wake and self.idle):
            raise MemoryError()
        for t in range(1, threads):
            self.wake[t] = PyThread_allocate_lock()
            self.idle[t] = PyThread_allocate_lock()
            if not (self.wake[t] and self.idle[t]):
                raise MemoryError()
            PyThread_acquire_lock(self.wake[t], WAIT_LOCK)      # taken: nothing to run yet
            PyThread_acquire_lock(self.idle[t], WAIT_LOCK)

    def __dealloc__(self):
        # the workers hold a reference while they serve: none is left here
        cdef int t
        if self.wake and self.idle:
            for t in range(1, self.threads):
                if self.wake[t]:
                    PyThread_free_lock(self.wake[t])
                if self.idle[t]:
                    PyThread_free_lock(self.idle[t])
        free(self.wake)
        free(self.idle)
        free(self.slots)
        free(self.owords)
        free(self.otags)
        free(self.need)
        free(self.unmapped)

    def __init__(self, dict params, dict buffers):
        cdef int s
        cdef State rules_state = params["state"]
        self.p = rules_state.p          # the rules as the engine reads them (sk.State)
        self.revealed = params["revealed"]
        self.partner_visible = params["partner_visible"]
        self.autoreset = params["autoreset"]
        for s in range(4):
            self.policy[s] = params["policy"][s]
        self.n = params["n"]
        self.busy = params["busy"]
        self.serving = self.threads > 1
        self.seed = 0
        self.hkeys = params["hash_keys"]
        self.hvals = params["hash_values"]
        self.hmask = <uint32_t>(self.hkeys.shape[0] - 1)
        self.key_mask = params["key_mask"]
        self.log_on = "log_seat" in buffers
        if self.log_on:
            self.log_seat = buffers["log_seat"]
            self.log_word = buffers["log_word"]
            self.log_tag = buffers["log_tag"]
            self.last_seat = buffers["last_seat"]
            self.last_word = buffers["last_word"]
            self.last_tag = buffers["last_tag"]
            self.last_n = buffers["last_n"]
            self.last_deal = buffers["last_deal"]
        self.bind(buffers)

    def bind(self, dict b):
        """(Re)bind the output and scratch buffers (after VecEnv grows them)."""
        self.obs = b["obs"]
        self.mask = b["mask"]
        self.offsets = b["offsets"]
        self.words = b["words"]
        self.tags = b["tags"]
        self.aids = b["action_ids"]
        self.cards = b["cards"]
        self.feats = b["features"]
        self.rewards = b["rewards"]
        self.team_rewards = b["team_rewards"]
        self.done = b["done"]
        self.to_act = b["to_act"]
        self.deal_index = b["deal_index"]
        self.outcome = b["outcome"]
        self.places = b["places"]
        self.rcap = self.words.shape[0]

    cdef Slot* _slot(self, object i) except NULL:
        """Deal ``i``'s slot, its index checked (every ``def`` taking a row goes through it)."""
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < self.n:
            raise IndexError(f"row must be 0..{self.n - 1}, got {i!r}")
        return &self.slots[<int>i]

    # -- phase 1 -------------------------------------------------------------------------------
    def resolve(self, const int64_t[::1] actions, bint table_ids):
        """Turn each deal's action into a play or a pass. Returns ``(-1, 0)``, or the first bad
        deal and a reason: 1 pass when leading, 2 index out of range, 3 table id not legal."""
        cdef int i, bad = -1, why = 0
        if actions.shape[0] != self.n:
            raise ValueError(f"actions must have {self.n} entries, not {actions.shape[0]}")
        with nogil:
            for i in range(self.n):
                why = self._resolve_one(i, actions[i], table_ids)
                if why:
                    bad = i
                    break
        return bad, why

    def step_row(self, int64_t action, bint table_ids):
        """:meth:`resolve` and :meth:`run` (a step) of a one-deal, one-thread env in one call,
        its one action an int, the GIL held throughout (one deal's step is a few thousand
        instructions; releasing and taking back the GIL would cost a fifth of it): what the
        single-deal PettingZoo and Gymnasium envs call each step. Takes VecEnv's Busy flag
        itself. Returns the seat to act (-1 once the deal is over), or ``ROW_BUSY`` (another
        thread's call holds the env), ``ROW_ILLEGAL - why`` (nothing moved), ``ROW_OVERFLOW``
        (the deal moved but its plays did not fit: the flag stays taken for the caller to grow
        the arrays, ``run(2)`` and release it)."""
        cdef int why
        cdef int64_t total
        if self.n != 1 or self.serving:
            raise ValueError(f"step_row is for a one-deal, one-thread env, not {self.n} deals")
        if not sk_try_take(&self.busy.held):
            return ROW_BUSY
        why = self._resolve_one(0, action, table_ids)
        if why:
            sk_give_back(&self.busy.held)
            return ROW_ILLEGAL - why
        budget_init(&self.budget, 0, 0)
        self.halt = 0
        self._work(0, 1)
        total = -2 if self.halt else self._compact()
        if total == -1:
            return ROW_OVERFLOW
        sk_give_back(&self.busy.held)
        budget_raise(&self.budget)  # a Ctrl-C during the step (total -2): KeyboardInterrupt
        return self.to_act[0]

    cdef int _resolve_one(self, int i, int64_t a, bint table_ids) noexcept nogil:
        cdef Slot* e = &self.slots[i]
        cdef int64_t lo = self.offsets[i], hi = self.offsets[i + 1], k, best = -1
        cdef uint64_t bj, best_bj = 0
        if e.st.over:       # a finished deal without autoreset: the action is ignored
            return 0
        if table_ids:
            if a == 0:
                if e.st.table == 0:
                    return 1
                e.ch_tag = 0
                return 0
            # the documented choice: fewest big jokers, then the lowest packed word
            for k in range(lo, hi):
                if self.aids[k] != a:
                    continue
                bj = (self.words[k] >> 56) & 15
                if best < 0 or bj < best_bj or (bj == best_bj and self.words[k] < self.words[best]):
                    best = k
                    best_bj = bj
            if best < 0:
                return 3
            e.ch_word = self.words[best]
            e.ch_tag = self.tags[best]
            return 0
        if a == -1:
            if e.st.table == 0:
                return 1
            e.ch_tag = 0
            return 0
        if a < 0 or a >= hi - lo:
            return 2
        e.ch_word = self.words[lo + a]
        e.ch_tag = self.tags[lo + a]
        return 0

    # -- phase 2 -------------------------------------------------------------------------------
    def set_seed(self, uint64_t seed):
        """The seed of the deal stream (before ``advance(t, 0)``)."""
        self.seed = seed

    def run(self, int mode):
        """One step of every deal: thread 0 (the caller) and the workers (``serve``) each
        advance their deals, then the CSR is compacted. ``mode``: 0 reset (start deal ``i``),
        1 step (apply the resolved actions), 2 list again (after the regions grew; nothing
        moves). Returns the number of plays listed, or -1 if a thread's region overflowed
        (VecEnv grows the arrays, ``bind`` and ``run(2)``). After ``stop`` (or with one
        thread) the caller runs every thread's share itself. A Ctrl-C while it runs is raised
        here once the step is done (``budget_raise``)."""
        cdef int t
        cdef int64_t total
        budget_init(&self.budget, 0, 0)
        self.halt = 0
        with nogil:
            if self.serving:
                self.cmd = mode
                for t in range(1, self.threads):
                    PyThread_release_lock(self.wake[t])
                self._work(0, mode)
                for t in range(1, self.threads):
                    PyThread_acquire_lock(self.idle[t], WAIT_LOCK)
            else:
                for t in range(self.threads):
                    self._work(t, mode)
            # a halted step listed only some deals: the CSR would be wrong, leave it
            total = -2 if self.halt else self._compact()
        budget_raise(&self.budget)
        return total

    def unmapped_row(self):
        """A row of the last ``run`` with a legal play that the action table does not hold
        (its mask row lacks it), or -1: VecEnv refuses such a position."""
        cdef int t
        for t in range(self.threads):
            if self.unmapped[t] >= 0:
                return self.unmapped[t]
        return -1

    def serve(self, int t):
        """Worker ``t``'s loop (1 ≤ t < threads; VecEnv runs it in a thread of its own, GIL
        released): wait for ``run``, do the thread's share, signal; returns after ``stop``."""
        with nogil:
            while True:
                PyThread_acquire_lock(self.wake[t], WAIT_LOCK)
                if self.cmd < 0:
                    PyThread_release_lock(self.idle[t])
                    break
                self._work(t, self.cmd)
                PyThread_release_lock(self.idle[t])

    def stop(self):
        """End the workers' ``serve`` loops (waits for them); later ``run`` calls do every
        share in the caller's thread."""
        cdef int t
        if not self.serving:
            return
        with nogil:
            self.cmd = -1
            for t in range(1, self.threads):
                PyThread_release_lock(self.wake[t])
            for t in range(1, self.threads):
                PyThread_acquire_lock(self.idle[t], WAIT_LOCK)
        self.serving = False

    cdef void _work(self, int t, int mode) noexcept nogil:
        """Thread ``t``'s share of a step: advance its deals, then (if its region held their
        plays) write the plays' card counts and features beside them."""
        cdef int lo = <int>((<int64_t>self.n * t) // self.threads)
        cdef int hi = <int>((<int64_t>self.n * (t + 1)) // self.threads)
        cdef int64_t reg = (self.rcap * t) // self.threads
        self._advance(t, lo, hi, mode)
        if self.need[t] <= (self.rcap * (t + 1)) // self.threads - reg:
            self._describe(reg, reg + self.need[t])

    cdef void _advance(self, int t, int lo, int hi, int mode) noexcept nogil:
        cdef int i, n
        cdef int64_t reg = (self.rcap * t) // self.threads
        cdef int64_t end = (self.rcap * (t + 1)) // self.threads
        cdef int64_t pos = reg, total = 0
        cdef Slot* e
        self.unmapped[t] = -1
        for i in range(lo, hi):
            if t == 0:
                if budget_tick(&self.budget):
                    sk_store_flag(&self.halt, 1)
                    break
            elif sk_load_flag(&self.halt):
                break
            e = &self.slots[i]
            if mode != 2:
                self.done[i] = 0
                self.outcome[i] = -1
                memset(&self.rewards[i, 0], 0, 4 * sizeof(float))
                memset(&self.team_rewards[i, 0], 0, 2 * sizeof(float))
                if mode == 0:
                    e.deal = i
                    self._start(e, i)
                    self._run_opponents(e, i, t)
                elif not e.st.over:
                    self._apply(e, i, e.ch_word, e.ch_tag)
                    self._run_opponents(e, i, t)
                self.to_act[i] = e.st.to_act
                self.deal_index[i] = e.deal
                self._write_obs(e, e.st.to_act, &self.obs[i, 0])
            n = sk_legal(&self.p, &e.st, False, &self.words[pos], &self.tags[pos],
                         <int>(end - pos if end - pos < 0x7FFFFFFF else 0x7FFFFFFF))
            e.n_plays = n
            total += n
            if pos + n <= end:
                if not self._mask_row(i, pos, n, e.st.table != 0 and not e.st.over):
                    if self.unmapped[t] < 0:
                        self.unmapped[t] = i
                pos += n
            else:
                pos = end
        self.need[t] = total

    cdef void _start(self, Slot* e, int i) noexcept nogil:
        """Start deal ``e.deal`` of the seeded stream (R7 deal, 明牌 and swap: sk_deal)."""
        cdef SkDeal d
        cdef int k, other, oholder = -1
        sk_deal(sk_deal_seed(self.seed, <uint64_t>e.deal), self.revealed, &d)
        sk_init(&e.st, d.hands, d.leader)
        e.rng = d.after
        memset(e.bombs, 0, sizeof(e.bombs))
        e.n_log = 0
        e.rev_rank = -1
        e.twin = -1
        if d.revealed >= 0:
            e.rev_rank = <int8_t>sk_card_rank(d.revealed)
            if d.revealed < 104:
                other = d.revealed + 52 if d.revealed < 52 else d.revealed - 52
            else:
                other = d.revealed ^ 1
            for k in range(108):
                if d.deck[k] == other:
                    oholder = k // 27
            # R7: the twin's holder becomes the leader's partner, unless the leader holds both
            e.twin = d.leader if oholder == d.leader else d.leader ^ 2

    cdef void _apply(self, Slot* e, int i, uint64_t word, uint32_t tag) noexcept nogil:
        cdef int s = e.st.to_act
        if self.log_on and e.n_log < LOG_CAP:
            self.log_seat[i, e.n_log] = <int8_t>s
            self.log_word[i, e.n_log] = word
            self.log_tag[i, e.n_log] = tag
            e.n_log += 1
        if tag == 0:
            sk_pass(&e.st)
            return
        if tag_kind(tag) >= K_BOMB:
            e.bombs[8 * s + bomb_grade(tag)] += 1
        sk_play(&e.st, word, tag)

    cdef void _finish_deal(self, Slot* e, int i) noexcept nogil:
        """Score a finished deal into the step's rewards, keep its log, start the next one
        (without autoreset the deal stays over until ``reset``)."""
        cdef SkScore sc
        cdef int s
        cdef float v
        sk_score(&self.p, &e.st, False, &sc)
        for s in range(4):
            v = <float>(sc.units[s] * self.p.base_score)
            self.rewards[i, s] = v
            self.team_rewards[i, s & 1] += v
            self.places[i, s] = sc.places[s]
        self.done[i] = 1
        self.outcome[i] = sc.outcome
        if self.log_on:
            memcpy(&self.last_seat[i, 0], &self.log_seat[i, 0], e.n_log * sizeof(int8_t))
            memcpy(&self.last_word[i, 0], &self.log_word[i, 0], e.n_log * sizeof(uint64_t))
            memcpy(&self.last_tag[i, 0], &self.log_tag[i, 0], e.n_log * sizeof(uint32_t))
            self.last_n[i] = e.n_log
            self.last_deal[i] = e.deal
        if self.autoreset:
            e.deal += self.n
            self._start(e, i)

    cdef void _run_opponents(self, Slot* e, int i, int t) noexcept nogil:
        """Play the built-in seats until an agent seat is to act (finished deals restart)."""
        cdef int seat, n, c, opp_min
        cdef bint partner_owns
        cdef uint64_t* w = self.owords + <size_t>t * SP_CAP
        cdef uint32_t* g = self.otags + <size_t>t * SP_CAP
        while True:
            if e.st.over:
                self._finish_deal(e, i)
                if not self.autoreset:
                    return
                continue
            seat = e.st.to_act
            if self.policy[seat] == POL_AGENT:
                return
            if self.policy[seat] == POL_RANDOM:
                n = sk_legal(&self.p, &e.st, False, w, g, SP_CAP)
                if n > SP_CAP:
                    n = SP_CAP
                if e.st.table == 0:
                    c = sk_rng_bounded(&e.rng, n)
                else:
                    c = sk_rng_bounded(&e.rng, n + 1)
                    if c == n:
                        c = -1
            else:
                opp_min = fewest_cards(e.st.ncards[(seat + 1) & 3], e.st.ncards[(seat + 3) & 3])
                partner_owns = e.st.table != 0 and e.st.owner == (seat ^ 2)
                # most decisions need no list (greedy_shortcut writes its play to the first slot)
                c = greedy_shortcut(e.st.hand[seat], e.st.table, partner_owns, opp_min,
                                    e.st.ncards[seat], w, g, self.p.flags)
                if c == SP_LIST:
                    n = sk_legal(&self.p, &e.st, False, w, g, SP_CAP)
                    if n > SP_CAP:
                        n = SP_CAP
                    c = greedy_listed(e.st.hand[seat], e.st.table, opp_min, e.st.ncards[seat],
                                      w, g, n, self.p.flags)
            if c >= 0:
                self._apply(e, i, w[c], g[c])
            else:
                self._apply(e, i, 0, 0)

    cdef inline int32_t _action_id(self, uint32_t tag) noexcept nogil:
        cdef uint32_t key = tag & self.key_mask
        cdef uint32_t h = (key * 2654435761u) & self.hmask
        while self.hkeys[h] != key:
            if self.hkeys[h] == 0:
                return -1
            h = (h + 1) & self.hmask
        return self.hvals[h]

    cdef bint _mask_row(self, int i, int64_t pos, int n, bint answering) noexcept nogil:
        """Row ``i`` of the mask from its ``n`` plays at ``pos`` (their action ids written
        beside them); False if a play has no action id (an id is checked before it indexes
        the row: such a play is left out, its id -1)."""
        cdef Py_ssize_t width = self.mask.shape[1]
        cdef uint8_t* row
        cdef int k
        cdef int32_t a
        cdef bint ok = True
        if i < 0 or i >= self.mask.shape[0] or pos < 0 or pos + n > self.aids.shape[0]:
            return False
        row = &self.mask[i, 0]
        memset(row, 0, width)
        row[0] = answering
        for k in range(n):
            a = self._action_id(self.tags[pos + k])
            self.aids[pos + k] = a
            if 0 < a < width:
                row[a] = 1
            else:
                ok = False
        return ok

    cdef void _write_obs(self, const Slot* e, int me, float* o) noexcept nogil:
        """shuangkou.batch.observation for seat ``me``, from the state (no history)."""
        cdef const SkState* st = &e.st
        cdef int k, r, s
        cdef uint32_t tag = st.table
        memset(o, 0, OBS_SIZE * sizeof(float))
        if me < 0:
            return
        for r in range(15):
            o[O_HAND + r] = nib(st.hand[me], r)
        if self.partner_visible:
            o[O_PVIS] = 1
            for r in range(15):
                o[O_PARTNER + r] = nib(st.hand[me ^ 2], r)
        for k in range(4):
            s = (me + k) & 3
            o[O_LEFT + k] = st.ncards[s]
            for r in range(15):
                o[O_PLAYED + 15 * k + r] = nib(st.start[s] - st.hand[s], r)
            for r in range(8):
                o[O_BOMBS + 8 * k + r] = e.bombs[8 * s + r]
        for k in range(st.nplaces):
            o[O_PLACE + ((st.places[k] - me) & 3)] = k + 1
        if tag == 0:
            o[O_LEADING] = st.to_act == me
        else:
            for r in range(15):
                o[O_TCARDS + r] = nib(st.table_word, r)
            o[O_TREAD] = tag_kind(tag) + 1
            o[O_TREAD + 1] = tag_top(tag)
            o[O_TREAD + 2] = tag_width(tag)
            o[O_TREAD + 3] = tag_length(tag)
            o[O_TREAD + 4] = tag_stars(tag)
            o[O_TREAD + 5] = tag_size(tag)
            o[O_TREAD + 6] = tag_wilds(tag)
            o[O_TOWNER + ((st.owner - me) & 3)] = 1
            o[O_PASSES] = st.passes
        if e.rev_rank >= 0:
            o[O_RRANK + e.rev_rank] = 1
            o[O_RHOLDER + ((st.first_leader - me) & 3)] = 1
            o[O_TWIN + ((e.twin - me) & 3)] = 1

    # -- phase 3 -------------------------------------------------------------------------------
    cdef int64_t _compact(self) noexcept nogil:
        """Offsets of the output CSR, each thread's region moved down to follow the previous
        one; the total number of plays, or -1 if a region overflowed."""
        cdef int i, t
        cdef int64_t reg, dst, cnt, total = 0
        for t in range(self.threads):
            reg = (self.rcap * (t + 1)) // self.threads - (self.rcap * t) // self.threads
            if self.need[t] > reg:
                return -1
        self.offsets[0] = 0
        for i in range(self.n):
            total += self.slots[i].n_plays
            self.offsets[i + 1] = total
        for t in range(1, self.threads):
            reg = (self.rcap * t) // self.threads
            dst = self.offsets[(<int64_t>self.n * t) // self.threads]
            cnt = self.need[t]
            if cnt and dst != reg:  # dst ≤ reg: the earlier regions held fewer plays
                memmove(&self.words[dst], &self.words[reg], cnt * sizeof(uint64_t))
                memmove(&self.tags[dst], &self.tags[reg], cnt * sizeof(uint32_t))
                memmove(&self.aids[dst], &self.aids[reg], cnt * sizeof(int32_t))
                memmove(&self.cards[dst, 0], &self.cards[reg, 0], cnt * 15)
                memmove(&self.feats[dst, 0], &self.feats[reg, 0], cnt * 7)
        return total

    cdef void _describe(self, int64_t a, int64_t b) noexcept nogil:
        """Card counts and reading features of plays ``a:b`` (from their word and tag)."""
        cdef int64_t k
        cdef int r
        cdef uint64_t w
        cdef uint32_t g
        cdef uint8_t* c
        cdef uint8_t* f
        for k in range(a, b):
            w = self.words[k]
            g = self.tags[k]
            c = &self.cards[k, 0]
            for r in range(15):
                c[r] = nib(w, r)
            f = &self.feats[k, 0]
            f[0] = tag_kind(g)
            f[1] = tag_top(g)
            f[2] = tag_width(g)
            f[3] = tag_length(g)
            f[4] = tag_stars(g)
            f[5] = tag_size(g)
            f[6] = tag_wilds(g)

    def load(self, object i, State state):
        """Row ``i`` continues from ``state`` (same rules; VecEnv checks it): the position is
        copied, the bomb counts by grade recomputed from its bombs, no 明牌 facts; the
        observation is written and the plays are listed by the next ``advance(t, 2)``."""
        cdef Slot* e = self._slot(i)
        cdef int k
        e.st = state.st
        memset(e.bombs, 0, sizeof(e.bombs))
        for k in range(e.st.nbombs):
            e.bombs[8 * e.st.bomb_seat[k] + bomb_grade(e.st.bomb_tag[k])] += 1
        e.rev_rank = -1
        e.twin = -1
        e.n_log = 0
        e.rng = sk_deal_seed(self.seed ^ 0x5EED, <uint64_t>e.deal)
        self.to_act[i] = e.st.to_act
        self.done[i] = 0
        self.outcome[i] = -1
        memset(&self.rewards[i, 0], 0, 4 * sizeof(float))
        memset(&self.team_rewards[i, 0], 0, 2 * sizeof(float))
        self._write_obs(e, e.st.to_act, &self.obs[i, 0])

    # -- views for Python ------------------------------------------------------------------------
    def state(self, object i, State template):
        """Deal ``i``'s position as a new :class:`State`: ``template`` (a State of the env's
        rules) copied, the slot's position copied over it (no undo history)."""
        cdef Slot* e = self._slot(i)
        cdef State c = template.copy()
        c.st = e.st
        c._moved()  # a new position: its own legal-plays cache key, no result yet
        return c

    def hands(self, object i):
        """The four packed hands of deal ``i`` (for tests: what the agent must not see)."""
        cdef Slot* e = self._slot(i)
        return tuple(int(e.st.hand[s]) for s in range(4))

    def position(self, object i):
        """``(to_act, table_word, table_tag, owner, passes, places)`` of deal ``i``."""
        cdef SkState* st = &self._slot(i).st
        return (st.to_act, int(st.table_word), int(st.table), st.owner, st.passes,
                tuple(st.places[k] for k in range(st.nplaces)))

    def observe(self, object i, int seat, float[::1] out):
        """Write deal ``i``'s observation for any ``seat`` into ``out`` (PettingZoo observe)."""
        cdef Slot* e = self._slot(i)
        if not 0 <= seat < 4 or out.shape[0] < OBS_SIZE:
            raise ValueError(f"observe needs a seat 0..3 and {OBS_SIZE} floats")
        self._write_obs(e, seat, &out[0])

    def log(self, object i, bint last):
        """The actions of deal ``i`` so far (``last``: of its last finished deal) as
        ``(deal index, [(seat, word, tag)])``, tag 0 = pass. Needs ``log=True``."""
        cdef int n, k
        self._slot(i)
        if not self.log_on:
            raise ValueError("this VecEnv keeps no action log (log=False)")
        if last:
            n = self.last_n[i]
            return int(self.last_deal[i]), [
                (int(self.last_seat[i, k]), int(self.last_word[i, k]), int(self.last_tag[i, k]))
                for k in range(n)]
        n = self.slots[i].n_log
        return int(self.slots[i].deal), [
            (int(self.log_seat[i, k]), int(self.log_word[i, k]), int(self.log_tag[i, k]))
            for k in range(n)]


SLOT_BYTES = sizeof(Slot)
LOG_LENGTH = LOG_CAP
