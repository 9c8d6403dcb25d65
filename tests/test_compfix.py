"""Regressions of the composition and container fixes (issues 6 and 8): each derivative checked against
central finite differences and a second mode, each vmap against a Python loop."""
from typing import NamedTuple

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax


def _fd_grad(f, x, h=1e-6):
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def _fd_jacobian(f, x, h=1e-6):
    x = np.asarray(x, dtype=np.float64)
    cols = []
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h))
    return np.stack(cols, axis=-1).reshape(np.shape(f(x)) + x.shape)


# ------------------------------------------------------------------ 1. grad of a vmap that loops over examples
def select_clamp(x):
    y = lax.select(x > 0.0, x * x, -0.5 * x)       # no batching rule: vmap loops over the examples
    z = lax.clamp(-0.4, y, 0.7)
    return jnp.sum(z * jnp.cos(x))


def select_clamp_batch(xs):
    return jnp.sum(astjax.vmap(select_clamp)(xs))


def select_clamp_rows(xs):
    return astjax.vmap(select_clamp)(xs) * jnp.arange(1.0, 3.0)


def _loop_batch(xs):
    return sum(float(select_clamp(x)) for x in xs)


_XS = np.array([[0.3, -0.2, 0.9], [0.1, 0.5, -1.0]])


def test_grad_of_vmap_that_loops_over_examples():
    g = astjax.grad(select_clamp_batch)(_XS)
    np.testing.assert_allclose(g, _fd_grad(_loop_batch, _XS), rtol=1e-6, atol=1e-8)
    t = np.random.default_rng(0).standard_normal(_XS.shape)
    value, tangent = astjax.jvp(select_clamp_batch, (_XS,), (t,))
    np.testing.assert_allclose(value, _loop_batch(_XS), rtol=1e-12)
    np.testing.assert_allclose(tangent, np.vdot(g, t), rtol=1e-9)


def test_jacobians_of_vmap_that_loops_over_examples():
    J = _fd_jacobian(lambda v: np.array([select_clamp(r) for r in v]) * np.arange(1.0, 3.0), _XS)
    np.testing.assert_allclose(astjax.jacrev(select_clamp_rows)(_XS), J, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(astjax.jacfwd(select_clamp_rows)(_XS), J, rtol=1e-6, atol=1e-8)


def test_hessian_of_vmap_that_loops_over_examples():
    """Second order: a boolean mask restored from the tape in the loop is not taken for a varied value."""
    H = astjax.hessian(select_clamp_batch)(_XS).reshape(6, 6)
    H_fd = _fd_jacobian(lambda v: np.asarray(astjax.grad(select_clamp_batch)(v)), _XS).reshape(6, 6)
    np.testing.assert_allclose(H, H_fd, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(astjax.jacrev(astjax.grad(select_clamp_batch))(_XS).reshape(6, 6), H_fd,
                               rtol=1e-5, atol=1e-7)


def masked_loop_sum(x):
    m = x > 0.0
    s = 0.0
    for i in range(3):
        mi = m[i]
        s = s + lax.select(mi, x[i] * x[i], -0.5 * x[i])
    return s


def test_hessian_of_loop_over_a_boolean_mask():
    x = np.array([0.3, -0.2, 0.9])
    np.testing.assert_allclose(astjax.hessian(masked_loop_sum)(x), np.diag([2.0, 0.0, 2.0]), atol=1e-12)


class _Affine:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return jnp.tanh(x @ self.W + self.b)

    @property
    def norm(self):
        return jnp.sum(self.W ** 2)


def affine_loss(W):
    layer = _Affine(W, np.array([0.1, -0.2]))
    y = layer(np.array([0.5, -1.0, 2.0]))
    return jnp.sum(y ** 2) + 0.01 * layer.norm


def affine_batch(Ws):
    return jnp.sum(astjax.vmap(affine_loss)(Ws))


def test_grad_of_vmap_over_an_object_built_per_example():
    """The record of a class instance is a container vmap builds example by example (stack_examples of
    dicts) and reads with batch_getitem: both have derivative rules for any pytree."""
    Ws = np.random.default_rng(1).standard_normal((3, 3, 2)) * 0.5
    g = astjax.grad(affine_batch)(Ws)
    np.testing.assert_allclose(g, _fd_grad(lambda v: sum(float(affine_loss(w)) for w in v), Ws),
                               rtol=1e-6, atol=1e-8)


def top_two(x):
    s = jnp.sort(x)
    return jnp.sum(s[-2:] * jnp.array([1.0, 2.0]))


def test_grad_of_vmap_slicing_a_value_of_unknown_kind():
    xs = np.array([[0.1, 0.5, -0.3, 0.9], [0.4, -0.1, 0.2, 0.0]])
    g = astjax.grad(lambda v: jnp.sum(astjax.vmap(top_two)(v)))(xs)
    np.testing.assert_allclose(g, _fd_grad(lambda v: sum(float(top_two(r)) for r in v), xs), atol=1e-8)


# ------------------------------------------------------------------ 2. lax.switch with its branch list in a name
def _cube_sum(v):
    return jnp.sum(v ** 3)


def switch_named_branches(x):
    idx = jnp.argmax(x)
    branches = [lambda v: jnp.sum(v ** 2), _cube_sum, lambda v: jnp.prod(v) * x[0]]
    return lax.switch(idx, branches, x)


def switch_rebound_branches(x):
    branches = [lambda v: jnp.sum(v ** 2), _cube_sum]
    if x[0] > 0.0:
        branches = [_cube_sum, lambda v: jnp.sum(v ** 2)]
    return lax.switch(1, branches, x)


def switch_mutated_branches(x):
    branches = [lambda v: jnp.sum(v ** 2)]
    branches.append(_cube_sum)
    return lax.switch(1, branches, x)


def switch_branches_parameter(x, branches):
    return lax.switch(0, branches, x)


@pytest.mark.parametrize("x", [np.array([0.9, 0.2, -0.4]), np.array([0.1, 0.7, -0.4]), np.array([0.1, 0.2, 0.8])])
def test_switch_with_branch_list_in_a_name(x):
    np.testing.assert_allclose(astjax.grad(switch_named_branches)(x),
                               _fd_grad(lambda v: float(switch_named_branches(v)), x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(astjax.jit(switch_named_branches)(x), switch_named_branches(x), rtol=1e-12)
    xs = np.stack([x, x[::-1], 0.5 * x])
    np.testing.assert_allclose(astjax.vmap(switch_named_branches)(xs), [switch_named_branches(r) for r in xs],
                               rtol=1e-12)


@pytest.mark.parametrize("fn", [switch_rebound_branches, switch_mutated_branches])
def test_switch_branch_list_that_changes_is_refused(fn):
    with pytest.raises(astjax.errors.AstjaxError) as info:
        astjax.grad(fn)(np.array([0.3, 0.2]))
    assert "test_compfix.py" in str(info.value) and "lax.switch" in str(info.value)


def test_switch_branch_list_passed_in_is_refused():
    with pytest.raises(astjax.errors.AstjaxError) as info:
        astjax.grad(switch_branches_parameter)(np.array([0.3, 0.2]), [_cube_sum])
    assert "test_compfix.py" in str(info.value)


# ------------------------------------------------------------------ 3. NamedTuple and dataclass built inside
import dataclasses  # noqa: E402


class _State(NamedTuple):
    q: object
    v: object
    damping: float = 0.1


def namedtuple_steps(x):
    s = _State(q=x, v=x * 0.0)
    for _ in range(3):
        s = _State(s.q + 0.1 * s.v, v=s.v - 0.1 * jnp.sin(s.q), damping=s.damping)
    return jnp.sum(s.q ** 2 + s.v * s.damping)


def namedtuple_out(x):
    return _State(q=jnp.sin(x), v=x * x, damping=2.0)


@dataclasses.dataclass
class _Params:
    w: object
    b: object = 0.5


@dataclasses.dataclass(frozen=True)
class _Frozen:
    w: object
    scale: float


def dataclass_loss(w):
    p = _Params(w=w)
    return jnp.sum(jnp.sin(p.w * p.b) * p.w) + p.b * jnp.sum(p.w)


def frozen_dataclass_loss(w):
    p = _Frozen(w * 2.0, 3.0)
    return jnp.sum(p.w ** 3) * p.scale


@dataclasses.dataclass
class _Checked:
    w: object

    def __post_init__(self):
        self.w = self.w * 2.0


def post_init_loss(w):
    p = _Checked(w)
    return jnp.sum(p.w)


def dataclass_escapes(w):
    p = _Params(w)
    return _use_params(p)


def _use_params(p):
    return jnp.sum(p.w ** 2) * p.b


_W = np.array([0.3, -0.5, 0.8])


@pytest.mark.parametrize("fn", [namedtuple_steps, dataclass_loss, frozen_dataclass_loss])
def test_record_built_inside_differentiates(fn):
    g_fd = _fd_grad(lambda v: float(fn(v)), _W)
    np.testing.assert_allclose(astjax.grad(fn)(_W), g_fd, rtol=1e-6, atol=1e-8)
    t = np.array([0.2, -0.1, 0.4])
    value, tangent = astjax.jvp(fn, (_W,), (t,))
    np.testing.assert_allclose(value, fn(_W), rtol=1e-12)
    np.testing.assert_allclose(tangent, g_fd @ t, rtol=1e-6)
    H_fd = _fd_jacobian(lambda v: np.asarray(astjax.grad(fn)(v)), _W)
    np.testing.assert_allclose(astjax.hessian(fn)(_W), H_fd, rtol=1e-5, atol=1e-7)
    xs = np.stack([_W, 0.5 * _W, _W[::-1]])
    np.testing.assert_allclose(astjax.vmap(fn)(xs), [fn(r) for r in xs], rtol=1e-12)
    np.testing.assert_allclose(astjax.vmap(astjax.grad(fn))(xs), [astjax.grad(fn)(r) for r in xs], rtol=1e-12)
    batch = astjax.grad(lambda v: jnp.sum(astjax.vmap(fn)(v)))(xs)
    np.testing.assert_allclose(batch, [astjax.grad(fn)(r) for r in xs], rtol=1e-12)


def test_namedtuple_result_built_inside():
    out, pullback = astjax.vjp(namedtuple_out, _W)
    assert isinstance(out, _State) and out.damping == 2.0
    np.testing.assert_allclose(out.q, np.sin(_W))
    ct = _State(q=np.ones(3), v=np.array([1.0, 2.0, 3.0]), damping=0.0)
    (g,) = pullback(ct)
    np.testing.assert_allclose(g, np.cos(_W) + 2 * _W * np.array([1.0, 2.0, 3.0]), rtol=1e-12)
    J = astjax.jacfwd(namedtuple_out)(_W)
    np.testing.assert_allclose(J.v, np.diag(2 * _W), rtol=1e-12)


@pytest.mark.parametrize("fn", [post_init_loss, dataclass_escapes])
def test_record_that_is_not_plain_data_is_refused_or_right(fn):
    try:
        got = astjax.grad(fn)(_W)
    except astjax.errors.AstjaxError as exc:
        assert "test_compfix.py" in str(exc)
        return
    np.testing.assert_allclose(got, _fd_grad(lambda v: float(fn(v)), _W), rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ 4. compositions
def _dict_loss(params, X):
    h = jnp.tanh(X @ params["W"] + params["b"])
    return jnp.sum(h ** 2)


_XD = np.linspace(-1.0, 1.0, 6).reshape(3, 2)


def step_then_loss(params):
    g = astjax.grad(_dict_loss)(params, _XD)
    new = astjax.tree_util.tree_map(lambda p, d: p - 0.3 * d, params, g)
    return _dict_loss(new, _XD)


def test_jvp_of_function_calling_grad_then_tree_map():
    """The gradient of a dict (the items reached, inside generated code) is shaped as grad returns it."""
    params = {"W": np.array([[0.3, -0.2], [0.5, 0.1]]), "b": np.array([0.1, -0.4])}
    t = {"W": np.array([[1.0, 0.5], [-0.3, 0.2]]), "b": np.array([0.7, -0.1])}
    value, tangent = astjax.jvp(step_then_loss, (params,), (t,))
    np.testing.assert_allclose(value, step_then_loss(params), rtol=1e-12)
    h = 1e-6
    plus = {k: params[k] + h * t[k] for k in params}
    minus = {k: params[k] - h * t[k] for k in params}
    fd = (float(step_then_loss(plus)) - float(step_then_loss(minus))) / (2 * h)
    np.testing.assert_allclose(tangent, fd, rtol=1e-6)
    g = astjax.grad(step_then_loss)(params)
    np.testing.assert_allclose(tangent, sum(np.vdot(g[k], t[k]) for k in params), rtol=1e-6)


def scan_outputs(x):
    def step(c, xi):
        c = c * 0.8 + xi * xi
        return c, c * xi
    _, ys = lax.scan(step, 0.0, x)
    return ys


def test_vmap_of_jacrev_of_function_with_local_def_returning_a_tuple():
    """The function returns one array; only its local `step` returns a tuple."""
    xs = np.array([[0.3, -0.5, 0.8, 0.2], [0.1, 0.4, -0.2, 0.6]])
    got = astjax.vmap(astjax.jacrev(scan_outputs))(xs)
    np.testing.assert_allclose(got, np.stack([_fd_jacobian(scan_outputs, x) for x in xs]), rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ 5. refusals inside astjax's library name the user's call
import astjax.scipy.stats as _astats  # noqa: E402


def beta_cdf_of_shape(x):
    return jnp.sum(_astats.beta.cdf(0.4, jnp.exp(x), 2.0))


def test_refusal_inside_library_function_names_the_users_call():
    with pytest.raises(astjax.errors.TransformError) as info:
        astjax.grad(beta_cdf_of_shape)(np.array([0.1, 0.2]))
    assert info.value.filename.endswith("test_compfix.py")
    assert "betainc" in str(info.value)


# ------------------------------------------------------------------ 4b. grad of a function calling astjax.jvp
_XP = np.array([0.4, -0.3, 0.9])


def _tanh_cubed(x, w):
    return jnp.sum(jnp.tanh(x * w) ** 3)


def directional(v):
    value, slope = astjax.jvp(_tanh_cubed, (_XP, v), (v, v * 2.0))
    return slope * v[0] + value


def directional_packed(v):
    pair = (_XP, v)
    return astjax.jvp(_tanh_cubed, pair, (v, v))[1]


def test_grad_of_function_calling_jvp():
    v = np.array([0.2, -0.7, 0.5])
    np.testing.assert_allclose(astjax.grad(directional)(v), _fd_grad(lambda u: float(directional(u)), v),
                               rtol=1e-6, atol=1e-8)
    H_fd = _fd_jacobian(lambda u: np.asarray(astjax.grad(directional)(u)), v)
    np.testing.assert_allclose(astjax.hessian(directional)(v), H_fd, rtol=1e-5, atol=1e-7)


def test_jvp_call_with_primals_not_written_in_the_call_is_right_or_refused():
    v = np.array([0.2, -0.7, 0.5])
    try:
        got = astjax.grad(directional_packed)(v)
    except astjax.errors.AstjaxError as exc:
        assert "test_compfix.py" in str(exc)
        return
    np.testing.assert_allclose(got, _fd_grad(lambda u: float(directional_packed(u)), v), rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------ 4c. second derivatives through a custom_jvp
@astjax.custom_jvp
def _softplus(x):
    return jnp.log1p(jnp.exp(x))


@_softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _softplus(x), t * (1.0 / (1.0 + jnp.exp(-x)))


def softplus_loss(x):
    return jnp.sum(_softplus(x) * x)


def test_second_derivatives_through_custom_jvp_differentiate_its_rule():
    x = np.array([0.3, -0.5, 0.8])
    s = 1.0 / (1.0 + np.exp(-x))
    H = np.diag(2 * s + x * s * (1 - s))
    for make in (astjax.hessian, lambda f: astjax.jacfwd(astjax.grad(f)), lambda f: astjax.jacrev(astjax.grad(f))):
        np.testing.assert_allclose(make(softplus_loss)(x), H, rtol=1e-10, atol=1e-12)
    t = np.array([0.2, -1.0, 0.5])
    np.testing.assert_allclose(astjax.jvp(astjax.grad(softplus_loss), (x,), (t,))[1], H @ t, rtol=1e-10)
