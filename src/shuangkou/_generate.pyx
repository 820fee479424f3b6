# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Play generators: every distinct (cards ⊆ hand, reading) pair that beats the table
(docs/internals.md "Plays"; RULES.md R2–R5), written into caller-owned buffers.

This module's C-level entry points (declared in ``_generate.pxd``; other extensions cimport
them from ``shuangkou._generate`` and call them through the pointers it exports):
``sk_count`` and ``sk_nth`` (below) and

    sk_generate(hand, flags, table, fewest, words, tags, cap) -> total

writes the first ``min(total, cap)`` plays (cards word, tag) and returns ``total``; ``cap = 0``
(buffers may then be NULL) only counts.

Every card set is emitted exactly once per reading, by construction rather than by dedup:

* jokers-only sets (R3: read naturally) – at most 8 of them, classified at import into a
  row per (jokers in hand, flags, fewest) (``fill_jokers``);
* one natural rank + wilds – single / pair / triple / X相 bomb, by size (R2, R3), over the ranks
  a nibble mask says can hold one, each rank's sets read from a table of (naturals, wilds)
  splits (``fill_tables``); without wilds, a rank's sets are its naturals, one store each;
* sequences (straight, pair chain, triple chain) – per (width W, length L, top t) window the
  sets with ≤ W naturals per rank, wilds filling the rest. Without wilds the windows come
  from the run table of ranks holding ≥ W (bit masks), stretch by stretch: the top's sets
  one store a length, each lower top's the previous top's a rank down; with wilds, prefix sums of the cards each rank lacks
  give each top's longest window, and a window's wild choices walk nibble masks of the ranks
  still holding a card. The set's canonical top (R3.2) is
  ``min(A, lowest natural + L − 1)``, so a window with top t < A only takes sets holding a
  natural of its lowest rank. Sets that are bombs (one natural rank, or a 千变 chain bomb) are
  left to the bomb generators (R3.1); a 千变 set fitting two kinds is emitted once per kind
  (R3.3);
* chain bombs – per window (a, Y) every count vector with groups reachable ≥ 4 (an odometer
  carrying the running figures ``chain_best`` needs, one SWAR test first rejecting hands with
  no possible window); a set is kept only in the window of its biggest reading (R3.1, R3.4),
  so it appears once.

When answering, only the table's kind and size with a higher top are generated, plus the bombs
that beat it (R4: filtered while generating). ``fewest`` keeps, per reading, the set with the
fewest wilds, then fewest big jokers, then the smallest word.
"""

from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memset

from _packed cimport (
    R_ACE, R_BJ, R_SJ, SHIFT_BJ, SHIFT_SJ, SK_CLZ64, SK_CTZ64, SK_NAT_MASK, SK_NIB1, SK_SEQ_MASK,
    high_rank, low_rank, n_ranks, nib, nib_sum, ranks_ge, run_tops, unit,
)
from _readings cimport (
    FLAG_STARS, FLAG_UNEVEN, FLAG_WILD_BJ, FLAG_WILD_SJ, K_BOMB, K_PAIR, K_STRAIGHT, NO_TABLE,
    ChainShape, bomb_key, chain_best, chain_bomb_tag, chain_shape_of, chain_step, chain_tag,
    chain_x, jokers_tag, make_tag, sk_beats,
    tag_kind, tag_length, tag_size, tag_top, tag_width,
)

cdef enum:
    GEN_LEAD = 0    # free lead: everything
    GEN_PLAIN = 1   # answering a plain play: its kind and size with a higher top, all bombs
    GEN_BOMB = 2    # answering a bomb: bigger bombs only
    FEW_SLOTS = 1024  # chain-bomb readings of one window in ``fewest`` mode: size < 64, X < 16


cdef extern from *:
    """
    /* What the generators read (Gen) and the output cursor they write (Out), and the
       generators kept out of line: each hot loop gets its own function and so its own
       register allocation (inlined into one big function, they spilled to the stack). */
    typedef struct {
        unsigned long long hand;
        unsigned int flags, table, tkey;  /* tkey: bomb_key of the table (GEN_BOMB) */
        int mode, tkind, ttop, tsize, tlen, fewest;
        int ws, wb, wall;                 /* wild small / big jokers in hand, their sum */
    } SkGen;
    typedef struct {
        uint64_t* words;
        uint32_t* tags;
        long long n;      /* plays found so far (may exceed cap) */
        long long cap;    /* long long: cannot alias the uint32/uint64 output stores */
        int stop;         /* stop once play cap-1 is stored (sk_nth): n is then not the total */
        int fewest;
        unsigned int flags;
        const int* jn;              /* [w]: ways to take w wild cards (small / big jokers) */
        const uint64_t (*jw)[3];    /* [w][k]: their joker words, fewest small jokers first */
    } SkOut;
    #if defined(__GNUC__) || defined(__clang__)
    #define SK_NOINLINE __attribute__((noinline))
    #define SK_ALWAYS_INLINE inline __attribute__((always_inline))
    #elif defined(_MSC_VER)
    #define SK_NOINLINE __declspec(noinline)
    #define SK_ALWAYS_INLINE __forceinline
    #else
    #define SK_NOINLINE
    #define SK_ALWAYS_INLINE inline
    #endif
    /* Their loops store batches of 1..12 plays: GCC's vectorised copies of them never run but
       cost a trip-count test and set-up per batch. */
    #if defined(__GNUC__) && !defined(__clang__)
    #define SK_SCALAR __attribute__((optimize("no-tree-vectorize")))
    #else
    #define SK_SCALAR
    #endif
    static SK_NOINLINE SK_SCALAR void sk_gen_one_rank(const SkGen* g, SkOut* o);
    static SK_NOINLINE SK_SCALAR void sk_gen_one_rank_answer(const SkGen* g, SkOut* o);
    static SK_NOINLINE SK_SCALAR void sk_gen_sequences(const SkGen* g, SkOut* o);
    static SK_NOINLINE SK_SCALAR void sk_gen_seq_answers(const SkGen* g, SkOut* o);
    static SK_NOINLINE SK_SCALAR void sk_gen_seq_runs_answer(const SkGen* g, SkOut* o);
    /* the window walk of leads; seq_top, a loop over windows, inlined into both (leads,
       answers) with how a constant */
    static SK_ALWAYS_INLINE void sk_seq_windows(SkOut* s, int wall, uint64_t m, int width,
        unsigned int kind, int lmin, int how);
    static SK_ALWAYS_INLINE void sk_seq_top(SkOut* s, uint64_t wins, uint64_t top_mask,
        const int* pre, int pt, int lfix, unsigned int tag_0, unsigned int dlo, int wall,
        int keep, uint64_t gmask, int how);
    static SK_ALWAYS_INLINE void sk_seq_window(SkOut* s, uint64_t base, int d, int budget,
        uint64_t guard, unsigned int tag, int how);
    /* the deeper levels of a window, out of the window loop, one function per emitting mode */
    static SK_NOINLINE SK_SCALAR void sk_seq_deep_one_fits(SkOut* s, uint64_t base, int d,
        int budget, uint64_t guard, unsigned int tag);
    static SK_NOINLINE SK_SCALAR void sk_seq_deep_splits_fits(SkOut* s, uint64_t base, int d,
        int budget, uint64_t guard, unsigned int tag);
    static SK_NOINLINE SK_SCALAR void sk_seq_deep_one(SkOut* s, uint64_t base, int d,
        int budget, uint64_t guard, unsigned int tag);
    static SK_NOINLINE SK_SCALAR void sk_seq_deep_splits(SkOut* s, uint64_t base, int d,
        int budget, uint64_t guard, unsigned int tag);
    /* inlined once per emitting mode, a constant there */
    static SK_ALWAYS_INLINE void sk_one_rank_all(const SkGen* g, SkOut* o, int how);
    static SK_NOINLINE void sk_gen_chain_bombs(const SkGen* g, SkOut* o);
    static SK_NOINLINE void sk_gen_jokers(const SkGen* g, SkOut* o);
    """
    ctypedef struct Gen "SkGen":
        uint64_t hand
        uint32_t flags
        uint32_t table
        uint32_t tkey
        int mode
        int tkind
        int ttop
        int tsize
        int tlen
        bint fewest
        int ws
        int wb
        int wall
    ctypedef struct Out "SkOut":
        uint64_t* words
        uint32_t* tags
        long long n
        long long cap
        bint stop
        bint fewest
        uint32_t flags
        const int* jn
        const uint64_t (*jw)[3]


ctypedef uint64_t SplitRow[3]  # SkOut.jw[w]: the joker words of w wild cards


ctypedef struct Fewest:
    # best chain bomb per (size, X) of one window: score = 1 + (wilds << 3 | big jokers)
    uint32_t score[FEW_SLOTS]
    uint32_t tag[FEW_SLOTS]
    uint64_t word[FEW_SLOTS]
    int used[FEW_SLOTS]
    int n_used


# -- output -----------------------------------------------------------------------------------
cdef inline void store(uint64_t* words, uint32_t* tags, long long i, long long cap,
                       uint64_t word, uint32_t tag) noexcept nogil:
    """Play ``i`` of the output, kept if it fits (``cap``)."""
    if i < cap:
        words[i] = word
        tags[i] = tag


cdef inline void out_put(Out* o, uint64_t word, uint32_t tag) noexcept nogil:
    cdef long long i = o.n
    store(o.words, o.tags, i, o.cap, word, tag)
    o.n = i + 1


cdef inline bint out_done(const Out* o) noexcept nogil:
    """``sk_nth`` has what it asked for: the generators may return."""
    return o.stop and o.n >= o.cap


cdef inline void put_wild(Out* o, uint64_t nat, int w, uint32_t tag) noexcept nogil:
    """Emit ``nat`` plus ``w`` wild cards, once per split into small / big jokers (R3: they are
    different cards; the splits are precomputed in ``o.jw``, see :func:`joker_splits`)."""
    cdef int k
    out_put(o, nat | o.jw[w][0], tag)  # w = 0: the one empty split
    for k in range(1, o.jn[w]):
        out_put(o, nat | o.jw[w][k], tag)


cdef extern from *:
    """
    /* Every way to take w wild cards from ws wild small and wb wild big jokers (see
       joker_splits), per (fewest, ws, wb): SK_JN[f][ws][wb][w] ways, SK_JW[...][w][k] their
       joker words. Filled once at import: a call only points at its row. */
    static int SK_JN[2][3][3][5];
    static uint64_t SK_JW[2][3][3][5][3];
    """
    int SK_JN[2][3][3][5]
    uint64_t SK_JW[2][3][3][5][3]


cdef void joker_splits(int few, int ws, int wb) noexcept nogil:
    """``SK_JN``/``SK_JW`` of (few, ws, wb): every way to take w wild cards (w ≤ ws + wb) from
    ws wild small and wb wild big jokers, small-joker count ascending; ``few``: only the one
    spending small jokers first. With no wild small joker (百变, JJ) there is one way: w big
    jokers."""
    cdef int w, k, smin, smax
    for w in range(ws + wb + 1):
        smax = ws if ws < w else w
        smin = w - wb if w > wb else 0
        if few:
            smin = smax
        SK_JN[few][ws][wb][w] = smax - smin + 1
        for k in range(smin, smax + 1):
            SK_JW[few][ws][wb][w][k - smin] = (<uint64_t>k << SHIFT_SJ) | (
                <uint64_t>(w - k) << SHIFT_BJ)


# -- jokers only (R3: read naturally) ----------------------------------------------------------
cdef extern from *:
    """
    /* The jokers-only plays of every hand, in the generators' order: row
       key = (hand >> 52 & 0xFF: SJ and BJ counts) | (flags & 6: wild BJ, stars) << 5 |
       fewest << 8 holds SK_JOKERS_N[key] plays from SK_JOKERS_AT[key] (cards word, tag).
       Filled once at import. */
    typedef struct { unsigned long long word; unsigned int tag; } SkJoker;
    static SkJoker SK_JOKERS[4][2][3][3][8];
    static const SkJoker* SK_JOKERS_AT[512];
    static unsigned char SK_JOKERS_N[512];
    """
    ctypedef struct SkJoker:
        uint64_t word
        uint32_t tag
    SkJoker SK_JOKERS[4][2][3][3][8]
    const SkJoker* SK_JOKERS_AT[512]
    uint8_t SK_JOKERS_N[512]


cdef inline int jokers_key(uint64_t hand, uint32_t flags, int few) noexcept nogil:
    """The row of ``SK_JOKERS_AT``/``SK_JOKERS_N`` of a hand (jokers ≤ 2 each: R1)."""
    return <int>((hand >> SHIFT_SJ) & 0xFF) | <int>(flags & 6) << 5 | few << 8


cdef void fill_jokers() noexcept nogil:
    """``SK_JOKERS``: every subset of the hand's jokers that is a play, read naturally
    (:func:`jokers_tag`), small jokers then big ones ascending; ``fewest`` drops SJ BJ (a
    pair of SJ with 1 wild, which SJ SJ beats to it) and SJ BJ BJ (三王, SJ SJ BJ) when the
    hand holds two small jokers."""
    cdef int fb, few, hs, hb, s, b, n, key
    cdef uint32_t tag
    for fb in range(4):
        for few in range(2):
            for hs in range(3):
                for hb in range(3):
                    n = 0
                    for s in range(hs + 1):
                        for b in range(hb + 1):
                            if s + b == 0 or (few and hs == 2 and s == 1 and b >= 1):
                                continue
                            tag = jokers_tag(s, b, <uint32_t>(fb << 1))
                            if tag:
                                SK_JOKERS[fb][few][hs][hb][n].word = (
                                    (<uint64_t>s << SHIFT_SJ) | (<uint64_t>b << SHIFT_BJ))
                                SK_JOKERS[fb][few][hs][hb][n].tag = tag
                                n += 1
                    key = jokers_key((<uint64_t>hs << SHIFT_SJ) | (<uint64_t>hb << SHIFT_BJ),
                                     <uint32_t>(fb << 1), few)
                    SK_JOKERS_AT[key] = SK_JOKERS[fb][few][hs][hb]
                    SK_JOKERS_N[key] = <uint8_t>n


cdef void gen_jokers "sk_gen_jokers"(const Gen* g, Out* o) noexcept nogil:
    """The jokers-only plays of the hand that beat the table, from its row of ``SK_JOKERS``."""
    cdef int key = jokers_key(g.hand, g.flags, g.fewest != 0)
    cdef const SkJoker* e = SK_JOKERS_AT[key]
    cdef const SkJoker* last = e + SK_JOKERS_N[key]
    while e < last:
        if sk_beats(e.tag, g.table, g.flags):
            out_put(o, e.word, e.tag)
        e += 1


# -- one natural rank: single, pair, triple, X相 bomb (R2, R3) ----------------------------------
cdef inline uint32_t one_rank_tag(int r, int n, int stars_on) noexcept nogil:
    """The reading of ``n`` cards of rank ``r`` (wilds standing for it): single, pair, triple,
    then an X相 bomb of n★ with stars (R2, R3). Kind, width, size and stars grow linearly
    with n: one multiply instead of packing seven fields."""
    if n <= 3:
        return make_tag(0, r, 0, 1, 0, 0, 0) + <uint32_t>n * make_tag(1, 0, 1, 0, 0, 1, 0) - 1
    return make_tag(K_BOMB, r, 0, 1, 0, 0, 0) + <uint32_t>n * make_tag(0, 0, 1, 0, stars_on, 1, 0)


cdef extern from *:
    """
    /* The sets of one natural rank + wilds (see fill_tables), for every (fewest, wilds in
       hand, naturals of the rank): SK_ONE_RANK_FIRST[f][w][h][n] is the index of the first
       set of >= n cards (n = 13: the end) in SK_ONE_RANK[stars], stars: 0 without 星. */
    typedef struct { unsigned int tag; unsigned char nat, wild; } SkOneRank;
    static SkOneRank SK_ONE_RANK[2][810];
    static unsigned short SK_ONE_RANK_FIRST[2][5][9][14];
    /* per stars: the row of 8 naturals, no wild, shifted so that [k] is the set of k */
    static const SkOneRank* SK_NAT_ROW[2];
    /* inlined leading and answering (constants there) */
    static SK_ALWAYS_INLINE void sk_one_rank_naturals(SkOut* o, uint64_t nat, uint64_t bombs,
        const SkOneRank* table);
    """
    ctypedef struct SkOneRank:
        uint32_t tag
        uint8_t nat
        uint8_t wild
    SkOneRank SK_ONE_RANK[2][810]
    uint16_t SK_ONE_RANK_FIRST[2][5][9][14]
    const SkOneRank* SK_NAT_ROW[2]


cdef void fill_tables() noexcept nogil:
    """Fill the generators' static tables; once, at this module's import (a module that
    cimports the generators imports this one first, so no generation runs before).

    ``SK_ONE_RANK``: per (fewest, wilds in hand, naturals h of the rank), every set of
    n cards made of k naturals of the rank and n − k wilds (1 ≤ k ≤ h), by size n, then k
    ascending (``fewest``: only the largest k); the tag is that of rank 0, without and with
    the bomb's stars. ``SK_JN``/``SK_JW``: the joker splits of every (fewest, wild small
    jokers, wild big jokers) (:func:`joker_splits`). ``SK_JOKERS``: :func:`fill_jokers`."""
    cdef int few, wall, h, n, k, kmax, stars, i = 0
    for few in range(2):
        for wall in range(5):
            for h in range(9):
                for n in range(14):
                    SK_ONE_RANK_FIRST[few][wall][h][n] = <uint16_t>i
                    if n == 0 or n > h + wall:
                        continue
                    kmax = h if h < n else n
                    k = kmax if few else (n - wall if n - wall > 1 else 1)
                    while k <= kmax:
                        for stars in range(2):
                            SK_ONE_RANK[stars][i].tag = one_rank_tag(0, n, stars) | (
                                <uint32_t>(n - k) << 28)
                            SK_ONE_RANK[stars][i].nat = <uint8_t>k
                            SK_ONE_RANK[stars][i].wild = <uint8_t>(n - k)
                        i += 1
                        k += 1
    for stars in range(2):
        SK_NAT_ROW[stars] = &SK_ONE_RANK[stars][SK_ONE_RANK_FIRST[0][0][8][1] - 1]
    for few in range(2):
        for h in range(3):
            for n in range(3):
                joker_splits(few, h, n)
    fill_jokers()


fill_tables()


cdef enum:
    # how one rank's sets are emitted (a constant in each caller, so the compiler drops what
    # it excludes)
    ONE_NO_WILD = 0  # no wild card in hand: the naturals alone
    ONE_SPLIT = 1    # one joker split per wild count: one store a set
    ONE_SPLITS = 2   # every joker split
    # the most sets one_rank_naturals makes: a rank's nibble holds ≤ 15, so it has ≤ 15 sizes
    # leading, or its plain set and the sizes from 4 up answering
    ONE_RANK_MOST = 13 * 15
    # and with wilds, one split a set: ≤ 13 sizes a rank, ≤ 5 natural counts a size (wilds ≤ 4)
    ONE_RANK_WILD_MOST = 13 * 13 * 5


cdef inline bint one_rank_sets(Out* o, const SkOneRank* table, int r, int i, int end,
                               int how) noexcept nogil:
    """Emit sets ``i..end`` of the one-rank ``table`` for rank ``r``; True when ``sk_nth``
    has what it asked for. With one split a set (``ONE_NO_WILD``, ``ONE_SPLIT``) the batch's
    bounds are checked once when it fits whole."""
    cdef uint64_t u = unit(r)
    cdef uint32_t rt = <uint32_t>r << 4
    cdef long long n = o.n
    cdef const SkOneRank* e = &table[i]
    cdef const SkOneRank* last = &table[end]
    cdef int k
    if how == ONE_SPLITS:
        while e < last:
            for k in range(o.jn[e.wild]):
                out_put(o, e.nat * u | o.jw[e.wild][k], e.tag | rt)
            e += 1
        return out_done(o)
    if n + (end - i) <= o.cap:  # indices n .. n + end − i − 1 < cap
        while e < last:
            if how == ONE_NO_WILD:
                o.words[n] = e.nat * u
            else:
                o.words[n] = e.nat * u | o.jw[e.wild][0]
            o.tags[n] = e.tag | rt
            n += 1
            e += 1
        o.n = n
        return False
    while e < last:
        store(o.words, o.tags, n, o.cap, e.nat * u | o.jw[e.wild][0], e.tag | rt)
        n += 1
        e += 1
    o.n = n
    return o.stop


cdef inline bint one_rank_fits(const Out* o, uint64_t nat, uint64_t plain,
                               uint64_t bombs) noexcept nogil:
    """The one-rank sets of a hand without wilds fit the buffer: at most one a rank of
    ``plain`` plus the naturals of the ranks of ``bombs``, never more than ``ONE_RANK_MOST``.
    The constant bound first (~20 instructions fewer a call when the buffer has room), the
    exact count when it has less."""
    return o.n + ONE_RANK_MOST <= o.cap or o.n + nib_sum(plain + (nat & bombs * 15)) <= o.cap


cdef inline void one_rank_naturals "sk_one_rank_naturals"(Out* o, uint64_t nat, uint64_t bombs,
                                                          const SkOneRank* table) noexcept nogil:
    """The one-rank sets of a hand without wilds, leading (R2, R3): rank by rank of
    ``bombs``, every size from 1 to all its naturals (``table[k]``: the reading of k naturals
    of rank 0), bounds checked once when they fit, each play otherwise."""
    cdef uint64_t u, word
    cdef uint64_t* words = o.words
    cdef uint32_t* tags = o.tags
    cdef long long n = o.n
    cdef uint32_t rt
    cdef int r, k
    if one_rank_fits(o, nat, 0, bombs):
        while bombs:
            r = SK_CTZ64(bombs) >> 2
            bombs &= bombs - 1
            u = unit(r)
            rt = <uint32_t>r << 4
            word = u
            for k in range(1, nib(nat, r) + 1):
                words[n] = word
                tags[n] = table[k].tag | rt
                n += 1
                word += u
        o.n = n
        return
    one_rank_checked(o, nat, 0, 0, bombs, 1, 0, table)


cdef inline void one_rank_checked(Out* o, uint64_t nat, uint64_t plain, int psize,
                                  uint64_t bombs, int nmin, int rmin,
                                  const SkOneRank* table) noexcept nogil:
    """The one-rank sets of a hand without wilds, each store bounds checked: rank by rank,
    ``psize`` naturals of it if ``plain`` holds the rank, then, if ``bombs`` does, every size
    from ``nmin`` (``nmin + 1`` below rank ``rmin``) to all its naturals; ``nmin = 1``:
    leading, every size of every rank in ``bombs``."""
    cdef uint64_t todo = plain | bombs, u, word
    cdef long long n = o.n
    cdef uint32_t rt
    cdef int r, h, k, lo, p
    while todo:
        r = SK_CTZ64(todo) >> 2
        todo &= todo - 1
        h = nib(nat, r)
        u = unit(r)
        rt = <uint32_t>r << 4
        if nmin == 1:
            lo = 1
            p = 0
        else:
            lo = h + 1
            if bombs & u:
                lo = nmin if r >= rmin else nmin + 1
            p = (plain & u) != 0
        if p:
            store(o.words, o.tags, n, o.cap, <uint64_t>psize * u, table[psize].tag | rt)
            n += 1
        word = <uint64_t>lo * u
        for k in range(lo, h + 1):
            store(o.words, o.tags, n, o.cap, word, table[k].tag | rt)
            n += 1
            word += u
        if o.stop and n >= o.cap:  # sk_nth has its plays
            break
    o.n = n


cdef inline void one_rank_split_fits(Out* o, const SkOneRank* table, const uint16_t* first,
                                     uint64_t hand, uint64_t plain, int psize, uint64_t bombs,
                                     int nmin, int rmin, int how) noexcept nogil:
    """:func:`one_rank_all`'s loop with wilds when the buffer has room for all the plays
    (``ONE_RANK_WILD_MOST`` sets, each with one joker split, ``ONE_SPLIT``, or up to three,
    ``ONE_SPLITS``): the cursor, the buffers and the splits kept in registers across the
    ranks, no bound check."""
    cdef uint64_t todo = plain | bombs, u
    cdef uint64_t* words = o.words
    cdef uint32_t* tags = o.tags
    cdef const SplitRow* jw = o.jw
    cdef const int* jn = o.jn
    cdef long long n = o.n
    cdef const SkOneRank* e
    cdef const SkOneRank* last
    cdef const uint16_t* row
    cdef uint32_t rt
    cdef int b, nr
    while todo:
        b = SK_CTZ64(todo)  # 4 × the rank: the tag's top field is at bit 4
        todo &= todo - 1
        u = (<uint64_t>1) << b
        rt = <uint32_t>b << 2
        row = first + 14 * <int>((hand >> b) & 15)
        if plain & u:
            e = table + row[psize]
            last = table + row[psize + 1]
            n = one_rank_run(words, tags, n, e, last, u, rt, jw, jn, how)
        if bombs & u:
            nr = nmin if b >= 4 * rmin else nmin + 1
            if nr <= 12:
                n = one_rank_run(words, tags, n, table + row[nr], table + row[13], u, rt, jw,
                                 jn, how)
    o.n = n


cdef inline long long one_rank_run(uint64_t* words, uint32_t* tags, long long n,
                                   const SkOneRank* e, const SkOneRank* last, uint64_t u,
                                   uint32_t rt, const SplitRow* jw, const int* jn,
                                   int how) noexcept nogil:
    """Store the sets ``e`` .. ``last`` of one rank (``u``: one card of it, ``rt``: its tag
    top) from index ``n``, each once per joker split (``ONE_SPLITS``) or once; the new
    cursor."""
    cdef int k
    while e < last:
        if how == ONE_SPLITS:
            for k in range(jn[e.wild]):
                words[n] = e.nat * u | jw[e.wild][k]
                tags[n] = e.tag | rt
                n += 1
        else:
            words[n] = e.nat * u | jw[e.wild][0]
            tags[n] = e.tag | rt
            n += 1
        e += 1
    return n


cdef inline uint64_t ranks_holding(uint64_t nat, int k) noexcept nogil:
    """:func:`ranks_ge` for any ``k``: every rank holding a natural when k ≤ 1, none when
    k > 8 (R1)."""
    if k > 8:
        return 0
    return ranks_ge(nat, k if k > 1 else 1)


cdef inline void one_rank_all "sk_one_rank_all"(const Gen* g, Out* o, int how) noexcept nogil:
    """Singles, pairs, triples (all sizes when leading, the table's size over higher ranks when
    answering one) and X相 bombs (R2, R3); per rank by size, as R3 orders them. Only the ranks
    that can hold one are visited (nibble masks: ≥ n − wall naturals for a set of n).
    Answering a bomb visits only the ranks that can hold a bigger one and starts each at the
    smallest size that beats it: ``nmin`` (the smallest beating at rank 2) from rank ``rmin``
    up, ``nmin + 1`` below. A one-rank bomb's key grows with its size, and at one size with
    its rank (R5); against any other bomb of its star level the rank does not matter, so
    ``rmin`` is above 3 only when the table is a one-rank bomb of size ``nmin``."""
    cdef int r, h, psize = 0, nmin = 4, rmin = 0, nr  # leading: every size from 1 (nmin = 1)
    cdef int stars_on = (g.flags & FLAG_STARS) != 0
    cdef const SkOneRank* table = SK_ONE_RANK[stars_on]
    cdef uint64_t plain = 0, bombs, todo
    cdef uint64_t nat = g.hand & SK_NAT_MASK
    # the table's row of this hand: first[14 * h + n]
    cdef const uint16_t* first = &SK_ONE_RANK_FIRST[g.fewest != 0][g.wall][0][0]
    if g.mode == GEN_PLAIN and g.tkind <= 2:
        psize = g.tkind + 1
        plain = ranks_holding(nat, psize - g.wall) & ~(unit(g.ttop + 1) - 1)
    if g.mode == GEN_LEAD:  # every size, from 1
        nmin = 1
        bombs = ranks_holding(nat, 1 - g.wall)
    elif g.mode == GEN_BOMB:
        nmin = bomb_nmin(g, stars_on)
        if g.tkind == K_BOMB and g.tsize == nmin:
            rmin = g.ttop + 1
        bombs = (ranks_holding(nat, nmin - g.wall) & ~(unit(rmin) - 1)) | ranks_holding(
            nat, nmin + 1 - g.wall)
    else:
        bombs = ranks_holding(nat, 4 - g.wall)
    if how == ONE_NO_WILD:  # leading (answers: gen_one_rank_answer); rank 0's row of 8
        # naturals: the sets of 1..8 naturals, one each
        one_rank_naturals(o, nat, bombs, &table[first[14 * 8 + 1] - 1])
        return
    todo = plain | bombs
    # indices n .. < cap: ONE_RANK_WILD_MOST sets, each with ≤ 3 splits (ONE_SPLITS). Leading,
    # the constants (no plain size, every size from 1) drop the answers' tests from the loop
    # over ranks (~25 instructions a rank)
    if o.n + (3 if how == ONE_SPLITS else 1) * ONE_RANK_WILD_MOST <= o.cap:
        if g.mode != GEN_LEAD:
            one_rank_split_fits(o, table, first, g.hand, plain, psize, bombs, nmin, rmin, how)
        else:
            one_rank_split_fits(o, table, first, g.hand, 0, 0, bombs, 1, 0, how)
        return
    while todo:
        r = SK_CTZ64(todo) >> 2
        todo &= todo - 1
        h = nib(g.hand, r)
        if plain & unit(r) and one_rank_sets(o, table, r, first[14 * h + psize],
                                             first[14 * h + psize + 1], how):
            return
        if bombs & unit(r):
            nr = nmin if r >= rmin else nmin + 1
            if nr <= 12 and one_rank_sets(o, table, r, first[14 * h + nr], first[14 * h + 13],
                                          how):  # h + wall ≥ nr: the masks above
                return


cdef inline int bomb_nmin(const Gen* g, int stars_on) noexcept nogil:
    """The fewest cards of a one-rank bomb of rank 2 beating the table (a bomb, key
    ``g.tkey``; 13: none). Its key grows with its size (R5), and a size below the table's
    stars (with stars) or its cards (classic) never beats: the search starts there."""
    cdef int nmin = <int>(g.tkey >> 11) if stars_on else <int>(g.tkey >> 4)
    if nmin < 4:
        nmin = 4
    elif nmin > 13:
        nmin = 13
    while nmin <= 12 and bomb_key(one_rank_tag(12, nmin, stars_on), g.flags) <= g.tkey:
        nmin += 1
    return nmin


cdef void gen_one_rank_answer "sk_gen_one_rank_answer"(const Gen* g, Out* o) noexcept nogil:
    """:func:`one_rank_all` answering without wilds: the table's size over higher ranks if
    it is a single, pair or triple, and the bombs that beat it, from the one row of 1..8
    naturals (``SK_NAT_ROW``). A function of its own: the set-up of the general case (table
    rows by fewest and wilds, the emitting mode) is most of an answer's one-rank cost."""
    cdef int psize = 0, nmin = 4, rmin = 0
    cdef int stars_on = (g.flags & FLAG_STARS) != 0
    cdef uint64_t nat = g.hand & SK_NAT_MASK, plain = 0, bombs
    if g.mode == GEN_PLAIN:
        if g.tkind <= 2:
            psize = g.tkind + 1
            plain = ranks_ge(nat, psize) & ~(unit(g.ttop + 1) - 1)
        bombs = ranks_ge(nat, 4)
    else:
        nmin = bomb_nmin(g, stars_on)
        if g.tkind == K_BOMB and g.tsize == nmin:
            rmin = g.ttop + 1
        bombs = (ranks_holding(nat, nmin) & ~(unit(rmin) - 1)) | ranks_holding(nat, nmin + 1)
    cdef uint64_t* words = o.words
    cdef uint32_t* tags = o.tags
    cdef long long n = o.n
    cdef uint64_t below, word
    cdef uint32_t ptag, tag, dk = make_tag(0, 0, 1, 0, stars_on, 1, 0)
    cdef int b, k, c, lob = 4 * rmin
    if not one_rank_fits(o, nat, plain, bombs):
        one_rank_checked(o, nat, plain, psize, bombs, nmin, rmin, SK_NAT_ROW[stars_on])
        return
    ptag = one_rank_tag(0, psize, stars_on)  # (plain is empty when psize is 0)
    while True:  # bomb ranks are few: the plain ranks up to the next one, then its bombs
        below = plain & (((bombs & (~bombs + 1)) << 1) - 1) if bombs else plain
        plain ^= below
        while below:
            b = SK_CTZ64(below)  # 4 × the rank: the tag's top field is at bit 4
            below &= below - 1
            words[n] = <uint64_t>psize << b
            tags[n] = ptag | (<uint32_t>b << 2)
            n += 1
        if bombs == 0:
            o.n = n
            return
        b = SK_CTZ64(bombs)  # the lowest bomb rank: its sizes from nmin (nmin + 1 below rmin)
        bombs &= bombs - 1
        k = nmin + (b < lob)
        c = <int>((nat >> b) & 15)
        word = <uint64_t>k << b
        tag = one_rank_tag(0, k, stars_on) + (<uint32_t>b << 2)  # k ≥ 4: + dk a card
        while k <= c:
            words[n] = word
            tags[n] = tag
            n += 1
            word += (<uint64_t>1) << b
            tag += dk
            k += 1


cdef void gen_one_rank "sk_gen_one_rank"(const Gen* g, Out* o) noexcept nogil:
    if g.wall == 0:
        one_rank_all(g, o, ONE_NO_WILD)
    elif o.fewest or g.ws == 0 or g.wb == 0:  # one joker split per wild count
        one_rank_all(g, o, ONE_SPLIT)
    else:
        one_rank_all(g, o, ONE_SPLITS)


# -- sequences: straight, pair chain, triple chain (R2, R3.2, R3.3) -----------------------------
cdef enum:
    # how a sequence set with wilds is emitted (a constant in each caller, so the compiler
    # drops what it excludes)
    SEQ_ONE = 0     # one joker split per wild count: one store
    SEQ_SPLITS = 1  # every joker split (1..3 of them)
    SEQ_FITS = 2    # added to either: the walk's sets fit (bound checked once a top or once for
                    # an answer's windows; no test per store)


cdef inline void seq_emit(const Out* s, long long* n, uint64_t nat, int w, uint64_t j0,
                          uint32_t tag, int how) noexcept nogil:
    if how >= SEQ_FITS:  # the caller checked the bound
        seq_emit_fits(s, n, nat, w, j0, tag, how - SEQ_FITS)
        return
    seq_emit_checked(s, n, nat, w, j0, tag, how)


cdef inline void seq_emit_fits(const Out* s, long long* n, uint64_t nat, int w, uint64_t j0,
                               uint32_t tag, int how) noexcept nogil:
    """:func:`seq_emit_checked` where every index written is known to be < cap."""
    cdef int k
    cdef long long i = n[0]
    s.words[i] = nat | j0
    s.tags[i] = tag
    if how == SEQ_ONE:
        n[0] = i + 1
        return
    k = s.jn[w]
    if k > 1:
        s.words[i + 1] = nat | s.jw[w][1]
        s.tags[i + 1] = tag
        if k > 2:
            s.words[i + 2] = nat | s.jw[w][2]
            s.tags[i + 2] = tag
    n[0] = i + k


cdef inline void seq_emit_checked(const Out* s, long long* n, uint64_t nat, int w, uint64_t j0,
                                  uint32_t tag, int how) noexcept nogil:
    """Emit one sequence set of ``nat`` and ``w`` wilds (``tag`` has them), once per joker
    split, as plays ``n[0]``, … (the caller's local cursor: kept in a register, where
    ``s.n`` would be reloaded after every store)."""
    cdef int k
    cdef long long i = n[0]
    store(s.words, s.tags, i, s.cap, nat | j0, tag)
    if how == SEQ_ONE:
        n[0] = i + 1
        return
    k = s.jn[w]  # 1..3 (at most 2 wild jokers of each kind)
    if k > 1:
        store(s.words, s.tags, i + 1, s.cap, nat | s.jw[w][1], tag)
        if k > 2:
            store(s.words, s.tags, i + 2, s.cap, nat | s.jw[w][2], tag)
    n[0] = i + k


cdef inline uint64_t held(uint64_t x) noexcept nogil:
    """A 1 in the low bit of every non-zero nibble of ``x`` (nibbles ≤ 3: a window's W)."""
    return (x | (x >> 1)) & SK_NIB1


cdef inline void seq_put(const Out* s, long long* n, uint64_t w0, uint64_t w1, uint64_t w2,
                         int k, uint32_t tag, int how) noexcept nogil:
    """Store one sequence set as its ``k`` joker splits (``SEQ_ONE``: one), the words
    ``w0``, ``w1``, ``w2`` (the set with each split), at the cursor ``n[0]``."""
    cdef long long i = n[0]
    if how >= SEQ_FITS:  # the caller checked the top's bound
        s.words[i] = w0
        s.tags[i] = tag
        if how - SEQ_FITS == SEQ_SPLITS and k > 1:
            s.words[i + 1] = w1
            s.tags[i + 1] = tag
            if k > 2:
                s.words[i + 2] = w2
                s.tags[i + 2] = tag
    else:
        store(s.words, s.tags, i, s.cap, w0, tag)
        if how == SEQ_SPLITS and k > 1:
            store(s.words, s.tags, i + 1, s.cap, w1, tag)
            if k > 2:
                store(s.words, s.tags, i + 2, s.cap, w2, tag)
    n[0] = i + (k if how % SEQ_FITS == SEQ_SPLITS else 1)


cdef inline long long seq_put_bits(const Out* s, long long at, uint64_t top, uint64_t m,
                                   uint32_t tag, int how) noexcept nogil:
    """Store the sets ``top`` − u, one a bit u of ``m`` from the lowest up, all with ``tag``
    and one joker split (``SEQ_ONE``), from the cursor ``at``; the new cursor. Fitting
    (``SEQ_FITS``), two sets an iteration: the loop's test and counter once for two."""
    cdef uint64_t u, v
    cdef uint64_t* words = s.words
    cdef uint32_t* tags = s.tags
    if how < SEQ_FITS:
        while m:
            u = m & (~m + 1)
            m ^= u
            store(words, tags, at, s.cap, top - u, tag)
            at += 1
        return at
    while m:
        u = m & (~m + 1)
        m ^= u
        words[at] = top - u
        tags[at] = tag
        if m == 0:
            return at + 1
        v = m & (~m + 1)
        m ^= v
        words[at + 1] = top - v
        tags[at + 1] = tag
        at += 2
    return at


cdef inline void seq_window "sk_seq_window"(Out* s, uint64_t base, int d, int budget,
                                            uint64_t guard, uint32_t tag, int how) noexcept nogil:
    """The sets of a window but the first (``base``, which :func:`seq_top` stores): ``base``
    holds min(count, W) naturals per rank and lacks ``d`` cards; taking 1 to ``budget``
    (≤ wilds − d, ≤ 3) fewer naturals (a multiset of ranks r1 ≤ r2 ≤ …, each the lowest set
    bit of a mask of the ranks still holding one) turns them into wilds. Unless the top is
    A the lowest rank must keep a natural (canonical top): one card of it, ``guard`` (else
    0), is set aside before choosing. ``tag`` lacks the wilds field: the set of d + j wilds
    adds d + j at bit 28. No set here is a bomb (``seq_window_bombs``).

    The set of ``base`` − r naturals (r: the cards replaced) with the joker split j is
    (``base`` | j) − r, j only joker bits: the words of level j's splits and their count are
    loaded once a window (in the loops the count was reloaded every set: the stores to the
    uint32 tags may alias an int), a set's words one subtraction each."""
    cdef uint64_t x0 = base - guard, x1, u1, u2, u3, m1, m2, m3, p2, q2, r2, p3, q3, r3
    cdef uint64_t a1, b1, c1, a2 = 0, b2 = 0, c2 = 0, a3 = 0, b3 = 0, c3 = 0
    cdef uint32_t t1, t2, t3
    cdef int k1, k2 = 0, k3 = 0
    cdef long long at = s.n
    tag |= <uint32_t>d << 28
    t1 = tag + (<uint32_t>1 << 28)
    t2 = tag + (<uint32_t>2 << 28)
    t3 = tag + (<uint32_t>3 << 28)
    k1 = s.jn[d + 1]
    a1 = base | s.jw[d + 1][0]
    b1 = base | s.jw[d + 1][1]
    c1 = base | s.jw[d + 1][2]
    if budget >= 2:
        k2 = s.jn[d + 2]
        a2 = base | s.jw[d + 2][0]
        b2 = base | s.jw[d + 2][1]
        c2 = base | s.jw[d + 2][2]
    if budget >= 3:
        k3 = s.jn[d + 3]
        a3 = base | s.jw[d + 3][0]
        b3 = base | s.jw[d + 3][1]
        c3 = base | s.jw[d + 3][2]
    m1 = held(x0)
    while m1:
        u1 = m1 & (~m1 + 1)
        m1 ^= u1
        seq_put(s, &at, a1 - u1, b1 - u1, c1 - u1, k1, t1, how)
        if how % SEQ_FITS == SEQ_SPLITS and budget == 1:  # (SEQ_ONE: seq_top stores budget 1)
            continue
        x1 = x0 - u1
        m2 = held(x1) & ~(u1 - 1)
        p2 = a2 - u1  # the level's words less the first choice
        q2 = b2 - u1
        r2 = c2 - u1
        if budget == 2:  # its own loop: a test of the budget there cost two instructions a set
            if how % SEQ_FITS == SEQ_ONE:
                at = seq_put_bits(s, at, p2, m2, t2, how)
                continue
            while m2:
                u2 = m2 & (~m2 + 1)
                m2 ^= u2
                seq_put(s, &at, p2 - u2, q2 - u2, r2 - u2, k2, t2, how)
            continue
        while m2:
            u2 = m2 & (~m2 + 1)
            m2 ^= u2
            seq_put(s, &at, p2 - u2, q2 - u2, r2 - u2, k2, t2, how)
            m3 = held(x1 - u2) & ~(u2 - 1)
            p3 = a3 - u1 - u2
            q3 = b3 - u1 - u2
            r3 = c3 - u1 - u2
            while m3:
                u3 = m3 & (~m3 + 1)
                m3 ^= u3
                seq_put(s, &at, p3 - u3, q3 - u3, r3 - u3, k3, t3, how)
    s.n = at


cdef void seq_deep_one_fits "sk_seq_deep_one_fits"(Out* s, uint64_t base, int d, int budget,
                                                   uint64_t guard, uint32_t tag) noexcept nogil:
    seq_window(s, base, d, budget, guard, tag, SEQ_ONE + SEQ_FITS)


cdef void seq_deep_splits_fits "sk_seq_deep_splits_fits"(Out* s, uint64_t base, int d,
                                                         int budget, uint64_t guard,
                                                         uint32_t tag) noexcept nogil:
    seq_window(s, base, d, budget, guard, tag, SEQ_SPLITS + SEQ_FITS)


cdef void seq_deep_one "sk_seq_deep_one"(Out* s, uint64_t base, int d, int budget,
                                         uint64_t guard, uint32_t tag) noexcept nogil:
    seq_window(s, base, d, budget, guard, tag, SEQ_ONE)


cdef void seq_deep_splits "sk_seq_deep_splits"(Out* s, uint64_t base, int d, int budget,
                                               uint64_t guard, uint32_t tag) noexcept nogil:
    seq_window(s, base, d, budget, guard, tag, SEQ_SPLITS)


cdef inline void seq_window_deep(Out* s, uint64_t base, int d, int budget, uint64_t guard,
                                 uint32_t tag, int how) noexcept nogil:
    """:func:`seq_window` out of :func:`seq_top`'s loop (inlined there, its deeper levels'
    registers spilled the window loop's), a function per emitting mode (one function for
    the four, its loops spilled each other's registers)."""
    if how == SEQ_ONE + SEQ_FITS:
        seq_deep_one_fits(s, base, d, budget, guard, tag)
    elif how == SEQ_SPLITS + SEQ_FITS:
        seq_deep_splits_fits(s, base, d, budget, guard, tag)
    elif how == SEQ_ONE:
        seq_deep_one(s, base, d, budget, guard, tag)
    else:
        seq_deep_splits(s, base, d, budget, guard, tag)


cdef inline void seq_window_bombs(Out* s, uint64_t base, int d, int budget, int lo, int t,
                                  int n, uint32_t tag) noexcept nogil:
    """:func:`seq_window` for a window where a set may be a bomb (R3.1), left to the bomb
    generators: with 4 wilds it may hold a single natural rank (an X相 bomb), with ≥ 3 wilds
    and ≥ 12 cards it may be a 千变 chain bomb. The same sets in the same order, the choices
    kept on a stack (depth j: the set has d + j wilds) so that the tests are written once."""
    cdef uint64_t guard = unit(lo) if t < R_ACE else 0
    cdef uint64_t x[5]
    cdef uint64_t m[5]
    cdef uint64_t u = 0
    cdef long long at = s.n
    cdef int j = 0, w
    x[0] = base - guard
    while True:
        w = d + j
        if not ((w >= 4 and n_ranks(x[j] + guard) < 2) or (
                w >= 3 and n >= 12 and (s.flags & FLAG_STARS)
                and chain_bomb_tag(x[j] + guard, n, w, s.flags))):
            seq_emit(s, &at, x[j] + guard, w, s.jw[w][0], tag | (<uint32_t>w << 28), SEQ_SPLITS)
        if j < budget:  # choose one more natural to replace, from the last choice's rank up
            m[j + 1] = held(x[j]) & ~(u - 1) if j else held(x[0])
            j += 1
        while j and m[j] == 0:
            j -= 1
        if j == 0:
            s.n = at
            return
        u = m[j] & (~m[j] + 1)
        m[j] ^= u
        x[j] = x[j - 1] - u


cdef inline void seq_runs_answer(Out* s, uint64_t full, int width, uint32_t kind, int lfix,
                                 int tmin) noexcept nogil:
    """The sequences of a hand without wilds answering one of length ``lfix``: one set a top
    t ≥ ``tmin`` whose ``lfix`` ranks down all hold ≥ W (``full``), tops from A down. When
    they all fit they are stored from the lowest top up into their slots counted from the
    end (ctz, and the set is one word shifted to its top), else one bound check a store."""
    cdef uint64_t tops = run_tops(full, lfix) & ~(unit(tmin) - 1), word
    cdef uint64_t base = <uint64_t>width * (SK_NIB1 & (unit(lfix) - 1))  # the set topped lfix − 1
    cdef uint32_t tag = make_tag(kind, 0, width, lfix, 0, width * lfix, 0)
    cdef int t, b, sh = 4 * (lfix - 1)
    cdef long long n = s.n, i, count
    # indices n .. n + tops − 1 < cap: a top a rank 3..A, counted only when the room is less
    if n + R_ACE + 1 <= s.cap or n + nib_sum(tops) <= s.cap:
        count = nib_sum(tops)
        i = n + count
        while tops:
            b = SK_CTZ64(tops)  # 4 × the top: the tag's top field is at bit 4
            tops &= tops - 1
            i -= 1
            s.words[i] = base << (b - sh)
            s.tags[i] = tag | (<uint32_t>b << 2)
        s.n = n + count
        return
    while tops:
        t = high_rank(tops)
        tops ^= unit(t)
        word = base << (4 * t - sh)
        store(s.words, s.tags, n, s.cap, word, tag | (<uint32_t>t << 4))
        n += 1
    s.n = n


cdef inline void seq_runs(Out* s, uint64_t full, int width, uint32_t kind,
                          int lmin) noexcept nogil:
    """The sequences of a hand without wilds, leading, from its run table: the windows are
    the stretches of ranks holding ≥ W (``full``: a 1 per nibble), one set each (W cards per
    rank). Stretch by stretch from A down, each top t of the stretch (its ``lmin`` ranks
    down all full) takes the lengths from lmin up to the stretch's bottom. The top T of a
    stretch stores its c sets, one store a length (the set grows by W cards of the next rank
    down); each next top's sets are the previous top's but its longest, a rank down: one
    shift of the word and −16 on the tag each, read back from the buffer."""
    cdef uint64_t tops = run_tops(full, lmin), gaps, word, step
    cdef uint64_t wide = <uint64_t>width * SK_NIB1
    cdef uint64_t* words = s.words
    cdef uint32_t* tags = s.tags
    cdef uint32_t dtag = make_tag(0, 0, 0, 1, 0, width, 0), tag
    cdef int t, lo, bottom, tlow, c, i
    cdef long long n, prev
    while tops:
        if out_done(s):
            return
        t = high_rank(tops)
        gaps = ~full & SK_NIB1 & (unit(t) - 1)
        bottom = high_rank(gaps) + 1 if gaps else 0  # the stretch is bottom..t (at least)
        tlow = bottom + lmin - 1
        tops &= unit(tlow) - 1  # this stretch's tops are t..tlow
        c = t - tlow + 1  # the sets of top t: lengths lmin..t − bottom + 1
        lo = t - lmin + 1
        word = wide & ((unit(t) << 4) - unit(lo))
        step = <uint64_t>width * unit(lo - 1) if lo > 0 else 0  # W of the next rank down
        tag = make_tag(kind, t, width, lmin, 0, width * lmin, 0)
        n = s.n
        if n + c * (c + 1) // 2 <= s.cap:  # the stretch's indices n .. n + c(c+1)/2 − 1 < cap
            for i in range(c):
                words[n + i] = word
                tags[n + i] = tag
                word += step
                step >>= 4
                tag += dtag
            prev = n
            n += c
            c -= 1
            while c:
                for i in range(c):
                    words[n + i] = words[prev + i] >> 4
                    tags[n + i] = tags[prev + i] - (1u << 4)
                prev = n
                n += c
                c -= 1
            s.n = n
            continue
        while True:  # top by top, each store checked
            for i in range(c):
                out_put(s, word, tag)
                word += step
                step >>= 4
                tag += dtag
            c -= 1
            if c == 0:
                break
            t -= 1
            lo -= 1  # ≥ bottom ≥ 0: top t − 1 still has a set
            word = wide & ((unit(t) << 4) - unit(lo))
            step = <uint64_t>width * unit(lo - 1) if lo > 0 else 0
            tag = make_tag(kind, t, width, lmin, 0, width * lmin, 0)


cdef inline void seq_top "sk_seq_top"(Out* s, uint64_t wins, uint64_t top_mask,
                                     const int* pre, int pt, int lfix, uint32_t tag_0,
                                     uint32_t dlo, int wall, int keep, uint64_t gmask,
                                     int how) noexcept nogil:
    """The windows without a bomb whose lowest ranks are ``wins`` (a 1 at bit 4·lo), lo
    descending: leading (``lfix`` 0) the windows of one top, lacking d = pt − pre[lo] cards;
    answering the windows of ``lfix`` ranks, lacking d = pre[lo + lfix] − pre[lo] (those
    lacking more than ``wall`` are skipped here). A window's set of naturals is
    ``top_mask`` over its ranks, its tag ``tag_0`` + lo·``dlo``. Each window's first set is
    stored here, and with a budget (wall − d) of wilds to spend, the sets of one wild more
    (each natural replaced in turn, one joker split a set: ``SEQ_ONE``); deeper levels and
    several joker splits in :func:`seq_window_deep`. ``gmask``: the windows whose lowest
    rank keeps a natural (tops below A, R3.2)."""
    cdef long long at = s.n
    cdef uint64_t ulo, base, m1, b1
    cdef uint64_t span = (unit(lfix) - 1) if lfix else ~(<uint64_t>0)  # the window's ranks
    cdef uint32_t tag, tag1
    cdef int b, lo, d, budget
    while wins:
        b = 63 - SK_CLZ64(wins)  # 4 × lo
        ulo = (<uint64_t>1) << b
        wins ^= ulo
        lo = b >> 2
        if lfix:
            d = pre[lo + lfix] - pre[lo]
            if d > wall:
                continue
        else:
            d = pt - pre[lo]
        base = top_mask & (span << b)
        tag = tag_0 + <uint32_t>lo * dlo
        budget = (wall - d) & keep
        seq_emit(s, &at, base, d, s.jw[d][0], tag | (<uint32_t>d << 28), how)
        if budget == 0:
            continue
        if how % SEQ_FITS == SEQ_ONE and budget == 1:  # most windows with a budget
            # the set of base − u naturals and the split j is (base | j) − u (u a card base
            # holds, j only joker bits): one subtraction a set
            m1 = held(base - (ulo & gmask))
            b1 = base | s.jw[d + 1][0]
            tag1 = tag | (<uint32_t>(d + 1) << 28)
            at = seq_put_bits(s, at, b1, m1, tag1, how)
            continue
        s.n = at
        seq_window_deep(s, base, d, budget, ulo & gmask, tag, how)
        at = s.n
    s.n = at


cdef inline int seq_window_most(int wall, int ranks, int how) noexcept nogil:
    """The most sets a window of ``ranks`` ranks without a bomb makes: ≤ 3 wilds to spend
    (4 make every window a possible bomb), Σ_{j ≤ wall} C(ranks − 1 + j, j) multisets of
    naturals replaced, each with ≤ 3 joker splits (``SEQ_SPLITS``)."""
    cdef int most = 1 + ranks
    if wall >= 2:
        most += ranks * (ranks + 1) // 2
    if wall >= 3:
        most += ranks * (ranks + 1) * (ranks + 2) // 6
    return 3 * most if how == SEQ_SPLITS else most


cdef inline void seq_windows "sk_seq_windows"(Out* s, int wall, uint64_t m, int width,
                                              uint32_t kind, int lmin, int how) noexcept nogil:
    """The sequences of width W with wilds, leading: top t from A down, length ascending,
    every window lo..t lacking at most ``wall`` cards to hold W of each rank. ``m`` holds
    min(count, W) per rank (nibbles), ``pre`` the prefix sums of the cards each rank lacks;
    the longest window of top t starts at the lowest ``lo`` with pre[t + 1] − pre[lo] ≤
    wall, which only falls as t falls. With t < A the window's lowest rank must hold a
    natural (canonical top, R3.2). A top's windows without a bomb go to :func:`seq_top`,
    its bound checked once a top."""
    cdef int t, lmax, lo, lowest = R_ACE + 1, r, pt, hi_lo, lsafe, nwin
    # budgets are wall − d, or 0 with ``fewest`` (only the set with the most naturals)
    cdef int keep = 0 if s.fewest else -1
    # windows of fewer cards hold no bomb: with ≤ 2 wilds none, with 3 a chain bomb of ≥ 12
    # cards, with 4 also an X相 bomb (R3.1); lsafe: the fewest ranks of a window that may
    # hold one
    cdef int safe = 99 if wall <= 2 else (12 if wall == 3 else 0)
    cdef int pre[13]
    cdef uint64_t top_mask, wins, bwins, gmask
    cdef uint32_t tag_t, dtag = make_tag(0, 0, 0, 1, 0, width, 0)
    cdef long long lim
    lsafe = (safe + width - 1) // width
    # the most sets of a top: a window of each length lmin .. min(12, lsafe − 1)
    nwin = lsafe - lmin if lsafe - lmin < 13 - lmin else 13 - lmin
    if nwin < 0:
        nwin = 0
    lim = s.cap - <long long>nwin * seq_window_most(wall, 12, how)  # a top fits: s.n ≤ lim
    pre[0] = 0
    for r in range(12):
        pre[r + 1] = pre[r] + width - nib(m, r)
    t = R_ACE
    while t >= lmin - 1:
        if out_done(s):
            return
        if lowest > t + 1:
            lowest = t + 1
        pt = pre[t + 1]
        while lowest > 0 and pt - pre[lowest - 1] <= wall:
            lowest -= 1
        lmax = t + 1 - lowest
        hi_lo = t - lmin + 1
        lo = t + 1 - lmax
        if lo <= hi_lo:
            # the windows' lowest ranks lo..hi_lo, a 1 at bit 4·lo; with t < A only those
            # holding a natural
            wins = ((unit(hi_lo) << 1) - unit(lo)) & SK_NIB1
            gmask = 0
            if t < R_ACE:
                wins &= held(m)
                gmask = ~(<uint64_t>0)
            # the windows of lsafe ranks or more (lowest ranks ≤ t + 1 − lsafe) may hold a bomb
            bwins = 0
            if t + 2 - lsafe > 0:
                bwins = wins & (unit(t + 2 - lsafe) - 1)
                wins ^= bwins
            top_mask = m & ((unit(t) << 4) - 1)
            tag_t = make_tag(kind, t, width, t + 1, 0, width * (t + 1), 0)  # tag of lo = 0
            if wins:
                if s.n <= lim:  # every index the top writes is < cap
                    seq_top(s, wins, top_mask, pre, pt, 0, tag_t, -dtag, wall, keep, gmask,
                            how + SEQ_FITS)
                else:
                    seq_top(s, wins, top_mask, pre, pt, 0, tag_t, -dtag, wall, keep, gmask, how)
            while bwins:
                lo = high_rank(bwins)
                bwins ^= unit(lo)
                seq_window_bombs(s, top_mask & ~(unit(lo) - 1), pt - pre[lo],
                                 (wall - pt + pre[lo]) & keep, lo, t, width * (t - lo + 1),
                                 tag_t - <uint32_t>lo * dtag)
        t -= 1


cdef inline void seq_answer_windows(Out* s, int wall, uint64_t m, int width, uint32_t kind,
                                    int lfix, int tmin, int how) noexcept nogil:
    """The sequences of width W with wilds answering one of ``lfix`` ranks: one window a top
    t ≥ ``tmin``, from A down, lacking at most ``wall`` cards to hold W of each rank (``m``:
    min(count, W) per rank); with t < A its lowest rank holds a natural (canonical top,
    R3.2). All go to one :func:`seq_top` loop (bound checked once) unless the windows may
    hold a bomb (R3.1: ``seq_window_bombs``)."""
    cdef int r, lo, d, ace_lo = R_ACE + 1 - lfix
    cdef int keep = 0 if s.fewest else -1
    cdef int pre[13]
    cdef uint64_t wins
    cdef uint32_t tag_0 = make_tag(kind, lfix - 1, width, lfix, 0, width * lfix, 0)  # lo = 0
    if tmin < lfix - 1:
        tmin = lfix - 1
    if tmin > R_ACE:
        return
    pre[0] = 0
    for r in range(12):
        pre[r + 1] = pre[r] + width - nib(m, r)
    # the windows' lowest ranks tmin − lfix + 1 .. A − lfix + 1, a 1 at bit 4·lo; below the
    # top A's only those holding a natural
    wins = ((unit(ace_lo) << 1) - unit(tmin - lfix + 1)) & SK_NIB1 & (held(m) | unit(ace_lo))
    # windows of fewer than 12 cards hold no bomb with 3 wilds, none with fewer (R3.1)
    if wall <= 2 or (wall == 3 and width * lfix < 12):
        if s.n + 12 * seq_window_most(wall, lfix, how) <= s.cap:  # ≤ 12 windows
            seq_top(s, wins, m, pre, 0, lfix, tag_0, 16, wall, keep, ~unit(ace_lo),
                    how + SEQ_FITS)
        else:
            seq_top(s, wins, m, pre, 0, lfix, tag_0, 16, wall, keep, ~unit(ace_lo), how)
        return
    while wins:
        lo = high_rank(wins)
        wins ^= unit(lo)
        d = pre[lo + lfix] - pre[lo]
        if d > wall:
            continue
        seq_window_bombs(s, m & (unit(lo + lfix) - unit(lo)), d, (wall - d) & keep, lo,
                         lo + lfix - 1, width * lfix, tag_0 + (<uint32_t>lo << 4))


cdef void gen_sequences "sk_gen_sequences"(const Gen* g, Out* o) noexcept nogil:
    """Straights, pair chains, triple chains (R2), width by width, every length: leading."""
    cdef int width, kind, lmin, how
    cdef uint64_t m = 0, full
    cdef uint64_t nat = g.hand & SK_SEQ_MASK
    how = SEQ_ONE if o.fewest or g.ws == 0 or g.wb == 0 else SEQ_SPLITS
    for width in range(1, 4):
        full = ranks_ge(nat, width)
        m += full  # min(count, W) = Σ_{k ≤ W} [count ≥ k]
        kind = K_STRAIGHT + width - 1
        lmin = 5 if width == 1 else 3
        if g.wall == 0:
            seq_runs(o, full, width, kind, lmin)
        elif how == SEQ_ONE:
            seq_windows(o, g.wall, m, width, kind, lmin, SEQ_ONE)
        else:
            seq_windows(o, g.wall, m, width, kind, lmin, SEQ_SPLITS)
        if out_done(o):
            return


cdef void gen_seq_runs_answer "sk_gen_seq_runs_answer"(const Gen* g, Out* o) noexcept nogil:
    """Answering a sequence without wilds (R4): the table's width and length, a higher top,
    from the run table (:func:`seq_runs_answer`). Apart from :func:`gen_seq_answers`, whose
    window walk needs a stack frame and six saved registers."""
    cdef int width = g.tkind - K_STRAIGHT + 1
    seq_runs_answer(o, ranks_ge(g.hand & SK_SEQ_MASK, width), width, g.tkind, g.tlen,
                    g.ttop + 1)


cdef void gen_seq_answers "sk_gen_seq_answers"(const Gen* g, Out* o) noexcept nogil:
    """Answering a sequence with wilds (R4): only the table's kind (its width W) and length,
    with a higher top. A function of its own: in :func:`gen_sequences`' loop a variable width
    would cost the leads' loop its per-width specialisation."""
    cdef int width = g.tkind - K_STRAIGHT + 1, kind = g.tkind
    cdef uint64_t nat = g.hand & SK_SEQ_MASK
    cdef uint64_t m = ranks_ge(nat, 1)
    if width >= 2:  # min(count, W) = Σ_{k ≤ W} [count ≥ k]
        m += ranks_ge(nat, 2)
        if width == 3:
            m += ranks_ge(nat, 3)
    if o.fewest or g.ws == 0 or g.wb == 0:
        seq_answer_windows(o, g.wall, m, width, kind, g.tlen, g.ttop + 1, SEQ_ONE)
    else:
        seq_answer_windows(o, g.wall, m, width, kind, g.tlen, g.ttop + 1, SEQ_SPLITS)


# -- chain bombs (R2, R5; uneven groups in 千变) ------------------------------------------------
cdef inline void few_keep(Fewest* f, uint64_t nat, int w, int ws, uint32_t tag) noexcept nogil:
    cdef int s = ws if ws < w else w
    cdef int i = tag_size(tag) << 4 | tag_width(tag)
    cdef uint32_t score = 1 + <uint32_t>(w << 3 | (w - s))
    cdef uint64_t word = nat | (<uint64_t>s << SHIFT_SJ) | (<uint64_t>(w - s) << SHIFT_BJ)
    if f.score[i] == 0:
        f.used[f.n_used] = i
        f.n_used += 1
    elif f.score[i] < score or (f.score[i] == score and f.word[i] <= word):
        return
    f.score[i] = score
    f.word[i] = word
    f.tag[i] = tag


cdef inline int fig_need(uint64_t fig) noexcept nogil:
    return <int>((fig >> 40) & 255)


cdef inline void chain_leaf(const Gen* g, Out* o, Fewest* f, int a, int y, uint64_t nat,
                            uint64_t fig) noexcept nogil:
    """One count vector ``nat`` of the window a..a+y−1 with its figures ``fig`` (see
    ``SK_CHAIN_STEP``): every wild count ≥ the wilds it lacks is one candidate set, kept only
    in the window of its biggest reading (R3.1, R3.4). The window's ranks outside the
    naturals' span are empty, which turns the window figures into the span's ``ChainShape``."""
    cdef int w, x, n0 = nib_sum(nat), top = a + y - 1, lo = low_rank(nat)
    cdef int span = high_rank(nat) - lo + 1
    cdef uint32_t tag
    cdef ChainShape shape
    chain_shape_of(&shape, fig, lo, span, y - span)
    for w in range(fig_need(fig), g.wall + 1):
        # equal groups (百变/JJ): a reading of y groups needs y | size
        if not (g.flags & FLAG_UNEVEN) and (n0 + w) % y:
            continue
        if w < 4:
            # a group without naturals takes ≥ 4 wilds: with fewer, every reading's groups are
            # the naturals' span, which is this window (a rank short of 4 is lacking), so its
            # reading is the set's only one
            x = chain_x(&shape, y, n0 + w, g.flags)
            if x == 0:
                continue
            tag = chain_tag(x, y, top, n0 + w, w)
        else:
            tag = chain_best(&shape, n0 + w, w, g.flags)
            if tag == 0 or tag_top(tag) != top or tag_length(tag) != y:
                continue
        if g.mode == GEN_BOMB and bomb_key(tag, g.flags) <= g.tkey:
            continue
        if f != NULL:
            few_keep(f, nat, w, g.ws, tag)
        else:
            put_wild(o, nat, w, tag)


cdef inline void chain_window(const Gen* g, Out* o, Fewest* f, int a, int y) noexcept nogil:
    """Every count vector of the window a..a+y−1 (ranks 3..A, 3 ≤ y ≤ 6) whose groups can
    reach 4 cards with the wilds, rank a's count most significant, each count ascending: an
    odometer over positions i = 0..y−1 keeping the naturals and the figures of the ranks
    before i. A rank's count starts at 4 − (wilds not yet lacking); rank a must hold a
    natural unless the top is A (the reading's top is min(A, lowest natural + y − 1))."""
    cdef int i = 0, cm, top = a + y - 1
    cdef int c[6]
    cdef int h[6]
    cdef uint64_t nat[7]
    cdef uint64_t fig[7]
    nat[0] = fig[0] = 0
    for i in range(y):
        h[i] = nib(g.hand, a + i)
    i = 0
    while True:
        # descend: positions i.. at their smallest count
        while i < y:
            cm = 4 - (g.wall - fig_need(fig[i]))
            if cm < 0:
                cm = 0
            if i == 0 and cm == 0 and top < R_ACE:
                cm = 1
            if cm > h[i]:
                break
            c[i] = cm
            nat[i + 1] = nat[i] | ((<uint64_t>cm) << (4 * (a + i)))
            fig[i + 1] = chain_step(fig[i], cm)
            i += 1
        if i == y:
            chain_leaf(g, o, f, a, y, nat[y], fig[y])
            if out_done(o):
                return
        # advance the deepest position that can still grow
        i -= 1
        while i >= 0 and c[i] == h[i]:
            i -= 1
        if i < 0:
            return
        c[i] += 1
        nat[i + 1] = nat[i + 1] + unit(a + i)
        fig[i + 1] = chain_step(fig[i], c[i])
        i += 1


cdef inline bint lacks_at_most(uint64_t x, int k) noexcept nogil:
    """Some nibble 0..9 of ``x`` (each ≤ 15) is ≤ k: the nibbles spread over byte lanes,
    where adding 127 − k sets bit 7 exactly of the lanes over k."""
    cdef uint64_t lanes = 0x0000008080808080ULL, add = <uint64_t>(127 - k) * 0x0000000101010101ULL
    cdef uint64_t even = x & 0x0000000F0F0F0F0FULL, odd = (x >> 4) & 0x0000000F0F0F0F0FULL
    return ((even + add) & lanes) != lanes or ((odd + add) & lanes) != lanes


cdef void gen_chain_bombs "sk_gen_chain_bombs"(const Gen* g, Out* o) noexcept nogil:
    """Chain bombs window by window (Y = 3..6, lowest rank ascending; R2, R5). A window is
    possible only if it lacks ≤ wall cards to hold 4 of each rank, and every window contains a
    3-window: one SWAR test of the 3-windows (nibble a: the cards ranks a..a+2 lack) rejects
    most hands before the prefix sums are built."""
    cdef int r, y, a, i
    cdef int pre[13]
    cdef Fewest few
    cdef Fewest* f = NULL
    cdef uint64_t nat = g.hand & SK_SEQ_MASK
    cdef uint64_t lack = 4 * (SK_NIB1 & SK_SEQ_MASK) - (
        ranks_ge(nat, 1) + ranks_ge(nat, 2) + ranks_ge(nat, 3) + ranks_ge(nat, 4))
    if not lacks_at_most(lack + (lack >> 4) + (lack >> 8), g.wall):
        return
    pre[0] = 0
    for r in range(12):
        pre[r + 1] = pre[r] + nib(lack, r)
    if g.fewest:
        f = &few
        memset(few.score, 0, sizeof(few.score))
        few.n_used = 0
    for y in range(3, 7):
        for a in range(0, 13 - y):
            if pre[a + y] - pre[a] > g.wall:
                continue
            if out_done(o):
                return
            chain_window(g, o, f, a, y)
            if f != NULL:
                for i in range(few.n_used):
                    out_put(o, few.word[few.used[i]], few.tag[few.used[i]])
                    few.score[few.used[i]] = 0
                few.n_used = 0


cdef inline bint chain_window_possible(uint64_t hand, int wall) noexcept nogil:
    """A necessary condition for a chain bomb (R2), before the call and the SWAR window test
    of :func:`gen_chain_bombs`, which most hands fail: three consecutive ranks of 3..A each lacking at most ``wall``
    cards to hold 4, i.e. holding ≥ 4 − wall naturals (with ≥ 4 wilds any rank can)."""
    cdef uint64_t q
    if wall >= 4:
        return True
    q = ranks_holding(hand & SK_SEQ_MASK, 4 - wall)
    return (q & (q >> 4) & (q >> 8)) != 0


# -- the entry points -------------------------------------------------------------------------
cdef inline long long gen_all(uint64_t hand, uint32_t flags, uint32_t table, bint fewest,
                              uint64_t* words, uint32_t* tags, long long cap,
                              bint stop) noexcept nogil:
    """Run the generators for the plays of ``hand`` beating ``table``, in the order that defines
    the plays' order (docs/internals.md); store the first ``cap``, stop after them if ``stop``;
    return the plays found. The one place the generators run: ``Gen`` (what they read) and
    ``Out`` (the cursor they write) are filled here and passed to each generator."""
    cdef Gen g
    cdef Out o
    o.words = words
    o.tags = tags
    o.cap = cap
    o.stop = stop
    o.n = 0
    g.flags = o.flags = flags
    g.table = table
    g.fewest = o.fewest = fewest
    g.hand = hand
    g.ws = nib(hand, R_SJ) if flags & FLAG_WILD_SJ else 0
    g.wb = nib(hand, R_BJ) if flags & FLAG_WILD_BJ else 0
    g.wall = g.ws + g.wb
    if g.wall:
        o.jn = SK_JN[fewest != 0][g.ws][g.wb]  # ws, wb ≤ 2: valid words (R1)
        o.jw = SK_JW[fewest != 0][g.ws][g.wb]
    else:  # the one split of no wild (chain bombs of naturals read it), a constant row
        o.jn = SK_JN[0][0][0]
        o.jw = SK_JW[0][0][0]
    g.tkey = 0
    g.tkind = -1
    g.ttop = -1
    g.tsize = 0
    g.tlen = 0
    if table == NO_TABLE:
        g.mode = GEN_LEAD
    else:
        g.tkind = tag_kind(table)
        g.ttop = tag_top(table)
        g.tsize = tag_size(table)
        g.tlen = tag_length(table)
        if g.tkind >= K_BOMB:
            g.mode = GEN_BOMB
            g.tkey = bomb_key(table, flags)
        else:
            g.mode = GEN_PLAIN
    # jokers alone make singles, pairs, 三王 and 天王: against anything but a single or a pair
    # only three or four of them can play (and a hand without jokers has none)
    if hand >> SHIFT_SJ and (g.mode == GEN_LEAD or (g.mode == GEN_PLAIN and g.tkind <= K_PAIR)
                             or nib(hand, R_SJ) + nib(hand, R_BJ) >= 3):
        gen_jokers(&g, &o)
    if g.wall == 0 and g.mode != GEN_LEAD:
        gen_one_rank_answer(&g, &o)
    else:
        gen_one_rank(&g, &o)
    if not out_done(&o):
        if g.mode == GEN_LEAD:
            gen_sequences(&g, &o)
        elif g.mode == GEN_PLAIN and g.tkind >= K_STRAIGHT:
            if g.wall == 0:
                gen_seq_runs_answer(&g, &o)
            else:
                gen_seq_answers(&g, &o)
    if flags & FLAG_STARS:  # (tested first: classic answers compile as without the rest)
        if not out_done(&o) and chain_window_possible(hand, g.wall):
            gen_chain_bombs(&g, &o)
    return o.n


cdef int sk_generate(uint64_t hand, uint32_t flags, uint32_t table, bint fewest,
                     uint64_t* words, uint32_t* tags, int cap) noexcept nogil:
    """Write the plays of ``hand`` that beat ``table`` (NO_TABLE: every play) into
    ``words``/``tags`` (at most ``cap``); return how many there are in all."""
    return <int>gen_all(hand, flags, table, fewest, words, tags, cap, False)


cdef int sk_count(uint64_t hand, uint32_t flags, uint32_t table, bint fewest) noexcept nogil:
    """The number of plays :func:`sk_generate` would write, nothing stored (a set of w wild
    cards adds its number of joker splits at once)."""
    return <int>gen_all(hand, flags, table, fewest, NULL, NULL, 0, False)


cdef bint sk_nth(uint64_t hand, uint32_t flags, uint32_t table, bint fewest, int k,
                 uint64_t* words, uint32_t* tags) noexcept nogil:
    """Generate only plays 0..k of :func:`sk_generate`'s list into ``words``/``tags`` (room for
    k + 1), so play ``k`` is ``words[k]``/``tags[k]`` (random self-play: ``sk_count``, draw k,
    ``sk_nth``). False if k is out of range."""
    if k < 0:
        return False
    return gen_all(hand, flags, table, fewest, words, tags, <long long>k + 1, True) > k
