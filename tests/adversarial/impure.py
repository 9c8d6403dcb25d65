"""Impure code: NumPy's global random state (in the function and in callees), side
effects in callees. The gradient must belong to the sample the primal drew.

Each random case is checked with the global state seeded before every run: the
value of value_and_grad must equal the seeded original function, and the
gradient the finite differences of the seeded function (same draws each run).
"""
import numpy as np

import astjax
import astjax.numpy as jnp

from .case import case, vec
from .harness import fd_grad, fd_directional

_SEED = 1234


def _seeded(fn):
    def run(*args):
        np.random.seed(_SEED)
        return fn(*args)
    return run


def _check_seeded(fn, args):
    np.random.seed(_SEED)
    value, grad = astjax.value_and_grad(fn)(*args)
    seeded = _seeded(fn)
    out = [(value, seeded(*args), "value of value_and_grad (seeded)"),
           (grad, fd_grad(seeded, args, 0)[0], "grad (seeded) vs finite differences of the seeded function")]
    t = np.random.default_rng(5).standard_normal(np.shape(args[0]))
    np.random.seed(_SEED)
    primal, tangent = astjax.jvp(fn, tuple(args), (t,) + tuple(np.zeros_like(a) for a in args[1:]))
    out.append((primal, seeded(*args), "primal of jvp (seeded)"))
    out.append((tangent, fd_directional(seeded, args, [t] + list(args[1:]), (0,))[0], "jvp (seeded) vs FD"))
    return out


def _sample_noise(shape):
    return np.random.randn(*shape)


def vae_reparameterized_in_callee(mu):
    eps = _sample_noise(mu.shape)
    z = mu + 0.5 * eps
    return np.sum(z ** 2)


case(vae_reparameterized_in_callee, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_seeded)


def random_in_function_body(mu):
    eps = np.random.randn(3)
    return np.sum((mu + eps) ** 2)


case(random_in_function_body, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_seeded)


def _noisy_layer(h):
    return np.tanh(h + 0.1 * np.random.randn(*h.shape))


def random_callee_in_loop(x):
    h = x
    for _ in range(3):
        h = _noisy_layer(h)
    return np.sum(h ** 2)


case(random_callee_in_loop, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_seeded)


def _dropout(h, rate):
    mask = np.random.rand(*h.shape) > rate
    return h * mask / (1.0 - rate)


def dropout_in_callee(x):
    return np.sum(np.sin(_dropout(x * 2.0, 0.5)))


case(dropout_in_callee, lambda r: (vec(r, 6),), "either", mode="custom", check=_check_seeded)


def random_permutation_index(x):
    idx = np.random.permutation(4)
    return np.sum(x[idx] * np.arange(4.0))


case(random_permutation_index, lambda r: (vec(r, 4),), "either", mode="custom", check=_check_seeded)


def gan_like_two_draws(theta):
    z1 = _sample_noise((3,))
    fake = np.tanh(theta * z1)
    z2 = _sample_noise((3,))
    return np.sum((fake - z2) ** 2)


case(gan_like_two_draws, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_seeded)


def _rng_noise(shape):
    rng = np.random.default_rng(42)
    return rng.standard_normal(shape)


def fixed_seed_generator_in_callee(x):
    return np.sum((x + _rng_noise(x.shape)) ** 2)


case(fixed_seed_generator_in_callee, lambda r: (vec(r, 3),), "works")


def explicit_key_random(x):
    key = astjax.random.PRNGKey(0)
    eps = astjax.random.normal(key, (3,))
    return jnp.sum((x + eps) ** 2)


case(explicit_key_random, lambda r: (vec(r, 3),), "works")


_CALL_LOG = []


def _logged_square(v):
    _CALL_LOG.append(1)
    return v * v


def side_effect_in_callee(x):
    return jnp.sum(_logged_square(x) * 2.0)


case(side_effect_in_callee, lambda r: (vec(r, 3),), "either",
     note="the log does not change the value; refusing a callee that changes global state is allowed")


def _counter_scale(v):
    _CALL_LOG.append(1)
    return v * float(len(_CALL_LOG) % 2 + 1)


def callee_result_depends_on_call_count(x):
    _CALL_LOG.clear()
    a = _counter_scale(x)
    return jnp.sum(a * x)


case(callee_result_depends_on_call_count, lambda r: (vec(r, 3),), "either",
     note="re-running the callee in the reverse sweep changes its result")


_STATE = {"w": 1.0}


def _stateful_update(v):
    _STATE["w"] = _STATE["w"] * 2.0
    return v * _STATE["w"]


def global_state_mutated_by_callee(x):
    _STATE["w"] = 1.0
    return jnp.sum(_stateful_update(x) ** 2)


case(global_state_mutated_by_callee, lambda r: (vec(r, 3),), "either")


def print_in_function(x):
    y = jnp.sum(x ** 2)
    print("loss", y)
    return y


case(print_in_function, lambda r: (vec(r, 3),), "works")


def _maybe_noise(v, flag):
    if flag:
        return v + np.random.randn(*v.shape)
    return v * 2.0


def random_callee_on_untaken_branch(x):
    return np.sum(_maybe_noise(x, False) ** 2)


case(random_callee_on_untaken_branch, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_seeded)


def random_in_loop_body(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum((x + 0.1 * np.random.randn(3)) ** 2) * (i + 1.0)
    return s


case(random_in_loop_body, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_seeded)


def _unseeded_generator_noise(shape):
    return np.random.default_rng().standard_normal(shape)


def unseeded_generator_in_callee(x):
    eps = _unseeded_generator_noise(x.shape)
    return np.sum(x ** 2 + 0.0 * eps)


case(unseeded_generator_in_callee, lambda r: (vec(r, 3),), "either",
     note="fresh entropy each call; the value does not depend on it (0.0 * eps)")


def _scale_by_random_choice(v):
    k = np.random.randint(1, 4)
    return v * k


def random_integer_in_callee(x):
    return np.sum(_scale_by_random_choice(x) ** 2)


case(random_integer_in_callee, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_seeded)
