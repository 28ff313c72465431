"""``python -m simulate.cli``: the ``dinolab`` command line, leaving the ordinary way (the CLI
is imported before anything could run; ``python -m simulate.entry`` is the console script
itself, see :mod:`simulate.entry`)."""

from simulate.cli import main

main()
