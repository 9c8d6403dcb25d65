"""Red team 17: jit(grad) of a loop whose first call never ran one branch of an `if`, and a battery of jit/vmap attacks.

Each attack compares a transformed program with running the program itself (grad's reference backend,
central differences, or a Python loop over the batch):

- jit(grad) of `for i ...: if x[i] > 0: s = s + x[i] ** 2 else: s = s - sin(x[i])` whose first call had
  every x[i] on one side was refused ("does not agree with the reference backend: TypeError: expected
  float64, got None"): the reverse driver declares each saved value `_t1 = None`, and jit types such a
  placeholder by the value the first call saw it hold; in a branch that call never ran it saw none, so
  compiled code pushed a None onto a tape of floats. typed_placeholders now reads such a placeholder's type
  from the one expression that sets it (`_t1 = x[i]`: an item of an observed array; elementwise arithmetic
  and calls of one dtype on such values). The placeholder's value is never read: a wrong type can only be a
  refusal, never a number. Nested loops over an `if`/`elif` (a first call that never ran the `elif`) too.
- `jnp.linalg.cholesky` (upper, symmetrize_input) had no Numba lowering: jit and jit(grad) refused it. It
  has one now, and its adjoint (runtime/numba_cholesky.py), each against the reference and central differences.
- a Python int argument past 64 bits: Numba's "non-precise type pyobject" on a first call, a bare "int too
  big to convert" from the dispatcher on a later one (past int64 there). Now an OverflowError naming the
  argument and what to do (JAX refuses such an int too).
- float16 arguments: compiled code raised Numba's NotImplementedError and jit asked the user to report a
  disagreement; it now says Numba has no float16 arithmetic and to cast to float32.
- a first call that never ran a branch whose values are not that plain (`t = jnp.where(...)` there) is still
  refused, now saying why and what to do (call it first with arguments that run every branch), where it
  asked the user to report a disagreement.

The default profile compiles one derivative; ASTJAX_LONG_PROPERTIES=1 adds the other branch first, the
`elif`, the refusals, cholesky, and a battery of jit/vmap programs that agreed already (numbers at edges,
`.at` under jit, in_axes and out_axes on non-contiguous inputs, vmap(jit), jit(vmap(grad)) through lax
control flow) (docs/testing.md).
"""
import warnings

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax import tree_util
from astjax.backends.numba_cpu import JitError

from finite_differences import jit_gradient_agrees
from sampling import LONG

numba = pytest.importorskip("numba")

long_only = pytest.mark.skipif(not LONG, reason="Numba compiles: long profile (ASTJAX_LONG_PROPERTIES=1)")


# ---------------------------------------------------------------- jit(grad) of a loop over an if

def signed_squares(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s = s + x[i] ** 2
        else:
            s = s - jnp.sin(x[i])
    return s


ONE_SIDE_FIRST = [np.array([0.5, 1.5])] + ([np.array([-0.5, -1.5])] if LONG else [])


@pytest.mark.parametrize("first", ONE_SIDE_FIRST, ids=lambda x: "positive" if x[0] > 0 else "negative")
def test_jit_grad_of_a_loop_whose_first_call_took_one_branch(first):
    # before: the first call raised JitError (compiled code pushed the saved condition's None declaration)
    jit_gradient_agrees(signed_squares, [(first,), (np.array([-0.5, 1.5, -2.0, 0.25]),), (np.zeros(0),)])


def ordered_pairs(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(i):
            if x[i] > x[j]:
                s = s + x[i] * x[j]
            elif x[i] < x[j]:
                s = s - jnp.exp(x[j] - x[i])
    return s


@long_only
def test_an_elif_the_first_call_never_ran():
    # increasing: the elif never runs on the first call (before: refused, "expected float64, got None")
    jit_gradient_agrees(ordered_pairs, [(np.array([1.0, 2.0, 3.0]),), (np.array([1.0, 3.0, 2.0]),),
                                        (np.array([3.0, 2.0, 1.0]),)])


def halved_unless_far(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0:
            s = s + x[i] ** 2
        else:
            t = jnp.where(x[i] < -1.0, x[i], 0.5 * x[i])
            s = s - jnp.sin(t) * t
    return s


@long_only
def test_a_branch_the_first_call_never_ran_is_refused_with_what_to_do():
    compiled = astjax.jit(astjax.grad(halved_unless_far))
    with pytest.raises(JitError, match="never set some of them") as info:
        compiled(np.array([0.5, 1.5]))                 # the else never runs, and `t` is a where
    assert "run every branch" in str(info.value) and "please report" not in str(info.value)


def cubic_of_halves(x):
    return (x * x + 1.0) * x - x / 3.0


@long_only
def test_float16_arithmetic_is_refused_saying_so():
    # before: "does not agree with the reference backend: it raised NotImplementedError: float16 ... please report it"
    with pytest.raises(JitError, match="Numba has no float16 arithmetic") as info:
        astjax.jit(cubic_of_halves)(np.array([1.0, 2.0], np.float16))
    assert "astype(np.float32)" in str(info.value) and "please report" not in str(info.value)


def scaled_by(x, k):
    return x * k


def test_a_python_int_past_64_bits_is_refused_naming_the_argument():
    # before: Numba's "non-precise type pyobject" (a first call) or a bare "int too big to convert" from the
    # dispatcher (a later one); JAX refuses such an int too. 2 ** 63 still works as a first call (uint64).
    with pytest.raises(OverflowError, match="passed as `k` does not fit in 64 bits"):
        astjax.jit(scaled_by)(np.arange(3.0), 2 ** 70)


@long_only
def test_a_later_python_int_past_int64_is_refused_naming_the_argument():
    compiled = astjax.jit(scaled_by)
    compiled(np.arange(3.0), 2)
    with pytest.raises(OverflowError, match="passed as `k` does not fit in int64"):
        compiled(np.arange(3.0), 2 ** 63)
    np.testing.assert_allclose(astjax.jit(scaled_by)(np.arange(3.0), 2 ** 63), np.arange(3.0) * 2.0 ** 63)


# ---------------------------------------------------------------- a battery that agreed already (long profile)

def _python(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args)


def _assert_same(got, expected):
    got_leaves, got_tree = tree_util.tree_flatten(got)
    expected_leaves, expected_tree = tree_util.tree_flatten(expected)
    assert got_tree == expected_tree
    for g, e in zip(got_leaves, expected_leaves):
        g, e = np.asarray(g), np.asarray(e)
        assert g.shape == e.shape and g.dtype == e.dtype, (g, e)
        if g.dtype.kind == "f":           # a float32 var may round its last bit otherwise (within 1 ulp)
            np.testing.assert_allclose(g, e, rtol=2e-7, atol=0, equal_nan=True)
        else:                             # integers and booleans: exactly
            np.testing.assert_array_equal(g, e)


def floor_quotients(a, b):
    return a // b, a % b, jnp.floor_divide(a, b), jnp.remainder(a, b)


def rounded(x):
    return jnp.round(x), jnp.round(x, 1), jnp.round(x[0])


def narrow_edges(a):
    return -a, jnp.abs(a), a ** 3, a - 1


def ties_and_nans(x):
    return jnp.argmax(x), jnp.argmin(x), jnp.sort(x), jnp.argsort(x)


def integer_reductions(a):
    return jnp.cumsum(a), jnp.mean(a), jnp.var(a, ddof=1)


def set_at(x, i, v):
    return x.at[i].set(v)


def float_steps(a, b, s):
    return jnp.arange(a, b, s) * 2.0


i32, f32 = (lambda *v: np.array(v, np.int32)), (lambda *v: np.array(v, np.float32))
EXACT = [
    (floor_quotients, [(i32(7, 8, 9), i32(2, 3, 4)), (i32(-7, 7, -9), i32(2, -3, -4)), (i32(-7, 7, 5), i32(0, 0, -1))]),
    (floor_quotients, [(f32(7, 8, 9), f32(2, 3, 4)), (f32(-7, 7, -9.5, -0.0), f32(2, -3, -4, 3))]),
    (rounded, [(f32(0.25, 1.3),), (f32(0.5, 1.5, 2.5, -0.5, -2.5, 0.45, 0.35, 15.0),)]),
    (narrow_edges, [(np.array([1, -2], np.int8),), (np.array([-128, 127, 7], np.int8),)]),
    (narrow_edges, [(np.array([1, 2], np.uint8),), (np.array([0, 255, 7], np.uint8),)]),
    (ties_and_nans, [(f32(1, 3, 2),), (f32(3, 1, 3, 1),), (f32(1, np.nan, 3, np.nan, -0.0, 0.0),)]),
    (integer_reductions, [(i32(1, 2, 4),), (i32(2 ** 30, 2 ** 30, 2 ** 30),)]),
    (integer_reductions, [(np.array([True, False]),), (np.array([True, True, True]),)]),
    (set_at, [(jnp.arange(5.0), 1, 9.0), (jnp.arange(5.0), -2, 9.0), (jnp.arange(5.0), 5, 9.0),
              (jnp.arange(5.0), -6, 9.0)]),
]


@long_only
@pytest.mark.parametrize("fn, calls", EXACT, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(EXACT)])
def test_jit_gives_numpys_numbers_on_later_calls(fn, calls):
    compiled = astjax.jit(fn)
    for call in calls:                # the first call is checked; the later ones run compiled code alone
        _assert_same(compiled(*call), _python(fn, *call))


def _loop(fn, args, in_axes, out_axes=0):
    size = [np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None][0]
    outs = [fn(*[a if ax is None else jnp.asarray(np.take(np.asarray(a), b, axis=ax))
                 for a, ax in zip(args, in_axes)]) for b in range(size)]
    return tree_util.tree_map(lambda *leaves: np.stack([np.asarray(v) for v in leaves], axis=out_axes), *outs)


def sums_and_doubles(x):
    return jnp.sum(x * x), x * 2.0, 1.0


def running_differences(x):
    return jnp.cumsum(x, axis=-1)[..., -1], x[1:] - x[:-1], jnp.sort(x, axis=0)


def updated_rows(x):
    return x.at[0].set(x[-1]), x.at[:, 1].add(1.0), x.at[-1, -1].multiply(3.0)


_RNG = np.random.default_rng(17)
_CUBE = np.transpose(_RNG.standard_normal((4, 5, 3)).astype(np.float32), (2, 0, 1))    # not contiguous
VMAPS = [(sums_and_doubles, 0, 0), (sums_and_doubles, -1, -1), (running_differences, 2, 1),
         (running_differences, 0, -1), (updated_rows, 1, 0)]


@long_only
@pytest.mark.parametrize("fn, in_axis, out_axis", VMAPS, ids=[f"{c[0].__name__}-{c[1]}-{c[2]}" for c in VMAPS])
def test_vmap_and_jit_of_vmap_on_strided_inputs_match_the_loop(fn, in_axis, out_axis):
    x = jnp.asarray(_CUBE)
    expected = _loop(fn, (x,), (in_axis,), out_axis)
    batched = astjax.vmap(fn, in_axes=in_axis, out_axes=out_axis)
    for transformed in (batched, astjax.jit(batched), astjax.vmap(astjax.jit(fn), in_axes=in_axis, out_axes=out_axis)):
        for _ in range(2):                     # the second call runs compiled code alone
            got = transformed(x)
            tree_util.tree_map(lambda g, e: np.testing.assert_allclose(np.asarray(g), e, rtol=1e-6, atol=1e-6),
                               got, expected)


def through_while(w, x):
    def cond(s):
        return s[0] < x.shape[0]

    def body(s):
        return (s[0] + 1, s[1] + jnp.cos(w * x[s[0]]) * s[1])
    return lax.while_loop(cond, body, (0, w))[1]


def through_scan(w, x):
    def step(c, xi):
        return c * jnp.tanh(w + xi), c * xi
    c, ys = lax.scan(step, 1.0, x)
    return c + jnp.sum(ys)


def through_cond(w, x):
    return lax.cond(w > 0.0, lambda a: jnp.sum(jnp.sin(a * x)), lambda a: jnp.sum(a * a * x), w)


def through_switch(w, x):
    i = jnp.clip(jnp.int32(w * 2.0), 0, 2)
    return lax.switch(i, [lambda a: a * jnp.sum(x), lambda a: jnp.sum(jnp.exp(a * x)), lambda a: a ** 3], w)


@long_only
@pytest.mark.parametrize("fn", [through_while, through_scan, through_cond, through_switch],
                         ids=lambda f: f.__name__)
def test_jit_vmap_grad_through_lax_control_flow_matches_the_loop(fn):
    w, x = np.array([-0.7, 0.2, 0.6, 1.3]), np.array([0.3, -0.5, 0.9])
    compiled = astjax.jit(astjax.vmap(astjax.grad(fn), in_axes=(0, None)))
    for ws in (w, w[::-1].copy()):
        expected = np.array([astjax.grad(fn)(v, x) for v in ws])
        np.testing.assert_allclose(np.asarray(compiled(ws, x)), expected, rtol=1e-10, atol=1e-12)
        steps = np.array([(fn(v + 1e-6, x) - fn(v - 1e-6, x)) / 2e-6 for v in ws])
        np.testing.assert_allclose(expected, steps, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- jnp.linalg.cholesky under jit and jit(grad)

def whitened_norm(a, b):
    factor = jnp.linalg.cholesky(a)
    z = jnp.linalg.solve(factor, b)
    return jnp.sum(z * z) + jnp.sum(jnp.log(jnp.diagonal(factor)))


def upper_factor_sines(a):
    return jnp.sum(jnp.sin(jnp.linalg.cholesky(a, upper=True)))


def lower_triangle_read(a):
    factor = jnp.linalg.cholesky(a, symmetrize_input=False)
    return jnp.sum(factor * factor * jnp.arange(3.0))


def upper_triangle_read(a):
    return jnp.sum(jnp.cos(jnp.linalg.cholesky(a, upper=True, symmetrize_input=False)))


_M = _RNG.standard_normal((3, 3))
_SPD = _M @ _M.T + 3.0 * np.eye(3)
_NOT_SYMMETRIC = _SPD + 0.3 * _RNG.standard_normal((3, 3))      # the flags choose what is factored
CHOLESKY_CASES = [(whitened_norm, (_SPD, _RNG.standard_normal(3))), (upper_factor_sines, (_SPD,)),
                  (lower_triangle_read, (_NOT_SYMMETRIC,)), (upper_triangle_read, (_NOT_SYMMETRIC,))]


@long_only          # 5-6 CPU seconds each: Numba types LAPACK's solve and cholesky
@pytest.mark.parametrize("fn, args", CHOLESKY_CASES, ids=[c[0].__name__ for c in CHOLESKY_CASES])
def test_jit_and_jit_grad_of_cholesky(fn, args):
    # before: "jit has no Numba lowering for `cholesky` yet" (runtime/numba_cholesky.py)
    later = (args[0] * 2.0,) + args[1:]
    compiled = astjax.jit(fn)
    for call in (args, later):
        np.testing.assert_allclose(np.asarray(compiled(*call)), fn(*call), rtol=1e-12)
    jit_gradient_agrees(fn, [args, later])


@long_only
def test_cholesky_of_a_matrix_not_positive_definite_raises_under_jit_too():
    compiled = astjax.jit(upper_factor_sines)
    compiled(_SPD)
    with pytest.raises(np.linalg.LinAlgError):
        upper_factor_sines(-_SPD)
    with pytest.raises(np.linalg.LinAlgError):       # the later call runs compiled code alone
        compiled(-_SPD)
