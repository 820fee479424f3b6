# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Physical cards at C speed, for :class:`shuangkou.game.Game` (the State is rank-level only),
and the Game's per-decision paths (``_Base``).

A hand of physical cards is a Python int with bit ``c`` set for each card id ``c`` it holds
(:mod:`shuangkou.cards`: id = deck*52 + rank*4 + suit for ranks 0..12, then the small jokers
104, 105 and the big jokers 106, 107). A play's ranks are a packed word (4 bits per rank,
ranks 0..14 with 13 = small joker, 14 = big joker).
"""

cimport cython
from cpython.long cimport PyLong_FromUnsignedLongLong
from cpython.pythread cimport (
    WAIT_LOCK, PyThread_acquire_lock, PyThread_allocate_lock, PyThread_free_lock,
    PyThread_get_thread_ident, PyThread_release_lock, PyThread_type_lock,
)
from cpython.object cimport PyObject, PyTypeObject
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_New, PyTuple_SET_ITEM
from cpython.ref cimport Py_INCREF, Py_XDECREF
from libc.stdint cimport uint64_t

from shuangkou._core cimport Play, play_list, wilds_fewest
from shuangkou._engine cimport State
from _packed cimport SK_CTZ64
from _state cimport SkDeal, sk_deal, sk_init, sk_pass, sk_play

cdef extern from "pythread.h":
    int PyThread_acquire_lock_timed(PyThread_type_lock, long long microseconds,
                                    int intr_flag) nogil

cdef extern from "Python.h":
    PyObject* Py_True
    PyObject* Py_False
    PyObject* Py_None

cdef extern from *:
    """
    #include "structmember.h"
    /* A read-only attribute of ``type`` held in an object field at ``offset`` of its
       instances: a member descriptor (T_OBJECT_EX), which CPython's specialising interpreter
       reads as it reads a __slots__ slot (LOAD_ATTR_SLOT), where a property or a Cython
       getter always takes the generic attribute look-up. */
    static int sk_add_view(PyTypeObject *type, PyMemberDef *def, const char *name,
                           Py_ssize_t offset, const char *doc) {
        PyObject *descr;
        int rc;
        def->name = name;
        def->type = T_OBJECT_EX;
        def->offset = offset;
        def->flags = READONLY;
        def->doc = doc;
        descr = PyDescr_NewMember(type, def);
        if (descr == NULL) return -1;
        rc = PyDict_SetItemString(type->tp_dict, name, descr);
        Py_DECREF(descr);
        PyType_Modified(type);
        return rc;
    }
    """
    ctypedef struct PyMemberDef:
        pass
    int sk_add_view(PyTypeObject* type, PyMemberDef* d, const char* name, Py_ssize_t offset,
                    const char* doc) except -1

cdef object _M64 = 0xFFFFFFFFFFFFFFFF
cdef tuple _ID_OBJS = tuple(range(108))  # the card ids as ints, put into tuples without a call


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
    return _ids(mask & _M64, mask >> 64)


cdef tuple _ids(uint64_t lo, uint64_t hi):
    """The ids of the mask (lo, hi), ascending, as a tuple."""
    cdef int n = 0, i = 0
    cdef uint64_t x
    if hi >> 44:  # ids above 107: no card (and no item of _ID_OBJS)
        raise ValueError("a mask of card ids holds ids 0..107 only")
    x = lo
    while x:
        x &= x - 1
        n += 1
    x = hi
    while x:
        x &= x - 1
        n += 1
    cdef tuple out = PyTuple_New(n)
    while lo:  # the set bits, lowest first
        _put_id(out, i, SK_CTZ64(lo))
        lo &= lo - 1
        i += 1
    while hi:
        _put_id(out, i, 64 + SK_CTZ64(hi))
        hi &= hi - 1
        i += 1
    return out


cdef inline void _put_id(tuple out, int i, int c) noexcept:
    """Item ``i`` of the new tuple ``out``: card id ``c`` (0..107, the caller's bits)."""
    cdef PyObject* v = PyTuple_GET_ITEM(_ID_OBJS, c)
    Py_INCREF(<object>v)
    PyTuple_SET_ITEM(out, i, <object>v)


# -- the Game's hot paths ----------------------------------------------------------------------
@cython.final
@cython.auto_pickle(False)
cdef class GameLock:
    """A Game's lock: one action at a time (two threads playing on one Game are serialised,
    never interleaved), and no reader (``copy``, ``log``, ``to_json``, a view of several
    fields) sees an action half made. Taken in C by the Game's per-decision paths, and a
    context manager (``with game._lock:``) for its Python ones.

    Re-entrant: the thread holding it may take it again (a locked reader calls other locked
    readers, ``to_json`` calls ``log``); it is free once each take has its give. Every take
    and give runs with the GIL held, so the GIL guards the owner and the depth: a free lock
    is taken without a system call (a ``PyThread`` lock's non-blocking acquire costs ~130
    instructions on CPython 3.11, a decision takes two). A thread finding it held by another
    waits with the GIL released, in steps of 50 µs (a timed wait on ``_pause``, a lock that
    is always held: the portable sleep of ``pythread.h``) until the holder gives it back.
    (This needs the GIL: free-threaded builds are not made, pyproject.toml.)"""

    cdef PyThread_type_lock _pause  # always held: a timed acquire of it is a GIL-free pause
    cdef long _owner                # PyThread_get_thread_ident() of the holder (if _depth)
    cdef int _depth                 # takes not given back yet by the holder; 0 = free

    def __cinit__(self):
        self._pause = PyThread_allocate_lock()
        if self._pause == NULL:
            raise MemoryError()
        PyThread_acquire_lock(self._pause, WAIT_LOCK)

    def __dealloc__(self):
        if self._pause != NULL:
            PyThread_release_lock(self._pause)
            PyThread_free_lock(self._pause)

    cdef inline void take(self) noexcept:
        cdef long me = PyThread_get_thread_ident()
        if self._depth:
            if self._owner == me:
                self._depth += 1
                return
            while self._depth:  # another thread's: let it run, look again
                with nogil:
                    PyThread_acquire_lock_timed(self._pause, 50, 0)
        self._owner = me
        self._depth = 1

    cdef inline void give(self) noexcept:
        self._depth -= 1

    def __enter__(self):
        self.take()
        return self

    def __exit__(self, *exc):
        self.give()


cdef inline bint _is_kernel_state(object st):
    """Whether ``st`` is the kernel's State (not the reference engine's RefState)."""
    return type(st) is State


cdef inline void _put(PyObject** field, object value) noexcept:
    """Store ``value`` (a new reference) in a view field, releasing what it held."""
    _put_ptr(field, <PyObject*>value)


cdef inline void _put_ptr(PyObject** field, PyObject* value) noexcept:
    cdef PyObject* old = field[0]
    if old == value:
        return
    Py_INCREF(<object>value)
    field[0] = value
    Py_XDECREF(old)


@cython.auto_pickle(False)  # as before: a Game holds a lock and is not pickled
cdef class _Base:
    """What ``shuangkou.game.Game`` does on every decision, in C: the seat to act, whether the
    deal is over, whether passing is legal, the legal plays, and applying a play of the legal
    list or a pass — with every check the Python path makes (the lock, the seat, the physical
    ids taken, the log record). Anything else (a Play not in the list, cards, an index, a
    wrong seat, errors) goes to the Game's Python path, which judges it and names the reason.
    Under ``SHUANGKOU_BACKEND=reference`` (``_st`` a RefState) everything takes that path.

    ``_st`` (the State), ``_log`` (one record per action) and ``_lock`` are the Game's
    (game.py documents them). The physical hands are C words here (per seat, bit ``c`` of
    ``(_hi:_lo)`` for card id ``c``), read and changed through ``_hand_mask``, ``_toggle``,
    ``_set_masks`` and ``_copy_masks``.

    ``is_over``, ``table`` and ``to_act`` are read like slots (member descriptors over the
    ``_v_*`` fields, added below the class): a loop reads them at every decision, and a slot
    costs ~50 instructions where a property costs ~240 (CPython 3.11). They are copies of the
    State's, so every change of the State is followed by ``_sync`` (the C paths here, and
    game.py after each of its own)."""

    cdef public object _st
    cdef public list _log
    cdef public GameLock _lock
    cdef uint64_t _lo[4]        # the physical hands: ids 0..63 of each seat
    cdef uint64_t _hi[4]        # ids 64..107
    cdef PyObject* _v_over      # the views (owned references, never NULL): bool
    cdef PyObject* _v_table     # the table Play (the one played, or built once) or None
    cdef PyObject* _v_to_act    # int or None

    def __cinit__(self, *args, **kwargs):
        _put(&self._v_over, False)
        _put(&self._v_table, None)
        _put(&self._v_to_act, None)

    def __dealloc__(self):
        Py_XDECREF(self._v_over)
        Py_XDECREF(self._v_table)
        Py_XDECREF(self._v_to_act)

    def _sync(self):
        """Copy the State's ``is_over``, ``table`` and ``to_act`` into the views (after any
        change of the State, or of ``_st``)."""
        self._synced()

    cdef int _synced(self) except -1:
        cdef State st
        cdef object cur
        if not _is_kernel_state(self._st):
            _put(&self._v_over, bool(self._st.is_over))
            _put(&self._v_table, self._st.table)
            _put(&self._v_to_act, self._st.to_act)
            return 0
        st = <State>self._st
        # without a temporary object (most calls change only to_act): the views' objects are
        # the interpreter's True/False/None and the small ints of _ID_OBJS
        if st.st.over:
            _put_ptr(&self._v_over, Py_True)
            _put_ptr(&self._v_to_act, Py_None)
        else:
            if not 0 <= st.st.to_act < 4:
                raise AssertionError(f"the State's seat to act is {st.st.to_act}")
            _put_ptr(&self._v_over, Py_False)
            _put_ptr(&self._v_to_act, PyTuple_GET_ITEM(_ID_OBJS, st.st.to_act))
        if not st.st.table:
            _put_ptr(&self._v_table, Py_None)
            return 0
        cur = <object>self._v_table
        if (cur is None or (<Play>cur).tag != st.st.table
                or (<Play>cur).packed != st.st.table_word):  # else the same reading, kept
            _put(&self._v_table, st.table)
        return 0

    cdef inline int _seat_index(self, object seat) except -1:
        """``seat`` as an index of the hands (the callers check seats; this guards C)."""
        cdef int s = seat
        if not 0 <= s < 4:
            raise ValueError(f"seat must be 0..3, got {seat!r}")
        return s

    def _hand_mask(self, seat):
        """The ids ``seat`` holds, as a mask (bit ``c`` for card id ``c``)."""
        cdef int s = self._seat_index(seat)
        return _mask(self._lo[s], self._hi[s])

    def _masks(self):
        """The four hands' masks, a tuple."""
        return (_mask(self._lo[0], self._hi[0]), _mask(self._lo[1], self._hi[1]),
                _mask(self._lo[2], self._hi[2]), _mask(self._lo[3], self._hi[3]))

    def _set_masks(self, masks):
        """Set the four hands from their masks (ints of ids 0..107)."""
        cdef int s
        if len(masks) != 4:
            raise ValueError("a deal has 4 hands")
        for s in range(4):
            m = masks[s]
            if not 0 <= m < (1 << 108):
                raise ValueError(f"a hand's mask must hold ids 0..107, got {m!r}")
            self._lo[s] = m & _M64
            self._hi[s] = m >> 64

    def _toggle(self, seat, tuple ids):
        """Flip the card ids ``ids`` in ``seat``'s hand: a play takes them (they were held),
        undo gives them back (they were not)."""
        cdef int s = self._seat_index(seat)
        cdef int c
        for x in ids:
            c = x
            if not 0 <= c < 108:
                raise ValueError(f"card id {c} is out of range 0..107")
        for x in ids:
            c = x
            if c < 64:
                self._lo[s] ^= (<uint64_t>1) << c
            else:
                self._hi[s] ^= (<uint64_t>1) << (c - 64)

    def _copy_masks(self, _Base other):
        """The hands of ``other`` (a copy of its game)."""
        cdef int s
        for s in range(4):
            self._lo[s] = other._lo[s]
            self._hi[s] = other._hi[s]

    def _deal(self, object rules, uint64_t seed, object leader):
        """The seeded deal of ``Game(rules, seed)`` (``rng.deal``: ``_state.pxd``'s
        ``sk_deal``, the 明牌 swap included) into this game on the kernel's State: sets
        ``_st`` and the hands; returns ``(dealt, initial_hands, swap, revealed, first_leader)``
        as ``Game._setup`` makes them (``leader``, a seat 0..3 the caller checked, overrides
        a drawn first leader). One C pass instead of ``rng.deal`` + ``_setup``'s Python."""
        cdef SkDeal d
        cdef State st = State.__new__(State)
        cdef uint64_t lo[4]
        cdef uint64_t hi[4]
        cdef uint64_t t
        cdef int s, i, c, a, b, first
        st._set_rules(rules)
        sk_deal(seed, rules.first_leader == "revealed", &d)
        first = d.leader if leader is None else <int>leader
        sk_init(&st.st, d.hands, first)
        dealt = PyTuple_New(4)
        for s in range(4):
            lo[s] = 0
            hi[s] = 0
            hand = PyTuple_New(27)
            for i in range(27):
                c = d.deck[27 * s + i]
                _set(&lo[s], &hi[s], c)
                _put_id(hand, i, c)
            Py_INCREF(hand)
            PyTuple_SET_ITEM(dealt, s, hand)
        swap = None
        if d.swap_a >= 0:  # the seats' hands as sk_deal swapped them
            a, b = d.swap_a, d.swap_b
            t = lo[a]; lo[a] = lo[b]; lo[b] = t
            t = hi[a]; hi[a] = hi[b]; hi[b] = t
            swap = (a, b)
        self._st = st
        for s in range(4):
            self._lo[s] = lo[s]
            self._hi[s] = hi[s]
        self._synced()
        hands = (_ids(lo[0], hi[0]), _ids(lo[1], hi[1]), _ids(lo[2], hi[2]),
                 _ids(lo[3], hi[3]))
        return dealt, hands, swap, None if d.revealed < 0 else d.revealed, first

    def can_pass(self):
        """Whether passing is legal now (R4: answering, not leading)."""
        cdef State st
        if _is_kernel_state(self._st):
            st = <State>self._st
            return not st.st.over and st.st.table != 0
        return not self._st.is_over and self._st.table is not None

    def legal_plays(self, wilds="all"):
        """The plays the seat to act may make, in the kernel's order (``plays.legal_plays``):
        all of them when leading, else those that beat the table (passing, when answering, is
        also legal and not listed). Empty once the deal is over. ``play(i)`` plays the
        ``i``-th play of ``legal_plays()`` (``wilds="all"``)."""
        cdef State st
        cdef bint fewest = wilds_fewest(wilds)
        # under the lock: the State's cache of legal plays, read while the list is built (its
        # Play objects are allocated, so another thread could run), is rewritten by a move
        self._lock.take()
        try:
            if not _is_kernel_state(self._st):
                return list(self._st.legal(wilds))
            st = <State>self._st
            st._ensure_legal(fewest)
            return play_list(st._lw, st._lt, st._ln, st.p.flags + 1)
        finally:
            self._lock.give()

    def play(self, cards, kind=None, *, seat=None):
        """Play for the seat to act (``seat``, if given, must be that seat). Returns the play
        as read. ``Play.PASS`` passes. ``cards`` may also be an int: the index of the play in
        :meth:`legal_plays` (``wilds="all"``). See the module docstring for the other forms.

        An index or a :class:`Play` of the current legal list is applied as it is (no
        classifying); anything else is read and validated first."""
        self._lock.take()
        try:
            if kind is None and type(cards) is Play and self._apply(<Play>cards, seat):
                return cards
            return self._play(cards, kind, seat)
        finally:
            self._lock.give()

    def pass_(self, *, seat=None):
        """Pass (R4: not allowed when leading)."""
        cdef State st
        cdef int s, trick
        self._lock.take()
        try:
            if _is_kernel_state(self._st):
                st = <State>self._st
                s = st.st.to_act
                if (not st.st.over and st.st.table != 0
                        and (seat is None or type(seat) is int and seat == s)):
                    trick = st.st.trick
                    st._push_undo()
                    sk_pass(&st.st)
                    st._moved()
                    self._log.append(("pass", s, (), None, trick))
                    self._synced()
                    return
            self._pass(seat)
        finally:
            self._lock.give()

    cdef bint _apply(self, Play p, object seat) except -1:
        """Apply ``p`` if it is in the legal list of the seat to act (and ``seat`` is that
        seat); False (nothing changed) otherwise."""
        cdef State st
        cdef int s, k, trick
        cdef uint64_t tlo, thi
        if not _is_kernel_state(self._st) or p.tag == 0:
            return False
        st = <State>self._st
        s = st.st.to_act
        if st.st.over or not (seat is None or type(seat) is int and seat == s):
            return False
        st._ensure_legal(False)
        for k in range(st._ln):
            if st._lw[k] == p.packed and st._lt[k] == p.tag:
                break
        else:
            return False
        if _take(p.packed, self._lo[s], self._hi[s], &tlo, &thi) < 0:
            raise AssertionError("the rank-level hand and the physical hand disagree")
        taken = _ids(tlo, thi)
        trick = st.st.trick
        st._push_undo()
        sk_play(&st.st, p.packed, p.tag)
        st._moved()
        self._lo[s] ^= tlo
        self._hi[s] ^= thi
        self._log.append(("play", s, taken, p, trick))
        _put(&self._v_table, p)  # the table is the play just made: kept as it is
        self._synced()
        return True


# The views of _Base as member descriptors (see its docstring). The PyMemberDef entries must
# outlive the type: module-level C storage.
cdef PyMemberDef _VIEWS[3]


cdef int _add_views() except -1:
    cdef _Base probe = _Base.__new__(_Base)
    cdef char* base = <char*><PyObject*>probe
    cdef PyTypeObject* t = <PyTypeObject*>_Base
    sk_add_view(t, &_VIEWS[0], "is_over", <char*>&probe._v_over - base,
                "Whether the deal is over.")
    sk_add_view(t, &_VIEWS[1], "table", <char*>&probe._v_table - base,
                "The play to beat, ``None`` when the seat to act leads.")
    sk_add_view(t, &_VIEWS[2], "to_act", <char*>&probe._v_to_act - base,
                "The seat to act, ``None`` once the deal is over.")
    return 0


_add_views()
