"""The ``dinolab`` command: :func:`simulate.cli.main`, then an exit without Python's teardown.

After its last exit handler, Python frees every module and object one by one before the
process ends: 0.2-0.3 s at the end of a command that loaded a kernel (numba's and LLVM's
objects, polars, pyarrow), a twentieth of a 200,000-game run on two cores. A command has
written, synced and closed every file before :func:`simulate.cli.main` returns, so that
teardown has nothing left to do. :func:`main` registers its exit handler before anything else
is imported, so it runs last: threads are joined and every other exit handler
(multiprocessing's, logging's, numba's, a temporary folder's ...) runs as usual; then the
output is flushed and the process leaves with the command's exit status.

``python -m simulate.entry`` runs the same (the bench times commands this way);
``python -m simulate.cli`` imports the CLI first and so exits the ordinary way. Tests call
:func:`simulate.cli.main` in their own process.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys

_status = [1]
"""The exit status to leave with: 1 (an uncaught exception) until the command says otherwise."""


def exit_status(code: object) -> int:
    """The status Python gives ``sys.exit(code)``: 0 for ``None``, the number for an int, 1
    for anything else (whose text Python has already printed)."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def _leave() -> None:
    """The last exit handler: flush what the command printed, then end the process."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing more to say
            stream.flush()
    os._exit(_status[0])


def main() -> None:
    """Run the ``dinolab`` command line (``sys.argv``) and leave without the teardown."""
    atexit.register(_leave)
    from simulate.cli import main as command

    try:
        command()
    except SystemExit as exc:
        _status[0] = exit_status(exc.code)
        raise
    except KeyboardInterrupt:
        _status[0] = 130
        raise
    _status[0] = 0


if __name__ == "__main__":
    main()
