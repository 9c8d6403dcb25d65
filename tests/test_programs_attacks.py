"""Regressions found by running real programs through jit, vmap and their compositions
(tests/adversarial/programs.py): each is the right number or a clear refusal naming the user's line."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


def quadratic_energy(x):
    K = 2.0 * jnp.eye(3)
    return 0.5 * x @ K @ x


def test_jit_refusal_inside_a_rule_helper_names_the_users_line():
    """jit(vmap(grad(f))) of `x @ K @ x` lowers matmul's VJP helper (astjax/rules/linalg.py) as
    vmap batched it; a refusal there named astjax's file. It names the user's line that called it."""
    pytest.importorskip("numba")
    xs = np.array([[0.1, 0.2, 0.3], [0.5, -0.1, 0.4]])
    try:
        got = astjax.jit(astjax.vmap(astjax.grad(quadratic_energy)))(xs)
    except AstjaxError as exc:
        assert f'File "{__file__}", line {quadratic_energy.__code__.co_firstlineno + 2}' in str(exc), str(exc)
        assert "astjax/rules" not in str(exc)
    else:
        np.testing.assert_allclose(np.asarray(got), 2.0 * xs)
