"""The one verdict type of every answer: prove, solve, check, sweep and diff.

A verdict is three-valued, as in any honest checker: the claim was confirmed, it was refuted, or the tool could
not tell in time (UNKNOWN, never counted as a proof). Verdicts are ordered CONFIRMED < UNKNOWN < REFUTED, so
merging the verdicts of several checks of one claim (several player counts, several puzzles) is ``max``: one
refutation refutes, otherwise one unknown leaves the whole unknown.

A claim that does not apply where it was asked (a property of an expansion module that is off) has no verdict:
:data:`NOT_APPLICABLE`, ``None`` where a verdict is expected, left out of every merge (:func:`merge_applicable`).

Each command speaks of its claim in its own words (a property is *proved*, a puzzle's answer is *yes*, a switch's
witness is *found*, a mutant is *killed*); :class:`Words` holds those vocabularies, and results are turned into
words only when written out (JSON, tables).
"""

from __future__ import annotations

from enum import Enum
from typing import Iterable, NamedTuple


class Verdict(Enum):
    """CONFIRMED, UNKNOWN or REFUTED, ordered so that ``max`` merges (the worst wins)."""

    CONFIRMED = 0
    UNKNOWN = 1
    REFUTED = 2

    # Aliases in the words of the prover (a property of the rules).
    PROVED = 0

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.value < other.value

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.value <= other.value

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.value > other.value

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented
        return self.value >= other.value

    @property
    def exit_status(self) -> int:
        """The exit status of a run whose merged verdict this is: 0 confirmed, 1 refuted, 3 unknown."""
        return EXIT_STATUS[self]

    @classmethod
    def of(cls, confirmed: bool) -> "Verdict":
        """CONFIRMED when ``confirmed``, else REFUTED."""
        return cls.CONFIRMED if confirmed else cls.REFUTED


#: The exit status of ``check``, ``prove`` and ``sweep`` for their merged verdict (unknown is not a pass).
EXIT_STATUS = {Verdict.CONFIRMED: 0, Verdict.REFUTED: 1, Verdict.UNKNOWN: 3}


def merge(verdicts: "list[Verdict] | tuple[Verdict, ...]") -> Verdict:
    """The merged verdict of several checks of one claim (CONFIRMED for none)."""
    return max(verdicts, default=Verdict.CONFIRMED)


#: The word for a claim that does not apply where it was asked: a property of an expansion module that is off
#: (``x_moose is off``). It is no verdict: it has no place in the order, merging leaves it out, and it is neither a
#: pass nor a failure nor an unknown (docs/PROVER.md, "Properties that do not apply"). ``None`` stands for it where
#: a verdict is expected.
NOT_APPLICABLE = "not applicable"


def merge_applicable(verdicts: "Iterable[Verdict | None]") -> Verdict | None:
    """The merged verdict of the checks that apply (``None``: not applicable, left out); ``None`` when none does."""
    applicable = [v for v in verdicts if v is not None]
    return max(applicable) if applicable else None


class Words(NamedTuple):
    """How one kind of result names its three verdicts, and reads them back from its own JSON."""

    confirmed: str
    unknown: str
    refuted: str

    def __call__(self, verdict: Verdict) -> str:
        """The word for ``verdict``."""
        return (self.confirmed, self.unknown, self.refuted)[verdict.value]

    def parse(self, word: str) -> Verdict:
        """The verdict a word names (``ValueError`` for a word of another vocabulary, and for
        :data:`NOT_APPLICABLE`, which is no verdict: see :meth:`parse_applicable`)."""
        for verdict in Verdict:
            if self(verdict) == word:
                return verdict
        raise ValueError(f"unknown verdict {word!r}; expected {self.confirmed}, {self.unknown} or {self.refuted}")

    def word(self, verdict: Verdict | None) -> str:
        """The word for ``verdict``, :data:`NOT_APPLICABLE` for ``None``."""
        return NOT_APPLICABLE if verdict is None else self(verdict)

    def parse_applicable(self, word: str) -> Verdict | None:
        """The verdict a word names, ``None`` for :data:`NOT_APPLICABLE`."""
        return None if word == NOT_APPLICABLE else self.parse(word)


#: A property of the rules (``prove``): proved for every position, or refuted by a counterexample.
PROOF = Words("proved", "unknown", "refuted")
#: A question about a position (``solve``): can the player reach the goal?
ANSWER = Words("yes", "unknown", "no")
#: Does a switch change anything (``diff``): a witness found, or proved that there is none.
WITNESS = Words("found", "unknown", "none")
#: A regression run (``check``, ``sweep``): everything holds, something failed.
STATUS = Words("pass", "unknown", "fail")
#: A puzzle's recorded answer against the answer now (``check``).
PUZZLE = Words("same", "unknown", "changed")
#: Does an invariant hold in every position reachable within the rounds (``invariant``), or does some play break it?
INVARIANT = Words("holds", "unknown", "broken")
#: Does the property catalogue catch a rule mutant (``mutants``): killed (a property refuted on it), or survived
#: (every property proved on it: a gap in the catalogue).
MUTANT = Words("killed", "unknown", "survived")
