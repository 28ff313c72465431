"""The ``dinolab`` command's entry point: the CLI, then an exit without the interpreter's
teardown that keeps the exit status, the output and every other exit handler."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import entry_points

from simulate.entry import exit_status


def dinolab(*args: str) -> subprocess.CompletedProcess:
    """``dinolab ARGS`` as the console script runs it."""
    cmd = [sys.executable, "-m", "simulate.entry", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_the_console_script_is_the_entry_point():
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "dinolab"]
    assert script.value == "simulate.entry:main"


def test_output_and_exit_status_are_those_of_the_cli(cli):
    done = dinolab("games", "--markdown")
    assert done.returncode == 0, done.stderr
    assert done.stdout == cli("games", "--markdown").out  # every line, flushed before leaving
    bad = dinolab("simulate", "no-such-game")
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: unknown game 'no-such-game'")
    assert len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr


HANDLERS = """
import atexit, sys
import simulate.cli
def command():
    atexit.register(print, "the command's exit handler ran", flush=True)
    print("done")
    {end}
simulate.cli.main = command
from simulate.entry import main
main()
"""


def test_exit_handlers_registered_by_a_command_still_run_and_the_status_is_kept():
    for end, status in (("", 0), ("sys.exit(3)", 3), ("raise RuntimeError('bug')", 1)):
        script = HANDLERS.format(end=end)
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert done.returncode == status, done.stderr
        assert done.stdout == "done\nthe command's exit handler ran\n"
        assert ("RuntimeError: bug" in done.stderr) == (status == 1)


def test_exit_status_follows_sys_exit():
    assert [exit_status(c) for c in (None, 0, 2, 130, "message")] == [0, 0, 2, 130, 1]
