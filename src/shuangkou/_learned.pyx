# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The learned bot's feature rows in C (docs/bots.md, "The learned bot's time").

:func:`shuangkou.learned.features` and :func:`~shuangkou.learned.play_arrays` call this module:
a decision's rows cost a few microseconds instead of the ~200 numpy calls they took (2–3 M
instructions of the largest decisions, more than the network). The arithmetic is numpy's,
value for value — float32 throughout, each feature one correctly rounded division of exact
integer counts — so the network reads the same bits and the bot makes the same moves
(``tests/test_learned_kernel.py`` checks every row against the numpy encoder it replaced).

The layout is :mod:`shuangkou.learned`'s (``STATE_DIM`` columns of the position, then
``PLAY_DIM`` of the play). Every index written is checked before the loops: the shapes of the
arrays, the offsets (non-decreasing from 0 to the number of plays) and each decision's hint
row (one of its own rows, or -1). The loops hold no Python object and release the GIL.
"""

cimport cython
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

import numpy as np

from shuangkou._core cimport Play
from _readings cimport K_BOMB, sk_beats, tag_kind, tag_stars, tag_wilds
from _selfplay cimport greedy_listed

import shuangkou.batch as _batch

cdef enum:
    N_KINDS = 11        # the 10 kinds, then "pass" (candidate) or "no table play" (table)
    PASS_KIND = 10
    N_PRESETS = 4
    STATE_DIM = 15 * 3 + 4 + 4 + 1 + 4 + 1 + N_KINDS + 2 + N_PRESETS + 2
    PLAY_DIM = 15 * 2 + N_KINDS + 4 + 3 + 6 + 2
    DIM = STATE_DIM + PLAY_DIM
    BIG = 1 << 20       # greedy's lead key: a bomb's height after every plain play's

# the observation fields read (shuangkou.batch's layout)
cdef dict _at = _batch.OBS_OFFSETS
cdef int O_HAND = _at["hand"], O_PARTNER = _at["partner_hand"], O_LEFT = _at["cards_left"]
cdef int O_PLAYED = _at["played"], O_PLACE = _at["place"], O_LEADING = _at["leading"]
cdef int O_READING = _at["table_reading"], O_OWNER = _at["table_owner"]
cdef int O_PASSES = _at["passes"]
cdef int OBS = _batch.OBS_SIZE

DIMS = (STATE_DIM, PLAY_DIM)
"""The widths of the position's and the play's columns (``learned.STATE_DIM``, ``PLAY_DIM``)."""

# the reading tag's fields (docs/internals.md): kind, top, width, length, stars, size, wilds
cdef int TAG_SHIFT[7]
cdef uint32_t TAG_MASK[7]
TAG_SHIFT[:] = [0, 4, 8, 13, 17, 22, 28]
TAG_MASK[:] = [15, 15, 31, 15, 31, 63, 7]


def play_arrays(plays):
    """``(cards, features)`` of a list of plays: ``(M, 15)`` uint8 card counts and ``(M, 7)``
    uint8 reading fields (``learned.play_arrays``). Each item must be a :class:`Play`."""
    cdef list items = plays if type(plays) is list else list(plays)
    cdef Py_ssize_t m = len(items), i
    cdef int r
    cdef Play p
    cards = np.empty((m, 15), np.uint8)
    feat = np.empty((m, 7), np.uint8)
    cdef uint8_t[:, ::1] c = cards
    cdef uint8_t[:, ::1] f = feat
    cdef uint64_t word
    cdef uint32_t tag
    for i in range(m):
        p = <Play?>items[i]
        word = p.packed
        tag = p.tag
        for r in range(15):
            c[i, r] = <uint8_t>((word >> (4 * r)) & 15)
        for r in range(7):
            f[i, r] = <uint8_t>((tag >> TAG_SHIFT[r]) & TAG_MASK[r])
    return cards, feat


def play_words(plays):
    """``(words, tags)``: each play's cards word (uint64) and reading tag (uint32), the two
    fields of a :class:`Play` (``learned.shortlist`` sorts a long list by them)."""
    cdef list items = plays if type(plays) is list else list(plays)
    cdef Py_ssize_t m = len(items), i
    cdef Play p
    words = np.empty(m, np.uint64)
    tags = np.empty(m, np.uint32)
    cdef uint64_t[::1] w = words
    cdef uint32_t[::1] t = tags
    for i in range(m):
        p = <Play?>items[i]
        w[i] = p.packed
        t[i] = p.tag
    return words, tags


def greedy_choice(plays, uint64_t hand, uint32_t flags, uint32_t table, bint partner_owns,
                  int opp_min, int my_cards):
    """The index in ``plays`` (a sequence of :class:`Play`) that
    :func:`shuangkou.sim.greedy_policy` makes from a view with this ``hand`` (packed),
    ``table`` (its tag, 0 when leading), partner owning it or not, ``opp_min`` (the fewest
    cards of an opponent still in, 99 if none) and ``my_cards``; -1 to pass. The kernel's
    greedy (``_selfplay.greedy_listed``, ties to the first play) after rule 1 (a play that
    empties the hand) and the partner's table, as ``greedy_policy`` orders them."""
    cdef list items = plays if type(plays) is list else list(plays)
    cdef Py_ssize_t n = len(items), i
    cdef int choice = -1
    cdef Play p
    for i in range(n):
        p = <Play?>items[i]
        if p.packed == hand:
            return i
    if table != 0 and partner_owns:
        return -1
    if n == 0:
        return -1
    if n > 0x7FFFFFFF:
        raise ValueError(f"plays must hold at most 2**31 - 1 plays, not {n:,}")
    cdef uint64_t* words = <uint64_t*>malloc(n * sizeof(uint64_t))
    cdef uint32_t* tags = <uint32_t*>malloc(n * sizeof(uint32_t))
    if words == NULL or tags == NULL:
        free(words)
        free(tags)
        raise MemoryError()
    for i in range(n):
        p = <Play>items[i]
        words[i] = p.packed
        tags[i] = p.tag
    with nogil:
        choice = greedy_listed(hand, table, opp_min, my_cards, words, tags, <int>n, flags)
    free(words)
    free(tags)
    return choice


# -- greedy's choice (learned.greedy_rows) -----------------------------------------------------
cdef inline bint bomb_less(const uint8_t[:, ::1] f, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """Row ``a``'s bomb key (stars, size, top, wilds) below row ``b``'s."""
    if f[a, 4] != f[b, 4]:
        return f[a, 4] < f[b, 4]
    if f[a, 5] != f[b, 5]:
        return f[a, 5] < f[b, 5]
    if f[a, 1] != f[b, 1]:
        return f[a, 1] < f[b, 1]
    return f[a, 6] < f[b, 6]


cdef inline bint lead_less(const uint8_t[:, ::1] f, const uint8_t* clean, Py_ssize_t a,
                           Py_ssize_t b) noexcept nogil:
    """Row ``a``'s lead key below row ``b``'s: plain before bomb; of plain plays clean first,
    then the most cards, then the lowest top; of bombs the bomb key."""
    cdef bint pa = f[a, 0] < K_BOMB, pb = f[b, 0] < K_BOMB
    if pa != pb:
        return pa
    if not pa:
        return bomb_less(f, a, b)
    if clean[a] != clean[b]:
        return clean[a] > clean[b]
    if f[a, 5] != f[b, 5]:
        return f[a, 5] > f[b, 5]
    return f[a, 1] < f[b, 1]


cdef void greedy_core(const float[:, ::1] obs, const int64_t[::1] env,
                      const uint8_t[:, ::1] cards, const uint8_t[:, ::1] f, Py_ssize_t n,
                      uint8_t* clean, int64_t* best, int64_t[::1] out) noexcept nogil:
    """``out[e]``: greedy's row of env ``e`` (-1: pass). ``best``: 5 × n scratch, ``clean``: a
    byte a row. Ties go to the first row (numpy's stable ``lexsort`` did the same)."""
    cdef Py_ssize_t m = env.shape[0], j, e, r
    cdef int64_t* lead = best
    cdef int64_t* a_clean = best + n
    cdef int64_t* a_plain = best + 2 * n
    cdef int64_t* a_bomb = best + 3 * n
    cdef int64_t* empties = best + 4 * n
    cdef int64_t b
    cdef float own, left, opp_min
    cdef bint plain, short, broken
    for e in range(5 * n):
        best[e] = -1
    for j in range(m):
        e = env[j]
        broken = False
        for r in range(15):
            if cards[j, r] > 0 and obs[e, O_HAND + r] >= 4:
                broken = True
                break
        clean[j] = f[j, 6] == 0 and not broken
        plain = f[j, 0] < K_BOMB
        b = lead[e]
        if b < 0 or lead_less(f, clean, j, b):
            lead[e] = j
        if plain and clean[j]:
            b = a_clean[e]
            if b < 0 or f[j, 1] < f[b, 1]:
                a_clean[e] = j
        if plain:
            b = a_plain[e]
            if b < 0 or f[j, 1] < f[b, 1] or (f[j, 1] == f[b, 1] and f[j, 6] < f[b, 6]):
                a_plain[e] = j
        else:
            b = a_bomb[e]
            if b < 0 or bomb_less(f, j, b):
                a_bomb[e] = j
        own = 0
        for r in range(15):
            own = own + obs[e, O_HAND + r]
        if <float>f[j, 5] == own:
            b = empties[e]
            if b < 0 or f[j, 5] < f[b, 5]:
                empties[e] = j
    for e in range(n):
        if empties[e] >= 0:
            out[e] = empties[e]
            continue
        if obs[e, O_LEADING] > 0:
            out[e] = lead[e]
            continue
        own = 0
        for r in range(15):
            own = own + obs[e, O_HAND + r]
        opp_min = 99
        for r in range(1, 4, 2):  # the opponents
            left = obs[e, O_LEFT + r]
            if left > 0 and left < opp_min:
                opp_min = left
        short = opp_min <= 6 or own <= 6
        if obs[e, O_OWNER + 2] > 0:
            out[e] = -1
        elif a_clean[e] >= 0:
            out[e] = a_clean[e]
        elif short:
            out[e] = a_plain[e] if a_plain[e] >= 0 else a_bomb[e]
        else:
            out[e] = -1


cdef _check_rows(obs, cards, feat, Py_ssize_t m):
    if obs.ndim != 2 or obs.shape[1] < OBS:
        raise ValueError(f"obs must be (n, {OBS}) observations, not of shape {obs.shape}")
    if cards.shape != (m, 15) or feat.shape != (m, 7):
        raise ValueError(f"cards and feat must be ({m}, 15) and ({m}, 7), one row a play, not "
                         f"{cards.shape} and {feat.shape}")


def greedy_rows(obs, env, cards, feat, Py_ssize_t n):
    """``learned.greedy_rows``: per observation of ``obs`` (``n`` of them), the row of the
    plays (``env[j]``: the observation of play row ``j``) greedy would play, -1 for a pass."""
    cdef const float[:, ::1] o = np.ascontiguousarray(obs, np.float32)
    cdef const int64_t[::1] ev = np.ascontiguousarray(env, np.int64)
    cdef const uint8_t[:, ::1] c = np.ascontiguousarray(cards, np.uint8)
    cdef const uint8_t[:, ::1] f = np.ascontiguousarray(feat, np.uint8)
    cdef Py_ssize_t m = ev.shape[0], j
    _check_rows(np.asarray(o), np.asarray(c), np.asarray(f), m)
    if o.shape[0] != n:
        raise ValueError(f"obs must hold n = {n} observations, not {o.shape[0]}")
    for j in range(m):
        if not 0 <= ev[j] < n:
            raise ValueError(f"env[{j}] must be an observation 0..{n - 1}, not {ev[j]}")
    out = np.empty(n, np.int64)
    cdef int64_t[::1] w = out
    cdef uint8_t* clean = <uint8_t*>malloc(m + 1)
    cdef int64_t* best = <int64_t*>malloc((5 * n + 1) * sizeof(int64_t))
    if clean == NULL or best == NULL:
        free(clean)
        free(best)
        raise MemoryError()
    with nogil:
        greedy_core(o, ev, c, f, n, clean, best, w)
    free(clean)
    free(best)
    return out


# -- the rows (learned.features) ---------------------------------------------------------------
cdef void state_row(const float[:, ::1] obs, Py_ssize_t e, int preset, float plays_left,
                    bint judged, float* s, float* hand) noexcept nogil:
    """The ``STATE_DIM`` columns ``s`` of observation ``e``, and its hand's counts."""
    cdef int r, k, kind
    cdef float played
    for r in range(STATE_DIM):
        s[r] = 0
    for r in range(15):
        hand[r] = obs[e, O_HAND + r]
        played = (obs[e, O_PLAYED + r] + obs[e, O_PLAYED + 15 + r]
                  + obs[e, O_PLAYED + 30 + r] + obs[e, O_PLAYED + 45 + r])
        s[r] = hand[r] / <float>8
        s[15 + r] = obs[e, O_PARTNER + r] / <float>8
        s[30 + r] = ((<float>(8 if r < 13 else 2) - hand[r]) - obs[e, O_PARTNER + r]
                     - played) / <float>8
    for k in range(4):
        s[45 + k] = obs[e, O_LEFT + k] / <float>27
        s[49 + k] = obs[e, O_PLACE + k] > 0
        s[54 + k] = obs[e, O_OWNER + k]
    s[53] = obs[e, O_LEADING]
    s[58] = obs[e, O_PASSES] / <float>3
    kind = <int>(obs[e, O_READING] - 1) if obs[e, O_READING] > 0 else PASS_KIND
    s[59 + kind] = 1
    s[70] = obs[e, O_READING + 1] / <float>14
    s[71] = obs[e, O_READING + 5] / <float>27
    s[72 + preset] = 1
    s[76] = plays_left / <float>10
    s[77] = judged


cdef void play_row(const float* s, const float* hand, float own, const uint8_t[:, ::1] cards,
                   const uint8_t[:, ::1] f, Py_ssize_t j, float dmg, float greedy, float hint,
                   float* x) noexcept nogil:
    """Row ``x`` (every one of its ``DIM`` columns) of play ``j`` (``j < 0``: the pass) from
    its observation's columns ``s`` and hand counts."""
    cdef int r, once = 0, twice = 0, thrice = 0, more = 0
    cdef float c, rest, total = 0, jokers = 0
    cdef float* p = x + STATE_DIM
    memcpy(x, s, STATE_DIM * sizeof(float))
    for r in range(15):
        c = cards[j, r] if j >= 0 else 0
        rest = hand[r] - c
        p[r] = c / <float>8
        p[15 + r] = rest / <float>8
        total = total + rest
        if r >= 13:
            jokers = jokers + rest
        elif rest == 1:
            once += 1
        elif rest == 2:
            twice += 1
        elif rest == 3:
            thrice += 1
        elif rest >= 4:
            more += 1
    memset(p + 30, 0, (N_KINDS + 6) * sizeof(float))  # the kind, the reading, two flags
    p[30 + (f[j, 0] if j >= 0 else PASS_KIND)] = 1
    if j >= 0:
        p[41] = f[j, 1] / <float>14
        p[42] = f[j, 4] / <float>16
        p[43] = f[j, 5] / <float>27
        p[44] = f[j, 6] / <float>4
        p[45] = f[j, 0] >= K_BOMB
        p[46] = <float>f[j, 5] == own
    p[47] = greedy
    p[48] = once / <float>13
    p[49] = twice / <float>13
    p[50] = thrice / <float>13
    p[51] = more / <float>6
    p[52] = jokers / <float>4
    p[53] = total / <float>27
    p[54] = dmg
    p[55] = hint


def encode(obs, offsets, cards, feat, can_pass, int preset, damage, choice, plays_left,
           judged):
    """``learned.features``' rows: ``(X, env_of_row, is_pass)``, ``X`` ``(rows, DIM)``
    float32 — the plays of observation ``i`` (rows ``offsets[i]`` to ``offsets[i + 1]`` of
    ``cards``/``feat``), then a pass row for each observation ``can_pass`` marks. ``preset``:
    the column of the rules' preset; ``damage`` (a play row each), ``choice`` (the heuristic's
    row of each observation, -1 for its pass), ``plays_left`` and ``judged``: the heuristic's
    :class:`~shuangkou.learned.Judgement`."""
    cdef const float[:, ::1] o = np.ascontiguousarray(obs, np.float32)
    cdef const int64_t[::1] off = np.ascontiguousarray(offsets, np.int64)
    cdef const uint8_t[:, ::1] c = np.ascontiguousarray(cards, np.uint8)
    cdef const uint8_t[:, ::1] f = np.ascontiguousarray(feat, np.uint8)
    cdef const uint8_t[::1] passes = np.ascontiguousarray(can_pass, np.bool_).view(np.uint8)
    cdef const float[::1] dmg = np.ascontiguousarray(damage, np.float32)
    cdef const int64_t[::1] pick = np.ascontiguousarray(choice, np.int64)
    cdef const float[::1] left = np.ascontiguousarray(plays_left, np.float32)
    cdef const uint8_t[::1] by_split = np.ascontiguousarray(judged, np.bool_).view(np.uint8)
    cdef Py_ssize_t n = o.shape[0], m = c.shape[0], k = 0, i, j, row
    _check_rows(np.asarray(o), np.asarray(c), np.asarray(f), m)
    if not 0 <= preset < N_PRESETS:
        raise ValueError(f"preset must be a column 0..{N_PRESETS - 1}, not {preset}")
    if off.shape[0] != n + 1 or off[0] != 0 or off[n] != m:
        raise ValueError(f"offsets must run from 0 to the {m} plays in n + 1 = {n + 1} "
                         f"entries, not {np.asarray(off)[:8]}…")
    for name, size, want in (("can_pass", passes.shape[0], n), ("damage", dmg.shape[0], m),
                             ("choice", pick.shape[0], n), ("plays_left", left.shape[0], n),
                             ("judged", by_split.shape[0], n)):
        if size != want:
            raise ValueError(f"{name} must hold {want} entries, not {size}")
    for i in range(n):
        if off[i + 1] < off[i]:
            raise ValueError(f"offsets must not decrease: {off[i]} then {off[i + 1]}")
        if pick[i] != -1 and not off[i] <= pick[i] < off[i + 1]:
            raise ValueError(f"choice[{i}] must be one of the rows {off[i]}..{off[i + 1] - 1} "
                             f"of observation {i}, or -1, not {pick[i]}")
        k += passes[i] != 0
    x = np.empty((m + k, DIM), np.float32)  # every column written below
    env = np.empty(m + k, np.int64)
    is_pass = np.zeros(m + k, np.bool_)
    is_pass[m:] = True
    cdef float[:, ::1] xv = x
    cdef int64_t[::1] ev = env
    cdef int64_t[::1] greedy = np.empty(n, np.int64)
    cdef uint8_t* clean = <uint8_t*>malloc(m + 1)
    cdef int64_t* best = <int64_t*>malloc((5 * n + 1) * sizeof(int64_t))
    cdef float s[STATE_DIM]
    cdef float hand[15]
    cdef float own
    cdef int r
    if clean == NULL or best == NULL:
        free(clean)
        free(best)
        raise MemoryError()
    with nogil:
        for i in range(n):
            for j in range(off[i], off[i + 1]):
                ev[j] = i
        greedy_core(o, ev[:m], c, f, n, clean, best, greedy)
        row = m
        for i in range(n):
            state_row(o, i, preset, left[i], by_split[i] != 0, s, hand)
            own = 0
            for r in range(15):
                own = own + hand[r]
            for j in range(off[i], off[i + 1]):
                play_row(s, hand, own, c, f, j, _clip(dmg[j]), greedy[i] == j, pick[i] == j,
                         &xv[j, 0])
            if passes[i]:
                ev[row] = i
                play_row(s, hand, own, c, f, -1, 0, greedy[i] == -1, pick[i] == -1,
                         &xv[row, 0])
                row += 1
    free(clean)
    free(best)
    return x, env, is_pass


cdef inline float _clip(float d) noexcept nogil:
    """The damage feature: ``clip(d, -1, 4) / 4``."""
    if d < -1:
        d = -1
    elif d > 4:
        d = 4
    return d / <float>4
