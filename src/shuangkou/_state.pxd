# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The game state in C: one deal at rank level (RULES.md R7 flow, R8 scoring), written once.

Everything here is ``noexcept nogil`` C on fixed-size structs, for every layer that plays:
``sk.State`` (``_engine.pyx``), self-play (``_selfplay.pxd``), the solver and the RL vector
environment. The contract is docs/internals.md, "The game state".

* ``SkParams`` – the rules as the engine needs them (``sk_params_init`` or ``State.rules``).
* ``SkState`` – a position: 4 packed hands, seat to act, table (word, tag, owner), passes
  since the top play, places, leader, trick, the bombs each seat played (what R8 needs),
  escape and the 64-bit Zobrist hash (kept up to date by every transition). Copy = struct
  assignment. Its leading part (``SK_CORE_BYTES``: everything but the append-only bomb list
  and the start hands) is what an undo record (``SkUndo``) saves.
* Transitions: ``sk_play`` (a trusted (word, tag): a play of ``sk_legal``'s list), ``sk_pass``,
  ``sk_abandon``. ``sk_legal`` lists the plays into caller buffers (``sk_generate``).
* ``sk_score`` – R8.1–R8.4 with the whole breakdown into an ``SkScore``; R8.4's held bombs by
  ``sk_held_best`` / ``sk_held_split`` (a memoised DP over the ranks: polynomial); the same DP
  bounds R8.3's product for the solver (``sk_held_jj_log``).
* The seeded deal (``sk_deal``: SplitMix64, Fisher–Yates, the 明牌 draw and swap) and the
  generator (``sk_rng_next``, ``sk_rng_bounded``, ``sk_deal_seed``); ``shuangkou.rng`` calls
  them.
"""

from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from shuangkou._generate cimport sk_generate
from _packed cimport SK_CTZ64, nib
from _readings cimport (
    FLAG_STARS, FLAG_WILD_BJ, FLAG_WILD_SJ, K_BOMB, K_CHAIN_BOMB, K_FOUR_JOKERS, K_THREE_JOKERS,
    make_tag, sk_classify, tag_kind, tag_size, tag_stars, tag_width,
)

cdef enum:
    SK_MAX_BOMBS = 40       # bombs one deal can hold: each takes ≥ 3 of the 108 cards
    SK_MAX_HELD = 40        # bombs of one held split
    SK_UNDO_WORDS = 10      # an SkUndo is 80 bytes (≥ SK_CORE_BYTES, checked by _engine)
    SK_MODE_CLASSIC = 0     # R8.1
    SK_MODE_BAIBIAN = 1     # R8.2
    SK_MODE_JJ = 2          # R8.3
    SK_MODE_QIANBIAN = 3    # R8.4
    SK_OUT_DOUBLE = 0       # 双扣
    SK_OUT_SINGLE = 1       # 单扣
    SK_OUT_TIE = 2          # 平扣
    SK_OUT_ESCAPE = 3       # 逃跑
    SK_HELD_MEMO = 8192     # memo slots of the held-bomb DP (a full deck needs far fewer)
    SK_JJ_LOG = 64          # the held-bomb DP's JJ weights: log2 of a factor in 64ths

cdef extern from *:
    """
    #define SK_GAMMA 0x9E3779B97F4A7C15ULL
    #define SK_MIX1 0xBF58476D1CE4E5B9ULL
    #define SK_MIX2 0x94D049BB133111EBULL
    #define SK_STRIDE 0xD1B54A32D192ED03ULL
    """
    const uint64_t SK_GAMMA
    const uint64_t SK_MIX1
    const uint64_t SK_MIX2
    const uint64_t SK_STRIDE


# -- the structs -------------------------------------------------------------------------------
cdef struct SkParams:
    uint32_t flags              # the rules word (Rules.flags)
    int32_t mode                # SK_MODE_*
    int64_t base_score          # 64-bit: scores = units × base score (RL rewards, self-play)
    int32_t four_jokers_multiplier
    int32_t jj_single_win
    int32_t held_bombs          # R8.4 held bombs count
    int32_t score_cap           # 0: none
    int32_t escape_penalty


cdef struct SkState:
    # -- the core: what one action may change (an SkUndo saves these SK_CORE_BYTES) --
    uint64_t hand[4]            # packed hands
    uint64_t table_word         # cards of the top play (0 when the seat to act leads)
    uint64_t hash               # Zobrist hash of the position (see sk_rehash)
    uint32_t table              # tag of the top play, NO_TABLE (0) when leading
    int16_t trick               # 0-based trick number
    int8_t to_act               # seat to act, -1 once the deal is over
    int8_t owner                # owner of the top play, -1 when leading
    int8_t passes               # passes since the top play
    int8_t leader               # seat that led the current trick
    int8_t nplaces
    int8_t places[4]            # seats out, in finishing order
    int8_t escape               # seat that abandoned, -1 if none
    int8_t over
    int8_t nbombs               # bombs played, in play order, in bomb_* below
    int8_t ncards[4]            # cards left per seat
    # -- append-only and constant parts --
    int8_t first_leader         # the deal's first leader (R7 ranking when nobody finished)
    int8_t bomb_seat[SK_MAX_BOMBS]
    uint32_t bomb_tag[SK_MAX_BOMBS]
    uint64_t bomb_word[SK_MAX_BOMBS]
    uint64_t start[4]           # hands when the position was set up (cards played = start - hand)


cdef struct SkUndo:
    uint64_t w[SK_UNDO_WORDS]


cdef struct SkScore:
    int8_t outcome              # SK_OUT_*
    int8_t places[4]            # all four seats in place order (R7 ranking of unplaced seats)
    int32_t base[4]
    int32_t multiplier
    int32_t unclamped[4]        # base × multiplier + contributions
    int32_t units[4]            # final units (cap, or the escape penalty)
    int8_t clamped[4]
    int8_t n_mult               # bombs behind the multiplier: indexes into the state's bombs
    int8_t mult_bomb[SK_MAX_BOMBS]
    int32_t mult_factor[SK_MAX_BOMBS]
    int8_t n_contrib            # played bombs that moved units: index, units per other seat
    int8_t contrib_bomb[SK_MAX_BOMBS]
    int32_t contrib_per[SK_MAX_BOMBS]
    int32_t held_units[4]       # R8.4: units per other seat of each seat's best held split
    int8_t n_held               # the held bombs of those splits
    int8_t held_seat[SK_MAX_HELD]
    uint64_t held_word[SK_MAX_HELD]
    uint32_t held_tag[SK_MAX_HELD]
    int32_t held_per[SK_MAX_HELD]


cdef struct SkDeal:
    uint8_t deck[108]           # card ids in dealt order: seat s holds deck[27s : 27s + 27]
    uint64_t hands[4]           # packed, after the 明牌 swap
    int8_t leader
    int16_t revealed            # the revealed card id, -1 for a random leader
    int8_t swap_a               # seats the 明牌 swap exchanged (-1, -1: none)
    int8_t swap_b
    uint64_t after              # the generator's state after the deal's draws


# -- the generator and the seeded deal (shuangkou.rng documents them) ---------------------------
cdef inline uint64_t sk_mix(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * SK_MIX1
    z = (z ^ (z >> 27)) * SK_MIX2
    return z ^ (z >> 31)


cdef inline uint64_t sk_rng_next(uint64_t* state) noexcept nogil:
    """SplitMix64: advance ``state`` and return the next output."""
    state[0] = state[0] + SK_GAMMA
    return sk_mix(state[0])


cdef inline uint32_t sk_rng_bounded(uint64_t* state, uint32_t n) noexcept nogil:
    """``(next() * n) >> 64`` with 64-bit arithmetic only (n < 2**32)."""
    cdef uint64_t x = sk_rng_next(state)
    cdef uint64_t lo = (x & 0xFFFFFFFFULL) * n
    cdef uint64_t mid = (x >> 32) * n + (lo >> 32)
    return <uint32_t>(mid >> 32)


cdef inline uint64_t sk_deal_seed(uint64_t seed, uint64_t index) noexcept nogil:
    """The seed of deal ``index`` of a run seeded ``seed``."""
    cdef uint64_t st = seed ^ (index * SK_STRIDE)
    return sk_rng_next(&st)


cdef inline int sk_card_rank(int card) noexcept nogil:
    """R1 rank index of a physical card id (cards.py: deck*52 + rank*4 + suit; jokers 104..)."""
    if card < 104:
        return (card % 52) >> 2
    return 13 if card < 106 else 14


cdef inline void sk_shuffle(uint64_t* state, uint8_t* deck) noexcept nogil:
    """The 108 card ids in dealt order: Fisher–Yates, i = 107 … 1, j = bounded(i + 1)."""
    cdef int i, j
    cdef uint8_t t8
    for i in range(108):
        deck[i] = <uint8_t>i
    for i in range(107, 0, -1):
        j = sk_rng_bounded(state, i + 1)
        t8 = deck[i]
        deck[i] = deck[j]
        deck[j] = t8


cdef extern from *:
    """
    #define SK_U(r) (1ULL << (4 * (r)))
    #define SK_U4(r) SK_U(r), SK_U(r), SK_U(r), SK_U(r)
    #define SK_U52 SK_U4(0), SK_U4(1), SK_U4(2), SK_U4(3), SK_U4(4), SK_U4(5), SK_U4(6), \
                   SK_U4(7), SK_U4(8), SK_U4(9), SK_U4(10), SK_U4(11), SK_U4(12)
    static const unsigned long long SK_CARD_UNIT[108] = {
        SK_U52, SK_U52, SK_U(13), SK_U(13), SK_U(14), SK_U(14)
    };
    """
    const uint64_t* SK_CARD_UNIT    # 1 << 4 * sk_card_rank(card): the card in a packed hand


cdef inline void sk_deal(uint64_t seed, bint revealed, SkDeal* out) noexcept nogil:
    """R7 deal from the generator state ``seed``: Fisher–Yates over ids 0..107, 27 cards a
    seat, then one more draw: the revealed card (明牌: its holder leads; the holder of the other
    copy swaps seats with the leader's partner) or the leader seat."""
    cdef uint64_t st = seed, tmp, hand
    cdef int i, s, card = -1, other = -1, holder = 0, oholder = -1, partner
    sk_shuffle(&st, out.deck)
    if revealed:                    # drawn before the hands are summed (which draw nothing)
        card = sk_rng_bounded(&st, 108)
        if card < 104:
            other = card + 52 if card < 52 else card - 52
        else:
            other = card ^ 1
    for s in range(4):
        hand = 0
        for i in range(27 * s, 27 * s + 27):
            hand += SK_CARD_UNIT[out.deck[i]]
            if out.deck[i] == card:
                holder = s
            elif out.deck[i] == other:
                oholder = s
        out.hands[s] = hand
    out.swap_a = -1
    out.swap_b = -1
    if revealed:
        partner = holder ^ 2
        if oholder >= 0 and oholder != holder and oholder != partner:
            tmp = out.hands[oholder]
            out.hands[oholder] = out.hands[partner]
            out.hands[partner] = tmp
            out.swap_a = <int8_t>(oholder if oholder < partner else partner)
            out.swap_b = <int8_t>(partner if oholder < partner else oholder)
        out.leader = <int8_t>holder
        out.revealed = <int16_t>card
    else:
        out.leader = <int8_t>sk_rng_bounded(&st, 4)
        out.revealed = -1
    out.after = st


# -- rules -------------------------------------------------------------------------------------
cdef inline void sk_params_init(SkParams* p, uint32_t flags, int mode) noexcept nogil:
    """Defaults of the rules fields (Rules): base score 1, 天王 ×5, JJ 单扣 3, no held bombs,
    no cap, escape 12. Callers set the fields their rules change."""
    p.flags = flags
    p.mode = mode
    p.base_score = 1
    p.four_jokers_multiplier = 5
    p.jj_single_win = 3
    p.held_bombs = 0
    p.score_cap = 0
    p.escape_penalty = 12


# -- the Zobrist hash --------------------------------------------------------------------------
# Keys are SplitMix64 mixes of a feature number, summed mod 2**64 (an additive Zobrist hash:
# removing a feature subtracts its key, so repeated features — two equal bombs — stay counted).
# The keys of the small features are a table the C compiler computes (constant expressions):
# hands (seat, rank, count) at 0..959, seat to act + 1 at 960..964, passes at 965..968,
# escape + 1 at 969..973, places (order, seat) at 976..991. The table play and bombs are
# mixed when they change.
cdef extern from *:
    """
    #define SK_Z1(z) (((z) ^ ((z) >> 30)) * 0xBF58476D1CE4E5B9ULL)
    #define SK_Z2(z) (((z) ^ ((z) >> 27)) * 0x94D049BB133111EBULL)
    #define SK_Z3(z) ((z) ^ ((z) >> 31))
    #define SK_ZK(i) SK_Z3(SK_Z2(SK_Z1((unsigned long long)(i) * 0x9E3779B97F4A7C15ULL \
                                         + 0x5851F42D4C957F2DULL)))
    #define SK_ZK4(i) SK_ZK(i), SK_ZK((i) + 1), SK_ZK((i) + 2), SK_ZK((i) + 3)
    #define SK_ZK16(i) SK_ZK4(i), SK_ZK4((i) + 4), SK_ZK4((i) + 8), SK_ZK4((i) + 12)
    #define SK_ZK64(i) SK_ZK16(i), SK_ZK16((i) + 16), SK_ZK16((i) + 32), SK_ZK16((i) + 48)
    #define SK_ZK256(i) SK_ZK64(i), SK_ZK64((i) + 64), SK_ZK64((i) + 128), SK_ZK64((i) + 192)
    static const unsigned long long SK_ZOBRIST[1024] = {
        SK_ZK256(0), SK_ZK256(256), SK_ZK256(512), SK_ZK256(768)
    };
    """
    const uint64_t* SK_ZOBRIST

cdef enum:
    _Z_TO_ACT = 960
    _Z_PASSES = 965
    _Z_ESCAPE = 969
    _Z_PLACE = 976


cdef inline uint64_t _z_hand(int seat, int rank, int count) noexcept nogil:
    return SK_ZOBRIST[(seat * 15 + rank) << 4 | count]


cdef inline uint64_t _z_table(uint64_t word, uint32_t tag, int owner) noexcept nogil:
    return sk_mix(word ^ (<uint64_t>tag << 3 | <uint64_t>(owner + 1)) * SK_GAMMA)


cdef inline uint64_t _z_bomb(int seat, uint32_t tag) noexcept nogil:
    return sk_mix((<uint64_t>tag << 2 | <uint64_t>seat) * SK_MIX1)


cdef inline uint64_t _z_turn(const SkState* st) noexcept nogil:
    """Keys of the fields every action rewrites: seat to act and passes."""
    return SK_ZOBRIST[_Z_TO_ACT + st.to_act + 1] + SK_ZOBRIST[_Z_PASSES + st.passes]


cdef inline uint64_t sk_rehash(const SkState* st) noexcept nogil:
    """The hash of a position from scratch: hands (seat, rank, count), seat to act, table
    (word, tag, owner), passes, places (order, seat), escape, bombs (seat, tag; a multiset).
    Not the trick, the leader or the history. ``st.hash`` always equals it."""
    cdef uint64_t h = (_z_turn(st) + _z_table(st.table_word, st.table, st.owner)
                       + SK_ZOBRIST[_Z_ESCAPE + st.escape + 1])
    cdef int s, r
    for s in range(4):
        for r in range(15):
            h += _z_hand(s, r, nib(st.hand[s], r))
    for r in range(st.nplaces):
        h += SK_ZOBRIST[_Z_PLACE + (r << 2 | st.places[r])]
    for r in range(st.nbombs):
        h += _z_bomb(st.bomb_seat[r], st.bomb_tag[r])
    return h


# -- set-up, copy, undo, equality --------------------------------------------------------------
cdef inline void sk_init(SkState* st, const uint64_t* hands, int to_act) noexcept nogil:
    """A fresh position: ``hands`` (4 packed words), ``to_act`` leads the first trick."""
    cdef int s
    memset(st, 0, sizeof(SkState))
    for s in range(4):
        st.hand[s] = hands[s]
        st.start[s] = hands[s]
        st.ncards[s] = <int8_t>_count(hands[s])
    st.to_act = <int8_t>to_act
    st.owner = -1
    st.leader = <int8_t>to_act
    st.first_leader = <int8_t>to_act
    st.escape = -1
    st.hash = sk_rehash(st)


cdef inline int _count(uint64_t word) noexcept nogil:
    cdef int r, n = 0
    for r in range(15):
        n += nib(word, r)
    return n


cdef inline size_t sk_core_bytes() noexcept nogil:
    """Bytes of the core of an SkState (everything before ``first_leader``)."""
    cdef SkState probe
    return <size_t>(<char*>&probe.first_leader - <char*>&probe)


cdef inline void sk_save(const SkState* st, SkUndo* u) noexcept nogil:
    """Save what the next action may change (bombs are append-only: ``nbombs`` is saved)."""
    memcpy(u, st, sk_core_bytes())


cdef inline void sk_restore(SkState* st, const SkUndo* u) noexcept nogil:
    memcpy(st, u, sk_core_bytes())


cdef inline bint sk_equal(const SkState* a, const SkState* b) noexcept nogil:
    """Same position (docs/internals.md): hands, seat to act, table (word, tag, owner), passes,
    places, escape, and the bombs played as a multiset of (seat, tag)."""
    cdef int i, j, na, nb
    if (a.hash != b.hash or a.to_act != b.to_act or a.table != b.table
            or a.table_word != b.table_word or a.owner != b.owner or a.passes != b.passes
            or a.nplaces != b.nplaces or a.escape != b.escape or a.nbombs != b.nbombs):
        return False
    for i in range(4):
        if a.hand[i] != b.hand[i]:
            return False
    for i in range(a.nplaces):
        if a.places[i] != b.places[i]:
            return False
    for i in range(a.nbombs):
        na = 0
        nb = 0
        for j in range(a.nbombs):
            if a.bomb_tag[j] == a.bomb_tag[i] and a.bomb_seat[j] == a.bomb_seat[i]:
                na += 1
            if b.bomb_tag[j] == a.bomb_tag[i] and b.bomb_seat[j] == a.bomb_seat[i]:
                nb += 1
        if na != nb:
            return False
    return True


# -- R7 flow -----------------------------------------------------------------------------------
cdef inline int sk_next_active(const SkState* st, int seat) noexcept nogil:
    """The next seat after ``seat`` in play order that still holds cards (-1: none)."""
    cdef int k, s
    for k in range(1, 4):
        s = (seat + k) & 3
        if st.ncards[s]:
            return s
    return -1


cdef inline int sk_legal(const SkParams* p, const SkState* st, bint fewest, uint64_t* words,
                         uint32_t* tags, int cap) noexcept nogil:
    """The plays of the seat to act (pass excluded) into ``words``/``tags`` (at most ``cap``);
    returns how many there are in all (0 once the deal is over). Order: ``sk_generate``'s."""
    if st.over:
        return 0
    return sk_generate(st.hand[st.to_act], p.flags, st.table, fewest, words, tags, cap)


cdef inline bint sk_is_over(const SkState* st) noexcept nogil:
    return st.over != 0


cdef inline bint sk_decided(const SkState* st) noexcept nogil:
    """R7: the outcome is decided once the first finisher's partner or both opponents are out."""
    cdef int i, first, opp = 0
    if st.nplaces == 0:
        return False
    first = st.places[0]
    for i in range(1, st.nplaces):
        if st.places[i] == (first ^ 2):
            return True
        opp += 1
    return opp >= 2


cdef inline void sk_play(SkState* st, uint64_t word, uint32_t tag) noexcept nogil:
    """The seat to act plays ``word`` read as ``tag`` (trusted: a play of ``sk_legal``'s list).
    R7: the play tops the table; a seat that empties its hand is out; the deal ends at once
    when the outcome is decided."""
    _sk_play(st, word, tag, True)


cdef inline void sk_pass(SkState* st) noexcept nogil:
    """The seat to act passes (trusted: a table is up). R7: when every other seat still holding
    cards has passed since the top play, the trick ends and its owner leads (接风: the owner's
    partner if the owner is out, then the next seat with cards)."""
    _sk_pass(st, True)


cdef inline void sk_play_unhashed(SkState* st, uint64_t word, uint32_t tag) noexcept nogil:
    """``sk_play`` without the hash update (``st.hash`` goes stale): for loops that never
    read it (self-play)."""
    _sk_play(st, word, tag, False)


cdef inline void sk_pass_unhashed(SkState* st) noexcept nogil:
    """``sk_pass`` without the hash update."""
    _sk_pass(st, False)


cdef inline void sk_trick_won_unhashed(SkState* st) noexcept nogil:
    """Every other seat still holding cards passes on the top play, whose owner still holds
    cards (trusted: the seat to act is not the owner): R7, the trick ends and the owner leads.
    The state ``sk_pass_unhashed`` reaches by those passes, made at once (the hash is not
    updated)."""
    st.table = 0
    st.table_word = 0
    st.passes = 0
    st.trick += 1
    st.leader = st.owner
    st.to_act = st.owner
    st.owner = -1


cdef inline void sk_relay_unhashed(SkState* st) noexcept nogil:
    """Every other seat still holding cards passes on the top play, whose owner is out and
    whose owner's partner still holds cards (trusted): R7 接风, the trick ends and the
    partner leads. The state ``sk_pass_unhashed`` reaches by those passes, made at once (the
    hash is not updated)."""
    cdef int8_t partner = st.owner ^ 2
    sk_trick_won_unhashed(st)
    st.leader = partner
    st.to_act = partner


cdef inline void _sk_play(SkState* st, uint64_t word, uint32_t tag, bint hashed) noexcept nogil:
    cdef int s = st.to_act, r, c, n
    cdef uint64_t h = 0
    cdef uint64_t w = word
    if hashed:
        h = st.hash - _z_turn(st) - _z_table(st.table_word, st.table, st.owner)
        while w:                    # the ranks played, lowest first
            r = SK_CTZ64(w) >> 2
            n = nib(w, r)
            c = nib(st.hand[s], r)
            h += _z_hand(s, r, c - n) - _z_hand(s, r, c)
            w &= ~((<uint64_t>15) << (4 * r))
    st.hand[s] -= word
    st.ncards[s] = <int8_t>(st.ncards[s] - tag_size(tag))
    if tag_kind(tag) >= K_BOMB and st.nbombs < SK_MAX_BOMBS:
        st.bomb_seat[st.nbombs] = <int8_t>s
        st.bomb_tag[st.nbombs] = tag
        st.bomb_word[st.nbombs] = word
        st.nbombs += 1
        if hashed:
            h += _z_bomb(s, tag)
    st.table = tag
    st.table_word = word
    st.owner = <int8_t>s
    st.passes = 0
    if hashed:
        h += _z_table(word, tag, s)
    if st.ncards[s] == 0:
        if hashed:
            h += SK_ZOBRIST[_Z_PLACE + (st.nplaces << 2 | s)]
        st.places[st.nplaces] = <int8_t>s
        st.nplaces += 1
        if sk_decided(st):
            st.over = 1
            st.to_act = -1
            if hashed:
                st.hash = h + _z_turn(st)
            return
    st.to_act = <int8_t>sk_next_active(st, s)
    if hashed:
        st.hash = h + _z_turn(st)


cdef inline int _holding(const SkState* st) noexcept nogil:
    """How many seats still hold cards: the four counts (each < 128) in the bytes of one word,
    where adding 0x7F sets a byte's top bit exactly when its count is not 0 (no carry
    leaves a byte), and those bits summed by one multiplication."""
    cdef uint32_t x
    memcpy(&x, st.ncards, 4)
    x = ((x + 0x7F7F7F7FU) & 0x80808080U) >> 7
    return <int>((x * 0x01010101U) >> 24)


cdef inline void _sk_pass(SkState* st, bint hashed) noexcept nogil:
    cdef int needed, lead
    cdef int owner = st.owner
    cdef uint64_t h = st.hash - _z_turn(st) if hashed else 0
    st.passes += 1
    needed = _holding(st) - (st.ncards[owner] != 0)
    if st.passes >= needed:
        if st.ncards[owner]:
            lead = owner
        elif st.ncards[owner ^ 2]:
            lead = owner ^ 2
        else:
            lead = sk_next_active(st, owner)
        if hashed:
            h += _z_table(0, 0, -1) - _z_table(st.table_word, st.table, owner)
        st.table = 0
        st.table_word = 0
        st.owner = -1
        st.passes = 0
        st.trick += 1
        st.leader = <int8_t>lead
        st.to_act = <int8_t>lead
    else:
        st.to_act = <int8_t>sk_next_active(st, st.to_act)
    if hashed:
        st.hash = h + _z_turn(st)


cdef inline void sk_abandon(SkState* st, int seat) noexcept nogil:
    """``seat`` abandons (逃跑): the deal ends at once (R8 escape)."""
    cdef uint64_t h = st.hash - _z_turn(st) - SK_ZOBRIST[_Z_ESCAPE + st.escape + 1]
    st.escape = <int8_t>seat
    st.over = 1
    st.to_act = -1
    st.hash = h + _z_turn(st) + SK_ZOBRIST[_Z_ESCAPE + seat + 1]


cdef inline void sk_final_places(const SkState* st, int8_t* out) noexcept nogil:
    """R7: the finishers in order, then the unplaced seats by fewer cards left, ties by play
    order after the last finisher (if nobody finished, an abandoned deal: starting with the
    deal's first leader)."""
    cdef int i, j, t, best, start, placed
    for i in range(st.nplaces):
        out[i] = st.places[i]
    start = st.places[st.nplaces - 1] + 1 if st.nplaces else st.first_leader
    for i in range(st.nplaces, 4):
        best = -1
        for t in range(4):
            placed = 0
            for j in range(i):
                if out[j] == t:
                    placed = 1
            if placed:
                continue
            if best < 0 or st.ncards[t] < st.ncards[best] or (
                    st.ncards[t] == st.ncards[best] and ((t - start) & 3) < ((best - start) & 3)):
                best = t
        out[i] = <int8_t>best


# -- R8 tables ---------------------------------------------------------------------------------
cdef inline int sk_contribution(int stars, int mode) noexcept nogil:
    """Units a bomb of ``stars`` takes from each other seat (R8.2, R8.4); 0 elsewhere."""
    if stars < 6:
        return 0
    if mode == SK_MODE_BAIBIAN:
        if stars == 6:
            return 2
        return 4 if stars == 7 else 6
    if mode == SK_MODE_QIANBIAN:
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


cdef inline int _classic_factor(uint32_t tag, const SkParams* p) noexcept nogil:
    """R8.1: 5 cards ×2 … 8 ×5 (cards − 3 beyond, house rules), 天王 by option, 三王 ×1; a
    chain bomb counts as an X相 bomb of its X."""
    cdef int k = tag_kind(tag), x
    if k == K_FOUR_JOKERS:
        return p.four_jokers_multiplier
    if k == K_THREE_JOKERS:
        return 1
    x = tag_width(tag) if k == K_CHAIN_BOMB else tag_size(tag)
    return x - 3 if x > 4 else 1


cdef inline int _star_factor(int stars, int mode) noexcept nogil:
    """R8.2 / R8.4: team T's biggest bomb by stars."""
    if stars < 5:
        return 1
    if mode == SK_MODE_BAIBIAN:
        if stars == 5:
            return 2
        if stars == 6:
            return 4
        return 8 if stars == 7 else 16
    return 1 << (stars - 4)


cdef inline int _jj_factor(int stars) noexcept nogil:
    """R8.3: every bomb multiplies: 6★ ×2, 7★ ×3, ≥8★ ×4."""
    if stars < 6:
        return 1
    if stars == 6:
        return 2
    return 3 if stars == 7 else 4


# -- R8.4 held bombs: a memoised DP over the ranks ------------------------------------------
# State at rank r: wilds left and the chain bombs open through rank r-1, each (X, ranks so far),
# kept sorted (at most 3: three groups of ≥ 4 need 12 cards at one rank, the most there can be).
# At each rank every open chain continues (X more cards, up to 6 ranks, ranks 3..A) or closes
# (≥ 3 ranks); up to two new chains (X ≥ 4; equal groups: a group above the smallest adds no
# star, R5) and one X相 bomb (≥ 1 natural, only if it pays; two at one rank never beat their
# union) may start; naturals first, wilds for the shortfall. At the end the jokers left (unused
# wilds and jokers that are not wild) form 三王 or 天王. The memo holds each state's value and
# best choice, so the search visits each state once: polynomial in the hand.
cdef struct _HeldCtx:
    int c[13]
    int mode
    int j0                      # jokers that are not wild (only 三王 / 天王 can use them)
    uint32_t key[SK_HELD_MEMO]  # state code + 1, 0 = empty slot
    int16_t value[SK_HELD_MEMO]
    uint16_t choice[SK_HELD_MEMO]


cdef inline int _held_gain(int stars, int mode) noexcept nogil:
    """What one bomb of ``stars`` is worth to the DP: its contribution units (R8.2, R8.4); in
    JJ (R8.3: every bomb multiplies, so the DP bounds a product by a sum of logs) log2 of its
    factor in 1/SK_JJ_LOG ths, rounded up (×2: 64, ×3: 102 for 101.44, ×4: 128), so a family
    of bombs is worth at least SK_JJ_LOG × log2 of the product of its factors."""
    if mode != SK_MODE_JJ:
        return sk_contribution(stars, mode)
    if stars < 6:
        return 0
    if stars == 6:
        return SK_JJ_LOG
    return 102 if stars == 7 else 2 * SK_JJ_LOG


cdef inline uint32_t _held_code(int r, int w, int n, const int* ox, const int* ol) noexcept nogil:
    cdef uint32_t k = <uint32_t>(r | w << 4 | n << 7)
    cdef int i
    for i in range(n):
        k |= <uint32_t>(ox[i] | ol[i] << 4) << (9 + 7 * i)
    return k + 1


cdef inline void _held_sort(int n, int* ox, int* ol, uint64_t* part) noexcept nogil:
    """Open chains in decreasing (X, length), the memo's canonical order (``part``, if given,
    holds each chain's cards and follows)."""
    cdef int i, j, tx, tl
    cdef uint64_t tp
    for i in range(1, n):
        j = i
        while j > 0 and (ox[j] > ox[j - 1] or (ox[j] == ox[j - 1] and ol[j] > ol[j - 1])):
            tx = ox[j]
            ox[j] = ox[j - 1]
            ox[j - 1] = tx
            tl = ol[j]
            ol[j] = ol[j - 1]
            ol[j - 1] = tl
            if part != NULL:
                tp = part[j]
                part[j] = part[j - 1]
                part[j - 1] = tp
            j -= 1


cdef inline bint _held_chain_ok(_HeldCtx* h, int r, int x, int demand, int w) noexcept nogil:
    """Can new chain groups of ``x`` cards (on top of ``demand`` at rank r) cover r, r+1, r+2
    with ``w`` wilds? (A cheap necessary condition: open chains' later demand is ignored.)"""
    cdef int need = 0, i, d
    for i in range(3):
        d = x + (demand if i == 0 else 0) - h.c[r + i]
        if d > 0:
            need += d
    return need <= w


cdef inline int _held_step(_HeldCtx* h, int r, int w, int nopen, const int* ox, const int* ol,
                           int mask, int x1, int x2, int xb, int* nn, int* nx, int* nl,
                           int* gain) noexcept nogil:
    """Apply one choice at rank ``r``: ``mask`` (bit i: open chain i continues), new chains
    ``x1 ≥ x2`` (0: none), an X相 bomb of ``xb`` (0: none). Writes the next state's chains
    (continuing ones in order, then the new ones; unsorted) and the units closed here; returns
    the wilds left, or -1 if the choice is not possible."""
    cdef int i, k = 0, demand = 0, used, need, n = h.c[r]
    gain[0] = 0
    for i in range(nopen):
        if (mask >> i) & 1:
            if r > 11 or ol[i] >= 6:
                return -1
            nx[k] = ox[i]
            nl[k] = ol[i] + 1
            demand += ox[i]
            k += 1
        else:
            if ol[i] < 3:
                return -1
            gain[0] += _held_gain(ox[i] + ol[i], h.mode)
    if x1:
        nx[k] = x1
        nl[k] = 1
        k += 1
    if x2:
        nx[k] = x2
        nl[k] = 1
        k += 1
    used = demand + x1 + x2 + xb
    need = used - n if used > n else 0
    if need > w:
        return -1
    if xb:
        gain[0] += _held_gain(xb, h.mode)
    nn[0] = k
    return w - need


cdef inline int _held_end(_HeldCtx* h, int w, int nopen, const int* ox,
                          const int* ol) noexcept nogil:
    """Past the last rank: open chains close (≥ 3 ranks), the jokers left make 三王 or 天王."""
    cdef int i, v = 0, jj = w + h.j0
    for i in range(nopen):
        if ol[i] < 3:
            return -1
        v += _held_gain(ox[i] + ol[i], h.mode)
    if jj >= 4:
        v += _held_gain(7, h.mode)
    elif jj == 3:
        v += _held_gain(6, h.mode)
    return v


cdef inline int _held_rank(_HeldCtx* h, int r, int w, int nopen, const int* ox, const int* ol,
                           uint16_t* choice_out) noexcept nogil:
    """Best units from rank ``r`` on (-1: no valid completion) and the choice at ``r`` that
    reaches it (``mask | x1 << 3 | x2 << 7 | xb << 11``); memoised."""
    cdef int best = -1, v, mask, i, k, demand, room, x1, x2, xb, wl, gain, nn
    cdef int n
    cdef int nx[3]
    cdef int nl[3]
    cdef uint32_t code = _held_code(r, w, nopen, ox, ol), slot
    cdef uint16_t choice = 0, sub
    if r == 13:
        choice_out[0] = 0
        return _held_end(h, w, nopen, ox, ol)
    slot = (code * 2654435761u) >> 19          # 13 bits: SK_HELD_MEMO slots
    while h.key[slot] != 0:
        if h.key[slot] == code:
            choice_out[0] = h.choice[slot]
            return h.value[slot]
        slot = (slot + 1) & (SK_HELD_MEMO - 1)
    n = h.c[r]
    for mask in range(1 << nopen):
        demand = 0
        k = 0
        for i in range(nopen):
            if (mask >> i) & 1:
                demand += ox[i]
                k += 1
        room = n + w - demand
        if room < 0:
            continue
        for x1 in range(0, (room if r <= 9 else 0) + 1):
            if x1 != 0 and x1 < 4:
                continue
            for x2 in range(0, (x1 if x1 < room - x1 else room - x1) + 1):
                if (x2 != 0 and x2 < 4) or (x1 == 0 and x2 != 0):
                    continue
                if k + (x1 > 0) + (x2 > 0) > 3:
                    continue
                if x1 and not _held_chain_ok(h, r, x1 + x2, demand, w):
                    continue
                for xb in range(0, room - x1 - x2 + 1):
                    if xb != 0 and (n == 0 or _held_gain(xb, h.mode) <= 0):
                        continue
                    wl = _held_step(h, r, w, nopen, ox, ol, mask, x1, x2, xb, &nn, nx, nl,
                                    &gain)
                    if wl < 0:
                        continue
                    _held_sort(nn, nx, nl, NULL)
                    v = _held_rank(h, r + 1, wl, nn, nx, nl, &sub)
                    if v < 0:
                        continue
                    v += gain
                    if v > best:
                        best = v
                        choice = <uint16_t>(mask | x1 << 3 | x2 << 7 | xb << 11)
    # store (if the table were ever full the value is simply not kept: still exact)
    slot = (code * 2654435761u) >> 19
    for i in range(SK_HELD_MEMO):
        if h.key[slot] == 0:
            h.key[slot] = code
            h.value[slot] = <int16_t>best
            h.choice[slot] = choice
            break
        slot = (slot + 1) & (SK_HELD_MEMO - 1)
    choice_out[0] = choice
    return best


cdef inline int _held_setup(_HeldCtx* h, uint64_t hand, uint32_t flags, int mode) noexcept nogil:
    """Fill the context; returns the wilds of ``hand`` (-1: nothing can pay, value 0: classic
    scoring, or contributions without stars — no bomb reaches 6★). JJ's product bound
    (``sk_held_jj_log``) runs without stars too: the DP's chain bombs and 三王, which the
    classic order lacks, only make it bigger, still a bound."""
    cdef int r, sj = nib(hand, 13), bj = nib(hand, 14), w
    if mode == SK_MODE_CLASSIC or (mode != SK_MODE_JJ and not (flags & FLAG_STARS)):
        return -1
    h.mode = mode
    w = (sj if flags & FLAG_WILD_SJ else 0) + (bj if flags & FLAG_WILD_BJ else 0)
    h.j0 = sj + bj - w
    for r in range(13):
        h.c[r] = nib(hand, r)
    return w


cdef inline void _held_take(uint64_t* nat, int* ws, int* wb, int r, int x,
                            uint64_t* part) noexcept nogil:
    """Put ``x`` cards of rank ``r`` into ``part``: naturals first, then wild SJ, then BJ."""
    cdef int k = nib(nat[0], r)
    if k > x:
        k = x
    nat[0] -= (<uint64_t>k) << (4 * r)
    part[0] += (<uint64_t>k) << (4 * r)
    x -= k
    while x > 0 and ws[0] > 0:
        ws[0] -= 1
        part[0] += (<uint64_t>1) << 52
        x -= 1
    while x > 0 and wb[0] > 0:
        wb[0] -= 1
        part[0] += (<uint64_t>1) << 56
        x -= 1


cdef inline int sk_held_split(uint64_t hand, uint32_t flags, int mode, uint64_t* words,
                              uint32_t* tags, int cap, int* value) noexcept nogil:
    """R8.4 (手中牌贡献分按最大计算): a best split of ``hand`` into disjoint bombs, wilds placed
    freely. ``value`` gets the units it takes from each other seat (same value as
    ``scoring.best_held_bombs``); its bombs' cards and readings go to ``words``/``tags`` (at
    most ``cap``); returns how many. Cards in no bomb are left over."""
    cdef _HeldCtx h
    cdef int w = _held_setup(&h, hand, flags, mode) if _held_pays(mode) else -1
    cdef int nb = 0, r, i, k, nn = 0, gain, wl
    cdef int mask, x1, x2, xb, ws, wb, js, jb
    cdef int ox[3]
    cdef int ol[3]
    cdef int nx[3]
    cdef int nl[3]
    cdef uint64_t part[3]
    cdef uint64_t npart[3]
    cdef uint64_t nat, single
    cdef uint16_t ch
    cdef uint32_t rt[2]
    value[0] = 0
    if w < 0:
        return 0
    memset(h.key, 0, sizeof(h.key))
    value[0] = _held_rank(&h, 0, w, 0, ox, ol, &ch)
    if value[0] <= 0:
        value[0] = 0
        return 0
    ws = nib(hand, 13) if flags & FLAG_WILD_SJ else 0
    wb = nib(hand, 14) if flags & FLAG_WILD_BJ else 0
    nat = hand & ((<uint64_t>1 << 52) - 1)
    for r in range(13):
        _held_rank(&h, r, w, nn, ox, ol, &ch)
        mask = ch & 7
        x1 = (ch >> 3) & 15
        x2 = (ch >> 7) & 15
        xb = (ch >> 11) & 15
        single = 0
        if xb:                      # an X相 bomb has a natural card (R3): reserve it first
            _held_take(&nat, &ws, &wb, r, 1, &single)
        k = 0
        for i in range(nn):
            if (mask >> i) & 1:
                _held_take(&nat, &ws, &wb, r, ox[i], &part[i])
                npart[k] = part[i]
                k += 1
            elif nb < cap:
                words[nb] = part[i]
                nb += 1
        if x1:
            npart[k] = 0
            _held_take(&nat, &ws, &wb, r, x1, &npart[k])
            k += 1
        if x2:
            npart[k] = 0
            _held_take(&nat, &ws, &wb, r, x2, &npart[k])
            k += 1
        if xb:
            _held_take(&nat, &ws, &wb, r, xb - 1, &single)
            if nb < cap:
                words[nb] = single
                nb += 1
        wl = _held_step(&h, r, w, nn, ox, ol, mask, x1, x2, xb, &nn, nx, nl, &gain)
        _held_sort(nn, nx, nl, npart)
        for i in range(nn):
            ox[i] = nx[i]
            ol[i] = nl[i]
            part[i] = npart[i]
        w = wl
    for i in range(nn):             # chains still open close after the last rank
        if nb < cap:
            words[nb] = part[i]
            nb += 1
    # the jokers left: 三王 or 天王 (jokers that are not wild, then the unused wilds)
    js = ws if flags & FLAG_WILD_SJ else nib(hand, 13)
    jb = wb if flags & FLAG_WILD_BJ else nib(hand, 14)
    if js + jb >= 3 and nb < cap:
        if js + jb == 4:
            words[nb] = (<uint64_t>2 << 52) | (<uint64_t>2 << 56)
        else:
            k = js if js < 3 else 3
            words[nb] = (<uint64_t>k << 52) | (<uint64_t>(3 - k) << 56)
        nb += 1
    for i in range(nb):
        sk_classify(words[i], flags, rt)
        tags[i] = rt[0]
    return nb


cdef inline int sk_held_best(uint64_t hand, uint32_t flags, int mode) noexcept nogil:
    """R8.4: units a seat holding ``hand`` takes from each other seat by its best split into
    bombs (``sk_held_split``'s value, without the split)."""
    return _held_most(hand, flags, mode) if _held_pays(mode) else 0


cdef inline int sk_held_jj_log(uint64_t hand, uint32_t flags) noexcept nogil:
    """R8.3: the most that the factors of disjoint bombs of ``hand`` can multiply to, as
    SK_JJ_LOG × its log2, rounded up per bomb (``_held_gain``): the DP's best split by those
    weights, so ``2 ** (value / SK_JJ_LOG)`` is at least every such product (the solver's
    JJ score bounds)."""
    return _held_most(hand, flags, SK_MODE_JJ)


cdef inline bint _held_pays(int mode) noexcept nogil:
    """Held bombs take contributions (R8.4 by the mode's table): 百变's and 千变's only."""
    return mode == SK_MODE_BAIBIAN or mode == SK_MODE_QIANBIAN


cdef inline int _held_most(uint64_t hand, uint32_t flags, int mode) noexcept nogil:
    """The DP's best split of ``hand`` into disjoint bombs, each worth ``_held_gain`` of
    ``mode``: the most they are worth together (0 when none is worth anything)."""
    cdef _HeldCtx h
    cdef int w = _held_setup(&h, hand, flags, mode), v
    cdef uint16_t ch
    if w < 0:
        return 0
    if not _held_any_natural(&h, w):    # only 三王 / 天王 can pay
        return _held_end(&h, w, 0, NULL, NULL)
    memset(h.key, 0, sizeof(h.key))
    v = _held_rank(&h, 0, w, 0, NULL, NULL, &ch)
    return v if v > 0 else 0


cdef inline bint _held_any_natural(_HeldCtx* h, int w) noexcept nogil:
    """Can a bomb with natural cards pay (R8.4: ≥ 6★)? An X相 bomb needs X ≥ 6; a chain bomb
    three ranks 3..A of ≥ 4 cards each (wilds covering the shortfall)."""
    cdef int r, i, need
    for r in range(13):
        if h.c[r] and h.c[r] + w >= 6:
            return True
    for r in range(10):
        need = 0
        for i in range(3):
            if h.c[r + i] < 4:
                need += 4 - h.c[r + i]
        if need <= w:
            return True
    return False


# -- R8 scoring --------------------------------------------------------------------------------
cdef inline void sk_score(const SkParams* p, const SkState* st, bint split,
                          SkScore* out) noexcept nogil:
    """R8 of a finished deal (or of the position as it stands if not over): outcome, places,
    base, multiplier and its bombs, the contribution of every played bomb and held bombs
    (R8.4), the cap; or the escape penalty (no base, no multiplier, no contributions).
    ``split``: also list the held bombs (``n_held`` …; else only ``held_units``)."""
    cdef int i, k, s, t, first, per, f, best_f, mode = p.mode
    memset(out, 0, sizeof(SkScore))
    out.multiplier = 1
    sk_final_places(st, out.places)
    if st.escape >= 0:
        out.outcome = SK_OUT_ESCAPE
        out.units[st.escape] = -p.escape_penalty
        out.unclamped[st.escape] = -p.escape_penalty
        return
    first = out.places[0]
    for i in range(1, 4):
        if out.places[i] == (first ^ 2):
            out.outcome = <int8_t>(i - 1)
    # base (R8.1–R8.4)
    if mode == SK_MODE_CLASSIC:
        per = 4 if out.outcome == SK_OUT_DOUBLE else (2 if out.outcome == SK_OUT_SINGLE else 0)
        for s in range(4):
            out.base[s] = per if ((s ^ first) & 1) == 0 else -per
    elif mode == SK_MODE_BAIBIAN:
        for i in range(4):
            if out.outcome == SK_OUT_DOUBLE:
                per = 4 if i < 2 else -4
            elif out.outcome == SK_OUT_SINGLE:
                per = 2 if (i & 1) == 0 else -2
            else:
                per = 1 if (i == 0 or i == 3) else 0
            out.base[out.places[i]] = per
    elif mode == SK_MODE_JJ:
        if out.outcome == SK_OUT_TIE:
            for i in range(4):
                out.base[out.places[i]] = 1 if (i == 0 or i == 3) else -1
        else:
            per = 6 if out.outcome == SK_OUT_DOUBLE else p.jj_single_win
            for s in range(4):
                out.base[s] = per if ((s ^ first) & 1) == 0 else -per
    else:
        per = 3 if out.outcome == SK_OUT_DOUBLE else (2 if out.outcome == SK_OUT_SINGLE else 1)
        for s in range(4):
            out.base[s] = per if ((s ^ first) & 1) == 0 else -per
    # multiplier, bombs in (seat, play order) order as scoring.Result lists them
    if mode == SK_MODE_JJ:
        for s in range(4):
            for i in range(st.nbombs):
                if st.bomb_seat[i] != s:
                    continue
                f = _jj_factor(tag_stars(st.bomb_tag[i]))
                if f > 1:
                    out.multiplier *= f
                    out.mult_bomb[out.n_mult] = <int8_t>i
                    out.mult_factor[out.n_mult] = f
                    out.n_mult += 1
    else:
        best_f = 1
        for s in range(4):
            if ((s ^ first) & 1) != 0:
                continue
            for i in range(st.nbombs):
                if st.bomb_seat[i] != s:
                    continue
                if mode == SK_MODE_CLASSIC:
                    f = _classic_factor(st.bomb_tag[i], p)
                else:
                    f = _star_factor(tag_stars(st.bomb_tag[i]), mode)
                if f > best_f:
                    best_f = f
                    out.mult_bomb[0] = <int8_t>i
                    out.mult_factor[0] = f
                    out.n_mult = 1
        out.multiplier = best_f
    for s in range(4):
        out.unclamped[s] = out.base[s] * out.multiplier
    # contributions of played bombs, then held bombs (R8.2, R8.4)
    for s in range(4):
        for i in range(st.nbombs):
            if st.bomb_seat[i] != s:
                continue
            per = sk_contribution(tag_stars(st.bomb_tag[i]), mode)
            if per:
                out.contrib_bomb[out.n_contrib] = <int8_t>i
                out.contrib_per[out.n_contrib] = per
                out.n_contrib += 1
                for t in range(4):
                    out.unclamped[t] += 3 * per if t == s else -per
    if p.held_bombs:
        for s in range(4):
            if st.ncards[s] == 0:
                continue
            if not split:
                per = sk_held_best(st.hand[s], p.flags, mode)
                out.held_units[s] = per
                for t in range(4):
                    out.unclamped[t] += 3 * per if t == s else -per
                continue
            i = out.n_held
            out.n_held = <int8_t>(i + sk_held_split(st.hand[s], p.flags, mode,
                                                    &out.held_word[i], &out.held_tag[i],
                                                    SK_MAX_HELD - i, &per))
            out.held_units[s] = per
            if per == 0:
                continue
            for k in range(i, out.n_held):
                out.held_seat[k] = <int8_t>s
                out.held_per[k] = sk_contribution(tag_stars(out.held_tag[k]), mode)
            for t in range(4):
                out.unclamped[t] += 3 * out.held_units[s] if t == s else -out.held_units[s]
    for s in range(4):
        out.units[s] = out.unclamped[s]
        if p.score_cap > 0 and (out.units[s] > p.score_cap or out.units[s] < -p.score_cap):
            out.units[s] = p.score_cap if out.units[s] > 0 else -p.score_cap
            out.clamped[s] = 1
