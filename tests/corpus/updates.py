"""Arrays built and updated in loops: `.at[i].set(...)`, `out = out.at[i].add(...)`,
and NumPy-style item updates (`y[i] += x`, `y[i] = e`) on local arrays, which
astjax turns into functional updates.

Functions that update items in place start from a local NumPy array
(`np.zeros`), so they also run unchanged without astjax.
"""
import numpy as np

import astjax.numpy as jnp

from .registry import entry, mat, scalar, vec


@entry(args=lambda r: (vec(r, 5), 5), argnums=0, tags={"at_set", "for_range", "loop_carried_array", "int_arg"})
def squares_with_at_set(x, n):
    out = jnp.zeros_like(x)
    for i in range(n):
        out = out.at[i].set(x[i] ** 2 * jnp.sin(x[i]))
    return jnp.sum(out * x)


@entry(args=lambda r: (vec(r, 6), 6), argnums=0, tags={"at_add", "for_range", "loop_carried_array", "int_arg"})
def pairwise_at_add(x, n):
    out = jnp.zeros_like(x)
    for i in range(n - 1):
        out = out.at[i].add(x[i] * x[i + 1])
        out = out.at[i + 1].add(jnp.cos(x[i]))
    return jnp.sum(out ** 2)


@entry(args=lambda r: (vec(r, 6), 6), argnums=0, tags={"at_set", "cumulative", "loop_carried_array", "read_after_write", "int_arg"})
def cumulative_sum_at_set(x, n):
    out = jnp.zeros_like(x)
    out = out.at[0].set(x[0])
    for i in range(1, n):
        out = out.at[i].set(out[i - 1] * 0.9 + x[i])
    return jnp.sum(out * out)


@entry(args=lambda r: (vec(r, 4),), tags={"at_set", "straight_line"})
def at_set_on_input(x):
    y = x.at[0].set(x[1] * 2.0)
    y = y.at[2].multiply(x[3])
    return jnp.sum(y * y)


@entry(args=lambda r: (vec(r, 5), 5), argnums=0, tags={"item_augassign", "local_array", "for_range", "int_arg"})
def item_add_on_local_array(x, n):
    y = np.zeros(n)
    for i in range(n):
        y[i] += x[i] * x[i]
        y[i] += jnp.sin(x[i])
    return jnp.sum(y * x)


@entry(args=lambda r: (vec(r, 5), 5), argnums=0, tags={"item_assign", "local_array", "for_range", "int_arg"})
def item_assign_on_local_array(x, n):
    y = np.zeros(n)
    for i in range(n):
        y[i] = jnp.exp(x[i]) - x[i]
    return jnp.sum(y ** 2)


@entry(args=lambda r: (vec(r, 4), 4), argnums=0, tags={"item_augassign", "local_array", "multiply", "int_arg"})
def item_multiply_on_local_array(x, n):
    y = np.ones(n)
    for i in range(n):
        y[i] *= x[i] + 2.0
        y[i] -= x[i] * 0.5
    return jnp.prod(y)


@entry(args=lambda r: (mat(r, 3, 3), 3), argnums=0, tags={"at_set", "2d", "nested_loops", "int_arg"})
def transpose_by_at_set(a, n):
    out = jnp.zeros_like(a)
    for i in range(n):
        for j in range(n):
            out = out.at[j, i].set(a[i, j] * (i + 1.0))
    return jnp.sum(out * a)


@entry(args=lambda r: (vec(r, 4), 4), argnums=0, tags={"at_set", "row_update", "2d", "int_arg"})
def rows_with_at_set(x, n):
    out = jnp.zeros((n, n), dtype=x.dtype)
    for i in range(n):
        out = out.at[i].set(x * (i + 1.0))
    return jnp.sum(jnp.tanh(out))


@entry(args=lambda r: (vec(r, 6), 6), argnums=0, tags={"at_set", "slice_update", "int_arg"})
def slice_update_with_at(x, n):
    y = jnp.zeros_like(x)
    y = y.at[: n // 2].set(x[: n // 2] * 2.0)
    y = y.at[n // 2:].add(jnp.sin(x[n // 2:]))
    return jnp.sum(y * x)


@entry(args=lambda r: (scalar(r, 0.3, 0.8), 6), argnums=0, tags={"at_set", "scalar_input", "recurrence", "int_arg"})
def recurrence_into_array(x, n):
    seq = jnp.zeros(n, dtype=x.dtype)
    seq = seq.at[0].set(x)
    for i in range(1, n):
        seq = seq.at[i].set(jnp.sin(seq[i - 1]) + x * seq[i - 1])
    return jnp.sum(seq)


@entry(args=lambda r: (vec(r, 3), scalar(r, 0.05, 0.2), 5), argnums=(0, 1),
       tags={"loop_carried_array", "euler", "for_range", "int_arg"})
def euler_integration(x0, dt, n):
    x = x0
    v = x0 * 0.0
    for i in range(n):
        a = -jnp.sin(x)
        v = v + dt * a
        x = x + dt * v
    return jnp.sum(x * x + v)
