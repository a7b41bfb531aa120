"""Terms made and read through z3's C API: the few shapes the encoding builds or reads thousands of times.

Each function here gives exactly the term z3's Python API gives for the same call (``z3.And``, ``z3.Sum``,
``x == v``, a model's literal), without the Python API's checks of every argument's sort and its wrapper per
intermediate term, which were most of the time of pinning positions, reading models and building a turn's gem
actions (docs/SPEED.md); tests/test_terms.py holds each to the Python API's term.

One rule for every C call: each term made is wrapped in a Python object at once, before the next one is made. The
wrapper holds z3's reference to the term; a term left unreferenced while others are made may be reclaimed by z3.

Nothing here knows the game; :func:`equal` keeps what it made for the life of a z3 context (:func:`forget_equal`,
called by ``solver.fresh_context`` through ``state.forget_terms``).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import z3

Expr = Any


def all_of(items: Sequence[Expr]) -> Expr:
    """The conjunction of z3 Booleans (``z3.And``): one term to assert instead of many (``Solver.add`` checks every
    argument through the Python wrappers, several times the cost of asserting it)."""
    if not items:
        return z3.BoolVal(True)
    if len(items) == 1 or not all(isinstance(t, z3.BoolRef) for t in items):
        return z3.And(*items) if len(items) > 1 else items[0]
    ctx = items[0].ctx
    array = (z3.Ast * len(items))(*[t.as_ast() for t in items])
    return z3.BoolRef(z3.Z3_mk_and(ctx.ref(), len(items), array), ctx)


def z_and(*args: Any) -> Expr:
    """``z3.And(*args)`` exactly: for z3 Booleans of one context (given as arguments or as one list or tuple), the
    same term made through ``Z3_mk_and`` at once, without the Python API's sort of every argument made, merged and
    cast (most of the time of building a relation's conjunctions); for anything else, ``z3.And`` itself. No term is
    made that z3.And would not make, so the terms' identifiers, and with them the models, are the same."""
    items = _listed(args)
    ctx = _boolean_context(items)
    if ctx is None:
        return z3.And(*args)
    array = (z3.Ast * len(items))(*[t.ast for t in items])
    return z3.BoolRef(z3.Z3_mk_and(ctx.ref(), len(items), array), ctx)


def z_or(*args: Any) -> Expr:
    """``z3.Or(*args)`` exactly, as :func:`z_and` is ``z3.And``."""
    items = _listed(args)
    ctx = _boolean_context(items)
    if ctx is None:
        return z3.Or(*args)
    array = (z3.Ast * len(items))(*[t.ast for t in items])
    return z3.BoolRef(z3.Z3_mk_or(ctx.ref(), len(items), array), ctx)


def z_sum(*args: Any) -> Expr:
    """``z3.Sum(*args)`` exactly: for integer terms of one context (as arguments or as one list or tuple), the same
    term made through ``Z3_mk_add`` at once; for anything else (a Python int among them, a real), ``z3.Sum``
    itself."""
    items = _listed(args)
    if not items:
        return z3.Sum(*args)
    first = items[0]
    if not isinstance(first, z3.ArithRef):
        return z3.Sum(*args)
    ctx = first.ctx
    ref = ctx.ref()
    for t in items:
        if (t.__class__ is not z3.ArithRef and t.__class__ is not z3.IntNumRef) or t.ctx is not ctx \
                or z3.Z3_get_sort_kind(ref, z3.Z3_get_sort(ref, t.ast)) != z3.Z3_INT_SORT:
            return z3.Sum(*args)
    array = (z3.Ast * len(items))(*[t.ast for t in items])
    return z3.ArithRef(z3.Z3_mk_add(ref, len(items), array), ctx)


def _listed(args: tuple[Any, ...]) -> Sequence[Any]:
    """The arguments as z3's functions read them when they are terms: one list or tuple, or the arguments."""
    if len(args) == 1 and args[0].__class__ in (list, tuple):
        return args[0]
    return args


def _boolean_context(items: Sequence[Any]) -> z3.Context | None:
    """The context of a non-empty run of plain z3 Booleans of one context, else None."""
    if not items:
        return None
    first = items[0]
    if first.__class__ is not z3.BoolRef:
        return None
    ctx = first.ctx
    for t in items:
        if t.__class__ is not z3.BoolRef or t.ctx is not ctx:
            return None
    return ctx


def assert_all(solver: z3.Solver, terms: Iterable[Any]) -> None:
    """``solver.add(*terms)`` exactly: the same terms asserted in the same order, a z3 Boolean of the solver's context
    through ``Z3_solver_assert`` at once, without the Python API's cast of each (a sort made and compared per term:
    several times the cost of asserting it); anything else (a Python ``bool``, a goal or vector of terms, a term of
    another context or another kind) as ``Solver.assert_exprs`` does it."""
    ctx = solver.ctx
    ref, raw = ctx.ref(), solver.solver
    boolean = None
    for term in terms:
        if term.__class__ is z3.BoolRef and term.ctx is ctx:
            z3.Z3_solver_assert(ref, raw, term.ast)
        elif isinstance(term, (z3.Goal, z3.AstVector)):
            for f in term:
                z3.Z3_solver_assert(ref, raw, f.as_ast())
        else:
            if boolean is None:
                boolean = z3.BoolSort(ctx)
            z3.Z3_solver_assert(ref, raw, boolean.cast(term).as_ast())


def and_of(items: Sequence[Expr], ctx: z3.Context | None = None) -> Expr:
    """``z3.And(items)`` exactly, for z3 Booleans (no argument or one make the conjunction of none or one, as z3.And
    does; ``ctx`` for no argument: the default context otherwise)."""
    ctx = items[0].ctx if items else (ctx or z3.main_ctx())
    array = (z3.Ast * len(items))(*[t.as_ast() for t in items])
    return z3.BoolRef(z3.Z3_mk_and(ctx.ref(), len(items), array), ctx)


def ite(condition: Expr, then: Expr | int, other: Expr | int) -> Expr:
    """``z3.If(condition, then, other)`` for two integer terms or Python ints (any other kind: z3.If itself)."""
    ctx = condition.ctx
    if then.__class__ is int:
        then = z3.IntVal(then, ctx)
    if other.__class__ is int:
        other = z3.IntVal(other, ctx)
    if not (isinstance(then, z3.ArithRef) and isinstance(other, z3.ArithRef) and then.is_int() and other.is_int()):
        return z3.If(condition, then, other)
    return z3.ArithRef(z3.Z3_mk_ite(ctx.ref(), condition.as_ast(), then.as_ast(), other.as_ast()), ctx)


def between(x: Expr, low: int, high: int) -> Expr:
    """``z3.And(x >= low, x <= high)`` for an integer term."""
    ctx = x.ctx
    ref, ast = ctx.ref(), x.as_ast()
    lo, hi = z3.IntVal(low, ctx), z3.IntVal(high, ctx)
    above = z3.BoolRef(z3.Z3_mk_ge(ref, ast, lo.as_ast()), ctx)
    below = z3.BoolRef(z3.Z3_mk_le(ref, ast, hi.as_ast()), ctx)
    both = (z3.Ast * 2)(above.as_ast(), below.as_ast())
    return z3.BoolRef(z3.Z3_mk_and(ref, 2, both), ctx)


def int_sum(terms: Sequence[Expr]) -> Expr:
    """``z3.Sum`` of two or more integer terms."""
    ctx = terms[0].ctx
    array = (z3.Ast * len(terms))(*[t.as_ast() for t in terms])
    return z3.ArithRef(z3.Z3_mk_add(ctx.ref(), len(terms), array), ctx)


def between_0_1(x: Expr) -> Expr:
    """``z3.And(x >= 0, x <= 1)`` for an integer term."""
    ctx = x.ctx
    ref, ast = ctx.ref(), x.as_ast()
    zero, one = z3.IntVal(0, ctx), z3.IntVal(1, ctx)
    low = z3.BoolRef(z3.Z3_mk_ge(ref, ast, zero.as_ast()), ctx)
    high = z3.BoolRef(z3.Z3_mk_le(ref, ast, one.as_ast()), ctx)
    both = (z3.Ast * 2)(low.as_ast(), high.as_ast())
    return z3.BoolRef(z3.Z3_mk_and(ref, 2, both), ctx)


def implies(premise: Expr, conclusion: Expr) -> Expr:
    """``z3.Implies`` of two z3 Booleans."""
    ctx = premise.ctx
    return z3.BoolRef(z3.Z3_mk_implies(ctx.ref(), premise.as_ast(), conclusion.as_ast()), ctx)


def at_least(x: Expr, k: int) -> Expr:
    """``x >= k`` for an integer term and a Python int."""
    ctx = x.ctx
    bound = z3.IntVal(k, ctx)
    return z3.BoolRef(z3.Z3_mk_ge(ctx.ref(), x.as_ast(), bound.as_ast()), ctx)


def at_least_term(x: Expr, y: Expr) -> Expr:
    """``x >= y`` for two integer terms."""
    ctx = x.ctx
    return z3.BoolRef(z3.Z3_mk_ge(ctx.ref(), x.as_ast(), y.as_ast()), ctx)


#: ``term == literal`` terms made so far, by term (its Python object, kept alive here so that its ``id`` stays its
#: own) and value (:func:`equal`); cleared with a new context.
_EQUAL: dict[tuple[int, int, bool], tuple[Expr, Expr, Expr]] = {}
#: What each of those says, by the made term's Python object (:func:`said`): the term's id, its declaration when it
#: is a variable (else None) and the literal's term.
_SAID: dict[int, tuple[int, Any, Any]] = {}
#: Kept at most this many; the pins of a kind of game repeat far fewer.
_EQUAL_MAX = 400_000


def equal(term: Expr, given: int | bool) -> tuple[Expr, Expr]:
    """``term == given`` and the literal ``given`` (a Python ``bool`` a Boolean literal, any other int an integer
    one), made once per context and kept: every position pinned to the same variables repeats the same few
    (variable, value) pairs."""
    flag = given.__class__ is bool
    key = (id(term), int(given), flag)
    got = _EQUAL.get(key)
    if got is None:
        if len(_EQUAL) >= _EQUAL_MAX:
            forget_equal()
        ctx = term.ctx
        ref = ctx.ref()
        literal = z3.BoolVal(given, ctx) if flag else z3.IntVal(given, ctx)
        made = z3.BoolRef(z3.Z3_mk_eq(ref, term.as_ast(), literal.as_ast()), ctx)
        got = _EQUAL[key] = (made, literal, term)
        _SAID[id(made)] = (z3.Z3_get_ast_id(ref, term.as_ast()), variable_decl(ref, term.as_ast()), literal.as_ast())
    return got[0], got[1]


def said(pin: Expr) -> tuple[int, Any, Any] | None:
    """For a term :func:`equal` made (the same Python object): the id of its term, the term's declaration when it is
    a variable (else None), and the literal's term; None for any other term. Read without asking z3."""
    return _SAID.get(id(pin))


def zeros(terms: Iterable[Expr]) -> list[Expr]:
    """``term == 0`` for each integer term, kept for reuse as :func:`equal` keeps them."""
    return [equal(term, 0)[0] for term in terms]


def forget_equal() -> None:
    """Drop the terms :func:`equal` kept: for a new z3 context."""
    _EQUAL.clear()
    _SAID.clear()


def variable_decl(ref: Any, ast: Any) -> Any | None:
    """The declaration of an uninterpreted constant (a variable), or None for any other term (``ref`` its context's,
    ``ast`` the term's)."""
    if z3.Z3_get_ast_kind(ref, ast) != z3.Z3_APP_AST or z3.Z3_get_app_num_args(ref, ast) != 0:
        return None
    decl = z3.Z3_get_app_decl(ref, ast)
    return decl if z3.Z3_get_decl_kind(ref, decl) == z3.Z3_OP_UNINTERPRETED else None


def is_literal(ref: Any, ast: Any) -> bool:
    """An integer numeral or ``true`` / ``false``."""
    kind = z3.Z3_get_ast_kind(ref, ast)
    if kind == z3.Z3_NUMERAL_AST:
        return True
    return kind == z3.Z3_APP_AST and z3.Z3_get_decl_kind(ref, z3.Z3_get_app_decl(ref, ast)) in (z3.Z3_OP_TRUE,
                                                                                             z3.Z3_OP_FALSE)


def pinned_value(ref: Any, ast: Any, truth: tuple[Any, Any]) -> tuple[Any, Any, Any] | bool | None:
    """What a pin says, read from its term: (the variable's term, its declaration, the value's term) for
    ``variable == literal``, a Boolean variable (true) or its negation (false); True for the literal ``true`` (it
    says nothing); None for any other term. ``truth`` holds the terms ``false`` and ``true`` of the context."""
    if z3.Z3_get_ast_kind(ref, ast) != z3.Z3_APP_AST:
        return None
    kind = z3.Z3_get_decl_kind(ref, z3.Z3_get_app_decl(ref, ast))
    if kind == z3.Z3_OP_EQ:
        variable, given = z3.Z3_get_app_arg(ref, ast, 0), z3.Z3_get_app_arg(ref, ast, 1)
        if not is_literal(ref, given):
            return None
    elif kind == z3.Z3_OP_NOT:
        variable, given = z3.Z3_get_app_arg(ref, ast, 0), truth[0]
    elif kind == z3.Z3_OP_TRUE:
        return True
    else:
        variable, given = ast, truth[1]
    decl = variable_decl(ref, variable)
    return None if decl is None else (variable, decl, given)


def literal_int(ref: Any, ast: Any) -> int | None:
    """An integer or Boolean literal (a Python ``bool``), read from a term (``ref`` its context's, ``ast`` the term's);
    None for any other term."""
    kind = z3.Z3_get_ast_kind(ref, ast)
    if kind == z3.Z3_NUMERAL_AST:
        return int(z3.Z3_get_numeral_string(ref, ast))
    if kind == z3.Z3_APP_AST:
        truth = z3.Z3_get_bool_value(ref, ast)
        if truth == z3.Z3_L_TRUE:
            return True
        if truth == z3.Z3_L_FALSE:
            return False
    return None
