"""A solver's line of play replayed by the engine: each label of a line (as
:func:`niagara_solver.solver.search.trace` writes it) matched against the options the engine lists at the position
reached, so that a line is shown (``solve --html``) or checked (``mine``: a puzzle's solution and refutations) on the
engine's own positions."""

from __future__ import annotations

from typing import Any

from niagara_solver.engine.apply import apply_turn
from niagara_solver.engine.flow import FlowOutcome, flow_choices, flow_value, parse_choices
from niagara_solver.engine.rescue import apply_rescue, begin_turns, must_rescue, rescue_options
from niagara_solver.engine.round import end_round
from niagara_solver.engine.turns import legal_turns
from niagara_solver.model.atoms import Card, Phase
from niagara_solver.model.errors import NiagaraError
from niagara_solver.model.notation import Turn
from niagara_solver.model.position import Player, Position
from niagara_solver.model.ruleset import ForkPolicy

#: How the search writes an example of the others' choices (solver/search.py), before the choice itself.
_EXAMPLE = "whatever the others do, e.g. "


class LineReplay:
    """A solver's line (its labels, as :func:`niagara_solver.solver.search.trace` writes them) replayed by the
    engine from a position: each label matched against the options the engine lists there (rescues, X's card,
    revealed cards, turns, the flow, the whirlpool's pushes). A label that is no such choice is a reason, said on
    the position reached."""

    def __init__(self, pos: Position, x: int) -> None:
        self.pos = pos
        self.x = x
        self.names = [p.name for p in pos.players]
        #: The rescue decisions made so far this phase I (by seat).
        self.rescued: set[int] = set()
        #: While the whirlpool's pushes are said (X-WHIRL-4): the position before the flow, the branches chosen,
        #: the outcomes still open and the pushes said so far.
        self.flowing: tuple[Position, tuple[Any, ...], list[FlowOutcome], tuple[str, ...]] | None = None

    def step(self, label: str) -> tuple[str, Position, Turn | None, int | None] | None:
        """Play the choice ``label`` says: the step's heading, the position to draw (before a turn, with the
        turn and its player; else after the choice), or None when the label is no choice here."""
        choice = label.removeprefix(_EXAMPLE)
        try:
            return (self._rescue(choice) or self._card(choice) or self._reveal(choice) or self._turn(choice)
                    or self._flow(choice) or self._push(choice))
        except (NiagaraError, ValueError):
            return None

    def _who(self, text: str, after: str) -> tuple[int, str] | None:
        """The player whose name ``text`` starts with, followed by ``after``, and the rest of the text."""
        for i, name in sorted(enumerate(self.names), key=lambda item: -len(item[1])):
            if text.startswith(name + after):
                return i, text[len(name) + len(after):]
        return None

    def _at_turns(self) -> None:
        """Phase I ends: the rescues not said are the ones the search makes without a choice (R-RESCUE-1)."""
        if self.pos.phase is not Phase.CARDS:
            return
        decisions = {}
        for i in range(len(self.names)):
            if i in self.rescued:
                decisions[i] = rescue_options(self.pos, i)[0]  # done: nothing more to bring back
            elif must_rescue(self.pos.players[i]) and len(rescue_options(self.pos, i)) > 1:
                decisions[i] = rescue_options(self.pos, i)[0]
        self.pos = begin_turns(self.pos, decisions)
        self.rescued = set()

    def _rescue(self, text: str) -> tuple[str, Position, None, None] | None:
        found = self._who(text, " rescues ")
        if found is None or self.pos.phase is not Phase.CARDS:
            return None
        p, rest = found
        # An option of a refuted answer may name the card too: "red rescues none, plays 3" (the smt backend's).
        rest, plays, card = rest.partition(", plays ")
        option = next((o for o in rescue_options(self.pos, p) if str(o) == rest), None)
        if option is None:
            return None
        self.pos = apply_rescue(self.pos, p, option)
        self.rescued.add(p)
        if plays:
            self._at_turns()
            self._set_card(p, Card.parse(card))
        return f"Round {self.pos.round} · I · {text}", self.pos, None, None

    def _set_card(self, p: int, card: Card) -> None:
        player = self.pos.players[p]
        if player.card is None:
            self.pos = self.pos.with_player(p, Player(player.name, player.canoes, player.hand, player.bank, card))

    def _card(self, text: str) -> tuple[str, Position, None, None] | None:
        found = self._who(text, " chooses ") or self._who(text, " plays ")
        if found is None or " " in found[1]:
            return None
        self._at_turns()
        self._set_card(found[0], Card.parse(found[1]))
        return f"Round {self.pos.round} · I · {text}", self.pos, None, None

    def _reveal(self, text: str) -> tuple[str, Position, None, None] | None:
        parts = [self._who(part, " reveals ") for part in text.split(", ")]
        if not parts or any(p is None for p in parts):
            return None
        self._at_turns()
        for p, card in (x for x in parts if x is not None):
            self._set_card(p, Card.parse(card))
        return f"Round {self.pos.round} · II · {text}", self.pos, None, None

    def _turn(self, text: str) -> tuple[str, Position, Turn, int] | None:
        found = self._who(text, " (")
        if found is not None:
            p, rest = found
            card_text, colon, turn_text = rest.partition("): ")
            if not colon:
                return None
            # "?": a card the search did not name (the player's own, already played: X-CARDS)
            card: Card | None = None if card_text == "?" else Card.parse(card_text)
        else:
            found = self._who(text, ": ")  # X's own turn, as an option of a refuted answer: "red: 3: <port"
            if found is None:
                return None
            p, turn_text = found
            card = None
        self._at_turns()
        before = self.pos
        outcome = next((o for o in legal_turns(before, p, card) if str(o.turn) == turn_text), None)
        if outcome is None:
            # The same outcome written otherwise (the smt backend's words: the canoes acting in another order, which
            # the engine lists once, R-TURN-4): the rule-by-rule interpreter plays it as written, or refuses it.
            turn = Turn.parse(turn_text)
            self.pos = apply_turn(before, p, turn, card).position
            return f"Round {before.round} · II · {text}", before, turn, p
        self.pos = outcome.position
        return f"Round {before.round} · II · {text}", before, outcome.turn, p

    def _flow(self, text: str) -> tuple[str, Position, None, None] | None:
        if not text.startswith("the river flows "):
            return None
        self._at_turns()
        before = self.pos
        steps = flow_value(before)
        groups: dict[Any, list[FlowOutcome]] = {}
        for outcome in flow_choices(before, steps):
            groups.setdefault(outcome.choices, []).append(outcome)
        choices = next((c for c in groups if flow_label(steps, c, before) == text), None)
        if choices is None:
            return self._branches(before, steps, text)
        self.flowing = (before, choices, groups[choices], ())
        return self._flowed(f"Round {before.round} · III · {text}")

    def _branches(self, before: Position, steps: int, text: str) -> tuple[str, Position, None, None] | None:
        """A free fork's flow whose branches are not the ones the engine lists for its outcome (the smt backend's:
        another choice of branches that leads to the same position), played as written (R-FLOW-4); with the
        whirlpool's pushes still to say, or branches not written one per step, a reason."""
        written = text.removeprefix(f"the river flows {steps}").strip()
        if before.whirlpool is not None or not (written.startswith("(") and written.endswith(")")):
            return None
        self.pos = end_round(before, parse_choices(written[1:-1], before, steps))
        return f"Round {before.round} · III · {text}", self.pos, None, None

    def _push(self, text: str) -> tuple[str, Position, None, None] | None:
        found = self._who(text, "'s canoe put back onto the whirlpool is pushed to ")
        if self.flowing is None or found is None:
            return None
        before, choices, outcomes, said = self.flowing
        n = len(said)
        self.flowing = (before, choices, [o for o in outcomes if o.pushes[n] == found[1]], (*said, found[1]))
        return self._flowed(f"Round {before.round} · III · {text}")

    def _flowed(self, heading: str) -> tuple[str, Position, None, None]:
        """After the flow and every push of a canoe put back onto the whirlpool (X-WHIRL-4): the next round
        (R-BUOY-1, R-CARD-2); while a push is still to be said, the position before the flow."""
        assert self.flowing is not None
        before, choices, outcomes, said = self.flowing
        if not outcomes:
            raise ValueError("no flow outcome has these pushes")
        if len(said) < len(outcomes[0].pushes):
            return heading, before, None, None
        self.pos = end_round(before, list(choices) or None, list(said) or None)
        self.flowing = None
        return heading, self.pos, None, None


def flow_label(steps: int, choices: tuple[Any, ...], pos: Position) -> str:
    """The flow as the search names it: its steps, and with ``fork_policy: free`` the branches of each step."""
    free = pos.ruleset.fork_policy is ForkPolicy.FREE and pos.board.forks
    return f"the river flows {steps}" + (f" ({','.join('/'.join(lab for _, lab in c) for c in choices)})"
                                         if free else "")
