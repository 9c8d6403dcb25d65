"""Batching rules (vmap) for linear solves and for the split family, beside batching_axes.py's tables.

- SOLVES: SciPy's solves (solve_triangular, solve, cho_solve, lu_solve) map over leading stack axes of
  their matrix (SciPy 1.15 and later; before that the batch loops). A per-example vector b is made a column
  (NumPy and SciPy read a stacked 1-D b as a matrix) and squeezed back; an unbatched matrix with a batched
  vector b is one solve with the batch as columns (`solve(a, b.T).T`). The matrix of cho_solve and lu_solve
  is a pair: written in the call `((c, lower), b)`, or a name holding a pair that carries the batch on both
  items (lu_factor's result). tensorinv is inv of each example's matrix view; tensorsolve one stacked solve of
  each example's matrix view and column.
- SPLITS: split, array_split, hsplit, vsplit, dsplit (and the adjoint helpers split_items and split_parts)
  split along the per-example axis shifted past the batch axis; every item of the result carries the batch
  on axis 0, and a literal number of sections tells the batching analysis how many items (so that a function
  reading them one by one need not loop). unstack has no rule: its number of items is the length of an axis,
  unknown to the analysis, and a batched list of unknown length loops anyway.

A rule returns None (the loop over the batch, always right) for what it does not cover: a batched axis,
sections or flag, a matrix of unknown or other rank, a pair whose items are not both batched.
tests/test_vmap_rules_batch3.py checks each against a Python loop over the batch.
"""
import copy

import gast
import numpy as np

from ..analyses.batching import ARRAY
from .batching import _call, _const, _is_const, _name, _static_int, _tuple
from .batching_axes import _rebuilt, _rank_of
from .nondifferentiable import SHAPES
from .registry import PRIMITIVES, defbatch, primitive

__all__ = ["SOLVES", "SPLITS", "batch_tensorinv_shapes", "batch_tensorsolve_shapes"]


# ---------------------------------------------------------------- runtime helpers (shapes only)
def batch_tensorinv_shapes(shape, ind):
    """For a batched array of `shape` and tensorinv's `ind`: the stack of matrices each example is read as,
    (B, prod(shape[1:1+ind]), prod(shape[1+ind:])), and the batched result's shape (B, *J, *I)."""
    shape, ind = tuple(int(n) for n in shape), int(ind)
    first, rest = shape[1:1 + ind], shape[1 + ind:]
    return (shape[0], int(np.prod(first)), int(np.prod(rest))), (shape[0],) + rest + first


primitive("batch_tensorinv_shapes", batch_tensorinv_shapes, operands=(), differentiable=False, reason=SHAPES)


def batch_same_flag(flags):
    """The one value of a flag every example gives alike (cho_factor's `lower`, repeated along the batch when
    its pair was batched); examples that disagree are refused (one stacked solve reads one flag)."""
    values = np.asarray(flags).reshape(-1)
    if values.size == 0 or np.any(values != values[0]):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal("vmap: cho_solve's `lower` flag differs between the examples of the batch; one stacked "
                             "solve reads one flag. Instead: use the same `lower` for every example.")
    return bool(values[0])


primitive("batch_same_flag", batch_same_flag, operands=(), differentiable=False, reason=SHAPES)


def _scipy_stacks():
    """Whether the installed SciPy's linalg solves map over leading stack axes (1.15 and later)."""
    import scipy
    try:
        return tuple(int(p) for p in scipy.__version__.split(".")[:2]) >= (1, 15)
    except ValueError:
        return False


# ---------------------------------------------------------------- solves
def _matrix_of(bt, node, pair):
    """(batched, per-example rank or None, the matrix's expression) of a solve's matrix operand, or None when
    the rule does not cover it. A pair written in the call reads its first item (the second, `lower` or the
    pivots, unbatched); a name holding a pair carries the batch on both items when batched (lu_factor's
    result, cho_factor's with its flag repeated)."""
    if not pair:
        if not isinstance(node, gast.Name) or bt.kind(node) != ARRAY:
            return None
        return bt.is_batched(node), bt.rank(node), node
    if isinstance(node, (gast.Tuple, gast.List)) and len(node.elts) == 2:
        first, second = node.elts
        if not isinstance(first, gast.Name) or bt.kind(first) != ARRAY or bt.is_batched(second):
            return None
        return bt.is_batched(first), bt.rank(first), first
    if isinstance(node, gast.Name) and isinstance(bt.kind(node), tuple) and len(bt.kind(node)) == 2:
        leaf = bt.kind(node)[0]
        rank = leaf if isinstance(leaf, int) and not isinstance(leaf, bool) else None
        return bt.is_batched(node), rank, gast.Subscript(value=copy.deepcopy(node), slice=_const(0), ctx=gast.Load())
    return None


def _pair_with_flag(bt, out, node):
    """cho_solve's batched pair (c, lower) as `(c, lower)` with the one flag every example gives."""
    if not isinstance(node, gast.Name):
        return node
    flag = bt.fresh("_lower")
    out.append(bt.assign(flag, _call(bt.helper(batch_same_flag), gast.Subscript(
        value=copy.deepcopy(node), slice=_const(1), ctx=gast.Load()))))
    return _tuple(gast.Subscript(value=copy.deepcopy(node), slice=_const(0), ctx=gast.Load()), _name(flag))


def _solve_rule(matrix, rhs, pair=False, flag=False):
    """The rule of a solve; where a rank is unknown (the source batched before the arguments are seen), one
    branch per rank it covers, chosen when it runs on `jnp.ndim`, else the loop over the batch."""
    def rule(bt, target, app):
        b = app.bound
        found = _matrix_of(bt, b.get(matrix), pair)
        vector = b.get(rhs)
        if found is None or not isinstance(vector, gast.Name) or bt.kind(vector) != ARRAY or not _scipy_stacks():
            return None
        if any(bt.is_batched(n) for k, n in b.items() if k not in (matrix, rhs)):
            return None
        m_batched, m_rank, item = found
        v_batched, v_rank = bt.is_batched(vector), bt.rank(vector)
        if m_rank is not None and v_rank is not None:
            return _solve_body(bt, target, app, matrix, rhs, flag, m_batched, m_rank, v_batched, v_rank)
        branches = []
        for mr in ([m_rank] if m_rank is not None else [2]):
            for vr in ([v_rank] if v_rank is not None else [1, 2]):
                body = _solve_body(bt, target, app, matrix, rhs, flag, m_batched, mr, v_batched, vr)
                if body is None:
                    continue
                tests = [gast.Compare(left=_call("jnp.ndim", copy.deepcopy(node)), ops=[gast.Eq()],
                                      comparators=[_const(r + int(batched))])
                         for node, r, batched, known in ((item, mr, m_batched, m_rank), (vector, vr, v_batched, v_rank))
                         if known is None]
                branches.append((tests[0] if len(tests) == 1 else gast.BoolOp(op=gast.And(), values=tests), body))
        if not branches:
            return None
        orelse = bt.loop_statement(None, target, app.node)
        for test, body in reversed(branches):
            orelse = [gast.If(test=test, body=body, orelse=orelse)]
        return orelse
    return rule


def _solve_body(bt, target, app, matrix, rhs, flag, m_batched, m_rank, v_batched, v_rank):
    """The statements for known per-example ranks: a matrix (rank 2) and a vector or matrix b."""
    b = app.bound
    vector = b[rhs]
    if v_rank not in (1, 2) or m_rank != 2:
        return None
    out = []
    if flag and m_batched:
        b = dict(b)
        b[matrix] = _pair_with_flag(bt, out, b[matrix])
        app = copy.copy(app)
        app.bound = b
    if not m_batched:
        if v_rank != 1:
            return None         # a batch of matrices b against one matrix: the loop
        columns = bt.fresh(f"{vector.id}_columns")
        out.append(bt.assign(columns, _call("jnp.transpose", copy.deepcopy(vector))))
        solved = bt.fresh("_solved")
        out.append(bt.assign(solved, _rebuilt(bt, app, {rhs: _name(columns)})))
        out.append(bt.assign(target, _call("jnp.transpose", _name(solved))))
        return out
    if v_rank == 2:
        if not v_batched:
            vector = _repeated(bt, out, vector)
        out.append(bt.assign(target, _rebuilt(bt, app, {rhs: vector})))
        return out
    column = bt.fresh(f"{vector.id}_column")
    out.append(bt.assign(column, _call("jnp.expand_dims", copy.deepcopy(vector), _const(-1))))
    column = _name(column)
    if not v_batched:
        column = _repeated(bt, out, column)
    solved = bt.fresh("_solved")
    out.append(bt.assign(solved, _rebuilt(bt, app, {rhs: column})))
    out.append(bt.assign(target, _call("jnp.squeeze", _name(solved), _const(-1))))
    return out


def _repeated(bt, out, node):
    """An unbatched array repeated along a new batch axis 0 (`broadcast_to`, linear, with its derivative)."""
    fresh = bt.fresh(f"{node.id}_")
    out.append(bt.assign(fresh, _call("jnp.broadcast_to", copy.deepcopy(node), gast.BinOp(
        left=_tuple(bt.B), op=gast.Add(), right=_call("jnp.shape", copy.deepcopy(node))))))
    return _name(fresh)


def _solve_result(rhs):
    return lambda batching, bound: (ARRAY, _rank_of(batching, bound, rhs))


def _cho_factor_rule(bt, target, app):
    """cho_factor of a stack: the same call (NumPy's cholesky maps over leading axes); its `lower` flag, a
    Python bool, is repeated along the batch as every item of a batched pair is (cho_solve's rule reads one)."""
    b = app.bound
    a = b.get("a")
    if not isinstance(a, gast.Name) or bt.kind(a) != ARRAY or not bt.is_batched(a) or any(
            bt.is_batched(n) for k, n in b.items() if k != "a"):
        return None
    out = []
    factor = bt.fresh("_factor")
    out.append(bt.assign(factor, _rebuilt(bt, app, {})))
    lower = bt.fresh("_lower")
    out.append(bt.assign(lower, gast.Subscript(value=_name(factor), slice=_const(1), ctx=gast.Load())))
    out.append(bt.assign(target, _tuple(gast.Subscript(value=_name(factor), slice=_const(0), ctx=gast.Load()),
                                        _call("batch_broadcast", _name(lower), bt.B, _tuple(copy.deepcopy(a))))))
    return out


def _cho_factor_result(batching, bound):
    r = _rank_of(batching, bound, "a")
    return (r if r is not None else ARRAY, 0), None


def _tensorinv_rule(bt, target, app):
    """tensorinv(a, ind) with a literal ind: each example's matrix view inverted in one stacked inv, reshaped
    back to (B, *J, *I)."""
    b = app.bound
    a = b["a"]
    ind = _static_int(b.get("ind", _const(2)))
    if ind is None or ind <= 0 or not isinstance(a, gast.Name) or bt.kind(a) != ARRAY or not bt.is_batched(a):
        return None
    out = []
    shapes = bt.fresh("_tensorinv_shapes")
    out.append(bt.assign(shapes, _call(bt.helper(batch_tensorinv_shapes), _call("jnp.shape", copy.deepcopy(a)),
                                       _const(ind))))
    matrices = bt.fresh(f"{a.id}_matrices")
    out.append(bt.assign(matrices, _call("jnp.reshape", copy.deepcopy(a), gast.Subscript(
        value=_name(shapes), slice=_const(0), ctx=gast.Load()))))
    inverse = bt.fresh("_inverse")
    out.append(bt.assign(inverse, _call("jnp.linalg.inv", _name(matrices))))
    out.append(bt.assign(target, _call("jnp.reshape", _name(inverse), gast.Subscript(
        value=_name(shapes), slice=_const(1), ctx=gast.Load()))))
    return out


def batch_tensorsolve_shapes(size, a_shape, a_batched, b_shape, b_batched):
    """For tensorsolve(a, b) of a batch: the shapes a and b are read as (a stack of) N x N matrices and
    N x 1 columns (an unbatched operand without the batch axis, b then repeated to (size, N, 1)), and the
    batched result's (size, *Q), Q = a's per-example axes after b's."""
    a_shape, b_shape = tuple(int(n) for n in a_shape), tuple(int(n) for n in b_shape)
    pa, pb = (a_shape[1:] if a_batched else a_shape), (b_shape[1:] if b_batched else b_shape)
    q = pa[len(pb):]
    n = int(np.prod(q))
    if pa[:len(pb)] != pb or int(np.prod(pb)) != n:
        raise np.linalg.LinAlgError("tensorsolve: a's shape must be b's shape followed by axes of as many elements")
    size = int(size)
    return ((size, n, n) if a_batched else (n, n)), ((size, n, 1) if b_batched else (n, 1)), (size, n, 1), (size,) + q


primitive("batch_tensorsolve_shapes", batch_tensorsolve_shapes, operands=(), differentiable=False, reason=SHAPES)


def _tensorsolve_rule(bt, target, app):
    """tensorsolve(a, b) with axes None: each example's a as an N x N matrix, b as a column, one stacked
    solve, reshaped to each example's Q."""
    b = app.bound
    a, rhs = b["a"], b["b"]
    if not _is_const(b.get("axes", _const(None)), None) or any(
            not isinstance(n, gast.Name) or bt.kind(n) != ARRAY for n in (a, rhs)):
        return None
    out = []
    shapes = bt.fresh("_tensorsolve_shapes")
    out.append(bt.assign(shapes, _call(bt.helper(batch_tensorsolve_shapes), bt.B, _call("jnp.shape", copy.deepcopy(a)),
                                       _const(bt.is_batched(a)), _call("jnp.shape", copy.deepcopy(rhs)),
                                       _const(bt.is_batched(rhs)))))

    def shape(i):
        return gast.Subscript(value=_name(shapes), slice=_const(i), ctx=gast.Load())
    matrices = bt.fresh(f"{a.id}_matrices")
    out.append(bt.assign(matrices, _call("jnp.reshape", copy.deepcopy(a), shape(0))))
    columns = bt.fresh(f"{rhs.id}_columns")
    out.append(bt.assign(columns, _call("jnp.reshape", copy.deepcopy(rhs), shape(1))))
    if not bt.is_batched(rhs):
        out.append(bt.assign(columns, _call("jnp.broadcast_to", _name(columns), shape(2))))
    solved = bt.fresh("_solved")
    out.append(bt.assign(solved, _call("jnp.linalg.solve", _name(matrices), _name(columns))))
    out.append(bt.assign(target, _call("jnp.reshape", _name(solved), shape(3))))
    return out


def _tensorinv_result(batching, bound):
    return ARRAY, _rank_of(batching, bound, "a")


SOLVES = {
    "solve_triangular": (_solve_rule("a", "b"), _solve_result("b")),
    "scipy_solve": (_solve_rule("a", "b"), _solve_result("b")),
    "cho_solve": (_solve_rule("c_and_lower", "b", pair=True, flag=True), _solve_result("b")),
    "lu_solve": (_solve_rule("lu_and_piv", "b", pair=True), _solve_result("b")),
    "tensorinv": (_tensorinv_rule, _tensorinv_result),
    "tensorsolve": (_tensorsolve_rule, lambda batching, bound: (ARRAY, None)),
    "cho_factor": (_cho_factor_rule, _cho_factor_result),
    "scipy_cho_factor": (_cho_factor_rule, _cho_factor_result),
}


# ---------------------------------------------------------------- splits
def _sections(node):
    """The number of items a literal indices_or_sections gives (an int, or a tuple/list of split points)."""
    n = _static_int(node)
    if n is not None:
        return n
    if isinstance(node, (gast.Tuple, gast.List)):
        return len(node.elts) + 1
    return None


def batch_split_axis(how, ndim):
    """The axis of a batched array of `ndim` axes along which hsplit / vsplit / dsplit (`how`) cut each
    example: hsplit's axis 1 (0 for a vector), vsplit's 0, dsplit's 2, shifted past the batch axis. Examples
    of too few axes raise as NumPy's functions do."""
    rank = int(ndim) - 1
    least = {"hsplit": 1, "vsplit": 2, "dsplit": 3}[how]
    if rank < least:
        raise ValueError(f"{how} only works on arrays of {least} or more dimensions")
    return 1 + {"hsplit": 0 if rank == 1 else 1, "vsplit": 0, "dsplit": 2}[how]


primitive("batch_split_axis", batch_split_axis, operands=(), differentiable=False, reason=SHAPES)

_FIXED_AXIS = ("hsplit", "vsplit", "dsplit")


def _split_how(prim, bound):
    """Which split a statement does: the primitive's name, or split_parts' `how` (None: not a literal)."""
    if prim.name in ("split_parts", "split_items"):
        how = bound.get("how", _const("split"))
        return how.value if isinstance(how, gast.Constant) else None
    return prim.name


def _split_covered(batching, prim, bound, operand):
    """Whether the split rule batches this statement: a batched array split at literal sections along a
    literal axis (or hsplit/vsplit/dsplit's own), nothing else batched."""
    x, how = bound.get(operand), _split_how(prim, bound)
    if not isinstance(x, gast.Name) or batching.kind(x) != ARRAY or how not in ("split", "array_split") + _FIXED_AXIS:
        return False
    if any(batching.is_batched(n) for k, n in bound.items() if k != operand):
        return False
    if _sections(bound.get("indices_or_sections")) is None:
        return False
    return how in _FIXED_AXIS or _static_int(bound.get("axis", _const(0))) is not None


def _split_rule(operand):
    def rule(bt, target, app):
        b = app.bound
        if not bt.is_batched(b.get(operand)) or not _split_covered(bt, app.primitive, b, operand):
            return None
        how = _split_how(app.primitive, b)
        x = b[operand]
        if how in _FIXED_AXIS:
            axis = _call(bt.helper(batch_split_axis), _const(how), _call("jnp.ndim", copy.deepcopy(x)))
        else:
            axis = _const(_static_int(b.get("axis", _const(0))) + (1 if _static_int(b.get("axis", _const(0))) >= 0
                                                                    else 0))
        if app.primitive.name in ("split_parts", "split_items"):
            return [bt.assign(target, _rebuilt(bt, app, {"axis": axis, "how": _const(
                "array_split" if how == "array_split" else "split")}))]
        split = "jnp.array_split" if how == "array_split" else "jnp.split"
        return [bt.assign(target, _call(split, copy.deepcopy(x), copy.deepcopy(b["indices_or_sections"]), axis=axis))]
    return rule


def _split_result(name, operand):
    """A list of as many arrays as the literal sections say, each of the operand's rank, where the rule batches
    the statement or nothing in it is batched; else unknown (the statement loops over the batch, and a list
    it stacks is batched example by example)."""
    def result(batching, bound):
        prim = PRIMITIVES.get(name)
        n = _sections(bound.get("indices_or_sections"))
        if n is None or n <= 0 or prim is None or (
                batching.is_batched(bound.get(operand)) and not _split_covered(batching, prim, bound, operand)):
            return None, None
        r = _rank_of(batching, bound, operand)
        return tuple([r if r is not None else ARRAY] * n), None
    return result


SPLITS = {name: (_split_rule(operand), _split_result(name, operand)) for name, operand in (
    ("split", "ary"), ("array_split", "ary"), ("hsplit", "ary"), ("vsplit", "ary"), ("dsplit", "ary"),
    ("split_parts", "x"))}
SPLITS["split_items"] = (_split_rule("x"), lambda batching, bound: (None, None))      # an adjoint tree


# ---------------------------------------------------------------- registration
_PAIRS = {"cho_solve": "c_and_lower", "lu_solve": "lu_and_piv"}


def _register():
    from .batching_axes import _declared
    for table in (SOLVES, SPLITS):
        for name, (rule, result) in table.items():
            if name in PRIMITIVES and PRIMITIVES[name].batch is None:
                declared = _declared(rule, result)
                if name in _PAIRS:
                    declared.reads_tuples = (_PAIRS[name],)     # transforms/vmap.py: the pair need not loop
                defbatch(PRIMITIVES[name], declared)


_register()
