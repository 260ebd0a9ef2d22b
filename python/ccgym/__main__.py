"""``python -m ccgym`` is the ``ccgym`` command."""

import sys

from ccgym.cli import main

sys.exit(main())
