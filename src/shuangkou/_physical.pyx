# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Physical cards at C speed, for :class:`shuangkou.game.Game` (the State is rank-level only).

A hand of physical cards is a Python int with bit ``c`` set for each card id ``c`` it holds
(:mod:`shuangkou.cards`: id = deck*52 + rank*4 + suit for ranks 0..12, then the small jokers
104, 105 and the big jokers 106, 107). A play's ranks are a packed word (4 bits per rank,
ranks 0..14 with 13 = small joker, 14 = big joker).
"""

from cpython.long cimport PyLong_FromUnsignedLongLong
from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_INCREF
from libc.stdint cimport uint64_t

cdef object _M64 = 0xFFFFFFFFFFFFFFFF


cdef inline int _rank(int c) noexcept nogil:
    """The rank index of card id ``c`` (cards.CARD_RANKS)."""
    if c < 104:
        return (c % 52) // 4
    return 13 if c < 106 else 14


cdef inline int _bit(uint64_t lo, uint64_t hi, int c) noexcept nogil:
    if c < 64:
        return <int>((lo >> c) & 1)
    return <int>((hi >> (c - 64)) & 1)


cdef inline void _set(uint64_t* lo, uint64_t* hi, int c) noexcept nogil:
    if c < 64:
        lo[0] |= (<uint64_t>1) << c
    else:
        hi[0] |= (<uint64_t>1) << (c - 64)


cdef inline int _take(uint64_t packed, uint64_t lo, uint64_t hi,
                      uint64_t* tlo, uint64_t* thi) noexcept nogil:
    """The lowest held ids of each rank the play needs, into (tlo, thi); -1 if not held."""
    cdef int r, need, k, c
    cdef int ids[8]
    cdef int n
    tlo[0] = 0
    thi[0] = 0
    for r in range(15):
        need = <int>((packed >> (4 * r)) & 15)
        if not need:
            continue
        # the ids of rank r, lowest first
        if r < 13:
            n = 8
            for k in range(4):
                ids[k] = 4 * r + k
                ids[4 + k] = 52 + 4 * r + k
        else:
            n = 2
            ids[0] = 104 + 2 * (r - 13)
            ids[1] = ids[0] + 1
        for k in range(n):
            c = ids[k]
            if _bit(lo, hi, c):
                _set(tlo, thi, c)
                need -= 1
                if not need:
                    break
        if need:
            return -1
    return 0


def take_lowest(object packed, object mask):
    """The ids (as a mask) a play of ranks ``packed`` takes from the hand ``mask``: the lowest
    held ids of each needed rank; -1 if the hand does not hold them."""
    cdef uint64_t lo = mask & _M64
    cdef uint64_t hi = mask >> 64
    cdef uint64_t tlo, thi
    if _take(<uint64_t>packed, lo, hi, &tlo, &thi) < 0:
        return -1
    return _mask(tlo, thi)


cdef inline object _mask(uint64_t lo, uint64_t hi):
    if hi == 0:
        return PyLong_FromUnsignedLongLong(lo)
    return (PyLong_FromUnsignedLongLong(hi) << 64) | PyLong_FromUnsignedLongLong(lo)


def mask_of(object ids):
    """The mask of the card ids ``ids`` (ints 0..107: the caller checks them)."""
    cdef uint64_t lo = 0, hi = 0
    cdef int c
    for x in ids:
        c = x
        if not 0 <= c < 108:
            raise ValueError(f"card id {c} is out of range 0..107")
        _set(&lo, &hi, c)
    return _mask(lo, hi)


def ranks_of(object mask):
    """The packed rank word (4 bits a rank, R1 order) of the cards in ``mask``."""
    cdef uint64_t lo = mask & _M64
    cdef uint64_t hi = mask >> 64
    cdef uint64_t packed = 0
    cdef int c
    for c in range(108):
        if _bit(lo, hi, c):
            packed += (<uint64_t>1) << (4 * _rank(c))
    return packed


def ids_of(object mask):
    """The ids in ``mask``, ascending, as a tuple."""
    cdef uint64_t lo = mask & _M64
    cdef uint64_t hi = mask >> 64
    cdef int n = 0, c, i = 0
    cdef uint64_t x
    x = lo
    while x:
        x &= x - 1
        n += 1
    x = hi
    while x:
        x &= x - 1
        n += 1
    cdef tuple out = PyTuple_New(n)
    cdef object v
    for c in range(128):
        if _bit(lo, hi, c):
            v = c
            Py_INCREF(v)
            PyTuple_SET_ITEM(out, i, v)
            i += 1
            if i == n:
                break
    return out
