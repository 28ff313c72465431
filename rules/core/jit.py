"""Numba configuration shared by every kernel.

All kernels use :data:`jit` (``njit(cache=True, nogil=True)``). numba never inlines one compiled
function into another, so small functions on the hot path (the RNG, the Dino Kontra Dino engine
and its cheap bots) use :data:`jit_inline` (the same, inlined in numba's IR): in Dino Kontra
Dino the calls alone were a third of the kernel's time. Thin entries above large callees (each
game's ``choose``, the search bots' ``search``/``strong``) are inlined too, to compile faster:
numba optimises and compiles every separately compiled function with all it calls linked in, so
a thin wrapper cost its whole subtree's LLVM time again (about 2 s each). A large function with
a single caller stays :data:`jit`: inlining copies its numba IR, which cost more than the LLVM
time it saved (``docs/benchmarks.md``, *Toward a 20 s compile*). The cache lives in a
project-local directory, so the first worker compiles (under a file lock) and the others load
the compiled code instead of compiling it again; numba's cache index is written under a lock of
its own, so processes that do compile at once cannot corrupt it.
``NUMBA_DISABLE_JIT=1`` runs the very same code as plain Python, for debugging and coverage.

numba invalidates a cached function only when *its own* file changes, not when a function it
calls (and inlines) changes in another module: an edited rule in ``engine.py`` would leave the
cached chunk kernel playing the old rule. :func:`_install_locator` therefore adds to each cached
function's freshness stamp a digest of every project source its module imports, directly or
not (:func:`dependency_digest`), so editing one game recompiles that game only, wherever its
files live.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

_PROJECT_ROOT = Path(__file__).resolve().parents[2]


@functools.cache
def _module_file(name: str) -> Path | None:
    """The project file of module ``name`` (a package's ``__init__.py``), if it is ours
    (cached: the digests of one process ask for the same modules thousands of times)."""
    base = _PROJECT_ROOT.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n;]*)|import[ \t]+([^\n;]+))",
    re.M,
)
"""An import statement at the start of a line: ``from X import a, (b, c)`` or ``import X``."""


@functools.cache
def _imported_modules(path: Path, mtime: float) -> frozenset[str]:
    """Every module ``path`` imports (anywhere in the file), with their parent packages.

    Read with :data:`_IMPORT` from the text without comments, not with ``ast`` (which took a
    second of every command's start): a line of a string that looks like an import only adds
    a file to the digest, which is safe.
    """
    package = ".".join(path.relative_to(_PROJECT_ROOT).with_suffix("").parts)
    text = re.sub(r"#[^\n]*", "", path.read_text(encoding="utf-8")).replace("\\\n", " ")
    names: set[str] = set()
    for m in _IMPORT.finditer(text):
        if m.group(3) is not None:  # import a.b as c, d
            names.update(a.split()[0] for a in m.group(3).split(",") if a.strip())
            continue
        base = m.group(1)
        level = len(base) - len(base.lstrip("."))
        base = base[level:]
        if level:  # relative: from the file's package
            parent = package.split(".")[:-level]
            base = ".".join([*parent, base] if base else parent)
        names.add(base)
        listed = m.group(2).strip().strip("()").split(",")
        names.update(f"{base}.{a.split()[0]}" for a in listed if a.strip())  # submodules
    out = set()
    for name in names:
        parts = name.split(".")
        out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return frozenset(out)


@functools.cache
def _closure(path: Path, mtime: float) -> tuple[Path, ...]:
    """``path`` (modified at ``mtime``) and every project source it imports, transitively.
    Cached per file: every compiled function of a module asks for the same closure."""
    seen, todo = {path}, [path]
    while todo:
        current = todo.pop()
        for name in _imported_modules(current, current.stat().st_mtime):
            found = _module_file(name)
            if found is not None and found not in seen:
                seen.add(found)
                todo.append(found)
    return tuple(sorted(seen))


@functools.cache
def _digest(files: tuple[Path, ...], stamp: tuple[float, ...]) -> str:
    h = hashlib.sha256()
    for path in files:
        h.update(str(path.relative_to(_PROJECT_ROOT)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def dependency_digest(py_file: str) -> str:
    """Digest of ``py_file`` and every project source it imports, directly or not: all a
    kernel defined there may inline. Empty for files outside the project."""
    try:
        path = Path(py_file).resolve()
        path.relative_to(_PROJECT_ROOT)
    except (ValueError, OSError):
        return ""
    if not path.is_file():
        return ""
    files = _closure(path, path.stat().st_mtime)
    return _digest(files, tuple(p.stat().st_mtime for p in files))


def _install_locator() -> None:
    """Make numba's cache freshness cover the sources a kernel inlines, not only its own file."""
    from numba.core import caching

    class DependencyAwareLocator(caching.UserProvidedCacheLocator):
        def get_source_stamp(self):
            return (super().get_source_stamp(), dependency_digest(self._py_file))

    if not any(c.__name__ == "DependencyAwareLocator" for c in caching.CacheImpl._locator_classes):
        caching.CacheImpl._locator_classes.insert(0, DependencyAwareLocator)


def _install_index_lock() -> None:
    """Make numba's cache index safe for processes compiling at once (pytest-xdist workers,
    a background compile beside a run).

    numba saves a compiled signature by reading the function's index, adding an entry and
    writing the index back. Two processes compiling the same function with *different*
    signatures at once both pick data file 1, and the later write wins: the index then maps a
    signature to the other signature's machine code. Here the read-add-write holds a file lock
    of the cache directory, and the data file is written before the index names it.
    """
    import itertools

    from numba.core import caching

    class LockedIndex(caching.IndexDataCacheFile):
        def save(self, key, data):
            with open(os.path.join(self._cache_path, ".index.lock"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                overloads = self._load_index()
                name = overloads.get(key)
                if name is None:
                    taken = set(overloads.values())
                    numbered = (self._data_name(i) for i in itertools.count(1))
                    name = next(n for n in numbered if n not in taken)
                self._save_data(name, data)
                if overloads.get(key) != name:
                    overloads[key] = name
                    self._save_index(overloads)

    if caching.IndexDataCacheFile.__name__ != "LockedIndex":
        caching.IndexDataCacheFile = LockedIndex


_held: set[str] = set()
"""Keys of the signature locks this process holds (a nested compile of the same signature
must not wait for itself)."""

while_waiting: Callable[[str], bool] | None = None
"""Called with a signature lock's key while another process holds it: compiles something
that process will need and returns ``True``, or returns ``False`` when there is nothing to do
but wait (set by :mod:`simulate.kit.parallel_compile` during a first compile)."""


WAIT_LIMIT = 300.0
"""Seconds a compile waits for another process's signature lock before it goes on without."""


def signature_key(dispatcher: Any, args: tuple) -> str:
    """The name of the lock on compiling ``dispatcher`` for argument types ``args``."""
    fn = dispatcher.py_func
    name = f"{fn.__module__}.{fn.__qualname__}:{fn.__code__.co_firstlineno}:{args}"
    return hashlib.sha1(name.encode()).hexdigest()[:20]


def _try_lock(f: Any) -> bool:
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@contextlib.contextmanager
def signature_lock(dispatcher: Any, args: tuple, *, wait: bool = True) -> Iterator[bool]:
    """Hold this machine's lock on compiling ``dispatcher`` for argument types ``args``;
    yields whether it is held (``wait=False``: ``False`` at once where another process
    holds it). While it waits, :data:`while_waiting` may compile what the holder needs.

    The lock only orders work: whoever takes it second finds the signature in numba's cache
    and loads it. A process waits only for a function called, directly or not, by every
    function whose lock it holds, and calls never loop, so no two processes wait for each
    other; still, after :data:`WAIT_LIMIT` seconds it goes on without the lock (and may
    compile what the other process is compiling).
    """
    key = signature_key(dispatcher, args)
    if key in _held:
        yield True
        return
    folder = cache_dir() / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{key}.lock", "w") as f:
        held = _try_lock(f)
        if not held and not wait:
            yield False
            return
        deadline = time.monotonic() + WAIT_LIMIT
        while not held and time.monotonic() < deadline:
            if while_waiting is None or not while_waiting(key):
                time.sleep(0.02)
            held = _try_lock(f)
        _held.add(key)
        try:
            yield True
        finally:
            _held.discard(key)
            if held:
                fcntl.flock(f, fcntl.LOCK_UN)


def cache_dir() -> Path:
    """Where compiled kernels are kept: ``$DINOLAB_CACHE_DIR`` or ``.numba_cache`` here."""
    explicit = os.environ.get("DINOLAB_CACHE_DIR")
    if explicit:
        return Path(explicit)
    if os.access(_PROJECT_ROOT, os.W_OK):
        return _PROJECT_ROOT / ".numba_cache"
    return Path.home() / ".cache" / "dinolab" / "numba"


def configure_numba_cache() -> None:
    """Point numba's cache at :func:`cache_dir`; install the dependency-aware locator and the
    locked index."""
    path = cache_dir()
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    import numba

    numba.config.CACHE_DIR = str(path)
    _install_locator()
    _install_index_lock()


def jit_disabled() -> bool:
    """True when kernels run as plain Python (``NUMBA_DISABLE_JIT=1``)."""
    import numba

    return bool(numba.config.DISABLE_JIT)


def _make_jit(**options):
    from numba import njit
    from numba.core import sigutils, types
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.registry import CPUDispatcher

    class KernelDispatcher(CPUDispatcher):
        """numba's dispatcher, with two changes.

        - A callee compiles once for ``int64`` where a caller passes a constant
          (``kill(st, s, 0)``, ``heuristic(..., -1)``): numba would otherwise compile it again
          for every literal value, which was a fifth of EVO's first compile.
        - A signature compiles under :func:`signature_lock`, so of the processes that need it
          at once (a kernel's compile and its helpers, :mod:`simulate.kit.parallel_compile`)
          one compiles it and the others load it from the cache.
        """

        def get_call_template(self, args, kws):
            args = tuple(types.unliteral(a) for a in args)
            kws = {k: types.unliteral(v) for k, v in kws.items()}
            return super().get_call_template(args, kws)

        def compile(self, sig):
            args, _ = sigutils.normalize_signature(sig)
            if tuple(args) in self.overloads:
                return super().compile(sig)
            # numba's lock before the file lock, the order of every nested compile: two
            # threads of this process never hold one each
            with global_compiler_lock, signature_lock(self, tuple(args)):
                return super().compile(sig)

    decorate = njit(cache=True, nogil=True, **options)

    def compiled(fn):
        dispatcher = decorate(fn)
        if type(dispatcher) is CPUDispatcher:
            dispatcher.__class__ = KernelDispatcher
        return dispatcher

    return compiled


jit = _make_jit()
jit_inline = _make_jit(inline="always")


def compile_generated(
    source: str, name: str, namespace: dict[str, Any], *, inline: bool = True
) -> Any:
    """Function ``name`` defined by generated ``source`` (globals: ``namespace``), compiled
    to be inlined into its callers (``inline=False``: once, out of line, for a slow path
    called from many places).

    Not cached on its own (an exec'd function has no source file to stamp), which costs
    nothing: inlined into a cached kernel, or linked into its machine code, it is cached with
    the kernel, and the kernel's
    freshness stamp covers the module that declared it (:func:`dependency_digest`).
    """
    from numba import njit

    scope = dict(namespace)
    exec(compile(source, f"<generated {name}>", "exec"), scope)
    return njit(nogil=True, inline="always" if inline else "never")(scope[name])


def records(n: int, dtype: np.dtype) -> np.ndarray:
    """``n`` zeroed records of ``dtype`` as a ``np.recarray`` (attribute access in plain Python).

    Kernel state and rule tables are numpy *records* with nested array fields: numba passes a
    record by pointer with no reference counting, so a call costs what it costs in C, and a
    state is copied with one assignment (``buf[i] = st``). Field names must not shadow
    ``np.record`` methods (``round``, ``size``, ``min`` ...) so the same code runs interpreted.
    """
    return np.zeros(n, dtype).view(np.recarray)
