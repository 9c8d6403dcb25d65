"""The API examples run at small size: examples/mlp_adam.py trains above 90% accuracy, examples/wave.py's
gradient through time matches central differences."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import astjax.numpy as jnp
from astjax.errors import AstjaxError
from astjax.rules import classification

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_mlp_trained_with_adam_classifies_the_rings():
    mlp = _load("mlp_adam")
    params, losses, accuracy = mlp.train(steps=60, n=150)
    assert losses[-1] < 0.5 * losses[0]
    assert accuracy > 0.9
    assert all(np.asarray(w).dtype == np.float32 for layer in params for w in layer)


def test_mlp_gradient_matches_finite_differences():
    mlp = _load("mlp_adam")
    x, y = mlp.make_data(20)
    params = [tuple(np.asarray(p, dtype=np.float64) for p in layer) for layer in mlp.init_params([2, 4, 1])]
    import astjax
    grads = astjax.grad(mlp.loss)(params, x.astype(np.float64), y.astype(np.float64))
    w = params[0][0]
    eps = 1e-6
    for i, j in ((0, 0), (1, 3)):
        up = [(layer[0].copy(), layer[1]) for layer in params]
        down = [(layer[0].copy(), layer[1]) for layer in params]
        up[0][0][i, j] += eps
        down[0][0][i, j] -= eps
        numeric = (float(mlp.loss(up, x, y)) - float(mlp.loss(down, x, y))) / (2 * eps)
        assert float(grads[0][0][i, j]) == pytest.approx(numeric, rel=1e-5, abs=1e-8), (i, j, w.shape)


def test_wave_simulation_matches_numpy():
    wave = _load("wave")
    u0 = wave.initial_pulse(16)
    r2 = 0.25
    prev, u = u0, u0 + 0.5 * r2 * (np.roll(u0, 1) - 2 * u0 + np.roll(u0, -1))
    for _ in range(9):
        prev, u = u, 2 * u - prev + r2 * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
    np.testing.assert_allclose(wave.simulate(u0, 10), u, rtol=1e-12, atol=1e-14)


def test_wave_gradient_through_time_matches_finite_differences():
    """Where jnp.roll has rules (they come with the shape helper's branch) the gradient matches central
    differences; without them astjax must refuse it clearly rather than return a number."""
    wave = _load("wave")
    if classification(jnp.roll).kind != "rules":
        with pytest.raises(AstjaxError, match="roll"):
            wave.check_gradient(n=8, steps=3)
        return
    grad, numeric = wave.check_gradient(n=24, steps=15)
    assert np.linalg.norm(grad) > 0.1
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)
