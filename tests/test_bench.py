"""``dinolab bench``'s end-to-end timing (the measurements themselves are too long for tests:
``docs/benchmarks.md`` records them)."""


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
