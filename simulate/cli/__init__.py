"""The ``dinolab`` command line.

Every user error (unknown game, strategy or rule key, a value out of range, a malformed data
file, a run directory from another configuration) ends in one line, ``error: ...``, and exit
code 2, before anything is written.
"""

from __future__ import annotations

import os
import sys

import click
import typer

from rules.core.errors import DinolabError
from simulate.cli import (  # noqa: F401 (commands)
    analysis_commands,
    fit_commands,
    info_commands,
    ladder_commands,
    notebook_commands,
    restrict_commands,
    run_commands,
    search_commands,
    strength_commands,
    sweep_commands,
    tune_commands,
)
from simulate.cli.app import app

try:  # typer >= 0.20 vendors its own click; older typer uses click itself
    from typer._click.exceptions import ClickException as _TyperClickError
    from typer._click.exceptions import NoArgsIsHelpError as _TyperNoArgsIsHelpError
    from typer._click.exceptions import UsageError as _TyperUsageError
except ImportError:  # pragma: no cover
    _TyperClickError, _TyperUsageError = click.ClickException, click.UsageError
    _TyperNoArgsIsHelpError = click.exceptions.NoArgsIsHelpError

NO_COMMAND = (click.exceptions.NoArgsIsHelpError, _TyperNoArgsIsHelpError)
USAGE_ERRORS = (click.exceptions.UsageError, _TyperUsageError)
CLICK_ERRORS = (click.exceptions.ClickException, _TyperClickError)
EXITS = (click.exceptions.Exit, typer.Exit)
ABORTS = (KeyboardInterrupt, click.exceptions.Abort, typer.Abort)


def fail(message: str) -> None:
    """Print ``error: message`` on one line (line breaks in user input are escaped); exit 2."""
    one_line = message.replace("\r", "\\r").replace("\n", "\\n")
    typer.echo(f"error: {one_line}", err=True)
    sys.exit(2)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: one-line errors with exit code 2, never a traceback for bad input."""
    try:
        rv = app(args=argv, prog_name="dinolab", standalone_mode=False)
    except NO_COMMAND as exc:  # the help is shown (typer prints it; click puts it here)
        if help_text := exc.format_message().strip():
            typer.echo(help_text)
        fail("no command given: pick one of those listed above")
    except USAGE_ERRORS as exc:
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else "dinolab"
        fail(f"{' '.join(exc.format_message().split())} (see {where} --help)")
    except DinolabError as exc:
        if os.environ.get("DINOLAB_DEBUG"):
            raise
        fail(str(exc))
    except BrokenPipeError:  # output piped into head and the like
        sys.exit(0)
    except OSError as exc:  # files and folders the user pointed at
        fail(f"{exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else ""))
    except CLICK_ERRORS as exc:
        fail(" ".join(exc.format_message().split()))
    except ABORTS:
        typer.echo("interrupted; finish the run with the same command and --resume", err=True)
        sys.exit(130)
    except EXITS as exc:
        sys.exit(getattr(exc, "exit_code", 0))
    sys.exit(rv if isinstance(rv, int) else 0)
