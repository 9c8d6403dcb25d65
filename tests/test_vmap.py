"""vmap: every batching rule against a Python loop over the batch, compositions, fallbacks, errors."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import grad, vmap

import vmap_cases as cases

RNG = np.random.default_rng(0)
BATCH = 3


def example_args(shapes, in_axes, dtype, batch=BATCH):
    """Batched arguments for `shapes` (per example) mapped as `in_axes` says."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(shapes)
    args = []
    for shape, axis in zip(shapes, axes):
        full = shape if axis is None else shape[:axis % (len(shape) + 1)] + (batch,) + shape[axis % (len(shape) + 1):]
        args.append(jnp.asarray((RNG.normal(size=full) * 0.7 + 0.1).astype(dtype)))
    return args, axes


def loop_reference(fun, args, axes, out_axes=0, batch=BATCH):
    """What vmap must give: the function run once per example, the results stacked at out_axes."""
    results = []
    for b in range(batch):
        example = [a if ax is None else jnp.asarray(np.take(a, b, axis=ax)) for a, ax in zip(args, axes)]
        results.append(fun(*example))
    if isinstance(results[0], tuple):
        return tuple(np.stack([np.asarray(r[i]) for r in results], axis=out_axes) for i in range(len(results[0])))
    return np.stack([np.asarray(r) for r in results], axis=out_axes)


def close(actual, expected, dtype):
    tol = 1e-5 if dtype == np.float32 else 1e-11
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            close(a, e, dtype)
        return
    assert np.shape(actual) == np.shape(expected), (np.shape(actual), np.shape(expected))
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,fun,shapes,in_axes", cases.RULE_CASES, ids=[c[0] for c in cases.RULE_CASES])
def test_rule_against_loop(name, fun, shapes, in_axes, dtype):
    args, axes = example_args(shapes, in_axes, dtype)
    expected = loop_reference(fun, args, axes)
    batched = vmap(fun, in_axes=in_axes)
    actual = batched(*args)
    close(actual, expected, dtype)
    for a, e in zip(actual if isinstance(actual, tuple) else (actual,), expected if isinstance(expected, tuple)
                    else (expected,)):
        assert np.asarray(a).dtype == np.asarray(e).dtype, (np.asarray(a).dtype, np.asarray(e).dtype)
    assert "_example(" not in astjax.source(batched), "a rule case must not loop over the whole function"


@pytest.mark.parametrize("name,fun,shapes,in_axes", cases.RULE_CASES, ids=[c[0] for c in cases.RULE_CASES])
def test_rule_source_without_ranks(name, fun, shapes, in_axes):
    """The source another transformation reads is built before any argument is seen: still right."""
    args, axes = example_args(shapes, in_axes, np.float64)
    expected = loop_reference(fun, args, axes)
    twice = vmap(vmap(fun, in_axes=in_axes), in_axes=tuple(None for _ in args))
    with pytest.raises(ValueError, match="at least one non-None"):
        twice(*args)
    inner = vmap(fun, in_axes=in_axes)
    outer = vmap(lambda *a: inner(*a), in_axes=None, axis_size=2) if False else None
    wrapped = vmap(inner, in_axes=tuple(0 if ax is not None else None for ax in axes))
    stacked = [np.stack([a, a * 0.5]) if ax is not None else a for a, ax in zip(args, axes)]
    result = wrapped(*stacked)
    second = loop_reference(fun, [np.asarray(s)[1] if ax is not None else s for s, ax in zip(stacked, axes)], axes)
    close(result[0] if not isinstance(result, tuple) else tuple(r[0] for r in result), expected, np.float64)
    close(result[1] if not isinstance(result, tuple) else tuple(r[1] for r in result), second, np.float64)


@pytest.mark.parametrize("in_axes,out_axes", [(1, 0), (-1, 1), (0, -1), ((1, None), 1)])
def test_in_axes_and_out_axes(in_axes, out_axes):
    x = RNG.normal(size=(4, BATCH, 2)) if in_axes in (1, (1, None)) else RNG.normal(size=(4, 2, BATCH))
    if in_axes == 0:
        x = RNG.normal(size=(BATCH, 4, 2))
    axis = in_axes[0] if isinstance(in_axes, tuple) else in_axes
    w = RNG.normal(size=(2,))
    fun = (lambda x, w: jnp.tanh(x * w)) if isinstance(in_axes, tuple) else (lambda x: jnp.tanh(x) * 2.0)
    args = (x, w) if isinstance(in_axes, tuple) else (x,)
    out = vmap(fun, in_axes=in_axes, out_axes=out_axes)(*args)
    expected = np.stack([fun(*([np.take(x, b, axis=axis)] + list(args[1:]))) for b in range(BATCH)], axis=out_axes)
    close(out, expected, np.float64)


def test_pytree_in_axes_and_out_axes():
    params = {"w": RNG.normal(size=(BATCH, 3)), "b": RNG.normal(size=())}
    x = RNG.normal(size=(3, BATCH))

    def f(p, x):
        return p["w"] * x + p["b"], jnp.sum(x)
    out = vmap(f, in_axes=({"w": 0, "b": None}, 1), out_axes=(1, 0))(params, x)
    expected = [f({"w": params["w"][b], "b": params["b"]}, x[:, b]) for b in range(BATCH)]
    close(out[0], np.stack([e[0] for e in expected], axis=1), np.float64)
    close(out[1], np.stack([e[1] for e in expected]), np.float64)


def test_tuple_argument_and_unbatched_output():
    p = (RNG.normal(size=(BATCH, 3)), RNG.normal(size=BATCH))
    x = RNG.normal(size=3)
    out = vmap(cases.tuple_argument, in_axes=(0, None))(p, x)
    close(out, np.stack([cases.tuple_argument((p[0][b], p[1][b]), x) for b in range(BATCH)]), np.float64)
    xs, w = RNG.normal(size=(BATCH, 3)), RNG.normal(size=2)
    total, doubled = vmap(cases.unbatched_output, in_axes=(0, None), out_axes=(0, None))(xs, w)
    close(total, xs.sum(axis=1), np.float64)
    close(doubled, w * 2.0, np.float64)


def test_matvec_is_one_matrix_product():
    batched = vmap(cases.dot_matrix_vector, in_axes=(None, 0))
    m, vs = RNG.normal(size=(6, 4)), RNG.normal(size=(5, 4))
    close(batched(m, vs), vs @ m.T, np.float64)
    text = astjax.source(batched)
    assert text.count("@") == 1 and "for " not in text and "jnp.transpose(" in text, text
    inner = vmap(lambda v: jnp.dot(m, v))
    close(inner(vs), vs @ m.T, np.float64)


def test_nested_vmap():
    x = RNG.normal(size=(2, 3, 4))
    w = RNG.normal(size=4)
    f = vmap(vmap(cases.helper, in_axes=(0, None)), in_axes=(0, None))
    close(f(x, w), np.sin(x) * w, np.float64)
    g = vmap(vmap(cases.dot_vector_vector, in_axes=(0, None)), in_axes=(None, 0))
    a, b = RNG.normal(size=(3, 4)), RNG.normal(size=(5, 4))
    close(g(a, b), b @ a.T, np.float64)
    h = vmap(vmap(cases.reductions))
    y = RNG.normal(size=(2, 3, 2, 2))
    close(h(y), np.stack([np.stack([cases.reductions(y[i, j]) for j in range(3)]) for i in range(2)]), np.float64)


def test_per_example_gradients_against_loop_of_grads():
    params = ((RNG.normal(size=(3, 5)), RNG.normal(size=5)), (RNG.normal(size=(5, 2)), RNG.normal(size=2)))
    xs, ys = RNG.normal(size=(7, 3)), RNG.normal(size=(7, 2))
    per_example = vmap(grad(cases.mlp_loss), in_axes=(None, 0, 0))(params, xs, ys)
    loop = [grad(cases.mlp_loss)(params, xs[b], ys[b]) for b in range(7)]
    for i in range(2):
        for j in range(2):
            close(per_example[i][j], np.stack([g[i][j] for g in loop]), np.float64)
    text = astjax.source(vmap(grad(cases.mlp_loss), in_axes=(None, 0, 0)))
    assert "_example(" not in text


def test_per_example_gradient_simple():
    w = np.ones(4)
    xs = RNG.normal(size=(6, 4))
    g = vmap(grad(cases.scalar_loss), in_axes=(None, 0))(w, xs)
    close(g, xs * (1 - np.tanh(xs) ** 2), np.float64)


def numeric_grad(f, w, eps=1e-6):
    g = np.zeros_like(w)
    for index in np.ndindex(w.shape):
        plus, minus = w.copy(), w.copy()
        plus[index] += eps
        minus[index] -= eps
        g[index] = (float(f(plus)) - float(f(minus))) / (2 * eps)
    return g


def test_grad_of_vmap_against_finite_differences():
    xs = RNG.normal(size=(5, 3))
    w = RNG.normal(size=3)

    def total(w):
        return jnp.sum(vmap(cases.batched_model, in_axes=(None, 0))(w, xs))
    np.testing.assert_allclose(grad(total)(w), numeric_grad(total, w), rtol=1e-6, atol=1e-8)

    def total_dot(w):
        return jnp.sum(vmap(cases.dot_vector_vector, in_axes=(None, 0))(w, xs) ** 2)
    np.testing.assert_allclose(grad(total_dot)(w), numeric_grad(total_dot, w), rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ fallbacks
@pytest.mark.parametrize("fun,shapes,in_axes", [
    (cases.newton_sqrt, [()], 0),
    (cases.branch_may_raise, [()], 0),
    (cases.no_rule, [(3,)], 0),
    (cases.shape_from_batched, [(2, 3)], 0),
    (cases.at_batched_index, [(4,), ()], (0, 0)),
    (cases.update_unbatched_with_batched, [(), ()], (0, 0)),
    (cases.closure_over_global, [(3,)], 0),
    (cases.closure_over_batched, [(3,)], 0),
    (cases.list_accumulate, [(2,)], 0),
    (cases.batched_index_into_table, [()], 0),
    (cases.batched_index_into_batched, [(5,), ()], (0, 0)),
], ids=["while_trip_count", "if_raise_prone", "no_rule", "shape_from_batched", "at_batched_index",
        "update_unbatched_with_batched", "closure", "closure_batched", "list_accumulate", "batched_index_table",
        "batched_index_batched"])
def test_fallbacks_and_adversarial_against_loop(fun, shapes, in_axes):
    args, axes = example_args(shapes, in_axes, np.float64)
    if fun is cases.newton_sqrt:
        args = [np.abs(args[0]) + 0.5]
    if fun in (cases.at_batched_index, cases.update_unbatched_with_batched, cases.batched_index_into_table,
               cases.batched_index_into_batched):
        args[-1] = RNG.integers(0, 4, size=BATCH)
    if fun is cases.branch_may_raise:
        args = [np.array([3, 12, 7])]
    expected = loop_reference(fun, args, axes)
    close(vmap(fun, in_axes=in_axes)(*args), expected, np.float64)


def test_fallback_sources_loop_over_the_batch():
    ns = np.array([6, 1, 27])
    f = vmap(cases.collatz_length)
    np.testing.assert_array_equal(f(ns), [cases.collatz_length(int(n)) for n in ns])
    assert "collatz_length_example(" in astjax.source(f) and "for _b" in astjax.source(f)
    assert "for _b" in astjax.source(_built(vmap(cases.no_rule), np.ones((2, 3))))


def test_while_on_batched_scalar_is_masked():
    """Newton iterations per example: one loop while any example is not done, jnp.where keeps the rest."""
    a = np.array([1.0, 2.0, 9.0, 0.25, 1e4])
    f = vmap(cases.newton_sqrt)
    close(f(a), np.sqrt(a), np.float64)
    text = astjax.source(f)
    assert "jnp.any(" in text and "_example(" not in text and "for _b" not in text, text
    total = lambda a: jnp.sum(vmap(cases.newton_sqrt)(a))       # noqa: E731
    per_example = [grad(cases.newton_sqrt)(x) for x in a]      # at a = 1 the loop never runs: d/da a = 1
    np.testing.assert_allclose(grad(total)(a), per_example, rtol=1e-6)


def _built(fn, *args):
    fn(*args)
    return fn


def test_batched_loop_bound_is_a_loop_over_the_batch():
    ns = np.array([1, 3, 0])
    xs = RNG.normal(size=3)
    out = vmap(cases.loop_over_batched_count)(ns, xs)
    close(out, xs + ns, np.float64)


def test_if_on_unbatched_value_stays():
    xs = RNG.normal(size=(BATCH, 2))
    f = vmap(cases.if_unbatched, in_axes=(0, None))
    close(f(xs, 1.0), xs * 2.0, np.float64)
    close(f(xs, -1.0), xs - 1.0, np.float64)
    assert "_example(" not in astjax.source(f)


# ------------------------------------------------------------------ errors
def test_inconsistent_sizes():
    with pytest.raises(ValueError, match="vmap got inconsistent sizes for array axes to be mapped"):
        vmap(cases.compare_where)(np.ones(3), np.ones(4))


def test_bad_in_axes():
    with pytest.raises(ValueError, match="must be an int, None, or a tuple"):
        vmap(cases.unary, in_axes=[0])
    with pytest.raises(ValueError, match="in_axes must be an int, None"):
        vmap(cases.unary, in_axes=0.5)
    with pytest.raises(ValueError, match="tree prefix"):
        vmap(cases.compare_where, in_axes=(0, 0, 0))(np.ones(3), np.ones(3))
    with pytest.raises(ValueError, match="rank should be at least 3"):
        vmap(cases.unary, in_axes=2)(np.ones((3, 4)))
    with pytest.raises(ValueError, match="at least one non-None"):
        vmap(cases.unary, in_axes=None)(np.ones(3))


def test_out_axes_none_with_mapped_output():
    with pytest.raises(astjax.errors.AstjaxError, match="out_axes is None"):
        vmap(cases.unary, out_axes=None)(np.ones(3))


def test_axis_size_without_mapped_arguments():
    out = vmap(cases.unary, in_axes=None, axis_size=4)(np.ones(2))
    close(out, np.broadcast_to(cases.unary(np.ones(2)), (4, 2)), np.float64)


def test_jit_of_vmap_runs_generated_source():
    f = astjax.jit(vmap(cases.helper, in_axes=(0, None)))
    x, w = RNG.normal(size=(3, 2)).astype(np.float32), RNG.normal(size=2).astype(np.float32)
    try:
        out = f(x, w)
    except astjax.errors.AstjaxError as exc:        # a lowering jit does not have yet: refused, never wrong
        pytest.skip(f"jit refuses: {exc}")
    close(out, np.sin(x) * w, np.float32)


def test_jit_of_per_example_gradients_compiles_and_agrees_with_a_loop():
    """jit(vmap(grad(loss))): the batched adjoint helpers (batch_prepend included) compile."""
    w = RNG.normal(size=(5, 3)).astype(np.float32)
    xs, ys = RNG.normal(size=(4, 5)).astype(np.float32), RNG.normal(size=(4, 3)).astype(np.float32)
    per_example = astjax.jit(vmap(astjax.grad(cases.layer_loss), in_axes=(None, 0, 0)))
    out = per_example(w, xs, ys)
    loop = np.stack([np.asarray(astjax.grad(cases.layer_loss)(w, x, y)) for x, y in zip(xs, ys)])
    close(out, loop, np.float32)


@pytest.mark.parametrize("fun,select", [(cases.select_one_sided, True), (cases.relu_branch, True),
                                        (cases.select_branches, False)])
def test_if_on_batched_scalar_becomes_select_or_loop(fun, select):
    """Only branches of elementwise assignments with the same per-example rank become a select."""
    x = jnp.asarray(RNG.normal(size=6))
    y = jnp.asarray(RNG.normal(size=(6, 3)))
    args = (x, y) if fun is not cases.relu_branch else (x,)
    batched = vmap(fun)
    close(batched(*args), np.stack([fun(*[a[b] for a in args]) for b in range(6)]), np.float64)
    text = astjax.source(batched)
    assert ("jnp.where" in text and "_example(" not in text) if select else "_example(" in text, text


def test_select_differentiates():
    xs = RNG.normal(size=5)
    total = lambda x: jnp.sum(vmap(cases.relu_branch)(x) ** 2)      # noqa: E731
    np.testing.assert_allclose(grad(total)(xs), numeric_grad(total, xs), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fun,shape", [(cases.pop_batched, (2,)), (cases.float_of_batched, ()),
                                       (cases.where_indices, (3,))])
@pytest.mark.parametrize("batch", [1, 3])
def test_adversarial_against_loop(fun, shape, batch):
    """In-place list changes, float() of a batch (of one), jnp.where's index form: right or a loop."""
    x = jnp.asarray(RNG.normal(size=(batch,) + shape))
    expected = np.stack([np.asarray(fun(x[b])) for b in range(batch)])
    close(vmap(fun)(x), expected, np.float64)


def test_seed_vmap_parts_without_jit():
    """The non-jit parts of ../shared/acceptance/seed_vmap.py (jit waits for its lowerings)."""
    np.testing.assert_allclose(np.asarray(vmap(lambda x: x ** 2)(jnp.array([1.0, 2.0, 3.0]))), [1.0, 4.0, 9.0])
    m = jnp.asarray(RNG.normal(size=(20, 16)).astype(np.float32))
    vs = jnp.asarray(RNG.normal(size=(8, 16)).astype(np.float32))
    out = vmap(cases.dot_matrix_vector, in_axes=(None, 0))(m, vs)
    assert out.shape == (8, 20) and out.dtype == np.float32
    np.testing.assert_allclose(np.asarray(out), (np.asarray(m) @ np.asarray(vs).T).T, rtol=1e-4, atol=1e-4)
    batched_x = jnp.asarray(RNG.normal(size=(10, 3)))
    np.testing.assert_allclose(np.asarray(vmap(cases.apply_matrix)(batched_x)),
                               np.asarray(cases.naively_batched_apply_matrix(batched_x)), rtol=1e-6)
    per_example = vmap(grad(lambda w, x: jnp.sum(jnp.tanh(w * x))), in_axes=(None, 0))
    xs = RNG.normal(size=(6, 4))
    np.testing.assert_allclose(np.asarray(per_example(jnp.ones(4), xs)), xs * (1 - np.tanh(xs) ** 2), rtol=1e-6)


def test_dict_output_with_unbatched_items_and_a_method():
    xs, w = RNG.normal(size=(BATCH, 2)), RNG.normal(size=2)
    out = vmap(cases.returns_dict, in_axes=(0, None))(xs, w)
    close(out["scaled"], xs * w, np.float64)
    close(out["weights"], np.broadcast_to(w, (BATCH, 2)), np.float64)
    assert np.shape(out["one"]) == (BATCH,)
    scaler = cases.Scaler(3.0)
    close(vmap(scaler.apply)(xs), np.tanh(xs) * 3.0, np.float64)


@pytest.mark.parametrize("loss", [cases.loop_loss, cases.data_dependent_loss])
def test_per_example_gradients_through_tapes_and_branches(loss):
    """grad's tape (pushes inside loops) and a branch on a per-example value, batched."""
    w, xs = RNG.normal(size=3), RNG.normal(size=(5, 3))
    per_example = vmap(grad(loss), in_axes=(None, 0))
    close(per_example(w, xs), np.stack([grad(loss)(w, x) for x in xs]), np.float64)
    close(per_example(-w, xs), np.stack([grad(loss)(-w, x) for x in xs]), np.float64)


def test_collectives_over_the_axis_name():
    """lax.pmean over vmap's axis_name reads the whole batch (more in test_vmap_collectives.py); a name
    no vmap binds is refused clearly."""
    x = RNG.normal(size=(4, 2))
    close(vmap(cases.centered, axis_name="batch")(x), x - x.mean(0), np.float64)
    with pytest.raises(astjax.errors.AstjaxError, match="unbound axis name: 'batch'"):
        vmap(cases.centered, axis_name="other")(np.ones(3))


# ------------------------------------------------------------------ the corpus, batched
def _corpus_entries():
    """Every second entry by default (the suite's time budget, docs/testing.md), every one under
    ASTJAX_LONG_PROPERTIES=1."""
    from corpus import ENTRIES
    from sampling import LONG
    return [pytest.param(e, id=e.name) for k, e in enumerate(ENTRIES) if LONG or k % 2 == 0]


@pytest.mark.parametrize("entry", _corpus_entries())
def test_corpus_function_and_its_gradient_batched(entry):
    """Every corpus program, and its gradient, under vmap: the loop over the batch's numbers, or a clear
    astjax error; never a different number."""
    import zlib
    rng = np.random.default_rng(zlib.crc32(entry.name.encode()))
    base = entry.make_args(rng)
    nums = entry.argnums_tuple
    if any(not isinstance(base[i], (np.ndarray, float)) for i in nums):
        pytest.skip("a differentiated argument that is not an array")
    batched = list(base)
    for i in nums:
        a = np.asarray(base[i], dtype=np.float64)
        batched[i] = np.stack([a + 0.01 * k * np.cos(np.arange(a.size).reshape(a.shape) + k) for k in range(3)])
    in_axes = tuple(0 if i in nums else None for i in range(len(base)))
    for fn in (entry.fn, grad(entry.fn, argnums=nums[0])):
        examples = [[batched[i][b] if i in nums else base[i] for i in range(len(base))] for b in range(3)]
        try:
            expected = [fn(*args) for args in examples]
        except Exception:       # the program itself refuses these inputs
            continue
        actual = astjax.tree_util.tree_leaves(vmap(fn, in_axes=in_axes)(*batched))
        leaves = [astjax.tree_util.tree_leaves(e) for e in expected]
        assert len(actual) == len(leaves[0])
        for j, leaf in enumerate(actual):
            np.testing.assert_allclose(np.asarray(leaf), np.stack([np.asarray(e[j]) for e in leaves]),
                                       rtol=1e-6, atol=1e-8, equal_nan=True)


def test_grad_through_batched_callees():
    """vmap's callees take the batch size by keyword; grad and vmap of vmap read those calls too."""
    xs, w = RNG.normal(size=(4, 3)), RNG.normal(size=3)

    def total(w):
        return jnp.sum(vmap(cases.calls_helper, in_axes=(0, None))(xs, w) ** 2)
    np.testing.assert_allclose(grad(total)(w), numeric_grad(total, w), rtol=1e-6, atol=1e-8)
    nested = vmap(vmap(cases.calls_helper, in_axes=(0, None)), in_axes=(0, None))
    x3 = RNG.normal(size=(2, 4, 3))
    close(nested(x3, w), cases.calls_helper(x3, w), np.float64)


def _sum_of_list_built_in_a_comprehension(x):
    return np.sum([v * 3.0 for v in x])


def _mean_of_list_built_in_a_loop(x):
    ys = []
    for v in x:
        ys.append(jnp.sin(v))
    return jnp.mean(ys)


@pytest.mark.parametrize("fun", [_sum_of_list_built_in_a_comprehension, _mean_of_list_built_in_a_loop])
def test_reduction_of_a_list_of_batched_items(fun):
    """A list whose items carry the batch has it on axis 1 as an array: reduced example by example
    (once summed over the batch axis, a silently wrong number)."""
    xs = np.arange(12.0).reshape(3, 4) * 0.1
    np.testing.assert_allclose(vmap(fun)(xs), [fun(x) for x in xs], rtol=1e-12)


def _unpack_parameter_into_itself(x):
    x, w = x
    return x * w + x ** 2


def test_parameter_rebound_to_an_item_has_the_items_rank():
    """`x, w = x`: x has rank 0 afterwards; taken to keep the parameter's rank 1, a
    broadcast against w gave a (B, B) result (a silently wrong number when B was 2)."""
    xs = np.arange(4.0).reshape(2, 2) + 0.5
    np.testing.assert_allclose(vmap(_unpack_parameter_into_itself)(xs),
                               [_unpack_parameter_into_itself(x) for x in xs])
