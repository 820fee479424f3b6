"""A table's configuration: what ``POST /api/tables`` accepts (docs/protocol.md "Create a
table"), checked field by field, and its stored form."""

from __future__ import annotations

import dataclasses
import secrets
from dataclasses import dataclass
from typing import Any

from .._check import SEED_MAX, as_int, as_seconds
from ..bots import seat_bots
from ..errors import ArgumentError
from ..rules import PRESETS, Rules, as_rules

__all__ = ["ConfigError", "TableConfig", "seat_kinds"]


def seat_kinds() -> tuple[str, ...]:
    """What each of the four places can be: ``open`` for a person, or a bot of
    :func:`shuangkou.bots.seat_bots` — every registered bot but those without a bound on
    their decision time (``pimc``: tens of milliseconds a move, on the server's event loop).
    ``default`` is the strongest that decides within 20 ms (docs/bots.md)."""
    return ("open", *seat_bots())

MAX_DEALS = 100
MAX_TIMER = 3600.0
_HOUSE_INT_LIMIT = 10_000


class ConfigError(ArgumentError):
    """A table configuration that is refused (the message names the field); an
    :class:`~shuangkou.errors.ArgumentError`, as the constructor's checks raised before."""


def _rules_from(preset: object, options: object) -> Rules:
    if not isinstance(preset, str) or preset not in PRESETS:
        raise ConfigError(f"'rules' must be one of {', '.join(PRESETS)}")
    rules = Rules.preset(preset)
    if options is None:
        return rules
    if not isinstance(options, dict):
        raise ConfigError("'options' must be an object of house-rule fields")
    fields = {f.name for f in dataclasses.fields(Rules)} - {"name"}
    changes: dict[str, object] = {}
    for key, value in options.items():
        if key not in fields:
            raise ConfigError(f"unknown house-rule option {str(key)[:40]!r}")
        current = getattr(rules, key)
        if isinstance(current, bool) or key == "held_bombs_score":
            ok = isinstance(value, bool)
        elif key == "score_cap":
            ok = value is None or (type(value) is int and 0 < value <= _HOUSE_INT_LIMIT)
        elif isinstance(current, int):
            ok = type(value) is int and 0 <= value <= _HOUSE_INT_LIMIT
        else:  # the string options (first_leader, scoring): Rules checks the value
            ok = isinstance(value, str) and len(value) <= 20
        if not ok:
            raise ConfigError(f"house-rule option {key!r} has a bad value")
        changes[key] = value
    try:
        return rules.replace(**changes)
    except ValueError as e:
        raise ConfigError(f"house rules refused: {e}") from None


@dataclass(frozen=True)
class TableConfig:
    """Everything fixed when a table is created: the rules, the match's seed and number of
    deals, the turn timer (seconds, ``None`` = none), and what fills each of the four places
    (``open`` or a bot name). The seed is secret: whoever knows it knows every hand."""

    rules: Rules
    seed: int
    deals: int = 1
    timer: float | None = None
    seats: tuple[str, str, str, str] = ("open", "default", "default", "default")

    def __post_init__(self) -> None:
        # The one check of every field, for a config built in Python (rules a preset name,
        # deals 0) and for a request body alike (from_request adds only what is JSON's),
        # so a bad config fails here with a ConfigError, not in a running table
        object.__setattr__(self, "rules", as_rules(self.rules))
        object.__setattr__(self, "seed", as_int(self.seed, "seed", 0, SEED_MAX, ConfigError))
        object.__setattr__(self, "deals", as_int(self.deals, "deals", 1, MAX_DEALS, ConfigError))
        if self.timer is not None:
            timer = as_seconds(self.timer, "timer", ConfigError)
            if timer < 1 or timer > MAX_TIMER:
                raise ConfigError(f"timer must be None or 1..{MAX_TIMER:.0f} seconds, got "
                                  f"{timer!r}")
            object.__setattr__(self, "timer", timer)
        seats = tuple(self.seats) if isinstance(self.seats, (list, tuple)) else ()
        kinds = seat_kinds()
        if len(seats) != 4 or any(not isinstance(s, str) or s not in kinds for s in seats):
            raise ConfigError(f"'seats' must be four of {', '.join(kinds)}, not "
                              f"{self.seats!r:.60}")
        object.__setattr__(self, "seats", seats)

    @classmethod
    def from_request(cls, doc: object, *, allow_seed: bool = False) -> TableConfig:
        """Check a create-table request body; raises :class:`ConfigError`. A ``seed`` is
        accepted only when the server allows it (tests), else a random one is drawn."""
        if not isinstance(doc, dict):
            raise ConfigError("the request body must be a JSON object")
        known = {"rules", "options", "deals", "timer", "seats", "seed"}
        extra = set(doc) - known
        if extra:
            raise ConfigError(f"unknown field {sorted(map(str, extra))[0][:40]!r}")
        rules = _rules_from(doc.get("rules", "baibian"), doc.get("options"))
        seed = doc.get("seed")
        if seed is None:
            seed = secrets.randbits(64)
        elif not allow_seed:
            raise ConfigError("this server does not accept a chosen 'seed'")
        # the fields' types and ranges are the constructor's to check (one check for both)
        return cls(rules, seed, doc.get("deals", 1), doc.get("timer"),
                   doc.get("seats", ("open", "default", "default", "default")))

    def to_dict(self) -> dict[str, Any]:
        """The stored form (JSON-able)."""
        return {
            "rules": self.rules.to_dict(), "seed": self.seed, "deals": self.deals,
            "timer": self.timer, "seats": list(self.seats),
        }

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> TableConfig:
        """Inverse of :meth:`to_dict`."""
        return cls(Rules.from_dict(doc["rules"]), int(doc["seed"]), int(doc["deals"]),
                   doc["timer"], tuple(doc["seats"]))

    def public(self) -> dict[str, Any]:
        """What anyone may know of the configuration (everything but the seed)."""
        return {
            "rules": self.rules.name, "options": self.rules.to_dict(), "deals": self.deals,
            "timer": self.timer, "seats": list(self.seats),
        }
