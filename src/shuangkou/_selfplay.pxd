# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Self-play in the kernel: whole deals played by built-in policies over the game state of
``_state.pxd`` (which holds the R7 flow, the R8 scoring and the seeded deal), in
``noexcept nogil`` C with fixed-width ints and no allocation in the loop.

* Deal ``i`` of a run seeded ``s`` is ``sk_deal(deal_seed(s, i))``: a deal's result depends
  on ``(seed, i)`` only, never on threads. Policy randomness continues the same generator
  after the deal draws (``SkDeal.after``).
* ``play_deal`` asks the policy of the seat to act for a choice among ``sk_legal``'s plays
  (or pass), applies it (``sk_play_unhashed`` / ``sk_pass_unhashed``: it never reads the
  hash) until ``sk_is_over``, and records the deal (``sk_score``).
* It lists only what the policy needs, with the same choices as listing every play (the
  Python twins of the policies do; tests/test_sim_shortcuts.py checks the properties used):
  a seat that passed keeps its answer list for the rest of the trick and narrows it to the
  plays beating each later table (``narrow``); greedy (``greedy_shortcut``) decides "empty
  the hand" from the hand's readings, finds its clean play (no wild, no bomb rank) from the
  hand's counts, and lists only when neither decides: leading with no clean play, answering
  with none when an opponent or its own hand is close to finishing.

Policies: ``POL_RANDOM`` – uniform over the legal plays (plus pass when answering);
``POL_GREEDY`` – a heuristic (see ``greedy_shortcut``).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memset

from _packed cimport (
    R_BJ, R_SJ, SK_NAT_MASK, SK_NIB1, SK_SEQ_MASK, low_rank, nib, ranks_ge, run_tops, unit,
)
from _readings cimport (
    K_BOMB, K_STRAIGHT, K_TRIPLE, make_tag, sk_beats, sk_classify, tag_kind, tag_length,
    tag_size, tag_stars, tag_top, tag_wilds,
)
from _state cimport (
    SkDeal, SkParams, SkScore, SkState, sk_deal, sk_init, sk_legal, sk_pass_unhashed,
    sk_play_unhashed, sk_rng_bounded, sk_score,
)

cdef enum:
    SP_CAP = 65536          # play buffer per seat (the most plays of a 27-card hand is far less)
    SP_LOG_CAP = 2048       # decisions of one deal at most (≤ 108 plays, ≤ 3 passes after each)
    SP_MAX_STARS = 16
    POL_RANDOM = 0
    POL_GREEDY = 1
    SP_LIST = -2            # greedy_shortcut: only the list of plays decides

cdef extern from *:
    """
    #define SP_NAT_MASK 0x1111111111111ULL
    """
    const uint64_t SP_NAT_MASK


# -- parameters, buffers, per-deal record ------------------------------------------------------
cdef struct SimParams:
    SkParams rules
    int32_t revealed        # 1: 明牌 first leader, 0: random seat
    int32_t policy[4]       # POL_* per seat
    int32_t fewest[4]       # generation mode per seat (1: wilds="fewest")


cdef struct Work:
    # each seat's plays at its last decision (SP_CAP each): an answer list stays valid while
    # the seat only passes in that trick (``list_trick``; see ``play_deal``)
    uint64_t* words[4]
    uint32_t* tags[4]
    int32_t n[4]
    int32_t list_trick[4]   # trick of the seat's answer list, -1: none
    # the action log of the current deal (only when ``logging``: play_logged)
    bint logging
    int32_t n_log
    int8_t log_seat[SP_LOG_CAP]
    uint64_t log_word[SP_LOG_CAP]   # 0 for a pass
    uint32_t log_tag[SP_LOG_CAP]


cdef struct DealRecord:
    int8_t outcome
    int8_t places[4]        # seats in place order
    int8_t leader           # first leader
    int16_t revealed        # revealed card id, -1 for a random leader
    int8_t swap_a           # 明牌 seat swap (-1 if none)
    int8_t swap_b
    int32_t units[4]
    int64_t scores[4]       # units × base score: 64-bit (an int32 wraps at base 10⁶, #11)
    int32_t multiplier
    int32_t decisions       # actions taken (plays and passes)
    int32_t plays           # plays (not passes)
    int32_t tricks
    int8_t cards_left[4]
    int16_t bombs_by_stars[SP_MAX_STARS]   # bombs played, by stars (classic: all at 0)
    int16_t bombs_by_seat[4]
    int8_t max_stars        # most stars of a bomb played (-1: none)
    int8_t max_bomb_size    # most cards of a bomb played (0: none)
    int16_t held_units[4]   # R8.4 held-bomb units taken from each other seat, per seat
    int32_t overflow        # decisions whose plays did not fit the buffer (should be 0)
    uint64_t first_hand[4]  # the hands at the start of play (after a 明牌 swap), packed


# -- policies ---------------------------------------------------------------------------------
cdef inline uint64_t bomb_ranks(uint64_t hand) noexcept nogil:
    """One bit (the nibble's low bit) per natural rank held ≥ 4 times."""
    return ((hand >> 2) | (hand >> 3)) & SP_NAT_MASK


cdef inline uint64_t used_ranks(uint64_t word) noexcept nogil:
    return (word | (word >> 1) | (word >> 2) | (word >> 3)) & SP_NAT_MASK


cdef inline int smallest_bomb(const uint64_t* words, const uint32_t* tags, int n,
                              uint32_t flags) noexcept nogil:
    cdef int i, best = -1
    for i in range(n):
        if tag_kind(tags[i]) < K_BOMB:
            continue
        if best < 0 or sk_beats(tags[best], tags[i], flags) or (
                tags[best] == tags[i] and tag_wilds(tags[i]) < tag_wilds(tags[best])):
            best = i
    return best


cdef inline int greedy_whole_hand(uint64_t hand, uint32_t table, uint64_t* words,
                                  uint32_t* tags, uint32_t flags) noexcept nogil:
    """Greedy's rule 1 without the list: if a reading of the whole hand beats the table (any
    reading when leading), write that play to ``words[0]``/``tags[0]`` and return 0, else -1.
    It is the first play of the list made of the whole hand: ``sk_generate`` lists every
    reading of a set (with ``fewest`` too: no other subset has the hand's size), a set's
    plain readings differ in kind and come by kind (sequences by width), and a set has at
    most one bomb reading (R3.1), so on a table at most one of them beats it."""
    cdef uint32_t rt[2]
    cdef int i, k = sk_classify(hand, flags, rt)
    for i in range(k):
        if sk_beats(rt[i], table, flags):
            words[0] = hand
            tags[0] = rt[i]
            return 0
    return -1


cdef inline int greedy_lead(uint64_t hand, const uint64_t* words, const uint32_t* tags, int n,
                            uint32_t flags) noexcept nogil:
    """Greedy's rule 2 (leading, no play empties the hand; ``greedy_shortcut``)."""
    cdef int i, best = -1, bsize = -1, btop = 99, bclean = -1, clean, size, top
    cdef bint bigger
    cdef uint64_t brk = bomb_ranks(hand)
    cdef uint32_t tag
    for i in range(n):
        tag = tags[i]
        if tag_kind(tag) >= K_BOMB:
            continue
        size = tag_size(tag)
        top = tag_top(tag)
        bigger = size > bsize or (size == bsize and top < btop)
        if bclean == 1 and not bigger:
            continue        # a clean best is beaten only by a bigger clean play
        clean = tag_wilds(tag) == 0 and (used_ranks(words[i]) & brk) == 0
        if clean > bclean or (clean == bclean and bigger):
            best = i
            bclean = clean
            bsize = size
            btop = top
    if best >= 0:
        return best
    return smallest_bomb(words, tags, n, flags)


cdef inline int greedy_answer(uint64_t hand, int opp_min, int my_cards, const uint64_t* words,
                              const uint32_t* tags, int n, uint32_t flags) noexcept nogil:
    """Greedy's rules 1 and 3 (``greedy_shortcut``) on a table the partner does not own, in one
    pass over the list (bombs again if one is played)."""
    cdef int i, best = -1, btop = 99, anyp = -1, atop = 99, top
    cdef uint64_t brk = bomb_ranks(hand)
    cdef uint32_t tag
    for i in range(n):
        if words[i] == hand:
            return i
        tag = tags[i]
        if tag_kind(tag) >= K_BOMB:
            continue
        top = tag_top(tag)
        if top < atop or (top == atop and tag_wilds(tag) < tag_wilds(tags[anyp])):
            anyp = i
            atop = top
        if top < btop and tag_wilds(tag) == 0 and (used_ranks(words[i]) & brk) == 0:
            best = i
            btop = top
    if best >= 0:
        return best
    if opp_min > 6 and my_cards > 6:
        return -1
    if anyp >= 0:
        return anyp
    return smallest_bomb(words, tags, n, flags)


# -- greedy without the list: its clean plays are natural sets found from the hand's counts --
# A clean play (no wild, no bomb rank) is a natural set of ranks held 1-3 times, or a joker
# single or pair (read naturally, R3: no wild). Its reading is its one plain kind (no wild
# card leaves a choice), and the generators list it once, under that reading, in both wilds
# modes (``fewest`` keeps a reading's set with the fewest wilds: the natural one). So when a
# clean play exists greedy's choice among the clean plays can be found from the counts.

cdef inline uint64_t clean_naturals(uint64_t hand) noexcept nogil:
    """The naturals of the ranks ``hand`` holds 1–3 times: the cards of its clean plays besides
    jokers."""
    return hand & SK_NAT_MASK & ~(bomb_ranks(hand) * 15)


cdef inline void put_natural(int width, int length, int top, uint64_t* words,
                             uint32_t* tags) noexcept nogil:
    """``words[0]``/``tags[0]``: ``width`` natural cards of each rank top − length + 1 .. top,
    read (as the generators tag it) as single / pair / triple (length 1) or straight / pair
    chain / triple chain."""
    cdef int kind = width - 1 if length == 1 else K_STRAIGHT + width - 1
    words[0] = <uint64_t>width * (SK_NIB1 & ((unit(top) << 4) - unit(top - length + 1)))
    tags[0] = make_tag(kind, top, width, length, 0, width * length, 0)


cdef inline int clean_rank(uint64_t hand, uint64_t clean, int n, int rmin) noexcept nogil:
    """The lowest rank ≥ ``rmin`` of a clean single, pair or triple (``n`` cards), -1 if none:
    natural ranks (``clean``: ``clean_naturals(hand)``), then SJ, then BJ (two of a kind at
    most)."""
    cdef uint64_t m = ranks_ge(clean, n) & ~(unit(rmin) - 1)
    if m:
        return low_rank(m)
    if n <= 2:
        if rmin <= R_SJ and nib(hand, R_SJ) >= n:
            return R_SJ
        if rmin <= R_BJ and nib(hand, R_BJ) >= n:
            return R_BJ
    return -1


cdef inline bint greedy_clean_lead(uint64_t hand, uint64_t* words, uint32_t* tags) noexcept nogil:
    """``greedy_lead``'s choice when a clean play exists (it is then the best): the clean play
    with the most cards, then the lowest top, written to ``words[0]``/``tags[0]``; False if
    there is none. The biggest clean sequence of width W is a whole run of ranks holding ≥ W
    clean cards, the longest (``y &= y << 4`` keeps the tops of runs one rank longer); at equal
    size and top the smaller width comes first in the list (sequences are listed width by
    width), and any sequence (≥ 5 cards) is bigger than a triple."""
    cdef uint64_t clean = clean_naturals(hand), y, z
    cdef int width, length, size, top, n, bsize = 0, btop = 0, bwidth = 0, blength = 0
    for width in range(1, 4):
        y = ranks_ge(clean & SK_SEQ_MASK, width)
        if y == 0:
            continue
        length = 1
        z = y & (y << 4)
        while z:
            y = z
            length += 1
            z = y & (y << 4)
        if length < (5 if width == 1 else 3):
            continue
        size = width * length
        top = low_rank(y)
        if size > bsize or (size == bsize and top < btop):
            bsize = size
            btop = top
            bwidth = width
            blength = length
    if bsize:
        put_natural(bwidth, blength, btop, words, tags)
        return True
    for n in range(3, 0, -1):
        top = clean_rank(hand, clean, n, 0)
        if top >= 0:
            put_natural(n, 1, top, words, tags)
            return True
    return False


cdef inline bint greedy_clean_answer(uint64_t hand, uint32_t table, uint64_t* words,
                                     uint32_t* tags) noexcept nogil:
    """``greedy_answer``'s clean choice on a plain table: the clean play of its kind and size
    with the lowest higher top (R4), written to ``words[0]``/``tags[0]``; False if there is
    none (or the table is a bomb: no plain play beats it). One natural set per top: no ties."""
    cdef uint64_t clean = clean_naturals(hand), full, tops
    cdef int kind = tag_kind(table), top = tag_top(table), width, length
    if kind >= K_BOMB:
        return False
    if kind <= K_TRIPLE:
        top = clean_rank(hand, clean, kind + 1, top + 1)
        if top < 0:
            return False
        put_natural(kind + 1, 1, top, words, tags)
        return True
    width = kind - K_STRAIGHT + 1
    length = tag_length(table)
    full = ranks_ge(clean & SK_SEQ_MASK, width)
    tops = run_tops(full, length) & ~(unit(top + 1) - 1)
    if tops == 0:
        return False
    put_natural(width, length, low_rank(tops), words, tags)
    return True


cdef inline int greedy_shortcut(uint64_t hand, uint32_t table, bint partner_owns, int opp_min,
                                int my_cards, uint64_t* words, uint32_t* tags,
                                uint32_t flags) noexcept nogil:
    """The greedy heuristic, as far as it can decide without the list of plays.

    1. A play that empties the hand is made at once.
    2. Leading: the plain play that sheds the most cards, preferring plays that use no wild
       and break no bomb rank (a rank held ≥ 4 times), then the lowest top; a bomb only if
       nothing plain is left.
    3. Answering: never over the partner. Otherwise the smallest beating plain play that uses
       no wild and breaks no bomb; when an opponent is close to finishing (≤ 6 cards) or our
       own hand is small (≤ 6), any beating plain play (the lowest top, then the fewest
       wilds), else the smallest bomb; otherwise pass (bombs are kept for later).

    Ties go to the first play in ``sk_legal``'s list order. Returns 0 with the play written
    to ``words[0]``/``tags[0]``, -1 to pass, ``SP_LIST`` when only the list decides (leading
    with no clean play; answering with none when an opponent or the hand is close to
    finishing): then :func:`greedy_listed` on ``sk_legal``'s list."""
    if greedy_whole_hand(hand, table, words, tags, flags) == 0:
        return 0
    if table == 0:
        return 0 if greedy_clean_lead(hand, words, tags) else SP_LIST
    if partner_owns:
        return -1
    if greedy_clean_answer(hand, table, words, tags):
        return 0
    if opp_min > 6 and my_cards > 6:
        return -1
    return SP_LIST


cdef inline int greedy_listed(uint64_t hand, uint32_t table, int opp_min, int my_cards,
                              const uint64_t* words, const uint32_t* tags, int n,
                              uint32_t flags) noexcept nogil:
    """Greedy's choice among the ``n`` plays listed after :func:`greedy_shortcut` returned
    ``SP_LIST`` (rule 1 and the partner's table are decided there): an index, or -1 to
    pass."""
    if table == 0:
        return greedy_lead(hand, words, tags, n, flags)
    return greedy_answer(hand, opp_min, my_cards, words, tags, n, flags)


# -- one deal ---------------------------------------------------------------------------------
cdef inline int fewest_cards(int a, int b) noexcept nogil:
    """Cards of the opponent closest to finishing (99 if both are out): greedy's ``opp_min``."""
    if a == 0:
        return b if b else 99
    return a if b == 0 or a < b else b


cdef inline int narrow(uint64_t* words, uint32_t* tags, int n, uint32_t table,
                       uint32_t flags) noexcept nogil:
    """Keep, in order, the plays of a list that beat ``table``; returns how many. The answers
    to a table played over an earlier one of the same trick are the answers to the earlier
    table that beat it (R4: ``beats`` is transitive), in ``sk_generate``'s order."""
    cdef int i, k = 0
    for i in range(n):
        if sk_beats(tags[i], table, flags):
            words[k] = words[i]
            tags[k] = tags[i]
            k += 1
    return k


cdef inline int list_plays(const SimParams* p, const SkState* st, int seat, Work* wk,
                           DealRecord* out) noexcept nogil:
    """The plays of ``seat`` (to act) into its buffers: its answer list narrowed to the table
    when it kept one in this trick, else ``sk_legal``'s (at most ``SP_CAP``, an overflow
    counted in ``out``). Returns how many."""
    cdef int n
    if wk.list_trick[seat] == st.trick:
        n = narrow(wk.words[seat], wk.tags[seat], wk.n[seat], st.table, p.rules.flags)
    else:
        n = sk_legal(&p.rules, st, p.fewest[seat], wk.words[seat], wk.tags[seat], SP_CAP)
        if n > SP_CAP:
            out.overflow += 1
            n = SP_CAP
    wk.n[seat] = n
    return n


cdef inline void play_deal(const SimParams* p, uint64_t seed, Work* wk, DealRecord* out) noexcept nogil:
    """Deal from ``seed`` (the state of shuangkou.rng's generator) and play it to the end."""
    cdef SkDeal d
    cdef SkState st
    cdef SkScore sc
    cdef uint64_t rng
    # opp_min is set wherever greedy reads it; the initialiser only tells gcc so
    cdef int i, seat, nplays = 0, choice, opp_min = 99, stars
    cdef bint listed
    cdef uint32_t tag
    cdef uint64_t* words
    cdef uint32_t* tags

    memset(out, 0, sizeof(DealRecord))
    out.max_stars = -1
    wk.n_log = 0
    sk_deal(seed, p.revealed, &d)
    rng = d.after
    out.leader = d.leader
    out.revealed = d.revealed
    out.swap_a = d.swap_a
    out.swap_b = d.swap_b
    for i in range(4):
        out.first_hand[i] = d.hands[i]
    sk_init(&st, d.hands, d.leader)
    for i in range(4):
        wk.list_trick[i] = -1
    while not st.over:
        seat = st.to_act
        words = wk.words[seat]
        tags = wk.tags[seat]
        listed = True
        if p.policy[seat] == POL_GREEDY:
            opp_min = fewest_cards(st.ncards[(seat + 1) & 3], st.ncards[(seat + 3) & 3])
            choice = greedy_shortcut(st.hand[seat], st.table, st.owner == (seat ^ 2), opp_min,
                                st.ncards[seat], words, tags, p.rules.flags)
            listed = choice == SP_LIST
        if listed:
            nplays = list_plays(p, &st, seat, wk, out)
            if p.policy[seat] == POL_RANDOM:
                if st.table == 0:
                    choice = sk_rng_bounded(&rng, nplays)
                else:
                    choice = sk_rng_bounded(&rng, nplays + 1)
                    if choice == nplays:
                        choice = -1
            else:
                choice = greedy_listed(st.hand[seat], st.table, opp_min, st.ncards[seat], words,
                                       tags, nplays, p.rules.flags)
        if wk.logging and wk.n_log < SP_LOG_CAP:
            wk.log_seat[wk.n_log] = <int8_t>seat
            wk.log_word[wk.n_log] = words[choice] if choice >= 0 else 0
            wk.log_tag[wk.n_log] = tags[choice] if choice >= 0 else 0
            wk.n_log += 1
        out.decisions += 1
        if choice >= 0:
            out.plays += 1
            wk.list_trick[seat] = -1
            sk_play_unhashed(&st, words[choice], tags[choice])
        else:
            # the hand stays and every later table of this trick beats this one (R4), so the
            # seat's next answers are these plays that beat it (nplays < SP_CAP: all of them);
            # a pass without listing keeps the list of an earlier pass of the trick (the
            # shortcuts write into the buffers only when they play)
            if listed:
                wk.list_trick[seat] = st.trick if nplays < SP_CAP else -1
            sk_pass_unhashed(&st)
    out.tricks = st.trick + 1
    for i in range(st.nbombs):
        tag = st.bomb_tag[i]
        stars = tag_stars(tag)
        out.bombs_by_stars[stars if stars < SP_MAX_STARS else SP_MAX_STARS - 1] += 1
        out.bombs_by_seat[st.bomb_seat[i]] += 1
        if stars > out.max_stars:
            out.max_stars = <int8_t>stars
        if tag_size(tag) > out.max_bomb_size:
            out.max_bomb_size = <int8_t>tag_size(tag)
    sk_score(&p.rules, &st, False, &sc)
    out.outcome = sc.outcome
    out.multiplier = sc.multiplier
    for i in range(4):
        out.places[i] = sc.places[i]
        out.cards_left[i] = st.ncards[i]
        out.units[i] = sc.units[i]
        out.scores[i] = <int64_t>sc.units[i] * p.rules.base_score
        out.held_units[i] = <int16_t>sc.held_units[i]
