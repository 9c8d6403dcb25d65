"""Collectives over named vmap axes (lax.psum, pmean, pmax, all_gather, axis_index), vmap(grad) with
them, nested names, and scipy.special.comb under vmap. Each case has a plain NumPy twin as its oracle
(running the function itself would use astjax's vmap on both sides)."""
import numpy as np
import scipy.special as ss

import astjax
import astjax.numpy as jnp
from astjax import lax, vmap
from astjax.scipy import special

from .case import case, mat, scalar, vec


def _softmax_across(x):
    e = jnp.exp(x - lax.pmax(x, "i"))
    return e / lax.psum(e, "i")


def softmax_over_batch(w, xs):
    return jnp.sum(vmap(_softmax_across, axis_name="i")(w * xs) ** 2)


def softmax_over_batch_twin(w, xs):
    e = np.exp(w * xs - np.max(w * xs))
    return np.sum((e / e.sum()) ** 2)


case(softmax_over_batch, lambda r: (scalar(r), vec(r, 5)), "works", argnums=(0, 1),
     reference=softmax_over_batch_twin)


def _centered(x):
    return x - lax.pmean(x, "i")


def centered_energy(xs):
    return jnp.sum(jnp.sin(vmap(_centered, axis_name="i")(xs)) ** 2)


def centered_energy_twin(xs):
    return np.sum(np.sin(xs - xs.mean(0)) ** 2)


case(centered_energy, lambda r: (mat(r, 4, 3),), "works", reference=centered_energy_twin)


def _nested(x):
    return x * lax.psum(x, ("i", "j")) + lax.psum(x, "j") ** 2 - lax.pmean(x, "i")


def nested_names(xs):
    return jnp.sum(vmap(vmap(_nested, axis_name="j"), axis_name="i")(xs))


def nested_names_twin(xs):
    return np.sum(xs * xs.sum() + xs.sum(1, keepdims=True) ** 2 - xs.mean(0, keepdims=True))


case(nested_names, lambda r: (mat(r, 2, 3),), "works", reference=nested_names_twin)


def _indexed(x):
    return x * (1.0 + lax.axis_index("i"))


def index_weighted(xs):
    return jnp.sum(vmap(_indexed, axis_name="i")(xs) ** 2)


def index_weighted_twin(xs):
    return np.sum((xs * (1.0 + np.arange(xs.shape[0]))) ** 2)


case(index_weighted, lambda r: (vec(r, 4),), "works", reference=index_weighted_twin)


def _spread(x):
    return jnp.sum((lax.all_gather(x, "i") - x) ** 2)


def pairwise_spread(xs):
    return jnp.sum(vmap(_spread, axis_name="i")(xs))


def pairwise_spread_twin(xs):
    return np.sum((xs[None, :, :] - xs[:, None, :]) ** 2)


case(pairwise_spread, lambda r: (mat(r, 3, 2),), "works", reference=pairwise_spread_twin)


def _tree(a, b):
    s = lax.psum((a, b * b), "i")
    return s[0] * s[1]


def tree_psum(a, b):
    return jnp.sum(vmap(_tree, axis_name="i")(a, b))


def tree_psum_twin(a, b):
    return a.shape[0] * a.sum() * np.sum(b * b)


case(tree_psum, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1), reference=tree_psum_twin)


def _psum_square(x):
    return lax.psum(x * x, "i")


def _per_example_psum_grads(fn, args):
    """vmap(grad(f)) with psum in f: psum is its own transpose (JAX): 2 x * batch size."""
    (xs,) = args
    return [(vmap(astjax.grad(_psum_square), axis_name="i")(xs), 2 * xs * xs.shape[0], "vmap(grad(psum(x*x)))")]


def per_example_psum(xs):
    return jnp.sum(xs)


case(per_example_psum, lambda r: (vec(r, 4),), "works", mode="custom", check=_per_example_psum_grads)


def _comb_scaled(n, k, z):
    return special.comb(n, k) * z


def comb_batched(n, k, z):
    return jnp.sum(vmap(_comb_scaled)(n, k, z) ** 2)


def comb_batched_twin(n, k, z):
    return np.sum((ss.comb(n[:, None], k) * z[:, None]) ** 2)


case(comb_batched, lambda r: (vec(r, 4, 4.0, 8.0), vec(r, 16, 0.5, 3.5).reshape(4, 4), vec(r, 4)), "works",
     argnums=(0, 1, 2), reference=comb_batched_twin, rtol=1e-4)


# ---------------------------------------------------------------- refusals
def _unknown(x):
    return lax.psum(x, "k")


def unknown_axis_name(xs):
    return jnp.sum(vmap(_unknown, axis_name="i")(xs))


case(unknown_axis_name, lambda r: (vec(r, 3),), "refuse")


def _branchy(x):
    if x > 0:
        y = lax.psum(x, "i")
    else:
        y = x
    return y


def collective_in_batched_branch(xs):
    return jnp.sum(vmap(_branchy, axis_name="i")(xs))


case(collective_in_batched_branch, lambda r: (vec(r, 3),), "refuse")


def _peak(x):
    return lax.pmax(x * x, "i")


def pmax_gradient(xs):
    return jnp.sum(vmap(_peak, axis_name="i")(xs))


case(pmax_gradient, lambda r: (vec(r, 3),), "either", note="pmax has no derivative rule (nor in JAX)")
