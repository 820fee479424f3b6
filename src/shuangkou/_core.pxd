# cython: language_level=3
"""``shuangkou.Play``: the C declaration, so that other extensions build plays without a Python
call (``setup.py`` puts ``src`` on the include path)::

    from shuangkou._core cimport Play, play_of, play_list

    p = play_of(word, tag, flags)                 # one play, a reading under the rules word
    plays = play_list(words, tags, n, flags)      # a list of n plays in one step
"""

from libc.stdint cimport uint32_t, uint64_t


cdef class Play:
    cdef readonly uint64_t packed   # the cards word
    cdef readonly uint32_t tag      # the reading tag (docs/internals.md)
    # 1 + the rules word under which the reading is known to hold (made by the kernel under
    # it, or checked once as a table); 0: not known. Not part of the value: a cache of R3's
    # check, so that a table that came from the kernel is not classified again.
    cdef uint32_t _under


cdef Play play_of(uint64_t packed, uint32_t tag, uint32_t under)
cdef list play_list(const uint64_t* words, const uint32_t* tags, Py_ssize_t n, uint32_t under)
cdef bint wilds_fewest(object wilds) except -1
