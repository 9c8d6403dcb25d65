"""Wrong numbers found by sweeping every rule case through vmap and grad (tests/test_primitive_sweep.py):
a batch size equal to a per-example length (dot with a per-example scalar, a reduction of a list of
batched arrays broadcast the batch against the wrong axis), and a folded negative constant base
`(-1.0) ** n` printed without its parentheses. Expected values come from running the function per
example."""
import numpy as np

import astjax
import astjax.numpy as jnp

from .case import case, vec


def negative_base_sign(x, n):
    return jnp.sum((-1.0) ** n * x * x)


case(negative_base_sign, lambda r: (vec(r, 3), 2.0), "works", name="negative_constant_base_power",
     jvp=False, note="n is a fixed exponent: no tangent in n (the jvp would move it off the integers)")


def scaled_by_dot(s, v):
    return jnp.dot(s, v)


def _vmap_dot_scalar(fn, args):
    s = np.array([0.5, -1.0, 2.0])
    v = np.stack([args[0], 2.0 * args[0], -args[0]])          # batch 3 of length-3 vectors
    expected = np.stack([fn(s[b], v[b]) for b in range(3)])
    return [(astjax.vmap(fn)(s, v), expected, "vmap(dot(scalar, vector)), batch 3 = length 3")]


case(scaled_by_dot, lambda r: (vec(r, 3),), "works", mode="custom", check=_vmap_dot_scalar,
     name="vmap_dot_per_example_scalar")


def max_of_list(x, y):
    return jnp.max([x, y * 2.0], axis=0)


def _vmap_list_reduction(fn, args):
    x = np.stack([args[0], 3.0 * args[0]])
    y = np.stack([-args[0], args[0] + 1.0])
    expected = np.stack([fn(x[b], y[b]) for b in range(2)])
    return [(astjax.vmap(fn)(x, y), expected, "vmap(max of a list of batched arrays)")]


case(max_of_list, lambda r: (vec(r, 2),), "works", mode="custom", check=_vmap_list_reduction,
     name="vmap_reduction_of_a_list")
