"""Real programs (10-40 lines each) under the compiled and batched paths: physics, statistics, ML,
numerics and data wrangling, each checked by one battery of transformations against numbers computed
without astjax (running the function, central finite differences in float64):

* always: value_and_grad(f) against running f and finite differences;
* compiled (Numba, ASTJAX_LONG_PROPERTIES=1 or ASTJAX_PROGRAMS_JIT=1): jit(f) against running f,
  jit(value_and_grad(f)) against finite differences, grad(jit(f)) likewise;
* per case, at least one of: "vmap" (vmap(grad(f)) and vmap(f) over a batch of the first argument
  against a loop; jit(vmap(f)) when compiling), "hess" (hessian, jacfwd(grad), jacrev(grad) against
  second finite differences), "jac" (jacfwd == jacrev == finite differences for vector outputs).

The boundary cases at the end (float32, 0-d/size-1/empty arrays, integer and boolean arguments,
static_argnums, Python/NumPy scalars, cache keys, globals changed between calls, pytrees) check
dtypes and values against what JAX gives (confirmed with JAX 0.10).
"""
import os
from typing import NamedTuple

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax

from .case import case, vec, mat, spd, pos
from .compositions import _Battery, _checked_as
from .harness import (fd_grad, fd_hessian, fd_jacobian, fresh, leaves, names_a_line_of, replace_leaves, _scalar_value,
                      _REFUSALS)
from astjax.backends.numba_cpu import JitError

COMPILE = bool(os.environ.get("ASTJAX_LONG_PROPERTIES") or os.environ.get("ASTJAX_PROGRAMS_JIT"))
FULL = bool(os.environ.get("ASTJAX_LONG_PROPERTIES"))

# What tests/test_adversarial.py runs in the default profile (the suite's time budget): a quick program of
# each kind; every case runs in the long profile.
DEFAULT_SAMPLE = ("nbody_pairwise_energy", "softmax_cross_entropy_take_along",
                  "fixed_point_iteration", "at_add_repeated_indices", "newton_cbrt_scalar", "mixed_int_bool_float",
                  "namedtuple_jit_vmap")


def _batch_leaf(x):
    x = np.asarray(x, dtype=np.float64)
    return np.stack([x, 0.9 * x + 0.04, 1.1 * x - 0.03])


def _batched(tree):
    return replace_leaves(tree, [_batch_leaf(leaf) for leaf in leaves(tree)])


def _unbatched(tree, b):
    return replace_leaves(tree, [np.asarray(leaf)[b] for leaf in leaves(tree)])


def _stack_grads(gs):
    return [np.stack([g[k] for g in gs]) for k in range(len(gs[0]))]


def _battery(extras):
    def battery(fn, args):
        B = _Battery()
        value = _scalar_value(fn, args)
        g_fd = fd_grad(fn, args, 0)
        vg = B.run("value_and_grad(f)", lambda: astjax.value_and_grad(fn)(*fresh(args)))
        if vg is not None:
            B.add("value_and_grad(f) value", vg[0], value)
            B.add("value_and_grad(f) grad", vg[1], g_fd)
        if COMPILE:
            if FULL:
                B.add("jit(f)", B.run("jit(f)", lambda: astjax.jit(fn)(*fresh(args))), value)
            jvg = B.run("jit(value_and_grad(f))", lambda: astjax.jit(astjax.value_and_grad(fn))(*fresh(args)))
            if jvg is not None:
                B.add("jit(value_and_grad(f)) value", jvg[0], value)
                B.add("jit(value_and_grad(f)) grad", jvg[1], g_fd)
                if vg is not None:
                    B.add("jit(value_and_grad(f)) grad == reference backend", jvg[1],
                          [np.asarray(a, dtype=np.float64) for a in leaves(vg[1])])
            B.add("grad(jit(f))", B.run("grad(jit(f))", lambda: astjax.grad(astjax.jit(fn))(*fresh(args))), g_fd)
        if "vmap" in extras:
            xs = _batched(args[0])
            rest = tuple(args[1:])
            ax = (0,) + (None,) * len(rest)
            loop_v = np.array([_scalar_value(fn, (_unbatched(xs, b),) + rest) for b in range(3)])
            loop_g = _stack_grads([fd_grad(fn, (_unbatched(xs, b),) + rest, 0) for b in range(3)])
            B.add("vmap(f)", B.run("vmap(f)", lambda: astjax.vmap(fn, in_axes=ax)(fresh(xs), *fresh(rest))), loop_v)
            B.add("vmap(grad(f))", B.run("vmap(grad(f))", lambda: astjax.vmap(astjax.grad(fn), in_axes=ax)(
                fresh(xs), *fresh(rest))), loop_g)
            if COMPILE and FULL:
                B.add("jit(vmap(f))", B.run("jit(vmap(f))", lambda: astjax.jit(astjax.vmap(fn, in_axes=ax))(
                    fresh(xs), *fresh(rest))), loop_v)
            if COMPILE:
                B.add("jit(vmap(grad(f)))", B.run("jit(vmap(grad(f)))", lambda: astjax.jit(astjax.vmap(
                    astjax.grad(fn), in_axes=ax))(fresh(xs), *fresh(rest))), loop_g)
        if "hess" in extras:
            H = fd_hessian(fn, args, 0)
            B.add("hessian(f)", B.run("hessian(f)", lambda: astjax.hessian(fn)(*fresh(args))), H)
            B.add("jacfwd(grad(f))", B.run("jacfwd(grad(f))", lambda: astjax.jacfwd(astjax.grad(fn))(*fresh(args))), H)
            B.add("jacrev(grad(f))", B.run("jacrev(grad(f))", lambda: astjax.jacrev(astjax.grad(fn))(*fresh(args))), H)
            if COMPILE and FULL:
                B.add("jit(jacfwd(grad(f)))", B.run("jit(jacfwd(grad(f)))", lambda: astjax.jit(
                    astjax.jacfwd(astjax.grad(fn)))(*fresh(args))), H)
        return B.result()
    return battery


def _jac_battery(fn, args):
    B = _Battery()
    [J] = fd_jacobian(fn, args, 0)
    B.add("jacfwd(f)", B.run("jacfwd(f)", lambda: astjax.jacfwd(fn)(*fresh(args))), J)
    B.add("jacrev(f)", B.run("jacrev(f)", lambda: astjax.jacrev(fn)(*fresh(args))), J)
    value = np.asarray(fn(*fresh(args)), dtype=np.float64)
    xs = _batch_leaf(args[0])
    rest = tuple(args[1:])
    ax = (0,) + (None,) * len(rest)
    loop = np.stack([np.asarray(fn(*fresh((x,) + rest)), dtype=np.float64) for x in xs])
    B.add("vmap(f)", B.run("vmap(f)", lambda: astjax.vmap(fn, in_axes=ax)(xs.copy(), *fresh(rest))), loop)
    if COMPILE:
        B.add("jit(f)", B.run("jit(f)", lambda: astjax.jit(fn)(*fresh(args))), value)
        B.add("jit(jacrev(f))", B.run("jit(jacrev(f))", lambda: astjax.jit(astjax.jacrev(fn))(*fresh(args))), J)
        B.add("jit(vmap(f))", B.run("jit(vmap(f))", lambda: astjax.jit(astjax.vmap(fn, in_axes=ax))(
            xs.copy(), *fresh(rest))), loop)
    return B.result()


def prog(fn, make_args, extras=("vmap",), outcome="works", rtol=1e-4, **kw):
    """Register fn (a scalar function of args[0]) with the programs battery."""
    check = _jac_battery if extras == "jac" else _battery(extras)
    case(fn, make_args, outcome, mode="custom", check=_checked_as(check, outcome, __file__), rtol=rtol, **kw)
    return fn


def _v(n, lo=-1.0, hi=1.0):
    return lambda r: (vec(r, n, lo, hi),)


# ================================================================ physics
def nbody_pairwise_energy(pos):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = jnp.sum(d * d) + 0.1
            e = e - 1.0 / jnp.sqrt(r2)
    return e


prog(nbody_pairwise_energy, lambda r: (mat(r, 4, 2),))


def nbody_forces_then_energy(pos):
    n = pos.shape[0]
    f = jnp.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i != j:
                d = pos[j] - pos[i]
                r3 = (jnp.sum(d * d) + 0.05) ** 1.5
                f = f.at[i].add(d / r3)
    return jnp.sum(f * f)


prog(nbody_forces_then_energy, lambda r: (mat(r, 3, 2),))


def nbody_numpy_forces(pos):
    n = pos.shape[0]
    forces = np.zeros((n, 2))
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[j] - pos[i]
            inv = 1.0 / (np.sum(d ** 2) + 0.1) ** 1.5
            forces[i] += d * inv
            forces[j] -= d * inv
    return np.sum(forces[:, 0] * pos[:, 1])


prog(nbody_numpy_forces, lambda r: (mat(r, 4, 2),))


def spring_chain_energy(x):
    k = 3.0
    rest = 0.4
    e = 0.0
    for i in range(x.shape[0] - 1):
        stretch = jnp.abs(x[i + 1] - x[i]) - rest
        e += 0.5 * k * stretch ** 2
    return e + 0.1 * jnp.sum(x ** 2)


prog(spring_chain_energy, lambda r: (np.cumsum(pos(r, 5)),), extras=("vmap", "hess"))


def verlet_steps(x0):
    x = x0
    v = jnp.zeros_like(x0)
    dt = 0.05
    a = -x - 0.1 * x ** 3
    for _ in range(6):
        x = x + v * dt + 0.5 * a * dt * dt
        a_new = -x - 0.1 * x ** 3
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
    return jnp.sum(x * x) + jnp.sum(v)


prog(verlet_steps, _v(3), extras=("vmap", "hess"))


def _pendulum_rhs(state, g_over_l):
    theta, omega = state[0], state[1]
    return jnp.stack([omega, -g_over_l * jnp.sin(theta) - 0.1 * omega])


def pendulum_rk4(state0):
    s = state0
    h = 0.1
    for _ in range(5):
        k1 = _pendulum_rhs(s, 9.8)
        k2 = _pendulum_rhs(s + 0.5 * h * k1, 9.8)
        k3 = _pendulum_rhs(s + 0.5 * h * k2, 9.8)
        k4 = _pendulum_rhs(s + h * k3, 9.8)
        s = s + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return s[0] ** 2 + 0.5 * s[1]


prog(pendulum_rk4, _v(2), extras=("vmap", "hess"))


def damped_oscillator_while(x0):
    x = x0[0]
    v = x0[1]
    t = 0.0
    while t < 0.5:
        a = -4.0 * x - 0.3 * v
        v = v + 0.1 * a
        x = x + 0.1 * v
        t = t + 0.1
    return x * x + v


prog(damped_oscillator_while, _v(2), extras=("vmap", "hess"))


def lennard_jones_vectorized(pos):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = jnp.sum(d ** 2, axis=-1) + jnp.eye(pos.shape[0])
    inv6 = (1.0 / r2) ** 3
    e = 4.0 * (inv6 * inv6 - inv6)
    mask = 1.0 - jnp.eye(pos.shape[0])
    return 0.5 * jnp.sum(e * mask)


prog(lennard_jones_vectorized, lambda r: (np.array([[0., 0.], [1.1, 0.1], [0.2, 1.2]]) + 0.05 * mat(r, 3, 2),),
     rtol=1e-3)


def heat_equation_steps(u0):
    u = u0
    for _ in range(4):
        lap = jnp.concatenate([u[1:2] - u[0:1], u[2:] - 2.0 * u[1:-1] + u[:-2], u[-2:-1] - u[-1:]])
        u = u + 0.2 * lap
    return jnp.sum(u ** 2)


prog(heat_equation_steps, _v(6), extras=("vmap", "hess"))


def projectile_euler_drag(v):
    x, y = 0.0, 0.0
    vx, vy = v[0], v[1]
    dt = 0.02
    for _ in range(10):
        speed = jnp.sqrt(vx * vx + vy * vy)
        vx = vx - 0.1 * speed * vx * dt
        vy = vy - (9.8 + 0.1 * speed * vy) * dt
        x = x + vx * dt
        y = y + vy * dt
    return x + 2.0 * y


prog(projectile_euler_drag, lambda r: (pos(r, 2, 2.0, 4.0),), extras=("vmap", "hess"))


def orbit_energy_drift(state):
    q = state[:2]
    p = state[2:]
    dt = 0.01
    for _ in range(5):
        r = jnp.linalg.norm(q)
        p = p - dt * q / r ** 3
        q = q + dt * p
    r = jnp.linalg.norm(q)
    return 0.5 * jnp.dot(p, p) - 1.0 / r


prog(orbit_energy_drift, lambda r: (np.array([1.0, 0.1, 0.0, 1.0]) + 0.05 * vec(r, 4),))


def spring_mass_matrix_energy(x):
    n = x.shape[0]
    K = 2.0 * jnp.eye(n) - jnp.eye(n, k=1) - jnp.eye(n, k=-1)
    return 0.5 * x @ K @ x + 0.25 * jnp.sum(x ** 4)


prog(spring_mass_matrix_energy, _v(4), extras=("vmap", "hess"))


def gravity_numpy_loop_accumulate(m):
    posn = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.5]])
    U = 0.0
    for i in range(4):
        for j in range(i):
            r = np.sqrt(np.sum((posn[i] - posn[j]) ** 2))
            U -= m[i] * m[j] / r
    return U


prog(gravity_numpy_loop_accumulate, lambda r: (pos(r, 4),), extras=("vmap", "hess"))


def pendulum_energy_scan(theta0):
    def step(c, _):
        th, om = c
        om = om - 0.05 * 9.8 * jnp.sin(th)
        th = th + 0.05 * om
        return (th, om), th
    (th, om), traj = lax.scan(step, (theta0[0], theta0[1]), None, length=6)
    return jnp.sum(traj ** 2) + om


prog(pendulum_energy_scan, _v(2), extras=("vmap", "hess"))


def wave_leapfrog(u0):
    u_prev = u0
    u = u0
    c2 = 0.3
    for _ in range(3):
        lap = jnp.roll(u, 1) - 2.0 * u + jnp.roll(u, -1)
        u_next = 2.0 * u - u_prev + c2 * lap
        u_prev = u
        u = u_next
    return jnp.sum(u * jnp.arange(u.shape[0]))


prog(wave_leapfrog, _v(5), extras=("vmap", "hess"))


# ================================================================ statistics
def gaussian_loglik_logsumexp(mu):
    data = jnp.array([-1.0, 0.3, 0.8, 2.0, -0.4])
    logp = -0.5 * (data[:, None] - mu[None, :]) ** 2 - 0.5 * jnp.log(2.0 * jnp.pi)
    return jnp.sum(jax_logsumexp(logp - jnp.log(mu.shape[0]), axis=1))


def jax_logsumexp(a, axis):
    m = jnp.max(a, axis=axis, keepdims=True)
    return jnp.squeeze(m, axis) + jnp.log(jnp.sum(jnp.exp(a - m), axis=axis))


prog(gaussian_loglik_logsumexp, _v(3), extras=("vmap", "hess"))


def mixture_model_nll(params):
    logits, mus, log_sig = params["logits"], params["mu"], params["log_sigma"]
    x = jnp.array([0.1, -0.7, 1.3, 0.4, 2.2, -1.5])
    log_w = logits - astjax.scipy.special.logsumexp(logits)
    z = (x[:, None] - mus) / jnp.exp(log_sig)
    comp = -0.5 * z ** 2 - log_sig - 0.5 * jnp.log(2 * jnp.pi)
    return -jnp.sum(astjax.scipy.special.logsumexp(comp + log_w, axis=1))


prog(mixture_model_nll, lambda r: ({"logits": vec(r, 3), "mu": vec(r, 3, -1.0, 1.5),
                                    "log_sigma": vec(r, 3, -0.3, 0.3)},))


def huber_robust_loss(w):
    X = jnp.array([[1.0, 0.5], [0.3, -1.0], [2.0, 0.1], [-0.5, 0.7], [1.5, 1.5]])
    y = jnp.array([0.9, -0.4, 2.5, 0.0, 3.0])
    r = X @ w - y
    delta = 0.5
    quad = 0.5 * r ** 2
    lin = delta * (jnp.abs(r) - 0.5 * delta)
    return jnp.mean(jnp.where(jnp.abs(r) <= delta, quad, lin))


prog(huber_robust_loss, lambda r: (np.array([0.8, 0.9]) + 0.1 * vec(r, 2),))


def clipped_loss(pred):
    target = jnp.array([0.2, 0.9, -0.3, 1.4])
    err = jnp.clip(pred - target, -0.5, 0.5)
    return jnp.sum(err ** 2) + 0.01 * jnp.sum(jnp.clip(pred, 0.0, None))


prog(clipped_loss, lambda r: (np.array([0.1, 1.6, -0.35, 0.3]) + 0.05 * vec(r, 4),))


def running_mean_variance(x):
    mean = 0.0
    m2 = 0.0
    count = 0
    for xi in x:
        count += 1
        delta = xi - mean
        mean = mean + delta / count
        m2 = m2 + delta * (xi - mean)
    return mean + m2 / (count - 1)


prog(running_mean_variance, _v(5), extras=("vmap", "hess"))


def welford_numpy_inplace(x):
    stats = np.zeros(2)
    for k in range(x.shape[0]):
        d = x[k] - stats[0]
        stats[0] += d / (k + 1)
        stats[1] += d * (x[k] - stats[0])
    return stats[0] * stats[1]


prog(welford_numpy_inplace, _v(4))


def ewma_volatility(returns):
    var = returns[0] ** 2
    lam = 0.9
    total = 0.0
    for t in range(1, returns.shape[0]):
        var = lam * var + (1 - lam) * returns[t - 1] ** 2
        total = total + jnp.log(var) + returns[t] ** 2 / var
    return 0.5 * total


prog(ewma_volatility, _v(6), extras=("vmap", "hess"))


def logistic_regression_labels(w):
    X = jnp.array([[1.0, 2.0, -0.5], [0.3, -1.0, 0.2], [-1.2, 0.4, 1.0], [0.5, 0.5, 0.5]])
    y = jnp.array([1, 0, 1, 0])
    logits = X @ w
    return jnp.sum(jnp.logaddexp(0.0, logits) - y * logits)


prog(logistic_regression_labels, _v(3), extras=("vmap", "hess"))


def poisson_glm_nll(beta):
    X = np.array([[1.0, 0.2], [1.0, -0.4], [1.0, 1.1], [1.0, 0.7]])
    k = np.array([2, 0, 5, 3])
    eta = X @ beta
    return np.sum(np.exp(eta) - k * eta)


prog(poisson_glm_nll, _v(2), extras=("vmap", "hess"))


def student_t_nll(params):
    loc, log_scale = params
    x = jnp.array([0.5, -1.0, 3.0, 0.2])
    nu = 4.0
    z = (x - loc) / jnp.exp(log_scale)
    return jnp.sum(0.5 * (nu + 1.0) * jnp.log1p(z * z / nu) + log_scale)


prog(student_t_nll, lambda r: ((np.float64(0.3) + 0.1 * r.uniform(), np.float64(0.1) * r.uniform()),))


def kde_log_density(x):
    samples = jnp.array([-1.0, -0.2, 0.4, 1.3, 2.0])
    bw = 0.5
    d = (x[:, None] - samples[None, :]) / bw
    dens = jnp.mean(jnp.exp(-0.5 * d * d), axis=1) / (bw * jnp.sqrt(2 * jnp.pi))
    return jnp.sum(jnp.log(dens))


prog(kde_log_density, _v(3), extras=("vmap", "hess"))


def weighted_quantile_loss(pred):
    y = jnp.array([0.3, -0.2, 1.0, 0.5, 0.1])
    taus = jnp.array([0.1, 0.5, 0.9])
    r = y[None, :] - pred[:, None]
    return jnp.sum(jnp.maximum(taus[:, None] * r, (taus[:, None] - 1.0) * r))


prog(weighted_quantile_loss, lambda r: (np.array([-0.13, 0.22, 0.71]) + 0.02 * vec(r, 3),))


def standardize_then_correlate(x):
    y = jnp.array([1.0, 2.5, 2.0, 4.0, 3.7])
    xs = (x - jnp.mean(x)) / jnp.std(x)
    ys = (y - jnp.mean(y)) / jnp.std(y)
    return jnp.mean(xs * ys)


prog(standardize_then_correlate, _v(5), extras=("vmap", "hess"))


def bayesian_linreg_evidence(log_alpha):
    X = np.array([[1.0, 0.1], [1.0, 0.5], [1.0, 0.9], [1.0, 1.4]])
    y = np.array([0.2, 0.6, 1.1, 1.5])
    A = np.exp(log_alpha[0]) * np.eye(2) + X.T @ X
    m = np.linalg.solve(A, X.T @ y)
    r = y - X @ m
    return 0.5 * np.sum(r ** 2) + 0.5 * np.linalg.slogdet(A)[1] - log_alpha[0]


prog(bayesian_linreg_evidence, _v(1), extras=("vmap", "hess"))


def categorical_entropy_masked(logits):
    mask = jnp.array([True, True, False, True])
    z = jnp.where(mask, logits, -jnp.inf)
    p = astjax.nn.softmax(z)
    return -jnp.sum(jnp.where(mask, p * jnp.log(jnp.where(mask, p, 1.0)), 0.0))


prog(categorical_entropy_masked, _v(4))


def bootstrap_fixed_indices(x):
    idx = np.array([[0, 0, 2, 3], [1, 3, 3, 3], [2, 1, 0, 0]])
    means = x[idx].mean(axis=1)
    return np.var(means) + np.mean(means ** 2)


prog(bootstrap_fixed_indices, _v(4), extras=("vmap", "hess"))


# ================================================================ ML
def _init(r, sizes):
    return [(0.5 * r.standard_normal((a, b)), 0.1 * r.standard_normal(b)) for a, b in zip(sizes[:-1], sizes[1:])]


def mlp_tuple_params_loss(params):
    x = jnp.array([[0.1, -0.2, 0.3], [0.5, 0.4, -0.1]])
    y = jnp.array([[1.0, 0.0], [0.0, 1.0]])
    h = x
    for W, b in params[:-1]:
        h = jnp.tanh(h @ W + b)
    W, b = params[-1]
    out = h @ W + b
    return jnp.mean((out - y) ** 2)


prog(mlp_tuple_params_loss, lambda r: (_init(r, [3, 4, 2]),))


def mlp_dict_params_relu(p):
    x = np.array([[0.2, -0.4], [1.0, 0.3], [-0.6, 0.8]])
    h = np.maximum(x @ p["W1"] + p["b1"], 0.0)
    out = h @ p["W2"] + p["b2"]
    return np.sum(out ** 2) / x.shape[0]


prog(mlp_dict_params_relu, lambda r: ({"W1": mat(r, 2, 3), "b1": 0.3 + 0.1 * vec(r, 3), "W2": mat(r, 3, 1),
                                       "b2": vec(r, 1)},))


def softmax_cross_entropy_take_along(logits):
    labels = jnp.array([2, 0, 1])
    logp = astjax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(logp, labels[:, None], axis=1)
    return -jnp.mean(picked)


prog(softmax_cross_entropy_take_along, lambda r: (mat(r, 3, 4),), extras=("vmap", "hess"))


def cross_entropy_integer_index(logits):
    labels = np.array([1, 1, 0])
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -logp[np.arange(3), labels].mean()


prog(cross_entropy_integer_index, lambda r: (mat(r, 3, 3),))


def attention_masked_softmax(q):
    k = jnp.array([[0.1, 0.2], [0.5, -0.3], [-0.4, 0.9]])
    v = jnp.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    scores = q @ k.T / jnp.sqrt(2.0)
    mask = jnp.tril(jnp.ones((3, 3), dtype=bool))
    scores = jnp.where(mask, scores, -1e9)
    w = astjax.nn.softmax(scores, axis=-1)
    return jnp.sum((w @ v) ** 2)


prog(attention_masked_softmax, lambda r: (mat(r, 3, 2),), extras=("vmap", "hess"))


def self_attention_block(x):
    Wq = jnp.array([[0.5, -0.2], [0.1, 0.3]])
    Wk = jnp.array([[0.2, 0.4], [-0.3, 0.1]])
    q = x @ Wq
    k = x @ Wk
    s = q @ k.T
    s = s - jnp.max(s, axis=1, keepdims=True)
    a = jnp.exp(s) / jnp.sum(jnp.exp(s), axis=1, keepdims=True)
    return jnp.sum(a @ x * x)


prog(self_attention_block, lambda r: (mat(r, 3, 2),), extras=("vmap", "hess"))


def layernorm_then_linear(x):
    gamma = jnp.array([1.0, 0.5, 2.0, 1.5])
    beta = jnp.array([0.0, 0.1, -0.1, 0.2])
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    y = (x - mu) / jnp.sqrt(var + 1e-5) * gamma + beta
    return jnp.sum(y * jnp.arange(4.0))


prog(layernorm_then_linear, lambda r: (mat(r, 2, 4),), extras=("vmap", "hess"))


def conv1d_by_slicing(x):
    w = jnp.array([0.25, 0.5, 0.25])
    n = x.shape[0] - 2
    out = w[0] * x[0:n] + w[1] * x[1:n + 1] + w[2] * x[2:n + 2]
    return jnp.sum(jnp.tanh(out) ** 2)


prog(conv1d_by_slicing, _v(6), extras=("vmap", "hess"))


def conv2d_taps_loop(img):
    k = np.array([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])
    H, W = img.shape[0] - 2, img.shape[1] - 2
    out = np.zeros((H, W))
    for i in range(3):
        for j in range(3):
            out = out + k[i, j] * img[i:i + H, j:j + W]
    return np.sum(out ** 2)


prog(conv2d_taps_loop, lambda r: (mat(r, 4, 5),))


def conv_kernel_as_param(kern):
    img = jnp.arange(20.0).reshape(4, 5) / 10.0
    out = jnp.zeros((2, 3))
    for i in range(3):
        for j in range(3):
            out = out + kern[i, j] * img[i:i + 2, j:j + 3]
    return jnp.sum(jnp.sin(out))


prog(conv_kernel_as_param, lambda r: (mat(r, 3),))


def dropout_explicit_key(W):
    key = astjax.random.PRNGKey(0)
    x = jnp.array([[0.5, -0.3, 0.8], [0.1, 0.2, -0.9]])
    keep = astjax.random.bernoulli(key, 0.7, (2, 3))
    h = jnp.where(keep, x / 0.7, 0.0)
    return jnp.sum(jnp.tanh(h @ W) ** 2)


prog(dropout_explicit_key, lambda r: (mat(r, 3, 2),))


def rnn_over_sequence(params):
    Wh, Wx = params
    xs = jnp.array([[0.1, 0.3], [-0.5, 0.2], [0.7, -0.1], [0.0, 0.4]])
    h = jnp.zeros(2)
    loss = 0.0
    for t in range(xs.shape[0]):
        h = jnp.tanh(Wh @ h + Wx @ xs[t])
        loss = loss + jnp.sum(h ** 2)
    return loss


prog(rnn_over_sequence, lambda r: ((mat(r, 2), mat(r, 2)),))


def batchnorm_mlp(W):
    x = jnp.array([[0.2, 0.4], [1.0, -0.3], [-0.5, 0.9], [0.3, 0.3]])
    h = x @ W
    h = (h - h.mean(axis=0)) / jnp.sqrt(h.var(axis=0) + 1e-3)
    return jnp.sum(astjax.nn.relu(h) * jnp.array([1.0, 2.0, -1.0]))


prog(batchnorm_mlp, lambda r: (mat(r, 2, 3),))


def gelu_mlp_one_layer(W):
    x = jnp.array([[0.5, -1.0], [0.2, 0.3]])
    return jnp.sum(astjax.nn.gelu(x @ W) * jnp.array([1.0, -0.5]))


prog(gelu_mlp_one_layer, lambda r: (mat(r, 2),), extras=("vmap", "hess"))


def sgd_unrolled_training(w0):
    X = jnp.array([[1.0, 0.5], [0.2, -0.3], [-0.7, 0.8]])
    y = jnp.array([1.0, 0.0, -1.0])
    w = w0
    for _ in range(4):
        g = 2.0 * X.T @ (X @ w - y) / 3.0
        w = w - 0.3 * g
    return jnp.sum((X @ w - y) ** 2)


prog(sgd_unrolled_training, _v(2), extras=("vmap", "hess"))


def adam_steps_on_quadratic(w0):
    m = jnp.zeros_like(w0)
    v = jnp.zeros_like(w0)
    w = w0
    for t in range(1, 4):
        g = 2.0 * (w - 1.0) + jnp.cos(w)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        mhat = m / (1 - 0.9 ** t)
        vhat = v / (1 - 0.999 ** t)
        w = w - 0.1 * mhat / (jnp.sqrt(vhat) + 1e-8)
    return jnp.sum(w ** 2)


prog(adam_steps_on_quadratic, _v(3))


def embedding_lookup_loss(E):
    tokens = jnp.array([0, 2, 2, 1, 0])
    emb = E[tokens]
    pooled = jnp.mean(emb, axis=0)
    return jnp.sum(pooled ** 2) + jnp.sum(emb[:, 0] * emb[:, 1])


prog(embedding_lookup_loss, lambda r: (mat(r, 3, 2),), extras=("vmap", "hess"))


def contrastive_cosine(z):
    zn = z / jnp.linalg.norm(z, axis=1, keepdims=True)
    sim = zn @ zn.T / 0.5
    n = z.shape[0]
    logits = sim - 1e9 * jnp.eye(n)
    pos_idx = jnp.array([1, 0, 3, 2])
    lse = astjax.scipy.special.logsumexp(logits, axis=1)
    return jnp.mean(lse - logits[jnp.arange(n), pos_idx])


prog(contrastive_cosine, lambda r: (mat(r, 4, 3),))


def kl_divergence_gaussians(params):
    mu, log_var = params[0], params[1]
    return 0.5 * jnp.sum(jnp.exp(log_var) + mu ** 2 - 1.0 - log_var)


prog(kl_divergence_gaussians, lambda r: (mat(r, 2, 3),), extras=("vmap", "hess"))


def max_pool_then_loss(x):
    pooled = jnp.max(x.reshape(3, 2), axis=1)
    return jnp.sum(pooled * jnp.array([1.0, -2.0, 0.5]))


prog(max_pool_then_loss, _v(6), extras=("vmap", "hess"))


def residual_block(x):
    W = jnp.array([[0.3, -0.1, 0.2], [0.0, 0.4, -0.3], [0.2, 0.2, 0.1]])
    h = x
    for _ in range(3):
        h = h + jnp.tanh(h @ W)
    return jnp.sum(h ** 2)


prog(residual_block, _v(3), extras=("vmap", "hess"))


def focal_loss(logits):
    y = jnp.array([1.0, 0.0, 1.0, 0.0])
    p = astjax.nn.sigmoid(logits)
    pt = jnp.where(y == 1.0, p, 1.0 - p)
    return -jnp.sum((1.0 - pt) ** 2 * jnp.log(pt))


prog(focal_loss, _v(4), extras=("vmap", "hess"))


# ================================================================ numerics
def newton_sqrt_while(a):
    x = a
    it = 0
    while it < 8:
        x = 0.5 * (x + a / x)
        it += 1
    return jnp.sum(x)


prog(newton_sqrt_while, lambda r: (pos(r, 3, 1.0, 4.0),), extras=("vmap", "hess"))


def newton_tolerance_while(c):
    x = 1.0
    while jnp.abs(x * x * x - c) > 1e-10:
        x = x - (x * x * x - c) / (3.0 * x * x)
    return x


prog(newton_tolerance_while, lambda r: (np.float64(r.uniform(1.5, 3.0)),), outcome="either",
     extras=("vmap",))


def bisection_cube_root(c):
    lo, hi = 0.0, 3.0
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        if mid ** 3 > c:
            hi = mid
        else:
            lo = mid
    x = 0.5 * (lo + hi)
    for _ in range(3):
        x = x - (x ** 3 - c) / (3.0 * x * x)
    return x * c


prog(bisection_cube_root, lambda r: (np.float64(r.uniform(1.0, 2.0)),), outcome="either", extras=("vmap",))


def fixed_point_iteration(c):
    x = jnp.zeros_like(c)
    for _ in range(30):
        x = jnp.cos(x) * c
    return jnp.sum(x)


prog(fixed_point_iteration, lambda r: (pos(r, 2, 0.3, 0.6),), extras=("vmap", "hess"))


def horner_eval(coeffs):
    x = 0.7
    acc = 0.0
    for c in coeffs:
        acc = acc * x + c
    return acc * acc


prog(horner_eval, _v(5), extras=("vmap", "hess"))


def horner_vector_points(x):
    coeffs = [1.0, -2.0, 0.5, 3.0]
    acc = jnp.zeros_like(x)
    for c in coeffs:
        acc = acc * x + c
    return jnp.sum(acc)


prog(horner_vector_points, _v(4), extras=("vmap", "hess"))


def polyfit_lstsq(y):
    t = jnp.linspace(0.0, 1.0, 5)
    A = jnp.stack([jnp.ones(5), t, t * t], axis=1)
    coef = jnp.linalg.lstsq(A, y)[0]
    return jnp.sum(coef ** 2) + coef[2]


prog(polyfit_lstsq, _v(5), extras=("vmap", "hess"))


def polyfit_normal_equations(y):
    t = np.linspace(-1.0, 1.0, 6)
    A = np.vander(t, 3)
    coef = np.linalg.solve(A.T @ A, A.T @ y)
    return coef @ coef


prog(polyfit_normal_equations, _v(6), extras=("vmap", "hess"))


def cumsum_cumprod_mix(x):
    c = jnp.cumsum(x)
    p = jnp.cumprod(1.0 + 0.1 * x)
    return jnp.sum(c * p)


prog(cumsum_cumprod_mix, _v(5), extras=("vmap", "hess"))


def sorted_median_quantile(x):
    s = jnp.sort(x)
    n = x.shape[0]
    med = 0.5 * (s[n // 2 - 1] + s[n // 2])
    q = jnp.quantile(x, 0.25)
    return med * 2.0 + q


prog(sorted_median_quantile, _v(6))


def trimmed_mean_argsort(x):
    order = np.argsort(x)
    kept = x[order[1:-1]]
    return np.mean(kept) ** 2


prog(trimmed_mean_argsort, _v(6), extras=("vmap", "hess"))


def piecewise_polynomial(x):
    y = jnp.where(x < -0.5, -x - 0.25, jnp.where(x < 0.5, x * x, x - 0.25))
    return jnp.sum(y * jnp.exp(-x))


prog(piecewise_polynomial, lambda r: (np.array([-0.9, -0.2, 0.3, 0.8]) + 0.05 * vec(r, 4),),
     extras=("vmap", "hess"))


def piecewise_python_if(x):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.2:
            total = total + jnp.log(x[i])
        elif x[i] > -0.2:
            total = total + x[i] ** 3
        else:
            total = total - jnp.sin(x[i])
    return total


prog(piecewise_python_if, lambda r: (np.array([0.6, 0.05, -0.7, 0.9]) + 0.03 * vec(r, 4),),
     extras=("vmap", "hess"))


def trapezoid_rule(a):
    t = jnp.linspace(0.0, 1.0, 11)
    f = jnp.exp(-a[0] * t) * jnp.sin(a[1] * t)
    return jnp.sum(0.5 * (f[1:] + f[:-1]) * (t[1:] - t[:-1]))


prog(trapezoid_rule, lambda r: (pos(r, 2),), extras=("vmap", "hess"))


def power_iteration_eig(d):
    A = jnp.diag(d) + 0.1 * jnp.ones((3, 3))
    v = jnp.ones(3) / jnp.sqrt(3.0)
    for _ in range(30):
        w = A @ v
        v = w / jnp.linalg.norm(w)
    return v @ A @ v


prog(power_iteration_eig, lambda r: (np.array([3.0, 1.0, 0.5]) + 0.1 * vec(r, 3),), extras=("vmap", "hess"))


def gauss_seidel_solve(b):
    A = np.array([[4.0, 1.0, 0.0], [1.0, 4.0, 1.0], [0.0, 1.0, 4.0]])
    x = np.zeros(3)
    for _ in range(10):
        for i in range(3):
            s = b[i] - A[i] @ x + A[i, i] * x[i]
            x[i] = s / A[i, i]
    return np.sum(x * np.array([1.0, 2.0, 3.0]))


prog(gauss_seidel_solve, _v(3))


def jacobi_iteration_jnp(b):
    A = jnp.array([[5.0, 1.0, 1.0], [1.0, 4.0, 0.5], [1.0, 0.5, 6.0]])
    D = jnp.diag(A)
    R = A - jnp.diag(D)
    x = jnp.zeros(3)
    for _ in range(25):
        x = (b - R @ x) / D
    return jnp.sum(x ** 2)


prog(jacobi_iteration_jnp, _v(3), extras=("vmap", "hess"))


def cholesky_quadratic_form(L_diag):
    A = jnp.array([[2.0, 0.3], [0.3, 1.0]]) + jnp.diag(L_diag ** 2)
    L = jnp.linalg.cholesky(A)
    b = jnp.array([1.0, -0.5])
    z = astjax.scipy.linalg.solve_triangular(L, b, lower=True)
    return jnp.sum(z ** 2) + 2.0 * jnp.sum(jnp.log(jnp.diag(L)))


prog(cholesky_quadratic_form, lambda r: (pos(r, 2),), extras=("vmap", "hess"))


def simpson_while_loop(k):
    n = 8
    h = 1.0 / n
    i = 0
    s = 0.0
    while i <= n:
        w = 1.0 if (i == 0 or i == n) else (4.0 if i % 2 == 1 else 2.0)
        s = s + w * jnp.exp(-k * (i * h) ** 2)
        i += 1
    return s * h / 3.0


prog(simpson_while_loop, lambda r: (np.float64(r.uniform(0.5, 2.0)),), extras=("vmap", "hess"))


def secant_root(c):
    x0, x1 = 0.5, 2.0
    for _ in range(12):
        f0 = x0 * x0 - c
        f1 = x1 * x1 - c
        x0, x1 = x1, x1 - f1 * (x1 - x0) / (f1 - f0)
    return x1


prog(secant_root, lambda r: (np.float64(r.uniform(1.0, 3.0)),), outcome="either", extras=("vmap",))


def golden_section_min(a):
    lo, hi = -2.0, 2.0
    g = 0.6180339887
    for _ in range(25):
        x1 = hi - g * (hi - lo)
        x2 = lo + g * (hi - lo)
        if (x1 - a) ** 2 < (x2 - a) ** 2:
            hi = x2
        else:
            lo = x1
    m = 0.5 * (lo + hi)
    return jnp.cos(m) * a


prog(golden_section_min, lambda r: (np.float64(r.uniform(-1.0, 1.0)),), outcome="either", extras=("vmap",))


def diff_and_gradient(x):
    d = jnp.diff(x)
    g = jnp.gradient(x)
    return jnp.sum(d ** 2) + jnp.sum(g * x)


prog(diff_and_gradient, _v(5), extras=("vmap", "hess"))


def outer_kron_trace(x):
    M = jnp.outer(x, x) + jnp.eye(3)
    return jnp.trace(M @ M) + jnp.linalg.det(M)


prog(outer_kron_trace, _v(3), extras=("vmap", "hess"))


def matrix_exponential_series(a):
    A = jnp.array([[0.0, 1.0], [-1.0, 0.0]]) * a
    term = jnp.eye(2)
    total = jnp.eye(2)
    for k in range(1, 10):
        term = term @ A / k
        total = total + term
    return total[0, 0] + 2.0 * total[0, 1]


prog(matrix_exponential_series, lambda r: (np.float64(r.uniform(0.2, 1.0)),), extras=("vmap", "hess"))


def interp_table_lookup(x):
    xp = jnp.array([0.0, 0.5, 1.0, 1.5, 2.0])
    fp = jnp.array([0.0, 0.2, 0.9, 1.1, 3.0])
    return jnp.sum(jnp.interp(x, xp, fp) * x)


prog(interp_table_lookup, lambda r: (np.array([0.3, 0.7, 1.2, 1.8]) + 0.05 * vec(r, 4),), extras=("vmap", "hess"))


def logsumexp_stable_loop(x):
    m = x[0]
    s = 1.0
    for i in range(1, x.shape[0]):
        if x[i] > m:
            s = s * jnp.exp(m - x[i]) + 1.0
            m = x[i]
        else:
            s = s + jnp.exp(x[i] - m)
    return m + jnp.log(s)


prog(logsumexp_stable_loop, _v(5), extras=("vmap", "hess"))


def rk4_vector_ode(y0):
    A = jnp.array([[-0.5, 1.0], [-1.0, -0.2]])
    y = y0
    h = 0.1
    for _ in range(5):
        k1 = A @ y + jnp.sin(y)
        k2 = A @ (y + 0.5 * h * k1) + jnp.sin(y + 0.5 * h * k1)
        k3 = A @ (y + 0.5 * h * k2) + jnp.sin(y + 0.5 * h * k2)
        k4 = A @ (y + h * k3) + jnp.sin(y + h * k3)
        y = y + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6.0
    return y


prog(rk4_vector_ode, _v(2), extras="jac")


# ================================================================ data wrangling
def boolean_mask_sum(x):
    mask = x > 0.0
    return jnp.sum(jnp.where(mask, x ** 2, 0.0)) + jnp.sum(mask * x)


prog(boolean_mask_sum, lambda r: (np.array([0.5, -0.3, 0.8, -0.9, 0.2]) + 0.05 * vec(r, 5),),
     extras=("vmap", "hess"))


def boolean_mask_numpy_index(x):
    m = x > 0.1
    return np.sum(x[m] ** 3) + np.sum(x[~m])


prog(boolean_mask_numpy_index, lambda r: (np.array([0.5, -0.3, 0.8, -0.9, 0.2]) + 0.03 * vec(r, 5),))


def argmax_one_hot_select(x):
    logits = x.reshape(2, 3)
    one_hot = astjax.nn.one_hot(jnp.argmax(logits, axis=1), 3)
    return jnp.sum(one_hot * logits ** 2)


prog(argmax_one_hot_select, _v(6), extras=("vmap", "hess"))


def argmax_equal_one_hot(x):
    oh = (jnp.arange(4) == jnp.argmax(x)).astype(x.dtype)
    return jnp.sum(oh * x) * jnp.sum(x)


prog(argmax_equal_one_hot, _v(4), extras=("vmap", "hess"))


def reshape_transpose_stack(x):
    A = x.reshape(2, 3)
    B = jnp.stack([A, A.T @ A[:, :2]], axis=0) if False else jnp.stack([A, 2.0 * A], axis=0)
    C = jnp.transpose(B, (2, 0, 1)).reshape(3, 4)
    return jnp.sum(C * jnp.arange(12.0).reshape(3, 4)) + jnp.sum(C[:, 1] ** 2)


prog(reshape_transpose_stack, _v(6), extras=("vmap", "hess"))


def concatenate_and_split(x):
    y = jnp.concatenate([x, x[::-1] * 2.0, jnp.array([1.0])])
    a, b = jnp.split(y[:-1], 2)
    return jnp.sum(a * b) + y[-1]


prog(concatenate_and_split, _v(4), extras=("vmap", "hess"))


def at_set_add_mul(x):
    y = jnp.zeros(5, dtype=x.dtype)
    y = y.at[0].set(x[0] * 2.0)
    y = y.at[1:3].add(x[1:3])
    y = y.at[jnp.array([3, 4])].set(x[2] * x[3])
    y = y.at[2].multiply(x[0])
    return jnp.sum(y ** 2)


prog(at_set_add_mul, _v(4), extras=("vmap", "hess"))


def at_add_repeated_indices(x):
    idx = jnp.array([0, 2, 2, 1, 0, 0])
    y = jnp.zeros(3, x.dtype).at[idx].add(x)
    return jnp.sum(y ** 2)


prog(at_add_repeated_indices, _v(6), extras=("vmap", "hess"))


def at_mul_repeated_indices(x):
    idx = jnp.array([1, 1, 0])
    y = jnp.ones(3, x.dtype).at[idx].multiply(x)
    return jnp.sum(y * jnp.array([1.0, 2.0, 3.0]))


prog(at_mul_repeated_indices, lambda r: (pos(r, 3),), extras=("vmap", "hess"), outcome="either",
     note="astjax refuses the derivative of .at[].multiply at repeated positions (RuntimeRefusal)")


def gather_with_repeats(x):
    idx = jnp.array([0, 0, 3, 1, 3, 3])
    g = x[idx]
    return jnp.sum(g * jnp.arange(6.0)) + jnp.prod(g[:3])


prog(gather_with_repeats, _v(4), extras=("vmap", "hess"))


def numpy_fancy_add_at(x):
    out = np.zeros(3)
    np.add.at(out, np.array([0, 1, 1, 2, 2, 2]), x)
    return np.sum(out ** 2)


prog(numpy_fancy_add_at, _v(6), outcome="either")


def segment_sum_group_means(x):
    seg = jnp.array([0, 0, 1, 2, 2, 2])
    sums = jnp.zeros(3, x.dtype).at[seg].add(x)
    counts = jnp.zeros(3, x.dtype).at[seg].add(1.0)
    return jnp.sum((sums / counts) ** 2)


prog(segment_sum_group_means, _v(6), extras=("vmap", "hess"))


def scatter_rows_into_matrix(x):
    M = jnp.zeros((3, 2), x.dtype)
    rows = x.reshape(2, 2)
    M = M.at[jnp.array([2, 0])].set(rows)
    return jnp.sum(M * jnp.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])) + jnp.sum(M ** 2)


prog(scatter_rows_into_matrix, _v(4), extras=("vmap", "hess"))


def numpy_row_loop_assign(x):
    M = np.zeros((3, 2))
    for i in range(3):
        M[i] = x[i] * np.array([1.0, float(i)])
    M[:, 1] *= 2.0
    return np.sum(M ** 2) + M[2, 1]


prog(numpy_row_loop_assign, _v(3))


def pairwise_distance_matrix(x):
    P = x.reshape(3, 2)
    D = jnp.sqrt(jnp.sum((P[:, None, :] - P[None, :, :]) ** 2, axis=-1) + 1e-3)
    return jnp.sum(jnp.triu(D, k=1))


prog(pairwise_distance_matrix, _v(6), extras=("vmap", "hess"))


def topk_by_sort(x):
    s = jnp.sort(x)[::-1]
    return jnp.sum(s[:2] ** 2) - s[-1]


prog(topk_by_sort, _v(5), extras=("vmap", "hess"))


def where_count_normalize(x):
    valid = x > -0.5
    n = jnp.sum(valid)
    return jnp.sum(jnp.where(valid, x, 0.0)) / n


prog(where_count_normalize, lambda r: (np.array([0.1, -0.9, 0.4, 0.7, -0.2]) + 0.05 * vec(r, 5),),
     extras=("vmap", "hess"))


def flatten_params_l2(params):
    flat = jnp.concatenate([jnp.ravel(p) for p in astjax.tree_util.tree_leaves(params)])
    return jnp.sum(flat ** 2) + jnp.sum(params["a"]) * params["b"][0, 1]


prog(flatten_params_l2, lambda r: ({"a": vec(r, 3), "b": mat(r, 2)},))


def swapaxes_moveaxis_einsum(x):
    T = x.reshape(2, 2, 3)
    U = jnp.moveaxis(T, 2, 0)
    V = jnp.swapaxes(U, 1, 2)
    return jnp.einsum("ijk,ikj->", V, U) + jnp.sum(V[0] ** 2)


prog(swapaxes_moveaxis_einsum, _v(12), extras=("vmap", "hess"))


def tile_repeat_broadcast(x):
    t = jnp.tile(x, 2)
    r = jnp.repeat(x, 2)
    b = jnp.broadcast_to(x, (3, x.shape[0]))
    return jnp.sum(t * r) + jnp.sum(b * jnp.arange(3.0)[:, None])


prog(tile_repeat_broadcast, _v(3), extras=("vmap", "hess"))


def unique_free_histogram_weights(x):
    bins = jnp.array([0, 1, 1, 2, 0])
    counts = jnp.bincount(bins, length=3)
    w = x / counts[bins]
    return jnp.sum(w ** 2)


prog(unique_free_histogram_weights, _v(5), extras=("vmap", "hess"))


def dynamic_slice_window(x):
    total = 0.0
    for start in range(3):
        w = lax.dynamic_slice(x, (start,), (3,))
        total = total + jnp.prod(w)
    return total


prog(dynamic_slice_window, _v(5), extras=("vmap", "hess"))


def list_append_then_stack(x):
    rows = []
    for i in range(3):
        rows.append(x * (i + 1.0) + x[i])
    M = jnp.stack(rows)
    return jnp.sum(M @ x)


prog(list_append_then_stack, _v(3), extras=("vmap", "hess"))


def python_list_comprehension_sum(x):
    terms = [jnp.sin(x[i]) * x[i + 1] for i in range(x.shape[0] - 1)]
    return sum(terms) + max(x[0], 0.1)


prog(python_list_comprehension_sum, lambda r: (np.array([0.5, 0.2, -0.4, 0.9]) + 0.03 * vec(r, 4),),
     extras=("vmap", "hess"))


def integer_index_array_argument(x, idx):
    return jnp.sum(x[idx] ** 2) + jnp.sum(x[idx[::-1]] * x[idx])


prog(integer_index_array_argument, lambda r: (vec(r, 4), np.array([3, 0, 0, 2])), extras=("vmap", "hess"))


def bool_mask_argument(x, keep):
    return jnp.sum(jnp.where(keep, jnp.exp(x), x ** 2))


prog(bool_mask_argument, lambda r: (vec(r, 4), np.array([True, False, True, True])), extras=("vmap", "hess"))


def int_count_argument(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + x[i % x.shape[0]] * (i + 1)
    return acc * acc


prog(int_count_argument, lambda r: (vec(r, 3), 5), extras=("vmap", "hess"))


def float_scale_argument(x, scale):
    return jnp.sum(jnp.tanh(x * scale)) / scale


prog(float_scale_argument, lambda r: (vec(r, 3), 1.7), extras=("vmap", "hess"))


def namedtuple_params_loss(p):
    x = jnp.array([0.2, 0.5, -0.3])
    return jnp.sum((p.w * x + p.b - 1.0) ** 2)


class LinearParams(NamedTuple):
    w: object
    b: object


prog(namedtuple_params_loss, lambda r: (LinearParams(vec(r, 3), np.float64(r.uniform())),))


def nested_pytree_params(p):
    enc, dec = p["enc"], p["dec"]
    x = jnp.array([0.3, -0.1])
    h = jnp.tanh(enc[0] @ x + enc[1])
    y = dec["W"] @ h
    return jnp.sum((y - x) ** 2)


prog(nested_pytree_params, lambda r: ({"enc": (mat(r, 3, 2), vec(r, 3)), "dec": {"W": mat(r, 2, 3)}},))



def kalman_filter_1d(obs):
    m, P = 0.0, 1.0
    q, r = 0.05, 0.2
    nll = 0.0
    for t in range(obs.shape[0]):
        P = P + q
        S = P + r
        innov = obs[t] - m
        nll = nll + 0.5 * (jnp.log(S) + innov * innov / S)
        K = P / S
        m = m + K * innov
        P = (1.0 - K) * P
    return nll + m * m


prog(kalman_filter_1d, _v(5), extras=("vmap", "hess"))


def lotka_volterra_euler(z0):
    x, y = z0[0], z0[1]
    dt = 0.05
    for _ in range(8):
        dx = 1.1 * x - 0.4 * x * y
        dy = 0.1 * x * y - 0.4 * y
        x, y = x + dt * dx, y + dt * dy
    return x * y + jnp.log(x)


prog(lotka_volterra_euler, lambda r: (pos(r, 2, 1.0, 2.0),), extras=("vmap", "hess"))


def clip_by_global_norm_step(g):
    norms = jnp.sqrt(jnp.sum(g ** 2))
    scale = jnp.minimum(1.0, 0.8 / norms)
    w = jnp.array([0.5, -0.3, 0.2, 0.9]) - 0.1 * g * scale
    return jnp.sum(w ** 2)


prog(clip_by_global_norm_step, lambda r: (vec(r, 4) * 1.5,), extras=("vmap", "hess"))


def cosine_similarity_loss(u):
    v = jnp.array([0.3, -0.7, 0.5])
    cos = jnp.dot(u, v) / (jnp.linalg.norm(u) * jnp.linalg.norm(v))
    return 1.0 - cos + 0.01 * jnp.sum(u ** 2)


prog(cosine_similarity_loss, _v(3), extras=("vmap", "hess"))

# ================================================================ boundaries of the compiled and batched paths
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


def _np64(tree):
    return replace_leaves(tree, [np.asarray(leaf, dtype=np.float64) for leaf in leaves(tree)])


def _refusing_jit(check):
    """A boundary check whose jit compositions may be refused clearly (a JitError naming a line of this
    file): the refusal is recorded and the check runs again without them."""
    def run(fn, args):
        global COMPILE
        try:
            return check(fn, args)
        except JitError as exc:
            if not names_a_line_of(exc, __file__):
                raise
            _REFUSALS.append(exc)
            saved, COMPILE = COMPILE, False
            try:
                return check(fn, args)
            finally:
                COMPILE = saved
    return run


def mlp_loss_f32(params, x, y):
    h = x
    for W, b in params[:-1]:
        h = jnp.tanh(h @ W + b)
    W, b = params[-1]
    return jnp.mean((h @ W + b - y) ** 2)


def _check_float32_mlp(fn, args):
    params, x, y = args
    p32 = replace_leaves(params, [leaf.astype(np.float32) for leaf in leaves(params)])
    x32, y32 = x.astype(np.float32), y.astype(np.float32)
    g_fd = fd_grad(fn, (_np64(p32), x32.astype(np.float64), y32.astype(np.float64)), 0)
    value = _scalar_value(fn, (_np64(p32), x32.astype(np.float64), y32.astype(np.float64)))
    out = []
    for label, t in (("value_and_grad", astjax.value_and_grad(fn)),
                     ("jit(value_and_grad)", astjax.jit(astjax.value_and_grad(fn)) if COMPILE else None)):
        if t is None:
            continue
        v, g = t(p32, x32, y32)
        out += [(np.result_type(v), F32, f"{label} value dtype float32"), (v, value, f"{label} value")]
        out += [(np.result_type(a), F32, f"{label} grad dtype float32") for a in leaves(g)]
        out += [(a, e, f"{label} grad leaf {k}") for k, (a, e) in enumerate(zip(leaves(g), g_fd))]
    xs = np.stack([x32, x32 * 0.5])
    pe = astjax.vmap(astjax.grad(fn), in_axes=(None, 0, None))(p32, xs, y32[0])
    for b in range(2):
        want = fd_grad(fn, (_np64(p32), xs[b].astype(np.float64), y32[0].astype(np.float64)), 0)
        out += [(np.asarray(a)[b], e, f"vmap(grad) example {b} leaf {k}") for k, (a, e) in enumerate(zip(leaves(pe), want))]
    out += [(np.result_type(a), F32, "vmap(grad) dtype float32") for a in leaves(pe)]
    return out


case(mlp_loss_f32, lambda r: (_init(r, [3, 4, 2]), mat(r, 5, 3), mat(r, 5, 2)), "works", mode="custom",
     check=_refusing_jit(_check_float32_mlp), rtol=2e-3)


def cubic_energy_f32(x):
    return jnp.sum(x ** 3 * 0.5 + jnp.sin(x) * x[0])


def _check_float32_hessian(fn, args):
    x32 = args[0].astype(np.float32)
    H = fd_hessian(fn, (x32.astype(np.float64),), 0)
    out = []
    for label, t in (("hessian", astjax.hessian(fn)), ("jacfwd(grad)", astjax.jacfwd(astjax.grad(fn))),
                     ("jit(hessian)", astjax.jit(astjax.hessian(fn)) if COMPILE else None)):
        if t is None:
            continue
        h = t(x32)
        out += [(np.result_type(h), F32, f"{label} dtype float32"), (h, H, label)]
    return out


case(cubic_energy_f32, lambda r: (vec(r, 3),), "works", mode="custom", check=_refusing_jit(_check_float32_hessian), rtol=2e-3)


def newton_cbrt_scalar(c):
    x = 1.0 + 0.0 * c
    for _ in range(12):
        x = x - (x * x * x - c) / (3.0 * x * x)
    return x * x


def _check_scalar_kinds(fn, args):
    """A Python float, a 0-d float64 array, np.float64, np.float32 and a 0-d float32 array: jit(grad)
    equals grad in value and dtype (JAX: a Python float is weakly typed, float32 stays float32)."""
    c = float(args[0])
    truth = (2.0 / 3.0) * c ** (-1.0 / 3.0)
    out = []
    jg = astjax.jit(astjax.grad(fn)) if COMPILE else None
    for label, a in (("python float", c), ("0-d float64", np.array(c)), ("np.float64", np.float64(c)),
                     ("np.float32", np.float32(c)), ("0-d float32", np.array(c, np.float32))):
        g = astjax.grad(fn)(a)
        out += [(g, truth, f"grad of {label}"), (np.shape(g), np.shape(a), f"grad of {label} shape") if False else
                (np.ndim(g), 0, f"grad of {label} is 0-d")]
        if jg is not None:
            j = jg(a)
            out += [(j, g, f"jit(grad) of {label} == grad"), (np.result_type(j), np.result_type(g),
                                                                   f"jit(grad) of {label} dtype")]
    for a in (np.float32(c), np.array(c, np.float32)):
        out.append((np.result_type(astjax.grad(fn)(a)), F32, "grad of a float32 scalar is float32"))
    return out


case(newton_cbrt_scalar, lambda r: (np.float64(r.uniform(1.0, 3.0)),), "works", mode="custom",
     check=_refusing_jit(_check_scalar_kinds), rtol=1e-3)


def softplus_sum_any_size(x):
    return jnp.sum(jnp.logaddexp(0.0, x) * 2.0) + jnp.sum(x * x)


def _check_sizes(fn, args):
    """Size-1, 0-d, empty and 2-D inputs through one jitted gradient (a new cache entry each) and vmap."""
    out = []
    jvg = astjax.jit(astjax.value_and_grad(fn)) if COMPILE else None
    for label, x in (("size-1", np.array([0.3])), ("0-d", np.array(-0.4)), ("empty", np.zeros(0)),
                     ("2-D", np.array([[0.1, -0.2], [0.5, 0.9]])), ("size-5", np.linspace(-1, 1, 5)),
                     ("size-1 again", np.array([-0.7])), ("float32", np.array([0.3, 0.2], np.float32))):
        want_v = _scalar_value(fn, (x.astype(np.float64),))
        want_g = 2.0 / (1.0 + np.exp(-x.astype(np.float64))) + 2.0 * x
        v, g = astjax.value_and_grad(fn)(x)
        out += [(v, want_v, f"{label} value"), (g, want_g, f"{label} grad"),
                (np.result_type(g), x.dtype, f"{label} grad dtype")]
        if jvg is not None:
            v, g = jvg(x)
            out += [(v, want_v, f"jit {label} value"), (g, want_g, f"jit {label} grad"),
                    (np.result_type(g), x.dtype, f"jit {label} grad dtype")]
    xs = np.zeros((3, 0))
    out.append((astjax.vmap(astjax.grad(fn))(xs), np.zeros((3, 0)), "vmap(grad) of empty rows"))
    xs = np.array([[0.5], [-0.5]])
    out.append((astjax.vmap(astjax.grad(fn))(xs), 2.0 / (1.0 + np.exp(-xs)) + 2.0 * xs, "vmap(grad) of size-1 rows"))
    return out


case(softplus_sum_any_size, lambda r: (vec(r, 3),), "works", mode="custom", check=_refusing_jit(_check_sizes))


def mixed_int_bool_float(x, n, flag, idx):
    s = 0.0
    for i in range(n):
        s = s + x[idx[i % idx.shape[0]]] * (i + 1)
    if flag:
        s = s * s
    return s + jnp.sum(jnp.where(idx > 0, 1.0, 0.0)) * x[0]


def _check_mixed_args(fn, args):
    """Integer, bool and index-array arguments beside the float one, changing between calls of one jit."""
    x = args[0]
    out = []
    jg = astjax.jit(astjax.grad(fn)) if COMPILE else None
    for n, flag, idx in ((3, True, np.array([0, 2])), (5, True, np.array([0, 2])), (5, False, np.array([0, 2])),
                         (2, np.True_, np.array([1, 1, 0])), (0, False, np.array([2])), (4, 1, np.array([2, 0]))):
        want = fd_grad(fn, (x, n, flag, idx), 0)[0]
        out.append((astjax.grad(fn)(x, n, flag, idx), want, f"grad n={n} flag={flag} idx={idx.tolist()}"))
        if jg is not None:
            out.append((jg(x, n, flag, idx), want, f"jit(grad) n={n} flag={flag} idx={idx.tolist()}"))
    return out


case(mixed_int_bool_float, lambda r: (vec(r, 3), 3, True, np.array([0, 2])), "works", mode="custom",
     check=_refusing_jit(_check_mixed_args))


def smoothing_static_mode(x, mode, k):
    if mode == "box":
        w = jnp.ones(k) / k
    else:
        w = jnp.exp(-0.5 * (jnp.arange(k) - (k - 1) / 2.0) ** 2)
        w = w / jnp.sum(w)
    y = jnp.convolve(x, w, mode="valid")
    return jnp.sum(y ** 2)


def _check_static_argnums(fn, args):
    x = args[0]
    out = []
    for static in ((1, 2),):
        jg = astjax.jit(astjax.grad(fn), static_argnums=static) if COMPILE else None
        jv = astjax.jit(fn, static_argnums=static) if COMPILE else None
        for mode, k in (("box", 3), ("gauss", 3), ("box", 2), ("gauss", 4), ("box", 3)):
            want = fd_grad(fn, (x, mode, k), 0)[0]
            out.append((astjax.grad(fn)(x, mode, k), want, f"grad {mode} {k}"))
            if jg is not None:
                out.append((jg(x, mode, k), want, f"jit(grad, static) {mode} {k}"))
                out.append((jv(x, mode, k), _scalar_value(fn, (x, mode, k)), f"jit(f, static) {mode} {k}"))
    return out


case(smoothing_static_mode, lambda r: (vec(r, 6), "box", 3), "works", mode="custom", check=_refusing_jit(_check_static_argnums))


PENALTY = 0.5
OFFSETS = np.array([0.1, -0.2, 0.3])


def loss_reading_globals(w):
    return jnp.sum((w - OFFSETS) ** 2) * PENALTY + jnp.sum(jnp.sin(w)) * PENALTY


def _check_globals_changed(fn, args):
    """A global rebound (and an array global rebound to a new shape) between calls: every path sees the
    new value, as running the function does."""
    global PENALTY, OFFSETS
    w = args[0]
    saved = PENALTY, OFFSETS
    out = []
    g = astjax.grad(fn)
    jg = astjax.jit(astjax.grad(fn)) if COMPILE else None
    vg = astjax.vmap(astjax.grad(fn))
    jvf = astjax.jit(astjax.vmap(fn)) if COMPILE else None
    try:
        for pen, off in ((0.5, np.array([0.1, -0.2, 0.3])), (2.0, np.array([0.1, -0.2, 0.3])),
                         (2.0, np.array([1.0, 1.0, 1.0])), (3.0, np.array(0.25))):
            PENALTY, OFFSETS = pen, off
            want = fd_grad(fn, (w,), 0)[0]
            out.append((g(w), want, f"grad with PENALTY={pen} OFFSETS={off}"))
            ws = np.stack([w, w + 0.1])
            out.append((vg(ws), np.stack([want, fd_grad(fn, (w + 0.1,), 0)[0]]), f"vmap(grad) PENALTY={pen}"))
            if jg is not None:
                out.append((jg(w), want, f"jit(grad) with PENALTY={pen} OFFSETS={off}"))
                out.append((jvf(ws), [_scalar_value(fn, (v,)) for v in ws], f"jit(vmap(f)) PENALTY={pen}"))
    finally:
        PENALTY, OFFSETS = saved
    return out


case(loss_reading_globals, lambda r: (vec(r, 3),), "works", mode="custom", check=_refusing_jit(_check_globals_changed))


def per_example_mlp_loss(params, x, y):
    h = jnp.tanh(x @ params["W1"] + params["b1"])
    logits = h @ params["W2"]
    return -jnp.sum(astjax.nn.log_softmax(logits) * y)


def _check_per_example(fn, args):
    params = args[0]
    xs = np.random.default_rng(3).uniform(-1, 1, (4, 3))
    ys = np.eye(2)[[0, 1, 1, 0]]
    loop = _stack_grads([fd_grad(fn, (params, xs[b], ys[b]), 0) for b in range(4)])
    out = []
    pe = astjax.vmap(astjax.grad(fn), in_axes=(None, 0, 0))(params, xs, ys)
    out += [(a, e, f"vmap(grad) leaf {k}") for k, (a, e) in enumerate(zip(leaves(pe), loop))]
    if COMPILE:
        pe = astjax.jit(astjax.vmap(astjax.grad(fn), in_axes=(None, 0, 0)))(params, xs, ys)
        out += [(a, e, f"jit(vmap(grad)) leaf {k}") for k, (a, e) in enumerate(zip(leaves(pe), loop))]
        pe = astjax.vmap(astjax.jit(astjax.grad(fn)), in_axes=(None, 0, 0))(params, xs, ys)
        out += [(a, e, f"vmap(jit(grad)) leaf {k}") for k, (a, e) in enumerate(zip(leaves(pe), loop))]
    # batch on axis 1 of x, output gradient batched on axis 1 of every leaf
    pe1 = astjax.vmap(astjax.grad(fn), in_axes=(None, 1, 0), out_axes=-1)(params, xs.T.copy(), ys)
    out += [(a, np.moveaxis(e, 0, -1), f"vmap(grad, in_axes=1, out_axes=-1) leaf {k}")
            for k, (a, e) in enumerate(zip(leaves(pe1), loop))]
    return out


case(per_example_mlp_loss, lambda r: ({"W1": mat(r, 3, 4), "b1": vec(r, 4), "W2": mat(r, 4, 2)},
                                      vec(r, 3), np.array([1.0, 0.0])), "works", mode="custom",
     check=_refusing_jit(_check_per_example))


class Params(NamedTuple):
    w: object
    b: object
    scale: object


def namedtuple_jit_vmap(p, x):
    return jnp.sum(jnp.tanh(x @ p.w + p.b) * p.scale)


def _check_namedtuple(fn, args):
    p, x = args
    want = fd_grad(fn, (p, x), 0)
    out = []
    g = astjax.grad(fn)(p, x)
    out.append((type(g).__name__, 0.0, "grad keeps the NamedTuple") if type(g) is not Params else
               (0.0, 0.0, "grad keeps the NamedTuple"))
    out += [(a, e, f"grad leaf {k}") for k, (a, e) in enumerate(zip(leaves(g), want))]
    if COMPILE:
        g = astjax.jit(astjax.grad(fn))(p, x)
        out.append((0.0, 0.0 if type(g) is Params else 1.0, "jit(grad) keeps the NamedTuple"))
        out += [(a, e, f"jit(grad) leaf {k}") for k, (a, e) in enumerate(zip(leaves(g), want))]
    xs = np.stack([x, -x, 0.5 * x])
    vg = astjax.vmap(astjax.grad(fn), in_axes=(None, 0))(p, xs)
    loop = _stack_grads([fd_grad(fn, (p, xs[b]), 0) for b in range(3)])
    out += [(a, e, f"vmap(grad) leaf {k}") for k, (a, e) in enumerate(zip(leaves(vg), loop))]
    return out


case(namedtuple_jit_vmap, lambda r: (Params(mat(r, 3, 2), vec(r, 2), np.float64(1.5)), vec(r, 3)), "works",
     mode="custom", check=_refusing_jit(_check_namedtuple))
