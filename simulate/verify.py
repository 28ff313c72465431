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
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from simulate.games import get_game
from simulate.manifest import read_manifest, run_config
from simulate.parquet import part_name
from simulate.storage import TMP_PREFIX, RunStore, open_store


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
    logged = manifest.get("log_schema")
    if logged is None:
        report.checked.append("log schema: not recorded (a run made before schema versions)")
    elif logged != game.schema:
        problem(
            f"the run's log schema (version {logged.get('version')}, {logged.get('digest')}) is "
            f"not this dinolab's {config.game} schema (version {game.schema_version}, "
            f"{game.schema['digest']}): its tables were written by another release"
        )
    else:
        report.checked.append(f"log schema version {game.schema_version} ({logged['digest']})")
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
    seen_games = 0
    for index in sorted(set(listed) & set(chunks), key=int):
        start, stop = chunks[index]
        entry = listed[index]
        if (entry.get("start"), entry.get("stop")) != (start, stop):
            problem(
                f"chunk {index} covers {entry.get('start')}..{entry.get('stop')}, "
                f"the configuration says {start}..{stop}"
            )
        for table, schema in declared.items():
            name = f"{table}/{part_name(int(index))}"
            if not root.exists(name):
                problem(f"{name} is missing")
                continue
            data = root.read_bytes(name)
            if hashlib.sha256(data).hexdigest() != entry["sha256"].get(table):
                problem(f"{name} does not match its recorded checksum")
                continue
            try:
                pf = pq.ParquetFile(io.BytesIO(data))
                ids = pf.read(columns=["game_id"])["game_id"]
            except Exception as exc:  # a damaged file, whatever pyarrow says about it
                problem(f"{name} cannot be read: {exc}")
                continue
            if pf.metadata.num_rows != entry["rows"].get(table):
                problem(
                    f"{name} has {pf.metadata.num_rows} rows, the manifest says "
                    f"{entry['rows'].get(table)}"
                )
            if not pf.schema_arrow.equals(schema):
                problem(f"{name} has schema {pf.schema_arrow}, expected {schema}")
            if len(ids) and (pc.min(ids).as_py() < start or pc.max(ids).as_py() >= stop):
                problem(f"{name} holds game ids outside {start}..{stop - 1}")
            if table == "games":
                unique = pc.count_distinct(ids).as_py()
                if len(ids) != stop - start or unique != stop - start:
                    problem(
                        f"{name} holds {len(ids)} rows for {unique} distinct games; expected "
                        f"each of {start}..{stop - 1} once"
                    )
                else:
                    seen_games += stop - start
    report.checked.append(
        f"{len(set(listed) & set(chunks))} chunks x {len(declared)} tables: files, checksums, "
        "row counts, schemas, game-id ranges"
    )
    report.checked.append(f"{seen_games:,} of {config.games:,} games present exactly once")
    strays = [f"{t}/{n}" for t in declared for n in root.listdir(t) if n.startswith(TMP_PREFIX)]
    if strays:
        problem(
            f"{len(strays)} temporary file(s) left by an interrupted run, e.g. {strays[0]} "
            "(dinolab simulate ... --resume removes them)"
        )
    for name, digest in manifest["data"]["files"].items():
        if not root.exists(name) or hashlib.sha256(root.read_bytes(name)).hexdigest() != digest:
            problem(f"data file {name} is missing or changed")
    return report
