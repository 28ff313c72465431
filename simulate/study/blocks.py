"""A search's seed blocks as the workers measured them: joined from chunks, kept on disk (the
per-cluster sums of :class:`reports.measure.Features`, as ``.npz``) so a resumed search reads
them back instead of playing them again."""

from __future__ import annotations

import dataclasses
import importlib
import io
from collections.abc import Sequence
from typing import Any

import numpy as np


def join(parts: Sequence[Any]) -> Any:
    """The per-cluster sums of a block's chunks as one (chunks hold different games)."""
    first = parts[0]
    return dataclasses.replace(
        first,
        clusters=np.concatenate([p.clusters for p in parts]),
        sums=np.vstack([p.sums for p in parts]),
        games=np.concatenate([p.games for p in parts]),
    )


def save(f: Any) -> bytes:
    buf = io.BytesIO()
    np.savez(
        buf,
        names=np.array(f.names),
        clusters=f.clusters,
        sums=f.sums,
        games=f.games,
        kind=np.array([type(f).__module__, type(f).__qualname__]),
    )
    return buf.getvalue()


def load(data: bytes) -> Any:
    z = np.load(io.BytesIO(data), allow_pickle=False)
    module, name = (str(x) for x in z["kind"])
    cls = getattr(importlib.import_module(module), name)
    return cls(tuple(str(n) for n in z["names"]), z["clusters"], z["sums"], z["games"])
