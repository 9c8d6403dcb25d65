"""An MLP classifier trained with astjax.grad and optimizers.adam on a synthetic two-class dataset.

The classes are a disc and the ring around it, so no straight line separates them: the network has to
learn a curved boundary. Run it with `python examples/mlp_adam.py`; tests/test_examples_api.py runs it at
a small size.
"""
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax.example_libraries import optimizers


def make_data(n, seed=0):
    """n points in the plane: label 1 inside radius 1, label 0 on the ring between radii 1.4 and 2."""
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.5
    radius = np.where(labels, rng.uniform(0.0, 1.0, n), rng.uniform(1.4, 2.0, n))
    angle = rng.uniform(0.0, 2 * np.pi, n)
    points = np.stack([radius * np.cos(angle), radius * np.sin(angle)], axis=1)
    return points.astype(np.float32), labels.astype(np.float32)


def init_params(sizes, seed=0):
    """[(W, b), ...] for layers of the given sizes, with Glorot-scaled normal weights."""
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((m, n)).astype(np.float32) * np.float32(np.sqrt(2.0 / (m + n))),
             np.zeros(n, dtype=np.float32)) for m, n in zip(sizes[:-1], sizes[1:])]


def logits(params, x):
    """The network's output before the sigmoid: tanh hidden layers, a linear last layer."""
    h = x
    for w, b in params[:-1]:
        h = jnp.tanh(h @ w + b)
    w, b = params[-1]
    return (h @ w + b)[:, 0]


def loss(params, x, y):
    """Mean binary cross-entropy of the logits z, computed stably: max(z, 0) - z y + log(1 + exp(-|z|))."""
    z = logits(params, x)
    return jnp.mean(jnp.maximum(z, 0.0) - z * y + jnp.log1p(jnp.exp(-jnp.abs(z))))


def accuracy(params, x, y):
    return float(np.mean((np.asarray(logits(params, x)) > 0) == (y > 0.5)))


def train(steps=300, n=400, hidden=16, step_size=0.03, seed=0):
    """Full-batch Adam; returns (params, losses, accuracy on fresh data)."""
    x, y = make_data(n, seed)
    opt_init, opt_update, get_params = optimizers.adam(step_size)
    state = opt_init(init_params([2, hidden, hidden, 1], seed))
    value_and_grad = astjax.value_and_grad(loss)
    losses = []
    for i in range(steps):
        value, grads = value_and_grad(get_params(state), x, y)
        losses.append(float(value))
        state = opt_update(i, grads, state)
    params = get_params(state)
    test_x, test_y = make_data(n, seed + 1)
    return params, losses, accuracy(params, test_x, test_y)


if __name__ == "__main__":
    _, losses, acc = train()
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}; accuracy on fresh data {acc:.1%}")
