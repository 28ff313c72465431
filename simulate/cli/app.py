"""The ``dinolab`` typer application and its output helper; commands register on it."""

from __future__ import annotations

import typer

app = typer.Typer(
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
