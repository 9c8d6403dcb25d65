"""astjax.lax: JAX's lower-level operations with their JAX names and arguments.

Loop combinators (`fori_loop`, `while_loop`, `scan`, `cond`) run their Python
bodies directly. Inside a transformed function they become the Python loops
and branches they stand for (frontend/normalize/lax_control_flow.py), so code
written for JAX differentiates like any loop; astjax does not need them.
"""
import numpy as np

from .array import wrap

__all__ = ["dynamic_slice", "dynamic_update_slice", "select", "fori_loop", "while_loop", "cond", "scan"]


def _starts(shape, sizes, start_indices):
    if len(start_indices) != len(shape) or len(sizes) != len(shape):
        raise ValueError(
            f"dynamic_slice: operand has {len(shape)} dimensions but got {len(start_indices)} start "
            f"indices and {len(sizes)} slice sizes; pass one of each per dimension.")
    starts = []
    for s, n, k in zip(start_indices, shape, sizes):
        if k > n:
            raise ValueError(f"dynamic_slice: slice size {k} is larger than the dimension {n}.")
        starts.append(int(min(max(int(s), 0), n - k)))   # JAX clamps starts into range
    return starts


def dynamic_slice(operand, start_indices, slice_sizes):
    """`operand[s0:s0+n0, s1:s1+n1, ...]` with runtime starts, clamped into range as in JAX."""
    operand = np.asarray(operand)
    starts = _starts(operand.shape, slice_sizes, start_indices)
    return wrap(operand[tuple(slice(s, s + k) for s, k in zip(starts, slice_sizes))])


def dynamic_update_slice(operand, update, start_indices):
    """A copy of `operand` with `update` written at `start_indices` (clamped as in JAX)."""
    operand = np.array(operand)
    update = np.asarray(update)
    starts = _starts(operand.shape, update.shape, start_indices)
    operand[tuple(slice(s, s + k) for s, k in zip(starts, update.shape))] = update
    return wrap(operand)


def select(pred, on_true, on_false):
    """Elementwise `on_true if pred else on_false`."""
    return wrap(np.where(pred, on_true, on_false))


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


def scan(f, init, xs, length=None):
    """Carry `init` through `f(carry, x)` over the leading axis of `xs`; stack the outputs."""
    from .tree_util import tree_map
    carry = init
    n = length if xs is None else len(xs)
    ys = []
    for i in range(n):
        carry, y = f(carry, None if xs is None else xs[i])
        ys.append(y)
    stacked = tree_map(lambda *leaves: wrap(np.stack(leaves)), *ys) if ys else None
    return carry, stacked
