"""Dino Kontra Dino analyses: what the figure decides and what it is worth; card strength.

Definitions
-----------
*Figure-decided round*: two or more seats played the top strength (``n_top > 1``), so the
tie rule chose the winner: the holder when it was among them (*kept by the holder*), else the
tied seat nearest the holder clockwise (*clockwise*).
*Events moved by the figure*: against a tie broken uniformly at random, a figure-decided round
gives its winner ``1 - 1/n_top`` extra events in expectation; summed per game.
*Card win rate*: rounds won when the card was played / rounds it was played (Wilson interval).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from reports import plots
from reports.aggregate import Chunk, Mapper, Partial, concat_sum, run_one
from reports.common import clustered, share_frame
from reports.game import FirstMover, GameReport
from reports.metrics import Feature, Metric, Ranking
from reports.section import Section
from reports.source import RunData
from reports.stats import with_wilson


def _rounds_map(chunk: Chunk) -> pl.DataFrame:
    r = chunk.table("rounds", ["event_id", "holder", "winner", "top_strength", "n_top"])
    tied = pl.col("n_top") > 1
    return r.select(
        rounds=pl.len(),
        tied=tied.sum(),
        kept=(tied & (pl.col("winner") == pl.col("holder"))).sum(),
        holder_won=(pl.col("winner") == pl.col("holder")).sum(),
        moved=pl.when(tied).then(1 - 1 / pl.col("n_top")).otherwise(0).sum(),
    )


def _rounds_reduce(parts: list[pl.DataFrame]) -> dict:
    return pl.concat(parts).sum().row(0, named=True)


FIGURE_ROUNDS = Partial("figure_rounds", _rounds_map, _rounds_reduce)


def figure_rounds(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """How rounds were decided: outright, by the holder in a tie, or clockwise in a tie."""
    r = run_one(run, FIGURE_ROUNDS, mapper)
    n = r["rounds"]
    df = pl.DataFrame(
        {
            "rounds": [
                "decided outright (no tie at the top)",
                "decided by the figure: tie, holder kept it",
                "decided by the figure: tie, nearest clockwise",
                "won by the figure holder (any way)",
            ],
            "count": [n - r["tied"], r["kept"], r["tied"] - r["kept"], r["holder_won"]],
            "total": [n] * 4,
        }
    )
    return with_wilson(df, "count", "total", "share").with_columns(
        events_moved_per_game=pl.lit(r["moved"] / run.games_logged),
    )


def _holding_map(chunk: Chunk) -> pl.DataFrame:
    """Seat-rounds and rounds won, holding the figure and not (counted with numpy: a chunk's
    turns are millions of rows)."""
    turns = chunk.table("turns", ["seat", "holder", "won"])
    holding = turns["seat"].to_numpy() == turns["holder"].to_numpy()
    won = turns["won"].to_numpy()
    held, won_held = int(holding.sum()), int((won & holding).sum())
    df = pl.DataFrame(
        {
            "holding": [False, True],
            "rounds": [turns.height - held, held],
            "won": [int(won.sum()) - won_held, won_held],
        },
        schema={"holding": pl.Boolean, "rounds": pl.Int64, "won": pl.Int64},
    )
    return df.filter(pl.col("rounds") > 0)


def _holding_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    return concat_sum(parts, ["holding"])


FIGURE_VALUE = Partial("figure_value", _holding_map, _holding_reduce)


def figure_value(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Round win rate when holding the figure and when not (per seat-round), and the gap.

    Without the figure a seat would win 1/P of rounds on average; the gap between holders and
    the others is the per-round worth of holding it (including the holder's better hands: the
    figure goes to the last round's winner).
    """
    df = run_one(run, FIGURE_VALUE, mapper)
    df = df.sort("holding", descending=True)
    labels = pl.when(pl.col("holding")).then(pl.lit("holding the figure"))
    df = df.with_columns(labels.otherwise(pl.lit("not holding it")).alias("seat-rounds"))
    return with_wilson(df, "won", "rounds", "win_rate").select(
        "seat-rounds", "rounds", "win_rate", "lo", "hi"
    )


def first_holder_rows(chunk: Chunk) -> pl.DataFrame:
    """A chunk's seat-games with ``started_with_figure``."""
    games = chunk.table("games", ["game_id", "first_holder"])
    return (
        chunk.derived(share_frame)
        .join(games, on="game_id", how="left")
        .with_columns(started_with_figure=pl.col("seat") == pl.col("first_holder"))
    )


FIRST_HOLDER = clustered("win_share", first_holder_rows, ("started_with_figure",))


def first_holder_value(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Win share of the seat that started with the figure against the others.

    With the default ``first_holder = 0`` this is also seat 0's advantage; set
    ``first_holder = -1`` (a random seat) to separate the figure from the seat.
    """
    df = run_one(run, FIRST_HOLDER, mapper)
    return df.sort("started_with_figure", descending=True)


def _cards_map(chunk: Chunk) -> pl.DataFrame:
    turns = chunk.table("turns", ["card_id", "won", "strength"])
    return (  # cast after the sums: casting millions of rows first took 2.5 times as long
        turns.group_by("card_id")
        .agg(played=pl.len(), won=pl.col("won").sum(), strength=pl.col("strength").sum())
        .with_columns(pl.col("played", "won", "strength").cast(pl.Int64))
    )


def _cards_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    return concat_sum(parts, ["card_id"])


CARD_STRENGTH = Partial("card_strength", _cards_map, _cards_reduce)


def card_strength(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Every dinosaur card: how often it was played, how often it won, its mean strength."""
    played = run_one(run, CARD_STRENGTH, mapper)
    played = played.with_columns(mean_strength=pl.col("strength") / pl.col("played")).drop(
        "strength"
    )
    dinos = run.data("dinos.parquet")
    df = dinos.join(played, on="card_id", how="left").with_columns(
        pl.col("played").fill_null(0), pl.col("won").fill_null(0)
    )
    return (
        with_wilson(df, "won", "played", "win_rate")
        .with_columns(
            total=pl.col("predation") + pl.col("size") + pl.col("speed") + pl.col("adaptability"),
        )
        .sort("win_rate", descending=True, nulls_last=True)
        .with_row_index("rank", offset=1)
    )


def card_ranking(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """:func:`card_strength` of the cards played, as a :class:`~reports.metrics.Ranking`
    table: ``name`` (name and card number), ``value`` (win rate), ``lo``, ``hi``."""
    cards = card_strength(run, mapper).filter(pl.col("played") > 0)
    return cards.select(
        name=pl.format("{} #{}", "name", "card_id"), value="win_rate", lo="lo", hi="hi"
    )


RANKING = Ranking("cards", "share of rounds won when played", "share", card_ranking)
"""The report's card strength, strongest to weakest (its robustness check reads it)."""


def _events_map(chunk: Chunk) -> pl.DataFrame:
    r = chunk.table("rounds", ["event_id", "top_strength", "n_top"])
    return r.group_by("event_id").agg(
        rounds=pl.len(),
        top=pl.col("top_strength").cast(pl.Int64).sum(),
        tied=(pl.col("n_top") > 1).sum(),
    )


def _events_reduce(parts: list[pl.DataFrame]) -> pl.DataFrame:
    return concat_sum(parts, ["event_id"])


EVENT_DIFFICULTY = Partial("event_difficulty", _events_map, _events_reduce)


def event_difficulty(run: RunData, mapper: Mapper | None = None) -> pl.DataFrame:
    """Every event: the mean winning strength and how often the figure decided it."""
    r = run_one(run, EVENT_DIFFICULTY, mapper)
    r = r.with_columns(
        mean_top=pl.col("top") / pl.col("rounds"),
        figure_decided=pl.col("tied") / pl.col("rounds"),
    ).drop("top", "tied")
    return (
        run.data("events.parquet")
        .select("event_id", "name", "needs")
        .join(r, on="event_id", how="left")
        .sort("figure_decided", descending=True)
    )


def progress(chunk: Chunk) -> pl.DataFrame:
    """Each seat's events won after every round (for the report's decisiveness section).

    Every game has the same rounds and its turns rows come round by round, seat by seat, so
    the running totals are a cumulative sum over a (games, rounds, seats) reshape.
    """
    turns = chunk.table("turns", ["game_id", "round", "seat", "won"])
    games = chunk.stop - chunk.start
    if games == 0 or turns.height % (games * chunk.n_players):
        raise ValueError("turns rows are not whole rounds of every game")
    rounds = turns.height // (games * chunk.n_players)
    won = turns["won"].to_numpy().reshape(games, rounds, chunk.n_players).astype(np.int16)
    np.cumsum(won, axis=1, out=won)
    return turns.select("game_id", "round", "seat").with_columns(score=pl.Series(won.ravel()))


# ------------------------------------------------------------------ metrics (reports.metrics)


def first_seats(chunk: Chunk) -> pl.DataFrame:
    """Per game: ``first_seat``, the seat that started with the figure (``games.first_holder``),
    for the shared ``first_share`` metric."""
    return chunk.table("games", ["game_id", "first_holder"]).select(
        "game_id", first_seat="first_holder"
    )


def figure_features(chunk: Chunk) -> pl.DataFrame:
    """Per game: ``tied_rounds``, the rounds the figure decided (``n_top > 1``), and
    ``played_rounds``, its rounds (rows of ``rounds``)."""
    r = chunk.table("rounds", ["game_id", "n_top"])
    n = chunk.stop - chunk.start
    at = r["game_id"].to_numpy() - chunk.start
    tied = (r["n_top"].to_numpy() > 1).astype(np.float64)
    return pl.DataFrame(
        {
            "game_id": np.arange(chunk.start, chunk.stop, dtype=np.int64),
            "tied_rounds": np.bincount(at, weights=tied, minlength=n),
            "played_rounds": np.bincount(at, minlength=n).astype(np.float64),
        }
    )


METRICS: tuple[Metric, ...] = (
    Metric(
        "figure_decides",
        "share of rounds decided by the figure's tie rule (two or more seats tied at the top "
        "strength, rounds.n_top > 1): all tied rounds over all rounds",
        "share of rounds",
        0.01,
        tables=("rounds",),
        features=lambda ctx, arg: (Feature(figure_features),),
        formula=lambda m, arg: m["tied_rounds"] / m["played_rounds"],
    ),
)
"""Dino Kontra Dino's own metrics (besides :data:`reports.metrics.SHARED`)."""


def partials(run: RunData) -> list[Partial]:
    """What the report's Dino Kontra Dino sections read (computed in the report's one pass)."""
    return [FIGURE_ROUNDS, FIGURE_VALUE, FIRST_HOLDER, CARD_STRENGTH, EVENT_DIFFICULTY]


def sections(run: RunData) -> list[Section]:
    """The report's Dino Kontra Dino sections: the figure, card and event strength."""
    rounds = figure_rounds(run)
    moved = float(rounds["events_moved_per_game"][0])
    tied = rounds.row(1, named=True)["share"] + rounds.row(2, named=True)["share"]
    value = figure_value(run)
    hold, other = value.row(0, named=True), value.row(1, named=True)
    first = first_holder_value(run)
    cards = card_strength(run)
    strongest, weakest = (
        cards.row(0, named=True),
        cards.filter(pl.col("played") > 0).row(-1, named=True),
    )
    events = event_difficulty(run)
    shown_first = first.with_columns(pl.col("started_with_figure").cast(pl.String))
    return [
        Section(
            "The dinosaur figure: how often it decides",
            f"{tied:.2%} of rounds had a tie at the top strength, so the figure rule picked the "
            f"winner. Against ties broken at random, the rule moves {moved:.3f} events per game "
            f"to the tied player nearest the figure.",
            rounds,
            {"rounds": "str", "count": "int", "share": "pct_ci"},
            plots.stacked_shares(
                ["outright", "tie, holder kept", "tie, clockwise"],
                [rounds.row(i, named=True)["share"] for i in range(3)],
                title="How rounds are decided",
            ),
            key="figure",
        ),
        Section(
            "The dinosaur figure: what holding it is worth",
            f"Seats holding the figure won {hold['win_rate']:.2%} of rounds "
            f"[{hold['lo']:.2%}, {hold['hi']:.2%}], the others {other['win_rate']:.2%} "
            f"[{other['lo']:.2%}, {other['hi']:.2%}] (a fair share is "
            f"{1 / run.n_players:.2%}). The holder won the previous round, so part of the gap is "
            f"its stronger hand. Win share of the seat that started with the figure against the "
            f"rest is in the second table"
            + (
                " (the figure always started at seat 0, so this is also seat 0's advantage; "
                "--set first_holder=-1 separates them)."
                if run.config["params"].get("first_holder", 0) >= 0
                else "."
            ),
            value,
            {"seat-rounds": "str", "rounds": "int", "win_rate": "pct_ci"},
            key="figure_value",
        ),
        Section(
            "Win share of the first figure holder",
            "",
            shown_first,
            {"started_with_figure": "str", "n": "int", "mean": "pct_ci"},
            key="first_holder",
        ),
        Section(
            "Card strength",
            f"Every dinosaur by the share of rounds it won when played. Strongest: "
            f"{strongest['name']} #{strongest['card_id']} ({strongest['win_rate']:.1%}); weakest: "
            f"{weakest['name']} #{weakest['card_id']} ({weakest['win_rate']:.1%}). Bots choose "
            f"when to play a card, so this measures the card as the bots use it.",
            cards,
            {
                "rank": "int",
                "name": "str",
                "card_id": "int",
                "predation": "int",
                "size": "int",
                "speed": "int",
                "adaptability": "int",
                "played": "int",
                "win_rate": "pct_ci",
                "mean_strength": "float",
            },
            plots.ranked_cards(cards),
            key="cards",
        ),
        Section(
            "Events",
            "Every event by how often the figure decided it, with the mean winning strength.",
            events,
            {
                "event_id": "int",
                "name": "str",
                "needs": "str",
                "rounds": "int",
                "mean_top": "float",
                "figure_decided": "pct",
            },
            key="events",
        ),
    ]


def option_uses(chunk: Chunk, options: tuple[str, ...]) -> pl.DataFrame:
    """Restricted play (:mod:`reports.restrict`): per game and seat, how many times the seat
    played each card option among ``options`` (a card option is the dinosaur's name). The
    figure option needs the whole hand, which the logs do not keep, so it is not counted."""
    turns = chunk.table("turns", ["game_id", "seat", "card_id"])
    names = chunk.run.data("dinos.parquet").select("card_id", option="name")
    return (
        turns.join(names, on="card_id", how="inner")
        .filter(pl.col("option").is_in(list(options)))
        .group_by("game_id", "seat", "option")
        .agg(uses=pl.len())
    )


REPORT = GameReport(
    sections=sections,
    partials=partials,
    progress=progress,
    metrics=METRICS,
    ranking=RANKING,
    first_mover=FirstMover(first_seats, ("games",)),
    option_uses=option_uses,
)
