"""A first compile on several cores (:mod:`simulate.kit.parallel_compile`): the lock on each
compiled signature, the plans (:mod:`simulate.kit.compile_plans`), and the helpers that
compile a plan beside the kernel."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rules.core import jit
from rules.core.errors import DinolabError
from simulate.games import all_games
from simulate.kit import compile_plans
from simulate.kit import parallel_compile as pc
from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parents[1]

TINY = """
from rules.core.jit import jit

@jit
def leaf(x):
    return x + 1

@jit
def root(x):
    return leaf(x) * 2
"""

HOLDER = """
import sys, time
from numba import types
from rules.core.jit import signature_lock
from tiny import leaf
with signature_lock(leaf, (types.int64,)):
    print("held", flush=True)
    time.sleep(2)  # the waiter needs leaf meanwhile: without the lock it compiles it itself
    leaf.compile((types.int64,))
"""

WAITER = """
from numba.core import event
from tiny import root
compiled = []
class Seen(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)
with event.install_listener("numba:compile", Seen()):
    assert root(1) == 4
print(" ".join(compiled))
"""


def test_a_signature_another_process_is_compiling_is_waited_for_then_loaded(tmp_path):
    (tmp_path / "tiny.py").write_text(TINY)
    env = {
        **os.environ,
        "DINOLAB_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}",
    }
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        out = subprocess.run(
            [sys.executable, "-c", WAITER], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
    finally:
        holder.wait(timeout=60)
    # the waiter compiled only its own function: it waited for the holder's leaf and loaded it
    assert out == ["root"]


class Fake:
    """Stands for a dispatcher: a function to name its lock, and the compiles it was asked for."""

    def __init__(self, name: str, calls: list[str]):
        def fn():
            pass

        fn.__qualname__ = name
        self.py_func, self.name, self.calls = fn, name, calls

    def compile(self, args):
        self.calls.append(self.name)


@pytest.fixture
def locks(tmp_path, monkeypatch):
    monkeypatch.setenv("DINOLAB_CACHE_DIR", str(tmp_path))
    return tmp_path


def plan(calls: list[str], fresh: bool = True) -> pc.Plan:
    # b calls c and d (compiled inside b, so listed before it); e calls nothing new
    shape = [("c", 2, 1.0), ("d", 2, 1.0), ("b", 1, 1.0), ("e", 1, 1.0)]
    return pc.Plan([(Fake(n, calls), (), depth, s) for n, depth, s in shape], fresh)


def key(p: pc.Plan, name: str) -> str:
    return next(jit.signature_key(d, a) for d, a, _, _ in p.entries if d.name == name)


def test_while_waiting_for_a_function_a_process_compiles_its_callees_from_the_far_end(locks):
    calls: list[str] = []
    p = plan(calls)
    assert p.help(key(p, "b")) and calls == ["d"]
    assert p.help(key(p, "b")) and calls == ["d", "c"]
    assert not p.help(key(p, "b"))  # nothing left: wait
    assert not p.help(key(p, "e"))  # calls nothing the plan lists
    assert calls == ["d", "c"]


def test_while_waiting_a_process_passes_over_a_callee_another_process_holds(locks):
    calls: list[str] = []
    p = plan(calls)
    d = next(e[0] for e in p.entries if e[0].name == "d")
    (locks / "locks").mkdir()
    with open(locks / "locks" / f"{jit.signature_key(d, ())}.lock", "w") as other:
        fcntl.flock(other, fcntl.LOCK_EX)  # another open file: to flock, another holder
        assert p.help(key(p, "b")) and calls == ["c"]


def test_a_stale_plan_never_has_a_waiting_process_compile_its_guesses(locks):
    calls: list[str] = []
    p = plan(calls, fresh=False)
    assert not p.help(key(p, "b")) and calls == []


@pytest.mark.parametrize(
    ("part", "parts", "order"), [(0, 1, "cdbe"), (1, 2, "becd"), (1, 4, "dbec")]
)
def test_a_helper_starts_at_its_share_of_the_plans_seconds(locks, part, parts, order):
    calls: list[str] = []
    assert plan(calls).compile_all(part, parts) == 4
    assert "".join(calls) == order


def test_every_game_has_a_plan_recorded_from_its_current_sources():
    stale = [g.name for g in all_games() if not pc.recorded_from_current_sources(g)]
    assert not stale, f"compile plans recorded from older sources: {stale} (make compile-plans)"


def test_a_plan_is_a_hint_an_unreadable_or_foreign_one_is_empty(tmp_path):
    game = all_games()[0]
    (tmp_path / "garbage.pkl").write_bytes(b"not a pickle")
    assert pc.load_plan(game, tmp_path / "garbage.pkl").entries == []
    assert pc.load_plan(game, tmp_path / "missing.pkl").entries == []


def test_a_bad_helper_count_stops_a_run_before_it_writes_anything(tmp_path, monkeypatch):
    monkeypatch.setenv("DINOLAB_COMPILE_HELPERS", "x")
    result = run_cli("simulate", "dkd", "-n", "100", "--out", str(tmp_path / "run"))
    assert result.code == 2
    assert result.err.strip().endswith("DINOLAB_COMPILE_HELPERS must be a whole number, not 'x'")
    assert not (tmp_path / "run").exists()


def test_helpers_one_per_other_core_unless_told(monkeypatch):
    monkeypatch.setenv("DINOLAB_COMPILE_HELPERS", "3")
    assert pc.helper_count() == 3
    monkeypatch.setenv("DINOLAB_COMPILE_HELPERS", "many")
    with pytest.raises(DinolabError, match="DINOLAB_COMPILE_HELPERS must be a whole number"):
        pc.helper_count()
    monkeypatch.delenv("DINOLAB_COMPILE_HELPERS")
    cores = len(os.sched_getaffinity(0))
    assert pc.helper_count() == min(pc.MAX_HELPERS, cores - 1)


COLD = """
import sys
from numba.core import event
from simulate.games import get_game
from simulate.kit.play import warmup
game = get_game("toy")
compiled = []
class Seen(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        if ev.data["dispatcher"]._cache.__class__.__name__ != "NullCache":
            compiled.append(ev.data["dispatcher"].py_func.__name__)
with event.install_listener("numba:compile", Seen()):
    warmup(game.setup(game.parameters(), game.demo.players, game.demo.strategy))
print(" ".join(compiled))
"""


def test_a_helper_compiles_what_the_kernel_then_loads(tmp_path, monkeypatch):
    """A recorded plan names the very signatures the kernel's compile needs: after a helper
    has compiled it alone, the kernel's compile loads every callee and compiles only itself."""
    monkeypatch.setenv("DINOLAB_GAMES", "tests.toygame")  # the subprocesses see it too
    from simulate.games import get_game

    game = get_game("toy")
    path = tmp_path / "plan.pkl"
    assert compile_plans.record(game, path) >= 3
    saved = pc.load_plan(game, path)
    assert saved.fresh and {d.py_func.__name__ for d, *_ in saved.entries} >= {"deal", "choose"}

    env = {**os.environ, "DINOLAB_CACHE_DIR": str(tmp_path / "cache")}
    helper = [sys.executable, "-m", "simulate.kit.compile_plans", "help", "toy", str(path)]
    subprocess.run([*helper, "1", "2", str(os.getpid())], env=env, check=True, cwd=ROOT)
    cold = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(COLD)],
        env={**env, "DINOLAB_COMPILE_HELPERS": "0"},
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert cold.stdout.split() == ["play_chunk"]


PARENT = """
import time
from simulate.games import get_game
from simulate.kit.parallel_compile import helpers
with helpers(get_game("dtb")):
    print("helping", flush=True)
    time.sleep(120)
"""


def test_helpers_end_with_the_process_they_help_even_killed(tmp_path):
    psutil = pytest.importorskip("psutil")
    from simulate.games import get_game

    if not pc.load_plan(get_game("dtb")).entries:
        pytest.skip("the committed plans were recorded with another numba: no helpers start")
    env = {**os.environ, "DINOLAB_CACHE_DIR": str(tmp_path), "DINOLAB_COMPILE_HELPERS": "2"}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT], env=env, stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout.readline().strip() == "helping"
    helpers = psutil.Process(parent.pid).children()
    assert len(helpers) == 2
    time.sleep(1.5)  # past their imports, compiling
    parent.kill()
    parent.wait()
    _, alive = psutil.wait_procs(helpers, timeout=5)  # compiling on, they would take 10 s
    assert not alive
