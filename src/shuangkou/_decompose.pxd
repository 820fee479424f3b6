# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Hand decomposition (手数) in C: the least cost of a split of a hand into plays, exact with
wilds, in time bounded by the ranks, not by the number of sub-hands (docs/solver.md
"Decomposition").

Cost model: every play costs ``DECO_UNIT`` (``DECO_COUNT``: the cost is ``DECO_UNIT`` × 手数);
with ``DECO_KEEP_BOMBS`` a bomb costs ``DECO_UNIT`` − its cards, so among the splits with the
fewest plays the one with the most cards in bombs wins. ``deco_plays(cost)`` gives the plays.

C-level entry points (``noexcept nogil``; the solver's horizon evaluation and the Python
wrappers use them). A ``Deco`` is a workspace owned by one call or one object, never shared:

* ``deco_init(d, log2_slots)`` / ``deco_free(d)`` – the memo (grows to ``2**log2_slots``
  entries, then replaces entries: values stay exact, only speed is lost); ``deco_clear(d,
  log2_slots)`` – ``d`` as ``deco_init`` leaves it, reusing its memory;
* ``deco_cost(d, hand, flags, mode)`` – the least cost of ``hand``;
* ``deco_split(d, hand, flags, mode, words, tags, cap)`` – an optimal split, play by play;
* ``d.limit`` (0: none) – past this many expanded states ``deco_cost`` gives up and returns the
  cost of the simple split (each rank one group, the jokers on their own): an upper bound, for
  evaluations; ``d.budget`` (NULL: none) – an ``SkBudget`` ticked once per expanded state
  (Ctrl-C, work and time limits); ``d.stopped`` says that either cut the search short.

The search sweeps the natural ranks 3..2 upwards. Entering rank ``r`` the state is the
*profile* of the runs still open (straights, pair and triple chains, chain bombs that hold rank
r − 1 and may go on), by kind and length; at rank r every open run goes on or ends (if long
enough), new runs start, and the naturals left form at most one group of rank r (single, pair,
triple or X相 bomb: two groups of one rank always merge into one play fewer). Wild cards are a
count: the value of a state is a vector over the number of wilds used from rank r on
(``DECO_W`` entries), and the jokers left at the end form joker-only plays (``jokers_tag``),
the wild ones chosen to leave the cheapest set. Runs take naturals before wilds (a swap with
the group changes no play's size), except that one natural may stay for the group.

Memo: a state's value depends only on r, the profile and the naturals of ranks ≥ r, so it is
keyed on those and stays valid across hands: the sub-hands ``hand − play`` of hints holding
as many wilds share every state above the play's ranks (``deco_costs``).

The structures are the readings of ``sk_classify`` (R2, R3): one natural rank with wilds a
single/pair/triple/bomb; W = 1, 2, 3 cards a rank over L ≥ 5, 3, 3 consecutive ranks of 3..A a
straight / pair chain / triple chain; 3..6 consecutive ranks of ≥ 4 cards (equal groups
unless ``FLAG_UNEVEN``) a chain bomb (``FLAG_STARS``). A set read as a bomb is also built as
that bomb, so charging each structure its own cost finds the true least cost. Checked against
the kernel-based search of ``_decompose_ref.pxd`` and brute force (tests/test_solve_decompose.py).
"""

from libc.stdint cimport int32_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memset

from _budget cimport SkBudget, budget_tick
from _packed cimport (
    R_ACE, R_BJ, R_SJ, R_TWO, SHIFT_BJ, SHIFT_SJ, SK_NAT_MASK, high_rank, low_rank, nib, nib_sum,
)
from _readings cimport (
    FLAG_STARS, FLAG_UNEVEN, FLAG_WILD_BJ, FLAG_WILD_SJ, K_BOMB, K_STRAIGHT, jokers_tag,
    sk_classify, tag_kind, tag_length,
)

cdef enum:
    DECO_COUNT = 0
    DECO_KEEP_BOMBS = 1
    DECO_UNIT = 128         # > the most cards a hand can hold (108), so plays dominate
    DECO_INF = 1 << 28
    DECO_W = 5              # wilds a hand can hold (0..4): the length of a value vector
    DECO_SLOTS0 = 10        # log2 of the memo's first size
    DECO_MOVES0 = 4096      # first size of the move stack (grows on demand)
    DECO_RUNS = 16          # open runs a split can hold at once (≤ 12 cards a rank)
    DECO_GROUP = 8          # deco_costs: plays solved together (same sub-hand naturals and wilds)
    # profile word: S (straights) lengths 1..4, 5+ : 4 bits each at 0..19; P (pair chains)
    # lengths 1, 2, 3+ : 3 bits each at 20..28; T (triple chains) the same at 29..37; chain
    # bombs: up to 3 codes (length << 4 | X, X = 0 for uneven groups) of 7 bits at 38..58,
    # largest first
    PF_P = 20
    PF_T = 29
    PF_B = 38


ctypedef struct DecoEntry:
    uint64_t key            # naturals of ranks ≥ r | r << 52 | context << 56 (0: empty)
    uint64_t profile
    int32_t value[DECO_W]   # least cost of ranks ≥ r by wilds used there (DECO_INF: none)


ctypedef struct DecoMove:
    uint64_t to             # the profile entering r + 1
    uint64_t how            # the choices, for deco_split (move_how)
    int32_t cost            # the cost of the plays started or made at rank r
    int32_t wilds           # wilds used at rank r


ctypedef struct Deco:
    DecoEntry* table
    uint64_t mask           # slots − 1
    uint64_t max_mask       # the table grows up to this
    long long used          # filled slots
    DecoMove* moves         # the move stack: each rank's expansion above ``top``
    long long cap
    long long top
    long long nodes         # states expanded (not found in the memo)
    long long limit         # 0: none; else stop past this many nodes (see the docstring)
    SkBudget* budget        # NULL: none
    bint stopped            # the limit or the budget stopped the last call
    bint oom                # an allocation failed (the caller raises MemoryError)
    # the hand being solved
    uint64_t nat
    uint64_t ctx            # context << 56 of the keys
    int maxw                # wilds the value vectors track (the hand's wilds)
    bint stars
    bint uneven
    int mode
    int r                   # the rank being expanded
    # forward layers (deco_costs): the states entering each rank that the hand reaches, with
    # the least cost of the ranks below by wilds used there
    uint64_t* fw_prof
    int32_t* fw_val         # DECO_W values an entry
    int32_t* fw_best        # the hand's least cost through the state (layers sorted by it)
    uint64_t* fw_need       # run_demand of the state (a byte each, k = 1..4) | least wilds
                            # used below it << 32 (DECO_W: none)
    long long fw_n
    long long fw_cap
    long long fw_layer[R_TWO + 2]
    int32_t* fw_hash        # scratch: entry index + 1 by profile hash, one layer at a time
    long long fw_hmask
    uint32_t jflags         # the flags the joker table was made for (+ 1 << 8 · mode, + 1 << 31)
    int32_t jcost[3][3]     # least cost of SJ × s + BJ × b as joker-only plays
    uint64_t jsplit[3][3]   # its first play (cards word)


cdef inline bint deco_init(Deco* d, int log2_slots) noexcept nogil:
    cdef int first = DECO_SLOTS0 if DECO_SLOTS0 < log2_slots else log2_slots
    d.mask = ((<uint64_t>1) << first) - 1
    d.max_mask = ((<uint64_t>1) << log2_slots) - 1
    d.used = 0
    d.table = <DecoEntry*>calloc(d.mask + 1, sizeof(DecoEntry))
    d.cap = DECO_MOVES0
    d.moves = <DecoMove*>calloc(d.cap, sizeof(DecoMove))
    d.top = 0
    d.nodes = 0
    d.limit = 0
    d.budget = NULL
    d.stopped = False
    d.jflags = 0
    d.fw_prof = NULL
    d.fw_val = NULL
    d.fw_best = NULL
    d.fw_need = NULL
    d.fw_hash = NULL
    d.fw_cap = 0
    d.fw_n = 0
    d.fw_hmask = -1
    d.oom = d.table == NULL or d.moves == NULL
    return not d.oom


cdef inline void deco_free(Deco* d) noexcept nogil:
    free(d.table)
    free(d.moves)
    free(d.fw_prof)
    free(d.fw_val)
    free(d.fw_best)
    free(d.fw_need)
    free(d.fw_hash)
    d.table = NULL
    d.moves = NULL
    d.fw_prof = NULL
    d.fw_val = NULL
    d.fw_best = NULL
    d.fw_need = NULL
    d.fw_hash = NULL


cdef inline bint deco_clear(Deco* d, int log2_slots) noexcept nogil:
    """``d`` as ``deco_init(d, log2_slots)`` leaves it (an empty memo of its first size, no
    limit, no budget), over the memory it holds where the memo is still that size: what the
    memo holds decides which hands a ``limit`` lets ``deco_cost`` solve exactly, so a search
    that must run as a new one would clears it. False if out of memory (``d.oom``)."""
    cdef int first = DECO_SLOTS0 if DECO_SLOTS0 < log2_slots else log2_slots
    if d.table == NULL or d.mask != ((<uint64_t>1) << first) - 1:
        deco_free(d)
        return deco_init(d, log2_slots)
    if d.used:
        memset(d.table, 0, (d.mask + 1) * sizeof(DecoEntry))
    d.max_mask = ((<uint64_t>1) << log2_slots) - 1
    d.used = 0
    d.top = 0
    d.nodes = 0
    d.limit = 0
    d.budget = NULL
    d.stopped = False
    d.oom = False
    return True


cdef inline int deco_plays(int32_t cost) noexcept nogil:
    return (cost + DECO_UNIT - 1) // DECO_UNIT


cdef inline int32_t group_cost(Deco* d, int n) noexcept nogil:
    """One group of ``n`` cards of one rank: an X相 bomb from 4 cards (R2)."""
    if d.mode == DECO_KEEP_BOMBS and n >= 4:
        return DECO_UNIT - n
    return DECO_UNIT


# -- the memo ----------------------------------------------------------------------------------
cdef inline uint64_t memo_hash(uint64_t key, uint64_t profile) noexcept nogil:
    """Every bit of the key and profile reaches the low bits (the slot index): the rank and
    context sit in the key's top byte (splitmix64's finalizer)."""
    cdef uint64_t h = key ^ (profile + 0x632BE59BD9B4E019ULL) * 0x9E3779B97F4A7C15ULL
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL
    return h ^ (h >> 31)


cdef inline DecoEntry* memo_find(Deco* d, uint64_t key, uint64_t profile) noexcept nogil:
    cdef uint64_t i = memo_hash(key, profile) & d.mask
    cdef int k
    cdef DecoEntry* e
    for k in range(4):
        e = &d.table[(i + k) & d.mask]
        if e.key == key and e.profile == profile:
            return e
        if e.key == 0:
            return NULL
    return NULL


cdef inline void memo_grow(Deco* d) noexcept nogil:
    """Double the table (rehash); on failure keep the old one (only speed is lost)."""
    cdef uint64_t old_mask = d.mask, i, j, m = d.mask * 2 + 1
    cdef DecoEntry* old = d.table
    cdef DecoEntry* t = <DecoEntry*>calloc(m + 1, sizeof(DecoEntry))
    cdef int k
    if t == NULL:
        d.max_mask = d.mask
        return
    d.used = 0
    for i in range(old_mask + 1):
        if old[i].key == 0:
            continue
        j = memo_hash(old[i].key, old[i].profile) & m
        for k in range(4):
            if t[(j + k) & m].key == 0:
                t[(j + k) & m] = old[i]
                d.used += 1
                break
    free(old)
    d.table = t
    d.mask = m


cdef inline void memo_store(Deco* d, uint64_t key, uint64_t profile, const int32_t* value) noexcept nogil:
    cdef uint64_t i
    cdef int k, u
    cdef DecoEntry* e
    if 2 * d.used > <long long>d.mask and d.mask < d.max_mask:
        memo_grow(d)
    i = memo_hash(key, profile) & d.mask
    e = &d.table[i]             # all four probes full: replace the first
    for k in range(4):
        if d.table[(i + k) & d.mask].key == 0:
            e = &d.table[(i + k) & d.mask]
            d.used += 1
            break
    e.key = key
    e.profile = profile
    for u in range(DECO_W):
        e.value[u] = value[u]


# -- the hand: jokers and context --------------------------------------------------------------
cdef inline void deco_jokers(Deco* d, uint32_t flags, int mode) noexcept nogil:
    """``d.jcost``/``d.jsplit``: the least cost of each joker-only multiset (R3: read
    naturally, ``jokers_tag``), for these flags and mode."""
    cdef uint32_t want = (flags & 63) | (<uint32_t>mode << 8) | (<uint32_t>1 << 31)
    cdef int s, b, a, c, n
    cdef int32_t best, v
    cdef uint32_t t
    if d.jflags == want:
        return
    d.jflags = want
    for n in range(5):
        for s in range(3):
            b = n - s
            if b < 0 or b > 2:
                continue
            d.jcost[s][b] = 0 if n == 0 else DECO_INF
            d.jsplit[s][b] = 0
            if n == 0:
                continue
            for a in range(s + 1):
                for c in range(b + 1):
                    if a + c == 0:
                        continue
                    t = jokers_tag(a, c, flags)
                    if t == 0 or d.jcost[s - a][b - c] >= DECO_INF:
                        continue
                    v = DECO_UNIT - (a + c) if (mode == DECO_KEEP_BOMBS
                                                and tag_kind(t) >= K_BOMB) else DECO_UNIT
                    v += d.jcost[s - a][b - c]
                    if v < d.jcost[s][b]:
                        d.jcost[s][b] = v
                        d.jsplit[s][b] = (<uint64_t>a << SHIFT_SJ) | (<uint64_t>c << SHIFT_BJ)


cdef inline int wild_count(uint64_t hand, uint32_t flags) noexcept nogil:
    return ((nib(hand, R_SJ) if flags & FLAG_WILD_SJ else 0)
            + (nib(hand, R_BJ) if flags & FLAG_WILD_BJ else 0))


cdef inline void deco_setup(Deco* d, uint64_t nat, int maxw, uint32_t flags, int mode) noexcept nogil:
    d.nat = nat & SK_NAT_MASK
    d.maxw = maxw
    d.stars = (flags & FLAG_STARS) != 0
    d.uneven = (flags & FLAG_UNEVEN) != 0
    d.mode = mode
    d.ctx = (<uint64_t>(0x80 | d.stars | d.uneven << 1 | mode << 2 | maxw << 3)) << 56
    d.stopped = False
    deco_jokers(d, flags, mode)


cdef inline int32_t joker_end(Deco* d, uint64_t hand, uint32_t flags, int u, int* sj_used) noexcept nogil:
    """The least cost of the jokers of ``hand`` left after ``u`` wilds went into natural plays
    (``*sj_used`` of them small jokers); DECO_INF if the hand has fewer wilds."""
    cdef int sj = nib(hand, R_SJ), bj = nib(hand, R_BJ)
    cdef int ws = sj if flags & FLAG_WILD_SJ else 0, wb = bj if flags & FLAG_WILD_BJ else 0
    cdef int a
    cdef int32_t best = DECO_INF
    sj_used[0] = 0
    for a in range(ws + 1):
        if u - a < 0 or u - a > wb:
            continue
        if d.jcost[sj - a][bj - (u - a)] < best:
            best = d.jcost[sj - a][bj - (u - a)]
            sj_used[0] = a
    return best


cdef inline int32_t deco_simple(Deco* d, uint64_t hand) noexcept nogil:
    """The cost of the simple split: each natural rank one group, the jokers on their own (an
    upper bound on the least cost)."""
    cdef int32_t v = d.jcost[nib(hand, R_SJ)][nib(hand, R_BJ)]
    cdef int r, c
    for r in range(R_TWO + 1):
        c = nib(hand, r)
        if c:
            v += group_cost(d, c)
    return v


# -- the moves of one rank ---------------------------------------------------------------------
cdef inline int pf(uint64_t p, int shift, int bits) noexcept nogil:
    return <int>((p >> shift) & ((1u << bits) - 1))


cdef inline uint64_t move_how(int js, int jp, int jt, int bm, int ns, int np, int nt, int nb,
                              uint32_t xs, int gx, int ng, int gk) noexcept nogil:
    """The choices of a move, for deco_split: S/P/T runs of the longest class going on, the
    mask of chain bombs going on, new runs by kind, the new chain bombs' X (4 bits each), the
    uneven chain bombs' extra cards, the group's naturals and wilds."""
    return (<uint64_t>js | <uint64_t>jp << 4 | <uint64_t>jt << 7 | <uint64_t>bm << 10
            | <uint64_t>ns << 13 | <uint64_t>np << 17 | <uint64_t>nt << 20 | <uint64_t>nb << 23
            | <uint64_t>xs << 25 | <uint64_t>gx << 37 | <uint64_t>ng << 41 | <uint64_t>gk << 45)


cdef inline void run_demand(Deco* d, uint64_t to, int* dem) noexcept nogil:
    """``dem[k]`` (k = 1..4): the cards the runs of profile ``to`` need k ranks on to reach
    their least lengths (non-increasing in k)."""
    cdef int i, code, b1 = 0, b2 = 0, x
    cdef int s1 = pf(to, 0, 4), s2 = pf(to, 4, 4)   # straights of 1 rank need 4 more, ...
    if to >> PF_B:                                   # chain bombs of 1 or 2 ranks
        for i in range(3):
            code = pf(to, PF_B + 7 * i, 7)
            if code and (code >> 4) < 3:
                x = 4 if d.uneven else (code & 15)
                b1 += x
                if (code >> 4) == 1:
                    b2 += x
    dem[4] = s1
    dem[3] = s1 + s2
    dem[2] = dem[3] + pf(to, 8, 4) + 2 * pf(to, PF_P, 3) + 3 * pf(to, PF_T, 3) + b2
    dem[1] = (dem[2] - b2 + b1 + pf(to, 12, 4) + 2 * pf(to, PF_P + 3, 3)
              + 3 * pf(to, PF_T + 3, 3))


cdef inline int wilds_short(Deco* d, uint64_t to) noexcept nogil:
    """The wilds the runs of profile ``to`` (entering rank d.r + 1) lack at the next ranks to
    reach their least lengths: a lower bound on the wilds any completion uses."""
    cdef int dem[5]
    cdef int k, c, short = 0
    run_demand(d, to, dem)
    for k in range(1, 5):
        if dem[k] == 0:
            break
        c = nib(d.nat, d.r + k) if d.r + k <= R_ACE else 0
        if dem[k] > c:
            short += dem[k] - c
    return short


cdef inline bint push_move(Deco* d, uint64_t to, uint64_t how, int32_t cost, int wilds) noexcept nogil:
    cdef long long cap = d.cap
    cdef DecoMove* m
    if d.top >= cap:
        m = <DecoMove*>realloc(d.moves, 2 * cap * sizeof(DecoMove))
        if m == NULL:
            d.oom = True
            return False
        d.moves = m
        d.cap = 2 * cap
    m = &d.moves[d.top]
    m.to = to
    m.how = how
    m.cost = cost
    m.wilds = wilds
    d.top += 1
    return True


cdef inline bint push_groups(Deco* d, int c, int demand, int32_t cost, uint64_t to,
                             uint64_t how) noexcept nogil:
    """The moves of rank r once its runs take ``demand`` cards: naturals first, wilds for the
    rest; the naturals left (or one natural, when the runs would take them all) form the
    group, which may take any number of the wilds left."""
    cdef int wr, k, ng, allow = d.maxw
    if to:
        # the runs it leaves open must be completed with the wilds left: no move otherwise
        allow -= wilds_short(d, to)
    if demand < c:
        ng = c - demand
        for k in range(allow + 1):
            if not push_move(d, to, how | <uint64_t>ng << 41 | <uint64_t>k << 45,
                             cost + group_cost(d, ng + k), k):
                return False
        return True
    wr = demand - c
    if wr > allow:
        return True
    if not push_move(d, to, how, cost, wr):
        return False
    if c >= 1:
        for k in range(allow - wr):     # one natural left for the group: one more wild in runs
            if not push_move(d, to, how | <uint64_t>1 << 41 | <uint64_t>k << 45,
                             cost + group_cost(d, 1 + k), wr + 1 + k):
                return False
    return True


cdef inline void sort3(int* b) noexcept nogil:
    cdef int t
    if b[0] < b[1]:
        t = b[0]; b[0] = b[1]; b[1] = t
    if b[1] < b[2]:
        t = b[1]; b[1] = b[2]; b[2] = t
    if b[0] < b[1]:
        t = b[0]; b[0] = b[1]; b[1] = t


cdef inline uint64_t b_codes(const int* b) noexcept nogil:
    cdef int q[3]
    q[0] = b[0]
    q[1] = b[1]
    q[2] = b[2]
    sort3(q)
    return (<uint64_t>q[0] | <uint64_t>q[1] << 7 | <uint64_t>q[2] << 14) << PF_B


cdef inline int demand_b(const int* b, int n) noexcept nogil:
    """Cards a rank gives the equal-group chain bombs going on (codes ``b``; X is the low
    nibble)."""
    cdef int i, t = 0
    for i in range(n):
        t += b[i] & 15
    return t


cdef inline bint push_bombs(Deco* d, int c, int demand, int32_t cost, uint64_t to,
                            uint64_t how, const int* bnext, int nbc, int nb, int avail) noexcept nogil:
    """New chain bombs (``nb`` of them) on top of ``nbc`` going on (codes ``bnext``): equal
    groups choose each new X (non-increasing); uneven groups take 4 cards each plus extra
    cards shared freely (only the total matters)."""
    cdef int b[3]
    cdef int i, x0, x1, x2, gx, room = avail - demand - 4 * nb, extra
    for i in range(3):
        b[i] = bnext[i]
    if d.uneven or nbc + nb == 0:
        for i in range(nb):
            b[nbc + i] = 1 << 4
        to |= b_codes(b)
        extra = room if (nbc + nb) else 0
        for gx in range(extra + 1):
            if not push_groups(d, c, demand + 4 * nb + gx,
                               cost - (4 * (nbc + nb) + gx if d.mode == DECO_KEEP_BOMBS else 0),
                               to, how | <uint64_t>gx << 37):
                return False
        return True
    # equal groups: the chain bombs going on keep their X (already in demand)
    if nb == 0:
        to |= b_codes(b)
        return push_groups(d, c, demand, cost - (demand_b(bnext, nbc) if d.mode == DECO_KEEP_BOMBS else 0), to, how)
    for x0 in range(4, 4 + room + 1):
        if nb == 1:
            b[nbc] = 1 << 4 | x0
            if not push_groups(d, c, demand + x0,
                               cost - (demand_b(bnext, nbc) + x0 if d.mode == DECO_KEEP_BOMBS else 0),
                               to | b_codes(b), how | <uint64_t>x0 << 25):
                return False
            continue
        for x1 in range(4, x0 + 1):
            if x0 + x1 - 8 > room:
                break
            if nb == 2:
                b[nbc] = 1 << 4 | x0
                b[nbc + 1] = 1 << 4 | x1
                if not push_groups(d, c, demand + x0 + x1,
                                   cost - (demand_b(bnext, nbc) + x0 + x1 if d.mode == DECO_KEEP_BOMBS else 0),
                                   to | b_codes(b), how | <uint64_t>(x0 | x1 << 4) << 25):
                    return False
                continue
            for x2 in range(4, x1 + 1):
                if x0 + x1 + x2 - 12 > room:
                    break
                b[0] = 1 << 4 | x0
                b[1] = 1 << 4 | x1
                b[2] = 1 << 4 | x2
                if not push_groups(d, c, demand + x0 + x1 + x2,
                                   cost - (x0 + x1 + x2 if d.mode == DECO_KEEP_BOMBS else 0),
                                   to | b_codes(b), how | <uint64_t>(x0 | x1 << 4 | x2 << 8) << 25):
                    return False
    return True


cdef inline bint runs_dead(int r, uint64_t p, const int* bo, int nbo) noexcept nogil:
    """Some open run can no longer reach its least length (R2: a straight 5 ranks, a chain
    3) within 3..A, or must go on where no run may (the 2)."""
    cdef int left = R_ACE - r, i, need = -1
    if pf(p, 0, 4):
        need = 3
    elif pf(p, 4, 4):
        need = 2
    elif pf(p, 8, 4) or pf(p, PF_P, 3) or pf(p, PF_T, 3):
        need = 1
    elif pf(p, 12, 4) or pf(p, PF_P + 3, 3) or pf(p, PF_T + 3, 3):
        need = 0
    for i in range(nbo):
        if (bo[i] >> 4) < 3 and 2 - (bo[i] >> 4) > need:
            need = 2 - (bo[i] >> 4)
    return need >= 0 and need > left


cdef inline long long deco_expand(Deco* d, int r, uint64_t p) noexcept nogil:
    """Push every move of rank ``r`` from profile ``p``; returns how many, −1 if out of memory.

    Straights, pair and triple chains shorter than their least length go on; those at it (the
    "+" class) go on or end; chain bombs go on (up to 6 ranks) or end from 3 ranks. A run
    that ends at r − 1 and a new run of its kind at r would be one play fewer as one run, so
    a move never does both."""
    cdef long long start = d.top
    cdef int c = nib(d.nat, r), avail = c + d.maxw
    cdef int s0 = pf(p, 0, 4), s1 = pf(p, 4, 4), s2 = pf(p, 8, 4), s3 = pf(p, 12, 4)
    cdef int s4 = pf(p, 16, 4)
    cdef int p0 = pf(p, PF_P, 3), p1 = pf(p, PF_P + 3, 3), p2 = pf(p, PF_P + 6, 3)
    cdef int t0 = pf(p, PF_T, 3), t1 = pf(p, PF_T + 3, 3), t2 = pf(p, PF_T + 6, 3)
    cdef int bo[3]
    cdef int bnext[3]
    cdef int nbo = 0, i, js, jp, jt, bm, ns, np, nt, nb, nbc, d0, d1, d2, d3, code
    cdef int ns_max, np_max, nt_max, nb_max
    cdef bint seq = r <= R_ACE, ok
    cdef uint64_t to, to_s, how
    cdef int32_t cost
    for i in range(3):
        bo[i] = pf(p, PF_B + 7 * i, 7)
        if bo[i]:
            nbo += 1
    if runs_dead(r, p, bo, nbo):
        return 0
    d.r = r
    for js in range(s4 + 1 if seq else 1):
        for jp in range(p2 + 1 if seq else 1):
            for jt in range(t2 + 1 if seq else 1):
                for bm in range(1 << nbo):
                    ok = True
                    nbc = 0
                    d0 = s0 + s1 + s2 + s3 + js + 2 * (p0 + p1 + jp) + 3 * (t0 + t1 + jt)
                    bnext[0] = 0
                    bnext[1] = 0
                    bnext[2] = 0
                    for i in range(nbo):
                        code = bo[i]
                        if bm >> i & 1:
                            if (code >> 4) >= 6 or not seq:     # R2: Y ≤ 6, ranks 3..A
                                ok = False
                                break
                            bnext[nbc] = code + 16
                            nbc += 1
                            d0 += 4 if d.uneven else (code & 15)
                        elif (code >> 4) < 3:                   # too short to end
                            ok = False
                            break
                    if not ok or d0 > avail:
                        continue
                    to = (<uint64_t>s0 << 4 | <uint64_t>s1 << 8 | <uint64_t>s2 << 12
                          | <uint64_t>(s3 + js) << 16
                          | <uint64_t>p0 << (PF_P + 3) | <uint64_t>(p1 + jp) << (PF_P + 6)
                          | <uint64_t>t0 << (PF_T + 3) | <uint64_t>(t1 + jt) << (PF_T + 6))
                    ns_max = 0 if (js < s4 or r > R_ACE - 4) else avail - d0
                    for ns in range(ns_max + 1):
                        d1 = d0 + ns
                        np_max = 0 if (jp < p2 or r > R_ACE - 2) else (avail - d1) // 2
                        for np in range(np_max + 1):
                            d2 = d1 + 2 * np
                            nt_max = 0 if (jt < t2 or r > R_ACE - 2) else (avail - d2) // 3
                            for nt in range(nt_max + 1):
                                d3 = d2 + 3 * nt
                                nb_max = 0
                                if d.stars and r <= R_ACE - 2:
                                    nb_max = (avail - d3) // 4
                                    if nb_max > 3 - nbc:
                                        nb_max = 3 - nbc
                                cost = DECO_UNIT * (ns + np + nt)
                                to_s = (to | <uint64_t>ns | <uint64_t>np << PF_P
                                        | <uint64_t>nt << PF_T)
                                how = move_how(js, jp, jt, bm, ns, np, nt, 0, 0, 0, 0, 0)
                                for nb in range(nb_max + 1):
                                    if not push_bombs(d, c, d3, cost + DECO_UNIT * nb, to_s,
                                                      how | <uint64_t>nb << 23,
                                                      bnext, nbc, nb, avail):
                                        return -1
    return d.top - start


# -- the sweep ---------------------------------------------------------------------------------
cdef inline bint deco_value(Deco* d, int r, uint64_t p, int32_t* out) noexcept nogil:
    """``out[u]``: the least cost of the naturals of ranks ≥ ``r`` with the runs of ``p``
    open, using exactly ``u`` wilds there (DECO_INF: impossible). False if the search was
    stopped or ran out of memory (``out`` is then meaningless)."""
    cdef uint64_t key
    cdef DecoEntry* e
    cdef int32_t best[DECO_W]
    cdef int32_t sub[DECO_W]
    cdef long long start, n, i
    cdef int u, w
    cdef int32_t cost, v
    cdef uint64_t to, last
    if r > R_TWO:
        out[0] = 0 if p == 0 else DECO_INF
        for u in range(1, DECO_W):
            out[u] = DECO_INF
        return True
    key = (d.nat >> (4 * r)) | (<uint64_t>r << 52) | d.ctx
    e = memo_find(d, key, p)
    if e != NULL:
        for u in range(DECO_W):
            out[u] = e.value[u]
        return True
    d.nodes += 1
    if (d.limit and d.nodes > d.limit) or (d.budget != NULL and budget_tick(d.budget)):
        d.stopped = True
        return False
    for u in range(DECO_W):
        best[u] = DECO_INF
    start = d.top
    n = deco_expand(d, r, p)
    if n < 0:
        d.top = start
        return False
    last = 0
    for i in range(start, start + n):
        to = d.moves[i].to      # read before the recursion: the stack may move
        cost = d.moves[i].cost
        w = d.moves[i].wilds
        # consecutive moves often differ only in the group's wilds: one lookup for them
        if (i == start or to != last) and not deco_value(d, r + 1, to, sub):
            d.top = start
            return False
        last = to
        for u in range(d.maxw + 1 - w):
            v = cost + sub[u]
            if sub[u] < DECO_INF and v < best[u + w]:
                best[u + w] = v
    d.top = start
    memo_store(d, key, p, best)
    for u in range(DECO_W):
        out[u] = best[u]
    return True


cdef inline int32_t deco_naturals(Deco* d, uint64_t hand, uint32_t flags, int* wilds) noexcept nogil:
    """The least cost of ``hand`` given the value vector of its naturals (``d`` set up for
    them); ``*wilds``: the wilds an optimal split puts into natural plays."""
    cdef int32_t vec[DECO_W]
    cdef int32_t best = DECO_INF, v, e
    cdef int u, a
    wilds[0] = 0
    if not deco_value(d, 0, 0, vec):
        return DECO_INF
    for u in range(d.maxw + 1):
        if vec[u] >= DECO_INF:
            continue
        e = joker_end(d, hand, flags, u, &a)
        if e < DECO_INF and vec[u] + e < best:
            best = vec[u] + e
            wilds[0] = u
    return best


cdef inline int32_t deco_cost(Deco* d, uint64_t hand, uint32_t flags, int mode) noexcept nogil:
    """The least cost of a split of ``hand`` into plays (see the module docstring); when the
    limit or the budget stops the search (``d.stopped``), the simple split's cost."""
    cdef int w
    cdef int32_t v
    deco_setup(d, hand, wild_count(hand, flags), flags, mode)
    v = deco_naturals(d, hand, flags, &w)
    if d.stopped or d.oom:
        return deco_simple(d, hand)
    return v


cdef inline bint fw_room(Deco* d) noexcept nogil:
    """Room for one more forward entry, and a scratch hash at most half full."""
    cdef long long cap = d.fw_cap * 2 if d.fw_cap else 1024
    cdef void* q
    if d.fw_n >= d.fw_cap:
        q = realloc(d.fw_prof, cap * sizeof(uint64_t))
        if q == NULL:
            d.oom = True
            return False
        d.fw_prof = <uint64_t*>q
        q = realloc(d.fw_val, cap * DECO_W * sizeof(int32_t))
        if q == NULL:
            d.oom = True
            return False
        d.fw_val = <int32_t*>q
        q = realloc(d.fw_best, cap * sizeof(int32_t))
        if q == NULL:
            d.oom = True
            return False
        d.fw_best = <int32_t*>q
        q = realloc(d.fw_need, cap * sizeof(uint64_t))
        if q == NULL:
            d.oom = True
            return False
        d.fw_need = <uint64_t*>q
        d.fw_cap = cap
    return True


cdef inline bint fw_rehash(Deco* d, long long first) noexcept nogil:
    """The scratch hash of the layer from entry ``first``, sized for twice its entries + 1."""
    cdef long long size = 64, i, j
    while size < 4 * (d.fw_n - first + 1):
        size *= 2
    if size - 1 != d.fw_hmask:
        free(d.fw_hash)
        d.fw_hash = <int32_t*>calloc(size, sizeof(int32_t))
        if d.fw_hash == NULL:
            d.oom = True
            return False
        d.fw_hmask = size - 1
    else:
        for i in range(size):
            d.fw_hash[i] = 0
    for i in range(first, d.fw_n):
        j = <long long>(memo_hash(d.fw_prof[i], 0) & <uint64_t>d.fw_hmask)
        while d.fw_hash[j]:
            j = (j + 1) & d.fw_hmask
        d.fw_hash[j] = <int32_t>(i + 1)
    return True


cdef inline long long fw_entry(Deco* d, long long first, uint64_t prof) noexcept nogil:
    """The index of profile ``prof`` in the layer from entry ``first`` (added with no value
    if new); −1 if out of memory."""
    cdef long long j, i
    cdef int u
    if 2 * (d.fw_n - first + 1) > d.fw_hmask:
        if not fw_rehash(d, first):
            return -1
    j = <long long>(memo_hash(prof, 0) & <uint64_t>d.fw_hmask)
    while d.fw_hash[j]:
        i = d.fw_hash[j] - 1
        if d.fw_prof[i] == prof:
            return i
        j = (j + 1) & d.fw_hmask
    if not fw_room(d):
        return -1
    i = d.fw_n
    d.fw_n += 1
    d.fw_prof[i] = prof
    for u in range(DECO_W):
        d.fw_val[i * DECO_W + u] = DECO_INF
    d.fw_hash[j] = <int32_t>(i + 1)
    return i


cdef inline bint deco_forward(Deco* d) noexcept nogil:
    """``d.fw_*``: the layers of states of the hand set up in ``d`` (its memo filled), each
    state that can still be completed with the least cost of the ranks below it."""
    cdef int r, u, w
    cdef long long i, m, start, n, k
    cdef int32_t vec[DECO_W]
    cdef int32_t cost
    cdef int dem[5]
    cdef uint64_t to, last = 0
    d.fw_n = 0
    d.fw_layer[0] = 0
    if not fw_room(d) or not fw_rehash(d, 0):
        return False
    k = fw_entry(d, 0, 0)
    if k < 0:
        return False
    d.fw_val[0] = 0
    for r in range(R_TWO + 1):
        d.fw_layer[r + 1] = d.fw_n
        if not fw_rehash(d, d.fw_n):
            return False
        for i in range(d.fw_layer[r], d.fw_layer[r + 1]):
            start = d.top
            n = deco_expand(d, r, d.fw_prof[i])
            if n < 0:
                d.top = start
                return False
            for m in range(start, start + n):
                to = d.moves[m].to
                cost = d.moves[m].cost
                w = d.moves[m].wilds
                if (m == start or to != last) and not deco_value(d, r + 1, to, vec):
                    d.top = start
                    return False
                last = to
                for u in range(d.maxw + 1):
                    if vec[u] < DECO_INF:
                        break
                else:
                    continue        # a dead end: no completion
                k = fw_entry(d, d.fw_layer[r + 1], to)
                if k < 0:
                    d.top = start
                    return False
                for u in range(d.maxw + 1 - w):
                    if (d.fw_val[i * DECO_W + u] < DECO_INF
                            and d.fw_val[i * DECO_W + u] + cost < d.fw_val[k * DECO_W + u + w]):
                        d.fw_val[k * DECO_W + u + w] = d.fw_val[i * DECO_W + u] + cost
            d.top = start
    for r in range(R_TWO + 1):
        if not fw_sort(d, r):
            return False
    for i in range(d.fw_n):
        run_demand(d, d.fw_prof[i], dem)
        for u in range(DECO_W):
            if d.fw_val[i * DECO_W + u] < DECO_INF:
                break
        d.fw_need[i] = (<uint64_t>dem[1] | <uint64_t>dem[2] << 8 | <uint64_t>dem[3] << 16
                        | <uint64_t>dem[4] << 24 | <uint64_t>u << 32)
    return True


cdef inline int cmp_u64(const void* a, const void* b) noexcept nogil:
    cdef uint64_t x = (<const uint64_t*>a)[0], y = (<const uint64_t*>b)[0]
    return -1 if x < y else (1 if x > y else 0)


cdef inline bint fw_sort(Deco* d, int r) noexcept nogil:
    """``fw_best`` of layer ``r`` (its states' forward costs joined with the hand's values
    from there: the hand's least cost through each state), and the layer sorted by it."""
    cdef long long a = d.fw_layer[r], n = d.fw_layer[r + 1] - a, i, j
    cdef int32_t vec[DECO_W]
    cdef int32_t b
    cdef int u, v
    cdef uint64_t* keys
    cdef uint64_t* prof
    cdef int32_t* val
    if n <= 0:
        return True
    keys = <uint64_t*>malloc(n * sizeof(uint64_t))
    prof = <uint64_t*>malloc(n * sizeof(uint64_t))
    val = <int32_t*>malloc(n * DECO_W * sizeof(int32_t))
    if keys == NULL or prof == NULL or val == NULL:
        free(keys)
        free(prof)
        free(val)
        d.oom = True
        return False
    for i in range(n):
        b = DECO_INF
        if deco_value(d, r, d.fw_prof[a + i], vec):
            for u in range(d.maxw + 1):
                for v in range(d.maxw + 1 - u):
                    if (d.fw_val[(a + i) * DECO_W + u] < DECO_INF and vec[v] < DECO_INF
                            and d.fw_val[(a + i) * DECO_W + u] + vec[v] < b):
                        b = d.fw_val[(a + i) * DECO_W + u] + vec[v]
        keys[i] = (<uint64_t>b << 32) | <uint64_t>i
        prof[i] = d.fw_prof[a + i]
        for u in range(DECO_W):
            val[i * DECO_W + u] = d.fw_val[(a + i) * DECO_W + u]
    qsort(keys, n, sizeof(uint64_t), cmp_u64)
    for i in range(n):
        j = <long long>(keys[i] & 0xFFFFFFFFULL)
        d.fw_best[a + i] = <int32_t>(keys[i] >> 32)
        d.fw_prof[a + i] = prof[j]
        for u in range(DECO_W):
            d.fw_val[(a + i) * DECO_W + u] = val[j * DECO_W + u]
    free(keys)
    free(prof)
    free(val)
    return not d.stopped


cdef inline int32_t deco_total(const int32_t* best, const int32_t* ends, int maxw) noexcept nogil:
    """min over u of best[u] + ends[u] (DECO_INF if none)."""
    cdef int32_t t = DECO_INF
    cdef int u
    for u in range(maxw + 1):
        if best[u] < DECO_INF and ends[u] < DECO_INF and best[u] + ends[u] < t:
            t = best[u] + ends[u]
    return t


cdef inline int32_t play_cost(uint64_t word, uint32_t flags, int mode, int lo) noexcept nogil:
    """The cost of play ``word`` put back into a split of the hand through a state entering
    rank ``lo`` (its lowest natural), or DECO_INF where the sweep cannot hold it there: a
    sequence whose window from lo leaves 3..A (J Q K A BJ reads 10..A, below its lowest
    natural)."""
    cdef uint32_t tg[2]
    cdef int kind
    if not sk_classify(word, flags, tg):
        return DECO_INF
    kind = tag_kind(tg[0])
    if not (kind < K_STRAIGHT or kind == K_BOMB or (word & ~SK_NAT_MASK) == 0
            or lo + tag_length(tg[0]) - 1 <= R_ACE):
        return DECO_INF
    if mode == DECO_KEEP_BOMBS and kind >= K_BOMB:
        return DECO_UNIT - nib_sum(word)
    return DECO_UNIT


cdef inline bint deco_costs(Deco* d, uint64_t hand, uint32_t flags, int mode,
                            const uint64_t* words, long long n, int32_t* out) noexcept nogil:
    """``out[i]``: the least cost of ``hand − words[i]`` (each ⊆ ``hand``), for every i, from
    one memo. A sub-hand lacking cards from rank ``lo`` up has the hand's states below lo:
    its value is the least, over the hand's forward states entering lo (deco_forward), of
    their cost plus the sub-hand's value from there, whose states above the play's ranks are
    shared with every sub-hand holding as many wilds (memo hits).

    Each sub-hand is solved with its own wilds only (moves spending wilds it lacks are not
    generated; its states above the play's ranks are shared with every sub-hand holding as
    many), and consecutive sub-hands with the same naturals and wilds (plays that differ
    only in which jokers they spend: the kernel lists them together) in one go. A forward
    state that the sub-hand cannot complete (its open runs lack more cards at the next ranks
    than the wilds left) is skipped without a search. False if stopped or out of memory."""
    cdef long long k, g, h, gn
    cdef int u, v, lo, a, m, short, dk, maxw = wild_count(hand, flags)
    cdef int cnat[4]
    cdef uint64_t sub, diff, key, need
    cdef int32_t base[DECO_W]
    cdef int32_t vec[DECO_W]
    cdef int32_t best[DECO_W]
    cdef int32_t ends[DECO_GROUP][DECO_W]
    cdef int32_t emin[DECO_GROUP]
    cdef int32_t pcost[DECO_GROUP]
    cdef int32_t total[DECO_GROUP]
    cdef int32_t f
    cdef bint go
    deco_setup(d, hand, maxw, flags, mode)
    if not deco_value(d, 0, 0, base) or not deco_forward(d):
        return False
    g = 0
    while g < n:
        # one group: up to DECO_GROUP consecutive plays leaving the same naturals and wilds
        sub = hand - words[g]
        m = wild_count(sub, flags)
        key = (sub & SK_NAT_MASK) << 3 | <uint64_t>m
        gn = 1
        while (g + gn < n and gn < DECO_GROUP
               and (((hand - words[g + gn]) & SK_NAT_MASK) << 3
                    | <uint64_t>wild_count(hand - words[g + gn], flags)) == key):
            gn += 1
        diff = (sub ^ hand) & SK_NAT_MASK
        deco_setup(d, sub, m, flags, mode)
        lo = low_rank(diff) if diff else 0
        for v in range(4):          # the sub-hand's naturals at the ranks from lo on (3..A)
            cnat[v] = nib(sub, lo + v) if lo + v <= R_ACE else 0
        for u in range(DECO_W):
            best[u] = base[u] if diff == 0 and u <= m else DECO_INF
        for h in range(gn):
            emin[h] = DECO_INF
            for u in range(m + 1):
                ends[h][u] = joker_end(d, hand - words[g + h], flags, u, &a)
                if ends[h][u] < emin[h]:
                    emin[h] = ends[h][u]
            total[h] = deco_total(best, ends[h], m)
            pcost[h] = play_cost(words[g + h], flags, mode, lo) if diff else 0
        if diff:
            for k in range(d.fw_layer[lo], d.fw_layer[lo + 1]):
                # the play back in as a play of its own makes a split of the hand through
                # the state, so a state whose best for the hand exceeds a play's best found
                # by more than the play's cost cannot improve it (the layer is sorted by that
                # best): stop when no play of the group can improve
                if d.fw_best[k] >= DECO_INF:
                    break
                go = False
                for h in range(gn):
                    if pcost[h] >= DECO_INF or d.fw_best[k] + emin[h] < total[h] + pcost[h]:
                        go = True
                        break
                if not go:
                    break
                need = d.fw_need[k]
                u = <int>(need >> 32)
                if u > m:
                    continue        # the state spends more wilds below lo than the sub-hand has
                # its open runs lack more cards at the next ranks than the sub-hand's wilds
                # left can give: a dead end (most states, once a play took those ranks' cards)
                short = 0
                for v in range(4):
                    dk = <int>((need >> (8 * v)) & 255)
                    if dk == 0:
                        break
                    if dk > cnat[v]:
                        short += dk - cnat[v]
                if short > m - u:
                    continue
                if not deco_value(d, lo, d.fw_prof[k], vec):
                    return False
                for u in range(m + 1):
                    f = d.fw_val[k * DECO_W + u]
                    if f >= DECO_INF:
                        continue
                    for v in range(m + 1 - u):
                        if vec[v] < DECO_INF and f + vec[v] < best[u + v]:
                            best[u + v] = f + vec[v]
                for h in range(gn):
                    total[h] = deco_total(best, ends[h], m)
        for h in range(gn):
            out[g + h] = total[h]
        g += gn
    return True


# -- the split ---------------------------------------------------------------------------------
ctypedef struct DecoRun:
    int kind                # 0 straight, 1 pair chain, 2 triple chain, 3 chain bomb
    int length
    int x                   # equal chain-bomb groups: X; else 0
    uint64_t word           # its naturals so far
    int wilds               # its wild cards so far


ctypedef struct DecoOut:
    uint64_t* words
    uint32_t* tags
    int* wilds              # wild cards of each play, made jokers at the end
    int cap
    int n


cdef inline void out_play(DecoOut* o, uint64_t word, int wilds) noexcept nogil:
    if o.n < o.cap:
        o.words[o.n] = word
        o.wilds[o.n] = wilds
    o.n += 1


cdef inline int run_code(const DecoRun* q) noexcept nogil:
    return q.length << 4 | q.x


cdef inline int run_class(const DecoRun* q) noexcept nogil:
    """The profile class of a straight / pair / triple chain: its length, capped at the
    least length that may end (5, 3, 3)."""
    cdef int cap = 5 if q.kind == 0 else 3
    return q.length if q.length < cap else cap


cdef inline int deco_apply(Deco* d, int r, uint64_t how, DecoRun* runs, int nr,
                           DecoOut* o) noexcept nogil:
    """Carry out one move of rank ``r`` (``how``, see move_how) on the concrete runs ``runs``
    (``nr`` of them): runs that end become plays, the others and the new ones take their
    cards of rank r (naturals first), the group becomes a play. Returns the new count."""
    cdef int js = how & 15, jp = (how >> 4) & 7, jt = (how >> 7) & 7, bm = (how >> 10) & 7
    cdef int ns = (how >> 13) & 15, np = (how >> 17) & 7, nt = (how >> 20) & 7
    cdef int nb = (how >> 23) & 3, xs = (how >> 25) & 0xFFF, gx = (how >> 37) & 15
    cdef int ng = (how >> 41) & 15, gk = (how >> 45) & 7
    cdef int c = nib(d.nat, r), nat = c - ng, i, j, k, width, take, bi, tmp
    cdef int keep[3]
    cdef DecoRun q
    cdef DecoRun kept[DECO_RUNS]
    cdef int nk = 0
    cdef int order[3]
    cdef int nbo = 0
    keep[0] = js
    keep[1] = jp
    keep[2] = jt
    # the open chain bombs in the profile's order (largest code first), to read the mask
    for i in range(nr):
        if runs[i].kind == 3 and nbo < 3:
            order[nbo] = i
            nbo += 1
    for i in range(nbo):
        for j in range(i + 1, nbo):
            if run_code(&runs[order[j]]) > run_code(&runs[order[i]]):
                tmp = order[i]
                order[i] = order[j]
                order[j] = tmp
    for i in range(nr):
        q = runs[i]
        if q.kind < 3:
            if run_class(&q) == (5 if q.kind == 0 else 3):
                if keep[q.kind] == 0:
                    out_play(o, q.word, q.wilds)
                    continue
                keep[q.kind] -= 1
        else:
            bi = 0
            for j in range(nbo):
                if order[j] == i:
                    bi = j
            if not (bm >> bi & 1):
                out_play(o, q.word, q.wilds)
                continue
        if nk < DECO_RUNS:
            kept[nk] = q
            nk += 1
    for k in range(ns + np + nt + nb):
        if nk >= DECO_RUNS:
            break
        q.length = 0
        q.word = 0
        q.wilds = 0
        q.x = 0
        if k < ns:
            q.kind = 0
        elif k < ns + np:
            q.kind = 1
        elif k < ns + np + nt:
            q.kind = 2
        else:
            q.kind = 3
            if not d.uneven:
                q.x = (xs >> (4 * (k - ns - np - nt))) & 15
        kept[nk] = q
        nk += 1
    for i in range(nk):
        q = kept[i]
        if q.kind < 3:
            width = q.kind + 1
        elif d.uneven:
            width = 4 + gx
            gx = 0                  # the extra cards all go to the first chain bomb
        else:
            width = q.x
        take = nat if nat < width else width
        nat -= take
        q.word += <uint64_t>take << (4 * r)
        q.wilds += width - take
        q.length += 1
        runs[i] = q
    if ng:
        out_play(o, <uint64_t>ng << (4 * r), gk)
    return nk


cdef inline int deco_split(Deco* d, uint64_t hand, uint32_t flags, int mode,
                           uint64_t* words, uint32_t* tags, int* wilds, int cap,
                           int32_t* cost) noexcept nogil:
    """An optimal split of ``hand``: its plays' cards words and readings in ``words``/``tags``
    (``wilds`` is scratch of the same size ``cap``). Returns the number of plays (−1 if the
    search was stopped or ran out of memory; more than ``cap``: nothing written past it) and
    sets ``*cost``."""
    cdef DecoRun runs[DECO_RUNS]
    cdef DecoOut o
    cdef int32_t vec[DECO_W]
    cdef int32_t sub[DECO_W]
    cdef int nr = 0, r, u, w, sj_used, i, k, sj_left, bj_left, s, b
    cdef long long start, n, m
    cdef uint64_t p = 0, word
    cdef uint32_t t[2]
    cdef bint found
    o.words = words
    o.tags = tags
    o.wilds = wilds
    o.cap = cap
    o.n = 0
    deco_setup(d, hand, wild_count(hand, flags), flags, mode)
    cost[0] = deco_naturals(d, hand, flags, &u)
    if d.stopped or d.oom:
        return -1
    for r in range(R_TWO + 1):
        if not deco_value(d, r, p, vec):
            return -1
        start = d.top
        n = deco_expand(d, r, p)
        if n < 0:
            d.top = start
            return -1
        found = False
        for m in range(start, start + n):
            w = d.moves[m].wilds
            if w > u:
                continue
            if not deco_value(d, r + 1, d.moves[m].to, sub):
                d.top = start
                return -1
            if sub[u - w] < DECO_INF and d.moves[m].cost + sub[u - w] == vec[u]:
                nr = deco_apply(d, r, d.moves[m].how, runs, nr, &o)
                p = d.moves[m].to
                u -= w
                found = True
                break
        d.top = start
        if not found:           # cannot happen: vec[u] came from one of these moves
            d.oom = True
            return -1
    for i in range(nr):         # every run ended by the 2 (R2: sequences use 3..A)
        out_play(&o, runs[i].word, runs[i].wilds)
    # the jokers: the wilds of the natural plays, small jokers first as joker_end chose
    u = 0
    for i in range(o.n if o.n < cap else cap):
        u += wilds[i]
    joker_end(d, hand, flags, u, &sj_used)
    sj_left = sj_used
    for i in range(o.n if o.n < cap else cap):
        k = wilds[i]
        s = sj_left if sj_left < k else k
        sj_left -= s
        words[i] |= (<uint64_t>s << SHIFT_SJ) | (<uint64_t>(k - s) << SHIFT_BJ)
    sj_left = nib(hand, R_SJ) - sj_used
    bj_left = nib(hand, R_BJ) - (u - sj_used)
    while sj_left + bj_left:
        word = d.jsplit[sj_left][bj_left]
        out_play(&o, word, 0)
        sj_left -= nib(word, R_SJ)
        bj_left -= nib(word, R_BJ)
    for i in range(o.n if o.n < cap else cap):
        tags[i] = t[0] if sk_classify(words[i], flags, t) else 0
    return o.n
