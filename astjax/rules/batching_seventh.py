"""Batching rules (vmap) of the seventh batch: primitives that still looped over the batch.

- `lstsq` (x through a stacked `pinv`, the residuals of every example or of none, rank and singular values
  from one stacked `svdvals`);
- `multi_dot` of four or five arrays (NumPy's chain order, found from one example's shapes, chooses one of
  the parenthesizations written out) and `einsum` of three or more operands (NumPy's contraction path,
  found from one example's shapes, given to the batched call as `optimize`);
- SciPy's `svd`, `qr`, `polar` over a stack, `convolution_matrix` and `fiedler_companion` of batched vectors;
- derivative helpers: `spectral_direction`, `einsum_ellipsis_adjoint`, `tree_item_adjoint`, and lax.sort's
  (`argsort` along an axis held in a name, `lexsort_order` of a batched tuple of keys);
- non-differentiable primitives users vmap: the elementwise ones (bit operations, `gcd`/`lcm`, `signbit`,
  `isposinf`/`isneginf`, `isreal`/`iscomplex`, `rint`/`fix`/`spacing`, `isclose`, `gammasgn`, lax's
  `round`, integer and bool casts), the axis-shifting ones (`argpartition`, `nanargmax`/`nanargmin`,
  `count_nonzero`, `one_hot`, `packbits`/`unpackbits`, `rankdata`), `searchsorted`/`digitize` against
  unbatched tables, `isin`, `lexsort` of keys written in the call, `matrix_rank`, `allclose`,
  `unravel_index`.

Each rule writes primitives on the whole batch (so `grad(vmap(f))` and `vmap(vmap(f))` transform its output
again); the runtime helpers compute shapes, orders and counts from one example's shape (the same for every
example) or refuse what examples disagree on. Anything else keeps the loop over the batch, which is always
right. tests/test_vmap_rules_batch7.py checks each against a Python loop over the batch.
"""
import copy

import gast
import numpy as np

from ..analyses.batching import ARRAY, _array_params
from .batching import _call, _const, _is_const, _name, _static_int, _tuple, elementwise_rule
from .batching_axes import AxisShift, _declared, _first_of, _flattened_or_kept, _keep, _rank_of, _rebuilt, _reduced, register_family
from .batching_fourth import _batched_array, _others_unbatched
from .batching_sixth import _cast, _explicit, _items, batch_float_dtype
from .nondifferentiable import SHAPES
from .registry import PRIMITIVES, defbatch, primitive

__all__ = ["EDITS", "batch_chain_order", "batch_einsum_path", "batch_lstsq_cutoff", "batch_residual_count"]


# ---------------------------------------------------------------- runtime helpers (orders, paths, counts)
def _chain_trees(n, first=0):
    """Every parenthesization of the product of arrays first .. first + n - 1, in one fixed order: an int
    is one array, a pair (left, right) their product."""
    if n == 1:
        return [first]
    trees = []
    for k in range(1, n):
        for left in _chain_trees(k, first):
            for right in _chain_trees(n - k, first + k):
                trees.append((left, right))
    return trees


def batch_chain_order(*shapes):
    """For multi_dot of four or more matrices of these per-example 2-D shapes (a vector already a row or a
    column): the index in `_chain_trees(n)` of the parenthesization NumPy's `_multi_dot_matrix_chain_order`
    picks (`numpy_chain_tree`)."""
    return _chain_trees(len(shapes)).index(numpy_chain_tree(shapes))


def numpy_chain_tree(shapes):
    """The parenthesization NumPy's `_multi_dot_matrix_chain_order` picks for matrices of these 2-D shapes (the
    cheapest count of scalar products; on a tie the first split point, as NumPy's strict `<`), as a tree: an
    int is one array, a pair (left, right) their product. An array that is not 2-D there gets NumPy's error
    (multi_dot's inner arrays are matrices)."""
    for shape in shapes:
        if len(shape) != 2:
            raise ValueError(f"{len(shape)}-dimensional array given. Array must be two-dimensional")
    p = [int(s[0]) for s in shapes] + [int(shapes[-1][1])]
    n = len(shapes)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = float("inf")
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k

    def tree(i, j):
        return i if i == j else (tree(i, split[i][j]), tree(split[i][j] + 1, j))

    return tree(0, n - 1)


def batch_einsum_path(subscripts, *shapes):
    """The contraction path NumPy's einsum takes for one example of operands of these per-example shapes
    (`optimize=True`: einsum_path's greedy search, which reads only the shapes), written as einsum's
    `optimize` list, so the batched call contracts the operands in the same pairs and order as each example."""
    standins = [np.zeros(tuple(int(n) for n in shape)) for shape in shapes]
    return np.einsum_path(subscripts, *standins, optimize="greedy")[0]


def batch_lstsq_cutoff(a):
    """lstsq's default rcond for a batched stack of matrices `a`: eps of its dtype times max(M, N)."""
    shape = np.shape(a)
    return float(np.finfo(np.asarray(a).dtype).eps * max(int(shape[-2]), int(shape[-1])))


def batch_residual_count(rank, shape_a, width):
    """How many residuals every example of lstsq has: `width` (b's columns, 1 for a vector) where each a of
    per-example shape (M, N) has rank N and M > N, else 0 (NumPy's empty residuals). Examples that disagree
    have residuals of different lengths, which no batched array holds: refused, as JAX's vmap refuses."""
    m, n = (int(k) for k in shape_a[-2:])
    full = (np.asarray(rank) == n) & (m > n)
    if full.all():
        return int(width)
    if not full.any():
        return 0
    from ..errors import RuntimeRefusal
    raise RuntimeRefusal(
        "vmap of jnp.linalg.lstsq: some examples have full column rank and others do not, so their residuals "
        "have different lengths (one per column of b, or none) and cannot be stacked along the batch. Instead: "
        "use only x = lstsq(a, b)[0] under vmap, or compute the residuals as jnp.sum((a @ x - b) ** 2, axis=0).")


for _fn in (batch_chain_order, batch_einsum_path, batch_lstsq_cutoff, batch_residual_count):
    primitive(_fn.__name__, _fn, operands=(), differentiable=False, reason=SHAPES)


# ---------------------------------------------------------------- node helpers
def _item(node, i):
    return gast.Subscript(value=copy.deepcopy(node), slice=_const(i), ctx=gast.Load())


def _matmul(a, b):
    return gast.BinOp(left=copy.deepcopy(a), op=gast.MatMult(), right=copy.deepcopy(b))


def _columns(node, upper):
    """node[:, :upper]."""
    return gast.Subscript(value=copy.deepcopy(node), slice=_tuple(gast.Slice(lower=None, upper=None, step=None),
                          gast.Slice(lower=None, upper=copy.deepcopy(upper), step=None)), ctx=gast.Load())


def _arrays_of_known_rank(bt, nodes):
    return bool(nodes) and all(isinstance(n, gast.Name) and bt.kind(n) == ARRAY and bt.rank(n) is not None
                               for n in nodes)


def chain_operands(bt, out, items, first, last):
    """The operands of a batched chain of products, in their common float dtype, a vector first (last) item
    made a row (column): (operands, row, column); the statements that make them are appended to `out`."""
    dtype = bt.fresh("_dtype")
    out.append(bt.assign(dtype, _call(bt.helper(batch_float_dtype), *[copy.deepcopy(n) for n in items])))
    operands = [_cast(bt, out, n, dtype) for n in items]
    row, column = first == 1, last == 1
    if row:
        operands[0] = _assign(bt, out, f"{operands[0].id}_2d", _call("jnp.expand_dims", operands[0], _const(-2)))
    if column:
        operands[-1] = _assign(bt, out, f"{operands[-1].id}_2d", _call("jnp.expand_dims", operands[-1], _const(-1)))
    return operands, row, column


def _assign(bt, out, stem, value):
    """`stem_k = value` appended to `out`; the fresh name."""
    fresh = bt.fresh(stem)
    out.append(bt.assign(fresh, value))
    return _name(fresh)


# ---------------------------------------------------------------- lstsq
def _lstsq_rule(bt, target, app):
    """lstsq(a, b) of matrices a (a vector or matrix b), rcond at its default eps * max(M, N): each operand cast
    to the common float dtype, x = pinv(a, rtol=rcond) b on the stack (pinv keeps the singular values above
    rcond times the largest, as lstsq's gelsd), the singular values from one stacked svdvals and the rank
    counted from them; the residuals |a x - b|^2 per column where every example has full column rank and
    M > N, none where no example has (`batch_residual_count`; examples that disagree are refused)."""
    b = app.bound
    a, rhs = b.get("a"), b.get("b")
    if not _is_const(b.get("rcond", _const(None)), None) or not _arrays_of_known_rank(bt, [a, rhs]) or not any(
            bt.is_batched(n) for n in (a, rhs)) or bt.rank(a) != 2 or bt.rank(rhs) not in (1, 2):
        return None
    out = []
    dtype = bt.fresh("_dtype")
    out.append(bt.assign(dtype, _call(bt.helper(batch_float_dtype), copy.deepcopy(a), copy.deepcopy(rhs))))
    a_c = _cast(bt, out, bt.batched(a, out), dtype)
    rhs_c = _cast(bt, out, bt.batched(rhs, out), dtype)
    vector = bt.rank(rhs) == 1
    column = _assign(bt, out, f"{rhs.id}_column", _call("jnp.expand_dims", rhs_c, _const(-1))) if vector else rhs_c
    rcond = _assign(bt, out, "_rcond", _call(bt.helper(batch_lstsq_cutoff), a_c))
    solution = _assign(bt, out, "_solution", _matmul(_call("jnp.linalg.pinv", a_c, rtol=rcond), column))
    x = _assign(bt, out, "_x", _call("jnp.squeeze", solution, _const(-1))) if vector else solution
    s = _assign(bt, out, "_s", _call("jnp.linalg.svdvals", a_c))
    kept = gast.Compare(left=s, ops=[gast.Gt()], comparators=[gast.BinOp(left=rcond, op=gast.Mult(), right=_columns(
        s, _const(1)))])
    int32 = _call("jnp.int32").func
    rank = _assign(bt, out, "_rank", _call("jnp.astype", _call("jnp.sum", kept, axis=_const(1)), int32))
    error = _assign(bt, out, "_error", gast.BinOp(left=_matmul(a_c, solution), op=gast.Sub(), right=column))
    squares = _assign(bt, out, "_squares", _call("jnp.sum", gast.BinOp(
        left=_call("jnp.abs", error), op=gast.Pow(), right=_const(2)), axis=_const(1)))
    width = _const(1) if vector else gast.Subscript(value=_call("jnp.shape", rhs_c), slice=_const(-1), ctx=gast.Load())
    count = _assign(bt, out, "_count", _call(bt.helper(batch_residual_count), rank, _call("jnp.shape", a_c), width))
    residuals = _assign(bt, out, "_residuals", _call("jnp.astype", _columns(squares, count), _name(dtype)))
    out.append(bt.assign(target, _tuple(x, residuals, rank, s)))
    return out


def _lstsq_result(batching, bound):
    rank = batching.rank(bound.get("b")) if isinstance(bound.get("b"), gast.Name) else None
    return (rank if rank is not None else ARRAY, 1, 0, 1), None


# ---------------------------------------------------------------- chains of products
def _chain_product(tree, operands):
    return operands[tree] if isinstance(tree, int) else _matmul(_chain_product(tree[0], operands),
                                                                _chain_product(tree[1], operands))


def _multi_dot_chain_rule(bt, target, app):
    """multi_dot of four or five arrays, the first and last of known per-example ranks (a vector or a matrix;
    the inner ones matrices, checked when it runs): each cast to the common float dtype, the first vector a
    row and the last a column, multiplied as stacks in the order NumPy's chain-order search picks from one
    example's shapes (`batch_chain_order`: one branch per parenthesization, 5 or 14), so every example's
    products are NumPy's; the unit axes squeezed."""
    items = _items(app.bound.get("arrays"))
    if items is None or len(items) not in (4, 5) or not _arrays_of_known_rank(bt, [items[0], items[-1]]) or any(
            not isinstance(n, gast.Name) or (bt.is_batched(n) and bt.kind(n) != ARRAY) for n in items) or not any(
            bt.is_batched(n) for n in items) or not _others_unbatched(bt, app, "arrays"):
        return None
    first, last = bt.rank(items[0]), bt.rank(items[-1])
    if first not in (1, 2) or last not in (1, 2) or any(bt.rank(n) not in (None, 2) for n in items[1:-1]):
        return None
    out = []
    operands, row, column = chain_operands(bt, out, items, first, last)
    order = _assign(bt, out, "_order", _call(bt.helper(batch_chain_order), *[
        _example_shape(bt, node, item) for node, item in zip(operands, items)]))
    product = bt.fresh("_product")
    trees = _chain_trees(len(items))
    branch = [bt.assign(product, _chain_product(trees[-1], operands))]
    for k in range(len(trees) - 2, -1, -1):
        test = gast.Compare(left=copy.deepcopy(order), ops=[gast.Eq()], comparators=[_const(k)])
        branch = [gast.If(test=test, body=[bt.assign(product, _chain_product(trees[k], operands))], orelse=branch)]
    out.extend(branch)
    squeezed = tuple(k for k, flag in ((-2, row), (-1, column)) if flag)
    out.append(bt.assign(target, _call("jnp.squeeze", _name(product), axis=_tuple(*[_const(k) for k in squeezed]))
                         if squeezed else _name(product)))
    return out


def _example_shape(bt, node, original):
    """One example's shape of `node`: jnp.shape(node)[1:] where `original` is batched, else its shape."""
    return gast.Subscript(value=_call("jnp.shape", copy.deepcopy(node)), slice=gast.Slice(
        lower=_const(1 if bt.is_batched(original) else 0), upper=None, step=None), ctx=gast.Load())


def _einsum_many_rule(bt, target, app):
    """einsum of three or more operands with literal subscripts and the default `optimize`: each batched
    operand gets a label of its own in front, the output too, and the batched call follows the contraction
    path NumPy finds for one example (`batch_einsum_path`), so the operands meet in the same pairs."""
    b = app.bound
    subscripts, operands = b.get("subscripts"), _items(b.get("operands"))
    if not (isinstance(subscripts, gast.Constant) and isinstance(subscripts.value, str)) or not operands or len(
            operands) < 3 or any(bt.is_batched(n) and (not isinstance(n, gast.Name) or bt.kind(n) != ARRAY)
                                 for n in operands):
        return None
    if not any(bt.is_batched(n) for n in operands) or not _others_unbatched(bt, app, "operands") or not _is_const(
            b.get("optimize", _const("auto")), "auto", True):
        return None
    found = _explicit(subscripts.value)
    if found is None or len(found[0]) != len(operands):
        return None
    inputs, output = found
    label = next((c for c in "BNZbnzABCDEFGHIJKLMOPQRSTUVWXYacdefghijklmopqrstuvwxy" if c not in subscripts.value),
                 None)
    if label is None:
        return None         # every letter taken: no label is left for the batch
    flags = [bool(bt.is_batched(n)) for n in operands]
    written = ",".join(label + spec if flag else spec for spec, flag in zip(inputs, flags))
    out = []
    shapes = [_example_shape(bt, n, n) for n in operands]
    path = _assign(bt, out, "_path", _call(bt.helper(batch_einsum_path), _const(subscripts.value), *shapes))
    keywords = [gast.keyword(arg=k, value=copy.deepcopy(n)) for k, n in b.items() if k not in (
        "subscripts", "operands", "optimize")] + [gast.keyword(arg="optimize", value=path)]
    arguments = [_const(f"{written}->{label}{output}")] + [copy.deepcopy(n) for n in operands]
    out.append(bt.assign(target, gast.Call(func=_call("jnp.einsum").func, args=arguments, keywords=keywords)))
    return out


# ---------------------------------------------------------------- SciPy's matrix functions over a stack
def _stacked_matrix_rule(*literal):
    """The same call on a batched matrix (per-example rank 2) whose `literal` arguments are written as
    constants: SciPy's svd and qr (without pivoting) call jnp.linalg's, and polar takes one reduced SVD, all of
    which map over leading stack axes."""
    def rule(bt, target, app):
        b = app.bound
        first = app.primitive.operands[0]
        a = b.get(first)
        if not _batched_array(bt, a) or bt.rank(a) != 2 or not _others_unbatched(bt, app, first) or any(
                k in b and not isinstance(b[k], gast.Constant) for k in literal):
            return None
        if app.primitive.name == "scipy_qr" and not _is_const(b.get("pivoting", _const(False)), False):
            return None         # a pivoted QR takes one matrix
        return [bt.assign(target, _rebuilt(bt, app, {}))]
    return rule


def _scipy_qr_result(batching, bound):
    mode = bound.get("mode", _const("full"))
    if not isinstance(mode, gast.Constant) or not _is_const(bound.get("pivoting", _const(False)), False):
        return None, None
    return ((2,) if mode.value == "r" else (2, 2)), None


def _scipy_svd_result(batching, bound):
    if _is_const(bound.get("compute_uv", _const(True)), False):
        return ARRAY, 1
    return (2, 1, 2), None


def _convolution_matrix_rule(bt, target, app):
    """convolution_matrix(a, n, mode) of a batched vector a: each example's [a, 0] read at the positions
    `gather_index` lists for one example (the helper its own call uses), in one take."""
    from ..scipy._linalg_more import gather_index
    b = app.bound
    a, mode = b.get("a"), b.get("mode", _const("full"))
    if not _batched_array(bt, a) or bt.rank(a) != 1 or not _others_unbatched(bt, app, "a") or not _is_const(
            mode, "full", "same", "valid"):
        return None
    out = []
    zero = gast.Subscript(value=_call("jnp.zeros_like", copy.deepcopy(a)), slice=_tuple(gast.Slice(
        lower=None, upper=None, step=None), gast.Slice(lower=None, upper=_const(1), step=None)), ctx=gast.Load())
    values = _assign(bt, out, "_values", _call("jnp.concatenate", gast.List(elts=[copy.deepcopy(a), zero],
                                                                             ctx=gast.Load()), axis=_const(1)))
    length = gast.Subscript(value=_call("jnp.shape", copy.deepcopy(a)), slice=_const(1), ctx=gast.Load())
    index = _call(bt.helper(gather_index), _const("convolution"), length, _call("int", copy.deepcopy(b["n"])),
                  copy.deepcopy(mode))
    out.append(bt.assign(target, _call("jnp.take", values, index, axis=_const(1))))
    return out


def _fiedler_companion_rule(bt, target, app):
    """fiedler_companion(a) of a batched a whose examples are polynomials (per-example rank at least 1): the
    same call, which builds one matrix per leading index (a stack of polynomials)."""
    a = app.bound.get("a")
    if not _batched_array(bt, a) or bt.rank(a) is None or bt.rank(a) < 1 or not _others_unbatched(bt, app, "a"):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {}))]


def _spectral_direction_rule(bt, target, app):
    """spectral_direction(x) (u v^T of the top singular pair: the derivative of the spectral norm) of a batched
    matrix: one stacked SVD, each example's first column of u times its first row of v^T, in the helper's
    float dtype."""
    from .batching_sixth import batch_float_result
    x = app.bound.get("x")
    if not _batched_array(bt, x) or bt.rank(x) != 2 or not _others_unbatched(bt, app, "x"):
        return None
    out = []
    factors = _assign(bt, out, "_svd", _call("jnp.linalg.svd", copy.deepcopy(x)))
    every = gast.Slice(lower=None, upper=None, step=None)
    left = gast.Subscript(value=_item(factors, 0), slice=_tuple(every, copy.deepcopy(every), _const(0)),
                          ctx=gast.Load())
    right = gast.Subscript(value=_item(factors, 2), slice=_tuple(every, _const(0), copy.deepcopy(every)),
                           ctx=gast.Load())
    product = gast.BinOp(left=_call("jnp.expand_dims", left, _const(2)), op=gast.Mult(),
                         right=_call("jnp.expand_dims", right, _const(1)))
    out.append(bt.assign(target, _call("jnp.astype", product, _call(bt.helper(batch_float_result),
                                                                    copy.deepcopy(x)))))
    return out


def _einsum_ellipsis_adjoint_rule(bt, target, app):
    """einsum_ellipsis_adjoint(g, k, subscripts, *operands) (the adjoint of operand k of an einsum with `...`)
    of a batched g: every operand with the batch first (an unbatched one repeated), a label of its own in
    front of each operand's subscripts and of the output written out (NumPy's implicit output: `...` first,
    then the labels used once), so the same helper computes each example's adjoint with the batch kept."""
    from .batching_axes import _callee
    b = app.bound
    g, k, subscripts, operands = b.get("g"), b.get("k"), b.get("subscripts"), _items(b.get("operands"))
    if not _batched_array(bt, g) or _static_int(k) is None or not (isinstance(subscripts, gast.Constant) and isinstance(
            subscripts.value, str)) or not operands or any(not isinstance(n, gast.Name) or bt.kind(n) != ARRAY
                                                          for n in operands):
        return None
    found = _explicit(subscripts.value)
    if found is None or len(found[0]) != len(operands):
        return None
    label = next((c for c in "BNZbnzABCDEFGHIJKLMOPQRSTUVWXYacdefghijklmopqrstuvwxy" if c not in subscripts.value),
                 None)
    if label is None:
        return None
    inputs, output = found
    written = ",".join(label + spec for spec in inputs) + "->" + label + output
    out = []
    batched = [bt.batched(n, out) for n in operands]
    out.append(bt.assign(target, gast.Call(func=_callee(bt, app), args=[copy.deepcopy(g), copy.deepcopy(k), _const(
        written)] + batched, keywords=[])))
    return out


def _einsum_ellipsis_adjoint_result(batching, bound):
    operands, k = _items(bound.get("operands")), _static_int(bound.get("k"))
    if operands is None or k is None or not -len(operands) <= k < len(operands):
        return ARRAY, None
    return ARRAY, batching.rank(operands[k])


def _tree_item_adjoint_rule(bt, target, app):
    """tree_item_adjoint(i, g) (the adjoint of item i of a list: a tree holding g at i) of a batched array g
    and an unbatched i: the same call, a tree whose item carries the batch on axis 0, as every batched
    adjoint tree's items do."""
    b = app.bound
    if not _batched_array(bt, b.get("g")) or not _others_unbatched(bt, app, "g"):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {}))]


# ---------------------------------------------------------------- non-differentiable primitives users vmap
# elementwise: the batch axis passes through (batching.py's elementwise rule: lower ranks get unit axes)
ELEMENTWISE = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "gcd", "lcm", "isclose",
               "invert", "bitwise_count", "signbit", "isneginf", "isposinf", "isreal", "iscomplex", "rint", "fix",
               "spacing", "gammasgn", "lax_round")
# NumPy's integer and bool types called on an array (`np.int32(x)`): a cast, the same call
CASTS = tuple(f"cast_{t}" for t in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"))


def _broadcast_result(prim):
    """The highest per-example rank of the elementwise primitive's array arguments (as the analysis reads an
    elementwise primitive's)."""
    def result(batching, bound):
        ranks = [batching.rank(n) for k, n in bound.items() if k in _array_params(prim, bound)]
        return ARRAY, max(ranks) if ranks and None not in ranks else None
    return result


def _same_call_in(operand, *tables):
    """The same call where only `operand` is batched (an array) and the `tables` it is looked up in are not:
    searchsorted(a, v) in v, digitize(x, bins) in x, isin(element, test_elements) in element act on each
    entry of `operand` alone."""
    def rule(bt, target, app):
        b = app.bound
        if not _batched_array(bt, b.get(operand)) or not _others_unbatched(bt, app, operand) or any(
                k not in b for k in tables):
            return None
        return [bt.assign(target, copy.deepcopy(app.node) if isinstance(app.node, gast.Call) else _rebuilt(
            bt, app, {}))]
    rule.__name__ = f"_same_call_in_{operand}"
    return rule


def _one_hot_rule(bt, target, app):
    """one_hot(x, num_classes, dtype, axis) of a batched x: the same call, a literal axis shifted past the batch
    axis (the default -1, the last, needs no shift)."""
    b = app.bound
    x, axis = b.get("x"), b.get("axis", _const(-1))
    k = _static_int(axis)
    if not _batched_array(bt, x) or not _others_unbatched(bt, app, "x") or k is None:
        return None
    return [bt.assign(target, _rebuilt(bt, app, {"axis": _const(k + 1 if k >= 0 else k)}))]


def _one_hot_result(batching, bound):
    rank = _rank_of(batching, bound, "x")
    return ARRAY, None if rank is None else rank + 1


def _lexsort_rule(bt, target, app):
    """lexsort of keys written in the call (arrays of one known per-example rank, at least 1): each key with
    the batch first (an unbatched one repeated), a literal axis shifted past the batch axis."""
    b = app.bound
    keys, axis = _items(b.get("keys")), b.get("axis", _const(-1))
    k = _static_int(axis)
    if not _arrays_of_known_rank(bt, keys) or not any(bt.is_batched(n) for n in keys) or k is None or len(
            {bt.rank(n) for n in keys}) != 1 or bt.rank(keys[0]) < 1 or not _others_unbatched(bt, app, "keys"):
        return None
    out = []
    batched = [bt.batched(n, out) for n in keys]
    out.append(bt.assign(target, _rebuilt(bt, app, {"keys": gast.List(elts=batched, ctx=gast.Load()),
                                                    "axis": _const(k + 1 if k >= 0 else k)})))
    return out


def _lexsort_result(batching, bound):
    keys = _items(bound.get("keys"))
    ranks = {batching.rank(n) for n in keys} if keys else {None}
    return ARRAY, ranks.pop() if len(ranks) == 1 else None


def _flat_or_kept(operand):
    """packbits/unpackbits/rankdata: a vector for axis=None (each example flattened), else the operand's rank."""
    def result(batching, bound):
        if _is_const(bound.get("axis", _const(None)), None):
            return ARRAY, 1
        return ARRAY, _rank_of(batching, bound, operand)
    return result


AXES = {
    "argpartition": AxisShift("a", none="flatten", result=_flattened_or_kept("a")),
    "nanargmax": AxisShift("a", none="flatten", result=_reduced("a"), defaults_only=("out", "keepdims")),
    "nanargmin": AxisShift("a", none="flatten", result=_reduced("a"), defaults_only=("out", "keepdims")),
    "count_nonzero": AxisShift("a", none="all", result=_reduced("a")),
    "packbits": AxisShift("a", none="flatten", result=_flat_or_kept("a")),
    "unpackbits": AxisShift("a", none="flatten", result=_flat_or_kept("a")),
    "rankdata": AxisShift("a", none="flatten", result=_flat_or_kept("a")),
}



# ---------------------------------------------------------------- argsort along an axis computed when it runs
def _argsort_axis_when_it_runs_rule(bt, target, app):
    """argsort(a, axis) of a batched a along an axis held in an unbatched name (lax.sort's derivative passes
    its dimension so): one branch on the axis when it runs, None sorting each example flattened, else the
    axis shifted past the batch axis (`batch_axis`)."""
    from .batching import batch_axis
    b = app.bound
    a, axis = b.get("a"), b.get("axis")
    if not _batched_array(bt, a) or not isinstance(axis, gast.Name) or not _others_unbatched(bt, app, "a"):
        return None
    flat = bt.fresh(f"{a.id}_flat")
    whole = [bt.assign(flat, _call("jnp.reshape", copy.deepcopy(a), _tuple(bt.B, _const(-1)))),
             bt.assign(target, _rebuilt(bt, app, {"a": _name(flat), "axis": _const(1)}))]
    along = [bt.assign(target, _rebuilt(bt, app, {"axis": _call(bt.helper(batch_axis), copy.deepcopy(axis), _call(
        "jnp.ndim", copy.deepcopy(a)))}))]
    test = gast.Compare(left=copy.deepcopy(axis), ops=[gast.Is()], comparators=[_const(None)])
    return [gast.If(test=test, body=whole, orelse=along)]


def _argsort_result(earlier):
    """The earlier declaration for a literal axis; for an axis held in a name, a vector's rank (1 either way),
    else unknown (None flattens)."""
    def result(batching, bound):
        axis = bound.get("axis", _const(-1))
        if isinstance(axis, gast.Name):
            return ARRAY, 1 if _rank_of(batching, bound, "a") == 1 else None
        return earlier(batching, bound)
    return result


def _lexsort_order_rule(bt, target, app):
    """lax.sort's lexsort_order(keys, dimension) of a batched tuple or list of keys (every item carries the
    batch on axis 0; a tuple of known length, or a list written in the call): the same call with the dimension
    shifted past the batch axis when it runs (`batch_axis` on the first key's rank). An array of keys (its
    rows read as the keys) loops."""
    from .batching import batch_axis
    b = app.bound
    keys, dimension = b.get("keys"), b.get("dimension")
    written = _items(keys)
    if written is not None:
        if not _arrays_of_known_rank(bt, written) or not all(bt.is_batched(n) for n in written):
            return None
        first = written[0]
    elif isinstance(keys, gast.Name) and bt.is_batched(keys) and isinstance(bt.kind(keys), tuple) and bt.kind(keys):
        first = _item(keys, 0)
    else:
        return None
    if dimension is None or bt.is_batched(dimension):
        return None
    shifted = _call(bt.helper(batch_axis), copy.deepcopy(dimension), _call("jnp.ndim", first))
    return [bt.assign(target, _rebuilt(bt, app, {"dimension": shifted}))]


def _matrix_rank_rule(bt, target, app):
    """matrix_rank(M, rtol, tol) of a batched matrix (per-example rank 2; a vector's rank means another
    computation): the same call, which NumPy maps over leading stack axes."""
    m = app.bound.get("M")
    if not _batched_array(bt, m) or bt.rank(m) != 2 or not _others_unbatched(bt, app, "M"):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {}))]


def _allclose_rule(bt, target, app):
    """allclose(a, b, ...) of operands of known per-example ranks, every batched one of the highest (an
    unbatched one broadcasts against each example's trailing axes): isclose on the batch, then all over each
    example's axes, a bool per example as each example's 0-d result."""
    b = app.bound
    a, other = b.get("a"), b.get("b")
    if not _arrays_of_known_rank(bt, [a, other]) or not _others_unbatched(bt, app, "a", "b"):
        return None
    top = max(bt.rank(a), bt.rank(other))
    if any(bt.is_batched(n) and bt.rank(n) != top for n in (a, other)):
        return None
    close = _call("jnp.isclose", *[copy.deepcopy(n) for n in (a, other)], **{
        k: copy.deepcopy(n) for k, n in b.items() if k not in ("a", "b")})
    return [bt.assign(target, _call("jnp.all", close, axis=_tuple(*[_const(k) for k in range(1, top + 1)])))]


def _unravel_index_rule(bt, target, app):
    """unravel_index(indices, shape) of batched indices and an unbatched shape: the same call (each index is
    unravelled alone), a tuple of arrays shaped like the indices."""
    if not _batched_array(bt, app.bound.get("indices")) or not _others_unbatched(bt, app, "indices"):
        return None
    return [bt.assign(target, _rebuilt(bt, app, {}))]


def _unravel_index_result(batching, bound):
    shape = bound.get("shape")
    rank = _rank_of(batching, bound, "indices")
    if not isinstance(shape, (gast.Tuple, gast.List)):
        return None, None
    return tuple([rank if rank is not None else ARRAY] * len(shape.elts)), None


def _isin_rule(bt, target, app):
    """isin(element, test_elements, assume_unique, invert): against an unbatched table the same call; against
    a batched one, each example's elements compared with each of its table's entries (`==`, as NumPy's
    membership: a NaN is in nothing) and any taken, negated for invert."""
    b = app.bound
    element, table = b.get("element"), b.get("test_elements")
    if not bt.is_batched(table):
        return _same_call_in("element", "test_elements")(bt, target, app)
    if not all(isinstance(n, gast.Name) and bt.kind(n) == ARRAY for n in (element, table)) or not _others_unbatched(
            bt, app, "element", "test_elements") or not isinstance(b.get("invert", _const(False)), gast.Constant):
        return None
    out = []
    values = bt.batched(element, out)
    column = _call("jnp.reshape", copy.deepcopy(values), _tuple(bt.B, _const(-1), _const(1)))
    row = _call("jnp.reshape", copy.deepcopy(table), _tuple(bt.B, _const(1), _const(-1)))
    found = _assign(bt, out, "_found", _call("jnp.any", gast.Compare(left=column, ops=[gast.Eq()], comparators=[row]),
                                             axis=_const(2)))
    if _is_const(b.get("invert", _const(False)), True):
        found = _assign(bt, out, "_not_found", _call("jnp.logical_not", found))
    out.append(bt.assign(target, _call("jnp.reshape", found, _call("jnp.shape", copy.deepcopy(values)))))
    return out


EDITS = {
    "lstsq": (_lstsq_rule, _lstsq_result),
    "searchsorted": (_same_call_in("v", "a"), _keep("v")),
    "digitize": (_same_call_in("x", "bins"), _keep("x")),
    "isin": (_isin_rule, _keep("element")),
    "one_hot": (_one_hot_rule, _one_hot_result),
    "lexsort": (_lexsort_rule, _lexsort_result),
    "scipy_svd": (_stacked_matrix_rule("full_matrices", "compute_uv"), _scipy_svd_result),
    "scipy_qr": (_stacked_matrix_rule("mode", "pivoting"), _scipy_qr_result),
    "polar": (_stacked_matrix_rule("side", "method"), lambda batching, bound: ((2, 2), None)),
    "convolution_matrix": (_convolution_matrix_rule, lambda batching, bound: (ARRAY, 2)),
    "lax_lexsort_order": (_lexsort_order_rule, lambda batching, bound: (ARRAY, None)),
    "fiedler_companion": (_fiedler_companion_rule, lambda batching, bound: (
        ARRAY, None if _rank_of(batching, bound, "a") is None else _rank_of(batching, bound, "a") + 1)),
    "spectral_direction": (_spectral_direction_rule, lambda batching, bound: (ARRAY, 2)),
    "einsum_ellipsis_adjoint": (_einsum_ellipsis_adjoint_rule, _einsum_ellipsis_adjoint_result),
    "tree_item_adjoint": (_tree_item_adjoint_rule, lambda batching, bound: ("tree", None)),
    "matrix_rank": (_matrix_rank_rule, lambda batching, bound: (ARRAY, 0)),
    "allclose": (_allclose_rule, lambda batching, bound: (ARRAY, 0)),
    "unravel_index": (_unravel_index_rule, _unravel_index_result),
}
EDITS.update({name: (elementwise_rule, _broadcast_result(PRIMITIVES[name])) for name in ELEMENTWISE})
EDITS.update({name: (shift.rule, shift.result) for name, shift in AXES.items()})
EDITS.update({name: (_same_call_in("x"), _keep("x")) for name in CASTS})
# rules the sixth batch gave, extended to more operands
EXTENDED = {"multi_dot": _multi_dot_chain_rule, "einsum": _einsum_many_rule}


def _register():
    register_family(EDITS, EXTENDED)
    PRIMITIVES["lax_lexsort_order"].batch.reads_tuples = ("keys",)     # a tuple of keys is read by the rule
    earlier = PRIMITIVES["argsort"].batch
    defbatch(PRIMITIVES["argsort"], _declared(_first_of(earlier, _argsort_axis_when_it_runs_rule),
                                              _argsort_result(earlier.result)))


_register()
