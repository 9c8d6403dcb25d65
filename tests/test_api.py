"""The public API behaves like JAX's: argnums, has_aux, pytrees, vjp, jvp, Jacobians, source."""
import inspect
import traceback

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

import api_cases as cases

RNG = np.random.default_rng(0)


def numeric_grad(f, args, argnum, eps=1e-6):
    args = [np.array(a, dtype=np.float64) for a in args]
    x = args[argnum]
    g = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += eps
        minus[index] -= eps
        g[index] = (float(f(*args[:argnum], plus, *args[argnum + 1:])) -
                    float(f(*args[:argnum], minus, *args[argnum + 1:]))) / (2 * eps)
    return g


def test_argnums_tuple_and_value_and_grad():
    w, b, x = RNG.normal(size=3), RNG.normal(size=()), RNG.normal(size=3)
    gw, gb = astjax.grad(cases.loss, argnums=(0, 1))(w, b, x)
    np.testing.assert_allclose(gw, numeric_grad(cases.loss, (w, b, x), 0), rtol=1e-6)
    np.testing.assert_allclose(gb, numeric_grad(cases.loss, (w, b, x), 1), rtol=1e-6)
    value, gx = astjax.value_and_grad(cases.loss, argnums=2)(w, b, x)
    np.testing.assert_allclose(value, cases.loss(w, b, x))
    np.testing.assert_allclose(gx, numeric_grad(cases.loss, (w, b, x), 2), rtol=1e-6)


def test_has_aux():
    x = RNG.normal(size=4)
    g, aux = astjax.grad(cases.with_aux, has_aux=True)(x)
    np.testing.assert_allclose(g, np.cos(x))
    np.testing.assert_allclose(aux, np.sin(x))
    (value, aux), g = astjax.value_and_grad(cases.with_aux, has_aux=True)(x)
    np.testing.assert_allclose(value, np.sin(x).sum())


def test_pytree_arguments():
    x = RNG.normal(size=3)
    params = {"w": RNG.normal(size=3), "b": 0.5}
    g = astjax.grad(cases.dict_params)(params, x)
    assert set(g) == {"w", "b"}
    np.testing.assert_allclose(g["w"], x)
    np.testing.assert_allclose(g["b"], 3.0)
    g = astjax.grad(cases.tuple_params)((RNG.normal(size=3), 1.0), x)
    assert isinstance(g, tuple)
    np.testing.assert_allclose(g[0], x)
    np.testing.assert_allclose(g[1], 1.0)
    g = astjax.grad(cases.namedtuple_params)(cases.Params(np.ones(3), np.zeros(3)), x)
    assert isinstance(g, cases.Params)
    np.testing.assert_allclose(g.w, x)
    np.testing.assert_allclose(g.b, np.ones(3))


def test_in_place_looking_local_updates_get_their_gradient():
    assert float(astjax.grad(cases.local_update)(1.5)) == pytest.approx(3.0)


def test_slices_scatter_the_gradient():
    x = RNG.normal(size=5)
    np.testing.assert_allclose(astjax.grad(cases.slices)(x), [1.0, 2 * x[1], 2 * x[2], 0.0, 0.0])


def test_broadcasting_gradients_are_summed_back():
    a, b = RNG.normal(size=(3, 1)), RNG.normal(size=(1, 4))
    ga, gb = astjax.grad(cases.broadcasting, argnums=(0, 1))(a, b)
    assert ga.shape == (3, 1) and gb.shape == (1, 4)
    np.testing.assert_allclose(ga, numeric_grad(cases.broadcasting, (a, b), 0), rtol=1e-6)
    np.testing.assert_allclose(gb, numeric_grad(cases.broadcasting, (a, b), 1), rtol=1e-6)


@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)), ((4,), (4,))])
def test_dot_gradients(shapes):
    a, b = RNG.normal(size=shapes[0]), RNG.normal(size=shapes[1])
    ga, gb = astjax.grad(cases.matrix, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, numeric_grad(cases.matrix, (a, b), 0), rtol=1e-5)
    np.testing.assert_allclose(gb, numeric_grad(cases.matrix, (a, b), 1), rtol=1e-5)


def test_plain_numpy_code_differentiates_unchanged():
    x = RNG.normal(size=4)
    np.testing.assert_allclose(astjax.grad(cases.numpy_code)(x),
                               np.exp(x) * (np.cos(x) - np.sin(x)), rtol=1e-6)


def test_unused_argument_gets_zeros_of_its_shape():
    gx, gy = astjax.grad(cases.unused_argument, argnums=(0, 1))(1.0, np.ones((2, 2)))
    assert float(gx) == 2.0
    np.testing.assert_array_equal(gy, np.zeros((2, 2)))


def test_float32_inputs_give_float32_gradients():
    g = astjax.grad(lambda t: t * t)(3.0)
    assert g.dtype == np.float32 and isinstance(g, astjax.Array)
    g = astjax.grad(lambda t: jnp.sum(t * t))(np.ones(3, np.float64))
    assert g.dtype == np.float64


def test_vjp_and_jvp_agree_with_the_jacobian():
    x = RNG.normal(size=3)
    out, pullback = astjax.vjp(cases.vector_function, x)
    np.testing.assert_allclose(out, np.sin(x) * x[0])
    jac = astjax.jacfwd(cases.vector_function)(x)
    np.testing.assert_allclose(jac, astjax.jacrev(cases.vector_function)(x), rtol=1e-6)
    ct = RNG.normal(size=3)
    (g,) = pullback(ct)
    np.testing.assert_allclose(g, ct @ jac, rtol=1e-6)
    t = RNG.normal(size=3)
    _, tangent = astjax.jvp(cases.vector_function, (x,), (t,))
    np.testing.assert_allclose(tangent, jac @ t, rtol=1e-6)


def test_hessian_is_forward_over_reverse():
    x = RNG.normal(size=3)
    f = lambda v: jnp.sum(jnp.sin(v) * v[0])
    h = astjax.hessian(f)(x)
    expected = np.diag(-np.sin(x) * x[0])
    expected[0, :] += np.cos(x)
    expected[:, 0] += np.cos(x)
    np.testing.assert_allclose(h, expected, rtol=1e-6, atol=1e-12)


def test_source_is_readable_python():
    text = astjax.source(astjax.grad(cases.loss))
    assert text.startswith("def grad_loss(w, b, x):")
    assert "# from line" in text and "bw" in text
    compile(text, "<generated>", "exec")


def test_generated_lines_show_in_tracebacks_and_getsource():
    g = astjax.grad(lambda t: jnp.sum(jnp.log(t)))
    generated = g.__astjax_transform__.generated("grad")
    assert "def grad_lambda" in inspect.getsource(generated)
    with np.errstate(all="raise"):
        try:
            g(np.array([0.0]))
        except FloatingPointError:
            frames = traceback.extract_tb(__import__("sys").exc_info()[2])
            assert any(f.filename.startswith("<astjax:") and f.line for f in frames)
        else:
            pytest.fail("log(0) should have raised under errstate(all='raise')")


def test_transformations_compose():
    assert float(astjax.grad(astjax.grad(lambda t: t ** 3))(2.0)) == pytest.approx(12.0)
    assert float(astjax.jvp(astjax.grad(lambda t: t ** 3), (2.0,), (1.0,))[1]) == pytest.approx(12.0)
    (gg,) = astjax.vjp(astjax.grad(lambda t: jnp.sin(t)), 0.5)[1](1.0)
    assert float(gg) == pytest.approx(-np.sin(0.5), rel=1e-6)


def test_local_functions_and_lambdas_are_inlined():
    x = 1.5
    assert float(astjax.grad(cases.local_functions)(x)) == pytest.approx(4 * 9 * x ** 3 + 6)
    assert float(astjax.jvp(cases.local_functions, (x,), (1.0,))[1]) == pytest.approx(4 * 9 * x ** 3 + 6)
    assert "scaled_y" in astjax.source(astjax.grad(cases.local_functions))


def test_grad_of_a_pullback():
    _, pullback = astjax.vjp(lambda x: jnp.sin(x) * x, 2.0)
    g = astjax.grad(lambda ct: pullback(ct)[0])(1.0)
    assert float(g) == pytest.approx(np.cos(2.0) * 2 + np.sin(2.0), rel=1e-6)


def test_tuples_of_values_carry_derivatives():
    ga, gb = astjax.grad(cases.tuple_values, argnums=(0, 1))(2.0, 3.0)
    assert (float(ga), float(gb)) == (21.0, 16.0)
    assert float(astjax.jvp(cases.tuple_values, (2.0, 3.0), (1.0, 0.0))[1]) == 21.0


def test_blur_gradient_through_loops_padding_and_dynamic_slice():
    image = RNG.uniform(size=(6, 7))
    kernel = RNG.uniform(size=(3, 3))
    g = astjax.grad(cases.blur, argnums=1)(image, kernel)
    np.testing.assert_allclose(g, numeric_grad(cases.blur, (image, kernel), 1), rtol=1e-5)
    g_image = astjax.grad(cases.blur, argnums=0)(image, kernel)
    np.testing.assert_allclose(g_image, numeric_grad(cases.blur, (image, kernel), 0), rtol=1e-5)


def test_jacobians_of_pytree_arguments_and_several_argnums():
    params = {"w": RNG.normal(size=3), "b": RNG.normal(size=())}
    x = RNG.normal(size=3)
    fwd = astjax.jacfwd(cases.pytree_vector_function)(params, x)
    rev = astjax.jacrev(cases.pytree_vector_function)(params, x)
    assert set(fwd) == set(rev) == {"w", "b"}
    assert fwd["w"].shape == (3, 3) and fwd["b"].shape == (3,)
    slope = 1 - np.tanh(params["w"] * x + params["b"]) ** 2
    np.testing.assert_allclose(fwd["w"], np.diag(slope * x), rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(rev["w"], fwd["w"], rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(rev["b"], slope, rtol=1e-6)
    jp, jx = astjax.jacfwd(cases.pytree_vector_function, argnums=(0, 1))(params, x)
    np.testing.assert_allclose(jx, np.diag(slope * params["w"]), rtol=1e-6, atol=1e-12)
    jp_rev, jx_rev = astjax.jacrev(cases.pytree_vector_function, argnums=(0, 1))(params, x)
    np.testing.assert_allclose(jx_rev, jx, rtol=1e-6, atol=1e-12)


def test_hessian_with_argnums():
    h = astjax.hessian(cases.loss, argnums=1)(np.ones(3), 0.3, np.arange(3.0))
    t = np.tanh(np.ones(3) * np.arange(3.0) + 0.3)
    assert float(h) == pytest.approx(np.sum(-2 * t * (1 - t ** 2)), rel=1e-6)


def test_methods_partials_and_callable_objects():
    import functools
    model = cases.Model(2.0)
    x = RNG.normal(size=3)
    np.testing.assert_allclose(astjax.grad(model.loss)(x), 2.0 * np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(astjax.grad(model)(x), 4.0 * x, rtol=1e-6)
    partial = functools.partial(cases.scaled_loss, scale=3.0)
    np.testing.assert_allclose(astjax.grad(partial)(x), 9.0 * x ** 2, rtol=1e-6)
    _, tangent = astjax.jvp(model.loss, (x,), (np.ones(3),))
    assert float(tangent) == pytest.approx(np.sum(2.0 * np.cos(x)), rel=1e-6)
    (ct,) = astjax.vjp(model.loss, x)[1](1.0)
    np.testing.assert_allclose(ct, 2.0 * np.cos(x), rtol=1e-6)
    second = astjax.grad(lambda t: astjax.grad(model.loss)(t)[0])(x)
    np.testing.assert_allclose(second, [-2.0 * np.sin(x[0]), 0.0, 0.0], rtol=1e-6, atol=1e-12)
    assert "def jvp_loss(self, x, dx)" in astjax.source(astjax.jacfwd(model.loss))


def test_a_transformation_called_inside_a_transformed_function():
    w = RNG.normal(size=3)
    expected = numeric_grad(cases.gradient_penalty, (w,), 0)
    np.testing.assert_allclose(astjax.grad(cases.gradient_penalty)(w), expected, rtol=1e-5)
    assert "vjp_grad_inner_energy" in astjax.source(astjax.grad(cases.gradient_penalty))


def test_allow_int_gives_float0_zeros():
    gx, gn = astjax.grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)(2.0, 3)
    assert float(gx) == 3.0 and gn.dtype == astjax.arguments.FLOAT0
    with pytest.raises(TypeError, match="float"):
        astjax.grad(lambda x, n: x * n, argnums=1)(2.0, 3)


@pytest.mark.parametrize("fn, x", [(cases.lax_fori, 0.5), (cases.lax_while, 0.7), (cases.lax_cond, 1.5),
                                   (cases.lax_cond, -1.5), (cases.lax_scan, [0.1, 0.2, 0.3])])
def test_lax_control_flow_becomes_python_control_flow(fn, x):
    x = np.asarray(x, dtype=np.float64)
    expected = numeric_grad(fn, (x,), 0)
    np.testing.assert_allclose(astjax.grad(fn)(x), expected, rtol=1e-6)
    t = np.ones_like(x)
    _, tangent = astjax.jvp(fn, (x,), (t,))
    assert float(tangent) == pytest.approx(float(np.sum(expected * t)), rel=1e-6)


def test_mlp_with_a_list_of_layer_dicts():
    sizes = [3, 4, 4, 2]
    params = [{"w": RNG.normal(size=(a, b)) * 0.5, "b": RNG.normal(size=b) * 0.1} for a, b in zip(sizes, sizes[1:])]
    x, y = RNG.normal(size=(5, 3)), RNG.normal(size=(5, 2))
    grads = astjax.grad(cases.mlp_loss)(params, x, y)
    assert isinstance(grads, list) and len(grads) == 3 and set(grads[0]) == {"w", "b"}
    for i in range(3):
        for name in ("w", "b"):
            def as_function(leaf, i=i, name=name):
                changed = [dict(layer) for layer in params]
                changed[i][name] = leaf
                return cases.mlp_loss(changed, x, y)
            expected = numeric_grad(as_function, (params[i][name],), 0)
            np.testing.assert_allclose(grads[i][name], expected, rtol=1e-5, atol=1e-9)


def test_assert_and_raise_run_as_written():
    x = np.array([1.0, 4.0])
    np.testing.assert_allclose(astjax.grad(cases.checked)(x), 0.5 / np.sqrt(x))
    with pytest.raises(ValueError, match="non-negative"):
        astjax.grad(cases.checked)(np.array([-1.0, 4.0]))
    with pytest.raises(AssertionError, match="a vector"):
        astjax.grad(cases.checked)(np.ones((2, 2)))
    _, tangent = astjax.jvp(cases.checked, (x,), (np.ones(2),))
    assert float(tangent) == pytest.approx(0.75)


def test_keyword_arguments_to_the_function_and_to_callees():
    x = np.array([0.2, 0.4])
    np.testing.assert_allclose(astjax.grad(cases.keyword_caller)(x, alpha=2.0), 4 * np.cos(x), rtol=1e-6)
    _, g_alpha = astjax.grad(cases.keyword_caller, argnums=(0, 1))(x, 2.0)
    assert float(g_alpha) == pytest.approx(4 * np.sin(x).sum() + 2.0, rel=1e-6)


@pytest.mark.parametrize("fn, reference", [(jnp.sin, np.sin), (np.sin, np.sin), (jnp.tanh, np.tanh),
                                           (np.exp, np.exp), (jnp.log1p, np.log1p)])
def test_library_functions_passed_directly(fn, reference):
    x = 0.7
    g = astjax.grad(fn)(x)
    numeric = (reference(x + 1e-6) - reference(x - 1e-6)) / 2e-6
    np.testing.assert_allclose(g, numeric, rtol=1e-3)          # float32 input, float32 gradient
    assert np.asarray(g).dtype == np.float32
    v = RNG.uniform(0.1, 0.9, size=3)
    jac = astjax.jacfwd(fn)(v)
    np.testing.assert_allclose(np.diag(jac), [(reference(a + 1e-6) - reference(a - 1e-6)) / 2e-6 for a in v],
                               rtol=1e-6)
    np.testing.assert_allclose(astjax.jacrev(fn)(v), jac, rtol=1e-12)
    second = astjax.grad(astjax.grad(fn))(np.float64(x))
    numeric2 = (reference(x + 1e-4) - 2 * reference(x) + reference(x - 1e-4)) / 1e-8
    np.testing.assert_allclose(second, numeric2, rtol=1e-4)


def test_library_reduction_and_two_argument_function_passed_directly():
    x, y = RNG.normal(size=3), RNG.normal(size=3)
    np.testing.assert_allclose(astjax.grad(jnp.sum)(x), np.ones(3))
    np.testing.assert_allclose(astjax.grad(jnp.dot, argnums=1)(x, y), x)
    np.testing.assert_allclose(astjax.jvp(jnp.exp, (x,), (y,))[1], np.exp(x) * y)
    np.testing.assert_allclose(astjax.hessian(jnp.sin)(np.float64(0.3)), -np.sin(0.3))


@pytest.mark.parametrize("fn", [cases.returns_nothing, cases.returns_none])
@pytest.mark.parametrize("transformation", [astjax.grad, astjax.value_and_grad])
def test_grad_of_a_function_returning_none_raises_like_jax(fn, transformation):
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions. Output was None"):
        transformation(fn)(1.0)


def test_grad_of_a_vector_output_raises_like_jax():
    with pytest.raises(TypeError, match=r"Gradient only defined for scalar-output functions. Output had shape: \(3,\)"):
        astjax.grad(jnp.sin)(np.ones(3))


def test_has_aux_with_a_dict_literal():
    x = RNG.normal(size=4)
    truth = np.sin(x) + x * np.cos(x)
    g, aux = astjax.grad(cases.loss_with_dict_aux, has_aux=True)(x)
    np.testing.assert_allclose(g, truth, rtol=1e-10)
    np.testing.assert_allclose(g, numeric_grad(lambda v: cases.loss_with_dict_aux(v)[0], (x,), 0), rtol=1e-6)
    assert set(aux) == {"acc", "loss", "preds"}
    np.testing.assert_allclose(aux["acc"], np.mean(x > 0))
    np.testing.assert_allclose(aux["preds"][0], x * 2.0)
    (value, aux2), g2 = astjax.value_and_grad(cases.loss_with_dict_aux, has_aux=True)(x)
    np.testing.assert_allclose(value, np.sum(np.sin(x) * x))
    np.testing.assert_allclose(aux2["loss"], value)
    np.testing.assert_allclose(g2, truth, rtol=1e-10)
    for jac in (astjax.jacrev, astjax.jacfwd):
        j, aux3 = jac(cases.loss_with_dict_aux, has_aux=True)(x)
        np.testing.assert_allclose(j, truth, rtol=1e-10)
        np.testing.assert_allclose(aux3["acc"], np.mean(x > 0))


def test_dict_output_in_every_mode():
    x = RNG.normal(size=3)
    jr = astjax.jacrev(cases.dict_output)(x)
    jf = astjax.jacfwd(cases.dict_output)(x)
    for key, derivative in (("a", 2 * x), ("b", np.cos(x))):
        np.testing.assert_allclose(jr[key], np.diag(derivative), atol=1e-12)
        np.testing.assert_allclose(jf[key], np.diag(derivative), atol=1e-12)
    v = RNG.normal(size=3)
    _, tangent = astjax.jvp(cases.dict_output, (x,), (v,))
    np.testing.assert_allclose(tangent["a"], 2 * x * v)
    np.testing.assert_allclose(tangent["b"], np.cos(x) * v)
    _, pullback = astjax.vjp(cases.dict_output, x)
    (g,) = pullback({"a": v, "b": np.ones(3)})
    np.testing.assert_allclose(g, 2 * x * v + np.cos(x))
    g = astjax.grad(cases.calls_dict_helper)(x)
    np.testing.assert_allclose(g, numeric_grad(cases.calls_dict_helper, (x,), 0), rtol=1e-6)
    np.testing.assert_allclose(astjax.jacfwd(cases.calls_dict_helper)(x), g, rtol=1e-10)


def test_a_dict_literal_that_is_not_returned_is_differentiated():
    """Dict literals with constant keys work anywhere since issue 6's containers work."""
    x = np.array([0.5, -1.5])
    np.testing.assert_allclose(astjax.grad(cases.local_dict)(x), np.ones(2))
    np.testing.assert_allclose(astjax.jacfwd(cases.local_dict)(x), np.ones(2))


def test_float32_stays_float32_through_second_derivatives():
    x = np.array([0.3, 0.7, 1.1], np.float32)
    assert astjax.hessian(cases.mixed_scalar)(x).dtype == np.float32
    assert astjax.jacfwd(astjax.grad(cases.mixed_scalar))(x).dtype == np.float32
    value, tangent = astjax.jvp(astjax.grad(cases.mixed_scalar), (x,), (np.ones(3, np.float32),))
    assert value.dtype == np.float32 and tangent.dtype == np.float32
    h64 = astjax.hessian(cases.mixed_scalar)(x.astype(np.float64))
    np.testing.assert_allclose(astjax.hessian(cases.mixed_scalar)(x), h64, rtol=1e-5)


def test_reverse_pass_has_no_float64_intermediates():
    """The 1.0 seed and bare 0.0 adjoints are weak: the raw generated gradient is already float32."""
    x = astjax.numpy.asarray(np.array([0.3, 0.7, 1.1], np.float32))
    g = astjax.grad(cases.mixed_scalar)
    g(x)
    value, raw = g.__astjax_transform__.call("value_and_grad", [x], {})
    assert value.dtype == np.float32 and raw.dtype == np.float32


def test_weak_python_scalars_with_bool_and_int_arrays():
    b = jnp.asarray(np.array([True, False]))
    i = jnp.asarray(np.array([1, 2], np.int32))
    assert (b * 1.0).dtype == np.float32
    assert (1.0 * b).dtype == np.float32
    assert (1 - b).dtype == np.int32
    assert (b + 1).dtype == np.int32
    assert (i * 1.5).dtype == np.float32
    assert (i / 2).dtype == np.float32
    np.testing.assert_allclose(i / 2, [0.5, 1.0])
    np.testing.assert_array_equal(1 - b, [0, 1])
    f = jnp.asarray(np.array([1.0, 2.0], np.float32))
    assert (f * 2).dtype == np.float32 and (2.0 ** f).dtype == np.float32 and (i + f).dtype == np.float32
    y = f
    y += 1
    np.testing.assert_array_equal(f, [1.0, 2.0])          # += rebinds: the alias keeps its value


def _central(f, args, k, h=1e-6):
    plus, minus = list(args), list(args)
    plus[k], minus[k] = args[k] + h, args[k] - h
    return (f(*plus) - f(*minus)) / (2 * h)


def test_star_args_parameters_count_as_positional_arguments():
    args = (np.float64(0.5), np.float64(1.0), np.float64(2.0))
    grads = astjax.grad(cases.rnn, argnums=(0, 1, 2))(*args)
    for k in range(3):
        np.testing.assert_allclose(grads[k], _central(cases.rnn, args, k), rtol=1e-6)
        tangents = [0.0, 0.0, 0.0]
        tangents[k] = 1.0
        np.testing.assert_allclose(astjax.jvp(cases.rnn, args, tuple(tangents))[1], grads[k], rtol=1e-10)
    np.testing.assert_allclose(astjax.grad(cases.rnn, argnums=2)(*args), grads[2], rtol=1e-12)
    second = astjax.grad(astjax.grad(cases.rnn))(*args)
    np.testing.assert_allclose(second, _central(astjax.grad(cases.rnn), args, 0), rtol=1e-5)
    np.testing.assert_allclose(astjax.hessian(cases.rnn)(*args), second, rtol=1e-10)


def test_keyword_only_parameters():
    x = np.float64(0.5)
    np.testing.assert_allclose(astjax.grad(cases.scaled_square)(x, scale=3.0), 2 * 3.0 * x)
    np.testing.assert_allclose(astjax.grad(cases.scaled_square)(x), 2 * 2.0 * x)
    np.testing.assert_allclose(astjax.jvp(cases.scaled_square, (x,), (1.0,))[1], 2 * 2.0 * x)
    w, x1, x2 = RNG.normal(size=3), RNG.normal(size=3), RNG.normal(size=3)
    gw, g1, g2 = astjax.grad(cases.weighted_sum, argnums=(0, 1, 2))(w, x1, x2, scale=2.0)
    np.testing.assert_allclose(gw, (x1 + x2) * 2.0)
    np.testing.assert_allclose(g1, w * 2.0)
    np.testing.assert_allclose(g2, w * 2.0)
    value, gw = astjax.value_and_grad(cases.weighted_sum)(w, x1, x2, bias=1.0)
    np.testing.assert_allclose(value, cases.weighted_sum(w, x1, x2, bias=1.0))
    np.testing.assert_allclose(gw, (x1 + x2) * 1.5)


def test_star_args_in_vjp_and_jacrev():
    args = (np.float64(0.5), np.float64(1.0), np.float64(2.0))
    grads = astjax.grad(cases.rnn, argnums=(0, 1, 2))(*args)
    out, pullback = astjax.vjp(cases.rnn, *args)
    np.testing.assert_allclose(out, cases.rnn(*args))
    cotangents = pullback(np.float64(2.0))
    assert len(cotangents) == 3
    for k in range(3):
        np.testing.assert_allclose(cotangents[k], 2.0 * np.asarray(grads[k]), rtol=1e-12)
    np.testing.assert_allclose(astjax.jacrev(cases.rnn, argnums=2)(*args), grads[2], rtol=1e-12)
    w, x1, x2 = RNG.normal(size=3), RNG.normal(size=3), RNG.normal(size=3)
    jw, j2 = astjax.jacrev(cases.weighted_sum, argnums=(0, 2))(w, x1, x2)
    np.testing.assert_allclose(jw, (x1 + x2) * 1.5)
    np.testing.assert_allclose(j2, w * 1.5)
    np.testing.assert_allclose(astjax.jacfwd(cases.weighted_sum, argnums=2)(w, x1, x2), j2)


def test_a_dict_inside_a_named_returned_tuple():
    x = RNG.normal(size=3)
    g = astjax.grad(cases.calls_dict_aux_through_a_named_tuple)(x)
    np.testing.assert_allclose(g, numeric_grad(cases.calls_dict_aux_through_a_named_tuple, (x,), 0), rtol=1e-6)
    np.testing.assert_allclose(astjax.jacfwd(cases.calls_dict_aux_through_a_named_tuple)(x), g, rtol=1e-10)
