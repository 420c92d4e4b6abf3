"""Run the CLI as `python -m treerag`."""

from treerag.cli import app

app()
