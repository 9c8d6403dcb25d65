"""An attacker's corpus, twelfth round: real programs as people write them, under grad/jvp/hessian.

ODE integrators (an RK4 loop, an adaptive step size chosen by a while loop), optimizers differentiated
through (unrolled SGD and Adam, a meta-learning inner loop), MCMC log densities, a Gaussian process's
marginal likelihood (cholesky, solve), attention/layernorm/softmax blocks, conv1d written with loops and
with slicing, physics (pairwise forces, springs, an N-body energy), finance (Black-Scholes with erf, Monte
Carlo with explicit keys), classes holding parameters (methods calling methods, properties, __call__),
dataclass and NamedTuple parameters, dict-of-list parameters and recursion; and powers at a zero base with a
differentiated exponent (x ** x at 0 is -inf; JAX: nan)."""
import dataclasses
import math
from typing import NamedTuple

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.scipy.linalg import cho_factor, cho_solve
from astjax.scipy.special import erf

from .case import CASES, case, vec, mat, pos, spd


def _x(*values):
    return np.array(values, dtype=np.float64)


# ============================================================ ODE integrators
def _lotka(state, theta):
    prey, pred = state[0], state[1]
    return jnp.stack([theta[0] * prey - theta[1] * prey * pred, theta[2] * prey * pred - theta[3] * pred])


def rk4_lotka_volterra(theta):
    y = jnp.array([1.0, 0.5])
    h = 0.1
    for _ in range(20):
        k1 = _lotka(y, theta)
        k2 = _lotka(y + h / 2 * k1, theta)
        k3 = _lotka(y + h / 2 * k2, theta)
        k4 = _lotka(y + h * k3, theta)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return jnp.sum(y ** 2)


case(rk4_lotka_volterra, lambda r: (pos(r, 4, 0.4, 1.2),), "works")


def rk4_harmonic_trajectory(params):
    """RK4 of a damped oscillator; the loss compares the trajectory (a list of states) with a target."""
    omega, damping = params[0], params[1]
    x, v = 1.0, 0.0
    dt = 0.05
    traj = []
    for step in range(30):
        def acc(x_, v_):
            return -omega ** 2 * x_ - damping * v_
        k1x, k1v = v, acc(x, v)
        k2x, k2v = v + dt / 2 * k1v, acc(x + dt / 2 * k1x, v + dt / 2 * k1v)
        k3x, k3v = v + dt / 2 * k2v, acc(x + dt / 2 * k2x, v + dt / 2 * k2v)
        k4x, k4v = v + dt * k3v, acc(x + dt * k3x, v + dt * k3v)
        x = x + dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x)
        v = v + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        traj.append(x)
    target = np.cos(np.arange(1, 31) * 0.05)
    return jnp.sum((jnp.array(traj) - target) ** 2)


case(rk4_harmonic_trajectory, lambda r: (pos(r, 2, 0.5, 1.5),), "works")


def adaptive_euler_while(k):
    """Adaptive step: halve h until the error estimate is small (the trip count depends on k, but not
    on a small change of it at these inputs), then integrate y' = -k y with Heun steps."""
    y = 1.0
    t = 0.0
    h = 0.5
    while t < 1.0:
        y_euler = y + h * (-k[0] * y)
        y_heun = y + h / 2 * (-k[0] * y - k[0] * y_euler)
        err = abs(y_heun - y_euler)
        if err > 0.01 and h > 0.02:
            h = h / 2
            continue
        y = y_heun
        t = t + h
    return y * k[1]


case(adaptive_euler_while, lambda r: (_x(1.3, 0.7),), "either")


def lax_fori_euler(theta):
    def body(i, carry):
        y, t = carry
        dy = -theta[0] * y + jnp.sin(t) * theta[1]
        return (y + 0.05 * dy, t + 0.05)
    y, t = lax.fori_loop(0, 25, body, (jnp.float64(1.0), jnp.float64(0.0)))
    return y


case(lax_fori_euler, lambda r: (pos(r, 2),), "works")


def scan_integrator_dict_carry(theta):
    def step(carry, u):
        pos_, vel = carry["x"], carry["v"]
        vel = vel + 0.1 * (-theta[0] * pos_ + u)
        pos_ = pos_ + 0.1 * vel
        return {"x": pos_, "v": vel}, pos_ * theta[1]
    carry, ys = lax.scan(step, {"x": jnp.float64(1.0), "v": jnp.float64(0.0)}, jnp.linspace(0.0, 1.0, 12))
    return jnp.sum(ys ** 2) + carry["v"]


case(scan_integrator_dict_carry, lambda r: (pos(r, 2),), "works")


# ============================================================ optimizers differentiated through
def unrolled_sgd(lr_and_w0):
    """The loss after five SGD steps on a least-squares problem, as a function of the learning rate
    and the starting weights (hyperparameter gradient)."""
    A = np.array([[1.0, 0.5], [0.2, 1.5], [0.3, -0.4]])
    b = np.array([1.0, -1.0, 0.5])
    lr = lr_and_w0[0]
    w = lr_and_w0[1:]
    for _ in range(5):
        r = A @ w - b
        g = 2 * A.T @ r
        w = w - lr * g
    return jnp.sum((A @ w - b) ** 2)


case(unrolled_sgd, lambda r: (_x(0.05, 0.3, -0.2),), "works")


def unrolled_adam(w0):
    m = jnp.zeros_like(w0)
    v = jnp.zeros_like(w0)
    w = w0
    b1, b2, eps, lr = 0.9, 0.999, 1e-8, 0.1
    for t in range(1, 5):
        g = astjax.grad(lambda p: jnp.sum((p - 1.0) ** 4) + jnp.sum(jnp.sin(p)))(w)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mhat = m / (1 - b1 ** t)
        vhat = v / (1 - b2 ** t)
        w = w - lr * mhat / (jnp.sqrt(vhat) + eps)
    return jnp.sum(w ** 2)


case(unrolled_adam, lambda r: (vec(r, 3),), "either")


def maml_inner_loop(theta):
    """MAML: one meta-loss through two inner gradient steps (grad inside grad)."""
    xs = np.array([0.1, 0.5, -0.3, 0.8])
    ys = np.array([0.3, 1.1, -0.4, 1.9])

    def task_loss(p):
        return jnp.mean((p[0] * xs + p[1] - ys) ** 2)
    p = theta
    for _ in range(2):
        p = p - 0.3 * astjax.grad(task_loss)(p)
    return task_loss(p) + 0.01 * jnp.sum(theta ** 2)


case(maml_inner_loop, lambda r: (vec(r, 2),), "either",
     note="refused today: grad of a local function that reads this function's locals (named at its line)")


def momentum_with_list_history(w0):
    history = [w0]
    velocity = jnp.zeros_like(w0)
    w = w0
    for i in range(4):
        g = jnp.cos(w) * w + w ** 3
        velocity = 0.8 * velocity - 0.05 * g
        w = w + velocity
        history.append(w)
    return sum(jnp.sum(h ** 2) for h in history) / len(history)


case(momentum_with_list_history, lambda r: (vec(r, 3),), "works")


# ============================================================ MCMC log densities
def log_density_hierarchical(params):
    mu, log_tau = params[0], params[1]
    theta = params[2:]
    y = np.array([28.0, 8.0, -3.0, 7.0])
    sigma = np.array([15.0, 10.0, 16.0, 11.0])
    tau = jnp.exp(log_tau)
    lp = -0.5 * mu ** 2 / 25.0
    lp = lp - 0.5 * log_tau ** 2
    lp = lp + jnp.sum(-0.5 * ((theta - mu) / tau) ** 2 - jnp.log(tau))
    lp = lp + jnp.sum(-0.5 * ((y - theta) / sigma) ** 2)
    return lp + log_tau


case(log_density_hierarchical, lambda r: (vec(r, 6),), "works")


def metropolis_adjusted_langevin_step(x):
    """One MALA proposal from a fixed noise draw: the log acceptance ratio as a function of x."""
    def logp(z):
        return -0.5 * jnp.sum(z ** 2) - 0.1 * jnp.sum(z ** 4)
    eps = 0.1
    noise = np.array([0.3, -0.2, 0.5])
    g = astjax.grad(logp)(x)
    prop = x + 0.5 * eps ** 2 * g + eps * noise
    gp = astjax.grad(logp)(prop)
    fwd = -jnp.sum((prop - x - 0.5 * eps ** 2 * g) ** 2) / (2 * eps ** 2)
    bwd = -jnp.sum((x - prop - 0.5 * eps ** 2 * gp) ** 2) / (2 * eps ** 2)
    return logp(prop) - logp(x) + bwd - fwd


case(metropolis_adjusted_langevin_step, lambda r: (vec(r, 3),), "either",
     note="refused today, as maml_inner_loop")


def leapfrog_hmc_energy(q0):
    p = np.array([0.4, -0.3])
    q = q0

    def grad_u(z):
        return z + 0.2 * z ** 3
    step = 0.1
    p = p - step / 2 * grad_u(q)
    for i in range(5):
        q = q + step * p
        if i != 4:
            p = p - step * grad_u(q)
    p = p - step / 2 * grad_u(q)
    u = 0.5 * jnp.sum(q ** 2) + 0.05 * jnp.sum(q ** 4)
    return u + 0.5 * jnp.sum(p ** 2)


case(leapfrog_hmc_energy, lambda r: (vec(r, 2),), "works")


# ============================================================ Gaussian processes
_GP_X = np.linspace(-1.0, 1.0, 6)
_GP_Y = np.sin(3 * _GP_X)


def gp_marginal_likelihood(log_params):
    ell, sf, sn = jnp.exp(log_params[0]), jnp.exp(log_params[1]), jnp.exp(log_params[2])
    d = _GP_X[:, None] - _GP_X[None, :]
    K = sf ** 2 * jnp.exp(-0.5 * d ** 2 / ell ** 2) + (sn ** 2 + 1e-6) * jnp.eye(6)
    L = jnp.linalg.cholesky(K)
    alpha = jnp.linalg.solve(L.T, jnp.linalg.solve(L, _GP_Y))
    return 0.5 * _GP_Y @ alpha + jnp.sum(jnp.log(jnp.diag(L))) + 3.0 * jnp.log(2 * jnp.pi)


case(gp_marginal_likelihood, lambda r: (_x(-0.3, 0.1, -1.0),), "works")


def gp_slogdet_and_inv(log_params):
    ell = jnp.exp(log_params[0])
    d2 = (_GP_X[:, None] - _GP_X[None, :]) ** 2
    K = jnp.exp(-d2 / (2 * ell ** 2)) + jnp.exp(log_params[1]) * jnp.eye(6)
    sign, logdet = jnp.linalg.slogdet(K)
    return 0.5 * _GP_Y @ jnp.linalg.inv(K) @ _GP_Y + 0.5 * logdet


case(gp_slogdet_and_inv, lambda r: (_x(-0.5, -1.5),), "works")


def gp_cho_solve_predict(x_star):
    d = _GP_X[:, None] - _GP_X[None, :]
    K = jnp.exp(-0.5 * d ** 2 / 0.3) + 0.01 * jnp.eye(6)
    c = cho_factor(K)
    ks = jnp.exp(-0.5 * (x_star[:, None] - _GP_X[None, :]) ** 2 / 0.3)
    mean = ks @ cho_solve(c, _GP_Y)
    var = 1.0 - jnp.sum(ks * cho_solve(c, ks.T).T, axis=1)
    return jnp.sum(mean ** 2 + var)


case(gp_cho_solve_predict, lambda r: (vec(r, 3),), "works")


# ============================================================ attention, layernorm, softmax
def _layernorm(h, gain, bias):
    mu = h.mean(axis=-1, keepdims=True)
    var = ((h - mu) ** 2).mean(axis=-1, keepdims=True)
    return gain * (h - mu) / jnp.sqrt(var + 1e-5) + bias


def _softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


_WQ = np.random.default_rng(1).normal(size=(4, 4)) * 0.5
_WK = np.random.default_rng(2).normal(size=(4, 4)) * 0.5
_WV = np.random.default_rng(3).normal(size=(4, 4)) * 0.5


def attention_block(x):
    h = x.reshape(3, 4)
    q, k, v = h @ _WQ, h @ _WK, h @ _WV
    scores = q @ k.T / np.sqrt(4.0)
    mask = np.tril(np.ones((3, 3), dtype=bool))
    scores = np.where(mask, scores, -1e9)
    out = _softmax(scores) @ v
    out = _layernorm(out + h, np.ones(4), np.zeros(4))
    return np.sum(np.tanh(out) * np.arange(12.0).reshape(3, 4))


case(attention_block, lambda r: (vec(r, 12),), "works")


def multihead_attention_loop(x):
    h = x.reshape(3, 4)
    heads = []
    for head in range(2):
        cols = slice(2 * head, 2 * head + 2)
        q = h[:, cols]
        k = (h @ _WK)[:, cols]
        a = jax_softmax_rows(q @ k.T)
        heads.append(a @ h[:, cols])
    out = jnp.concatenate(heads, axis=1)
    return jnp.sum(out ** 2)


def jax_softmax_rows(s):
    return astjax.nn.softmax(s, axis=-1)


case(multihead_attention_loop, lambda r: (vec(r, 12),), "works")


def layernorm_then_logsumexp(x):
    h = _layernorm(x.reshape(2, 5), np.linspace(0.5, 1.5, 5), 0.1)
    return jnp.sum(astjax.scipy.special.logsumexp(h, axis=1)) - h[0, 2]


case(layernorm_then_logsumexp, lambda r: (vec(r, 10),), "works")


def cross_entropy_with_labels(logits):
    z = logits.reshape(4, 3)
    labels = np.array([0, 2, 1, 2])
    logp = z - jnp.log(jnp.sum(jnp.exp(z), axis=1, keepdims=True))
    return -jnp.mean(logp[np.arange(4), labels])


case(cross_entropy_with_labels, lambda r: (vec(r, 12),), "works")


# ============================================================ conv1d
_KERNEL = np.array([0.25, -0.5, 1.0])


def conv1d_loops(x):
    n, k = x.shape[0], _KERNEL.shape[0]
    out = np.zeros(n - k + 1)
    for i in range(n - k + 1):
        acc = 0.0
        for j in range(k):
            acc += x[i + j] * _KERNEL[j]
        out[i] = acc
    return np.sum(np.tanh(out) ** 2)


case(conv1d_loops, lambda r: (vec(r, 7),), "works")


def conv1d_slicing(x):
    k = len(_KERNEL)
    n = x.shape[0] - k + 1
    out = sum(_KERNEL[j] * x[j:j + n] for j in range(k))
    return jnp.sum(jnp.tanh(out) ** 2)


case(conv1d_slicing, lambda r: (vec(r, 7),), "works")


def conv1d_learned_kernel_same_padding(w):
    x = np.linspace(-1.0, 1.0, 8)
    padded = jnp.concatenate([np.zeros(1), x, np.zeros(1)])
    out = jnp.zeros(8, dtype=np.float64)
    for i in range(8):
        out = out.at[i].set(jnp.dot(padded[i:i + 3], w))
    return jnp.sum(jax_relu(out) ** 2)


def jax_relu(z):
    return jnp.maximum(z, 0.0)


case(conv1d_learned_kernel_same_padding, lambda r: (_x(0.3, -0.7, 0.45),), "works")


def conv1d_stride_two_channels(x):
    sig = x.reshape(2, 8)
    w = np.array([[0.5, -0.25], [0.75, 0.1]])
    outs = []
    for c in range(2):
        row = sig[c]
        outs.append(w[c, 0] * row[0:-1:2] + w[c, 1] * row[1::2])
    return jnp.sum(jnp.stack(outs) ** 3)


case(conv1d_stride_two_channels, lambda r: (vec(r, 16),), "works")


# ============================================================ physics
def pairwise_lennard_jones(pos_flat):
    p = pos_flat.reshape(4, 2)
    n = p.shape[0]
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r2 = np.sum((p[i] - p[j]) ** 2)
            inv6 = (1.0 / r2) ** 3
            energy += 4.0 * (inv6 ** 2 - inv6)
    return energy


def _lj_positions(r):
    base = np.array([[0.0, 0.0], [1.2, 0.0], [0.0, 1.2], [1.3, 1.25]])
    return (base.ravel() + r.uniform(-0.05, 0.05, 8),)


case(pairwise_lennard_jones, _lj_positions, "works", rtol=1e-4)


def pairwise_forces_vectorized(pos_flat):
    p = pos_flat.reshape(4, 2)
    diff = p[:, None, :] - p[None, :, :]
    r = jnp.sqrt(jnp.sum(diff ** 2, axis=-1) + jnp.eye(4))
    iu = np.triu_indices(4, 1)
    return jnp.sum(1.0 / r[iu])


case(pairwise_forces_vectorized, _lj_positions, "works")


def spring_chain(x):
    """Springs between neighbours and an anchor, with rest lengths; the state is a list of points."""
    pts = [x[2 * i:2 * i + 2] for i in range(4)]
    rest = [1.0, 1.1, 0.9]
    e = 0.5 * jnp.sum(pts[0] ** 2)
    for (a, b), l0 in zip(zip(pts[:-1], pts[1:]), rest):
        e = e + 0.5 * (jnp.linalg.norm(b - a) - l0) ** 2
    return e


case(spring_chain, lambda r: ((np.arange(8.0) * 0.4 + r.uniform(-0.1, 0.1, 8)),), "either",
     note="refused today: zip over zip of lists of arrays (named at its line)")


def nbody_energy_with_velocity_verlet(state):
    q = state[:6].reshape(3, 2)
    v = state[6:].reshape(3, 2)
    m = np.array([1.0, 0.5, 0.8])
    dt = 0.01

    def accel(q_):
        a = jnp.zeros_like(q_)
        for i in range(3):
            for j in range(3):
                if i == j:
                    continue
                d = q_[j] - q_[i]
                a = a.at[i].add(m[j] * d / (jnp.sum(d ** 2) + 0.1) ** 1.5)
        return a
    a = accel(q)
    for _ in range(3):
        q = q + dt * v + 0.5 * dt ** 2 * a
        a_new = accel(q)
        v = v + 0.5 * dt * (a + a_new)
        a = a_new
    kinetic = 0.5 * jnp.sum(m[:, None] * v ** 2)
    potential = 0.0
    for i in range(3):
        for j in range(i):
            potential = potential - m[i] * m[j] / jnp.sqrt(jnp.sum((q[i] - q[j]) ** 2) + 0.1)
    return kinetic + potential


def _nbody_state(r):
    q = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]) + r.uniform(-0.1, 0.1, (3, 2))
    return (np.concatenate([q.ravel(), r.uniform(-0.2, 0.2, 6)]),)


case(nbody_energy_with_velocity_verlet, _nbody_state, "works")


# ============================================================ finance
def black_scholes_call(params):
    s, k, t, r, sigma = params[0], params[1], params[2], params[3], params[4]
    d1 = (jnp.log(s / k) + (r + 0.5 * sigma ** 2) * t) / (sigma * jnp.sqrt(t))
    d2 = d1 - sigma * jnp.sqrt(t)

    def ncdf(z):
        return 0.5 * (1.0 + erf(z / math.sqrt(2.0)))
    return s * ncdf(d1) - k * jnp.exp(-r * t) * ncdf(d2)


case(black_scholes_call, lambda r: (_x(100.0, 95.0, 0.5, 0.03, 0.25),), "works", fd_step=1e-5, rtol=1e-4)


def monte_carlo_option_explicit_keys(params):
    s0, sigma = params[0], params[1]
    key = astjax.random.PRNGKey(0)
    payoff = 0.0
    for i in range(3):
        key, sub = astjax.random.split(key)
        z = astjax.random.normal(sub, (64,))
        st = s0 * jnp.exp(-0.5 * sigma ** 2 + sigma * z)
        payoff = payoff + jnp.mean(jnp.log1p(jnp.exp(st - 1.0)))
    return payoff / 3


case(monte_carlo_option_explicit_keys, lambda r: (_x(1.05, 0.3),), "works")


def asian_option_paths_numpy_rng(params):
    rng = np.random.default_rng(7)
    z = rng.standard_normal((16, 5))
    s0, mu, sigma = params[0], params[1], params[2]
    log_s = np.log(s0) + np.cumsum((mu - 0.5 * sigma ** 2) * 0.2 + sigma * np.sqrt(0.2) * z, axis=1)
    avg = np.exp(log_s).mean(axis=1)
    return np.mean(np.maximum(avg - 1.0, 0.0) * 0 + np.log1p(np.exp(avg - 1.0)))


case(asian_option_paths_numpy_rng, lambda r: (_x(1.0, 0.05, 0.2),), "either")


# ============================================================ classes holding parameters
class MLP:
    def __init__(self, sizes, seed=0):
        rng = np.random.default_rng(seed)
        self.layers = [(rng.normal(size=(a, b)) * 0.5, np.zeros(b)) for a, b in zip(sizes[:-1], sizes[1:])]

    @property
    def depth(self):
        return len(self.layers)

    def hidden(self, x, i):
        w, b = self.layers[i]
        return jnp.tanh(x @ w + b)

    def __call__(self, x):
        for i in range(self.depth - 1):
            x = self.hidden(x, i)
        w, b = self.layers[-1]
        return x @ w + b

    def loss(self, x):
        return jnp.sum(self(x) ** 2)


_MLP = MLP([3, 5, 4, 2])


def mlp_object_loss(x):
    return _MLP.loss(x)


case(mlp_object_loss, lambda r: (vec(r, 3),), "works")


def mlp_call_in_loop_over_batch(x):
    total = 0.0
    for row in x.reshape(2, 3):
        total = total + jnp.sum(_MLP(row))
    return total


case(mlp_call_in_loop_over_batch, lambda r: (vec(r, 6),), "works")


class Quadratic:
    def __init__(self, a):
        self.a = a

    def __call__(self, x):
        return self.energy(x) + self.a * self.scale ** 2

    def energy(self, x):
        return self.a * jnp.sum(x ** 2)

    @property
    def scale(self):
        return 2.0


def callable_object_with_property(x):
    q = Quadratic(x[0])
    return q(x[1:])


case(callable_object_with_property, lambda r: (vec(r, 4),), "either")


@dataclasses.dataclass
class DenseParams:
    w: np.ndarray
    b: np.ndarray


def dataclass_params_loss(p, x):
    return jnp.sum(jnp.tanh(x @ p.w + p.b) ** 2)


def _dataclass_check(fn, args):
    x = np.array([[0.3, -0.2], [0.5, 0.1], [-0.4, 0.8]])
    w = np.array([[0.5, -1.0, 0.3], [0.2, 0.4, -0.6]])
    b = np.array([0.1, -0.2, 0.05])
    g = astjax.grad(fn)(DenseParams(w, b), x)
    out = []
    for name, base in (("w", w), ("b", b)):
        fd = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            up, down = base.copy(), base.copy()
            up[idx] += 1e-6
            down[idx] -= 1e-6
            pu = DenseParams(up, b) if name == "w" else DenseParams(w, up)
            pd = DenseParams(down, b) if name == "w" else DenseParams(w, down)
            fd[idx] = (fn(pu, x) - fn(pd, x)) / 2e-6
        out.append((np.asarray(getattr(g, name)), fd, f"d/d{name}"))
    return out


case(dataclass_params_loss, lambda r: (), "refuse", mode="custom", check=_dataclass_check, errors=(TypeError,),
     error_match="not an array, a number or a registered pytree")


class Layer(NamedTuple):
    w: np.ndarray
    b: np.ndarray


def namedtuple_layers_loss(params, x):
    h = x
    for layer in params:
        h = jnp.tanh(h @ layer.w + layer.b)
    return jnp.sum(h ** 2)


def _namedtuple_check(fn, args):
    rng = np.random.default_rng(5)
    params = [Layer(rng.normal(size=(3, 4)), rng.normal(size=4)), Layer(rng.normal(size=(4, 2)), rng.normal(size=2))]
    x = rng.normal(size=(2, 3))
    g = astjax.grad(fn)(params, x)
    out = []
    for li, layer in enumerate(params):
        for fi, base in enumerate(layer):
            fd = np.zeros_like(base)
            for idx in np.ndindex(base.shape):
                vals = []
                for sgn in (1, -1):
                    moved = base.copy()
                    moved[idx] += sgn * 1e-6
                    ps = list(params)
                    ps[li] = layer._replace(**{layer._fields[fi]: moved})
                    vals.append(fn(ps, x))
                fd[idx] = (vals[0] - vals[1]) / 2e-6
            out.append((np.asarray(g[li][fi]), fd, f"layer {li} field {fi}"))
    return out


case(namedtuple_layers_loss, lambda r: (), "works", mode="custom", check=_namedtuple_check)


def dict_of_lists_params(p):
    h = np.array([0.5, -0.5])
    for w, b in zip(p["ws"], p["bs"]):
        h = jnp.tanh(w * h + b)
    return jnp.sum(h ** 2) + 0.1 * sum(jnp.sum(w ** 2) for w in p["ws"])


def _dict_of_lists_check(fn, args):
    p = {"ws": [np.array([0.5, -0.3]), np.array([1.2, 0.4])], "bs": [np.array([0.1, 0.0]), np.array([-0.2, 0.3])]}
    g = astjax.grad(fn)(p)
    out = []
    for key in ("ws", "bs"):
        for i in range(2):
            fd = np.zeros(2)
            for j in range(2):
                vals = []
                for sgn in (1, -1):
                    q = {k: [a.copy() for a in v] for k, v in p.items()}
                    q[key][i][j] += sgn * 1e-6
                    vals.append(fn(q))
                fd[j] = (vals[0] - vals[1]) / 2e-6
            out.append((np.asarray(g[key][i]), fd, f"{key}[{i}]"))
    return out


case(dict_of_lists_params, lambda r: (), "works", mode="custom", check=_dict_of_lists_check)


# ============================================================ recursion
def _horner(coeffs, x, i):
    if i == len(coeffs) - 1:
        return coeffs[i]
    return coeffs[i] + x * _horner(coeffs, x, i + 1)


def recursive_horner(c):
    return _horner(c, 0.7, 0) + _horner(c, -0.3, 0)


case(recursive_horner, lambda r: (vec(r, 4),), "works")


def _tree_sum(x, lo, hi):
    if hi - lo == 1:
        return jnp.sin(x[lo])
    mid = (lo + hi) // 2
    return _tree_sum(x, lo, mid) * _tree_sum(x, mid, hi) + 0.1


def recursive_divide_and_conquer(x):
    return _tree_sum(x, 0, x.shape[0])


case(recursive_divide_and_conquer, lambda r: (vec(r, 5),), "works")


# ============================================================ powers with a differentiated exponent
def self_power_at_zero(x):
    return x ** x


case(self_power_at_zero, lambda r: (np.float64(0.6),), "works")


def self_power_jax_number_at_zero(fn, args):
    g = float(astjax.grad(self_power_at_zero)(0.0))
    h = float(astjax.grad(lambda x: jnp.sum(x ** (2.0 * x)))(np.array([0.0, 1.0]))[0])
    t = float(astjax.jvp(self_power_at_zero, (0.0,), (1.0,))[1])
    return [(np.isfinite(g), False, "grad(x ** x)(0) is not finite"), (np.isfinite(h), False, "x ** (2 x) at 0"),
            (np.isfinite(t), False, "jvp(x ** x) at 0 is not finite")]


case(self_power_at_zero, lambda r: (), "works", mode="custom", check=self_power_jax_number_at_zero,
     name="self_power_not_finite_at_zero")


def power_exponent_from_data(x):
    return jnp.sum(x[:2] ** x[2:]) + x[0] ** 2.5


case(power_exponent_from_data, lambda r: (pos(r, 4),), "works")


# ============================================================ NumPy views, in-place updates, late binding
def overlapping_inplace_add(x):
    out = x.copy()
    out[1:] += out[:-1]
    return np.sum(out ** 2 * np.arange(1.0, 5.0))


case(overlapping_inplace_add, lambda r: (vec(r, 4),), "works")


def row_view_scaled_in_place(x):
    A = x.reshape(2, 3).copy()
    row = A[0]
    row *= 2.0
    col = A[:, 1]
    col += A[:, 2]
    return np.sum(A ** 2 * np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))


case(row_view_scaled_in_place, lambda r: (vec(r, 6),), "either",
     note="refused today: `col += ...` on a column view of A (named at its line)")


def reversed_slices_and_roll(x):
    y = x[::-1] * np.arange(5.0) + np.roll(x, 2) ** 2
    d = np.diff(y)
    return np.sum(d * np.cumsum(x)[:0:-1])


case(reversed_slices_and_roll, lambda r: (vec(r, 5),), "works")


def late_binding_lambdas(x):
    fs = [lambda z: z * i for i in range(3)]
    gs = [lambda z, i=i: z * i for i in range(3)]
    return sum(jnp.sum(f(x)) for f in fs) + sum(jnp.sum(g(x) ** 2) for g in gs)


case(late_binding_lambdas, lambda r: (vec(r, 3),), "works")


def closures_over_loop_variable_called_later(x):
    funcs = []
    for k in range(3):
        def f(z):
            return jnp.sin(z * k)
        funcs.append(f)
    return sum(jnp.sum(f(x)) for f in funcs)


case(closures_over_loop_variable_called_later, lambda r: (vec(r, 3),), "either",
     note="refused today: a def inside a loop (named at its line)")


def _stats(v):
    return {"mean": jnp.mean(v), "spread": jnp.max(v) - jnp.min(v), "parts": (v[0], v[-1])}


def helper_returning_dict_of_tuples(x):
    s = _stats(x * x + x)
    first, last = s["parts"]
    return s["mean"] * s["spread"] + first * last


case(helper_returning_dict_of_tuples, lambda r: (_x(0.3, -0.5, 0.9, 0.1),), "works")


def split_and_stack(x):
    a, b = np.split(x, 2)
    top, bottom = np.vsplit(x.reshape(2, 3), 2)
    return np.sum(np.stack([a, b]) ** 2 @ np.array([1.0, -2.0, 0.5])) + np.sum(top * bottom)


case(split_and_stack, lambda r: (vec(r, 6),), "works")


def switch_tuple_carry_in_fori(x):
    def body(i, carry):
        a, b = carry
        branch = i % 3
        a, b = lax.switch(branch, [lambda p: (p[0] * 1.1, p[1] + p[0]),
                                   lambda p: (jnp.sin(p[0]), p[1] * 0.9),
                                   lambda p: (p[0] + p[1] * 0.1, jnp.cos(p[1]))], (a, b))
        return (a, b)
    a, b = lax.fori_loop(0, 5, body, (x[0], x[1]))
    return a * b


case(switch_tuple_carry_in_fori, lambda r: (vec(r, 2),), "either",
     note="refused today: lambdas as lax.switch branches inside a fori_loop body (named at its line)")


def cond_on_data_with_dict(x):
    def pos_branch(d):
        return {"u": d["u"] * 2.0, "v": jnp.sin(d["v"])}

    def neg_branch(d):
        return {"u": -d["u"], "v": d["v"] ** 2}
    out = lax.cond(x[0] > 0, pos_branch, neg_branch, {"u": x[1], "v": x[2]})
    return out["u"] * out["v"]


case(cond_on_data_with_dict, lambda r: (_x(0.5, 0.3, -0.7),), "works")


def while_loop_dict_carry(x):
    def cond(c):
        return c["i"] < 4

    def body(c):
        return {"i": c["i"] + 1, "s": c["s"] * 0.9 + jnp.sin(c["s"] * x[1])}
    out = lax.while_loop(cond, body, {"i": 0, "s": x[0]})
    return out["s"]


case(while_loop_dict_carry, lambda r: (vec(r, 2),), "either")


def scan_tuple_xs_and_ys(x):
    def step(c, inp):
        a, b = inp
        c = c * 0.8 + a * b
        return c, (c, c * a)
    c, (ys, zs) = lax.scan(step, 0.0, (x[:3], x[3:]))
    return c + jnp.sum(ys * zs)


case(scan_tuple_xs_and_ys, lambda r: (vec(r, 6),), "works")


def matrix_ops_with_at_updates(x):
    A = jnp.asarray(x).reshape(3, 3)
    B = A.at[0, :].set(A[1] * 2.0).at[:, 2].add(1.0).at[1, 1].multiply(A[2, 2])
    C = B @ B.T + jnp.outer(A[0], A[:, 0])
    return jnp.trace(C) + jnp.sum(jnp.triu(C, 1) ** 2)


case(matrix_ops_with_at_updates, lambda r: (vec(r, 9),), "works")


def reduction_over_axes_and_argmax_gather(x):
    A = x.reshape(3, 4)
    idx = jnp.argmax(A, axis=1)
    picked = A[jnp.arange(3), idx]
    return jnp.sum(picked ** 2) + jnp.sum(jnp.max(A, axis=0) * jnp.min(A, axis=0))


case(reduction_over_axes_and_argmax_gather, lambda r: (vec(r, 12),), "works")


def mean_var_normalize_along_axis0(x):
    A = x.reshape(4, 3)
    A = (A - A.mean(0)) / A.std(0, ddof=1)
    return np.sum(A[:, 0] * A[:, 1]) + np.sum(np.abs(A) ** 3)


case(mean_var_normalize_along_axis0, lambda r: (vec(r, 12),), "works")


def einsum_bilinear_and_kron(x):
    A = x[:4].reshape(2, 2)
    v = x[4:]
    return jnp.einsum("ij,i,j->", A, v, v) + jnp.sum(jnp.kron(A, A)) * jnp.linalg.det(A)


case(einsum_bilinear_and_kron, lambda r: (vec(r, 6),), "works")


# ============================================================ second round: the same styles, written otherwise
def pairwise_forces_accumulated_in_place(pos_flat):
    """The newcomer's force loop: f accumulated into forces[i] and forces[j] with += and -=."""
    p = pos_flat.reshape(4, 2)
    forces = np.zeros_like(p)
    for i in range(4):
        for j in range(i + 1, 4):
            d = p[i] - p[j]
            r2 = np.dot(d, d)
            f = d / r2 ** 2
            forces[i] += f
            forces[j] -= f
    return np.sum(forces * np.array([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7], [1.5, 0.2]]))


case(pairwise_forces_accumulated_in_place, _lj_positions, "works")


def forces_with_add_at(pos_flat):
    p = pos_flat.reshape(4, 2)
    i, j = np.triu_indices(4, 1)
    d = p[i] - p[j]
    f = d / np.sum(d ** 2, axis=1, keepdims=True) ** 1.5
    forces = np.zeros_like(p)
    np.add.at(forces, i, f)
    np.add.at(forces, j, -f)
    return np.sum(forces ** 2)


case(forces_with_add_at, _lj_positions, "either")


def symmetric_matrix_filled_in_loops(x):
    n = 3
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            K[i, j] = np.exp(-(x[i] - x[j]) ** 2)
    K = K + K.T - np.diag(np.diag(K))
    return np.sum(K @ x) + np.linalg.det(K + np.eye(n))


case(symmetric_matrix_filled_in_loops, lambda r: (vec(r, 3),), "works")


class AdamState(NamedTuple):
    m: np.ndarray
    v: np.ndarray
    t: int


def _adam_update(state, g, lr=0.05):
    t = state.t + 1
    m = 0.9 * state.m + 0.1 * g
    v = 0.99 * state.v + 0.01 * g ** 2
    step = lr * (m / (1 - 0.9 ** t)) / (jnp.sqrt(v / (1 - 0.99 ** t)) + 1e-8)
    return state._replace(m=m, v=v, t=t), step


def adam_namedtuple_state_unrolled(w0):
    state = AdamState(np.zeros(3), np.zeros(3), 0)
    w = w0
    for _ in range(3):
        g = 4 * (w - 1.0) ** 3 + jnp.cos(w)
        state, step = _adam_update(state, g)
        w = w - step
    return jnp.sum(w ** 2) + state.t


case(adam_namedtuple_state_unrolled, lambda r: (vec(r, 3),), "either",
     note="refused today: a NamedTuple's `._replace()` (named at its line)")


class Optimizer:
    def __init__(self, lr):
        self.lr = lr
        self.state = {}

    def step(self, name, w, g):
        v = self.state.get(name, 0.0)
        v = 0.5 * v + g
        self.state[name] = v
        return w - self.lr * v


def stateful_optimizer_object(w0):
    opt = Optimizer(0.1)
    w = w0
    for _ in range(3):
        w = opt.step("w", w, 2 * w + jnp.sin(w))
    return jnp.sum(w ** 2) + jnp.sum(opt.state["w"])


case(stateful_optimizer_object, lambda r: (vec(r, 3),), "either")


class Counter:
    calls = 0

    def __call__(self, x):
        Counter.calls += 1
        return x * Counter.calls


_COUNTER = Counter()


def object_with_class_counter(x):
    return jnp.sum(_COUNTER(x) + _COUNTER(x))


case(object_with_class_counter, lambda r: (vec(r, 2),), "either")


def black_scholes_put_with_norm_cdf(params):
    from_stats = astjax.scipy.stats.norm
    s, k, t, r, sigma = params[0], params[1], params[2], params[3], params[4]
    d1 = (jnp.log(s / k) + (r + sigma ** 2 / 2) * t) / (sigma * jnp.sqrt(t))
    d2 = d1 - sigma * jnp.sqrt(t)
    return k * jnp.exp(-r * t) * from_stats.cdf(-d2) - s * from_stats.cdf(-d1)


case(black_scholes_put_with_norm_cdf, lambda r: (_x(100.0, 105.0, 1.0, 0.02, 0.3),), "works", fd_step=1e-5,
     rtol=1e-4)


def black_scholes_math_erf_scalar(sigma):
    s, k, t = 1.0, 1.1, 0.75
    d1 = (math.log(s / k) + 0.5 * sigma ** 2 * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    return s * 0.5 * (1 + math.erf(d1 / math.sqrt(2))) - k * 0.5 * (1 + math.erf(d2 / math.sqrt(2)))


case(black_scholes_math_erf_scalar, lambda r: (np.float64(0.3),), "works")


def monte_carlo_fold_in_keys(params):
    key = astjax.random.PRNGKey(3)
    total = 0.0
    for i in range(4):
        z = astjax.random.normal(astjax.random.fold_in(key, i), (32,))
        total = total + jnp.mean(jnp.exp(params[0] + params[1] * z))
    return total


case(monte_carlo_fold_in_keys, lambda r: (_x(0.1, 0.2),), "works")


def gp_solve_triangular(log_ell):
    from_linalg = astjax.scipy.linalg
    d = _GP_X[:, None] - _GP_X[None, :]
    K = jnp.exp(-0.5 * d ** 2 / jnp.exp(2 * log_ell[0])) + 0.05 * jnp.eye(6)
    L = jnp.linalg.cholesky(K)
    z = from_linalg.solve_triangular(L, _GP_Y, lower=True)
    return 0.5 * jnp.sum(z ** 2) + jnp.sum(jnp.log(jnp.diagonal(L)))


case(gp_solve_triangular, lambda r: (_x(-0.4),), "works")


def attention_einsum_heads(x):
    h = x.reshape(2, 3, 2)                 # heads, tokens, dim
    scores = jnp.einsum("hqd,hkd->hqk", h, h * 0.5)
    w = astjax.nn.softmax(scores, axis=-1)
    out = jnp.einsum("hqk,hkd->qhd", w, h).reshape(3, 4)
    return jnp.sum(out * jnp.arange(12.0).reshape(3, 4))


case(attention_einsum_heads, lambda r: (vec(r, 12),), "works")


def conv1d_numpy_convolve(x):
    y = np.convolve(x, _KERNEL, mode="valid")
    z = np.correlate(x, _KERNEL, mode="same")
    return np.sum(y ** 2) + np.sum(np.tanh(z))


case(conv1d_numpy_convolve, lambda r: (vec(r, 7),), "works")


def conv2d_loops_on_image(x):
    img = x.reshape(4, 4)
    k = np.array([[1.0, -1.0], [0.5, 0.25]])
    out = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            out[i, j] = np.sum(img[i:i + 2, j:j + 2] * k)
    return np.sum(np.maximum(out, 0.0) ** 2) + np.sum(out)


case(conv2d_loops_on_image, lambda r: (vec(r, 16),), "works")


def meta_learning_scan_over_tasks(theta):
    tasks = np.array([[0.5, 1.0], [1.5, -0.5], [-1.0, 0.3]])

    def per_task(carry, task):
        a, b = task
        p = theta
        for _ in range(2):
            grad_p = jnp.stack([2 * (p[0] * a + p[1] - b) * a, 2 * (p[0] * a + p[1] - b)])
            p = p - 0.2 * grad_p
        loss = (p[0] * a + p[1] - b) ** 2
        return carry + loss, loss
    total, losses = lax.scan(per_task, 0.0, tasks)
    return total + 0.1 * jnp.max(losses)


case(meta_learning_scan_over_tasks, lambda r: (vec(r, 2),), "either")


def recursion_with_accumulating_list(x, depth=3, acc=None):
    acc = [] if acc is None else acc
    if depth == 0:
        return sum(jnp.sum(a) for a in acc)
    acc.append(jnp.sin(x * depth))
    return recursion_with_accumulating_list(x * 0.9, depth - 1, acc)


case(recursion_with_accumulating_list, lambda r: (vec(r, 3),), "works")


def mutual_recursion_even(x, n):
    if n == 0:
        return x
    return mutual_recursion_odd(jnp.sin(x), n - 1)


def mutual_recursion_odd(x, n):
    if n == 0:
        return x * 2.0
    return mutual_recursion_even(x * x + 0.1, n - 1)


def mutual_recursion_entry(x):
    return jnp.sum(mutual_recursion_even(x, 5))


case(mutual_recursion_entry, lambda r: (vec(r, 3),), "works")


def properties_and_methods_chain(x):
    m = Model2(x)
    return m.energy() + m.scaled.sum()


class Model2:
    def __init__(self, w):
        self._w = w

    @property
    def scaled(self):
        return self._w * self.factor()

    def factor(self):
        return 1.5

    def energy(self):
        return jnp.sum(jnp.tanh(self.scaled) ** 2)


case(properties_and_methods_chain, lambda r: (vec(r, 3),), "works")


def dict_params_updated_in_loop(x):
    params = {"w": x[:2], "b": x[2]}
    for _ in range(3):
        params["w"] = params["w"] * 0.9 + params["b"]
        params["b"] = params["b"] - 0.1 * jnp.sum(params["w"])
    return jnp.sum(params["w"] ** 2) + params["b"] ** 2


case(dict_params_updated_in_loop, lambda r: (vec(r, 3),), "works")


def list_of_arrays_mutated_by_index(x):
    layers = [x[:2], x[2:4], x[4:]]
    for i in range(len(layers)):
        layers[i] = jnp.tanh(layers[i] + (layers[i - 1] if i else 0.0))
    layers.reverse()
    return sum(jnp.sum(l * (k + 1)) for k, l in enumerate(layers))


case(list_of_arrays_mutated_by_index, lambda r: (vec(r, 6),), "either",
     note="refused today: `layers.reverse()` (named at its line, with what to write instead)")


# ============================================================ third round: Python numbers and NumPy's less common corners
def python_float_of_an_element(x):
    return float(x[0]) ** 2 + x[1] * float(x[2])


case(python_float_of_an_element, lambda r: (vec(r, 3),), "either")


def tolist_then_python_sum(x):
    return sum(v ** 2 for v in x.tolist()) + max(x.tolist()) * 0.0 + x[0]


case(tolist_then_python_sum, lambda r: (vec(r, 3),), "either")


def item_in_python_math(x):
    return math.sin(x[0].item()) + math.exp(x[1]) + abs(x[2])


case(item_in_python_math, lambda r: (vec(r, 3),), "either")


def builtin_max_min_sorted_of_scalars(x):
    a, b, c = x[0], x[1], x[2]
    return max(a, b) * min(b, c) + sum(sorted([a, b, c])[1:]) * 2.0


case(builtin_max_min_sorted_of_scalars, lambda r: (_x(0.3, -0.4, 0.8),), "works")


def boolean_mask_assignment_and_reads(x):
    y = x.copy()
    y[y < 0] = 0.0
    return np.sum(y ** 2) + np.sum(x[x > 0.2]) * 3.0


case(boolean_mask_assignment_and_reads, lambda r: (_x(0.5, -0.3, 0.1, 0.9, -0.8),), "works")


def prod_with_an_exact_zero(x):
    y = x.copy()
    y[1] = 0.0 * y[1]
    return np.prod(y) + np.prod(x)


case(prod_with_an_exact_zero, lambda r: (vec(r, 4),), "works")


def drawdown_running_max(prices):
    peak = np.maximum.accumulate(prices)
    return np.max((peak - prices) / peak)


case(drawdown_running_max, lambda r: (_x(1.0, 1.2, 1.1, 1.3, 0.9, 1.05),), "either")


def ufunc_reduce_and_outer(x):
    return np.add.reduce(x ** 2) + np.sum(np.multiply.outer(x, x)) + np.logaddexp.reduce(x)


case(ufunc_reduce_and_outer, lambda r: (vec(r, 3),), "either")


def trapezoid_and_gradient(y):
    t = np.linspace(0.0, 1.0, 5)
    return np.trapezoid(y ** 2, t) + np.sum(np.gradient(y, t) ** 2)


case(trapezoid_and_gradient, lambda r: (vec(r, 5),), "either")


def interp_and_polyval(fp):
    xp = np.array([0.0, 0.5, 1.0, 1.5])
    t = np.array([0.2, 0.7, 1.2])
    return np.sum(np.interp(t, xp, fp) ** 2) + np.polyval(fp, 0.3)


case(interp_and_polyval, lambda r: (vec(r, 4),), "works")


def median_and_percentile(x):
    return np.median(x) * 2.0 + np.percentile(x, 75) + np.quantile(x, 0.3)


case(median_and_percentile, lambda r: (_x(0.3, -0.9, 1.7, 0.4, -0.2),), "either")


def top_k_by_sort(x):
    s = np.sort(x)[::-1]
    idx = np.argsort(-x)[:2]
    return np.sum(s[:2] ** 2) + np.sum(x[idx] * np.array([1.0, 0.5]))


case(top_k_by_sort, lambda r: (_x(0.3, -0.9, 1.7, 0.4, -0.2),), "works")


def std_var_with_ddof(x):
    return np.std(x, ddof=1) + np.var(x.reshape(2, 3), axis=1, ddof=1).sum() + np.linalg.norm(x, 1)


case(std_var_with_ddof, lambda r: (vec(r, 6),), "works")


def eigh_energy_and_det(x):
    A = x.reshape(3, 3)
    S = A + A.T
    w, v = np.linalg.eigh(S)
    return np.sum(w ** 2) + np.linalg.det(A) + np.abs(v[:, 0]).sum() * 0.0


case(eigh_energy_and_det, lambda r: (vec(r, 9),), "works")


def where_indices_then_gather(x):
    idx = np.where(x > 0)[0]
    nz = np.nonzero(x < 0)
    return np.sum(x[idx] ** 2) + np.sum(x[nz] ** 3)


case(where_indices_then_gather, lambda r: (_x(0.5, -0.3, 0.1, 0.9, -0.8),), "works")


def inplace_ops_on_argument_copy_semantics(x):
    y = x
    y = y + 1.0
    z = x.copy()
    z *= 2.0
    z[0] += y[1]
    return np.sum(z * x) + np.sum(y)


case(inplace_ops_on_argument_copy_semantics, lambda r: (vec(r, 3),), "works")


def clip_with_array_bounds(x):
    lo = x[:3] * 0.5
    hi = x[3:] + 1.0
    return np.sum(np.clip(x[::2], lo, hi) ** 2)


case(clip_with_array_bounds, lambda r: (vec(r, 6),), "works")


def integer_cast_truncates(x):
    k = int(x[0] * 10)
    return x[1] * k + np.floor(x[2] * 3) * x[1] + x.astype(np.int64).sum() * x[0]


case(integer_cast_truncates, lambda r: (_x(0.33, 0.71, 0.55),), "either")


def complex_roundtrip_real_loss(x):
    z = x[0] + 1j * x[1]
    w = z * z + np.exp(z)
    return np.abs(w) ** 2 + np.real(w) * np.imag(w)


case(complex_roundtrip_real_loss, lambda r: (vec(r, 2),), "either")


# ============================================================ lax over records and nested carries
class Particle(NamedTuple):
    q: np.ndarray
    p: np.ndarray


def fori_namedtuple_carry(x):
    def body(i, state):
        p = state.p - 0.1 * jnp.sin(state.q)
        return Particle(state.q + 0.1 * p, p)
    out = lax.fori_loop(0, 4, body, Particle(x[:2], x[2:]))
    return jnp.sum(out.q ** 2) + jnp.sum(out.p)


case(fori_namedtuple_carry, lambda r: (vec(r, 4),), "either")


def scan_dict_of_lists_carry(x):
    def step(carry, u):
        a, b = carry["pair"]
        a = a * 0.9 + u
        b = b + jnp.sin(a)
        return {"pair": [a, b], "n": carry["n"] + 1}, a * b
    carry, ys = lax.scan(step, {"pair": [x[0], x[1]], "n": 0}, x[2:])
    return jnp.sum(ys) + carry["pair"][1] * carry["n"]


case(scan_dict_of_lists_carry, lambda r: (vec(r, 5),), "either")


def cond_namedtuple_operand(x):
    out = lax.cond(x[0] > 0, lambda s: Particle(s.q * 2.0, jnp.cos(s.p)), lambda s: Particle(-s.q, s.p ** 2),
                   Particle(x[1:3], x[3:]))
    return jnp.sum(out.q * out.p)


case(cond_namedtuple_operand, lambda r: (_x(0.4, 0.3, -0.2, 0.5, 0.7),), "either")


def nested_fori_in_scan(x):
    def inner(j, c):
        return c * 0.9 + jnp.sin(c * (j + 1))

    def step(c, u):
        c = lax.fori_loop(0, 3, inner, c + u)
        return c, c ** 2
    c, ys = lax.scan(step, x[0], x[1:])
    return c + jnp.sum(ys)


case(nested_fori_in_scan, lambda r: (vec(r, 4),), "either",
     note="refused today: a local function read by another local function (named at its line)")


def while_loop_data_dependent_trip(x):
    def cond(c):
        return c[1] < 2.0

    def body(c):
        return (c[0] * 1.1 + 0.05, c[1] + c[0] ** 2)
    v, acc = lax.while_loop(cond, body, (x[0], x[1]))
    return v * acc


case(while_loop_data_dependent_trip, lambda r: (_x(0.7, 0.2),), "either")


def scan_reverse_and_unroll(x):
    def step(c, u):
        return c * u + 1.0, c
    c, ys = lax.scan(step, 0.5, x, reverse=True)
    return c + jnp.sum(ys * jnp.arange(1.0, 5.0))


case(scan_reverse_and_unroll, lambda r: (vec(r, 4),), "works")


def switch_index_from_data(x):
    k = jnp.argmax(x[:3])
    return lax.switch(k, [lambda v: jnp.sum(v ** 2), lambda v: jnp.sum(jnp.sin(v)), lambda v: jnp.prod(v)], x[3:])


case(switch_index_from_data, lambda r: (_x(0.1, 0.9, 0.3, 0.5, -0.4),), "works")


def map_over_rows(x):
    return jnp.sum(lax.map(lambda row: jnp.tanh(row) @ row, x.reshape(3, 2)))


case(map_over_rows, lambda r: (vec(r, 6),), "works")


# ============================================================ objects as people write them
class _Net:
    def __init__(self):
        self.w = np.array([0.5, -0.3, 0.8])
        self.scale = 2.0

    def act(self, z):
        return jnp.tanh(z) * self.scale

    def __call__(self, x):
        return jnp.sum(self.act(x * self.w))


class _ResidualNet(_Net):
    def act(self, z):
        return super().act(z) + z ** 2


_RESIDUAL = _ResidualNet()


def subclass_calling_super(x):
    return _RESIDUAL(x)


case(subclass_calling_super, lambda r: (vec(r, 3),), "either", note="refused today: super() in a method")


class _Accumulator:
    def __init__(self):
        self.total = 0.0

    def add(self, v):
        self.total = self.total + v
        return self


def user_object_method_named_add(x):
    acc = _Accumulator()
    for v in x:
        acc.add(v ** 2)
    return acc.total


case(user_object_method_named_add, lambda r: (vec(r, 3),), "either",
     note="refused today, with a hint about list mutation (`.add()` read as a container's method)")


def list_of_zip_pairs(x):
    pairs = list(zip(x[:-1], x[1:]))
    return sum(a * b for a, b in pairs)


case(list_of_zip_pairs, lambda r: (vec(r, 4),), "either", note="refused today: list(zip(...)) (named at its line)")


# ============================================================ second derivatives of the programs above
def _hessian_battery(fn, args):
    """hessian against jacfwd(jacrev), jacrev(jacfwd) and central differences of grad (float64)."""
    x = np.asarray(args[0], dtype=np.float64)
    h = np.asarray(astjax.hessian(fn)(x.copy()))
    grad = astjax.grad(fn)
    step = 1e-5 * max(1.0, float(np.abs(x).max()))
    cols = []
    for i in range(x.size):
        up, down = x.copy(), x.copy()
        up.flat[i] += step
        down.flat[i] -= step
        cols.append((np.asarray(grad(up)) - np.asarray(grad(down))).ravel() / (2 * step))
    fd = np.stack(cols, axis=-1).reshape(h.shape)
    return [(h, fd, "hessian vs differences of grad"),
            (np.asarray(astjax.jacfwd(astjax.jacrev(fn))(x.copy())), h, "jacfwd(jacrev) vs hessian"),
            (np.asarray(astjax.jacrev(astjax.jacfwd(fn))(x.copy())), h, "jacrev(jacfwd) vs hessian")]


for _fn, _make in ((rk4_lotka_volterra, lambda r: (pos(r, 4, 0.4, 1.2),)),
                   (gp_marginal_likelihood, lambda r: (_x(-0.3, 0.1, -1.0),)),
                   (black_scholes_call, lambda r: (_x(1.0, 0.95, 0.5, 0.03, 0.25),)),
                   (pairwise_lennard_jones, _lj_positions),
                   (conv1d_loops, lambda r: (vec(r, 7),)),
                   (mlp_object_loss, lambda r: (vec(r, 3),)),
                   (leapfrog_hmc_energy, lambda r: (vec(r, 2),)),
                   (lax_fori_euler, lambda r: (pos(r, 2),)),
                   (scan_integrator_dict_carry, lambda r: (pos(r, 2),)),
                   (cond_on_data_with_dict, lambda r: (_x(0.5, 0.3, -0.7),)),
                   (helper_returning_dict_of_tuples, lambda r: (_x(0.3, -0.5, 0.9, 0.1),)),
                   (recursive_divide_and_conquer, lambda r: (vec(r, 5),)),
                   (power_exponent_from_data, lambda r: (pos(r, 4),))):
    case(_fn, _make, "works", mode="custom", check=_hessian_battery, name=f"{_fn.__name__}_hess")


# Default profile (the suite's time budget): the cases of the mechanisms fixed here, then every third other case
# and the first of each kind of check; ASTJAX_LONG_PROPERTIES=1 runs them all.
from .case import long_only  # noqa: E402

_FIXED_HERE = {"self_power_not_finite_at_zero", "dataclass_params_loss", "black_scholes_math_erf_scalar"}
# The second-derivative batteries run in the long profile, but for one.
_BATTERIES = {c.name for c in CASES if c.category == "attacks12" and c.name.endswith("_hess")}
LONG_ONLY = (long_only("attacks12", _FIXED_HERE, batteries=("_hess",)) | _BATTERIES) - {
    "attacks12.power_exponent_from_data_hess"}
# of the other cases, every second of long_only's default sample runs
LONG_ONLY |= {c.name for k, c in enumerate(c for c in CASES if c.category == "attacks12" and c.name not in LONG_ONLY
                                              and c.name.split(".", 1)[1] not in _FIXED_HERE
                                              and not c.name.endswith("_hess")) if k % 2}
