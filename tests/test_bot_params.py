"""Bot parameters by name: reordering a declaration cannot change play silently (issue 17).

Each game declares its bots' parameters once (``strategies/<game>/params.py``); the registry
offers them and fills the lineup record in declaration order, and the compiled bots read the
vector through named indices made from the same declarations. These tests check the three
links: the indices follow the declarations, no bot reads its vector by a number, and a registry
whose declarations are reversed puts every value where the reversed indices read it.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
from pathlib import Path

import pytest

import strategies
from rules.core.jit import records
from simulate.games import all_games
from strategies.core.registry import Registry, StrategyParam, indices

ROOT = Path(strategies.__file__).resolve().parents[1]
GAMES = [g for g in all_games() if (ROOT / "strategies" / g.name.replace("-", "_")).is_dir()]

READS = {
    "dino-kontra-dino": {
        "blind": "BLIND_AT",
        "cautious": "CAUTIOUS_AT",
        "montecarlo": "MONTECARLO_AT",
        "odds": "ODDS_AT",
        "strong": "STRONG_AT",
    },
    "evo": {
        "heuristic": "HP",
        "heuristic-v1": "V1_SLOTS",
        "search": "SEARCH_AT",
        "strong": "STRONG_AT",
    },
    "table-battles": {
        "heuristic": "HP",
        "search": "SEARCH_AT",
        "drafter": "DRAFTER_AT",
        "strong": "STRONG_AT",
    },
    "origin-of-species": {"heuristic": "HP", "search": "SEARCH_AT", "strong": "STRONG_AT"},
}
"""The indices each parameterised bot's compiled code reads, by game and bot (the bot whose
code an alias plays). EVO's ``heuristic-v1`` shares the heuristic's code, so its vector is
copied into the heuristic's layout by name (``V1_SLOTS``, positions in ``HP``)."""


def params_module(game):
    return importlib.import_module(f"strategies.{game.name.replace('-', '_')}.params")


def names(params) -> list[str]:
    return [p.name for p in params]


def spec_text(info) -> str:
    """``name[...]`` giving each of ``info``'s parameters a value of its own in its range."""
    n = len(info.params)
    items = [
        f"{p.name}={p.lo + (p.hi - p.lo) * (k + 1) / (n + 2)!r}" for k, p in enumerate(info.params)
    ]
    return f"{info.name}[{','.join(items)}]"


def test_indices_number_the_declaration_in_order():
    decl = tuple(StrategyParam(n, 0.0, 0.0, 1.0, "") for n in ("b", "a", "c"))
    at = indices(decl)
    assert at._fields == ("b", "a", "c") and (at.b, at.a, at.c) == (0, 1, 2)
    for bad in (("a", "a"), ("a-b",), ("class",), ("_a",)):
        with pytest.raises(ValueError):
            indices(tuple(StrategyParam(n, 0.0, 0.0, 1.0, "") for n in bad))


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_every_bot_reads_indices_of_its_own_declaration(game):
    """Every registered bot with parameters (aliases too) reads its vector through indices
    made from the parameters it is registered with, in that order."""
    module, reads = params_module(game), READS[game.name]
    covered = set()
    for info in game.registry.by_name.values():
        if not info.params:
            continue
        code = info.plays or info.name
        at = getattr(module, reads[code])
        covered.add(code)
        if code == "heuristic-v1":  # EVO: the heuristic's layout, by name
            hp = module.HP
            assert at == tuple(getattr(hp, n) for n in names(info.params))
            continue
        assert at._fields == tuple(names(info.params)), info.name
        assert tuple(at) == tuple(range(len(info.params)))
    assert covered == set(reads)


def test_evo_heuristics_fill_the_work_record_by_name():
    """EVO's two heuristics share code reading ``wk.hp`` in the heuristic's order; each
    copies its own vector there by name."""
    from strategies.evo.heuristic import WORK, set_params
    from strategies.evo.heuristic_v1 import set_params_v1
    from strategies.evo.params import HP

    reg = next(g for g in GAMES if g.name == "evo").registry
    for name, setter in (("heuristic", set_params), ("heuristic-v1", set_params_v1)):
        info = reg.by_name[name]
        s = reg.parse(spec_text(info))
        wk = records(1, WORK)
        setter(wk[0], reg.lineup_record([s])[0].params[0])
        got = {n: wk[0].hp[getattr(HP, n)] for n in names(info.params)}
        assert got == dict(zip(names(info.params), s.values, strict=True))


# ---------------------------------------------------------------- no literal reads

VECTORS = {"hp", "p", "params", "DEFAULTS"}
"""Names (or attributes) that hold a bot's parameter vector or its defaults."""


def literal_reads(source: str) -> list[int]:
    """Lines of ``source`` that read a parameter vector at a literal position: ``hp[8]``,
    ``wk.hp[3]``, ``lineup.params[j, 0]``, ``DEFAULTS[2]``, ``x[1]`` after ``x =
    lineup.params[j]``, or Table Battles' accessor ``hp(lu, j, mode, 1)``."""
    tree = ast.parse(source)
    vectors = set(VECTORS)
    for node in ast.walk(tree):  # names bound to a row of the lineup's parameters
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript):
            inner = node.value.value
            if isinstance(inner, ast.Attribute) and inner.attr == "params":
                vectors.update(t.id for t in node.targets if isinstance(t, ast.Name))

    def is_vector(e: ast.expr) -> bool:
        return (isinstance(e, ast.Name) and e.id in vectors) or (
            isinstance(e, ast.Attribute) and e.attr in vectors
        )

    def literal(e: ast.expr) -> bool:
        if isinstance(e, ast.UnaryOp):
            e = e.operand
        return isinstance(e, ast.Constant) and type(e.value) is int

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and is_vector(node.value):
            index = node.slice.elts[-1] if isinstance(node.slice, ast.Tuple) else node.slice
            if literal(index):
                lines.append(node.lineno)
        call = isinstance(node, ast.Call) and is_vector(node.func) and node.args
        if call and literal(node.args[-1]):
            lines.append(node.lineno)
    return sorted(lines)


def test_the_static_check_finds_literal_reads():
    bad = [
        "x = hp[8]",
        "x = wk.hp[3]",
        "x = lineup.params[j, 0]",
        "x = DEFAULTS[-1]",
        "p = lineup.params[j]\nx = p[2]",
        "q = lu.params[j]\nx = q[1]",
        "x = hp(lu, j, mode, 1)",
    ]
    for src in bad:
        assert literal_reads(src), src
    good = "x = hp[HP.a] + wk.hp[HP.b] + lineup.params[j, AT.c] + DEFAULTS[i] + wk.top[1, i]"
    assert literal_reads(good) == []


def test_no_bot_reads_its_parameters_by_position():
    """Every compiled bot (and the tests' toy game) reads its parameters by name."""
    files = sorted((ROOT / "strategies").rglob("*.py")) + sorted(
        (ROOT / "tests" / "toygame").rglob("*.py")
    )
    found = {
        str(f.relative_to(ROOT)): lines
        for f in files
        if (lines := literal_reads(f.read_text(encoding="utf-8")))
    }
    assert found == {}


# ---------------------------------------------------------------- reordered declarations


def reversed_registry(reg: Registry) -> Registry:
    """Fresh registry objects with every strategy's parameters declared in reverse order."""
    infos = [dataclasses.replace(i, params=tuple(reversed(i.params))) for i in reg.by_name.values()]
    return Registry(reg.game, infos, reg.options)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_reversed_declarations_put_each_value_under_its_name(game):
    """Every parameterised strategy, each parameter given its own value: the lineup record of
    a registry declared in reverse holds the same value under every name, read through
    indices of its own declarations, and the reversed registry parses the spec it records."""
    reg, rev = game.registry, reversed_registry(game.registry)
    infos = [i for i in reg.by_name.values() if i.params]
    texts = [spec_text(i) for i in infos]
    for start in range(0, len(texts), 8):  # a record holds 8 positions
        chunk, used = texts[start : start + 8], infos[start : start + 8]
        a = reg.lineup_record([reg.parse(t) for t in chunk])[0]
        b = rev.lineup_record([rev.parse(t) for t in chunk])[0]
        for j, info in enumerate(used):
            at_a, at_b = indices(info.params), indices(rev.by_name[info.name].params)
            for name in names(info.params):
                assert a.params[j, getattr(at_a, name)] == b.params[j, getattr(at_b, name)]
            assert list(b.params[j, : len(info.params)]) == list(
                reversed(a.params[j, : len(info.params)])
            )
        for t in chunk:
            assert rev.parse(reg.parse(t).spec).values == tuple(reversed(reg.parse(t).values))
