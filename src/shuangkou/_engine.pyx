# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""``shuangkou.State``: a deal's position as a small, fast Python object over the C game state
of ``_state.pxd`` (RULES.md R7 flow, R8 scoring), for search, RL and Python policies.

The contract is docs/internals.md ("The game state"). Besides :class:`State` this module
holds the two views it hands out (:class:`LegalPlays`, :class:`SeatView`), the generator
(:class:`SplitMix64`) and the seeded deal (:func:`deal_cards`) that :mod:`shuangkou.rng`
re-exports.
"""

cimport cython
from cpython.long cimport PyLong_AsLongLongAndOverflow
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.stdint cimport int8_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from _packed cimport nib, valid_word
from _readings cimport K_BOMB, sk_classify, tag_kind
from _state cimport (
    SK_MAX_BOMBS, SK_MODE_BAIBIAN, SK_MODE_CLASSIC, SK_MODE_JJ, SK_MODE_QIANBIAN,
    SK_OUT_ESCAPE, SkDeal, SkParams, SkScore, SkState, SkUndo, sk_abandon, sk_core_bytes, sk_deal, sk_decided,
    sk_equal, sk_init, sk_legal, sk_next_active, sk_params_init, sk_pass, sk_play,
    sk_rehash, sk_restore, sk_rng_bounded, sk_rng_next, sk_save, sk_score, sk_shuffle,
)
from _budget cimport (
    SK_STOP_TIME, SK_STOP_WORK, SkBudget, budget_init, budget_raise, budget_tick,
)
from shuangkou._core cimport Play, play_list, play_of, wilds_fewest

from operator import index as _index

from ._check import as_int, as_seat, as_seconds, as_seed
from .cards import HAND_SIZE, Hand
from .errors import ArgumentError, IllegalPlayError, LimitError, PositionError
from .rules import Rules, as_rules
from .scoring import BombScore, Outcome, Result

if sk_core_bytes() > sizeof(SkUndo):
    raise ImportError("SkUndo is smaller than the core of SkState (raise SK_UNDO_WORDS)")

__all__ = ["LegalPlays", "SeatView", "SplitMix64", "State", "deal_cards"]

cdef dict _MODES = {
    "classic": SK_MODE_CLASSIC, "baibian": SK_MODE_BAIBIAN, "jj": SK_MODE_JJ,
    "qianbian": SK_MODE_QIANBIAN,
}
cdef tuple _OUTCOMES = (Outcome.DOUBLE_WIN, Outcome.SINGLE_WIN, Outcome.TIE, Outcome.ESCAPE)
cdef tuple _Z4 = (0, 0, 0, 0)
cdef int _MIN_LEGAL_CAP = 256


cdef inline object _play(uint64_t word, uint32_t tag):
    """A play of the position whose reading is not re-checked (``_core.play_of``)."""
    return play_of(word, tag, 0)


cdef int _seat(object seat, str what="seat") except -1:
    """A seat 0..3 by the argument rule of ``_check`` (a plain int is the fast path); a
    refusal names the argument ``what``."""
    if type(seat) is int and 0 <= seat < 4:
        return seat
    return as_seat(seat, what)


cdef uint64_t _hand_word(object h, int seat) except? 0xFFFFFFFFFFFFFFFF:
    """A hand given as Hand, rank text or packed int (validated)."""
    if isinstance(h, Hand):
        return h.packed
    if isinstance(h, str):
        return Hand.parse(h).packed
    if isinstance(h, int) and not isinstance(h, bool):
        if h < 0 or h >= (1 << 60) or not valid_word(<uint64_t>h):
            raise ValueError(f"hand of seat {seat}: {h!r} is not a packed cards word")
        return <uint64_t>h
    raise TypeError(f"hand of seat {seat} must be a Hand, card text or packed int, "
                    f"not {type(h).__name__}")


cdef object _as_play(object p, object rules, str what):
    if isinstance(p, str):
        p = Play.parse(p, rules)
    if not isinstance(p, Play):
        raise TypeError(f"{what} must be a Play or card text, not {type(p).__name__}")
    if p._reads_under(rules.flags):  # Play's one reading check (plays._table_tag's too)
        return p
    raise ValueError(f"{what} {p.cards} does not read as {p.describe()} under {rules.name}")


@cython.final
@cython.auto_pickle(False)
cdef class State:
    """A deal's position at rank level (docs/internals.md "The game state"; R7, R8).

    Build it with :meth:`deal` (the start of play of ``Game(rules, seed)``), :meth:`from_position`
    or :meth:`parse`. ``legal()`` is a live view of the plays of the seat to act; ``play``
    takes a :class:`Play` or an index into it, ``pass_``, ``abandon`` and ``undo`` move, and
    ``copy`` branches. Equality and ``hash()`` are by position (hands, seat to act, table and
    owner, passes, places, bombs played per seat, escape), never by history.

    Threads: every method runs with the GIL held except ``perft``, which searches a private
    copy of the position, so a State shared between threads is never corrupted; but its moves
    interleave, so give each thread its own (``copy()``).
    """

    def __cinit__(self):
        self._undo = NULL
        self._n_undo = 0
        self._cap_undo = 0
        self._slots = NULL
        self._arena = NULL
        self._lw = NULL
        self._lt = NULL
        self._ln = 0
        self._serial = _new_serial()
        self._result = None

    def __dealloc__(self):
        cdef int i
        PyMem_Free(self._undo)
        if self._slots != NULL:
            for i in range(LEGAL_SLOTS):
                if self._slots[i].own:
                    PyMem_Free(self._slots[i].words)
                    PyMem_Free(self._slots[i].tags)
            PyMem_Free(self._slots)
        PyMem_Free(self._arena)

    def __init__(self):
        raise TypeError("build a State with State.deal, State.from_position or State.parse")

    cdef void _set_rules(self, object rules) except *:
        self._rules = rules
        sk_params_init(&self.p, rules.flags, _MODES[rules.scoring])
        self.p.base_score = rules.base_score
        self.p.four_jokers_multiplier = rules.four_jokers_multiplier
        self.p.jj_single_win = rules.jj_single_win
        self.p.held_bombs = rules.held_bombs_score
        self.p.score_cap = rules.score_cap or 0
        self.p.escape_penalty = rules.escape_penalty

    # -- construction --------------------------------------------------------------------------
    @staticmethod
    def deal(rules, seed):
        """The position at the start of play of ``Game(rules, seed)``: the seeded deal of
        :mod:`shuangkou.rng`, the first leader drawn (R7), after the 明牌 swap."""
        cdef State s = State.__new__(State)
        cdef SkDeal d
        cdef uint64_t seed64 = as_seed(seed)
        s._set_rules(as_rules(rules))
        sk_deal(seed64, s._rules.first_leader == "revealed", &d)
        sk_init(&s.st, d.hands, d.leader)
        return s

    @staticmethod
    def from_position(rules, hands, to_act, *, table=None, table_owner=None, passes=0,
                      places=(), bombs=((), (), (), ()), leader=None, trick=0, escape=None,
                      hand_size=HAND_SIZE):
        """A position set up by hand: ``hands`` 4 × (Hand | text | packed int), ``to_act`` the
        seat to act (None only for a finished deal), ``table`` the play to beat (a Play or
        text; None when leading) and its ``table_owner``, ``passes`` since it, ``places`` the
        seats already out in order, ``bombs`` per seat the bombs already played (R8 counts
        them; a bomb on the table is among its owner's), ``leader`` the seat that led the trick
        (default: the table's owner, or ``to_act`` when leading), ``trick``, ``escape`` the
        seat that abandoned. ``hand_size`` is the cards a seat was dealt (27; ``None`` for a
        scripted deal of other sizes). Raises ``ValueError`` on an impossible position
        (:func:`shuangkou.position.check_position` for the cards: :func:`cards_problem`)."""
        cdef State s = State.__new__(State)
        cdef uint64_t words[4]
        cdef int i, seat, n, owner = -1
        cdef bint over
        r_ = as_rules(rules)
        s._set_rules(r_)
        if len(hands) != 4:
            raise ValueError("a position has 4 hands")
        if hand_size is not None:
            hand_size = as_int(hand_size, "hand_size", 1, 108)
        for i in range(4):
            words[i] = _hand_word(hands[i], i)
        sk_init(&s.st, words, 0)
        # places, escape: is the deal over?
        placed = []
        for x in places:
            seat = _seat(x)
            if seat in placed:
                raise ValueError(f"seat {seat} is out twice in places")
            placed.append(seat)
        for seat in range(4):
            if (s.st.ncards[seat] == 0) != (seat in placed):
                raise ValueError(f"seat {seat}: a seat is in places exactly when it has no cards")
        for i, seat in enumerate(placed):
            s.st.places[i] = <int8_t>seat
        s.st.nplaces = len(placed)
        if escape is not None:
            s.st.escape = <int8_t>_seat(escape, "escape")
        over = escape is not None or sk_decided(&s.st)
        if over:
            if to_act is not None:
                raise ValueError("the deal is over at this position (R7): nobody is to act")
            s.st.over = 1
            s.st.to_act = -1
        else:
            if to_act is None:
                raise ValueError("the deal is not over at this position (R7): name the seat "
                                 "to act (to_act)")
            s.st.to_act = <int8_t>_seat(to_act, "to_act")
            if s.st.ncards[s.st.to_act] == 0:
                raise ValueError(f"seat {to_act} has no cards and cannot act")
        # table; R7: at most the three other seats pass a play
        passes = as_int(passes, "passes", 0, 3)
        t = None
        if table is None:
            if table_owner is not None or passes:
                raise ValueError("no table: table_owner must be None and passes 0")
        else:
            t = _as_play(table, r_, "table")
            if table_owner is None:
                raise ValueError("a table play needs its table_owner")
            owner = _seat(table_owner, "table_owner")
            s.st.table = t.tag
            s.st.table_word = t.packed
            s.st.owner = <int8_t>owner
            if s.st.ncards[owner] == 0 and (not placed or placed[len(placed) - 1] != owner):
                # R7: a seat out is skipped, so a table play of a seat out was its last card
                # and nobody went out after it (that play would have covered it)
                raise ValueError(f"seat {owner} is out but was not the last to go out")
            if not over:
                if owner == s.st.to_act:
                    raise ValueError("the table's owner cannot be the seat to act (the trick "
                                     "would be over)")
                # passes: the seat to act is the one after the owner and the seats that passed
                n = 0
                for seat in range(4):
                    if s.st.ncards[seat] and seat != owner:
                        n += 1
                passes = as_int(passes, "passes", 0, n - 1)  # the seats that may pass here
                seat = owner
                for i in range(passes + 1):
                    seat = sk_next_active(&s.st, seat)
                if seat != s.st.to_act:
                    raise ValueError(f"after seat {owner}'s play and {passes} pass(es) it is "
                                     f"seat {seat}'s turn, not seat {to_act}'s")
            s.st.passes = <int8_t>passes
        # bombs already played
        if len(bombs) != 4:
            raise ValueError("bombs must list the bombs of each of the 4 seats")
        for seat in range(4):
            for b in bombs[seat]:
                b = _as_play(b, r_, f"bomb of seat {seat}")
                if tag_kind(b.tag) < K_BOMB:
                    raise ValueError(f"bombs of seat {seat}: {b.describe()} is not a bomb")
                if s.st.nbombs >= SK_MAX_BOMBS:
                    raise ValueError(f"more than {SK_MAX_BOMBS} bombs")
                s.st.bomb_seat[s.st.nbombs] = <int8_t>seat
                s.st.bomb_tag[s.st.nbombs] = b.tag
                s.st.bomb_word[s.st.nbombs] = b.packed
                s.st.nbombs += 1
        problem = _cards_problem(s.st.hand, s.st.table_word, s.st.table, owner, s.st.nbombs,
                                 s.st.bomb_seat, s.st.bomb_word, s.st.bomb_tag,
                                 0 if hand_size is None else hand_size)
        if problem is not None:
            raise PositionError(problem)
        if leader is None:
            leader = owner if table is not None else (0 if to_act is None else to_act)
        s.st.leader = <int8_t>_seat(leader, "leader")
        s.st.first_leader = s.st.leader
        s.st.trick = as_int(trick, "trick", 0, 32767)
        s.st.hash = sk_rehash(&s.st)
        return s

    @staticmethod
    def parse(text, rules):
        """The position written by ``str(state)`` (docs/position.md)."""
        from .position import parse_position

        return parse_position(text, rules)

    def __str__(self):
        from .position import format_position

        return format_position(self)

    def __repr__(self):
        counts = "/".join(str(self.st.ncards[i]) for i in range(4))
        status = "over" if self.st.over else f"seat {self.st.to_act} to act"
        return f"<State {self._rules.name} {status}, cards {counts}>"

    # -- the position --------------------------------------------------------------------------
    @property
    def rules(self):
        """The :class:`Rules`."""
        return self._rules

    @property
    def to_act(self):
        """The seat to act, None once the deal is over."""
        return None if self.st.over else self.st.to_act

    @property
    def table(self):
        """The play to beat, None when the seat to act leads (or the deal ended on a lead)."""
        if not self.st.table:
            return None
        # a reading under these rules (legal when played): a table that costs no check
        return play_of(self.st.table_word, self.st.table, self.p.flags + 1)

    @property
    def table_owner(self):
        return self.st.owner if self.st.table else None

    @property
    def passes(self):
        """Passes since the top play."""
        return self.st.passes

    @property
    def leader(self):
        """The seat that led the current trick."""
        return self.st.leader

    @property
    def trick(self):
        """Number of the current trick, 0-based."""
        return self.st.trick

    @property
    def places(self):
        """Seats out, in finishing order (the full ranking is ``result.places``)."""
        return tuple(self.st.places[i] for i in range(self.st.nplaces))

    @property
    def escape(self):
        """The seat that abandoned, if any."""
        return None if self.st.escape < 0 else self.st.escape

    @property
    def is_over(self):
        return self.st.over != 0

    @property
    def hash(self):
        """64-bit Zobrist hash of the position (equal positions, equal hash)."""
        return self.st.hash

    @property
    def card_counts(self):
        return (self.st.ncards[0], self.st.ncards[1], self.st.ncards[2], self.st.ncards[3])

    def hand(self, seat):
        """The rank multiset ``seat`` holds."""
        return Hand._from_packed_unchecked(self.st.hand[_seat(seat)])

    def cards_left(self, seat):
        return self.st.ncards[_seat(seat)]

    def cards_played(self, seat):
        """The cards ``seat`` played since the position was set up."""
        cdef int s = _seat(seat)
        return Hand._from_packed_unchecked(self.st.start[s] - self.st.hand[s])

    def bombs_played(self, seat):
        """The bombs ``seat`` played, in order (those given to :meth:`from_position` first)."""
        cdef int s = _seat(seat), i
        return tuple(_play(self.st.bomb_word[i], self.st.bomb_tag[i])
                     for i in range(self.st.nbombs) if self.st.bomb_seat[i] == s)

    def history(self):
        """The public record of the deal since the position was set up (R6: every seat sees
        every action): one ``(seat, play)`` an action in order, ``play`` ``None`` for a pass;
        an abandon (逃跑) is not listed (it ends the deal: :attr:`escape`). Read from the undo
        records, so a position from :meth:`from_position` or unpickled starts with none, and
        :meth:`copy` keeps it."""
        cdef SkState a, b
        cdef int i, seat
        cdef uint64_t word
        out = []
        for i in range(self._n_undo):
            sk_restore(&a, &self._undo[i].core)
            if i + 1 < self._n_undo:
                sk_restore(&b, &self._undo[i + 1].core)
            else:
                b = self.st
            seat = a.to_act
            if b.escape != a.escape or not 0 <= seat < 4:
                continue
            word = a.hand[seat] - b.hand[seat]
            out.append((seat, _play(word, b.table) if word else None))
        return out

    def can_pass(self):
        """Is passing legal (R4: answering, not leading)?"""
        return not self.st.over and self.st.table != 0

    def legal(self, wilds="all"):
        """The plays of the seat to act, a live view (``len``, ``[i]``, iteration, ``in``; a
        :class:`Play` is built only when asked for). Order: ``legal_plays(hand, rules, table,
        wilds)``'s; pass is not in it (see :meth:`can_pass`)."""
        cdef LegalPlays v = LegalPlays.__new__(LegalPlays)
        v._s = self
        v._fewest = wilds_fewest(wilds)
        v._seat = -1
        return v

    def view(self, seat):
        """What ``seat`` may know (:class:`SeatView`)."""
        cdef SeatView v = SeatView.__new__(SeatView)
        v._s = self
        v._seat = _seat(seat)
        return v

    # -- the cache of legal plays --------------------------------------------------------------
    cdef int _ensure_legal(self, bint fewest) except -1:
        cdef _Legal* c
        cdef int i
        if self._slots == NULL:
            # every slot's first buffers in one allocation (a game visits all the slots: 2
            # allocations instead of 32, and 2 frees)
            self._arena = PyMem_Malloc(LEGAL_SLOTS * _MIN_LEGAL_CAP
                                       * (sizeof(uint64_t) + sizeof(uint32_t)))
            self._slots = <_Legal*>PyMem_Malloc(LEGAL_SLOTS * sizeof(_Legal))
            if self._slots == NULL or self._arena == NULL:
                PyMem_Free(self._slots)
                PyMem_Free(self._arena)
                self._slots = NULL
                self._arena = NULL
                raise MemoryError()
            memset(self._slots, 0, LEGAL_SLOTS * sizeof(_Legal))
            for i in range(LEGAL_SLOTS):
                self._slots[i].words = <uint64_t*>self._arena + i * _MIN_LEGAL_CAP
                self._slots[i].tags = (<uint32_t*>(<uint64_t*>self._arena
                                                   + LEGAL_SLOTS * _MIN_LEGAL_CAP)
                                       + i * _MIN_LEGAL_CAP)
                self._slots[i].cap = _MIN_LEGAL_CAP
        c = &self._slots[self._n_undo & (LEGAL_SLOTS - 1)]
        if c.serial != self._serial or c.fewest != fewest:
            c.n = sk_legal(&self.p, &self.st, fewest, c.words, c.tags, c.cap)
            if c.n > c.cap:
                _grow(c, c.n)
                sk_legal(&self.p, &self.st, fewest, c.words, c.tags, c.cap)
            c.fewest = fewest
            c.serial = self._serial
        self._lw = c.words
        self._lt = c.tags
        self._ln = c.n
        return 0

    cdef int _push_undo(self) except -1:
        cdef _Undo* grown
        if self._n_undo == self._cap_undo:
            grown = <_Undo*>PyMem_Realloc(self._undo, (self._cap_undo * 2 + 32) * sizeof(_Undo))
            if grown == NULL:
                raise MemoryError()
            self._undo = grown
            self._cap_undo = self._cap_undo * 2 + 32
        sk_save(&self.st, &self._undo[self._n_undo].core)
        self._undo[self._n_undo].serial = self._serial
        self._n_undo += 1
        return 0

    cdef void _moved(self) noexcept:
        self._serial = _new_serial()
        self._result = None

    # -- actions -------------------------------------------------------------------------------
    def play(self, p):
        """Play for the seat to act: ``p`` an index into ``legal()`` (wilds="all") or a
        :class:`Play` (``Play.PASS`` passes). A play of the legal list is applied as it is;
        anything else raises :class:`IllegalPlayError` naming it, and changes nothing."""
        cdef int i, n, overflow
        cdef long long k
        cdef uint64_t w
        cdef uint32_t t
        if isinstance(p, bool):  # an int subclass, but True is no index (the argument rule)
            raise ArgumentError(f"play takes a Play or an index into legal(), not a bool ({p!r})")
        if self.st.over:
            raise IllegalPlayError(f"illegal play {p!r}: the deal is over")
        if type(p) is int or (not isinstance(p, Play) and hasattr(p, "__index__")):
            k = PyLong_AsLongLongAndOverflow(p if type(p) is int else _index(p), &overflow)
            self._ensure_legal(False)
            if overflow or not 0 <= k < self._ln:
                raise IllegalPlayError(
                    f"illegal play index {p}: seat {self.st.to_act} has {self._ln} legal plays")
            w = self._lw[k]
            t = self._lt[k]
        elif isinstance(p, Play):
            if not p:
                self.pass_()
                return
            w = (<Play>p).packed
            t = (<Play>p).tag
            self._ensure_legal(False)
            n = self._ln
            for i in range(n):
                if self._lw[i] == w and self._lt[i] == t:
                    break
            else:
                raise IllegalPlayError(self._why_illegal(p))
        else:
            raise TypeError(f"play takes a Play or an index into legal(), not "
                            f"{type(p).__name__}")
        self._push_undo()
        sk_play(&self.st, w, t)
        self._moved()

    cdef str _why_illegal(self, object p):
        cdef int s = self.st.to_act, r
        cdef uint32_t tags[2]
        cdef int n
        what = f"illegal play {p.describe()} [{p}] by seat {s}"
        for r in range(15):
            if ((p.packed >> (4 * r)) & 15) > ((self.st.hand[s] >> (4 * r)) & 15):
                return f"{what}: the hand does not hold {p.cards}"
        n = sk_classify(p.packed, self.p.flags, tags)
        if p.tag not in [tags[i] for i in range(n)]:
            return f"{what}: {p.cards} does not read as {p.describe()} under {self._rules.name}"
        return f"{what}: it does not beat the table {self.table.describe()}"

    def pass_(self):
        """Pass (R4: only when answering)."""
        if self.st.over:
            raise IllegalPlayError("illegal pass: the deal is over")
        if self.st.table == 0:
            raise IllegalPlayError(
                f"illegal pass by seat {self.st.to_act}: the leader of a trick must play (R4)")
        self._push_undo()
        sk_pass(&self.st)
        self._moved()

    def abandon(self, seat):
        """``seat`` abandons (逃跑): the deal ends at once with R8's escape penalty."""
        cdef int s
        try:
            s = _seat(seat)
        except ValueError as e:
            raise IllegalPlayError(f"illegal abandon: {e}") from None
        if self.st.over:
            raise IllegalPlayError(f"illegal abandon by seat {s}: the deal is over")
        self._push_undo()
        sk_abandon(&self.st, s)
        self._moved()

    def undo(self):
        """Revert the last action (play, pass or abandon). Raises if there is none."""
        if self._n_undo == 0:
            raise IllegalPlayError("nothing to undo")
        self._n_undo -= 1
        sk_restore(&self.st, &self._undo[self._n_undo].core)
        self._serial = self._undo[self._n_undo].serial     # the cache may hold its plays
        self._result = None

    def copy(self):
        """An independent copy (undo history included)."""
        cdef State c = State.__new__(State)
        c.st = self.st
        c.p = self.p
        c._rules = self._rules
        if self._n_undo:
            c._undo = <_Undo*>PyMem_Malloc(self._n_undo * sizeof(_Undo))
            if c._undo == NULL:
                raise MemoryError()
            memcpy(c._undo, self._undo, self._n_undo * sizeof(_Undo))
            c._n_undo = c._cap_undo = self._n_undo
        c._result = self._result
        return c

    def __copy__(self):
        return self.copy()

    def __reduce__(self):
        """Pickles as the position (``from_position``'s arguments; no undo history)."""
        return (_rebuild, (self._rules, tuple(self.st.hand[i] for i in range(4)), self.to_act,
                           self.table, self.table_owner, self.st.passes, self.places,
                           tuple(self.bombs_played(i) for i in range(4)), self.st.leader,
                           self.st.trick, self.escape))

    def __deepcopy__(self, memo):
        return self.copy()

    def __eq__(self, other):
        if not isinstance(other, State):
            return NotImplemented
        cdef State o = other
        return (self._rules is o._rules or self._rules == o._rules) and sk_equal(&self.st, &o.st)

    def __hash__(self):
        return <Py_hash_t>(self.st.hash >> 2)

    def perft(self, depth, *, max_nodes=None, time_limit=None):
        """Leaves of the game tree ``depth`` actions (plays and passes) below this position (a
        finished deal is a leaf), counted in C by make/unmake on a copy of the struct, GIL
        released: a check of move generation and flow, and the C speed of a plain search.

        The count grows ~50-fold a level: ``max_nodes`` (positions expanded, the leaves not
        counted) and ``time_limit`` (seconds) bound it (default: none) and raise
        :class:`~shuangkou.errors.LimitError` when reached; Ctrl-C raises
        ``KeyboardInterrupt`` within milliseconds."""
        cdef SkState work = self.st
        cdef int d = as_int(depth, "depth", 0, 2**31 - 1)
        cdef int cap = 1 << 20
        cdef int64_t n
        cdef SkBudget b
        cdef long long nodes = 0 if max_nodes is None else as_int(max_nodes, "max_nodes", 1,
                                                                   2**63 - 1)
        cdef double seconds = 0 if time_limit is None else as_seconds(time_limit, "time_limit")
        budget_init(&b, nodes, seconds)
        cdef uint64_t* words = <uint64_t*>PyMem_Malloc(cap * sizeof(uint64_t))
        cdef uint32_t* tags = <uint32_t*>PyMem_Malloc(cap * sizeof(uint32_t))
        try:
            if words == NULL or tags == NULL:
                raise MemoryError()
            with nogil:
                n = _perft(&self.p, &work, d, words, tags, cap, &b)
        finally:
            PyMem_Free(words)
            PyMem_Free(tags)
        budget_raise(&b)        # Ctrl-C: its KeyboardInterrupt
        if b.stop == SK_STOP_WORK:
            raise LimitError(f"perft({d}) expanded more than max_nodes={max_nodes} positions")
        if b.stop == SK_STOP_TIME:
            raise LimitError(f"perft({d}) ran past time_limit={time_limit} s")
        if n < 0:
            raise OverflowError("more plays along one line than the search buffers hold")
        return n

    # -- the result ----------------------------------------------------------------------------
    @property
    def result(self):
        """The :class:`~shuangkou.scoring.Result` once the deal is over (R8, computed by the
        kernel: base, multiplier and its bombs, contributions of played and held bombs, cap,
        escape), else None."""
        if not self.st.over:
            return None
        if self._result is None:
            self._result = _result(self)
        return self._result


cdef int64_t _perft(const SkParams* p, SkState* st, int depth, uint64_t* words,
                    uint32_t* tags, int cap, SkBudget* b) noexcept nogil:
    """Leaves ``depth`` actions below ``st`` (a finished deal is a leaf), by make/unmake on
    the one struct, one budget tick a position expanded (not a leaf: the tick would cost ~5 %
    of perft); -1 if the play buffers are too small, -2 if the budget stopped it (``b.stop``
    says why)."""
    cdef int i, n
    cdef int64_t total = 0, sub
    cdef SkUndo u
    if depth == 0 or st.over:
        return 1
    if budget_tick(b):
        return -2
    n = sk_legal(p, st, False, words, tags, cap)
    if n > cap:
        return -1
    for i in range(n + (st.table != 0)):
        sk_save(st, &u)
        if i < n:
            sk_play(st, words[i], tags[i])
        else:
            sk_pass(st)
        sub = _perft(p, st, depth - 1, words + n, tags + n, cap - n, b)
        sk_restore(st, &u)
        if sub < 0:
            return sub
        total += sub
    return total


cdef str _RANKS = "3 4 5 6 7 8 9 10 J Q K A 2 SJ BJ"


cdef object _cards_problem(const uint64_t* hands, uint64_t table_word, uint32_t table_tag,
                           int owner, int nbombs, const int8_t* bomb_seat,
                           const uint64_t* bomb_word, const uint32_t* bomb_tag, int hand_size):
    """The one rule of what a position's cards may be (``shuangkou.position.check_position``
    documents it): None, or what is wrong. ``table_tag`` 0: no table; ``hand_size`` 0: a
    scripted deal (no per-seat limit)."""
    cdef int total[15]
    cdef int dealt[4]
    cdef int r, s, k
    cdef bint found
    memset(total, 0, sizeof(total))
    memset(dealt, 0, sizeof(dealt))
    for s in range(4):
        for r in range(15):
            total[r] += nib(hands[s], r)
            dealt[s] += nib(hands[s], r)
    for k in range(nbombs):
        for r in range(15):
            total[r] += nib(bomb_word[k], r)
            dealt[bomb_seat[k]] += nib(bomb_word[k], r)
    if table_tag != 0 and 0 <= owner < 4:
        if tag_kind(table_tag) >= K_BOMB:
            found = False
            for k in range(nbombs):
                if (bomb_seat[k] == owner and bomb_word[k] == table_word
                        and bomb_tag[k] == table_tag):
                    found = True
            if not found:
                t = _play(table_word, table_tag)
                return (f"the table bomb {t.describe()} [{t}] is not among the bombs seat "
                        f"{owner} played (a bomb on the table was played by its owner)")
        else:
            for r in range(15):
                total[r] += nib(table_word, r)
                dealt[owner] += nib(table_word, r)
    for r in range(15):
        if total[r] > (8 if r < 13 else 2):
            return (f"more cards than the decks hold: {total[r]} cards {_RANKS.split()[r]} "
                    f"(more than {8 if r < 13 else 2}) in the hands, the table and the bombs "
                    f"played")
    if hand_size > 0:
        for s in range(4):
            if dealt[s] > hand_size:
                return (f"seat {s} holds and played (bombs, its table play) {dealt[s]} cards: "
                        f"a seat is dealt {hand_size}")
    return None


def cards_problem(hands, uint64_t table_word, uint32_t table_tag, int owner, bombs,
                  int hand_size):
    """:func:`shuangkou.position.check_position` on packed words: ``hands`` 4 words,
    ``bombs`` ``(seat, word, tag)`` triples; None or the problem (the caller raises)."""
    cdef uint64_t words[4]
    cdef int8_t seats[SK_MAX_BOMBS]
    cdef uint64_t bwords[SK_MAX_BOMBS]
    cdef uint32_t btags[SK_MAX_BOMBS]
    cdef int i, n = len(bombs)
    if n > SK_MAX_BOMBS:
        return f"more than {SK_MAX_BOMBS} bombs"
    for i in range(4):
        words[i] = hands[i]
    for i in range(n):
        seats[i] = _seat(bombs[i][0])
        bwords[i] = bombs[i][1]
        btags[i] = bombs[i][2]
    return _cards_problem(words, table_word, table_tag, owner, n, seats, bwords, btags,
                          hand_size)


def _rebuild(rules, hands, to_act, table, owner, passes, places, bombs, leader, trick, escape):
    """Unpickle a State."""
    return State.from_position(rules, hands, to_act, table=table, table_owner=owner,
                               passes=passes, places=places, bombs=bombs, leader=leader,
                               trick=trick, escape=escape)


cdef uint64_t _serial_counter = 0


cdef inline uint64_t _new_serial() noexcept:
    """A serial no position has had (the GIL serialises the counter)."""
    global _serial_counter
    _serial_counter += 1
    return _serial_counter


cdef int _grow(_Legal* c, int n) except -1:
    """Room for ``n`` plays in the slot (its list is generated again: nothing is kept). A slot
    still on its arena buffers gets buffers of its own."""
    cdef int cap = n if n > _MIN_LEGAL_CAP else _MIN_LEGAL_CAP
    if not c.own:
        c.words = NULL
        c.tags = NULL
        c.cap = 0
        c.own = True
    cdef uint64_t* w = <uint64_t*>PyMem_Realloc(c.words, cap * sizeof(uint64_t))
    if w == NULL:
        raise MemoryError()
    c.words = w
    cdef uint32_t* t = <uint32_t*>PyMem_Realloc(c.tags, cap * sizeof(uint32_t))
    if t == NULL:
        raise MemoryError()
    c.tags = t
    c.cap = cap
    return 0


cdef tuple _vec(int seat, int per):
    return tuple(3 * per if t == seat else -per for t in range(4))


cdef object _result(State s):
    """The Result of a finished deal from the kernel's SkScore."""
    cdef SkScore sc
    cdef int i, b
    sk_score(&s.p, &s.st, True, &sc)
    rules = s._rules
    places = tuple(sc.places[i] for i in range(4))
    first_team = (places[0], places[0] ^ 2)
    units = tuple(sc.units[i] for i in range(4))
    if sc.outcome == SK_OUT_ESCAPE:
        return Result(
            Outcome.ESCAPE, places, first_team, _Z4, 1, (), (), units, units,
            (False, False, False, False), s.st.escape, rules.base_score, rules.name,
            rules.scoring,
        )
    mult = []
    for i in range(sc.n_mult):
        b = sc.mult_bomb[i]
        p = _play(s.st.bomb_word[b], s.st.bomb_tag[b])
        mult.append(BombScore(s.st.bomb_seat[b], p, False, p.stars, sc.mult_factor[i], _Z4))
    contrib = []
    for i in range(sc.n_contrib):
        b = sc.contrib_bomb[i]
        p = _play(s.st.bomb_word[b], s.st.bomb_tag[b])
        contrib.append(BombScore(s.st.bomb_seat[b], p, False, p.stars, 1,
                                 _vec(s.st.bomb_seat[b], sc.contrib_per[i])))
    held = []
    for i in range(sc.n_held):
        if sc.held_per[i]:
            p = _play(sc.held_word[i], sc.held_tag[i])
            held.append(BombScore(sc.held_seat[i], p, True, p.stars, 1,
                                  _vec(sc.held_seat[i], sc.held_per[i])))
    # held bombs listed per seat, biggest first (as scoring.best_held_bombs lists a split)
    held.sort(key=lambda hb: (hb.seat, -hb.stars, hb.play.sort_key()))
    return Result(
        _OUTCOMES[sc.outcome], places, first_team, tuple(sc.base[i] for i in range(4)),
        sc.multiplier, tuple(mult), tuple(contrib + held),
        tuple(sc.unclamped[i] for i in range(4)), units,
        tuple(bool(sc.clamped[i]) for i in range(4)), None, rules.base_score, rules.name,
        rules.scoring,
    )


# -- views ---------------------------------------------------------------------------------------
@cython.final
@cython.no_gc
@cython.freelist(8)
@cython.auto_pickle(False)
cdef class LegalPlays:
    """The legal plays of a position's seat to act, live: it always shows the position as it
    is now. ``len``, ``[i]`` (a :class:`Play`), iteration, ``in``; ``list(view)`` is
    ``legal_plays(...)``. Pass is not in it."""

    cdef State _s
    cdef bint _fewest
    cdef int _seat          # a seat view's list: that seat's; -1: the seat to act's

    def __init__(self):
        raise TypeError("LegalPlays come from State.legal()")

    def __len__(self):
        # a seat view's list is empty unless that seat is to act *now* (the view is live: it
        # never lists another seat's plays, which would show its hidden hand)
        if self._seat >= 0 and (self._s.st.over or self._s.st.to_act != self._seat):
            return 0
        self._s._ensure_legal(self._fewest)
        return self._s._ln

    def __getitem__(self, i):
        cdef Py_ssize_t k, n = len(self)
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(n))]
        k = _index(i)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError(f"legal play index {i} out of range (0..{n - 1})")
        return play_of(self._s._lw[k], self._s._lt[k], self._s.p.flags + 1)

    def __iter__(self):
        # the plays as they are now, built in one step (a list: what list(view) copies)
        cdef Py_ssize_t n = len(self)
        return iter(play_list(self._s._lw, self._s._lt, n, self._s.p.flags + 1))

    def __contains__(self, p):
        cdef Py_ssize_t k, n = len(self)
        if not isinstance(p, Play):
            return False
        cdef uint64_t w = (<Play>p).packed
        cdef uint32_t t = (<Play>p).tag
        for k in range(n):
            if self._s._lw[k] == w and self._s._lt[k] == t:
                return True
        return False

    def index(self, p):
        """Position of ``p`` in the list (``ValueError`` if absent)."""
        cdef Py_ssize_t k, n = len(self)
        if isinstance(p, Play):
            for k in range(n):
                if self._s._lw[k] == (<Play>p).packed and self._s._lt[k] == (<Play>p).tag:
                    return k
        raise ValueError(f"{p!r} is not a legal play here")

    def __repr__(self):
        return f"<LegalPlays: {len(self)} plays>"


@cython.final
@cython.no_gc
@cython.auto_pickle(False)
cdef class SeatView:
    """What one seat may know of a position (RULES.md R6/R7): its hand, its partner's under
    双明 (``rules.partner_visible``), cards left per seat, the table and its owner, passes,
    places, the bombs and cards each seat played, whose turn it is and its own legal plays.
    The position behind it cannot be reached from Python (fair bot contests). It is live: it
    shows the position as it is when read. Every member is listed in docs/bots.md ("What it
    receives", under "Your own bot"); a test checks the list against this class."""

    cdef State _s
    cdef int _seat

    def __init__(self):
        raise TypeError("a SeatView comes from State.view(seat)")

    @property
    def seat(self):
        """The seat this view belongs to (0..3; partners are ``seat ^ 2``, R7)."""
        return self._seat

    @property
    def rules(self):
        """The :class:`~shuangkou.Rules` of the position (a bot checks it is its own)."""
        return self._s._rules

    @property
    def hand(self):
        """This seat's cards."""
        return Hand._from_packed_unchecked(self._s.st.hand[self._seat])

    @property
    def partner_hand(self):
        """The partner's cards under 双明 (``rules.partner_visible``), else None."""
        if not self._s._rules.partner_visible:
            return None
        return Hand._from_packed_unchecked(self._s.st.hand[self._seat ^ 2])

    @property
    def to_act(self):
        """The seat to act, None once the deal is over."""
        return self._s.to_act

    @property
    def card_counts(self):
        """Cards left per seat, a tuple of four (public: R6)."""
        return self._s.card_counts

    def cards_left(self, seat):
        """Cards ``seat`` holds now (a method: ``view.cards_left(seat)``; the same as
        ``card_counts[seat]``)."""
        return self._s.cards_left(seat)

    def cards_played(self, seat):
        """The cards ``seat`` played so far (a method), as a :class:`~shuangkou.Hand`: public,
        every play is shown (R6). With the partner's hand under 双明 and this seat's own, the
        rest of the decks is what the other two seats hold."""
        return self._s.cards_played(seat)

    def bombs_played(self, seat):
        """The bombs ``seat`` played, in order (a method), a tuple of
        :class:`~shuangkou.Play` (R5, R8 bomb contributions)."""
        return self._s.bombs_played(seat)

    @property
    def table(self):
        """The play to beat, None when this deal's seat to act leads (R4)."""
        return self._s.table

    @property
    def table_owner(self):
        """The seat whose play is on the table, None when leading."""
        return self._s.table_owner

    @property
    def passes(self):
        """Passes since the table's play was made."""
        return self._s.st.passes

    @property
    def leader(self):
        """The seat that led the current trick."""
        return self._s.st.leader

    @property
    def trick(self):
        """Number of the current trick, 0-based."""
        return self._s.st.trick

    @property
    def places(self):
        """Seats out, in finishing order (R7)."""
        return self._s.places

    @property
    def is_over(self):
        """Whether the deal is over."""
        return bool(self._s.st.over)

    @property
    def result(self):
        """The deal's :class:`~shuangkou.scoring.Result` once it is over (R8), else None."""
        return self._s.result

    def history(self):
        """The deal's public record, every seat's plays and passes in order
        (:meth:`State.history`)."""
        return self._s.history()

    def can_pass(self):
        """Is passing legal for this seat now?"""
        return self._s.st.to_act == self._seat and self._s.can_pass()

    def legal(self, wilds="all"):
        """This seat's legal plays, a live view like ``State.legal()``: empty whenever this
        seat is not to act (judged each time it is read, not when the view was made)."""
        cdef LegalPlays v = LegalPlays.__new__(LegalPlays)
        v._s = self._s
        v._fewest = wilds_fewest(wilds)
        v._seat = self._seat
        return v

    def __repr__(self):
        return f"<SeatView seat {self._seat} of {self._s!r}>"


# -- the generator and the seeded deal (shuangkou.rng documents them) ----------------------------
@cython.final
@cython.auto_pickle(False)
cdef class SplitMix64:
    """SplitMix64 (see :mod:`shuangkou.rng`). ``state`` is public so it can be saved."""

    cdef uint64_t _state

    def __init__(self, seed):
        self._state = <uint64_t>as_seed(seed)

    @property
    def state(self):
        return self._state

    @state.setter
    def state(self, value):
        self._state = <uint64_t>as_seed(value, "state")

    def next(self):
        """The next 64-bit output."""
        return sk_rng_next(&self._state)

    def bounded(self, n):
        """A draw in ``0..n-1``: ``(next() * n) >> 64``."""
        if n <= 0:
            raise ValueError(f"bounded(n) needs n >= 1, got {n}")
        if n < 0x100000000:
            return sk_rng_bounded(&self._state, <uint32_t>n)
        return (sk_rng_next(&self._state) * n) >> 64

    def shuffle(self):
        """The 108 card ids in dealt order (Fisher–Yates, i = 107 … 1, j = bounded(i + 1))."""
        cdef uint8_t deck[108]
        sk_shuffle(&self._state, deck)
        return [deck[i] for i in range(108)]

    def __repr__(self):
        return f"SplitMix64(state={self._state:#x})"


def deal_cards(seed, bint revealed):
    """The seeded deal (``_state.pxd`` ``sk_deal``): ``(deck, revealed card or None, leader
    seat or None, generator state after the draws)``; ``deck`` lists the 108 ids in dealt
    order (seat ``s`` holds ``deck[27*s : 27*s + 27]``)."""
    cdef SkDeal d
    sk_deal(<uint64_t>as_seed(seed), revealed, &d)
    deck = [d.deck[i] for i in range(108)]
    if revealed:
        return deck, d.revealed, None, d.after
    return deck, None, d.leader, d.after
