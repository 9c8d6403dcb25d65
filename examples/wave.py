"""A 1-D wave equation on a ring, stepped with jnp.roll, differentiated through time.

u_tt = c^2 u_xx with periodic boundaries, by the leapfrog scheme

    u[t+1] = 2 u[t] - u[t-1] + (c dt / dx)^2 (roll(u[t], 1) - 2 u[t] + roll(u[t], -1)).

The loss is the squared distance of the final state from a target; astjax.grad gives its gradient with
respect to the initial displacement u0, which `check_gradient` compares with central differences.
Run it with `python examples/wave.py`; tests/test_examples_api.py runs it at a small size.
"""
import numpy as np

import astjax
import astjax.numpy as jnp


def simulate(u0, steps, courant=0.5):
    """The displacement after `steps` leapfrog steps from u0 at rest (courant = c dt / dx <= 1 is stable)."""
    r2 = courant * courant
    u_prev = u0
    u = u0 + 0.5 * r2 * (jnp.roll(u0, 1) - 2.0 * u0 + jnp.roll(u0, -1))
    for _ in range(steps - 1):
        u_next = 2.0 * u - u_prev + r2 * (jnp.roll(u, 1) - 2.0 * u + jnp.roll(u, -1))
        u_prev = u
        u = u_next
    return u


def loss(u0, target, steps):
    """Squared distance of the final displacement from `target`."""
    u = simulate(u0, steps)
    return jnp.sum((u - target) ** 2)


def initial_pulse(n):
    """A Gaussian bump in the middle of the ring."""
    x = np.linspace(0.0, 1.0, n, endpoint=False)
    return np.exp(-((x - 0.5) / 0.08) ** 2)


def check_gradient(n=32, steps=20, eps=1e-6, seed=0):
    """(astjax's gradient, central differences) of the loss with respect to u0, in float64."""
    rng = np.random.default_rng(seed)
    u0 = initial_pulse(n)
    target = rng.standard_normal(n) * 0.1
    grad = np.asarray(astjax.grad(loss)(u0, target, steps))
    numeric = np.zeros(n)
    for i in range(n):
        up, down = u0.copy(), u0.copy()
        up[i] += eps
        down[i] -= eps
        numeric[i] = (float(loss(up, target, steps)) - float(loss(down, target, steps))) / (2 * eps)
    return grad, numeric


if __name__ == "__main__":
    grad, numeric = check_gradient()
    print(f"max |astjax - finite differences| = {np.max(np.abs(grad - numeric)):.2e} "
          f"(gradient norm {np.linalg.norm(grad):.3f})")
