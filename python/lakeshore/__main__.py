"""``python -m lakeshore`` runs the ``lakeshore`` command line."""

from lakeshore.cli import run

run()
