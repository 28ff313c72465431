"""Data files read one way: found by name or path, read as UTF-8, parsed as CSV, digested.

Every game's data (Origin of Species' deck, Table Battles' cards, Dino Kontra Dino's deck,
EVO's maps) is a CSV file that ships built in and that a designer may replace with their own.
What they share lives here, so each loader holds only its own format:

* :func:`open_data`: a built-in file by name (or alias) or a file by path, read as UTF-8
  text (a byte-order mark dropped), with its bytes for the digest; one line naming the file
  otherwise (``deck 'x.csv' is neither a built-in deck (default, base) nor a file``,
  ``map m.csv: cannot read as UTF-8 text (...)``);
* :class:`CsvFile`: the header checked (``missing column(s) ...``, ``unknown column(s) ...``)
  and the rows with their line numbers (:class:`Row`: cells stripped, and
  :meth:`Row.error`, whose message starts ``<kind> <file> line <n>:``);
* :func:`write_csv`: the canonical text a loader writes back (stored beside a run's logs and
  digested where the game digests what it read, not the bytes);
* :func:`sha256`: the provenance digest every ``describe()`` line quotes.

Every error is a :class:`~rules.core.errors.DataFileError` of one line.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from rules.core.errors import DataFileError


def sha256(data: str | bytes) -> str:
    """The hex digest of ``data`` (text as UTF-8)."""
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


@dataclasses.dataclass(frozen=True)
class DataText:
    """A data file as read: where it came from, its label and its text and bytes."""

    path: Path
    label: str
    """The built-in name (aliases resolved) or the file's name."""
    text: str
    raw: bytes


def open_data(
    kind: str,
    spec: str,
    builtin: Mapping[str, Path],
    *,
    noun: str,
    aliases: Mapping[str, str] | None = None,
    names: Sequence[str] | None = None,
) -> DataText:
    """Read the built-in file ``spec`` names (``aliases`` map other names to a built-in one)
    or the file at path ``spec``. ``kind`` starts every message (``deck``, ``cards``,
    ``map``), ``noun`` names a built-in one (``deck``, ``pool``, ``map``), ``names`` the
    built-in names listed when ``spec`` is neither (default: every name and alias)."""
    aliases = aliases or {}
    name = aliases.get(spec, spec)
    if name in builtin:
        path, label = Path(builtin[name]), name
    else:
        path, label = Path(spec), Path(spec).name
        if not path.is_file():
            shown = names if names is not None else list(dict.fromkeys([*builtin, *aliases]))
            raise DataFileError(
                f"{kind} '{spec}' is neither a built-in {noun} ({', '.join(shown)}) nor a file"
            )
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataFileError(f"{kind} {path}: cannot read as UTF-8 text ({exc})") from None
    return DataText(path, label, text, raw)


@dataclasses.dataclass(frozen=True)
class Row:
    """One row of a CSV data file: its line number and its cells, stripped."""

    where: str
    """``<kind> <file> line <n>``: how every message about this row starts."""
    line: int
    cells: Mapping[str, str]
    raw: Mapping[str, str | None]
    """The cells as written (for quoting a bad value)."""
    extra: bool
    """The row has more cells than the header has columns."""

    def __getitem__(self, column: str) -> str:
        return self.cells.get(column, "")

    def blank(self) -> bool:
        """Every cell is empty."""
        return not any(self.cells.values())

    def error(self, message: str) -> DataFileError:
        """The one-line error about this row: ``<kind> <file> line <n>: <message>``."""
        return DataFileError(f"{self.where}: {message}")


class CsvFile:
    """CSV data text with its header checked: every ``required`` column present and, when
    ``known`` is given, no other column than those. ``where`` (``<kind> <file>``) starts
    every message."""

    def __init__(
        self,
        text: str,
        where: str,
        *,
        required: Sequence[str],
        known: Sequence[str] | None = None,
    ) -> None:
        self.where = where
        self._reader = csv.DictReader(io.StringIO(text, newline=""))
        try:
            fields = self._reader.fieldnames or []
        except csv.Error as exc:
            raise self.error(f"line 1 is not CSV ({exc})") from None
        header = [(h or "").strip() for h in fields]
        missing = [c for c in required if c not in header]
        if missing:
            raise self.error(f"missing column(s) {', '.join(missing)}")
        if known is not None:
            unknown = [h for h in header if h not in known]
            if unknown:
                raise self.error(
                    f"unknown column(s) {', '.join(unknown)} (known: {', '.join(known)})"
                )
        self._reader.fieldnames = header
        self.header = tuple(header)

    def error(self, message: str) -> DataFileError:
        """The one-line error about the whole file: ``<kind> <file>: <message>``."""
        return DataFileError(f"{self.where}: {message}")

    def rows(self) -> Iterator[Row]:
        """The data rows, from line 2."""
        try:
            for line, row in enumerate(self._reader, start=2):
                cells = {k: (v or "").strip() for k, v in row.items() if k is not None}
                yield Row(f"{self.where} line {line}", line, cells, row, None in row)
        except csv.Error as exc:
            raise self.error(f"line {self._reader.line_num + 1} is not CSV ({exc})") from None


def write_csv(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """CSV text of ``columns`` and ``rows`` as every loader writes it back (``\\n`` lines)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    w.writerows(rows)
    return buf.getvalue()
