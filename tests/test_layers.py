"""The rooms of the code and their doors: who may import whom, and no import cycles.

``rules`` imports only ``rules``; ``strategies`` adds ``rules``; ``simulate`` adds
``strategies``; ``reports`` reads logs and imports only ``reports`` (and ``rules`` data); the CLI
(``simulate/cli/``) is the one place that imports both ``simulate`` and ``reports``. Imports
inside functions count too. No module imports itself back through others when the code runs
(imports for annotations only, under ``if TYPE_CHECKING:``, never run).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROOMS = ("rules", "strategies", "simulate", "reports")
MAY_IMPORT = {
    "rules": {"rules"},
    "strategies": {"rules", "strategies"},
    "simulate": {"rules", "strategies", "simulate"},
    "reports": {"rules", "reports"},
}
COMPOSITION_ROOT = "simulate/cli/"


def modules() -> dict[str, Path]:
    out = {}
    for room in ROOMS:
        for path in (ROOT / room).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def _runtime_nodes(tree: ast.AST):
    """Every node except those under ``if TYPE_CHECKING:`` (annotations only, never run)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            continue
        yield node
        yield from _runtime_nodes(node)


def imports(path: Path, known: dict[str, Path], typing: bool = True) -> set[str]:
    """Project modules ``path`` imports, anywhere in the file (``typing``: with the imports
    made for annotations only)."""
    found = set()
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree) if typing else _runtime_nodes(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                found.add(name)
    return found


def test_every_room_imports_only_what_it_may():
    known = modules()
    wrong = []
    for name, path in known.items():
        room = name.split(".")[0]
        rel = str(path.relative_to(ROOT))
        allowed = MAY_IMPORT[room] | ({"reports"} if rel.startswith(COMPOSITION_ROOT) else set())
        for target in imports(path, known):
            if target.split(".")[0] not in allowed:
                wrong.append(f"{rel} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles():
    known = modules()
    graph = {name: imports(path, known, typing=False) - {name} for name, path in known.items()}
    # A package imports its own submodules (its __init__ re-exports them); those edges are the
    # package's, not a cycle through another module.
    for name in graph:
        graph[name] = {t for t in graph[name] if not t.startswith(name + ".")}
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert not cycles, cycles
