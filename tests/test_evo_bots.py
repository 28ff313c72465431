"""EVO bots: restricted play, the value table parameter, the fit command, bidding and cards,
seat symmetry."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from rules.core.jit import records
from rules.core.rng import seed_streams
from rules.evo.board import add_dino
from rules.evo.cards import (
    ACCIDENT,
    CARDS,
    DOUBLING,
    GENE_GUARD,
    MISSING_LINK,
    SURPRISE,
    TOUGH_YOUNG,
    TRUCE,
    W_CLIMATE,
    W_MOVEMENT,
    WANDERERS,
)
from rules.evo.constants import BID, CARD_PLAY, GENES, HORN, MAX_PLAYERS, MOVE, PASS, TEMPERATE
from rules.evo.engine import ST_AUCTION_START, apply, pack
from rules.evo.options import OPTIONS, card_option
from simulate.games.evo import SPEC as GAME
from simulate.games.evo.fit import (
    FLOOR_PRICE,
    REFINE_CAP,
    REFINE_GAIN,
    REFINE_PRIOR,
    raise_premiums,
)
from simulate.kit.play import play
from strategies.core.registry import StrategyError
from strategies.evo import REGISTRY
from strategies.evo.allowed import all_forbidden, forbidden, n_allowed, uses_forbidden
from strategies.evo.bots import choose
from strategies.evo.search import SCRATCH
from strategies.evo.values import BUILTIN, builtin, load
from tests.test_evo_rules import empty_board, run

BOTS = ["random", "heuristic", "heuristic-v1", "search[rollouts=1,candidates=2]"]


def setup(lineup: str, n: int = 4, **rules):
    params = GAME.parameters().with_values(rules) if rules else GAME.parameters()
    return GAME.setup(params, n, lineup)


# ---------------------------------------------------------------- restricted play


def test_options_are_the_genes_then_the_cards_by_name():
    assert REGISTRY.options == OPTIONS
    assert OPTIONS[:8] == GENES and len(OPTIONS) == 8 + 26
    assert OPTIONS[card_option(16)] == "Osztódás" == CARDS[DOUBLING - 1].hungarian


@pytest.mark.slow
@pytest.mark.parametrize("bot", BOTS)
def test_forbidden_options_are_taken_only_when_nothing_else_is_legal(bot):
    """The checker asserts every action of position 0 (simulate.kit.check); fur and egg rows and
    three cards are forbidden to it."""
    forbid = {0: ("fur", "egg", "Baleset", "Alvógén", "Kire ütött ez a gyerek?")}
    s = setup(f"{bot},heuristic,heuristic,random")
    bought = np.zeros((4, 8), int)
    games = 2 if bot.startswith("search") else 12
    for g in range(games):
        game = GAME.check(s, 5, g, forbid=forbid)
        for b in game.bids:
            bought[b.seat, b.gene] += 1
        assert not any(c.seat == 0 and c.card in (1, 2, 13) for c in game.cards)
    assert bought[1:, GENES.index("fur")].sum() > 0  # others buy what position 0 may not


def test_a_forbidden_gene_is_bid_on_when_every_row_is_forbidden():
    tb, st, _ = empty_board(3)
    st.step, st.rnd = ST_AUCTION_START, 4
    st.hand[:3] = 0
    st.order[:3] = [0, 1, 2]
    assert run(tb, st) == BID and st.actor == 0
    lu = REGISTRY.lineup_record(REGISTRY.lineup("heuristic", 3), {0: GENES})[0]
    assert all_forbidden(lu, 0, tb, st)  # every row's gene is forbidden, passing is not legal
    a = pack(0, 0)
    assert uses_forbidden(lu, 0, tb, st, a) and not forbidden(lu, 0, tb, st, a)
    assert n_allowed(lu, 0, tb, st) > 0
    offered = {GENES[g] for g in st.offer[: st.n_rows]}
    lu = REGISTRY.lineup_record(REGISTRY.lineup("heuristic", 3), {0: tuple(offered)[:1]})[0]
    if len(offered) > 1:
        assert not all_forbidden(lu, 0, tb, st)
    apply(tb, st, a)


def test_unknown_options_are_refused_in_one_line():
    with pytest.raises(StrategyError, match="unknown option 'wings'"):
        REGISTRY.lineup_record(REGISTRY.lineup("heuristic", 4), {0: ("wings",)})


# ---------------------------------------------------------------- the value table


def table_text(egg: float = 0.0) -> str:
    rows = ["players,round,rounds_left,gene,state,value,se,median_dinos,price"]
    for r in range(1, 11):
        for g in GENES:
            rows.append(f"4,{r},5,{g},all,{egg if g == 'egg' else 0.0},,3,1")
    return "\n".join(rows) + "\n"


def test_the_shipped_table_covers_three_to_five_players_with_its_provenance():
    assert BUILTIN.is_file(), "strategies/evo/data/values.csv is missing: run dinolab fit evo"
    t = builtin()
    assert sorted(t.tables) == [3, 4, 5]
    text = "\n".join(t.provenance)
    assert "iteration" in text and "rules:" in text and "seed" in text


def test_values_parameter_records_path_and_digest(tmp_path):
    path = tmp_path / "eggs.csv"
    path.write_text(table_text(egg=5.0))
    s = REGISTRY.lineup(f"heuristic[values={path}]", 4)[0]
    digest = load(str(path)).sha256
    assert s.spec.endswith(f"values={path.resolve()}@{digest}]")
    assert s.label == "heuristic[values=eggs.csv]"
    again = REGISTRY.parse(s.spec)  # a recorded spec parses back to the same strategy
    assert again.spec == s.spec
    path.write_text(table_text(egg=4.0))
    with pytest.raises(StrategyError, match="changed since the run was configured"):
        REGISTRY.parse(s.spec)


def test_a_table_that_prizes_eggs_buys_eggs(tmp_path):
    path = tmp_path / "eggs.csv"
    path.write_text(table_text(egg=8.0))
    lineup = f"heuristic[values={path}],heuristic,heuristic,heuristic"
    players = play(setup(lineup), 3, True, 0, 80)["players"].to_pydict()
    mine = [e for e, s in zip(players["eggs"], players["strategy"], strict=True) if "eggs" in s]
    other = [
        e for e, s in zip(players["eggs"], players["strategy"], strict=True) if "eggs" not in s
    ]
    assert np.mean(mine) > np.mean(other) + 1


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "no header line"),
        ("players,round,gene\n4,1,egg\n", "missing column(s)"),
        (table_text().replace("4,3,5,egg", "4,3,5,wings"), "unknown gene 'wings'"),
        (table_text().replace("4,3,5,egg,all,0.0", "4,3,5,egg,all,lots"), "value must be a number"),
        (table_text().replace("4,3,5,egg,all", "4,3,5,egg,cold"), "unknown state 'cold'"),
        (table_text().replace("\n4,2,5,tail,all,0.0,,3,1", ""), "no 'all' row"),
        (table_text().replace("4,3,5,egg", "7,3,5,egg"), "players must be 3-5"),
    ],
)
def test_malformed_tables_are_refused_in_one_line(tmp_path, text, words):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(StrategyError) as err:
        REGISTRY.lineup(f"heuristic[values={path}]", 4)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_table_without_the_player_count_is_refused(tmp_path):
    path = tmp_path / "four.csv"
    path.write_text(table_text())
    with pytest.raises(StrategyError, match="no rows for 3 players"):
        setup(f"heuristic[values={path}]", 3)


def test_cli_errors_for_values_and_fit(cli, tmp_path):
    r = cli(
        "simulate",
        "evo",
        "-n",
        "5",
        "--strategy",
        "heuristic[values=/no/such.csv]",
        "--out",
        str(tmp_path / "x"),
    )
    assert r.code == 2 and "no file '/no/such.csv'" in r.err and r.err.count("\n") == 1
    r = cli("fit", "dkd", "--out", str(tmp_path / "v.csv"))
    assert r.code == 2 and "has no fitting method" in r.err and r.err.count("\n") == 1
    r = cli("fit", "evo", "--games", "10", "--out", str(tmp_path / "v.csv"))
    assert r.code == 2 and "--games" in r.err
    r = cli("fit", "evo", "--set", "start_pionts=6", "--out", str(tmp_path / "v.csv"))
    assert r.code == 2 and "start_pionts" in r.err


def test_resume_refuses_a_changed_values_file(cli, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(table_text(egg=1.0))
    out = tmp_path / "run"
    args = [
        "simulate",
        "evo",
        "-n",
        "40",
        "--chunk-size",
        "20",
        "--workers",
        "1",
        "--strategy",
        f"heuristic[values={path}]",
        "--out",
        str(out),
        "--no-progress",
    ]
    assert cli(*args).code == 0
    path.write_text(table_text(egg=2.0))
    r = cli(*args, "--resume")
    assert r.code == 2 and ("differ" in r.err or "changed" in r.err), r.err


@pytest.mark.slow
def test_fit_writes_a_table_that_plays(cli, tmp_path):
    out = tmp_path / "fitted.csv"
    r = cli(
        "fit",
        "evo",
        "--games",
        "400",
        "--iterations",
        "1",
        "--refine",
        "1",
        "--workers",
        "1",
        "--set",
        "start_points=10",
        "--out",
        str(out),
    )
    assert r.code == 0, r.err
    assert "iteration 0/1 (heuristic-v1)" in r.out and "iteration 1/1 (heuristic)" in r.out
    assert "refinement 1/1 (heuristic)" in r.out and "final (averaged premiums)" in r.out
    table = load(str(out))
    assert sorted(table.tables) == [4]
    assert any("start_points=10" in line for line in table.provenance)
    value, price, _ = table.tables[4]
    assert value.shape[1:] == (8, 16) and np.isfinite(value).all() and len(price) == 10
    players = play(setup(f"heuristic[values={out}]"), 1, False, 0, 5)["players"]
    assert players.num_rows == 20


def measured(cells: dict) -> SimpleNamespace:
    """A fit's measurement of surpluses only: (round, gene) -> (surplus, its standard error,
    the mean price paid)."""
    return SimpleNamespace(
        surplus={k: SimpleNamespace(value=v, se=se) for k, (v, se, _) in cells.items()},
        paid={k: paid for k, (_, _, paid) in cells.items()},
    )


def test_premiums_follow_the_measured_surplus_within_their_bounds():
    table = {"premium": {(2, "egg"): 1.0, (3, "egg"): 3.9}}
    m = measured(
        {
            (2, "egg"): (-2.0, 0.0, 1.0),
            (3, "egg"): (1.0, 0.0, 1.0),
            (2, "fur"): (0.5, 0.0, 0.0),
            (2, "leg"): (1.0, REFINE_PRIOR, 1.0),
            (2, "mutation"): (-1.0, 0.0, FLOOR_PRICE),
        }
    )
    raise_premiums(table, m, 3, REFINE_GAIN, -REFINE_CAP, REFINE_CAP, REFINE_PRIOR)
    p = table["premium"]
    assert p[(2, "egg")] == pytest.approx(1.0 - 2.0 * REFINE_GAIN)
    assert p[(3, "egg")] == REFINE_CAP and p[(2, "fur")] == pytest.approx(0.5 * REFINE_GAIN)
    assert p[(2, "leg")] == pytest.approx(REFINE_GAIN / 2), "a surplus as unsure as the prior"
    assert p[(2, "mutation")] == 0.0, "a gene sold for nothing is not bid down further"
    assert p[(1, "egg")] == p[(2, "egg")] and (3, "tail") not in p  # unmeasured: unchanged
    raise_premiums(table, measured({(2, "fur"): (-9.0, 0.0, 1.0)}), 3)  # from scratch: >= 0
    assert table["premium"][(2, "fur")] == 0.0


def test_refining_moves_only_the_premiums_towards_equal_prices(cli, tmp_path):
    """``--start``: the start table's measured values and state shifts are kept; each premium
    moves by REFINE_GAIN times the round's measured surplus (within REFINE_CAP), and the
    written table is measured once more (the ``final`` line)."""
    start = tmp_path / "start.csv"
    start.write_text(table_text(egg=3.0))  # eggs valued far above what they are worth
    out = tmp_path / "refined.csv"
    r = cli(
        "fit",
        "evo",
        "--start",
        str(start),
        "--games",
        "600",
        "--refine",
        "2",
        "--workers",
        "1",
        "--out",
        str(out),
    )
    assert r.code == 0, r.err
    assert "refinement 2/2 (heuristic)" in r.out and "final (averaged premiums)" in r.out
    assert "iteration" not in r.out, "--start skips the value stage"
    before, after = load(str(start)), load(str(out))
    assert any("refinement of start.csv" in line for line in after.provenance)
    v0, v1 = before.tables[4][0], after.tables[4][0]
    assert np.array_equal(v0[:, :, 1:], v1[:, :, 1:]), "state shifts kept"
    premium = v1[:, :, 0] - v0[:, :, 0]  # the file's values are kept: the change is premiums
    assert np.abs(premium).max() > 0 and np.abs(premium).max() <= REFINE_CAP
    assert np.array_equal(premium[0], premium[1]), "round 1 (not measurable) takes round 2's"
    for args, message in (
        (["--players", "3"], "no rows for 3 players"),
        (["--refine", "0"], "--refine 1 or more"),
        (["--refine", "101"], "--refine 0..100"),
    ):
        r = cli(
            "fit",
            "evo",
            "--start",
            str(start),
            "--games",
            "600",
            *args,
            "--out",
            str(tmp_path / "x.csv"),
        )
        assert r.code == 2 and message in r.err and r.err.count("\n") == 1, r.err
        assert not (tmp_path / "x.csv").exists()


# ---------------------------------------------------------------- bids and cards


def test_bids_jump_and_open_above_zero(evo_heuristic_run):
    bids = evo_heuristic_run["bids"].to_pydict()
    assert max(bids["bid"]) >= 3
    assert np.mean(np.array(bids["bid"]) > 0) > 0.2


def test_kemeny_kolykok_vandorlo_and_genorzas_are_played_when_useful(evo_heuristic_run):
    cards = evo_heuristic_run["cards"].to_pydict()
    played = {c: cards["card"].count(c) for c in range(1, 27)}
    assert played[TOUGH_YOUNG] >= 5 and played[WANDERERS] >= 5
    seen = evo_heuristic_run["players"].to_pydict()["cards_seen"]
    held = sum(CARDS[GENE_GUARD - 1].hungarian in s for s in seen)
    assert 0 < played[GENE_GUARD] < 0.9 * held  # not always at once
    taken_late = [
        t
        for c, t, w in zip(cards["card"], cards["target"], cards["window"], strict=True)
        if c == DOUBLING and (t == SURPRISE or w == "end of the last round")
    ]
    assert not taken_late  # Osztódás never takes a card it could not play


@pytest.fixture(scope="module")
def evo_heuristic_run():
    return play(setup("heuristic"), 21, False, 0, 400)


def test_pass_is_never_a_bid_in_the_normal_game(evo_heuristic_run):
    bids = evo_heuristic_run["bids"].to_pydict()
    games = evo_heuristic_run["games"].to_pydict()
    auctions = sum(r - 1 for r in games["rounds"])
    # everyone buys one gene per auction, except the first to pass after a Hiányzó láncszem
    missing = evo_heuristic_run["cards"].to_pydict()["card"].count(MISSING_LINK)
    assert len(bids["round"]) == 4 * auctions - missing
    assert PASS == -1


# ---------------------------------------------------------------- seat symmetry (issue 16)

SYMMETRIC_BOTS = ["heuristic", "heuristic-v1"]
TRIALS = 400
SEATS = [(3, (0, 1)), (0, (1, 2)), (2, (3, 1))]
"""(bot seat, two rivals): the rivals are the lowest seats, the two on its left, one on its left
and one on its right (listed first)."""
SEAT_IDS = ["3-vs-0,1", "0-vs-1,2", "2-vs-3,1"]


def equal_rivals(bot: str, seat: int, rivals: tuple[int, int]):
    """Seat ``seat`` (bot ``bot``) with a dino on a temperate region next to one dino of each
    rival on two neighbours of the same terrain, the rivals five dinos each (Baleset's
    minimum) and equal points; the fourth seat has fewer points, and no dino next to the bot's.
    Returns the dispatch's inputs and the state."""
    tb, st, _ = empty_board(4)
    st.peace = 0
    st.truce[:4] = -1
    st.points[:4] = 7
    other = ({0, 1, 2, 3} - {seat, *rivals}).pop()
    st.points[other] = 3
    temperate = [t for t in range(4) if tb.zone[st.climate, t] == TEMPERATE]
    for r in range(tb.n_regions):
        near = [int(x) for x in tb.adj[r, : tb.deg[r]] if tb.terrain[x] == tb.terrain[r]]
        if tb.terrain[r] in temperate and len(near) >= 2:
            break
    add_dino(st, seat, r)
    add_dino(st, rivals[0], near[0])
    add_dino(st, rivals[1], near[1])
    used = {r, *near, *tb.adj[r, : tb.deg[r]]}
    spare = (x for x in range(tb.n_regions) if x not in used)
    for q in (*rivals, other):
        while st.n_dinos[q] < 5:
            add_dino(st, q, next(spare))
    scratch = records(1, SCRATCH)
    for j in range(MAX_PLAYERS + 1):
        builtin().fill(scratch[0].values[j], 4)
    lu = REGISTRY.lineup_record(REGISTRY.lineup(bot, 4))[0]
    return (lu, seat, tb, st, seat, scratch[0]), st


def shares(args, st, decide) -> dict[int, int]:
    """How often each seat is the one chosen by ``decide(action)`` over TRIALS bot streams
    (the chance stream and the position stay the same)."""
    counts: dict[int, int] = {}
    with np.errstate(over="ignore"):
        for i in range(TRIALS):  # the bots change nothing in the state but their streams
            seed_streams(st.rng[:5], np.uint64(12345), np.uint64(1000 + i))
            q = decide(int(choose(*args)))
            counts[q] = counts.get(q, 0) + 1
    return counts


def assert_even(counts: dict[int, int], rivals: tuple[int, int]) -> None:
    """Both rivals chosen, each about half the time (within four binomial standard errors)."""
    assert set(counts) == set(rivals), counts
    share = counts[rivals[0]] / TRIALS
    assert abs(share - 0.5) <= 4 * (0.25 / TRIALS) ** 0.5, counts


@pytest.mark.parametrize("bot", SYMMETRIC_BOTS)
@pytest.mark.parametrize(("seat", "rivals"), SEATS, ids=SEAT_IDS)
def test_an_attack_between_two_equal_enemy_dinos_favours_no_seat(bot, seat, rivals):
    args, st = equal_rivals(bot, seat, rivals)
    st.kind, st.actor, st.mp = MOVE, seat, 1
    st.genes[:4, HORN] = 0
    st.genes[seat, HORN] = 2  # the bot wins on 5 of 6: attacking either dino is worth it
    counts = shares(args, st, lambda a: int(st.owner[a & 0xFFFF]))
    assert_even(counts, rivals)


@pytest.mark.parametrize("bot", SYMMETRIC_BOTS)
@pytest.mark.parametrize(("seat", "rivals"), SEATS, ids=SEAT_IDS)
@pytest.mark.parametrize(
    ("card", "window"), [(ACCIDENT, W_CLIMATE), (TRUCE, W_MOVEMENT)], ids=["Baleset", "gaz"]
)
def test_a_card_between_two_equal_rivals_favours_no_seat(bot, seat, rivals, card, window):
    """Baleset on the leaders (equal points), Védelmi gáz against the players with most
    attackers (one each): either rival, half the time each."""
    args, st = equal_rivals(bot, seat, rivals)
    st.kind, st.actor, st.window, st.react = CARD_PLAY, seat, window, -1
    st.options = 1 << (card - 1)
    st.hand[seat] = st.options
    st.genes[:4, HORN] = 1  # each rival's dino can attack the bot's (2 faces of 6)

    def target(a: int) -> int:
        assert a >> 16 == card, a
        return int(st.owner[a & 0xFFFF]) if card == ACCIDENT else a & 0xFFFF

    assert_even(shares(args, st, target), rivals)
