"""The ``shuangkou`` command (also ``python -m shuangkou``).

::

    shuangkou simulate -n 100000 --rules baibian --policy greedy --threads 2 --seed 1 \\
        --out deals.parquet --plot deals.png
    shuangkou plays "3 3 4 4 5 5 7 8 9 10 J BJ" --on "5 6 7 8 9" --rules baibian
    shuangkou solve "baibian 35/-/336/356 3 - 0 1 -/-/-/- -"
    shuangkou hint "classic 33456789/3/3/3 0 - 0 - -/-/-/- -"
    shuangkou arena learned greedy --rules baibian --deals 2000
    shuangkou serve --db sqlite:///var/lib/shuangkou.db --port 8000
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ._check import as_seconds, parse_int
from .errors import ShuangkouError
from .rules import PRESETS, Rules

if TYPE_CHECKING:
    from .server import Limits

def _int_flag(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: an integer ``lo..hi``, else a usage error (exit 2, no traceback) —
    never a traceback from C, nor a value wrapped or truncated there."""

    def integer(text: str) -> int:
        try:
            return parse_int(text, "value", lo, hi)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected an integer {lo}..{hi}, got {text[:40]!r}") from None

    return integer


def _seconds_flag(text: str) -> float:
    """An argparse type: a positive, finite number of seconds (``nan``, ``inf``, ``-1``
    refused)."""
    try:
        return as_seconds(float(text), "seconds")
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive, finite number of seconds, got {text[:40]!r}") from None


def _delay_flag(text: str) -> float:
    """An argparse type: a finite number of seconds >= 0 (a wait; 0 means none)."""
    seconds = float("nan")
    try:
        seconds = float(text)
    except ValueError:
        pass
    if not (0.0 <= seconds < float("inf")):
        raise argparse.ArgumentTypeError(
            f"expected a finite number of seconds >= 0, got {text[:40]!r}")
    return seconds


_COUNT = 2**63 - 1  # the largest count the C loops take (int64)
_PORT = _int_flag(0, 65535)


def _policy_arg(text: str) -> list[str]:
    """``--policy``: one bot, two (a team each) or four, comma-separated; a bot's own options
    follow it (``pimc:worlds=2,max_nodes=50,greedy``: an item holding ``=`` is an option of
    the bot before it). Each is checked as :func:`shuangkou.bots.parse_spec` reads it."""
    from .bots import parse_spec

    parts: list[str] = []
    for item in (p.strip() for p in text.split(",")):
        if not item:
            continue
        if "=" in item and parts:
            parts[-1] += "," + item
        else:
            parts.append(item)
    for p in parts:
        try:
            parse_spec(p)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    if len(parts) not in (1, 2, 4):
        raise argparse.ArgumentTypeError("give one policy, two (team 0+2, team 1+3) or four")
    return parts


class _DefaultsHelp(argparse.HelpFormatter):
    """--help ends each option's line with its default (not for flags or unset options)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        unset = action.default is None or action.default is False  # `in` would catch 0 too
        if not unset and action.default != argparse.SUPPRESS and "%(default)" not in text:
            text += " (default: %(default)s)"
        return text


def _parser() -> argparse.ArgumentParser:
    from . import __version__

    fmt = _DefaultsHelp
    ap = argparse.ArgumentParser(prog="shuangkou", description="Shuangkou (双扣) tools")
    ap.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    sim = sub.add_parser("simulate", help="self-play many deals and summarise them",
                         formatter_class=fmt)
    sim.add_argument("-n", "--deals", type=_int_flag(0, _COUNT), default=10_000,
                     help="number of deals")
    sim.add_argument("--rules", default="baibian", help=f"preset: {', '.join(PRESETS)}")
    sim.add_argument("--policy", type=_policy_arg, default="random",
                     help="a bot named in shuangkou.bots.BOTS (random, greedy, heuristic, "
                          "default, ...; options after a colon: pimc:worlds=2,max_nodes=50) or "
                          "your own as module:function or module:Class; 'greedy,random' = "
                          "team 0+2 greedy vs 1+3 random; or four comma-separated, one per "
                          "seat. Bots other than random and greedy play on one thread")
    sim.add_argument("--threads", type=_int_flag(1, 1024), default=1,
                     help="threads playing deals")
    sim.add_argument("--seed", type=_int_flag(0, 2**64 - 1), default=0,
                     help="run seed (deal i: rng.deal_seed(seed, i))")
    sim.add_argument("--start", type=_int_flag(0, _COUNT), default=0, help="first deal index")
    sim.add_argument("--wilds", choices=("all", "fewest"), default=None,
                     help="play generation mode for every seat (default: per policy)")
    sim.add_argument("--out", help="write every deal to FILE (.npz, .csv or .parquet)")
    sim.add_argument("--force", action="store_true", help="overwrite an existing --out/--plot")
    sim.add_argument("--plot", help="write a PNG of the distributions to FILE (needs matplotlib)")
    sim.add_argument("--json", action="store_true", help="print the summary as JSON")
    sim.add_argument("--no-progress", action="store_true", help="no progress bar")

    pl = sub.add_parser("plays", help="list the legal plays of a hand", formatter_class=fmt)
    pl.add_argument("hand", help='rank notation, e.g. "3 3 4 4 5 5 BJ"')
    pl.add_argument("--on", help="the table play to answer (default: leading)")
    pl.add_argument("--rules", default="baibian", help=f"preset: {', '.join(PRESETS)}")
    pl.add_argument("--fewest", action="store_true",
                    help="one play per reading (fewest wilds) instead of every way of taking cards")

    so = sub.add_parser("solve", help="solve a position exactly (all hands visible)")
    so.add_argument("position", help="position text (docs/position.md)")
    so.add_argument("--objective", choices=("score", "base"), default="score")
    so.add_argument("--max-nodes", type=_int_flag(1, _COUNT), default=None,
                    help="stop after N positions (default: solve's DEFAULT_MAX_NODES)")
    so.add_argument("--time-limit", type=_seconds_flag, default=None,
                    help="stop after S seconds (default: solve's DEFAULT_TIME_LIMIT)")
    so.add_argument("--best", choices=("all", "one"), default="all",
                    help="every optimal play (default) or one, for fewer nodes (solve's best)")

    hi = sub.add_parser("hint", help="the 提示 plays of the seat to act, in order")
    hi.add_argument("position", help="position text (docs/position.md)")
    for p in (so, hi):
        p.add_argument("--rules", help="the preset the position text names in its first field "
                                       "(optional: a check)")
    ar = sub.add_parser("arena", help="bot against bot on duplicate deals (docs/bots.md)",
                        formatter_class=fmt)
    ar.add_argument("bot_a", metavar="BOT_A",
                    help="a bot of shuangkou.bots, options after a colon (pimc:worlds=16), "
                         "or your own as module:function or module:Class[:key=value,...] "
                         "(the current folder is searched for the module)")
    ar.add_argument("bot_b", metavar="BOT_B", help="its opponent")
    ar.add_argument("--rules", default="baibian", help=f"preset: {', '.join(PRESETS)}")
    ar.add_argument("--deals", type=_int_flag(1, _COUNT), default=1000,
                    help="deal pairs (each deal played twice, the teams' seats exchanged)")
    ar.add_argument("--seed", type=_int_flag(0, 2**64 - 1), default=1,
                    help="run seed (deal i: rng.deal_seed(seed, i))")
    ar.add_argument("--start", type=_int_flag(0, _COUNT), default=0, help="first deal index")
    ar.add_argument("--processes", type=_int_flag(1, 1024), default=None,
                    help="worker processes (default: cores)")
    ar.add_argument("--json", action="store_true", help="print the figures as JSON")
    ar.add_argument("--no-progress", action="store_true", help="no progress bar")

    sv = sub.add_parser("serve", help="run the game server (needs the 'server' extra)")
    sv.add_argument("--db", default="sqlite://shuangkou.db",
                    help="sqlite://PATH (default ./shuangkou.db) or postgresql://user@host/db")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on")
    sv.add_argument("--port", type=_PORT, default=8000)
    sv.add_argument("--bot-delay", type=_delay_flag, default=0.5,
                    help="seconds a bot waits to move")
    sv.add_argument("--durable", action="store_true",
                    help="fsync every action (survive power loss, not only a crash)")
    _limit_args(sv)
    sv.add_argument("--node", help="this node's name in a cluster (needs a postgresql:// --db)")
    sv.add_argument("--router", help="the runtime API of each HAProxy in front (socket path or "
                                     "host:port, comma-separated) that a cluster node routes "
                                     "its tables through")
    sv.add_argument("--router-map", help="the HAProxy map file of table id -> node")

    cl = sub.add_parser("cluster", help="PostgreSQL + N server nodes + HAProxy on this machine",
                        formatter_class=fmt)
    cl.add_argument("--nodes", type=_int_flag(1, 64), default=2, help="server nodes")
    cl.add_argument("--port", type=_PORT, default=8000, help="HAProxy's port on 127.0.0.1")
    cl.add_argument("--data", required=True,
                    help="directory for the PostgreSQL cluster, configs and logs")
    cl.add_argument("--bot-delay", type=_delay_flag, default=0.5,
                    help="seconds a bot waits to move")
    cl.add_argument("--max-connections", type=_int_flag(1, 10_000_000), default=None,
                    help="HAProxy's cap on client connections (default: every node's"
                         " --limit tables, 5 connections a table)")
    _limit_args(cl)
    return ap


def _limit_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--limit", action="append", metavar="NAME=VALUE",
                   help="set a field of shuangkou.server.Limits, e.g. --limit idle=600 "
                        "--limit create_key=SECRET (docs/server.md \"Limits\"); repeatable")


def _limits(pairs: list[str]) -> Limits:
    import dataclasses

    from .server import Limits

    fields = {f.name: f for f in dataclasses.fields(Limits)}
    values: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        if not sep or name not in fields:
            raise ValueError(f"--limit {pair!r}: give NAME=VALUE, NAME one of "
                             f"{', '.join(fields)}")
        default = fields[name].default
        try:
            if isinstance(default, bool):
                if text not in ("true", "false"):
                    raise ValueError(text)
                values[name] = text == "true"
            elif isinstance(default, int):
                values[name] = parse_int(text, name)
            elif isinstance(default, float):
                if not text.isascii():  # float('٣') reads 3: numbers are ASCII digits
                    raise ValueError(text)
                values[name] = float(text)
            else:
                values[name] = text
        except ValueError:
            raise ValueError(f"--limit {pair!r}: bad value for {name}") from None
    try:
        return Limits(**values)  # each field checked by its rule (nan, < 0, ... refused)
    except ValueError as e:
        raise ValueError(f"--limit: {e}") from None


def _serve(args: argparse.Namespace) -> int:
    try:
        from .server import serve
    except ImportError as e:
        raise ValueError(f"serve needs the server extra: pip install 'shuangkou[server]' ({e})") \
            from None
    limits = _limits(args.limit or [])
    ownership = None
    if args.node is not None:
        if not args.db.startswith(("postgresql://", "postgres://")):
            raise ValueError("--node needs a postgresql:// --db (the tables' leases)")
        if args.router is not None and args.router_map is None:
            raise ValueError("--router needs --router-map")
    try:
        if args.node is not None:
            from .server.cluster import HAProxyRouter, PgOwnership

            router = None
            if args.router is not None:
                router = HAProxyRouter(args.router, args.router_map)
            ownership = PgOwnership(args.db, args.node, router)
        serve(args.db, args.host, args.port, bot_delay=args.bot_delay, durable=args.durable,
              limits=limits, ownership=ownership)
    except OSError as e:  # the listening socket: nothing has been served yet
        if e.errno not in (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES):
            raise
        raise ValueError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}"
                         " (another server there? choose another --port or --host)") from None
    except Exception as e:  # the database: sqlite3's or psycopg's OperationalError
        if type(e).__name__ != "OperationalError":
            raise
        cause = (str(e).strip().splitlines() or ["no reason given"])[0].strip()
        fix = ("is PostgreSQL running there, and --db right?"
               if args.db.startswith(("postgresql://", "postgres://"))
               else "does the file's directory exist, writable? check --db")
        raise ValueError(f"cannot open the database {_without_password(args.db)}: {cause}"
                         f" ({fix})") from None
    return 0


def _without_password(url: str) -> str:
    """A database URL as it may be shown: ``postgresql://user:pw@host`` without ``:pw``."""
    scheme, sep, rest = url.partition("://")
    auth, at, host = rest.rpartition("@")
    if not sep or not at:
        return url
    return f"{scheme}://{auth.split(':', 1)[0]}@{host}"


def _cluster(args: argparse.Namespace) -> int:
    try:
        from .server.cluster import max_connections, proxy_maxconn, run_cluster
    except ImportError as e:
        raise ValueError(f"cluster needs the server extra: pip install 'shuangkou[server]' "
                         f"({e})") from None
    limits = _limits(args.limit or [])  # refuse a bad --limit before starting anything
    extra = ["--bot-delay", str(args.bot_delay)]
    for pair in args.limit or []:
        extra += ["--limit", pair]
    maxconn = proxy_maxconn(args.nodes, limits.tables, args.max_connections)
    if maxconn < max_connections(args.nodes, limits.tables):
        print(f"shuangkou: note: HAProxy takes at most {maxconn} connections (the file"
              " descriptor limit, or --max-connections), fewer than every node's tables"
              " at 5 a table", file=sys.stderr)
    return run_cluster(args.nodes, args.port, args.data, extra, maxconn)


def _user_modules() -> None:
    """A ``module:function`` bot is imported from the current folder too, as ``python -m``
    would find it (the ``shuangkou`` script's own folder is on the path instead)."""
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())


def _simulate(args: argparse.Namespace) -> int:
    from .sim import FIELDS, output_format, simulate

    rules = Rules.preset(args.rules)
    # every deal's row is kept (the summary, --out, --plot): refuse a count whose rows cannot
    # fit in this machine's memory before allocating them
    row = sum(np.dtype(dt).itemsize * int(np.prod(shape)) for dt, shape in FIELDS.values())
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):  # no sysconf (Windows): numpy's own error
        memory = None
    if memory is not None and args.deals * row > memory:
        raise ValueError(
            f"--deals {args.deals}: the run keeps {row} bytes a deal, "
            f"{args.deals * row / 2**30:,.0f} GiB, more than this machine's "
            f"{memory / 2**30:,.0f} GiB of memory: run fewer deals a call (--start continues "
            "a run), or stream them with shuangkou.sim.simulate_stats")
    for path in (args.out, args.plot):  # fail before a long run, not after it
        if path:
            _check_writable(path, args.force)
    if args.out and output_format(args.out) == "parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise ValueError(
                "--out .parquet needs pyarrow: pip install 'shuangkou[parquet]'") from None
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise ValueError("--plot needs matplotlib: pip install 'shuangkou[plot]'") from None
    _user_modules()
    t0 = time.perf_counter()
    res = simulate(args.deals, rules, args.policy, threads=args.threads, seed=args.seed,
                   progress=not args.no_progress, start=args.start, wilds=args.wilds)
    dt = time.perf_counter() - t0
    summary = res.summary()
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1, default=float))
    else:
        print(summary)
        dec = int(res.decisions.sum())
        print(f"\n{len(res)} deals in {dt:.2f} s: {len(res) / max(dt, 1e-9):,.0f} deals/s, "
              f"{dec / max(dt, 1e-9):,.0f} decisions/s on {args.threads} thread(s)")
    if args.out:
        res.save(args.out)
        print(f"wrote {args.out}", file=sys.stderr)
    if args.plot:
        plot(res, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    return 0


def _arena(args: argparse.Namespace) -> int:
    from .arena import MAX_PAIRS, duel

    if args.deals > MAX_PAIRS:  # refused before anything is made or played
        raise ValueError(f"--deals: at most {MAX_PAIRS} pairs a run (the result keeps every "
                         f"pair's margins): run several with successive --start, not "
                         f"{args.deals}")
    _user_modules()
    res = duel(args.bot_a, args.bot_b, Rules.preset(args.rules), args.deals, seed=args.seed,
               start=args.start, processes=args.processes, progress=not args.no_progress)
    print(json.dumps(res.summary(), indent=1) if args.json else res)
    return 0


def _check_writable(path: str, force: bool) -> None:
    """``path`` can be written: its folder exists and is writable, and it is a new file (or
    ``--force`` allows overwriting it)."""
    if os.path.isdir(path):
        raise ValueError(f"{path!r} is a directory")
    if os.path.exists(path) and not force:
        raise ValueError(f"{path!r} exists: use --force to overwrite it")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise ValueError(f"cannot write {path!r}: {folder!r} is not a writable directory")


def plot(res: object, path: str) -> None:
    """A PNG of a run's distributions: outcomes, scores per seat, bombs by stars, length."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from .sim import OUTCOMES_EN, SimResult

    assert isinstance(res, SimResult)
    fig, ax = plt.subplots(2, 2, figsize=(11, 8))
    n = max(len(res), 1)
    shares = np.bincount(res.outcome, minlength=3) / n
    # English labels: the default fonts have no CJK glyphs.
    ax[0, 0].bar(list(OUTCOMES_EN), shares, color=["#c44", "#e96", "#69c"])
    ax[0, 0].set_title("outcome share")
    sc = res.scores
    lo, hi = int(sc.min(initial=0)), int(sc.max(initial=0))
    bins = np.arange(lo, hi + 2) - 0.5 if hi - lo <= 80 else 60
    for s in range(4):
        ax[0, 1].hist(sc[:, s], bins=bins, histtype="step", label=f"seat {s}")
    ax[0, 1].set_yscale("log")
    ax[0, 1].set_title("score per seat")
    ax[0, 1].legend()
    b = res.bombs_by_stars.sum(0) / n
    ks = np.flatnonzero(b)
    ax[1, 0].bar([f"{k}*" for k in ks], b[ks])
    ax[1, 0].set_yscale("log")
    ax[1, 0].set_title("bombs per deal by stars")
    ax[1, 1].hist(res.decisions, bins=40, color="#888")
    ax[1, 1].set_title("decisions per deal")
    fig.suptitle(f"{len(res)} deals · {res.rules} · {'/'.join(res.policies)} · seed {res.seed}")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _plays(args: argparse.Namespace) -> int:
    from .plays import Play, legal_plays

    rules = Rules.preset(args.rules)
    table = Play.parse(args.on, rules) if args.on else None
    plays = legal_plays(args.hand, rules, table, wilds="fewest" if args.fewest else "all")
    what = f"answering {table} ({table.describe()})" if table else "leading"
    print(f"{len(plays)} plays {what} under {rules.name}" + (", pass allowed" if table else ""))
    for p in sorted(plays):
        print(f"  {str(p):<40} {p.describe()}")
    return 0


def _solve(args: argparse.Namespace) -> int:
    from .position import parse_position
    from .solve import hints, solve

    position = parse_position(args.position)
    named = position.rules
    if args.rules is not None and Rules.preset(args.rules) != named:
        raise ValueError(f"--rules {args.rules}: the position names its rules in its first "
                         f"field ({str(position).split()[0]!r}); drop --rules or change that "
                         f"field")
    if args.command == "hint":
        if position.to_act is None:
            raise ValueError("position: the deal is over (no seat to act): there is nothing "
                             "to hint; pass a position with a seat to act")
        found = hints(position)
        print(f"{len(found)} hints for seat {position.to_act}" + (":" if found else ""))
        for p in found:
            print(f"  {str(p):<40} {p.describe()}")
        return 0
    limits = {} if args.max_nodes is None else {"max_nodes": args.max_nodes}
    if args.time_limit is not None:
        limits["time_limit"] = args.time_limit
    print(solve(position, args.objective, best=args.best, **limits))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand: 0 on success, 2 on a usage or input error (a message, no
    traceback), 130 on Ctrl-C (``KeyboardInterrupt``, wherever it lands: no traceback)."""
    try:
        args = _parser().parse_args(argv)
        if args.command == "simulate":
            return _simulate(args)
        if args.command in ("solve", "hint"):
            return _solve(args)
        if args.command == "serve":
            return _serve(args)
        if args.command == "arena":
            return _arena(args)
        if args.command == "cluster":
            return _cluster(args)
        return _plays(args)
    except (ShuangkouError, ValueError) as e:
        print(f"shuangkou: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly, as Unix tools do
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:  # Ctrl-C: the runs stop promptly; no traceback for a user's stop
        print("shuangkou: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
