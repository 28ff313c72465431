"""``dinolab bench``'s timing, on the toy game (the real games' measurements are too long for tests:
``docs/benchmarks.md`` records them)."""

import os


def test_end_to_end_is_the_best_of_the_runs_that_fit_in_the_budget(monkeypatch):
    """``dinolab bench`` compares its end-to-end run with a best-of-five kernel rate, so it
    times the run up to three times too, each with ``--force``, within a minute in all."""
    from simulate import bench

    for walls, want in (([10.0, 8.0, 9.0, 1.0], (8.0, 3)), ([40.0, 30.0], (40.0, 1))):
        calls = []

        def fake(args, walls=walls, calls=calls):
            calls.append(args)
            return walls[len(calls) - 1], 100 * len(calls)

        monkeypatch.setattr(bench, "measure_simulate", fake)
        seconds, peak, runs = bench.best_simulate(["dkd", "--games", "10"])
        assert (seconds, runs) == want
        assert peak == 100 * runs
        assert all(a[-1] == "--force" for a in calls)


def test_a_cold_compile_is_timed_in_a_fresh_process_on_an_empty_cache(monkeypatch):
    """``dinolab bench GAME --compile`` times the toy game's compile for real: seconds that
    include compiling (the empty cache), far more than loading a compiled kernel."""
    from simulate import bench_compile

    monkeypatch.setenv("DINOLAB_GAMES", "tests.toygame")  # the subprocess sees it too
    assert bench_compile.cold_compile_seconds("toy", 0) > 0.5


def test_the_compile_bench_compares_its_helpers_with_one_process(monkeypatch):
    from simulate import bench_compile
    from simulate.kit.parallel_compile import Plan

    asked = []

    def fake(game, helpers):
        asked.append(helpers)
        return 10.0 if helpers else 30.0

    monkeypatch.setattr(bench_compile, "cold_compile_seconds", fake)
    monkeypatch.setenv("DINOLAB_COMPILE_HELPERS", "3")
    text = bench_compile.run_compile_bench("dtb")
    assert asked == [3, 0]
    assert "| with 3 helpers | 10.0 s | 3.00x |" in text
    assert "| one process | 30.0 s | 1.00x |" in text
    monkeypatch.setattr(bench_compile, "load_plan", lambda game: Plan([], False))
    asked.clear()
    text = bench_compile.run_compile_bench("dtb")
    assert asked == [0] and "no compile plan" in text


def test_the_bench_times_the_run_with_worker_processes_and_with_threads(cli, monkeypatch):
    """The toy game's whole bench, for real: the kernel on every core at once, and both
    end-to-end rows, each against the kernel and against the cores at once."""
    import re

    monkeypatch.setenv("DINOLAB_GAMES", "tests.toygame")  # the subprocesses see it too
    r = cli("bench", "high-card", "-n", "4000")
    assert r.code == 0, r.err
    assert re.search(r"\| end to end: simulate 4,000 games, every table, \d+ workers", r.out)
    threads = re.search(
        r"\| the same with --backend threads \((\d+) threads.*\| ([\d.]+) s wall", r.out
    )
    assert threads and int(threads[1]) == (os.cpu_count() or 1), r.out
    assert float(threads[2]) > 0
    cores = os.cpu_count() or 1
    together = re.search(
        rf"\| kernel, all log buffers, {cores} cores at once .*\| ([\d,]+) games/s", r.out
    )
    assert together and int(together[1].replace(",", "")) > 0, r.out
    assert r.out.count("of the cores at once)") == 2, r.out
