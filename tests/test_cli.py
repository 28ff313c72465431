"""The command line as a user meets it: help, listings, runs, replays and every refusal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def snapshot(folder: Path) -> dict[str, bytes]:
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_games_lists_players_strategies_and_rule_keys(cli):
    r = cli("games")
    assert r.code == 0
    assert "dino-kontra-dino (alias dkd)" in r.out and "2-6 players" in r.out
    assert "greedy" in r.out and "hand_size" in r.out
    r = cli("games", "dkd")
    assert "first_holder = 0" in r.out and "cautious[aim=0.9,figure=1]" in r.out
    assert "strength (int8)" in r.out


def test_help_teaches(cli):
    r = cli("simulate", "--help")
    assert r.code == 0
    assert "--resume" in r.out and "dinolab simulate dkd" in r.out


def test_no_command_shows_the_commands_then_one_line(cli):
    r = cli()
    assert r.code == 2
    assert all(command in r.out for command in ("simulate", "report", "sweep"))
    assert r.err == "error: no command given: pick one of those listed above\n"


def test_help_paragraphs_wrap_to_the_terminal_and_examples_keep_their_lines():
    from simulate.cli.app import reflow

    doc = """First line.

    A paragraph written
    over three lines
    of source.

    Examples:
      dinolab simulate dkd --out a
      dinolab simulate evo --out b
    """
    assert reflow(doc).split("\n\n") == [
        "First line.",
        "A paragraph written over three lines of source.",
        "Examples:\n  dinolab simulate dkd --out a\n  dinolab simulate evo --out b",
    ]


def test_help_shows_bracketed_parameters(cli):
    """Rich markup would swallow an unescaped ``[key=value]`` in a help text."""
    assert "cautious[aim" in cli("simulate", "--help").out  # the option table may cut it
    assert "heuristic[values=values10.csv]" in cli("fit", "--help").out


def bad_deck(tmp_path: Path) -> Path:
    p = tmp_path / "bad.csv"
    p.write_text("kind,id,name,predation,size,speed,adaptability,needs\ndino,1,Rex,9,1,1,1,\n")
    return p


CASES = [
    (["simulate", "evo2"], "unknown game 'evo2'"),
    (["simulate", "dkd", "--players", "7"], "2-6 players, got 7"),
    (["simulate", "dkd", "--players", "1"], "2-6 players, got 1"),
    (["simulate", "dkd", "-s", "greedy,random"], "names 2 strategies for 4 players"),
    (["simulate", "dkd", "-s", "greedy,nobody,random,random"], "unknown strategy 'nobody'"),
    (["simulate", "dkd", "--set", "hand_sise=3"], "unknown rule key 'hand_sise'"),
    (["simulate", "dkd", "--set", "hand_size=0"], "must be an integer in 1..10"),
    (["simulate", "dkd", "--set", "first_holder=5"], "-1..3 for 4 players"),
    (["simulate", "dkd", "--set", "hand_size"], "--set expects key=value"),
    (["simulate", "dkd", "--games", "0"], "--games must be in 1..10**15"),
    (["simulate", "dkd", "--games", "99999999999999999999"], "--games must be in 1..10**15"),
    (["simulate", "dkd", "--games", "many"], "Invalid value for '--games'"),
    (["simulate", "dkd", "--seed", "-1"], "--seed must be in 0..2**64-1"),
    (["simulate", "dkd", "--chunk-size", "0"], "--chunk-size must be at least 1"),
    (["simulate", "dkd", "--workers", "0"], "--workers must be at least 1"),
    (["simulate", "dkd", "--rules", "missing.toml"], "rules file not found"),
    (["simulate", "dkd", "--nonsense"], "No such option: --nonsense"),
    (["replay", "nowhere", "--game", "1"], "is not a dinolab run"),
    (["report", "nowhere"], "is not a dinolab run"),
]


@pytest.mark.parametrize(("args", "message"), CASES)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(cli, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    r = cli(*args, "--out", str(tmp_path / "out")) if args[0] == "simulate" else cli(*args)
    assert r.code == 2
    assert message in r.err
    assert r.err.count("\n") == 1 and r.err.startswith("error: ")
    assert "Traceback" not in r.err + r.out
    assert not (tmp_path / "out").exists() and not (tmp_path / "runs").exists()


def test_malformed_deck_and_rules_file(cli, tmp_path):
    deck = bad_deck(tmp_path)
    r = cli("simulate", "dkd", "--set", f"deck={deck}", "--out", tmp_path / "o")
    assert r.code == 2 and "missing column(s) source" not in r.err and "must be 1-5" in r.err
    toml = tmp_path / "v.toml"
    toml.write_text("hand_size = [\n")
    r = cli("simulate", "dkd", "--rules", toml, "--out", tmp_path / "o")
    assert r.code == 2 and "not valid TOML" in r.err and r.err.count("\n") == 1
    toml.write_text('game = "dkd"\nhand_size = 4\nsurprise = 1\n')
    r = cli("simulate", "dkd", "--rules", toml, "--out", tmp_path / "o")
    assert r.code == 2 and "unknown rule key 'surprise'" in r.err
    assert not (tmp_path / "o").exists()


@pytest.mark.slow
def test_simulate_resume_and_refusals_on_an_existing_run(cli, tmp_path):
    out = tmp_path / "run"
    toml = tmp_path / "variant.toml"
    toml.write_text("hand_size = 4\n")
    args = [
        "simulate",
        "dkd",
        "-n",
        "900",
        "-p",
        "3",
        "-s",
        "greedy,random,cautious",
        "--rotate",
        "--rules",
        toml,
        "--chunk-size",
        "300",
        "--workers",
        "1",
        "--out",
        out,
    ]
    r = cli(*args)
    assert r.code == 0 and "wrote 900 games" in r.out and "PROVISIONAL" in r.out
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["params"]["hand_size"] == 4
    before = snapshot(out)
    r = cli(*args)
    assert r.code == 2 and "not empty; use --resume" in r.err
    r = cli("simulate", "dkd", "-n", "901", "--out", out, "--resume")
    assert r.code == 2 and "games: 900 -> 901" in r.err
    r = cli("simulate", "evo", "--out", out, "--resume")
    assert r.code == 2
    assert snapshot(out) == before
    # Drop the last chunk as a crash would; --resume with only --out finishes it.
    del manifest["chunks"]["2"]
    manifest["status"] = "running"
    (out / "manifest.json").write_text(json.dumps(manifest))
    for table in ("games", "players", "turns"):
        (out / table / "part-00002.parquet").unlink()
    r = cli("simulate", "dkd", "--out", out, "--resume", "--no-progress")
    assert r.code == 0 and "wrote 300 games" in r.out
    after = snapshot(out)
    assert {k: v for k, v in after.items() if k != "manifest.json"} == {
        k: v for k, v in before.items() if k != "manifest.json"
    }
    r = cli("simulate", "dkd", "--out", out, "--resume")
    assert r.code == 0 and "already done" in r.out


def test_replay_reads_a_game_and_matches_its_log(cli, dkd_run):
    r = cli("replay", dkd_run, "--game", "1234")
    assert r.code == 0
    assert "game 1234 of seed 11" in r.out
    assert r.out.count("round ") >= 11 and "replay matches the logged rows" in r.out
    r = cli("replay", dkd_run, "--game", "4000")
    assert r.code == 2 and "--game must be in 0..3999" in r.err


@pytest.mark.slow
def test_the_installed_command_never_shows_a_traceback(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "simulate.cli",
        "simulate",
        "dkd",
        "--players",
        "9",
        "--out",
        str(tmp_path / "x"),
    ]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 2
    assert p.stderr == "error: dino-kontra-dino plays with 2-6 players, got 9\n"


def test_dask_backend_without_the_extra_says_how_to_install(cli, tmp_path, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)
    r = cli("simulate", "dkd", "-n", "10", "--backend", "dask", "--out", tmp_path / "o")
    assert r.code == 2 and "pip install 'dinolab[dask]'" in r.err
    assert not (tmp_path / "o").exists()


def test_backend_and_scheduler_are_checked(cli, tmp_path):
    r = cli("simulate", "dkd", "-n", "10", "--backend", "cloud", "--out", tmp_path / "o")
    assert r.code == 2 and "unknown backend 'cloud' (known: local, threads, dask)" in r.err
    r = cli("simulate", "dkd", "-n", "10", "--scheduler", "tcp://x:1", "--out", tmp_path / "o")
    assert r.code == 2 and "--scheduler needs --backend dask" in r.err
    r = cli(
        "simulate",
        "dkd",
        "-n",
        "10",
        "--backend",
        "threads",
        "--scheduler",
        "tcp://x:1",
        "--out",
        tmp_path / "o",
    )
    assert r.code == 2 and "--scheduler needs --backend dask" in r.err
    assert not (tmp_path / "o").exists()


def test_verify_reports_damage_with_exit_1(cli, dkd_run, tmp_path):
    import shutil

    r = cli("verify", dkd_run)
    assert r.code == 0 and "run verified" in r.out
    copy = tmp_path / "copy"
    shutil.copytree(dkd_run, copy)
    with open(copy / "turns" / "part-00001.parquet", "ab") as f:
        f.write(b"x")
    (copy / "games" / "part-00002.parquet").unlink()
    r = cli("verify", copy)
    assert r.code == 1
    assert "turns/part-00001.parquet does not match its recorded checksum" in r.out
    assert "games/part-00002.parquet is missing" in r.out


def test_compare_plays_a_paired_variant_and_refuses_bad_changes(cli, dkd_run, tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(dkd_run, run)
    for args, message in [
        (["--set", "bogus=1"], "unknown rule key 'bogus'"),
        (["--set", "hand_size=3"], "changes no rule"),
        (["--set", "first_holder=-1", "--games", "0"], "--games must be in 1..4000"),
    ]:
        r = cli("compare", run, *args)
        assert r.code == 2 and message in r.err and r.err.count("\n") == 1
    assert not (run / "variants").exists()
    r = cli(
        "compare",
        run,
        "--set",
        "first_holder=-1",
        "--games",
        "800",
        "--workers",
        "1",
        "--no-progress",
    )
    assert r.code == 0, r.err
    assert "paired comparison over 800 games" in r.out and "seat 0:" in r.out
    assert (run / "variants" / "first_holder=-1" / "manifest.json").is_file()


@pytest.mark.slow
def test_the_first_run_on_a_machine_says_it_is_compiling(tmp_path):
    """With an empty kernel cache the run says why it is slow to start; the next run does not."""
    env = {
        **os.environ,
        "DINOLAB_CACHE_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": str(ROOT),
        "DINOLAB_GAMES": "tests.toygame",
    }
    cmd = [
        sys.executable,
        "-m",
        "simulate.cli",
        "simulate",
        "toy",
        "-n",
        "20",
        "--workers",
        "1",
        "--no-progress",
        "--out",
    ]
    first = subprocess.run([*cmd, str(tmp_path / "a")], env=env, capture_output=True, text=True)
    again = subprocess.run([*cmd, str(tmp_path / "b")], env=env, capture_output=True, text=True)
    assert first.returncode == again.returncode == 0, first.stderr
    assert "compiling the High card (test game) kernels, once per machine" in first.stderr
    assert "compiling" not in again.stderr


def test_compare_runs_side_by_side_paired_when_they_share_seeds(cli, dkd_run, tmp_path):
    args = [
        "simulate",
        "dkd",
        "-n",
        "3000",
        "--seed",
        "11",
        "-s",
        "greedy,cautious,blind,random",
        "--rotate",
        "--workers",
        "1",
        "--no-progress",
    ]
    assert cli(*args, "--set", "hand_size=4", "--out", tmp_path / "h4").code == 0
    assert cli(*args[:4], "--seed", "12", *args[6:], "--out", tmp_path / "s12").code == 0
    r = cli("compare", dkd_run, tmp_path / "h4", tmp_path / "s12", "--out", tmp_path / "cmp")
    assert r.code == 0, r.err
    assert "rule hand_size 3 -> 4" in r.out and "(paired: same seeds)" in r.out
    assert "seed 11 -> 12" in r.out and "(independent)" in r.out
    assert "run 1 seat_share[0]" in r.out and "(paired)" in r.out
    assert "run 1 figure_decides" in r.out and "run 2 first_share" in r.out
    page = (tmp_path / "cmp" / "compare.html").read_text()
    assert "<img" in page and "Headline figures" in page


def test_compare_and_rate_refuse_runs_of_different_games(cli, dkd_run, evo_run, tmp_path):
    for command in ("compare", "rate"):
        r = cli(command, dkd_run, evo_run, "--out", tmp_path / command)
        assert r.code == 2 and r.err.count("\n") == 1, r.err
        assert "different games" in r.err or "one game" in r.err
        assert not (tmp_path / command).exists()


def test_rate_puts_the_strategies_on_one_scale(cli, dkd_run, tmp_path):
    r = cli("rate", dkd_run, "--out", tmp_path / "r")
    assert r.code == 0, r.err
    lines = [line.split()[0] for line in r.out.splitlines()[1:5]]
    assert set(lines) == {"greedy", "cautious", "blind", "random"}
    assert (tmp_path / "r" / "ratings.html").read_text().count("<img") == 1


def test_dinolab_workers_sets_the_default_worker_count(cli, tmp_path, monkeypatch):
    from simulate.executors import default_workers

    monkeypatch.delenv("DINOLAB_WORKERS", raising=False)
    assert default_workers() == (os.cpu_count() or 1)
    monkeypatch.setenv("DINOLAB_WORKERS", "3")
    assert default_workers() == 3
    for bad, words in (("0", "at least 1, got 0"), ("two", "a whole number, got 'two'")):
        monkeypatch.setenv("DINOLAB_WORKERS", bad)
        out = tmp_path / bad
        r = cli("simulate", "dkd", "-n", "10", "--out", out, "--no-progress")
        assert r.code == 2 and r.err == f"error: DINOLAB_WORKERS must be {words}\n", r.err
        assert not out.exists()
    monkeypatch.setenv("DINOLAB_WORKERS", "1")
    r = cli("simulate", "dkd", "-n", "10", "--out", tmp_path / "one", "--no-progress")
    assert r.code == 0 and "1 worker" in r.err + r.out, r.err


def test_rates_are_printed_with_two_significant_digits():
    from simulate.progress import rate_text, significant

    assert rate_text(12 / 9.2) == "1.3 games/s"  # 12 EVO search games in 9.2 s, not "1"
    assert rate_text(27.4) == "27 games/s"
    assert rate_text(24_321.0) == "24,000 games/s"
    assert rate_text(817_468.0) == "820,000 games/s"
    assert rate_text(0.0543, "points") == "0.054 points/s"
    assert significant(9.96) == "10" and significant(99.6) == "100" and significant(0.999) == "1.0"
    assert significant(0) == "0" and significant(-1234) == "-1,200"


def test_resume_on_an_empty_or_missing_folder_starts_the_run(cli, tmp_path):
    """A run killed before it wrote anything leaves nothing to resume: the same command with
    --resume starts it, says so, and plays exactly the run a fresh command plays."""
    args = ["simulate", "dkd", "-n", "400", "-p", "4", "--seed", "3", "--workers", "1"]
    fresh = tmp_path / "fresh"
    assert cli(*args, "--out", fresh, "--no-progress").code == 0
    for out in (tmp_path / "missing", tmp_path / "empty"):
        if out.name == "empty":
            out.mkdir()
        r = cli(*args, "--out", out, "--resume", "--no-progress")
        assert r.code == 0, r.err
        assert f"nothing to resume in {out}" in r.out and "wrote 400 games" in r.out
        for table in ("games", "players"):
            got = sorted(p.read_bytes() for p in (out / table).glob("*.parquet"))
            assert got == sorted(p.read_bytes() for p in (fresh / table).glob("*.parquet"))


def test_a_run_of_one_chunk_starts_no_worker(cli, tmp_path):
    """A pool gets no more workers than the run has chunks: one chunk plays in-process (a
    small run starts in about the time it takes to load its kernel), and its rows are those
    of the same run on two workers with small chunks."""
    args = ["simulate", "dkd", "-n", "600", "-p", "3", "--seed", "8", "--no-progress"]
    r = cli(*args, "--out", tmp_path / "one", "--workers", "2")
    assert r.code == 0 and "1 worker)" in r.out
    r = cli(*args, "--out", tmp_path / "two", "--workers", "2", "--chunk-size", "200")
    assert r.code == 0 and "2 workers)" in r.out
    import polars as pl

    for table in ("games", "players", "turns"):
        one = pl.read_parquet(tmp_path / "one" / table)
        two = pl.read_parquet(tmp_path / "two" / table)
        assert one.equals(two), table


def test_a_run_imports_neither_pandas_nor_polars():
    """A run's start stays short: what a run's driver and workers do besides the kernel (the
    CLI and runner, each game's declaration and data files, encoding parts with list columns)
    goes around pyarrow's pandas shim, and polars is imported only where a fit or a report
    needs it. In a fresh process, with no kernel to compile."""
    code = """
import sys
import numpy as np
import pyarrow as pa
import simulate.cli, simulate.executors, simulate.runner, simulate.session
from simulate.games import all_games
from simulate.kit.arrow import strings, to_arrow
from simulate.parquet import encode
for g in all_games():
    b = g.bench
    assert g.data_files(g.setup(g.parameters(), b.players, b.lineup))
team = pa.ListArray.from_arrays(to_arrow(np.array([0, 2, 2, 3]), pa.int32()), strings(list("aba")))
assert encode(pa.Table.from_arrays([team], ["team"]))
print(sorted(m for m in ('pandas', 'polars') if m in sys.modules))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip().splitlines()[-1] == "[]"
