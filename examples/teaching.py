"""Teaching examples: a loop, a branch and a recursion, with the derivative astjax writes for each.

Run `python examples/teaching.py` to print each function's gradient and generated source.
tests/test_snapshots.py keeps the printed sources stable, so a change to how
derivatives read shows up in review.
"""
import astjax


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


EXAMPLES = {
    "power_loop": (power_loop, (1.5, 4)),
    "relu_branch": (relu_branch, (3.0,)),
    "fact_pow": (fact_pow, (2.0, 3)),
    "newton_sqrt": (newton_sqrt, (4.0,)),
}


def main():
    for name, (fn, args) in EXAMPLES.items():
        grad_fn = astjax.grad(fn)
        print(f"grad({name}){args} = {float(grad_fn(*args))}")
        print(astjax.source(grad_fn))


if __name__ == "__main__":
    main()
