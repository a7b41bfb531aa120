"""One sentence for every rule of RULES.md, for explanations (``why``) and traces.

A rule that only states a switch has its sentence in the switch's row (``says``, model/ruleset.py), taken from there
in RULES.md's order."""

from __future__ import annotations

from niagara_solver.model.ruleset import SWITCHES

_SENTENCES: dict[str, str] = {
    "R-COMP-1": "2 to 5 players play, in the seat order of the players list.",
    "R-COMP-2": "Each player owns 2 canoes, 6 paddle cards valued 1 to 6 and 1 cloud card.",
    "R-COMP-3": "There are 8 gems of each of 5 colours (gems_per_colour), never created or destroyed.",
    "R-COMP-4": "The weather marker takes the values -1 (sun), 0, 1 (rain) and 2 (storm).",
    "R-COMP-5": "The lifebuoy marks the player who acts first in phase II.",
    "R-BOARD-1": "The river is a main bed that forks into branches; only the discs of the board exist.",
    "R-BOARD-2": "Canoes start in the port above the top disc; below the last discs are the falls.",
    "R-BOARD-3": "A disc's depth is its distance in discs from the port.",
    "R-BOARD-4": "A canoe can use a cave only from a disc beside it.",
    "R-BOARD-5": "At the start every cave holds all gems of its own colour.",
    "R-BOARD-6": "Any number of canoes may share a disc, and the port.",
    "R-ROUND-1": "A round is phase I (rescues, cards), II (turns), III (flow), IV (lifebuoy), in that order.",
    "R-CARD-1": "Every player chooses one card, face down; a chosen card is fixed.",
    "R-CARD-2": "A card is played from the hand and stays out of it until all seven have been played.",
    "R-RESCUE-1": "A fallen canoe comes back to the port, empty, for one banked gem, which goes to its own cave.",
    "R-RESCUE-2": "A player with no canoe in play must bring one back: paying a gem if they have any, else free.",
    "R-TURN-1": "Players act one at a time from the lifebuoy holder, each once a round.",
    "R-TURN-2": "With the cloud card no canoe acts: the weather moves one step, up or down.",
    "R-TURN-3": "A canoe on the river always acts; a port canoe may act, but of two port canoes exactly one; "
                "a fallen canoe never acts.",
    "R-TURN-4": "The acting canoes act one after the other, in the order the player chooses, each once.",
    "R-MOVE-1": "A canoe's action is gem actions, one movement in one direction, gem actions, then steals; "
                "a port canoe that acts leaves the port.",
    "R-MOVE-2": "Moving one disc costs 1 point; loading or unloading a gem costs 2.",
    "R-MOVE-3": "A canoe spends exactly its budget, the card's points, unless it enters the port moving upstream, "
                "where the points left over are lost (R-MOVE-5).",
    "R-MOVE-4": "Downstream a canoe picks a branch at a fork and stays in it; it cannot paddle over the falls, "
                "nor cross from one branch to the other.",
    "R-MOVE-5": "A canoe may enter the port when its remaining points cover the distance; it banks its cargo "
                "and does nothing more.",
    "R-MOVE-6": "A canoe in the port can only move downstream.",
    "R-GEM-1": "A canoe loads a gem present in the cave beside its disc, or unloads a gem it carries into "
               "that cave; there are no gem actions without a cave or in the port.",
    "R-GEM-2": "A canoe carries at most one gem (capacity).",
    "R-GEM-3": "An unloaded gem stays in the cave where it was put.",
    "R-GEM-4": "A canoe may not both load and unload gems of the same colour in one turn.",
    "R-GEM-5": "A canoe entering the port banks its gem at no cost (with bank_after_load: false, not one it "
               "loaded this turn).",
    "R-STEAL-1": "A canoe that moved upstream, empty, and stopped on a disc with its whole budget spent may "
                 "take a gem from another player's canoe there.",
    "R-STEAL-2": "Stealing is optional; the thief picks one canoe, and takes no more gems than it has room for.",
    "R-STEAL-3": "No steal after moving downstream, while passing a canoe, or before moving; no moving after "
                 "a steal.",
    "R-STEAL-4": "A stolen gem may be stolen again later in the same phase.",
    "R-WEATHER-1": "The cloud moves the weather exactly one step, never out of [-1, 2].",
    "R-FLOW-1": "The river flows the smallest paddle played plus the weather.",
    "R-FLOW-2": "The river never flows backwards (a negative sum is 0; at least min_flow).",
    "R-FLOW-3": "Each flow step pushes one disc in at the top; the disc leaving the fork enters the marked branch.",
    "R-FLOW-4": "After each disc enters a branch the fork marker switches to the other branch.",
    "R-FLOW-5": "Canoes ride their discs; the port never moves.",
    "R-FLOW-6": "A canoe whose disc goes over the falls is fallen; its gem goes back to its own cave.",
    "R-BUOY-1": "The lifebuoy passes to the next player in seat order.",
    "R-END-1": "After a round a player reaches the goal with 7 gems, one of each colour, or 4 of one colour.",
    "R-END-2": "The game ends after a round in which someone reached the goal.",
    "R-END-3": "Among those, the highest bank value wins; equal values share the win (tiebreak: count, most gems; "
               "shared, everyone who reached the goal).",
    # The expansion (RULES.md section X), each module with its switch.
    "X-CARDS-1": "With x_cards each hand has ten cards: paddles 1 to 7, the cloud, the Lasso and the 1/2/3 card.",
    "X-CARDS-2": "The 7 counts for the flow; the Lasso and the 1/2/3 card do not, like the cloud.",
    "X-CARDS-3": "With the 1/2/3 card the player chooses a budget of 1, 2 or 3 for one canoe R-TURN-3 lets act "
                 "(card_123_canoes: all, for each of them).",
    "X-CARDS-4": "With the Lasso no canoe paddles; the player's river canoes are moored until the end of phase III "
                 "(lasso_scope: one, one chosen canoe), off the river for everything.",
    "X-DOUBLE-1": "With x_double each player has one single and one double canoe, which carries two gems.",
    "X-DOUBLE-2": "A double canoe makes any number of gem actions, all at one cave (double_one_cave).",
    "X-DOUBLE-3": "A canoe with a free place that moved upstream may steal as many gems as it has free places, one "
                  "from each victim canoe.",
    "X-DOUBLE-4": "A double canoe banks, falls and is rescued with every gem like any canoe.",
    "X-WHIRL-1": "One disc is the whirlpool; it rides the river and comes back at the top after the falls.",
    "X-WHIRL-2": "A canoe ends a movement on the whirlpool only with its last point, and is pushed one disc down.",
    "X-WHIRL-3": "The upstream step onto the whirlpool costs 2 points (whirl_cost_step: leave, the step off it).",
    "X-WHIRL-4": "A moored canoe put back onto the whirlpool is pushed like one that paddled there.",
    "X-WHIRL-5": "A canoe with no legal action stays where it is and loses its points.",
    "X-BEAVER-1": "A cloud that sets the weather to +2 puts the beaver on the top disc, riding the river.",
    "X-BEAVER-2": "When the beaver goes over the falls the weather is set to 0 at the end of phase III.",
    "X-MOOSE-1": "A canoe on a last disc may take the waiting moose at the start of its action.",
    "X-MOOSE-2": "The canoe holding the moose gets 2 more points on every action.",
    "X-MOOSE-3": "The moose returns to the ruby cave at the end of phase III when its canoe banked or fell.",
    "X-JOE-1": "Diamond Joe is a neutral canoe riding the river, back on the top disc after the falls.",
    "X-JOE-2": "After the flow Joe loads a gem of his cave's colour, then paddles the lifebuoy holder's card.",
    "X-JOE-3": "A canoe that moved and ended on Joe's disc may take, swap or give a gem with him.",
    "X-SIX-1": "With x_sixth_player 3 to 6 players play.",
    "X-GEMS-1": "gems_per_colour may be a table by player count; a count without an entry is refused.",
}


def sentence(rule: str) -> str:
    """The rule's sentence (or the ID alone for an unknown one)."""
    return RULES.get(rule, rule)


def _number(rule: str) -> int:
    tail = rule.rsplit("-", 1)[1]
    return int(tail) if tail.isdigit() else 0


def _with_rows(sentences: dict[str, str]) -> dict[str, str]:
    """The sentences, with each switch row's own rule (``says``) placed after the rules of its family before it."""
    out = dict(sentences)
    for row in SWITCHES.values():
        if not row.says:
            continue
        if row.rule in out:
            raise ValueError(f"{row.rule} has a sentence here and in the row of {row.name}")
        items = list(out.items())
        before = [i for i, (key, _) in enumerate(items)
                  if key.rsplit("-", 1)[0] == row.family and _number(key) < _number(row.rule)]
        at = before[-1] + 1 if before else len(items)
        out = dict([*items[:at], (row.rule, row.says), *items[at:]])
    return out


#: Rule ID -> its sentence, in the order of RULES.md.
RULES: dict[str, str] = _with_rows(_SENTENCES)
