"""The conformance suite: what every registered game must do, checked for each of them.

It reads nothing but the games' specs, so a new game gets every check by registering. The
throwaway test game in ``tests/toygame/`` (registered through ``$DINOLAB_GAMES``, touching no
shared module) passes it too: that is the proof that a game is its folders plus one line.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rules.core.errors import DinolabError
from simulate.config import build_config
from simulate.executors import InlineExecutor, ProcessExecutor
from simulate.games import GAMES as REGISTERED
from simulate.kit.buffers import arrow_tables
from simulate.kit.play import play, play_logs
from simulate.kit.spec import GameSpec, load_spec
from simulate.kit.tables import SHARED_COLUMNS, schema_digest
from simulate.replay import replay_game
from simulate.runner import run
from simulate.verify import verify_run
from tests.faults import parquet_files
from tests.test_runner import CrashAfter

ROOT = Path(__file__).resolve().parents[1]
TOY = "tests.toygame"
SPECS = [load_spec(m) for m in [*REGISTERED, TOY]]
pytestmark = pytest.mark.parametrize("game", SPECS, ids=lambda g: g.name)


@pytest.fixture(scope="module", autouse=True)
def toy_registered():
    """The test game joins the registry the way any outside game would (and workers see it)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("DINOLAB_GAMES", TOY)
        yield


def small(game: GameSpec, games: int | None = None, chunks: int = 3, **kw):
    """The game's test configuration: its demo lineup, a few hundred games, a few chunks."""
    d = game.demo
    n = games or d.test_games
    return build_config(
        game.name,
        n_players=d.players,
        strategies=d.strategy,
        rotate=d.rotate,
        seed=13,
        games=n,
        chunk_size=-(-n // chunks),
        **kw,
    )


_RUNS: dict[str, Path] = {}


@pytest.fixture
def small_run(game, tmp_path_factory) -> Path:
    """One finished small run per game, made once and shared (read only)."""
    if game.name not in _RUNS:
        cfg, setup = small(game)
        out = tmp_path_factory.mktemp("conformance") / game.name
        run(cfg, setup, out, InlineExecutor())
        _RUNS[game.name] = out
    return _RUNS[game.name]


def test_the_shared_columns_are_declared(game):
    names = {t.name: {c.name for c in t.columns} for t in game.logged_tables}
    for table, columns in SHARED_COLUMNS.items():
        assert set(columns) <= names[table], table
    assert all(c.doc for t in game.logged_tables for c in t.columns), "every column has a doc"


def test_tables_match_their_declaration_and_every_column_is_written(game):
    _, setup = small(game)
    tables = play(setup, 3, True, 0, 40)
    assert set(tables) == {t.name for t in game.logged_tables}
    for t in game.logged_tables:
        assert tables[t.name].schema.equals(t.arrow()), t.name
    # Buffers filled with 0 and then with 1 beforehand: a column no kernel writes shows its fill.
    a, b = (arrow_tables(setup, play_logs(setup, 3, True, 0, 40, poison=x), 0) for x in (0, 1))
    for name, table in a.items():
        for column in table.column_names:
            assert table[column].equals(b[name][column]), f"{name}.{column} is never written"
            assert table[column].equals(tables[name][column]), f"{name}.{column} differs"


@pytest.mark.slow
def test_rows_do_not_depend_on_chunk_size_or_worker_count(game, tmp_path):
    cfg, setup = small(game)
    run(cfg, setup, tmp_path / "one", InlineExecutor())
    run(cfg, setup, tmp_path / "two", ProcessExecutor(2))
    assert parquet_files(tmp_path / "one") == parquet_files(tmp_path / "two")
    cfg7, setup7 = small(game, chunks=7)
    run(cfg7, setup7, tmp_path / "seven", InlineExecutor())
    for t in game.logged_tables:
        whole = pa.concat_tables(
            pq.read_table(p) for p in sorted((tmp_path / "one" / t.name).glob("*.parquet"))
        )
        split = pa.concat_tables(
            pq.read_table(p) for p in sorted((tmp_path / "seven" / t.name).glob("*.parquet"))
        )
        assert split.equals(whole), t.name


SCRIPT = """
import hashlib, sys
from simulate.config import build_config
from simulate.kit.play import play
cfg, setup = build_config({name!r}, n_players={players}, strategies={strategy!r}, rotate=True,
                          seed=17, games={games}, chunk_size={games})
h = hashlib.sha256()
for name, table in sorted(play(setup, 17, True, 0, {games}).items()):
    h.update(name.encode()); h.update(repr(table.to_pydict()).encode())
print(h.hexdigest())
"""


@pytest.mark.slow
def test_interpreted_equals_compiled(game):
    d = game.demo
    script = SCRIPT.format(
        name=game.name, players=d.players, strategy=d.strategy, games=game.bench.interpreted_games
    )
    digests = []
    for disable in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable, "PYTHONPATH": str(ROOT)}
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=ROOT
        )
        assert out.returncode == 0, out.stderr[-2000:]
        digests.append(out.stdout.split()[-1])
    assert digests[0] == digests[1]


@pytest.mark.slow
def test_checked_games_end_as_the_kernel_says(game):
    _, setup = small(game)
    for gid in range(12):
        checked = game.check(setup, 21, gid)
        tables = play(setup, 21, False, gid, gid + 1)
        assert checked.winners == tables["players"]["winner"].to_pylist(), gid
        assert checked.rounds == tables["games"]["rounds"][0].as_py(), gid
        assert checked.decisions > 0


def test_replay_round_trips_against_the_logs(game, small_run):
    for gid in (0, 7, game.demo.test_games - 1):
        text = replay_game(small_run, gid)
        assert text.endswith(")") and "replay matches the logged rows" in text, gid


def test_resume_after_a_crash_gives_identical_tables(game, tmp_path):
    cfg, setup = small(game)
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run(cfg, setup, out, CrashAfter(1))
    with open(out / "chunks.jsonl", "a") as f:
        f.write('{"chunk": 1, "start": ')  # a line torn by the crash
    summary = run(cfg, setup, out, InlineExecutor(), resume=True)
    assert summary.chunks_run == 2
    run(cfg, setup, tmp_path / "clean", InlineExecutor())
    assert parquet_files(out) == parquet_files(tmp_path / "clean")
    assert verify_run(out).ok


def test_verify_catches_a_truncated_part(game, small_run, tmp_path):
    damaged = tmp_path / "damaged"
    shutil.copytree(small_run, damaged)
    table = game.logged_tables[-1].name
    part = sorted((damaged / table).glob("part-*.parquet"))[1]
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])
    report = verify_run(damaged)
    assert not report.ok
    assert any(f"{table}/{part.name}" in p for p in report.problems)
    assert verify_run(small_run).ok


@pytest.mark.slow
def test_every_strategy_plays_every_player_count(game):
    for name in game.registry.names():
        for n in range(game.min_players, game.max_players + 1):
            setup = game.setup(game.parameters(), n, name)
            tables = play(setup, 4, False, 0, 1)  # a whole game with a winner is the point
            winners = tables["players"]["winner"].to_pylist()
            assert len(winners) == n and sum(winners) >= 1, (name, n)


def _bad_values(game: GameSpec) -> list[tuple[list[str], str]]:
    cases = [
        (["--set", "no_such_rule=1"], "unknown rule key 'no_such_rule'"),
        (["--players", str(game.max_players + 1)], f"got {game.max_players + 1}"),
        (["--strategy", "nobody"], "unknown strategy 'nobody'"),
    ]
    for p in game.parameters.info().values():
        if p.kind == "int" and p.hi is not None:
            cases.append((["--set", f"{p.name}={int(p.hi) + 1}"], f"rule '{p.name}' must be"))
            break
    return cases


def test_bad_rule_keys_and_values_are_refused_in_one_line(game, cli, tmp_path):
    for args, message in _bad_values(game):
        out = tmp_path / "never"
        r = cli("simulate", game.name, "--games", "10", *args, "--out", out, "--no-progress")
        assert r.code == 2, (args, r.err)
        assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
        assert message in r.err, (message, r.err)
        assert not out.exists()


@pytest.mark.slow
def test_the_report_builds_and_its_numbers_match_the_logs(game, small_run, tmp_path):
    from simulate.cli.analysis_commands import write_report

    copy = tmp_path / "run"
    shutil.copytree(small_run, copy)
    # every game's robustness section, on a companion of a few games (cheap with search bots)
    html, md = write_report(str(copy), variants=False, robustness_games=40)
    text = Path(md).read_text()
    assert Path(html).read_text().count("<img") >= 2
    assert "## Robustness: with stronger bots" in text
    players = pa.concat_tables(pq.read_table(p) for p in sorted((copy / "players").glob("*")))
    games = pa.concat_tables(pq.read_table(p) for p in sorted((copy / "games").glob("*")))
    n_winners = dict(zip(games["game_id"].to_pylist(), games["n_winners"].to_pylist(), strict=True))
    shares: dict[int, list[float]] = {}
    for gid, seat, won in zip(
        players["game_id"].to_pylist(),
        players["seat"].to_pylist(),
        players["winner"].to_pylist(),
        strict=True,
    ):
        shares.setdefault(seat, []).append(won / n_winners[gid])
    seats = re.search(r"## Seat advantage\n.*?\n\|(.*?)\n\n", text, re.S).group(0)
    for seat, values in shares.items():
        expected = f"| {seat} | {len(values):,} | {np.mean(values):.2%} ["
        assert expected in seats, (expected, seats)
    assert f"{sum(games['rounds'].to_pylist()) / games.num_rows:.2f}" in text  # mean length


def test_the_game_is_documented_and_has_a_notebook_if_declared(game):
    assert game.title and game.registry.names() and game.default_strategy
    if game.notebook is not None:
        assert (ROOT / game.notebook).is_file()
    # the manifest's schema digest follows every logged column: one column fewer, another digest
    digest = game.schema["digest"]
    assert re.fullmatch(r"[0-9a-f]{16}", digest) and game.schema["version"] == game.schema_version
    first, *rest = game.logged_tables
    fewer = dataclasses.replace(first, columns=first.columns[1:])
    assert schema_digest([fewer, *rest]) != digest == schema_digest([first, *rest])
    with pytest.raises(DinolabError):
        game.setup(game.parameters(), game.min_players - 1, None)
