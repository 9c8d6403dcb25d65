"""Transformations composed over real programs: every program here is run through batteries of
compositions, each compared with numbers computed without astjax (running the function, central
finite differences in float64, closed forms):

* "jit":  grad(jit(f)), jit(value_and_grad(f)), vjp with a cotangent of 2.5, and
          jvp(f) against finite differences and against grad(f) dotted with the tangent.
* "hess": hessian(f), jacfwd(grad(f)), jacrev(grad(f)) against second finite
          differences; the Hessian symmetric; jvp(grad(f)) equal to H @ t.
* "vmap": vmap(grad(f)) against a loop of finite-difference gradients, vmap(f) against a loop
          of f, vmap(value_and_grad(f)), and grad of the batch sum of vmap(f) (single-argument f).
* "jac":  vector output: jacfwd == jacrev == finite differences, vjp with a random cotangent,
          jvp along a random tangent, vmap(jacrev(f)) against a loop, jit(jacfwd(f)).

The programs: lax control flow (cond, switch, fori_loop with traced bounds, while_loop, scan with
tuple/dict carries, associative_scan, select, clamp), custom_jvp/custom_vjp functions, stop_gradient
in odd places, and real-program idioms (optimizer steps with tree_map, a GP marginal likelihood,
an RNN, softmax cross-entropy with integer labels, layer norm, masked attention, pairwise physics
energies, ODE integrators, Monte Carlo with fixed keys, classes, dataclasses, NamedTuples,
closures, recursion).
"""
import dataclasses
import functools
import math
from typing import NamedTuple

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax

from .case import case, vec, mat, spd, pos
from astjax.backends.numba_cpu import JitError
from astjax.errors import AstjaxError

from .harness import (fd_grad, fd_hessian, fd_jacobian, fd_directional, fresh, leaves, _scalar_value,
                      names_a_line_of, replace_leaves, _REFUSALS, _FLOAT0)

_COT = 2.5


def _zero_like(a):
    a = np.asarray(a)
    if np.issubdtype(a.dtype, np.inexact):
        return np.zeros(a.shape, a.dtype)
    return np.zeros(a.shape, dtype=_FLOAT0)


class _Battery:
    """Runs each composition of a battery; a clear refusal (an AstjaxError naming a line of this file)
    of one composition does not hide the others' numbers: it is listed after them as a failing triple
    labelled 'refused: ...' (so a wrong number is reported first, a refusal second)."""

    def __init__(self):
        self.triples, self.refusals = [], []

    def run(self, label, thunk):
        try:
            return thunk()
        except AstjaxError as exc:
            if not names_a_line_of(exc, _CURRENT_OUTCOME.get("file", __file__)):
                raise
            self.refusals.append((label, exc))
            return None

    def add(self, label, got, expected):
        if got is None:
            return
        if isinstance(expected, list):
            self.triples += _leafpairs(got, expected, label)
        else:
            self.triples.append((got, expected, label))

    def result(self):
        for label, exc in self.refusals:
            _REFUSALS.append(exc)
        # astjax.jit refuses by design what it cannot compile (JitError): accepted as a refusal; every
        # other refusal of ordinary code ("works") fails the case.
        hard = [(label, exc) for label, exc in self.refusals if not isinstance(exc, JitError)]
        if hard and _CURRENT_OUTCOME.get("works", True):
            msg = "; ".join(f"{label}: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}"
                            for label, exc in hard)
            self.triples.append((np.nan, 0.0, f"refused: {msg}"))
        if not self.triples:
            self.triples.append((0.0, 0.0, "everything refused clearly"))
        return self.triples


def _tangents(args, i, t):
    out = []
    for k, a in enumerate(args):
        if k == i:
            out.append(t)
        elif isinstance(a, (tuple, list, dict)):
            out.append(replace_leaves(a, [_zero_like(leaf) for leaf in leaves(a)]))
        else:
            out.append(_zero_like(a))
    return tuple(out)


def _leafpairs(got, expected, label):
    got = leaves(got)
    assert len(got) == len(expected), f"{label}: {len(got)} leaves, expected {len(expected)}"
    return [(g, e, f"{label} leaf {k}") for k, (g, e) in enumerate(zip(got, expected))]


def _float_args(args):
    return all(np.issubdtype(np.asarray(leaf).dtype, np.inexact) for a in args for leaf in leaves(a))


def _battery_jit(fn, args):
    B = _Battery()
    g_fd = fd_grad(fn, args, 0)
    value = _scalar_value(fn, args)
    B.add("grad(jit(f))", B.run("grad(jit(f))", lambda: astjax.grad(astjax.jit(fn))(*fresh(args))), g_fd)
    vg = B.run("jit(value_and_grad(f))", lambda: astjax.jit(astjax.value_and_grad(fn))(*fresh(args)))
    if vg is not None:
        B.add("jit(value_and_grad(f)) value", vg[0], value)
        B.add("jit(value_and_grad(f)) grad", vg[1], g_fd)
    if _float_args(args):
        got = B.run("vjp(f)", lambda: (lambda pv: (pv[0], pv[1](np.float64(_COT))[0]))(astjax.vjp(fn, *fresh(args))))
        if got is not None:
            B.add("vjp primal", got[0], value)
            B.add("vjp(f)(2.5)", got[1], [_COT * e for e in g_fd])
    rng = np.random.default_rng(11)
    t = replace_leaves(args[0], [rng.standard_normal(np.shape(leaf)) for leaf in leaves(args[0])])
    tangents = _tangents(args, 0, t)
    got = B.run("jvp(f)", lambda: astjax.jvp(fn, tuple(fresh(args)), tangents))
    if got is not None:
        [fd_dir] = fd_directional(fn, args, tangents, (0,))
        dot = sum(float(np.vdot(e, np.asarray(tt))) for e, tt in zip(g_fd, leaves(t)))
        B.add("jvp primal", got[0], value)
        B.add("jvp vs finite differences", got[1], fd_dir)
        B.add("jvp vs grad . t", got[1], dot)
    return B.result()


def _battery_hess(fn, args):
    B = _Battery()
    H = fd_hessian(fn, args, 0)
    n = np.size(args[0])
    h = B.run("hessian(f)", lambda: astjax.hessian(fn)(*fresh(args)))
    B.add("hessian(f)", h, H)
    if h is not None:
        h2 = np.asarray(h).reshape(n, n)
        B.add("hessian symmetric", h2, h2.T)
    B.add("jacfwd(grad(f))", B.run("jacfwd(grad(f))", lambda: astjax.jacfwd(astjax.grad(fn))(*fresh(args))), H)
    B.add("jacrev(grad(f))", B.run("jacrev(grad(f))", lambda: astjax.jacrev(astjax.grad(fn))(*fresh(args))), H)
    t = np.random.default_rng(5).standard_normal(np.shape(args[0]))
    got = B.run("jvp(grad(f))", lambda: astjax.jvp(astjax.grad(fn), tuple(fresh(args)), _tangents(args, 0, t)))
    if got is not None:
        B.add("jvp(grad(f)) = H t", got[1], (H.reshape(n, n) @ t.ravel()).reshape(np.shape(args[0])))
    return B.result()


def _batch_of(x):
    x = np.asarray(x, dtype=np.float64)
    return np.stack([x, 0.9 * x + 0.04, 1.1 * x - 0.03])


def _batch_sum(fn):
    def batch_loss(xs):
        return jnp.sum(astjax.vmap(fn)(xs))
    return batch_loss


def _battery_vmap(fn, args):
    B = _Battery()
    xs = _batch_of(args[0])
    rest = tuple(args[1:])
    ax = (0,) + (None,) * len(rest)
    loop_g = np.stack([fd_grad(fn, (x,) + rest, 0)[0] for x in xs])
    loop_v = np.array([_scalar_value(fn, (x,) + rest) for x in xs])
    B.add("vmap(grad(f))", B.run("vmap(grad(f))", lambda: astjax.vmap(astjax.grad(fn), in_axes=ax)(xs, *fresh(rest))),
          loop_g)
    B.add("vmap(f)", B.run("vmap(f)", lambda: astjax.vmap(fn, in_axes=ax)(xs, *fresh(rest))), loop_v)
    if not rest:
        B.add("grad(sum(vmap(f)))", B.run("grad(sum(vmap(f)))", lambda: astjax.grad(_batch_sum(fn))(xs)), loop_g)
    vg = B.run("vmap(value_and_grad(f))", lambda: astjax.vmap(astjax.value_and_grad(fn), in_axes=ax)(xs, *fresh(rest)))
    if vg is not None:
        B.add("vmap(value_and_grad(f)) value", vg[0], loop_v)
        B.add("vmap(value_and_grad(f)) grad", vg[1], loop_g)
    return B.result()


def _battery_jac(fn, args):
    B = _Battery()
    [J] = fd_jacobian(fn, args, 0)
    out_shape = J.shape[:J.ndim - np.ndim(args[0])]
    rng = np.random.default_rng(13)
    ct = rng.standard_normal(out_shape)
    t = rng.standard_normal(np.shape(args[0]))
    m, n = int(np.prod(out_shape)), int(np.size(args[0]))
    J2 = J.reshape(m, n)
    B.add("jacfwd(f)", B.run("jacfwd(f)", lambda: astjax.jacfwd(fn)(*fresh(args))), J)
    B.add("jacrev(f)", B.run("jacrev(f)", lambda: astjax.jacrev(fn)(*fresh(args))), J)
    B.add("jit(jacfwd(f))", B.run("jit(jacfwd(f))", lambda: astjax.jit(astjax.jacfwd(fn))(*fresh(args))), J)
    got = B.run("vjp(f)", lambda: (lambda pv: (pv[0], pv[1](ct)[0]))(astjax.vjp(fn, *fresh(args))))
    if got is not None:
        B.add("vjp primal", got[0], np.asarray(fn(*fresh(args)), dtype=np.float64))
        B.add("vjp(f)(ct)", got[1], (ct.ravel() @ J2).reshape(np.shape(args[0])))
    got = B.run("jvp(f)", lambda: astjax.jvp(fn, tuple(fresh(args)), _tangents(args, 0, t)))
    if got is not None:
        B.add("jvp(f)(t)", got[1], (J2 @ t.ravel()).reshape(out_shape))
    xs = _batch_of(args[0])
    rest = tuple(args[1:])
    loop = np.stack([fd_jacobian(fn, (x,) + rest, 0)[0] for x in xs])
    B.add("vmap(jacrev(f))", B.run("vmap(jacrev(f))", lambda: astjax.vmap(
        astjax.jacrev(fn), in_axes=(0,) + (None,) * len(rest))(xs, *fresh(rest))), loop)
    return B.result()


_BATTERIES = {"jit": _battery_jit, "hess": _battery_hess, "vmap": _battery_vmap, "jac": _battery_jac}


_CURRENT_OUTCOME = {}


def _checked_as(battery, outcome, file=__file__):
    """A check running `battery`; refusals must name a line of `file` (the module defining the case)."""
    def check(fn, args):
        _CURRENT_OUTCOME["works"] = outcome == "works"
        _CURRENT_OUTCOME["file"] = file
        return battery(fn, args)
    return check


def compose(fn, make_args, batteries=("jit", "hess", "vmap"), outcome="works", rtol=1e-4, **kw):
    """Register one case per battery of compositions for fn (a function of args[0])."""
    for b in batteries:
        case(fn, make_args, outcome, mode="custom", check=_checked_as(_BATTERIES[b], outcome), rtol=rtol,
             name=f"{fn.__name__}_{b}", **kw)
    return fn


# ================================================================ lax control flow
def cond_branches(x):
    return lax.cond(jnp.sum(x) > 0.0, lambda v: jnp.sum(jnp.sin(v) * v), lambda v: jnp.sum(v ** 3), x)


compose(cond_branches, lambda r: (vec(r, 3) + 0.5,))


def cond_negative_branch(x):
    return lax.cond(jnp.sum(x) > 0.0, lambda v: jnp.sum(jnp.sin(v) * v), lambda v: jnp.sum(v ** 3), x)


compose(cond_negative_branch, lambda r: (vec(r, 3) - 0.5,))


def cond_two_operands(x, w):
    return lax.cond(x[0] < w[0], lambda a, b: jnp.sum(a * b * a), lambda a, b: jnp.sum(jnp.exp(a) - b), x, w)


compose(cond_two_operands, lambda r: (vec(r, 3), vec(r, 3)))


def cond_inside_loop(x):
    s = 0.0
    for i in range(3):
        s = s + lax.cond(x[i] > 0.0, lambda v: v * v * x[0], lambda v: jnp.cos(v), x[i])
    return s


compose(cond_inside_loop, lambda r: (vec(r, 3),))


def switch_three(x):
    idx = jnp.argmax(x)
    branches = [lambda v: jnp.sum(v ** 2), lambda v: jnp.sum(jnp.sin(v)), lambda v: jnp.prod(v)]
    return lax.switch(idx, branches, x)


compose(switch_three, lambda r: (vec(r, 3),))


def switch_clamped_out_of_range(x):
    return lax.switch(7, [lambda v: jnp.sum(v), lambda v: jnp.sum(v * v * v)], x)


compose(switch_clamped_out_of_range, lambda r: (vec(r, 3),))


def fori_traced_bound(x, n):
    def body(i, acc):
        return acc * x[0] + jnp.sin(x[1] * i)
    return lax.fori_loop(0, n, body, 1.0)


compose(fori_traced_bound, lambda r: (vec(r, 2), 4), batteries=("jit", "hess"))


def fori_bound_from_shape(x):
    def body(i, acc):
        return acc + x[i] * x[(i + 1) % x.shape[0]]
    return lax.fori_loop(0, x.shape[0], body, 0.0)


compose(fori_bound_from_shape, lambda r: (vec(r, 4),))


def fori_tuple_carry(x):
    def body(i, c):
        a, b = c
        return (a * 0.9 + b * x[i], b + jnp.tanh(a))
    a, b = lax.fori_loop(0, 3, body, (x[0], x[1]))
    return a * b


compose(fori_tuple_carry, lambda r: (vec(r, 3),))


def while_newton_sqrt(x):
    def cond_fun(c):
        return c[1] < 6
    def body(c):
        y, k = c
        return (0.5 * (y + x / y), k + 1)
    y, _ = lax.while_loop(cond_fun, body, (x, 0))
    return jnp.sum(y)


compose(while_newton_sqrt, lambda r: (pos(r, 3, 1.0, 3.0),), outcome="either")


def while_data_dependent(x):
    def cond_fun(c):
        return c[0] < 5.0
    def body(c):
        v, s = c
        return (v * 1.5, s + jnp.sin(v))
    v, s = lax.while_loop(cond_fun, body, (x[0], 0.0))
    return s * x[1] + v


compose(while_data_dependent, lambda r: (pos(r, 2, 0.6, 1.4),), outcome="either")


def scan_tuple_carry(x):
    def step(c, xi):
        h, s = c
        h = jnp.tanh(0.7 * h + xi)
        return (h, s + h * h), h * 2.0
    (h, s), ys = lax.scan(step, (0.0, 0.0), x)
    return s + jnp.sum(ys * x) + h


compose(scan_tuple_carry, lambda r: (vec(r, 4),))


def scan_dict_carry(x):
    def step(c, xi):
        m = c["m"] * 0.5 + xi
        v = c["v"] * 0.5 + xi * xi
        return {"m": m, "v": v}, m / jnp.sqrt(v + 1.0)
    c, ys = lax.scan(step, {"m": 0.0, "v": 1.0}, x)
    return jnp.sum(ys) + c["m"] * c["v"]


compose(scan_dict_carry, lambda r: (vec(r, 4),))


def scan_reverse(x):
    def step(c, xi):
        c = c * xi + 1.0
        return c, c
    c, ys = lax.scan(step, 0.5, x, reverse=True)
    return c + jnp.sum(ys * ys)


compose(scan_reverse, lambda r: (vec(r, 4),))


def scan_tuple_xs(x):
    w = x * 2.0 - 1.0
    def step(c, xs):
        a, b = xs
        return c + a * b * c, a - b
    c, ys = lax.scan(step, 1.0, (x, w))
    return c + jnp.sum(jnp.sin(ys))


compose(scan_tuple_xs, lambda r: (vec(r, 3),))


def associative_cumulative(x):
    return jnp.sum(lax.associative_scan(jnp.add, x) ** 2) + jnp.sum(lax.associative_scan(jnp.multiply, x))


compose(associative_cumulative, lambda r: (vec(r, 5),))


def select_and_clamp(x):
    y = lax.select(x > 0.0, x * x, jnp.sin(x))
    return jnp.sum(lax.clamp(-0.5, y * 3.0, 0.7) * x)


compose(select_and_clamp, lambda r: (vec(r, 4),))


def lax_map_rows(A):
    return jnp.sum(lax.map(lambda row: jnp.dot(row, row) * row[0], A))


compose(lax_map_rows, lambda r: (mat(r, 3),), batteries=("jit", "hess"))


# ================================================================ custom derivatives, stop_gradient
@astjax.custom_jvp
def _safe_log1pexp(x):
    return jnp.log1p(jnp.exp(x))


@_safe_log1pexp.defjvp
def _safe_log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _safe_log1pexp(x), t * (1.0 / (1.0 + jnp.exp(-x)))


def custom_jvp_softplus_loss(x):
    return jnp.sum(_safe_log1pexp(x) * x)


compose(custom_jvp_softplus_loss, lambda r: (vec(r, 3),))


@astjax.custom_vjp
def _scaled_sin(x):
    return jnp.sin(x)


def _scaled_sin_fwd(x):
    return jnp.sin(x), jnp.cos(x)


def _scaled_sin_bwd(c, g):
    return (g * c,)


_scaled_sin.defvjp(_scaled_sin_fwd, _scaled_sin_bwd)


def custom_vjp_sin_loss(x):
    return jnp.sum(_scaled_sin(x) * x)


compose(custom_vjp_sin_loss, lambda r: (vec(r, 3),), batteries=("jit", "vmap"), outcome="either")
compose(custom_vjp_sin_loss, lambda r: (vec(r, 3),), batteries=("hess",), outcome="either")


def stop_gradient_straight_through(x):
    q = jnp.round(x * 4.0) / 4.0
    y = x + lax.stop_gradient(q - x)
    return jnp.sum(y * y * x)


def _straight_through_check(fn, args):
    x = args[0]
    q = np.round(x * 4.0) / 4.0
    g = 2 * q * x + q * q
    # d/dx of the gradient 2 y x + y^2 (y' = 1 through the straight-through estimator): 2 x + 4 q
    H = np.diag(2 * x + 4 * q)
    t = np.array([1.0, -2.0, 0.5])
    B = _Battery()
    for label, thunk, want in (
            ("jit(grad)", lambda: astjax.jit(astjax.grad(fn))(x), g),
            ("grad(jit)", lambda: astjax.grad(astjax.jit(fn))(x), g),
            ("vmap(grad)", lambda: astjax.vmap(astjax.grad(fn))(np.stack([x, x])), np.stack([g, g])),
            ("hessian", lambda: astjax.hessian(fn)(x), H),
            ("jacfwd(grad)", lambda: astjax.jacfwd(astjax.grad(fn))(x), H),
            ("jvp", lambda: astjax.jvp(fn, (x,), (t,))[1], g @ t)):
        B.add(label + " straight-through", B.run(label, thunk), want)
    return B.result()


case(stop_gradient_straight_through, lambda r: (np.array([0.31, -0.62, 0.9]),), "works", mode="custom",
     check=_checked_as(_straight_through_check, "works"), rtol=1e-6)


def stop_gradient_on_carry(x):
    s = x[0]
    for i in range(3):
        s = lax.stop_gradient(s) * 0.5 + x[i] * s
    return s


def _stop_carry_truth(x):
    # s_k = sg(s_{k-1}) * .5 + x_k * s_{k-1}; derivative flows through x_k * s_{k-1} only
    s = x[0]
    ds = np.array([1.0, 0.0, 0.0])
    for i in range(3):
        e = np.zeros(3)
        e[i] = 1.0
        ds = x[i] * ds + s * e
        s = s * 0.5 + x[i] * s
    return ds


def _stop_carry_check(fn, args):
    x = args[0]
    g = _stop_carry_truth(x)
    B = _Battery()
    for label, thunk, want in (
            ("jit(grad)", lambda: astjax.jit(astjax.grad(fn))(x), g),
            ("grad", lambda: astjax.grad(fn)(x), g),
            ("jvp", lambda: astjax.jvp(fn, (x,), (np.ones(3),))[1], g.sum()),
            ("vmap(grad)", lambda: astjax.vmap(astjax.grad(fn))(np.stack([x, x])), np.stack([g, g])),
            ("hessian symmetric", lambda: astjax.hessian(fn)(x), np.asarray(astjax.hessian(fn)(x)).T)):
        B.add(label, B.run(label, thunk), want)
    # Second order: stop_gradient also blocks the outer derivative of s (JAX's semantics), so the Hessian
    # is not the finite-difference Jacobian of the first-order gradient formula: the three forms agree.
    H = B.run("hessian", lambda: astjax.hessian(fn)(x))
    B.add("jacrev(grad) == hessian", B.run("jacrev(grad)", lambda: astjax.jacrev(astjax.grad(fn))(x)), H)
    B.add("jacfwd(grad) == hessian", B.run("jacfwd(grad)", lambda: astjax.jacfwd(astjax.grad(fn))(x)), H)
    return B.result()


case(stop_gradient_on_carry, lambda r: (vec(r, 3),), "works", mode="custom",
     check=_checked_as(_stop_carry_check, "works"))


# ================================================================ real programs
def _mlp_params(r):
    return {"W1": mat(r, 3, 4) * 0.5, "b1": vec(r, 4) * 0.1, "W2": mat(r, 4, 2) * 0.5, "b2": vec(r, 2) * 0.1}


_X = np.linspace(-1, 1, 15).reshape(5, 3)
_Y = np.array([0, 1, 1, 0, 1])


def _mlp_loss(params, X, y):
    h = jnp.tanh(X @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    logp = logits - jax_logsumexp(logits)
    return -jnp.mean(logp[jnp.arange(y.shape[0]), y])


def jax_logsumexp(z):
    m = jnp.max(z, axis=-1, keepdims=True)
    return m + jnp.log(jnp.sum(jnp.exp(z - lax.stop_gradient(m) * 0.0 - m), axis=-1, keepdims=True))


def optimizer_step_then_loss(params):
    g = astjax.grad(_mlp_loss)(params, _X, _Y)
    new = astjax.tree_util.tree_map(lambda p, d: p - 0.3 * d, params, g)
    return _mlp_loss(new, _X, _Y)


case(optimizer_step_then_loss, lambda r: (_mlp_params(r),), "either", rtol=1e-4, jvp=False)
compose(optimizer_step_then_loss, lambda r: (_mlp_params(r),), batteries=("jit",), outcome="either")


def softmax_xent_labels(W, X, y):
    logits = X @ W
    logits = logits - jnp.max(logits, axis=1, keepdims=True)
    logp = logits - jnp.log(jnp.sum(jnp.exp(logits), axis=1, keepdims=True))
    return -jnp.mean(logp[jnp.arange(X.shape[0]), y])


compose(softmax_xent_labels, lambda r: (mat(r, 3, 2), _X, _Y))


def softmax_xent_take_along(W, X, y):
    logp = astjax.nn.log_softmax(X @ W, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


compose(softmax_xent_take_along, lambda r: (mat(r, 3, 2), _X, _Y))


def layer_norm(x):
    mu = jnp.mean(x)
    var = jnp.mean((x - mu) ** 2)
    y = (x - mu) / jnp.sqrt(var + 1e-5)
    return jnp.sum(y * jnp.arange(1.0, x.shape[0] + 1.0) * y[0])


compose(layer_norm, lambda r: (vec(r, 4),))


def layer_norm_rows(X):
    mu = X.mean(axis=-1, keepdims=True)
    sd = X.std(axis=-1, keepdims=True)
    return jnp.sum(((X - mu) / (sd + 1e-3)) ** 3)


compose(layer_norm_rows, lambda r: (mat(r, 2, 3),))


def masked_attention(Q):
    K = Q * 0.5 + 0.1
    V = jnp.sin(Q)
    scores = Q @ K.T / math.sqrt(Q.shape[1])
    mask = jnp.tril(jnp.ones((Q.shape[0], Q.shape[0]), dtype=bool))
    scores = jnp.where(mask, scores, -1e9)
    w = astjax.nn.softmax(scores, axis=-1)
    return jnp.sum((w @ V) ** 2)


compose(masked_attention, lambda r: (mat(r, 3, 2),))


def masked_attention_manual_softmax(Q):
    scores = Q @ Q.T
    n = Q.shape[0]
    mask = np.triu(np.ones((n, n)), 1) > 0
    scores = jnp.where(mask, -jnp.inf, scores)
    e = jnp.exp(scores - jnp.max(scores, axis=1, keepdims=True))
    w = e / jnp.sum(e, axis=1, keepdims=True)
    return jnp.sum(w @ Q * Q)


compose(masked_attention_manual_softmax, lambda r: (mat(r, 3, 2),))


def gp_neg_log_marginal(theta, X, y):
    ell, sf, sn = jnp.exp(theta[0]), jnp.exp(theta[1]), jnp.exp(theta[2])
    d2 = (X[:, None] - X[None, :]) ** 2
    K = sf ** 2 * jnp.exp(-0.5 * d2 / ell ** 2) + (sn ** 2 + 1e-6) * jnp.eye(X.shape[0])
    L = jnp.linalg.cholesky(K)
    alpha = astjax.scipy.linalg.solve_triangular(L, y, lower=True)
    return 0.5 * jnp.dot(alpha, alpha) + jnp.sum(jnp.log(jnp.diag(L)))


_GX = np.array([0.0, 0.4, 1.1, 1.7, 2.5])
_GY = np.sin(_GX)
compose(gp_neg_log_marginal, lambda r: (np.array([0.1, -0.2, -1.0]) + vec(r, 3) * 0.1, _GX, _GY))


def gp_cho_solve(theta):
    K = jnp.exp(-0.5 * (_GX[:, None] - _GX[None, :]) ** 2 / jnp.exp(theta[0])) + jnp.exp(theta[1]) * jnp.eye(5)
    c = astjax.scipy.linalg.cho_factor(K, lower=True)
    a = astjax.scipy.linalg.cho_solve(c, _GY)
    return _GY @ a + 2.0 * jnp.sum(jnp.log(jnp.diag(c[0])))


compose(gp_cho_solve, lambda r: (np.array([0.2, -1.5]) + vec(r, 2) * 0.1,), outcome="either")


def rnn_python_loop(Wh, xs):
    h = jnp.zeros(3)
    total = 0.0
    for t in range(xs.shape[0]):
        h = jnp.tanh(Wh @ h + xs[t])
        total = total + jnp.sum(h ** 2) * (t + 1)
    return total


compose(rnn_python_loop, lambda r: (mat(r, 3) * 0.5, mat(r, 4, 3)))


def rnn_list_of_states(Wh, xs):
    hs = [jnp.zeros(3)]
    for x in xs:
        hs.append(jnp.tanh(Wh @ hs[-1] + x))
    return jnp.sum(jnp.stack(hs[1:]) * xs)


compose(rnn_list_of_states, lambda r: (mat(r, 3) * 0.5, mat(r, 3, 3)))


def rnn_scan(Wh, xs):
    def step(h, x):
        h = jnp.tanh(Wh @ h + x)
        return h, jnp.sum(h)
    h, ys = lax.scan(step, jnp.zeros(3), xs)
    return jnp.sum(ys ** 2) + jnp.sum(h)


compose(rnn_scan, lambda r: (mat(r, 3) * 0.5, mat(r, 4, 3)))


def pairwise_energy_loops(x):
    n = x.shape[0] // 2
    P = x.reshape(n, 2)
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = P[i] - P[j]
            r2 = jnp.sum(d * d) + 0.1
            e = e + 1.0 / r2 ** 6 - 1.0 / r2 ** 3
    return e


compose(pairwise_energy_loops, lambda r: (np.array([0.0, 0.0, 1.1, 0.1, 0.2, 1.2, 1.3, 1.0]) + vec(r, 8) * 0.05,),
        rtol=1e-3)


def pairwise_energy_vectorized(x):
    P = x.reshape(-1, 2)
    d = P[:, None, :] - P[None, :, :]
    r2 = jnp.sum(d ** 2, axis=-1) + 0.1
    iu = jnp.triu_indices(P.shape[0], 1)
    r2 = r2[iu]
    return jnp.sum(1.0 / r2 ** 6 - 1.0 / r2 ** 3)


compose(pairwise_energy_vectorized, lambda r: (np.array([0.0, 0.0, 1.1, 0.1, 0.2, 1.2, 1.3, 1.0]) + vec(r, 8) * 0.05,),
        rtol=1e-3)


def forces_from_energy(x):
    return -astjax.grad(pairwise_energy_vectorized)(x)


compose(forces_from_energy, lambda r: (np.array([0.0, 0.0, 1.1, 0.1, 0.2, 1.2]) + vec(r, 6) * 0.05,),
        batteries=("jac",), rtol=1e-3)


def coulomb_masked(x):
    P = x.reshape(-1, 2)
    n = P.shape[0]
    d = P[:, None, :] - P[None, :, :]
    r = jnp.sqrt(jnp.sum(d ** 2, axis=-1) + jnp.eye(n))
    return jnp.sum(jnp.where(jnp.eye(n) > 0, 0.0, 1.0 / r)) / 2.0


compose(coulomb_masked, lambda r: (np.array([0.0, 0.0, 1.1, 0.1, 0.2, 1.2]) + vec(r, 6) * 0.05,), rtol=1e-3)


def euler_ode(p):
    y = jnp.array([1.0, 0.0])
    dt = 0.05
    for _ in range(20):
        dy = jnp.array([y[1], -p[0] * y[0] - p[1] * y[1]])
        y = y + dt * dy
    return y[0] ** 2 + y[1]


compose(euler_ode, lambda r: (pos(r, 2),))


def rk4_ode(p):
    def f(y):
        return jnp.stack([y[1], -p[0] * jnp.sin(y[0]) - p[1] * y[1]])
    y = jnp.array([0.5, 0.0])
    h = 0.1
    for _ in range(10):
        k1 = f(y)
        k2 = f(y + h / 2 * k1)
        k3 = f(y + h / 2 * k2)
        k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0]


compose(rk4_ode, lambda r: (pos(r, 2),))


def ode_fori(p):
    def body(i, y):
        return y + 0.05 * jnp.stack([y[1], -p[0] * y[0] - p[1] * y[1] * y[1]])
    y = lax.fori_loop(0, 20, body, jnp.array([1.0, 0.2]))
    return jnp.sum(y * y)


compose(ode_fori, lambda r: (pos(r, 2),))


def ode_trajectory(p):
    ys = []
    y = jnp.array([1.0, 0.0])
    for _ in range(6):
        y = y + 0.1 * jnp.stack([y[1], -p[0] * y[0]])
        ys.append(y[0] * p[1])
    return jnp.stack(ys)


compose(ode_trajectory, lambda r: (pos(r, 2),), batteries=("jac",))


def monte_carlo_reparam(mu):
    key = astjax.random.PRNGKey(0)
    eps = astjax.random.normal(key, (64, mu.shape[0]), dtype=jnp.float64)
    z = mu + 0.3 * eps
    return jnp.mean(jnp.sum(z ** 2 * jnp.sin(z), axis=1))


compose(monte_carlo_reparam, lambda r: (vec(r, 2),))


def monte_carlo_split_keys(mu):
    key = astjax.random.PRNGKey(3)
    total = 0.0
    for k in astjax.random.split(key, 3):
        u = astjax.random.uniform(k, (8,), dtype=jnp.float64)
        total = total + jnp.mean(jnp.exp(mu[0] * u) * mu[1])
    return total


compose(monte_carlo_split_keys, lambda r: (vec(r, 2),))


class _Linear:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return jnp.tanh(x @ self.W + self.b)

    @property
    def norm(self):
        return jnp.sum(self.W ** 2)


def class_holding_params(W):
    layer = _Linear(W, np.array([0.1, -0.2]))
    y = layer(np.array([0.5, -1.0, 2.0]))
    return jnp.sum(y ** 2) + 0.01 * layer.norm


compose(class_holding_params, lambda r: (mat(r, 3, 2),))


@dataclasses.dataclass
class _Params:
    w: object
    b: object


def dataclass_params(w):
    p = _Params(w=w, b=0.5)
    return jnp.sum(jnp.sin(p.w * p.b) * p.w) + p.b * jnp.sum(p.w)


compose(dataclass_params, lambda r: (vec(r, 3),))


class _Pt(NamedTuple):
    q: object
    v: object


def namedtuple_state(x):
    s = _Pt(q=x, v=x * 0.0)
    for _ in range(3):
        s = _Pt(q=s.q + 0.1 * s.v, v=s.v - 0.1 * jnp.sin(s.q))
    return jnp.sum(s.q ** 2 + s.v)


compose(namedtuple_state, lambda r: (vec(r, 3),))


def _make_loss(scale):
    def loss(w):
        return jnp.sum((w * scale) ** 3) + scale * jnp.sum(w)
    return loss


_closure_loss = _make_loss(1.7)


def closure_over_scale(w):
    return _closure_loss(w) * 2.0


compose(closure_over_scale, lambda r: (vec(r, 3),))


def _power(x, n):
    if n == 0:
        return 1.0
    return x * _power(x, n - 1)


def recursion_power(x):
    return jnp.sum(_power(x, 4) - _power(x, 2))


compose(recursion_power, lambda r: (vec(r, 3),), outcome="either")


def partial_activation(x):
    act = functools.partial(jnp.clip, a_min=-0.5, a_max=0.6)
    return jnp.sum(act(x * 2.0) * x)


compose(partial_activation, lambda r: (vec(r, 4),), outcome="either")


def logsumexp_stable(x):
    return astjax.scipy.special.logsumexp(x * 3.0) + jnp.sum(astjax.nn.sigmoid(x) * x)


compose(logsumexp_stable, lambda r: (vec(r, 4),))


def polynomial_horner(x):
    c = [0.5, -1.0, 2.0, 0.3]
    s = 0.0 * x
    for ci in c:
        s = s * x + ci
    return jnp.sum(s * s)


compose(polynomial_horner, lambda r: (vec(r, 3),))


def bounds_depend_on_outer(x):
    s = 0.0
    for i in range(4):
        for j in range(4 - i):
            s = s + x[j] * x[i] * x[j]
    return s


compose(bounds_depend_on_outer, lambda r: (vec(r, 4),))


def break_in_loop(x):
    s = 0.0
    for i in range(5):
        if x[i] > 0.6:
            break
        s = s + jnp.sin(x[i]) * x[0]
    return s


compose(break_in_loop, lambda r: (np.array([0.1, 0.3, -0.2, 0.9, 0.4]) + vec(r, 5) * 0.01,))


def while_python_data(x):
    v = x[0]
    s = 0.0
    k = 0
    while v < 3.0:
        v = v * 1.7
        s = s + v * x[1]
        k += 1
    return s + k * x[1]


compose(while_python_data, lambda r: (np.array([0.7, 0.5]) + vec(r, 2) * 0.01,))


def inner_helper_in_loop(x):
    a = x
    for _ in range(3):
        a = _mix(a, x)
    return jnp.sum(a)


def _mix(a, b):
    return jnp.sin(a) * b + a * 0.5


compose(inner_helper_in_loop, lambda r: (vec(r, 3),))


def tuple_helper(x):
    a, b = _split(x)
    return jnp.sum(a * b) + a[0] ** 3


def _split(v):
    return v[:2], v[1:]


compose(tuple_helper, lambda r: (vec(r, 3),))


def mlp_layers_list(x):
    layers = [(np.full((3, 4), 0.3), np.full(4, 0.1)), (np.full((4, 2), -0.2), np.full(2, 0.05))]
    h = x
    for W, b in layers:
        h = jnp.tanh(h @ W + b)
    return jnp.sum(h ** 2)


compose(mlp_layers_list, lambda r: (vec(r, 3),))


def l2_over_tree_leaves(params):
    reg = sum(jnp.sum(p ** 2) for p in astjax.tree_util.tree_leaves(params))
    return reg + jnp.sum(jnp.sin(params["a"])) * jnp.sum(params["b"])


case(l2_over_tree_leaves, lambda r: ({"a": vec(r, 2), "b": vec(r, 3)},), "works")
compose(l2_over_tree_leaves, lambda r: ({"a": vec(r, 2), "b": vec(r, 3)},), batteries=("jit",))


def matrix_functions(A):
    S = A @ A.T + 3.0 * jnp.eye(A.shape[0])
    return jnp.linalg.slogdet(S)[1] + jnp.trace(jnp.linalg.inv(S) @ A) + jnp.sum(jnp.linalg.solve(S, A[0]))


compose(matrix_functions, lambda r: (mat(r, 3),))


def eigh_energy(A):
    S = (A + A.T) / 2.0
    w, _ = jnp.linalg.eigh(S + jnp.diag(jnp.array([0.0, 2.0, 4.0])))
    return jnp.sum(w ** 3) + w[0]


compose(eigh_energy, lambda r: (mat(r, 3) * 0.3,))


def sorted_topk(x):
    s = jnp.sort(x)
    return jnp.sum(s[-2:] * jnp.array([1.0, 2.0])) + jnp.max(x) * jnp.min(x)


compose(sorted_topk, lambda r: (np.array([0.1, 0.5, -0.3, 0.9]) + vec(r, 4) * 0.01,))


def cumsum_cumprod(x):
    return jnp.sum(jnp.cumsum(x) ** 2) + jnp.sum(jnp.cumprod(x * 0.5 + 1.0))


compose(cumsum_cumprod, lambda r: (vec(r, 4),))


def at_updates(x):
    y = jnp.zeros(5, dtype=jnp.float64)
    y = y.at[1:4].set(x * x)
    y = y.at[jnp.array([0, 0, 2])].add(x)
    y = y.at[4].multiply(x[0])
    return jnp.sum(y * jnp.arange(1.0, 6.0) * y)


compose(at_updates, lambda r: (vec(r, 3),))


def einsum_bilinear(x):
    A = x.reshape(2, 2)
    return jnp.einsum("ij,jk,ki->", A, A, A) + jnp.einsum("ij,ij->", A, jnp.sin(A))


compose(einsum_bilinear, lambda r: (vec(r, 4),))


def where_piecewise(x):
    return jnp.sum(jnp.where(x > 0.0, x ** 3, -jnp.sin(x) * x) + jnp.maximum(x, 0.2) * x)


compose(where_piecewise, lambda r: (np.array([0.5, -0.4, 0.8, -0.9]) + vec(r, 4) * 0.01,))


def logistic_regression_nll(w, X, y):
    z = X @ w
    return jnp.sum(jnp.logaddexp(0.0, z) - y * z) + 0.1 * jnp.dot(w, w)


compose(logistic_regression_nll, lambda r: (vec(r, 3), _X, _Y.astype(np.float64)))


def huber_loss(x):
    r = x - 0.2
    a = jnp.abs(r)
    return jnp.sum(jnp.where(a < 0.5, 0.5 * r ** 2, 0.5 * (a - 0.25)) * (1.0 + x ** 2))


compose(huber_loss, lambda r: (np.array([0.0, 0.9, -0.6, 0.35]) + vec(r, 4) * 0.01,))


def conv1d_valid(w):
    sig = jnp.sin(jnp.arange(8.0))
    y = jnp.convolve(sig, w, mode="valid")
    return jnp.sum(y ** 2) + jnp.sum(jnp.correlate(sig, w * w, mode="valid"))


compose(conv1d_valid, lambda r: (vec(r, 3),))


def vector_field(x):
    return jnp.stack([x[0] * x[1], jnp.sin(x[2]) * x[0], jnp.exp(x[1]) - x[2] ** 2])


compose(vector_field, lambda r: (vec(r, 3),), batteries=("jac",))


def vector_scan_outputs(x):
    def step(c, xi):
        c = c * 0.8 + xi * xi
        return c, c * xi
    _, ys = lax.scan(step, 0.0, x)
    return ys


compose(vector_scan_outputs, lambda r: (vec(r, 4),), batteries=("jac",))


def vector_cond(x):
    return lax.cond(x[0] > 0.0, lambda v: v * v, lambda v: jnp.sin(v), x)


compose(vector_cond, lambda r: (vec(r, 3) + 0.5,), batteries=("jac",))


def vector_softmax(x):
    return astjax.nn.softmax(x * 2.0)


compose(vector_softmax, lambda r: (vec(r, 4),), batteries=("jac",))


def vector_matrix_output(x):
    return jnp.outer(x, jnp.tanh(x)) + jnp.diag(x)


compose(vector_matrix_output, lambda r: (vec(r, 3),), batteries=("jac",))


def vector_loop_append(x):
    out = []
    acc = 1.0
    for i in range(x.shape[0]):
        acc = acc * x[i] + 0.5
        out.append(acc)
    return jnp.array(out)


compose(vector_loop_append, lambda r: (vec(r, 4),), batteries=("jac",))


def vector_custom_jvp(x):
    return _safe_log1pexp(x) * x[0]


compose(vector_custom_jvp, lambda r: (vec(r, 3),), batteries=("jac",))


def vector_fori(x):
    def body(i, v):
        return v.at[i].set(v[i - 1] * x[i] + jnp.sin(v[i]))
    return lax.fori_loop(1, x.shape[0], body, jnp.asarray(x) * 1.0)


compose(vector_fori, lambda r: (vec(r, 4),), batteries=("jac",))


def vector_while(x):
    def cond_fun(c):
        return c[1] < 3
    def body(c):
        return (jnp.sin(c[0]) * x + c[0], c[1] + 1)
    v, _ = lax.while_loop(cond_fun, body, (x, 0))
    return v


compose(vector_while, lambda r: (vec(r, 3),), batteries=("jac",), outcome="either")


# ================================================================ found by this corpus
def list_last_item(x):
    hs = [x, x * 2.0]
    y = hs[-1]
    return jnp.sum(y ** 3) + jnp.sum(hs[0] * y)


# jacrev(grad(f)) was silently zero: the transpose of index_adjoint read key -1 of the list's adjoint
compose(list_last_item, lambda r: (vec(r, 3),), batteries=("hess",))


def list_negative_index_in_loop(x):
    hs = [x[0]]
    for i in range(1, 4):
        hs.append(jnp.sin(hs[-1]) * x[i] + hs[-2 if i > 1 else -1])
    return hs[-1] * hs[-2]


compose(list_negative_index_in_loop, lambda r: (vec(r, 4),), batteries=("hess",))


_XP = np.array([0.3, -0.8, 0.5])


def _tanh_cubed(x):
    return jnp.sum(jnp.tanh(x) ** 3)


def grad_of_jvp(v):
    return astjax.jvp(_tanh_cubed, (_XP,), (v,))[1] * v[0]


case(grad_of_jvp, lambda r: (vec(r, 3),), "works", jvp=False)
