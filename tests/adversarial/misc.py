"""Realistic programs a newcomer writes first: physics with pairwise loops, ODE
integrators, RNNs, dynamic programming over a table, attention, convolutions by
hand, Newton iterations, Horner's rule, k-means-style assignments."""
import numpy as np

import astjax.numpy as jnp

from .case import case, vec, mat, pos, spd, scalar


def lennard_jones_energy(positions):
    n = positions.shape[0]
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = positions[i] - positions[j]
            r2 = jnp.sum(d * d)
            inv6 = 1.0 / r2 ** 3
            energy = energy + 4.0 * (inv6 * inv6 - inv6)
    return energy


case(lennard_jones_energy,
     lambda r: (np.array([[0.0, 0.0], [1.1, 0.1], [0.2, 1.2], [1.3, 1.25]]) + 0.01 * mat(r, 4, 2),), "works",
     rtol=1e-4)


def pairwise_forces_then_kinetic(positions, velocities):
    n = positions.shape[0]
    forces = jnp.zeros_like(positions)
    for i in range(n):
        for j in range(i + 1, n):
            d = positions[i] - positions[j]
            f = d / (jnp.sum(d * d) + 0.5) ** 1.5
            forces = forces.at[i].add(f)
            forces = forces.at[j].add(-f)
    v = velocities + 0.1 * forces
    return 0.5 * jnp.sum(v * v)


case(pairwise_forces_then_kinetic, lambda r: (mat(r, 4, 2), mat(r, 4, 2)), "works", argnums=(0, 1))


def euler_integrator(params, y0):
    y = y0
    dt = 0.1
    for _ in range(10):
        dy = jnp.stack([y[1], -params[0] * jnp.sin(y[0]) - params[1] * y[1]])
        y = y + dt * dy
    return jnp.sum(y ** 2)


case(euler_integrator, lambda r: (pos(r, 2), vec(r, 2)), "works", argnums=(0, 1))


def _rhs(y, k):
    return -k * y + jnp.sin(y)


def rk4_integrator(y0, k):
    y = y0
    h = 0.05
    for _ in range(8):
        k1 = _rhs(y, k)
        k2 = _rhs(y + 0.5 * h * k1, k)
        k3 = _rhs(y + 0.5 * h * k2, k)
        k4 = _rhs(y + h * k3, k)
        y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return jnp.sum(y)


case(rk4_integrator, lambda r: (vec(r, 3), pos(r, 1)), "works", argnums=(0, 1))


def adaptive_steps_while(y0):
    t = 0.0
    y = y0
    h = 0.1
    while t < 1.0:
        y = y + h * jnp.cos(y)
        t = t + h
        h = h * 1.3
    return jnp.sum(y)


case(adaptive_steps_while, lambda r: (vec(r, 3),), "works")


def vanilla_rnn(W, U, xs):
    h = jnp.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = jnp.tanh(W @ h + U @ xs[t])
    return jnp.sum(h ** 2)


case(vanilla_rnn, lambda r: (mat(r, 3) * 0.5, mat(r, 3, 2) * 0.5, mat(r, 4, 2)), "works", argnums=(0, 1))


def soft_dtw(x, y):
    n, m = x.shape[0], y.shape[0]
    inf = 1e6
    R = [[inf] * (m + 1) for _ in range(n + 1)]
    R[0][0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = (x[i - 1] - y[j - 1]) ** 2
            a, b, c = R[i - 1][j - 1], R[i - 1][j], R[i][j - 1]
            mn = jnp.minimum(a, jnp.minimum(b, c))
            soft = mn - jnp.log(jnp.exp(mn - a) + jnp.exp(mn - b) + jnp.exp(mn - c))
            R[i][j] = cost + soft
    return R[n][m]


case(soft_dtw, lambda r: (vec(r, 3), vec(r, 4)), "works", argnums=(0, 1))


def edit_distance_like_table(x):
    n = x.shape[0]
    D = jnp.zeros((n + 1, n + 1), dtype=x.dtype)
    for i in range(1, n + 1):
        for j in range(1, i + 1):
            D = D.at[i, j].set(D[i - 1, j - 1] + x[i - 1] * x[j - 1] + 0.5 * D[i - 1, j])
    return D[n, n] + jnp.sum(D)


case(edit_distance_like_table, lambda r: (vec(r, 3),), "works")


def attention(q, k, v):
    scores = q @ k.T / jnp.sqrt(q.shape[1] * 1.0)
    scores = scores - jnp.max(scores, axis=1, keepdims=True)
    w = jnp.exp(scores)
    w = w / jnp.sum(w, axis=1, keepdims=True)
    return jnp.sum((w @ v) ** 2)


case(attention, lambda r: (mat(r, 2, 3), mat(r, 4, 3), mat(r, 4, 2)), "works", argnums=(0, 1, 2))


def conv1d_by_hand(x, w):
    n, k = x.shape[0], w.shape[0]
    out = []
    for i in range(n - k + 1):
        acc = 0.0
        for j in range(k):
            acc = acc + x[i + j] * w[j]
        out.append(acc)
    return jnp.sum(jnp.stack(out) ** 2)


case(conv1d_by_hand, lambda r: (vec(r, 6), vec(r, 3)), "works", argnums=(0, 1))


def newton_sqrt_until_converged(a):
    y = a
    for _ in range(30):
        y_new = 0.5 * (y + a / y)
        if jnp.abs(y_new - y) < 1e-12:
            break
        y = y_new
    return y


case(newton_sqrt_until_converged, lambda r: (scalar(r, 1.5, 3.0),), "works", rtol=1e-4)


def horner(coeffs, x):
    y = 0.0
    for c in coeffs:
        y = y * x + c
    return y


case(horner, lambda r: (vec(r, 4), scalar(r)), "works", argnums=(0, 1))


def horner_reversed_index(coeffs, x):
    y = coeffs[-1]
    for i in range(coeffs.shape[0] - 2, -1, -1):
        y = y * x + coeffs[i]
    return y


case(horner_reversed_index, lambda r: (vec(r, 4), scalar(r)), "works", argnums=(0, 1))


def kmeans_assignment_loss(points, centers):
    loss = 0.0
    for p in points:
        d = jnp.sum((centers - p) ** 2, axis=1)
        k = int(jnp.argmin(d))
        loss = loss + d[k]
    return loss


case(kmeans_assignment_loss, lambda r: (mat(r, 5, 2), np.array([[0.5, 0.5], [-0.5, -0.5], [0.5, -0.6]])),
     "works", argnums=(0, 1))


def logistic_regression_loop(w, X, y):
    loss = 0.0
    for i in range(X.shape[0]):
        z = jnp.dot(X[i], w)
        loss = loss + jnp.log(1.0 + jnp.exp(-y[i] * z))
    return loss / X.shape[0]


case(logistic_regression_loop, lambda r: (vec(r, 3), mat(r, 5, 3), np.array([1.0, -1.0, 1.0, 1.0, -1.0])),
     "works")


def mlp_list_of_dicts(params, x):
    h = x
    for layer in params[:-1]:
        h = jnp.tanh(h @ layer["w"] + layer["b"])
    last = params[-1]
    return jnp.sum((h @ last["w"] + last["b"]) ** 2)


case(mlp_list_of_dicts,
     lambda r: ([{"w": mat(r, 4, 3) * 0.5, "b": vec(r, 3) * 0.1}, {"w": mat(r, 3, 2) * 0.5, "b": vec(r, 2) * 0.1},
                 {"w": mat(r, 2, 1), "b": vec(r, 1)}], vec(r, 4)), "works")


def gaussian_log_likelihood(L_flat, x):
    L = jnp.reshape(L_flat, (2, 2))
    S = L @ L.T + jnp.eye(2)
    Sinv = jnp.linalg.inv(S)
    return -0.5 * x @ Sinv @ x - 0.5 * jnp.log(jnp.linalg.det(S))


case(gaussian_log_likelihood, lambda r: (vec(r, 4), vec(r, 2)), "works", argnums=(0, 1))


def bubble_sort_network(x):
    v = [x[0], x[1], x[2], x[3]]
    n = len(v)
    for i in range(n):
        for j in range(n - i - 1):
            if v[j] > v[j + 1]:
                v[j], v[j + 1] = v[j + 1], v[j]
    return v[0] * 1.0 + v[1] * 2.0 + v[2] * 3.0 + v[3] * 4.0


case(bubble_sort_network, lambda r: (np.array([0.4, -0.3, 0.9, 0.1]),), "works")


def cumulative_returns_with_break(r):
    wealth = 1.0
    peak = 1.0
    for t in range(r.shape[0]):
        wealth = wealth * (1.0 + r[t])
        peak = jnp.maximum(peak, wealth)
        if wealth < 0.5 * peak:
            break
    return wealth


case(cumulative_returns_with_break, lambda r: (np.array([0.1, -0.3, 0.2, -0.45, 0.3]),), "works")


def matrix_power_loop(A):
    P = jnp.eye(A.shape[0])
    for _ in range(3):
        P = P @ A
    return jnp.trace(P)


case(matrix_power_loop, lambda r: (mat(r, 3),), "works")


def gram_schmidt(A):
    basis = []
    for i in range(A.shape[1]):
        v = A[:, i]
        for b in basis:
            v = v - jnp.dot(v, b) * b
        basis.append(v / jnp.sqrt(jnp.sum(v * v)))
    return jnp.sum(jnp.stack(basis) * A.T)


case(gram_schmidt, lambda r: (mat(r, 3) + 2.0 * np.eye(3),), "works")


def heat_equation_steps(u0):
    u = u0
    n = u.shape[0]
    for _ in range(5):
        lap = jnp.concatenate([u[1:2] - u[0:1], u[2:] - 2.0 * u[1:-1] + u[:-2], u[-2:-1] - u[-1:]])
        u = u + 0.1 * lap
    return jnp.sum(u ** 2) + u[n // 2]


case(heat_equation_steps, lambda r: (vec(r, 6),), "works")


def particles_bounce_in_box(x0, v0):
    x, v = x0, v0
    for _ in range(6):
        x = x + 0.3 * v
        for k in range(x.shape[0]):
            if x[k] > 1.0:
                x = x.at[k].set(2.0 - x[k])
                v = v.at[k].set(-v[k])
    return jnp.sum(x * x) + jnp.sum(v)


case(particles_bounce_in_box, lambda r: (np.array([0.1, 0.5, -0.2]), np.array([0.31, 0.17, 0.23])), "works",
     argnums=(0, 1))


def boolean_mask_operators(x):
    """`&`, `|`, `^` and `~` on boolean masks choose branches; they carry no derivative themselves."""
    inside = (x > 0) & (x < 2)
    outside = ~((x > 0) | (x > 5)) ^ (x < -3)
    return jnp.sum(jnp.where(inside, x * x, 0.0) + jnp.where(outside, 3.0 * x, jnp.sin(x)))


case(boolean_mask_operators, lambda r: (np.array([0.5, 3.0, -1.0, -4.0]) + 0.01 * vec(r, 4),), "works")
