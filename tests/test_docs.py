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
