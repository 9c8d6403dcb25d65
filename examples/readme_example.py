"""The README's example: grad of a small NumPy-style loss, and the source astjax wrote for it."""
import astjax
import astjax.numpy as jnp


def sigmoid(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def loss(w, x):
    return jnp.sum(sigmoid(w * x))


if __name__ == "__main__":
    dloss = astjax.grad(loss)
    print(dloss(jnp.ones(3), jnp.arange(3.0)))
    print(astjax.source(dloss))
