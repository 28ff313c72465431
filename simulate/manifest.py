"""``manifest.json``: what a run is, how far it got, and what each chunk wrote.

The manifest is written atomically (temporary file + rename) when a run starts and when it
ends. In between, each finished chunk appends one line to ``chunks.jsonl``, flushed to disk
*after* the chunk's files are in place: a run of a billion games in a hundred thousand chunks
then costs one short append per chunk, not a rewrite of an ever-growing manifest. A line torn
by a crash is ignored (its chunk is simply redone). :func:`read_manifest` merges the journal,
so every reader sees one ``manifest["chunks"]``; a finished run's manifest lists them all.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
from pathlib import Path
from typing import Any

from rules.core.errors import DinolabError
from simulate.config import RunConfig
from simulate.games.base import Setup
from simulate.parquet import write_atomic

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"
JOURNAL = "chunks.jsonl"


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _versions() -> dict[str, str]:
    import numba
    import numpy
    import pyarrow

    from simulate import __version__

    return {
        "dinolab": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "numba": numba.__version__,
        "pyarrow": pyarrow.__version__,
        "platform": platform.platform(),
    }


def new_manifest(config: RunConfig, setup: Setup, data_files: dict[str, str]) -> dict[str, Any]:
    """The manifest of a run about to start."""
    game = setup.game
    return {
        "tool": "dinolab",
        "schema_version": SCHEMA_VERSION,
        "created": _now(),
        "updated": _now(),
        "status": "running",
        "versions": _versions(),
        "config": config.to_dict(),
        "fingerprint": config.fingerprint(),
        "game_title": game.title,
        "data": {"description": game.describe_data(setup), "files": data_files},
        "strategies": {
            s.label: {"name": s.info.name, "doc": s.info.doc, "params": list(s.values)}
            for s in setup.lineup
        },
        "tables": {
            t.name: {
                "doc": t.doc,
                "columns": [{"name": c.name, "type": str(c.type), "doc": c.doc} for c in t.columns],
            }
            for t in game.tables
        },
        "chunks": {},
    }


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> None:
    """Rewrite the whole manifest (at the start and the end of a run)."""
    manifest["updated"] = _now()
    text = json.dumps(manifest, indent=1, sort_keys=False)
    write_atomic(run_dir / MANIFEST, text.encode())


def record_chunk(run_dir: Path, index: int, entry: dict[str, Any]) -> None:
    """Append a finished chunk to the journal and flush it to disk."""
    line = json.dumps({"chunk": index, **entry}, separators=(",", ":")) + "\n"
    with open(Path(run_dir) / JOURNAL, "a", encoding="utf-8") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def _journal(run_dir: Path) -> dict[str, dict[str, Any]]:
    path = Path(run_dir) / JOURNAL
    chunks: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return chunks
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
            index = entry.pop("chunk")
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
            continue  # a line torn by a crash: its chunk is redone
        chunks[str(index)] = entry
    return chunks


def read_manifest(run_dir: Path) -> dict[str, Any]:
    """The manifest of ``run_dir``; a clear error when there is none or it is damaged."""
    path = Path(run_dir) / MANIFEST
    if not path.is_file():
        raise DinolabError(f"{run_dir} is not a dinolab run (no {MANIFEST})")
    try:
        manifest = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DinolabError(f"{path} is damaged: {exc}") from None
    if manifest.get("tool") != "dinolab" or "config" not in manifest:
        raise DinolabError(f"{path} is not a dinolab manifest")
    version = manifest.get("schema_version")
    if version != SCHEMA_VERSION:
        raise DinolabError(
            f"{path} has schema version {version}; this dinolab reads version {SCHEMA_VERSION}"
        )
    manifest["chunks"].update(_journal(Path(run_dir)))
    return manifest


def run_config(manifest: dict[str, Any]) -> RunConfig:
    return RunConfig.from_dict(manifest["config"])
