"""Fuzzing the command line: random arguments, rule keys and values, broken TOML and data files.

Every invocation either succeeds (exit 0) or exits 2 with one line ``error: ...``; never a
traceback, and a refused simulation leaves its --out folder absent.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from simulate.games import all_games
from tests.conftest import run_cli

GAMES = all_games()
NAMES = [g.name for g in GAMES] + [a for g in GAMES for a in g.aliases]
JUNK = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
NUMBERS = st.sampled_from(["0", "1", "3", "7", "-1", "2.5", "1e3", "99999999999999999999", "x", ""])


@st.composite
def valid_value(draw, p):
    if p.choices:
        return str(draw(st.sampled_from(p.choices)))
    if p.kind == "bool":
        return draw(st.sampled_from(["true", "false"]))
    if p.kind == "int":
        lo, hi = int(p.lo if p.lo is not None else 0), int(p.hi if p.hi is not None else 100)
        return str(draw(st.integers(lo, min(hi, lo + 20))))
    if p.kind == "float":
        lo, hi = p.lo if p.lo is not None else 0.0, p.hi if p.hi is not None else 1.0
        return repr(draw(st.floats(lo, hi)))
    return str(p.default)


@st.composite
def set_items(draw, game):
    info = game.parameters.info()
    if draw(st.integers(0, 3)):  # mostly a known key with a value in range
        p = info[draw(st.sampled_from(list(info)))]
        return f"{p.name}={draw(valid_value(p))}"
    key = draw(st.one_of(st.sampled_from(list(info)), JUNK))
    value = draw(st.one_of(NUMBERS, JUNK, st.sampled_from(["true", "false", "provisional"])))
    return f"{key}={value}" if draw(st.booleans()) else key


@st.composite
def simulate_args(draw):
    game = draw(st.sampled_from(GAMES))
    name = draw(st.sampled_from(NAMES)) if draw(st.integers(0, 4)) else draw(JUNK)
    args = ["simulate", name, "--workers", "1", "--no-progress"]
    # --games: small valid counts, or values that must be refused. A huge count that were
    # accepted would make this test play forever; refusing it is part of what is tested.
    refused = st.sampled_from(["0", "-1", "2.5", "1e3", "x", "", "99999999999999999999"])
    games = st.sampled_from(["1", "3", "8"]) if draw(st.booleans()) else refused
    args += ["--games", draw(games) if draw(st.integers(0, 3)) else "4"]
    if draw(st.booleans()):
        players = st.integers(game.min_players, game.max_players).map(str)
        args += ["--players", draw(players if draw(st.integers(0, 2)) else NUMBERS)]
    if draw(st.booleans()):
        bots = game.registry.names()
        if draw(st.integers(0, 2)):
            lineup = [draw(st.sampled_from(bots))]
        else:
            junk = st.sampled_from(["", "nobody", "greedy[", "cautious[aim=9]"])
            lineup = draw(
                st.lists(st.one_of(st.sampled_from(bots), junk, JUNK), min_size=1, max_size=7)
            )
        args += ["--strategy", ",".join(lineup)]
    for item in draw(st.lists(set_items(game), max_size=3)):
        args += ["--set", item]
    if draw(st.booleans()):
        args += ["--seed", draw(NUMBERS)]
    if draw(st.booleans()):
        args += ["--chunk-size", draw(NUMBERS)]
    if draw(st.booleans()):
        args.append(draw(st.sampled_from(["--rotate", "--resume", "--force", "--bogus"])))
    rules = deck = None
    if not draw(st.integers(0, 3)):
        rules = draw(
            st.one_of(
                st.binary(max_size=200),
                JUNK,
                st.sampled_from(
                    ["hand_size = 4\n", 'game = "dkd"\n', "[rules]\nx = 1\n", "a = [1,\n"]
                ),
            )
        )
    if not draw(st.integers(0, 4)):
        deck = draw(st.binary(max_size=300))
    return args, rules, deck


@pytest.mark.slow
@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow])
@given(simulate_args())
def test_random_command_lines_succeed_or_fail_in_one_line(case):
    args, rules, deck = case
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        out = tmp / "out"
        if rules is not None:
            path = tmp / "rules.toml"
            path.write_bytes(rules if isinstance(rules, bytes) else rules.encode())
            args = [*args, "--rules", str(path)]
        if deck is not None:
            path = tmp / "deck.csv"
            path.write_bytes(deck)
            args = [*args, "--set", f"deck={path}"]
        r = run_cli(*args, "--out", str(out))
        event(f"exit code {r.code}")
        assert r.code in (0, 2), (args, r.code, r.err)
        assert "Traceback" not in r.err + r.out
        if r.code == 2:
            assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
            assert not out.exists() or not any(out.iterdir())
        else:
            assert (out / "manifest.json").is_file()


@pytest.mark.slow
@settings(max_examples=40)
@given(st.sampled_from(["replay", "report", "verify", "games", "frobnicate"]), JUNK)
def test_other_commands_with_junk(command, junk):
    r = run_cli(command, junk) if junk else run_cli(command, "nowhere-" + command)
    assert r.code in (0, 1, 2)
    assert "Traceback" not in r.err + r.out
    if r.code == 2:
        assert r.err.startswith("error: ") and r.err.count("\n") == 1, r.err
