"""The public API composed as users compose it: jacfwd(jacrev(f)), jacrev(jacrev(f)),
grad of a function that calls jacrev or grad, vjp/jacrev/jacfwd of tuple outputs,
grad(jnp.sin), has_aux with dicts, custom_jvp/custom_vjp under grad, grad of None
(TypeError as JAX), 4th derivatives through loops. Every expected value is computed
without astjax: finite differences or closed forms."""
import numpy as np

import astjax
import astjax.numpy as jnp

from .case import case, vec, mat, scalar
from .harness import fd_grad, fd_hessian, fd_jacobian


def quartic_mix(x):
    return jnp.sum(jnp.sin(x) * x[0] ** 2) + x[1] * x[2] ** 3


def _hessians(fn, args):
    H = fd_hessian(fn, args)
    return [(astjax.jacfwd(astjax.jacrev(fn))(*args), H, "jacfwd(jacrev(f))"),
            (astjax.jacrev(astjax.jacrev(fn))(*args), H, "jacrev(jacrev(f))"),
            (astjax.jacfwd(astjax.jacfwd(fn))(*args), H, "jacfwd(jacfwd(f))"),
            (astjax.hessian(fn)(*args), H, "hessian(f)")]


case(quartic_mix, lambda r: (vec(r, 3),), "works", mode="custom", check=_hessians, rtol=1e-4,
     name="hessian_compositions")


def _jacfwd_of_grad(fn, args):
    H = fd_hessian(fn, args)
    t = np.array([0.3, -1.0, 0.5])
    _, hvp = astjax.jvp(astjax.grad(fn), tuple(args), (t,))
    return [(astjax.jacfwd(astjax.grad(fn))(*args), H, "jacfwd(grad(f))"),
            (astjax.jacrev(astjax.grad(fn))(*args), H, "jacrev(grad(f))"),
            (hvp, H @ t, "jvp(grad(f)) (Hessian-vector product)")]


case(quartic_mix, lambda r: (vec(r, 3),), "works", mode="custom", check=_jacfwd_of_grad, rtol=1e-4,
     name="jacfwd_jvp_of_grad")


def _pair(p):
    return p[0], p[1]


def hessian_through_tuple_helper(x):
    a, b = _pair(x)
    return a * a * b + jnp.sin(b) * a


case(hessian_through_tuple_helper, lambda r: (vec(r, 2),), "works", mode="custom", check=_hessians, rtol=1e-4)


def _jacfwd_grad_only(fn, args):
    H = fd_hessian(fn, args)
    return [(astjax.jacfwd(astjax.grad(fn))(*args), H, "jacfwd(grad(f))"),
            (astjax.jacrev(astjax.grad(fn))(*args), H, "jacrev(grad(f))")]


case(hessian_through_tuple_helper, lambda r: (vec(r, 2),), "works", mode="custom", check=_jacfwd_grad_only,
     rtol=1e-4, name="jacfwd_grad_through_tuple_helper")


def hessian_through_loop(x):
    s = 0.0
    for i in range(3):
        for j in range(i + 1):
            s = s + jnp.sin(x[i] * x[j])
    return s


case(hessian_through_loop, lambda r: (vec(r, 3),), "works", mode="custom", check=_hessians, rtol=1e-4)


def _vector_fn(x):
    return jnp.sin(x) * x[0]


def _vector_fn_jacobian(x):
    J = np.diag(np.cos(x) * x[0])
    J[:, 0] += np.sin(x)
    return J


def grad_of_function_calling_jacrev(x):
    J = astjax.jacrev(_vector_fn)(x)
    return jnp.sum(J ** 2)


def _jacrev_caller_reference(x):
    return np.sum(_vector_fn_jacobian(x) ** 2)


case(grad_of_function_calling_jacrev, lambda r: (vec(r, 3),), "either", reference=_jacrev_caller_reference,
     jvp=False)


def _cube(v):
    return v ** 3


def grad_of_function_calling_grad(x):
    return astjax.grad(_cube)(x) * x


case(grad_of_function_calling_grad, lambda r: (scalar(r),), "either", jvp=False,
     reference=lambda x: 3.0 * x ** 3)


def tuple_output(x):
    return jnp.sin(x) * x[0], jnp.sum(x ** 2)


case(tuple_output, lambda r: (vec(r, 3),), "works", mode="jac", name="jacrev_jacfwd_of_tuple_output")


def matrix_output(x):
    return jnp.outer(x, jnp.cos(x))[:2]


case(matrix_output, lambda r: (vec(r, 3),), "works", mode="jac", name="jacobian_of_matrix_output")


def matrix_input(A):
    return jnp.sum(A, axis=0) * A[0, 0]


case(matrix_input, lambda r: (mat(r, 2, 3),), "works", mode="jac", name="jacobian_of_matrix_input")


def _check_vjp_tuple(fn, args):
    (a, b), vjp_fn = astjax.vjp(fn, *args)
    ca, cb = np.array([1.0, -2.0, 0.5]), np.array(3.0)
    (g,) = vjp_fn((ca, cb))
    Ja, Jb = fd_jacobian(fn, args, 0)
    ea, eb = fn(*args)
    return [(a, ea, "first output"), (b, eb, "second output"), (g, ca @ Ja + cb * Jb, "vjp cotangent")]


case(tuple_output, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_vjp_tuple, name="vjp_of_tuple_output")


case(jnp.sin, lambda r: (scalar(r),), "works", name="grad_of_jnp_sin")
case(jnp.tanh, lambda r: (scalar(r),), "works", name="grad_of_jnp_tanh")
case(np.cos, lambda r: (scalar(r),), "either", name="grad_of_np_cos", errors=(astjax.errors.AstjaxError,),
     error_match="(?i)cos|numpy|ufunc|function", note="np.cos has no Python source: a refusal cannot name a line")


def _second_derivative_of_numpy_function(fn, args):
    x = float(args[0])
    return [(astjax.grad(astjax.grad(jnp.exp))(*args), np.exp(x), "grad(grad(jnp.exp))")]


case(jnp.exp, lambda r: (scalar(r),), "works", mode="custom", check=_second_derivative_of_numpy_function,
     name="grad_grad_of_jnp_exp")


def returns_none(x):
    y = x * 2.0  # noqa: F841


case(returns_none, lambda r: (vec(r, 3),), "refuse", errors=(TypeError,), error_match="(?i)scalar|None",
     name="grad_of_function_returning_none")


def forgot_return_in_branch(x):
    if x[0] > 0:
        return jnp.sum(x)


case(forgot_return_in_branch, lambda r: (np.array([-0.5, 0.2]),), "refuse", errors=(TypeError,),
     error_match="(?i)scalar|None")


def vector_output_to_grad(x):
    return x * 2.0


case(vector_output_to_grad, lambda r: (vec(r, 3),), "refuse", errors=(TypeError,), error_match="(?i)scalar|shape")


def int_argument_differentiated(n):
    return n * 2.0


case(int_argument_differentiated, lambda r: (np.array(3),), "refuse", errors=(TypeError,),
     error_match="(?i)int|float|dtype")


def _check_has_aux_dict(fn, args):
    (loss, aux), g = astjax.value_and_grad(fn, has_aux=True)(*args)
    g2, aux2 = astjax.grad(fn, has_aux=True)(*args)
    eloss, eaux = fn(*args)
    expected = fd_grad(lambda w, x: fn(w, x)[0], args, 0)[0]
    return [(loss, eloss, "loss"), (aux["acc"], eaux["acc"], "aux['acc']"), (g, expected, "gradient"),
            (g2, expected, "grad(has_aux) gradient"), (aux2["acc"], eaux["acc"], "grad(has_aux) aux")]


def loss_with_dict_aux(w, x):
    pred = jnp.tanh(x * w)
    loss = jnp.sum((pred - 0.5) ** 2)
    acc = jnp.mean(pred > 0.0)
    return loss, {"acc": acc}


case(loss_with_dict_aux, lambda r: (vec(r, 3), vec(r, 3)), "works", mode="custom", check=_check_has_aux_dict)


def _check_pytree_argnums(fn, args):
    gp, gx = astjax.grad(fn, argnums=(0, 1))(*args)
    ep = fd_grad(fn, args, 0)
    ex = fd_grad(fn, args, 1)[0]
    return [(gp["w"], ep[1], "params['w']"), (gp["b"], ep[0], "params['b']"), (gx, ex, "x")]


def dict_params_and_input(params, x):
    return jnp.sum(jnp.tanh(params["w"] * x + params["b"]) ** 2)


case(dict_params_and_input, lambda r: ({"w": vec(r, 3), "b": vec(r, 3)}, vec(r, 3)), "works", mode="custom",
     check=_check_pytree_argnums, name="grad_argnums_tuple_with_dict")


def fourth_derivative_loop(x):
    s = 0.0
    for i in range(3):
        s = s + jnp.sin(x * (i + 1.0))
    return s


def _check_fourth(fn, args):
    x = float(args[0])
    d4 = astjax.grad(astjax.grad(astjax.grad(astjax.grad(fn))))(*args)
    return [(d4, sum((i + 1.0) ** 4 * np.sin((i + 1.0) * x) for i in range(3)), "4th derivative (closed form)")]


case(fourth_derivative_loop, lambda r: (scalar(r),), "works", mode="custom", check=_check_fourth, rtol=1e-6)


def exp_written_tanh(x):
    return (1.0 - jnp.exp(-2.0 * x)) / (1.0 + jnp.exp(-2.0 * x))


def _check_third_tanh(fn, args):
    x = float(args[0])
    t = np.tanh(x)
    d3 = astjax.grad(astjax.grad(astjax.grad(fn)))(*args)
    return [(d3, -2.0 * (1 - t * t) * (1 - 3 * t * t), "3rd derivative of tanh (closed form)")]


case(exp_written_tanh, lambda r: (scalar(r),), "works", mode="custom", check=_check_third_tanh, rtol=1e-6)


@astjax.custom_jvp
def _softclip(x):
    return jnp.tanh(x) * 2.0


@_softclip.defjvp
def _softclip_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _softclip(x), t * 2.0 * (1.0 - jnp.tanh(x) ** 2)


def uses_custom_jvp(x):
    return jnp.sum(_softclip(x) ** 2)


case(uses_custom_jvp, lambda r: (vec(r, 3),), "works")


@astjax.custom_vjp
def _clip_gradient(x):
    return x * 1.0


def _clip_gradient_fwd(x):
    return x * 1.0, None


def _clip_gradient_bwd(res, g):
    return (g,)


_clip_gradient.defvjp(_clip_gradient_fwd, _clip_gradient_bwd)


def uses_custom_vjp(x):
    return jnp.sum(jnp.sin(_clip_gradient(x)))


case(uses_custom_vjp, lambda r: (vec(r, 3),), "works", jvp=False)


def _check_kwargs_at_call(fn, args):
    g = astjax.grad(fn)(*args, scale=3.0)
    return [(g, fd_grad(lambda x: fn(x, scale=3.0), args, 0)[0], "grad(f)(x, scale=3.0)")]


def keyword_at_call_time(x, scale=1.0):
    return jnp.sum(scale * x ** 3)


case(keyword_at_call_time, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_kwargs_at_call)


def second_argnum(a, x):
    return jnp.sum(a * jnp.sin(x))


case(second_argnum, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=1)


def negative_argnum(a, x):
    return jnp.sum(a * jnp.cos(x))


case(negative_argnum, lambda r: (vec(r, 3), vec(r, 3)), "either", argnums=-1)


inline_lambda_cubed = lambda x: x ** 3 + 2.0 * x  # noqa: E731
case(inline_lambda_cubed, lambda r: (scalar(r),), "works", name="module_level_lambda")


def _check_grad_of_grad_object(fn, args):
    g = astjax.grad(lambda x: jnp.sum(fn(x)))
    gg = astjax.grad(lambda x: jnp.sum(g(x) ** 2))
    expected = fd_grad(lambda x: np.sum(np.asarray(3.0 * x ** 2 + 2.0) ** 2), args, 0)[0]
    return [(gg(*args), expected, "grad of a loss over grad(f)")]


case(inline_lambda_cubed, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_grad_of_grad_object,
     name="grad_of_lambda_calling_grad")


def jacobian_of_loop_output(x):
    out = []
    for i in range(3):
        out.append(x[i] * x[(i + 1) % 3])
    return jnp.stack(out)


case(jacobian_of_loop_output, lambda r: (vec(r, 3),), "works", mode="jac")


def jacobian_with_int_arg(x, n):
    y = x
    for _ in range(n):
        y = jnp.sin(y) + x
    return y


case(jacobian_with_int_arg, lambda r: (vec(r, 3), 3), "works", mode="jac")


def value_and_grad_value_is_value(x):
    return jnp.sum(jnp.exp(x)) / 3.0


case(value_and_grad_value_is_value, lambda r: (vec(r, 4),), "works")


def triangular_loops_scalar(a):
    s = 0.0
    for i in range(4):
        for j in range(i + 1, 4):
            s = s + jnp.sin(a * (i + 1.0)) * jnp.cos(a * (j + 1.0))
    return s


def _check_second_derivative_loops(fn, args):
    a = float(args[0])
    h = 1e-4
    f = [float(fn(np.float64(a + k * h) * np.ones(()))) for k in (-1, 0, 1)]
    second = (f[0] - 2 * f[1] + f[2]) / h ** 2
    g2 = astjax.grad(astjax.grad(fn))(*args)
    _, hvp = astjax.jvp(astjax.grad(fn), tuple(args), (np.ones(()),))
    return [(g2, second, "grad(grad(f)) through triangular loops"),
            (hvp, second, "jvp(grad(f)) through triangular loops")]


case(triangular_loops_scalar, lambda r: (scalar(r),), "works", mode="custom", check=_check_second_derivative_loops,
     rtol=1e-4, name="second_derivative_through_triangular_loops")


def hvp_through_dependent_loops(x):
    s = 0.0
    for i in range(3):
        for j in range(i + 1):
            s = s + x[i] * x[j] * jnp.sin(x[i - j])
    return s


def _check_hvp(fn, args):
    H = fd_hessian(fn, args)
    t = np.array([0.4, -1.0, 0.7])
    _, hvp = astjax.jvp(astjax.grad(fn), tuple(args), (t,))
    return [(hvp, H @ t, "jvp(grad(f)) through dependent loops"),
            (astjax.jacfwd(astjax.grad(fn))(*args), H, "jacfwd(grad(f)) through dependent loops")]


case(hvp_through_dependent_loops, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_hvp, rtol=1e-4)


from collections import namedtuple  # noqa: E402

Params = namedtuple("Params", ["w", "b"])


def namedtuple_params(p, x):
    return jnp.sum(jnp.tanh(p.w * x + p.b) ** 2)


case(namedtuple_params, lambda r: (Params(vec(r, 3), vec(r, 3)), vec(r, 3)), "works")


def list_of_scalars_argument(coeffs):
    return coeffs[0] * coeffs[1] + jnp.sin(coeffs[2])


case(list_of_scalars_argument, lambda r: ([scalar(r), scalar(r), scalar(r)],), "works")


def nested_dict_list_argument(tree):
    s = 0.0
    for layer in tree["layers"]:
        s = s + jnp.sum(layer[0] * layer[1])
    return s + jnp.sum(tree["scale"] ** 2)


case(nested_dict_list_argument,
     lambda r: ({"layers": [(vec(r, 2), vec(r, 2)), (vec(r, 3), vec(r, 3))], "scale": vec(r, 1)},), "works")


# ----------------------------------------------------------------- programs that must be refused (JAX refuses them)
def returns_tuple_without_has_aux(x):
    return jnp.sum(x ** 2), jnp.sum(x)


case(returns_tuple_without_has_aux, lambda r: (vec(r, 3),), "refuse", errors=(TypeError,),
     error_match="(?i)scalar|tuple|has_aux")


def returns_integer(x):
    return jnp.sum(x > 0)


case(returns_integer, lambda r: (vec(r, 3),), "refuse", errors=(TypeError,), error_match="(?i)int|float|real|dtype")


def returns_complex(x):
    return jnp.sum(x * 1j)


case(returns_complex, lambda r: (vec(r, 3),), "refuse", errors=(TypeError,),
     error_match="(?i)complex|holomorphic|real")


def one_argument_only(x):
    return jnp.sum(x ** 2)


case(one_argument_only, lambda r: (vec(r, 3),), "refuse", argnums=2, errors=(TypeError, ValueError, IndexError),
     error_match="(?i)argnum|argument|out of (range|bounds)", name="argnums_out_of_range")


def _check_has_aux_scalar(fn, args):
    return [(astjax.grad(fn, has_aux=True)(*args)[0], np.zeros(3), "has_aux with a scalar output")]


case(one_argument_only, lambda r: (vec(r, 3),), "refuse", mode="custom", check=_check_has_aux_scalar,
     errors=(TypeError, ValueError), error_match="(?i)aux|pair|tuple", name="has_aux_on_scalar_output")


def _check_jvp_of_custom_vjp(fn, args):
    _, t = astjax.jvp(fn, tuple(args), (np.ones(3),))
    return [(t, np.ones(3), "jvp of a custom_vjp function")]


case(uses_custom_vjp, lambda r: (vec(r, 3),), "refuse", mode="custom", check=_check_jvp_of_custom_vjp,
     errors=(TypeError,), error_match="(?i)custom_vjp|forward|jvp", name="jvp_of_custom_vjp_function",
     note="JAX: can't apply forward-mode autodiff (jvp) to a custom_vjp function")


def generator_function(x):
    yield jnp.sum(x)


case(generator_function, lambda r: (vec(r, 3),), "refuse", errors=(TypeError,), error_match="(?i)generator|scalar")


def string_argument_differentiated(x, name):
    return jnp.sum(x) * len(name)


case(string_argument_differentiated, lambda r: (vec(r, 3), "abc"), "refuse", argnums=1, errors=(TypeError,),
     error_match="(?i)str|float|type|array")


def _tanh_derivative(x, order):
    """d^order/dx^order tanh(x), from d/dx P(t) = P'(t) (1 - t^2) with t = tanh(x)."""
    P = np.polynomial.Polynomial([0.0, 1.0])
    for _ in range(order):
        P = P.deriv() * np.polynomial.Polynomial([1.0, 0.0, -1.0])
    return P(np.tanh(x))


def _check_fifth_tanh(fn, args):
    g = fn
    for _ in range(5):
        g = astjax.grad(g)
    return [(g(*args), _tanh_derivative(float(args[0]), 5), "5th derivative of exp-written tanh (closed form)")]


case(exp_written_tanh, lambda r: (scalar(r, 0.2, 0.6),), "works", mode="custom", check=_check_fifth_tanh, rtol=1e-6,
     name="fifth_derivative_exp_tanh_in_time",
     note="issue 6: the 5th derivative took 17 s to build; the case's timeout is 20 s")
