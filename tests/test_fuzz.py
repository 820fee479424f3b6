"""Fuzz tier (issue #11): hostile text, documents and arrays through every parser and batch
entry point. Each input gives a valid object or a ``ValueError`` subclass, in bounded time,
and leaves the objects it touched unchanged. The default run is small; ``SK_BUDGET=full``
runs the campaign reported in the closing note."""

from __future__ import annotations

import gc
import json
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shuangkou as sk
from shuangkou import _core, batch
from tests.budget import budget

RULES = [sk.Rules.preset(n) for n in sk.PRESETS]
N = budget(ci=300, full=20_000)
SLOW_N = budget(ci=30, full=3_000)
LIMIT_S = 1.0  # CPU seconds of any single call; the slowest legitimate one takes a few ms

# Text: card-ish alphabets (where parsers have corners), arbitrary Unicode, long runs.
CARDISH = st.text(alphabet="3456789TJQKA2XDSBjqkaxdsbhc10 ,+/♠♥♣♦\t\n", max_size=80)
TEXT = st.one_of(
    CARDISH,
    st.text(max_size=60),
    st.builds(lambda a, k: a * k, CARDISH, st.integers(1, 400)),
)


def bounded(fn, *args):
    """``fn(*args)``: its value, or the ``ValueError`` it raised; fails on anything else or
    on a slow call. Slow is measured in this thread's CPU time (the kernel runs in it, GIL
    released or not) with the garbage collector off: a machine shared with other jobs can
    stall a call for seconds of wall time, and a full collection of everything hypothesis
    holds can take a second of CPU, and neither says anything of the call (the full campaign
    saw 3 s for a 1-character text, then 1.3 s of CPU for a 4-character one)."""
    gc.disable()
    t0 = time.thread_time()
    try:
        out = fn(*args)
    except ValueError as e:
        out = e
    finally:
        spent = time.thread_time() - t0
        gc.enable()
    assert spent < LIMIT_S, (fn, args)
    return out


@settings(max_examples=N)
@given(TEXT, st.sampled_from(RULES))
def test_text_parsers_give_an_object_or_a_value_error(text, rules):
    h = bounded(sk.Hand.parse, text)
    if isinstance(h, sk.Hand):
        assert sk.Hand.parse(str(h)) == h  # canonical text round-trips
    bounded(sk.parse_cards, text)
    p = bounded(sk.Play.parse, text, rules)
    if isinstance(p, sk.Play) and p:
        assert sk.Play.parse(str(p), rules) == p
    bounded(sk.classify, text, rules)
    bounded(sk.legal_plays, "3 3 4 4 5 5 BJ", rules, text)


@settings(max_examples=N)
@given(st.dictionaries(st.sampled_from(
    [f.name for f in sk.Rules.__dataclass_fields__.values()] + ["x"]),
    st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(),
              st.text(max_size=10), st.lists(st.integers(), max_size=2)),
))
def test_rules_documents_give_rules_or_a_value_error(patch):
    doc = {**sk.Rules.preset("baibian").to_dict(), **patch}
    r = bounded(sk.Rules.from_dict, doc)
    if isinstance(r, sk.Rules):
        assert sk.Rules.from_dict(json.loads(json.dumps(r.to_dict()))) == r


ARRAYS = st.one_of(
    st.lists(st.lists(st.integers(-3, 12), min_size=15, max_size=15), max_size=4).map(np.array),
    st.lists(st.lists(st.floats(-2, 10), min_size=15, max_size=15), min_size=1, max_size=3)
    .map(np.array),
    st.lists(st.integers(-2**63, 2**64 - 1), max_size=4),
    st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=20), max_size=3),
)
TABLES = st.one_of(
    st.none(), st.integers(-2**40, 2**40),
    st.lists(st.integers(-2**40, 2**40), min_size=0, max_size=4).map(np.array),
    st.lists(st.floats(0, 2**31), min_size=1, max_size=4).map(np.array),
)


@settings(max_examples=N)
@given(ARRAYS, TABLES, st.sampled_from(RULES))
def test_batch_entry_points_give_arrays_or_a_value_error(hands, table, rules):
    before = np.array(hands, dtype=object, copy=True) if isinstance(hands, np.ndarray) else None
    out = bounded(batch.count_plays, hands, rules, table)
    if isinstance(out, np.ndarray):
        assert out.dtype.kind == "i" and (out >= 0).all()
    bounded(batch.legal_plays, hands, rules, table)
    if before is not None:
        assert (np.array(hands, dtype=object) == before).all()  # inputs are never written


@pytest.mark.slow
@settings(max_examples=SLOW_N)
@given(st.binary(max_size=200), st.sampled_from(RULES))
def test_bytes_decoded_any_way_never_crash_the_parsers(data, rules):
    for text in (data.decode("latin-1"), data.decode("utf-8", "replace")):
        bounded(sk.Hand.parse, text)
        bounded(sk.Play.parse, text, rules)
        bounded(sk.parse_cards, text)


FIELD = st.one_of(st.integers(-2, 70), st.integers(-2**70, 2**70), st.floats(), st.booleans(),
                  st.none(), st.text(max_size=3))


@st.composite
def play_fields(draw: st.DrawFn) -> tuple[str, tuple[object, ...]]:
    """Card text and six reading fields: a real play's with some replaced by hostile values
    (so that both accepted and refused plays are drawn)."""
    hand = draw(st.sampled_from(["3", "5 5", "7 7 7 BJ", "3 4 5 6 7", "SJ SJ BJ BJ",
                                 "3 3 3 4 4 4 5 5 5 SJ", "8 8 8 8 9 9 9 9 T T T T"]))
    real = draw(st.sampled_from(sk.legal_plays(hand, draw(st.sampled_from(RULES)))))
    fields = [real.kind, real.top, real.width, real.length, real.stars, real.wilds]
    for i in draw(st.sets(st.integers(0, 5), max_size=3)):
        fields[i] = draw(FIELD)
    return str(real.cards), tuple(fields)


@settings(max_examples=N)
@given(play_fields())
def test_play_constructor_gives_a_faithful_play_or_a_value_error(args):
    text, fields = args
    p = bounded(sk.Play, text, *fields)
    if isinstance(p, sk.Play):  # no field spilled into another: each reads back as given
        assert (p.kind, p.top, p.width, p.length, p.stars, p.wilds) == fields
        assert p.cards == sk.Hand.parse(text) and p.size == len(p.cards)
        # a reading of its cards under some rules word (valid words: uneven needs stars)
        flags = [f for f in range(64) if not (f & _core.FLAG_UNEVEN and not f & _core.FLAG_STARS)]
        assert any(p.tag in _core.classify(p.packed, f) for f in flags)


INDEX = st.one_of(st.integers(-2**40, 2**40), st.integers(-3, 1200), st.floats(),
                  st.booleans(), st.none(), st.text(max_size=3))


@settings(max_examples=N)
@given(st.sampled_from(RULES), INDEX, st.sampled_from(["3 3 4 5", "5 5 5 5 BJ", "SJ BJ"]))
def test_action_table_ints_give_a_value_or_a_value_error(rules, value, hand):
    at = batch.action_table(rules)
    try:
        out = at.encode(value)  # type: ignore[arg-type]
    except KeyError:  # an integer tag of no action: documented
        out = None
    except ValueError:
        out = None
    if out is not None and value is not None:  # None encodes as PASS
        # card text is the play it reads as (issue #35), anything else must be its tag
        want = sk.Play.parse(value, rules).tag if isinstance(value, str) else value
        assert at.tags[out] == want
    d = bounded(at.decode, value)
    if isinstance(d, dict):
        assert type(value) is int and 0 <= value < len(at)
    p = bounded(at.play_for, hand, value, "3")
    if isinstance(p, sk.Play) and p:
        assert p.beats(sk.Play.parse("3", rules), rules) and at.encode(p) == value
