"""``python -m lakeshore`` runs the ``lakeshore`` command line."""

import sys

from lakeshore.cli import main

sys.exit(main())
