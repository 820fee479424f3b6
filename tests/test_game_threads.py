"""A Game read while another thread plays on it: every reader (``copy``, ``to_json``,
``log``, ``observation``, ``actions``, ``card_counts``, ``cards_for``) sees whole moves — the
State, the hands and the log of one position — never a move half made (issue 34: 61 of 838
copies were inconsistent and 62 of 838 saved documents could not be loaded back)."""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from shuangkou import IllegalPlayError
from shuangkou.game import Game, replay


@contextmanager
def playing(g: Game) -> Iterator[list[BaseException]]:
    """A thread playing random deals on ``g`` (to the end, then undoing every move, again)
    while the block runs, switching threads every few microseconds; the errors it met."""
    stop = threading.Event()
    errors: list[BaseException] = []

    def play() -> None:
        rng = random.Random(1)
        try:
            while not stop.is_set():
                while not g.is_over and not stop.is_set():
                    plays = g.legal_plays()
                    i = rng.randrange(len(plays) + g.can_pass())
                    if i == len(plays):
                        g.pass_()
                    elif rng.random() < 0.3:  # the Python path: physical ids, validated
                        g.play(list(g.cards_for(plays[i])), plays[i].kind)
                    else:
                        g.play(plays[i])
                while not stop.is_set():
                    try:
                        g.undo()
                    except IllegalPlayError:  # nothing to undo: back at the deal
                        break
        except BaseException as e:  # pragma: no cover - reported by the test
            errors.append(e)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # a switch at (almost) every check: torn reads show at once
    thread = threading.Thread(target=play)
    thread.start()
    try:
        yield errors
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(interval)


def whole(c: Game) -> bool:
    """Whether a game's log, State and hands agree: its log replays to it."""
    return replay(c.log()) == c


def agree(c: Game) -> bool:
    """The quick check of :func:`whole`: the hands' card counts are the State's, and with the
    cards of the logged plays make the deck."""
    played = sum(len(a.cards) for a in c.actions)
    counts = c.card_counts
    return counts == tuple(c.state.card_counts) and sum(counts) + played == 108


def count_torn(read: Callable[[Game], bool], rounds: int) -> tuple[int, list[BaseException]]:
    g = Game("baibian", seed=4)
    with playing(g) as errors:
        torn = sum(not read(g) for _ in range(rounds))
    return torn, errors


def test_copies_are_whole_while_another_thread_plays() -> None:
    torn, errors = count_torn(lambda g: agree(g.copy()), 10000)
    assert not errors and torn == 0
    torn, errors = count_torn(lambda g: whole(g.copy()), 100)
    assert not errors and torn == 0


def test_documents_load_back_while_another_thread_plays() -> None:
    def loads(g: Game) -> bool:
        try:  # the snapshot must match the replayed actions; the log must replay
            return whole(Game.from_json(g.to_json())) and replay(g.log()) is not None
        except ValueError:  # DocumentError, ReplayError
            return False

    torn, errors = count_torn(loads, 150)
    assert not errors and torn == 0


def test_observations_and_counts_are_of_one_position() -> None:
    def agrees(g: Game) -> bool:
        obs = g.observation(0)
        played = sum(len(a.cards) for a in obs.history)
        table_ok = (obs.table is None) == (obs.table_cards == ())
        return sum(obs.card_counts) + played == 108 and table_ok

    torn, errors = count_torn(agrees, 10000)
    assert not errors and torn == 0


def test_a_reader_waits_for_the_holder_and_the_lock_is_reentrant() -> None:
    """A thread finding the lock held waits (GIL released) until the holder gives it back,
    then reads; the holder may take it again (re-entrant) without waiting for itself."""
    import time

    g = Game("baibian", seed=4)
    taken, done = threading.Event(), threading.Event()
    order: list[str] = []

    def hold() -> None:
        with g._lock:
            with g._lock:  # re-entrant: no deadlock
                taken.set()
                time.sleep(0.05)
                order.append("holder done")
                g.play(g.legal_plays()[0])  # the C path takes it a third time

    def read() -> None:
        taken.wait()
        copy = g.copy()  # waits for the holder
        order.append(f"copy of {len(copy.actions)} actions")
        done.set()

    threads = [threading.Thread(target=hold), threading.Thread(target=read)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert done.is_set() and order == ["holder done", "copy of 1 actions"]
    g.undo()  # free again: the same thread's calls go on
    assert not g.actions
