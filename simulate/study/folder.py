"""A study's folder: its record (``study.json``), and what ``--resume`` and ``--force`` may do.

The record holds everything that decides the study's games (game, rules, knobs, points or
search space, seeds, games, lineup, tables, metrics) and a fingerprint of it. The same command
with ``--resume`` finishes a study only when the fingerprints agree (the differences are
named otherwise); ``--force`` replaces a study of the same kind, never a folder that holds
something else. Nothing is written before every check has passed.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from rules.core.errors import DinolabError
from simulate.storage import RunStore, open_store

RECORD = "study.json"
METRICS = "metrics.json"
"""What a study's workers measured of one of its runs, in that run's folder."""


def fingerprint(record: dict[str, Any]) -> str:
    """A digest of what decides a study's games (its ``settings``)."""
    text = json.dumps(record["settings"], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def read_record(store: RunStore) -> dict[str, Any]:
    """A study folder's record; one line when it is missing or damaged."""
    if not store.exists(RECORD):
        raise DinolabError(f"{store} holds no dinolab study ({RECORD})")
    try:
        record = json.loads(store.read_bytes(RECORD))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise DinolabError(f"{store}/{RECORD} is damaged: {exc}") from None
    if not isinstance(record, dict) or "tool" not in record or "settings" not in record:
        raise DinolabError(f"{store}/{RECORD} is not a dinolab study record")
    return record


def write_record(store: RunStore, record: dict[str, Any]) -> None:
    record["fingerprint"] = fingerprint(record)
    store.write_bytes(RECORD, (json.dumps(record, indent=1, ensure_ascii=False) + "\n").encode())


def _differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    a, b = json.loads(json.dumps(a)), json.loads(json.dumps(b))  # tuples and lists alike
    out = []
    for key in dict.fromkeys([*a, *b]):
        if a.get(key) != b.get(key):
            out.append(f"{key}: {json.dumps(b.get(key))} -> {json.dumps(a.get(key))}")
    return out


def check_folder(out: str, record: dict[str, Any], *, resume: bool, force: bool) -> str:
    """What to do with the study folder ``out``, touching nothing: 'new', 'resume' or
    'replace'. ``record``: the study about to run."""
    store = open_store(out)
    tool = record["tool"]
    if resume and force:
        raise DinolabError("--resume and --force contradict each other; choose one")
    if store.exists() and not store.is_dir():
        raise DinolabError(f"--out {store} exists and is not a directory")
    if store.is_empty():  # --resume too: a study killed before its first file starts afresh
        return "new"
    if not store.exists(RECORD):
        raise DinolabError(
            f"--out {store} is not empty and holds no dinolab study; choose a new folder"
        )
    previous = read_record(store)
    if previous["tool"] != tool:
        raise DinolabError(
            f"--out {store} holds a study made by {previous['tool']}, not {tool}; choose "
            "another folder"
        )
    if force:
        return "replace"
    if not resume:
        raise DinolabError(
            f"{store} holds a study already; use --resume to finish it or --force to replace it"
        )
    if previous.get("fingerprint") != fingerprint(record):
        diff = "; ".join(_differences(record["settings"], previous["settings"]))
        raise DinolabError(f"{store} holds a study made with other settings ({diff})")
    return "resume"


def clear(store: RunStore, names: list[str]) -> None:
    """Remove a replaced study's files and folders (``names``), then its record."""
    for name in names:
        store.remove(name)
    store.remove(RECORD)


def folder_name(text: str, limit: int = 90) -> str:
    """``text`` as a folder name (letters, digits and ``_.,=+-``, at most ``limit`` long)."""
    return re.sub(r"[^A-Za-z0-9_.,=+-]", "_", text)[:limit].rstrip(",_")


def read_study(
    where: str | RunStore, tool: str, noun: str, items: str, subdir: str, key: str
) -> tuple[dict[str, Any], list[tuple[dict, Any, dict]]]:
    """A finished study folder made by ``tool``: its record and, for each entry of the
    record's ``items`` list (in order), the entry, its run (``subdir/<entry[key]>``, a
    :class:`~simulate.rundir.Run`) and what was measured of it. A study of another tool or an
    unfinished run is refused in one line (``noun``: what the study is called there)."""
    from simulate.manifest import read_manifest
    from simulate.rundir import Run

    store = open_store(where)
    record = read_record(store)
    if record["tool"] != tool:
        raise DinolabError(f"{store} holds a study made by {record['tool']}, not {noun}")
    out = []
    for item in record[items]:
        child = store.child(f"{subdir}/{item[key]}")
        if not child.exists(METRICS) or read_manifest(child).get("status") != "complete":
            raise DinolabError(
                f"{child} is not finished; run the same {tool} command with --resume"
            )
        out.append((item, Run(child), json.loads(child.read_bytes(METRICS))["metrics"]))
    return record, out
