"""Docs that derive from the registry stay true: the schema page and the README's game list."""

from __future__ import annotations

from pathlib import Path

from simulate.games import all_games
from simulate.kit.docs import schema_markdown

ROOT = Path(__file__).resolve().parents[1]


def test_docs_schema_md_is_generated_from_the_declarations():
    current = (ROOT / "docs" / "schema.md").read_text()
    assert current == schema_markdown(all_games()), "docs/schema.md is stale: run `make schema`"


def test_the_readme_names_every_registered_game():
    readme = (ROOT / "README.md").read_text()
    for game in all_games():
        assert f"`{game.name}`" in readme, game.name


def test_generated_sections_are_current():
    from simulate.docgen import DOCS, refresh_sections

    for path in DOCS:
        text = (ROOT / path).read_text()
        assert refresh_sections(text) == text, f"{path} is stale: run `make docs`"


def test_every_figure_command_parses_against_todays_cli():
    import typer

    from simulate.cli import app
    from simulate.docgen import DOCS, figures

    group = typer.main.get_command(app)
    found = [f for path in DOCS for f in figures(path, (ROOT / path).read_text())]
    assert found, "no figure blocks found: the marker pattern no longer matches"
    for figure in found:
        name, *rest = figure.argv
        ctx = group.make_context("dinolab", [name, *rest], resilient_parsing=False)
        command = group.get_command(ctx, name)
        assert command is not None, f"{figure.path}:{figure.line}: no command {name!r}"
        command.make_context(name, list(rest), parent=ctx)  # raises on a bad option
        assert figure.body.strip(), f"{figure.path}:{figure.line}: empty figure"


def test_a_figure_with_a_wrong_option_fails_the_parse_check():
    import pytest
    import typer

    from simulate.cli import app

    group = typer.main.get_command(app)
    ctx = group.make_context("dinolab", ["strength", "dtb"])
    with pytest.raises(Exception, match="No such option"):
        group.get_command(ctx, "strength").make_context(
            "strength", ["dtb", "--no-such-option"], parent=ctx
        )
