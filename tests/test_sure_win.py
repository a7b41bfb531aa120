"""Two bounds of the horizon's last round (solver/search.py, docs/SOLVER.md "Pruning"). The win goal's sure win
(``_sure_win``): X brings the goal home by movements alone, nobody acting before X may steal from X
(``answers.may_steal_on``, an upper bound held above every steal the engine finds), and nobody can beat X's bank.
The steal goal's range (``_steal_in_range``): X's canoes cannot climb onto any disc where an enemy's gem may be.
The search with them gives the plain search's answers. And the certificate's leaf ``sure-win``, written where the sure
win holds and checked by the encoding alone (forged leaves refused)."""

import json
from functools import lru_cache

import pytest

from helpers import P, position
from niagara_solver.design.mine import card_position, with_card
from niagara_solver.design.simulate import start_position
from niagara_solver.play.playout import random_playout
from niagara_solver.engine.round import goal_reached
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card
from niagara_solver.model.board import standard_board
from niagara_solver.model.notation import Move, Steal, Turn
from niagara_solver.model.position import Player, Position
from niagara_solver.model.ruleset import PRESETS, Ruleset
from niagara_solver.model.verdict import Verdict
from niagara_solver.solver.answers import Goal, may_steal_on
from niagara_solver.solver.certificate import Certificate, Claim, CNode, NodeKind, loads_certificate
from niagara_solver.solver.certify import check_certificate
from niagara_solver.solver.proof import certificate
from niagara_solver.solver.search import PLAIN, Search


def test_a_thief_climbs_onto_its_victim_with_its_budget_spent():
    pos = position(P("red", "7R", "6R:ruby"), P("blue", "6L:sapphire", "port"))
    thief = pos.players[0].canoes
    low = next(c for c in thief if c.place == "7R")
    assert may_steal_on(pos, low, [1], {"6R"})       # one disc up, the 1 spent (R-STEAL-1, R-MOVE-3)
    assert not may_steal_on(pos, low, [2, 3], {"6R"})  # more points than the climb: it cannot stop there empty
    assert not may_steal_on(pos, low, [1], {"6L"})   # another branch: never upstream of 7R
    laden = next(c for c in thief if c.place == "6R")
    assert may_steal_on(pos, laden, [3], {"5"})      # unload the ruby beside its cave (2), then one disc up
    assert not may_steal_on(pos, laden, [1], {"5"})  # it still carries the ruby when it stops
    strict = Ruleset(steal_after_unload=False)       # R-STEAL-5
    pos = position(P("red", "7R", "6R:ruby"), P("blue", "6L:sapphire", "port"), ruleset=strict.to_json())
    laden = next(c for c in pos.players[0].canoes if c.place == "6R")
    assert not may_steal_on(pos, laden, [3], {"5"})


@lru_cache(maxsize=None)
def seeded(rules: Ruleset) -> list[Position]:
    out = []
    for players in (3, 4, 5):
        for seed in range(3):
            start = Position.initial([f"p{i}" for i in range(players)], ruleset=rules)
            out += [r.turns_start for r in random_playout(start, seed, rounds=25, policy="greedy")]
    return out


@pytest.mark.parametrize("rules", [PRESETS["standard"], PRESETS["bga-2013-05-09"], Ruleset(capacity=2)],
                         ids=["standard", "bga-2013-05-09", "capacity 2"])
def test_may_steal_on_is_never_below_a_steal_the_engine_finds(rules):
    steals = 0
    for dealt in seeded(rules):
        for q, player in enumerate(dealt.players):
            # Every card of the hand, as if none were chosen yet.
            pos = dealt.with_player(q, Player(player.name, player.canoes, player.hand, player.bank, None))
            for card in sorted(set(player.hand), key=str):
                for outcome in legal_turns(pos, q, card):
                    for action in outcome.turn.actions:
                        stops = [s.dest for s in action.steps if isinstance(s, Move)]
                        if not any(isinstance(s, Steal) for s in action.steps):
                            continue
                        canoe = next(c for c in player.canoes if c.place == action.canoe.place
                                     and (action.canoe.gems is None or c.gems == action.canoe.gems))
                        assert may_steal_on(pos, canoe, card.budgets, {stops[-1]}), (pos, q, str(outcome.turn))
                        steals += 1
    assert steals > 100, steals


def last_round(*players, lifebuoy: str) -> Position:
    return position(*players, lifebuoy=lifebuoy)


#: X (red) acts last with two loaded canoes its 5 brings home: four amethysts banked, the goal (R-END-1).
HOME = [P("red", "4:amethyst", "5:amethyst", hand=[5], bank={"amethyst": 2}, card=5)]


@pytest.mark.parametrize("others, word", [
    # Every other canoe is upstream of red's gems (a thief climbs onto its victim, R-STEAL-1) and nobody can reach
    # the goal: the cut says yes before any of the others' plays is searched.
    ([P("blue", "1", "2", hand=[1, 2, 3, 4, 5, 6]), P("green", "3", "port", hand=[1, 2, 3, 4, 5, 6])], True),
    # Blue's empty canoe on 6L climbs onto red's gem on 5 with its 1 and steals it (R-STEAL-1): red needs both.
    ([P("blue", "6L", "2", hand=[1]), P("green", "3", "port", hand=[1, 2, 3])], False),
    # Green brings a fourth ruby home with its 1 and beats red's four amethysts on value (R-END-3).
    ([P("blue", "1", "2", hand=[3]), P("green", "1:ruby", "port", hand=[1], bank={"ruby": 3})], False),
])
def test_the_cut_gives_the_plain_answer(others, word):
    pos = last_round(*others, *HOME, lifebuoy=others[0]["name"])
    x = pos.index("red")
    plain = Search(x, Goal.WIN, 1, 120, pruning=PLAIN)
    value = plain.value(pos).value
    assert Search(x, Goal.WIN, 1, 120).value(pos).value is value is word
    proof = Search(x, Goal.WIN, 1, 120, _lines=False)  # the pruned search alone, without the plain line
    proof.value(pos)
    if word:
        assert proof.nodes * 20 < plain.nodes, (proof.nodes, plain.nodes)


def test_the_steal_range_gives_the_plain_answer_and_cuts_where_the_older_bound_does_not():
    # The steal goal in the last round, X still to act: X steals nothing unless one of its canoes can climb onto a
    # disc where an enemy's gem may be when X acts (Search._steal_in_range, on may_steal_on). Seeded 3-player games
    # at horizon 1, each player asked: the pruned search and the plain one agree; and at the start of phase II the
    # new bound rules out steals that the older one (an enemy still to act anywhere) leaves open.
    decided = asked = 0
    for seed in range(4):
        start = Position.initial(["p0", "p1", "p2"])
        for record in random_playout(start, seed, rounds=12, policy="greedy"):
            for x in range(3):
                plain = Search(x, Goal.STEAL, 1, 120, pruning=PLAIN).value(record.start).value
                assert Search(x, Goal.STEAL, 1, 120).value(record.start).value is plain, (seed, record.start.round, x)
                asked += 1
                bounds = Search(x, Goal.STEAL, 1, 120)
                if bounds._steal_in_reach(record.turns_start) and not bounds._steal_in_range(record.turns_start):
                    decided += 1
    assert asked > 100 and decided > 10, (asked, decided)


def test_the_cards_a_player_may_still_act_with():
    # R-CARD-1: the card chosen, or while none is, every card of the hand.
    pos = position(P("red", "3", "port", hand=[2, 5], card=5), P("blue", "port", "port", hand=[1, "cloud"]))
    assert [c.label for c in pos.players[0].playable] == ["5"]
    assert [c.label for c in pos.players[1].playable] == ["1", "cloud"]


# -- the certificate's leaf "sure-win" (solver/proof.py writes it, solver/certify.py checks it) ----------------------

def _forged(pos: Position, x: int, card, turn: str, value: bool = True, goal: Goal = Goal.WIN) -> Certificate:
    """A "yes" certificate that is one ``sure-win`` leaf at ``pos``: whatever it claims, the checker must show."""
    leaf = CNode(NodeKind.LEAF, 0, claim=Claim.SURE_WIN, value=value,
                 card=card if isinstance(card, Card) else Card.parse(card), turn=Turn.parse(turn))
    return Certificate(x, goal, 1, True, (pos,), (leaf,))


#: Blue and green act before red, every canoe of theirs upstream of red's gems, nobody able to reach the goal.
AWAY = [P("blue", "1", "2", hand=[1, 2, 3, 4, 5, 6]), P("green", "3", "port", hand=[1, 2, 3, 4, 5, 6])]


def test_the_certificate_stops_at_a_sure_win_leaf_and_the_encoding_accepts_it(monkeypatch):
    # Two cards each, so that the certificate spelled out below stays small.
    pos = last_round(P("blue", "1", "2", hand=[1, 6]), P("green", "3", "port", hand=[2, 5]), *HOME, lifebuoy="blue")
    search = Search(2, Goal.WIN, 1, 60)
    assert search.value(pos).value
    proof = certificate(search, pos, True)
    [leaf] = proof.nodes
    assert (leaf.claim, leaf.value, leaf.card, str(leaf.turn)) == (Claim.SURE_WIN, True, Card.parse(5),
                                                                  "4: <port; 5: <port")
    assert loads_certificate(json.dumps(proof.to_json())) == proof  # the file keeps the card and the turn
    check = check_certificate(proof)
    assert check.verdict is Verdict.CONFIRMED, check.text()
    # Without the leaf the certificate spells out blue's and green's plays, and is accepted too.
    monkeypatch.setattr(Search, "sure_win_turn", lambda self, pos, robbed=False: None)
    spelled = certificate(Search(2, Goal.WIN, 1, 60), pos, True)
    assert len(spelled.nodes) > 1 and all(n.claim is not Claim.SURE_WIN for n in spelled.nodes)
    assert check_certificate(spelled).verdict is Verdict.CONFIRMED


@pytest.mark.parametrize("players, card, turn, value, goal, rule, words", [
    # A turn the rules forbid: a 5 does not stop one disc up (R-MOVE-3).
    ([*AWAY, *HOME], 5, "4: <port; 5: <4", True, Goal.WIN, "R-MOVE-3", "does not allow"),
    # A turn that banks one amethyst: three, not the goal (R-END-1).
    ([*AWAY, *HOME], 5, "4: >7R -amethyst; 5: <port", True, Goal.WIN, "R-END-1", "does not reach the goal"),
    # Not red's card.
    ([*AWAY, *HOME], 3, "4: <1", True, Goal.WIN, "R-CARD-2", "no turn with the 3"),
    # The leaf stands for a win: "false" is not its word, nor is a steal.
    ([*AWAY, *HOME], 5, "4: <port; 5: <port", False, Goal.WIN, "R-END-1", "stands for a win"),
    ([*AWAY, *HOME], 5, "4: <port; 5: <port", True, Goal.STEAL, "R-END-1", "stands for a win"),
    # Blue's empty canoe on 6L climbs onto red's gem on 5 with its 1 before red acts (R-STEAL-1).
    ([P("blue", "6L", "2", hand=[1]), AWAY[1], *HOME], 5, "4: <port; 5: <port", True, Goal.WIN, "R-STEAL-1",
     "a turn of blue may take a gem of red's"),
    # With three amethysts banked red needs one of its two: blue's canoe on 6L may take the one on 5, and green's on
    # 5 the one on 4, both before red acts (R-STEAL-1).
    ([P("blue", "6L", "2", hand=[1]), P("green", "5", "port", hand=[1]),
      P("red", "4:amethyst", "5:amethyst", hand=[5], bank={"amethyst": 3}, card=5)], 5, "4: <port; 5: <port", True,
     Goal.WIN, "R-STEAL-1", "a turn of blue, green may take a gem of red's first"),
    # Green, acting before red, brings a fourth ruby home with its 1: a better bank at the goal (R-END-3).
    ([P("blue", "1", "2", hand=[3]), P("green", "1:ruby", "port", hand=[1], bank={"ruby": 3}), *HOME], 5,
     "4: <port; 5: <port", True, Goal.WIN, "R-END-3", "green's turn"),
    # The same after red: green still to act at the round's end beats red's bank (R-END-3).
    ([P("blue", "1", "2", hand=[3]), *HOME, P("green", "1:ruby", "port", hand=[1], bank={"ruby": 3})], 5,
     "4: <port; 5: <port", True, Goal.WIN, "R-END-3", "may end the round at the goal with a better bank"),
])
def test_a_forged_sure_win_leaf_is_refused(players, card, turn, value, goal, rule, words):
    pos = last_round(*players, lifebuoy="blue")
    check = check_certificate(_forged(pos, pos.index("red"), card, turn, value, goal))
    assert check.verdict is Verdict.REFUTED and check.rule == rule and words in check.reason, check.text()


def test_a_search_that_claims_too_much_writes_a_leaf_the_checker_refuses(monkeypatch):
    # A planted bug in the bound: any turn of X's card that reaches the goal counts as sure. Blue's canoe on 6L
    # takes red's amethyst on 5 with its 1 first.
    pos = last_round(P("blue", "6L", "2", hand=[1]), AWAY[1], *HOME, lifebuoy="blue")

    def claims(self, at, robbed=False):
        me = at.players[2]
        if me.card is None or 2 in at.acted:
            return None
        return next(((o.turn, o.player(2).bank) for o in legal_turns(at, 2, me.card) if goal_reached(o.player(2))),
                    None)
    monkeypatch.setattr(Search, "sure_win_turn", claims)
    assert Search(2, Goal.WIN, 1, 60, pruning=PLAIN).value(pos).value is False  # the bug only claims it
    proof = certificate(Search(2, Goal.WIN, 1, 60), pos, True)
    assert proof.nodes[0].claim is Claim.SURE_WIN
    check = check_certificate(proof)
    assert check.verdict is Verdict.REFUTED and "a turn of blue may take a gem of red's" in check.reason, check.text()


def at_x(pos: Position, x: int) -> set[Position]:
    """Every position at X's turn this round, whatever the players before X play (their cards too)."""
    front = {pos}
    while (p := next(iter(front)).next_to_act()) != x:
        assert p is not None
        grown: set[Position] = set()
        for s in front:
            for c in s.players[p].playable:
                grown.update(o.position for o in legal_turns(s, p, c))
        front = grown
    return front


def test_the_leaf_claim_holds_on_the_positions_of_seeded_games_and_the_encoding_accepts_it():
    # Every phase II position of seeded 3- and 4-player games, each player still to act after some of the others
    # with the card it played: where the certificate's reading of the sure win (Search.sure_win_turn, robbed=True)
    # names a turn, that turn is legal after every play of those before X (one or two of them) and wins there
    # whatever the rest do (the plain search); and the encoding accepts the leaf. It names turns the search's own
    # bound does not (a gem X can lose first and still win).
    claimed = checked = wider = 0
    for players, seed in [(p, s) for p in (3, 4) for s in range(6)]:
        start = start_position(standard_board(), PRESETS["standard"], players)
        for record in random_playout(start, seed, 30, "lookahead"):
            for s in [record.turns_start, *(t.after for t in record.turns)]:
                p = s.next_to_act()
                if p is None:
                    continue
                for x in range(players):
                    if x in s.acted or x == p:
                        continue
                    search = Search(x, Goal.WIN, 1).values
                    found = search.sure_win_turn(s, robbed=True)
                    if found is None:
                        continue
                    claimed += 1
                    wider += search.sure_win_turn(s) is None
                    turn = str(found[0])
                    if len(search._before_x(s)) <= 2:
                        for at in at_x(s, x):
                            [o] = [o for o in legal_turns(at, x, at.players[x].card) if str(o.turn) == turn]
                            assert Search(x, Goal.WIN, 1, pruning=PLAIN).value(o.position).value, (players, seed, x)
                        checked += 1
                    check = check_certificate(_forged(s, x, s.players[x].card, turn))
                    assert check.verdict is Verdict.CONFIRMED, (players, seed, s.round, x, check.text())
    assert claimed >= 15 and checked >= 12 and wider >= 2, (claimed, checked, wider)


def test_a_gem_x_can_lose_first_and_still_win_leaves_the_leaf_in() -> None:
    # Red brings both amethysts home with its 5 (four banked: the goal, R-END-1). Blue's empty canoe on 6L may take
    # the one on 5 first with its 1 (R-STEAL-1): the search's own bound gives up there, but the one on 4 still makes
    # four. The leaf is written, and the encoding shows it with the canoe on 5 carrying at most its amethyst.
    pos = last_round(P("blue", "6L", "2", hand=[1]), AWAY[1],
                     P("red", "4:amethyst", "5:amethyst", hand=[5], bank={"amethyst": 3}, card=5), lifebuoy="blue")
    search = Search(2, Goal.WIN, 1, 60)
    assert search.values.sure_win_turn(pos) is None and search.value(pos).value
    proof = certificate(search, pos, True)
    assert [(n.claim, str(n.turn)) for n in proof.nodes] == [(Claim.SURE_WIN, "4: <port; 5: <port")]
    check = check_certificate(proof)
    assert check.verdict is Verdict.CONFIRMED, check.text()

def test_a_mined_win_ends_in_a_sure_win_leaf_that_the_encoding_accepts():
    # The first game mined with seed 0 (4 players), round 22: red's 6 brings its two canoes home from 6L, a sapphire
    # each (five sapphires banked: the goal), with blue, green and yellow acting before it. Blue's empty canoe on 7L
    # may take one sapphire first (R-STEAL-1), so the search's own bound holds only once blue has played; but red
    # wins with four sapphires as well, and the certificate is one sure-win leaf where it spelled out every play of
    # the three (and was not written within mining's 5 s); the encoding bounds what blue's turn can take.
    start = start_position(standard_board(), PRESETS["standard"], 4)
    pos = next(card_position(r) for r in random_playout(start, 0, 22, "lookahead") if r.start.round == 22)
    x = pos.index("red")
    pinned = with_card(pos, x, Card.parse(6))
    search = Search(x, Goal.WIN, 1, 60)
    assert search.value(pinned).value and search.values.sure_win_turn(pinned) is None
    proof = certificate(search, pinned, True)
    assert [(n.claim, str(n.turn)) for n in proof.nodes] == [(Claim.SURE_WIN, "6L: <port; 6L: <port")]
    check = check_certificate(proof)
    assert check.verdict is Verdict.CONFIRMED, check.text()

def test_a_sure_win_leaf_with_a_rival_at_the_goal_gives_the_tie_break_theme():
    # Red brings two rubies home (four, worth 20); green, still to act after red, may bank a fourth amethyst and reach
    # the goal too, worth 4: the tie-break gives red the win (R-END-3), and mining names the theme from the leaf.
    from niagara_solver.design.mine import themes_of
    pos = last_round(P("blue", "1", "2", hand=[1, 6]), P("red", "4:ruby", "5:ruby", hand=[5], bank={"ruby": 2}, card=5),
                     P("green", "1:amethyst", "port", hand=[1], bank={"amethyst": 3}), lifebuoy="blue")
    search = Search(1, Goal.WIN, 1, 60)
    assert search.value(pos).value
    proof = certificate(search, pos, True)
    assert [n.claim for n in proof.nodes] == [Claim.SURE_WIN]
    assert check_certificate(proof).verdict is Verdict.CONFIRMED
    assert themes_of(proof, [], pos) == ["R-END-3"]
    away = last_round(*AWAY, *HOME, lifebuoy="blue")  # nobody else can reach the goal: no theme
    assert themes_of(certificate(Search(2, Goal.WIN, 1, 60), away, True), [], away) == []


# -- the win's last round after X's turn, by parts (the leaf "rest", solver/certify.py) --------------------------------

def _rest(green: dict, value: bool) -> tuple[Position, Certificate]:
    """Red has acted with four amethysts banked (the goal); green is still to act: a "yes" that is one rest leaf."""
    pos = position(P("blue", "1", "2", hand=[3], card=1), P("red", "port", "port", hand=[6], bank={"amethyst": 4},
                                                             card=5), green, lifebuoy="blue", acted=["blue", "red"])
    return pos, Certificate(1, Goal.WIN, 1, True, (pos,), (CNode(NodeKind.LEAF, 0, claim=Claim.REST, value=value),))


def test_the_rest_of_the_win_s_last_round_is_shown_by_parts_without_the_chain(monkeypatch):
    # Green can bank one more amethyst at most (four, worth 4 against red's 4: a shared win, R-END-3): shown by the
    # bound on green's own bank, without the question over the chain of the turns still to come.
    from niagara_solver.solver import certify
    pos, cert = _rest(P("green", "1:amethyst", "port", hand=[1], bank={"amethyst": 3}), True)
    monkeypatch.setattr(certify._Checker, "chain", lambda self, order: pytest.fail("the chain was asked"))
    check = check_certificate(cert)
    assert check.verdict is Verdict.CONFIRMED, check.text()


def test_a_rest_leaf_the_parts_do_not_show_goes_to_the_chain_and_a_false_one_is_refused():
    # Green brings a fourth ruby home with its 1 (worth 20 against 4): the parts do not show red's win, and the chain
    # says green wins; the leaf claiming the win is refused, the one claiming the loss accepted.
    green = P("green", "1:ruby", "port", hand=[1], bank={"ruby": 3})
    _, wrong = _rest(green, True)
    check = check_certificate(wrong)
    assert check.verdict is Verdict.REFUTED and check.rule == "R-END-1" and "lost" in check.reason, check.text()
    _, right = _rest(green, False)
    assert check_certificate(Certificate(1, Goal.WIN, 1, False, right.positions, right.nodes)).verdict \
        is Verdict.CONFIRMED
