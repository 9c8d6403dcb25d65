"""vmap attacked for silent wrong numbers: each program batched by astjax.vmap against a Python loop
over the examples (each example an astjax array, as the user's function would see it under vmap).

The prime rule holds for vmap as for grad: the right numbers, or a clear astjax error at the user's
line. Values are compared tightly (rtol 1e-12 in float64): a float64 computation that picks up a
float32 rounding somewhere is a wrong number too.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import tree_util
from astjax.errors import AstjaxError

RNG = np.random.default_rng(20261127)
B = 4


def _example(tree, axis, b, as_array):
    if axis is None:
        return tree
    if isinstance(axis, int):
        return tree_util.tree_map(lambda leaf: as_array(np.take(np.asarray(leaf), b, axis=axis)), tree)
    return tree_util.tree_map(lambda a, leaf: leaf if a is None else as_array(np.take(np.asarray(leaf), b, axis=a)),
                              axis, tree, is_leaf=lambda x: x is None)


def _size(args, axes):
    for arg, axis in zip(args, axes):
        if axis is not None:
            leaves = tree_util.tree_leaves(arg)
            leaf_axes = tree_util.tree_leaves(axis if not isinstance(axis, int) else tree_util.tree_map(
                lambda _: axis, arg), is_leaf=lambda x: x is None)
            return next(np.shape(leaf)[a] for leaf, a in zip(leaves, leaf_axes) if a is not None)


def _loop(fn, args, in_axes, numpy_examples=False):
    """fn run on each example (astjax arrays; NumPy arrays for a NumPy program that writes into them), the
    results stacked as JAX would (a Python number is weakly typed: it takes the dtype of the others)."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    as_array = np.array if numpy_examples else jnp.asarray
    outs = [fn(*[_example(a, ax, b, as_array) for a, ax in zip(args, axes)]) for b in range(_size(args, axes))]
    return tree_util.tree_map(lambda *leaves: np.asarray(jnp.stack(list(leaves))), *outs)


def _assert_same(got, want, rtol=1e-12, dtypes=True):
    got_leaves, want_leaves = tree_util.tree_leaves(got), tree_util.tree_leaves(want)
    assert tree_util.tree_structure(got) == tree_util.tree_structure(want), (got, want)
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape, (g.shape, w.shape)
        if dtypes:
            assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12, equal_nan=True)


def _against_loop(fn, args, in_axes=0, out_axes=0, rtol=1e-12, dtypes=True, numpy_examples=False):
    got = astjax.vmap(fn, in_axes=in_axes, out_axes=out_axes)(*args)
    want = _loop(fn, args, in_axes, numpy_examples)
    if out_axes != 0:
        want = tree_util.tree_map(lambda w, a: np.moveaxis(w, 0, a), want,
                                  out_axes if not isinstance(out_axes, int) else tree_util.tree_map(lambda _: out_axes,
                                                                                                    want))
    _assert_same(got, want, rtol, dtypes)


X = RNG.normal(size=(B, 3))
M = RNG.normal(size=(B, 3, 5))
W = RNG.normal(size=(3, 3))
I = np.array([0, 2, 1, 2])
REPEATS = np.array([[0, 0], [1, 1], [2, 0], [2, 2]])


# ---------------------------------------------------------------- in_axes / out_axes
def sin_matmul(x, w):
    return jnp.sin(x) @ w


def squares_last(m):
    return jnp.sum(m * m, axis=-1)


def dict_argument(p):
    return p["a"] * 2.0 + jnp.sum(p["b"])


def tuple_out(x):
    return x * 2.0, jnp.sum(x)


def dict_out(x):
    return {"s": jnp.sum(x), "x": x + 1.0}


@pytest.mark.parametrize("fn,args,in_axes,out_axes", [
    (sin_matmul, (X.T.copy(), W), (-1, None), 0),
    (squares_last, (M.transpose(1, 2, 0).copy(),), -1, 0),
    (squares_last, (M.transpose(1, 0, 2).copy(),), 1, 0),
    (squares_last, (M,), 0, 1),
    (squares_last, (M,), 0, -1),
    (dict_argument, ({"a": X, "b": M[:, 0]},), 0, 0),
    (dict_argument, ({"a": X, "b": M[0, 0]},), ({"a": 0, "b": None},), 0),
    (tuple_out, (X,), 0, 0),
    (tuple_out, (X,), 0, (1, 0)),
    (dict_out, (X,), 0, 0),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else None)
def test_axes(fn, args, in_axes, out_axes):
    _against_loop(fn, args, in_axes, out_axes)


def none_in_output(x):
    return x * 2.0, None


def test_none_in_an_output_tuple_stays_none():
    out = astjax.vmap(none_in_output)(X)
    assert out[1] is None
    np.testing.assert_allclose(out[0], X * 2.0)


# ---------------------------------------------------------------- indices and .at[] updates
def gather(x, i):
    return x[i]


def gather_column(w, i):
    return w[:, i]


def gather_row_tail(w, i):
    return w[i, 1:]


def at_add_one(x, i):
    return x.at[i].add(1.0)


def at_set(x, i, v):
    return x.at[i].set(v)


def at_multiply_two(x, i):
    return x.at[i].multiply(2.0)


def at_max(x, i, v):
    return x.at[i].max(v)


@pytest.mark.parametrize("fn,args,in_axes", [
    (gather, (jnp.asarray(W), I), (None, 0)),
    (gather, (X, 1), (0, None)),
    (gather, (X, np.array([2, 0, 0])), (0, None)),
    (gather, (X, I), (0, 0)),
    (gather, (X, REPEATS), (0, 0)),
    (gather_column, (jnp.asarray(W), I), (None, 0)),
    (gather_row_tail, (jnp.asarray(W), I), (None, 0)),
    (at_add_one, (X, REPEATS), (0, 0)),                 # repeated positions add twice, per example
    (at_add_one, (X, np.array([0, 0, 2])), (0, None)),
    (at_add_one, (jnp.asarray(W[0]), REPEATS), (None, 0)),
    (at_set, (X, I, RNG.normal(size=B)), (0, 0, 0)),
    (at_set, (jnp.asarray(W[0]), I, RNG.normal(size=B)), (None, 0, 0)),
    (at_multiply_two, (X, np.array([0, 0, 1])), (0, None)),
    (at_multiply_two, (X, REPEATS), (0, 0)),
    (at_max, (X, I, RNG.normal(size=B)), (0, 0, 0)),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else None)
def test_indices(fn, args, in_axes):
    _against_loop(fn, args, in_axes)


def sum_of_masked(b, x):
    return jnp.sum(x[b])


def masked_by_batched_mask(w, b):
    return w[b]


def test_boolean_mask_of_another_size_per_example_is_refused_at_the_users_line():
    mask = np.array([[True, False, True], [True, False, False]])
    with pytest.raises(AstjaxError, match="different shapes") as info:
        astjax.vmap(sum_of_masked)(mask, np.ones((2, 3)))
    assert "test_vmap_attacks.py" in str(info.value) and "x[b]" in str(info.value)
    with pytest.raises(AstjaxError, match="boolean mask"):
        astjax.vmap(masked_by_batched_mask, in_axes=(None, 0))(np.ones(3), mask)


# ---------------------------------------------------------------- control flow on batched values
def log_where_positive(x):
    if x > 0:
        y = jnp.log(x)
    else:
        y = x * 2.0
    return y


def reciprocal_unless_zero(x):
    if x != 0.0:
        y = 1.0 / x
    else:
        y = 0.0
    return y


def raises_when_large(x):
    if x > 100.0:
        raise ValueError("too big")
    return x * 2.0


def index_only_in_range(x, i):
    if i < 3:
        y = x[i]
    else:
        y = 0.0
    return y


def halve_until_small(x):
    n = 0
    while x > 0.1:
        x = x / 2.0
        n = n + 1
    return x, n


def shrink_vector(x):
    while jnp.sum(x) > 1.0:
        x = x * 0.5
    return x


def sum_until_negative(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            break
        s = s + x[i]
    return s


def squares_of_positives(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        s = s + x[i] ** 2
    return s


def horner(x):
    s = 1.0
    for v in x:
        s = s * v + 1.0
    return s


@pytest.mark.filterwarnings("ignore::RuntimeWarning")        # the branch not taken is computed too
@pytest.mark.parametrize("fn,args,in_axes", [
    (log_where_positive, (X[:, 0],), 0),
    (reciprocal_unless_zero, (np.array([0.0, 1.0, -2.0, 0.0]),), 0),
    (raises_when_large, (X[:, 0],), 0),
    (index_only_in_range, (X, np.array([0, 5, 2, 7])), (0, 0)),
    (halve_until_small, (np.abs(X[:, 0]) * 10,), 0),
    (shrink_vector, (np.abs(X) * 5,), 0),
    (sum_until_negative, (X,), 0),
    (squares_of_positives, (X,), 0),
    (horner, (X,), 0),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else None)
def test_control_flow(fn, args, in_axes):
    _against_loop(fn, args, in_axes)


# ---------------------------------------------------------------- closures
def _scaler(c):
    def scale(x):
        return x * c
    return scale


def closure_of_batched(x, c):
    g = _scaler(c)
    return g(x) + c


def lambda_of_batched(x, c):
    g = lambda t: t * c + 1.0      # noqa: E731
    return g(x)


@pytest.mark.parametrize("fn,args,in_axes", [
    (closure_of_batched, (X, X[:, 0]), 0),
    (closure_of_batched, (X, 2.0), (0, None)),
    (lambda_of_batched, (X, X[:, 0]), 0),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else None)
def test_closures(fn, args, in_axes):
    _against_loop(fn, args, in_axes)


# ---------------------------------------------------------------- reductions, matmul
def keepdims_reductions(x):
    return jnp.sum(x, axis=-1, keepdims=True) + jnp.max(x, axis=0, keepdims=True)


def reductions(x):
    return jnp.mean(x, axis=(-2, -1)), jnp.argmax(x, axis=-1), jnp.std(x, axis=0), jnp.cumsum(x, axis=-1)


def more_reductions(x):
    return jnp.prod(x, axis=-2, keepdims=True), jnp.min(x), jnp.any(x > 0, axis=-1), jnp.var(x, axis=1, keepdims=True)


def rearrangements(x):
    return jnp.sort(x, axis=-1), jnp.argsort(x, axis=0), jnp.flip(x, axis=-1), jnp.roll(x, 1, axis=0)


@pytest.mark.parametrize("fn", [keepdims_reductions, reductions, more_reductions, rearrangements],
                         ids=lambda f: f.__name__)
def test_reductions(fn):
    _against_loop(fn, (M,))


def matmul_operator(a, b):
    return a @ b


def dot(a, b):
    return jnp.dot(a, b)


@pytest.mark.parametrize("fn", [matmul_operator, dot], ids=lambda f: f.__name__)
@pytest.mark.parametrize("left", [(3,), (3, 3), (2, 3, 3)], ids=str)
@pytest.mark.parametrize("right", [(3,), (3, 3), (2, 3, 3)], ids=str)
@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 0)], ids=str)
def test_matmul_ranks(fn, left, right, in_axes):
    if fn is dot and len(left) == 3 and len(right) == 3:
        pytest.skip("dot of two 3-d arrays is not matmul; covered elsewhere")
    a, b = RNG.normal(size=(B,) + left), RNG.normal(size=(B,) + right)
    args = (a if in_axes[0] == 0 else jnp.asarray(a[0]), b if in_axes[1] == 0 else jnp.asarray(b[0]))
    _against_loop(fn, args, in_axes)


# ---------------------------------------------------------------- dtypes
def integer_arithmetic(i):
    return i * 2 + 1, i // 2, i % 3, -i, jnp.abs(i)


def integer_meets_float(i, x):
    return i / 2, x * i, jnp.sum(i), jnp.mean(i)


def boolean_ops(b, x):
    return jnp.where(b, x, 0.0), jnp.sum(b), b & (x > 0), ~b, jnp.logical_not(b)


def float32_stays(x):
    return jnp.sin(x) * 2.0 + jnp.sum(x) / 3, jnp.exp(x) + 1


def wraps_around(i):
    return i + 250


@pytest.mark.parametrize("fn,args", [
    (integer_arithmetic, (RNG.integers(-3, 5, size=(B, 3)),)),
    (integer_arithmetic, (RNG.integers(-3, 5, size=(B, 3)).astype(np.int32),)),
    (integer_meets_float, (RNG.integers(-3, 5, size=(B, 3)), X)),
    (boolean_ops, (RNG.random(size=(B, 3)) > 0.5, X)),
    (float32_stays, (X.astype(np.float32),)),
    (wraps_around, (np.array([1, 5, 10, 200], dtype=np.uint8),)),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else None)
def test_dtypes(fn, args):
    _against_loop(fn, args, rtol=1e-6)


# ---------------------------------------------------------------- weakly typed Python floats
# Per example `s = 0.1` is a Python float, which takes the dtype of the array it meets. Repeated along the
# batch it used to become a float32 array: 0.1 rounded to float32 inside a float64 computation (a relative
# error of 1e-8: a silent wrong number).
def accumulate_from_literal(x):
    s = 0.1
    for i in range(3):
        s = s * x[i] + 0.3
    return s


def literal_or_branch(x):
    s = 0.1
    if x[0] > 0:
        s = x[1] * 2.0
    return s


def stack_with_scalar(c, x):
    return jnp.stack([c, x[0]])


def loss_with_small_constant(w, x):
    return jnp.sum(jnp.tanh(x @ w) ** 2) + jnp.sum(w * w) * 0.1


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("fn,in_axes,scalar", [
    (accumulate_from_literal, 0, False),
    (literal_or_branch, 0, False),
    (stack_with_scalar, (None, 0), True),
], ids=lambda v: getattr(v, "__name__", None) if callable(v) else None)
def test_python_floats_stay_weak(fn, in_axes, scalar, dtype):
    x = X.astype(dtype)
    args = (0.1, x) if scalar else (x,)
    got = astjax.vmap(fn, in_axes=in_axes)(*args)
    want = _loop(fn, args, in_axes)
    assert np.asarray(got).dtype == dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, dtype=dtype), rtol=1e-15 if dtype == np.float64
                               else 1e-6)


def test_per_example_gradients_keep_float64_constants_exact():
    xs = RNG.normal(size=(5, 4, 3))
    ws = np.stack([W * k for k in range(1, 6)])
    g = astjax.grad(loss_with_small_constant)
    got = astjax.vmap(g)(ws, xs)
    np.testing.assert_allclose(got, np.stack([g(w, x) for w, x in zip(ws, xs)]), rtol=1e-14, atol=1e-15)


def test_jnp_stack_keeps_a_python_float_weak():
    out = jnp.stack([jnp.asarray(np.float64(1.5)), 0.1])
    assert out.dtype == np.float64 and out[1] == 0.1
    assert jnp.stack([jnp.ones(2, dtype=np.float32), np.ones(2, dtype=np.float32) * 0.1]).dtype == np.float32


# ---------------------------------------------------------------- composition
def tanh_row(x, w):
    return jnp.tanh(x @ w) * jnp.sum(x)


def dot_rows(x, y):
    return jnp.dot(x, y)


def test_nested_vmaps_with_different_in_axes():
    A = RNG.normal(size=(B, 5, 3))
    inner = astjax.vmap(tanh_row, in_axes=(0, None))
    _against_loop(inner, (A, W), (0, None))
    _against_loop(astjax.vmap(tanh_row, in_axes=(1, None)), (A.transpose(0, 2, 1).copy(), W), (0, None))
    _against_loop(inner, (A.transpose(1, 0, 2).copy(), W), (1, None))
    V = RNG.normal(size=(5, 3))
    outer = astjax.vmap(astjax.vmap(dot_rows, in_axes=(None, 0)), in_axes=(0, None))
    np.testing.assert_allclose(outer(V, V), V @ V.T, rtol=1e-12)
    transposed = astjax.vmap(astjax.vmap(dot_rows, in_axes=(0, None)), in_axes=(None, 0), out_axes=1)
    np.testing.assert_allclose(transposed(V, V), V @ V.T, rtol=1e-12)


def halve_while_large(x):
    while jnp.sum(x * x) > 0.5:
        x = x * 0.7
    return x


def double_or_negate(x):
    if jnp.sum(x) > 0:
        return x * 2.0
    return -x


@pytest.mark.parametrize("fn", [halve_while_large, double_or_negate], ids=lambda f: f.__name__)
def test_jit_of_vmap_is_vmap(fn):
    xs = RNG.normal(size=(5, 3))
    try:
        got = astjax.jit(astjax.vmap(fn))(xs)
    except AstjaxError as exc:       # a lowering jit lacks: refused, never wrong
        pytest.skip(f"jit refuses: {exc}")
    _assert_same(got, astjax.vmap(fn)(xs))
    _assert_same(got, _loop(fn, (xs,), 0))


def test_vmap_of_grad_and_grad_of_vmap_against_loops():
    xs = RNG.normal(size=(5, 4, 3))
    g = astjax.grad(loss_with_small_constant)
    _against_loop(g, (W, xs), (None, 0), rtol=1e-12)
    _against_loop(astjax.grad(loss_with_small_constant, argnums=(0, 1)), (W, xs), (None, 0))
    _against_loop(astjax.value_and_grad(loss_with_small_constant), (W, xs), (None, 0))

    def batch_loss(w, xs):
        return jnp.sum(astjax.vmap(loss_with_small_constant, in_axes=(None, 0))(w, xs))
    np.testing.assert_allclose(astjax.grad(batch_loss)(W, xs), sum(np.asarray(g(W, x)) for x in xs), rtol=1e-12)


def sum_of_controlled(w, xs):
    return jnp.sum(astjax.vmap(double_or_negate)(xs * w[0, 0])) + jnp.sum(astjax.vmap(halve_while_large)(xs * w[0, 1]))


def test_grad_of_vmap_with_batched_control_flow_against_differences():
    xs = RNG.normal(size=(5, 3))
    got = astjax.grad(sum_of_controlled)(W, xs)
    for k in (0, 1):
        step = np.zeros_like(W)
        step[0, k] = 1e-6
        fd = (float(sum_of_controlled(W + step, xs)) - float(sum_of_controlled(W - step, xs))) / 2e-6
        np.testing.assert_allclose(got[0, k], fd, rtol=1e-6)


# ---------------------------------------------------------------- *args, as grad takes them
def rnn(params, *inputs):
    h = 0.0
    for u in inputs:
        h = jnp.tanh(params[0] * h + params[1] * u)
    return jnp.sum(h)


def scaled_rest(x, *rest, scale=2.0):
    out = jnp.sum(x * scale)
    for r in rest:
        out = out + jnp.sum(r)
    return out


def test_star_args_take_in_axes_per_positional_argument():
    p, a, b = RNG.normal(size=(B, 2)), RNG.normal(size=(B, 3)), RNG.normal(size=(3, B))
    _against_loop(rnn, (p, a, b), (0, 0, 1))
    _against_loop(rnn, (jnp.asarray(p[0]), a, jnp.asarray(b[:, 0])), (None, 0, None))
    _against_loop(rnn, (p, a, b.T.copy()), 0)
    _against_loop(scaled_rest, (p, jnp.asarray(a[0]), a), (0, None, 0))
    g = astjax.grad(rnn, argnums=(0, 2))
    _against_loop(g, (p, a, b), (0, 0, 1))
    _against_loop(astjax.grad(rnn), (p, a, b), (0, 0, 1))


# ---------------------------------------------------------------- the mechanisms fixed with these attacks
def copy_then_write(x):
    y = x.copy()
    y[0] = 0.0
    y[1:] *= x[:-1]
    return jnp.sum(y ** 2) + jnp.sum(x)      # x read again: astjax checks that the copy owns its items


def pivoting_writes_in_place(A):
    A = A.copy()
    if A[0, 0] < 0:
        A[0] = -A[0]
    A[1, :] = A[1, :] - A[0, :]
    return A


def test_the_per_example_loop_runs_the_normalized_function():
    """A function vmap loops over (an `if` on a batched value) runs its normalized version, whose
    `A[i] = v` are functional updates: the user's own would write into an immutable astjax array."""
    As = RNG.normal(size=(B, 3, 3))
    _against_loop(pivoting_writes_in_place, (As,), numpy_examples=True)
    assert "pivoting_writes_in_place_example(" in astjax.source(astjax.vmap(pivoting_writes_in_place))


def test_a_guard_runs_per_example_instead_of_looping_over_the_function():
    _against_loop(copy_then_write, (X,), numpy_examples=True)
    text = astjax.source(astjax.vmap(copy_then_write))
    assert "array_holder(x[_b" in text and "_example(" not in text, text


class _Holder:
    def __init__(self, w):
        self.w = w


def item_of_held_array_written(x):
    holder = _Holder(x * 1.0)
    holder.w[0] = x[1] * 3.0
    return jnp.sum(holder.w * x)


def test_item_of_a_dict_record_written_under_vmap():
    _against_loop(item_of_held_array_written, (X,), numpy_examples=True)


def sines_until_below(w, x):
    s = 0.0
    for i in range(3):
        if x[i] * w[i] < -0.5:
            break
        s = s + jnp.sin(w[i] * x[i])
    return s


def test_per_example_gradients_where_some_examples_have_a_bare_zero_gradient():
    """vmap(grad) loops over the batch (a `break` on a batched value): an example that breaks at once
    has grad's bare `0.0` adjoint, which stands for zeros shaped like w (not a ragged batch)."""
    w = jnp.asarray(RNG.normal(size=3))
    xs = np.stack([np.ones(3), -np.ones(3) * 10.0 * np.sign(np.asarray(w)), RNG.normal(size=3)])
    _against_loop(astjax.grad(sines_until_below), (w, xs), (None, 0))
    _against_loop(astjax.grad(sines_until_below, argnums=(0, 1)), (w, xs), (None, 0))


def test_weak_floats_in_a_vmap_of_a_vmap_and_its_gradient():
    xs = RNG.normal(size=(3, 4, 3))
    inner = astjax.vmap(accumulate_from_literal)
    _against_loop(inner, (xs,), rtol=1e-15)
    _against_loop(inner, (xs.astype(np.float32),), rtol=1e-6)
    assert "stack_examples" not in astjax.source(astjax.vmap(inner))      # batched by its rule, not a loop

    def total(w):
        return jnp.sum(astjax.vmap(astjax.vmap(accumulate_from_literal))(xs * w))
    w = np.float64(1.5)
    fd = (float(total(w + 1e-6)) - float(total(w - 1e-6))) / 2e-6
    np.testing.assert_allclose(astjax.grad(total)(jnp.asarray(w)), fd, rtol=1e-7)


def test_batch_broadcast_lowering_takes_the_widest_float_of_its_likes():
    numba = pytest.importorskip("numba")
    from astjax.runtime import numba_cpu

    @numba.njit
    def repeat(value, size, a, b):
        return numba_cpu.batch_broadcast(value, size, (a, b))
    out = repeat(0.1, 3, np.ones(2), np.ones(2, dtype=np.float32))
    assert out.dtype == np.float64 and np.all(out == 0.1)
    assert repeat(0.1, 3, np.ones(2, dtype=np.float32), np.arange(2)).dtype == np.float32
    arrays = repeat(np.arange(4.0).reshape(2, 2), 3, np.ones(2), np.ones(2))
    assert arrays.shape == (3, 2, 2) and np.all(arrays[2] == np.arange(4.0).reshape(2, 2))


def computed_float(x):
    c = float(len(x)) / 7
    s = c
    for i in range(3):
        s = s + x[i]
    return jnp.stack([c * 3, s])


def literals_selected(x):
    if x[0] > 0:
        y = 0.1
    else:
        y = 0.3
    return y * x


@pytest.mark.parametrize("fn", [computed_float, literals_selected], ids=lambda f: f.__name__)
def test_python_floats_computed_or_selected_stay_weak(fn):
    _against_loop(fn, (X,), rtol=1e-15)
    _against_loop(fn, (X.astype(np.float32),), rtol=1e-6)


def test_gradient_through_batch_broadcast():
    """A repeated value that carries a derivative (an unbatched argument meeting a batched one in a
    stack) gets its adjoint summed over the batch."""
    def total(c, xs):
        return jnp.sum(astjax.vmap(stack_with_scalar, in_axes=(None, 0))(c, xs) ** 2)
    c = jnp.asarray(np.float64(0.7))
    got = astjax.grad(total)(c, X)
    fd = (float(total(c + 1e-6, X)) - float(total(c - 1e-6, X))) / 2e-6
    np.testing.assert_allclose(got, fd, rtol=1e-7)
