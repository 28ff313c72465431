"""``python -m simulate.cli``: the same as the ``dinolab`` command."""

from simulate.cli import main

main()
