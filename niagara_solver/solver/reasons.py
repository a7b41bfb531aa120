"""Why a line of the search ends where it does: each leaf's reason as a statement about the position it reaches.

A reason is data — its kind, the player it speaks of (the player asking, X) and what it states (the winners, X's
bank under the tie-break in force, X's count of gems, the rounds left) — and its words follow from that data alone,
so that they say what the cut or the bound that gave them proved under the ruleset in force (the tie-break of
R-END-3 above all: with ``tiebreak: shared`` X needs no better bank than anyone's). Each kind is a claim that can be
checked with the engine on the position the line reaches (:data:`KINDS`; tests/test_reasons.py replays every bundled
puzzle's line and checks its reason there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

#: Every kind of reason and what it claims of the position it is given at (X: the player asking).
KINDS: dict[str, str] = {
    "over": "the game was over when the round began; the winners are those named (R-END-2, R-END-3)",
    "end": "the round has ended the game; the winners are those named (R-END-2, R-END-3)",
    "no-goal": "the horizon's last round has ended and nobody has reached the goal (R-END-1)",
    "no-steal": "the horizon's last round has ended and X's turns of the line stole nothing (R-STEAL-1)",
    "horizon": "the horizon has ended, the game goes on, and X has as many gems as when its first turn began",
    "lost": "X has fewer gems (banked and carried) than the count it had when its first turn began",
    "steal": "X's last turn of the line steals (R-STEAL-1)",
    "out-of-reach": "X cannot reach the goal within the rounds left, whatever it plays (R-END-1)",
    "unbeaten": "X has acted in the horizon's last round, its bank reaches the goal, and X is among the winners "
                "whatever the players still to act do (R-END-3): nobody ends the round at the goal with a bank "
                "that beats X's under the tie-break, or, shared, every player at the goal wins",
    "no-turn-left": "X has acted in the horizon's last round: no turn of X is left to steal in (R-STEAL-1)",
    "out-of-range": "whatever the players before X do, no turn of X this round steals (R-STEAL-1)",
    "bank-reach": "X cannot bank enough within the rounds left to reach the goal, whatever it plays (R-END-1)",
    "sure-win": "X wins this round (the horizon's last) whatever the others do, by a turn of movements alone",
    "steal-stays": "X's card has a turn that steals (R-STEAL-1) whatever the players before X do: on each disc it "
                   "steals on, a gem of a player who does not act before X stays, with that player or a thief "
                   "(R-STEAL-4)",
    "sure-steal": "X's card has a turn that steals (R-STEAL-1) whatever the players before X do: the gem it takes "
                  "is beyond their reach",
    "nothing-to-steal": "no other player's canoe carries a gem, and each player can keep its canoes empty with any "
                        "card (R-STEAL-1)",
    "bank-keeps": "X's bank alone holds X's count of gems, and X has acted in the horizon's last round",
    "port-and-bank": "X's bank alone holds X's count of gems and X has a canoe in the port (R-TURN-3, R-RESCUE-2)",
    "kept": "X keeps its count of gems to the end of the round (the horizon's last) whatever the players still to "
            "act and the flow do (R-STEAL-1, R-FLOW-6)",
    "sure-safe": "X's card has a turn that brings X's count of gems home to a port canoe whatever the players "
                 "before X do, and then X keeps them",
    "no-choice": "every choice of X here fails; with a reason, each of them fails for that reason",
}


@dataclass(frozen=True)
class Reason:
    """Why a leaf of the search holds or fails for X (``player``): a claim of kind ``kind`` (:data:`KINDS`) and the
    data it states. ``tiebreak`` and ``score``: the tie-break in force (R-END-3) and X's bank as it reads it (its
    value, or its count of gems; none with ``shared``); ``gems``: X's count of gems for the safe goal; ``rounds``:
    the rounds left, this one included; ``winners``: the winners' names; ``then``: for ``no-choice``, the one reason
    every choice fails for, when there is one."""

    kind: str
    player: str
    winners: tuple[str, ...] = ()
    tiebreak: str | None = None
    score: int | None = None
    gems: int | None = None
    rounds: int | None = None
    then: "Reason | None" = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"no reason of kind {self.kind!r}")

    def text(self) -> str:
        """The reason in words, as a line of play ends with it."""
        x, kind = self.player, self.kind
        if kind in ("over", "end"):
            won = ", ".join(self.winners)
            verb = "wins" if len(self.winners) == 1 else "win"
            head = "the game is over" if kind == "over" else "the game ends"
            return f"{head}: {won} {verb} (R-END-2, R-END-3)"
        if kind == "no-choice":
            return f"no choice of {x} works" + (f": {self.then.text()}" if self.then is not None else "")
        if kind in ("unbeaten", "sure-win"):
            bank, rest = self._unbeaten()
            if kind == "unbeaten":
                return f"{x} reaches the goal{bank}, and {rest} (R-END-3)"
            return (f"{x} brings the goal home on its own{bank}, nobody before it can steal from it, and {rest} "
                    "(R-END-3)")
        n = self.gems
        # X's count of gems is fixed when its first turn begins: none when the question comes after it (docs/SOLVER.md).
        kept = f"its {n} gem(s)" if n is not None else "its gems"
        return {
            "no-goal": "the round ends with nobody at the goal (R-END-1)",
            "no-steal": f"the round ends and {x} has not stolen (R-STEAL-1)",
            "horizon": f"the horizon ends and {x} still has {kept}",
            "lost": f"{x} has fewer gems than the {n} it had when its first turn began",
            "steal": f"{x} steals (R-STEAL-1)",
            "out-of-reach": f"{x} cannot reach the goal in time, even unhindered (R-END-1)",
            "no-turn-left": f"{x} has already had its turn this round: it can steal no more (R-STEAL-1)",
            "sure-steal": f"{x}'s card steals whatever the players before it do: the gem is beyond their reach "
                          "(R-STEAL-1)",
            "steal-stays": f"{x}'s card steals whatever the players before it do: the gem stays on its disc, with "
                           "its owner or with whoever steals it first (R-STEAL-1, R-STEAL-4)",
            "out-of-range": f"no canoe of {x} can reach an enemy's gem this round (R-STEAL-1)",
            "bank-reach": f"{x} cannot bank enough in {self.rounds} round(s), even unhindered (R-END-1)",
            "nothing-to-steal": f"no other player carries a gem, and each can keep it so: {x} never steals "
                                "(R-STEAL-1)",
            "bank-keeps": f"{x}'s bank alone keeps its {n} gem(s) (R-GEM-5)",
            "port-and-bank": f"{x}'s bank holds its {n} gem(s) and {x} can keep a canoe in the port (R-TURN-3, "
                             "R-RESCUE-2)",
            "kept": f"nobody after {x} can steal its {n} gem(s), and the flow cannot take them (R-STEAL-1, R-FLOW-6)",
            "sure-safe": f"{x}'s card brings its {n} gem(s) home, and nobody still to act before it can steal them "
                         "(R-STEAL-1)",
        }[kind]

    def _unbeaten(self) -> tuple[str, str]:
        """X's bank as the tie-break in force reads it, and why nobody takes X's win away (R-END-3)."""
        if self.tiebreak == "shared":
            return "", "with the shared tie-break every player at the goal wins"
        if self.tiebreak == "count":
            return (f" with {self.score} gems banked",
                    "nobody can end the round at the goal with more gems banked")
        return f" with a bank worth {self.score}", "nobody can end the round at the goal with a bank worth more"

    def to_json(self) -> dict[str, Any]:
        """The reason as data (``--json``): its kind, its player, what it states, and its words."""
        out: dict[str, Any] = {"kind": self.kind, "player": self.player}
        if self.kind in ("over", "end"):
            out["winners"] = list(self.winners)
        for name in ("tiebreak", "score", "gems", "rounds"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        if self.then is not None:
            out["then"] = self.then.to_json()
        out["text"] = self.text()
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Reason":
        """A reason from :meth:`to_json`'s data (its words are made again, not read)."""
        then = data.get("then")
        return cls(data["kind"], data["player"], tuple(data.get("winners", ())), data.get("tiebreak"),
                   data.get("score"), data.get("gems"), data.get("rounds"),
                   cls.from_json(then) if then is not None else None)
