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
    cdef uint64_t* _lw          # legal plays of the position (a cache; see _legal_n)
    cdef uint32_t* _lt
    cdef int _lcap
    cdef int _ln                # plays in the cache
    cdef bint _lfewest          # the cache's wilds mode
    cdef uint64_t _serial       # this position's serial: a new one after every action
    cdef uint64_t _lserial      # the serial of the position the cache holds (0: none)
    cdef object _result         # the Result, built once the deal is over

    cdef void _set_rules(self, object rules) except *
    cdef int _ensure_legal(self, bint fewest) except -1
    cdef int _push_undo(self) except -1
    cdef void _moved(self) noexcept
    cdef str _why_illegal(self, object p)
