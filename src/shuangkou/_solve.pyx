# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The solver extension: hand decomposition (``_solve.pxd``) and, on top of the engine's C
state, the exact endgame search (docs/solver.md). :mod:`shuangkou.solve` is the Python API.
"""

from libc.stdint cimport int32_t, uint32_t, uint64_t

from _solve cimport (
    DECO_COUNT, DECO_KEEP_BOMBS, DECO_UNIT, Deco, deco_best, deco_cost, deco_free, deco_init,
    deco_plays,
)

DECO_SLOTS_LOG2 = 18
"""The Python-level memo: 2**18 entries (8 MiB), shared by every call (values depend only on
the hand, the rules word and the mode, so they stay valid across calls)."""
UNIT = DECO_UNIT


cdef Deco _memo_d   # lives as long as the module
if not deco_init(&_memo_d, DECO_SLOTS_LOG2):
    raise MemoryError()


cdef int _mode(bint keep_bombs) noexcept:
    return DECO_KEEP_BOMBS if keep_bombs else DECO_COUNT


def decompose_cost(uint64_t hand, uint32_t flags, bint keep_bombs) -> int:
    """Least split cost of ``hand`` (``UNIT`` per play; with ``keep_bombs`` a bomb costs
    ``UNIT`` − its card count)."""
    cdef int32_t c
    cdef int mode = _mode(keep_bombs)
    with nogil:
        c = deco_cost(&_memo_d, hand, flags, mode)
    if _memo_d.oom:
        raise MemoryError()
    return c


def decompose_costs(uint64_t hand, uint32_t flags, bint keep_bombs, words) -> list:
    """:func:`decompose_cost` of ``hand − w`` for each ``w`` in ``words`` (each ⊆ ``hand``)."""
    cdef int mode = _mode(keep_bombs)
    cdef list out = []
    cdef uint64_t w
    for x in words:
        w = x
        out.append(deco_cost(&_memo_d, hand - w, flags, mode))
        if _memo_d.oom:
            raise MemoryError()
    return out


def decompose_split(uint64_t hand, uint32_t flags, bint keep_bombs) -> tuple:
    """``(plays, cost, words, tags)``: the number of plays of an optimal split, its cost and
    the split itself (cards words and reading tags, in the order found)."""
    cdef int mode = _mode(keep_bombs)
    cdef int32_t cost = deco_cost(&_memo_d, hand, flags, mode)
    cdef uint64_t rest = hand, w
    cdef uint32_t t
    cdef list words = [], tags = []
    while rest and not _memo_d.oom:
        deco_best(&_memo_d, rest, flags, mode, &w, &t)
        words.append(w)
        tags.append(t)
        rest -= w
    if _memo_d.oom:
        raise MemoryError()
    return deco_plays(cost), cost, words, tags


def decompose_nodes() -> int:
    """Sub-hands solved by the Python-level memo so far (tests, benchmarks)."""
    return _memo_d.nodes
