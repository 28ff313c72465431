"""Kernel buffers to Arrow arrays without copies (and without pyarrow importing pandas).

``pa.array(numpy_array)`` goes through pyarrow's pandas shim, which imports pandas in every
worker (half a second and ~50 MB each). Integer buffers are wrapped as they are; booleans are
bit-packed as Arrow stores them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

NUMPY_OF = {
    pa.int8(): np.int8,
    pa.int16(): np.int16,
    pa.int32(): np.int32,
    pa.int64(): np.int64,
    pa.uint8(): np.uint8,
    pa.float32(): np.float32,
    pa.float64(): np.float64,
    pa.bool_(): np.bool_,
}
"""The numpy type of a kernel buffer for each Arrow type a column may have."""


def to_arrow(values: np.ndarray | Sequence[Any], type: pa.DataType) -> pa.Array:
    """An Arrow array of ``type`` over ``values`` (1-D, no nulls; a list is converted first)."""
    n = len(values)
    if type == pa.bool_():
        bits = np.packbits(np.asarray(values, dtype=np.bool_), bitorder="little")
        return pa.Array.from_buffers(type, n, [None, pa.py_buffer(bits)])
    want = NUMPY_OF.get(type)
    if want is None:
        raise TypeError(f"no zero-copy conversion to {type}")
    data = np.ascontiguousarray(values, dtype=want)
    return pa.Array.from_buffers(type, n, [None, pa.py_buffer(data)])


def strings(labels: list[str]) -> pa.Array:
    """A string array (``pa.array(list)`` would import pandas)."""
    encoded = [x.encode() for x in labels]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    offsets[1:] = np.cumsum([len(b) for b in encoded])
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(encoded), buffers)


def dictionary(codes: np.ndarray, labels: list[str]) -> pa.DictionaryArray:
    """A dictionary-encoded string column: int8 ``codes`` into ``labels``."""
    return pa.DictionaryArray.from_arrays(to_arrow(codes, pa.int8()), strings(labels))
