# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The move-generation kernel (docs/internals.md is the contract; RULES.md R1–R5 the rules).

Python-visible functions check their arguments once (``ValueError`` on a malformed cards word,
rules word or tag), then call the GIL-free C-level kernel of the ``.pxd`` files:

* ``_packed.pxd``   – the packed cards word: nibble counts, ranks present, validation;
* ``_readings.pxd`` – tags, ``sk_classify``, bomb keys, ``sk_beats``;
* ``_generate.pxd`` – ``sk_generate``, the play generators.
"""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

cimport cython
cimport numpy as cnp

from _generate cimport sk_generate
from _packed cimport valid_word
cimport _readings as rd
from _readings cimport sk_beats, sk_classify, tag_kind, tag_size, tag_width

# The rules word and tag constants (docs/internals.md), as the kernel sees them.
FLAG_WILD_SJ = rd.FLAG_WILD_SJ
FLAG_WILD_BJ = rd.FLAG_WILD_BJ
FLAG_STARS = rd.FLAG_STARS
FLAG_UNEVEN = rd.FLAG_UNEVEN
FLAG_MORE_CARDS_BIGGER = rd.FLAG_MORE_CARDS_BIGGER
FLAG_FOUR_JOKERS_SMALLEST = rd.FLAG_FOUR_JOKERS_SMALLEST
NO_TABLE = rd.NO_TABLE

import numpy as np
from operator import index as _index

cnp.import_array()

cdef enum:
    _STACK_PLAYS = 2048


cdef inline object _int(object value):
    return value if type(value) is int else _index(value)


cdef uint64_t _cards_word(object value, str what) except? 1:
    """A validated packed cards word (R1: naturals ≤ 8, jokers ≤ 2)."""
    cdef uint64_t w
    value = _int(value)
    try:
        w = value
    except OverflowError:
        raise ValueError(f"{what} {value!r} is not a packed cards word (0 ≤ word < 2**60)")
    if not valid_word(w):
        raise ValueError(
            f"{what} {value:#x} is not a packed cards word: a count over 8 (naturals) or "
            f"over 2 (jokers), or bits above BJ"
        )
    return w


cdef uint32_t _flags_word(object value) except? 1:
    cdef uint64_t f
    value = _int(value)
    try:
        f = value
    except OverflowError:
        f = 1 << 40
    if f > rd.FLAGS_ALL:
        raise ValueError(f"flags {value!r}: unknown bits (valid: 0..{rd.FLAGS_ALL})")
    if (f & rd.FLAG_UNEVEN) and not (f & rd.FLAG_STARS):
        raise ValueError(f"flags {value!r}: uneven chain bombs need star bombs")
    return <uint32_t>f


cdef uint32_t _tag_word(object value, str what, bint allow_none) except? 1:
    cdef uint64_t t
    value = _int(value)
    try:
        t = value
    except OverflowError:
        t = 1 << 40
    if t >= (<uint64_t>1 << 31):
        raise ValueError(f"{what} {value!r} is not a reading tag (0 ≤ tag < 2**31)")
    if t == 0:
        if not allow_none:
            raise ValueError(f"{what} is 0 (no play)")
        return 0
    if tag_kind(t) > rd.K_CHAIN_BOMB or tag_width(t) == 0 or tag_size(t) == 0:
        raise ValueError(f"{what} {value:#x} is not a reading tag (kind, width or size)")
    return <uint32_t>t


cdef int _generate_buffered(uint64_t h, uint32_t f, uint32_t t, bint few, uint64_t* sw,
                            uint32_t* st, uint64_t** pw, uint32_t** pt) except -1:
    """Generate into the caller's stack buffers ``sw``/``st`` (``_STACK_PLAYS`` long) or, for
    more plays, into heap buffers; ``*pw``/``*pt`` point at whichever holds them (the caller
    frees them when they are not ``sw``/``st``). Returns the number of plays."""
    cdef int n
    pw[0] = sw
    pt[0] = st
    with nogil:
        n = sk_generate(h, f, t, few, sw, st, _STACK_PLAYS)
    if n > _STACK_PLAYS:
        pw[0] = <uint64_t*>malloc(n * sizeof(uint64_t))
        pt[0] = <uint32_t*>malloc(n * sizeof(uint32_t))
        if pw[0] == NULL or pt[0] == NULL:
            free(pw[0])
            free(pt[0])
            raise MemoryError()
        with nogil:
            sk_generate(h, f, t, few, pw[0], pt[0], n)
    return n


def classify(cards, flags):
    """Readings (tags) of the card set ``cards``, sorted by kind (R3); [] if no valid play."""
    cdef uint64_t c = _cards_word(cards, "cards")
    cdef uint32_t f = _flags_word(flags)
    cdef uint32_t out[4]
    cdef int n = sk_classify(c, f, out)
    return [out[i] for i in range(n)]


def generate(hand, flags, table, fewest):
    """Every play of ``hand`` beating ``table`` (0 = leading): ``(words, tags)``, two lists."""
    cdef uint64_t h = _cards_word(hand, "hand")
    cdef uint32_t f = _flags_word(flags)
    cdef uint32_t t = _tag_word(table, "table", True)
    cdef bint few = bool(fewest)
    cdef uint64_t sw[_STACK_PLAYS]
    cdef uint32_t st[_STACK_PLAYS]
    cdef uint64_t* pw
    cdef uint32_t* pt
    cdef int n = _generate_buffered(h, f, t, few, sw, st, &pw, &pt)
    try:
        return [pw[i] for i in range(n)], [pt[i] for i in range(n)]
    finally:
        if pw != sw:
            free(pw)
            free(pt)


def count(hand, flags, table, fewest):
    """The number of plays :func:`generate` would return."""
    cdef uint64_t h = _cards_word(hand, "hand")
    cdef uint32_t f = _flags_word(flags)
    cdef uint32_t t = _tag_word(table, "table", True)
    cdef bint few = bool(fewest)
    cdef int n
    with nogil:
        n = sk_generate(h, f, t, few, NULL, NULL, 0)
    return n


def beats(tag, table, flags):
    """R4/R5: may the play ``tag`` be played on ``table`` (0 = a free lead)?"""
    cdef uint32_t a = _tag_word(tag, "tag", False)
    cdef uint32_t b = _tag_word(table, "table", True)
    cdef uint32_t f = _flags_word(flags)
    return bool(sk_beats(a, b, f))


def generate_into(hand, flags, table, fewest, words, tags):
    """Write the plays into ``words``/``tags`` (uint64 / uint32 buffers, at most the shorter
    length); return how many there are in all. No Python object per play: the benchmark and
    batch entry point."""
    cdef uint64_t h = _cards_word(hand, "hand")
    cdef uint32_t f = _flags_word(flags)
    cdef uint32_t t = _tag_word(table, "table", True)
    cdef bint few = bool(fewest)
    cdef uint64_t* pw
    cdef uint32_t* pt
    cdef Py_ssize_t cap
    cdef uint64_t[::1] mw
    cdef uint32_t[::1] mt
    cdef int n
    if (type(words) is cnp.ndarray and type(tags) is cnp.ndarray
            and _writable_c(<cnp.ndarray>words, cnp.NPY_UINT64)
            and _writable_c(<cnp.ndarray>tags, cnp.NPY_UINT32)):
        # fast path: numpy arrays, no memoryview acquisition (~1 µs per call)
        pw = <uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>words)
        pt = <uint32_t*>cnp.PyArray_DATA(<cnp.ndarray>tags)
        cap = min(cnp.PyArray_SIZE(<cnp.ndarray>words), cnp.PyArray_SIZE(<cnp.ndarray>tags))
    else:
        mw = words
        mt = tags
        cap = min(mw.shape[0], mt.shape[0])
        pw = &mw[0] if mw.shape[0] else NULL
        pt = &mt[0] if mt.shape[0] else NULL
    if cap > 0x7FFFFFFF:
        cap = 0x7FFFFFFF
    with nogil:
        n = sk_generate(h, f, t, few, pw, pt, <int>cap)
    return n


cdef inline bint _writable_c(cnp.ndarray a, int typenum) noexcept:
    return (cnp.PyArray_TYPE(a) == typenum and cnp.PyArray_NDIM(a) == 1
            and cnp.PyArray_ISCARRAY(a))


cdef int _check_batch(const uint64_t[::1] hands, const uint32_t[::1] tables) except -1:
    """Validate a batch once: every hand a packed cards word, every table 0 or a reading tag."""
    cdef Py_ssize_t i
    if tables.shape[0] != hands.shape[0]:
        raise ValueError(f"{tables.shape[0]} tables for {hands.shape[0]} hands")
    for i in range(hands.shape[0]):
        if not valid_word(hands[i]):
            raise ValueError(f"hands[{i}] = {hands[i]:#x} is not a packed cards word")
        if tables[i] != 0:
            _tag_word(tables[i], f"tables[{i}]", True)
    return 0


def _private_batch(hands, tables):
    """Private copies of a batch's hands and tables, validated (every hand a packed cards word,
    every table 0 or a reading tag). The GIL-free loops read only these copies: another thread
    writing the caller's arrays meanwhile cannot slip an unvalidated word into the kernel."""
    h = np.array(hands, dtype=np.uint64, copy=True)
    t = np.array(tables, dtype=np.uint32, copy=True)
    _check_batch(h, t)
    return h, t


def count_many(const uint64_t[::1] hands, flags, const uint32_t[::1] tables, fewest):
    """``count(hands[i], flags, tables[i], fewest)`` for every hand (int64 array), GIL released."""
    cdef uint32_t f = _flags_word(flags)
    cdef bint few = bool(fewest)
    hands_c, tables_c = _private_batch(hands, tables)
    cdef const uint64_t[::1] hs = hands_c
    cdef const uint32_t[::1] ts = tables_c
    cdef Py_ssize_t i, n = hs.shape[0]
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] o = out
    with nogil:
        for i in range(n):
            o[i] = sk_generate(hs[i], f, ts[i], few, NULL, NULL, 0)
    return out


def generate_batch(const uint64_t[::1] hands, flags, const uint32_t[::1] tables, fewest):
    """Every play of each hand beating its table, concatenated: ``(offsets, words, tags)`` with
    hand ``i``'s plays at ``offsets[i]:offsets[i+1]``. Two GIL-free passes (count, then fill)."""
    cdef uint32_t f = _flags_word(flags)
    cdef bint few = bool(fewest)
    hands_c, tables_c = _private_batch(hands, tables)
    cdef const uint64_t[::1] hs = hands_c
    cdef const uint32_t[::1] ts = tables_c
    cdef Py_ssize_t i, n = hs.shape[0]
    offsets = np.zeros(n + 1, dtype=np.int64)
    cdef int64_t[::1] off = offsets
    with nogil:
        for i in range(n):
            off[i + 1] = off[i] + sk_generate(hs[i], f, ts[i], few, NULL, NULL, 0)
    total = int(offsets[n])
    words = np.empty(total, dtype=np.uint64)
    tags = np.empty(total, dtype=np.uint32)
    cdef uint64_t[::1] w = words
    cdef uint32_t[::1] t = tags
    cdef uint64_t* wp = &w[0] if total else NULL
    cdef uint32_t* tp = &t[0] if total else NULL
    with nogil:
        for i in range(n):
            if off[i + 1] > off[i]:
                sk_generate(hs[i], f, ts[i], few, wp + off[i], tp + off[i],
                            <int>(off[i + 1] - off[i]))
    return offsets, words, tags


def generate_many(const uint64_t[::1] hands, flags, table, fewest, uint64_t[::1] words,
                  uint32_t[::1] tags):
    """Generate the plays of every hand into the same buffers (each overwrites the last) and
    return the total number of plays, GIL released: the kernel's own speed, for benchmarks."""
    cdef uint32_t f = _flags_word(flags)
    cdef uint32_t t = _tag_word(table, "table", True)
    cdef bint few = bool(fewest)
    cdef Py_ssize_t i, n = hands.shape[0]
    cdef Py_ssize_t cap = min(words.shape[0], tags.shape[0])
    cdef int64_t total = 0
    cdef uint64_t* pw = &words[0] if cap else NULL
    cdef uint32_t* pt = &tags[0] if cap else NULL
    if cap > 0x7FFFFFFF:
        cap = 0x7FFFFFFF
    for i in range(n):
        if not valid_word(hands[i]):
            raise ValueError(f"hands[{i}] = {hands[i]:#x} is not a packed cards word")
    with nogil:
        for i in range(n):
            total += sk_generate(hands[i], f, t, few, pw, pt, <int>cap)
    return total


# -- plays as Python objects ------------------------------------------------------------------
@cython.freelist(512)
@cython.auto_pickle(False)  # Play pickles itself (__reduce__)
cdef class PlayCodes:
    """Base of :class:`shuangkou.plays.Play`: the packed cards word and the reading tag.

    It lives in the kernel so :func:`generate_plays` can build a play in a few tens of ns
    (two C fields, no attribute dictionary); ``Play`` adds the readable API on top."""

    cdef readonly uint64_t packed
    cdef readonly uint32_t tag


def new_play(type cls, uint64_t packed, uint32_t tag):
    """A ``cls`` (subclass of :class:`PlayCodes`) holding ``packed`` and ``tag``, unchecked."""
    cdef PlayCodes p = PlayCodes.__new__(cls)
    p.packed = packed
    p.tag = tag
    return p


def generate_plays(hand, flags, table, fewest, type cls):
    """:func:`generate`, as a list of ``cls`` objects (``shuangkou.plays.Play``)."""
    cdef uint64_t h = _cards_word(hand, "hand")
    cdef uint32_t f = _flags_word(flags)
    cdef uint32_t t = _tag_word(table, "table", True)
    cdef bint few = bool(fewest)
    if not issubclass(cls, PlayCodes):
        raise TypeError(f"{cls!r} is not a subclass of PlayCodes")
    cdef uint64_t sw[_STACK_PLAYS]
    cdef uint32_t st[_STACK_PLAYS]
    cdef uint64_t* pw
    cdef uint32_t* pt
    cdef int i
    cdef int n = _generate_buffered(h, f, t, few, sw, st, &pw, &pt)
    cdef PlayCodes p
    try:
        out = [None] * n
        for i in range(n):
            p = PlayCodes.__new__(cls)
            p.packed = pw[i]
            p.tag = pt[i]
            out[i] = p
        return out
    finally:
        if pw != sw:
            free(pw)
            free(pt)
