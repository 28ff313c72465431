"""``manifest.json``: what a run is, how far it got, and what each chunk wrote.

It is rewritten atomically (temporary file + rename) after every finished chunk, so after a
crash it lists exactly the chunks whose files are complete.
"""

from __future__ import annotations

import datetime as _dt
import json
import platform
from pathlib import Path
from typing import Any

from rules.core.errors import DinolabError
from simulate.config import RunConfig
from simulate.games.base import Setup
from simulate.parquet import write_atomic

SCHEMA_VERSION = 1
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
    manifest["updated"] = _now()
    text = json.dumps(manifest, indent=1, sort_keys=False)
    write_atomic(run_dir / MANIFEST, text.encode())


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
    return manifest


def run_config(manifest: dict[str, Any]) -> RunConfig:
    return RunConfig.from_dict(manifest["config"])
