"""The ``dinolab`` typer application and its output helper; commands register on it."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import typer


def reflow(doc: str) -> str:
    """A docstring as help text: the lines of each paragraph joined, so the terminal wraps them
    (typer's rich mode keeps every line break, which breaks lines twice on a narrow
    terminal); a paragraph with indented lines (examples, even one line alone) keeps its
    lines."""
    paragraphs = inspect.cleandoc(doc).split("\n\n")
    out = []
    for para in paragraphs:
        lines = para.split("\n")
        if any(line.startswith((" ", "-")) for line in lines):
            out.append(para)
        else:
            out.append(" ".join(line.strip() for line in lines))
    return "\n\n".join(out)


class _App(typer.Typer):
    """A Typer whose commands' help is their docstring :func:`reflow`-ed."""

    def command(self, *args: Any, **kwargs: Any) -> Callable:
        register = super().command(*args, **kwargs)

        def decorator(fn: Callable) -> Callable:
            if fn.__doc__ and "help" not in kwargs:
                fn.__doc__ = reflow(fn.__doc__)
            return register(fn)

        return decorator


app = _App(
    name="dinolab",
    help=(
        "Monte Carlo balance analysis for dinosaur games.\n\n"
        "Typical loop: [bold]dinolab games[/] to see what is there; "
        "[bold]dinolab simulate dkd --games 1000000 --out runs/dkd4[/] to play; "
        "[bold]dinolab report runs/dkd4[/] for the HTML report; "
        "[bold]dinolab replay runs/dkd4 --game 123[/] to read one game."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode="rich",
)


def echo(text: str = "", nl: bool = True) -> None:
    """Print a line of output (stdout)."""
    typer.echo(text, nl=nl)


def warn(text: str) -> None:
    """Print a notice on stderr (a slow start, an interruption)."""
    typer.echo(text, err=True)
