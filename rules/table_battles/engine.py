"""The compiled forward model of Dinosaur Table Battles (seed ``003_af55512b40c5669e.txt``).

A resumable decision machine like EVO's: :func:`deal` sets a game up (the draft deal or the
first game's teams), :func:`advance` runs the automatic rules until a player must decide and
returns the decision kind (``st.actor`` decides), :func:`apply` applies the chosen action::

    deal(tb, st)
    while (kind := advance(tb, st)) != GAME_OVER:
        if kind != ROUND_DONE:
            apply(tb, st, bot_choice(tb, st))

``ROUND_DONE`` comes once after every player turn (its record is in ``st.ev``). Decisions and
their actions (one int64; ``-1`` = the "no" action):

``DRAFT``   ``(dino << 16) | mode``: mode 2 removes secretly (the first pick), 0 places, 1
            removes openly. The two seats choose simultaneously: the engine asks seat 0, keeps
            its choice hidden in ``pend``, asks seat 1, then reveals both.
``ATTACK``  ``(card slot << 16) | target team index`` or -1 (no attack).
``REACT``   the reacting card slot (Treetops: Brachiosaurus's passive card), or -1 where no
            reaction is mandatory (only optional ones are possible).
``BREAK``   a face-up card slot of the dino that took the hits, to flip; -1 removes markers.
``PLACE``   ``(card slot << 16) | (face << 8) | count`` or -1 (stop placing).

One turn, as the seed plays it: (1) the active player wins at once if the opponent has no
hit markers or only one dino (also checked after every step); (2) the attack phase, skipped
after reacting in the opponent's turn: one attack from a card with dice, on a legal target;
the opponent must react if able (not to a zero-hit attack); Absorb/Block/Counter (or
Treetops) resolve; hits at or over the break point (or any hits at one marker left) let the
owner flip a card instead of removing markers; Counter hits hit the attacker; "1 self" costs
a marker unless the attacker has one left; (3) the dice phase: roll every free die, place on
at most two dinos, one card each, by the dice-area rules. Both at one marker ends the game at
once: most face-up action cards win, a tie goes to the second player.

Each step is one function, inlined into :func:`advance`, which only orders them: :func:`draft`,
then per turn (1) :func:`turn_start`, (2) :func:`ask_attack`, :func:`take_hits`,
:func:`counter_hits`, :func:`self_hits`, (3) :func:`roll_dice`, :func:`ask_place`, and
:func:`turn_end`.
"""

from __future__ import annotations

import numpy as np

from rules.core.jit import jit, jit_inline
from rules.core.rng import bounded, mix64, shuffle
from rules.table_battles.constants import (
    ABS_MINUS1,
    ABS_MINUS_DICE,
    ABS_ONLY1,
    ATK_FLAT1,
    ATK_NONE,
    ATK_PER_DIE,
    ATK_PER_DIE_MINUS1,
    ATK_PER_DIE_PLUS1,
    ATTACK,
    BREAK,
    CL_AIR,
    CL_WATER,
    CTR_1_MINUS1,
    CTR_1_MINUS_DICE,
    CTR_PER_DIE_NORMAL,
    D_PLACE,
    D_REMOVE_OPEN,
    D_REMOVE_SECRET,
    DRAFT,
    END_BOTH_ONE,
    END_MARKERS,
    END_ONE_DINO,
    END_TURN_CAP,
    GAME_OVER,
    KIND_DICE,
    NO_DECISION,
    ONE_MARKER_AT_ATTACK,
    P_AMBUSH,
    P_DIVE,
    P_EGG_THIEVES,
    P_GIANT_CLAWS,
    P_GLIDE,
    P_HEADBUTT,
    P_LONG_NECK,
    P_PACK_HUNTER,
    P_SCYTHE,
    P_SKY_WATCH,
    P_TAUNT,
    P_THAGOMIZER,
    P_THREE_HORNS,
    P_TREETOPS,
    P_TYRANT,
    P_WATER_LURKER,
    PAIR_AREA,
    PASS,
    PLACE,
    REACT,
    RK_ABSORB,
    RK_BLOCK,
    RK_COUNTER,
    RK_NONE,
    RK_TREETOPS,
    ROUND_DONE,
    SETUP_FIRST_GAME,
)
from rules.table_battles.state import (
    CHANCE,
    S_DICE,
    emit_draft,
    emit_turn,
)

(
    ST_DRAFT,
    ST_SETUP,
    ST_TURN_START,
    ST_ATTACK_ASK,
    ST_HITS,
    ST_COUNTER,
    ST_SELF,
    ST_ROLL,
    ST_PLACE_ASK,
    ST_TURN_END,
    ST_OVER,
) = range(11)
_DICE_SALT = np.uint64(0xE7037ED1A0B428DB)


@jit_inline
def pack(a: int, b: int) -> np.int64:
    """The action ``(a, b)`` as one integer."""
    return (np.int64(a) << 16) | np.int64(b)


@jit_inline
def pack_place(slot: int, face: int, count: int) -> np.int64:
    """A dice placement as one integer."""
    return (np.int64(slot) << 16) | (np.int64(face) << 8) | np.int64(count)


# ---------------------------------------------------------------- small queries


@jit_inline
def dino_of(tb, st, s: int, t: int) -> int:
    """Dino id of team member ``t`` of seat ``s``."""
    return st.team[s, t]


@jit_inline
def passive_up(tb, st, s: int, t: int, pid: int) -> bool:
    """Team member ``t`` of seat ``s`` is in play with passive ``pid`` face up ("solange diese
    passive Fähigkeit im Spiel ist"); kept in ``pmask`` by :func:`set_pmask`."""
    return (st.pmask[s, t] >> pid) & 1 == 1


@jit
def set_pmask(tb, st, s: int, t: int) -> None:
    """Recompute the face-up passives of team member ``t`` of seat ``s``."""
    m = np.int64(0)
    if st.alive[s, t]:
        d = st.team[s, t]
        first = st.team_slot[s, t]
        for k in range(tb.d_cards[d]):
            if st.up[s, first + k]:
                m |= np.int64(1) << tb.c_passive[st.slot_card[s, first + k]]
    st.pmask[s, t] = m & ~np.int64(1)


@jit_inline
def passive_vs(tb, st, s: int, t: int, pid: int, a_s: int, a_t: int) -> bool:
    """Passive ``pid`` of (``s``, ``t``) counts against an attack by (``a_s``, ``a_t``):
    attacks by Water dinos ignore the passive abilities of other Water dinos."""
    if not passive_up(tb, st, s, t, pid):
        return False
    water = tb.d_cls[st.team[a_s, a_t]] == CL_WATER and tb.d_cls[st.team[s, t]] == CL_WATER
    return not (s != a_s and water)


@jit_inline
def has_pair(st, s: int, slot: int) -> bool:
    """At least two equal dice on the card."""
    for f in range(1, 7):  # noqa: SIM110 (no generators in numba)
        if st.dice[s, slot, f] >= 2:
            return True
    return False


@jit_inline
def has_flipped(tb, st, s: int, t: int) -> bool:
    return st.team_up[s, t] < tb.d_cards[st.team[s, t]]


@jit
def face_up_cards(tb, st, s: int) -> int:
    """Face-up action cards of seat ``s``'s dinos in play."""
    c = 0
    for t in range(st.n_team[s]):
        if st.alive[s, t]:
            c += st.team_up[s, t]
    return c


@jit
def dice_on_cards(st, s: int) -> int:
    """Dice on seat ``s``'s face-up action cards of dinos in play: its attacks in waiting."""
    c = 0
    for slot in range(st.n_slots[s]):
        if st.up[s, slot] and st.alive[s, st.slot_team[s, slot]]:
            c += st.dice[s, slot, 0]
    return c


@jit_inline
def base_hits(template: int, n: int) -> int:
    """Hits of an attack template with ``n`` dice on the card (seed: "Angriff")."""
    if template == ATK_FLAT1:
        return 1
    if template == ATK_PER_DIE:
        return n
    if template == ATK_PER_DIE_PLUS1:
        return n + 1
    if template == ATK_PER_DIE_MINUS1:
        return n - 1 if n > 1 else 0
    return 0


@jit_inline
def self_of(template: int) -> int:
    """The template's "1 selbst" (every template but the flat 1 hit)."""
    if template in (ATK_NONE, ATK_FLAT1):
        return 0
    return 1


@jit
def modifiers(tb, st, a_s: int, a_t: int, h_s: int, h_t: int) -> int:
    """Hits added to an attack by (``a_s``, ``a_t``) on (``h_s``, ``h_t``): the Air/Water
    rules and the attacker's passives (Pteranodon, Utahraptor, Quetzalcoatlus)."""
    ad = st.team[a_s, a_t]
    hd = st.team[h_s, h_t]
    m = 0
    if tb.d_cls[ad] == CL_AIR and tb.d_cls[hd] == CL_WATER:
        m -= tb.air_vs_water
    if tb.d_cls[ad] == CL_WATER and tb.d_cls[hd] == CL_AIR:
        m -= tb.water_vs_air
    if passive_up(tb, st, a_s, a_t, P_SKY_WATCH) and has_flipped(tb, st, h_s, h_t):
        m += tb.sky_bonus
    if passive_up(tb, st, a_s, a_t, P_PACK_HUNTER) and not tb.d_large[hd]:
        m += tb.passive_bonus
    if passive_up(tb, st, a_s, a_t, P_DIVE) and tb.d_large[hd]:
        m += tb.passive_bonus
    return m


@jit
def can_attack_with(tb, st, s: int, slot: int) -> bool:
    """The card can attack: face up, in play, an attack area and its dice ("Pair": two
    equal dice)."""
    card = st.slot_card[s, slot]
    if not st.up[s, slot] or not st.alive[s, st.slot_team[s, slot]]:
        return False
    if tb.c_kind[card] != KIND_DICE or tb.c_attack[card] == ATK_NONE:
        return False
    if st.dice[s, slot, 0] < 1:
        return False
    return not tb.c_apair[card] or has_pair(st, s, slot)


@jit
def target_ok(tb, st, s: int, a_t: int, n_dice: int, t: int) -> bool:
    """Team member ``t`` of the opponent is a legal target for an attack by ``a_t`` with
    ``n_dice`` dice (the targeting restrictions and the dinos that ignore them)."""
    o = 1 - s
    if not st.alive[o, t]:
        return False
    if passive_up(tb, st, s, a_t, P_SCYTHE):
        return True
    if n_dice >= 3 and passive_up(tb, st, s, a_t, P_THREE_HORNS):
        return True
    if not _basic_target(tb, st, s, a_t, t):
        return False
    if passive_up(tb, st, s, a_t, P_HEADBUTT):  # ignores Stygimoloch
        return True
    if passive_vs(tb, st, o, t, P_TAUNT, s, a_t):
        return True
    for u in range(st.n_team[o]):
        if (
            u != t
            and passive_vs(tb, st, o, u, P_TAUNT, s, a_t)
            and _basic_target(tb, st, s, a_t, u)
        ):
            return False  # a targetable Stygimoloch must be the target
    return True


@jit
def _basic_target(tb, st, s: int, a_t: int, t: int) -> bool:
    """``t`` passes Spinosaurus's and Deinocheirus's restrictions."""
    o = 1 - s
    if not st.alive[o, t]:
        return False
    if passive_vs(tb, st, o, t, P_WATER_LURKER, s, a_t):
        return False
    small = not tb.d_large[st.team[s, a_t]]
    return not (small and passive_vs(tb, st, o, t, P_GIANT_CLAWS, s, a_t))


@jit
def react_ok(tb, st, slot: int) -> int:
    """Whether the defender's card ``slot`` may react to the pending attack: 0 no,
    1 yes (mandatory), 2 yes but optional (an Air dino's Block against an Air attacker,
    Treetops unless ``treetops_mandatory``)."""
    a = st.active
    o = 1 - a
    card = st.slot_card[o, slot]
    u = st.slot_team[o, slot]
    if not st.up[o, slot] or not st.alive[o, u]:
        return 0
    ad = st.team[a, st.a_team]
    if tb.c_passive[card] == P_TREETOPS:
        if u == st.tgt or passive_up(tb, st, a, st.a_team, P_HEADBUTT):
            return 0
        if not passive_vs(tb, st, o, u, P_TREETOPS, a, st.a_team):
            return 0
        return 1 if tb.treetops_mandatory else 2
    rk = tb.c_rkind[card]
    if tb.c_kind[card] != KIND_DICE or rk == RK_NONE:
        return 0
    if st.dice[o, slot, 0] < 1 or (tb.c_rpair[card] and not has_pair(st, o, slot)):
        return 0
    if rk == RK_COUNTER:
        if u != st.tgt or passive_up(tb, st, a, st.a_team, P_AMBUSH):
            return 0
        return 1
    if u == st.tgt:
        return 0
    if rk == RK_BLOCK:
        if passive_up(tb, st, a, st.a_team, P_SKY_WATCH):
            return 0
        if tb.d_cls[ad] == CL_AIR:
            return 2 if tb.d_cls[st.team[o, u]] == CL_AIR else 0
    return 1


@jit
def place_ok(tb, st, slot: int, face: int, count: int) -> bool:
    """The active player may put ``count`` dice of ``face`` from the roll on card ``slot``."""
    s = st.active
    if slot < 0 or slot >= st.n_slots[s] or face < 1 or face > 6 or count < 1:
        return False
    if st.n_placed >= 2:  # dice for up to two dinos a turn
        return False
    card = st.slot_card[s, slot]
    t = st.slot_team[s, slot]
    if not st.up[s, slot] or not st.alive[s, t] or tb.c_kind[card] != KIND_DICE:
        return False
    if st.placed_mask >> t & 1 or st.rolled[face] < count:
        return False
    faces = tb.c_faces[card]
    if faces == PAIR_AREA:
        return count == 2 and (tb.pair_stack or st.dice[s, slot, 0] == 0)
    if not faces >> face & 1:
        return False
    return count == 1 or not tb.c_bracket[card]


# ---------------------------------------------------------------- events and the end


@jit
def record_turn(tb, st) -> None:
    """Leave the record of the turn just finished."""
    a = st.active
    o = 1 - a
    attacker, card, target = -1, -1, -1
    if st.a_slot >= 0:
        attacker = st.team[a, st.a_team]
        card = st.slot_card[a, st.a_slot]
        target = st.team[o, st.tgt]
    reaction, reactor = -1, -1
    if st.r_slot >= 0:
        reaction = st.slot_card[o, st.r_slot]
        reactor = st.team[o, st.slot_team[o, st.r_slot]]
    hit = st.team[o, st.h_team] if st.h_team >= 0 else -1
    emit_turn(
        st,
        turn=st.turn,
        seat=a,
        attacker=attacker,
        attack_card=card,
        attack_dice=st.a_dice,
        target=target,
        reaction=reaction,
        reaction_kind=st.r_kind,
        reactor=reactor,
        hit_dino=hit,
        hits=st.hits,
        resolved=st.resolved,
        counter_hits=st.counter,
        self_hits=st.self_hits,
        markers_left_seat0=st.markers[0],
        markers_left_seat1=st.markers[1],
        cards_face_up_seat0=face_up_cards(tb, st, np.int64(0)),
        cards_face_up_seat1=face_up_cards(tb, st, np.int64(1)),
        dice_placed=st.dice_placed,
        stolen=st.stolen,
        dice_on_cards_seat0=dice_on_cards(st, np.int64(0)),
        dice_on_cards_seat1=dice_on_cards(st, np.int64(1)),
    )


@jit
def end_game(st, winner: int, reason: int) -> None:
    st.over = 1
    st.winner = winner
    st.end_reason = reason


@jit
def check_end(tb, st) -> bool:
    """The seed's end conditions, for the active player's turn: the opponent has no hit
    markers and/or only one dino -> the active player wins; both at one marker -> most
    face-up action cards, a tie to the second player. True when the game is over."""
    if st.over:
        return True
    a = st.active
    o = 1 - a
    if st.markers[o] <= 0:
        end_game(st, a, np.int64(END_MARKERS))
    elif st.n_alive[o] <= 1:
        end_game(st, a, np.int64(END_ONE_DINO))
    elif st.markers[a] == 1 and st.markers[o] == 1:
        u0 = face_up_cards(tb, st, np.int64(0))
        u1 = face_up_cards(tb, st, np.int64(1))
        if u0 > u1:
            w = 0
        elif u1 > u0:
            w = 1
        else:
            w = 1 - st.first_seat
        end_game(st, w, np.int64(END_BOTH_ONE))
    return st.over == 1


# ---------------------------------------------------------------- setup


@jit
def deal(tb, st) -> None:
    """Setup for a state whose ``rng[0]`` holds the game key and bot streams are seeded:
    derive the dice streams, then deal the draft hands (or take the first game's teams)."""
    key = st.rng[CHANCE]
    for s in range(2):
        x = mix64(key ^ (np.uint64(s + 1) * _DICE_SALT))
        st.rng[S_DICE + s] = x if x != np.uint64(0) else np.uint64(1)
    st.kind = NO_DECISION
    st.over = 0
    st.end_reason = 0
    st.winner = -1
    st.turn = 0
    st.n_ev = 0
    st.dstep = 0
    for s in range(2):
        st.n_team[s] = 0
        st.hand_len[s] = 0
        st.pend[s] = 0
        st.has_pend[s] = 0
        st.seen[s] = 0
    if tb.setup == SETUP_FIRST_GAME:
        for s in range(2):
            for k in range(tb.first_n[s]):
                st.team[s, k] = tb.first_team[s, k]
            st.n_team[s] = tb.first_n[s]
        st.deck_len = 0
        st.step = ST_SETUP
        return
    n = tb.n_pool
    for i in range(n):
        st.deck[i] = tb.pool[i]
    shuffle(st.deck[:n], st.rng, CHANCE)
    top = 0
    for s in range(2):
        for k in range(tb.draft_hand):
            st.hand[s, k] = st.deck[top]
            st.seen[s] |= np.int64(1) << st.deck[top]
            top += 1
        st.hand_len[s] = tb.draft_hand
    st.deck_len = n
    st.step = ST_DRAFT


@jit
def team_cards(tb, st, s: int) -> int:
    c = 0
    for t in range(st.n_team[s]):
        c += tb.d_cards[st.team[s, t]]
    return c


@jit
def setup_battle(tb, st) -> None:
    """Lay out the action cards, count hit markers, take dice and find the first player."""
    for s in range(2):
        slot = 0
        for t in range(st.n_team[s]):
            d = st.team[s, t]
            st.alive[s, t] = 1
            st.team_slot[s, t] = slot
            st.team_up[s, t] = tb.d_cards[d]
            for k in range(tb.d_cards[d]):
                st.slot_card[s, slot] = tb.d_first[d] + k
                st.slot_team[s, slot] = t
                st.up[s, slot] = 1
                for f in range(7):
                    st.dice[s, slot, f] = 0
                slot += 1
        st.n_slots[s] = slot
        st.n_alive[s] = st.n_team[s]
        for t in range(st.n_team[s]):
            set_pmask(tb, st, s, np.int64(t))
        st.free[s] = tb.dice
        st.skip[s] = 0
        st.cards0[s] = slot
    for s in range(2):
        o = 1 - s
        m = tb.markers_per_dino * st.n_team[s]
        if st.n_team[s] < st.n_team[o]:
            m += tb.bonus_markers
        if st.cards0[s] < st.cards0[o]:
            m += tb.bonus_markers
        for t in range(st.n_team[s]):
            if tb.d_trex[st.team[s, t]]:
                m += tb.trex_markers
        st.markers[s] = m
        st.markers0[s] = m
    if st.markers[0] != st.markers[1]:
        first = 0 if st.markers[0] < st.markers[1] else 1
    else:  # the side whose dino comes first alphabetically
        b0 = 1 << 20
        b1 = 1 << 20
        for t in range(st.n_team[0]):
            b0 = min(b0, np.int64(tb.d_alpha[st.team[0, t]]))
        for t in range(st.n_team[1]):
            b1 = min(b1, np.int64(tb.d_alpha[st.team[1, t]]))
        first = 0 if b0 <= b1 else 1
    st.first_seat = first
    st.first[first] = 1
    st.first[1 - first] = 0
    st.active = first
    st.turn = 0


# ---------------------------------------------------------------- what a turn may do


@jit
def reset_turn(st) -> None:
    st.a_slot = -1
    st.a_team = -1
    st.a_dice = 0
    st.a_markers = 0
    st.tgt = -1
    st.r_slot = -1
    st.r_kind = RK_NONE
    st.r_dice = 0
    st.h_team = -1
    st.hits = 0
    st.counter = 0
    st.self_hits = 0
    st.resolved = -1
    st.stolen = 0
    st.placed_mask = 0
    st.n_placed = 0
    st.dice_placed = 0
    for f in range(7):
        st.rolled[f] = 0


@jit
def any_attack(tb, st) -> bool:
    s = st.active
    for slot in range(st.n_slots[s]):
        if can_attack_with(tb, st, s, slot):
            t0 = st.slot_team[s, slot]
            n = st.dice[s, slot, 0]
            for t in range(st.n_team[1 - s]):
                if target_ok(tb, st, s, t0, n, t):
                    return True
    return False


@jit
def any_place(tb, st) -> bool:
    if st.n_placed >= 2:
        return False
    s = st.active
    for slot in range(st.n_slots[s]):
        for f in range(1, 7):
            if st.rolled[f] > 0 and (
                place_ok(tb, st, slot, f, np.int64(1)) or place_ok(tb, st, slot, f, np.int64(2))
            ):
                return True
    return False


@jit
def reaction_options(tb, st) -> int:
    """0: no reaction possible; 1: a reaction is mandatory; 2: only optional ones."""
    o = 1 - st.active
    best = 0
    for slot in range(st.n_slots[o]):
        r = react_ok(tb, st, slot)
        if r == 1:
            return 1
        if r == 2:
            best = 2
    return best


# ---------------------------------------------------------------- the steps of a turn
# One function per step of the machine (``st.step``), inlined into :func:`advance`. A step that
# may ask a player returns the decision's kind (``st.actor`` decides), else ``NO_DECISION``.


@jit_inline
def draft(tb, st) -> int:
    """Draft: both players choose at once (seat 0 is asked first and its choice kept hidden),
    then both choices are revealed; with both hands empty, the battle is set up."""
    if st.hand_len[0] == 0 and st.hand_len[1] == 0:
        st.step = ST_SETUP
        return NO_DECISION
    for s in range(2):
        if not st.has_pend[s] and st.hand_len[s] > 0:
            st.actor = s
            st.kind = DRAFT
            return DRAFT
    resolve_draft(tb, st)
    return NO_DECISION


@jit_inline
def turn_start(tb, st) -> None:
    """A turn starts: the active player wins at once if the opponent has no markers or one
    dino; the turn cap ends the game undecided; a player who reacted in the opponent's turn
    skips its attack phase."""
    reset_turn(st)
    if check_end(tb, st):
        st.step = ST_OVER
        return
    if st.turn >= tb.max_turns:
        end_game(st, np.int64(-1), np.int64(END_TURN_CAP))
        st.step = ST_OVER
        return
    a = st.active
    if st.skip[a]:
        st.skip[a] = 0
        st.step = ST_ROLL
    else:
        st.step = ST_ATTACK_ASK


@jit_inline
def ask_attack(tb, st) -> int:
    """Attack phase: the active player may attack when a card with dice has a legal target;
    then the dice phase."""
    st.step = ST_ROLL
    if any_attack(tb, st):
        st.actor = st.active
        st.kind = ATTACK
        return ATTACK
    return NO_DECISION


@jit_inline
def take_hits(tb, st) -> int:
    """The attack's hits land on the target: at or over its break point (or any hits at one
    marker left) its owner may flip a card instead of removing markers."""
    o = 1 - st.active
    st.step = ST_COUNTER
    if st.h_team >= 0 and st.hits > 0:
        bp = tb.d_bp[st.team[o, st.h_team]]
        if st.hits >= bp or st.markers[o] == 1:
            st.bk_seat, st.bk_team, st.bk_hits, st.bk_kind = o, st.h_team, st.hits, 0
            st.actor = o
            st.kind = BREAK
            return BREAK
        take_markers(tb, st, o, st.hits, np.int64(0))
        st.resolved = 0
        if check_end(tb, st):
            st.step = ST_TURN_END
    return NO_DECISION


@jit_inline
def counter_hits(tb, st) -> int:
    """Counter hits hit the attacking dino, if still alive; its owner may flip a card instead
    at one marker left or, by rule, at or over the break point."""
    a = st.active
    st.step = ST_SELF
    if st.counter > 0 and st.alive[a, st.a_team]:
        bp = tb.d_bp[st.team[a, st.a_team]]
        flip_ok = tb.counter_bp and st.counter >= bp
        if tb.one_marker_counter and st.markers[a] == 1:
            flip_ok = True
        if flip_ok:
            st.bk_seat, st.bk_team, st.bk_hits, st.bk_kind = a, st.a_team, st.counter, 1
            st.actor = a
            st.kind = BREAK
            return BREAK
        take_markers(tb, st, a, st.counter, np.int64(1))
        if check_end(tb, st):
            st.step = ST_TURN_END
    return NO_DECISION


@jit_inline
def self_hits(tb, st) -> None:
    """The attack card's "self" hits cost the attacker markers: none when the attack was
    blocked (by rule), with Gliding, or at one marker left."""
    a = st.active
    st.step = ST_ROLL
    card = st.slot_card[a, st.a_slot]
    n = self_of(tb.c_attack[card])
    if st.r_kind == RK_BLOCK and st.h_team < 0 and not tb.self_when_blocked:
        n = 0  # blocked: "Keine Seite erleidet Treffer"
    if passive_up(tb, st, a, st.a_team, P_GLIDE):
        n = 0
    # one marker left: "self" hits are ignored, judged when the attack was made or now
    one = st.a_markers if tb.one_marker_at == ONE_MARKER_AT_ATTACK else st.markers[a]
    if n > 0 and one != 1:
        st.self_hits = min(n, st.markers[a])
        st.markers[a] -= st.self_hits
    if check_end(tb, st):
        st.step = ST_TURN_END


@jit_inline
def roll_dice(tb, st) -> None:
    """Dice phase: the active player rolls every free die."""
    a = st.active
    for f in range(7):
        st.rolled[f] = 0
    for _ in range(st.free[a]):
        st.rolled[1 + bounded(st.rng, S_DICE + a, 6)] += 1
    st.step = ST_PLACE_ASK


@jit_inline
def ask_place(tb, st) -> int:
    """Dice phase: the active player places dice while a placement is legal (at most two
    dinos, one card each, by the dice-area rules); then the turn ends."""
    if any_place(tb, st):
        st.actor = st.active
        st.kind = PLACE
        return PLACE
    st.step = ST_TURN_END
    return NO_DECISION


@jit_inline
def turn_end(tb, st) -> int:
    """The turn is recorded and the other player's begins, unless the game is over."""
    record_turn(tb, st)
    st.turn += 1
    if st.over:
        st.step = ST_OVER
        return ROUND_DONE
    st.active = 1 - st.active
    st.step = ST_TURN_START
    return ROUND_DONE


# ---------------------------------------------------------------- the resumable loop


@jit
def advance(tb, st) -> int:
    """Run the automatic rules until a decision is needed; return its kind.

    Returns the pending kind again if called before :func:`apply`; ``ROUND_DONE`` once after
    every player turn and ``GAME_OVER`` at the end. Each step's rules are in its own function
    above; this is only the order of the steps.
    """
    if st.kind != NO_DECISION:
        return st.kind
    while True:
        step = st.step
        kind = NO_DECISION
        if step == ST_DRAFT:
            kind = draft(tb, st)
        elif step == ST_SETUP:
            setup_battle(tb, st)
            st.step = ST_TURN_START
        elif step == ST_TURN_START:
            turn_start(tb, st)
        elif step == ST_ATTACK_ASK:
            kind = ask_attack(tb, st)
        elif step == ST_HITS:
            kind = take_hits(tb, st)
        elif step == ST_COUNTER:
            kind = counter_hits(tb, st)
        elif step == ST_SELF:
            self_hits(tb, st)
        elif step == ST_ROLL:
            roll_dice(tb, st)
        elif step == ST_PLACE_ASK:
            kind = ask_place(tb, st)
        elif step == ST_TURN_END:
            return turn_end(tb, st)
        else:
            return GAME_OVER
        if kind != NO_DECISION:
            return kind


# ---------------------------------------------------------------- hits, flips and the draft


@jit
def take_markers(tb, st, s: int, hits: int, kind: int) -> None:
    """Seat ``s`` removes ``hits`` markers (never below 0); Velociraptors' Egg Thieves steal
    for the attack's hits (``kind`` 0)."""
    removed = min(hits, st.markers[s])
    st.markers[s] -= removed
    if kind == 0 and removed > 0:
        a = st.active
        if passive_up(tb, st, a, st.a_team, P_EGG_THIEVES):
            steal = min(tb.egg_steal, removed)
            st.markers[a] += steal
            st.stolen += steal


@jit
def flip(tb, st, s: int, slot: int) -> None:
    """Turn card ``slot`` face down (its dice go back to the pool); a dino with every card
    face down leaves the game."""
    st.up[s, slot] = 0
    n = st.dice[s, slot, 0]
    if tb.flip_returns:
        st.free[s] += n
    for f in range(7):
        st.dice[s, slot, f] = 0
    t = st.slot_team[s, slot]
    st.team_up[s, t] -= 1
    if st.team_up[s, t] <= 0 and st.alive[s, t]:
        st.alive[s, t] = 0
        st.n_alive[s] -= 1
    set_pmask(tb, st, s, np.int64(t))


@jit
def resolve_draft(tb, st) -> None:
    """Reveal both seats' simultaneous draft choices, then pass the hands."""
    pick = st.dstep
    for s in range(2):
        if not st.has_pend[s]:
            continue
        d = st.pend[s] >> 16
        mode = st.pend[s] & 0xFFFF
        k = 0
        while st.hand[s, k] != d:
            k += 1
        st.hand_len[s] -= 1
        st.hand[s, k] = st.hand[s, st.hand_len[s]]
        if mode == D_PLACE:
            st.team[s, st.n_team[s]] = d
            st.n_team[s] += 1
        if mode != D_REMOVE_SECRET:
            bit = np.int64(1) << d
            st.seen[0] |= bit
            st.seen[1] |= bit
        emit_draft(st, seat=s, pick=pick, dino=d, action=mode, draft_rating=tb.d_rating[d])
        st.has_pend[s] = 0
    if st.dstep >= 1:  # pass the hands to the opponent
        for k in range(max(st.hand_len[0], st.hand_len[1])):
            x = st.hand[0, k]
            st.hand[0, k] = st.hand[1, k]
            st.hand[1, k] = x
        x = st.hand_len[0]
        st.hand_len[0] = st.hand_len[1]
        st.hand_len[1] = x
        for s in range(2):
            for k in range(st.hand_len[s]):
                st.seen[s] |= np.int64(1) << st.hand[s, k]
    st.dstep += 1


# ---------------------------------------------------------------- applying a choice


@jit
def start_attack(tb, st, slot: int, t: int) -> None:
    """Activate card ``slot`` on target ``t``: dice back to the pool, then the opponent's
    reaction (a decision) or the hits."""
    a = st.active
    o = 1 - a
    card = st.slot_card[a, slot]
    st.a_slot = slot
    st.a_team = st.slot_team[a, slot]
    st.a_dice = st.dice[a, slot, 0]
    st.a_markers = st.markers[a]
    st.tgt = t
    st.free[a] += st.a_dice
    for f in range(7):
        st.dice[a, slot, f] = 0
    pre = base_hits(tb.c_attack[card], st.a_dice) + modifiers(tb, st, a, st.a_team, o, t)
    if pre > 0:  # an attack of zero hits before reactions triggers no reaction
        r = reaction_options(tb, st)
        if r > 0:
            st.actor = o
            st.kind = REACT
            return
    resolve_reaction(tb, st, np.int64(-1))


@jit
def outcome(tb, st, r_slot: int) -> np.int64:
    """The result of the pending attack (``a_slot``, ``a_team``, ``a_dice``, ``tgt`` set) if the
    defender reacts with card ``r_slot`` (-1: no reaction), without changing anything:
    ``(h_team + 1) | hits << 8 | counter << 16`` (h_team -1: blocked). The engine applies it in
    :func:`resolve_reaction`; the bots read it to weigh attacks and reactions.

    Order of modifiers (spec Q3): the template's hits with the card's dice; the Air/Water
    rules and the attacker's passives against the dino that takes them; then the reaction's
    reductions; never below 0.
    """
    a = st.active
    o = 1 - a
    card = st.slot_card[a, st.a_slot]
    base = base_hits(tb.c_attack[card], st.a_dice)
    t = st.tgt
    if r_slot < 0:
        h = base + modifiers(tb, st, a, st.a_team, o, t)
        if passive_up(tb, st, a, st.a_team, P_TYRANT):
            h += tb.tyrant_bonus
        return np.int64(t + 1) | (np.int64(max(h, 0)) << 8)
    rcard = st.slot_card[o, r_slot]
    u = np.int64(st.slot_team[o, r_slot])
    if tb.c_passive[rcard] == P_TREETOPS:
        h = base + modifiers(tb, st, a, st.a_team, o, t)
        return np.int64(t + 1) | (np.int64(max(h, 0)) << 8) | (np.int64(tb.treetops_hits) << 16)
    if passive_up(tb, st, a, st.a_team, P_HEADBUTT):  # the reaction's text is ignored
        h = base + modifiers(tb, st, a, st.a_team, o, t)
        return np.int64(t + 1) | (np.int64(max(h, 0)) << 8)
    rk = tb.c_rkind[rcard]
    tmpl = tb.c_react[rcard]
    n = st.dice[o, r_slot, 0]
    if rk == RK_BLOCK:
        return np.int64(0)
    if rk == RK_ABSORB:
        h = base + modifiers(tb, st, a, st.a_team, o, u)
        if tmpl == ABS_ONLY1:
            h = min(h, 1)
        elif tmpl == ABS_MINUS1:
            h -= 1
        elif tmpl == ABS_MINUS_DICE:
            h -= n
        if passive_vs(tb, st, o, u, P_LONG_NECK, a, st.a_team):
            h -= tb.passive_bonus
        return np.int64(u + 1) | (np.int64(max(h, 0)) << 8)
    # counter: only the target itself
    h = base + modifiers(tb, st, a, st.a_team, o, t)
    c = 1
    if tmpl == CTR_PER_DIE_NORMAL:
        c = n
    elif tmpl == CTR_1_MINUS_DICE:
        h -= n
    elif tmpl == CTR_1_MINUS1:
        h -= 1
    if passive_vs(tb, st, o, t, P_THAGOMIZER, a, st.a_team):
        c += tb.passive_bonus
    if tb.class_counters:
        c += modifiers_class(tb, st, o, t, a, st.a_team)
    return np.int64(t + 1) | (np.int64(max(h, 0)) << 8) | (np.int64(max(c, 0)) << 16)


@jit
def resolve_reaction(tb, st, r_slot: int) -> None:
    """Apply reaction ``r_slot`` (-1: none): the reacting card's dice go back to the pool (or
    Treetops flips its card), the reacting player will skip the next attack phase, and the
    hits of :func:`outcome` are resolved next."""
    a = st.active
    o = 1 - a
    res = outcome(tb, st, r_slot)
    st.h_team = (res & 0xFF) - 1
    st.hits = (res >> 8) & 0xFF
    st.counter = res >> 16
    st.step = ST_HITS
    if r_slot < 0:
        return
    st.skip[o] = 1  # reacting skips the next attack phase
    st.r_slot = r_slot
    rcard = st.slot_card[o, r_slot]
    if tb.c_passive[rcard] == P_TREETOPS:
        st.r_kind = RK_TREETOPS
        st.r_dice = 0
        flip(tb, st, o, r_slot)
        return
    st.r_kind = tb.c_rkind[rcard]
    n = st.dice[o, r_slot, 0]
    st.r_dice = n
    st.free[o] += n
    for f in range(7):
        st.dice[o, r_slot, f] = 0


@jit
def modifiers_class(tb, st, s: int, t: int, h_s: int, h_t: int) -> int:
    """The Air/Water rules alone, for Counter hits (``class_rules_on_counters``)."""
    ad = st.team[s, t]
    hd = st.team[h_s, h_t]
    if tb.d_cls[ad] == CL_AIR and tb.d_cls[hd] == CL_WATER:
        return -tb.air_vs_water
    if tb.d_cls[ad] == CL_WATER and tb.d_cls[hd] == CL_AIR:
        return -tb.water_vs_air
    return 0


@jit
def apply(tb, st, action: int) -> None:
    """Apply ``action`` (legal for the pending decision) for ``st.actor``."""
    kind = st.kind
    st.kind = NO_DECISION
    s = st.actor
    if kind == PLACE:
        if action < 0:
            st.step = ST_TURN_END
            return
        slot = action >> 16
        face = (action >> 8) & 0xFF
        count = action & 0xFF
        st.dice[s, slot, face] += count
        st.dice[s, slot, 0] += count
        st.rolled[face] -= count
        st.free[s] -= count
        st.placed_mask |= np.int64(1) << st.slot_team[s, slot]
        st.n_placed += 1
        st.dice_placed += count
    elif kind == ATTACK:
        if action >= 0:
            start_attack(tb, st, action >> 16, action & 0xFFFF)
    elif kind == REACT:
        resolve_reaction(tb, st, action)
    elif kind == BREAK:
        if action >= 0:
            flip(tb, st, s, action)
            if st.bk_kind == 0:
                st.resolved = 1
        else:
            take_markers(tb, st, s, st.bk_hits, st.bk_kind)
            if st.bk_kind == 0:
                st.resolved = 0
        if check_end(tb, st):
            st.step = ST_TURN_END
    elif kind == DRAFT:
        st.pend[s] = action
        st.has_pend[s] = 1


# ---------------------------------------------------------------- legal actions


@jit
def draft_ok(tb, st, s: int, d: int, mode: int) -> bool:
    """Seat ``s`` may take draft action (``d``, ``mode``) now."""
    found = False
    for k in range(st.hand_len[s]):
        if st.hand[s, k] == d:
            found = True
    if not found:
        return False
    if st.dstep == 0:
        return mode == D_REMOVE_SECRET
    if mode == D_REMOVE_OPEN:
        return st.dstep >= 2
    if mode != D_PLACE:
        return False
    return team_cards(tb, st, s) + tb.d_cards[d] <= tb.card_cap


@jit
def actions(tb, st, k: int) -> np.int64:
    """With ``k`` < 0 the number of legal actions of the pending decision, else the ``k``-th.

    Orders: draft (hand order; places before open removals), attack (no attack, then by card
    slot and target), react (no reaction where allowed, then by card slot), break (remove the
    markers, then by card slot), place (stop, then by card slot, face and count).
    """
    kind = st.kind
    s = st.actor
    count = 0
    if kind == DRAFT:
        for mode in (D_PLACE, D_REMOVE_OPEN, D_REMOVE_SECRET):
            for i in range(st.hand_len[s]):
                d = np.int64(st.hand[s, i])
                if draft_ok(tb, st, s, d, mode):
                    if count == k:
                        return pack(d, mode)
                    count += 1
    elif kind == ATTACK:
        if k == 0:
            return np.int64(PASS)
        count = 1
        o = 1 - s
        for slot in range(st.n_slots[s]):
            if can_attack_with(tb, st, s, slot):
                t0 = st.slot_team[s, slot]
                n = st.dice[s, slot, 0]
                for t in range(st.n_team[o]):
                    if target_ok(tb, st, s, t0, n, t):
                        if count == k:
                            return pack(slot, t)
                        count += 1
    elif kind == REACT:
        if reaction_options(tb, st) == 2:
            if k == 0:
                return np.int64(PASS)
            count = 1
        for slot in range(st.n_slots[s]):
            if react_ok(tb, st, slot) > 0:
                if count == k:
                    return np.int64(slot)
                count += 1
    elif kind == BREAK:
        if k == 0:
            return np.int64(PASS)
        count = 1
        first = st.team_slot[s, st.bk_team]
        for j in range(tb.d_cards[st.team[s, st.bk_team]]):
            if st.up[s, first + j]:
                if count == k:
                    return np.int64(first + j)
                count += 1
    elif kind == PLACE:
        if k == 0:
            return np.int64(PASS)
        count = 1
        for slot in range(st.n_slots[s]):
            for f in range(1, 7):
                for c in range(1, st.rolled[f] + 1):
                    if place_ok(tb, st, slot, f, c):
                        if count == k:
                            return pack_place(slot, f, c)
                        count += 1
    return np.int64(count)


@jit
def is_legal(tb, st, action: int) -> bool:
    """``action`` is one of :func:`actions` (for tests and checks; linear in their number)."""
    for k in range(actions(tb, st, np.int64(-1))):  # noqa: SIM110
        if actions(tb, st, k) == action:
            return True
    return False


# ---------------------------------------------------------------- the end


@jit
def final_result(tb, st, winners) -> int:
    """Mark the winner in ``winners`` (bool [2]); return its seat, or -1 when the game was
    stopped by the turn cap (``st.end_reason == END_TURN_CAP``: nobody won)."""
    for s in range(2):
        winners[s] = st.winner == s
    return st.winner
