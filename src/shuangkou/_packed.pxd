# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Packed rank multisets: the cards word of docs/internals.md ("Packed cards").

A rank multiset is one ``uint64_t``: 4 bits of count per rank, rank ``r`` (R1 index: 3=0 … 2=12,
SJ=13, BJ=14) at bits ``4r..4r+3``. Naturals count ≤ 8 (R1: two decks), jokers ≤ 2. Everything
here is a few shifts and masks on that word (SWAR: the 16 nibbles are 16 little counters).
"""

from libc.stdint cimport uint64_t

cdef extern from *:
    """
    #define SK_NAT_MASK  0x000FFFFFFFFFFFFFULL  /* the 13 natural ranks 3..2 (R1) */
    #define SK_SEQ_MASK  0x0000FFFFFFFFFFFFULL  /* ranks 3..A: sequences, chain bombs (R2) */
    #define SK_NIB1      0x1111111111111111ULL  /* a 1 in every nibble */
    #define SK_BYTE_LO   0x0F0F0F0F0F0F0F0FULL  /* the low nibble of every byte */
    #define SK_BYTE1     0x0101010101010101ULL
    #if defined(__GNUC__) || defined(__clang__)
    #define SK_CTZ64(x) __builtin_ctzll(x)
    #define SK_CLZ64(x) __builtin_clzll(x)
    #elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_ARM64))
    #include <intrin.h>
    static __inline int SK_CTZ64(unsigned __int64 x) {
        unsigned long i; _BitScanForward64(&i, x); return (int)i; }
    static __inline int SK_CLZ64(unsigned __int64 x) {
        unsigned long i; _BitScanReverse64(&i, x); return 63 - (int)i; }
    #else
    static int SK_CTZ64(unsigned long long x) { int i = 0; while (!(x & 1)) { x >>= 1; i++; } return i; }
    static int SK_CLZ64(unsigned long long x) { int i = 0; while (!(x >> 63)) { x <<= 1; i++; } return i; }
    #endif
    """
    const uint64_t SK_NAT_MASK
    const uint64_t SK_SEQ_MASK
    const uint64_t SK_NIB1
    const uint64_t SK_BYTE_LO
    const uint64_t SK_BYTE1
    int SK_CTZ64(uint64_t x) noexcept nogil
    int SK_CLZ64(uint64_t x) noexcept nogil

cdef enum:
    R_ACE = 11      # highest rank of a sequence (R2)
    R_TWO = 12
    R_SJ = 13
    R_BJ = 14
    SHIFT_SJ = 52   # 4 * R_SJ
    SHIFT_BJ = 56   # 4 * R_BJ


cdef inline int nib(uint64_t word, int r) noexcept nogil:
    """Count of rank ``r``."""
    return <int>((word >> (4 * r)) & 15)


cdef inline uint64_t unit(int r) noexcept nogil:
    """One card of rank ``r``."""
    return (<uint64_t>1) << (4 * r)


cdef inline int nib_sum(uint64_t x) noexcept nogil:
    """Number of cards: the sum of the 16 nibbles (spread to byte lanes, then one multiply)."""
    cdef uint64_t s = (x & SK_BYTE_LO) + ((x >> 4) & SK_BYTE_LO)
    return <int>((s * SK_BYTE1) >> 56)


cdef inline int n_ranks(uint64_t x) noexcept nogil:
    """Number of distinct ranks present (non-zero nibbles)."""
    return nib_sum((x | (x >> 1) | (x >> 2) | (x >> 3)) & SK_NIB1)


cdef inline int low_rank(uint64_t x) noexcept nogil:
    """Lowest rank present (``x`` non-zero)."""
    return SK_CTZ64(x) >> 2


cdef inline int high_rank(uint64_t x) noexcept nogil:
    """Highest rank present (``x`` non-zero)."""
    return (63 - SK_CLZ64(x)) >> 2


cdef inline uint64_t ranks_ge(uint64_t nat, int k) noexcept nogil:
    """A 1 in the low bit of the nibble of every natural rank holding at least ``k`` (1..8)
    cards: adding 8 − k to a count ≤ 8 (R1) never carries out of its nibble and sets bit 3
    exactly when the count is ≥ k."""
    return ((nat + <uint64_t>(8 - k) * SK_NIB1) >> 3) & SK_NIB1 & SK_NAT_MASK


cdef inline uint64_t run_tops(uint64_t full, int length) noexcept nogil:
    """The ranks of ``full`` (a 1 in the low bit of a nibble per rank) whose ``length`` − 1
    ranks below are in ``full`` too: the tops of its runs of ``length`` consecutive ranks."""
    cdef uint64_t tops = full
    cdef int i
    for i in range(1, length):
        tops &= full << (4 * i)
    return tops


cdef inline bint valid_word(uint64_t word) noexcept nogil:
    """A well-formed cards word: naturals ≤ 8, jokers ≤ 2, nothing above BJ (R1). A nibble is
    over 8 when bit 3 and one of bits 0–2 are set; a joker nibble over 2 has bit 2 or 3, or
    bits 0 and 1."""
    cdef uint64_t over8 = (word >> 3) & (word | (word >> 1) | (word >> 2)) & SK_NIB1
    cdef uint64_t j = word >> SHIFT_SJ
    return (word >> 60) == 0 and (over8 & SK_NAT_MASK) == 0 and (
        (j & 0xCC) == 0 and (j & (j >> 1) & 0x11) == 0)
