"""Frozen values of the model made without re-running their constructors, for the turn generator's outcomes.

``dataclasses.replace`` runs ``__init__`` and ``__post_init__`` again for every copy: for the many positions, players
and turns the generator hands out, the largest cost once its search is compact. :func:`made` stores the fields as
given, as the constructor would, for the classes whose constructor only stores them (:class:`Position`,
:class:`Player` given its canoes in canonical order and its hand in hand order, :class:`Turn`,
:class:`CanoeAction`); :func:`canoe` makes each canoe once, with its sort key (the canonical order of a player's
canoes, ``Player.__post_init__``). tests/test_paddling.py holds every outcome made so to the interpreter's, made by
the constructors (equal, hashed alike).
"""

from __future__ import annotations

from typing import Any, TypeVar

from niagara_solver.model.atoms import CanoeKind, Colour
from niagara_solver.model.position import Canoe

V = TypeVar("V")

#: What :func:`made` does, for a loop that makes one value a turn and cannot afford a call more: ``value = new(cls)``
#: then ``put(value, "__dict__", fields)``.
new, put = object.__new__, object.__setattr__


def made(cls: type[V], fields: dict[str, Any]) -> V:
    """An instance of a frozen dataclass with ``fields`` as they are, as its ``__init__`` would store them.

    ``fields`` names every field and becomes the instance's own: fields copied from another instance must leave out
    its kept hash (``KeptHash``: Position), as :func:`fields_of` does, since the copy's fields differ."""
    value = new(cls)
    put(value, "__dict__", fields)
    return value


def fields_of(value: object, **changes: Any) -> dict[str, Any]:
    """The fields of ``value`` (a class :func:`made` may build) with some changed, without its kept hash."""
    fields = {**value.__dict__, **changes}
    fields.pop("_hash", None)
    return fields


def evolve(value: V, **changes: Any) -> V:
    """A copy of ``value`` (a class :func:`made` may build) with some fields changed, as ``dataclasses.replace``
    gives it."""
    return made(type(value), fields_of(value, **changes))


#: Canoes, made once each with their sort keys: (place, cargo, kind, holds the moose, moored) -> (canoe, sort key).
#: Canoes are values; a game meets a few hundred of them.
_CANOES: dict[tuple[str, tuple[Colour, ...], CanoeKind, bool, bool], tuple[Canoe, tuple[object, ...]]] = {}


def canoe(place: str, gems: tuple[Colour, ...], kind: CanoeKind, moose: bool, moored: bool
          ) -> tuple[Canoe, tuple[object, ...]]:
    """The canoe with these fields (``gems`` sorted) and its sort key, made once."""
    key = (place, gems, kind, moose, moored)
    got = _CANOES.get(key)
    if got is None:
        if len(_CANOES) >= 1 << 16:
            _CANOES.clear()
        one = Canoe(place, gems, kind, moose, moored)
        got = _CANOES[key] = (one, one.sort_key())
    return got


def clear() -> None:
    """Forget the canoes made (a benchmark's pass then starts as a fresh process would)."""
    _CANOES.clear()
