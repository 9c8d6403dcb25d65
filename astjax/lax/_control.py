"""lax's control flow: fori_loop, while_loop, cond, scan, switch, map.

Combinators (`fori_loop`, `while_loop`, `scan`, `cond`, `switch`, `map`) run their Python
bodies directly. Inside a transformed function they become the Python loops
and branches they stand for (frontend/normalize/lax_control_flow.py), so code
written for JAX differentiates like any loop; astjax does not need them.
"""
import numpy as np

from ..array import wrap

__all__ = ["fori_loop", "while_loop", "cond", "scan", "switch", "map"]


def fori_loop(lower, upper, body_fun, init_val):
    """`for i in range(lower, upper): val = body_fun(i, val)`."""
    val = init_val
    for i in range(int(lower), int(upper)):
        val = body_fun(i, val)
    return val


def while_loop(cond_fun, body_fun, init_val):
    """`while cond_fun(val): val = body_fun(val)`."""
    val = init_val
    while cond_fun(val):
        val = body_fun(val)
    return val


def cond(pred, true_fun, false_fun, *operands):
    """`true_fun(*operands) if pred else false_fun(*operands)`."""
    return true_fun(*operands) if pred else false_fun(*operands)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Carry `init` through `f(carry, x)` over the leading axis of `xs` (an array or a pytree of arrays,
    sliced together; None with `length` steps); stack the outputs leaf by leaf. With reverse=True the
    items are visited last first, and the outputs still stand in the order of xs. (`unroll` is a
    compilation hint in JAX; it changes nothing here.)"""
    from ..tree_util import tree_leaves, tree_map
    from ._scan_outputs import scan_carry_check
    carry = init
    leaves = tree_leaves(xs) if xs is not None else []
    if not leaves and length is None:
        raise ValueError("lax.scan: with no xs, pass length=")
    n = length if not leaves else len(leaves[0])
    if any(len(leaf) != n for leaf in leaves) or (length is not None and length != n):
        raise ValueError(f"lax.scan: the leaves of xs have different leading sizes {[len(l) for l in leaves]}"
                         + ("" if length is None else f" (length={length})"))
    ys = []
    for i in (range(n - 1, -1, -1) if reverse else range(n)):
        carry, y = f(carry, None if xs is None else tree_map(lambda leaf: leaf[i], xs))
        scan_carry_check(carry, init)
        ys.append(y)
    if reverse:
        ys.reverse()
    stacked = tree_map(lambda *leaves: wrap(np.stack(leaves)), *ys) if ys else None
    return carry, stacked


def switch(index, branches, *operands):
    """`branches[index](*operands)`, the index clamped into range as in JAX."""
    index = int(min(max(int(index), 0), len(branches) - 1))
    return branches[index](*operands)


def map(f, xs):
    """`f` applied to each slice of `xs` along its leading axis, the results stacked (lax.map)."""
    _, ys = scan(lambda carry, x: (carry, f(x)), None, xs)
    return ys
