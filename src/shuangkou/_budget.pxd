# cython: language_level=3
"""Budgets of long C loops: a work limit, a time limit and Ctrl-C, in one struct.

Every long loop of the extensions (searches, decomposition, perft, world sampling, stepping)
owns one ``SkBudget`` (on its call's stack, or in an object whose lock it holds — never a module
global) and calls ``budget_tick`` once a unit of work (a node, a deal, a step). Ticks are cheap:
an add and a compare; every ``SK_POLL_MASK + 1`` ticks the monotonic clock is read, and at most
every ``SK_SIGNAL_SECONDS`` the loop takes the GIL to run Python's signal handlers, so Ctrl-C
stops any loop within a few milliseconds.

When a tick returns True the loop unwinds and its ``def`` wrapper, back with the GIL, calls
``budget_raise``: if a signal handler raised (``KeyboardInterrupt``), that exception is still
pending in this thread and propagates from there; a work or time stop is the caller's to report
(an anytime answer, or an error naming the limit). Signal handlers run only in the main thread,
so a loop on another thread stops by its limits alone.
"""

cdef extern from *:
    """
    #ifdef _WIN32
    #include <windows.h>
    static double sk_now(void) {
        LARGE_INTEGER f, t; QueryPerformanceFrequency(&f); QueryPerformanceCounter(&t);
        return (double)t.QuadPart / (double)f.QuadPart;
    }
    #else
    #include <time.h>
    static double sk_now(void) {
        struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
    #endif
    #define SK_SIGNAL_SECONDS 0.005  /* time between signal checks with the GIL */
    """
    double sk_now() noexcept nogil
    double SK_SIGNAL_SECONDS

cdef extern from "Python.h":
    # Declared here without Cython's ``except -1`` so a nogil loop can call it under ``with gil``
    # and leave the handler's exception pending for its wrapper (budget_raise).
    int sk_check_signals "PyErr_CheckSignals" () noexcept

cdef enum:
    SK_RUNNING = 0
    SK_STOP_WORK = 1      # the work limit was reached
    SK_STOP_TIME = 2      # the time limit passed
    SK_STOP_SIGNAL = 3    # a signal handler raised: its exception is pending
    SK_POLL_MASK = 1023   # ticks between clock reads, minus one (a power of two minus one)


ctypedef struct SkBudget:
    long long work          # ticks so far
    long long max_work      # 0: no work limit
    double deadline         # monotonic seconds (sk_now); 0: no time limit
    double next_signal      # when the next signal check is due
    int stop                # SK_RUNNING, or why the loop stopped


cdef inline void budget_init(SkBudget* b, long long max_work, double seconds) noexcept nogil:
    """A budget of at most ``max_work`` ticks (0: none) and ``seconds`` (0: none), from now."""
    cdef double t = sk_now()
    b.work = 0
    b.max_work = max_work if max_work > 0 else 0
    b.deadline = t + seconds if seconds > 0 else 0.0
    b.next_signal = t + SK_SIGNAL_SECONDS
    b.stop = SK_RUNNING


cdef inline bint budget_poll(SkBudget* b) noexcept nogil:
    """The slow path of a tick: the clock, then (due every SK_SIGNAL_SECONDS) the signals."""
    cdef double t = sk_now()
    if b.deadline != 0.0 and t >= b.deadline:
        b.stop = SK_STOP_TIME
        return True
    if t >= b.next_signal:
        b.next_signal = t + SK_SIGNAL_SECONDS
        with gil:
            if sk_check_signals() != 0:
                b.stop = SK_STOP_SIGNAL
                return True
    return False


cdef inline bint budget_tick(SkBudget* b) noexcept nogil:
    """One unit of work; True when the loop must stop (``b.stop`` says why). Once stopped,
    every later tick stops too."""
    if b.stop != SK_RUNNING:
        return True
    b.work += 1
    if b.max_work != 0 and b.work > b.max_work:
        b.stop = SK_STOP_WORK
        return True
    if (b.work & SK_POLL_MASK) == 0:
        return budget_poll(b)
    return False


cdef inline int budget_raise(const SkBudget* b) except -1:
    """With the GIL, after the loop: re-raise the exception of a signal handler that stopped it
    (still pending in this thread); 0 otherwise."""
    if b.stop == SK_STOP_SIGNAL:
        return -1
    return 0
