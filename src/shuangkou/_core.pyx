# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The move-generation kernel (docs/internals.md is the contract; RULES.md R1–R5 the rules).

Python-visible functions check their arguments once (``ValueError`` on a malformed cards word,
rules word or tag), then call the GIL-free C-level kernel of the ``.pxd`` files:

* ``_packed.pxd``   – the packed cards word: nibble counts, ranks present, validation;
* ``_readings.pxd`` – tags, ``sk_classify``, bomb keys, ``sk_beats``;
* ``_generate.pyx`` – ``sk_generate``, the play generators (own module; ``_generate.pxd``).
"""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

cimport cython
cimport numpy as cnp
from cpython.object cimport PyObject, PyTypeObject

from shuangkou._generate cimport sk_count, sk_generate, sk_nth
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

from shuangkou import cards as _cards
from shuangkou import errors as _errors
from shuangkou._check import as_int as _as_int
from shuangkou.rules import Rules as _Rules
from shuangkou.rules import as_rules as _as_rules

cdef extern from "Python.h":
    void PyType_Modified(type t)

# Three C-level shortcuts of the hot listing path (legal_plays, State/Game plays), each a few
# instructions where the generic C-API call costs tens:
# * Play objects come from a free list of this module's own and go back to it when freed
#   (tp_dealloc below): making one is a pop and one store of the reference count, freeing it a
#   push (Cython's own free list also zeroes the object and calls PyObject_Init). A Play holds
#   no Python object, so nothing else is to be done. The list is used with the GIL held only
#   (making and freeing Python objects); without a GIL (free-threaded builds) there is none.
# * The plays of a list come from a ring of the last 4,096 listed, each slot holding a
#   reference of its own: a slot's Play that nothing else holds any more (its list was freed)
#   is listed again as it is. Freeing a list of plays then costs a decrement a play (no
#   deallocation), making one a test and an increment (no allocation). A Play still held
#   elsewhere leaves its slot to a new one.
# * Hand's one __slots__ field is read at its offset, found once from the slot's descriptor.
cdef extern from *:
    """
    #include <string.h>
    #include <structmember.h>
    #if defined(Py_GIL_DISABLED) || defined(Py_TRACE_REFS) || defined(Py_REF_DEBUG)
      #define SK_PLAY_FREE_MAX 0
    #else
      #define SK_PLAY_FREE_MAX 4096
    #endif
    static PyTypeObject *sk_play_type = NULL;
    #if SK_PLAY_FREE_MAX
    static PyObject *sk_play_free[SK_PLAY_FREE_MAX];
    static int sk_play_nfree = 0;
    #define SK_PLAY_RING 4096  /* a power of two */
    #else
    #define SK_PLAY_RING 1     /* no ring: its one slot stays NULL */
    #endif
    #define SK_PLAY_RING_MASK (SK_PLAY_RING - 1)
    static PyObject *sk_play_ring[SK_PLAY_RING];  /* a reference each, or NULL */
    static unsigned sk_play_at = 0;               /* the next slot to list from */

    /* A new reference to an uninitialised Play (its C fields are the caller's to set). */
    static PyObject *sk_play_alloc(void) {
    #if SK_PLAY_FREE_MAX
        if (sk_play_nfree > 0) {
            PyObject *o = sk_play_free[--sk_play_nfree];
            Py_SET_REFCNT(o, 1);  /* ob_type is still Play (a static type: no reference) */
            return o;
        }
    #endif
        return sk_play_type->tp_alloc(sk_play_type, 0);
    }

    /* A new Play for ring slot ``k`` of a list (a new reference, its C fields the
       caller's to set; NULL on error), when the slot's Play is held elsewhere (or there is
       none): it takes the slot over, the old one losing only the ring's reference (a
       decrement: it is held elsewhere). */
    static PyObject *sk_play_renew(unsigned k) {
        PyObject *fresh = sk_play_alloc();
    #if SK_PLAY_FREE_MAX
        PyObject *old = sk_play_ring[k];
        if (fresh == NULL) return NULL;
        Py_INCREF(fresh);
        sk_play_ring[k] = fresh;
        Py_XDECREF(old);
    #endif
        return fresh;
    }

    /* A new empty list with room for ``n`` items (its item array allocated without
       PyList_New's zeroing: the caller stores the items and sets the size). */
    static PyObject *sk_list_room(Py_ssize_t n) {
        PyObject *list = PyList_New(0);
        PyObject **items;
        if (list == NULL || n <= 0) return list;
        items = (PyObject **)PyMem_Malloc((size_t)n * sizeof(PyObject *));
        if (items == NULL) { Py_DECREF(list); return PyErr_NoMemory(); }
        ((PyListObject *)list)->ob_item = items;
        ((PyListObject *)list)->allocated = n;
        return list;
    }

    static inline void sk_list_set_size(PyObject *list, Py_ssize_t n) { Py_SET_SIZE(list, n); }

    static void sk_play_dealloc(PyObject *o) {
    #if SK_PLAY_FREE_MAX
        if (sk_play_nfree < SK_PLAY_FREE_MAX) {
            sk_play_free[sk_play_nfree++] = o;
            return;
        }
    #endif
        Py_TYPE(o)->tp_free(o);
    }

    /* Play's type, and its tp_dealloc sk_play_dealloc (before any Play exists) if Play is a
       final static type without GC or finaliser (what Cython makes of it); otherwise the free
       list stays empty and every Play comes from tp_alloc. */
    static void sk_play_install(PyObject *type) {
        PyTypeObject *t = (PyTypeObject *)type;
        sk_play_type = t;
        if (SK_PLAY_FREE_MAX && !PyType_HasFeature(t, Py_TPFLAGS_HEAPTYPE)
                && !PyType_HasFeature(t, Py_TPFLAGS_HAVE_GC)
                && !PyType_HasFeature(t, Py_TPFLAGS_BASETYPE) && t->tp_finalize == NULL)
            t->tp_dealloc = sk_play_dealloc;
    }

    /* 1 and ``*out = o`` if ``o`` (an exact int) is 0 <= o < 2**60, else 0 (no error set):
       the usual cards word read from its digits, not through the generic conversion. */
    static inline int sk_exact_u60(PyObject *o, uint64_t *out) {
    #if PY_VERSION_HEX < 0x030C0000
        const digit *d = ((PyLongObject *)o)->ob_digit;
        switch (Py_SIZE(o)) {
            case 0: *out = 0; return 1;
            case 1: *out = d[0]; return 1;
            case 2: *out = ((uint64_t)d[1] << PyLong_SHIFT) | d[0]; return *out >> 60 == 0;
            default: return 0;
        }
    #else
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (v == -1 && PyErr_Occurred()) { PyErr_Clear(); return 0; }
        *out = (uint64_t)v;
        return !overflow && v >= 0 && (uint64_t)v >> 60 == 0;
    #endif
    }

    /* The byte offset of an object __slots__ field, from its member descriptor; -1 if
       ``descr`` is not one. */
    static Py_ssize_t sk_slot_offset(PyObject *descr) {
        if (Py_TYPE(descr) != &PyMemberDescr_Type) return -1;
        PyMemberDef *m = ((PyMemberDescrObject *)descr)->d_member;
        return m->type == T_OBJECT_EX ? m->offset : -1;
    }

    /* The slot at ``offset`` of ``o`` (borrowed; NULL when unset). */
    static inline PyObject *sk_slot(PyObject *o, Py_ssize_t offset) {
        return *(PyObject **)((char *)o + offset);
    }
    """
    list sk_list_room(Py_ssize_t n)
    void sk_list_set_size(object list, Py_ssize_t n) noexcept
    PyObject* sk_play_renew(unsigned k) noexcept
    PyObject* sk_play_ring[1]
    unsigned sk_play_at
    unsigned SK_PLAY_RING_MASK
    Py_ssize_t Py_REFCNT(PyObject* o)
    void Py_SET_REFCNT(PyObject* o, Py_ssize_t n)
    PyObject** PySequence_Fast_ITEMS(object o)
    Play sk_play_new "sk_play_alloc"()     # the same, a reference Cython owns
    bint sk_exact_u60(object o, uint64_t* out) noexcept
    void sk_play_install(object type)
    Py_ssize_t sk_slot_offset(object descr)
    PyObject* sk_slot(object o, Py_ssize_t offset)

cnp.import_array()

cdef enum:
    _STACK_PLAYS = 2048


cdef inline object _int(object value):
    return value if type(value) is int else _index(value)


cdef uint64_t _cards_word(object value, str what) except? 1:
    """A validated packed cards word (R1: naturals ≤ 8, jokers ≤ 2)."""
    cdef uint64_t w
    if type(value) is int and sk_exact_u60(value, &w) and valid_word(w):
        return w  # the usual case, without the generic conversion's error handling
    return _cards_word_checked(value, what)


cdef uint64_t _cards_word_checked(object value, str what) except? 1:
    """:func:`_cards_word` of any int-like ``value``, with its errors."""
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
    if t:  # an answer: ~1,000 instructions, fewer than releasing and taking back the GIL
        n = sk_generate(h, f, t, few, sw, st, _STACK_PLAYS)
    else:
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


cdef inline int _popcount64(uint64_t x) noexcept nogil:
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n


def answer_features(const uint64_t[::1] hands, const uint32_t[::1] tables,
                    const uint32_t[::1] seen, uint32_t flags, int32_t[:, ::1] out):
    """For answer ``k % len(tables)`` made from ``hands[k]`` (shuangkou.inference: one row a
    world and answer): what the fewest-wilds plays beating ``tables[k % K]`` (0: the leads)
    hold, into
    ``out[k]``: the distinct heights of the *clean* plain plays (taking every card of the
    ranks they touch), the breaking plain plays, the bombs, the clean heights below the play
    seen (``seen[k % K]``, its tag; 0: a pass), and whether a clean play of its reading (less
    its wilds) is among them. Checked: ``out`` has ``len(hands)`` rows of 5, ``len(hands)``
    is a multiple of ``len(tables) == len(seen)``, each hand and table valid."""
    cdef Py_ssize_t n = hands.shape[0], K = tables.shape[0], k, i
    cdef uint64_t sw[_STACK_PLAYS]
    cdef uint32_t st[_STACK_PLAYS]
    cdef uint64_t* pw
    cdef uint32_t* pt
    cdef uint64_t h, w, ranks, heights
    cdef uint32_t t, want
    cdef int m, broken, bombs, clean_seen
    cdef uint64_t low = 0x1111111111111111ULL
    if seen.shape[0] != K or K == 0 or n % K or out.shape[0] != n or out.shape[1] != 5:
        raise _errors.ArgumentError(
            f"answer_features: {n} hands, {K} tables, {seen.shape[0]} plays seen, out of "
            f"shape ({out.shape[0]}, {out.shape[1]}): want tables and plays alike, hands a "
            f"multiple of them, out (hands, 5)")
    for k in range(K):
        _tag_word(tables[k], "table", True)
    for k in range(n):
        if not valid_word(hands[k]):
            raise _errors.ArgumentError(f"answer_features: hand {k} is no packed hand")
    for k in range(n):
        h = hands[k]
        t = tables[k % K]
        m = _generate_buffered(h, flags, t, True, sw, st, &pw, &pt)
        want = seen[k % K] & ((1u << 28) - 1)
        heights = 0
        broken = bombs = clean_seen = 0
        for i in range(m):
            if tag_kind(pt[i]) >= rd.K_BOMB:
                bombs += 1
                continue
            w = pw[i]
            ranks = ((w | w >> 1 | w >> 2 | w >> 3) & low) * 15
            if h & ranks == w:
                heights |= (<uint64_t>1) << ((pt[i] >> 4) & 15)
                if pt[i] & ((1u << 28) - 1) == want:
                    clean_seen = 1
            else:
                broken += 1
        if pw != sw:
            free(pw)
            free(pt)
        out[k, 0] = _popcount64(heights)
        out[k, 1] = broken
        out[k, 2] = bombs
        out[k, 3] = _popcount64(heights & (((<uint64_t>1) << ((want >> 4) & 15)) - 1))
        out[k, 4] = clean_seen


def count(hand, flags, table, fewest):
    """The number of plays :func:`generate` would return."""
    cdef uint64_t h = _cards_word(hand, "hand")
    cdef uint32_t f = _flags_word(flags)
    cdef uint32_t t = _tag_word(table, "table", True)
    cdef bint few = bool(fewest)
    cdef int n
    with nogil:
        n = sk_count(h, f, t, few)
    return n


def nth(hand, flags, table, fewest, k):
    """Play ``k`` of :func:`generate`'s list as ``(word, tag)``, generated without the plays
    after it (the C-level ``sk_nth`` of random self-play); None if ``k`` is out of range."""
    cdef uint64_t h = _cards_word(hand, "hand")
    cdef uint32_t f = _flags_word(flags)
    cdef uint32_t t = _tag_word(table, "table", True)
    cdef bint few = bool(fewest)
    k = _int(k)
    if not 0 <= k < sk_count(h, f, t, few):
        return None
    cdef int i = k
    cdef uint64_t* pw = <uint64_t*>malloc((i + 1) * sizeof(uint64_t))
    cdef uint32_t* pt = <uint32_t*>malloc((i + 1) * sizeof(uint32_t))
    try:
        if pw == NULL or pt == NULL:
            raise MemoryError()
        with nogil:
            sk_nth(h, f, t, few, i, pw, pt)
        return pw[i], pt[i]
    finally:
        free(pw)
        free(pt)


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
    cdef uint64_t* pw = NULL
    cdef uint32_t* pt = NULL
    cdef Py_ssize_t cap = _numpy_out(words, tags, &pw, &pt)
    cdef uint64_t[::1] mw
    cdef uint32_t[::1] mt
    cdef int n
    if cap < 0:  # any other buffers: memoryviews (~7 k instructions a call more)
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


cdef inline Py_ssize_t _numpy_out(words, tags, uint64_t** pw, uint32_t** pt) noexcept:
    """The fast path of the output buffers: when ``words``/``tags`` are writable C-contiguous
    1-d numpy arrays of uint64/uint32, their data pointers (``pw``, ``pt``) and the shorter
    length, read from the array structs (no memoryview acquisition); else -1."""
    if not (type(words) is cnp.ndarray and type(tags) is cnp.ndarray
            and _writable_c(<cnp.ndarray>words, cnp.NPY_UINT64)
            and _writable_c(<cnp.ndarray>tags, cnp.NPY_UINT32)):
        return -1
    pw[0] = <uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>words)
    pt[0] = <uint32_t*>cnp.PyArray_DATA(<cnp.ndarray>tags)
    return min(cnp.PyArray_SIZE(<cnp.ndarray>words), cnp.PyArray_SIZE(<cnp.ndarray>tags))


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
            o[i] = sk_count(hs[i], f, ts[i], few)
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
            off[i + 1] = off[i] + sk_count(hs[i], f, ts[i], few)
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


def generate_many(hands, flags, table, fewest, words, tags):
    """Generate the plays of every hand into the same buffers (each overwrites the last) and
    return the total number of plays, GIL released: the kernel's own speed, for benchmarks.
    numpy arrays are read through their structs (the gate counts this call: memoryviews
    would add ~7 k instructions a call to the kernel's figures); other buffers work too."""
    cdef uint32_t f = _flags_word(flags)
    cdef uint32_t t = _tag_word(table, "table", True)
    cdef bint few = bool(fewest)
    cdef const uint64_t* ph
    cdef uint64_t* pw = NULL
    cdef uint32_t* pt = NULL
    cdef Py_ssize_t i, n
    cdef Py_ssize_t cap = _numpy_out(words, tags, &pw, &pt)
    cdef const uint64_t[::1] mh
    cdef uint64_t[::1] mw
    cdef uint32_t[::1] mt
    cdef int64_t total = 0
    if (type(hands) is cnp.ndarray and cnp.PyArray_TYPE(<cnp.ndarray>hands) == cnp.NPY_UINT64
            and cnp.PyArray_NDIM(<cnp.ndarray>hands) == 1
            and cnp.PyArray_ISCARRAY_RO(<cnp.ndarray>hands)):
        ph = <const uint64_t*>cnp.PyArray_DATA(<cnp.ndarray>hands)
        n = cnp.PyArray_SIZE(<cnp.ndarray>hands)
    else:
        mh = hands
        n = mh.shape[0]
        ph = &mh[0] if n else NULL
    if cap < 0:
        mw = words
        mt = tags
        cap = min(mw.shape[0], mt.shape[0])
        pw = &mw[0] if mw.shape[0] else NULL
        pt = &mt[0] if mt.shape[0] else NULL
    if cap > 0x7FFFFFFF:
        cap = 0x7FFFFFFF
    for i in range(n):
        if not valid_word(ph[i]):
            raise ValueError(f"hands[{i}] = {ph[i]:#x} is not a packed cards word")
    with nogil:
        for i in range(n):
            total += sk_generate(ph[i], f, t, few, pw, pt, <int>cap)
    return total


# -- plays as Python objects ------------------------------------------------------------------
cdef object _plays_module = None
cdef tuple _KINDS = None


cdef object _plays():
    """``shuangkou.plays`` (imported on first use: it imports this module)."""
    global _plays_module, _KINDS
    if _plays_module is None:
        import shuangkou.plays as plays_module
        _plays_module = plays_module
        _KINDS = tuple(plays_module.Kind)
    return _plays_module


cdef tuple _RANKS = tuple(_cards.Rank)
cdef object _Hand = _cards.Hand
cdef object _RulesType = _Rules  # a C global: no module dict look-up a call


@cython.final
@cython.auto_pickle(False)  # pickled by __reduce__, as shuangkou.plays._play_from_codes
cdef class Play:
    """A legal play: the cards taken plus their reading (R3). Immutable and hashable.

    * ``cards`` – a :class:`~shuangkou.cards.Hand` (jokers counted as the physical SJ/BJ
      they are);
    * ``kind`` – :class:`~shuangkou.plays.Kind`; ``top`` – the :class:`~shuangkou.cards.Rank`
      it compares by (R4);
    * ``size`` – number of cards; ``width`` – cards per rank (X of a bomb, the smallest group
      of a chain bomb); ``length`` – ranks in a sequence or chain bomb (Y), else 1;
    * ``stars`` – star level of a bomb (R5), 0 for plain plays and in classic;
    * ``wilds`` – cards standing for another rank.

    Two C fields, ``packed`` (the cards word) and ``tag`` (the reading tag of
    docs/internals.md), and nothing else: the kernel builds one without a Python call (from
    this module's free list) and it is not tracked by the garbage collector. ``str`` is the canonical card list (plus ``/kind``
    when a 千变 set of three or more wilds could read as another plain kind);
    ``Play.parse(str(p), rules) == p``. ``Play.PASS`` is the falsy pass.
    """

    def __init__(self, cards, kind, top, width, length, stars, wilds):
        """A play built by hand from its cards (a Hand or card text) and its reading.

        The one check of a hand-built play: every field must be an integer within its range
        (an :class:`~shuangkou.errors.ArgumentError` naming the field, as for every int-like
        argument; no field may spill into another's bits of the tag), and the reading must be
        one the cards have under some rules (R3; :class:`~shuangkou.errors.IllegalPlayError`
        otherwise). Cards that are no Hand or text are a ``TypeError``, as everywhere.
        Whether the rules in force allow it is checked where the play is used (a move, a
        table)."""
        hand = _cards.Hand.parse(cards) if isinstance(cards, str) else cards
        if not isinstance(hand, _cards.Hand):
            raise TypeError(f"cards must be a Hand or card text, not {type(cards).__name__}")
        cdef int k = _as_int(kind, "kind", rd.K_SINGLE, rd.K_CHAIN_BOMB)
        cdef uint32_t tag = rd.make_tag(
            k, _as_int(top, "top", 0, 14),
            _as_int(width, "width", 1, 31), _as_int(length, "length", 1, 15),
            _as_int(stars, "stars", 0, 31), _as_int(len(hand), "size (cards)", 1, 63),
            _as_int(wilds, "wilds", 0, 7))
        if not _reads_as(hand.packed, tag):
            raise _errors.IllegalPlayError(
                f"{hand} does not read as {_plays().Kind(k).name}, top={int(top)}, "
                f"width={width}, length={length}, stars={stars}, wilds={wilds} under any rules "
                f"(R3)")
        self.packed = hand.packed
        self.tag = tag

    def _reads_under(self, uint32_t flags):
        """Whether the cards have this reading under the rules word ``flags`` (R3): the check
        of a table play (``shuangkou.plays``), in C, as a forged or unpickled play may not."""
        return _reads_under(self, flags)

    @staticmethod
    def _from_codes(uint64_t cards, uint32_t tag):
        """The play with cards word ``cards`` and reading tag ``tag``, unchecked."""
        return _new_play(cards, tag)

    @classmethod
    def parse(cls, text, rules):
        """Read a card list under ``rules``; ``"… /straight"`` picks one of two plain readings.

        Raises :class:`~shuangkou.errors.IllegalPlayError` if the cards are no valid play, or
        are two plays and no kind was given."""
        return _plays().parse_play(text, rules)

    def __reduce__(self):
        return (_plays()._play_from_codes, (self.packed, self.tag))

    # -- fields ----------------------------------------------------------------------------
    @property
    def cards(self):
        return _cards.Hand._from_packed_unchecked(self.packed)

    @property
    def kind(self):
        _plays()
        return _KINDS[self.tag & 15]

    @property
    def top(self):
        return _RANKS[(self.tag >> 4) & 15]

    @property
    def width(self):
        return <int>((self.tag >> 8) & 31)

    @property
    def length(self):
        return <int>((self.tag >> 13) & 15)

    @property
    def stars(self):
        return <int>((self.tag >> 17) & 31)

    @property
    def size(self):
        return <int>((self.tag >> 22) & 63)

    @property
    def wilds(self):
        return <int>((self.tag >> 28) & 7)

    @property
    def is_bomb(self):
        return (self.tag & 15) >= rd.K_BOMB

    @property
    def reading(self):
        """What the play *is*, whatever cards make it: (kind, top, size, width, length)."""
        return (self.kind, self.top, self.size, self.width, self.length)

    def beats(self, other, rules):
        """True if this play may be played on ``other`` (R4, R5): a Play, its card text (read
        under ``rules`` as :meth:`parse` reads it: ``"5 6 7 8 9"``) or ``None``; anything
        beats ``None`` or a pass (a free lead)."""
        r = _as_rules(rules)
        if isinstance(other, str):
            other = _plays().parse_play(other, r)
        elif other is not None and type(other) is not Play:
            raise TypeError(f"other must be a Play, card text such as '5 6 7 8 9' or None, "
                            f"not {type(other).__name__}")
        if self.tag == rd.NO_TABLE:
            return False
        if not other:
            return True
        return bool(_plays().backend.beats(self.tag, (<Play>other).tag, r.flags))

    # -- value semantics -------------------------------------------------------------------
    def __bool__(self):
        return self.tag != rd.NO_TABLE

    def __eq__(self, other):
        return (type(other) is Play and self.packed == (<Play>other).packed
                and self.tag == (<Play>other).tag)

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((self.packed, self.tag))

    def sort_key(self):
        """Total order for deterministic listings (``<``, ``<=``, ``>``, ``>=``): kind, size,
        length, top, width, wilds, then the cards."""
        return (self.tag & 15, self.size, self.length, (self.tag >> 4) & 15, self.width,
                self.wilds) + tuple([<int>((self.packed >> (4 * r)) & 15) for r in range(15)])

    def __lt__(self, other):
        if type(other) is not Play:
            return NotImplemented
        return self.sort_key() < (<Play>other).sort_key()

    def __le__(self, other):
        if type(other) is not Play:
            return NotImplemented
        return self.sort_key() <= (<Play>other).sort_key()

    def __gt__(self, other):
        if type(other) is not Play:
            return NotImplemented
        return self.sort_key() > (<Play>other).sort_key()

    def __ge__(self, other):
        if type(other) is not Play:
            return NotImplemented
        return self.sort_key() >= (<Play>other).sort_key()

    def __str__(self):
        if self.tag == rd.NO_TABLE:
            return "pass"
        text = str(self.cards)
        if self.wilds >= 3 and not self.is_bomb:
            text += "/" + self.kind.name.lower()
        return text

    def __repr__(self):
        if self.tag == rd.NO_TABLE:
            return "Play.PASS"
        return (
            f"Play({str(self.cards)!r}, Kind.{self.kind.name}, top=Rank.{self.top.name}, "
            f"width={self.width}, length={self.length}, stars={self.stars}, wilds={self.wilds})"
        )

    def describe(self):
        """Human text: ``'straight 4..9 (6 cards)'``, ``'bomb 77777 (5★)'``."""
        if self.tag == rd.NO_TABLE:
            return "pass"
        Kind = type(self.kind)
        kind = self.kind
        top = _cards.RANK_SYMBOLS[self.top]
        name = kind.name.lower().replace("_", " ")
        if kind.is_sequence or kind == Kind.CHAIN_BOMB:
            desc = f"{name} {_cards.RANK_SYMBOLS[self.top - self.length + 1]}..{top}"
            if kind == Kind.CHAIN_BOMB:
                desc = f"{self.width}相{self.length}连 {desc}"
        elif kind == Kind.BOMB:
            desc = f"bomb {top * self.width}"
        elif kind in (Kind.THREE_JOKERS, Kind.FOUR_JOKERS):
            desc = "三王" if kind == Kind.THREE_JOKERS else "天王"
        else:
            desc = f"{name} of {top}"
        stars = f", {self.stars}★" if self.stars else ""
        cards = "1 card" if self.size == 1 else f"{self.size} cards"
        return f"{desc} ({cards}{stars})"


cdef bint _has_reading(uint64_t cards, uint32_t tag, uint32_t flags) noexcept:
    """Whether ``tag`` is a reading of the valid cards word ``cards`` under ``flags`` (R3)."""
    cdef uint32_t tags[4]
    cdef int i, n = sk_classify(cards, flags, tags)
    for i in range(n):
        if tags[i] == tag:
            return True
    return False


cdef bint _reads_as(uint64_t cards, uint32_t tag) noexcept:
    """Whether ``tag`` is a reading of ``cards`` under some rules word (R3; ``cards`` valid)."""
    cdef uint32_t f
    for f in range(rd.FLAGS_ALL + 1):
        if (f & rd.FLAG_UNEVEN) and not (f & rd.FLAG_STARS):
            continue  # not a rules word (_flags_word)
        if _has_reading(cards, tag, f):
            return True
    return False


cdef bint _reads_under(Play p, uint32_t flags) noexcept:
    """:meth:`Play._reads_under`, remembered: a play made by the kernel under ``flags``, or
    checked once, is not classified again (``_under``)."""
    if p._under == flags + 1:
        return True
    if valid_word(p.packed) and _has_reading(p.packed, p.tag, flags):
        p._under = flags + 1
        return True
    return False


sk_play_install(Play)  # Play objects go back to the free list (sk_play_alloc)
cdef Py_ssize_t _HAND_PACKED = sk_slot_offset(_cards.Hand.__dict__["_packed"])


cdef inline Play _new_play(uint64_t packed, uint32_t tag):
    return play_of(packed, tag, 0)


cdef Play play_of(uint64_t packed, uint32_t tag, uint32_t under):
    """A play, unchecked; ``under``: 1 + the rules word its reading holds under (0: unknown)."""
    cdef Play p = sk_play_new()
    p.packed = packed
    p.tag = tag
    p._under = under
    return p


cdef str _ALL = "all"


cdef bint wilds_fewest(object wilds) except -1:
    """The ``wilds`` argument of every listing: ``"all"`` (False) or ``"fewest"`` (True)."""
    if wilds is _ALL:  # the default, without a string comparison
        return False
    if wilds == "all":
        return False
    if wilds == "fewest":
        return True
    raise ValueError(f"wilds must be 'all' or 'fewest', not {wilds!r}")


cdef list play_list(const uint64_t* words, const uint32_t* tags, Py_ssize_t n, uint32_t under):
    """The ``n`` plays of the kernel's output arrays as a list, built in one C loop (no Python
    call a play, the plays from the ring; ``under`` as for :func:`play_of`)."""
    global sk_play_at
    cdef list out = sk_list_room(n)
    cdef PyObject** items = PySequence_Fast_ITEMS(out)
    cdef PyObject** slot
    cdef PyObject* p
    cdef Py_ssize_t i = 0, j, m
    cdef unsigned at = sk_play_at  # the ring's cursor, kept in a register
    while i < n:  # the ring's slots from ``at`` on, up to its end (then from its start)
        m = min(<Py_ssize_t>(SK_PLAY_RING_MASK + 1 - at), n - i)
        slot = &sk_play_ring[at]
        for j in range(m):  # bare pointers: the list holds the references
            p = slot[j]
            if p != NULL and Py_REFCNT(p) == 1:  # only the ring holds it: listed again
                Py_SET_REFCNT(p, 2)
            else:
                p = sk_play_renew(at + <unsigned>j)
                if p == NULL:
                    sk_play_at = at
                    sk_list_set_size(out, i + j)  # the plays made so far: freeing frees them
                    raise MemoryError()
            (<Play>p).packed = words[i + j]
            (<Play>p).tag = tags[i + j]
            (<Play>p)._under = under
            items[i + j] = p
        i += m
        at = (at + <unsigned>m) & SK_PLAY_RING_MASK
    sk_play_at = at
    sk_list_set_size(out, n)
    return out


# Play.PASS: the falsy pass (a class attribute of an extension type is set in its dict)
(<dict><object>(<PyTypeObject*>Play).tp_dict)["PASS"] = _new_play(0, rd.NO_TABLE)
PyType_Modified(Play)


def new_play(type cls, uint64_t packed, uint32_t tag):
    """A :class:`Play` holding ``packed`` and ``tag``, unchecked (``cls`` must be ``Play``)."""
    if cls is not Play:
        raise TypeError(f"{cls!r} is not Play")
    return _new_play(packed, tag)


def generate_plays(hand, flags, table, fewest, type cls):
    """:func:`generate`, as a list of :class:`Play` objects (``cls`` must be ``Play``)."""
    cdef uint64_t h = _cards_word(hand, "hand")
    cdef uint32_t f = _flags_word(flags)
    cdef uint32_t t = _tag_word(table, "table", True)
    cdef bint few = bool(fewest)
    if cls is not Play:
        raise TypeError(f"{cls!r} is not Play")
    return _play_list_of(h, f, t, few)


cdef list _play_list_of(uint64_t h, uint32_t f, uint32_t t, bint few):
    """The plays of hand ``h`` (valid) beating tag ``t`` under ``f``, as Play objects."""
    cdef uint64_t sw[_STACK_PLAYS]
    cdef uint32_t st[_STACK_PLAYS]
    cdef uint64_t* pw
    cdef uint32_t* pt
    cdef int n = _generate_buffered(h, f, t, few, sw, st, &pw, &pt)
    try:
        return play_list(pw, pt, n, f + 1)
    finally:
        if pw != sw:
            free(pw)
            free(pt)


cdef uint32_t _table_reading(object table, object rules, uint32_t f) except? 0xFFFFFFFF:
    """The tag of a table play (``plays._table_tag``'s contract): a Play known to read so under
    ``f`` (the kernel made it, or it was checked before) costs no classification."""
    if table is None:
        return rd.NO_TABLE
    if type(table) is Play and (not (<Play>table).tag or _reads_under(<Play>table, f)):
        return (<Play>table).tag
    return _plays()._table_tag(table, rules)  # card text, and the errors


# The Rules of the last legal_plays call and its flags word: a caller keeps passing the same
# Rules, and its flags (a cached property) cost two dict look-ups to read.
cdef tuple _last_rules = (None, 0)


@cython.binding(False)  # a builtin function: Python's calls to it are specialised (cheaper)
def legal_plays(hand, rules, table=None, wilds="all"):
    """legal_plays(hand, rules, table=None, wilds='all')
--

Every legal play of ``hand``: all of them when leading (``table=None``), else those that
    beat ``table`` (passing is always allowed and not listed).

    ``wilds="all"`` lists every distinct way of taking cards (R3: ``5 5`` and ``5 BJ`` are two
    plays); ``wilds="fewest"`` keeps one play per reading, the one using the fewest wild cards
    (small jokers before big ones).

    One C-level call (``shuangkou.plays.legal_plays`` with the kernel backend): the arguments
    are checked as there, the table once (a play the kernel made under these rules is known to
    read so), and the list of plays is built in one loop.
    """
    cdef PyObject* packed = NULL
    if type(hand) is _Hand and _HAND_PACKED >= 0:
        packed = sk_slot(hand, _HAND_PACKED)  # hand._packed without an attribute look-up
    cdef uint64_t h = _cards_word(
        <object>packed if packed != NULL else _plays()._as_hand(hand).packed, "hand")
    global _last_rules
    if type(rules) is not _RulesType:
        rules = _as_rules(rules)
    cdef tuple last = _last_rules  # (rules, its flags): one read, so never a mixed pair
    cdef uint32_t f
    if last[0] is rules:
        f = last[1]
    else:
        f = rules.flags
        _last_rules = (rules, f)
    cdef uint32_t t = _table_reading(table, rules, f)
    return _play_list_of(h, f, t, wilds_fewest(wilds))
