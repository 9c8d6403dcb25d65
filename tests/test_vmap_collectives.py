"""Collectives over a named vmap axis (`lax.psum(x, 'i')`, ...), against a Python loop over the batch
and against JAX's semantics; grad through them; pmap's; out_axes=None inside containers."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import grad, lax, pmap, vmap

RNG = np.random.default_rng(7)


# ------------------------------------------------------------------ programs
def centered(x):
    return x - lax.pmean(x, "i")


def normalized(x):
    return x / lax.psum(x, "i")


def all_four(x):
    return lax.psum(x, "i") + 10.0 * lax.pmean(x, "i") + 100.0 * lax.pmax(x, "i") + 1000.0 * lax.pmin(x, "i")


def scaled_by_unbatched(x, c):
    return x * lax.psum(c, "i") + lax.pmax(c, "i")


def batch_size_idiom(x):
    return x / lax.psum(1, "i")


def with_index(x):
    return x * lax.axis_index("i")


def gather0(x):
    return lax.all_gather(x, "i")


def gather1(x):
    return lax.all_gather(x, "i", axis=1)


def gather_tiled(x):
    return lax.all_gather(x, "i", tiled=True)


def gather_unbatched(x, c):
    return x + jnp.sum(lax.all_gather(c, "i"))


def scatter(x):
    return lax.psum_scatter(x, "i")


def scatter_tiled(x):
    return lax.psum_scatter(x, "i", tiled=True)


def tree_sum(a, b):
    s = lax.psum((a, b), "i")
    return s[0] * s[1]


def nested(x):
    a = lax.psum(x, "i")
    b = lax.psum(x, "j")
    c = lax.psum(x, ("i", "j"))
    d = lax.pmax(x, ("j", "i"))
    return a + 10.0 * b + 100.0 * c + 1000.0 * d


def nested_index(x):
    return x + 10.0 * lax.axis_index("i") + lax.axis_index("j")


def unknown_name(x):
    return lax.psum(x, "k")


def branchy(x):
    if x > 0:
        y = lax.psum(x, "i")
    else:
        y = x * 2.0
    return y


def psum_value(x):
    return lax.psum(x, "i")


def psum_square(x):
    return lax.psum(x * x, "i")


def pmean_square(x):
    return lax.pmean(x * x, "i")


def gathered_energy(x):
    return jnp.sum(lax.all_gather(x, "i") ** 2)


def scattered_cubes(x):
    return jnp.sum(lax.psum_scatter(x, "i") ** 3)


def gathered_tiled_cubes(x):
    return jnp.sum(lax.all_gather(x, "i", axis=1, tiled=True) ** 3)


def pmax_value(x):
    return lax.pmax(x, "i")


def weighted(w, x):
    return x * lax.psum(w * x, "i")


def total_weighted(w, xs):
    return jnp.sum(vmap(weighted, in_axes=(None, 0), axis_name="i")(w, xs))


def softmax_across(x):
    e = jnp.exp(x - lax.pmax(x, "i"))
    return e / lax.psum(e, "i")


def loss_of_softmax(w, xs):
    return jnp.sum(vmap(softmax_across, axis_name="i")(w * xs) ** 2)


def with_aux_outputs(x, w):
    return (x * w, (w * 2.0, x)), {"a": w, "b": x + 1.0}


# ------------------------------------------------------------------ values against a loop over the batch
def _close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape", [(4,), (4, 3), (4, 2, 3)])
def test_reductions_over_the_batch(shape):
    x = RNG.normal(size=shape)
    _close(vmap(centered, axis_name="i")(x), x - x.mean(0))
    _close(vmap(normalized, axis_name="i")(x), x / x.sum(0))
    _close(vmap(all_four, axis_name="i")(x),
           np.broadcast_to(x.sum(0) + 10 * x.mean(0) + 100 * x.max(0) + 1000 * x.min(0), shape))


def test_mapped_axis_other_than_zero_and_out_axes():
    x = RNG.normal(size=(3, 5))
    _close(vmap(centered, in_axes=1, out_axes=1, axis_name="i")(x), x - x.mean(1, keepdims=True))


def test_unbatched_operands():
    """psum of an unbatched value is value * axis size; pmax of it is itself (JAX's rules)."""
    x, c = RNG.normal(size=5), 1.5
    _close(vmap(scaled_by_unbatched, in_axes=(0, None), axis_name="i")(x, c), x * c * 5 + c)
    _close(vmap(batch_size_idiom, axis_name="i")(x), x / 5)


def test_axis_index():
    x = RNG.normal(size=(4, 2))
    _close(vmap(with_index, axis_name="i")(x), x * np.arange(4)[:, None])


def test_all_gather():
    x = RNG.normal(size=(3, 2))
    _close(vmap(gather0, axis_name="i")(x), np.broadcast_to(x, (3, 3, 2)))
    _close(vmap(gather1, axis_name="i")(x), np.broadcast_to(x.T, (3, 2, 3)))
    _close(vmap(gather_tiled, axis_name="i")(x), np.broadcast_to(x.reshape(-1), (3, 6)))
    c = RNG.normal(size=2)
    _close(vmap(gather_unbatched, in_axes=(0, None), axis_name="i")(x, c), x + 3 * c.sum())


def test_psum_scatter():
    x = RNG.normal(size=(3, 3, 2))
    _close(vmap(scatter, axis_name="i")(x), x.sum(0))
    y = RNG.normal(size=(3, 6))
    _close(vmap(scatter_tiled, axis_name="i")(y), y.sum(0).reshape(3, 2))
    with pytest.raises(ValueError, match="must equal the size of the named axis"):
        vmap(scatter, axis_name="i")(RNG.normal(size=(3, 4)))


def test_psum_of_a_tuple():
    a, b = RNG.normal(size=4), RNG.normal(size=(4, 2))
    _close(vmap(tree_sum, axis_name="i")(a, b), np.broadcast_to(a.sum() * b.sum(0), (4, 2)))


def test_nested_vmaps_and_tuples_of_axis_names():
    x = RNG.normal(size=(2, 3))
    expected = (x.sum(0, keepdims=True) + 10 * x.sum(1, keepdims=True) + 100 * x.sum() + 1000 * x.max()
                + 0 * x)
    _close(vmap(vmap(nested, axis_name="j"), axis_name="i")(x), expected)
    _close(vmap(vmap(nested_index, axis_name="j"), axis_name="i")(x),
           x + 10 * np.arange(2)[:, None] + np.arange(3)[None, :])


def test_unknown_axis_name_is_named():
    with pytest.raises(astjax.errors.AstjaxError, match="unbound axis name: 'k'") as info:
        vmap(unknown_name, axis_name="i")(np.ones(3))
    assert "test_vmap_collectives.py" in str(info.value)
    with pytest.raises(NameError, match="unbound axis name: 'i'"):
        vmap(psum_value)(np.ones(3))        # no axis_name at all


def test_collective_in_a_loop_over_examples_is_refused():
    with pytest.raises(astjax.errors.AstjaxError, match="collective reads every example") as info:
        vmap(branchy, axis_name="i")(np.array([1.0, -2.0, 3.0]))
    assert "test_vmap_collectives.py" in str(info.value)


# ------------------------------------------------------------------ derivatives (JAX's values)
def test_per_example_gradients_follow_jax():
    """vmap(grad(f)) with a collective in f: psum is its own transpose, as in JAX (these are JAX 0.10's
    numbers for xs = [1, 2, 3])."""
    xs = np.arange(1.0, 4.0)
    _close(vmap(grad(psum_value), axis_name="i")(xs), [3.0, 3.0, 3.0])
    _close(vmap(grad(psum_square), axis_name="i")(xs), [6.0, 12.0, 18.0])
    _close(vmap(grad(pmean_square), axis_name="i")(xs), [2.0, 4.0, 6.0])
    _close(vmap(grad(gathered_energy), axis_name="i")(xs), [6.0, 12.0, 18.0])


def test_psum_scatter_and_all_gather_transpose_each_other():
    """The adjoint of psum_scatter is all_gather: example b's gradient of sum(psum_scatter(x)^3) is every
    example's 3 s^2, s the column sums."""
    x = RNG.normal(size=(3, 3))
    _close(vmap(grad(scattered_cubes), axis_name="i")(x), np.broadcast_to(3 * x.sum(0) ** 2, (3, 3)))


def test_pmax_has_no_derivative():
    with pytest.raises(astjax.errors.AstjaxError, match="pmax"):
        vmap(grad(pmax_value), axis_name="i")(np.ones(3))


def test_grad_of_a_vmap_with_collectives():
    xs = np.arange(1.0, 4.0)
    _close(grad(total_weighted)(2.0, xs), xs.sum() ** 2)      # f(w) = w * (sum xs)^2
    xs = RNG.normal(size=5)
    w = 0.7
    h = 1e-6
    numeric = (loss_of_softmax(w + h, xs) - loss_of_softmax(w - h, xs)) / (2 * h)
    np.testing.assert_allclose(grad(loss_of_softmax)(w, xs), numeric, rtol=1e-6)
    e = np.exp(w * xs - (w * xs).max())
    _close(loss_of_softmax(w, xs), np.sum((e / e.sum()) ** 2))


def test_pmap_collectives():
    x = np.array([[2.0, 4.0]])
    _close(pmap(normalized, axis_name="i")(x), [[1.0, 1.0]])
    _close(pmap(with_index, axis_name="i")(x), [[0.0, 0.0]])


# ------------------------------------------------------------------ out_axes=None inside containers
def test_out_axes_none_nested_in_containers():
    xs, w = np.arange(3.0).reshape(3, 1), np.float64(2.0)
    (a, (b, c)), d = vmap(with_aux_outputs, in_axes=(0, None),
                          out_axes=((0, (None, 1)), {"a": None, "b": 0}))(xs, w)
    _close(a, xs * 2.0)
    _close(b, 4.0)
    _close(c, xs.T)
    _close(d["a"], 2.0)
    _close(d["b"], xs + 1.0)
    with pytest.raises(ValueError, match="mapped output but out_axes is None"):
        vmap(with_aux_outputs, in_axes=(0, None), out_axes=((0, (None, None)), {"a": None, "b": 0}))(xs, w)


# ------------------------------------------------------------------ against JAX itself
def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jlax = jax.lax
    x = RNG.normal(size=(4, 3))
    ours = vmap(all_four, axis_name="i")(x)
    theirs = jax.vmap(lambda v: jlax.psum(v, "i") + 10.0 * jlax.pmean(v, "i") + 100.0 * jlax.pmax(v, "i")
                      + 1000.0 * jlax.pmin(v, "i"), axis_name="i")(x)
    _close(ours, theirs)
    _close(vmap(gather1, axis_name="i")(x), jax.vmap(lambda v: jlax.all_gather(v, "i", axis=1), axis_name="i")(x))
    _close(vmap(gather_tiled, axis_name="i")(x),
           jax.vmap(lambda v: jlax.all_gather(v, "i", tiled=True), axis_name="i")(x))
    _close(vmap(grad(scattered_cubes), axis_name="i")(x[:3, :3].T),
           jax.vmap(jax.grad(lambda v: jax.numpy.sum(jlax.psum_scatter(v, "i") ** 3)), axis_name="i")(x[:3, :3].T))
    y = RNG.normal(size=(3, 2, 2))
    _close(vmap(grad(gathered_tiled_cubes), axis_name="i")(y),
           jax.vmap(jax.grad(lambda v: jax.numpy.sum(jlax.all_gather(v, "i", axis=1, tiled=True) ** 3)),
                    axis_name="i")(y))
    _close(vmap(grad(gathered_energy), axis_name="i")(x[:, 0]),
           jax.vmap(jax.grad(lambda v: jax.numpy.sum(jlax.all_gather(v, "i") ** 2)), axis_name="i")(x[:, 0]))


# ------------------------------------------------------------------ an operand named like an integer parameter
def comb_times(n, k, z):
    return astjax.scipy.special.comb(n, k) * z


def test_comb_k_operand_keeps_its_rank_under_vmap():
    """comb(N, k)'s `k` is an array operand: with a per-example scalar N and a vector k, the result is a
    vector, and a per-example scalar z multiplying it must line up with the batch axis (a batch of 4 and
    vectors of 4 would broadcast the wrong way if the result's rank were read from N alone)."""
    import astjax.scipy.special  # noqa: F401
    rng = np.random.default_rng(5)
    n, k, z = rng.uniform(4.0, 8.0, size=4), rng.uniform(0.5, 3.5, size=(4, 4)), rng.normal(size=4)
    want = np.stack([np.asarray(comb_times(n[b], k[b], z[b])) for b in range(4)])
    _close(vmap(comb_times)(n, k, z), want)
    _close(vmap(comb_times, in_axes=(None, 0, 0))(n[0], k, z),
           np.stack([np.asarray(comb_times(n[0], k[b], z[b])) for b in range(4)]))


# ------------------------------------------------------------------ under jit
def sum_of_centered_squares(xs):
    return jnp.sum(vmap(centered, axis_name="i")(xs) ** 2)


def test_jit_of_vmap_with_collectives():
    x = RNG.normal(size=(4, 3))
    for fun in (centered, with_index, all_four):
        _close(astjax.jit(vmap(fun, axis_name="i"))(x), vmap(fun, axis_name="i")(x))
    _close(astjax.jit(sum_of_centered_squares)(x), np.sum((x - x.mean(0)) ** 2))
    assert np.asarray(vmap(with_index, axis_name="i")(np.ones(3, np.int32))).dtype == np.int32    # JAX's int32


# ------------------------------------------------------------------ collectives inside called functions
def _share(x):
    return x / lax.psum(x, "i")


def calls_share(x):
    return _share(x) * 2.0


def _total(c):
    return lax.psum(c, "i")


def calls_total_unbatched(x, c):
    return x * _total(c)


def test_collective_in_a_callee():
    x = np.arange(1.0, 4.0)
    _close(vmap(calls_share, axis_name="i")(x), 2 * x / x.sum())
    with pytest.raises(astjax.errors.AstjaxError, match="no batched argument") as info:
        vmap(calls_total_unbatched, in_axes=(0, None), axis_name="i")(x, 2.0)
    assert "test_vmap_collectives.py" in str(info.value)


def _pair_of(x):
    return x, x * 2.0


def psum_of_a_callee_result(x):
    t = _pair_of(x)
    return lax.psum(t, "i")[1]


def test_psum_of_a_value_of_unknown_kind_is_never_summed_as_an_array():
    """A tuple returned by a callee is summed item by item, or refused: never stacked into one array and
    summed over its items."""
    x = np.arange(1.0, 4.0)
    try:
        out = vmap(psum_of_a_callee_result, axis_name="i")(x)
    except astjax.errors.AstjaxError as exc:
        assert "tuple" in str(exc)
    else:
        _close(out, np.full(3, 2 * x.sum()))
