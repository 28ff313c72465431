"""Fitting the heuristic's gene value table by self-play: ``dinolab fit evo``.

Two stages, each an iteration of *play, measure, update*.

**Values** (``--iterations``), the table's worth of each gene per auction round:

0. Play ``games`` games of ``heuristic-v1`` self-play (typed-in values) and measure every
   gene's value per auction round with the report's own model (``reports/evo/model.py``: the
   linear probability model of the final win share on the position at the auction, values
   relative to the average gene sold that round, in points; ``reports/evo/fitting.py``
   measures a run for the fit, every value with its standard error). That is the first
   table.
1. Play ``games`` games of ``heuristic`` self-play with the current table (new seeds each
   iteration) and measure again; the table after iteration k is the mean of the measurements
   of iterations 1..k (:func:`damping`: fictitious play, which averages out their sampling
   noise). A gene still measured above its price gets a bidding premium
   (:data:`PREMIUM_GAIN` of the surplus per iteration, at most :data:`PREMIUM_CAP`).

Each measurement also fits the same model on the positions of smaller, median and larger
species (a dino or more below the round's median, at it, above it) and on each climate field;
those become the table's state shifts, in points per expected round left pooled over the
rounds by precision and shrunk towards 0 (:func:`state_shifts`, :data:`PRIOR_PER_ROUND`).
Round 1 is not measurable (every portrait is the same then): its values are round 2's scaled
by the expected rounds left.

**Prices** (``--refine``; alone on an existing table with ``--start FILE``): the values and
state shifts are kept and only the premiums move, up or down, by :data:`REFINE_GAIN` times each
round's measured surplus (value minus price), less where the surplus is measured poorly
(:data:`REFINE_PRIOR`), never down for a gene already sold for nothing (:data:`FLOOR_PRICE`),
within :data:`REFINE_CAP`: a tatonnement on the bids, which settles
where every gene's price matches its measured worth, i.e. no gene is a bargain. The values
stage alone does not get there: the bots' purchases change what each gene is worth, and
following the measured values oscillates. The table written averages the premiums of the
second half of the refinements (Polyak averaging: the iterates wander round the fixed point by
the measurements' noise) and is measured once more on new seeds (the ``final`` line).

Every iteration's line (the surplus of each gene, the prices, what moved) is printed and
written into the file's provenance.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rules.core.errors import DinolabError
from rules.evo.constants import GENES
from rules.evo.state import make_table
from simulate.kit.spec import FitRequest
from strategies.evo.values import SIZES, load, write

if TYPE_CHECKING:  # polars is 0.1 s of every EVO worker's start, and a run never fits
    import polars as pl

PREMIUM_GAIN = 0.25
"""How much of a gene's measured surplus (points) is added to its bidding premium per
iteration."""
PREMIUM_CAP = 2.0
"""Largest bidding premium (points) of a fit from scratch; a refinement allows
:data:`REFINE_CAP` either way."""
REFINE_GAIN = 0.2
"""How much of a gene's measured surplus moves its premium per iteration of a refinement."""
REFINE_CAP = 4.0
"""Largest premium, up or down, of a refinement (points)."""
FLOOR_PRICE = 0.05
"""A gene whose mean price paid is at most this (points) sells at the zero-price floor."""
REFINE_PRIOR = 0.5
"""A refinement's step for a surplus measured with this standard error (points) is halved
(:func:`raise_premiums`)."""
PRIOR_PER_ROUND = 0.1
"""Spread of the state shifts' prior, in points per expected round left: a pooled shift
measured with this standard error is pulled half way to 0."""


def damping(k: int) -> float:
    """How far iteration ``k``'s measurement moves the table: iterations 0 and 1 set it, then
    it is the running mean of the measurements of iterations 1..k (fictitious play: a gene's
    worth falls as more players hold it, so following each measurement in full oscillates)."""
    return 1.0 if k <= 1 else 1.0 / k


class Estimated(Protocol):
    """A measured value with its standard error."""

    value: float
    se: float


Values = Mapping[tuple[int, str], Estimated]
"""``(round, gene)`` -> a measured value (points)."""


class Measurement(Protocol):
    """What the EVO report measures of a finished run for the fit
    (``reports.evo.fitting.FitMeasurement``, handed over as :attr:`FitRequest.measure`)."""

    values: Values
    """Each gene's value per round, relative to the average gene sold."""
    by_size: Sequence[Values]
    """The same on the positions of smaller, median and larger species (:data:`SIZES`)."""
    by_field: Sequence[Values]
    """The same on the positions of each climate field."""
    surplus: Values
    """Value minus relative price per round and gene sold."""
    paid: Mapping[tuple[int, str], float]
    sold: Mapping[tuple[int, str], int]
    price: Mapping[int, float]
    median: Mapping[int, float]
    meteor: Mapping[int, int]
    summary: pl.DataFrame


def states(m: Measurement) -> dict[str, Values]:
    """The measured values by the table's state names (``all``, the sizes, ``field=F``)."""
    out: dict[str, Values] = {"all": m.values, **dict(zip(SIZES, m.by_size, strict=False))}
    out.update({f"field={f}": v for f, v in enumerate(m.by_field)})
    return out


def state_shifts(m: Measurement, left: dict[int, float]) -> dict[tuple[str, str], float]:
    """Per gene and state: how many points per expected round left the state adds to the
    round's value, pooled over the rounds by precision and shrunk towards 0 by
    :data:`PRIOR_PER_ROUND` (``gamma / (1 + (se / prior)^2)``)."""
    base = m.values
    out = {}
    for state, values in states(m).items():
        if state == "all":
            continue
        for g in GENES:
            num = den = 0.0
            for (r, gg), e in values.items():
                lr = left.get(r, 0.0)
                if gg != g or r < 2 or (r, g) not in base or lr <= 0 or not e.se > 0:
                    continue
                w = (lr / e.se) ** 2
                num += w * (e.value - base[(r, g)].value) / lr
                den += w
            if den > 0:
                gamma, se_gamma = num / den, 1 / math.sqrt(den)
                out[(g, state)] = gamma / (1.0 + (se_gamma / PRIOR_PER_ROUND) ** 2)
    return out


def table_from(m: Measurement, rounds: int, left: dict[int, float]) -> dict:
    """A full table ``{(round, gene, state): value}`` (with prices and medians) from one
    measurement: round 1 from round 2 scaled by the rounds left, rounds without an estimate
    from the nearest round that has one, state values from :func:`state_shifts`."""
    base = m.values
    cells: dict[tuple[int, str, str], float] = {}
    measured = sorted({r for r, _ in base})
    if not measured:
        raise DinolabError("fit: no gene value was measurable; play more games per iteration")
    shifts = state_shifts(m, left)
    for r in range(1, rounds + 1):
        for g in GENES:
            near = [x for x in measured if (x, g) in base]
            if not near:
                cells[(r, g, "all")] = 0.0
                continue
            src = r if (r, g) in base else min(near, key=lambda x: (abs(x - r), -x))
            scale = left.get(r, 1.0) / left.get(src, 1.0) if r < src and left.get(src) else 1.0
            v0 = base[(src, g)].value * scale
            cells[(r, g, "all")] = v0
            for (gg, state), gamma in shifts.items():
                if gg == g:
                    cells[(r, g, state)] = v0 + gamma * left.get(r, 0.0)
    last = m.price.get(max(m.price), 0.0) if m.price else 0.0
    price = {r: m.price.get(r, last) for r in range(1, rounds + 1)}
    median = {r: m.median.get(r, 1.0) for r in range(1, rounds + 1)}
    return {"cells": cells, "price": price, "median": median}


def raise_premiums(
    table: dict,
    m: Measurement,
    rounds: int,
    gain: float = PREMIUM_GAIN,
    low: float = 0.0,
    high: float = PREMIUM_CAP,
    prior: float | None = None,
) -> None:
    """Move each gene's bidding premium by ``gain`` times the surplus the logs measured (value
    minus price, relative, per round), kept within [``low``, ``high``]. With a ``prior``
    (points), a surplus measured with standard error ``se`` moves it ``1 / (1 + (se /
    prior)^2)`` as far (a round few games reach says little), and an overpriced gene that
    already sells for nothing (mean price at most :data:`FLOOR_PRICE`) keeps its premium:
    bidding less cannot lower a price of 0 (the zero-price floor), and pushing on would only
    wind the premium up. Round 1 (not measurable) takes round 2's."""
    premium = table.setdefault("premium", {})
    for r in range(2, rounds + 1):
        for g in GENES:
            if (r, g) in m.surplus:
                surplus, se, paid = m.surplus[(r, g)].value, m.surplus[(r, g)].se, m.paid[(r, g)]
                step = gain * surplus
                if prior is not None:
                    step /= 1.0 + (se / prior) ** 2 if se == se else float("inf")
                    if surplus < 0 and paid <= FLOOR_PRICE:
                        step = 0.0
                premium[(r, g)] = min(high, max(low, premium.get((r, g), 0.0) + step))
    for g in GENES:
        premium[(1, g)] = premium.get((2, g), 0.0)


def blend(old: dict | None, new: dict, a: float) -> dict:
    """``old`` moved by ``a`` towards ``new`` (cells missing from one side keep the other's),
    keeping ``old``'s premiums."""
    if old is None:
        return {**new, "premium": {}}
    out = {"premium": old.get("premium", {})}
    for key in ("cells", "price", "median"):
        o, n = old[key], new[key]
        out[key] = {
            k: o.get(k, n.get(k)) + a * (n.get(k, o.get(k)) - o.get(k, n.get(k)))
            for k in set(o) | set(n)
        }
    return out


def rows_of(table: dict, players: int, left: dict[int, float], se: dict) -> list[dict]:
    """The table as value-file rows."""
    rows = []
    for (r, g, state), v in sorted(
        table["cells"].items(),
        key=lambda kv: (kv[0][0], GENES.index(kv[0][1]), kv[0][2] != "all", kv[0][2]),
    ):
        rows.append(
            {
                "players": players,
                "round": r,
                "rounds_left": round(left.get(r, float("nan")), 3),
                "gene": g,
                "state": state,
                "value": float(v),
                "se": float(se.get((r, g, state), float("nan"))),
                "median_dinos": table["median"][r],
                "price": float(table["price"][r]),
                "premium": float(table.get("premium", {}).get((r, g), 0.0)),
            }
        )
    return rows


def read_table(path: str, players: int) -> tuple[dict, dict, dict]:
    """The rows of a value table file for ``players`` as a fit's table (cells, prices,
    medians, premiums), with the rounds left and standard errors it was written with."""
    load(path)  # one-line errors for a malformed file
    with open(path, encoding="utf-8") as f:
        rows = [
            r
            for r in csv.DictReader(line for line in f if not line.startswith("#"))
            if int(float(r["players"])) == players
        ]
    if not rows:
        raise DinolabError(f"fit: {Path(path).name} has no rows for {players} players")
    table: dict = {"cells": {}, "price": {}, "median": {}, "premium": {}}
    left, se = {}, {}
    for r in rows:
        rnd, gene, state = int(float(r["round"])), r["gene"].strip(), r["state"].strip()
        table["cells"][(rnd, gene, state)] = float(r["value"])
        table["price"][rnd] = float(r["price"] or 0)
        table["median"][rnd] = float(r["median_dinos"] or 0)
        if state == "all":
            table["premium"][(rnd, gene)] = float(r.get("premium") or 0)
        if r.get("rounds_left"):
            left[rnd] = float(r["rounds_left"])
        if r.get("se"):
            se[(rnd, gene, state)] = float(r["se"])
    return table, left, se


def moved(old: dict, new: dict, sold: dict) -> float:
    """Sold-weighted mean absolute change of the rounds' values (round 2 on), in points."""
    num = den = 0.0
    for (r, g, state), v in new["cells"].items():
        if state != "all" or r < 2 or (r, g, state) not in old["cells"]:
            continue
        w = sold.get((r, g), 0)
        num += w * abs(v - old["cells"][(r, g, state)])
        den += w
    return num / den if den else float("nan")


def _summary_line(n: int, what: str, bots: str, step: str, m: Measurement, table: dict) -> str:
    """One iteration's progress line (also written into the file's provenance); ``step``: how
    far the measured values moved from the table, if the fit follows them."""
    s = m.summary
    top = s.sort("surplus", descending=True).row(0, named=True) if s.height else None
    paid = {r["gene"]: r["paid"] for r in s.iter_rows(named=True)}
    premium = table.get("premium") or {}
    each = {r["gene"]: r["surplus"] for r in s.iter_rows(named=True)}
    return (
        f"{n} players, {what} ({bots}): "
        + (f"measured values {step} points from the table; " if step else "")
        + (f"largest surplus {top['gene']} {top['surplus']:+.2f}; " if top else "")
        + "surplus "
        + " ".join(f"{g} {each[g]:+.2f}" for g in GENES if g in each)
        + "; "
        + (f"largest premium {max(map(abs, premium.values())):.2f}; " if premium else "")
        + "mean price "
        + " ".join(f"{g} {paid[g]:.2f}" for g in GENES if g in paid)
    )


def _method(req: FitRequest) -> list[str]:
    """The provenance lines saying how the table was made."""
    base = req.seed + (0 if req.start else req.iterations)
    lines = []
    if req.start:
        start = load(req.start)
        lines.append(
            f"method: refinement of {Path(req.start).name} (sha256 {start.sha256}; its "
            "provenance follows as 'start:' lines)"
        )
    else:
        lines.append(
            f"method: {req.iterations} iterations of {req.games:,} self-play games each after "
            f"one of heuristic-v1 (iteration 0), seeds {req.seed}..{base}; values by the "
            "report's gene value model (reports/evo/model.py), relative to the average gene; "
            "table after iteration k: the mean of the measurements of iterations 1..k"
        )
    if req.refine:
        lines.append(
            f"prices: {req.refine} refinements of {req.games:,} games each, seeds "
            f"{base + 1}..{base + req.refine}: values and state shifts kept, each premium moved "
            f"by {REFINE_GAIN} x the round's measured surplus (value minus price), shrunk by its "
            f"standard error (prior {REFINE_PRIOR}), never down at a zero price; premiums "
            f"averaged over the second half; that table measured on seed "
            f"{base + req.refine + 1} (final)"
        )
    if req.start:
        lines += [f"start: {line}" for line in load(req.start).provenance]
    return lines


def fit(req: FitRequest) -> None:
    """``dinolab fit evo``: fit a value table for ``req.params`` and each player count (with
    ``req.start``: refine that one), then refine its premiums ``req.refine`` times."""
    from simulate.backends import make_executor
    from simulate.config import RunConfig
    from simulate.games.evo import SPEC
    from simulate.rundir import Run
    from simulate.runner import run

    if req.iterations < 1 or req.games < 100 or req.refine < 0:
        raise DinolabError("fit: needs --iterations >= 1, --refine >= 0 and --games >= 100")
    if req.start and not req.refine:
        raise DinolabError("fit: --start refines a table: give --refine 1 or more")
    starts = {n: read_table(req.start, n) for n in req.players} if req.start else {}
    executor = make_executor(req.workers)
    rows: list[dict] = []
    changed = {k: v for k, v in req.params.to_dict().items() if v != SPEC.parameters().to_dict()[k]}
    rules = ", ".join(f"{k}={v}" for k, v in changed.items()) or "the default rules"
    lines = [f"rules: {rules}; players: {', '.join(map(str, req.players))}", *_method(req)]
    lines.append(f"made: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC by dinolab fit evo")
    with tempfile.TemporaryDirectory() as tmp:

        def play(n: int, seed: int, table: dict | None) -> Run:
            lineup = "heuristic-v1"
            if table is not None:
                path = Path(tmp) / f"values-{n}-{seed}.csv"
                write(str(path), rows_of(table, n, {}, {}), ["work in progress"])
                lineup = f"heuristic[values={path}]"
            setup = SPEC.setup(req.params, n, lineup)
            config = RunConfig(
                game="evo",
                n_players=n,
                strategies=tuple(s.spec for s in setup.lineup),
                rotate=False,
                seed=seed,
                games=req.games,
                chunk_size=max(1000, -(-req.games // 8)),
                params=req.params.to_dict(),
                data_digest=setup.data.sha256,
            )
            out = Path(tmp) / f"run-{n}-{seed}"
            run(config, setup, out, executor)
            return Run(str(out))

        def done(r: Run, line: str, history: list[str]) -> None:
            history.append(line)
            req.echo(line)
            for p in Path(r.path).rglob("*"):
                if p.is_file():
                    p.unlink()

        for n in req.players:
            req.params.check_players(n)
            tb = make_table(req.params, req.params.load_map(n), n)[0]
            rounds = req.params.max_rounds(n)
            history: list[str] = []
            if n in starts:
                table, left, se = starts[n]
                base = req.seed
            else:
                table = None
                for k in range(req.iterations + 1):
                    r = play(n, req.seed + k, table)
                    m: Measurement = req.measure(r, True, None)
                    left = {x: float(tb.rounds_after[s]) for x, s in m.meteor.items()}
                    left[1] = float(tb.rounds_after[min(m.meteor.get(1, tb.meteor_start + 1), 63)])
                    new = table_from(m, rounds, left)
                    step = f"{moved(table, new, m.sold):.2f}" if table is not None else "-"
                    table = blend(table, new, damping(k))
                    if k >= 1:
                        raise_premiums(table, m, rounds)
                    bots = "heuristic-v1" if k == 0 else "heuristic"
                    done(
                        r,
                        _summary_line(n, f"iteration {k}/{req.iterations}", bots, step, m, table),
                        history,
                    )
                se = {
                    (x, g, st): e.se for st, vals in states(m).items() for (x, g), e in vals.items()
                }
                base = req.seed + req.iterations
            refine(req, n, rounds, table, base, play, done, history)
            rows += rows_of(table, n, left, se)
            lines += history
    write(req.out, rows, lines)
    req.echo(f"wrote {req.out}: {len(rows):,} rows for {', '.join(map(str, req.players))} players")
    req.echo(f'play with: --strategy "heuristic[values={req.out}]"')


def refine(
    req: FitRequest,
    n: int,
    rounds: int,
    table: dict,
    base: int,
    play: Callable[[int, int, dict | None], Any],
    done: Callable[[Any, str, list[str]], None],
    history: list[str],
) -> None:
    """The price stage: ``req.refine`` tatonnement steps on ``table``'s premiums on seeds
    ``base + 1 ..``, the premiums of the second half averaged into ``table``, and that table
    measured once more (the ``final`` line)."""
    if not req.refine:
        return
    kept = []
    for k in range(1, req.refine + 1):
        r = play(n, base + k, table)
        m = req.measure(r, False, None)
        raise_premiums(table, m, rounds, REFINE_GAIN, -REFINE_CAP, REFINE_CAP, REFINE_PRIOR)
        if 2 * k >= req.refine:
            kept.append(dict(table["premium"]))
        done(
            r, _summary_line(n, f"refinement {k}/{req.refine}", "heuristic", "", m, table), history
        )
    cells = set().union(*kept)
    table["premium"] = {c: sum(p.get(c, 0.0) for p in kept) / len(kept) for c in cells}
    r = play(n, base + req.refine + 1, table)
    m = req.measure(r, False, None)
    done(r, _summary_line(n, "final", "averaged premiums", "", m, table), history)
