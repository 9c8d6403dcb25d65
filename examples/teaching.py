"""Teaching examples: a loop, a branch and a recursion, with the derivative astjax writes for each.

Run `python examples/teaching.py` to print each function's gradient and generated source.
tests/test_snapshots.py keeps the printed sources stable, so a change to how
derivatives read shows up in review.
"""
import numpy as np

import astjax
import astjax.numpy as jnp


def power_loop(x, n):
    """x ** n by repeated multiplication: the reverse sweep runs the loop backwards."""
    y = 1.0
    for _ in range(n):
        y = y * x
    return y


def relu_branch(x):
    """A branch on the value: the reverse sweep takes the same branch."""
    if x > 0:
        return x * x
    else:
        return -x


def fact_pow(x, n):
    """x ** n by recursion: the derivative calls its own vjp recursively."""
    if n == 0:
        return 1.0
    return x * fact_pow(x, n - 1)


def newton_sqrt(a):
    """sqrt(a) by Newton's method: a while loop, reversed by counting its iterations."""
    x = a
    i = 0
    while i < 20:
        x = 0.5 * (x + a / x)
        i += 1
    return x


def rnn(W, h, xs):
    """A recurrent net's final state: the reverse sweep runs back through time."""
    for x in xs:
        h = jnp.tanh(W @ h + x)
    return jnp.sum(h)


def layer_loss(W, b, x, y):
    """One dense layer and a squared error, over a batch of rows."""
    pred = jnp.tanh(x @ W + b)
    return jnp.mean((pred - y) ** 2)


EXAMPLES = {
    "power_loop": (power_loop, (1.5, 4)),
    "relu_branch": (relu_branch, (3.0,)),
    "fact_pow": (fact_pow, (2.0, 3)),
    "newton_sqrt": (newton_sqrt, (4.0,)),
}


def square_then_sin(x):
    return jnp.sin(x * x)


def nested_calls(x):
    """A function calling another twice: each call gets its own vjp (or jvp) function."""
    y = square_then_sin(x)
    return square_then_sin(y) * x


def tanh_by_exp(x):
    """tanh written with exp: its second derivative is forward mode over the reverse sweep."""
    return (1.0 - jnp.exp(-2.0 * x)) / (1.0 + jnp.exp(-2.0 * x))


def cross_entropy(W, x, label):
    """A linear classifier's log-loss: softmax's derivative, written from its parts."""
    logits = W @ x
    log_probs = logits - jnp.log(jnp.sum(jnp.exp(logits)))
    return -log_probs[label]


def _second_derivative(fn):
    return astjax.grad(astjax.grad(fn))


_rows = np.linspace(-1.0, 1.0, 12, dtype=np.float32)

# Printed for the shapes of their example arguments: `astjax.source(transform(f), *args)`.
SPECIALIZED = {
    "rnn": (astjax.grad, rnn, (0.5 * np.eye(3, dtype=np.float32), _rows[:3], [_rows[3:6], _rows[6:9]])),
    "layer_loss": (astjax.grad, layer_loss,
                   (_rows.reshape(3, 4), _rows[:4], _rows[:6].reshape(2, 3), _rows[4:12].reshape(2, 4))),
    "nested_calls": (astjax.grad, nested_calls, (0.7,)),
    "nested_calls_forward": (astjax.jacfwd, nested_calls, (0.7,)),
    "tanh_by_exp_second_order": (_second_derivative, tanh_by_exp, (0.3,)),
    "cross_entropy": (astjax.grad, cross_entropy, (_rows.reshape(3, 4), _rows[4:8], 1)),
}


def main():
    for name, (fn, args) in EXAMPLES.items():
        grad_fn = astjax.grad(fn)
        print(f"grad({name}){args} = {float(grad_fn(*args))}")
        print(astjax.source(grad_fn))
    for name, (transform, fn, args) in SPECIALIZED.items():
        print(astjax.source(transform(fn), *args))


if __name__ == "__main__":
    main()
