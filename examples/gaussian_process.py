"""Fit a Gaussian process's kernel by maximizing its marginal likelihood with astjax.grad.

The model: y = f(x) + noise, f ~ GP(0, k) with the RBF kernel
k(x, x') = s^2 exp(-|x - x'|^2 / (2 l^2)) and noise variance n^2. The
parameters are kept as logs, (log l, log s, log n), so gradient descent stays
in the positive range. The negative log marginal likelihood is

    0.5 y^T K^-1 y + 0.5 log det K + (N / 2) log(2 pi),   K = k(X, X) + n^2 I,

computed with a Cholesky factor (cho_factor / cho_solve) and slogdet, as one
would in JAX: `astjax.grad` differentiates through them by their rules.

Run it: python examples/gaussian_process.py
"""
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax.scipy.linalg import cho_factor, cho_solve


def rbf_kernel(x1, x2, log_length, log_scale):
    """s^2 exp(-|x1_i - x2_j|^2 / (2 l^2)) for 1-D inputs."""
    diff = jnp.expand_dims(x1, 1) - jnp.expand_dims(x2, 0)
    return jnp.exp(2.0 * log_scale) * jnp.exp(-0.5 * (diff / jnp.exp(log_length)) ** 2)


def negative_log_likelihood(params, x, y):
    """-log p(y | x, params) of the GP with an RBF kernel and Gaussian noise."""
    log_length = params[0]
    log_scale = params[1]
    log_noise = params[2]
    n = x.shape[0]
    K = rbf_kernel(x, x, log_length, log_scale) + jnp.exp(2.0 * log_noise) * jnp.eye(n, dtype=x.dtype)
    factor = cho_factor(K, lower=True)
    alpha = cho_solve(factor, y)
    sign, logdet = jnp.linalg.slogdet(K)
    return 0.5 * jnp.dot(y, alpha) + 0.5 * logdet + 0.5 * n * np.log(2.0 * np.pi)


def cholesky_negative_log_likelihood(params, x, y):
    """The same likelihood with jnp.linalg.cholesky and log det K = 2 sum log diag(L)."""
    n = x.shape[0]
    K = rbf_kernel(x, x, params[0], params[1]) + jnp.exp(2.0 * params[2]) * jnp.eye(n, dtype=x.dtype)
    L = jnp.linalg.cholesky(K)
    alpha = cho_solve((L, True), y)
    return 0.5 * jnp.dot(y, alpha) + jnp.sum(jnp.log(jnp.diagonal(L))) + 0.5 * n * np.log(2.0 * np.pi)


def synthetic_data(n=20, seed=0):
    """Noisy samples of sin(3x) at n points in [-2, 2], as float64."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-2.0, 2.0, n))
    y = np.sin(3.0 * x) + 0.1 * rng.standard_normal(n)
    return x, y


def fit(x, y, params, steps=100, learning_rate=0.05):
    """Plain gradient descent on the negative log marginal likelihood; returns (params, losses)."""
    value_and_grad = astjax.value_and_grad(negative_log_likelihood)
    losses = []
    for _ in range(steps):
        loss, grad = value_and_grad(params, x, y)
        losses.append(float(loss))
        params = params - learning_rate * np.asarray(grad)
    losses.append(float(negative_log_likelihood(params, x, y)))
    return params, losses


if __name__ == "__main__":
    x, y = synthetic_data()
    start = np.array([0.5, 0.0, -1.0])
    params, losses = fit(x, y, start)
    print(f"negative log likelihood: {losses[0]:.3f} -> {losses[-1]:.3f}")
    print("length scale %.3f, signal scale %.3f, noise %.3f" % tuple(np.exp(params)))
