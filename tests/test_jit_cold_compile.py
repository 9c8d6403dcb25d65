"""Cold compile of jit: branches decided by the ranks jit observed never reach Numba (jit/lower/known_ranks.py).

A rule's generated callee keeps every rank branch (`if a.ndim - 1 == 0 ... elif b.ndim <= 2 ... else
reshape/transpose/moveaxis`); Numba would type and compile all of them. For one signature the ranks
are known, so only the branch taken is lowered, and a straight-line result is inlined into its caller.
A callee reached later with ranks the first call never passed it must still give the right number.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

pytest.importorskip("numba")


def layer_loss(w, x, y):
    return jnp.sum((jnp.tanh(jnp.dot(x, w)) - y) ** 2)


def helper(a):
    if a.ndim == 1:
        return a * 2.0
    return jnp.sum(a, axis=0) * 3.0


def two_sites(x, flag):
    if flag > 0:
        return jnp.sum(helper(x))
    return jnp.sum(helper(jnp.stack([x, x])))


def test_vmap_grad_source_keeps_no_dead_rank_branch_and_agrees():
    rng = np.random.default_rng(0)
    w, x, y = rng.normal(size=(5, 3)), rng.normal(size=(4, 5)), rng.normal(size=(4, 3))
    per_example = astjax.vmap(astjax.grad(layer_loss), in_axes=(None, 0, 0))
    compiled = astjax.jit(per_example)
    source = compiled.lower(w, x, y).source
    assert ".ndim" not in source and "moveaxis" not in source and "transpose" not in source, source
    assert "def vmap_dot_rhs_adjoint" not in source, source          # pruned to one line, then inlined
    x2, y2 = rng.normal(size=(4, 5)), rng.normal(size=(4, 3))           # later calls: compiled code only
    np.testing.assert_allclose(compiled(w, x2, y2), per_example(w, x2, y2), rtol=1e-12, atol=1e-12)


def test_callee_reached_later_with_other_ranks_gives_the_right_number():
    compiled = astjax.jit(two_sites)
    x = np.arange(3.0)
    assert float(compiled(x, 1)) == float(two_sites(x, 1)) == 6.0
    assert "_rank_guard_type(a, " in compiled.lower(x, 1).source           # the pruned callee's guard
    assert float(compiled(x, -1)) == float(two_sites(x, -1)) == 18.0      # guard fired: compiled unpruned
    assert float(compiled(x + 1.0, 1)) == float(two_sites(x + 1.0, 1))
    assert float(compiled(x + 1.0, -1)) == float(two_sites(x + 1.0, -1))


def test_slice_assignment_keeps_its_error_without_formatting_strings():
    """Numba's slice-assignment error formats shapes (seconds of string code per function): jit/numba_support.py
    swaps in a constant message; the error itself stays."""
    import importlib
    from numba import njit
    importlib.import_module("astjax.jit.numba_support")

    @njit
    def assign(out, x):
        out[1:3] = x
        return out

    np.testing.assert_array_equal(assign(np.zeros(5), np.ones(2)), [0.0, 1.0, 1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="does not broadcast"):
        assign(np.zeros(5), np.ones(3))
