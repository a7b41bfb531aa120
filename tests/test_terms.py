"""The encoding's shortcuts through z3's C API against the plain Python API they stand for (encoding/terms.py: the
builders and readers; encoding/state.py: ``read_values`` and ``decode``; encoding/enumerate.py: ``_same``): the same
terms, the same decoded positions, the same blocking clauses, on the positions of seeded games of the base game and
of the expansion."""

from __future__ import annotations

from typing import Any

import pytest
import z3

from niagara_solver.encoding.enumerate import _pieces, _same
from niagara_solver.encoding.pin import canoe_terms
from niagara_solver.encoding.relations import Relations
from niagara_solver.encoding.solver import make_solver
from niagara_solver.encoding.state import NCOL, decode, forget_terms, read_values
from niagara_solver.encoding.terms import equal
from niagara_solver.play.playout import random_playout
from niagara_solver.model.atoms import Phase
from niagara_solver.model.board import standard_board
from niagara_solver.model.position import Position
from niagara_solver.model.ruleset import PRESETS


class _TermByTerm:
    """A model read one term at a time through the Python API (``decode``'s slow reading)."""

    def __init__(self, model: z3.ModelRef) -> None:
        self.model = model

    def eval(self, term: Any, model_completion: bool = False) -> Any:
        return self.model.eval(term, model_completion=model_completion)


def _reference_same(post: Any, model: z3.ModelRef) -> Any:
    """The blocking clause of a model as the Python API writes it: every term equal to its value (canoes of a player
    in either order)."""
    def val(x: Any) -> Any:
        return model.eval(x, model_completion=True)
    parts = []
    for p in range(post.players):
        here = [canoe_terms(post, p, 0), canoe_terms(post, p, 1)]
        a, b = [val(x) for x in here[0]], [val(x) for x in here[1]]
        parts.append(z3.Or(z3.And([x == v for x, v in zip(here[0], a)] + [x == v for x, v in zip(here[1], b)]),
                           z3.And([x == v for x, v in zip(here[0], b)] + [x == v for x, v in zip(here[1], a)])))
        parts += [x == val(x) for x in post.bank[p]]
        if post.budget is not None:
            parts.append(post.budget[p] == val(post.budget[p]))
    parts += [post.cave[cc][c] == val(post.cave[cc][c]) for cc in range(NCOL) for c in range(NCOL)]
    parts.append(post.weather == val(post.weather))
    parts += [m == val(m) for m in post.marker.values()]
    for x in (post.beaver, post.moose, *_pieces(post)):
        if x is not None:
            parts.append(x == val(x))
    return z3.And(parts)


def _equivalent(a: Any, b: Any) -> bool:
    solver = z3.Solver()
    solver.add(a != b)
    return solver.check() == z3.unsat


def _positions(preset: str, players: int, seed: int) -> list[Position]:
    rules = PRESETS[preset]
    start = Position.initial([f"p{i}" for i in range(players)], ruleset=rules)
    return [record.turns_start for k, record in enumerate(random_playout(start, seed, rounds=10, policy="greedy"))
            if k % 3 == 0]


@pytest.mark.parametrize("preset,players,seed", [("standard", 3, 5), ("flussgeister-joe", 4, 6)])
def test_decoding_in_one_evaluation_equals_decoding_term_by_term(preset, players, seed):
    rules = PRESETS[preset]
    relations = Relations(standard_board(), rules, players)
    for n, pos in enumerate(_positions(preset, players, seed)):
        sym = relations.position(f"terms{n}")
        solver = make_solver()
        solver.add(*relations.pin(sym, pos))
        assert solver.check() == z3.sat
        model = solver.model()
        fast = decode(model, sym, relations.tables, rules, pos)
        slow = decode(_TermByTerm(model), sym, relations.tables, rules, pos)
        assert fast == slow
        assert fast.players[0].canoes == pos.players[0].canoes and fast.caves == pos.caves
        # The blocking clause of the model, read in one evaluation, is the Python API's.
        assert _equivalent(_same(sym, model), _reference_same(sym, model))
    # A model that leaves most terms free: their defaults, as model completion gives them.
    sym = relations.position("terms.free")
    solver = make_solver()
    solver.add(sym.place[0][0] == 3, sym.bank[1][2] == 2, sym.hand[0][4])
    assert solver.check() == z3.sat
    model = solver.model()
    base = _positions(preset, players, seed)[0]
    assert read_values(model, sym)[sym.place[0][0].get_id()] == 3
    assert decode(model, sym, relations.tables, rules, base) == decode(_TermByTerm(model), sym, relations.tables,
                                                                       rules, base)
    assert _equivalent(_same(sym, model), _reference_same(sym, model))


def test_equalities_are_made_once_and_stand_for_the_python_apis():
    x, b = z3.Int("terms.x"), z3.Bool("terms.b")
    made, literal = equal(x, 3)
    assert made.eq(x == 3) and literal.eq(z3.IntVal(3))
    assert equal(x, 3)[0] is made  # kept
    assert equal(x, 4)[0].eq(x == 4)
    assert equal(b, True)[0].eq(b == True) and equal(b, False)[0].eq(b == False)  # noqa: E712 (z3 terms)
    assert equal(b, True)[1].eq(z3.BoolVal(True))
    forget_terms()
    assert equal(x, 3)[0] is not made and equal(x, 3)[0].eq(x == 3)


def test_well_formed_relations_still_decode_their_own_models():
    # A relation's own model (a turn of the base game) decodes through the shortcut to what the Python API reads.
    rules = PRESETS["standard"]
    relations = Relations(standard_board(), rules, 3)
    pre = relations.position("terms.turn")
    step = relations.turn(pre, 1, "terms.turn", swap=True)
    pos = _positions("standard", 3, 5)[1]
    solver = make_solver()
    solver.add(*[c for _, c in relations.well_formed(pre, Phase.TURNS)], *[c for _, c in step.constraints],
               *relations.pin(pre, pos))
    assert solver.check() == z3.sat
    model = solver.model()
    assert decode(model, step.post, relations.tables, rules, pos) == decode(_TermByTerm(model), step.post,
                                                                          relations.tables, rules, pos)
    assert _equivalent(_same(step.post, model), _reference_same(step.post, model))


def test_gem_action_terms_made_through_the_c_api_are_the_python_apis():
    # A stop's gem actions (encoding/turn.py, GemActions: counted, at most ``most``) are built through z3's C API; the
    # terms are z3's own, equal (the same AST) to those the Python API makes.
    from niagara_solver.encoding.turn import GemActions
    op = GemActions.fresh("terms.op", 3)
    cells = op.cells()
    assert len(cells) == 2 * NCOL * NCOL
    expected = [*(z3.And(x >= 0, x <= 3) for x in cells), z3.Sum(cells) <= 3]
    made = op.domain()
    assert len(made) == len(expected) and all(a.eq(b) for a, b in zip(made, expected))
    assert op.loads(2).eq(z3.Sum([op.load[cc][2] for cc in range(NCOL)]))
    assert op.unloads(4).eq(z3.Sum([op.unload[cc][4] for cc in range(NCOL)]))
    assert op.loading.eq(z3.Sum([x for row in op.load for x in row]) >= 1)
    assert op.unloading.eq(z3.Sum([x for row in op.unload for x in row]) >= 1)
    assert op.any.eq(z3.Sum(cells) >= 1)
    assert op.any is op.any  # made once


def test_the_c_api_builders_make_the_python_apis_terms():
    # encoding/terms.py: each builder gives the very term (the same AST) the Python API makes for the same call.
    from niagara_solver.encoding.terms import (all_of, and_of, at_least, at_least_term, between, between_0_1, implies,
                                               int_sum, ite, literal_int, variable_decl, zeros)
    x, y, b = z3.Int("terms.x"), z3.Int("terms.y"), z3.Bool("terms.b")
    assert all_of([x > 1, b, y == 2]).eq(z3.And(x > 1, b, y == 2))
    # and_of is z3.And to the letter: a conjunction of one or of none is a term of its own, not its argument or true.
    assert and_of([x > 1, b]).eq(z3.And([x > 1, b])) and and_of([b]).eq(z3.And([b])) and not and_of([b]).eq(b)
    assert and_of([], x.ctx).eq(z3.And([])) and not and_of([], x.ctx).eq(z3.BoolVal(True))
    assert ite(b, x, 3).eq(z3.If(b, x, 3)) and ite(x > 1, 4, y + 1).eq(z3.If(x > 1, 4, y + 1))
    assert ite(b, x > 1, b).eq(z3.If(b, x > 1, b))  # not integers: z3.If itself
    assert between(x, 1, 11).eq(z3.And(x >= 1, x <= 11))
    assert implies(b, x > 1).eq(z3.Implies(b, x > 1))
    assert at_least(x + y, 1).eq(x + y >= 1)
    assert at_least_term(x, y + 1).eq(x >= y + 1)
    assert all_of([b]).eq(b) and all_of([]).eq(z3.BoolVal(True))
    assert int_sum([x, y, x]).eq(z3.Sum([x, y, x]))
    assert between_0_1(x).eq(z3.And(x >= 0, x <= 1))
    assert [t.eq(u) for t, u in zip(zeros([x, y]), [x == 0, y == 0])] == [True, True]
    ref = x.ctx_ref()
    assert variable_decl(ref, x.as_ast()) is not None and variable_decl(ref, b.as_ast()) is not None
    assert variable_decl(ref, (x + 1).as_ast()) is None and variable_decl(ref, z3.IntVal(3).as_ast()) is None
    assert variable_decl(ref, z3.BoolVal(True).as_ast()) is None  # a literal, not a variable
    assert [literal_int(ref, t.as_ast()) for t in (z3.IntVal(-7), z3.BoolVal(True), z3.BoolVal(False), x, x + 1)] \
        == [-7, True, False, None, None]


def test_and_or_and_sum_made_through_the_c_api_are_z3s_to_the_letter():
    # encoding/terms.py: z_and, z_or and z_sum stand for z3.And, z3.Or and z3.Sum at every call of the encoding and
    # the modules written in SMT: the same term for every way of calling them, z3's own function where the arguments
    # are not plain terms of one context (Python values, a generator, a vector, a real, a context as last argument).
    from niagara_solver.encoding.terms import z_and, z_or, z_sum
    x, y, b, c = z3.Int("zs.x"), z3.Int("zs.y"), z3.Bool("zs.b"), z3.Bool("zs.c")
    r = z3.Real("zs.r")
    other = z3.Context()
    far = z3.Bool("zs.far", other)
    vector = z3.AstVector()
    vector.push(b)
    vector.push(x > 1)
    for ours, theirs in ((z_and, z3.And), (z_or, z3.Or)):
        for args in [(b, c), ([b, x > 1, c],), ((b, c),), (b,), ([b],), ([],), (b, True), (True, False), ([b, False],),
                     (vector,), (z3.ForAll([y], y >= x), b)]:
            assert ours(*args).eq(theirs(*args)), (ours.__name__, args)
        assert ours(t for t in (b, c)).eq(theirs(b, c))
        assert ours(far, far, other).eq(theirs(far, far, other))
        with pytest.raises(z3.Z3Exception):
            ours(b, far)  # two contexts: refused as z3 refuses them
        with pytest.raises(z3.Z3Exception):
            ours(b, x)  # an integer among Booleans
    for args in [(x, y), ([x, y, x + 1],), ((x,),), (x,), ([x, 3],), (3, x), ([x, r],), ([x, 2, y],), ([1, 2],),
                 ([z3.IntVal(4), x],)]:
        made, plain = z_sum(*args), z3.Sum(*args)
        assert (made.eq(plain) if isinstance(plain, z3.ExprRef) else made == plain), args
    assert z_sum([]) == z3.Sum([]) == 0
    assert z_sum(t for t in (x, y)).eq(z3.Sum(x, y))
    assert z_sum([x, y]).is_int() and z_sum([x, r]).is_real()


def test_asserting_through_the_c_api_asserts_what_solver_add_does():
    # encoding/terms.py, assert_all (and the solvers' add, encoding/solver.py): the same assertions in the same order
    # as z3's Solver.add, z3 Booleans and whatever else Solver.add takes (Python bools, a vector of terms, a
    # quantifier, a list as the one argument); a term that is no Boolean is refused as Solver.add refuses it.
    from niagara_solver.encoding.solver import add
    from niagara_solver.encoding.terms import assert_all
    x, y, b = z3.Int("assert.x"), z3.Int("assert.y"), z3.Bool("assert.b")
    vector = z3.AstVector()
    vector.push(x < 5)
    vector.push(b)
    terms = [x > 1, b, True, z3.And(x > 1, y == 2), False, vector, z3.Not(b), z3.ForAll([y], y * y >= 0), x == y]
    plain = z3.Solver()
    plain.add(*terms)
    fast = z3.Solver()
    assert_all(fast, terms)
    made = make_solver()
    made.add(*terms)
    listed = make_solver()
    listed.add(terms)
    tagged = make_solver()
    add(tagged, [("R-TEST", t) for t in terms if not isinstance(t, z3.AstVector)])
    expected = [t.sexpr() for t in plain.assertions()]
    assert len(expected) == len(terms) + 1
    for solver in (fast, made, listed):
        assert [t.sexpr() for t in solver.assertions()] == expected
        assert all(t.eq(u) for t, u in zip(solver.assertions(), plain.assertions()))
    assert [t.sexpr() for t in tagged.assertions()] == expected[:5] + expected[7:]
    with pytest.raises(z3.Z3Exception):
        made.add(x + 1)
