"""``dinolab verify RUN``: is every byte of a run where the manifest says it is?

Checks, in order: the manifest reads and has this tool's schema version; every chunk of the
configuration is listed (for a finished run) and no chunk outside it; every listed chunk's
part file exists in every table with the recorded SHA-256 and row count; each part's schema
is the table's declared schema less the columns derived on read; and game ids cover
``0 .. games-1`` exactly once in the games table and stay inside their chunk's range in every
other table. Stray temporary files are reported. The run is good only when every check holds.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from simulate.games import get_game
from simulate.manifest import read_manifest, run_config
from simulate.parquet import part_name
from simulate.storage import TMP_PREFIX, RunStore, open_store

if TYPE_CHECKING:
    from simulate.kit.spec import GameSpec


@dataclasses.dataclass
class Report:
    problems: list[str] = dataclasses.field(default_factory=list)
    checked: list[str] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def text(self) -> str:
        lines = [f"checked: {c}" for c in self.checked]
        lines += [f"PROBLEM: {p}" for p in self.problems]
        lines.append("run verified" if self.ok else f"{len(self.problems)} problem(s) found")
        return "\n".join(lines)


Problem = Callable[[str], None]
"""Records one problem (up to the report's limit)."""


def verify_run(run_dir: str | Path | RunStore, *, max_problems: int = 50) -> Report:
    """Check a run directory; never raises for a damaged run, only reports."""
    root = open_store(run_dir)
    report = Report()
    manifest = read_manifest(root)  # a missing or unreadable manifest is a user error (exit 2)
    config = run_config(manifest)
    game = get_game(config.game)
    written = game.written_tables(config.tables)
    declared = {t.name: t.stored({w.name for w in written}) for t in written}
    chunks = {str(i): (start, stop) for i, start, stop in config.chunks()}
    listed = manifest["chunks"]

    def problem(text: str) -> None:
        if len(report.problems) < max_problems:
            report.problems.append(text)

    report.checked.append(
        f"manifest of a {config.game} run, manifest version {manifest['schema_version']}"
    )
    _check_log_schema(manifest, game, config.game, report, problem)
    _check_listing(manifest, chunks, declared, problem)
    seen_games = 0
    for index in sorted(set(listed) & set(chunks), key=int):
        seen_games += _check_chunk(root, index, listed[index], chunks[index], declared, problem)
    report.checked.append(
        f"{len(set(listed) & set(chunks))} chunks x {len(declared)} tables: files, checksums, "
        "row counts, schemas, game-id ranges"
    )
    report.checked.append(f"{seen_games:,} of {config.games:,} games present exactly once")
    _check_leftovers(root, manifest, declared, problem)
    return report


def _check_log_schema(
    manifest: dict, game: GameSpec, game_name: str, report: Report, problem: Problem
) -> None:
    """Is the run's recorded log schema this dinolab's schema of its game?"""
    logged = manifest.get("log_schema")
    if logged is None:
        report.checked.append("log schema: not recorded (a run made before schema versions)")
    elif logged != game.schema:
        problem(
            f"the run's log schema (version {logged.get('version')}, {logged.get('digest')}) is "
            f"not this dinolab's {game_name} schema (version {game.schema_version}, "
            f"{game.schema['digest']}): its tables were written by another release"
        )
    else:
        report.checked.append(f"log schema version {game.schema_version} ({logged['digest']})")


def _check_listing(
    manifest: dict,
    chunks: dict[str, tuple[int, int]],
    declared: dict[str, pa.Schema],
    problem: Problem,
) -> None:
    """Does the manifest list the configuration's chunks and tables, no more and no fewer?"""
    listed = manifest["chunks"]
    extra = sorted(set(listed) - set(chunks), key=int)
    if extra:
        problem(f"manifest lists chunks outside the configuration: {extra[:10]}")
    missing = sorted(set(chunks) - set(listed), key=int)
    if manifest.get("status") == "complete" and missing:
        problem(f"run marked complete but chunks are missing: {missing[:10]}")
    elif missing:
        problem(
            f"run is unfinished: {len(missing)} of {len(chunks)} chunks to go "
            "(finish it with dinolab simulate ... --resume)"
        )
    if set(manifest["tables"]) != set(declared):
        problem(
            f"manifest tables {sorted(manifest['tables'])} differ from the configuration's "
            f"{sorted(declared)}"
        )


def _check_chunk(
    root: RunStore,
    index: str,
    entry: dict,
    span: tuple[int, int],
    declared: dict[str, pa.Schema],
    problem: Problem,
) -> int:
    """Check one listed chunk's range and its part in every table; returns the games its
    games table holds exactly once (0 when they do not)."""
    start, stop = span
    if (entry.get("start"), entry.get("stop")) != (start, stop):
        problem(
            f"chunk {index} covers {entry.get('start')}..{entry.get('stop')}, "
            f"the configuration says {start}..{stop}"
        )
    seen = 0
    for table, schema in declared.items():
        name = f"{table}/{part_name(int(index))}"
        if _check_part(root, name, table, schema, entry, span, problem):
            seen += stop - start
    return seen


def _check_part(
    root: RunStore,
    name: str,
    table: str,
    schema: pa.Schema,
    entry: dict,
    span: tuple[int, int],
    problem: Problem,
) -> bool:
    """Check one part file: there, its checksum, readable, its rows, schema and game ids;
    true for a games part that holds each of its chunk's games exactly once."""
    if not root.exists(name):
        problem(f"{name} is missing")
        return False
    data = root.read_bytes(name)
    if hashlib.sha256(data).hexdigest() != entry["sha256"].get(table):
        problem(f"{name} does not match its recorded checksum")
        return False
    try:
        pf = pq.ParquetFile(io.BytesIO(data))
        ids = pf.read(columns=["game_id"])["game_id"]
    except Exception as exc:  # a damaged file, whatever pyarrow says about it
        problem(f"{name} cannot be read: {exc}")
        return False
    if pf.metadata.num_rows != entry["rows"].get(table):
        problem(
            f"{name} has {pf.metadata.num_rows} rows, the manifest says {entry['rows'].get(table)}"
        )
    if not pf.schema_arrow.equals(schema):
        problem(f"{name} has schema {pf.schema_arrow}, expected {schema}")
    start, stop = span
    if len(ids) and (pc.min(ids).as_py() < start or pc.max(ids).as_py() >= stop):
        problem(f"{name} holds game ids outside {start}..{stop - 1}")
    if table != "games":
        return False
    unique = pc.count_distinct(ids).as_py()
    if len(ids) != stop - start or unique != stop - start:
        problem(
            f"{name} holds {len(ids)} rows for {unique} distinct games; expected "
            f"each of {start}..{stop - 1} once"
        )
        return False
    return True


def _check_leftovers(
    root: RunStore, manifest: dict, declared: dict[str, pa.Schema], problem: Problem
) -> None:
    """Report temporary files an interrupted run left, and missing or changed data files."""
    strays = [f"{t}/{n}" for t in declared for n in root.listdir(t) if n.startswith(TMP_PREFIX)]
    if strays:
        problem(
            f"{len(strays)} temporary file(s) left by an interrupted run, e.g. {strays[0]} "
            "(dinolab simulate ... --resume removes them)"
        )
    for name, digest in manifest["data"]["files"].items():
        if not root.exists(name) or hashlib.sha256(root.read_bytes(name)).hexdigest() != digest:
            problem(f"data file {name} is missing or changed")
