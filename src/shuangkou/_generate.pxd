# cython: language_level=3
"""The play generators' C entry points (implemented in ``_generate.pyx``, docs/internals.md
"Plays"): other extensions ``from shuangkou._generate cimport sk_generate`` and call them
through the pointers this module exports, one indirect call a generation. Every play of
``hand`` that beats ``table`` (``NO_TABLE``: every play), in one fixed order; ``fewest`` keeps
per reading only the set with the fewest wilds (RULES.md R2–R5)."""

from libc.stdint cimport uint32_t, uint64_t


cdef int sk_generate(uint64_t hand, uint32_t flags, uint32_t table, bint fewest,
                     uint64_t* words, uint32_t* tags, int cap) noexcept nogil
cdef int sk_count(uint64_t hand, uint32_t flags, uint32_t table, bint fewest) noexcept nogil
cdef bint sk_nth(uint64_t hand, uint32_t flags, uint32_t table, bint fewest, int k,
                 uint64_t* words, uint32_t* tags) noexcept nogil
