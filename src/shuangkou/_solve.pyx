# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, binding=True
"""The solver extension: hand decomposition (``_decompose.pxd``) and, on top of the engine's
C state, the exact endgame search (docs/solver.md). :mod:`shuangkou.solve` is the Python API.
"""

cimport cython
from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memset

from shuangkou._engine cimport State
from _budget cimport SkBudget, budget_init, budget_raise
from _packed cimport valid_word
from _readings cimport K_BOMB, tag_kind, tag_size, tag_top
from _selfplay cimport SP_LIST, fewest_cards, greedy_listed, greedy_shortcut
from _state cimport (
    SkParams, SkScore, SkState, SkUndo, sk_legal, sk_pass, sk_play, sk_restore, sk_save,
    sk_score,
)

from _decompose cimport (
    DECO_COUNT, DECO_KEEP_BOMBS, DECO_UNIT, Deco, deco_cost, deco_costs, deco_free, deco_init,
    deco_plays, deco_split,
)
from _decompose_ref cimport RefDeco, ref_cost, ref_free, ref_init
from _generate cimport generate_init

generate_init()  # fill this module's copy of the generators' tables now, not on first use

DECO_SLOTS_LOG2 = 20
"""A call's decomposition memo grows up to 2**20 entries (40 MiB; a full 27-card hand needs a
few thousand)."""
DECO_MAX_NODES = 20_000_000
"""States a decomposition call may expand: far above any hand (the worst 27-card hands need a
few thousand); past it the call raises instead of running on. Ctrl-C stops it too."""
UNIT = DECO_UNIT


cdef int _mode(bint keep_bombs) noexcept:
    return DECO_KEEP_BOMBS if keep_bombs else DECO_COUNT


cdef int _check_hand(uint64_t hand) except -1:
    if not valid_word(hand):
        raise ValueError(f"hand must be a cards word (naturals <= 8, jokers <= 2), got {hand:#x}")
    return 0


cdef bint _covers(uint64_t hand, uint64_t w) noexcept nogil:
    cdef int r
    for r in range(16):
        if (w >> (4 * r)) & 15 > (hand >> (4 * r)) & 15:
            return False
    return True


cdef int _open(Deco* d, SkBudget* b) except -1:
    """A call's own workspace (never shared between threads) and its budget."""
    if not deco_init(d, DECO_SLOTS_LOG2):
        deco_free(d)
        raise MemoryError()
    budget_init(b, DECO_MAX_NODES, 0.0)
    d.budget = b
    return 0


cdef int _close(Deco* d, SkBudget* b) except -1:
    """Free the workspace; raise what stopped the call (Ctrl-C, memory, the budget)."""
    cdef bint stopped = d.stopped, oom = d.oom
    deco_free(d)
    budget_raise(b)
    if oom:
        raise MemoryError()
    if stopped:
        raise RuntimeError(f"decomposition stopped after {DECO_MAX_NODES} states (its budget)")
    return 0


def decompose_cost(uint64_t hand, uint32_t flags, bint keep_bombs) -> int:
    """Least split cost of ``hand`` (``UNIT`` per play; with ``keep_bombs`` a bomb costs
    ``UNIT`` − its card count). GIL released."""
    cdef int32_t c
    cdef int mode = _mode(keep_bombs)
    cdef Deco d
    cdef SkBudget b
    _check_hand(hand)
    _open(&d, &b)
    with nogil:
        c = deco_cost(&d, hand, flags, mode)
    _close(&d, &b)
    return c


def decompose_costs(uint64_t hand, uint32_t flags, bint keep_bombs, words) -> list:
    """:func:`decompose_cost` of ``hand − w`` for each ``w`` in ``words`` (each ⊆ ``hand``),
    from one memo: the sub-hands share every state above the ranks they lack. GIL released."""
    cdef int mode = _mode(keep_bombs)
    cdef list ws = list(words)
    cdef long long n = len(ws), i
    cdef uint64_t* arr
    cdef int32_t* out
    cdef Deco d
    cdef SkBudget b
    _check_hand(hand)
    arr = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
    out = <int32_t*>malloc((n + 1) * sizeof(int32_t))
    try:
        if arr == NULL or out == NULL:
            raise MemoryError()
        for i in range(n):
            arr[i] = ws[i]
            if not _covers(hand, arr[i]):
                raise ValueError(f"words[{i}] = {arr[i]:#x} is not part of the hand {hand:#x}")
        _open(&d, &b)
        with nogil:
            deco_costs(&d, hand, flags, mode, arr, n, out)
        _close(&d, &b)
        return [out[i] for i in range(n)]
    finally:
        free(arr)
        free(out)


def decompose_split(uint64_t hand, uint32_t flags, bint keep_bombs) -> tuple:
    """``(plays, cost, words, tags)``: the number of plays of an optimal split, its cost and
    the split itself (cards words and reading tags). GIL released."""
    cdef int mode = _mode(keep_bombs)
    cdef uint64_t words[128]    # ≤ 108 plays: one card each at most
    cdef uint32_t tags[128]
    cdef int wilds[128]
    cdef int32_t cost = 0
    cdef int n
    cdef Deco d
    cdef SkBudget b
    _check_hand(hand)
    _open(&d, &b)
    with nogil:
        n = deco_split(&d, hand, flags, mode, words, tags, wilds, 128, &cost)
    _close(&d, &b)
    if n < 0 or n > 128:
        raise RuntimeError("decomposition failed")  # not reached: a stop raised above
    return deco_plays(cost), cost, [words[i] for i in range(n)], [tags[i] for i in range(n)]


def decompose_stats(uint64_t hand, uint32_t flags, bint keep_bombs, words=None) -> tuple:
    """(cost, states expanded, memo entries) of one call (tests, benchmarks); with ``words``
    of one :func:`decompose_costs` call (cost: the hand's)."""
    cdef Deco d
    cdef SkBudget b
    cdef int32_t c
    cdef int mode = _mode(keep_bombs)
    cdef long long n = 0
    cdef uint64_t* arr = NULL
    cdef int32_t* out = NULL
    _check_hand(hand)
    if words is not None:
        words = list(words)
        for w in words:
            if not _covers(hand, w):
                raise ValueError(f"{w:#x} is not part of the hand {hand:#x}")
        n = len(words)
        arr = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
        out = <int32_t*>malloc((n + 1) * sizeof(int32_t))
        if arr == NULL or out == NULL:
            free(arr)
            free(out)
            raise MemoryError()
        for i, w in enumerate(words):
            arr[i] = w
    try:
        _open(&d, &b)
        with nogil:
            c = deco_cost(&d, hand, flags, mode)
            if n:
                deco_costs(&d, hand, flags, mode, arr, n, out)
    finally:
        free(arr)
        free(out)
    nodes, used = d.nodes, d.used
    _close(&d, &b)
    return c, nodes, used


def reference_costs(uint64_t hand, uint32_t flags, bint keep_bombs, words,
                    long long max_nodes=0):
    """:func:`decompose_costs` by the first, exponential search (``_decompose_ref.pxd``: the
    kernel's plays holding the lowest card, one memo of sub-hands for the call), the slow
    reference of the tests and benchmarks; ``None`` if it needed more than ``max_nodes``
    sub-hands (0: no limit). GIL released; no budget (give it a limit)."""
    cdef RefDeco d
    cdef list ws = list(words), out = []
    cdef uint64_t w
    cdef int32_t c = 0
    cdef int mode = _mode(keep_bombs)
    cdef bint over = False
    _check_hand(hand)
    for x in ws:
        if not _covers(hand, x):
            raise ValueError(f"{x:#x} is not part of the hand {hand:#x}")
    if not ref_init(&d, 16):
        ref_free(&d)
        raise MemoryError()
    d.limit = max_nodes
    try:
        for x in ws:
            w = x
            with nogil:
                c = ref_cost(&d, hand - w, flags, mode)
            if d.oom:
                raise MemoryError()
            if max_nodes > 0 and d.nodes > max_nodes:
                return None
            out.append(c)
        return out
    finally:
        ref_free(&d)


# == the endgame search (docs/solver.md "Value", "Search") ======================================
# Team negamax with alpha-beta over the engine's C state (_state.pxd: sk_legal, sk_play,
# sk_pass, sk_score; no rule is written here). A value is always seen from the seat to act:
# its team's R8 total minus the other team's, so a child whose seat to act is an opponent is
# negated, a partner's is not.


cdef extern from *:
    """
    #ifdef _WIN32
    #include <windows.h>
    static double sv_now(void) {
        LARGE_INTEGER f, t; QueryPerformanceFrequency(&f); QueryPerformanceCounter(&t);
        return (double)t.QuadPart / (double)f.QuadPart;
    }
    #else
    #include <time.h>
    static double sv_now(void) {
        struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
    #endif
    """
    double sv_now() noexcept nogil

cdef enum:
    SV_INF = 1 << 28
    SV_EXACT_DEPTH = 0x7FFF     # an entry whose subtree met no horizon: exact at any depth
    SV_LOWER = 1
    SV_UPPER = 2
    SV_EXACT = 3
    SV_STACK0 = 8192
    SV_OBJ_SCORE = 0
    SV_OBJ_BASE = 1
    SV_CHECK_EVERY = 1023       # nodes between clock checks (mask)
    SV_EVAL_SLOTS = 4096
    SV_EVAL_HAND_COUNT = 0
    SV_EVAL_ROLLOUT = 1
    SV_EVAL_BUDGET = 400        # decomposition nodes per hand in an evaluation


ctypedef struct TTEntry:
    uint64_t key
    int32_t value
    int16_t depth
    uint8_t flag
    uint8_t pad
    uint32_t best               # 0: none; else 1 + index of the move in generation order


ctypedef struct Search:
    SkParams p
    int objective
    TTEntry* tt
    uint64_t tt_mask
    uint64_t* words             # move stack: plays of each ply, then pass as (0, 0)
    uint32_t* tags
    int32_t* keys
    int32_t* order
    long long cap
    long long top
    long long nodes
    long long max_nodes         # 0: none
    double deadline             # 0: none
    bint stopped
    bint oom
    bint horizon                # a horizon evaluation happened in the current subtree
    int evaluation              # SV_EVAL_HAND_COUNT or SV_EVAL_ROLLOUT
    Deco deco                   # 手数 for the horizon evaluation (budgeted: see sv_eval)
    uint64_t eval_hand[SV_EVAL_SLOTS]   # its results per hand (direct-mapped)
    int8_t eval_plays[SV_EVAL_SLOTS]


cdef inline bint sv_resize(void** p, long long n, size_t item) noexcept nogil:
    """``*p`` reallocated to ``n`` items of ``item`` bytes; False (``*p`` kept) if out of
    memory."""
    cdef void* q = realloc(p[0], n * item)
    if q == NULL:
        return False
    p[0] = q
    return True


cdef inline bint sv_grow(Search* s, long long need) noexcept nogil:
    """Room for ``need`` more plays on the stack (capacity doubled as often as needed); False
    and ``s.oom`` if memory ran out (the arrays stay valid, at least ``s.cap`` long)."""
    cdef long long cap = s.cap
    while cap - s.top < need:
        cap *= 2
    if not (sv_resize(<void**>&s.words, cap, sizeof(uint64_t))
            and sv_resize(<void**>&s.tags, cap, sizeof(uint32_t))
            and sv_resize(<void**>&s.keys, cap, sizeof(int32_t))
            and sv_resize(<void**>&s.order, cap, sizeof(int32_t))):
        s.oom = True
        return False
    s.cap = cap
    return True


cdef inline int32_t sv_units(Search* s, const SkState* st, int seat) noexcept nogil:
    """The value of a finished deal (or of ``st`` read as finished) for ``seat``'s team."""
    cdef SkScore sc
    cdef int t
    cdef int32_t v = 0, x
    sk_score(&s.p, st, False, &sc)
    for t in range(4):
        x = sc.units[t] if s.objective == SV_OBJ_SCORE else sc.base[t]
        v += x if ((t ^ seat) & 1) == 0 else -x
    return v


cdef inline int32_t sv_eval(Search* s, const SkState* st, int seat) noexcept nogil:
    """Horizon evaluation (depth-limited search only, never in an exact value): the deal
    scored as if the seats still in went out in order of fewer plays left (手数, ties to the
    seat to act), with the hands as they are (R8.4 held bombs). A hand's 手数 is exact when
    its decomposition fits in SV_EVAL_BUDGET nodes, else a greedy upper bound."""
    cdef SkState guess = st[0]
    cdef int t, k
    cdef uint64_t h
    cdef int slot
    for t in range(4):
        if guess.ncards[t]:
            h = guess.hand[t]
            slot = <int>(((h * 0x9E3779B97F4A7C15ULL) >> 52) & (SV_EVAL_SLOTS - 1))
            if s.eval_hand[slot] == h:
                k = s.eval_plays[slot]
            else:
                s.deco.limit = s.deco.nodes + SV_EVAL_BUDGET
                k = deco_plays(deco_cost(&s.deco, h, s.p.flags, DECO_COUNT))
                s.eval_hand[slot] = h
                s.eval_plays[slot] = <int8_t>k
            guess.ncards[t] = <int8_t>(2 * k - (1 if t == st.to_act else 0))
    return sv_units(s, &guess, seat)


cdef inline int32_t sv_rollout(Search* s, const SkState* st, int seat) noexcept nogil:
    """Horizon evaluation by a playout: every seat plays the kernel's greedy policy
    (``_selfplay.greedy_shortcut``, its plays listed with the fewest wilds when it needs them)
    to the end."""
    cdef SkState play = st[0]
    cdef long long start = s.top
    cdef int n, me, choice, opp_min
    cdef bint partner_owns
    if s.cap - start < 1 and not sv_grow(s, 1):
        s.stopped = True
        return 0
    while not play.over:
        me = play.to_act
        opp_min = fewest_cards(play.ncards[(me + 1) & 3], play.ncards[(me + 3) & 3])
        partner_owns = play.table != 0 and play.owner == (me ^ 2)
        # most decisions need no list (greedy_shortcut writes its play to the first slot)
        choice = greedy_shortcut(play.hand[me], play.table, partner_owns, opp_min,
                                 play.ncards[me], s.words + start, s.tags + start, s.p.flags)
        if choice == SP_LIST:
            n = sk_legal(&s.p, &play, True, s.words + start, s.tags + start,
                         <int>(s.cap - start))
            if n > s.cap - start:
                if not sv_grow(s, n):
                    s.stopped = True
                    return 0
                sk_legal(&s.p, &play, True, s.words + start, s.tags + start, n)
            choice = greedy_listed(play.hand[me], play.table, opp_min, play.ncards[me],
                                   s.words + start, s.tags + start, n, s.p.flags)
        if choice >= 0:
            sk_play(&play, s.words[start + choice], s.tags[start + choice])
        else:
            sk_pass(&play)
    return sv_units(s, &play, seat)


cdef inline int32_t sv_key(const SkState* st, uint64_t word, uint32_t tag, int seat) noexcept nogil:
    """Move ordering (speed only): going out, then a pass on the partner's play, plain plays
    (bigger sets, lower tops first), a pass on an opponent's play, bombs (smaller first)."""
    if tag == 0:
        return (1 << 20) if ((st.owner ^ seat) & 1) == 0 else -(1 << 20)
    if word == st.hand[seat]:
        return 1 << 29
    if tag_kind(tag) >= K_BOMB:
        return -(1 << 21) - tag_size(tag) * 16 - tag_top(tag)
    return tag_size(tag) * 16 - tag_top(tag)


cdef inline int sv_moves(Search* s, const SkState* st) noexcept nogil:
    """Push the moves of ``st`` (plays in sk_legal order, then pass if a table is up) on the
    move stack at ``top``; return how many (−1: out of memory)."""
    cdef long long start = s.top
    cdef int n = sk_legal(&s.p, st, False, s.words + start, s.tags + start,
                          <int>(s.cap - start - 1))
    if n + 1 > s.cap - start - 1:
        if not sv_grow(s, n + 2):
            return -1
        sk_legal(&s.p, st, False, s.words + start, s.tags + start, n)
    if st.table:
        s.words[start + n] = 0
        s.tags[start + n] = 0
        n += 1
    return n


cdef inline void sv_apply(SkState* st, uint64_t word, uint32_t tag) noexcept nogil:
    if tag == 0:
        sk_pass(st)
    else:
        sk_play(st, word, tag)


cdef inline int32_t sv_child(Search* s, SkState* st, int seat, int32_t alpha, int32_t beta,
                             int depth) noexcept nogil:
    """Value for ``seat`` of the position ``st`` reached by ``seat``'s move."""
    if st.over:
        return sv_units(s, st, seat)
    if ((st.to_act ^ seat) & 1) == 0:
        return sv_search(s, st, alpha, beta, depth)
    return -sv_search(s, st, -beta, -alpha, depth)


cdef int32_t sv_search(Search* s, SkState* st, int32_t alpha, int32_t beta,
                       int depth) noexcept nogil:
    """Fail-soft alpha-beta value of ``st`` for its seat to act, within ``depth`` moves."""
    cdef int seat = st.to_act, n, k, i, j, bi
    cdef int32_t best = -SV_INF, v, a0 = alpha, kb
    cdef uint32_t hint = 0, best_code = 0
    cdef long long start
    cdef bint outer_horizon
    cdef TTEntry* e
    cdef SkUndo u
    s.nodes += 1
    if (s.max_nodes and s.nodes > s.max_nodes) or (
            s.deadline and (s.nodes & SV_CHECK_EVERY) == 0 and sv_now() >= s.deadline):
        s.stopped = True
    if s.stopped:
        return 0
    if depth <= 0:
        s.horizon = True
        if s.evaluation == SV_EVAL_ROLLOUT:
            return sv_rollout(s, st, seat)
        return sv_eval(s, st, seat)
    e = &s.tt[st.hash & s.tt_mask]
    if e.key == st.hash and e.flag:
        if e.depth >= depth and (e.flag == SV_EXACT or (e.flag == SV_LOWER and e.value >= beta)
                                 or (e.flag == SV_UPPER and e.value <= alpha)):
            if e.depth != SV_EXACT_DEPTH:
                s.horizon = True
            return e.value
        hint = e.best
    start = s.top
    n = sv_moves(s, st)
    if n < 0:
        s.stopped = True
        return 0
    s.top = start + n
    for i in range(n):
        s.order[start + i] = i
        s.keys[start + i] = (1 << 30) if <uint32_t>(i + 1) == hint else sv_key(
            st, s.words[start + i], s.tags[start + i], seat)
    outer_horizon = s.horizon
    s.horizon = False
    sk_save(st, &u)
    for k in range(n):
        # selection: the best-keyed move not tried yet (cut-offs usually come early)
        bi = k
        kb = s.keys[start + s.order[start + k]]
        for j in range(k + 1, n):
            if s.keys[start + s.order[start + j]] > kb:
                bi = j
                kb = s.keys[start + s.order[start + j]]
        i = s.order[start + bi]
        s.order[start + bi] = s.order[start + k]
        s.order[start + k] = i
        sv_apply(st, s.words[start + i], s.tags[start + i])
        v = sv_child(s, st, seat, alpha, beta, depth - 1)
        sk_restore(st, &u)
        if s.stopped:
            s.top = start
            return 0
        if v > best:
            best = v
            best_code = <uint32_t>(i + 1)
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    s.top = start
    e = &s.tt[st.hash & s.tt_mask]
    e.key = st.hash
    e.value = best
    e.best = best_code
    e.depth = <int16_t>(depth if s.horizon else SV_EXACT_DEPTH)
    e.flag = SV_UPPER if best <= a0 else (SV_LOWER if best >= beta else SV_EXACT)
    s.horizon = s.horizon or outer_horizon
    return best


EXACT_DEPTH = SV_EXACT_DEPTH - 1
"""The depth of an exact search (longer than any deal: it never meets a horizon)."""
OBJECTIVES = {"score": SV_OBJ_SCORE, "base": SV_OBJ_BASE}
EVALUATIONS = {"hand_count": SV_EVAL_HAND_COUNT, "rollout": SV_EVAL_ROLLOUT}


@cython.auto_pickle(False)
cdef class Searcher:
    """One search context: the rules, the objective, a transposition table of
    ``2**tt_bits`` entries (24 bytes each; bounded memory, always-replace), the horizon
    evaluation of depth-limited searches (``"hand_count"``: 手数 ranking, ``"rollout"``: greedy
    playout) and a root position. Reusable across positions of the same rules (the table keys
    are the positions' hashes)."""

    cdef Search s
    cdef SkState root
    cdef readonly object rules

    def __cinit__(self):
        memset(&self.s, 0, sizeof(Search))

    def __init__(self, State state, str objective="score", int tt_bits=20,
                 str evaluation="hand_count"):
        """For the rules of ``state`` (a ``shuangkou.State``: its engine parameters)."""
        if self.s.tt != NULL:
            raise RuntimeError("a Searcher is set up once")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be 'score' or 'base', not {objective!r}")
        if not 4 <= tt_bits <= 30:
            raise ValueError(f"tt_bits must be 4..30, got {tt_bits}")
        self.s.p = state.p
        self.rules = state.rules
        self.s.objective = OBJECTIVES[objective]
        if evaluation not in EVALUATIONS:
            raise ValueError(f"evaluation must be 'hand_count' or 'rollout', not {evaluation!r}")
        self.s.evaluation = EVALUATIONS[evaluation]
        self.s.tt_mask = ((<uint64_t>1) << tt_bits) - 1
        self.s.tt = <TTEntry*>calloc(self.s.tt_mask + 1, sizeof(TTEntry))
        self.s.cap = SV_STACK0
        self.s.words = <uint64_t*>calloc(self.s.cap, sizeof(uint64_t))
        self.s.tags = <uint32_t*>calloc(self.s.cap, sizeof(uint32_t))
        self.s.keys = <int32_t*>calloc(self.s.cap, sizeof(int32_t))
        self.s.order = <int32_t*>calloc(self.s.cap, sizeof(int32_t))
        ok = deco_init(&self.s.deco, 16)
        if (not ok or self.s.tt == NULL or self.s.words == NULL or self.s.tags == NULL
                or self.s.keys == NULL or self.s.order == NULL):
            raise MemoryError()

    def __dealloc__(self):
        free(self.s.tt)
        free(self.s.words)
        free(self.s.tags)
        free(self.s.keys)
        free(self.s.order)
        deco_free(&self.s.deco)

    def set_position(self, State state):
        """The root: a copy of ``state``'s position (a ``shuangkou.State`` of the same rules)."""
        if state.rules != self.rules:
            raise ValueError("the position's rules are not the searcher's")
        self.root = state.st

    @property
    def hash(self) -> int:
        """The root's Zobrist hash (the engine's)."""
        return self.root.hash

    def root_values(self, long long max_nodes=0, double time_limit=0.0, int depth=EXACT_DEPTH,
                    bint all_values=False):
        """Search the root's moves (plays in generation order, then pass as ``(0, 0)``).

        Returns ``(moves, values, optimal, nodes, stopped, horizon)``. ``all_values``: each
        move's value is exact (full window). Otherwise the best value is exact and every other
        move is only tested against it: ``values[i]`` is then an upper bound for a move that is
        not optimal. ``optimal`` lists the indices of the moves reaching the best value.
        Moves not searched when a limit stopped the search have value ``None``; ``horizon``
        says whether a depth-limited evaluation entered any value."""
        cdef Search* s = &self.s
        cdef SkState st = self.root
        cdef SkUndo u
        cdef int seat = st.to_act, n, i, k
        cdef int32_t v, best = -SV_INF
        cdef long long start
        cdef bint first = True
        if st.over or seat < 0:
            raise ValueError("the deal is over: there is no move to search")
        s.nodes = 0
        s.stopped = False
        s.horizon = False
        s.max_nodes = max_nodes
        s.deadline = sv_now() + time_limit if time_limit > 0 else 0.0
        s.top = 0
        n = sv_moves(s, &st)
        if n < 0:
            raise MemoryError()
        s.top = n
        moves = [(s.words[i], s.tags[i]) for i in range(n)]
        keys = [sv_key(&st, s.words[i], s.tags[i], seat) for i in range(n)]
        e = &s.tt[st.hash & s.tt_mask]
        if e.key == st.hash and e.flag and 0 < e.best <= <uint32_t>n:
            keys[e.best - 1] = 1 << 30
        values = [None] * n
        optimal = []
        sk_save(&st, &u)
        for i in sorted(range(n), key=lambda j: -keys[j]):
            with nogil:
                sv_apply(&st, s.words[i], s.tags[i])
                if all_values or first:
                    v = sv_child(s, &st, seat, -SV_INF, SV_INF, depth - 1)
                else:
                    # window (best − 1, best + 1): inside it the value is exact (== best)
                    v = sv_child(s, &st, seat, best - 1, best + 1, depth - 1)
                    if v > best and not s.stopped:   # a better move: its exact value
                        v = sv_child(s, &st, seat, -SV_INF, SV_INF, depth - 1)
                sk_restore(&st, &u)
            if s.stopped:
                break
            if s.oom:
                raise MemoryError()
            values[i] = v
            first = False
            if v > best:
                best = v
                optimal = [i]
            elif v == best:
                optimal.append(i)
        s.top = 0
        e = &s.tt[st.hash & s.tt_mask]
        if optimal and not s.stopped:
            e.key = st.hash
            e.value = best
            e.best = optimal[0] + 1
            e.depth = <int16_t>(depth if s.horizon else SV_EXACT_DEPTH)
            e.flag = SV_EXACT
        return moves, values, optimal, s.nodes, bool(s.stopped), bool(s.horizon)

    def principal_variation(self, int first, int value, int max_length=1000):
        """The line from the root playing move ``first`` (an index of :meth:`root_values`),
        whose exact value is ``value``: at each later position a move reaching that
        position's value (TT move tried first, each checked by a null-window search)."""
        cdef Search* s = &self.s
        cdef SkState st = self.root
        cdef SkUndo u
        cdef int seat, n, k, i, j
        cdef int32_t v = value, w
        cdef uint32_t hint
        cdef long long nodes = s.nodes
        cdef bint found
        s.max_nodes = 0
        s.deadline = 0.0
        s.stopped = False
        s.top = 0
        n = sv_moves(s, &st)
        line = [(s.words[first], s.tags[first])]
        seat = st.to_act
        sv_apply(&st, s.words[first], s.tags[first])
        while not st.over and len(line) < max_length:
            v = v if ((st.to_act ^ seat) & 1) == 0 else -v
            seat = st.to_act
            s.top = 0
            n = sv_moves(s, &st)
            if n < 0:
                raise MemoryError()
            s.top = n
            e = &s.tt[st.hash & s.tt_mask]
            hint = e.best if e.key == st.hash else 0
            order = sorted(range(n), key=lambda j: (<uint32_t>(j + 1)) != hint)
            found = False
            sk_save(&st, &u)
            for i in order:
                with nogil:
                    sv_apply(&st, s.words[i], s.tags[i])
                    w = sv_child(s, &st, seat, v - 1, v, SV_EXACT_DEPTH - 1)
                    sk_restore(&st, &u)
                if w >= v:
                    line.append((s.words[i], s.tags[i]))
                    sv_apply(&st, s.words[i], s.tags[i])
                    found = True
                    break
            if not found:   # cannot happen for an exact value; never loop forever
                raise RuntimeError("principal variation: no move reaches the value")
        s.top = 0
        s.nodes = nodes
        return line
