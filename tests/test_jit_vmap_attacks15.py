"""Red team 15: a user's None under jit, dict results under vmap, and a battery of jit/vmap attacks.

Each attack compares a transformed program with running the program itself (or a Python loop over the
batch):

- jit typed every `v = None` the function did not test or return as the type v held on the first call
  (jit/lower/typed_placeholders.py), so `v = None; if flag > 0: v = x * 2.0; return x + v` returned a
  number (or crashed in Numba) with `flag <= 0`, where Python raises TypeError; a loop that ran zero times
  returned an empty array. Only the reverse driver's tape declarations are placeholders now (marked where
  they are generated); a user's None stays None and the path raises TypeError as Python does.
- `a / b + a * b` of int16 (int8, uint8, int32) operands: jit/lower/dtypes.py read `a / b` as the
  operands' integer dtype, so narrow_integers.py wrapped the whole float sum to int16 ([714., 166.] where
  NumPy gives [714.29, 166.67]) and left `a * b` unwrapped for int8 scalars. A later call, after a first
  call whose values are whole numbers, returned it silently. `/` of integers reads as a float now.
- vmap of `return {"a": x * 2, "b": jnp.sum(x)}` looped over the batch (a dict was never a plain
  container), and jit(vmap(f)) then refused with Numba's "Poison type". A dict literal of constant keys,
  and a tuple held in one, is batched item by item now.

The default profile compiles two programs; ASTJAX_LONG_PROPERTIES=1 adds the battery (static arguments,
retracing on dtypes and weak types, globals, layouts, narrow integers, NaN in reductions, vmap's in_axes
and out_axes, size-0 and size-1 batches, nested vmap, `.at` with repeated batched indices, lax control
flow on batched predicates, jit(vmap(grad)) of a small model) (docs/testing.md).
"""
import enum
import warnings

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax import tree_util

from sampling import LONG

numba = pytest.importorskip("numba")

long_only = pytest.mark.skipif(not LONG, reason="Numba compiles: long profile (ASTJAX_LONG_PROPERTIES=1)")


def _python(fn, *args, **kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _assert_tree_close(got, expected):
    got_leaves, got_tree = tree_util.tree_flatten(got)
    expected_leaves, expected_tree = tree_util.tree_flatten(expected)
    assert got_tree == expected_tree
    for g, e in zip(got_leaves, expected_leaves):
        assert np.shape(g) == np.shape(e)
        np.testing.assert_allclose(np.asarray(g, dtype=np.float64), np.asarray(e, dtype=np.float64),
                                   rtol=1e-6, atol=1e-12, equal_nan=True)


def _stacked(outputs):
    return tree_util.tree_map(lambda *leaves: np.stack([np.asarray(v) for v in leaves]), *outputs)


# ---------------------------------------------------------------- a user's None under jit

def none_unless_flagged(x, flag):
    v = None
    if flag > 0:
        v = x * 2.0
    return x + v


def none_unless_looped(x, n):
    v = None
    for i in range(n):
        v = x * i
    return jnp.sum(x) + v


NONE_CASES = [(none_unless_flagged, 1.0, -1.0)] + ([(none_unless_looped, 3, 0)] if LONG else [])


@pytest.mark.parametrize("fn, taken, not_taken", NONE_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_a_users_none_read_as_a_number_raises_as_python_does(fn, taken, not_taken):
    x = np.array([0.0, 1.0, 2.0])
    compiled = astjax.jit(fn)
    np.testing.assert_allclose(np.asarray(compiled(x, taken)), fn(x, taken))      # the first call: v an array
    with pytest.raises(TypeError):
        fn(x, not_taken)
    with pytest.raises(TypeError):        # before: a number (an empty array, or a crash deep in Numba)
        compiled(x, not_taken)


# ---------------------------------------------------------------- a division meeting a narrow integer

def divided_plus_product(a, b):
    return a / b + a * b


NARROW_CASES = [np.int16] + ([np.int8, np.uint8, np.int32] if LONG else [])


@pytest.mark.parametrize("dtype", NARROW_CASES, ids=lambda d: d.__name__)
def test_a_division_beside_a_narrow_product_stays_a_float(dtype):
    compiled = astjax.jit(divided_plus_product)
    ones = np.array([1, 2], dtype)
    _assert_tree_close(compiled(ones, ones), divided_plus_product(ones, ones))     # whole numbers: the check passes
    a, b = np.array([100, 50], dtype), np.array([7, 3], dtype)
    # before: the whole float sum was wrapped to the operands' dtype ([714., 166.] for int16, where NumPy
    # gives [714.29, 166.67]; int8 also lost the wrap of a * b)
    _assert_tree_close(compiled(a, b), _python(divided_plus_product, a, b))
    if LONG:
        compiled = astjax.jit(divided_plus_product)
        compiled(dtype(10), dtype(5))
        _assert_tree_close(compiled(dtype(100), dtype(7)), _python(divided_plus_product, dtype(100), dtype(7)))


# ---------------------------------------------------------------- dict results under vmap

def dict_result(x):
    return {"a": x * 2, "b": jnp.sum(x)}


def nested_result(x):
    return (x * 2, {"c": jnp.sum(x), "d": (x + 1, 3.0)})


def dict_with_unbatched(x, y):
    d = {"s": jnp.sum(x * y), "k": 2.0, "y": y}
    return d


DICT_X = np.arange(6.0).reshape(2, 3)
DICT_Y = np.array([1.0, -1.0, 2.0])
DICT_CASES = [(dict_result, (DICT_X,), 0), (nested_result, (DICT_X,), 0),
              (dict_with_unbatched, (DICT_X, DICT_Y), (0, None))]


@pytest.mark.parametrize("fn, args, in_axes", DICT_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_vmap_batches_a_dict_result_item_by_item(fn, args, in_axes):
    batched = astjax.vmap(fn, in_axes=in_axes)
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    expected = _stacked([fn(*[a[b] if ax == 0 else a for a, ax in zip(args, axes)]) for b in range(2)])
    _assert_tree_close(batched(*args), expected)
    assert "once per example" not in astjax.source(batched)     # before: the whole function looped


@pytest.mark.parametrize("fn", [dict_result] + ([nested_result] if LONG else []), ids=lambda f: f.__name__)
def test_jit_of_vmap_compiles_a_dict_result(fn):
    expected = _stacked([fn(DICT_X[b]) for b in range(2)])
    _assert_tree_close(astjax.jit(astjax.vmap(fn))(DICT_X), expected)     # before: Numba's Poison type


# ---------------------------------------------------------------- the battery (long profile)

class Mode(enum.Enum):
    DOUBLE = 1
    SHIFT = 2


def by_mode(x, mode):
    if mode == Mode.DOUBLE:
        return x * 2.0
    return x - 1.0


def by_name(x, how):
    if how == "sum":
        return jnp.sum(x)
    return jnp.max(x)


def by_shape(x, shape):
    return jnp.reshape(x, shape) * 2.0


@long_only
def test_static_arguments_of_enums_strings_and_tuples_retrace():
    x = np.arange(6.0)
    compiled = astjax.jit(by_mode, static_argnums=1)
    for mode in (Mode.DOUBLE, Mode.SHIFT):
        _assert_tree_close(compiled(x, mode), by_mode(x, mode))
    compiled = astjax.jit(by_name, static_argnames="how")
    for how in ("sum", "max"):
        _assert_tree_close(compiled(x, how=how), by_name(x, how))
    compiled = astjax.jit(by_shape, static_argnums=(1,))
    for shape in ((2, 3), (3, 2)):
        _assert_tree_close(compiled(x, shape), by_shape(x, shape))


def scalar_arithmetic(a, b):
    return a / b + a * b, a // b, a % b


@long_only
def test_scalars_of_each_kind_get_their_own_signature():
    compiled = astjax.jit(scalar_arithmetic)
    for a, b in [(7, 2), (7.0, 2), (-7, 2), (np.float32(7), 2), (np.int32(-7), np.int32(2)),
                 (np.int8(-7), np.int8(2)), (np.uint8(200), np.uint8(7)), (True, 2), (7, -0.5)]:
        _assert_tree_close(compiled(a, b), _python(scalar_arithmetic, a, b))


SCALE = 2.0


def reads_a_global(x):
    return x * SCALE


@long_only
def test_a_changed_global_is_read_again():
    global SCALE
    x = np.arange(3.0)
    compiled = astjax.jit(reads_a_global)
    try:
        _assert_tree_close(compiled(x), x * 2.0)
        SCALE = 5.0
        _assert_tree_close(compiled(x), x * 5.0)        # Python's value (JAX would keep the traced 2.0)
    finally:
        SCALE = 2.0


def reductions(x):
    return jnp.sum(x), jnp.max(x), jnp.argmax(x), jnp.min(x), jnp.argmin(x), jnp.mean(x), jnp.prod(x)


@long_only
@pytest.mark.parametrize("x", [np.array([1.0, np.nan, 3.0, -np.inf]), np.array([np.nan, 1.0, 5.0, 2.0]),
                               np.array([1.0, np.inf, 3.0, -np.inf]), np.array(2.5)]
                         + [(np.arange(-3, 5) * 37).astype(d) for d in ("int8", "uint8", "bool", "int16",
                                                                        "int32", "uint32", "float32")])
def test_reductions_of_nan_inf_and_narrow_dtypes(x):
    _assert_tree_close(astjax.jit(reductions)(x), _python(reductions, x))


def integer_arithmetic(x):
    return jnp.sum(x), jnp.cumsum(x), x + x, x * x


@long_only
@pytest.mark.parametrize("x", [np.array([2**30, 2**30, 2**30], np.int32), np.array([200, 100], np.uint8),
                               np.array([100, 100], np.int8), np.array([True, False, True])])
def test_integer_wraparound_matches_numpy(x):
    _assert_tree_close(astjax.jit(integer_arithmetic)(x), _python(integer_arithmetic, x))


def elementwise(x):
    return jnp.exp(x) * 2 + jnp.sin(x) / x


@long_only
def test_layouts_zero_d_and_empty_inputs():
    A = np.arange(1.0, 13.0).reshape(3, 4)
    compiled = astjax.jit(elementwise)
    for x in (A, np.asfortranarray(A), A[::-1, ::-2], A.T, np.array(1.5), np.zeros((0, 3)), 1.5,
              np.float32(1.5)):
        _assert_tree_close(compiled(x), _python(elementwise, x))


def mixed_results(x):
    return {"s": jnp.sum(x), "a": x * 2, "t": (jnp.max(x), x[0:1])}, 3


@long_only
def test_jit_returns_mixed_containers():
    x = np.arange(6.0)
    _assert_tree_close(astjax.jit(mixed_results)(x), mixed_results(x))


def _vmap_cases():
    def affine(p, x):
        return jnp.sum(p["w"] * x) + p["b"]

    def pair(x, y):
        return x * 2, jnp.sum(y)

    def scaled(x):
        return jnp.sum(x ** 2) * x

    def dot(a, b):
        return jnp.dot(a, b)

    def add_at(z, idx, v):
        return z.at[idx].add(v)

    def branch(p, x):
        return lax.cond(p > 0, lambda v: v * 2.0, lambda v: v - 1.0, x)

    def pick(i, x):
        return lax.switch(i, [lambda v: v * 2.0, lambda v: v - 1.0, lambda v: jnp.sin(v)], x)

    def doubling(x):
        return lax.while_loop(lambda c: c[0] < 10.0, lambda c: (c[0] * 2.0 + 1.0, c[1] + 1), (x, 0))

    def grow(x, n):
        return lax.fori_loop(0, n, lambda i, c: c * 1.5 + i, x)

    def loss(w, x, y):
        h = jnp.tanh(x @ w["W"] + w["b"])
        return jnp.mean((h @ w["v"] - y) ** 2)

    rng = np.random.default_rng(0)
    X = np.arange(6.0).reshape(2, 3)
    A, B = np.arange(12.0).reshape(3, 4), np.arange(8.0).reshape(4, 2)
    w = {"W": rng.normal(size=(3, 4)), "b": rng.normal(size=4), "v": rng.normal(size=4)}
    I = np.array([[0, 0, 3], [4, 4, 4]])
    V = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    return [
        ("dict in_axes", affine, dict(in_axes=({"w": 0, "b": 0}, None)),
         ({"w": X, "b": np.array([1.0, 2.0])}, np.array([1.0, 2.0, 3.0]))),
        ("out_axes None", pair, dict(in_axes=(0, None), out_axes=(0, None)), (X, np.array([1.0, 2.0, 3.0]))),
        ("batch of one", scaled, {}, (np.ones((1, 3)),)),
        ("batch of zero", scaled, {}, (np.ones((0, 3)),)),
        ("nested", astjax.vmap(dot, in_axes=(None, 1)), dict(in_axes=(0, None)), (A, B)),
        ("at add repeats", add_at, {}, (jnp.zeros((2, 5)), I, V)),
        ("at add repeats, unbatched z", add_at, dict(in_axes=(None, 0, 0)), (jnp.zeros(5), I, V)),
        ("cond", branch, {}, (np.array([1.0, -1.0, 0.0]), np.arange(9.0).reshape(3, 3))),
        ("switch clamps", pick, {}, (np.array([0, 2, 1, 5, -1]), np.arange(10.0).reshape(5, 2))),
        ("while", doubling, {}, (np.array([0.5, 3.0, 20.0, 1.0]),)),
        ("fori batched bound", grow, {}, (np.array([0.5, 3.0, 20.0, 1.0]), np.array([0, 1, 3, 2]))),
        ("grad of a dict model", astjax.grad(loss), dict(in_axes=(None, 0, 0)),
         (w, rng.normal(size=(5, 2, 3)), rng.normal(size=(5, 2)))),
    ]


@long_only
@pytest.mark.parametrize("label, fn, options, args", _vmap_cases() if LONG else [], ids=lambda c: c if isinstance(c, str) else "")
def test_vmap_matches_a_loop(label, fn, options, args):
    in_axes = options.get("in_axes", 0)
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)

    def example(b):
        return [tree_util.tree_map(lambda leaf, axis: leaf[b] if axis == 0 else leaf, a, ax)
                if isinstance(ax, dict) else (a[b] if ax == 0 else a) for a, ax in zip(args, axes)]

    size = len(tree_util.tree_leaves(args[[ax is not None for ax in axes].index(True)])[0])
    if size == 0:
        expected = np.zeros((0,) + np.shape(args[0])[1:])
    else:
        outputs = [fn(*example(b)) for b in range(size)]
        out_axes = options.get("out_axes", 0)
        if isinstance(out_axes, tuple):       # an unbatched output: the first example's
            expected = tuple(_stacked([o[k] for o in outputs]) if ax == 0 else outputs[0][k]
                             for k, ax in enumerate(out_axes))
        else:
            expected = _stacked(outputs)
    _assert_tree_close(astjax.vmap(fn, **options)(*args), expected)
