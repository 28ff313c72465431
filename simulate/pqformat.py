"""A Parquet file written straight from the kernel's column buffers: compiled encoders, no
Python loop over rows, no hashing.

pyarrow's writer dictionary-encodes a column by hashing every value, widens int8 to Parquet's
INT32 before compressing, and has a floor of about 13 ms for a 2.2-million-row column; Dino
Kontra Dino's kernel plays the 50,000 games of those rows in about 90 ms. Here a column of small
integers is dictionary-encoded without hashing: its dictionary is the range of its values
(``lo .. hi``), a value's index is ``value - lo``, and the indices are written in Parquet's
RLE/bit-packing hybrid by one compiled pass, with runs as RLE runs (a per-round value repeated
for each seat costs two bytes a round). ``game_id`` (an int64 key, sorted) is
DELTA_BINARY_PACKED; booleans are Arrow's bitmap as it is (Parquet's PLAIN booleans); floats and
wide integers PLAIN; category columns their labels and int8 codes; lists of labels (a player's
team, the cards they saw) Parquet's three-level LIST of dictionary-encoded strings, with levels
built by array operations. Each column is one page, zstd-compressed unless zstd saves too little
(then stored plain: a random 6-bit card id does not compress). Every column is OPTIONAL with no
nulls, and the file carries the Arrow schema, so pyarrow, pandas, polars and DuckDB read the
types they read from pyarrow's files. Tables with other columns (nulls, lists of other types)
return ``None``: the caller writes them with pyarrow.

Metadata is Thrift's compact protocol, written by :class:`Thrift` for the few structures a
file needs (``parquet.thrift``: FileMetaData, SchemaElement, RowGroup, ColumnChunk,
ColumnMetaData, Statistics, PageHeader).
"""

from __future__ import annotations

import base64
import struct

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

ZSTD_LEVEL = 1
"""Chosen by measurement (``docs/benchmarks.md``, *The log writer*): levels 2-3 saved under 1%
of the bytes for 10-40% more encoding time."""
KEEP_IF_SAVED = 0.9
"""A column is stored compressed only when zstd leaves at most this share of its bytes."""
BLOCK, MINIBLOCKS = 128, 4
"""DELTA_BINARY_PACKED: values per block, miniblocks per block."""

# parquet.thrift enums
BOOLEAN, INT32, INT64, FLOAT, DOUBLE, BYTE_ARRAY = 0, 1, 2, 4, 5, 6
PLAIN, RLE, DELTA_BINARY_PACKED, RLE_DICTIONARY = 0, 3, 5, 8
UNCOMPRESSED, ZSTD = 0, 6
DATA_PAGE, DICTIONARY_PAGE = 0, 2
OPTIONAL, REPEATED = 1, 2
UTF8, LIST, UINT_8, UINT_16, INT_8, INT_16, INT_32 = 0, 3, 11, 12, 15, 16, 17
CONVERTED = {(8, True): INT_8, (16, True): INT_16, (32, True): INT_32, (8, False): UINT_8}

# thrift compact protocol types
T_TRUE, T_FALSE, T_BYTE, T_I32, T_I64, T_BINARY, T_LIST, T_STRUCT = 1, 2, 3, 5, 6, 8, 9, 12


class Thrift:
    """Thrift compact protocol, write only: ``struct`` takes ``(field id, type, value)``
    triples (``None`` values skipped); a struct value is itself a list of triples, a list
    value a ``(element type, items)`` pair."""

    def __init__(self) -> None:
        self.out = bytearray()

    def varint(self, n: int) -> None:
        while n >= 0x80:
            self.out.append((n & 0x7F) | 0x80)
            n >>= 7
        self.out.append(n)

    def zigzag(self, n: int) -> None:
        self.varint((n << 1) ^ (n >> 63))

    def value(self, kind: int, v) -> None:
        if kind in (T_BYTE,):
            self.out.append(v & 0xFF)
        elif kind in (T_I32, T_I64):
            self.zigzag(v)
        elif kind == T_BINARY:
            data = v.encode() if isinstance(v, str) else bytes(v)
            self.varint(len(data))
            self.out += data
        elif kind == T_STRUCT:
            self.struct(v)
        elif kind == T_LIST:
            element, items = v
            if len(items) < 15:
                self.out.append((len(items) << 4) | element)
            else:
                self.out.append(0xF0 | element)
                self.varint(len(items))
            for item in items:
                self.value(element, item)
        else:
            raise TypeError(f"thrift type {kind}")

    def struct(self, fields) -> None:
        last = 0
        for fid, kind, v in fields:
            if v is None:
                continue
            if kind == T_TRUE:  # a bool field: its value is the type nibble
                kind = T_TRUE if v else T_FALSE
            if 0 < fid - last <= 15:
                self.out.append(((fid - last) << 4) | kind)
            else:
                self.out.append(kind)
                self.zigzag(fid)
            if kind not in (T_TRUE, T_FALSE):
                self.value(kind, v)
            last = fid
        self.out.append(0)


def thrift(fields) -> bytes:
    """A Thrift struct's bytes."""
    t = Thrift()
    t.struct(fields)
    return bytes(t.out)


def _bit_width(n: int) -> int:
    """Bits of a bit-packed value for indices up to ``n``: 1, 2, 4 or 8 (a page may use more
    bits than its values need; whole nibbles and bytes pack without a loop and compress
    better)."""
    need = max(int(n).bit_length(), 1)
    return next(w for w in (1, 2, 4, 8) if w >= need)


def bit_pack(idx: np.ndarray, width: int) -> np.ndarray:
    """uint8 ``idx`` bit-packed ``width`` (1, 2, 4, 8) bits a value, first value in the low
    bits, padded with zeros to whole groups of 8 (Parquet's bit-packed run)."""
    pad = -len(idx) % 8
    if pad:
        idx = np.concatenate([idx, np.zeros(pad, np.uint8)])
    if width == 8:
        return idx
    if width == 1:
        return np.packbits(idx, bitorder="little")
    per = 8 // width
    out = idx[0::per].copy()
    for k in range(1, per):
        out |= idx[k::per] << np.uint8(k * width)
    return out


def _varint(n: int) -> bytes:
    t = Thrift()
    t.varint(n)
    return bytes(t.out)


def bit_packed_run(idx: np.ndarray, width: int) -> bytes:
    """A dictionary page's indices: the bit width, then one bit-packed run of every value."""
    return bytes([width]) + _varint((-(-len(idx) // 8) << 1) | 1) + bit_pack(idx, width).tobytes()


def delta_binary_packed(values: np.ndarray) -> bytes:
    """Sorted int64 ``values`` DELTA_BINARY_PACKED: minimum delta 0 and one bit width (1, 2,
    4 or 8 bits, else 16, 32 or 64: whole bytes) for every miniblock, so the blocks are built
    with array operations."""
    n = len(values)
    first = int(values[0]) if n else 0
    head = _varint(BLOCK) + _varint(MINIBLOCKS) + _varint(n) + _varint((first << 1) ^ (first >> 63))
    if n < 2:
        return head
    deltas = np.diff(values)  # sorted keys (the caller checks): 0 is a valid minimum delta
    least = 0
    need = int(deltas.max()).bit_length()
    width = next(w for w in (1, 2, 4, 8, 16, 32, 64) if w >= need)
    per_mini = BLOCK // MINIBLOCKS
    minis = -(-len(deltas) // per_mini)
    blocks = -(-minis // MINIBLOCKS)
    padded = np.zeros(blocks * BLOCK, np.uint8 if width <= 8 else f"<u{width // 8}")
    padded[: len(deltas)] = deltas
    body = bit_pack(padded, width) if width <= 8 else padded.view(np.uint8)
    block_head = np.frombuffer(
        _varint((least << 1) ^ (least >> 63)) + bytes([width]) * MINIBLOCKS, np.uint8
    )
    rows = np.hstack(
        [np.broadcast_to(block_head, (blocks, len(block_head))), body.reshape(blocks, -1)]
    ).ravel()
    unused = (blocks * MINIBLOCKS - minis) * per_mini * width // 8  # the last block's empty
    return head + rows[: len(rows) - unused].tobytes()  # miniblocks have no body


class Page:
    """A column's pages: its encoding, bytes before compression, and statistics; a list
    column's also its levels and how many there are (one per string and per empty list)."""

    def __init__(
        self, kind, encoding, data, dictionary=None, n_dict=0, lo=None, hi=None, levels=None, n=0
    ):
        self.kind, self.encoding, self.data = kind, encoding, data
        self.dictionary, self.n_dict, self.lo, self.hi = dictionary, n_dict, lo, hi
        self.levels, self.n_levels = levels, n


def _levels(levels: np.ndarray, width: int) -> bytes:
    """Repetition or definition levels (uint8) in the RLE/bit-packing hybrid with v1's length
    prefix: one RLE run when they are all the same, else one bit-packed run."""
    if len(levels) and not np.any(levels != levels[0]):
        body = _varint(len(levels) << 1) + bytes([int(levels[0])])
    else:
        body = _varint((-(-len(levels) // 8) << 1) | 1) + bit_pack(levels, width).tobytes()
    return struct.pack("<I", len(body)) + body


def _definition_levels(n: int) -> bytes:
    """Every value of a flat column present: one RLE run of level 1, with v1's length prefix."""
    body = _varint(n << 1) + b"\x01"
    return struct.pack("<I", len(body)) + body


def _integers(values: np.ndarray, kind: int) -> Page:
    """An integer column: its value range as the dictionary when it spans at most 256 values,
    else PLAIN."""
    lo, hi = (int(values.min()), int(values.max())) if len(values) else (0, 0)
    fmt = "<i" if kind == INT32 else "<q"
    stats = {"lo": struct.pack(fmt, lo), "hi": struct.pack(fmt, hi)}
    numpy_type = np.int32 if kind == INT32 else np.int64
    if hi - lo < 256:
        idx = (values - lo).astype(np.uint8) if lo else values.astype(np.uint8, copy=False)
        dictionary = np.arange(lo, hi + 1, dtype=numpy_type).tobytes()
        data = bit_packed_run(idx, _bit_width(hi - lo))
        return Page(kind, RLE_DICTIONARY, data, dictionary, hi - lo + 1, **stats)
    return Page(kind, PLAIN, np.ascontiguousarray(values, numpy_type).tobytes(), **stats)


def _keys(values: np.ndarray) -> Page:
    """A sorted int64 key (``game_id``): DELTA_BINARY_PACKED."""
    lo, hi = (int(values[0]), int(values[-1])) if len(values) else (0, 0)
    return Page(
        INT64,
        DELTA_BINARY_PACKED,
        delta_binary_packed(values),
        lo=struct.pack("<q", lo),
        hi=struct.pack("<q", hi),
    )


def _labels(array: pa.DictionaryArray) -> Page:
    """A category column: its labels as the dictionary, its int8 codes as the indices."""
    codes = np.frombuffer(array.indices.buffers()[1], np.uint8, len(array), array.offset)
    labels = [x.encode() for x in array.dictionary.to_pylist()]
    dictionary = b"".join(struct.pack("<I", len(x)) + x for x in labels)
    data = bit_packed_run(codes, _bit_width(len(labels) - 1))
    return Page(BYTE_ARRAY, RLE_DICTIONARY, data, dictionary, len(labels))


def _string_lists(array: pa.ListArray) -> Page | None:
    """A list-of-strings column as Parquet's LIST (``<name>.list.element``): its strings
    dictionary-encoded in the order first seen; a string's repetition level is 0 when it
    starts its row's list, else 1, its definition level 3 (an empty list: one level 1)."""
    values = array.flatten()
    if array.offset or values.null_count:
        return None
    offsets = np.frombuffer(array.buffers()[1], np.int32, len(array) + 1)
    lengths = np.diff(offsets)
    entries = np.maximum(lengths, 1)
    starts = np.cumsum(entries) - entries
    repetition = np.ones(int(entries.sum()), np.uint8)
    repetition[starts] = 0
    definition = np.full(len(repetition), 3, np.uint8)
    definition[starts[lengths == 0]] = 1
    levels = {"levels": _levels(repetition, 1) + _levels(definition, 2), "n": len(repetition)}
    if not len(values):
        return Page(BYTE_ARRAY, PLAIN, b"", **levels)
    encoded = pc.dictionary_encode(values)
    labels = [x.encode() for x in encoded.dictionary.to_pylist()]
    if len(labels) > 256:
        return None
    indices = encoded.indices  # not to_numpy(), which imports pandas (0.14 s of a worker)
    codes = np.frombuffer(indices.buffers()[1], np.int32, len(indices), indices.offset)
    codes = codes.astype(np.uint8)
    data = bit_packed_run(codes, _bit_width(len(labels) - 1))
    dictionary = b"".join(struct.pack("<I", len(x)) + x for x in labels)
    return Page(BYTE_ARRAY, RLE_DICTIONARY, data, dictionary, len(labels), **levels)


def _page(array: pa.Array, key: bool) -> Page | None:
    """How one column is stored (``None``: a type this writer does not handle)."""
    t = array.type
    if array.null_count:
        return None
    if pa.types.is_dictionary(t) and t.index_type == pa.int8() and t.value_type == pa.string():
        return _labels(array)
    if pa.types.is_list(t) and t.value_type == pa.string():
        return _string_lists(array)
    if t == pa.bool_():
        if array.offset:
            return None
        bits = np.frombuffer(array.buffers()[1], np.uint8, (len(array) + 7) // 8)
        return Page(BOOLEAN, PLAIN, bits.tobytes())
    numpy_type = {
        pa.int8(): np.int8,
        pa.int16(): np.int16,
        pa.int32(): np.int32,
        pa.uint8(): np.uint8,
        pa.int64(): np.int64,
        pa.float32(): np.float32,
        pa.float64(): np.float64,
    }.get(t)
    if numpy_type is None:
        return None
    values = np.frombuffer(array.buffers()[1], numpy_type, len(array), array.offset)
    if t == pa.int64() and key and len(values) and bool(np.all(values[1:] >= values[:-1])):
        return _keys(values)
    if pa.types.is_floating(t):
        kind = FLOAT if t == pa.float32() else DOUBLE
        return Page(kind, PLAIN, values.tobytes())
    return _integers(values, INT64 if t == pa.int64() else INT32)


def _schema_elements(field: pa.Field, page: Page) -> list:
    """A column's SchemaElements: one, or a list's group, its repeated group and element."""
    if page.levels is None:
        return [_schema_element(field.name, field.type, page)]
    return [
        [
            (3, T_I32, OPTIONAL),
            (4, T_BINARY, field.name),
            (5, T_I32, 1),
            (6, T_I32, LIST),
            (10, T_STRUCT, [(3, T_STRUCT, [])]),
        ],
        [(3, T_I32, REPEATED), (4, T_BINARY, "list"), (5, T_I32, 1)],
        _schema_element("element", field.type.value_type, page),
    ]


def _schema_element(name: str, t: pa.DataType, page: Page):
    converted = logical = None
    if page.kind == BYTE_ARRAY:
        converted, logical = UTF8, [(1, T_STRUCT, [])]
    elif pa.types.is_integer(t) and t != pa.int64():
        signed = pa.types.is_signed_integer(t)
        converted = CONVERTED[(t.bit_width, signed)]
        logical = [(10, T_STRUCT, [(1, T_BYTE, t.bit_width), (2, T_TRUE, signed)])]
    return [
        (1, T_I32, page.kind),
        (3, T_I32, OPTIONAL),
        (4, T_BINARY, name),
        (6, T_I32, converted),
        (10, T_STRUCT, logical),
    ]


def _page_header(kind: int, raw: int, stored: int, header) -> bytes:
    field = 7 if kind == DICTIONARY_PAGE else 5
    return thrift(
        [(1, T_I32, kind), (2, T_I32, raw), (3, T_I32, stored), (field, T_STRUCT, header)]
    )


def _column_chunk(name: str, page: Page, n: int, codec: pa.Codec, offset: int):
    """A column chunk's bytes (dictionary page, data page) at file ``offset``, and its
    ColumnMetaData. The chunk is zstd-compressed when that keeps at most
    :data:`KEEP_IF_SAVED` of its data page, else stored plain."""
    if page.levels is not None:
        n, path, body = page.n_levels, [name, "list", "element"], page.levels + page.data
    else:
        path, body = [name], _definition_levels(n) + page.data
    packed = codec.compress(body, asbytes=True)
    compressed = len(packed) <= KEEP_IF_SAVED * len(body)
    if not compressed:
        packed = body
    parts, raw, dictionary_offset = [], 0, None
    if page.dictionary is not None:
        d = codec.compress(page.dictionary, asbytes=True) if compressed else page.dictionary
        header = _page_header(
            DICTIONARY_PAGE,
            len(page.dictionary),
            len(d),
            [(1, T_I32, page.n_dict), (2, T_I32, PLAIN)],
        )
        parts += [header, d]
        raw += len(header) + len(page.dictionary)
        dictionary_offset = offset
    data_offset = offset + sum(map(len, parts))
    levels = [(1, T_I32, n), (2, T_I32, page.encoding), (3, T_I32, RLE), (4, T_I32, RLE)]
    header = _page_header(DATA_PAGE, len(body), len(packed), levels)
    parts += [header, packed]
    raw += len(header) + len(body)
    encodings = {RLE, page.encoding} | ({PLAIN} if page.dictionary is not None else set())
    stats = None
    if page.lo is not None:
        stats = [(3, T_I64, 0), (5, T_BINARY, page.hi), (6, T_BINARY, page.lo)]
    meta = [
        (1, T_I32, page.kind),
        (2, T_LIST, (T_I32, sorted(encodings))),
        (3, T_LIST, (T_BINARY, path)),
        (4, T_I32, ZSTD if compressed else UNCOMPRESSED),
        (5, T_I64, n),
        (6, T_I64, raw),
        (7, T_I64, sum(map(len, parts))),
        (9, T_I64, data_offset),
        (11, T_I64, dictionary_offset),
        (12, T_STRUCT, stats),
    ]
    return parts, meta, raw


def encode_table(table: pa.Table, keys: tuple[str, ...] = ("game_id",)) -> bytes | None:
    """``table`` as the bytes of one Parquet file (one row group, a page per column), or
    ``None`` when a column has a type or nulls this writer does not handle. ``keys``: the
    int64 columns to delta-encode when sorted."""
    table = table.combine_chunks()
    pages = []
    for field, column in zip(table.schema, table.columns, strict=True):
        array = column.chunk(0) if column.num_chunks else pa.array([], field.type)
        page = _page(array, field.name in keys)
        if page is None:
            return None
        pages.append(page)
    n = table.num_rows
    codec = pa.Codec("zstd", compression_level=ZSTD_LEVEL)
    parts, chunks, offset, raw = [b"PAR1"], [], 4, 0
    for field, page in zip(table.schema, pages, strict=True):
        written, meta, size = _column_chunk(field.name, page, n, codec, offset)
        chunks.append([(2, T_I64, offset), (3, T_STRUCT, meta)])
        parts += written
        offset += sum(map(len, written))
        raw += size
    row_group = [
        (1, T_LIST, (T_STRUCT, chunks)),
        (2, T_I64, raw),
        (3, T_I64, n),
        (5, T_I64, 4),
        (6, T_I64, offset - 4),
    ]
    schema = [[(4, T_BINARY, "schema"), (5, T_I32, len(pages))]]
    schema += [e for f, p in zip(table.schema, pages, strict=True) for e in _schema_elements(f, p)]
    arrow_schema = base64.b64encode(table.schema.serialize().to_pybytes())
    footer = thrift(
        [
            (1, T_I32, 2),
            (2, T_LIST, (T_STRUCT, schema)),
            (3, T_I64, n),
            (4, T_LIST, (T_STRUCT, [row_group])),
            (5, T_LIST, (T_STRUCT, [[(1, T_BINARY, "ARROW:schema"), (2, T_BINARY, arrow_schema)]])),
            (6, T_BINARY, "dinolab (simulate.pqformat)"),
            (7, T_LIST, (T_STRUCT, [[(1, T_STRUCT, [])] for _ in pages])),
        ]
    )
    parts += [footer, struct.pack("<I", len(footer)), b"PAR1"]
    return b"".join(parts)
