"""The game engine (RULES.md R7) and its scores (R8) through the Python API: scripted deals
worked out by hand for every preset, then properties of many seeded random games."""

from __future__ import annotations

import json
import random

import pytest

import shuangkou as sk
from shuangkou import IllegalPlayError, Kind, Play, Rules, format_cards, parse_cards
from shuangkou.game import Game, Match, ReplayError, replay
from shuangkou.scoring import Outcome

PRESETS = ("classic", "baibian", "jj", "qianbian")
R = {name: Rules.preset(name) for name in PRESETS}


def ids(text: str) -> list[int]:
    return parse_cards(text)


def run(game: Game, script: list[tuple[int, str]]) -> None:
    """Each step: (seat, "pass" | physical cards [+ " /kind"]), checked to be that seat's turn."""
    for seat, what in script:
        assert game.to_act == seat, (seat, what, game.to_act)
        if what == "pass":
            game.pass_(seat=seat)
        else:
            game.play(what, seat=seat)


# -- scripted deals, scores worked out by hand from R8 ------------------------------------------
def test_classic_double_win_ends_mid_trick() -> None:
    g = Game.from_deal(
        R["classic"], ["8s 8h 8c 8d 8s 3s", "4h 9h", "5h", "6h 9d"], leader=0
    )
    run(g, [(0, "3s"), (1, "4h"), (2, "5h"), (3, "6h"), (0, "8s 8h 8c 8d 8s")])
    # Seat 2 out 1st, seat 0 (its partner) 2nd: 双扣, decided at once (R7) mid-trick.
    assert g.is_over and g.to_act is None
    r = g.result
    assert r is not None and r.outcome is Outcome.DOUBLE_WIN
    # Seats 1 and 3 both hold one card: play order after the last finisher (seat 0) -> 1, 3.
    assert r.places == (2, 0, 1, 3)
    # R8.1: ±4, T's 5-card bomb ×2.
    assert r.multiplier == 2 and r.units == (8, -8, 8, -8)
    with pytest.raises(IllegalPlayError, match="over"):
        g.pass_()
    assert g.legal_plays() == []


def test_classic_single_win_with_jiefeng_twice() -> None:
    g = Game.from_deal(R["classic"], ["Ks", "3h 4h", "5h 6h", "7h"], leader=0)
    run(g, [
        (0, "Ks"),  # seat 0 out, 1st
        (1, "pass"), (2, "pass"), (3, "pass"),  # nobody beats the last play: 接风 to seat 2
        (2, "5h"), (3, "7h"),  # seat 3 out, 2nd
        (1, "pass"), (2, "pass"),  # owner 3 is out: 接风 to its partner, seat 1
        (1, "3h"), (2, "6h"),  # seat 2 out, 3rd: 单扣
    ])
    r = g.result
    assert r is not None and r.outcome is Outcome.SINGLE_WIN and r.places == (0, 3, 2, 1)
    assert r.units == (2, -2, 2, -2)  # R8.1 单扣 ±2, no bomb
    leads = [a.seat for i, a in enumerate(g.actions) if i == 0 or g.actions[i - 1].trick != a.trick]
    assert leads == [0, 2, 1]


def test_baibian_revealed_card_seat_swap_and_contribution() -> None:
    dealt = ["As 3s 5d", "As 3h", "6s 6h 6c 6d 6s 6h 4c Ts", "5h 7h"]
    g = Game.from_deal(R["baibian"], dealt, revealed="As")
    # R7 明牌: seat 0 holds the revealed As (id 44) and leads; the other copy (id 96) is at
    # seat 1, not opposite: seat 1 and seat 2 (the leader's partner) swap seats with their hands.
    assert g.revealed == 44 and g.first_leader == 0 and g.swap == (1, 2)
    assert g.players == (0, 2, 1, 3)
    assert sorted(g.hand(2)) == sorted([96] + ids("3h"))
    run(g, [
        (0, "3s"), (1, "6s 6h 6c 6d 6s 6h"),  # 6★ bomb: contribution at once
        (2, "pass"), (3, "pass"), (0, "pass"),
        (1, "4c"), (2, "As"), (3, "pass"), (0, "pass"), (1, "pass"),
        (2, "3h"),  # seat 2 out, 1st
        (3, "5h"), (0, "As"), (1, "pass"), (3, "pass"),
        (0, "5d"),  # seat 0 out, 2nd: 双扣
    ])
    r = g.result
    assert r is not None and r.outcome is Outcome.DOUBLE_WIN and r.places == (2, 0, 1, 3)
    # R8.2: base by place (4,4,-4,-4); no bomb of T's: ×1; seat 1's 6★: +6 / -2 each.
    assert r.base == (4, -4, 4, -4) and r.multiplier == 1
    assert r.units == (2, 2, 2, -6)
    # A match adds scores up per player: the player dealt at seat 2 now sits at seat 1.
    assert g.players[1] == 2


def test_revealed_card_no_swap_cases() -> None:
    both = Game.from_deal(R["baibian"], ["Ks Ks", "3h", "4h", "5h"], revealed="Ks")
    assert both.swap is None and both.first_leader == 0 and both.players == (0, 1, 2, 3)
    opposite = Game.from_deal(R["baibian"], ["3h", "Ks", "4h", "Ks"], revealed=ids("Ks Ks")[1])
    assert opposite.swap is None and opposite.first_leader == 3


def test_jj_cumulative_multiplier_partner_visible_and_jiefeng() -> None:
    g = Game.from_deal(
        R["jj"],
        ["3s 5s 5h 5c 5d 5s 5h", "4h 7s 7h 7c 7d 8s 8h 8c 8d 9s 9h 9c 9d", "Ks Qs", "6h"],
        leader=0,
    )
    obs = g.observation(0)
    assert obs.partner_hand == g.hand(2) and obs.hand == g.hand(0)  # 双明 (R6)
    assert obs.card_counts == (7, 13, 2, 1)
    run(g, [
        (0, "3s"), (1, "4h"), (2, "Ks"), (3, "pass"),
        (0, "5s 5h 5c 5d 5s 5h"),  # 6★, seat 0 out 1st
        (1, "7s 7h 7c 7d 8s 8h 8c 8d 9s 9h 9c 9d"),  # 4相3连 7★ beats it; seat 1 out 2nd
        (2, "pass"), (3, "pass"),  # owner out: 接风 to seat 3
        (3, "6h"),  # seat 3 out 3rd: team 1+3 done, seat 2 last: 平扣
    ])
    r = g.result
    assert r is not None and r.outcome is Outcome.TIE and r.places == (0, 1, 3, 2)
    # R8.3 平扣: places 1,4 +1, places 2,3 -1; multipliers accumulate: 6★ ×2 · 7★ ×3 = ×6.
    assert r.multiplier == 6 and r.units == (6, -6, 6, -6) and r.zero_sum


def test_observation_hides_partner_outside_jj() -> None:
    g = Game(R["baibian"], seed=3)
    o = g.observation(1)
    assert o.partner_hand is None and len(o.hand) == 27 and o.card_counts == (27, 27, 27, 27)
    assert o.table is None and o.history == () and not o.is_over


def test_qianbian_clamp_at_300() -> None:
    g = Game.from_deal(
        R["qianbian"],
        ["3s 3h 3c 3d 3s 3h 3c 3d SJ SJ BJ BJ 4s", "5h", "6h", "7h"],
        leader=0,
    )
    run(g, [
        (0, "3s 3h 3c 3d 3s 3h 3c 3d SJ SJ BJ BJ"),  # 12★
        (1, "pass"), (2, "pass"), (3, "pass"),
        (0, "4s"), (1, "pass"), (2, "6h"),  # 双扣
    ])
    r = g.result
    assert r is not None and r.outcome is Outcome.DOUBLE_WIN and r.places == (0, 2, 3, 1)
    # R8.4: base 3 × 2^(12-4) = 768; 12★ contribution 100 from each other seat; cap ±300.
    assert r.multiplier == 256
    assert r.unclamped == (1068, -868, 668, -868)
    assert r.units == (300, -300, 300, -300) and all(r.clamped)


def test_qianbian_held_bombs_count_at_the_end() -> None:
    g = Game.from_deal(R["qianbian"], ["4s", "9s 9h 9c 9d 9s 9h 3d", "5s", "6d"], leader=0)
    run(g, [(0, "4s"), (1, "pass"), (2, "5s")])  # 双扣: seat 1 still holds 999999 (6★)
    r = g.result
    assert r is not None and r.outcome is Outcome.DOUBLE_WIN
    held = [c for c in r.contributions if c.held]
    assert len(held) == 1 and held[0].seat == 1 and held[0].stars == 6
    assert r.units == (3 - 2, -3 + 6, 3 - 2, -3 - 2)


def test_qianbian_two_readings_declare_or_follow_table() -> None:
    g = Game.from_deal(
        R["qianbian"], ["3s 4s SJ SJ BJ BJ 9s", "3h 3c 4h 4c 5h 5c Kd", "Qs", "Qh"], leader=0
    )
    before = g.key()
    with pytest.raises(IllegalPlayError, match="declare kind"):
        g.play("3s 4s SJ SJ BJ BJ")
    assert g.key() == before
    p = g.play("3s 4s SJ SJ BJ BJ", kind="straight")
    assert p.kind is Kind.STRAIGHT and p.top == sk.Rank.EIGHT
    g.undo()
    p = g.play("3s 4s SJ SJ BJ BJ /pair_chain")
    assert p.kind is Kind.PAIR_CHAIN and g.table == p
    # Answering a pair chain 334455 (top 5) with 3 3 4 4 5 5? Equal: not bigger.
    with pytest.raises(IllegalPlayError, match="does not beat"):
        g.play("3h 3c 4h 4c 5h 5c")
    g.undo()
    # Seat 1 leads the pair chain; seat 0 answers with the two-reading set: the table's kind.
    g2 = Game.from_deal(
        R["qianbian"], ["3s 4s SJ SJ BJ BJ 9s", "3h 3c 4h 4c 5h 5c Kd", "Qs", "Qh"], leader=1
    )
    g2.play("3h 3c 4h 4c 5h 5c")
    g2.pass_()
    g2.pass_()
    # 3 4 + four wilds as a pair chain reads 334455 at best -- equal, so it cannot beat.
    with pytest.raises(IllegalPlayError):
        g2.play("3s 4s SJ SJ BJ BJ")


def test_answer_takes_table_kind() -> None:
    rules = R["qianbian"]
    hands = ["5s 6s SJ SJ BJ BJ 9s", "3h 4h 5h 6h 7h 8h Kd", "Qs", "Qh"]
    g = Game.from_deal(rules, hands, leader=1)
    g.play("3h 4h 5h 6h 7h 8h")  # straight 3..8
    g.pass_()
    g.pass_()
    p = g.play("5s 6s SJ SJ BJ BJ")  # straight 5..10 or pair chain 556677 -> the table's kind
    assert p.kind is Kind.STRAIGHT and p.top == sk.Rank.TEN


def test_abandon() -> None:
    g = Game(R["baibian"], seed=11)
    g.play(g.legal_plays()[0])
    before = g.key()
    g.abandon(2)  # out of turn: any seat, any time
    r = g.result
    assert g.is_over and r is not None and r.outcome is Outcome.ESCAPE and r.escape == 2
    assert r.units == (0, 0, -12, 0) and not r.zero_sum
    with pytest.raises(IllegalPlayError):
        g.abandon(1)
    g.undo()
    assert g.key() == before and g.result is None
    with pytest.raises(IllegalPlayError):
        g.abandon(4)


def test_play_inputs_and_errors_name_play_and_reason() -> None:
    g = Game.from_deal(R["baibian"], ["3s 3h 3c 4s BJ", "5h 6h", "7h", "8h"], leader=0)
    before = g.key()
    bad: list[tuple[object, str]] = [
        ("3s 4s", "not a valid play"),
        ("5h", "not in the hand"),
        ([0, 0], "given twice"),
        ([999], "out of range"),
        (["x"], "ints"),
        ("zz", "unknown card"),
        ([], "no cards"),
        (sk.Hand("5 5"), "does not hold"),
        # a reading of these cards, but not under baibian's star bombs (R5)
        (Play("3 3 3 BJ", Kind.BOMB, 0, 4, 1, 0, 1), "does not read"),
    ]
    for cards, reason in bad:
        with pytest.raises(IllegalPlayError, match=reason) as e:
            g.play(cards)  # type: ignore[arg-type]
        assert "seat 0" in str(e.value)
        assert g.key() == before
    with pytest.raises(IllegalPlayError, match="leader"):
        g.pass_()
    with pytest.raises(IllegalPlayError, match="turn"):
        g.play("3s", seat=1)
    assert g.key() == before
    # A Play from legal_plays takes the lowest ids of its ranks; a Hand likewise.
    pair = next(p for p in g.legal_plays() if str(p) == "3 3")
    g.play(pair)
    assert g.actions[-1].cards == (0, 1)  # 3s (id 0), 3h (id 1)
    with pytest.raises(IllegalPlayError, match="does not beat"):
        g.play([g.hand(1)[0]])  # a single 5 on a pair
    g.undo()
    g.play("3h 3c")
    assert g.actions[-1].cards == (1, 2)
    g.undo()
    g.play(sk.Hand("3 BJ"))
    assert g.actions[-1].cards == (0, 106)


def test_undo_without_actions_and_copy_independent() -> None:
    g = Game(R["jj"], seed=5)
    with pytest.raises(IllegalPlayError):
        g.undo()
    c = g.copy()
    c.play(c.legal_plays()[0])
    assert g.actions == () and len(c.actions) == 1 and g.hand(g.to_act) != c.hand(g.to_act)


def test_seeded_deal_is_the_rng_deal() -> None:
    from shuangkou import rng

    for preset in PRESETS:
        g = Game(R[preset], seed=7)
        d = rng.deal(7, R[preset].first_leader)
        assert g.dealt == d.hands
        if d.revealed is not None:
            assert g.revealed == d.revealed and d.revealed in g.hand(g.first_leader)
        else:
            assert g.first_leader == d.leader and g.swap is None
        assert sorted(c for s in range(4) for c in g.hand(s)) == list(range(108))


def test_json_and_log_round_trip_and_versions() -> None:
    g = Game(R["qianbian"], seed=21)
    rnd = random.Random(1)
    for _ in range(30):
        _random_action(g, rnd)
    text = g.to_json()
    g2 = Game.from_json(text)
    assert g2 == g and g2.to_json() == text
    assert replay(g.log()) == g and sk_replay_json(g)
    doc = json.loads(text)
    assert doc["format"] == "shuangkou.game" and doc["version"] == 1
    doc["version"] = 99
    with pytest.raises(ValueError, match="version"):
        Game.from_json(json.dumps(doc))
    doc = json.loads(text)
    doc["state"]["to_act"] = (doc["state"]["to_act"] or 0) + 1
    with pytest.raises(ValueError, match="does not match"):
        Game.from_json(json.dumps(doc))
    doc = json.loads(text)
    doc["deal"]["hands"][0][0] = doc["deal"]["hands"][1][0]
    with pytest.raises(ValueError):
        Game.from_json(json.dumps(doc))


def sk_replay_json(g: Game) -> bool:
    return replay(json.dumps(g.log())) == g


def test_replay_reports_first_illegal_step() -> None:
    g = Game(R["baibian"], seed=2)
    rnd = random.Random(2)
    for _ in range(12):
        _random_action(g, rnd)
    log = g.log()
    bad = json.loads(json.dumps(log))
    bad["actions"][5] = ["pass", bad["actions"][5][1] ^ 1]  # out of turn (or leading)
    bad["actions"][8] = ["play", 0, [0, 1, 2]]
    with pytest.raises(ReplayError) as e:
        replay(bad)
    assert e.value.step == 5 and e.value.game is not None and len(e.value.game.actions) == 5
    scripted = Game.from_deal(R["classic"], ["Ks", "3h 4h", "5h 6h", "7h"], leader=0)
    scripted.play("Ks")
    assert replay(scripted.log()) == scripted


def test_match_carries_leader_and_seating() -> None:
    m = Match(R["classic"], seed=3)
    rnd = random.Random(3)
    outcomes = []
    for i in range(6):
        g = m.deal()
        assert g.seed == sk.rng.deal_seed(3, i)
        if i:
            prev = m.games[-2]
            assert g.players == prev.players
            res = prev.result
            assert res is not None
            if res.outcome in (Outcome.SINGLE_WIN, Outcome.TIE):  # R7: first finisher leads
                assert g.players[g.first_leader] == prev.players[res.places[0]]
        with pytest.raises(IllegalPlayError):
            m.deal()
        while not g.is_over:
            _random_action(g, rnd, allow_abandon=False)
        assert g.result is not None
        outcomes.append(g.result.outcome)
    assert sum(m.totals) == 0  # classic is zero-sum
    m2 = Match.from_json(m.to_json())
    assert [g.key() for g in m2.games] == [g.key() for g in m.games] and m2.totals == m.totals


def test_match_revealed_seating_carries_swaps() -> None:
    m = Match(R["baibian"], seed=4)
    rnd = random.Random(4)
    for _ in range(3):
        seating = m.seating
        g = m.deal()
        assert sorted(g.players) == [0, 1, 2, 3]
        if g.swap is None:
            assert g.players == seating
        while not g.is_over:
            _random_action(g, rnd, allow_abandon=False)


# -- properties of random games ------------------------------------------------------------------
def _random_action(g: Game, rnd: random.Random, allow_abandon: bool = True) -> None:
    if allow_abandon and rnd.random() < 0.002:
        g.abandon(rnd.randrange(4))
        return
    plays = g.legal_plays()
    options: list[Play | None] = list(plays)
    if g.table is not None:
        options.append(None)
    choice = rnd.choice(options)
    if choice is None:
        g.pass_()
    else:
        g.play(choice)


def _check_cards(g: Game) -> None:
    """R1/R7: every card is in exactly one hand or was played, exactly once."""
    held = [c for s in range(4) for c in g.hand(s)]
    played = [c for a in g.actions for c in a.cards]
    assert sorted(held + played) == list(range(108))
    for s in range(4):
        assert g.cards_left(s) == len(g.hand(s))
        assert g.hand_ranks(s) == sk.Hand.from_cards(g.hand(s))


def _check_end(g: Game) -> None:
    r = g.result
    assert r is not None and sorted(r.places) == [0, 1, 2, 3]
    finished = g.places
    assert r.places[: len(finished)] == finished
    assert all(g.cards_left(s) == 0 for s in finished)
    rest = r.places[len(finished):]
    assert all(g.cards_left(s) > 0 for s in rest)
    # R7: ties in play order after the last finisher; with nobody out (an abandon), in play
    # order from the deal's first leader (the Game's documented choice).
    start = (finished[-1] + 1) % 4 if finished else g.first_leader
    assert list(rest) == sorted(rest, key=lambda s: (g.cards_left(s), (s - start) % 4))
    if r.outcome is Outcome.ESCAPE:
        assert g.escape is not None and r.units[g.escape] < 0
        assert sum(map(abs, r.units)) == -r.units[g.escape]
        return
    first = finished[0]
    # R7: the deal ended as soon as the outcome was decided, and not before.
    decided = (first ^ 2) in finished or {(first + 1) % 4, (first + 3) % 4} <= set(finished)
    assert decided
    prefix = finished[:-1]
    assert not ((first ^ 2) in prefix or {(first + 1) % 4, (first + 3) % 4} <= set(prefix))
    partner_place = r.places.index(first ^ 2)
    assert r.outcome is (Outcome.DOUBLE_WIN, Outcome.SINGLE_WIN, Outcome.TIE)[partner_place - 1]
    scoring = g.rules.scoring
    if scoring in ("classic", "jj"):
        assert r.zero_sum
    elif scoring == "baibian":
        assert r.zero_sum == (r.outcome is not Outcome.TIE)  # R8 zero-sum note
    else:
        if not any(r.clamped):
            assert r.zero_sum


def _fuzz_illegal(g: Game, rnd: random.Random) -> None:
    """Random card lists, passes when leading, out-of-turn actions: either a genuine legal play
    (then it must be one of legal_plays, and is undone) or IllegalPlayError and no change."""
    before = g.key()
    seat = g.to_act
    assert seat is not None
    hand = list(g.hand(seat))
    tries: list[tuple[str, object]] = []
    k = rnd.randrange(1, 7)
    tries.append(("play", rnd.sample(hand, min(k, len(hand)))))
    tries.append(("play", [rnd.randrange(108) for _ in range(rnd.randrange(0, 4))]))
    tries.append(("pass_out", (seat + rnd.randrange(1, 4)) % 4))
    tries.append(("play_out", (seat + rnd.randrange(1, 4)) % 4))
    if g.table is None:
        tries.append(("pass", None))
    for kind, arg in tries:
        try:
            if kind == "play":
                p = g.play(arg)  # type: ignore[arg-type]
                assert p in _legal_before(g)
                g.undo()
            elif kind == "pass":
                g.pass_()
                raise AssertionError("pass when leading was accepted")
            elif kind == "pass_out":
                g.pass_(seat=arg)  # type: ignore[arg-type]
                raise AssertionError("out-of-turn pass accepted")
            else:
                g.play(rnd.sample(hand, 1), seat=arg)  # type: ignore[arg-type]
                raise AssertionError("out-of-turn play accepted")
        except IllegalPlayError:
            pass
        assert g.key() == before


def _legal_before(g: Game) -> list[Play]:
    c = g.copy()
    c.undo()
    return c.legal_plays()


# The pure-Python oracle backend is slow: fewer games there, more with the kernel.
FAST = sk.plays.backend.__name__.endswith("_core")
SEEDS = [(p, s) for p in PRESETS for s in range(1, 7 if FAST else 3)]


@pytest.mark.parametrize("preset, seed", SEEDS)
def test_random_games_properties(preset: str, seed: int) -> None:
    rules = R[preset]
    g = Game(rules, seed=seed)
    rnd = random.Random(seed * 1000 + len(preset))
    _check_cards(g)
    step = 0
    while not g.is_over:
        if step % 3 == 0:
            _fuzz_illegal(g, rnd)
        before = g.copy()
        before_state = g.key()
        _random_action(g, rnd, allow_abandon=step > 40)
        _check_cards(g)
        # undo restores exactly; the copy taken before did not move.
        assert before.key() == before_state
        probe = g.copy()
        probe.undo()
        assert probe.key() == before_state
        if step % 25 == 0:
            assert json.loads(probe.to_json()) == json.loads(before.to_json())
        step += 1
    _check_end(g)
    assert Game.from_json(g.to_json()) == g
    assert replay(g.log()) == g
    # Undo all the way back to the deal.
    while g.actions:
        g.undo()
    assert g == Game(rules, seed=seed)


def test_more_random_games_end_rule_and_zero_sum() -> None:
    """More seeds, fewer per-step checks: the end rule, the scores, the persistence."""
    for i in range(80 if FAST else 12):
        preset = PRESETS[i % 4]
        g = Game(R[preset], seed=100 + i)
        rnd = random.Random(i)
        while not g.is_over:
            _random_action(g, rnd)
        _check_cards(g)
        _check_end(g)
        assert replay(json.loads(json.dumps(g.log()))) == g


def test_format_of_actions() -> None:
    g = Game.from_deal(R["classic"], ["Ks", "3h 4h", "5h 6h", "7h"], leader=0)
    g.play("Ks")
    assert str(g.actions[0]).startswith("seat 0: Ks") and format_cards(g.actions[0].cards) == "Ks"
    assert "seat 1 to act" in repr(g)
    o = g.observation(3)
    assert o.history == g.actions and o.table == g.table and o.table_owner == 0
    assert o.places == (0,) and o.to_act == 1 and o.card_counts == (0, 2, 2, 1)
