"""The restricted-play study and the ladder from Python: the study layer's requests play what
the commands play (small Dino Kontra Dino runs), and the composition functions the commands
call measure and write the same files."""

from __future__ import annotations

import json

from simulate.executors import InlineExecutor
from simulate.rundir import Run


def test_the_restricted_play_study_plays_from_python(tmp_path):
    from simulate.cli.restrict_commands import restricted_play
    from simulate.study.restrict import RestrictRequest, restrict

    request = RestrictRequest(
        "dkd", options="figure", strategy="cautious", games=300, players=3, seed=5,
        out=str(tmp_path / "study"),
    )  # fmt: skip
    lines: list[str] = []
    plan = restrict(request, InlineExecutor(), echo=lines.append)
    assert [p.option for p in plan.runs] == [None, "figure"]
    assert lines == [
        "Dino Kontra Dino: cautious x3, 1 options, 300 games per run; 2 of 2 runs to play"
    ]
    assert all(Run(p.store).complete and Run(p.store).games_logged == 300 for p in plan.runs)
    record = json.loads((tmp_path / "study" / "restrict.json").read_text())
    assert record == plan.record and record["options"][0]["run"] == "runs/forbid-figure"
    # the command's composition: nothing left to play, the report written
    html, _, table = restricted_play(request, workers=1, echo=lines.append)
    assert lines[-1].endswith("0 of 2 runs to play")
    assert table["option"].to_list() == ["figure"]
    assert (tmp_path / "study" / "report.md").read_text() and html.endswith("report.html")


def test_the_ladder_plays_and_rates_from_python(tmp_path):
    from simulate.cli.ladder_commands import ladder_ratings
    from simulate.study.ladder import LadderRequest, ladder

    request = LadderRequest(
        "dkd", out=str(tmp_path / "lad"), rungs=("random:200", "tuned:200"), players=3
    )
    plan = ladder(request, InlineExecutor())
    assert [r.bot for r in plan.rungs] == ["random", "tuned"]
    runs = [Run(d) for d in plan.dirs]
    assert all(r.complete and r.games_logged == 200 for r in runs)
    assert runs[1].config["strategies"][0].startswith("tuned") and runs[1].config["rotate"]
    lines: list[str] = []
    again = ladder_ratings(request, workers=1, echo=lines.append)
    assert all(r.kept for r in again.rungs)
    assert sum("(kept)" in line for line in lines) == 2
    assert any(line.lstrip().startswith("tuned") and "%" in line for line in lines)
    assert (tmp_path / "lad" / "dino-kontra-dino" / "ratings.md").exists()
