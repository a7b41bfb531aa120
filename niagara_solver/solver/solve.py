"""``niagara-solve solve``: answers a strong player wants, proved by exhaustive search (docs/SOLVER.md).

* **win** within H rounds: X has a strategy that ends the game by the end of round H with X among the
  winners, whatever the others do (they may play as if in league against X);
* **steal**: for each card of X, can X steal this round, and from whom — possibly (for some play of the
  players before X) and surely (for every play); with H ≥ 2, can X force a steal within H rounds;
* **safe**: who threatens each loaded canoe of X, at which flows X's canoes go over the falls, and whether X
  has a card and turns that keep all its gems whatever the others do.

Two backends answer the verdict questions: ``search`` (:mod:`.search`, over the engine) and ``smt``
(:mod:`.smt`, over the encoding); ``both`` has the search write its answer's certificate (:mod:`.proof`) and the
encoding check it (:mod:`.certify`), and fails loudly if the encoding refuses it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from niagara_solver.engine.flow import flow_outcomes
from niagara_solver.engine.rescue import apply_rescue, begin_turns, must_rescue, rescue_options
from niagara_solver.engine.round import is_finished, winners
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.readings import require
from niagara_solver.model.atoms import PORT, Phase
from niagara_solver.model.position import Canoe, Player, Position
from niagara_solver.model.limits import SOLVE_TIMEOUT, check_time, time_limit
from niagara_solver.model.verdict import Verdict
from niagara_solver.model.errors import InputError
from niagara_solver.solver.answers import (Answer, AnsweredBy, Backend, Goal, OutOfTime, ProgressReport, has_steal,
                                          x_choice)
from niagara_solver.solver.certificate import Certificate
from niagara_solver.solver.certify import CertificateCheck, check_certificate
from niagara_solver.solver.reasons import Reason
from niagara_solver.solver.proof import certificate as write_certificate
from niagara_solver.solver.search import LINE_FACTOR, LINE_NODES, Node, Search, line_reason, trace
from niagara_solver.solver.smt import solve_smt


def answer_with(pos: Position, player: int, goal: Goal, horizon: int = 1, backend: Backend | str = Backend.SEARCH,
                timeout: float | None = SOLVE_TIMEOUT, progress: ProgressReport | None = None) -> Answer:
    """Answer ``goal`` for ``player`` in ``pos`` within ``horizon`` rounds with one backend, ``search`` or ``smt``
    (``progress`` is told how many positions it searched, now and then, and under smt what its loop tried and
    found). :func:`solve_with` asks both, and gives the :class:`Solution` the command line and
    ``niagara_solver.solve`` give."""
    chosen = Backend(backend)
    if chosen is Backend.BOTH:
        raise ValueError("one backend answers here (search or smt); solve_with compares both")
    require(pos.ruleset, "solver")
    with time_limit(timeout):  # the search and the tables after it share the one budget
        if chosen is Backend.SMT:
            return solve_smt(pos, player, goal, horizon, timeout, progress)
        return _search(pos, player, goal, horizon, timeout, progress)


def _search(pos: Position, player: int, goal: Goal, horizon: int, timeout: float | None,
            progress: Callable[[int], None] | None) -> Answer:
    return _search_with(pos, player, goal, horizon, timeout, progress)[0]


def _search_with(pos: Position, player: int, goal: Goal, horizon: int, timeout: float | None,
                 progress: Callable[[int], None] | None) -> tuple[Answer, Search]:
    """The search's answer, and the search itself (its transposition table, for the answer's certificate)."""
    start = time.perf_counter()
    name = pos.players[player].name
    answer = Answer(Verdict.UNKNOWN, name, goal, horizon, AnsweredBy.SEARCH)
    if is_finished(pos):
        won = winners(pos)
        answer.verdict = Verdict.of(goal is Goal.WIN and player in won)
        answer.reason = Reason("over", name, winners=tuple(pos.players[i].name for i in won))
        answer.note = answer.reason.text()
        answer.details["finished"] = True
        return answer, Search(player, goal, horizon, timeout, progress)
    search = Search(player, goal, horizon, timeout, progress)
    search.name = name
    try:
        root = search.value(pos)
        answer.verdict = Verdict.of(root.value)
        if root.value:
            answer.card, answer.turn = x_choice(root)
            answer.line = trace(root)
            answer.reason = line_reason(root)
    except OutOfTime:
        answer.verdict = Verdict.UNKNOWN
        answer.note = "the search ran out of time"
    if answer.verdict is Verdict.REFUTED:
        try:  # the answer stands; only the list of refutations may be cut short
            with search.line_budget():
                answer.refutations = _refutations(search, pos, player)
        except OutOfTime:
            answer.note = ("the refutations were cut short (the time limit, or the positions they may search: "
                           f"{LINE_NODES:,} or {LINE_FACTOR} times the proof's)")
    try:
        if goal is Goal.STEAL and horizon == 1:
            answer.details["cards"] = steal_chances(pos, player)
        if goal is Goal.SAFE:
            answer.details["threats"] = threats(pos, player)
            answer.details["falls"] = fall_risk(pos, player)
    except OutOfTime:  # the tables beside the answer: left out, and said so
        answer.details["unfinished"] = "the time limit ran out before the tables beside the answer"
    answer.seconds = time.perf_counter() - start
    answer.nodes = search.nodes
    return answer, search


@dataclass(frozen=True)
class Solution:
    """One question answered by one backend, or by both and compared (``--backend both``).

    The two backends are independent readings of the rules (the engine, the encoding): when both answered and
    their verdicts differ, one of them is wrong, and the solution says so (exit 1). Under ``both`` the encoding
    checks the search's certificate (``check``): a refused certificate is a disagreement too.
    """

    answers: tuple[Answer, ...]
    check: CertificateCheck | None = None
    #: The file the search's certificate was written to (``--certificate``), or None when none was written.
    certificate_file: str | None = None

    @property
    def answer(self) -> Answer:
        """The first backend's answer (the search's, under ``both``)."""
        return self.answers[0]

    @property
    def verdict(self) -> Verdict:
        """The answer's verdict (the first backend's: what the JSON's ``"verdict"`` and the text say): CONFIRMED
        "yes", REFUTED "no", UNKNOWN. Whether the backends agree is :attr:`agree`; the exit status,
        :attr:`exit_status`."""
        return self.answer.verdict

    @property
    def word(self) -> str:
        """``yes``, ``no`` or ``unknown`` (:attr:`verdict` in :data:`ANSWER`'s words)."""
        return self.answer.word

    @property
    def agree(self) -> bool:
        """Did no two backends give different definite verdicts? (A backend that ran out of time contradicts
        nobody: its unknown makes the comparison unknown, exit 3, not a disagreement.)"""
        if self.check is not None and self.check.verdict is Verdict.REFUTED:
            return False
        return len({a.verdict for a in self.answers if a.verdict is not Verdict.UNKNOWN}) <= 1

    @property
    def exit_status(self) -> int:
        """1 when the backends disagree, 3 when an answer is unknown, else 0 (yes and no are both answers)."""
        if not self.agree:
            return 1
        return 3 if any(a.verdict is Verdict.UNKNOWN for a in self.answers) else 0

    def to_json(self) -> dict[str, Any]:
        data = self.answer.to_json()
        if len(self.answers) > 1:
            data["backends"] = {a.backend.value: a.to_json() for a in self.answers}
            data["agree"] = self.agree
        if self.check is not None:
            data["certificate"] = self.check.to_json()
        if self.certificate_file is not None:
            data["certificate_file"] = self.certificate_file
        return data


def solve_with(pos: Position, player: int, goal: Goal, horizon: int = 1, backend: Backend = Backend.SEARCH,
               timeout: float | None = SOLVE_TIMEOUT, progress: ProgressReport | None = None,
               certificate: str | Path | None = None) -> Solution:
    """Answer ``goal`` with one backend, or with both: the search's answer, its certificate checked by the encoding
    (docs/SOLVER.md, "Certified answers"). ``certificate``: a file to write the search's certificate to."""
    if backend is Backend.SMT and certificate is not None:
        raise InputError("--certificate", "a certificate is written by the search (--backend search or both)",
                         "CERTIFICATE")
    if backend is Backend.SMT or (backend is Backend.SEARCH and certificate is None):
        with time_limit(timeout):
            return Solution((answer_with(pos, player, goal, horizon, backend, timeout, progress),))
    require(pos.ruleset, "solver")
    with time_limit(timeout):  # the check gets what the search left of the one time limit
        answer, search = _search_with(pos, player, goal, horizon, timeout, progress)
        if answer.verdict is Verdict.UNKNOWN:
            unknown = Answer(Verdict.UNKNOWN, answer.player, goal, horizon, AnsweredBy.CERTIFICATE,
                             note="the search gave no answer to certify: no certificate written")
            return Solution((answer, unknown))  # a certificate asked for and not written is no success (exit 3)
        try:
            proof = write_certificate(search, pos, answer.verdict is Verdict.CONFIRMED)
        except OutOfTime:
            unknown = Answer(Verdict.UNKNOWN, answer.player, goal, horizon, AnsweredBy.CERTIFICATE,
                             note="the time ran out while the certificate was written: no certificate written")
            return Solution((answer, unknown))
        written = None
        if certificate is not None:
            proof.save(certificate)
            written = str(certificate)
        if backend is Backend.SEARCH:
            return Solution((answer,), certificate_file=written)
        check = check_certificate(proof, timeout)
    return Solution((answer, _checked(answer, check)), check, written)


def check_saved_certificate(pos: Position, proof: Certificate,
                            timeout: float | None = SOLVE_TIMEOUT) -> CertificateCheck:
    """Check a saved certificate (``niagara-solve certify``, ``niagara_solver.certify``) for the question about
    ``pos``; InputError (exit 2) when it is the certificate of another position."""
    if proof.position != pos:
        raise InputError("positions[0]", "the certificate answers a question about another position",
                         "CERTIFICATE")
    require(pos.ruleset, "solver")
    with time_limit(timeout):
        return check_certificate(proof, timeout)


def _checked(answer: Answer, check: CertificateCheck) -> Answer:
    """The certificate check as a backend's answer: the search's verdict when accepted, unknown otherwise (a
    refusal is told by :attr:`Solution.agree`)."""
    verdict = answer.verdict if check.verdict is Verdict.CONFIRMED else Verdict.UNKNOWN
    out = Answer(verdict, answer.player, answer.goal, answer.horizon, AnsweredBy.CERTIFICATE, note=check.text(),
                 seconds=check.seconds, nodes=check.nodes)
    return out


def _refutations(search: Search, pos: Position, x: int) -> list[dict[str, Any]]:
    """For each option of X (each card, or each turn when the card is known), the others' defeating answer."""
    me = pos.players[x]
    out: list[dict[str, Any]] = []
    start = pos
    if pos.phase is Phase.CARDS:
        # Phase I first: X's rescue (if any) is its first option; take the one the search would try first.
        options = rescue_options(pos, x)
        forced = [i for i, p in enumerate(pos.players)
                  if i != x and must_rescue(p) and len(rescue_options(pos, i)) > 1]
        if forced:
            # Another player's rescue is a choice of theirs too: the refutation starts at the round's start.
            node = search.value(pos)
            return [_refutation("every choice of " + me.name, node)]
        start = begin_turns(pos, {x: options[0]}) if len(options) else begin_turns(pos)
    if x not in start.acted and me.card is None:
        for card in me.hand:
            chosen = start.with_player(x, Player(me.name, start.players[x].canoes, start.players[x].hand,
                                                 start.players[x].bank, card))
            node = search.turn_stage(chosen, search.horizon)
            out.append(_refutation(f"{me.name} plays {card.label}", node))
        return out
    if start.next_to_act() == x:
        for outcome in legal_turns(start, x)[:12]:
            node = search._after_x(start, outcome, search.horizon)
            out.append(_refutation(f"{me.name}: {outcome.turn}", node))
        return out
    node = search.turn_stage(start, search.horizon)
    out.append(_refutation("every choice of " + me.name, node))
    return out


def _refutation(option: str, node: Node) -> dict[str, Any]:
    """One option of X and the others' answer that defeats it: the line, and why it ends as it does (as data)."""
    out: dict[str, Any] = {"option": option, "answer": trace(node)}
    reason = line_reason(node)
    if reason is not None:
        out["reason"] = reason.to_json()
    return out


# -- this round's chances, threats and falls ------------------------------------------------------------------

def frontier(pos: Position, x: int, limit: int = 20000) -> list[Position] | None:
    """Every position at X's turn this round, over every play of the players before X (None past ``limit``)."""
    if pos.phase is Phase.CARDS:
        states = {pos}
        for i in pos.turn_order():
            if i == x:
                continue
            states = {s2 for s in states for s2 in _rescued(s, i)}
        states = {begin_turns(s, {x: rescue_options(s, x)[0]}) for s in states}
    else:
        states = {pos}
    if x in pos.acted:
        return []
    while True:
        nxt = next(iter(states)).next_to_act()
        if nxt == x or nxt is None:
            return list(states)
        grown: set[Position] = set()
        for s in states:
            check_time()
            p = s.next_to_act()
            assert p is not None
            player = s.players[p]
            for card in ([player.card] if player.card is not None else player.hand):
                grown.update(o.position for o in legal_turns(s, p, card))
            if len(grown) > limit:
                return None
        states = grown


def _rescued(pos: Position, i: int) -> list[Position]:
    return [apply_rescue(pos, i, o) for o in rescue_options(pos, i)]


def steal_chances(pos: Position, x: int) -> dict[str, Any]:
    """For each card X may play: the victims X can steal from for some play of the players before X (possible),
    and for every play (sure), and whether some steal is sure."""
    states = frontier(pos, x)
    me = pos.players[x]
    cards = [me.card] if me.card is not None else list(me.hand)
    if states is None:
        return {c.label: {"note": "too many plays before X to enumerate"} for c in cards}
    out: dict[str, Any] = {}
    for card in cards:
        possible: set[str] = set()
        sure: set[str] | None = None
        always = True
        for state in states:
            check_time()
            chosen = state.with_player(x, Player(me.name, state.players[x].canoes, state.players[x].hand,
                                                 state.players[x].bank, None))
            victims = {s.victim for o in legal_turns(chosen, x, card) for a in o.turn.actions for s in a.steps
                       if has_steal(o.turn) and hasattr(s, "victim")}
            possible |= victims
            sure = victims if sure is None else sure & victims
            always = always and bool(victims)
        out[card.label] = {"possible": sorted(possible), "sure": sorted(sure or set()),
                           "a steal is sure": always and bool(states)}
    return out


def threats(pos: Position, x: int) -> list[dict[str, Any]]:
    """For each loaded canoe of X: which other player could take its gem, with which card, if they acted on the
    position as it stands (X's canoe where it is)."""
    out = []
    me = pos.players[x]
    turn_pos = pos if pos.phase is Phase.TURNS else begin_turns(pos, {i: rescue_options(pos, i)[0]
                                                                      for i in range(len(pos.players))})
    for canoe in me.canoes:
        if not canoe.gems or not canoe.on_river:
            continue
        who: list[dict[str, Any]] = []
        for q, other in enumerate(turn_pos.players):
            if q == x or q in turn_pos.acted:
                continue
            check_time()
            bare = turn_pos.with_player(q, Player(other.name, other.canoes, other.hand, other.bank, None))
            bare = bare.replace(acted=tuple(a for a in bare.acted if a != q))
            cards = [c for c in ([other.card] if other.card is not None else other.hand) if c.paddles]
            hits = [c.label for c in cards if any(has_steal(o.turn, me.name) and _robs(bare, o, x, canoe.place)
                                                  for o in legal_turns(bare, q, c))]
            if hits:
                who.append({"player": other.name, "cards": hits})
        out.append({"canoe": canoe.describe(), "threats": who})
    return out


def _robs(pos: Position, outcome: Any, x: int, place: str) -> bool:
    before = [c for c in pos.players[x].canoes if c.place == place]
    after = [c for c in outcome.position.players[x].canoes if c.place == place]
    return sum(len(c.gems) for c in after) < sum(len(c.gems) for c in before)


def fall_risk(pos: Position, x: int) -> list[dict[str, Any]]:
    """For each canoe of X on the river: the flows (0 to 8 steps) that carry it over the falls if it stays where
    it is (with ``fork_policy: free``, those where it falls whichever branches the discs take, and those where
    it may)."""
    out = []
    me = pos.players[x]
    for canoe in me.canoes:
        if not canoe.on_river:
            continue
        alone = pos.with_player(x, Player(me.name, (canoe, Canoe(PORT)), me.hand, me.bank, me.card))
        falls, may = [], []
        for steps in range(0, 9):
            check_time()
            fell = [any(c.fallen for c in after.players[x].canoes) for _, after in flow_outcomes(alone, steps)]
            if all(fell):
                falls.append(steps)
            elif any(fell):
                may.append(steps)
        entry: dict[str, Any] = {"canoe": canoe.describe(), "falls at": falls}
        if may:
            entry["may fall at"] = may
        out.append(entry)
    return out
