# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Self-play in the kernel: whole deals (RULES.md R7 flow, R8 scores) played by built-in
policies, in ``noexcept nogil`` C with fixed-width ints and no allocation in the loop.

* The deal mirrors :mod:`shuangkou.rng` bit for bit: SplitMix64, ``bounded(n) = (next·n)>>64``,
  Fisher–Yates over ids 0..107, 27 cards a seat, then the revealed card (明牌, with the partner
  swap of :mod:`shuangkou.game`) or the leader seat. Deal ``i`` of a run seeded ``s`` starts from
  ``deal_seed(s, i)``, so a deal's result depends on ``(seed, i)`` only, never on threads.
* Policy randomness continues the same generator after the deal draws.
* The flow mirrors :class:`shuangkou.game.Game`: a trick ends on the pass that makes every other
  seat still holding cards pass since the top play; 接风 to the partner (then the next seat
  with cards); the deal ends as soon as the outcome is decided; unplaced seats are ranked by
  fewer cards left, then play order after the last finisher.
* Scoring mirrors :func:`shuangkou.scoring.score`, including R8.4 held bombs: ``held_best`` is
  an exact search for the best split of a held hand into disjoint bombs (same value as the
  dynamic programme of ``scoring.best_held_bombs``).

Policies: ``POL_RANDOM`` – uniform over the legal plays (plus pass when answering);
``POL_GREEDY`` – a heuristic (see ``greedy_choose``).
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memset

from _generate cimport sk_generate
from _readings cimport (
    FLAG_STARS, FLAG_WILD_BJ, FLAG_WILD_SJ, K_BOMB, K_CHAIN_BOMB, K_FOUR_JOKERS, K_THREE_JOKERS,
    sk_beats, tag_kind, tag_size, tag_stars, tag_top, tag_width, tag_wilds,
)

cdef enum:
    SP_CAP = 65536          # play buffer per thread (the most plays of a 27-card hand is far less)
    SP_LOG_CAP = 2048       # decisions of one deal at most (≤ 108 plays, ≤ 3 passes after each)
    SP_MAX_STARS = 16
    POL_RANDOM = 0
    POL_GREEDY = 1
    MODE_CLASSIC = 0
    MODE_BAIBIAN = 1
    MODE_JJ = 2
    MODE_QIANBIAN = 3
    OUT_DOUBLE = 0          # 双扣
    OUT_SINGLE = 1          # 单扣
    OUT_TIE = 2             # 平扣

cdef extern from *:
    """
    #define SP_GAMMA 0x9E3779B97F4A7C15ULL
    #define SP_MIX1 0xBF58476D1CE4E5B9ULL
    #define SP_MIX2 0x94D049BB133111EBULL
    #define SP_STRIDE 0xD1B54A32D192ED03ULL
    #define SP_NAT_MASK 0x1111111111111ULL
    """
    const uint64_t SP_GAMMA
    const uint64_t SP_MIX1
    const uint64_t SP_MIX2
    const uint64_t SP_STRIDE
    const uint64_t SP_NAT_MASK


# -- the generator (shuangkou.rng) -------------------------------------------------------------
cdef inline uint64_t sm_next(uint64_t* state) noexcept nogil:
    cdef uint64_t z
    state[0] = state[0] + SP_GAMMA
    z = state[0]
    z = (z ^ (z >> 30)) * SP_MIX1
    z = (z ^ (z >> 27)) * SP_MIX2
    return z ^ (z >> 31)


cdef inline uint32_t sm_bounded(uint64_t* state, uint32_t n) noexcept nogil:
    """``(next() * n) >> 64`` with 64-bit arithmetic only (n < 2**32)."""
    cdef uint64_t x = sm_next(state)
    cdef uint64_t lo = (x & 0xFFFFFFFFULL) * n
    cdef uint64_t mid = (x >> 32) * n + (lo >> 32)
    return <uint32_t>(mid >> 32)


cdef inline uint64_t sm_deal_seed(uint64_t seed, uint64_t index) noexcept nogil:
    cdef uint64_t st = seed ^ (index * SP_STRIDE)
    return sm_next(&st)


cdef inline int card_rank_id(int card) noexcept nogil:
    if card < 104:
        return (card % 52) >> 2
    return 13 if card < 106 else 14


# -- parameters, buffers, per-deal record ------------------------------------------------------
cdef struct SimParams:
    uint32_t flags
    int32_t mode            # MODE_*
    int32_t revealed        # 1: 明牌 first leader, 0: random seat
    int32_t base_score
    int32_t four_jokers_multiplier
    int32_t jj_single_win
    int32_t held_bombs
    int32_t score_cap       # 0: none
    int32_t policy[4]       # POL_* per seat
    int32_t fewest[4]       # generation mode per seat (1: wilds="fewest")


cdef struct Work:
    uint64_t* words         # SP_CAP each
    uint32_t* tags
    # the action log of the current deal (always kept; cheap)
    int32_t n_log
    int8_t log_seat[SP_LOG_CAP]
    uint64_t log_word[SP_LOG_CAP]
    uint32_t log_tag[SP_LOG_CAP]
    int32_t log_choice[SP_LOG_CAP]  # index chosen among the generated plays, -1 = pass
    int32_t log_n[SP_LOG_CAP]       # number of plays generated at that decision


cdef struct DealRecord:
    int8_t outcome
    int8_t places[4]        # seats in place order
    int8_t leader           # first leader
    int16_t revealed        # revealed card id, -1 for a random leader
    int8_t swap_a           # 明牌 seat swap (-1 if none)
    int8_t swap_b
    int32_t units[4]
    int32_t scores[4]
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


# -- R8 tables (mirrors scoring.py) -------------------------------------------------------------
cdef inline int contribution_units(int stars, int mode) noexcept nogil:
    if stars < 6:
        return 0
    if mode == MODE_BAIBIAN:
        if stars == 6:
            return 2
        return 4 if stars == 7 else 6
    if mode == MODE_QIANBIAN:
        if stars == 6:
            return 2
        if stars == 7:
            return 6
        if stars == 8:
            return 16
        if stars == 9:
            return 30
        return 60 if stars == 10 else 100
    return 0


cdef inline int classic_factor(uint32_t tag, const SimParams* p) noexcept nogil:
    cdef int k = tag_kind(tag), x
    if k == K_FOUR_JOKERS:
        return p.four_jokers_multiplier
    if k == K_THREE_JOKERS:
        return 1
    x = tag_width(tag) if k == K_CHAIN_BOMB else tag_size(tag)
    return x - 3 if x > 4 else 1


cdef inline int star_factor(int stars, int mode) noexcept nogil:
    if stars < 5:
        return 1
    if mode == MODE_BAIBIAN:
        if stars == 5:
            return 2
        if stars == 6:
            return 4
        return 8 if stars == 7 else 16
    return 1 << (stars - 4)


cdef inline int jj_factor(int stars) noexcept nogil:
    if stars < 6:
        return 1
    if stars == 6:
        return 2
    return 3 if stars == 7 else 4


# -- R8.4 held bombs: exact best split ---------------------------------------------------------
cdef struct HeldCtx:
    int c[13]
    int mode
    int stars
    int j0                  # jokers that are not wild (only 三王 / 天王 can use them)


cdef inline int held_rank(HeldCtx* h, int r, int w, int nopen, int* ox, int* ol) noexcept nogil:
    """Best value from rank ``r`` on, with ``w`` wilds left and ``nopen`` chain bombs open
    through rank ``r - 1`` (X in ``ox``, ranks so far in ``ol``). At each rank every open chain
    continues (X more cards) or closes (≥ 3 ranks); new chains (X ≥ 4, equal groups: a group
    above the smallest adds no star) and one X相 bomb (≥ 1 natural, worth something only at
    ≥ 6★; two at one rank never beat their union) may start; naturals first, wilds for the
    shortfall. The search is exhaustive over these choices, so the result is the exact optimum."""
    cdef int best = -1, v, mask, i, k, demand, gain, room, room2, x1, x2, xb, used, need, n
    cdef int cx[3]
    cdef int cl[3]
    cdef int nx[3]
    cdef int nl[3]
    cdef int nn, a, b, hi, jj
    if r == 13:
        v = 0
        for i in range(nopen):
            if ol[i] < 3:
                return -1
            v += contribution_units(ox[i] + ol[i], h.mode)
        if h.stars:
            jj = w + h.j0
            if jj >= 4:
                v += contribution_units(7, h.mode)
            elif jj == 3:
                v += contribution_units(6, h.mode)
        return v
    n = h.c[r]
    for mask in range(1 << nopen):
        k = 0
        demand = 0
        gain = 0
        for i in range(nopen):
            if (mask >> i) & 1:
                if r > 11 or ol[i] >= 6:
                    break
                cx[k] = ox[i]
                cl[k] = ol[i] + 1
                demand += ox[i]
                k += 1
            else:
                if ol[i] < 3:
                    break
                gain += contribution_units(ox[i] + ol[i], h.mode)
        else:
            room = n + w - demand
            if room < 0:
                continue
            # new chains: up to two (X1 ≥ X2 ≥ 4; three would need 12 cards at one rank)
            hi = room if (h.stars and r <= 9) else 0
            for x1 in range(0, hi + 1):
                if x1 != 0 and x1 < 4:
                    continue
                for x2 in range(0, (x1 if x1 < room - x1 else room - x1) + 1):
                    if x2 != 0 and x2 < 4:
                        continue
                    if x1 == 0 and x2 != 0:
                        continue
                    if k + (x1 > 0) + (x2 > 0) > 3:
                        continue
                    # prune: a new chain must afford its first three ranks
                    if x1 and not held_chain_ok(h, r, x1 + x2, demand, w):
                        continue
                    room2 = room - x1 - x2
                    nn = k
                    for i in range(k):
                        nx[i] = cx[i]
                        nl[i] = cl[i]
                    if x1:
                        nx[nn] = x1
                        nl[nn] = 1
                        nn += 1
                    if x2:
                        nx[nn] = x2
                        nl[nn] = 1
                        nn += 1
                    # X相 bomb at r: none, or X with a positive value
                    for xb in range(0, room2 + 1):
                        if xb != 0:
                            if n == 0 or contribution_units(xb if h.stars else 0, h.mode) <= 0:
                                continue
                        used = demand + x1 + x2 + xb
                        need = used - n if used > n else 0
                        if need > w:
                            continue
                        v = held_rank(h, r + 1, w - need, nn, nx, nl)
                        if v < 0:
                            continue
                        v += gain
                        if xb:
                            v += contribution_units(xb, h.mode)
                        if v > best:
                            best = v
    return best


cdef inline bint held_chain_ok(HeldCtx* h, int r, int x, int demand, int w) noexcept nogil:
    """Can new chain groups of ``x`` cards (on top of ``demand`` at rank r) cover r, r+1, r+2
    with ``w`` wilds? (A cheap necessary condition: open chains' later demand is ignored.)"""
    cdef int need = 0, i, d
    for i in range(3):
        d = x + (demand if i == 0 else 0) - h.c[r + i]
        if d > 0:
            need += d
    return need <= w


cdef inline int held_best(uint64_t hand, uint32_t flags, int mode) noexcept nogil:
    """Units a seat holding ``hand`` takes from each other seat by its best split into bombs."""
    cdef HeldCtx h
    cdef int r, w, sj = (hand >> 52) & 15, bj = (hand >> 56) & 15, any_ = 0
    cdef int ox[3]
    cdef int ol[3]
    if mode != MODE_BAIBIAN and mode != MODE_QIANBIAN:
        return 0
    h.mode = mode
    h.stars = (flags & FLAG_STARS) != 0
    w = (sj if flags & FLAG_WILD_SJ else 0) + (bj if flags & FLAG_WILD_BJ else 0)
    h.j0 = sj + bj - w
    for r in range(13):
        h.c[r] = (hand >> (4 * r)) & 15
        if h.c[r] and h.c[r] + w >= 4:
            any_ = 1
    if not any_ or not h.stars:
        # no natural bomb can reach 6★ (without stars nothing earns contributions)
        if h.stars and sj + bj >= 4:
            return contribution_units(7, mode)
        if h.stars and sj + bj == 3:
            return contribution_units(6, mode)
        return 0
    r = held_rank(&h, 0, w, 0, ox, ol)
    return r if r > 0 else 0


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


cdef inline int greedy_choose(uint64_t hand, uint32_t table, bint partner_owns, int opp_min,
                              int my_cards, const uint64_t* words, const uint32_t* tags, int n,
                              uint32_t flags) noexcept nogil:
    """The greedy heuristic. Returns an index into the plays, or -1 to pass.

    1. A play that empties the hand is made at once.
    2. Leading: the plain play that sheds the most cards, preferring plays that use no wild
       and break no bomb rank (a rank held ≥ 4 times), then the lowest top; a bomb only if
       nothing plain is left.
    3. Answering: never over the partner. Otherwise the smallest beating plain play that uses
       no wild and breaks no bomb; when an opponent is close to finishing (≤ 6 cards) or our
       own hand is small (≤ 6), any beating plain play, else the smallest bomb; otherwise pass
       (bombs are kept for later)."""
    cdef int i, best = -1, k, bsize = -1, btop = 99, bclean = -1, clean, size, top
    cdef uint64_t brk = bomb_ranks(hand)
    for i in range(n):
        if words[i] == hand:
            return i
    if table == 0:
        for i in range(n):
            k = tag_kind(tags[i])
            if k >= K_BOMB:
                continue
            clean = tag_wilds(tags[i]) == 0 and (used_ranks(words[i]) & brk) == 0
            size = tag_size(tags[i])
            top = tag_top(tags[i])
            if (clean > bclean or (clean == bclean and (size > bsize or (
                    size == bsize and top < btop)))):
                best = i
                bclean = clean
                bsize = size
                btop = top
        if best >= 0:
            return best
        return smallest_bomb(words, tags, n, flags)
    if partner_owns:
        return -1
    for i in range(n):
        k = tag_kind(tags[i])
        if k >= K_BOMB or tag_wilds(tags[i]) != 0 or (used_ranks(words[i]) & brk) != 0:
            continue
        top = tag_top(tags[i])
        if top < btop:
            best = i
            btop = top
    if best >= 0:
        return best
    if opp_min > 6 and my_cards > 6:
        return -1
    for i in range(n):
        k = tag_kind(tags[i])
        if k >= K_BOMB:
            continue
        top = tag_top(tags[i])
        if top < btop or (top == btop and tag_wilds(tags[i]) < tag_wilds(tags[best])):
            best = i
            btop = top
    if best >= 0:
        return best
    return smallest_bomb(words, tags, n, flags)


# -- one deal ---------------------------------------------------------------------------------
cdef inline void play_deal(const SimParams* p, uint64_t seed, Work* wk, DealRecord* out) noexcept nogil:
    """Deal from ``seed`` (the state of shuangkou.rng's generator) and play it to the end."""
    cdef uint64_t st = seed
    cdef uint8_t deck[108]
    cdef uint64_t hands[4]
    cdef int ncards[4]
    cdef int i, j, s, t, card, holder, other, oholder, leader, partner, tmp8
    cdef uint64_t tmp
    cdef int seat, owner, passes, needed, nplays, choice, nfin, first, k, opp_min, stars
    cdef uint32_t table, tag
    cdef uint64_t word
    cdef int8_t places[4]
    cdef int32_t units[4]
    cdef int32_t base[4]
    cdef int mult, f, best_f, mode = p.mode, last, a, b, ka, kb, per
    cdef int bomb_seat[128]
    cdef uint32_t bomb_tag[128]
    cdef int nbombs = 0

    memset(out, 0, sizeof(DealRecord))
    out.max_stars = -1
    out.swap_a = -1
    out.swap_b = -1
    wk.n_log = 0
    # R7 deal (shuangkou.rng)
    for i in range(108):
        deck[i] = <uint8_t>i
    for i in range(107, 0, -1):
        j = sm_bounded(&st, i + 1)
        tmp8 = deck[i]
        deck[i] = deck[j]
        deck[j] = <uint8_t>tmp8
    for s in range(4):
        hands[s] = 0
        for i in range(27):
            hands[s] += (<uint64_t>1) << (4 * card_rank_id(deck[27 * s + i]))
        ncards[s] = 27
    if p.revealed:
        card = sm_bounded(&st, 108)
        holder = 0
        oholder = -1
        if card < 104:
            other = card + 52 if card < 52 else card - 52
        else:
            other = card ^ 1
        for i in range(108):
            if deck[i] == card:
                holder = i // 27
            if deck[i] == other:
                oholder = i // 27
        leader = holder
        partner = leader ^ 2
        if oholder >= 0 and oholder != leader and oholder != partner:
            tmp = hands[oholder]
            hands[oholder] = hands[partner]
            hands[partner] = tmp
            out.swap_a = <int8_t>(oholder if oholder < partner else partner)
            out.swap_b = <int8_t>(partner if oholder < partner else oholder)
        out.revealed = <int16_t>card
    else:
        leader = sm_bounded(&st, 4)
        out.revealed = -1
    out.leader = <int8_t>leader
    for s in range(4):
        out.first_hand[s] = hands[s]

    # R7 flow (shuangkou.game.Game)
    seat = leader
    table = 0
    owner = -1
    passes = 0
    nfin = 0
    while True:
        k = p.fewest[seat]
        nplays = sk_generate(hands[seat], p.flags, table, k, wk.words, wk.tags, SP_CAP)
        if nplays > SP_CAP:
            out.overflow += 1
            nplays = SP_CAP
        if p.policy[seat] == POL_RANDOM:
            if table == 0:
                choice = sm_bounded(&st, nplays)
            else:
                choice = sm_bounded(&st, nplays + 1)
                if choice == nplays:
                    choice = -1
        else:
            opp_min = 99
            for t in range(4):
                if (t ^ seat) & 1 and ncards[t] and ncards[t] < opp_min:
                    opp_min = ncards[t]
            choice = greedy_choose(hands[seat], table, table != 0 and owner == (seat ^ 2),
                                   opp_min, ncards[seat], wk.words, wk.tags, nplays, p.flags)
        if wk.n_log < SP_LOG_CAP:
            wk.log_seat[wk.n_log] = <int8_t>seat
            wk.log_choice[wk.n_log] = choice
            wk.log_n[wk.n_log] = nplays
            wk.log_word[wk.n_log] = wk.words[choice] if choice >= 0 else 0
            wk.log_tag[wk.n_log] = wk.tags[choice] if choice >= 0 else 0
            wk.n_log += 1
        out.decisions += 1
        if choice >= 0:
            word = wk.words[choice]
            tag = wk.tags[choice]
            hands[seat] -= word
            ncards[seat] -= tag_size(tag)
            out.plays += 1
            if tag_kind(tag) >= K_BOMB:
                stars = tag_stars(tag)
                if nbombs < 128:
                    bomb_seat[nbombs] = seat
                    bomb_tag[nbombs] = tag
                    nbombs += 1
                out.bombs_by_stars[stars if stars < SP_MAX_STARS else SP_MAX_STARS - 1] += 1
                out.bombs_by_seat[seat] += 1
                if stars > out.max_stars:
                    out.max_stars = <int8_t>stars
                if tag_size(tag) > out.max_bomb_size:
                    out.max_bomb_size = <int8_t>tag_size(tag)
            table = tag
            owner = seat
            passes = 0
            if ncards[seat] == 0:
                places[nfin] = <int8_t>seat
                nfin += 1
                first = places[0]
                a = 0   # partner of the first finisher out
                ka = 0  # other team out
                for i in range(nfin):
                    if places[i] == (first ^ 2):
                        a = 1
                    if (places[i] ^ first) & 1:
                        ka += 1
                if a or ka == 2:
                    break
            seat = (seat + 1) & 3
            while ncards[seat] == 0:
                seat = (seat + 1) & 3
        else:
            passes += 1
            needed = 0
            for t in range(4):
                if ncards[t] and t != owner:
                    needed += 1
            if passes >= needed:
                if ncards[owner]:
                    seat = owner
                elif ncards[owner ^ 2]:
                    seat = owner ^ 2
                else:
                    seat = (owner + 1) & 3
                    while ncards[seat] == 0:
                        seat = (seat + 1) & 3
                table = 0
                owner = -1
                passes = 0
                out.tricks += 1
            else:
                seat = (seat + 1) & 3
                while ncards[seat] == 0:
                    seat = (seat + 1) & 3
    out.tricks += 1

    # R7 final places: unplaced seats by fewer cards, then play order after the last finisher
    last = places[nfin - 1]
    for i in range(nfin, 4):
        best_f = -1
        for t in range(4):
            a = 0
            for j in range(i):
                if places[j] == t:
                    a = 1
            if a:
                continue
            if best_f < 0 or ncards[t] < ncards[best_f] or (
                    ncards[t] == ncards[best_f] and ((t - last) & 3) < ((best_f - last) & 3)):
                best_f = t
        places[i] = <int8_t>best_f
    for i in range(4):
        out.places[i] = places[i]
        out.cards_left[i] = <int8_t>ncards[i]
    first = places[0]
    for i in range(1, 4):
        if places[i] == (first ^ 2):
            out.outcome = <int8_t>(i - 1)

    # R8 scoring (shuangkou.scoring.score)
    for s in range(4):
        base[s] = 0
    if mode == MODE_CLASSIC:
        per = 4 if out.outcome == OUT_DOUBLE else (2 if out.outcome == OUT_SINGLE else 0)
        for s in range(4):
            base[s] = per if ((s ^ first) & 1) == 0 else -per
    elif mode == MODE_BAIBIAN:
        for i in range(4):
            if out.outcome == OUT_DOUBLE:
                per = 4 if i < 2 else -4
            elif out.outcome == OUT_SINGLE:
                per = 2 if (i & 1) == 0 else -2
            else:
                per = 1 if (i == 0 or i == 3) else 0
            base[places[i]] = per
    elif mode == MODE_JJ:
        if out.outcome == OUT_TIE:
            for i in range(4):
                base[places[i]] = 1 if (i == 0 or i == 3) else -1
        else:
            per = 6 if out.outcome == OUT_DOUBLE else p.jj_single_win
            for s in range(4):
                base[s] = per if ((s ^ first) & 1) == 0 else -per
    else:
        per = 3 if out.outcome == OUT_DOUBLE else (2 if out.outcome == OUT_SINGLE else 1)
        for s in range(4):
            base[s] = per if ((s ^ first) & 1) == 0 else -per
    mult = 1
    if mode == MODE_JJ:
        for i in range(nbombs):
            mult *= jj_factor(tag_stars(bomb_tag[i]))
    else:
        best_f = 1
        for i in range(nbombs):
            if ((bomb_seat[i] ^ first) & 1) != 0:
                continue
            if mode == MODE_CLASSIC:
                f = classic_factor(bomb_tag[i], p)
            else:
                f = star_factor(tag_stars(bomb_tag[i]), mode)
            if f > best_f:
                best_f = f
        mult = best_f
    out.multiplier = mult
    for s in range(4):
        units[s] = base[s] * mult
    for i in range(nbombs):
        per = contribution_units(tag_stars(bomb_tag[i]), mode)
        if per:
            for s in range(4):
                units[s] += 3 * per if s == bomb_seat[i] else -per
    if p.held_bombs:
        for t in range(4):
            if ncards[t] == 0:
                continue
            per = held_best(hands[t], p.flags, mode)
            out.held_units[t] = <int16_t>per
            if per:
                for s in range(4):
                    units[s] += 3 * per if s == t else -per
    for s in range(4):
        if p.score_cap > 0:
            if units[s] > p.score_cap:
                units[s] = p.score_cap
            elif units[s] < -p.score_cap:
                units[s] = -p.score_cap
        out.units[s] = units[s]
        out.scores[s] = units[s] * p.base_score
