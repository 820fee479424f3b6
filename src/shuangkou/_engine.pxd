# cython: language_level=3
"""``shuangkou.State``: the C declaration, so that other extensions reach the struct directly.

In another extension of this package (``setup.py`` puts ``src`` and ``src/shuangkou`` on the
include path)::

    from shuangkou._engine cimport State
    from _state cimport SkState, sk_legal, sk_play

    cdef State s = state        # a shuangkou.State from Python
    cdef SkState work = s.st    # a struct copy: search on it without any Python call
"""

from libc.stdint cimport uint32_t, uint64_t

from _state cimport SkParams, SkState, SkUndo


cdef enum:
    LEGAL_SLOTS = 16


cdef struct _Legal:
    uint64_t* words
    uint32_t* tags
    int cap
    int n
    bint fewest
    bint own                    # words and tags allocated apart (grown), not in the arena
    uint64_t serial             # the position it lists (0: none)


cdef struct _Undo:
    SkUndo core                 # the position before the action
    uint64_t serial             # its serial (the legal-plays cache is keyed by it)


cdef class State:
    cdef SkState st             # the position (docs/internals.md "The game state")
    cdef SkParams p             # the rules as the engine reads them
    cdef object _rules          # the shuangkou.Rules
    cdef _Undo* _undo           # one record per action, for undo()
    cdef int _n_undo
    cdef int _cap_undo
    # Legal plays of recent positions: one cache slot per undo depth (modulo LEGAL_SLOTS), so a
    # search that plays, recurses and undoes finds its list again. A slot is valid for the
    # position whose serial it holds; every action gives the position a new serial, undo the
    # old one back.
    cdef _Legal* _slots         # LEGAL_SLOTS of them, allocated on the first legal()
    cdef void* _arena           # their first buffers, one allocation (_MIN_LEGAL_CAP plays each)
    cdef uint64_t _serial
    cdef uint64_t* _lw          # the current position's list (after _ensure_legal)
    cdef uint32_t* _lt
    cdef int _ln
    cdef object _result         # the Result, built once the deal is over

    cdef void _set_rules(self, object rules) except *
    cdef int _ensure_legal(self, bint fewest) except -1
    cdef int _push_undo(self) except -1
    cdef void _moved(self) noexcept
    cdef str _why_illegal(self, object p)
