"""shuangkou: exact, fast move generation and a game engine for Shuangkou (双扣) and its
variants 百变 (火拼), JJ and 千变. See README.md and RULES.md.

>>> import shuangkou as sk
>>> rules = sk.Rules.preset("baibian")
>>> [str(p) for p in sk.legal_plays("5 5 5 BJ", rules) if p.kind == sk.Kind.BOMB]
['5 5 5 BJ']
"""

from ._engine import SeatView, State
from .cards import Hand, Rank, format_cards, parse_cards
from .errors import IllegalPlayError, NotationError, ShuangkouError
from .game import Game, Match, Observation, ReplayError, replay
from .plays import PASS, Kind, Play, classify, count_plays, legal_plays
from .rules import PRESETS, Rules
from .scoring import Outcome, Result
from .sim import SimResult, simulate
from .solve import (
    Decomposition,
    Solution,
    decompose,
    hints,
    pimc_policy,
    sample_deals,
    sample_worlds,
    solve,
)

__all__ = [
    "PASS",
    "PRESETS",
    "Decomposition",
    "Game",
    "Hand",
    "IllegalPlayError",
    "Kind",
    "Match",
    "NotationError",
    "Observation",
    "Outcome",
    "Play",
    "Rank",
    "ReplayError",
    "Result",
    "Rules",
    "ShuangkouError",
    "SeatView",
    "SimResult",
    "Solution",
    "State",
    "classify",
    "count_plays",
    "decompose",
    "format_cards",
    "get_include",
    "hints",
    "legal_plays",
    "parse_cards",
    "pimc_policy",
    "replay",
    "sample_deals",
    "sample_worlds",
    "simulate",
    "solve",
]
__version__ = "0.1.0"


def get_include() -> list[str]:
    """The Cython include path of an extension that cimports the kernel (docs/internals.md,
    "The game state"): the package folder, for the ``.pxd`` files' bare names
    (``from _state cimport SkState``), and the folder holding the package, for
    ``from shuangkou._engine cimport State``. Wheels ship the ``.pxd`` files for this.

    >>> import os, shuangkou
    >>> os.path.isfile(os.path.join(shuangkou.get_include()[0], "_state.pxd"))
    True
    """
    from pathlib import Path

    package = Path(__file__).resolve().parent
    return [str(package), str(package.parent)]
