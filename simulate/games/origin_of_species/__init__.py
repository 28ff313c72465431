"""Evolution: The Origin of Species, declared for the toolkit: rules, deck, bots, tables,
kernel, replay, checker, report."""

from __future__ import annotations

import io

import pyarrow as pa
import pyarrow.parquet as pq

from rules.origin_of_species.constants import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    PAIRED,
    PRINTED_FOOD,
    SK,
    TRAITS,
    USE_DOCS,
)
from rules.origin_of_species.deck import Deck
from rules.origin_of_species.params import OosParameters
from simulate.games.origin_of_species.check import CHECK
from simulate.games.origin_of_species.kernel import kernel_inputs, play_chunk
from simulate.games.origin_of_species.replay import render
from simulate.games.origin_of_species.tables import TABLES, USE_COLUMNS
from simulate.kit.arrow import strings, to_arrow
from simulate.kit.spec import Bench, Demo, GameSpec, Setup, Strength, Symmetry
from strategies.origin_of_species import REGISTRY


def load_data(params: OosParameters, n_players: int) -> Deck:
    deck = params.load_deck()
    params.check_players(n_players, deck)
    return deck


def build_inputs(setup: Setup) -> tuple:
    return kernel_inputs(setup.params, setup.data, setup.lineup, setup.searches)


def traits_table(deck: Deck, sets: int, params: OosParameters) -> pa.Table:
    """One row per trait: its id (bit ``trait_id`` of every trait bitmask in the logs), its
    English and Slovak names, whether it is paired, its extra food and points under these
    rules, the cards of the deck as played that carry it, and the ``players`` column holding
    its use counter with what that counts."""
    extra_food = dict(zip((0, 1, 2), params.extra_food, strict=True))
    extra_points = dict(zip((0, 1, 2), params.extra_points, strict=True))
    ids = range(len(TRAITS))
    return pa.table(
        {
            "trait_id": to_arrow(list(ids), pa.int8()),
            "name": strings(list(TRAITS)),
            "name_sk": strings(list(SK)),
            "paired": to_arrow([t in PAIRED for t in ids], pa.bool_()),
            "printed_food": to_arrow(list(PRINTED_FOOD), pa.int8()),
            "extra_food": to_arrow([extra_food.get(t, 0) for t in ids], pa.int8()),
            "extra_points": to_arrow([extra_points.get(t, 0) for t in ids], pa.int8()),
            "cards": to_arrow([sets * deck.counts(t) for t in ids], pa.int16()),
            "use_column": strings([USE_COLUMNS[t] for t in ids]),
            "use_counts": strings([USE_DOCS[t] for t in ids]),
        }
    )


def data_files(setup: Setup) -> dict[str, bytes]:
    """``deck.csv`` as played (the loader's canonical text, one set) and ``traits.parquet``."""
    deck: Deck = setup.data
    buf = io.BytesIO()
    table = traits_table(deck, setup.params.sets_for(setup.n_players), setup.params)
    pq.write_table(table, buf, compression="zstd")
    return {"deck.csv": deck.to_csv().encode(), "traits.parquet": buf.getvalue()}


SPEC = GameSpec(
    module=__name__,
    name="origin-of-species",
    title="Evolution: The Origin of Species",
    aliases=("oos",),
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=4,
    parameters=OosParameters,
    load_data=load_data,
    registry=REGISTRY,
    default_strategy="heuristic",
    default_chunk=50_000,
    min_chunk=4_000,
    tables=TABLES,
    build_inputs=build_inputs,
    kernel=play_chunk,
    render=render,
    data_files=data_files,
    check=CHECK,
    bench=Bench(
        "heuristic",
        4,
        kernel_games=30_000,
        interpreted_games=3,
        study=("hand_size=5..7", "food_add.p4=0..2"),
        study_games=20_000,
        scaling_games=800_000,
    ),
    demo=Demo(
        4,
        "heuristic,heuristic[aggression=2],heuristic,heuristic[aggression=0]",
        games=100_000,
        rotate=True,
        test_games=240,
        robust_games=1000,
    ),
    report="reports.origin_of_species",
    notebook="notebooks/origin_of_species.ipynb",
    symmetry=Symmetry(4, ("random", "heuristic", "tuned")),
    strength=Strength(
        "heuristic",
        (2, 3, 4),
        ("random:4000", "tuned:100000", "search[rollouts=4]:1000", "search:600"),
        # the strength curve (dinolab strength), weakest first: strong at doubling budgets
        tiers=(
            "random",
            "heuristic",
            "tuned",
            "strong[playouts=8]",
            "strong",
            "strong[playouts=32]",
        ),
        robust="strong",
        robust_games=2000,
        test_games=100_000,
    ),
)
