# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The first decomposition (手数) search, kept as the slow reference of the tests and the
benchmark (``_solve.reference_costs``): exact, but exponential on some 27-card hands (seconds to
minutes on 千变 hands with four wilds). ``_decompose.pxd`` is the one the library uses.

``ref_cost(d, hand, flags, mode)`` – the least cost of a split of ``hand`` into plays, with the
cost model of ``_decompose.pxd`` (``DECO_UNIT`` a play, a bomb ``DECO_UNIT`` − its cards with
``DECO_KEEP_BOMBS``). ``d.limit`` (0: none) – a node count past which the search only descends
greedily (then the result is an upper bound and ``d.nodes > d.limit`` says so).

Why it is exact: in any split of a hand into plays, the lowest natural card (or, once only
jokers are left, the lowest joker) lies in some play; so the least cost is the minimum, over
the legal plays that contain a card of that rank, of the play's cost plus the least cost of the
rest. The plays are the kernel's (``sk_generate``: every card set that is a valid play, R2/R3).
"""

from libc.stdint cimport int32_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, realloc

from shuangkou._generate cimport sk_generate
from _packed cimport SK_NAT_MASK, low_rank
from _readings cimport K_BOMB, NO_TABLE, tag_kind, tag_size

from _decompose cimport DECO_KEEP_BOMBS, DECO_UNIT

cdef enum:
    REF_STACK0 = 4096       # initial play-stack size (grows on demand)


ctypedef struct RefEntry:
    uint64_t hand
    uint64_t best_word
    uint32_t best_tag
    uint32_t ctx            # flags | mode << 8 | 1 << 31 (1 << 31 marks a used slot)
    int32_t cost


ctypedef struct RefDeco:
    RefEntry* table
    uint64_t mask           # slots − 1
    uint64_t* words         # the play stack: each recursion level generates above ``top``
    uint32_t* tags
    long long cap
    long long top
    long long nodes         # sub-hands solved (not found in the table)
    long long limit         # 0: exact; else past this many nodes, only the largest play
                            # holding the lowest rank is tried (an upper bound, not stored)
    bint oom                # an allocation failed (the caller raises MemoryError)


cdef inline bint ref_init(RefDeco* d, int log2_slots) noexcept nogil:
    d.mask = ((<uint64_t>1) << log2_slots) - 1
    d.table = <RefEntry*>calloc(d.mask + 1, sizeof(RefEntry))
    d.cap = REF_STACK0
    d.words = <uint64_t*>calloc(d.cap, sizeof(uint64_t))
    d.tags = <uint32_t*>calloc(d.cap, sizeof(uint32_t))
    d.top = 0
    d.nodes = 0
    d.limit = 0
    d.oom = d.table == NULL or d.words == NULL or d.tags == NULL
    return not d.oom


cdef inline void ref_free(RefDeco* d) noexcept nogil:
    free(d.table)
    free(d.words)
    free(d.tags)
    d.table = NULL
    d.words = NULL
    d.tags = NULL


cdef inline uint64_t ref_slot(RefDeco* d, uint64_t hand, uint32_t ctx) noexcept nogil:
    cdef uint64_t h = (hand ^ (<uint64_t>ctx << 40)) * 0x9E3779B97F4A7C15ULL
    return (h ^ (h >> 29)) & d.mask


cdef inline bint ref_grow(RefDeco* d, long long need) noexcept nogil:
    """Make room for ``need`` plays above ``top`` (indices, not pointers, survive a move)."""
    cdef long long cap = d.cap
    cdef uint64_t* w
    cdef uint32_t* t
    while cap - d.top < need:
        cap *= 2
    w = <uint64_t*>realloc(d.words, cap * sizeof(uint64_t))
    if w == NULL:
        d.oom = True
        return False
    d.words = w
    t = <uint32_t*>realloc(d.tags, cap * sizeof(uint32_t))
    if t == NULL:
        d.oom = True
        return False
    d.tags = t
    d.cap = cap
    return True


cdef inline int32_t ref_play_cost(uint32_t tag, int mode) noexcept nogil:
    if mode == DECO_KEEP_BOMBS and tag_kind(tag) >= K_BOMB:
        return DECO_UNIT - tag_size(tag)
    return DECO_UNIT


cdef inline int32_t ref_cost(RefDeco* d, uint64_t hand, uint32_t flags, int mode) noexcept nogil:
    """Least cost of a split of ``hand`` into plays (see the module docstring)."""
    cdef uint32_t ctx = flags | (<uint32_t>mode << 8) | ((<uint32_t>1) << 31)
    cdef uint64_t slot, rank_mask, nat, w, best_word = 0
    cdef uint32_t best_tag = 0
    cdef long long start, n, i, greedy
    cdef int32_t c, best
    cdef RefEntry* e
    if hand == 0:
        return 0
    slot = ref_slot(d, hand, ctx)
    e = &d.table[slot]
    if e.hand == hand and e.ctx == ctx:
        return e.cost
    d.nodes += 1
    nat = hand & SK_NAT_MASK
    rank_mask = (<uint64_t>15) << (4 * low_rank(nat if nat else hand))
    start = d.top
    n = sk_generate(hand, flags, NO_TABLE, False, d.words + start, d.tags + start,
                    <int>(d.cap - start))
    if n > d.cap - start:
        if not ref_grow(d, n):
            return 0
        sk_generate(hand, flags, NO_TABLE, False, d.words + start, d.tags + start, <int>n)
    d.top = start + n
    best = 0x7FFFFFFF
    greedy = -1
    if d.limit and d.nodes > d.limit:
        # over budget: one play only, the largest holding the lowest rank
        for i in range(start, start + n):
            if d.words[i] & rank_mask and (greedy < 0 or
                                           tag_size(d.tags[i]) > tag_size(d.tags[greedy])):
                greedy = i
    for i in range(start, start + n):
        w = d.words[i]
        if not (w & rank_mask) or (greedy >= 0 and i != greedy):
            continue
        c = ref_play_cost(d.tags[i], mode)
        if c >= best:
            continue
        c += ref_cost(d, hand - w, flags, mode)
        if d.oom:
            d.top = start
            return 0
        if c < best:
            best = c
            best_word = d.words[i]
            best_tag = d.tags[i]
    d.top = start
    if greedy >= 0:
        return best     # a bound, not the value: never stored
    e = &d.table[slot]
    e.hand = hand
    e.ctx = ctx
    e.cost = best
    e.best_word = best_word
    e.best_tag = best_tag
    return best

