"""Fuzz tier (issue #11): hostile text, documents and arrays through every parser and batch
entry point. Each input gives a valid object or a ``ValueError`` subclass, in bounded time,
and leaves the objects it touched unchanged. The default run is small; ``SK_BUDGET=full``
runs the campaign reported in the closing note."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shuangkou as sk
from shuangkou import batch
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
    released or not): a machine shared with other jobs can stall a call for seconds of wall
    time, which says nothing of the call (the full campaign saw 3 s for a 1-character text)."""
    t0 = time.thread_time()
    try:
        out = fn(*args)
    except ValueError as e:
        out = e
    assert time.thread_time() - t0 < LIMIT_S, (fn, args)
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
