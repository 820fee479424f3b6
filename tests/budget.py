"""Sizes of the long campaigns (``@pytest.mark.slow``): small in CI, big on request.

``SK_BUDGET=ci`` (the default) keeps the whole suite within CI's time; ``SK_BUDGET=full`` runs
the campaigns whose figures the closing notes report (``SK_BUDGET=full pytest -m slow``).
"""

from __future__ import annotations

import os

LEVEL = os.environ.get("SK_BUDGET", "ci")
if LEVEL not in ("ci", "full"):
    raise RuntimeError(f"SK_BUDGET must be 'ci' or 'full', not {LEVEL!r}")


def budget(ci: int, full: int) -> int:
    """``ci`` examples by default, ``full`` under ``SK_BUDGET=full``."""
    return full if LEVEL == "full" else ci
