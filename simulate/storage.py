"""Where a run directory lives: a local folder, or any fsspec URL (``s3://``, ``gs://`` ...).

Everything that reads or writes a run goes through a :class:`RunStore`, so the runner, the
workers, ``verify``, ``replay`` and the reports work the same on a laptop, a shared cluster
filesystem or an object store.

* :class:`LocalStore`: a file is written under a temporary name and renamed, the chunk
  journal is one file appended and flushed to disk.
* :class:`FsspecStore`: object stores have no rename and no append, but a put is atomic (an
  object is either there whole or not at all); the journal is one small object per chunk under
  ``journal/``. Remote URLs need the protocol's fsspec package (``s3fs`` for ``s3://`` ...).
"""

from __future__ import annotations

import abc
import fnmatch
import os
import shutil
from pathlib import Path

from rules.core.errors import DinolabError

TMP_PREFIX = ".tmp-"


class RunStore(abc.ABC):
    """A run directory: paths are relative, with ``/`` separators."""

    url: str

    @abc.abstractmethod
    def exists(self, rel: str = "") -> bool: ...

    @abc.abstractmethod
    def is_dir(self, rel: str = "") -> bool: ...

    @abc.abstractmethod
    def listdir(self, rel: str = "") -> list[str]:
        """Names in a folder (not recursive); empty when it does not exist."""

    @abc.abstractmethod
    def read_bytes(self, rel: str) -> bytes: ...

    @abc.abstractmethod
    def write_bytes(self, rel: str, data: bytes) -> None:
        """Write a whole file so that readers see either the old one or the new one."""

    @abc.abstractmethod
    def remove(self, rel: str) -> None:
        """Remove a file or a folder tree; nothing happens when it is absent."""

    @abc.abstractmethod
    def append_journal(self, index: int, line: str) -> None: ...

    @abc.abstractmethod
    def journal_lines(self) -> list[str]: ...

    @abc.abstractmethod
    def clear_journal(self) -> None: ...

    @abc.abstractmethod
    def remove_temporaries(self) -> int:
        """Delete files a killed writer left half-made; return how many."""

    def glob(self, folder: str, pattern: str) -> list[str]:
        """Relative paths in ``folder`` whose names match ``pattern``, sorted."""
        return sorted(f"{folder}/{n}" for n in self.listdir(folder) if fnmatch.fnmatch(n, pattern))

    def is_empty(self) -> bool:
        return not self.exists() or not self.listdir()

    @property
    def local(self) -> Path | None:
        """The folder, when the run is on a local filesystem."""
        return None

    @property
    def name(self) -> str:
        """The last part of the path (the folder's own name)."""
        return self.url.rstrip("/").rsplit("/", 1)[-1]

    def child(self, rel: str) -> RunStore:
        """The store of a folder inside this one (e.g. a variant run)."""
        return open_store(f"{self.url.rstrip('/')}/{rel}")

    def __str__(self) -> str:
        return self.url


class LocalStore(RunStore):
    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.url = str(root)

    @property
    def local(self) -> Path:
        return self.root

    def _p(self, rel: str) -> Path:
        return self.root / rel if rel else self.root

    def exists(self, rel: str = "") -> bool:
        return self._p(rel).exists()

    def is_dir(self, rel: str = "") -> bool:
        return self._p(rel).is_dir()

    def listdir(self, rel: str = "") -> list[str]:
        p = self._p(rel)
        return sorted(x.name for x in p.iterdir()) if p.is_dir() else []

    def read_bytes(self, rel: str) -> bytes:
        return self._p(rel).read_bytes()

    def write_bytes(self, rel: str, data: bytes) -> None:
        path = self._p(rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{TMP_PREFIX}{path.name}.{os.getpid()}")
        try:
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        finally:
            if tmp.exists():
                tmp.unlink()

    def remove(self, rel: str) -> None:
        p = self._p(rel)
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        elif p.exists():
            p.unlink()

    def append_journal(self, index: int, line: str) -> None:
        with open(self._p(JOURNAL), "a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def journal_lines(self) -> list[str]:
        p = self._p(JOURNAL)
        return p.read_text(encoding="utf-8", errors="replace").splitlines() if p.is_file() else []

    def clear_journal(self) -> None:
        self._p(JOURNAL).unlink(missing_ok=True)

    def remove_temporaries(self) -> int:
        count = 0
        for p in self.root.rglob(f"{TMP_PREFIX}*"):
            p.unlink(missing_ok=True)
            count += 1
        return count


class FsspecStore(RunStore):
    """A run directory behind an fsspec URL (object stores, HDFS, in-memory for tests)."""

    def __init__(self, url: str):
        try:
            import fsspec
        except ImportError:
            raise DinolabError(
                f"{url}: remote run directories need fsspec: pip install 'dinolab[dask]'"
            ) from None
        try:
            self.fs, root = fsspec.core.url_to_fs(url)
        except (ImportError, ValueError) as exc:
            raise DinolabError(f"cannot open {url}: {exc}") from None
        self.root = root.rstrip("/")
        self.url = url.rstrip("/")

    def _p(self, rel: str) -> str:
        return f"{self.root}/{rel}" if rel else self.root

    def exists(self, rel: str = "") -> bool:
        return self.fs.exists(self._p(rel))

    def is_dir(self, rel: str = "") -> bool:
        return self.fs.isdir(self._p(rel))

    def listdir(self, rel: str = "") -> list[str]:
        if not self.fs.isdir(self._p(rel)):
            return []
        names = self.fs.ls(self._p(rel), detail=False)
        return sorted(p.rstrip("/").rsplit("/", 1)[-1] for p in names)

    def read_bytes(self, rel: str) -> bytes:
        return self.fs.cat_file(self._p(rel))

    def write_bytes(self, rel: str, data: bytes) -> None:
        parent = self._p(rel).rsplit("/", 1)[0]
        self.fs.makedirs(parent, exist_ok=True)
        self.fs.pipe_file(self._p(rel), data)

    def remove(self, rel: str) -> None:
        if self.fs.exists(self._p(rel)):
            self.fs.rm(self._p(rel), recursive=True)

    def append_journal(self, index: int, line: str) -> None:
        self.write_bytes(f"{JOURNAL_FOLDER}/{index:08d}.json", line.encode())

    def journal_lines(self) -> list[str]:
        return [self.read_bytes(p).decode(errors="replace") for p in self.glob(JOURNAL_FOLDER, "*")]

    def clear_journal(self) -> None:
        self.remove(JOURNAL_FOLDER)

    def remove_temporaries(self) -> int:
        return 0  # puts are atomic: nothing half-made can exist

    def pyarrow_filesystem(self):
        from pyarrow.fs import FSSpecHandler, PyFileSystem

        return PyFileSystem(FSSpecHandler(self.fs))


JOURNAL = "chunks.jsonl"
JOURNAL_FOLDER = "journal"


def open_store(where: str | Path | RunStore) -> RunStore:
    """The store for a ``--out`` value: a local path, ``file://...``, or another fsspec URL."""
    if isinstance(where, RunStore):
        return where
    text = str(where)
    if text.startswith("file://"):
        return LocalStore(text[len("file://") :])
    if "://" in text:
        return FsspecStore(text)
    return LocalStore(Path(text))
