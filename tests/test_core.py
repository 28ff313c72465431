"""Shared pieces: the counter-based RNG, parameter parsing and rules files, strategy lineups."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.core import jit
from rules.core.errors import DataFileError, RuleError
from rules.core.params import parse_assignments, read_rules_file
from rules.core.rng import bounded, game_key, mix64, next_u64, seed_streams, shuffle, uniform
from rules.dino_kontra_dino.deck import BUILTIN
from rules.dino_kontra_dino.params import DkdParameters
from strategies.core.registry import StrategyError
from strategies.dino_kontra_dino import REGISTRY

M = (1 << 64) - 1


def ref_mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def ref_xs(x: int) -> tuple[int, int]:
    x ^= x >> 12
    x ^= (x << 25) & M
    x ^= x >> 27
    return x, (x * 0x2545F4914F6CDD1D) & M


@given(st.integers(0, M), st.integers(0, 2**40))
def test_game_key_is_the_c_yardstick_formula(seed, gid):
    # C: ss = seed + gid * GOLDEN; x = splitmix64(&ss), which adds GOLDEN before mixing.
    expected = ref_mix((seed + gid * 0x9E3779B97F4A7C15 + 0x9E3779B97F4A7C15) & M) or 1
    with np.errstate(over="ignore"):
        assert int(game_key(np.uint64(seed), np.uint64(gid))) == expected


@given(st.integers(1, M))
def test_xorshift_star_matches_reference(x):
    rng = np.array([x], dtype=np.uint64)
    state = x
    for _ in range(5):
        state, out = ref_xs(state)
        with np.errstate(over="ignore"):
            assert int(next_u64(rng, 0)) == out
        assert int(rng[0]) == state


def test_bounded_and_uniform_ranges_and_mean():
    rng = np.zeros(3, np.uint64)
    seed_streams(rng, np.uint64(12345), np.uint64(12345))
    draws = np.array([bounded(rng, 1, 6) for _ in range(60000)])
    assert draws.min() == 0 and draws.max() == 5
    counts = np.bincount(draws, minlength=6)
    expected = 10000
    # chi-square with 5 dof: the 99.9% quantile is 20.5
    assert ((counts - expected) ** 2 / expected).sum() < 20.5
    u = np.array([uniform(rng, 2) for _ in range(20000)])
    assert u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 4 * (1 / np.sqrt(12 * 20000))


@given(st.integers(1, M), st.integers(1, 60))
def test_shuffle_is_a_permutation(key, n):
    rng = np.zeros(1, np.uint64)
    with np.errstate(over="ignore"):
        seed_streams(rng, np.uint64(key), np.uint64(key))
    a = np.arange(n, dtype=np.int8)
    shuffle(a, rng, 0)
    assert sorted(a.tolist()) == list(range(n))


def test_bot_streams_differ_from_chance_and_each_other():
    rng = np.zeros(7, np.uint64)
    seed_streams(rng, np.uint64(99), np.uint64(99))
    assert len(set(rng.tolist())) == 7
    with np.errstate(over="ignore"):
        assert int(mix64(np.uint64(0))) == 0


def test_set_parsing_and_errors():
    assert parse_assignments(["a=1", " b = x "]) == {"a": "1", "b": "x"}
    with pytest.raises(RuleError, match="key=value"):
        parse_assignments(["nokey"])
    p = DkdParameters().with_values({"hand_size": "4", "two_trait_counts_both": "false"})
    assert p.hand_size == 4 and p.two_trait_counts_both is False
    for key, value, message in [
        ("hand_size", "x", "must be an integer in 1..10"),
        ("hand_size", "11", "must be an integer in 1..10"),
        ("hand_size", "2.5", "must be an integer"),
        ("first_holder", "-2", "-1..5"),
        ("two_trait_counts_both", "maybe", "true or false"),
        ("handsize", "3", "unknown rule key 'handsize'"),
    ]:
        with pytest.raises(RuleError, match=message):
            DkdParameters().with_values({key: value})


def test_rules_toml(tmp_path):
    deck = tmp_path / "deck.csv"
    deck.write_text(BUILTIN["provisional"].read_text())
    f = tmp_path / "v.toml"
    f.write_text('game = "dkd"\nhand_size = 4\ndeck = "deck.csv"\n')
    values = read_rules_file(f, ("dino-kontra-dino", "dkd"))
    p = DkdParameters().with_values(values)
    assert p.hand_size == 4 and p.deck == str(deck.resolve())
    f.write_text('hand_size = "four"\n')
    with pytest.raises(RuleError, match="hand_size"):
        DkdParameters().with_values(read_rules_file(f, ("dkd",)))
    f.write_text("hand_size = 4.5\n")
    with pytest.raises(RuleError, match="hand_size"):
        DkdParameters().with_values(read_rules_file(f, ("dkd",)))
    f.write_text('game = "evo"\n')
    with pytest.raises(DataFileError, match="is for game 'evo'"):
        read_rules_file(f, ("dino-kontra-dino", "dkd"))
    f.write_text("hand_size = \n")
    with pytest.raises(DataFileError, match="not valid TOML"):
        read_rules_file(f, ("dkd",))
    with pytest.raises(DataFileError, match="not found"):
        read_rules_file(tmp_path / "missing.toml", ("dkd",))


def test_strategy_lineups():
    lineup = REGISTRY.lineup("greedy,cautious[aim=0.5, figure=2],blind[memory=0],random", 4)
    assert [s.label for s in lineup] == [
        "greedy",
        "cautious[aim=0.5,figure=2]",
        "blind[memory=0]",
        "random",
    ]
    assert [s.label for s in REGISTRY.lineup("cautious[aim=0.9]", 3)] == ["cautious"] * 3
    for text, message in [
        ("greedy,random", "names 2 strategies for 4 players"),
        ("greedy,foo,random,random", "unknown strategy 'foo'"),
        ("cautious[aim=2]", "must be a number in 0..1"),
        ("cautious[bogus=1]", "has no parameter 'bogus'"),
        ("cautious[aim]", "must be a number"),
        ("greedy,,random,random", "cannot read"),
        ("gr eedy", "cannot read strategy"),
    ]:
        with pytest.raises(StrategyError, match=message):
            REGISTRY.lineup(text, 4)


def _ast_imports(path: Path, package: str) -> set[str]:
    """The modules a file imports by Python's own parser (the reference for the scanner)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes())):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: -node.level]
                base = ".".join([*parent, base] if base else parent)
            names.add(base)
            names.update(f"{base}.{a.name}" for a in node.names)
    return {".".join(n.split(".")[:i]) for n in names for i in range(1, n.count(".") + 2)}


@pytest.mark.slow
def test_the_kernel_digest_sees_every_import_the_parser_sees():
    """The import scanner behind the compiled kernels' freshness stamp misses no module that
    ``ast`` finds, in any project file (a miss would let an edited rule run stale code)."""
    root = jit._PROJECT_ROOT
    files = [
        p
        for d in ("rules", "simulate", "strategies", "reports", "tests")
        for p in (root / d).rglob("*.py")
    ]
    assert len(files) > 100
    for path in files:
        package = ".".join(path.relative_to(root).with_suffix("").parts)
        missed = _ast_imports(path, package) - jit._imported_modules(path, path.stat().st_mtime)
        assert not missed, (path, sorted(missed))
    kernel = root / "simulate" / "games" / "dino_kontra_dino" / "kernel.py"
    closure = jit._closure(kernel, kernel.stat().st_mtime)
    assert root / "rules" / "dino_kontra_dino" / "engine.py" in closure


def test_processes_compiling_at_once_cannot_map_a_signature_to_another_ones_code(tmp_path):
    """Two compiles of one function with different signatures, the second saving while the
    first sits between reading and writing the index (as two pytest-xdist workers can): with
    the locked index, both signatures keep their own data file. (numba's own index loses the
    second entry and maps the first signature's file to the second's code.)"""
    import threading

    from numba.core import caching

    from rules.core.rng import mix64 as cached

    assert type(cached._cache._cache_file) is caching.IndexDataCacheFile  # ours, installed
    assert caching.IndexDataCacheFile.__name__ == "LockedIndex"

    def index() -> caching.IndexDataCacheFile:
        return caching.IndexDataCacheFile(str(tmp_path), "twin.f-1.py311", ("stamp", 1))

    first, second = index(), index()
    loaded, second_done = threading.Event(), threading.Event()
    read = first._load_index

    def slow_read():  # the first compile reads the index, then waits for the second
        overloads = read()
        loaded.set()
        second_done.wait(0.5)  # with the lock, the second is still waiting here
        return overloads

    first._load_index = slow_read
    a = threading.Thread(target=first.save, args=(("int64",), b"code for int64"))
    a.start()
    loaded.wait(5)
    b = threading.Thread(
        target=lambda: (second.save(("float64",), b"code for float64"), second_done.set())
    )
    b.start()
    a.join(5)
    b.join(5)
    fresh = index()
    assert fresh.load(("int64",)) == b"code for int64"
    assert fresh.load(("float64",)) == b"code for float64"
