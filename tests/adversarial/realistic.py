"""Realistic user programs: physics, machine learning, numerics, statistics and finance, written
the way people write them (NumPy style, helpers, loops, dict params, `.at[]`, in-place `+=` on
np.zeros buffers). Every one must give the right gradient or a clear refusal."""
import math

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.scipy.special import gammaln, erf, logsumexp

from .case import case, vec, mat, pos, spd, scalar


# ================================================================ physics
def lennard_jones_energy(pos_flat):
    pos = pos_flat.reshape(4, 2)
    n = pos.shape[0]
    eps, sigma, rc = 1.0, 0.5, 2.5
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r = jnp.sqrt(jnp.sum(d * d))
            if r < rc:
                sr6 = (sigma / r) ** 6
                energy = energy + 4.0 * eps * (sr6 * sr6 - sr6)
    return energy


case(lennard_jones_energy, lambda r: (np.array([0.0, 0.0, 1.1, 0.1, 0.2, 1.3, 3.5, 3.0]) + 0.05 * vec(r, 8),),
     "works")


def _spring_energy(a, b, k, rest):
    r = jnp.linalg.norm(a - b)
    return 0.5 * k * (r - rest) ** 2


def spring_network(x):
    pts = x.reshape(3, 2)
    edges = [(0, 1), (1, 2), (0, 2)]
    e = 0.0
    for i, j in edges:
        e += _spring_energy(pts[i], pts[j], k=2.0, rest=1.0)
    return e


case(spring_network, lambda r: (np.array([0.0, 0.0, 1.2, 0.1, 0.4, 0.9]) + 0.1 * vec(r, 6),), "works")


def _accelerations(pos, mass):
    n = pos.shape[0]
    acc = jnp.zeros_like(pos)
    for i in range(n):
        for j in range(n):
            if i != j:
                d = pos[j] - pos[i]
                r2 = jnp.sum(d ** 2) + 0.01
                acc = acc.at[i].add(mass[j] * d / r2 ** 1.5)
    return acc


def nbody_leapfrog(pos0, vel0, mass, steps=5, dt=0.01):
    pos, vel = pos0, vel0
    acc = _accelerations(pos, mass)
    for _ in range(steps):
        vel = vel + 0.5 * dt * acc
        pos = pos + dt * vel
        acc = _accelerations(pos, mass)
        vel = vel + 0.5 * dt * acc
    return jnp.sum(pos[:, 0]) + 0.1 * jnp.sum(vel ** 2)


case(nbody_leapfrog, lambda r: (np.array([[0.0, 0.0], [1.0, 0.2], [-0.3, 1.1]]) + 0.05 * mat(r, 3, 2),
                                0.1 * mat(r, 3, 2), pos(r, 3)), "works", argnums=(0, 2))


def pendulum_rk4(theta0, length):
    g = 9.81

    def deriv(state):
        th, om = state
        return om, -g / length * jnp.sin(th)

    th, om = theta0, 0.0
    h = 0.05
    for _ in range(10):
        k1 = deriv((th, om))
        k2 = deriv((th + 0.5 * h * k1[0], om + 0.5 * h * k1[1]))
        k3 = deriv((th + 0.5 * h * k2[0], om + 0.5 * h * k2[1]))
        k4 = deriv((th + h * k3[0], om + h * k3[1]))
        th = th + h / 6.0 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        om = om + h / 6.0 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
    return th


case(pendulum_rk4, lambda r: (scalar(r), scalar(r, 0.8, 1.5)), "works", argnums=(0, 1))


def heat_equation_explicit(u0, alpha):
    u = jnp.asarray(u0)
    dx = 0.1
    dt = 0.002
    for _ in range(20):
        lap = (u[2:] - 2 * u[1:-1] + u[:-2]) / dx ** 2
        u = u.at[1:-1].set(u[1:-1] + dt * alpha * lap)
    return jnp.sum(u ** 2)


case(heat_equation_explicit, lambda r: (vec(r, 8), scalar(r)), "works", argnums=(0, 1))


def heat_equation_numpy_inplace(u0):
    u = np.array(u0)
    for step in range(15):
        new = np.zeros_like(u)
        new[0] = u[0]
        new[-1] = u[-1]
        for i in range(1, len(u) - 1):
            new[i] = u[i] + 0.2 * (u[i + 1] - 2 * u[i] + u[i - 1])
        u = new
    return np.sum(u * np.arange(len(u)))


case(heat_equation_numpy_inplace, lambda r: (vec(r, 6),), "works")


def wave_equation(u0, c):
    u_prev = u0
    u = u0
    dt, dx = 0.05, 0.2
    r2 = (c * dt / dx) ** 2
    for n in range(12):
        u_next = jnp.zeros_like(u)
        u_next = u_next.at[1:-1].set(2 * u[1:-1] - u_prev[1:-1] + r2 * (u[2:] - 2 * u[1:-1] + u[:-2]))
        u_prev, u = u, u_next
    return jnp.sum(u * u)


case(wave_equation, lambda r: (vec(r, 7), scalar(r, 0.5, 1.0)), "works", argnums=(0, 1))


def harmonic_chain_energy(x, k):
    n = len(x)
    potential = 0.0
    for i in range(n - 1):
        potential += 0.5 * k[i] * (x[i + 1] - x[i] - 1.0) ** 2
    potential += 0.5 * k[-1] * x[0] ** 2
    return potential


case(harmonic_chain_energy, lambda r: (np.arange(5.0) + 0.1 * vec(r, 5), pos(r, 5)), "works", argnums=(0, 1))


def verlet_oscillator(x0, omega):
    x_prev = x0
    x = x0
    dt = 0.1
    traj = []
    for t in range(25):
        a = -omega ** 2 * x
        x_new = 2 * x - x_prev + a * dt ** 2
        x_prev = x
        x = x_new
        traj.append(x)
    traj = jnp.stack(traj)
    return jnp.mean(traj ** 2)


case(verlet_oscillator, lambda r: (vec(r, 3), scalar(r)), "works", argnums=(0, 1))


def coulomb_forces_jac(q):
    xs = jnp.array([0.0, 1.0, 2.5, 4.0])
    n = q.shape[0]
    forces = []
    for i in range(n):
        f = 0.0
        for j in range(n):
            if j == i:
                continue
            d = xs[i] - xs[j]
            f = f + q[i] * q[j] * jnp.sign(d) / d ** 2
        forces.append(f)
    return jnp.stack(forces)


case(coulomb_forces_jac, lambda r: (pos(r, 4),), "works", mode="jac")


def projectile_with_drag(v0, angle):
    vx = v0 * jnp.cos(angle)
    vy = v0 * jnp.sin(angle)
    x, y = 0.0, 0.0
    dt, drag, g = 0.01, 0.1, 9.81
    t = 0
    while y >= 0.0 and t < 500:
        speed = jnp.sqrt(vx ** 2 + vy ** 2)
        vx = vx - drag * speed * vx * dt
        vy = vy - (g + drag * speed * vy) * dt
        x = x + vx * dt
        y = y + vy * dt
        t += 1
    return x


case(projectile_with_drag, lambda r: (scalar(r, 3.0, 4.0), scalar(r, 0.5, 0.9)), "works", argnums=(0, 1),
     fd_step=1e-7, rtol=1e-4)


def gravity_potential_vectorized(pos):
    diff = pos[:, None, :] - pos[None, :, :]
    r = jnp.sqrt(jnp.sum(diff ** 2, axis=-1) + jnp.eye(pos.shape[0]))
    mask = 1.0 - jnp.eye(pos.shape[0])
    return -0.5 * jnp.sum(mask / r)


case(gravity_potential_vectorized, lambda r: (mat(r, 4, 3),), "works")


# ================================================================ machine learning
def _init_mlp(r, sizes):
    return [(0.5 * r.standard_normal((m, n)), 0.1 * r.standard_normal(n)) for m, n in zip(sizes[:-1], sizes[1:])]


def mlp_loss(params, x, y):
    h = x
    for W, b in params[:-1]:
        h = jnp.tanh(h @ W + b)
    W, b = params[-1]
    pred = h @ W + b
    return jnp.mean((pred - y) ** 2)


case(mlp_loss, lambda r: (_init_mlp(r, [3, 5, 4, 2]), mat(r, 6, 3), mat(r, 6, 2)), "works")


def mlp_relu_enumerate(params, x):
    h = x
    for i, (W, b) in enumerate(params):
        h = h @ W + b
        if i < len(params) - 1:
            h = jnp.maximum(h, 0.0)
    return jnp.sum(h ** 2)


case(mlp_relu_enumerate, lambda r: (_init_mlp(r, [3, 6, 2]), mat(r, 4, 3)), "works")


def softmax_cross_entropy(W, x, labels):
    logits = x @ W
    m = jnp.max(logits, axis=1, keepdims=True)
    log_probs = logits - m - jnp.log(jnp.sum(jnp.exp(logits - m), axis=1, keepdims=True))
    n = x.shape[0]
    return -jnp.mean(log_probs[jnp.arange(n), labels])


case(softmax_cross_entropy, lambda r: (mat(r, 3, 4), mat(r, 5, 3), np.array([0, 3, 1, 1, 2])), "works")


def cross_entropy_onehot_logsumexp(logits, y_onehot):
    lse = logsumexp(logits, axis=-1)
    return jnp.sum(lse - jnp.sum(y_onehot * logits, axis=-1))


case(cross_entropy_onehot_logsumexp, lambda r: (mat(r, 4, 3), np.eye(3)[[0, 2, 1, 1]]), "works")


def attention_causal(q, k, v):
    d = q.shape[-1]
    scores = q @ k.T / jnp.sqrt(d)
    T = scores.shape[0]
    mask = jnp.tril(jnp.ones((T, T))) > 0
    scores = jnp.where(mask, scores, -1e9)
    scores = scores - jnp.max(scores, axis=-1, keepdims=True)
    w = jnp.exp(scores)
    w = w / jnp.sum(w, axis=-1, keepdims=True)
    return jnp.sum((w @ v) ** 2)


case(attention_causal, lambda r: (mat(r, 4, 3), mat(r, 4, 3), mat(r, 4, 2)), "works", argnums=(0, 1, 2))


def attention_neg_inf_mask(q, k):
    scores = q @ k.T / math.sqrt(q.shape[1])
    T = scores.shape[0]
    causal = jnp.arange(T)[:, None] >= jnp.arange(T)[None, :]
    scores = jnp.where(causal, scores, -jnp.inf)
    attn = jax_softmax(scores)
    return jnp.sum(attn * jnp.arange(T)[None, :])


def jax_softmax(z):
    z = z - jnp.max(z, axis=-1, keepdims=True)
    e = jnp.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


case(attention_neg_inf_mask, lambda r: (mat(r, 4, 3), mat(r, 4, 3)), "works", argnums=(0, 1))


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    xhat = (x - mu) / jnp.sqrt(var + eps)
    y = gamma * xhat + beta
    return jnp.sum(y ** 3)


case(layer_norm, lambda r: (mat(r, 3, 5), pos(r, 5), vec(r, 5)), "works", argnums=(0, 1, 2))


def rnn_unrolled(params, xs):
    Wx, Wh, b = params["Wx"], params["Wh"], params["b"]
    h = jnp.zeros(Wh.shape[0])
    outputs = []
    for t in range(xs.shape[0]):
        h = jnp.tanh(Wx @ xs[t] + Wh @ h + b)
        outputs.append(h)
    hs = jnp.stack(outputs)
    return jnp.sum(hs[-1]) + 0.1 * jnp.sum(hs ** 2)


case(rnn_unrolled, lambda r: ({"Wx": mat(r, 4, 3), "Wh": 0.5 * mat(r, 4), "b": vec(r, 4)}, mat(r, 5, 3)), "works")


def _sigmoid(z):
    return 1.0 / (1.0 + jnp.exp(-z))


def gru_cell_sequence(p, xs):
    h = jnp.zeros(3)
    for x in xs:
        z = _sigmoid(p["Wz"] @ x + p["Uz"] @ h)
        rr = _sigmoid(p["Wr"] @ x + p["Ur"] @ h)
        h_tilde = jnp.tanh(p["Wh"] @ x + p["Uh"] @ (rr * h))
        h = (1 - z) * h + z * h_tilde
    return jnp.dot(h, h)


case(gru_cell_sequence, lambda r: ({k: 0.7 * mat(r, 3, 2 if k[0] == "W" else 3)
                                    for k in ("Wz", "Uz", "Wr", "Ur", "Wh", "Uh")}, mat(r, 4, 2)), "works")


def conv1d_loops(x, w):
    n, k = x.shape[0], w.shape[0]
    out = np.zeros(n - k + 1)
    for i in range(n - k + 1):
        for j in range(k):
            out[i] += x[i + j] * w[j]
    return np.sum(out ** 2)


case(conv1d_loops, lambda r: (vec(r, 7), vec(r, 3)), "works", argnums=(0, 1))


def conv1d_slicing(x, w):
    k = len(w)
    n_out = len(x) - k + 1
    out = sum(w[j] * x[j:j + n_out] for j in range(k))
    return jnp.sum(jnp.tanh(out))


case(conv1d_slicing, lambda r: (vec(r, 8), vec(r, 3)), "works", argnums=(0, 1))


def logistic_regression_nll(w, b, X, y):
    z = X @ w + b
    return jnp.mean(jnp.logaddexp(0.0, z) - y * z) + 0.01 * jnp.sum(w ** 2)


case(logistic_regression_nll, lambda r: (vec(r, 3), scalar(r), mat(r, 6, 3), np.array([0., 1, 1, 0, 1, 0])), "works",
     argnums=(0, 1))


def hinge_loss_svm(w, X, y):
    margins = 1 - y * (X @ w)
    return jnp.sum(jnp.maximum(0, margins)) + 0.5 * w @ w


case(hinge_loss_svm, lambda r: (vec(r, 3), mat(r, 6, 3), np.array([1., -1, 1, -1, 1, 1])), "works")


def huber_loss(pred, target, delta=0.5):
    err = pred - target
    abs_err = jnp.abs(err)
    quad = jnp.minimum(abs_err, delta)
    lin = abs_err - quad
    return jnp.mean(0.5 * quad ** 2 + delta * lin)


case(huber_loss, lambda r: (vec(r, 6, -2, 2), vec(r, 6)), "works")


def huber_loss_where(pred, target):
    d = pred - target
    return jnp.sum(jnp.where(jnp.abs(d) < 1.0, 0.5 * d ** 2, jnp.abs(d) - 0.5))


case(huber_loss_where, lambda r: (vec(r, 6, -3, 3), vec(r, 6)), "works")


def penalized_dict_params(params, X, y):
    pred = X @ params["w"] + params["b"]
    loss = jnp.mean((pred - y) ** 2)
    l1 = 0.0
    l2 = 0.0
    for name, p in params.items():
        l1 += jnp.sum(jnp.abs(p))
        l2 += jnp.sum(p ** 2)
    return loss + 0.01 * l1 + 0.1 * l2


case(penalized_dict_params, lambda r: ({"w": vec(r, 3), "b": vec(r, 1)}, mat(r, 5, 3), vec(r, 5)), "works")


def batch_norm_train(x, gamma, beta):
    mean = x.mean(axis=0)
    var = ((x - mean) ** 2).mean(axis=0)
    x_norm = (x - mean) / np.sqrt(var + 1e-5)
    out = gamma * x_norm + beta
    return (out * np.arange(1.0, 1.0 + x.size).reshape(x.shape)).sum()


case(batch_norm_train, lambda r: (mat(r, 5, 3), pos(r, 3), vec(r, 3)), "works", argnums=(0, 1, 2))


def dropout_fixed_mask(W, x):
    mask = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    keep = 0.6
    h = jnp.maximum(W @ x, 0.0)
    h = h * mask / keep
    return jnp.sum(h)


case(dropout_fixed_mask, lambda r: (mat(r, 5, 3), vec(r, 3)), "works")


def kmeans_soft_assignment(centers, X, temperature=0.5):
    d2 = jnp.sum((X[:, None, :] - centers[None, :, :]) ** 2, axis=-1)
    logits = -d2 / temperature
    resp = jnp.exp(logits - logsumexp(logits, axis=1, keepdims=True))
    return jnp.sum(resp * d2)


case(kmeans_soft_assignment, lambda r: (mat(r, 3, 2), mat(r, 8, 2)), "works")


def gp_negative_log_likelihood(log_ls, log_sf, X, y):
    ls = jnp.exp(log_ls)
    sf2 = jnp.exp(2 * log_sf)
    d2 = (X[:, None] - X[None, :]) ** 2
    K = sf2 * jnp.exp(-0.5 * d2 / ls ** 2) + 0.1 * jnp.eye(len(X))
    L = jnp.linalg.cholesky(K)
    alpha = jnp.linalg.solve(K, y)
    return 0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(L))) + 0.5 * len(X) * jnp.log(2 * jnp.pi)


case(gp_negative_log_likelihood, lambda r: (scalar(r, -0.3, 0.3), scalar(r, -0.2, 0.2), vec(r, 6, -2, 2), vec(r, 6)),
     "works", argnums=(0, 1))


def mlp_jacobian_output(x):
    W1 = jnp.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.5]])
    b1 = jnp.array([0.1, -0.1])
    h = jnp.tanh(W1 @ x + b1)
    return jnp.concatenate([h, jnp.array([jnp.sum(h ** 2)])])


case(mlp_jacobian_output, lambda r: (vec(r, 3),), "works", mode="jac")


# ================================================================ numerics
def newton_sqrt(a):
    x = a
    it = 0
    while True:
        x_new = 0.5 * (x + a / x)
        it += 1
        if jnp.abs(x_new - x) < 1e-12 or it >= 50:
            break
        x = x_new
    return x_new


case(newton_sqrt, lambda r: (scalar(r, 1.0, 4.0),), "works")


def newton_kepler(M, e):
    E = M
    for _ in range(30):
        f = E - e * jnp.sin(E) - M
        fp = 1 - e * jnp.cos(E)
        E = E - f / fp
    return E


case(newton_kepler, lambda r: (scalar(r, 0.5, 2.0), scalar(r, 0.1, 0.5)), "works", argnums=(0, 1))


def fixed_point_cos(c):
    x = 0.5
    diff = 1.0
    n = 0
    while diff > 1e-13 and n < 200:
        x_new = jnp.cos(c * x)
        diff = abs(x_new - x)
        x = x_new
        n = n + 1
    return x


case(fixed_point_cos, lambda r: (scalar(r, 0.3, 0.9),), "works", rtol=1e-4)


def bisection_root_value(a):
    lo, hi = 0.0, 3.0
    for _ in range(12):
        mid = 0.5 * (lo + hi)
        if mid ** 3 - a > 0:
            hi = mid
        else:
            lo = mid
    root = 0.5 * (lo + hi)
    # root is a step function of a: only the residual carries a derivative
    return (root ** 3 - a) + a * root


case(bisection_root_value, lambda r: (scalar(r, 1.0, 5.0),), "works", fd_step=1e-7,
     note="after 12 halvings root is piecewise constant in a: d/da = root - 1")


def horner(coeffs, x):
    result = 0.0
    for c in coeffs:
        result = result * x + c
    return result


case(horner, lambda r: (vec(r, 5), scalar(r)), "works", argnums=(0, 1))


def horner_reversed_list(x):
    coeffs = [1.0, -2.0, 0.5, 3.0]
    y = jnp.zeros_like(x)
    for c in reversed(coeffs):
        y = y * x + c
    return jnp.sum(y)


case(horner_reversed_list, lambda r: (vec(r, 4),), "works")


def trapezoid_integral(a, b):
    n = 50
    h = (b - a) / n
    total = 0.5 * (jnp.exp(-a ** 2) + jnp.exp(-b ** 2))
    for i in range(1, n):
        xi = a + i * h
        total += jnp.exp(-xi ** 2)
    return total * h


case(trapezoid_integral, lambda r: (scalar(r, -1.0, 0.0), scalar(r, 0.5, 1.5)), "works", argnums=(0, 1))


def simpson_param(k):
    n = 20
    xs = np.linspace(0.0, 1.0, n + 1)
    h = xs[1] - xs[0]
    fx = jnp.sin(k * xs) ** 2
    s = fx[0] + fx[-1] + 4 * jnp.sum(fx[1:-1:2]) + 2 * jnp.sum(fx[2:-1:2])
    return s * h / 3


case(simpson_param, lambda r: (scalar(r),), "works")


def cumulative_sum_loop(x):
    out = np.zeros_like(x)
    running = 0.0
    for i in range(len(x)):
        running += x[i]
        out[i] = running
    return np.sum(out ** 2) - np.sum(np.cumsum(x) * x)


case(cumulative_sum_loop, lambda r: (vec(r, 5),), "works")


def laplacian_2d(u):
    lap = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1])
    return 0.5 * jnp.sum(lap ** 2) + jnp.sum(jnp.diff(u, axis=0) ** 2)


case(laplacian_2d, lambda r: (mat(r, 5, 4),), "works")


def rk4_logistic_growth(r_, K):
    def f(t, y):
        return r_ * y * (1 - y / K)

    y = 0.1
    t = 0.0
    h = 0.1
    for step in range(20):
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        y = y + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6
        t = t + h
    return y


case(rk4_logistic_growth, lambda r: (scalar(r), scalar(r, 1.0, 2.0)), "works", argnums=(0, 1))


def unrolled_gradient_descent(lr, A, b):
    x = jnp.zeros(b.shape[0])
    for _ in range(10):
        g = A @ x - b
        x = x - lr * g
    return 0.5 * x @ A @ x - b @ x


case(unrolled_gradient_descent, lambda r: (scalar(r, 0.01, 0.05), spd(r, 3), vec(r, 3)), "works", argnums=(0, 1, 2))


def power_iteration(A):
    v = jnp.ones(A.shape[0]) / jnp.sqrt(A.shape[0])
    for _ in range(60):
        w = A @ v
        v = w / jnp.linalg.norm(w)
    return v @ A @ v


case(power_iteration, lambda r: (spd(r, 3),), "works", rtol=1e-4)


def gram_schmidt(V):
    basis = []
    for v in V:
        w = v
        for u in basis:
            w = w - jnp.dot(w, u) * u
        basis.append(w / jnp.linalg.norm(w))
    Q = jnp.stack(basis)
    return jnp.sum(Q * jnp.arange(Q.size).reshape(Q.shape))


case(gram_schmidt, lambda r: (mat(r, 3),), "works")


def gram_schmidt_jac(v):
    V = jnp.stack([v, v ** 2 + 1.0, jnp.sin(v) + 2.0])
    Q = []
    for i in range(3):
        q = V[i]
        for j in range(i):
            q = q - (Q[j] @ V[i]) * Q[j]
        Q.append(q / jnp.sqrt(q @ q))
    return Q[-1]


case(gram_schmidt_jac, lambda r: (vec(r, 3),), "works", mode="jac")


def secant_method(c):
    x0, x1 = 1.0, 2.0
    for i in range(100):
        f0 = x0 ** 2 - c
        f1 = x1 ** 2 - c
        if abs(f1) < 1e-14:
            break
        x0, x1 = x1, x1 - f1 * (x1 - x0) / (f1 - f0)
    return x1


case(secant_method, lambda r: (scalar(r, 1.5, 3.0),), "works", rtol=1e-4)


def euler_ode_jac(y0):
    y = y0
    dt = 0.1
    A = jnp.array([[0.0, 1.0], [-1.0, -0.1]])
    for _ in range(15):
        y = y + dt * (A @ y + 0.1 * jnp.sin(y))
    return y


case(euler_ode_jac, lambda r: (vec(r, 2),), "works", mode="jac")


# ================================================================ statistics and finance
from astjax.scipy.stats import norm as _norm  # noqa: E402


def normal_log_likelihood(mu, log_sigma, data):
    sigma = jnp.exp(log_sigma)
    n = data.shape[0]
    z = (data - mu) / sigma
    return -0.5 * jnp.sum(z ** 2) - n * jnp.log(sigma) - 0.5 * n * np.log(2 * np.pi)


case(normal_log_likelihood, lambda r: (scalar(r), scalar(r, -0.5, 0.5), vec(r, 10, -2, 2)), "works", argnums=(0, 1))


def poisson_regression_nll(beta, X, counts):
    eta = X @ beta
    lam = jnp.exp(eta)
    return -jnp.sum(counts * eta - lam - gammaln(counts + 1.0))


case(poisson_regression_nll, lambda r: (0.3 * vec(r, 3), mat(r, 8, 3), np.array([0., 1, 2, 0, 3, 1, 1, 4])), "works")


def poisson_rate_gammaln(log_rate, k):
    lam = jnp.exp(log_rate)
    return jnp.sum(k * log_rate - lam - gammaln(k + 1))


case(poisson_rate_gammaln, lambda r: (vec(r, 5), np.array([1.0, 0.0, 3.0, 2.0, 5.0])), "works")


def student_t_log_likelihood(nu, loc, scale, x):
    z = (x - loc) / scale
    logp = (gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * jnp.log(nu * jnp.pi) - jnp.log(scale)
            - (nu + 1) / 2 * jnp.log1p(z ** 2 / nu))
    return jnp.sum(logp)


case(student_t_log_likelihood, lambda r: (scalar(r, 2.0, 5.0), scalar(r), scalar(r, 0.5, 1.5), vec(r, 7, -3, 3)),
     "works", argnums=(0, 1, 2))


def _norm_cdf(x):
    return 0.5 * (1.0 + erf(x / jnp.sqrt(2.0)))


def black_scholes_call(S, K, T, r, sigma):
    d1 = (jnp.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * jnp.sqrt(T))
    d2 = d1 - sigma * jnp.sqrt(T)
    return S * _norm_cdf(d1) - K * jnp.exp(-r * T) * _norm_cdf(d2)


case(black_scholes_call, lambda r: (scalar(r, 90.0, 110.0), scalar(r, 95.0, 105.0), scalar(r, 0.5, 2.0),
                                    scalar(r, 0.01, 0.05), scalar(r, 0.1, 0.4)), "works", argnums=(0, 2, 4))


def black_scholes_put_stats_norm(S, sigma, K=100.0, T=1.0, r=0.03):
    d1 = (np.log(S / K) + (r + sigma ** 2 / 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return K * np.exp(-r * T) * _norm.cdf(-d2) - S * _norm.cdf(-d1)


case(black_scholes_put_stats_norm, lambda r: (scalar(r, 90.0, 110.0), scalar(r, 0.1, 0.4)), "works", argnums=(0, 1))


def monte_carlo_option(S0, sigma):
    noise = np.random.default_rng(0).standard_normal(200)
    r_, T, K = 0.02, 1.0, 1.0
    ST = S0 * jnp.exp((r_ - 0.5 * sigma ** 2) * T + sigma * jnp.sqrt(T) * noise)
    payoff = jnp.maximum(ST - K, 0.0)
    return jnp.exp(-r_ * T) * jnp.mean(payoff)


case(monte_carlo_option, lambda r: (scalar(r, 0.9, 1.1), scalar(r, 0.1, 0.3)), "works", argnums=(0, 1))


def monte_carlo_path_loop(mu, sigma, eps):
    x = 1.0
    dt = 0.1
    path = [x]
    for t in range(eps.shape[0]):
        x = x + mu * x * dt + sigma * x * jnp.sqrt(dt) * eps[t]
        path.append(x)
    path = jnp.array(path)
    return jnp.mean(path) + jnp.max(path)


case(monte_carlo_path_loop, lambda r: (scalar(r, 0.0, 0.1), scalar(r, 0.1, 0.3), r.standard_normal(12)), "works",
     argnums=(0, 1))


def exponential_moving_average(x, alpha):
    ema = x[0]
    out = [ema]
    for v in x[1:]:
        ema = alpha * v + (1 - alpha) * ema
        out.append(ema)
    return jnp.sum(jnp.stack(out) ** 2)


case(exponential_moving_average, lambda r: (vec(r, 6), scalar(r, 0.1, 0.9)), "works", argnums=(0, 1))


def ema_inplace_numpy(x, alpha=0.3):
    ema = np.zeros(len(x))
    ema[0] = x[0]
    for t in range(1, len(x)):
        ema[t] = alpha * x[t] + (1 - alpha) * ema[t - 1]
    return ema[-1] + ema.mean()


case(ema_inplace_numpy, lambda r: (vec(r, 6),), "works")


def sample_variance_ddof(x):
    return jnp.var(x, ddof=1) + jnp.std(x, ddof=1) + np.std(x)


case(sample_variance_ddof, lambda r: (vec(r, 6),), "works")


def weighted_mean_and_variance(w, x):
    w = jnp.exp(w) / jnp.sum(jnp.exp(w))
    m = jnp.sum(w * x)
    v = jnp.sum(w * (x - m) ** 2)
    return m + v + jnp.average(x, weights=w)


case(weighted_mean_and_variance, lambda r: (vec(r, 5), vec(r, 5)), "works", argnums=(0, 1))


def sharpe_ratio(weights, returns):
    w = weights / jnp.sum(weights)
    port = returns @ w
    return jnp.mean(port) / jnp.std(port)


case(sharpe_ratio, lambda r: (pos(r, 3), 0.05 * mat(r, 20, 3) + 0.01), "works")


def correlation_coefficient(x, y):
    xm = x - x.mean()
    ym = y - y.mean()
    return (xm @ ym) / np.sqrt((xm @ xm) * (ym @ ym))


case(correlation_coefficient, lambda r: (vec(r, 6), vec(r, 6)), "works", argnums=(0, 1))


def mixture_log_likelihood(logits, mus, x):
    log_w = logits - logsumexp(logits)
    comp = -0.5 * (x[:, None] - mus[None, :]) ** 2 - 0.5 * jnp.log(2 * jnp.pi)
    return jnp.sum(logsumexp(log_w[None, :] + comp, axis=1))


case(mixture_log_likelihood, lambda r: (vec(r, 3), vec(r, 3, -2, 2), vec(r, 8, -2, 2)), "works", argnums=(0, 1))


# ================================================================ messy style
def _predict(params, x, activation=jnp.tanh):
    h = x
    for layer in params:
        h = activation(h @ layer["W"] + layer["b"])
    return h


def _mse(pred, y, reduce="mean"):
    err = (pred - y) ** 2
    if reduce == "mean":
        return err.mean()
    return err.sum()


def messy_training_loss(params, x, y, l2=1e-3):
    pred = _predict(params, x)
    loss = _mse(pred, y)
    reg = 0.0
    for layer in params:
        reg += (layer["W"] ** 2).sum()
    return loss + l2 * reg


case(messy_training_loss, lambda r: ([{"W": mat(r, 3, 4), "b": vec(r, 4)}, {"W": mat(r, 4, 1), "b": vec(r, 1)}],
                                     mat(r, 5, 3), mat(r, 5, 1)), "works")


def _stats(x):
    m = x.mean()
    s = x.std()
    return m, s


def tuple_return_unpacked(x):
    m, s = _stats(x)
    z = (x - m) / s
    lo, hi = z.min(), z.max()
    return (hi - lo) * m + jnp.sum(z ** 3)


case(tuple_return_unpacked, lambda r: (vec(r, 6),), "works")


def at_set_and_add(x):
    y = jnp.zeros(6, dtype=x.dtype)
    y = y.at[0].set(x[0] ** 2)
    y = y.at[1:4].set(x[1:4] * 2.0)
    y = y.at[jnp.array([4, 5, 4])].add(x[:3])
    y = y.at[2].multiply(x[3])
    return jnp.sum(y * jnp.arange(1.0, 7.0))


case(at_set_and_add, lambda r: (vec(r, 4),), "works")


def inplace_accumulate_numpy(x, W):
    out = np.zeros(W.shape[0])
    for i in range(W.shape[0]):
        for j in range(W.shape[1]):
            out[i] += W[i, j] * x[j]
        out[i] = np.tanh(out[i])
    out *= 2.0
    out -= x[0]
    return np.sum(out ** 2)


case(inplace_accumulate_numpy, lambda r: (vec(r, 3), mat(r, 4, 3)), "works", argnums=(0, 1))


def row_assignment_loop(X):
    n, d = X.shape
    Y = np.zeros((n, d))
    for i in range(n):
        Y[i, :] = X[i] / np.linalg.norm(X[i])
        Y[i] += 0.1 * X[0]
    return np.sum(Y @ Y.T)


case(row_assignment_loop, lambda r: (mat(r, 3, 4),), "works")


def early_return_branches(x, mode="soft"):
    s = jnp.sum(x ** 2)
    if s > 100.0:
        return jnp.sqrt(s)
    if mode == "hard":
        return s
    return jnp.log1p(s) + jnp.sum(jnp.sin(x))


case(early_return_branches, lambda r: (vec(r, 4),), "works")


def early_return_in_loop(x):
    total = 0.0
    for i in range(len(x)):
        total = total + x[i] ** 2
        if total > 1.0:
            return total * i
    return -total


case(early_return_in_loop, lambda r: (vec(r, 6, 0.2, 0.8),), "works")


def while_counter_gradient_steps(x0, lr=0.1):
    x = x0
    k = 0
    while k < 8:
        g = 2 * (x - 1.0) + jnp.cos(x)
        x = x - lr * g
        k += 1
    return jnp.sum(x ** 2)


case(while_counter_gradient_steps, lambda r: (vec(r, 3),), "works")


def zip_enumerate_weights(ws, xs):
    total = 0.0
    for i, (w, x) in enumerate(zip(ws, xs)):
        total = total + (i + 1) * w * jnp.sum(x ** 2)
    return total


case(zip_enumerate_weights, lambda r: (vec(r, 3), mat(r, 3, 2)), "works", argnums=(0, 1))


def list_append_then_stack(x):
    feats = []
    for k in range(1, 4):
        feats.append(jnp.sin(k * x))
        feats.append(jnp.cos(k * x))
    F = jnp.stack(feats, axis=1)
    w = jnp.linspace(0.1, 0.6, 6)
    return jnp.sum((F @ w) ** 2)


case(list_append_then_stack, lambda r: (vec(r, 5),), "works")


def fibonacci_like_swap(x):
    a, b = x[0], x[1]
    for _ in range(6):
        a, b = b, a + 0.5 * b
    return a * b


case(fibonacci_like_swap, lambda r: (vec(r, 2),), "works")


def builtins_on_traced_scalars(x):
    vals = [x[0] ** 2, x[1] * 3.0, jnp.sin(x[2])]
    return max(vals) + min(vals) + sum(vals) + abs(x[0] - x[1])


case(builtins_on_traced_scalars, lambda r: (vec(r, 3),), "works")


def list_comprehension_of_helpers(params, x):
    outs = [jnp.tanh(W @ x) for W in params]
    return sum(jnp.sum(o) for o in outs) + jnp.sum(jnp.concatenate(outs))


case(list_comprehension_of_helpers, lambda r: ([mat(r, 2, 3), mat(r, 4, 3)], vec(r, 3)), "works")


def copy_then_inplace(x):
    y = x.copy()
    y[0] = 0.0
    y[1:] *= x[:-1]
    return np.sum(y ** 2) + np.sum(x)


case(copy_then_inplace, lambda r: (vec(r, 5),), "works")


def concat_roll_flip(x):
    y = jnp.concatenate([x, x[::-1] * 2.0])
    z = jnp.roll(y, 2) * jnp.flip(y)
    return jnp.sum(z) + jnp.sum(jnp.hstack([x[:2], y[-2:]]) ** 2)


case(concat_roll_flip, lambda r: (vec(r, 4),), "works")


def sort_based_trimmed_mean(x):
    s = jnp.sort(x)
    return jnp.mean(s[1:-1]) + s[-1] * 0.1


case(sort_based_trimmed_mean, lambda r: (vec(r, 7),), "works")


def argsort_then_gather(x, w):
    idx = np.argsort(w)
    return jnp.sum(x[idx] * jnp.arange(len(x)))


case(argsort_then_gather, lambda r: (vec(r, 5), vec(r, 5)), "works", argnums=(0, 1))


def clip_and_where_mix(x):
    y = jnp.clip(x, -0.5, 0.5)
    z = jnp.where(x > 0, x ** 2, -x)
    return jnp.sum(y * z) + jnp.sum(jnp.abs(x))


case(clip_and_where_mix, lambda r: (vec(r, 6),), "works")


def einsum_bilinear(A, x, y):
    return jnp.einsum("ij,i,j->", A, x, y) + jnp.einsum("i,i", x, y) + jnp.sum(jnp.outer(x, y) * A)


case(einsum_bilinear, lambda r: (mat(r, 3), vec(r, 3), vec(r, 3)), "works", argnums=(0, 1, 2))


CONFIG = {"scale": 2.0, "power": 3}


def global_config_loss(x):
    return CONFIG["scale"] * jnp.sum(jnp.abs(x) ** CONFIG["power"])


case(global_config_loss, lambda r: (vec(r, 4),), "works")


def dict_params_argnums_tuple(params, state, x):
    h = params["a"] * x + state["bias"]
    state_new = {"bias": state["bias"] * 0.9 + 0.1 * jnp.mean(h)}
    return jnp.sum(h ** 2) + jnp.sum(state_new["bias"] ** 2)


case(dict_params_argnums_tuple, lambda r: ({"a": vec(r, 3)}, {"bias": vec(r, 3)}, vec(r, 3)), "works",
     argnums=(0, 1))


def jac_of_helper_tuple(x):
    m, s = _stats(x)
    return jnp.array([m, s, m * s])


case(jac_of_helper_tuple, lambda r: (vec(r, 4),), "works", mode="jac")


def jac_inplace_numpy_buffer(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] * x[(i + 1) % len(x)]
    out[0] += out[-1]
    return out


case(jac_inplace_numpy_buffer, lambda r: (vec(r, 4),), "works", mode="jac")


# ================================================================ library functions real code reaches for
def polyval_fit_loss(coeffs, x, y):
    pred = np.polyval(coeffs, x)
    return np.mean((pred - y) ** 2)


case(polyval_fit_loss, lambda r: (vec(r, 4), vec(r, 8), vec(r, 8)), "works")


def trapezoid_library(k):
    xs = np.linspace(0.0, 2.0, 41)
    return jnp.trapezoid(jnp.exp(-k * xs ** 2), xs)


case(trapezoid_library, lambda r: (scalar(r),), "works")


def convolve_library(x, w):
    y = np.convolve(x, w, mode="valid")
    return np.sum(y ** 2) + np.sum(np.convolve(x, w)[:2])


case(convolve_library, lambda r: (vec(r, 7), vec(r, 3)), "works", argnums=(0, 1))


def take_along_axis_nll(logits, labels):
    logp = logits - logsumexp(logits, axis=1, keepdims=True)
    picked = jnp.take_along_axis(logp, labels[:, None], axis=1)
    return -jnp.mean(picked)


case(take_along_axis_nll, lambda r: (mat(r, 4, 3), np.array([2, 0, 1, 1])), "works")


def slogdet_gaussian_nll(L_flat, x):
    L = jnp.tril(L_flat.reshape(3, 3)) + 3.0 * jnp.eye(3)
    S = L @ L.T
    sign, logdet = jnp.linalg.slogdet(S)
    return 0.5 * (logdet + x @ jnp.linalg.solve(S, x))


case(slogdet_gaussian_nll, lambda r: (vec(r, 9), vec(r, 3)), "works", argnums=(0, 1))


def eigh_smallest_eigenvalue(A):
    S = 0.5 * (A + A.T)
    w, V = jnp.linalg.eigh(S)
    return w[0] + jnp.sum(w ** 2)


case(eigh_smallest_eigenvalue, lambda r: (mat(r, 3),), "works", rtol=1e-4)


def svd_nuclear_norm(A):
    s = jnp.linalg.svd(A, compute_uv=False)
    return jnp.sum(s)


case(svd_nuclear_norm, lambda r: (mat(r, 3, 4),), "works", rtol=1e-4)


def lstsq_residual(A, b):
    x = jnp.linalg.lstsq(A, b)[0]
    return jnp.sum((A @ x - b) ** 2) + jnp.sum(x ** 2)


case(lstsq_residual, lambda r: (mat(r, 5, 3), vec(r, 5)), "works", argnums=(0, 1), rtol=1e-4)


def norms_by_axis(X):
    return (np.sum(np.linalg.norm(X, axis=1)) + np.linalg.norm(X, "fro") + np.linalg.norm(X[0], ord=1)
            + np.linalg.norm(X[1], np.inf))


case(norms_by_axis, lambda r: (mat(r, 3, 4),), "works")


def boolean_mask_sum(x):
    pos_part = x[x > 0]
    return np.sum(pos_part ** 2) + np.sum(x[x <= 0])


case(boolean_mask_sum, lambda r: (vec(r, 7),), "either", note="JAX refuses a boolean mask of traced shape")


def interp_piecewise_linear(y):
    xp = np.array([0.0, 1.0, 2.0, 3.0])
    xq = np.array([0.5, 1.25, 2.9])
    return np.sum(np.interp(xq, xp, y) ** 2)


case(interp_piecewise_linear, lambda r: (vec(r, 4),), "works")


def math_module_on_scalars(a):
    return math.exp(-a) * math.sin(a) + math.sqrt(a) + math.log(1 + a)


case(math_module_on_scalars, lambda r: (scalar(r),), "either", note="JAX refuses math.* on tracers")


def float_conversion_loses_derivative(x):
    scale = float(jnp.sum(x))
    return scale * jnp.sum(x ** 2)


case(float_conversion_loses_derivative, lambda r: (vec(r, 3),), "either",
     note="JAX refuses float() of a tracer; a derivative through float() is either followed or refused")


def item_call(x):
    s = (x ** 2).sum().item()
    return s * x[0]


case(item_call, lambda r: (vec(r, 3),), "either", note="JAX refuses .item() of a tracer")


def gradient_of_diff_and_cumprod(x):
    d2 = np.diff(x, n=2)
    g = np.gradient(x)
    return np.sum(d2 ** 2) + np.sum(g * x) + np.cumprod(1.0 + 0.1 * x)[-1]


case(gradient_of_diff_and_cumprod, lambda r: (vec(r, 6),), "works")


def kron_and_triu(A, B):
    K = jnp.kron(A, B)
    return jnp.sum(jnp.triu(K) ** 2) - jnp.trace(K)


case(kron_and_triu, lambda r: (mat(r, 2), mat(r, 2)), "works", argnums=(0, 1))


def maximum_accumulate_drawdown(prices):
    running_max = np.maximum.accumulate(prices)
    drawdown = (running_max - prices) / running_max
    return np.max(drawdown) + np.mean(drawdown)


case(maximum_accumulate_drawdown, lambda r: (pos(r, 8),), "works")


def swap_rows_pivoting(A):
    A = A.copy()
    n = A.shape[0]
    for k in range(n - 1):
        p = k + np.argmax(np.abs(A[k:, k]))
        if p != k:
            A[[k, p]] = A[[p, k]]
        for i in range(k + 1, n):
            A[i, k:] = A[i, k:] - A[i, k] / A[k, k] * A[k, k:]
    return np.prod(np.diag(A))


case(swap_rows_pivoting, lambda r: (mat(r, 3),), "works", note="Gaussian elimination with partial pivoting: +-det")


def gauss_seidel_inplace(b):
    u = np.zeros(len(b))
    for sweep in range(10):
        for i in range(len(b)):
            left = u[i - 1] if i > 0 else 0.0
            right = u[i + 1] if i < len(b) - 1 else 0.0
            u[i] = 0.5 * (b[i] + left + right) * 0.9
    return np.sum(u ** 2)


case(gauss_seidel_inplace, lambda r: (vec(r, 5),), "works")


# ================================================================ numerical linear algebra and dynamic programming by hand
def back_substitution_loops(U_flat, b):
    n = b.shape[0]
    U = np.triu(U_flat.reshape(n, n)) + 3.0 * np.eye(n)
    x = np.zeros(n)
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= U[i, j] * x[j]
        x[i] = s / U[i, i]
    return np.sum(x ** 2)


case(back_substitution_loops, lambda r: (vec(r, 9), vec(r, 3)), "works", argnums=(0, 1))


def cholesky_by_hand(A):
    n = A.shape[0]
    L = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            s = A[i, j]
            for k in range(j):
                s = s - L[i, k] * L[j, k]
            if i == j:
                L[i, j] = np.sqrt(s)
            else:
                L[i, j] = s / L[j, j]
    return np.sum(np.log(np.diag(L))) + L[2, 0]


case(cholesky_by_hand, lambda r: (spd(r, 3),), "works",
     note="A is read in its lower triangle only; finite differences move single entries, as the loop reads them")


def thomas_tridiagonal(d, diag):
    n = len(d)
    a = -np.ones(n)
    c = -np.ones(n)
    cp = np.zeros(n)
    dp = np.zeros(n)
    cp[0] = c[0] / diag[0]
    dp[0] = d[0] / diag[0]
    for i in range(1, n):
        m = diag[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.zeros(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return np.dot(x, x)


case(thomas_tridiagonal, lambda r: (vec(r, 5), 4.0 + pos(r, 5)), "works", argnums=(0, 1))


def hmm_forward_log_likelihood(log_A, log_pi, log_B, obs):
    alpha = log_pi + log_B[:, obs[0]]
    for t in range(1, len(obs)):
        alpha = logsumexp(alpha[:, None] + log_A, axis=0) + log_B[:, obs[t]]
    return logsumexp(alpha)


case(hmm_forward_log_likelihood, lambda r: (mat(r, 3), vec(r, 3), mat(r, 3, 4), np.array([0, 3, 1, 1, 2])), "works",
     argnums=(0, 1, 2))


def soft_dtw(x, y, gamma=0.5):
    n, m = len(x), len(y)
    R = np.full((n + 1, m + 1), np.inf)
    R[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = (x[i - 1] - y[j - 1]) ** 2
            prev = np.array([R[i - 1, j], R[i, j - 1], R[i - 1, j - 1]])
            softmin = -gamma * np.log(np.sum(np.exp(-prev / gamma)))
            R[i, j] = cost + softmin
    return R[n, m]


case(soft_dtw, lambda r: (vec(r, 4), vec(r, 3)), "works", argnums=(0, 1))


def kalman_filter_nll(q, r_, ys):
    m, P = 0.0, 1.0
    nll = 0.0
    for y in ys:
        P = P + q
        S = P + r_
        K = P / S
        innov = y - m
        nll = nll + 0.5 * (np.log(2 * np.pi * S) + innov ** 2 / S)
        m = m + K * innov
        P = (1 - K) * P
    return nll


case(kalman_filter_nll, lambda r: (scalar(r, 0.1, 0.5), scalar(r, 0.2, 0.8), vec(r, 8)), "works", argnums=(0, 1))


def lu_decomposition_determinant(A):
    n = A.shape[0]
    U = A.astype(float).copy()
    L = np.eye(n)
    for k in range(n):
        for i in range(k + 1, n):
            L[i, k] = U[i, k] / U[k, k]
            U[i, :] = U[i, :] - L[i, k] * U[k, :]
    return np.prod(np.diag(U)) + np.sum(L)


case(lu_decomposition_determinant, lambda r: (spd(r, 3),), "works")


def where_guarded_sqrt(x):
    safe = np.where(x > 0, x, 1.0)
    return np.sum(np.where(x > 0, np.sqrt(safe), 0.0))


case(where_guarded_sqrt, lambda r: (vec(r, 6),), "works")


def where_unguarded_sqrt(x):
    return jnp.sum(jnp.where(x > 0, jnp.sqrt(jnp.abs(x) * (x > 0)), 0.0) + x)


case(where_unguarded_sqrt, lambda r: (vec(r, 6),), "either",
     note="sqrt(0)'s infinite slope times where's zero: JAX gives nan; a finite 1 or a refusal are right too")


def seeded_noise_inside(w):
    np.random.seed(0)
    noise = np.random.randn(5)
    return np.sum((w * noise) ** 2) + np.sum(np.random.rand(5) * w)


case(seeded_noise_inside, lambda r: (vec(r, 5),), "either", note="an impure call; same seed on every run")


def newton_with_tolerance_and_break(a):
    x = 1.0
    for it in range(100):
        fx = x ** 3 - a
        if abs(fx) < 1e-12:
            break
        x = x - fx / (3 * x ** 2)
    return x


case(newton_with_tolerance_and_break, lambda r: (scalar(r, 2.0, 5.0),), "works", rtol=1e-4)


# ================================================================ more of how people write it
from collections import namedtuple  # noqa: E402

Params = namedtuple("Params", ["W", "b"])


def namedtuple_params_loss(p, x, y):
    pred = x @ p.W + p.b
    return np.mean((pred - y) ** 2) + 0.1 * np.sum(p.W ** 2)


case(namedtuple_params_loss, lambda r: (Params(mat(r, 3, 2), vec(r, 2)), mat(r, 4, 3), mat(r, 4, 2)), "works")


def nested_dict_params(params, x):
    h = np.tanh(x @ params["layer1"]["W"] + params["layer1"]["b"])
    out = h @ params["layer2"]["W"] + params["layer2"]["b"]
    return np.sum(out ** 2)


case(nested_dict_params, lambda r: ({"layer1": {"W": mat(r, 3, 4), "b": vec(r, 4)},
                                     "layer2": {"W": mat(r, 4, 2), "b": vec(r, 2)}}, mat(r, 5, 3)), "works")


def string_keys_loop(params, x):
    h = x
    for name in ["W1", "W2"]:
        h = np.tanh(h @ params[name])
    return np.sum(h)


case(string_keys_loop, lambda r: ({"W1": mat(r, 3), "W2": mat(r, 3, 2)}, mat(r, 4, 3)), "works")


def best_so_far_tracking(x):
    best = float("inf")
    best_i = -1
    for i, v in enumerate(x):
        d = (v - 0.3) ** 2
        if d < best:
            best = d
            best_i = i
    return best + 0.1 * x[best_i]


case(best_so_far_tracking, lambda r: (vec(r, 6),), "works")


def running_min_builtin(x):
    m = x[0]
    for v in x[1:]:
        m = min(m, v * v)
    return m + max(x[0], x[1])


case(running_min_builtin, lambda r: (vec(r, 5),), "works")


def mean_of_python_list(w, X):
    losses = [np.log1p(np.exp(-xi @ w)) for xi in X]
    return np.mean(losses) + sum(losses) / len(losses)


case(mean_of_python_list, lambda r: (vec(r, 3), mat(r, 5, 3)), "works")


def recursive_power(x, n=4):
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)


def recursion_user(x):
    return np.sum(recursive_power(x) + recursive_power(x, 2))


case(recursion_user, lambda r: (vec(r, 3),), "works")


def fill_columns_of_buffer(x):
    n = x.shape[0]
    feats = np.zeros((n, 3))
    feats[:, 0] = 1.0
    feats[:, 1] = x
    feats[:, 2] = x ** 2
    w = np.array([0.5, -1.0, 2.0])
    return np.sum((feats @ w) ** 2)


case(fill_columns_of_buffer, lambda r: (vec(r, 5),), "works")


def strided_updates(x):
    y = jnp.zeros_like(x)
    y = y.at[::2].set(x[::2] ** 2)
    y = y.at[1::2].add(jnp.sin(x[1::2]))
    return jnp.sum(y * jnp.arange(x.shape[0]))


case(strided_updates, lambda r: (vec(r, 7),), "works")


def scatter_add_histogram(w):
    idx = np.array([0, 2, 2, 1, 0, 2])
    totals = np.zeros(3)
    np.add.at(totals, idx, w)
    return np.sum(totals ** 2) + np.sum(np.bincount(idx, weights=w) * np.array([1.0, 2.0, 3.0]))


case(scatter_add_histogram, lambda r: (vec(r, 6),), "works")


def meshgrid_field_energy(c):
    xs = np.linspace(-1, 1, 5)
    X, Y = np.meshgrid(xs, xs)
    phi = c[0] * X ** 2 + c[1] * X * Y + c[2] * np.sin(Y)
    gx = np.diff(phi, axis=1)
    gy = np.diff(phi, axis=0)
    return np.sum(gx ** 2) + np.sum(gy ** 2)


case(meshgrid_field_energy, lambda r: (vec(r, 3),), "works")


def has_aux_style_tuple(w, x):
    pred = x @ w
    loss = np.mean(pred ** 2)
    return loss, {"pred": pred}


def has_aux_wrapper(w, x):
    loss, aux = has_aux_style_tuple(w, x)
    return loss + 0.0 * np.sum(aux["pred"])


case(has_aux_wrapper, lambda r: (vec(r, 3), mat(r, 4, 3)), "works")


def lax_fori_loop_user(x):
    def body(i, carry):
        return carry * 0.9 + jnp.sin(x * i)

    return jnp.sum(lax.fori_loop(0, 5, body, jnp.zeros_like(x)))


case(lax_fori_loop_user, lambda r: (vec(r, 3),), "works")


def lax_scan_cumulative(xs):
    def step(c, x):
        c = 0.5 * c + x
        return c, c ** 2

    final, ys = lax.scan(step, 0.0, xs)
    return final + jnp.sum(ys)


case(lax_scan_cumulative, lambda r: (vec(r, 5),), "works")


def alternating_steps_by_parity(x):
    y = x
    for t in range(6):
        if t % 2 == 0:
            y = y - 0.1 * jnp.sin(y)
        else:
            y = y * 1.05
    return jnp.sum(y ** 2)


case(alternating_steps_by_parity, lambda r: (vec(r, 3),), "works")


def reshape_minus_one_keepdims(X):
    mu = X.mean(axis=1).reshape(-1, 1)
    Z = (X - mu) / X.std(axis=1, keepdims=True)
    return np.sum(Z[:, :2] ** 3) + np.sum(X.reshape(-1)[::3])


case(reshape_minus_one_keepdims, lambda r: (mat(r, 3, 4),), "works")


# ================================================================ Hessians, as Newton's-method users take them
from .harness import fd_hessian  # noqa: E402


def _hessian_check(fn, args):
    H = astjax.hessian(fn)(*args)
    return [(H, fd_hessian(fn, args, 0), "hessian vs second finite differences")]


def logistic_loss_for_newton(w, X, y):
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * np.sum(w ** 2)


case(logistic_loss_for_newton, lambda r: (vec(r, 3), mat(r, 6, 3), np.array([0., 1, 1, 0, 1, 0])), "works",
     mode="custom", check=_hessian_check, rtol=1e-4)


def pair_energy_hessian(x):
    pts = x.reshape(3, 2)
    e = 0.0
    for i in range(3):
        for j in range(i + 1, 3):
            r2 = np.sum((pts[i] - pts[j]) ** 2)
            e = e + 1.0 / r2 + r2
    return e


case(pair_energy_hessian, lambda r: (np.array([0.0, 0.0, 1.1, 0.2, 0.3, 1.2]) + 0.05 * vec(r, 6),), "works",
     mode="custom", check=_hessian_check, rtol=1e-4)


def inplace_buffer_hessian(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sin(x[i]) * x[(i + 1) % len(x)]
    out[0] += out[-1] * x[1]
    return np.sum(out ** 2)


case(inplace_buffer_hessian, lambda r: (vec(r, 4),), "works", mode="custom", check=_hessian_check, rtol=1e-4)


def while_loop_hessian(x):
    k = 0
    y = x
    while k < 4:
        y = y - 0.2 * (y ** 3 - 1.0)
        k += 1
    return np.sum(y * x)


case(while_loop_hessian, lambda r: (vec(r, 3, 0.5, 1.0),), "works", mode="custom", check=_hessian_check, rtol=1e-4)


def dict_params_hessian(w):
    params = {"a": w[:2], "b": w[2]}
    s = 0.0
    for k, v in params.items():
        s = s + np.sum(np.exp(v) * v)
    return s + params["b"] * np.sum(params["a"] ** 2)


case(dict_params_hessian, lambda r: (vec(r, 3),), "works", mode="custom", check=_hessian_check, rtol=1e-4)


# ================================================================ signal processing with the FFT
def fft_circular_convolution(x, w):
    n = x.shape[0]
    y = np.fft.irfft(np.fft.rfft(x) * np.fft.rfft(w, n), n)
    return np.sum(y ** 2)


case(fft_circular_convolution, lambda r: (vec(r, 8), vec(r, 8)), "works", argnums=(0, 1))


def power_spectrum_loss(x):
    X = np.fft.fft(x)
    power = np.abs(X) ** 2
    target = np.linspace(1.0, 2.0, x.shape[0])
    return np.sum((power - target) ** 2) + np.real(X[1]) * np.imag(X[2])


case(power_spectrum_loss, lambda r: (vec(r, 6),), "works")


def spectral_derivative(u):
    n = u.shape[0]
    k = np.fft.fftfreq(n, d=1.0 / n) * 2 * np.pi / n
    du = np.real(np.fft.ifft(1j * k * np.fft.fft(u)))
    return np.sum(du ** 2 * np.arange(n))


case(spectral_derivative, lambda r: (vec(r, 8),), "works")


# ================================================================ arguments changed in place (the caller's arrays)
def normalize_argument_in_place(x):
    x -= x.mean()
    x /= np.sqrt(np.sum(x ** 2))
    return np.sum(x ** 3) + x[0]


case(normalize_argument_in_place, lambda r: (vec(r, 5),), "works")


def clamp_argument_items(w, X):
    w[0] = 0.0                    # "the bias is not regularised": zero it in the caller's array
    w[1:] *= 0.5
    return np.sum((X @ w) ** 2)


case(clamp_argument_items, lambda r: (vec(r, 3), mat(r, 4, 3)), "works", argnums=(0, 1))


def sort_argument_in_place(x):
    x.sort()
    return x[0] * 2.0 + x[-1] ** 2 + np.sum(x * np.arange(len(x)))


case(sort_argument_in_place, lambda r: (vec(r, 5),), "works")


# ================================================================ robust statistics
def median_absolute_deviation(x):
    med = np.median(x)
    return np.median(np.abs(x - med)) + 0.1 * med


case(median_absolute_deviation, lambda r: (vec(r, 7),), "works")


def quantile_loss_and_percentile(x):
    q = np.quantile(x, 0.3)
    p = np.percentile(x, 80)
    return q * p + np.mean(np.maximum(x - q, 0.0))


case(quantile_loss_and_percentile, lambda r: (vec(r, 8),), "works")


def winsorized_mean(x):
    lo, hi = np.percentile(x, [10, 90])
    return np.mean(np.clip(x, lo, hi))


case(winsorized_mean, lambda r: (vec(r, 9),), "works")


def cov_and_corrcoef(X):
    C = np.cov(X)
    R = np.corrcoef(X)
    return np.sum(C ** 2) + np.sum(np.triu(R, 1))


case(cov_and_corrcoef, lambda r: (mat(r, 3, 6),), "works")


def log_softmax_temperature(logits, T):
    z = logits / T
    z = z - np.max(z, axis=-1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=-1, keepdims=True))
    return -np.mean(np.sum(np.exp(logp) * logp, axis=-1))


case(log_softmax_temperature, lambda r: (mat(r, 3, 4), scalar(r, 0.5, 2.0)), "works", argnums=(0, 1))


# ================================================================ everyday Python around the numbers
def conditional_expressions_and_chains(x):
    a = x[0] ** 2 if x[1] > 0 else -x[0]
    b = x[2] * 3.0 if 0.0 < x[2] < 0.5 else jnp.sin(x[2])
    return a + b


case(conditional_expressions_and_chains, lambda r: (vec(r, 3),), "works")


def debug_prints_and_asserts(x):
    assert x.shape == (4,), "expected four values"
    loss = jnp.sum(x ** 2)
    print(f"loss is {loss}")
    return loss * 2.0


case(debug_prints_and_asserts, lambda r: (vec(r, 4),), "works")


def errstate_block(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(np.abs(x) + 1.0)
    return np.sum(y * x)


case(errstate_block, lambda r: (vec(r, 5),), "works")


def try_cholesky_fallback(a):
    K = np.array([[2.0, 0.3], [0.3, 1.0]]) * a
    try:
        L = np.linalg.cholesky(K)
        logdet = 2.0 * np.sum(np.log(np.diag(L)))
    except np.linalg.LinAlgError:
        logdet = np.log(np.linalg.det(K))
    return logdet


case(try_cholesky_fallback, lambda r: (scalar(r, 0.5, 2.0),), "either")


def while_with_continue_and_break(x):
    i = 0
    total = 0.0
    while True:
        i += 1
        if i % 2 == 0:
            continue
        total = total + x[i % len(x)] * i
        if i > 6:
            break
    return total


case(while_with_continue_and_break, lambda r: (vec(r, 4),), "works")


def local_helper_closing_over_data(w, X, y):
    def predict(xi):
        return np.tanh(xi @ w)

    errs = [(predict(X[i]) - y[i]) ** 2 for i in range(len(y))]
    return sum(errs)


case(local_helper_closing_over_data, lambda r: (vec(r, 3), mat(r, 4, 3), vec(r, 4)), "works")


def and_or_on_scalars(x):
    scale = (x[0] > 0 and 2.0) or 0.5
    return scale * jnp.sum(x ** 2)


case(and_or_on_scalars, lambda r: (vec(r, 3),), "works")


# ================================================================ helpers passed around
import functools  # noqa: E402


def _gaussian_kernel(a, b, lengthscale=1.0):
    return np.exp(-0.5 * np.sum((a - b) ** 2) / lengthscale ** 2)


def partial_kernel_matrix(X):
    k = functools.partial(_gaussian_kernel, lengthscale=0.7)
    n = X.shape[0]
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            K[i, j] = k(X[i], X[j])
    return np.sum(K) + np.trace(K @ K)


case(partial_kernel_matrix, lambda r: (mat(r, 3, 2),), "works")


def _step(state, dt, force):
    x, v = state
    a = force(x)
    return x + dt * v, v + dt * a


def _spring_force(x):
    return -4.0 * x - 0.1 * x ** 3


def integrator_with_force_argument(x0, v0):
    state = (x0, v0)
    for _ in range(10):
        state = _step(state, 0.05, _spring_force)
    x, v = state
    return np.sum(x ** 2) + np.sum(v ** 2)


case(integrator_with_force_argument, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def map_over_rows(W, X):
    rows = list(map(lambda row: np.tanh(W @ row), X))
    return np.sum(np.stack(rows) ** 2)


case(map_over_rows, lambda r: (mat(r, 2, 3), mat(r, 4, 3)), "either")


def vectorized_loss_terms(w, xs, ys, reg=0.1):
    terms = [(np.dot(w, x) - y) ** 2 for x, y in zip(xs, ys)]
    return np.mean(terms) + reg * np.dot(w, w)


case(vectorized_loss_terms, lambda r: (vec(r, 3), mat(r, 5, 3), vec(r, 5)), "works")
