"""EVO (Keyaerts, 1st edition), declared for the toolkit: rules, map, bots, tables, kernel."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from rules.core.jit import records
from rules.evo.cards import CARDS
from rules.evo.constants import MAX_PLAYERS, MIN_PLAYERS
from rules.evo.maps import EvoMap, map_csv
from rules.evo.params import EvoParameters
from rules.evo.state import make_table, new_states
from simulate.games.evo.check import CHECK
from simulate.games.evo.fit import fit
from simulate.games.evo.kernel import play_chunk
from simulate.games.evo.replay import render
from simulate.games.evo.tables import TABLES
from simulate.kit.arrow import strings, to_arrow
from simulate.kit.spec import Bench, Demo, GameSpec, Setup, Strength, Symmetry, Variant
from strategies.core.scratch import scratch_dtype
from strategies.evo import REGISTRY
from strategies.evo.search import DEFAULT_TABLE, SCRATCH
from strategies.evo.values import builtin, table_of


def load_data(params: EvoParameters, n_players: int) -> EvoMap:
    params.check_players(n_players)
    return params.load_map(n_players)


def build_inputs(setup: Setup) -> tuple:
    """The rules table, the lineup, a state, and the bots' scratch with every lineup position's
    gene value table (its ``values`` file, else the shipped fit) and the shipped one."""
    tb = make_table(setup.params, setup.data, setup.n_players)
    scratch = records(1, scratch_dtype(SCRATCH, setup.searches))
    n = setup.n_players
    for j, strategy in enumerate(setup.lineup):
        table_of(strategy).fill(scratch[0].values[j], n)
    builtin().fill(scratch[0].values[DEFAULT_TABLE], n)
    return tb, REGISTRY.lineup_record(list(setup.lineup)), new_states(1), scratch


def data_files(setup: Setup) -> dict[str, bytes]:
    """``map.csv`` as played, the event cards as ``event_cards.parquet``, and the gene value
    table each valuing bot played with (file, sha256, provenance) as ``bot_values.parquet``."""
    cards = pa.table(
        {
            "card": to_arrow([c.number for c in CARDS], pa.int8()),
            "hungarian": strings([c.hungarian for c in CARDS]),
            "german": strings([c.german for c in CARDS]),
            "english": strings([c.english for c in CARDS]),
            "timing": strings([c.timing for c in CARDS]),
            "effect": strings([c.effect for c in CARDS]),
            "in_deck": to_arrow([c.number in setup.params.event_cards for c in CARDS], pa.bool_()),
        }
    )
    buf = io.BytesIO()
    pq.write_table(cards, buf, compression="zstd")
    rows = [(j, s.label, table_of(s)) for j, s in enumerate(setup.lineup) if s.info.name in VALUED]
    tables = pa.table(
        {
            "position": to_arrow([j for j, _, _ in rows], pa.int8()),
            "strategy": strings([label for _, label, _ in rows]),
            "file": strings([Path(t.path).name for _, _, t in rows]),
            "sha256": strings([t.sha256 for _, _, t in rows]),
            "provenance": strings(["\n".join(t.provenance) for _, _, t in rows]),
        }
    )
    vbuf = io.BytesIO()
    pq.write_table(tables, vbuf, compression="zstd")
    return {
        "map.csv": map_csv(setup.data).encode(),
        "event_cards.parquet": buf.getvalue(),
        "bot_values.parquet": vbuf.getvalue(),
    }


VALUED = ("heuristic", "search")
"""Strategies that bid from a gene value table (``bot_values.parquet`` names theirs)."""


SPEC = GameSpec(
    module=__name__,
    name="evo",
    title="EVO (Keyaerts, 1st edition)",
    aliases=(),
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    default_players=4,
    parameters=EvoParameters,
    load_data=load_data,
    registry=REGISTRY,
    default_strategy="heuristic",
    default_chunk=20_000,
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
        kernel_games=100_000,
        interpreted_games=6,
        study=("start_points=4,6,8", "gene_bag.tail=3,6,9"),
        study_games=100_000,
        scaling_games=960_000,
    ),
    demo=Demo(4, "heuristic", games=200_000, rotate=False, test_games=600, robust_games=1000),
    report="reports.evo",
    notebook="notebooks/evo.ipynb",
    report_variants=(
        Variant(
            ("initiative_tails=false",),
            "With initiative_tails=false, tails no longer decide who plays first: this is how "
            "much the tail rule moves the game.",
        ),
        Variant(
            ("start_points=10",),
            "With start_points=10 (the English and French first edition) instead of the seed's "
            "6: how much the starting points move the seats' chances. The bots keep the value "
            "table fitted for the seed's rules.",
        ),
    ),
    fit=fit,
    schema_version=2,
    symmetry=Symmetry(4, ("random", "heuristic", "heuristic-v1", "tuned")),
    strength=Strength(
        "heuristic",
        (3, 4, 5),
        ("random:4000", "tuned:40000", "search[rollouts=4]:2000", "search:1000"),
        # the strength curve (dinolab strength), weakest first: strong at doubling budgets
        tiers=(
            "random",
            "heuristic",
            "tuned",
            "strong[playouts=10]",
            "strong",
            "strong[playouts=40]",
        ),
        robust="strong",
        robust_games=2000,
    ),
)
