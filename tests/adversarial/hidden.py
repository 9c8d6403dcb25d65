"""Values that reach a derivative by a side door: through an argument a rule might treat as a constant
(`clip`'s bounds, differentiated as JAX does), or as complex numbers, for which the real-number rules
would be wrong. Each is right or refused at the user's line (for a complex argument, with a TypeError
naming the input)."""
import numpy as np

import astjax.numpy as jnp

from .case import case, vec

COMPLEX_WEIGHTS = np.array([1 + 2j, 1j, 0.5 - 1j])


def clip_bound_depends_on_x(x):
    return jnp.sum(jnp.clip(np.array([0.5, 2.0, 3.0]), x[0], 10.0) * x)


case(clip_bound_depends_on_x, lambda r: (vec(r, 3) + 1.0,), "works")


def complex_literal(x):
    return jnp.sum(jnp.abs(x * (1 + 2j)) ** 2)


case(complex_literal, lambda r: (vec(r, 3),), "works")  # JAX's convention (analyses/complex_flow.py)


def complex_literal_in_its_own_line(x):
    c = 2.0 + 1j
    y = x * c
    return jnp.sum(jnp.real(y * jnp.conj(y)))


case(complex_literal_in_its_own_line, lambda r: (vec(r, 3),), "works")


def complex_cast(x):
    return jnp.sum(jnp.abs(x.astype(jnp.complex64)) ** 2)


case(complex_cast, lambda r: (vec(r, 3),), "refuse")


def complex_global(x):
    return jnp.sum(jnp.abs(x * COMPLEX_WEIGHTS) ** 2)


case(complex_global, lambda r: (vec(r, 3),), "refuse")


def complex_argument(x, c):
    return jnp.sum(jnp.abs(x * c) ** 2)


case(complex_argument, lambda r: (vec(r, 3), COMPLEX_WEIGHTS), "refuse", errors=(TypeError,))
