# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Self-play and batch loops of the kernel, GIL released (see ``_selfplay.pxd``).

Python-visible functions trust the arrays :mod:`shuangkou.sim` and :mod:`shuangkou.batch` hand
them (shapes and dtypes are checked there, once) and release the GIL for the whole loop, so
several threads calling them run in parallel. ``run`` ticks the shared budget (``_budget.pxd``)
once a deal: Ctrl-C stops it within milliseconds with ``KeyboardInterrupt`` (in the main
thread; a worker thread's chunk is bounded by its size, and its caller stops handing out more).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from _selfplay cimport (
    SP_CAP, SP_MAX_STARS, DealRecord, SimParams, Work, greedy_shortcut, play_deal,
)
from _state cimport SK_MAX_HELD, sk_deal_seed, sk_held_best, sk_held_split
from _budget cimport SkBudget, budget_init, budget_raise, budget_tick

MAX_STARS = SP_MAX_STARS
PLAY_BUFFER = SP_CAP

FIELDS = {
    # name: (dtype, per-deal shape)
    "outcome": ("i1", ()),
    "places": ("i1", (4,)),
    "leader": ("i1", ()),
    "revealed": ("i2", ()),
    "swap": ("i1", (2,)),
    "units": ("i4", (4,)),
    "scores": ("i8", (4,)),
    "multiplier": ("i4", ()),
    "decisions": ("i4", ()),
    "plays": ("i4", ()),
    "tricks": ("i4", ()),
    "cards_left": ("i1", (4,)),
    "bombs_by_stars": ("i2", (SP_MAX_STARS,)),
    "bombs_by_seat": ("i2", (4,)),
    "max_stars": ("i1", ()),
    "max_bomb_size": ("i1", ()),
    "held_units": ("i2", (4,)),
    "overflow": ("i4", ()),
}
"""Per-deal output arrays: dtype and shape after the deal axis."""


cdef void _fill_params(SimParams* p, dict d) except *:
    cdef int s
    p.rules.flags = d["flags"]
    p.rules.mode = d["mode"]
    p.rules.base_score = d["base_score"]
    p.rules.four_jokers_multiplier = d["four_jokers_multiplier"]
    p.rules.jj_single_win = d["jj_single_win"]
    p.rules.held_bombs = d["held_bombs"]
    p.rules.score_cap = d["score_cap"]
    p.rules.escape_penalty = 0      # self-play never abandons
    p.revealed = d["revealed"]
    for s in range(4):
        p.policy[s] = d["policy"][s]
        p.fewest[s] = d["fewest"][s]


cdef Work* _new_work(bint logging) except NULL:
    cdef Work* wk = <Work*>malloc(sizeof(Work))
    cdef int s
    if wk == NULL:
        raise MemoryError()
    memset(wk, 0, sizeof(Work))
    wk.logging = logging
    for s in range(4):
        wk.words[s] = <uint64_t*>malloc(SP_CAP * sizeof(uint64_t))
        wk.tags[s] = <uint32_t*>malloc(SP_CAP * sizeof(uint32_t))
        if wk.words[s] == NULL or wk.tags[s] == NULL:
            _free_work(wk)
            raise MemoryError()
    return wk


cdef void _free_work(Work* wk) noexcept:
    cdef int s
    if wk != NULL:
        for s in range(4):
            free(wk.words[s])
            free(wk.tags[s])
        free(wk)


def run(dict params, uint64_t seed, int64_t start, int64_t count, dict out, int64_t offset=0):
    """Play deals ``start .. start+count-1`` of a run seeded ``seed``; write deal ``start+i``
    into row ``offset+i`` of the arrays in ``out`` (see :data:`FIELDS`). GIL released; a
    Ctrl-C raises ``KeyboardInterrupt`` (the rows not reached are left as they were)."""
    cdef SimParams p
    cdef SkBudget b
    _fill_params(&p, params)
    cdef int8_t[::1] outcome = out["outcome"]
    cdef int8_t[:, ::1] places = out["places"]
    cdef int8_t[::1] leader = out["leader"]
    cdef int16_t[::1] revealed = out["revealed"]
    cdef int8_t[:, ::1] swap = out["swap"]
    cdef int32_t[:, ::1] units = out["units"]
    cdef int64_t[:, ::1] scores = out["scores"]
    cdef int32_t[::1] multiplier = out["multiplier"]
    cdef int32_t[::1] decisions = out["decisions"]
    cdef int32_t[::1] plays = out["plays"]
    cdef int32_t[::1] tricks = out["tricks"]
    cdef int8_t[:, ::1] cards_left = out["cards_left"]
    cdef int16_t[:, ::1] bombs_by_stars = out["bombs_by_stars"]
    cdef int16_t[:, ::1] bombs_by_seat = out["bombs_by_seat"]
    cdef int8_t[::1] max_stars = out["max_stars"]
    cdef int8_t[::1] max_bomb_size = out["max_bomb_size"]
    cdef int16_t[:, ::1] held_units = out["held_units"]
    cdef int32_t[::1] overflow = out["overflow"]
    if offset < 0 or count < 0 or offset + count > outcome.shape[0]:
        raise ValueError("output arrays too short for the requested deals")
    cdef Work* wk = _new_work(False)
    cdef DealRecord rec
    cdef int64_t i, row
    cdef int s, k
    budget_init(&b, 0, 0)
    try:
        with nogil:
            for i in range(count):
                if budget_tick(&b):
                    break
                play_deal(&p, sk_deal_seed(seed, <uint64_t>(start + i)), wk, &rec)
                row = offset + i
                outcome[row] = rec.outcome
                leader[row] = rec.leader
                revealed[row] = rec.revealed
                swap[row, 0] = rec.swap_a
                swap[row, 1] = rec.swap_b
                multiplier[row] = rec.multiplier
                decisions[row] = rec.decisions
                plays[row] = rec.plays
                tricks[row] = rec.tricks
                max_stars[row] = rec.max_stars
                max_bomb_size[row] = rec.max_bomb_size
                overflow[row] = rec.overflow
                for s in range(4):
                    places[row, s] = rec.places[s]
                    units[row, s] = rec.units[s]
                    scores[row, s] = rec.scores[s]
                    cards_left[row, s] = rec.cards_left[s]
                    bombs_by_seat[row, s] = rec.bombs_by_seat[s]
                    held_units[row, s] = rec.held_units[s]
                for k in range(SP_MAX_STARS):
                    bombs_by_stars[row, k] = rec.bombs_by_stars[k]
    finally:
        _free_work(wk)
    budget_raise(&b)


def play_logged(dict params, uint64_t deal_seed):
    """Play one deal from the generator state ``deal_seed`` (as ``Game(rules, seed=deal_seed)``
    deals it) and return ``(record, log)``: the record as a dict of the :data:`FIELDS` plus
    ``first_hands``; the log a list of ``(seat, cards word, tag)`` per decision (word = tag = 0
    for a pass)."""
    cdef SimParams p
    _fill_params(&p, params)
    cdef Work* wk = _new_work(True)
    cdef DealRecord rec
    cdef int i
    try:
        with nogil:
            play_deal(&p, deal_seed, wk, &rec)
        log = [(int(wk.log_seat[i]), int(wk.log_word[i]), int(wk.log_tag[i]))
               for i in range(wk.n_log)]
    finally:
        _free_work(wk)
    record = {
        "outcome": rec.outcome,
        "places": tuple(rec.places[i] for i in range(4)),
        "leader": rec.leader,
        "revealed": rec.revealed,
        "swap": (rec.swap_a, rec.swap_b),
        "units": tuple(rec.units[i] for i in range(4)),
        "scores": tuple(rec.scores[i] for i in range(4)),
        "multiplier": rec.multiplier,
        "decisions": rec.decisions,
        "plays": rec.plays,
        "tricks": rec.tricks,
        "cards_left": tuple(rec.cards_left[i] for i in range(4)),
        "bombs_by_stars": tuple(rec.bombs_by_stars[i] for i in range(SP_MAX_STARS)),
        "bombs_by_seat": tuple(rec.bombs_by_seat[i] for i in range(4)),
        "max_stars": rec.max_stars,
        "max_bomb_size": rec.max_bomb_size,
        "held_units": tuple(rec.held_units[i] for i in range(4)),
        "overflow": rec.overflow,
        "first_hands": tuple(int(rec.first_hand[i]) for i in range(4)),
    }
    return record, log


def held_value(uint64_t hand, uint32_t flags, int mode):
    """R8.4: units per other seat of the best split of ``hand`` into bombs (kernel search)."""
    cdef int v
    with nogil:
        v = sk_held_best(hand, flags, mode)
    return v


def held_split(uint64_t hand, uint32_t flags, int mode):
    """R8.4: ``(units per other seat, [(cards word, tag), …])`` of the kernel's best split of
    ``hand`` into bombs (the one ``State.result`` lists)."""
    cdef uint64_t words[SK_MAX_HELD]
    cdef uint32_t tags[SK_MAX_HELD]
    cdef int v, n, i
    with nogil:
        n = sk_held_split(hand, flags, mode, words, tags, SK_MAX_HELD, &v)
    return v, [(int(words[i]), int(tags[i])) for i in range(n)]


def greedy_shortcut_choice(uint64_t hand, uint32_t flags, uint32_t table, bint partner_owns,
                           int opp_min, int my_cards):
    """Greedy's decision as self-play makes it before listing any play (``greedy_shortcut``,
    for tests): ``(0, cards word, tag)`` to play, ``(-1, 0, 0)`` to pass, ``(-2, 0, 0)`` when
    only the list of plays decides."""
    cdef uint64_t word = 0
    cdef uint32_t tag = 0
    cdef int status
    with nogil:
        status = greedy_shortcut(hand, table, partner_owns, opp_min, my_cards, &word, &tag, flags)
    return status, int(word), int(tag)


def deal_seed(uint64_t seed, uint64_t index):
    """``shuangkou.rng.deal_seed`` computed by the kernel (for tests)."""
    return sk_deal_seed(seed, index)
