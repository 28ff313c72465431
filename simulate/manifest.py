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
import platform
from pathlib import Path
from typing import Any

from rules.core.errors import DinolabError
from simulate.config import RunConfig
from simulate.kit.spec import Setup
from simulate.storage import RunStore, open_store

SCHEMA_VERSION = 2
"""Version of the manifest's own format (2 added ``log_schema``); the log tables' schema has
its own version per game (``log_schema``, from the game's spec)."""
READABLE_VERSIONS = (1, 2)
MANIFEST = "manifest.json"


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
    written = {t.name for t in game.written_tables(config.tables)}
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
        "data": {"description": setup.describe_data(), "files": data_files},
        "strategies": {
            s.label: {"name": s.info.name, "doc": s.info.doc, "params": list(s.values)}
            for s in setup.lineup
        },
        "log_schema": game.schema,
        "tables": {t.name: t.to_dict(written) for t in game.written_tables(config.tables)},
        "chunks": {},
    }


def write_manifest(store: RunStore, manifest: dict[str, Any]) -> None:
    """Rewrite the whole manifest (at the start and the end of a run)."""
    manifest["updated"] = _now()
    text = json.dumps(manifest, indent=1, sort_keys=False)
    store.write_bytes(MANIFEST, text.encode())


def record_chunk(store: RunStore, index: int, entry: dict[str, Any]) -> None:
    """Add a finished chunk to the journal (durably) after its files are in place."""
    store.append_journal(index, json.dumps({"chunk": index, **entry}, separators=(",", ":")))


def _journal(store: RunStore) -> dict[str, dict[str, Any]]:
    chunks: dict[str, dict[str, Any]] = {}
    for line in store.journal_lines():
        try:
            entry = json.loads(line)
            index = entry.pop("chunk")
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
            continue  # a line torn by a crash: its chunk is redone
        chunks[str(index)] = entry
    return chunks


def read_manifest(run_dir: str | Path | RunStore) -> dict[str, Any]:
    """The manifest of a run (journal merged); a clear error when there is none or it is
    damaged."""
    store = open_store(run_dir)
    path = f"{store.url}/{MANIFEST}"
    if not store.exists(MANIFEST):
        raise DinolabError(f"{store.url} is not a dinolab run (no {MANIFEST})")
    try:
        manifest = json.loads(store.read_bytes(MANIFEST))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DinolabError(f"{path} is damaged: {exc}") from None
    if manifest.get("tool") != "dinolab" or "config" not in manifest:
        raise DinolabError(f"{path} is not a dinolab manifest")
    version = manifest.get("schema_version")
    if version not in READABLE_VERSIONS:
        readable = ", ".join(map(str, READABLE_VERSIONS))
        raise DinolabError(
            f"{path} has manifest version {version}; this dinolab reads versions {readable}"
        )
    manifest["chunks"].update(_journal(store))
    return manifest


def run_config(manifest: dict[str, Any]) -> RunConfig:
    return RunConfig.from_dict(manifest["config"])
