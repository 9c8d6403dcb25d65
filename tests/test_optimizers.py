"""astjax.example_libraries.optimizers: two steps of each optimizer against the update written out by hand.

The parameters are a pytree (a dict holding an array and a tuple of arrays); each leaf must follow the
optimizer's formula independently. Schedules and clip_grads/l2_norm are checked against their definitions.
"""
import numpy as np
import pytest

from astjax.example_libraries import optimizers
from astjax.tree_util import tree_leaves, tree_map

rng = np.random.default_rng(3)
PARAMS = {"w": rng.standard_normal((2, 3)), "b": (rng.standard_normal(3), np.array(0.5))}
GRADS = [tree_map(lambda p: rng.standard_normal(np.shape(p)), PARAMS) for _ in range(2)]
LR = 0.1


def by_hand_sgd(x, gs):
    for g in gs:
        x = x - LR * g
    return x


def by_hand_momentum(x, gs, mass=0.9, nesterov=False):
    v = np.zeros_like(x)
    for g in gs:
        v = mass * v + g
        x = x - LR * (mass * v + g if nesterov else v)
    return x


def by_hand_adagrad(x, gs, mom=0.9):
    g_sq, m = np.zeros_like(x), np.zeros_like(x)
    for g in gs:
        g_sq = g_sq + g * g
        m = (1 - mom) * g / np.sqrt(g_sq) + mom * m
        x = x - LR * m
    return x


def by_hand_rmsprop(x, gs, gamma=0.9, eps=1e-8):
    avg = np.zeros_like(x)
    for g in gs:
        avg = gamma * avg + (1 - gamma) * g * g
        x = x - LR * g / np.sqrt(avg + eps)
    return x


def by_hand_rmsprop_momentum(x, gs, gamma=0.9, eps=1e-8, mom=0.9):
    avg, m = np.zeros_like(x), np.zeros_like(x)
    for g in gs:
        avg = gamma * avg + (1 - gamma) * g * g
        m = mom * m + LR * g / np.sqrt(avg + eps)
        x = x - m
    return x


def by_hand_adam(x, gs, b1=0.9, b2=0.999, eps=1e-8):
    m, v = np.zeros_like(x), np.zeros_like(x)
    for i, g in enumerate(gs):
        m = (1 - b1) * g + b1 * m
        v = (1 - b2) * g * g + b2 * v
        x = x - LR * (m / (1 - b1 ** (i + 1))) / (np.sqrt(v / (1 - b2 ** (i + 1))) + eps)
    return x


def by_hand_adamax(x, gs, b1=0.9, b2=0.999, eps=1e-8):
    m, u = np.zeros_like(x), np.zeros_like(x)
    for i, g in enumerate(gs):
        m = (1 - b1) * g + b1 * m
        u = np.maximum(b2 * u, np.abs(g))
        x = x - LR / (1 - b1 ** (i + 1)) * m / (u + eps)
    return x


def by_hand_sm3(x, gs, mom=0.9):
    shape = np.shape(x)
    x = np.atleast_1d(x)
    vs = [np.zeros(n) for n in x.shape]
    m = np.zeros_like(x)
    for g in gs:
        g = np.reshape(g, x.shape)
        accum = np.full(x.shape, np.inf)
        for k, v in enumerate(vs):
            accum = np.minimum(accum, np.expand_dims(v, tuple(a for a in range(x.ndim) if a != k)))
        accum = accum + g * g
        m = (1 - mom) * g / np.sqrt(accum) + mom * m
        x = x - LR * m
        vs = [accum.max(axis=tuple(a for a in range(x.ndim) if a != k)) for k in range(x.ndim)]
    return x.reshape(shape)


CASES = [
    ("sgd", optimizers.sgd(LR), by_hand_sgd),
    ("momentum", optimizers.momentum(LR, 0.9), by_hand_momentum),
    ("nesterov", optimizers.nesterov(LR, 0.9), lambda x, gs: by_hand_momentum(x, gs, nesterov=True)),
    ("adagrad", optimizers.adagrad(LR), by_hand_adagrad),
    ("rmsprop", optimizers.rmsprop(LR), by_hand_rmsprop),
    ("rmsprop_momentum", optimizers.rmsprop_momentum(LR), by_hand_rmsprop_momentum),
    ("adam", optimizers.adam(LR), by_hand_adam),
    ("adamax", optimizers.adamax(LR), by_hand_adamax),
    ("sm3", optimizers.sm3(LR), by_hand_sm3),
]


@pytest.mark.parametrize("name,opt,by_hand", CASES, ids=[c[0] for c in CASES])
def test_two_steps_match_the_formula(name, opt, by_hand):
    init, update, get_params = opt
    state = init(PARAMS)
    for i, g in enumerate(GRADS):
        state = update(i, g, state)
    got = get_params(state)
    expected = tree_map(lambda x, g0, g1: by_hand(x, [g0, g1]), PARAMS, *GRADS)
    assert set(got) == set(PARAMS)
    for a, b in zip(tree_leaves(got), tree_leaves(expected)):
        assert np.shape(a) == np.shape(b)
        np.testing.assert_allclose(np.asarray(a), b, rtol=1e-12, atol=1e-14)


def test_float32_parameters_stay_float32():
    init, update, get_params = optimizers.adam(1e-2)
    x = np.ones(3, dtype=np.float32)
    state = update(0, np.ones(3, dtype=np.float32), init(x))
    assert np.asarray(get_params(state)).dtype == np.float32


def test_a_gradient_of_another_structure_is_an_error():
    init, update, _ = optimizers.sgd(LR)
    with pytest.raises(TypeError, match="tree structure"):
        update(0, {"w": np.ones((2, 3))}, init(PARAMS))


def test_schedules():
    assert optimizers.constant(0.3)(17) == 0.3
    assert optimizers.exponential_decay(1.0, 10, 0.5)(20) == pytest.approx(0.25)
    assert optimizers.inverse_time_decay(1.0, 10, 1.0)(5) == pytest.approx(1 / 1.5)
    assert optimizers.inverse_time_decay(1.0, 10, 1.0, staircase=True)(15) == pytest.approx(0.5)
    poly = optimizers.polynomial_decay(1.0, 10, 0.1, power=2.0)
    assert poly(5) == pytest.approx(0.25 * 0.9 + 0.1) and poly(50) == pytest.approx(0.1)
    piece = optimizers.piecewise_constant([5, 10], [1.0, 0.5, 0.1])
    assert [float(piece(i)) for i in (0, 5, 6, 10, 11)] == [1.0, 1.0, 0.5, 0.5, 0.1]
    with pytest.raises(ValueError):
        optimizers.piecewise_constant([5, 10], [1.0, 0.5])
    init, update, get_params = optimizers.sgd(optimizers.piecewise_constant([0], [1.0, 0.5]))
    state = update(1, np.ones(2), update(0, np.ones(2), init(np.zeros(2))))
    np.testing.assert_allclose(get_params(state), [-1.5, -1.5])


def test_clip_grads_and_l2_norm():
    norm = np.sqrt(sum(np.sum(np.square(leaf)) for leaf in tree_leaves(GRADS[0])))
    assert float(optimizers.l2_norm(GRADS[0])) == pytest.approx(norm)
    clipped = optimizers.clip_grads(GRADS[0], norm / 2)
    assert float(optimizers.l2_norm(clipped)) == pytest.approx(norm / 2)
    for a, b in zip(tree_leaves(clipped), tree_leaves(GRADS[0])):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b) / 2, rtol=1e-12)
    unchanged = optimizers.clip_grads(GRADS[0], norm * 2)
    for a, b in zip(tree_leaves(unchanged), tree_leaves(GRADS[0])):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b))


def test_state_unpacks_and_packs_back():
    init, update, get_params = optimizers.momentum(LR, 0.5)
    state = update(0, GRADS[0], init(PARAMS))
    again = optimizers.pack_optimizer_state(optimizers.unpack_optimizer_state(state))
    for a, b in zip(tree_leaves(get_params(update(1, GRADS[1], again))),
                    tree_leaves(get_params(update(1, GRADS[1], state)))):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
