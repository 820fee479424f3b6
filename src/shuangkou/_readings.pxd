# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Readings: the 31-bit tag, classification of a card set (R2, R3), bomb keys and ``beats``
(R4, R5). The contract is docs/internals.md.

C-level entry points for other kernel files (e.g. self-play):

* ``sk_classify(cards, flags, tags_out)`` – the readings of one card set, 0..2 tags.
* ``sk_beats(tag, table, flags)`` – R4/R5 comparison of two readings.
* ``bomb_key(tag, flags)`` – a uint32 that orders bombs as R5 does (bigger key, bigger bomb).
"""

from libc.stdint cimport uint32_t, uint64_t

from _packed cimport (
    R_ACE, R_BJ, R_SJ, SK_CLZ64, SK_NAT_MASK, SK_SEQ_MASK, high_rank, low_rank, nib, nib_sum,
)

cdef enum:
    # the rules word (docs/internals.md; rules.py holds the same values)
    FLAG_WILD_SJ = 1
    FLAG_WILD_BJ = 2
    FLAG_STARS = 4
    FLAG_UNEVEN = 8
    FLAG_MORE_CARDS_BIGGER = 16
    FLAG_FOUR_JOKERS_SMALLEST = 32
    FLAGS_ALL = 63
    # kinds (tag bits 0-3)
    K_SINGLE = 0
    K_PAIR = 1
    K_TRIPLE = 2
    K_STRAIGHT = 3
    K_PAIR_CHAIN = 4
    K_TRIPLE_CHAIN = 5
    K_BOMB = 6
    K_THREE_JOKERS = 7
    K_FOUR_JOKERS = 8
    K_CHAIN_BOMB = 9
    NO_TABLE = 0


# -- the tag --------------------------------------------------------------------------------
cdef inline uint32_t make_tag(int kind, int top, int width, int length, int stars, int size,
                              int wilds) noexcept nogil:
    return <uint32_t>(kind | top << 4 | width << 8 | length << 13 | stars << 17 | size << 22
                      | wilds << 28)

cdef inline int tag_kind(uint32_t t) noexcept nogil:
    return <int>(t & 15)

cdef inline int tag_top(uint32_t t) noexcept nogil:
    return <int>((t >> 4) & 15)

cdef inline int tag_width(uint32_t t) noexcept nogil:
    return <int>((t >> 8) & 31)

cdef inline int tag_length(uint32_t t) noexcept nogil:
    return <int>((t >> 13) & 15)

cdef inline int tag_stars(uint32_t t) noexcept nogil:
    return <int>((t >> 17) & 31)

cdef inline int tag_size(uint32_t t) noexcept nogil:
    return <int>((t >> 22) & 63)

cdef inline int tag_wilds(uint32_t t) noexcept nogil:
    return <int>((t >> 28) & 7)


# -- comparison (R4, R5) --------------------------------------------------------------------
cdef inline uint32_t bomb_key(uint32_t tag, uint32_t flags) noexcept nogil:
    """Order key of a bomb reading: a bigger key is a bigger bomb (R5).

    Classic: 天王 above everything, then more cards, then higher top. Star order: stars first;
    within one star level 三王 at the bottom of 6★, 天王 at the top of 7★ (bottom with
    FLAG_FOUR_JOKERS_SMALLEST); the others by card count (fewer bigger, or more bigger with
    FLAG_MORE_CARDS_BIGGER), then top."""
    cdef int kind = tag_kind(tag), size = tag_size(tag), sub
    if not (flags & FLAG_STARS):
        if kind == K_FOUR_JOKERS:
            return 1u << 20
        return <uint32_t>(size << 4 | tag_top(tag))
    if kind == K_THREE_JOKERS:
        sub = 0
    elif kind == K_FOUR_JOKERS:
        sub = 0 if flags & FLAG_FOUR_JOKERS_SMALLEST else 0x7FF
    else:
        if not (flags & FLAG_MORE_CARDS_BIGGER):
            size = 63 - size
        sub = 1 + (size << 4 | tag_top(tag))
    return <uint32_t>(tag_stars(tag) << 11 | sub)


cdef inline bint sk_beats(uint32_t tag, uint32_t table, uint32_t flags) noexcept nogil:
    """R4: may ``tag`` be played on ``table``? Anything beats NO_TABLE (a free lead); no play
    (tag 0) beats nothing. Plain vs plain: same kind, same size, higher top. Any bomb beats
    any plain play; bomb vs bomb by :func:`bomb_key` (R5). Equal never beats."""
    cdef int ka, kb
    if table == NO_TABLE:
        return tag != NO_TABLE
    if tag == NO_TABLE:
        return False
    ka = tag_kind(tag)
    kb = tag_kind(table)
    if ka >= K_BOMB:
        return kb < K_BOMB or bomb_key(tag, flags) > bomb_key(table, flags)
    if kb >= K_BOMB:
        return False
    return ka == kb and tag_size(tag) == tag_size(table) and tag_top(tag) > tag_top(table)


# -- readings (R2, R3) ----------------------------------------------------------------------
cdef inline uint32_t jokers_tag(int sj, int bj, uint32_t flags) noexcept nogil:
    """A set made only of jokers is read naturally (R3): one joker a single, SJ SJ / BJ BJ
    pairs, SJ + BJ a pair of SJ when BJ is wild (else no play), any three 三王 (only with
    stars, R2/R6), all four 天王 (every preset). 0 = no valid play."""
    cdef int n = sj + bj
    if n == 1:
        return make_tag(K_SINGLE, R_SJ if sj else R_BJ, 1, 1, 0, 1, 0)
    if n == 2:
        if sj == 2:
            return make_tag(K_PAIR, R_SJ, 2, 1, 0, 2, 0)
        if bj == 2:
            return make_tag(K_PAIR, R_BJ, 2, 1, 0, 2, 0)
        if flags & FLAG_WILD_BJ:
            return make_tag(K_PAIR, R_SJ, 2, 1, 0, 2, 1)  # the BJ stands for a SJ
        return 0
    if n == 3:
        if flags & FLAG_STARS:
            return make_tag(K_THREE_JOKERS, R_BJ, 3, 1, 6, 3, 0)
        return 0
    if n == 4:
        return make_tag(K_FOUR_JOKERS, R_BJ, 4, 1, 7 if flags & FLAG_STARS else 0, 4, 0)
    return 0


cdef extern from *:
    """
    /* The chain-bomb figures of a run of ranks, one uint64 (chain_shape, and the generator's
       odometer keeps them running): bytes 0-3 ranks holding <= 4, 5, 6, 7 naturals; bits
       32-39 the sum of max(c, 4); bits 40-47 the wilds lacking for groups of 4; bits 48-56
       one bit per count present. SK_CHAIN_STEP[c]: what one rank holding c naturals adds to
       the first three fields. */
    static const unsigned long long SK_CHAIN_STEP[9] = {
        0x0000040401010101ULL, 0x0000030401010101ULL, 0x0000020401010101ULL,
        0x0000010401010101ULL, 0x0000000401010101ULL, 0x0000000501010100ULL,
        0x0000000601010000ULL, 0x0000000701000000ULL, 0x0000000800000000ULL};
    """
    const uint64_t SK_CHAIN_STEP[9]


cdef inline uint64_t chain_step(uint64_t fig, int c) noexcept nogil:
    """The figures ``fig`` of a run of ranks extended by one rank holding ``c`` naturals."""
    return (fig + SK_CHAIN_STEP[c]) | (<uint64_t>1 << (48 + c))


ctypedef struct ChainShape:
    # what the chain-bomb readings of a set depend on besides its size (R5)
    int lo          # lowest natural rank
    int span        # ranks lo..highest natural
    int maxc        # largest natural count
    int g4          # Σ max(c_r, 4) over lo..hi
    uint32_t le     # byte x − 4 (x = 4..7): ranks of lo..hi holding at most x naturals


cdef inline void chain_shape_of(ChainShape* s, uint64_t fig, int lo, int span,
                                int empty) noexcept nogil:
    """``s`` from the figures ``fig`` (``SK_CHAIN_STEP``) of a run of ranks that holds the
    naturals lo..lo+span−1 and ``empty`` ranks without any (they count in every field but
    the largest count; ranks ≤ 4 and ≤ x are bytes, so taking ``empty`` from each never
    borrows)."""
    s.lo = lo
    s.span = span
    s.maxc = (63 - SK_CLZ64(fig)) - 48
    s.g4 = <int>((fig >> 32) & 255) - 4 * empty
    s.le = <uint32_t>fig - <uint32_t>empty * 0x01010101u


cdef inline bint chain_shape(uint64_t nat, ChainShape* s) noexcept nogil:
    """Fill ``s`` for the naturals ``nat`` (non-zero); False if no chain-bomb reading can hold
    them (a 2, or more than 6 ranks: R2)."""
    cdef int r, c, lo, hi
    cdef uint64_t fig = 0
    if nat & ~SK_SEQ_MASK:
        return False
    lo = low_rank(nat)
    hi = high_rank(nat)
    if hi - lo + 1 > 6:
        return False
    for r in range(lo, hi + 1):
        c = nib(nat, r)
        fig = chain_step(fig, c)
    chain_shape_of(s, fig, lo, hi - lo + 1, 0)
    return True


cdef inline int chain_x(const ChainShape* s, int y, int n, uint32_t flags) noexcept nogil:
    """X, the smallest group, of the chain-bomb reading of ``y`` groups (span ≤ y, 4y ≤ n) of
    a set of ``n`` cards whose naturals have the shape ``s``; 0 if there is none. Equal
    groups (百变/JJ) make X = n / y, every natural group ≤ X; uneven groups (千变) place the
    wilds freely, so X is the largest value with Σ max(c_r, X) ≤ n over the y ranks (the
    ranks outside the span count X each): n // y when no natural group exceeds it, else grown
    from 4 with ``le``."""
    cdef int x, f, empty
    if y * s.maxc <= n:
        # every group can reach n // y (≥ 4): uneven groups take it, equal ones need y | n
        if flags & FLAG_UNEVEN or n % y == 0:
            return n // y
        return 0
    if not (flags & FLAG_UNEVEN):
        return 0
    # some natural group exceeds X: X < maxc ≤ 8, found by growing x from 4
    empty = y - s.span
    f = s.g4 + 4 * empty  # Σ max(c_r, 4) over the window
    if f > n:
        return 0
    x = 4
    while True:  # Σ max(c_r, x + 1) − Σ max(c_r, x) = ranks holding ≤ x
        f += <int>((s.le >> (8 * (x - 4))) & 255) + empty
        if f > n:
            return x
        x += 1


cdef inline uint32_t chain_tag(int x, int y, int top, int n, int wilds) noexcept nogil:
    """The chain-bomb reading of ``y`` groups of at least ``x`` (X相Y连, (X + Y)★, R2, R5)."""
    return make_tag(K_CHAIN_BOMB, top, x, y, x + y, n, wilds)


cdef inline uint32_t chain_best(const ChainShape* s, int n, int wilds, uint32_t flags) noexcept nogil:
    """The biggest chain-bomb reading of a set of ``n`` cards (``wilds`` wild) whose naturals
    have the shape ``s``; 0 if none. Flags must have FLAG_STARS.

    Y runs over 3..6 (at least the span, 4Y ≤ n), X is :func:`chain_x`. For each Y the
    window with the highest top weighs most: top = min(A, lo + Y − 1). Best: most stars
    (X + Y), then highest top, then larger X (R3.4: tied splits are one play reported with
    the larger X)."""
    cdef int y, x, top, key, best = 0
    y = s.span if s.span > 3 else 3
    while y <= 6 and 4 * y <= n:
        x = chain_x(s, y, n, flags)
        if x:
            top = s.lo + y - 1 if s.lo + y - 1 < R_ACE else R_ACE
            key = (x + y) << 8 | top << 4 | x
            if key > best:
                best = key
        y += 1
    if best == 0:
        return 0
    x = best & 15
    return chain_tag(x, (best >> 8) - x, (best >> 4) & 15, n, wilds)


cdef inline uint32_t chain_bomb_tag(uint64_t nat, int n, int wilds, uint32_t flags) noexcept nogil:
    """The biggest chain-bomb reading (R2, R3.1, R5; :func:`chain_best`) of a set with
    naturals ``nat`` (non-zero), ``n`` cards of which ``wilds`` wild; 0 if it has none.
    Chain bombs need stars, 3 ≤ Y ≤ 6 ranks within 3..A, groups ≥ 4."""
    cdef ChainShape s
    if not (flags & FLAG_STARS) or n < 12 or not chain_shape(nat, &s):
        return 0
    return chain_best(&s, n, wilds, flags)


cdef inline int max_nibble(uint64_t nat, int lo, int hi) noexcept nogil:
    cdef int r, c, m = 0
    for r in range(lo, hi + 1):
        c = nib(nat, r)
        if c > m:
            m = c
    return m


cdef inline int sk_classify(uint64_t cards, uint32_t flags, uint32_t* tags_out) noexcept nogil:
    """Every reading of the card set ``cards`` (R3), sorted by kind; returns how many (0..2).

    * jokers only: read naturally (:func:`jokers_tag`);
    * a joker that is not wild cannot join natural cards (classic ``BJ 3`` ✗, R9.7);
    * one natural rank: single / pair / triple / X相 bomb by size (wilds stand for that rank);
    * several natural ranks: a chain bomb if any reading is one (R3.1: bombs win), else each
      plain sequence kind that fits at its highest top (R3.2), two only with ≥ 3 wilds (R3.3).
    """
    cdef uint64_t nat = cards & SK_NAT_MASK
    cdef int sj = nib(cards, R_SJ), bj = nib(cards, R_BJ)
    cdef int wilds, n, lo, hi, top, width, length, k = 0, mx
    cdef uint32_t t
    if cards == 0:
        return 0
    if nat == 0:
        t = jokers_tag(sj, bj, flags)
        if t:
            tags_out[0] = t
            return 1
        return 0
    if (sj and not (flags & FLAG_WILD_SJ)) or (bj and not (flags & FLAG_WILD_BJ)):
        return 0
    wilds = sj + bj
    n = nib_sum(nat) + wilds
    lo = low_rank(nat)
    hi = high_rank(nat)
    if lo == hi:
        if n <= 3:
            tags_out[0] = make_tag(n - 1, lo, n, 1, 0, n, wilds)
        else:
            tags_out[0] = make_tag(K_BOMB, lo, n, 1, n if flags & FLAG_STARS else 0, n, wilds)
        return 1
    if hi > R_ACE:
        return 0  # a 2 with other ranks is no play (R2: sequences use 3..A)
    t = chain_bomb_tag(nat, n, wilds, flags)
    if t:
        tags_out[0] = t
        return 1
    mx = max_nibble(nat, lo, hi)
    for width in range(1, 4):
        if mx > width or n % width:
            continue
        length = n // width
        if length < (5 if width == 1 else 3) or length > 12 or hi - lo + 1 > length:
            continue
        top = lo + length - 1
        if top > R_ACE:
            top = R_ACE
        tags_out[k] = make_tag(K_STRAIGHT + width - 1, top, width, length, 0, n, wilds)
        k += 1
    return k
