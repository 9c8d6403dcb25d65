"""Optimizers as in jax.example_libraries.optimizers: (init_fun, update_fun, get_params) over pytrees.

    from astjax.example_libraries import optimizers

    opt_init, opt_update, get_params = optimizers.adam(1e-3)
    state = opt_init(params)
    for i in range(steps):
        state = opt_update(i, astjax.grad(loss)(get_params(state), batch), state)

Each optimizer is written for one array (`init(x0)`, `update(i, g, state)`,
`get_params(state)`) and lifted to pytrees of arrays by `optimizer`, which
flattens the parameters and keeps one state per leaf (`OptimizerState`). A
step size may be a number or a schedule `i -> step size` (`constant`,
`exponential_decay`, `inverse_time_decay`, `polynomial_decay`,
`piecewise_constant`). The update rules are JAX's, line for line, so a
training loop ported from JAX takes the same steps.
"""
import functools
from collections import namedtuple

import numpy as np

from .. import numpy as jnp
from ..tree_util import register_pytree_node, tree_flatten, tree_map, tree_unflatten

__all__ = ["Optimizer", "OptimizerState", "optimizer", "sgd", "momentum", "nesterov", "adagrad", "rmsprop",
           "rmsprop_momentum", "adam", "adamax", "sm3", "constant", "exponential_decay", "inverse_time_decay",
           "polynomial_decay", "piecewise_constant", "make_schedule", "l2_norm", "clip_grads",
           "unpack_optimizer_state", "pack_optimizer_state"]

Optimizer = namedtuple("Optimizer", ["init_fn", "update_fn", "params_fn"])
OptimizerState = namedtuple("OptimizerState", ["packed_state", "tree_def", "subtree_defs"])
# An optimizer state is a pytree whose leaves are the per-parameter states (as in JAX).
register_pytree_node(OptimizerState, lambda s: ((s.packed_state,), (s.tree_def, s.subtree_defs)),
                     lambda data, xs: OptimizerState(xs[0], data[0], data[1]))


def optimizer(opt_maker):
    """Lift an optimizer for one array (`opt_maker(...) -> (init, update, get_params)`) to pytrees of arrays."""
    @functools.wraps(opt_maker)
    def tree_opt_maker(*args, **kwargs):
        init, update, get_params = opt_maker(*args, **kwargs)

        @functools.wraps(init)
        def tree_init(x0_tree):
            x0_flat, tree = tree_flatten(x0_tree)
            initial_states = [init(x0) for x0 in x0_flat]
            states_flat, subtrees = _unzip(tree_flatten(s) for s in initial_states)
            return OptimizerState(states_flat, tree, subtrees)

        @functools.wraps(update)
        def tree_update(i, grad_tree, opt_state):
            states_flat, tree, subtrees = opt_state
            grad_flat, tree2 = tree_flatten(grad_tree)
            if tree2 != tree:
                raise TypeError(f"optimizer update: the gradient's tree structure {tree2} differs from the "
                                f"parameters' {tree}")
            states = [tree_unflatten(s, f) for s, f in zip(subtrees, states_flat)]
            new_states = [update(i, g, state) for g, state in zip(grad_flat, states)]
            new_states_flat, subtrees2 = _unzip(tree_flatten(s) for s in new_states)
            for s1, s2 in zip(subtrees, subtrees2):
                if s2 != s1:
                    raise TypeError(f"optimizer update changed a state's structure from {s1} to {s2}")
            return OptimizerState(new_states_flat, tree, subtrees)

        @functools.wraps(get_params)
        def tree_get_params(opt_state):
            states_flat, tree, subtrees = opt_state
            states = [tree_unflatten(s, f) for s, f in zip(subtrees, states_flat)]
            return tree_unflatten(tree, [get_params(s) for s in states])

        return Optimizer(tree_init, tree_update, tree_get_params)
    return tree_opt_maker


def _unzip(pairs):
    firsts, seconds = [], []
    for a, b in pairs:
        firsts.append(a)
        seconds.append(b)
    return firsts, seconds


# --------------------------------------------------------------- optimizers
@optimizer
def sgd(step_size):
    """Stochastic gradient descent: x <- x - step_size(i) * g."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0

    def update(i, g, x):
        return x - step_size(i) * g

    def get_params(x):
        return x
    return init, update, get_params


@optimizer
def momentum(step_size, mass):
    """Heavy-ball momentum: v <- mass * v + g; x <- x - step_size(i) * v."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        x = x - step_size(i) * velocity
        return x, velocity

    def get_params(state):
        return state[0]
    return init, update, get_params


@optimizer
def nesterov(step_size, mass):
    """Nesterov's accelerated gradient: v <- mass * v + g; x <- x - step_size(i) * (mass * v + g)."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, velocity = state
        velocity = mass * velocity + g
        x = x - step_size(i) * (mass * velocity + g)
        return x, velocity

    def get_params(state):
        return state[0]
    return init, update, get_params


@optimizer
def adagrad(step_size, momentum=0.9):
    """Adagrad with momentum: steps scaled by the inverse root of the summed squared gradients."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, g_sq, m = state
        g_sq = g_sq + jnp.square(g)
        g_sq_inv_sqrt = jnp.where(g_sq > 0, 1.0 / jnp.sqrt(jnp.where(g_sq > 0, g_sq, 1.0)), 0.0)
        m = (1.0 - momentum) * (g * g_sq_inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        return x, g_sq, m

    def get_params(state):
        return state[0]
    return init, update, get_params


@optimizer
def rmsprop(step_size, gamma=0.9, eps=1e-8):
    """RMSProp: steps scaled by the root of a running mean of squared gradients."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        x = x - step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        return x, avg_sq_grad

    def get_params(state):
        return state[0]
    return init, update, get_params


@optimizer
def rmsprop_momentum(step_size, gamma=0.9, eps=1e-8, momentum=0.9):
    """RMSProp with momentum on the scaled steps."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, avg_sq_grad, mom = state
        avg_sq_grad = avg_sq_grad * gamma + jnp.square(g) * (1.0 - gamma)
        mom = momentum * mom + step_size(i) * g / jnp.sqrt(avg_sq_grad + eps)
        x = x - mom
        return x, avg_sq_grad, mom

    def get_params(state):
        return state[0]
    return init, update, get_params


def _power(base, i, like):
    """base ** (i + 1) in the dtype of `like` (as JAX's adam computes its bias corrections)."""
    return np.asarray(base, dtype=np.result_type(like)) ** (i + 1)


@optimizer
def adam(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """Adam (Kingma and Ba): bias-corrected running means of the gradient and its square."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, v = state
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * jnp.square(g) + b2 * v
        mhat = m / (1 - _power(b1, i, m))
        vhat = v / (1 - _power(b2, i, m))
        x = x - step_size(i) * mhat / (jnp.sqrt(vhat) + eps)
        return x, m, v

    def get_params(state):
        return state[0]
    return init, update, get_params


@optimizer
def adamax(step_size, b1=0.9, b2=0.999, eps=1e-8):
    """AdaMax: Adam with the infinity norm of past gradients."""
    step_size = make_schedule(step_size)

    def init(x0):
        return x0, jnp.zeros_like(x0), jnp.zeros_like(x0)

    def update(i, g, state):
        x, m, u = state
        m = (1 - b1) * g + b1 * m
        u = jnp.maximum(b2 * u, jnp.abs(g))
        x = x - (step_size(i) / (1 - _power(b1, i, m))) * m / (u + eps)
        return x, m, u

    def get_params(state):
        return state[0]
    return init, update, get_params


@optimizer
def sm3(step_size, momentum=0.9):
    """SM3 (Anil et al.): Adagrad with one accumulator per row, column, ... instead of per element."""
    step_size = make_schedule(step_size)

    def broadcast_into(ndim, v, axis):
        index = [None] * ndim
        index[axis] = slice(None)
        return v[tuple(index)]

    def init(x0):
        x_shape = np.shape(x0)
        x0 = jnp.reshape(x0, (1,)) if np.ndim(x0) == 0 else x0
        vs = [jnp.zeros(n, dtype=np.result_type(x0)) for n in np.shape(x0)]
        return x0, jnp.zeros_like(x0), vs, x_shape

    def update(i, g, state):
        x, m, vs, x_shape = state
        g = jnp.reshape(g, np.shape(x))
        spread = [broadcast_into(np.ndim(g), v, k) for k, v in enumerate(vs)]
        accum = functools.reduce(jnp.minimum, spread) + jnp.square(g)
        accum_inv_sqrt = jnp.where(accum > 0, 1.0 / jnp.sqrt(jnp.where(accum > 0, accum, 1.0)), 0.0)
        m = (1.0 - momentum) * (g * accum_inv_sqrt) + momentum * m
        x = x - step_size(i) * m
        vs = [jnp.max(accum, axis=tuple(a for a in range(np.ndim(x)) if a != k)) for k in range(np.ndim(x))]
        return x, m, vs, x_shape

    def get_params(state):
        x, _, _, x_shape = state
        return jnp.reshape(x, x_shape)
    return init, update, get_params


# ----------------------------------------------------------------- schedules
def constant(step_size):
    """The same step size at every step."""
    def schedule(i):
        return step_size
    return schedule


def exponential_decay(step_size, decay_steps, decay_rate):
    """step_size * decay_rate ** (i / decay_steps)."""
    def schedule(i):
        return step_size * decay_rate ** (i / decay_steps)
    return schedule


def inverse_time_decay(step_size, decay_steps, decay_rate, staircase=False):
    """step_size / (1 + decay_rate * i / decay_steps), the ratio floored when staircase=True."""
    if staircase:
        def schedule(i):
            return step_size / (1 + decay_rate * np.floor(i / decay_steps))
    else:
        def schedule(i):
            return step_size / (1 + decay_rate * i / decay_steps)
    return schedule


def polynomial_decay(step_size, decay_steps, final_step_size, power=1.0):
    """From step_size to final_step_size over decay_steps steps along (1 - i / decay_steps) ** power."""
    def schedule(step_num):
        step_num = np.minimum(step_num, decay_steps)
        step_mult = (1 - step_num / decay_steps) ** power
        return step_mult * (step_size - final_step_size) + final_step_size
    return schedule


def piecewise_constant(boundaries, values):
    """values[k] for steps i with boundaries[k-1] < i <= boundaries[k] (values has one entry more)."""
    boundaries = np.asarray(boundaries)
    values = np.asarray(values)
    if not boundaries.ndim == values.ndim == 1:
        raise ValueError("boundaries and values must be sequences")
    if not boundaries.shape[0] == values.shape[0] - 1:
        raise ValueError("boundaries length must be one shorter than values length")

    def schedule(i):
        return values[int(np.sum(i > boundaries))]
    return schedule


def make_schedule(scalar_or_schedule):
    """A schedule from a schedule or a number (constant)."""
    if callable(scalar_or_schedule):
        return scalar_or_schedule
    if np.ndim(scalar_or_schedule) == 0:
        return constant(scalar_or_schedule)
    raise TypeError(type(scalar_or_schedule))


# --------------------------------------------------------------- utilities
def l2_norm(tree):
    """The l2 norm of all the leaves of a pytree, taken together."""
    leaves, _ = tree_flatten(tree)
    return jnp.sqrt(sum(jnp.vdot(x, x) for x in leaves))


def clip_grads(grad_tree, max_norm):
    """The gradients scaled down so that their joint l2 norm is at most max_norm."""
    norm = l2_norm(grad_tree)

    def normalize(g):
        return jnp.where(norm < max_norm, g, g * (max_norm / norm))
    return tree_map(normalize, grad_tree)


def unpack_optimizer_state(opt_state):
    """The optimizer state as a pytree of plain values (for saving): a list of per-parameter states."""
    states_flat, tree, subtrees = opt_state
    states = [tree_unflatten(s, f) for s, f in zip(subtrees, states_flat)]
    return tree, states


def pack_optimizer_state(marked_pytree):
    """The inverse of unpack_optimizer_state."""
    tree, states = marked_pytree
    states_flat, subtrees = _unzip(tree_flatten(s) for s in states)
    return OptimizerState(states_flat, tree, subtrees)
