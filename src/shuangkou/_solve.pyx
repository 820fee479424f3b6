# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, binding=True
"""The solver extension: hand decomposition (``_decompose.pxd``) and, on top of the engine's
C state, the exact endgame search (docs/solver.md). :mod:`shuangkou.solve` is the Python API.
"""

cimport cython
from libc.stdint cimport (
    INT64_MAX, INT64_MIN, int8_t, int16_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t,
)
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

from shuangkou._core cimport Play
from shuangkou._engine cimport State
from _budget cimport SkBudget, budget_init, budget_raise
from _packed cimport nib, valid_word
from _readings cimport (
    FLAG_STARS, FLAG_WILD_BJ, FLAG_WILD_SJ, K_BOMB, bomb_key, tag_kind, tag_length, tag_size,
    tag_top, tag_wilds,
)
from _selfplay cimport SP_LIST, fewest_cards, greedy_listed, greedy_shortcut
from _state cimport (
    SK_JJ_LOG, SK_MODE_CLASSIC, SK_MODE_JJ, SkParams, SkScore, SkState, SkUndo, _star_factor,
    sk_held_best, sk_held_jj_log, sk_legal, sk_pass, sk_pass_unhashed, sk_play, sk_play_unhashed, sk_restore,
    sk_relay_unhashed, sk_save, sk_score, sk_trick_won_unhashed,
)

from _decompose cimport (
    DECO_COUNT, DECO_KEEP_BOMBS, DECO_UNIT, Deco, deco_clear, deco_cost, deco_costs, deco_free,
    deco_init, deco_plays, deco_split,
)
from _decompose_ref cimport RefDeco, ref_cost, ref_free, ref_init

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


# -- hints (docs/solver.md "Hints") -------------------------------------------------------------
cdef enum:
    HINT_INDEX_BITS = 21    # a play's index in the low bits of its sort key (≤ 2M plays;
                            # a 27-card hand has at most ~24k: docs/solver.md "Hints")


cdef bint sort_u64(uint64_t* a, long long n) noexcept nogil:
    """Sort ``a`` ascending: LSD radix, 8 bits a pass, passes whose digit is the same for
    every key skipped. False if out of memory."""
    cdef uint64_t* tmp = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
    cdef uint64_t* src = a
    cdef uint64_t* dst = tmp
    cdef uint64_t* t
    cdef long long count[256]
    cdef long long i, pos, c
    cdef int shift, k
    if tmp == NULL:
        return False
    for shift in range(0, 64, 8):
        for k in range(256):
            count[k] = 0
        for i in range(n):
            count[(src[i] >> shift) & 255] += 1
        if n == 0 or count[(src[0] >> shift) & 255] == n:
            continue
        pos = 0
        for k in range(256):
            c = count[k]
            count[k] = pos
            pos += c
        for i in range(n):
            k = <int>((src[i] >> shift) & 255)
            dst[count[k]] = src[i]
            count[k] += 1
        t = src
        src = dst
        dst = t
    if src != a:
        for i in range(n):
            a[i] = src[i]
    free(tmp)
    return True


cdef inline int32_t hint_damage(uint32_t tag, int32_t rest, int32_t base) noexcept nogil:
    """How much a play spoils the hand: the valued split cost (keep-bombs) of the play plus
    the rest, minus the hand's own (≥ 0: the play and a split of the rest split the hand)."""
    cdef int32_t own = DECO_UNIT
    if tag_kind(tag) >= K_BOMB:
        own = DECO_UNIT - tag_size(tag)
    return own + rest - base


cdef inline uint64_t hint_key(uint32_t tag, int32_t damage, bint leading, uint32_t flags) noexcept nogil:
    """The sort key of a play (ascending, above its index), docs/solver.md "Hints". Fields
    from the most significant: leading — damage, bomb, wild-using, lowest rank, fewer cards,
    top, wilds; answering — bomb, damage, wild-using, top (plain) or R5 order (bombs), wilds.
    Leading it takes 35 bits, answering 43 (bomb_key < 2**22), the index the 21 below."""
    cdef uint64_t dmg = <uint64_t>damage & 0xFFFF     # 0 ≤ damage < 108 · DECO_UNIT < 2**14
    cdef uint64_t bomb = tag_kind(tag) >= K_BOMB
    cdef uint64_t w = <uint64_t>tag_wilds(tag)
    cdef uint64_t top = <uint64_t>tag_top(tag)
    cdef uint64_t low = <uint64_t>(tag_top(tag) - tag_length(tag) + 1) & 15
    cdef uint64_t key
    if leading:
        key = (dmg << 19 | bomb << 18 | <uint64_t>(w > 0) << 17 | low << 13
               | <uint64_t>(63 - tag_size(tag)) << 7 | top << 3 | w)
    else:
        key = (bomb << 42 | dmg << 26 | <uint64_t>(w > 0) << 25
               | (<uint64_t>bomb_key(tag, flags) & 0x3FFFFF if bomb else top) << 3 | w)
    return key << HINT_INDEX_BITS


def hint_order(uint64_t hand, uint32_t flags, bint leading, list plays) -> list:
    """``plays`` (each ⊆ ``hand``, readings under ``flags``) in hint order (docs/solver.md
    "Hints"), ties in list order: the damage of every play from one :func:`decompose_costs`
    pass, the sort keys and the sort in C, GIL released; a new list of the same objects."""
    cdef Py_ssize_t n = len(plays), i
    cdef uint64_t* words = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
    cdef uint32_t* tags = <uint32_t*>malloc((n + 1) * sizeof(uint32_t))
    cdef int32_t* rest = <int32_t*>malloc((n + 1) * sizeof(int32_t))
    cdef uint64_t* keys = <uint64_t*>malloc((n + 1) * sizeof(uint64_t))
    cdef int32_t base = 0
    cdef bint ok = False
    cdef Play p
    cdef Deco d
    cdef SkBudget b
    cdef list out
    try:
        if words == NULL or tags == NULL or rest == NULL or keys == NULL:
            raise MemoryError()
        _check_hand(hand)
        if n >= (1 << HINT_INDEX_BITS):
            raise ValueError(f"plays has {n} plays: more than a hand has ({1 << HINT_INDEX_BITS})")
        for i in range(n):
            p = <Play?>plays[i]
            words[i] = p.packed
            tags[i] = p.tag
            if not _covers(hand, words[i]):
                raise ValueError(f"plays[{i}] = {p} is not part of the hand {hand:#x}")
        _open(&d, &b)
        with nogil:
            base = deco_cost(&d, hand, flags, DECO_KEEP_BOMBS)
            ok = deco_costs(&d, hand, flags, DECO_KEEP_BOMBS, words, n, rest)
            if ok:
                for i in range(n):
                    keys[i] = hint_key(tags[i], hint_damage(tags[i], rest[i], base), leading,
                                       flags) | <uint64_t>i
                ok = sort_u64(keys, n)
        _close(&d, &b)
        if not ok:
            raise MemoryError()         # the sort's buffer (a stopped search raised above)
        out = [None] * n
        for i in range(n):
            out[i] = plays[<Py_ssize_t>(keys[i] & ((1 << HINT_INDEX_BITS) - 1))]
        return out
    finally:
        free(words)
        free(tags)
        free(rest)
        free(keys)


# == the endgame search (docs/solver.md "Value", "Search") ======================================
# Team negamax with alpha-beta over the engine's C state (_state.pxd: sk_legal, sk_play,
# sk_pass, sk_score; no rule is written here). A value is always seen from the seat to act:
# its team's R8 total minus the other team's, so a child whose seat to act is an opponent is
# negated, a partner's is not.


# Techniques on top of alpha-beta (docs/solver.md "Search"; each one's node reduction: the
# ablation table, benchmarks/bench_solve.py --ablation): a bucketed transposition table
# with work-preferred replacement, relative ranks (one entry for positions that differ only
# in ranks no play can tell apart), MTD(f) at the root, the quick-trick lower bound, the
# enhanced transposition cut-off and the R8 bounds from the finishing orders still possible.

import _thread
import threading
from math import ceil as _ceil

from cpython.exc cimport PyErr_CheckSignals, PyErr_Occurred

from libc.stdint cimport uint16_t

from _budget cimport (
    SK_RUNNING, SK_STOP_SIGNAL, SK_STOP_WORK, SkBudget, budget_init, budget_poll, budget_raise, budget_tick,
    sk_now,
)
from shuangkou._generate cimport sk_count, sk_generate, sk_nth
from _packed cimport SK_CTZ64, SK_NAT_MASK, SK_NIB1, high_rank, nib, nib_sum
from _readings cimport FLAG_WILD_BJ, FLAG_WILD_SJ, sk_classify
from _state cimport SK_ZOBRIST, _Z_ESCAPE, _Z_PLACE, _z_bomb, _z_turn

from shuangkou._check import as_int, as_seconds
from shuangkou.errors import ArgumentError

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define sv_prefetch(p) __builtin_prefetch(p)
    #define sv_log2(x) (63 - __builtin_clzll((unsigned long long)(x) | 1ULL))
    #else
    #define sv_prefetch(p) ((void)(p))
    static int sv_log2(unsigned long long x) { int k = 0; while (x >>= 1) k++; return k; }
    #endif
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* The relative-rank key's squeeze (sv_tt_key) in one BMI2 instruction a hand, where the
       processor has it (checked at run time: the build targets baseline x86-64): pext keeps
       the nibbles of the held ranks, in order, and packs them down, which is the squeeze. */
    #include <stdint.h>
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    #include <immintrin.h>
    __attribute__((target("bmi2")))
    static void sv_pext4(uint64_t* nat, uint64_t keep) {
        nat[0] = _pext_u64(nat[0], keep);
        nat[1] = _pext_u64(nat[1], keep);
        nat[2] = _pext_u64(nat[2], keep);
        nat[3] = _pext_u64(nat[3], keep);
    }
    /* AMD family 17h (Zen 1 and 2) has pext in microcode, tens of times slower than the loop's
       shifts: there the loop is kept. */
    static int sv_cpu_bmi2(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam17h"); }
    #else
    static void sv_pext4(uint64_t* nat, uint64_t keep) {
        (void)nat; (void)keep; }
    static int sv_cpu_bmi2(void) { return 0; }
    #endif
    /* The relative-rank key's mix (sv_tt_key): the 128-bit product of two 64-bit words
       folded to 64 bits, high half XOR low half (wyhash's "mum"). One multiply where the
       compiler has a 128-bit product (GCC and Clang on 64-bit targets; MSVC's intrinsics),
       else four 32x32 products: the same value everywhere. */
    #if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 sv_u128;
    static inline uint64_t sv_mum(uint64_t a, uint64_t b) {
        sv_u128 p = (sv_u128)a * b;
        return (uint64_t)p ^ (uint64_t)(p >> 64); }
    #elif defined(_MSC_VER) && defined(_M_X64)
    #include <intrin.h>
    static __inline uint64_t sv_mum(uint64_t a, uint64_t b) {
        uint64_t hi, lo = _umul128(a, b, &hi);
        return lo ^ hi; }
    #elif defined(_MSC_VER) && defined(_M_ARM64)
    #include <intrin.h>
    static __inline uint64_t sv_mum(uint64_t a, uint64_t b) {
        return (a * b) ^ __umulh(a, b); }
    #else
    static uint64_t sv_mum(uint64_t a, uint64_t b) {
        uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = b & 0xFFFFFFFFu, bh = b >> 32;
        uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
        uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
        uint64_t lo = (ll & 0xFFFFFFFFu) | (mid << 32);
        uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
        return lo ^ hi; }
    #endif
    /* sv_tt_key's constants: each hand word is XORed with its seat's before the products.
       A hand word's top nibble is 0 and every other nibble a count of 0..8 (two decks: R1),
       so each factor keeps its constant's top nibble, 8 or more: no factor is ever zero
       (a zero would hide the other hand), none is a power of two times another (no shifted
       hands alike), and the two factors of one product lie in different ranges (top nibble F
       and 8, D and A), so swapping two seats' hands changes the product (a product alone
       does not know its order). KEY4 is odd: distinct tables, distinct terms. */
    #define SV_KEY0 0xF0761D6478BD642FULL
    #define SV_KEY1 0x87037ED1A0B428DBULL
    #define SV_KEY2 0xDEBC6AF09C88C6E3ULL
    #define SV_KEY3 0xA89965CC75374CC3ULL
    #define SV_KEY4 0x9E3779B97F4A7C15ULL
    /* A big table's memory straight from the system (POSIX mmap): pages that arrive zeroed
       when first touched, so a table is never zero-filled beyond what the search writes
       (calloc clears a block it takes from the heap, and glibc's heap serves blocks up to
       32 MiB once one that size was freed: 16 MiB written at every 2^20 table). Elsewhere,
       and for small tables, calloc. */
    #if defined(__unix__) || defined(__APPLE__)
    #include <sys/mman.h>
    static void* sv_map_zeroed(size_t n) {
        void* p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? NULL : p; }
    static void sv_unmap(void* p, size_t n) { if (p) munmap(p, n); }
    #else
    static void* sv_map_zeroed(size_t n) { return calloc(n, 1); }
    static void sv_unmap(void* p, size_t n) { (void)n; free(p); }
    #endif
    /* Ask for transparent huge pages over the table (Linux): a probe then misses the TLB far
       less often. Advice only: nothing changes where the system refuses it. */
    static void sv_huge_pages(void* p, size_t n) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        madvise(p, n, MADV_HUGEPAGE);
    #else
        (void)p; (void)n;
    #endif
    }
    /* Relaxed atomics: the table's words and the parallel root's counters, shared by the
       threads of one call (docs/solver.md "Threads"). An aligned 64-bit load or store is one
       access on every 64-bit target; a torn entry (two writers) fails its key check. */
    #if defined(_WIN32)
    #include <windows.h>
    static void sv_pause(void) { Sleep(1); }
    #else
    #include <time.h>
    static void sv_pause(void) { struct timespec t = {0, 200000}; nanosleep(&t, NULL); }
    #endif
    #if defined(_MSC_VER)
    #include <intrin.h>
    static unsigned long long sv_ld64(const unsigned long long* p) {
        return *(const volatile unsigned long long*)p; }
    static void sv_st64(unsigned long long* p, unsigned long long v) {
        *(volatile unsigned long long*)p = v; }
    static long long sv_ld(const long long* p) { return *(const volatile long long*)p; }
    static void sv_st(long long* p, long long v) { *(volatile long long*)p = v; }
    static long long sv_fetch_add(long long* p, long long v) {
        return _InterlockedExchangeAdd64((volatile long long*)p, v); }
    static int sv_cas(long long* p, long long expect, long long v) {
        return _InterlockedCompareExchange64((volatile long long*)p, v, expect) == expect; }
    #else
    #define sv_ld64(p) __atomic_load_n((p), __ATOMIC_RELAXED)
    #define sv_st64(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
    #define sv_ld(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
    #define sv_st(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
    #define sv_fetch_add(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
    static int sv_cas(long long* p, long long expect, long long v) {
        return __atomic_compare_exchange_n(p, &expect, v, 0, __ATOMIC_SEQ_CST,
                                           __ATOMIC_SEQ_CST); }
    #endif
    """
    void sv_prefetch(const void* p) noexcept nogil
    int sv_log2(unsigned long long x) noexcept nogil
    void sv_huge_pages(void* p, size_t n) noexcept nogil
    void* sv_map_zeroed(size_t n) noexcept nogil
    void sv_unmap(void* p, size_t n) noexcept nogil
    void sv_pext4(uint64_t* nat, uint64_t keep) noexcept nogil
    uint64_t sv_mum(uint64_t a, uint64_t b) noexcept nogil
    uint64_t SV_KEY0, SV_KEY1, SV_KEY2, SV_KEY3, SV_KEY4
    bint sv_cpu_bmi2() noexcept nogil
    void sv_pause() noexcept nogil
    uint64_t sv_ld64(const uint64_t* p) noexcept nogil
    void sv_st64(uint64_t* p, uint64_t v) noexcept nogil
    long long sv_ld(const long long* p) noexcept nogil
    void sv_st(long long* p, long long v) noexcept nogil
    long long sv_fetch_add(long long* p, long long v) noexcept nogil
    bint sv_cas(long long* p, long long expect, long long v) noexcept nogil

cdef enum:
    SV_INF = 1 << 28
    SV_EXACT_DEPTH = 1 << 20    # the depth of an exact search: longer than any deal
    SV_MAX_DEPTH = 254          # the deepest depth-limited search (a table depth is one byte)
    SV_TT_EXACT = 255           # table depth of an entry whose subtree met no horizon
    SV_LOWER = 1
    SV_UPPER = 2
    SV_EXACT = 3
    SV_WAYS = 4                 # entries a table bucket (16 bytes each: one 64-byte line)
    SV_STACK0 = 8192
    SV_RELATIVE_CARDS = 4       # hands of at most 4 cards: no chain (R2), ranks are relative
    SV_QUICK_MOVES = 48         # the quick-trick test runs at nodes of at most this many moves
    SV_QUICK_PAIRS = 16         # and tries two sure plays before the last at leads of at most
    SV_OBJ_SCORE = 0
    SV_OBJ_BASE = 1
    SV_EVAL_SLOTS = 4096
    SV_EVAL_HAND_COUNT = 0
    SV_EVAL_ROLLOUT = 1
    SV_EVAL_BUDGET = 400        # decomposition nodes per hand in an evaluation
    SV_DECO_BITS = 16           # a Search's decomposition memos grow to 2**16 entries
    SV_ETC_CARDS = 10           # SV_F_ETC only at nodes of this many cards in hand or more
    SV_SPLIT_CARDS = 2          # SV_F_SPLIT: plays ordered by 手数 from hands of this many cards
    # the techniques, each a bit (all on by default; the benchmark turns one off at a time)
    SV_F_BUCKET = 1             # 4-way buckets, work-preferred replacement (off: 1 way, always)
    SV_F_RELATIVE = 4           # table keys over relative ranks once no chain can be formed
    SV_F_MTDF = 8               # root values by MTD(f) (null windows) instead of a full window
    SV_F_QUICK = 16             # quick tricks: a lower bound from a line the others cannot stop
    SV_F_ETC = 64               # enhanced transposition cut-off: children's entries probed first
    SV_F_ORDER = 128            # R8 bounds: the finishing orders still possible, once bomb-free
    SV_F_FORCED = 256           # forced passes made without a node of their own
    SV_F_SPLIT = 512            # plays ordered by 手数 (fewest-split parts first), exact only
    SV_F_PEXT = 1024            # the relative-rank key squeezed by pext where it is fast (same keys)
    SV_F_GROUPS = 2048          # move groups: plays the rest of the deal cannot tell apart, once
                                # (exact searches, chain-free)
    SV_F_SCORE = 4096           # R8 bounds with bombs in hand (sv_score_bounds) as a cut-off
    SV_F_ALL = 8157
    SV_BOMB_SLOTS = 4096        # hands known to hold a bomb or not (direct-mapped)
    SV_ORDER_SLOTS = 1024       # bounds by finishing order (direct-mapped)
    SV_SCORE_SLOTS = 1024       # sv_score_bounds' results (direct-mapped)
    SV_HANDB_SLOTS = 4096       # sv_hand_bombs' results per hand (direct-mapped)
    SV_BEAT_SLOTS = 8192        # whether a hand can beat a play (direct-mapped)
    SV_CLASS_SLOTS = 2048       # the readings of the rest of a hand, for the quick tricks
    SV_MOVE_SLOTS = 1024        # move lists cached by hand and table (sv_moves; direct-mapped)
    SV_MOVE_MAX = 16            # of at most this many plays
    SV_MOVE_HEAD = 4            # copied first (sv_moves): the rest only for longer lists
    SV_HUGE = 1 << 21           # a huge page (the table's alignment when it is bigger)
    SV_GROW_POLL = 65535        # sv_tt_grow polls its budget every 65,536 old entries (~ms)
    SV_UNKNOWN = 1 << 30        # ``Search.known``: no bound known (bounds are within SV_INF)
    SV_PASSES = 63              # ``Search.passes``: the forced passes (at most 3 a move)
    SV_PARTNER = 128            # ``Search.passes``: the child's seat to act is a partner
    SV_CHUNK = 1024             # nodes a thread of a parallel search claims at a time
    SV_DROPPED = 16             # ``budget.stop``: another thread valued the move first
    SV_WON = 17                 # ``Shared.stop``: one strategy of a portfolio finished (sv_rival)
    SV_RIVAL_PASSES = 8         # a rival's deepening passes at most (``RootJob.passes``)
    SV_FREE = 0                 # a root move's state (``RootJob.state``): not taken yet,
    SV_TAKEN = 1                # being searched,
    SV_WRITING = 2              # valued, its value being written,
    SV_DONE = 3                 # valued,
    SV_CUT = 4                  # or not needed: another move passed the test (RootJob.mtd),
    SV_OUT = 5                  # or in no test under way (RootJob.test)
    SV_MAX_THREADS = 64         # ``threads`` at most
    SV_BUSY_SLOTS = 4096        # a parallel search's busy table: counters, hashed (sv_busy)
    SV_DEFER_FROM = 1           # ABDADA defers a busy move from a node's second move on (sv_search)


cdef extern from "<limits.h>":
    const long long SV_NEVER "LLONG_MAX"

# A doubling's predicted cost a new table entry (Searcher.grow_seconds' default), between the
# costs measured: 2^22 -> 2^23 entries 4.4 ns a new entry where the machine had mapped that
# memory before, 48 ns where it was fresh (a virtual machine mapping its memory on first
# touch; docs/solver.md "Memory"). A doubling the limit overtakes is dropped (sv_tt_grow), so
# a prediction too low wastes time, never overruns the limit
cdef double SV_GROW_SECONDS = 1e-8


ctypedef struct TTData:
    int32_t value
    uint16_t best               # 0: none; else 1 + index of the move in generation order
    uint8_t depth               # SV_TT_EXACT, or the depth of a search that met a horizon
    uint8_t meta                # flag (SV_LOWER/UPPER/EXACT; 0: empty) | log2(work) << 2


ctypedef struct TTEntry:
    # Lockless (Hyatt and Mann's XOR trick): the threads of a parallel search share the table
    # without a lock. ``data`` packs a TTData (value in the low 32 bits, best, depth, meta),
    # ``check`` is key ^ data: an entry half written by one thread and half by another fails
    # the check and reads as a miss, never as another position's bound.
    uint64_t check
    uint64_t data


ctypedef struct Shared:
    # What the threads of one parallel root search share (docs/solver.md "Threads"), owned by
    # the call (on its stack; the helpers are joined before it returns). Atomics only.
    long long claimed           # nodes handed out to the threads, in chunks of SV_CHUNK
    long long max_work          # the call's node limit (0: none)
    long long stop              # SK_RUNNING, or why a thread stopped: every thread stops


ctypedef struct Search:
    SkParams p
    int objective
    int64_t unit                # every value in multiples of this many units (sv_value_unit):
                                # 1 but for a JJ root whose values could pass the range
    int features                # SV_F_* bits
    void* tt_block              # the table's allocation (``tt`` is its 64-byte aligned start):
    size_t tt_block_bytes       # its size, mapped (sv_map_zeroed) from SV_HUGE bytes up, else
                                # calloc's (sv_tt_free)
    TTEntry* tt
    uint64_t bucket_mask        # entries − 1, without the low bits of the bucket's ways
    int tt_bits                 # the table holds 2**tt_bits entries now,
    int tt_max_bits             # and may grow to 2**tt_max_bits (sv_tt_grow)
    long long tt_fill           # its entries filled (stores into an empty entry)
    long long tt_grow_at        # the fill at which it doubles (SV_NEVER: it does not grow)
    double grow_seconds         # a doubling's predicted cost a new entry (sv_tt_grow_in_time)
    int ways
    uint64_t* words             # move stack: plays of each ply, then pass as (0, 0)
    uint32_t* tags
    int32_t* keys
    int32_t* order
    uint64_t* ckeys             # children's table keys (enhanced transposition cut-off)
    int64_t* known              # a child's upper bound at most alpha, << 1 | 1 if behind a
                                # horizon (SV_UNKNOWN: none)
    uint8_t* passes             # a child's forced passes (sv_advance) | SV_PARTNER (sv_etc_keys)
    SkUndo* cores               # a child's position after its move and forced passes, its core
                                # (sv_etc_keys; not restored for a bomb: sv_search)
    long long cap
    long long top
    long long forced            # nodes with a single move (a forced pass or play), and
                                # forced passes made without a node (SV_F_FORCED)
    SkBudget budget             # nodes (budget.work), the time limit and Ctrl-C
    Shared* shared              # a parallel search's shared budget (NULL: this one alone)
    long long* watch            # the state of the root move being searched (parallel only):
                                # once another thread has valued it, this search is dropped
    long long* busy             # a parallel search's SV_BUSY_SLOTS counters of the threads on
                                # a move (sv_busy), owned by its call (NULL: alone)
    bint stopped
    bint oom
    bint horizon                # a horizon evaluation happened in the current subtree
    bint chainfree              # the node being searched is chain-free (sv_all_chainless)
    bint has_key                # the parent computed the node's key (``key``)
    bint expect_cut             # a parallel search: the parent expects the node to cut off
    bint pext                   # sv_tt_key squeezes by pext (SV_F_PEXT, and the CPU has it fast)
    bint own_order              # a portfolio's main search: an exact search that takes no move
                                # from a depth-limited entry (its rival's: sv_rival)
    bint keep_exact             # a portfolio's rival in its passes: a depth-limited store
                                # leaves an exact entry of its key as it is (sv_store)
    uint64_t key
    int evaluation              # SV_EVAL_HAND_COUNT or SV_EVAL_ROLLOUT
    Deco deco                   # 手数 for the horizon evaluation (budgeted: see sv_eval)
    uint64_t eval_hand[SV_EVAL_SLOTS]   # its results: a hand + 1 (0: empty slot), its 手数
    int8_t eval_plays[SV_EVAL_SLOTS]
    Deco split_deco                     # 手数 for the move order (SV_F_SPLIT), apart from the
    uint64_t split_hand[SV_EVAL_SLOTS]  # evaluation's so that its values stay those of a
    int8_t split_plays[SV_EVAL_SLOTS]   # search without it (the memo's contents change them)
    bint bombfree               # the node being searched is bomb-free (sv_bomb_free)
    uint32_t top_single         # the tag of a lone big joker: only bombs beat it (R4, R5)
    uint64_t bomb_hand[SV_BOMB_SLOTS]   # a hand + 1 (0: empty slot), and whether it has a bomb
    int8_t bomb_has[SV_BOMB_SLOTS]
    uint64_t beat_hand[SV_BEAT_SLOTS]   # sv_can_beat's results: a hand + 1 (0: empty slot),
    uint32_t beat_tag[SV_BEAT_SLOTS]    # the table's tag and whether the hand can beat it
    int8_t beat_has[SV_BEAT_SLOTS]
    uint64_t class_hand[SV_CLASS_SLOTS]     # sv_classify's results: a card set + 1 (0:
    uint32_t class_tags[SV_CLASS_SLOTS][2]  # empty slot), its readings and how many
    int8_t class_n[SV_CLASS_SLOTS]
    uint64_t* mv_hand           # sv_moves' cache (SV_MOVE_SLOTS slots, sv_alloc): a hand + 1
    uint32_t* mv_table          # (0: empty slot), the table's reading, how many plays, and
    int8_t* mv_n                # the plays (SV_MOVE_MAX a slot)
    uint64_t* mv_words
    uint32_t* mv_tags
    uint64_t order_key[SV_ORDER_SLOTS]  # sv_order_bounds' results (key 0: empty slot)
    int32_t order_lo[SV_ORDER_SLOTS]
    int32_t order_hi[SV_ORDER_SLOTS]
    int ob_n                    # sv_order_here's bounds: of these places (−1: none yet) in the
    uint32_t ob_places          # bomb-free subtree being searched, for seat 0's team
    int32_t ob_lo
    int32_t ob_hi
    uint64_t hb_hand[SV_HANDB_SLOTS]    # sv_hand_bombs' results: a hand + 1 (0: empty slot),
    int64_t hb_factor[SV_HANDB_SLOTS]   # the most its bombs can multiply by, and
    int32_t hb_contrib[SV_HANDB_SLOTS]  # the most they can take from each other seat
    uint64_t sb_key[SV_SCORE_SLOTS]     # sv_score_bounds' results (key 0: empty slot)
    int32_t sb_lo[SV_SCORE_SLOTS]
    int32_t sb_hi[SV_SCORE_SLOTS]


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
            and sv_resize(<void**>&s.order, cap, sizeof(int32_t))
            and sv_resize(<void**>&s.ckeys, cap, sizeof(uint64_t))
            and sv_resize(<void**>&s.known, cap, sizeof(int64_t))
            and sv_resize(<void**>&s.passes, cap, sizeof(uint8_t))
            and sv_resize(<void**>&s.cores, cap, sizeof(SkUndo))):
        s.oom = True
        return False
    s.cap = cap
    return True


# -- the transposition table ---------------------------------------------------------------------
cdef inline TTEntry* sv_bucket(Search* s, uint64_t key) noexcept nogil:
    return s.tt + (key & s.bucket_mask)


cdef inline void sv_unpack(uint64_t d, TTData* e) noexcept nogil:
    e.value = <int32_t><uint32_t>(d & 0xFFFFFFFFULL)
    e.best = <uint16_t>(d >> 32)
    e.depth = <uint8_t>(d >> 48)
    e.meta = <uint8_t>(d >> 56)


cdef inline bint sv_probe(Search* s, TTEntry* b, uint64_t key, TTData* e) noexcept nogil:
    """The entry of ``key`` in bucket ``b`` read into ``e`` (a copy: another thread may
    overwrite the slot meanwhile); False if there is none."""
    cdef int i
    cdef uint64_t d
    for i in range(s.ways):
        d = sv_ld64(&b[i].data)
        if (sv_ld64(&b[i].check) ^ d) == key and (d >> 56) & 3:
            sv_unpack(d, e)
            return True
    return False


cdef inline bint sv_chainless(uint64_t h, uint32_t flags) noexcept nogil:
    """No chain can ever be formed from ``h`` (nor from what is left of it): every window of
    5 ranks of 3..A lacks more singles, and every window of 3 ranks more cards for pairs, than
    the hand has wilds (R2: a straight has ≥ 5 ranks, a chain of pairs ≥ 3; a chain of
    triples or bombs needs more in the same windows, and a longer chain holds such a window;
    R3: a wild fills one gap). Counted in the nibble lanes of the packed hand at once: a lane
    ``v`` (≤ 7) is ≥ ``k`` exactly when ``v + 8 − k`` sets its bit 3."""
    cdef uint64_t x = h & SK_NAT_MASK, one, two, t, win
    cdef int w = 0
    if flags & FLAG_WILD_SJ:
        w += nib(h, 13)
    if flags & FLAG_WILD_BJ:
        w += nib(h, 14)
    if w >= 5:
        return False
    one = (x | x >> 1 | x >> 2 | x >> 3) & SK_NIB1             # lanes with a card
    two = ((x + 6 * SK_NIB1) >> 3) & SK_NIB1 & SK_NAT_MASK     # lanes with 2 (≤ 8 a rank)
    # straights: ranks r..r+4 held, r = 0..7 (3..7 up to T..A), at least 5 − w of them
    win = one + (one >> 4) + (one >> 8) + (one >> 12) + (one >> 16)
    if (win + <uint64_t>(3 + w) * SK_NIB1) & (8 * SK_NIB1) & 0xFFFFFFFFULL:
        return False
    # chains of pairs: ranks r..r+2, r = 0..9, at least 6 − w of their 6 cards held
    t = one + two
    win = t + (t >> 4) + (t >> 8)
    if (win + <uint64_t>(2 + w) * SK_NIB1) & (8 * SK_NIB1) & 0xFFFFFFFFFFULL:
        return False
    return True


def chainless(uint64_t hand, uint32_t flags) -> bool:
    """``sv_chainless`` (tests): True when no chain can be formed from ``hand`` or a part."""
    return sv_chainless(hand, flags)


cdef inline bint sv_all_chainless(Search* s, const SkState* st) noexcept nogil:
    """No hand of ``st`` can form a chain (R2): at most SV_RELATIVE_CARDS cards, or
    ``sv_chainless``. Hands only shrink, so it then holds in every later position too: the
    search passes it down instead of testing each node."""
    cdef int t
    for t in range(4):
        if st.ncards[t] > SV_RELATIVE_CARDS and not sv_chainless(st.hand[t], s.p.flags):
            return False
    return True


cdef inline uint64_t sv_tt_key(Search* s, const SkState* st, bint chainfree) noexcept nogil:
    """The table key of ``st``. ``chainfree``: ``sv_all_chainless(s, st)`` (known from the
    parent or tested).

    Relative ranks (SV_F_RELATIVE, DDS's partition idea), once no hand can form a chain: then
    every play left is of one rank or of jokers, so only the order of the natural ranks still
    held matters (R4/R5 compare tops; R8 scores counts and stars, never ranks): the key has
    the held natural ranks (and the table's top) renumbered 0, 1, 2, … in order, so positions
    that differ only in the gaps share one entry. It is built like ``sk_rehash`` (seat to act,
    passes, escape, places, bombs played) with the renumbered hands and table reading in place
    of the cards: the future depends on the table's reading and owner, not on which cards
    made it. The hands and the table are mixed together: the four hand words (60 bits each)
    two seats a 128-bit product folded to 64 bits (``sv_mum``: two multiplies where five
    SplitMix finalisers were), plus the table word times an odd constant with its high half
    folded onto its low; ``SV_KEY0..4`` say why no two positions' words collide by construction, and
    ``tests/test_solve_key.py`` finds no two positions alike in key among many. Otherwise
    the engine's Zobrist hash."""
    cdef uint64_t nat[4]
    cdef uint64_t occupied = 0, held, gaps, low, tag, h
    cdef int t, r, top
    if not (s.features & SV_F_RELATIVE and chainfree):
        return st.hash
    for t in range(4):
        nat[t] = st.hand[t] & SK_NAT_MASK
        occupied |= nat[t]
    tag = st.table
    top = tag_top(tag) if tag else 15
    held = (occupied | occupied >> 1 | occupied >> 2 | occupied >> 3) & SK_NIB1 & SK_NAT_MASK
    if top < 13:
        held |= (<uint64_t>1) << (4 * top)
    gaps = ~held & SK_NIB1 & SK_NAT_MASK
    if top < 13:    # the table's top, renumbered: less the gaps below it
        tag -= <uint32_t>nib_sum(gaps & (((<uint64_t>1) << (4 * top)) - 1)) << 4
    if s.pext and gaps:
        sv_pext4(nat, held * 15)    # the held ranks' nibbles, packed down in order
        gaps = 0
    while gaps:     # squeeze each gap out, the highest first (no hand holds its rank)
        r = high_rank(gaps)
        low = ((<uint64_t>1) << (4 * r)) - 1
        for t in range(4):
            nat[t] = (nat[t] & low) | ((nat[t] >> 4) & ~low)
        gaps &= low
    for t in range(4):      # the jokers keep their ranks
        nat[t] |= st.hand[t] & ~SK_NAT_MASK
    # the hands two seats a product (sv_mum, SV_KEY0..3), the table's word by SV_KEY4, its
    # high half folded onto its low (both one-to-one; the fold spreads positions that differ
    # in the table's high fields alone over the buckets); no finaliser: each product's high half
    # already depends on every bit of both factors, and gives the key's low bits (the bucket)
    tag = (tag << 3 | <uint64_t>(st.owner + 1)) * SV_KEY4
    h = (sv_mum(nat[0] ^ SV_KEY0, nat[1] ^ SV_KEY1) + sv_mum(nat[2] ^ SV_KEY2, nat[3] ^ SV_KEY3)
         + (tag ^ tag >> 32) + _z_turn(st) + SK_ZOBRIST[_Z_ESCAPE + st.escape + 1])
    for r in range(st.nplaces):
        h += SK_ZOBRIST[_Z_PLACE + (r << 2 | st.places[r])]
    for r in range(st.nbombs):
        h += _z_bomb(st.bomb_seat[r], st.bomb_tag[r])
    return h


cdef inline bint sv_usable(const TTData* e, int depth) noexcept nogil:
    """An entry's bound holds for a search of ``depth``: it is exact, or from a search at
    least as deep (an exact search, deeper than SV_MAX_DEPTH, takes exact entries only)."""
    return e.depth == SV_TT_EXACT or (depth <= SV_MAX_DEPTH and e.depth >= depth)


cdef inline void sv_store(Search* s, uint64_t key, int32_t value, long long best,
                          int depth, int flag, long long work) noexcept nogil:
    """Store a bound in the bucket of ``key``: over the entry of ``key`` if there is one, else
    an empty entry, else the one whose subtree took the least work (depth-preferred
    replacement: the costly results stay; with one way, always replace). ``depth``
    SV_TT_EXACT: no horizon. A growing table doubles once half its entries are filled
    (sv_tt_grow): the bucket is found here, from the key, never kept across a store."""
    cdef TTEntry* b = sv_bucket(s, key)
    cdef TTEntry* e = b
    cdef int i
    cdef uint64_t d, least = sv_ld64(&b[0].data) >> 58
    for i in range(s.ways):
        d = sv_ld64(&b[i].data)
        if (sv_ld64(&b[i].check) ^ d) == key or not ((d >> 56) & 3):
            if (s.keep_exact and depth <= SV_MAX_DEPTH and (d >> 56) & 3
                    and ((d >> 48) & 0xFF) == SV_TT_EXACT):
                return  # (a depth-limited bound over an exact one: the exact stays)
            e = &b[i]
            break
        if (d >> 58) < least:
            e = &b[i]
            least = d >> 58
    if not ((sv_ld64(&e.data) >> 56) & 3):
        s.tt_fill += 1
    d = (<uint64_t><uint32_t>value
         | <uint64_t>(best if 0 <= best <= 0xFFFF else 0) << 32
         | <uint64_t>(depth if depth <= SV_MAX_DEPTH else SV_TT_EXACT) << 48
         | <uint64_t>(flag | (min(sv_log2(<unsigned long long>work + 1), 63) << 2)) << 56)
    sv_st64(&e.data, d)
    sv_st64(&e.check, key ^ d)
    if s.tt_fill >= s.tt_grow_at:
        sv_tt_grow_in_time(s)


cdef bint sv_tt_alloc(Search* s, int bits) noexcept nogil:
    """A zeroed table of ``2**bits`` entries for ``s`` (calloc: a big one is mapped zeroed on
    first touch; started on a huge page, or a cache line when smaller); False (``s``
    unchanged) if out of memory. The caller frees the previous one."""
    cdef uint64_t entries = (<uint64_t>1) << bits
    cdef size_t size = entries * sizeof(TTEntry)
    cdef size_t align = SV_HUGE if size >= SV_HUGE else 64
    cdef void* block = (sv_map_zeroed(size + align) if size >= SV_HUGE
                        else calloc(size + align, 1))
    if block == NULL:
        return False
    s.tt_block = block
    s.tt_block_bytes = size + align
    s.tt = <TTEntry*>((<size_t>block + align - 1) & ~(<size_t>(align - 1)))
    if size >= SV_HUGE:
        sv_huge_pages(s.tt, size)
    sv_tt_empty(s, bits)
    return True


cdef inline void sv_tt_empty(Search* s, int bits) noexcept nogil:
    """``s``'s table (zeroed, ``s.tt``) taken as an empty one of ``2**bits`` entries, growing
    at half full up to ``2**s.tt_max_bits``."""
    cdef uint64_t entries = (<uint64_t>1) << bits
    s.tt_bits = bits
    s.bucket_mask = (entries - 1) & ~(<uint64_t>(s.ways - 1))
    s.tt_fill = 0
    s.tt_grow_at = <long long>(entries >> 1) if bits < s.tt_max_bits else SV_NEVER


cdef bint sv_tt_clear(Search* s, int bits, int max_bits) noexcept nogil:
    """The table emptied at ``2**bits`` entries, growing up to ``2**max_bits``, as
    ``sv_tt_alloc`` leaves a new one: in the start of the block it holds where that is a heap
    block (under SV_HUGE) with room for it (no allocation, no page to fault in again: the cost
    a fresh searcher's table pays to glibc's allocator, docs/solver-history.md "The cost of a
    call on the build before the kept searcher"),
    else in a new block (a mapped table is given back: a warm searcher keeps no big table);
    False (``s`` unchanged) if out of memory."""
    cdef size_t size = ((<size_t>1) << bits) * sizeof(TTEntry)
    cdef void* block = s.tt_block
    cdef size_t nbytes = s.tt_block_bytes
    cdef int top = s.tt_max_bits
    s.tt_max_bits = max_bits
    if nbytes < SV_HUGE and <size_t>s.tt - <size_t>block + size <= nbytes:
        memset(s.tt, 0, size)
        sv_tt_empty(s, bits)
        return True
    if not sv_tt_alloc(s, bits):
        s.tt_max_bits = top
        return False
    sv_tt_free(block, nbytes)
    return True


cdef inline void sv_tt_free(void* block, size_t nbytes) noexcept nogil:
    """Free a table's allocation of ``nbytes`` (``sv_tt_alloc``: mapped from SV_HUGE up)."""
    if nbytes >= SV_HUGE:
        sv_unmap(block, nbytes)
    else:
        free(block)


cdef void sv_tt_grow(Search* s, int bits, SkBudget* budget) noexcept nogil:
    """The table grown to ``2**bits`` entries (at most ``2**tt_max_bits``), every entry kept:
    an entry's key is ``check ^ data``, and the entries of one bucket go to the two buckets
    it splits into, so they always fit. Out of memory: the table stays as it is and stops
    growing (the search goes on, only with less room). ``budget`` is polled every
    SV_GROW_POLL entries (its time limit and Ctrl-C: a doubling of a big table into fresh
    memory takes seconds): once it stops, the doubling is dropped and the old table stays,
    whole. One thread only (never during a parallel search: its helpers hold the table)."""
    cdef TTEntry* old = s.tt
    cdef void* block = s.tt_block
    cdef size_t nbytes = s.tt_block_bytes
    cdef uint64_t n = (<uint64_t>1) << s.tt_bits, i, d, key
    cdef long long fill = s.tt_fill, grow_at = s.tt_grow_at
    cdef int old_bits = s.tt_bits
    cdef TTEntry* b
    cdef int w
    bits = min(bits, s.tt_max_bits)
    if bits <= s.tt_bits:
        return
    if not sv_tt_alloc(s, bits):
        s.tt_max_bits = s.tt_bits
        s.tt_grow_at = SV_NEVER
        return
    for i in range(n):
        if (i & SV_GROW_POLL) == SV_GROW_POLL and budget_poll(budget):
            sv_tt_free(s.tt_block, s.tt_block_bytes)
            s.tt_block = block
            s.tt_block_bytes = nbytes
            s.tt = old
            sv_tt_empty(s, old_bits)
            s.tt_fill = fill
            s.tt_grow_at = grow_at
            return
        d = old[i].data
        if not ((d >> 56) & 3):
            continue
        key = old[i].check ^ d
        b = sv_bucket(s, key)
        for w in range(s.ways):
            if not ((b[w].data >> 56) & 3):
                b[w] = old[i]
                s.tt_fill += 1
                break
    sv_tt_free(block, nbytes)


cdef void sv_tt_grow_in_time(Search* s) noexcept nogil:
    """The table half full during a search: doubled (``sv_tt_grow``), unless the search has a
    time limit and the doubling, which cannot stop midway, is predicted to take more than a
    quarter of the time left (``grow_seconds`` a new entry: mapping fresh memory is what
    costs, and it varies by machine, docs/solver.md "Memory"). Refused, the search goes on in
    the table as it is (full buckets replace their cheapest entry) and asks again once another
    sixteenth of the table has filled, so the clock is read at few stores."""
    cdef long long entries = (<long long>1) << s.tt_bits
    cdef long long sixteenth = max(entries >> 4, 1)
    if s.budget.deadline != 0.0 and not sv_grow_fits(s, s.tt_bits + 1,
                                                     s.budget.deadline - sk_now()):
        s.tt_grow_at = min(s.tt_grow_at + sixteenth, entries - sixteenth)
        return
    sv_tt_grow(s, s.tt_bits + 1, &s.budget)   # (dropped if the limit passes meanwhile)


cdef inline bint sv_grow_fits(const Search* s, int bits, double left) noexcept nogil:
    """Whether growing the table to ``2**bits`` entries is predicted to take at most a quarter
    of ``left`` seconds (``grow_seconds`` a new entry)."""
    return 4.0 * s.grow_seconds * <double>((<uint64_t>1) << min(bits, s.tt_max_bits)) <= left


# -- values and horizon evaluations --------------------------------------------------------------
cdef inline int32_t sv_units(Search* s, const SkState* st, int seat) noexcept nogil:
    """The value of a finished deal (or of ``st`` read as finished) for ``seat``'s team, in
    multiples of ``s.unit`` (a position of the root's subtree: its value is one), clipped to
    ±MAX_VALUE: a JJ deal's bombs can multiply past them (``solve`` refuses such positions;
    a bot's search then values them clipped, and still ends with a move)."""
    cdef SkScore sc
    cdef int t
    cdef int64_t v = 0, x
    sk_score(&s.p, st, False, &sc)
    for t in range(4):
        x = sc.units[t] if s.objective == SV_OBJ_SCORE else sc.base[t]
        v += x if ((t ^ seat) & 1) == 0 else -x
    if s.unit != 1:
        v //= s.unit
    return <int32_t>min(max(v, 1 - SV_INF), SV_INF - 1)


cdef inline int sv_hand_plays(Search* s, Deco* d, uint64_t* hands, int8_t* plays,
                              uint64_t h) noexcept nogil:
    """The 手数 of hand ``h`` (the fewest plays that empty it) by ``d``: exact when its
    decomposition fits in SV_EVAL_BUDGET nodes, else a greedy upper bound; cached by hand
    (direct-mapped, SV_EVAL_SLOTS slots ``hands``/``plays``)."""
    cdef int k
    cdef int slot = <int>(((h * 0x9E3779B97F4A7C15ULL) >> 52) & (SV_EVAL_SLOTS - 1))
    if hands[slot] == h + 1:
        return plays[slot]
    d.limit = d.nodes + SV_EVAL_BUDGET
    k = deco_plays(deco_cost(d, h, s.p.flags, DECO_COUNT))
    hands[slot] = h + 1
    plays[slot] = <int8_t>k
    return k


cdef inline int32_t sv_eval(Search* s, const SkState* st, int seat) noexcept nogil:
    """Horizon evaluation (depth-limited search only, never in an exact value): the deal
    scored as if the seats still in went out in order of fewer plays left (手数, ties to the
    seat to act), with the hands as they are (R8.4 held bombs). A hand's 手数 is exact when
    its decomposition fits in SV_EVAL_BUDGET nodes, else a greedy upper bound."""
    cdef SkState guess = st[0]
    cdef int t, k
    for t in range(4):
        if guess.ncards[t]:
            k = sv_hand_plays(s, &s.deco, s.eval_hand, s.eval_plays, guess.hand[t])
            guess.ncards[t] = <int8_t>(2 * k - (1 if t == st.to_act else 0))
    return sv_units(s, &guess, seat)


cdef inline int32_t sv_rollout(Search* s, const SkState* st, int seat) noexcept nogil:
    """Horizon evaluation by a playout: every seat plays the kernel's greedy policy
    (``_selfplay.greedy_shortcut``, its plays listed with the fewest wilds when it needs them)
    to the end."""
    cdef SkState play = st[0]
    cdef long long start = s.top
    cdef int n, me, choice
    cdef int opp_min = 0
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
            sk_play_unhashed(&play, s.words[start + choice], s.tags[start + choice])
        else:
            sk_pass_unhashed(&play)
    return sv_units(s, &play, seat)


# -- bounds without search -----------------------------------------------------------------------
cdef inline bint sv_out_decides(const SkState* st, int seat) noexcept nogil:
    """R7: would ``seat`` going out decide the deal (see ``sk_decided``)? Yes when it is the
    first finisher's partner, or when another opponent of the first finisher is already out."""
    if st.nplaces == 0:
        return False
    return seat == (st.places[0] ^ 2) or st.nplaces >= 2


cdef inline bint sv_within(uint64_t hand, uint64_t w) noexcept nogil:
    """Every rank of ``w`` has at most as many cards as in ``hand``."""
    cdef int r
    while w:
        r = SK_CTZ64(w) >> 2
        if nib(w, r) > nib(hand, r):
            return False
        w &= ~((<uint64_t>15) << (4 * r))
    return True


cdef inline bint sv_sure(Search* s, const SkState* st, int seat, long long start, int i,
                         uint64_t* known, uint64_t* sure) noexcept nogil:
    """Neither opponent of ``seat`` can beat play ``i`` (R4/R5: no play of theirs beats it,
    ``sv_can_beat``'s cache), cached in bit ``i`` of ``known`` (tested) and ``sure`` (the
    answer): a node's moves, at most SV_QUICK_MOVES, fit in one word each, kept in registers
    (no array to clear at every node)."""
    cdef int k, o
    cdef uint64_t bit = (<uint64_t>1) << i
    if known[0] & bit:
        return (sure[0] & bit) != 0
    known[0] |= bit
    for k in range(1, 4, 2):
        o = (seat + k) & 3
        if st.ncards[o] and sv_can_beat(s, st.hand[o], s.tags[start + i]):
            return False
    sure[0] |= bit
    return True


cdef inline int sv_classify(Search* s, uint64_t cards, uint32_t* tags) noexcept nogil:
    """``sk_classify`` of ``cards`` (0..2 readings into ``tags``), cached by the card set
    (direct-mapped): the quick tricks ask for the rest of the same hands at many nodes."""
    cdef int slot = <int>(((cards * 0x9E3779B97F4A7C15ULL) >> 53) & (SV_CLASS_SLOTS - 1))
    if s.class_hand[slot] != cards + 1:
        s.class_n[slot] = <int8_t>sk_classify(cards, s.p.flags, s.class_tags[slot])
        s.class_hand[slot] = cards + 1
    tags[0] = s.class_tags[slot][0]
    tags[1] = s.class_tags[slot][1]
    return s.class_n[slot]


cdef inline int32_t sv_over(Search* s, SkState* st, int seat) noexcept nogil:
    """``sv_units`` of a finished deal ``st`` (over) reached in the bomb-free subtree being
    searched: there the score is fixed by the finishing order alone, so where every order
    that extends its places scores alike (``sv_order_bounds``' bounds meet: the outcome is
    decided, R7, R8) that value, read from their cache, not scored again."""
    cdef int32_t lo, hi
    if s.bombfree:
        sv_order_bounds(s, st, seat, &lo, &hi)
        if lo == hi:
            return lo
    return sv_units(s, st, seat)


cdef inline int32_t sv_line(Search* s, SkState* st, const SkUndo* u, int seat,
                            long long start, int i, int j, uint64_t rest, const uint32_t* tags,
                            int nr, int32_t lb) noexcept nogil:
    """The better of ``lb`` and the value of the line: ``seat`` plays move ``i`` (then move
    ``j`` if ``j`` ≥ 0), each won as every other seat passes, then leads ``rest``, one play
    (its ``nr`` readings ``tags``: each is tried), and is out. Played on ``st`` itself (its
    core saved in ``u``, restored before returning: no copy of the whole state)."""
    cdef SkUndo line
    cdef int r, m, k
    cdef int32_t v, hi
    for m in range(2):
        k = i if m == 0 else j
        if k < 0:
            break
        sk_play_unhashed(st, s.words[start + k], s.tags[start + k])
        if st.over or st.to_act == seat:
            sk_restore(st, u)
            return lb       # cannot happen (the seat keeps cards, others too): no bound from it
        sk_trick_won_unhashed(st)   # every other seat passes: the seat leads again
    sk_save(st, &line)
    for r in range(nr):
        if r:
            sk_restore(st, &line)
        sk_play_unhashed(st, rest, tags[r])
        if st.over:
            v = sv_over(s, st, seat)
        elif s.bombfree:    # the worst finishing order left after the seat is out
            sv_order_bounds(s, st, seat, &v, &hi)
        elif s.features & SV_F_SCORE:   # the least the R8 bounds leave, bombs in hand
            sv_score_bounds(s, st, seat, &v, &hi)
        else:
            v = -SV_INF
        if not st.over:
            v = sv_relay(s, st, seat, tags[r], v)
        if v > lb:
            lb = v
    sk_restore(st, u)
    return lb


cdef inline int32_t sv_relay(Search* s, SkState* fin, int seat, uint32_t last,
                             int32_t lb) noexcept nogil:
    """The better of ``lb`` and a quick trick's relay (R7 接风): ``seat`` went out with play
    ``last``; if neither opponent can beat it, every seat passes and the lead goes to the
    partner, whose going out then decides the deal (its team takes places 1 and 2): at once
    when its hand is one play, or after one play neither opponent can beat (its moves are
    listed above the stack's top, at most SV_QUICK_MOVES of them). Played on ``fin`` itself
    (the caller restores its core): the relay's state and the partner's lines are saved and
    undone as cores, not copied whole."""
    cdef SkUndo relay, out
    cdef uint32_t tags[2]
    cdef uint64_t rest, hand
    cdef long long top = s.top
    cdef int k, o, r, nr, i, n, p = seat ^ 2
    cdef int32_t v
    cdef bint sure
    if fin.ncards[p] == 0:
        return lb
    for k in range(1, 4, 2):
        o = (seat + k) & 3
        if fin.ncards[o] and sv_can_beat(s, fin.hand[o], last):
            return lb
    sk_relay_unhashed(fin)      # every seat passes: the partner leads (R7 接风)
    hand = fin.hand[p]
    sk_save(fin, &relay)
    nr = sv_classify(s, hand, tags)
    for r in range(nr):
        if r:
            sk_restore(fin, &relay)
        sk_play_unhashed(fin, hand, tags[r])
        if fin.over:
            v = sv_over(s, fin, seat)
            if v > lb:
                lb = v
    if nr:
        return lb
    n = sv_moves(s, fin)
    if n < 0 or n > SV_QUICK_MOVES:
        return lb
    for i in range(n):
        rest = hand - s.words[top + i]
        if rest == 0:
            continue
        nr = sv_classify(s, rest, tags)
        if nr == 0:
            continue
        sure = True     # the opponents' hands: the relay's (the partner alone plays here)
        for k in range(1, 4, 2):
            o = (seat + k) & 3
            if fin.ncards[o] and sv_can_beat(s, fin.hand[o], s.tags[top + i]):
                sure = False
        if not sure:
            continue
        sk_restore(fin, &relay)     # the relay's state (an earlier line may have changed it)
        sk_play_unhashed(fin, s.words[top + i], s.tags[top + i])
        sk_trick_won_unhashed(fin)  # (rest is not empty: the partner keeps cards, leads again)
        rest = fin.hand[p]
        sk_save(fin, &out)
        for r in range(nr):
            if r:
                sk_restore(fin, &out)
            sk_play_unhashed(fin, rest, tags[r])
            if fin.over:
                v = sv_over(s, fin, seat)
                if v > lb:
                    lb = v
    return lb


cdef inline int32_t sv_quick(Search* s, SkState* st, const SkUndo* u, int seat,
                             long long start, int n, int32_t beta) noexcept nogil:
    """Quick tricks, the lower bound of a shedding game: the seat to act has a line of plays
    that neither opponent can beat (R4/R5: ``sk_count`` against each is 0) ending in one play
    that empties its hand, and going out then decides the deal or the position is bomb-free.
    The partner can pass and the opponents must, so after each such play the seat leads again
    (answering, the first play beats the table): that line is in the team's power, and its
    final value (bomb-free: the worst finishing order left after the seat is out) bounds the
    position's from below. Lines of one sure play then the last, and leading with at most
    SV_QUICK_PAIRS moves, two sure plays then the last. Returns the best such bound (as soon
    as one reaches ``beta``), −SV_INF if there is none. ``start``/``n``: the seat's moves;
    the lines are played on ``st`` (its core saved in ``u``), which is left as it was."""
    cdef uint64_t hand = st.hand[seat], rest, rest2
    cdef uint32_t tags[2]
    cdef int i, j, nr
    cdef int32_t lb = -SV_INF
    cdef uint64_t known = 0, sure = 0      # sv_sure's answers so far, a bit a move
    if not s.bombfree and st.ncards[seat ^ 2] == 0 and not sv_out_decides(st, seat):
        return -SV_INF      # (the cheap tests first: most nodes are bomb-free)
    for i in range(n):
        rest = hand - s.words[start + i]
        if rest == 0 or s.tags[start + i] == 0:
            continue        # going out at once is a move: the search sees it first
        if not sv_sure(s, st, seat, start, i, &known, &sure):
            continue        # an opponent can beat it: no line starts with it
        nr = sv_classify(s, rest, tags)
        if nr:
            lb = sv_line(s, st, u, seat, start, i, -1, rest, tags, nr, lb)
        elif st.table == 0 and n <= SV_QUICK_PAIRS:
            for j in range(i + 1, n):
                rest2 = rest - s.words[start + j]
                if rest2 == 0 or not sv_within(rest, s.words[start + j]):
                    continue
                nr = sv_classify(s, rest2, tags)
                if nr and sv_sure(s, st, seat, start, j, &known, &sure):
                    lb = sv_line(s, st, u, seat, start, i, j, rest2, tags, nr, lb)
        if lb >= beta:
            break
    return lb


cdef inline int32_t sv_etc_keys(Search* s, SkState* st, const SkUndo* u, int seat,
                                int32_t beta, int depth, long long start, int n,
                                bint hashed, long long* code) noexcept nogil:
    """Enhanced transposition cut-off, its first half: each child's forced passes
    (``sv_advance``), position after them (its core, ``s.cores``) and table key (kept in
    ``s.ckeys``/``s.passes`` for its own search: the search restores the core rather than
    play the move and passes again), its bucket prefetched; ``sv_etc_probe`` reads them once
    other work has hidden the memory's latency. A child that ends the deal is valued at once:
    if it reaches ``beta``, returns its value (``code``: 1 + the move's index), else −SV_INF.
    ``hashed``: not ``sv_hashless(s)``."""
    cdef int i, d
    cdef int32_t v = 0
    cdef bint over
    for i in range(n):
        s.known[start + i] = SV_UNKNOWN
        sv_apply(st, s.words[start + i], s.tags[start + i], hashed)
        d = sv_advance(s, st, depth - 1, hashed)
        s.passes[start + i] = <uint8_t>(depth - 1 - d)
        sk_save(st, &s.cores[start + i])
        over = st.over != 0
        if over:
            v = sv_over(s, st, seat)
            s.ckeys[start + i] = 0
        else:
            s.ckeys[start + i] = sv_tt_key(s, st, s.chainfree or (
                s.features & SV_F_RELATIVE and sv_all_chainless(s, st)))
            sv_prefetch(sv_bucket(s, s.ckeys[start + i]))
            if ((st.to_act ^ seat) & 1) == 0:
                s.passes[start + i] |= SV_PARTNER
        sk_restore(st, u)
        if over and v >= beta:
            code[0] = i + 1
            return v
    return -SV_INF


cdef inline int32_t sv_etc_probe(Search* s, int32_t alpha, int32_t beta, int depth,
                                 long long start, int n, long long* code,
                                 bint* exact) noexcept nogil:
    """Enhanced transposition cut-off, its second half: look each child up in the table; the
    first whose bound proves ``beta`` from here cuts without a search, though the move order
    would have searched another child first. Returns that value (``code``: 1 + the move's
    index; ``exact``: no horizon behind the bound), or −SV_INF. A child whose entry bounds it
    at most ``alpha`` needs no search either: its bound is kept (``s.known``) as its value."""
    cdef int i, flag
    cdef TTData ce
    cdef int32_t v = 0, up
    exact[0] = True
    for i in range(n):
        if s.ckeys[start + i] == 0:
            continue
        if not sv_probe(s, sv_bucket(s, s.ckeys[start + i]), s.ckeys[start + i], &ce):
            continue
        if not sv_usable(&ce, depth - 1 - (s.passes[start + i] & SV_PASSES)):
            continue
        v = -SV_INF
        up = SV_INF
        flag = ce.meta & 3
        if s.passes[start + i] & SV_PARTNER:
            if flag != SV_UPPER:        # the child's lower bound is this seat's
                v = ce.value
            if flag != SV_LOWER:
                up = ce.value
        else:                           # an opponent's bounds, negated
            if flag != SV_LOWER:
                v = -ce.value
            if flag != SV_UPPER:
                up = -ce.value
        if up <= alpha:     # searched last (its move key), if at all
            s.known[start + i] = (<int64_t>up) * 2 + (ce.depth != SV_TT_EXACT)
            s.keys[start + i] = -(1 << 30)
        if v >= beta:
            code[0] = i + 1
            exact[0] = ce.depth == SV_TT_EXACT
            return v
    return -SV_INF


cdef inline bint sv_bomb_free(Search* s, const SkState* st) noexcept nogil:
    """No seat can play a bomb (R5: bombs alone beat a lone big joker, so ``sk_count``
    against it counts a hand's bombs, wild readings included), now or later: hands only
    shrink, so the search passes it down like ``chainfree``."""
    cdef int t, slot
    cdef uint64_t h
    for t in range(4):
        if st.ncards[t] == 0:
            continue
        h = st.hand[t]
        slot = <int>(((h * 0x9E3779B97F4A7C15ULL) >> 52) & (SV_BOMB_SLOTS - 1))
        if s.bomb_hand[slot] != h + 1:
            s.bomb_hand[slot] = h + 1
            s.bomb_has[slot] = sk_count(h, s.p.flags, s.top_single, False) != 0
        if s.bomb_has[slot]:
            return False
    return True


cdef inline uint64_t sv_places_key(const SkState* st, uint64_t key) noexcept nogil:
    """``key`` plus the places so far and the bombs played (the R8 bounds' cache keys), never 0
    (an empty slot)."""
    cdef int r
    for r in range(st.nplaces):
        key += SK_ZOBRIST[_Z_PLACE + (r << 2 | st.places[r])]
    for r in range(st.nbombs):
        key += _z_bomb(st.bomb_seat[r], st.bomb_tag[r])
    return key | 1


cdef inline int sv_final_orders(const SkState* st, SkState* f, int8_t* orders) noexcept nogil:
    """The finishing orders of the four seats that extend ``st``'s places (the deal ends at
    one of them: R7), four seats each into ``orders`` (room for all 24); returns how many.
    ``f``: ``st`` finished, every seat out and no card held, to score an order in by setting
    its places (held bombs are the caller's to bound)."""
    cdef int a, b, c, i, t, n = 0
    cdef bint ok
    f[0] = st[0]
    for t in range(4):
        f.ncards[t] = 0
    f.nplaces = 4
    f.over = 1
    f.to_act = -1
    for a in range(4):
        for b in range(4):
            for c in range(4):
                if a == b or a == c or b == c:
                    continue
                orders[4 * n] = <int8_t>a
                orders[4 * n + 1] = <int8_t>b
                orders[4 * n + 2] = <int8_t>c
                orders[4 * n + 3] = <int8_t>(6 - a - b - c)
                ok = True
                for i in range(st.nplaces):
                    if orders[4 * n + i] != st.places[i]:
                        ok = False
                if ok:
                    n += 1
    return n


cdef inline void sv_order_bounds(Search* s, const SkState* st, int seat, int32_t* lo,
                                 int32_t* hi) noexcept nogil:
    """R8 bounds of a bomb-free position (``sv_bomb_free``) for ``seat``'s team: no bomb can
    be played any more and no hand can hold one (R8.4), so the score is fixed by the finishing
    order alone; ``lo``/``hi`` are the least and most of ``sv_units`` over the orders that
    extend the places so far (the deal ends at some such order: R7). Cached by the places,
    the bombs played and the team."""
    cdef uint64_t key = sv_places_key(
        st, 0x2545F4914F6CDD1DULL + <uint64_t>(seat & 1) * 0x9E3779B97F4A7C15ULL)
    cdef int i, k, n
    cdef int slot = <int>((key >> 40) & (SV_ORDER_SLOTS - 1))
    cdef int32_t v
    cdef int8_t orders[96]
    cdef SkState f
    if s.order_key[slot] == key:
        lo[0] = s.order_lo[slot]
        hi[0] = s.order_hi[slot]
        return
    lo[0] = SV_INF
    hi[0] = -SV_INF
    n = sv_final_orders(st, &f, orders)     # bomb-free: no held bombs to bound
    for k in range(n):
        for i in range(4):
            f.places[i] = orders[4 * k + i]
        v = sv_units(s, &f, seat)
        if v < lo[0]:
            lo[0] = v
        if v > hi[0]:
            hi[0] = v
    s.order_key[slot] = key
    s.order_lo[slot] = lo[0]
    s.order_hi[slot] = hi[0]


cdef inline void sv_order_here(Search* s, const SkState* st, int seat, int32_t* lo,
                               int32_t* hi) noexcept nogil:
    """``sv_order_bounds`` at a node of the bomb-free subtree being searched: there no bomb
    can be played, so the bounds change only with the places, and a seat of the other team
    has them negated (R8: one team's value is the other's, negated). The last ones are kept
    (``s.ob_*``, forgotten where a bomb-free subtree starts: ``sv_search``): the places of
    most nodes are their parent's."""
    cdef uint32_t places
    memcpy(&places, st.places, 4)
    places &= <uint32_t>(((<uint64_t>1) << (8 * st.nplaces)) - 1)     # the places taken
    if st.nplaces != s.ob_n or places != s.ob_places:
        sv_order_bounds(s, st, 0, &s.ob_lo, &s.ob_hi)
        s.ob_n = st.nplaces
        s.ob_places = places
    if seat & 1:
        lo[0] = -s.ob_hi
        hi[0] = -s.ob_lo
    else:
        lo[0] = s.ob_lo
        hi[0] = s.ob_hi


# -- R8 bounds with bombs in hand (SV_F_SCORE) ----------------------------------------------------
# Soundness (docs/solver.md "R8 bounds with bombs in hand"). At the end of the deal (R7) the
# places are some order O of the four seats extending the places so far, and every bomb played
# from now on, and every bomb R8.4 counts as held at the end, is a bomb made of cards of one
# seat's hand now; one seat's are disjoint (a card is played once, and held cards were never
# played). So, with O fixed (its outcome, team T and base units are then fixed, and so are the
# multiplier and contributions of the bombs played so far, read by sk_score on the finished
# copy f of the position with places O and no cards held):
# - the multiplier (R8.1, R8.2, R8.4: the biggest factor among T's bombs) lies between the
#   one of T's bombs played so far, M0, and max(M0, the most any one bomb of a T seat's hand
#   can give); R8.3's (the product over every bomb played) between M0 and M0 times, per seat,
#   the most the factors of disjoint bombs of its hand can multiply to (sv_hand_bombs);
# - each seat s adds contributions c_s (R8.2: bombs it plays; R8.4: bombs it plays or holds at
#   the end), 0 <= c_s <= sk_held_best(hand): the best split of the hand into disjoint bombs
#   by the same contribution table (the R8.4 DP, run with the preset's mode) is at least any
#   disjoint family's total. Seat s then gets +3 c_s, each other seat -c_s.
# Uncapped, the value for seat a's team is M·B + C0 + 4·sum(sigma_s c_s) (B, C0: the team sums
# of base and of the contributions so far, sigma_s = ±1 by team: c_s moves the team's value by
# 3c - c + c + c = 4c when s is on it, by -4c when not), linear in M and in each c_s, so its
# extremes over the box are at its corners: the least is min(M0·B, Mhi·B) + C0 - 4·(the
# opponents' most), the most likewise. With a cap
# (R8.4's ±300) each seat's units clamp(base_t·M + C0_t + 3c_t - sum of the others' c) are
# monotone in every term, so each lies between the clamp of its own least and most; the value
# is then bounded seat by seat (and where no seat can reach the cap, by the uncapped bound).
# The least and most over the orders O bound the value. Horizon values are scores of such
# finals too (sv_eval: the hands held as they are, held bombs of hands held now), so the
# bound holds at any depth, like sv_order_bounds'. "base" has neither multiplier nor
# contributions: its bounds are the finishing orders' (sv_order_bounds), bombs or not.

cdef extern from *:
    """
    #define SV_FACTOR_MAX (((int64_t)1) << 40)
    """
    const int64_t SV_FACTOR_MAX     # sv_score_bounds saturates multipliers here (int64 headroom)


cdef uint64_t _JJ_ROOT[SK_JJ_LOG]     # 2 ** (r / SK_JJ_LOG) × 2^32, rounded up (r < SK_JJ_LOG)


cdef void _jj_roots():
    """Fill ``_JJ_ROOT`` (once, at import; read-only after). The double's rounding error is
    far below the 1 added (r = 0 is exact: 2^32)."""
    cdef int r
    for r in range(SK_JJ_LOG):
        _JJ_ROOT[r] = <uint64_t>_ceil(2.0 ** (r / <double>SK_JJ_LOG) * 2.0 ** 32) + (r != 0)


_jj_roots()


cdef inline int64_t sv_jj_product(int w) noexcept nogil:
    """``2 ** (w / SK_JJ_LOG)`` rounded down (an integer at least it, where ``w`` is not a
    multiple of SK_JJ_LOG: ``_JJ_ROOT`` rounds up), at most SV_FACTOR_MAX: from
    ``sk_held_jj_log``'s ``w``, at least the product of any disjoint bombs' JJ factors."""
    cdef int q = w // SK_JJ_LOG
    cdef uint64_t root = _JJ_ROOT[w % SK_JJ_LOG], v
    if q >= 40:
        return SV_FACTOR_MAX
    v = root >> (32 - q) if q <= 32 else root << (q - 32)
    return <int64_t>v if v < <uint64_t>SV_FACTOR_MAX else SV_FACTOR_MAX


def jj_log(uint64_t hand, uint32_t flags) -> int:
    """``sk_held_jj_log`` (tests): the held-bomb DP's most log weight of disjoint bombs of
    ``hand`` (R8.3), in 64ths of log2."""
    _check_hand(hand)
    return sk_held_jj_log(hand, flags)


def jj_power(int w) -> int:
    """``sv_jj_product`` (tests): the product bound of a log weight ``w`` (0 <= w)."""
    if w < 0:
        raise ArgumentError(f"w must be >= 0, not {w}")
    return sv_jj_product(w)


cdef inline void sv_hand_bombs(Search* s, uint64_t h, int64_t* factor,
                               int32_t* contrib) noexcept nogil:
    """What bombs made of hand ``h`` can still do (sv_score_bounds): ``factor``, an upper
    bound on the multiplier they can give (R8.1/R8.2/R8.4: one bomb's factor; R8.3: the
    product of disjoint bombs' factors), and ``contrib``, the most their contributions can
    take from each other seat (the R8.4 best split into disjoint bombs, by the preset's
    contribution table: 0 without contributions). Cached by hand (direct-mapped).

    A bomb's stars are bounded from the hand's counts (wilds fill any shortfall): an X相 bomb
    of rank r has X <= count(r) + wilds; an X相Y连 chain bomb over ranks r..r+Y-1 of 3..A has
    sum(max(0, X - count)) <= wilds; 三王 needs 3 jokers, 天王 4 (R3, R5). The factor is
    monotone in stars (size in classic), so that bound's factor is at least any bomb's."""
    cdef int slot = <int>(((h * 0x9E3779B97F4A7C15ULL) >> 52) & (SV_HANDB_SLOTS - 1))
    cdef int c[13]
    cdef int r, i, y, x, need, w, jok, smax = 0, xmax = 0
    cdef int64_t f
    cdef uint32_t flags = s.p.flags
    if s.hb_hand[slot] == h + 1:
        factor[0] = s.hb_factor[slot]
        contrib[0] = s.hb_contrib[slot]
        return
    for r in range(13):
        c[r] = nib(h, r)
    jok = nib(h, 13) + nib(h, 14)
    w = ((nib(h, 13) if flags & FLAG_WILD_SJ else 0)
         + (nib(h, 14) if flags & FLAG_WILD_BJ else 0))
    for r in range(13):         # X相: at least one natural (wilds alone read as jokers, R3)
        if c[r] and c[r] + w > xmax:
            xmax = c[r] + w
    if xmax >= 4:
        smax = xmax
    for y in range(3, 7):       # X相Y连 over ranks 3..A (indices 0..11): 4 cards a rank at least
        if not flags & FLAG_STARS or xmax < 4:
            break
        for r in range(12 - y + 1):
            x = 4
            while True:
                need = 0
                for i in range(y):
                    if c[r + i] < x:
                        need += x - c[r + i]
                if need > w:
                    break
                x += 1
            if x - 1 >= 4 and x - 1 + y > smax:
                smax = x - 1 + y
    if jok == 4 and smax < 7:
        smax = 7
    elif jok >= 3 and smax < 6:
        smax = 6
    f = 1
    if s.p.mode == SK_MODE_CLASSIC:     # R8.1: cards - 3 beyond 4; 天王 by option
        if xmax > 4:
            f = xmax - 3
        if jok == 4 and s.p.four_jokers_multiplier > f:
            f = s.p.four_jokers_multiplier
    elif s.p.mode == SK_MODE_JJ:        # R8.3: a product over disjoint bombs (their best split)
        f = sv_jj_product(sk_held_jj_log(h, flags)) if smax >= 6 else 1
    else:                               # R8.2 / R8.4: the most stars of one bomb
        f = _star_factor(smax, s.p.mode)
    s.hb_hand[slot] = h + 1
    s.hb_factor[slot] = f
    # contributions need 6★ (R8.2, R8.4): the DP only where a bomb may reach it
    s.hb_contrib[slot] = sk_held_best(h, flags, s.p.mode) if smax >= 6 else 0
    factor[0] = f
    contrib[0] = s.hb_contrib[slot]


cdef inline int64_t _sv_clamp(int64_t x, int64_t cap) noexcept nogil:
    if cap > 0:
        if x > cap:
            return cap
        if x < -cap:
            return -cap
    return x


cdef inline uint64_t sv_hands_bombs(Search* s, const SkState* st, int64_t* fm, int32_t* cm,
                                    uint64_t key) noexcept nogil:
    """What each seat's hand can still do with bombs (``sv_hand_bombs``; an empty hand
    nothing) into ``fm``/``cm``; returns ``key`` mixed with it (sv_score_bounds' cache key)."""
    cdef int t
    for t in range(4):
        fm[t] = 1
        cm[t] = 0
        if st.ncards[t]:
            sv_hand_bombs(s, st.hand[t], &fm[t], &cm[t])
        key = (key ^ (<uint64_t>fm[t] * 0xBF58476D1CE4E5B9ULL + <uint64_t>cm[t])) * 0x9E3779B97F4A7C15ULL
    return key


cdef void sv_score_range(Search* s, const SkState* st, int seat, const int64_t* fm,
                         const int32_t* cm, int64_t* lo, int64_t* hi) noexcept nogil:
    """The R8 bounds of an unfinished position for ``seat``'s team in units (the argument
    above; the objective "score"), ``fm``/``cm`` what each hand's bombs can do
    (sv_hands_bombs): the least and most of the final value over the finishing orders still
    possible and what those bombs can add, played or held (R8.4), within the cap."""
    cdef int64_t m0, mhi, bm0, bmh, b, c0, tlo, thi, olo, ohi, blo, bhi, mine, theirs, total
    cdef int64_t cap = s.p.score_cap, best_lo = INT64_MAX, best_hi = INT64_MIN
    cdef int i, k, n, t, first, sig
    cdef int8_t orders[96]
    cdef bint clamps
    cdef SkState f
    cdef SkScore sc
    mine = theirs = 0
    for t in range(4):
        if ((t ^ seat) & 1) == 0:
            mine += cm[t]
        else:
            theirs += cm[t]
    total = mine + theirs
    n = sv_final_orders(st, &f, orders)     # the held bombs are in cm
    for k in range(n):
        for i in range(4):
            f.places[i] = orders[4 * k + i]
        sk_score(&s.p, &f, False, &sc)
        first = sc.places[0]
        m0 = sc.multiplier
        mhi = m0
        for t in range(4):
            if s.p.mode == SK_MODE_JJ:
                mhi = mhi * fm[t]
                if mhi > SV_FACTOR_MAX:
                    mhi = SV_FACTOR_MAX
            elif ((t ^ first) & 1) == 0 and fm[t] > mhi:
                mhi = fm[t]
        b = 0
        c0 = 0
        clamps = False
        blo = bhi = 0
        for t in range(4):
            sig = 1 if ((t ^ seat) & 1) == 0 else -1
            bm0 = <int64_t>sc.base[t] * m0
            bmh = <int64_t>sc.base[t] * mhi
            b += sig * sc.base[t]
            c0 += sig * (sc.unclamped[t] - bm0)
            tlo = (bm0 if bm0 < bmh else bmh) + (sc.unclamped[t] - bm0) - (total - cm[t])
            thi = (bm0 if bm0 > bmh else bmh) + (sc.unclamped[t] - bm0) + 3 * cm[t]
            if cap > 0 and (tlo < -cap or thi > cap):
                clamps = True
            if sig > 0:
                blo += _sv_clamp(tlo, cap)
                bhi += _sv_clamp(thi, cap)
            else:
                blo -= _sv_clamp(thi, cap)
                bhi -= _sv_clamp(tlo, cap)
        if clamps:      # the seat-by-seat bound (the cap may bind)
            olo = blo
            ohi = bhi
        else:           # no seat reaches the cap: the value is linear
            olo = (m0 * b if m0 * b < mhi * b else mhi * b) + c0 - 4 * theirs
            ohi = (m0 * b if m0 * b > mhi * b else mhi * b) + c0 + 4 * mine
        if olo < best_lo:
            best_lo = olo
        if ohi > best_hi:
            best_hi = ohi
    lo[0] = best_lo
    hi[0] = best_hi


cdef inline void sv_score_bounds(Search* s, const SkState* st, int seat, int32_t* lo,
                                 int32_t* hi) noexcept nogil:
    """R8 bounds of any position for ``seat``'s team, bombs in hand included, in multiples
    of ``s.unit`` (rounded outwards) and clipped to the search's values: ``sv_score_range``.
    A finished deal's are its value; "base"'s are the finishing orders'. Cached by the
    places, the bombs played, the team and what each hand's bombs can do (sv_hand_bombs)."""
    cdef int64_t fm[4]
    cdef int32_t cm[4]
    cdef int64_t best_lo, best_hi
    cdef uint64_t key = 0x6A09E667F3BCC909ULL + <uint64_t>(seat & 1) * 0x9E3779B97F4A7C15ULL
    cdef int slot
    if st.over:
        lo[0] = hi[0] = sv_units(s, st, seat)
        return
    if s.objective == SV_OBJ_BASE:
        sv_order_bounds(s, st, seat, lo, hi)
        return
    key = sv_places_key(st, sv_hands_bombs(s, st, fm, cm, key))
    slot = <int>((key >> 40) & (SV_SCORE_SLOTS - 1))
    if s.sb_key[slot] == key:
        lo[0] = s.sb_lo[slot]
        hi[0] = s.sb_hi[slot]
        return
    sv_score_range(s, st, seat, fm, cm, &best_lo, &best_hi)
    if s.unit != 1:     # every value a multiple of it (sv_value_unit): rounded outwards
        best_lo = _sv_floor_div(best_lo, s.unit)
        best_hi = -_sv_floor_div(-best_hi, s.unit)
    if best_lo < 1 - SV_INF:    # beyond the search's values (a JJ deal's product bound)
        best_lo = 1 - SV_INF
    if best_hi > SV_INF - 1:
        best_hi = SV_INF - 1
    lo[0] = <int32_t>best_lo
    hi[0] = <int32_t>best_hi
    s.sb_key[slot] = key
    s.sb_lo[slot] = lo[0]
    s.sb_hi[slot] = hi[0]


cdef inline int64_t _sv_floor_div(int64_t a, int64_t b) noexcept nogil:
    """``a // b`` rounded down (``b`` > 0; C's division truncates)."""
    cdef int64_t q = a // b
    return q - 1 if q * b > a else q


cdef int64_t sv_value_unit(Search* s, const SkState* st) noexcept nogil:
    """The unit of a search from root ``st`` (``Search.unit``): 1, but where R8.3 multiplies
    over every bomb played (JJ, no cap; JJ has no contributions), so that every value of the
    root's subtree is a multiple of the multiplier of the bombs played so far, and the root's
    static bounds in units pass the search's values (±MAX_VALUE): then that multiplier (its
    values divided by it are exact, and within the range unless the bombs still in hand can
    multiply past it)."""
    cdef int64_t fm[4]
    cdef int32_t cm[4]
    cdef int64_t lo, hi
    cdef SkScore sc
    if (s.p.mode != SK_MODE_JJ or s.objective != SV_OBJ_SCORE or s.p.score_cap > 0
            or st.over or st.to_act < 0):
        return 1
    sk_score(&s.p, st, False, &sc)
    if sc.multiplier == 1:
        return 1
    sv_hands_bombs(s, st, fm, cm, 0)
    sv_score_range(s, st, st.to_act, fm, cm, &lo, &hi)
    if lo > 1 - SV_INF and hi < SV_INF - 1:
        return 1
    return sc.multiplier


cdef inline void sv_set_unit(Search* s, int64_t unit) noexcept nogil:
    """``s.unit`` set, its caches of values in the old unit emptied where it changes (the
    R8 bounds'; the table is the caller's)."""
    if s.unit == unit:
        return
    s.unit = unit
    memset(s.order_key, 0, sizeof(s.order_key))
    memset(s.sb_key, 0, sizeof(s.sb_key))


# -- the search ----------------------------------------------------------------------------------
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
    move stack at ``top``; return how many (−1: out of memory). The plays depend on the hand
    and the table's reading alone: lists of at most SV_MOVE_MAX plays are cached by both
    (direct-mapped, ``s.mv_*``), since the same hands meet the same tables in many lines."""
    cdef long long start = s.top
    cdef uint64_t hand = 0
    cdef int n, i, slot = 0
    cdef bint cached = False
    if not st.over:
        hand = st.hand[st.to_act]
        slot = <int>((((hand ^ (<uint64_t>st.table * 0xD6E8FEB86659FD93ULL))
                       * 0x9E3779B97F4A7C15ULL) >> 54) & (SV_MOVE_SLOTS - 1))
        cached = s.mv_hand[slot] == hand + 1 and s.mv_table[slot] == st.table
    if cached:      # the slot copied in fixed sizes (a few vector moves, no loop; the entries
                    # past ``n``, stale or never written, land where nothing reads them): its
                    # first SV_MOVE_HEAD plays, then the rest of the slot only where there are
                    # more (most lists are answers of a few plays: half the copying, or less)
        n = s.mv_n[slot]
        if SV_MOVE_MAX + 1 > s.cap - start - 1 and not sv_grow(s, SV_MOVE_MAX + 2):
            return -1
        memcpy(&s.words[start], &s.mv_words[slot * SV_MOVE_MAX], SV_MOVE_HEAD * sizeof(uint64_t))
        memcpy(&s.tags[start], &s.mv_tags[slot * SV_MOVE_MAX], SV_MOVE_HEAD * sizeof(uint32_t))
        if n > SV_MOVE_HEAD:
            memcpy(&s.words[start + SV_MOVE_HEAD], &s.mv_words[slot * SV_MOVE_MAX + SV_MOVE_HEAD],
                   (SV_MOVE_MAX - SV_MOVE_HEAD) * sizeof(uint64_t))
            memcpy(&s.tags[start + SV_MOVE_HEAD], &s.mv_tags[slot * SV_MOVE_MAX + SV_MOVE_HEAD],
                   (SV_MOVE_MAX - SV_MOVE_HEAD) * sizeof(uint32_t))
    else:
        n = sk_legal(&s.p, st, False, s.words + start, s.tags + start, <int>(s.cap - start - 1))
        if n + 1 > s.cap - start - 1:
            if not sv_grow(s, n + 2):
                return -1
            sk_legal(&s.p, st, False, s.words + start, s.tags + start, n)
        if not st.over and n <= SV_MOVE_MAX:
            s.mv_hand[slot] = hand + 1
            s.mv_table[slot] = st.table
            s.mv_n[slot] = <int8_t>n
            for i in range(n):
                s.mv_words[slot * SV_MOVE_MAX + i] = s.words[start + i]
                s.mv_tags[slot * SV_MOVE_MAX + i] = s.tags[start + i]
    if st.table:
        s.words[start + n] = 0
        s.tags[start + n] = 0
        n += 1
    return n


cdef inline bint sv_hashless(const Search* s) noexcept nogil:
    """The node being searched needs no engine hash below it: it is chain-free and keyed by
    relative ranks (``sv_tt_key`` never reads ``st.hash`` there), so its moves skip the hash
    update (``st.hash`` goes stale until ``sk_restore``)."""
    return s.chainfree and (s.features & SV_F_RELATIVE) != 0


cdef inline int sv_groups(Search* s, const SkState* st, long long start, int n) noexcept nogil:
    """Move groups (DDS's equivalent cards, this game's version): keep one play of each group
    of plays that lead to the same value, and return how many are left (compacted in place,
    generation order kept). At a chain-free node (``s.chainfree``: every play left is of one
    natural rank, with wilds, or of jokers), say the seat to act, X, holds naturals of ranks
    r < r' with no other seat holding r, r' or any rank between, and as many cards of r as of
    r'. Swapping the labels r and r' everywhere maps the position after X's play of r onto the
    position after the same play of r' (same cards taken, same wilds and jokers, same reading
    but its top), and keeps every comparison the rest of the deal can make: another seat's play
    tops a rank outside r..r', so it beats or loses to both alike (R4, R5), and a seat never
    answers its own play (R7). R8 scores counts and stars, never ranks (held bombs too), and
    no chain can be formed on either side (hands only shrink). So the two plays have one value.
    The key of a play: its reading without the top, the rank's run (how many ranks held by
    other seats lie below it), X's count of the rank, the naturals taken and the jokers
    taken; plays of several ranks (none here) and ranks other seats hold are never grouped.
    Exact searches only: a horizon evaluation (the greedy rollout) may tell the ranks apart.
    The children's keys (``s.ckeys``) hold the kept plays' group keys meanwhile."""
    cdef int seat = st.to_act, i, j, m = 0, r
    cdef uint64_t mine = st.hand[seat], others = 0, lanes, w, g, key, runs
    cdef uint64_t seen[2]
    cdef uint32_t tag
    cdef bint dup
    for i in range(4):
        if i != seat:
            others |= st.hand[i]
    others &= SK_NAT_MASK
    others = (others | others >> 1 | others >> 2 | others >> 3) & SK_NIB1
    lanes = mine & SK_NAT_MASK
    lanes = (lanes | lanes >> 1 | lanes >> 2 | lanes >> 3) & SK_NIB1 & ~others
    if (lanes & (lanes - 1)) == 0:
        return n        # fewer than two ranks of the hand's own: no group
    # nibble r of ``runs``: the ranks other seats hold up to r (at most 13: no carry), so a
    # rank of the hand's own has its run there
    runs = others * SK_NIB1
    # two plays group only if their ranks have one run and one count in the hand: without
    # two such ranks, no group (each rank's run and count, 7 bits, marked in ``seen``)
    seen[0] = 0
    seen[1] = 0
    dup = False
    while lanes:
        r = SK_CTZ64(lanes) >> 2
        key = <uint64_t>(nib(runs, r) << 3 | (nib(mine, r) - 1))
        if (seen[key >> 6] >> (key & 63)) & 1:
            dup = True
            break
        seen[key >> 6] |= (<uint64_t>1) << (key & 63)
        lanes &= lanes - 1
    if not dup:
        return n
    for i in range(n):
        w = s.words[start + i]
        tag = s.tags[start + i]
        g = 0
        if tag != 0:
            lanes = w & SK_NAT_MASK
            lanes = (lanes | lanes >> 1 | lanes >> 2 | lanes >> 3) & SK_NIB1
            if lanes != 0 and (lanes & (lanes - 1)) == 0 and (lanes & others) == 0:
                r = SK_CTZ64(lanes) >> 2
                g = (<uint64_t>(tag & ~(<uint32_t>0xF0))
                     | <uint64_t>nib(runs, r) << 32
                     | <uint64_t>nib(mine, r) << 37 | <uint64_t>nib(w, r) << 41
                     | (w >> 52) << 45 | (<uint64_t>1) << 63)
        dup = False
        if g != 0:
            for j in range(m):
                if s.ckeys[start + j] == g:
                    dup = True
                    break
        if dup:
            continue
        s.words[start + m] = w
        s.tags[start + m] = tag
        s.ckeys[start + m] = g
        m += 1
    return m


cdef inline void sv_apply(SkState* st, uint64_t word, uint32_t tag, bint hashed) noexcept nogil:
    if tag == 0:
        if hashed:
            sk_pass(st)
        else:
            sk_pass_unhashed(st)
    elif hashed:
        sk_play(st, word, tag)
    else:
        sk_play_unhashed(st, word, tag)


cdef inline bint sv_can_beat(Search* s, uint64_t hand, uint32_t table) noexcept nogil:
    """``hand`` has a play beating ``table`` (``sk_nth``: the kernel's first one), cached by
    hand and table (direct-mapped): the same hands meet the same plays in many lines."""
    cdef uint64_t w
    cdef uint32_t t
    cdef int slot = <int>((((hand ^ (<uint64_t>table << 32) ^ table) * 0x9E3779B97F4A7C15ULL)
                           >> 51) & (SV_BEAT_SLOTS - 1))
    if s.beat_hand[slot] != hand + 1 or s.beat_tag[slot] != table:
        s.beat_hand[slot] = hand + 1
        s.beat_tag[slot] = table
        s.beat_has[slot] = sk_nth(hand, s.p.flags, table, False, 0, &w, &t)
    return s.beat_has[slot]


cdef bint sv_claim(Search* s) noexcept nogil:
    """A thread of a parallel search claims its next SV_CHUNK nodes (fewer at the end) of the
    shared budget; False when none is left or another thread stopped (``Shared.stop``)."""
    cdef Shared* sh = s.shared
    cdef long long got, grant
    if sv_ld(&sh.stop) != SK_RUNNING:
        return False
    if s.watch != NULL and sv_ld(s.watch) >= SV_WRITING:
        s.budget.stop = SV_DROPPED      # not the call's stop: this thread goes on elsewhere
        return False
    got = sv_fetch_add(&sh.claimed, SV_CHUNK)
    grant = SV_CHUNK if sh.max_work == 0 else min(<long long>SV_CHUNK, sh.max_work - got)
    if grant <= 0:
        return False
    s.budget.max_work += grant
    return True


cdef bint sv_more_work(Search* s) noexcept nogil:
    """After ``budget_tick`` stopped ``s``: a thread of a parallel search whose chunk of nodes
    ran out claims the next (True: go on). Otherwise it stops, and so does every other thread
    (``Shared.stop``, read at each claim: within SV_CHUNK nodes): one node budget, one time
    limit, one Ctrl-C for the whole call."""
    if s.shared == NULL:
        return False
    if s.budget.stop == SK_STOP_WORK:
        if sv_claim(s):
            s.budget.stop = SK_RUNNING
            return True
        s.budget.work -= 1      # the refused tick searched nothing: nodes stay ≤ the limit
        if s.budget.stop == SV_DROPPED:
            return False
    sv_cas(&s.shared.stop, SK_RUNNING, s.budget.stop)
    return False


cdef inline long long* sv_busy(Search* s, uint64_t key, int i) noexcept nogil:
    """ABDADA's mark of move ``i`` of the node of ``key``: how many threads are searching it
    (atomic; hashed into SV_BUSY_SLOTS counters, so a collision only defers a move that no
    thread is on: the order changes, never a value)."""
    return &s.busy[((key ^ (<uint64_t>(i + 1) * 0x9E3779B97F4A7C15ULL))
                    * 0xD6E8FEB86659FD93ULL >> 40) & (SV_BUSY_SLOTS - 1)]


cdef inline bint sv_settled(Search* s, uint64_t key, int depth, int32_t alpha, int32_t beta,
                            TTData* e) noexcept nogil:
    """A parallel search, between two moves of a node: the table now holds a bound (``e``)
    that settles the node for the window (alpha, beta), stored by another thread that
    finished it meanwhile (the moves left need no search)."""
    return sv_probe(s, sv_bucket(s, key), key, e) and sv_usable(e, depth) and (
        (e.meta & 3) == SV_EXACT or ((e.meta & 3) == SV_LOWER and e.value >= beta)
        or ((e.meta & 3) == SV_UPPER and e.value <= alpha))


cdef inline int sv_advance(Search* s, SkState* st, int depth, bint hashed) noexcept nogil:
    """Forced passes without a node (SV_F_FORCED): while the seat to act faces a play it
    cannot beat (no play of ``sk_legal``'s), it passes: its only move, so the position's value
    is the next one's (a pass never ends the deal, R7). Returns the moves left of ``depth``
    (each pass one, and none made at depth 0: a depth-limited search meets its horizon where
    it did with a node for each pass). ``hashed``: not ``sv_hashless(s)`` (known to the
    caller)."""
    if not s.features & SV_F_FORCED:
        return depth
    # not once the deal is over: no seat is to act (to_act −1 would index before the hands)
    while (depth > 0 and not st.over and st.table
           and not sv_can_beat(s, st.hand[st.to_act], st.table)):
        if hashed:
            sk_pass(st)
        else:
            sk_pass_unhashed(st)
        s.forced += 1
        depth -= 1
    return depth


cdef inline int32_t sv_child(Search* s, SkState* st, int seat, int32_t alpha, int32_t beta,
                             int depth) noexcept nogil:
    """Value for ``seat`` of the position ``st`` reached by ``seat``'s move."""
    if st.over:
        return sv_over(s, st, seat)
    if ((st.to_act ^ seat) & 1) == 0:
        return sv_search(s, st, alpha, beta, depth)
    return -sv_search(s, st, -beta, -alpha, depth)


cdef inline void sv_raise(long long* p, long long v) noexcept nogil:
    """``*p`` = max(``*p``, ``v``), atomically (the threads of a root search share it)."""
    cdef long long b = sv_ld(p)
    while v > b and not sv_cas(p, b, v):
        b = sv_ld(p)


cdef inline void sv_drop(long long* p, long long v) noexcept nogil:
    """``*p`` = min(``*p``, ``v``), atomically."""
    cdef long long b = sv_ld(p)
    while v < b and not sv_cas(p, b, v):
        b = sv_ld(p)


cdef inline void sv_bound(long long* lo, long long* hi, int32_t v, int32_t beta) noexcept nogil:
    """What a finished fail-soft search of window (beta − 1, beta) proved: a value ``v`` below
    beta bounds the move from above, one at beta or more from below (``lo``, ``hi``: the
    move's proven bounds, NULL: not kept)."""
    if lo == NULL:
        return
    if v < beta:
        sv_drop(hi, v)
    else:
        sv_raise(lo, v)


cdef inline void sv_expect(Search* s, SkState* st, int seat, bint fail_high) noexcept nogil:
    """At the root: the type ``seat``'s move's child ``st`` is expected to have, from what the
    root's window test is expected to show (``fail_high``: the move reaches it). The root is
    then a CUT node, else an ALL node; an opponent's child takes the other type, a partner's
    (the same window) the same (``Search.expect_cut``: read by a parallel search only)."""
    s.expect_cut = (not fail_high) if ((st.to_act ^ seat) & 1) else fail_high


cdef inline int32_t sv_mtdf(Search* s, SkState* st, int seat, int32_t guess, int depth,
                            long long* lo_out, long long* hi_out) noexcept nogil:
    """The exact value for ``seat`` of ``st`` (reached by its move) by MTD(f): null-window
    searches from ``guess``, each proving a bound, until the bounds meet. Each bound proven
    is kept in ``lo_out``/``hi_out`` (NULL: not kept), so a search stopped before they meet
    still leaves what it proved."""
    cdef int32_t lo = -SV_INF, hi = SV_INF, g = guess, b
    while lo < hi:
        b = g + 1 if g == lo else g
        sv_expect(s, st, seat, b == g)  # the guess is reached; one above it is not
        g = sv_child(s, st, seat, b - 1, b, depth)
        if s.stopped:
            return 0
        sv_bound(lo_out, hi_out, g, b)
        if g < b:
            hi = g
        else:
            lo = g
    return g


cdef int32_t sv_search(Search* s, SkState* st, int32_t alpha, int32_t beta,
                       int depth) noexcept nogil:
    """Fail-soft alpha-beta value of ``st`` for its seat to act, within ``depth`` moves."""
    cdef int seat = st.to_act, n = 0, k, i, j, bi, d
    cdef int32_t best = -SV_INF, v, a0 = alpha, kb
    cdef uint32_t hint = 0
    cdef uint64_t key
    cdef long long start, work0, best_code = 0
    cdef bint outer_horizon, cf0 = s.chainfree, bf0 = s.bombfree, exact, etc = False
    cdef bint has_key = s.has_key, split, hashed, defer, cut = s.expect_cut
    cdef int lim
    cdef long long* busy
    cdef int32_t lo, hi
    cdef int hp = 0
    cdef TTEntry* b
    cdef TTData e
    cdef SkUndo u
    s.has_key = False
    if budget_tick(&s.budget) and not sv_more_work(s):
        s.stopped = True
    if s.stopped:
        return 0
    if depth <= 0:
        s.horizon = True
        if s.evaluation == SV_EVAL_ROLLOUT:
            return sv_rollout(s, st, seat)
        return sv_eval(s, st, seat)
    if not cf0 and s.features & SV_F_RELATIVE:
        s.chainfree = sv_all_chainless(s, st)   # then for the whole subtree (hands shrink)
    if has_key:     # the parent's: its bucket is on its way (prefetched by the parent)
        key = s.key
        b = sv_bucket(s, key)
    if s.features & SV_F_ORDER:
        if not bf0:
            s.bombfree = sv_bomb_free(s, st)    # then for the whole subtree
            s.ob_n = -1     # its bombs played may not be those of sv_order_here's bounds
        if s.bombfree:  # a bound from the finishing orders left: valid at any depth
            sv_order_here(s, st, seat, &lo, &hi)
            if hi <= alpha or lo >= beta:
                s.chainfree = cf0
                s.bombfree = bf0
                return hi if hi <= alpha else lo
    if s.features & SV_F_SCORE and not s.bombfree:     # R8 bounds, bombs in hand: any depth
        sv_score_bounds(s, st, seat, &lo, &hi)
        if hi <= alpha or lo >= beta:
            s.chainfree = cf0
            s.bombfree = bf0
            return hi if hi <= alpha else lo
    start = s.top
    if not has_key:     # keyed only past the bounds (a node they settle needs no key); the
        key = sv_tt_key(s, st, s.chainfree)     # probe waits for memory: the moves meanwhile
        b = sv_bucket(s, key)
        sv_prefetch(b)
        n = sv_moves(s, st)
    if sv_probe(s, b, key, &e):
        if sv_usable(&e, depth) and (
                (e.meta & 3) == SV_EXACT or ((e.meta & 3) == SV_LOWER and e.value >= beta)
                or ((e.meta & 3) == SV_UPPER and e.value <= alpha)):
            if e.depth != SV_TT_EXACT:
                s.horizon = True
            s.chainfree = cf0
            s.bombfree = bf0
            return e.value
        if e.depth == SV_TT_EXACT or not s.own_order:
            hint = e.best
        cut = (e.meta & 3) == SV_LOWER      # an earlier search cut it off: a CUT node
    if has_key:         # the parent prefetched the bucket: the moves only if no cut-off
        n = sv_moves(s, st)
    if n < 0:
        s.stopped = True
        s.chainfree = cf0
        s.bombfree = bf0
        return 0
    if s.features & SV_F_GROUPS and s.chainfree and depth > SV_MAX_DEPTH and n > 2:
        n = sv_groups(s, st, start, n)
    s.top = start + n
    sk_save(st, &u)
    hashed = not sv_hashless(s)
    if n == 1:
        s.forced += 1   # counted only: a store here pays (forced positions transpose too)
    # exact searches only: a depth-limited one's values may depend on the order (through the
    # table), and PIMC's choices on them
    split = (s.features & SV_F_SPLIT and depth > SV_MAX_DEPTH
             and st.ncards[seat] >= SV_SPLIT_CARDS)
    if split:
        hp = sv_hand_plays(s, &s.split_deco, s.split_hand, s.split_plays, st.hand[seat]) - 1
    # the quick tricks before the children's keys: a node they cut off keys no child. A
    # quick trick's line splits the hand into at most 3 plays leading, 2 answering: a hand
    # whose 手数 (known from the move order) is more has none
    if (s.features & SV_F_QUICK and n <= SV_QUICK_MOVES
            and not (split and hp >= (3 if st.table == 0 else 2))):
        v = sv_quick(s, st, &u, seat, start, n, beta)
        if v >= beta:       # a line to the end the opponents cannot stop: valid at any depth
            sv_store(s, key, v, 0, SV_TT_EXACT, SV_LOWER, 1)
            s.top = start
            s.chainfree = cf0
            s.bombfree = bf0
            return v
    # below SV_ETC_CARDS in hand the children's subtrees are small: searching them costs less
    # than keying every child (docs/solver-history.md, "Each technique's effect when it was
    # added"). The move order is worked out while the children's buckets arrive
    if (s.features & SV_F_ETC and n > 1 and depth > 1
            and st.ncards[0] + st.ncards[1] + st.ncards[2] + st.ncards[3] >= SV_ETC_CARDS):
        etc = True
        v = sv_etc_keys(s, st, &u, seat, beta, depth, start, n, hashed, &best_code)
        if v >= beta:       # a move ending the deal
            sv_store(s, key, v, best_code, SV_TT_EXACT, SV_LOWER, 1)
            s.top = start
            s.chainfree = cf0
            s.bombfree = bf0
            return v
    # the 手数 damage and the wilds order plays among themselves only (an answer's stays
    # within its band, above the pass or below it: at most 2^12 a play of damage, far less
    # than 2^20): with one play or none the order is the same without them
    split = split and n - (st.table != 0) > 1
    for i in range(n):
        s.order[start + i] = i
        s.keys[start + i] = (1 << 30) if <uint32_t>(i + 1) == hint else sv_key(
            st, s.words[start + i], s.tags[start + i], seat)
        if split and s.tags[start + i] != 0 and s.words[start + i] != st.hand[seat]:
            # a play that is no part of a fewest-plays split costs the hand a play or more
            s.keys[start + i] -= (sv_hand_plays(s, &s.split_deco, s.split_hand, s.split_plays,
                                                st.hand[seat] - s.words[start + i]) - hp) << (
                                  23 if st.table == 0 else 12)
            s.keys[start + i] -= tag_wilds(s.tags[start + i]) << 11     # then wild-free first
    if etc:
        v = sv_etc_probe(s, alpha, beta, depth, start, n, &best_code, &exact)
        if v >= beta:
            if not exact:
                s.horizon = True
            sv_store(s, key, v, best_code, SV_TT_EXACT if exact else depth, SV_LOWER, 1)
            s.top = start
            s.chainfree = cf0
            s.bombfree = bf0
            return v
    outer_horizon = s.horizon
    s.horizon = False
    work0 = s.budget.work
    # a parallel search (ABDADA): a move another thread is searching waits in order[lim..n)
    # until the others are tried. Not the first SV_DEFER_FROM moves, searched by every thread
    # that comes (young brothers wait: the first move sets the window; deferring from the
    # fourth move instead, as the builds before did, looked better only where the threads
    # took turns on busy cores: docs/solver.md "Threads"), nor at a node expected to cut
    # off (``cut``: its entry a lower bound, or with none its parent's expectation): the
    # sibling another thread is on likely ends it, so a thread joins that one (sharing its
    # table entries) rather than start moves one thread never searches (docs/solver.md
    # "Threads")
    defer = s.busy != NULL and not cut
    lim = n
    k = 0
    while k < n:
        if k == lim:    # the moves deferred, searched now whoever else is on them
            lim = n
            defer = False
        # selection: the best-keyed move not tried yet (cut-offs usually come early)
        bi = k
        kb = s.keys[start + s.order[start + k]]
        for j in range(k + 1, lim):
            if s.keys[start + s.order[start + j]] > kb:
                bi = j
                kb = s.keys[start + s.order[start + j]]
        i = s.order[start + bi]
        s.order[start + bi] = s.order[start + k]
        s.order[start + k] = i
        if s.busy != NULL and k > 0:
            if sv_settled(s, key, depth, a0, beta, &e):     # by another thread meanwhile
                s.horizon = s.horizon or outer_horizon or e.depth != SV_TT_EXACT
                s.top = start
                s.chainfree = cf0
                s.bombfree = bf0
                return e.value
            if defer and k >= SV_DEFER_FROM and sv_ld(sv_busy(s, key, i)) > 0:
                lim -= 1
                s.order[start + k] = s.order[start + lim]
                s.order[start + lim] = i
                continue
        k += 1
        if etc and s.known[start + i] != SV_UNKNOWN:    # its bound, from the cut-off's probe
            v = <int32_t>(s.known[start + i] >> 1)
            if s.known[start + i] & 1:
                s.horizon = True
            if v > best:
                best = v
                best_code = i + 1
            continue
        if etc:     # its position, forced passes and key, from the cut-off's probe
            if tag_kind(s.tags[start + i]) < K_BOMB:
                sk_restore(st, &s.cores[start + i])
            else:   # (a later child may have overwritten its entry of the bombs played)
                sv_apply(st, s.words[start + i], s.tags[start + i], hashed)
                for j in range(s.passes[start + i] & SV_PASSES):
                    if hashed:
                        sk_pass(st)
                    else:
                        sk_pass_unhashed(st)
            d = depth - 1 - (s.passes[start + i] & SV_PASSES)
            if s.ckeys[start + i] != 0:
                s.has_key = True
                s.key = s.ckeys[start + i]
        else:
            sv_apply(st, s.words[start + i], s.tags[start + i], hashed)
            d = sv_advance(s, st, depth - 1, hashed)
        busy = sv_busy(s, key, i) if s.busy != NULL else NULL
        if busy != NULL:
            sv_fetch_add(busy, 1)
            # a CUT node's children all fail low (ALL), an ALL node's cut off: the opponents'
            # nodes expect the other type, the partner's (the same window) the same
            s.expect_cut = (not cut) if ((st.to_act ^ seat) & 1) else cut
        v = sv_child(s, st, seat, alpha, beta, d)
        if busy != NULL:
            sv_fetch_add(busy, -1)
        s.has_key = False
        sk_restore(st, &u)
        if s.stopped:
            s.top = start
            s.chainfree = cf0
            s.bombfree = bf0
            return 0
        if v > best:
            best = v
            best_code = i + 1
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    s.top = start
    sv_store(s, key, best, best_code, depth if s.horizon else SV_TT_EXACT,
             SV_UPPER if best <= a0 else (SV_LOWER if best >= beta else SV_EXACT),
             s.budget.work - work0)
    s.horizon = s.horizon or outer_horizon
    s.chainfree = cf0
    s.bombfree = bf0
    return best


# -- the root, alone or split over threads (docs/solver.md "Root", "Threads") -------------------
ctypedef struct RootJob:
    # One root search's moves and results, owned by the call; its threads claim the moves in
    # ``order`` one at a time (``next``) and share ``best``, the best exact value so far.
    SkState root
    uint64_t* words             # the root's moves (a copy: each thread has its own stack)
    uint32_t* tags
    int* order                  # the moves in the order they are tried
    int n
    int depth
    int32_t top                 # the most any move can reach (the finishing orders), or SV_INF
    int32_t guess               # the first move's MTD(f) guess (the table's value)
    bint all_values
    bint one                    # one optimal move is enough (exact searches only, sv_root_move)
    bint mtd                    # an exact search without ``all_values`` by MTD(f) over the
                                # root: a sequence of tests, each "does a move reach
                                # ``window``?" (sv_root_main, sv_mtd_next)
    bint proving                # (not ``one``) the value known: each move that may reach it
                                # is tested at it, a move reaching it ending no test
    bint complete               # the tests are over: every result is proven
    bint first                  # the first test: of ``order[0]`` alone
    int* test                   # the moves of the test under way (``order``'s, in its order;
    int tn                      # ``order`` itself without ``mtd``) and their number
    int32_t window              # the test under way: its bound,
    bint expect_high            # whether a move is expected to reach it,
    int32_t mlo                 # the root's bounds proven so far (``mlo``: by move ``pick``),
    int32_t mhi
    int32_t g                   # the last test's fail-soft value (MTD(f)'s next guess)
    int pick
    long long round             # tests started (atomic): idle helpers wait for the next,
    long long idle              # helpers done with the test under way (atomic),
    long long finished          # no test follows (atomic)
    long long next              # the next index of ``order`` to claim (atomic)
    long long best              # the best exact value so far (atomic; −SV_INF: none yet)
    long long running           # helper threads still searching (atomic)
    int32_t* values             # per move: exact, or an upper bound below ``best``
    long long* state            # per move: SV_FREE, SV_TAKEN, SV_WRITING, SV_DONE, SV_CUT,
                                # SV_OUT (atomic)
    long long* on               # per move: the threads searching it (atomic)
    long long* lo               # per move: the bounds its searches proved so far (atomic;
    long long* hi               # ±SV_INF: none), exact searches only (NULL otherwise)
    Shared shared
    int npasses                 # a rival's job (sv_rival): the depths of its deepening passes
    int passes[SV_RIVAL_PASSES]


cdef inline int32_t sv_pass_best(Search* s, SkState* st, int seat, int32_t best, int d,
                                 long long* lo, long long* hi) noexcept nogil:
    """Does the root move played into ``st`` pass ``best``? A null window above it: if so, the
    move's exact value (MTD(f) from the test's), else an upper bound, at most ``best``."""
    cdef int32_t v
    sv_expect(s, st, seat, False)
    v = sv_child(s, st, seat, best, best + 1, d)
    if not s.stopped:
        sv_bound(lo, hi, v, best + 1)
    if v > best and not s.stopped:
        v = sv_mtdf(s, st, seat, v, d, lo, hi)
    return v


cdef inline int32_t sv_root_move(Search* s, RootJob* j, int i, bint first,
                                 int32_t guess) noexcept nogil:
    """Move ``i`` of the root: its exact value when it is the first (MTD(f) from ``guess``) or
    all values are asked for; else a null window at the best value so far (``guess``): its
    exact value if it reaches it, else an upper bound below it. ``s.stopped``: no value."""
    cdef SkState st = j.root
    cdef int seat = st.to_act, d
    cdef int32_t v, best = guess
    cdef long long* lo = NULL if j.lo == NULL else &j.lo[i]
    cdef long long* hi = NULL if j.hi == NULL else &j.hi[i]
    sv_apply(&st, j.words[i], j.tags[i], True)
    d = sv_advance(s, &st, j.depth - 1, not sv_hashless(s))
    if j.mtd:   # the root's test: does this move reach the window? (fail-soft: a bound)
        sv_expect(s, &st, seat, j.expect_high)
        v = sv_child(s, &st, seat, j.window - 1, j.window, d)
        if not s.stopped:
            sv_bound(lo, hi, v, j.window)
        return v
    if (j.all_values or first) and s.features & SV_F_MTDF:
        return sv_mtdf(s, &st, seat, guess, d, lo, hi)
    if j.all_values or first:
        s.expect_cut = False    # a full window: every move of the child is searched
        v = sv_child(s, &st, seat, -SV_INF, SV_INF, d)
        if not s.stopped and lo != NULL:
            sv_raise(lo, v)
            sv_drop(hi, v)
        return v
    if j.one:   # one optimal move is enough: a move matters only if it passes best
        if best >= j.top:       # none can: the move is not searched (its upper bound j.top)
            return best
        # at most best: an upper bound (the move may reach best too)
        return sv_pass_best(s, &st, seat, best, d, lo, hi)
    # a null window: does the move reach best? (else v bounds it, < best; expected: the
    # moves are tried best first)
    sv_expect(s, &st, seat, False)
    v = sv_child(s, &st, seat, best - 1, best, d)
    if not s.stopped:
        sv_bound(lo, hi, v, best)
    if v >= best and not s.stopped:
        if best >= j.top:       # nothing beats best: v is best
            v = best
        else:                   # does it pass best? then its exact value, else it is best
            v = sv_pass_best(s, &st, seat, best, d, lo, hi)
            if v <= best and not s.stopped:
                v = best
    return v


cdef bint sv_root_task(Search* s, RootJob* j, int i) noexcept nogil:
    """Value root move ``i`` (maybe with other threads on it: they split its tree, sv_search)
    and record it unless another thread did first; then the others' searches of it are
    dropped (``s.watch``). False when the call stops."""
    cdef int32_t v
    cdef long long b
    cdef int m
    s.watch = &j.state[i] if s.shared != NULL else NULL
    sv_fetch_add(&j.on[i], 1)
    v = sv_root_move(s, j, i, i == j.order[0],
                     j.guess if i == j.order[0] else <int32_t>sv_ld(&j.best))
    sv_fetch_add(&j.on[i], -1)
    s.watch = NULL
    if s.stopped:
        if s.budget.stop != SV_DROPPED:
            return False
        s.stopped = False               # the other thread's value stands: go on
        s.budget.stop = SK_RUNNING
        return True
    if sv_cas(&j.state[i], SV_TAKEN, SV_WRITING):
        j.values[i] = v
        b = sv_ld(&j.best)
        while v > b and not sv_cas(&j.best, b, v):
            b = sv_ld(&j.best)
        sv_st(&j.state[i], SV_DONE)     # after ``best``: the others' window is up to date
        if j.mtd and v >= j.window and not j.proving:   # the root passes the test: no
            sv_st(&j.next, j.tn)                            # other move is needed
            for m in range(j.n):        # (the threads on one drop it at their next claim)
                if not sv_cas(&j.state[m], SV_FREE, SV_CUT):
                    sv_cas(&j.state[m], SV_TAKEN, SV_CUT)
    return True


cdef inline bint sv_any_taken(RootJob* j) noexcept nogil:
    """A move of the root is being searched (taken, not yet valued)."""
    cdef int m
    for m in range(j.n):
        if sv_ld(&j.state[m]) == SV_TAKEN:
            return True
    return False


cdef void sv_root_loop(Search* s, RootJob* j) noexcept nogil:
    """A thread's part of the root: once the first move is valued (its value is the others'
    window), claim the moves left one at a time and value each against the best so far; with
    none left to claim, help with the move the fewest threads are searching (their searches
    split its tree, sv_search's ABDADA; the first to finish records it). With one optimal
    move (``j.one``), in an MTD(f) test expected to pass (``j.expect_high``), the moves are
    taken in turn instead, every thread on the one under way until it is valued: the test ends
    at the first move reaching its bound, most likely an early one, and a thread on a later
    move searches it for nothing (9 cards, 千变 seed 0: the span 40.2–40.8 → 29.1–30.0 M
    nodes). Not with every optimal move, where it cost more than it saved (9 cards, 百变 seed
    2: 49.3 → 65.3 M nodes; docs/solver.md "Threads"). Every thread of a parallel search runs
    it: a move that reaches the best value read when it started is valued exactly, so every
    optimal move has its exact value whichever thread took which move."""
    cdef long long k, st, on, fewest
    cdef int i, m
    cdef bint busy
    while True:
        i = -1
        if ((j.proving or sv_ld(&j.state[j.test[0]]) == SV_DONE)
                and sv_ld(&j.next) < j.tn
                and not (j.one and j.mtd and j.expect_high and sv_any_taken(j))):
            k = sv_fetch_add(&j.next, 1)
            if k < j.tn:
                i = j.test[k]
                if sv_cas(&j.state[i], SV_FREE, SV_TAKEN):  # (not if a test passed meanwhile)
                    if not sv_root_task(s, j, i):
                        return
                continue
        busy = False
        fewest = SV_NEVER
        for m in range(j.n):    # the move being searched by the fewest threads (the earliest)
            st = sv_ld(&j.state[j.order[m]])
            if st == SV_TAKEN:
                on = sv_ld(&j.on[j.order[m]])
                if on < fewest:
                    i = j.order[m]
                    fewest = on
            busy = busy or st == SV_WRITING
        if i >= 0:
            if not sv_root_task(s, j, i):
                return
        elif busy or sv_ld(&j.next) < j.tn:
            sv_pause()                  # a value being written, or the first move's
        else:
            return


cdef void sv_wait(Search* s, RootJob* j) noexcept nogil:
    """The calling thread, done with its moves, waits for the helpers to finish theirs,
    polling its budget meanwhile (Ctrl-C and the time limit stop every thread)."""
    while sv_ld(&j.running) > 0:
        if not s.stopped and budget_poll(&s.budget):
            s.stopped = True
            sv_cas(&j.shared.stop, SK_RUNNING, s.budget.stop)
        sv_pause()


cdef bint sv_mtd_next(RootJob* j) noexcept nogil:
    """MTD(f) over the root (``j.mtd``): set up the next test, its moves free (``j.test``, the
    first taken by the calling thread), the others out of it: at the last one's fail-soft
    value ``j.g`` (one above it when that is the proven lower bound), each move that may
    reach it (a move whose proven upper bound is below the window is not searched); the
    first test, at the guess, of ``order[0]`` alone (``j.first``: when it fails, the next
    is at that move's fail-soft bound, where the others are tested once). Once the
    bounds meet, the value is ``j.mlo``; unless ``j.one``, a last test at it of every move
    neither proven to reach it nor bounded below it (``j.proving``). False when no test
    follows: the results are complete (``j.complete``). Only while no helper is searching
    (before they start, or all idle)."""
    cdef int i, m
    if j.mlo >= j.mhi and (j.one or j.proving):
        j.complete = True
        return False
    j.tn = 0
    if j.mlo >= j.mhi:          # the value is known: which other moves reach it?
        j.proving = True
        j.window = j.mlo
        j.expect_high = False   # (the moves are tried best first: the later ones fail)
    else:
        j.window = j.g + 1 if j.g == j.mlo else j.g
        j.expect_high = j.window == j.g     # the guess is reached; one above the lower bound not
    for m in range(j.n):
        i = j.order[m]
        if (sv_ld(&j.hi[i]) >= j.window
                and not (j.proving and sv_ld(&j.lo[i]) >= j.window)
                and not (j.first and j.tn > 0)):
            j.test[j.tn] = i
            j.tn += 1
        sv_st(&j.state[i], SV_OUT)
    if j.tn == 0:               # (proving) every move proven or bounded below the value
        j.complete = True
        return False
    for m in range(j.tn):
        sv_st(&j.state[j.test[m]], SV_FREE)
    sv_st(&j.state[j.test[0]], SV_TAKEN)
    sv_st(&j.best, -SV_INF)
    sv_st(&j.idle, 0)
    sv_st(&j.next, 1)
    return True


cdef bint sv_mtd_result(RootJob* j) noexcept nogil:
    """What the finished test proved: the root's bounds from the moves' (``j.lo``, ``j.hi``:
    a move reaching the window raised its lower bound to its fail-soft value, a move below it
    lowered its upper bound), the move of the greatest lower bound (``j.pick``) tried first
    from now on; the next test's guess ``j.g`` (the lower bound after a test that passed, else
    the upper bound, or after the first test the bound of its one move). False when a limit
    stopped the test first (a move of it neither valued nor cut)."""
    cdef int m, i, k, best = -1
    cdef long long b, most = -SV_INF
    cdef bint done = True, reached = False
    for m in range(j.tn):
        i = j.test[m]
        if sv_ld(&j.state[i]) == SV_DONE:
            reached = reached or j.values[i] >= j.window
        else:
            done = False
    if not done and not (reached and not j.proving):
        return False
    j.mhi = -SV_INF     # (each move's upper bound is at most j.top)
    for m in range(j.n):
        i = j.order[m]
        b = sv_ld(&j.lo[i])
        if b > most:            # (the earliest of equal bounds: the pick so far stays first)
            most = b
            best = m
        j.mhi = max(j.mhi, <int32_t>sv_ld(&j.hi[i]))
    if best >= 0:
        j.mlo = <int32_t>most
    if best > 0:                # the move of the greatest lower bound first in the next tests
        j.pick = j.order[best]
        for k in range(best, 0, -1):
            j.order[k] = j.order[k - 1]
        j.order[0] = j.pick
    elif best == 0:
        j.pick = j.order[0]
    j.g = j.mlo if reached or j.proving else (
        <int32_t>sv_ld(&j.hi[j.test[0]]) if j.first else j.mhi)
    j.first = False
    return True


cdef void sv_root_main(Search* s, RootJob* j, int helpers) noexcept nogil:
    """The calling thread's part of the root, ``helpers`` helper threads beside it: the first
    move, then the others (sv_root_loop); with ``j.mtd`` a test at a time, each opened to the
    helpers (``j.round``) once every one of them is idle, until the bounds meet or a limit
    stops the call. Then ``j.finished``: the helpers leave."""
    while True:
        if sv_root_task(s, j, j.test[0]):
            sv_root_loop(s, j)
        if not j.mtd or s.stopped:
            break
        while sv_ld(&j.idle) < helpers and sv_ld(&j.shared.stop) == SK_RUNNING:
            if budget_poll(&s.budget):  # Ctrl-C and the time limit while the helpers finish
                s.stopped = True
                sv_cas(&j.shared.stop, SK_RUNNING, s.budget.stop)
            sv_pause()
        if (helpers > 0 and sv_ld(&j.shared.stop) != SK_RUNNING) or not sv_mtd_result(j):
            break
        if not sv_mtd_next(j):
            break
        sv_st(&j.round, sv_ld(&j.round) + 1)
    sv_st(&j.finished, 1)


cdef void sv_root_helper(Search* s, RootJob* j) noexcept nogil:
    """A helper thread's part of the root: sv_root_loop over each test of ``j`` (one, unless
    ``j.mtd``), idle between two (``j.idle``) until the calling thread opens the next, and
    gone once it is ``j.finished`` or the call stops."""
    cdef long long r = 0
    while True:
        sv_root_loop(s, j)
        if s.stopped:   # a limit, or no memory (budget.stop still SK_RUNNING): the whole
            # call stops (the calling thread waits for no test)
            sv_cas(&j.shared.stop, SK_RUNNING,
                   s.budget.stop if s.budget.stop != SK_RUNNING else SK_STOP_WORK)
            return
        if not j.mtd:
            return
        sv_fetch_add(&j.idle, 1)
        while (sv_ld(&j.round) == r and not sv_ld(&j.finished)
               and sv_ld(&j.shared.stop) == SK_RUNNING):
            sv_pause()
        if sv_ld(&j.finished) or sv_ld(&j.shared.stop) != SK_RUNNING:
            return
        r += 1


cdef void sv_job_start(RootJob* j, int32_t guess) noexcept nogil:
    """Open ``j``'s search of its moves in ``j.order``: none valued, none bounded beyond
    ``j.top``; with ``j.mtd`` the first test, at ``guess`` (sv_mtd_next), else the first move
    taken by the thread that runs sv_root_main (its exact value by MTD(f) from ``guess``).
    Only while no thread searches ``j``."""
    cdef int i
    for i in range(j.n):
        j.values[i] = 0
        sv_st(&j.state[i], SV_FREE)
        sv_st(&j.on[i], 0)
        if j.lo != NULL:
            sv_st(&j.lo[i], -SV_INF)
            sv_st(&j.hi[i], j.top)
    j.guess = guess
    j.complete = False
    j.proving = False
    j.tn = j.n
    sv_st(&j.best, -SV_INF)
    sv_st(&j.finished, 0)
    if j.mtd:   # the first test at the guess, within the bounds
        j.mlo = -SV_INF     # (a move must reach it: the static bounds name none)
        j.mhi = j.top
        j.g = min(guess, j.top)
        j.first = True
        sv_mtd_next(j)
    else:
        sv_st(&j.next, 1)
        sv_st(&j.state[j.order[0]], SV_TAKEN)   # the searching thread's, from the start


cdef bint sv_job_done(RootJob* j) noexcept nogil:
    """Whether ``j``'s search finished: every test over (``j.mtd``), else every move valued."""
    cdef int i
    if j.mtd:
        return j.complete
    for i in range(j.n):
        if sv_ld(&j.state[i]) != SV_DONE:
            return False
    return True


cdef bint sv_rival_passes(Search* h, RootJob* r) noexcept nogil:
    """The portfolio's deepening passes (docs/solver.md "Threads", *A portfolio*), on the
    calling thread before the threads start: depth-limited searches of the root at
    ``r.passes``, each trying first the best move of the one before, and leaving its best
    moves in the table (its stores leave the exact entries as they are: ``keep_exact``).
    ``r.order`` ends in the passes' order, ``r.guess`` at the last one's best value, ``r.best``
    that value. A pass's bounds reach no exact search (an exact search takes exact entries
    only, sv_usable): only its moves do, and only the rival's. Returns whether the last pass
    met a horizon (False: the whole tree fitted in it, so an exact search of it is cheap)."""
    cdef long long* lo = r.lo
    cdef long long* hi = r.hi
    cdef int* test = r.test
    cdef bint mtd = r.mtd, all_values = r.all_values, one = r.one, horizon = True
    cdef int32_t guess = r.guess
    cdef int p, m, k, i
    r.lo = NULL     # a pass proves no bound (sv_root_move)
    r.hi = NULL
    r.test = r.order
    r.mtd = False
    r.all_values = False
    r.one = False
    h.keep_exact = True
    for p in range(r.npasses):
        r.depth = r.passes[p]
        h.horizon = False
        sv_job_start(r, guess)
        sv_root_main(h, r, 0)
        if h.stopped:
            break
        for m in range(r.n):    # the pass's best move first in the next search's order
            i = r.order[m]
            if r.values[i] == r.best:
                for k in range(m, 0, -1):
                    r.order[k] = r.order[k - 1]
                r.order[0] = i
                break
        guess = <int32_t>r.best
        horizon = h.horizon
        if not horizon:         # the whole tree fitted in the pass: the exact search is cheap
            break
    r.lo = lo
    r.hi = hi
    r.test = test
    r.mtd = mtd
    r.all_values = all_values
    r.one = one
    r.depth = SV_EXACT_DEPTH
    r.guess = guess
    h.keep_exact = False
    h.horizon = False           # (an exact search's results met none)
    return horizon


cdef void sv_rival(Search* h, RootJob* r) noexcept nogil:
    """The portfolio's second strategy (docs/solver.md "Threads", *A portfolio*), on a helper
    thread over the shared table beside the calling thread's exact search: an exact search
    of the root of its own (``r``: the call's moves in the order of the passes that
    sv_rival_passes made, its first test at their value), each node's first move the one
    the passes stored. Whichever of the two finishes first stops the other (``SV_WON``)."""
    sv_job_start(r, r.guess)
    sv_root_main(h, r, 0)
    if not h.stopped and sv_job_done(r):
        sv_cas(&h.shared.stop, SK_RUNNING, SV_WON)


cdef int sv_no_signal_pending() except -1:
    """With the GIL, after a parallel root search: raise what a signal handler raised on this
    (the calling, main) thread, pending or not yet run. Only this thread runs Python's signal
    handlers, and its budget is not the one every stop goes through (a helper may end the
    search while this thread waits or spins), so no result leaves the call once Ctrl-C came."""
    if PyErr_Occurred() != NULL:
        return -1
    return PyErr_CheckSignals()


cdef inline void sv_fresh(Search* s) noexcept nogil:
    """What one search of a root starts from, on the calling thread and on every helper: no
    counts, no stop, no horizon met, chain- and bomb-freedom untested, no key, empty stack."""
    s.forced = 0
    s.stopped = False
    s.horizon = False
    s.chainfree = False
    s.bombfree = False
    s.has_key = False
    s.ob_n = -1
    s.top = 0


cdef bint sv_helper_init(Search* h, const Search* s) noexcept nogil:
    """``h``: a helper thread's search over ``s``'s table, with its own move stack, caches and
    decomposition memo (never shared); False if out of memory (``sv_free(h)`` either way)."""
    memset(h, 0, sizeof(Search))
    h.p = s.p
    h.objective = s.objective
    h.unit = s.unit
    h.features = s.features
    h.ways = s.ways
    h.tt_grow_at = SV_NEVER     # a helper never grows the table (its owner does, between searches)
    h.evaluation = s.evaluation
    h.top_single = s.top_single
    h.pext = s.pext
    return sv_alloc(h)


cdef bint sv_alloc(Search* s) noexcept nogil:
    """The move stack and the decomposition memo of ``s``; False if out of memory."""
    s.cap = SV_STACK0
    s.words = <uint64_t*>calloc(s.cap, sizeof(uint64_t))
    s.tags = <uint32_t*>calloc(s.cap, sizeof(uint32_t))
    s.keys = <int32_t*>calloc(s.cap, sizeof(int32_t))
    s.order = <int32_t*>calloc(s.cap, sizeof(int32_t))
    s.ckeys = <uint64_t*>calloc(s.cap, sizeof(uint64_t))
    s.known = <int64_t*>calloc(s.cap, sizeof(int64_t))
    s.passes = <uint8_t*>calloc(s.cap, sizeof(uint8_t))
    s.cores = <SkUndo*>malloc(s.cap * sizeof(SkUndo))    # (each written before it is read)
    s.mv_hand = <uint64_t*>calloc(SV_MOVE_SLOTS, sizeof(uint64_t))
    s.mv_table = <uint32_t*>malloc(SV_MOVE_SLOTS * sizeof(uint32_t))
    s.mv_n = <int8_t*>malloc(SV_MOVE_SLOTS * sizeof(int8_t))
    s.mv_words = <uint64_t*>malloc(SV_MOVE_SLOTS * SV_MOVE_MAX * sizeof(uint64_t))
    s.mv_tags = <uint32_t*>malloc(SV_MOVE_SLOTS * SV_MOVE_MAX * sizeof(uint32_t))
    return (deco_init(&s.deco, SV_DECO_BITS) and deco_init(&s.split_deco, SV_DECO_BITS)
            and s.words != NULL and s.tags != NULL and s.keys != NULL and s.order != NULL
            and s.ckeys != NULL and s.known != NULL and s.passes != NULL and s.cores != NULL
            and s.mv_hand != NULL
            and s.mv_table != NULL and s.mv_n != NULL and s.mv_words != NULL
            and s.mv_tags != NULL)


cdef void sv_free(Search* s) noexcept nogil:
    """Free what ``sv_alloc`` took (not the table: the main search owns it)."""
    free(s.words)
    free(s.tags)
    free(s.keys)
    free(s.order)
    free(s.ckeys)
    free(s.known)
    free(s.passes)
    free(s.cores)
    free(s.mv_hand)
    free(s.mv_table)
    free(s.mv_n)
    free(s.mv_words)
    free(s.mv_tags)
    deco_free(&s.deco)
    deco_free(&s.split_deco)


EXACT_DEPTH = SV_EXACT_DEPTH
"""The depth of an exact search (longer than any deal: it never meets a horizon)."""
MAX_DEPTH = SV_MAX_DEPTH
"""The deepest depth-limited search."""
MAX_THREADS = SV_MAX_THREADS
"""The most threads a root search may use."""
MAX_VALUE = SV_INF - 1
"""The largest value a search can hold, either sign (32-bit values within its infinity,
2^28), in steps of its ``Searcher.unit`` (a JJ root whose bombs multiply past it: R8.3):
static R8 bounds beyond it are clipped to it."""
OBJECTIVES = {"score": SV_OBJ_SCORE, "base": SV_OBJ_BASE}
EVALUATIONS = {"hand_count": SV_EVAL_HAND_COUNT, "rollout": SV_EVAL_ROLLOUT}
TECHNIQUES = {"bucket": SV_F_BUCKET, "relative": SV_F_RELATIVE, "mtdf": SV_F_MTDF,
              "quick": SV_F_QUICK, "etc": SV_F_ETC, "order": SV_F_ORDER,
              "forced": SV_F_FORCED, "split": SV_F_SPLIT, "pext": SV_F_PEXT,
              "groups": SV_F_GROUPS, "score": SV_F_SCORE}
"""The search's techniques by name (all on by default; ``Searcher(techniques=...)`` turns
some off, for measuring each: benchmarks/bench_solve.py --ablation)."""


cdef str sv_table_too_big(int bits, size_t size):
    """The message of a table that could not be allocated: its size and how to lower it."""
    return (f"tt_bits={bits}: the transposition table of 2**{bits} entries of 16 bytes "
            f"({size / 2**30:.4g} GiB) could not be allocated; pass a smaller tt_bits (each "
            f"one less halves it: 22 is 64 MiB) or none (solve then sizes it to the search)")


def _choice(value, str what, dict allowed):
    if not isinstance(value, str) or value not in allowed:
        names = " or ".join(repr(k) for k in allowed)
        raise ArgumentError(f"{what} must be {names}, not {value!r}")
    return allowed[value]


@cython.auto_pickle(False)
cdef class Searcher:
    """One search context: the rules, the objective, a transposition table of
    ``2**tt_bits`` entries (16 bytes each, in buckets of 4: bounded memory, work-preferred
    replacement), the horizon evaluation of depth-limited searches (``"hand_count"``: 手数
    ranking, ``"rollout"``: greedy playout) and a root position. Reusable across positions of
    the same rules (the table keys are the positions' hashes).

    Thread-safety: an instance may be shared across threads; it holds a lock, so calls on one
    instance run one at a time (a second thread waits), and ``with searcher:`` holds it for a
    whole sequence of calls (``solve``'s: a position set, searched and its line read, none of
    another thread's calls between them). Searches on different instances run in parallel
    without the GIL."""

    cdef Search s
    cdef Search* helpers        # the helper threads' searches over the same table (lazily)
    cdef int nhelpers
    cdef long long helped       # nodes the helper threads searched in the last root search
    cdef RootJob* job           # the parallel root search under way (its helpers read it)
    cdef RootJob* rival         # and its portfolio's second job (sv_rival; NULL: none)
    cdef SkState root
    cdef bint has_root
    cdef readonly object rules
    cdef object lock            # an RLock: each call takes it, ``with searcher:`` holds it
    cdef object holder          # the thread holding it by ``with`` (its ident; None: none)
    cdef object lower           # the last root search's bounds on the root's value (None:
    cdef object upper           # no search yet) and the move it would play (``bounds``)
    cdef int pick
    cdef readonly bint proven   # a move of the last root search was proven to reach its
                                # ``lower``, above the static R8 bounds (``bounds``' move)
    cdef readonly bint rival_ran    # the last root search ran its rival (a portfolio whose
                                    # passes found the root's static bound or whole tree)
    cdef readonly bint rival_won    # the last root search's results are its rival's (a
                                    # portfolio's second strategy finished first: sv_rival)

    def __cinit__(self):
        memset(&self.s, 0, sizeof(Search))

    def __init__(self, State state, objective="score", tt_bits=20, evaluation="hand_count",
                 techniques=None, max_tt_bits=None):
        """For the rules of ``state`` (a ``shuangkou.State``: its engine parameters).
        ``techniques``: names of :data:`TECHNIQUES` to use (None: all). The table starts at
        ``2**tt_bits`` entries and doubles, keeping every entry, each time half of it is
        filled, up to ``2**max_tt_bits`` (None: it stays at ``2**tt_bits``)."""
        cdef int features = SV_F_ALL, n
        cdef uint64_t w
        if self.lock is not None:
            raise RuntimeError("a Searcher is set up once")
        obj = _choice(objective, "objective", OBJECTIVES)
        ev = _choice(evaluation, "evaluation", EVALUATIONS)
        bits = as_int(tt_bits, "tt_bits", 4, 34)
        top = bits if max_tt_bits is None else as_int(max_tt_bits, "max_tt_bits", bits, 34)
        if techniques is not None:
            features = 0
            for name in techniques:
                features |= _choice(name, "technique", TECHNIQUES)
        self.lock = threading.RLock()
        self.s.p = state.p
        self.rules = state.rules
        self.s.objective = obj
        self.s.unit = 1
        self.s.evaluation = ev
        self.s.features = features
        self.s.pext = (features & SV_F_PEXT) != 0 and sv_cpu_bmi2()
        self.s.ways = SV_WAYS if features & SV_F_BUCKET else 1
        self.s.tt_max_bits = top
        self.s.grow_seconds = SV_GROW_SECONDS
        n = sk_generate(<uint64_t>1 << 56, state.p.flags, 0, False, &w, &self.s.top_single, 1)
        if n != 1:      # a lone big joker (rank 14) has one play, itself
            raise RuntimeError("the rules give a lone big joker no single play")
        if not sv_tt_alloc(&self.s, bits):
            raise MemoryError(sv_table_too_big(bits, ((<size_t>1) << bits) * sizeof(TTEntry)))
        if not sv_alloc(&self.s):
            raise MemoryError()

    def __dealloc__(self):
        cdef int k
        sv_tt_free(self.s.tt_block, self.s.tt_block_bytes)
        sv_free(&self.s)
        for k in range(self.nhelpers):
            sv_free(&self.helpers[k])
        free(self.helpers)

    cdef int _ensure_helpers(self, int count) except -1:
        """``count`` helper searches over this table (made once, kept for later calls)."""
        cdef Search* h
        cdef int k
        if count <= self.nhelpers:
            return 0
        h = <Search*>realloc(self.helpers, count * sizeof(Search))
        if h == NULL:
            raise MemoryError()
        self.helpers = h
        while self.nhelpers < count:
            k = self.nhelpers
            ok = sv_helper_init(&self.helpers[k], &self.s)
            self.nhelpers += 1      # freed by __dealloc__ whether or not it succeeded
            if not ok:
                raise MemoryError()
        return 0

    def _help(self, int k):
        """A helper thread's part of the parallel root search under way (``self.job``)."""
        cdef Search* h
        cdef RootJob* j = self.job
        if j == NULL or not 0 <= k < self.nhelpers:
            raise RuntimeError("no parallel search is under way for this helper")
        h = &self.helpers[k]
        with nogil:
            if k == 0 and self.rival != NULL:
                sv_rival(h, self.rival)
            else:
                sv_root_helper(h, j)
            sv_fetch_add(&j.running, -1)    # its last touch of the job

    def _ready(self):
        if self.lock is None:
            raise RuntimeError("the Searcher was not set up (__init__ was not called)")

    def __enter__(self):
        """Hold the searcher for a whole sequence of calls: another thread's calls wait until
        the ``with`` block ends; this thread's run meanwhile, but it may not hold it again (a
        call from within a call on it, such as a signal handler's, would change the position
        under the call it interrupted: RuntimeError)."""
        self._ready()
        me = threading.get_ident()
        if self.holder == me:
            raise RuntimeError("the searcher is held by this thread already (a call from "
                               "within a call on it, such as a signal handler's): use "
                               "another searcher there")
        self.lock.acquire()
        self.holder = me
        return self

    def __exit__(self, *exc):
        self.holder = None
        self.lock.release()

    def set_position(self, State state):
        """The root: a copy of ``state``'s position (a ``shuangkou.State`` of the same rules).
        Where its values' :attr:`unit` changes (a JJ position whose bombs multiply past the
        search's range, docs/solver.md "Value"), the table is emptied: its values were in the
        old unit."""
        cdef int64_t unit
        self._ready()
        if state.rules != self.rules:
            raise ArgumentError("state: the position's rules are not the searcher's")
        with self.lock:
            unit = sv_value_unit(&self.s, &state.st)
            if unit != self.s.unit:
                if not sv_tt_clear(&self.s, self.s.tt_bits, self.s.tt_max_bits):
                    raise MemoryError(sv_table_too_big(
                        self.s.tt_bits, ((<size_t>1) << self.s.tt_bits) * sizeof(TTEntry)))
                sv_set_unit(&self.s, unit)
            self.root = state.st
            self.has_root = True

    @property
    def unit(self) -> int:
        """The units of one step of the search's values (set by :meth:`set_position`): 1, but
        for a JJ root whose bombs could multiply its value past ±MAX_VALUE units (R8.3:
        every value of its subtree is then a multiple of the multiplier of the bombs played
        so far, and the search holds values divided by it, docs/solver.md "Value"). Every
        value this searcher takes or returns is in units all the same."""
        return self.s.unit

    @property
    def hash(self) -> int:
        """The root's Zobrist hash (the engine's)."""
        return self.root.hash

    @property
    def bounds(self) -> tuple:
        """``(lower, upper, move)`` of the last root search: the bounds it proved on the
        root's value (equal to it when it finished), always within the static R8 bounds of
        the root (the finishing orders still possible and what the bombs in hand can add,
        docs/solver.md "Search"; a depth-limited search proves only those; ``None`` before any
        search), and the index of the move that reaches ``lower`` (``proven``; else the first
        move searched): the play to make when a limit stopped it."""
        return self.lower, self.upper, self.pick

    def grow(self, int bits, double time_limit=0.0):
        """The table grown to ``2**bits`` entries now (at most ``2**max_table_bits``), every
        entry kept: room for a search on several threads, under which it cannot grow. With
        ``time_limit`` (seconds; 0: none) only where the doubling is predicted to take at most
        a quarter of it (:attr:`grow_seconds`), and dropped, the table as it was, if the limit
        passes meanwhile; Ctrl-C drops it too (``KeyboardInterrupt``)."""
        cdef SkBudget budget
        self._ready()
        if not time_limit >= 0.0:
            raise ArgumentError(f"time_limit must be >= 0 (0: none), not {time_limit}")
        budget_init(&budget, 0, time_limit)
        with self.lock:
            with nogil:
                if time_limit <= 0.0 or sv_grow_fits(&self.s, bits, time_limit):
                    sv_tt_grow(&self.s, bits, &budget)
            # (raised within the block: a Ctrl-C pending past the lock's release would make
            # its __exit__ a SystemError)
            budget_raise(&budget)

    def reset(self, tt_bits, max_tt_bits):
        """Search from now on as a new ``Searcher`` of its rules, objective, evaluation and
        techniques with these table sizes would (the same values, bounds, moves and nodes),
        over the memory it holds: the table emptied at ``2**tt_bits`` entries, growing up to
        ``2**max_tt_bits`` (in the block it has where that is a heap block big enough, else
        a new one), the decomposition memos and their caches emptied (what they hold decides
        which hands a search's budget lets them solve exactly, and so the move order). Its
        other caches (move lists, bombs in a hand, bounds by finishing order) hold what
        depends on the rules alone, and stay; so does the memory of its move stack and
        helpers (whose memos are not cleared: a search on several threads varies from run
        to run anyway). ``solve`` keeps a searcher this way for each calling thread
        (docs/solver.md "Memory")."""
        self._ready()
        bits = as_int(tt_bits, "tt_bits", 4, 34)
        top = as_int(max_tt_bits, "max_tt_bits", bits, 34)
        with self.lock:
            if not sv_tt_clear(&self.s, bits, top):
                raise MemoryError(sv_table_too_big(bits, ((<size_t>1) << bits) * sizeof(TTEntry)))
            memset(self.s.eval_hand, 0, sizeof(self.s.eval_hand))
            memset(self.s.split_hand, 0, sizeof(self.s.split_hand))
            if not (deco_clear(&self.s.deco, SV_DECO_BITS)
                    and deco_clear(&self.s.split_deco, SV_DECO_BITS)):
                raise MemoryError("the searcher's decomposition memo could not be allocated")
            self.lower = self.upper = None
            self.pick = 0
            self.proven = False
            self.has_root = False

    @property
    def objective(self) -> str:
        """The objective its values are in (``"score"`` or ``"base"``)."""
        return "score" if self.s.objective == SV_OBJ_SCORE else "base"

    @property
    def table_bits(self) -> int:
        """The table holds ``2**table_bits`` entries of 16 bytes now (it grows up to
        ``2**max_table_bits`` as the searches fill it)."""
        return self.s.tt_bits

    @property
    def max_table_bits(self) -> int:
        """The most the table may grow to (``2**max_table_bits`` entries); lowered to
        :attr:`table_bits` if memory ran out while growing."""
        return self.s.tt_max_bits

    @property
    def grow_seconds(self) -> float:
        """The predicted cost of doubling the table, in seconds a new entry (default 1e-8:
        docs/solver.md "Memory"). A search under a time limit doubles its table only while four
        times that cost fits in the time left; a doubling the limit overtakes all the same is
        dropped, its time lost (raise this where fresh memory maps slower)."""
        return self.s.grow_seconds

    @grow_seconds.setter
    def grow_seconds(self, seconds) -> None:
        with self.lock:
            self.s.grow_seconds = as_seconds(seconds, "grow_seconds")

    @property
    def helper_nodes(self) -> int:
        """Nodes the helper threads searched in the last root search (0 with one thread);
        included in its ``nodes``."""
        return self.helped

    @property
    def forced(self) -> int:
        """Forced moves of the last search: nodes with a single move, and the forced passes
        made without a node (the cut-off's look-ahead at each child counts those too)."""
        return self.s.forced

    def root_values(self, long long max_nodes=0, double time_limit=0.0, int depth=EXACT_DEPTH,
                    bint all_values=False, int threads=1, only=None, bint one=False,
                    rival=()):
        """Search the root's moves (plays in generation order, then pass as ``(0, 0)``).
        ``max_nodes`` (0: none) and ``time_limit`` (seconds, 0: none) bound the search;
        Ctrl-C raises KeyboardInterrupt (checked every few ms without the GIL held).

        Returns ``(moves, values, optimal, nodes, stopped, horizon)``. ``all_values``: each
        move's value is exact. Otherwise the best value is exact and every other move is only
        tested against it: ``values[i]`` is then an upper bound for a move that is not optimal
        (an exact search finds the value by MTD(f) over the root as a whole, as with ``one``
        below, then tests at it each move that may reach it and is not yet proven to;
        docs/solver.md "Root").
        ``optimal`` lists the indices of the moves reaching the best value. Moves not searched
        when a limit stopped the search have value ``None``; ``horizon`` says whether a
        depth-limited evaluation entered any value.

        ``threads`` > 1 splits an exact search over that many threads sharing the table
        (the root's moves, and each move's tree: docs/solver.md "Threads"): the same value, optimal moves and exact values,
        in less wall time; ``nodes`` counts every thread's, and a non-optimal move's upper
        bound may differ from one thread's. A depth-limited search runs on one thread (its
        values depend on the table's contents: one thread keeps them reproducible).

        ``only`` (``None``: every move): an iterable of root moves as this returns them
        (``(packed, tag)`` pairs, pass as ``(0, 0)``; each must be a legal move of the root,
        else ArgumentError, the searcher unchanged; repeats count once): the search values
        those alone, as if the root had no other move — ``moves`` lists them in generation
        order, ``values`` and ``optimal`` are theirs, :meth:`bounds` bound the best of them,
        and the root's value is not stored in the table (theirs need not be it). The other
        moves' trees are not searched, so the table holds less afterwards. A move's value at
        ``depth`` 1 (the horizon right after it) is then the one the search of every move
        gives it; deeper, a depth-limited value depends on what the table holds (the other
        moves' trees fill it): compare on fresh searchers.

        ``one`` (an exact search without ``all_values`` only, else ArgumentError): one
        optimal move is enough. The root's value by MTD(f) over the root as a whole: null-
        window tests "does any move reach b?" (split over the threads as the moves are; a
        move reaching b ends the test) from the table's value, until the bounds meet (with
        the ``mtdf`` technique off: the first move's exact value, each other move only tested
        against passing the best value so far): the same value, and ``optimal`` lists the
        moves proven optimal (at least one, not necessarily all; first the one that reached
        the value); every other value is the upper bound its tests proved, which may equal
        the best value, and after a limit ``None`` for a move no test bounded
        (docs/solver.md "Root").

        ``rival`` (``()``: none; an exact search on two threads or more): a portfolio
        (docs/solver.md "Threads", *A portfolio*). First depth-limited passes of the root at
        these depths (at most 8, each in 1..MAX_DEPTH) on this thread, each trying the best
        move of the one before first. Where the last one's value is a static bound of the
        root (the least or the most its static R8 bounds allow: one test settles it) or it
        met no horizon, one helper thread (the rival) then searches the root exactly in their order
        over the shared table, its nodes' first moves those the passes stored, while the
        other threads search as they would without it; the first to finish stops the other
        and its results are returned (``rival_won``). Elsewhere every thread runs the exact
        search, taking no move from the passes' entries (``rival_ran`` False). Either way
        the same value, optimal moves and exact values (a pass's bounds reach no exact
        search, only its moves do, and only the rival's)."""
        self._ready()
        if not self.has_root:
            raise RuntimeError("set_position first: the Searcher has no root")
        if max_nodes < 0 or not time_limit >= 0 or not (1 <= depth <= SV_MAX_DEPTH
                                                        or depth == SV_EXACT_DEPTH):
            raise ArgumentError("root_values: max_nodes, time_limit >= 0 and depth in "
                                f"1..{SV_MAX_DEPTH} or EXACT_DEPTH")
        if not 1 <= threads <= SV_MAX_THREADS:
            raise ArgumentError(f"threads must be in 1..{SV_MAX_THREADS}, got {threads}")
        if one and (all_values or depth != SV_EXACT_DEPTH):
            raise ArgumentError("root_values: one=True needs an exact search (depth "
                                "EXACT_DEPTH) without all_values (which values every move, so "
                                "every optimal one is known): pass one=False")
        passes = tuple(rival) if isinstance(rival, (tuple, list)) else None
        if passes is None or len(passes) > SV_RIVAL_PASSES or not all(
                type(d) is int and 1 <= d <= SV_MAX_DEPTH for d in passes):
            raise ArgumentError(f"root_values: rival must be a tuple of at most "
                                f"{SV_RIVAL_PASSES} depths in 1..{SV_MAX_DEPTH}, got {rival!r}")
        if passes and depth != SV_EXACT_DEPTH:
            raise ArgumentError("root_values: a rival (a portfolio) needs an exact search "
                                "(depth EXACT_DEPTH): pass rival=()")
        with self.lock:
            return self._root_values(max_nodes, time_limit, depth, all_values,
                                     threads if depth == SV_EXACT_DEPTH else 1, only, one,
                                     passes)

    cdef list _only(self, only, int n):
        """The indices (ascending) of the root's moves ``s.words[:n]`` that ``only`` names
        (root_values' argument, checked)."""
        cdef Search* s = &self.s
        cdef int i
        index = {(s.words[i], s.tags[i]): i for i in range(n)}
        if isinstance(only, (str, bytes)) or not hasattr(only, "__iter__"):
            raise ArgumentError(f"only must be an iterable of root moves ((packed, tag) pairs, "
                                f"pass as (0, 0)) or None, not {type(only).__name__}")
        picked = set()
        for m in only:
            if (not isinstance(m, tuple) or len(m) != 2
                    or not all(type(x) is int for x in m)):
                raise ArgumentError(f"only: each move is a (packed, tag) pair of ints as "
                                    f"root_values returns it, not {m!r}")
            if m not in index:
                raise ArgumentError(f"only: {m!r} is not a legal move of the root (pass moves "
                                    f"that root_values lists for this position; pass is (0, 0) "
                                    f"and legal only with a play on the table)")
            picked.add(index[m])
        if not picked:
            raise ArgumentError("only: no move given: pass at least one root move, or None "
                                "for every move")
        return sorted(picked)

    cdef _root_values(self, long long max_nodes, double time_limit, int depth,
                      bint all_values, int threads, only, bint one, tuple rival):
        cdef Search* s = &self.s
        cdef SkState st = self.root
        cdef int seat = st.to_act, n, i, k, helpers = 0
        cdef int32_t v = 0, guess = 0, lo = -SV_INF, top = SV_INF
        cdef long long low, high
        cdef uint64_t key
        cdef TTData e
        cdef RootJob j
        cdef RootJob r              # the portfolio's second job (``rival``), if any
        cdef RootJob* w = &j        # the job whose results the call returns
        cdef bint fitted = False    # the portfolio's passes fitted the whole tree
        if st.over or seat < 0:
            raise ArgumentError("state: the deal is over: there is no move to search")
        s.top = 0   # the stack is empty between searches (sv_fresh): the root's moves at 0
        n = sv_moves(s, &st)
        if n < 0:
            raise MemoryError()
        picked = None if only is None else self._only(only, n)  # before any state changes
        budget_init(&s.budget, max_nodes, time_limit)
        sv_fresh(s)     # the stack's top back to 0: the moves stay in place below it
        s.shared = NULL
        full = n
        if picked is not None:  # keep the picked moves, in generation order, at the bottom
            for k in range(len(picked)):
                s.words[k] = s.words[<int>picked[k]]
                s.tags[k] = s.tags[<int>picked[k]]
            n = len(picked)
        s.top = n
        moves = [(s.words[i], s.tags[i]) for i in range(n)]
        keys = [sv_key(&st, s.words[i], s.tags[i], seat) for i in range(n)]
        key = sv_tt_key(s, &st, sv_all_chainless(s, &st))
        if sv_probe(s, sv_bucket(s, key), key, &e) and 0 < e.best <= <uint32_t>full:
            # the table's best move first (the same order as among every move), its value the
            # first move's MTD(f) guess
            i = e.best - 1 if picked is None else (
                picked.index(e.best - 1) if e.best - 1 in picked else -1)
            if i >= 0:
                keys[i] = 1 << 30
            guess = e.value
        order = sorted(range(n), key=lambda q: -keys[q])
        memset(&j, 0, sizeof(RootJob))
        memset(&r, 0, sizeof(RootJob))
        j.root = st
        j.n = n
        j.depth = depth
        j.all_values = all_values
        j.one = one
        j.mtd = (depth == SV_EXACT_DEPTH and not all_values
                 and (s.features & SV_F_MTDF) != 0)
        j.top = SV_INF
        if s.features & SV_F_ORDER and sv_bomb_free(s, &st):  # the most any move can reach
            sv_order_bounds(s, &st, seat, &lo, &j.top)
        sv_score_bounds(s, &st, seat, &lo, &top)    # the static R8 bounds: reported always,
        if s.features & SV_F_SCORE and top < j.top:  # and a move reaching top ends the root
            j.top = top
        j.words = <uint64_t*>malloc(n * sizeof(uint64_t))
        j.tags = <uint32_t*>malloc(n * sizeof(uint32_t))
        j.order = <int*>malloc(n * sizeof(int))
        j.test = <int*>malloc(n * sizeof(int)) if j.mtd else j.order
        j.values = <int32_t*>calloc(n, sizeof(int32_t))
        j.state = <long long*>calloc(n, sizeof(long long))
        j.on = <long long*>calloc(n, sizeof(long long))
        if depth == SV_EXACT_DEPTH:     # a horizon's values bound nothing
            j.lo = <long long*>malloc(n * sizeof(long long))
            j.hi = <long long*>malloc(n * sizeof(long long))
        helpers = threads - 1   # more than the moves: they split a move's tree (sv_search)
        if rival and helpers > 0:   # (root_values: an exact search) the portfolio's job: the
            r = j                   # same root and moves (read only), arrays of its own
            r.npasses = len(rival)
            for k in range(r.npasses):
                r.passes[k] = rival[k]
            r.order = <int*>malloc(n * sizeof(int))
            r.test = <int*>malloc(n * sizeof(int)) if j.mtd else r.order
            r.values = <int32_t*>calloc(n, sizeof(int32_t))
            r.state = <long long*>calloc(n, sizeof(long long))
            r.on = <long long*>calloc(n, sizeof(long long))
            r.lo = <long long*>malloc(n * sizeof(long long))
            r.hi = <long long*>malloc(n * sizeof(long long))
        try:
            if (j.words == NULL or j.tags == NULL or j.order == NULL or j.test == NULL
                    or j.values == NULL
                    or j.state == NULL or j.on == NULL
                    or (depth == SV_EXACT_DEPTH and (j.lo == NULL or j.hi == NULL))
                    or (r.npasses and (r.order == NULL or r.test == NULL or r.values == NULL
                                       or r.state == NULL or r.on == NULL or r.lo == NULL
                                       or r.hi == NULL))):
                raise MemoryError()
            for i in range(n):
                j.words[i] = s.words[i]
                j.tags[i] = s.tags[i]
                j.order[i] = order[i]
                if r.npasses:
                    r.order[i] = order[i]
                    r.lo[i] = -SV_INF   # (what the call reads if the rival's exact search
                    r.hi[i] = j.top     # never starts, sv_rival)
            r.guess = guess
            sv_job_start(&j, guess)     # the first test at the table's value (or first move)
            self.rival_ran = False
            if r.npasses:   # the portfolio's passes first, on this thread; its rival searches
                with nogil:  # only where they pay: where they found the root's static bound
                    fitted = not sv_rival_passes(s, &r)     # or its whole tree
                self.rival_ran = not s.stopped and (fitted or r.best >= j.top or r.best <= lo)
            if max_nodes > 0:   # a thread claims SV_CHUNK nodes at a time, and one that gets
                # none stops the call (sv_root_helper): no more threads than chunks are left
                # (else a call's last nodes went a node a round: issue #33's hostile check)
                helpers = min(helpers, max(0, (max_nodes - s.budget.work - 1) // SV_CHUNK))
                self.rival_ran = self.rival_ran and helpers > 0
            if s.stopped:   # (the passes took every node, or the time limit came)
                helpers = 0
            elif helpers > 0:   # (after the passes the exact search takes no move from the
                self._parallel(&j, &r if self.rival_ran else NULL, helpers,  # depth-limited
                               max_nodes, r.npasses > 0)                      # entries)
            else:
                with nogil:
                    sv_root_main(s, &j, 0)
            budget_raise(&s.budget)
            if helpers > 0:
                sv_no_signal_pending()
            self.helped = 0
            self.rival_won = False
            for k in range(helpers):
                self.helped += self.helpers[k].budget.work
                s.oom = s.oom or self.helpers[k].oom
                s.horizon = s.horizon or self.helpers[k].horizon
                s.forced += self.helpers[k].forced
                s.budget.work += self.helpers[k].budget.work
            if s.oom:
                raise MemoryError()
            if self.rival_ran and not sv_job_done(&j):
                if sv_job_done(&r):     # the portfolio's second strategy finished first
                    w = &r
                    self.rival_won = True
                else:   # neither finished (a limit): what either proved bounds each move
                    for i in range(n):
                        j.lo[i] = max(j.lo[i], r.lo[i])
                        j.hi[i] = min(j.hi[i], r.hi[i])
            if w.mtd:   # every move's value is the upper bound its tests proved (None: none
                # yet; once the bounds met, at most the value: the last test failed for
                # every move, or the value is w.top); the move that reached the value, exact,
                # is the first optimal one, then any other a test proved to reach it (without
                # ``one``, every other one, the last test having tried each that might, and
                # all in the order the root tried them, as the root's alpha-beta lists them)
                stopped = not w.complete
                if not stopped:
                    w.best = w.mlo
                    w.hi[w.pick] = w.mlo
                values = [w.hi[i] if w.hi[i] < w.top or not stopped else None
                          for i in range(n)]
                optimal = [] if stopped else [w.pick] + [
                    i for i in order if i != w.pick and w.lo[i] >= w.best]
                if not one and not stopped:     # every optimal move, in the root's order (as
                    optimal = sorted(optimal, key=order.index)  # the root's alpha-beta)
            else:
                values = [w.values[i] if w.state[i] == SV_DONE else None for i in range(n)]
                stopped = not all(w.state[i] == SV_DONE for i in range(n))
                # (with ``one`` a move's value may be an upper bound equal to the best:
                # optimal are the moves proven to reach it, lo)
                optimal = [] if stopped else [i for i in order if w.values[i] == w.best
                                              and (not one or w.lo[i] >= w.best)]
            # the root's bounds: its value is its best move's, so at least the most any move
            # was proven to reach and at most the most any move may reach, and within the
            # static R8 bounds (sv_score_bounds: ``lo``, ``top``); a depth-limited search
            # proves nothing beyond those
            self.pick = order[0]
            self.proven = False
            low, high = lo, -SV_INF
            if w.lo != NULL:
                for i in order:
                    if w.lo[i] > low:
                        low = w.lo[i]
                        self.pick = i
                        self.proven = True
                    high = max(high, w.hi[i])
            else:
                high = SV_INF
            if not stopped:
                if not optimal:     # (cannot happen: values are within ±MAX_VALUE, sv_units;
                    raise RuntimeError(  # this module indexes lists unchecked)
                        "root search: no move reaches the best value")
                low = high = w.best
                self.pick = optimal[0]
                self.proven = True
            if w.lo == NULL:
                low, high = lo, top
                self.proven = False
            self.lower = low * s.unit
            self.upper = min(high, w.top, top) * s.unit
        finally:
            free(j.words)
            free(j.tags)
            if j.test != j.order:
                free(j.test)
            free(j.order)
            free(j.values)
            free(j.state)
            free(j.on)
            free(j.lo)
            free(j.hi)
            if r.test != r.order:
                free(r.test)
            free(r.order)       # (its moves are j's)
            free(r.values)
            free(r.state)
            free(r.on)
            free(r.lo)
            free(r.hi)
        s.top = 0
        if optimal and picked is None:  # some moves' best need not be the root's value
            sv_store(s, key, values[optimal[0]], optimal[0] + 1,
                     depth if s.horizon else SV_TT_EXACT, SV_EXACT, s.budget.work)
        if s.unit != 1:     # (the search's values are in multiples of it: ``unit``)
            values = [None if x is None else x * s.unit for x in values]
        return moves, values, optimal, s.budget.work, stopped, bool(s.horizon)

    cdef int _parallel(self, RootJob* j, RootJob* rival, int helpers,
                       long long max_nodes, bint own) except -1:
        """The root's moves split over this thread and ``helpers`` helper threads (Python
        threads, each searching without the GIL over the shared table; one shared budget:
        ``sv_more_work``; one busy table: ``sv_busy``, owned by this call): this thread takes
        the first move, the helpers help with it until its value opens the others. With
        ``rival`` (a portfolio), the first helper searches that job instead (sv_rival) and
        the first of the two to finish stops the other. ``own``: the table holds the moves of
        the portfolio's passes, which no thread of ``j`` takes (``Search.own_order``); this
        thread's nodes so far (the passes') count against ``max_nodes``. Returns once every
        helper is done."""
        cdef Search* s = &self.s
        cdef Search* h
        cdef int k, started = 0
        cdef long long* busy
        self._ensure_helpers(helpers)
        busy = <long long*>calloc(SV_BUSY_SLOTS, sizeof(long long))
        if busy == NULL:
            raise MemoryError()
        # the helpers share the table: it cannot grow under them (``grow`` between searches)
        grow_at = s.tt_grow_at
        s.tt_grow_at = SV_NEVER
        j.shared.max_work = max_nodes
        j.shared.claimed = s.budget.work    # (the passes' nodes, if any)
        j.shared.stop = SK_RUNNING
        s.shared = &j.shared
        for k in range(helpers + 1):
            h = s if k == helpers else &self.helpers[k]
            h.busy = busy
            h.own_order = own and (rival == NULL or k > 0)  # (k 0: the rival, sv_rival)
            if k < helpers:
                h.budget = s.budget             # the same deadline
                sv_set_unit(h, s.unit)          # the same values
                h.tt = s.tt
                h.bucket_mask = s.bucket_mask
                h.budget.work = 0
                sv_fresh(h)
                h.oom = False
                h.shared = &j.shared
            h.budget.max_work = h.budget.work   # from now on, chunks of the shared budget
            if not sv_claim(h):
                h.budget.stop = SK_STOP_WORK
                h.stopped = True
        self.job = j
        self.rival = rival
        # _thread: a start that runs no Python code in this thread (threading.Thread.start
        # waits on an Event, where Ctrl-C could strike after the thread began): each helper
        # counted in ``running`` was started, and the job lives until ``running`` is 0 again
        try:
            for k in range(helpers):
                sv_fetch_add(&j.running, 1)
                try:
                    _thread.start_new_thread(self._help, (k,))
                except BaseException:
                    sv_fetch_add(&j.running, -1)    # not started
                    raise
        except BaseException:
            sv_st(&j.shared.stop, SK_STOP_WORK)     # every thread stops
            raise
        finally:
            with nogil:
                if not s.stopped:
                    sv_root_main(s, j, helpers - (rival != NULL))
                    if rival != NULL and not s.stopped and sv_job_done(j):
                        sv_cas(&j.shared.stop, SK_RUNNING, SV_WON)  # the rival stops
                sv_st(&j.finished, 1)   # (also when this thread never searched)
                sv_wait(s, j)
            self.job = NULL
            self.rival = NULL
            s.shared = NULL
            for k in range(helpers + 1):    # no search reads the busy table any more
                h = s if k == helpers else &self.helpers[k]
                h.busy = NULL
                h.own_order = False
                h.keep_exact = False
            free(busy)
            s.tt_grow_at = grow_at
        return 0

    def probe(self, bound, long long max_nodes=0, double time_limit=0.0):
        """A null-window test of the root (one thread, exact): does its value reach
        ``bound``? Each move is searched with the window (``bound`` − 1, ``bound``), the
        table's best move and the move order's first, until one reaches it. Returns
        ``(answer, value, move, nodes)``: ``True`` — move ``move`` reaches at least
        ``value`` (≥ ``bound``); ``False`` — no move does: the root's value is at most
        ``value`` (< ``bound``; fail-soft, so often less); ``None`` — a limit (``max_nodes``,
        ``time_limit`` seconds; 0: none) stopped it first. ``solve`` probes its static R8
        bounds this way on positions its first search did not finish (docs/solver.md
        "Limits"). ``bound`` within ±``MAX_VALUE`` :attr:`unit`\ s (its window's lower side
        above −MAX_VALUE).
        """
        cdef int32_t b
        self._ready()
        if max_nodes < 0 or not time_limit >= 0:
            raise ArgumentError("probe: max_nodes and time_limit must be >= 0 (0: none)")
        with self.lock:     # (the unit is the root's: the search's values are multiples of it)
            unit = self.s.unit
            # the least multiple of the unit at least ``bound``: the same test
            b = -(-as_int(bound, "bound", (2 - SV_INF) * unit, (SV_INF - 1) * unit) // unit)
            answer, value, move, nodes = self._probe(b, max_nodes, time_limit)
            return answer, None if value is None else value * unit, move, nodes

    cdef _probe(self, int32_t bound, long long max_nodes, double time_limit):
        cdef Search* s = &self.s
        cdef SkState st = self.root
        cdef SkUndo u
        cdef int seat = st.to_act, n, i, d, k
        cdef int32_t w = 0, most = -SV_INF
        cdef uint64_t key
        cdef TTData e
        if st.over or seat < 0:
            raise ArgumentError("state: the deal is over: there is no move to search")
        budget_init(&s.budget, max_nodes, time_limit)
        sv_fresh(s)
        s.shared = NULL
        n = sv_moves(s, &st)
        if n < 0:
            raise MemoryError()
        s.top = n
        keys = [sv_key(&st, s.words[i], s.tags[i], seat) for i in range(n)]
        key = sv_tt_key(s, &st, sv_all_chainless(s, &st))
        if sv_probe(s, sv_bucket(s, key), key, &e) and 0 < e.best <= <uint32_t>n:
            keys[e.best - 1] = 1 << 30
        order = sorted(range(n), key=lambda q: -keys[q])
        sk_save(&st, &u)
        try:
            for k in range(n):
                i = order[k]
                with nogil:
                    sv_apply(&st, s.words[i], s.tags[i], not sv_hashless(s))
                    d = sv_advance(s, &st, SV_EXACT_DEPTH - 1, not sv_hashless(s))
                    w = sv_child(s, &st, seat, bound - 1, bound, d)
                    sk_restore(&st, &u)
                budget_raise(&s.budget)
                if s.oom:
                    raise MemoryError()
                if s.stopped:
                    return None, None, None, s.budget.work
                if w >= bound:
                    return True, w, i, s.budget.work
                most = max(most, w)
            return False, most, None, s.budget.work
        finally:
            s.top = 0

    def principal_variation(self, int first, value, int max_length=1000):
        """The line from the root playing move ``first`` (an index of :meth:`root_values`),
        whose exact value is ``value`` (within ±``MAX_VALUE`` :attr:`unit`\ s, a multiple of
        it): at each later position a move reaching that position's value (table move tried
        first, each checked by a null-window search)."""
        cdef int v
        self._ready()
        with self.lock:
            unit = self.s.unit
            v = as_int(value, "value", (1 - SV_INF) * unit, (SV_INF - 1) * unit) // unit
            if v * unit != value:
                raise ArgumentError(f"value: every value of this position is a multiple of "
                                    f"{unit:,} units (its unit, R8.3), and {value:,} is not")
            return self._principal_variation(first, v, max_length)

    cdef _principal_variation(self, int first, int value, int max_length):
        cdef Search* s = &self.s
        cdef SkState st = self.root
        cdef SkUndo u
        cdef int seat, n, i, d
        cdef int32_t v = value, w
        cdef uint32_t hint
        cdef uint64_t key
        cdef bint found
        cdef TTData e
        budget_init(&s.budget, 0, 0.0)      # no limit; Ctrl-C still stops it
        s.stopped = False
        s.chainfree = False
        s.bombfree = False
        s.has_key = False
        s.top = 0
        n = sv_moves(s, &st)
        if n < 0:
            raise MemoryError()
        if not 0 <= first < n:
            raise ArgumentError(f"first must be in 0..{n - 1}, got {first}")
        line = [(s.words[first], s.tags[first])]
        seat = st.to_act
        sv_apply(&st, s.words[first], s.tags[first], True)
        while not st.over and len(line) < max_length:
            v = v if ((st.to_act ^ seat) & 1) == 0 else -v
            seat = st.to_act
            s.top = 0
            n = sv_moves(s, &st)
            if n < 0:
                raise MemoryError()
            s.top = n
            key = sv_tt_key(s, &st, sv_all_chainless(s, &st))
            hint = e.best if sv_probe(s, sv_bucket(s, key), key, &e) else 0
            order = sorted(range(n), key=lambda j: (<uint32_t>(j + 1)) != hint)
            found = False
            sk_save(&st, &u)
            for i in order:
                with nogil:
                    sv_apply(&st, s.words[i], s.tags[i], True)
                    d = sv_advance(s, &st, SV_EXACT_DEPTH - 1, not sv_hashless(s))
                    w = sv_child(s, &st, seat, v - 1, v, d)
                    sk_restore(&st, &u)
                budget_raise(&s.budget)
                if s.oom:
                    raise MemoryError()
                if w >= v:
                    line.append((s.words[i], s.tags[i]))
                    sv_apply(&st, s.words[i], s.tags[i], True)
                    found = True
                    break
            if not found:   # cannot happen for an exact value; never loop forever
                raise RuntimeError("principal variation: no move reaches the value")
        s.top = 0
        return line



def tt_key(Searcher searcher, State state) -> int:
    """``sv_tt_key`` (tests): the table key of ``state``: its relative-rank key where no hand
    can form a chain (technique ``"relative"``), else its Zobrist hash ``state.hash``."""
    searcher._ready()
    if state.rules != searcher.rules:
        raise ArgumentError("state: the position's rules are not the searcher's")
    with searcher.lock:     # the searcher's features and pext choice
        return sv_tt_key(&searcher.s, &state.st, sv_all_chainless(&searcher.s, &state.st))


def order_bounds(Searcher searcher, State state) -> tuple | None:
    """``sv_order_bounds`` (tests): ``(lo, hi)`` bounding the value of ``state`` for its seat
    to act by the finishing orders still possible, or None when a seat can still play a bomb
    (``sv_bomb_free``); in units (a state of the subtree of the searcher's root, whose
    values are multiples of its ``unit``)."""
    cdef int32_t lo = 0, hi = 0
    searcher._ready()
    if state.rules != searcher.rules:
        raise ArgumentError("state: the position's rules are not the searcher's")
    with searcher.lock:     # the searcher's caches
        if state.st.over or not sv_bomb_free(&searcher.s, &state.st):
            return None
        sv_order_bounds(&searcher.s, &state.st, state.st.to_act, &lo, &hi)
        return lo * searcher.s.unit, hi * searcher.s.unit


def score_bounds(Searcher searcher, State state, seat=None) -> tuple:
    """``sv_score_bounds`` (tests): ``(lo, hi)`` bounding the final value of ``state`` for
    ``seat``'s team (default: the seat to act; a finished deal needs one, and gets its value)
    by the finishing orders still possible and what the bombs in hand can add; in units (a
    state of the subtree of the searcher's root, whose values are multiples of its ``unit``;
    clipped at ±``MAX_VALUE`` of them)."""
    cdef int32_t lo = 0, hi = 0
    cdef int who
    searcher._ready()
    if state.rules != searcher.rules:
        raise ArgumentError("state: the position's rules are not the searcher's")
    if seat is None and state.st.to_act < 0:
        raise ArgumentError("seat: the deal is over, so there is no seat to act: pass a seat")
    who = state.st.to_act if seat is None else seat
    if not 0 <= who < 4:
        raise ArgumentError(f"seat must be 0..3, not {who}")
    with searcher.lock:     # the searcher's caches
        sv_score_bounds(&searcher.s, &state.st, who, &lo, &hi)
        return lo * searcher.s.unit, hi * searcher.s.unit


def quick_bound(Searcher searcher, State state) -> int | None:
    """``sv_quick`` (tests): the quick tricks' lower bound on the value of ``state`` for its
    seat to act (every line tried, no cut-off), or None when no line gives one; in units (a
    state of the subtree of the searcher's root, whose values are multiples of its ``unit``)."""
    cdef Search* s = &searcher.s
    cdef SkState st
    cdef SkUndo u
    cdef int n
    cdef int32_t v = -SV_INF  # set under the lock; initialised for the compiler (-Werror)
    searcher._ready()
    if state.rules != searcher.rules:
        raise ArgumentError("state: the position's rules are not the searcher's")
    if state.st.over:
        return None
    st = state.st
    with searcher.lock:     # the searcher's caches and move stack
        sv_fresh(s)
        n = sv_moves(s, &st)
        if n < 0:
            raise MemoryError()
        s.top = n
        s.bombfree = sv_bomb_free(s, &st)
        sk_save(&st, &u)
        v = sv_quick(s, &st, &u, st.to_act, 0, n, SV_INF)
        sv_fresh(s)
        return None if v == -SV_INF else v * s.unit
