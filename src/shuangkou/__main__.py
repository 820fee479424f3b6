"""``python -m shuangkou`` runs the ``shuangkou`` command (:mod:`shuangkou.cli`)."""

import sys

from .cli import main

sys.exit(main())
