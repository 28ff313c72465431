"""The runner: determinism across workers and chunk sizes, resume, replace, and refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from rules.core.errors import DinolabError
from simulate.config import build_config
from simulate.executors import InlineExecutor, ProcessExecutor
from simulate.manifest import read_manifest
from simulate.runner import run

LINEUP = "greedy,cautious,blind,random"


def config(games=3000, chunk=1000, seed=3, **kw):
    return build_config(
        "dkd",
        n_players=4,
        strategies=LINEUP,
        rotate=True,
        seed=seed,
        games=games,
        chunk_size=chunk,
        **kw,
    )


def read(run_dir: Path, table: str) -> pa.Table:
    parts = sorted((run_dir / table).glob("part-*.parquet"))
    return pa.concat_tables([pq.read_table(p) for p in parts])


def files(run_dir: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run_dir)): p.read_bytes() for p in sorted(run_dir.rglob("*.parquet"))}


@pytest.mark.slow
def test_same_bytes_with_one_or_two_workers_and_same_rows_for_any_chunk_size(tmp_path):
    cfg, setup = config()
    run(cfg, setup, tmp_path / "w1", InlineExecutor())
    run(cfg, setup, tmp_path / "w2", ProcessExecutor(2))
    assert files(tmp_path / "w1") == files(tmp_path / "w2")
    for chunk in (1, 7, 3000):
        cfg2, setup2 = config(chunk=chunk) if chunk != 1 else config(games=40, chunk=1)
        out = tmp_path / f"c{chunk}"
        run(cfg2, setup2, out, InlineExecutor())
        for table in ("games", "players", "turns"):
            whole = read(tmp_path / "w1", table)
            got = read(out, table)
            assert got.equals(whole.slice(0, got.num_rows)), (table, chunk)


def test_manifest_describes_the_run(tmp_path):
    cfg, setup = config()
    out = tmp_path / "run"
    run(cfg, setup, out, InlineExecutor())
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "complete" and m["config"]["games"] == 3000
    assert len(m["chunks"]) == 3
    assert m["chunks"]["2"]["rows"] == {
        "games": 1000,
        "players": 4000,
        "rounds": 11000,
        "turns": 44000,
    }
    assert "PROVISIONAL" in m["data"]["description"]
    assert set(m["data"]["files"]) == {
        "deck.csv",
        "dinos.parquet",
        "events.parquet",
        "strength.parquet",
    }
    assert m["tables"]["turns"]["columns"][0]["name"] == "game_id"
    derived = {c["name"]: c["derived"] for c in m["tables"]["turns"]["columns"] if "derived" in c}
    assert derived["won"] == {
        "from": "rounds",
        "on": ["game_id", "round"],
        "column": "winner",
        "equals": "seat",
    }
    assert set(derived) == {"event_id", "strength", "holder", "won"}
    assert "cautious" in m["strategies"]


class CrashAfter(InlineExecutor):
    """Dies (like a killed driver) after ``n`` chunks."""

    def __init__(self, n: int):
        self.n = n

    def run(self, setup, jobs):
        for i, result in enumerate(super().run(setup, jobs)):
            if i == self.n:
                raise KeyboardInterrupt
            yield result


def test_resume_after_a_crash_finishes_only_what_is_missing(tmp_path):
    cfg, setup = config(games=5000)
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run(cfg, setup, out, CrashAfter(2))
    m = read_manifest(out)
    assert m["status"] == "running" and sorted(m["chunks"]) == ["0", "1"]
    assert json.loads((out / "manifest.json").read_text())["chunks"] == {}, "journal only"
    (out / "turns" / ".tmp-part-00004.parquet.123").write_bytes(b"half a file")
    with open(out / "chunks.jsonl", "a") as f:
        f.write('{"chunk": 2, "start": 2000, "sto')  # a line torn by the crash
    summary = run(cfg, setup, out, InlineExecutor(), resume=True)
    assert summary.chunks_run == 3
    assert not list(out.rglob(".tmp-*"))
    assert not (out / "chunks.jsonl").exists()
    assert len(json.loads((out / "manifest.json").read_text())["chunks"]) == 5
    run(cfg, setup, tmp_path / "clean", InlineExecutor())
    assert files(out) == files(tmp_path / "clean")


def test_a_temporary_file_orphaned_mid_run_is_swept_at_the_end(tmp_path):
    """A worker SIGKILLed while writing leaves its temporary file; the finished run has none."""
    from simulate.verify import verify_run

    cfg, setup = config()
    out = tmp_path / "run"

    def orphan(done: int, total: int) -> None:
        if 0 < done < total:  # as a worker killed mid-write would leave it
            (out / "turns" / f".tmp-part-0000{done // 1000}.parquet.999").write_bytes(b"half")

    run(cfg, setup, out, InlineExecutor(), on_chunk=orphan)
    assert not list(out.rglob(".tmp-*"))
    assert verify_run(out).ok


def test_refusals_leave_everything_untouched(tmp_path):
    cfg, setup = config()
    out = tmp_path / "run"
    run(cfg, setup, out, InlineExecutor())
    before = files(out)
    with pytest.raises(DinolabError, match="not empty; use --resume"):
        run(cfg, setup, out, InlineExecutor())
    other, setup2 = config(seed=4)
    with pytest.raises(DinolabError, match=r"different configuration \(seed: 3 -> 4\)"):
        run(other, setup2, out, InlineExecutor(), resume=True)
    with pytest.raises(DinolabError, match="contradict"):
        run(cfg, setup, out, InlineExecutor(), resume=True, force=True)
    assert files(out) == before
    stranger = tmp_path / "notes"
    stranger.mkdir()
    (stranger / "thesis.txt").write_text("precious")
    with pytest.raises(DinolabError, match="not a dinolab run directory"):
        run(cfg, setup, stranger, InlineExecutor(), force=True)
    assert (stranger / "thesis.txt").read_text() == "precious"


def test_force_replaces_a_run(tmp_path):
    cfg, setup = config()
    out = tmp_path / "run"
    run(cfg, setup, out, InlineExecutor())
    (out / "report.html").write_text("old report")
    cfg2, setup2 = config(games=1000)
    run(cfg2, setup2, out, InlineExecutor(), force=True)
    assert not (out / "report.html").exists()
    assert read(out, "games").num_rows == 1000
    assert len(list((out / "turns").glob("part-*"))) == 1


def test_a_changed_deck_file_is_a_different_run(tmp_path):
    deck = tmp_path / "deck.csv"
    from rules.dino_kontra_dino.deck import BUILTIN

    deck.write_text(BUILTIN["provisional"].read_text())
    cfg, setup = config(assignments=[f"deck={deck}"])
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run(cfg, setup, out, CrashAfter(1))
    deck.write_text(deck.read_text().replace("dino,1,Allosaurus,4", "dino,1,Allosaurus,5"))
    cfg2, setup2 = config(assignments=[f"deck={deck}"])
    with pytest.raises(DinolabError, match="data_digest"):
        run(cfg2, setup2, out, InlineExecutor(), resume=True)


def test_reused_buffers_give_the_same_tables_as_fresh_ones():
    from simulate.kit.play import play

    _, setup = config()
    fresh = [play(setup, 3, True, a, a + 500) for a in (0, 500, 1000)]
    for a, expected in zip((0, 500, 1000), fresh, strict=True):
        tables = play(setup, 3, True, a, a + 500, reuse=True)
        for name, table in expected.items():
            assert tables[name].equals(table), (a, name)
    # without reuse play() allocates again, so earlier tables stay valid
    one, two = play(setup, 3, True, 0, 500), play(setup, 3, True, 500, 1000)
    assert one["turns"].equals(fresh[0]["turns"]) and two["turns"].equals(fresh[1]["turns"])


def test_buffer_classes_are_found_by_name_for_pickling():
    """A spec registers its buffer classes in ``simulate.kit.buffers`` by name (no attribute is
    set on the module): pickle and numba's cache find them there, and a table added to a game
    makes a new class without disturbing the others."""
    import pickle

    from simulate.kit import buffers
    from simulate.kit.play import play_logs

    _, setup = config()
    logs = play_logs(setup, 3, True, 0, 20)
    assert pickle.loads(pickle.dumps(logs)).turns.meta.tolist() == logs.turns.meta.tolist()
    name = type(logs.turns).__name__
    assert getattr(buffers, name) is type(logs.turns) and name not in vars(buffers)
    assert buffers.log_types(setup.game.name, setup.game.tables) is type(logs)  # made once
    with pytest.raises(AttributeError):
        buffers.no_such_game__logs  # noqa: B018
