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

# The README's example, line for line, so the line numbers in its printed source match;
# tests/test_snapshots.py checks that the README shows exactly what astjax writes.
