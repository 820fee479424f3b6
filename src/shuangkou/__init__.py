"""shuangkou: exact, fast move generation and a game engine for Shuangkou (双扣) and its
variants 百变 (火拼), JJ and 千变. See README.md and RULES.md.

>>> import shuangkou as sk
>>> rules = sk.Rules.preset("baibian")
>>> [str(p) for p in sk.legal_plays("5 5 5 BJ", rules) if p.kind == sk.Kind.BOMB]
['5 5 5 BJ']
"""

from ._engine import State
from .cards import Hand, Rank, format_cards, parse_cards
from .errors import IllegalPlayError, NotationError, ShuangkouError
from .game import Game, Match, Observation, ReplayError, replay
from .plays import PASS, Kind, Play, classify, count_plays, legal_plays
from .rules import PRESETS, Rules
from .scoring import Outcome, Result
from .sim import SimResult, simulate

__all__ = [
    "PASS",
    "PRESETS",
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
    "SimResult",
    "State",
    "classify",
    "count_plays",
    "format_cards",
    "legal_plays",
    "parse_cards",
    "replay",
    "simulate",
]
__version__ = "0.1.0"
