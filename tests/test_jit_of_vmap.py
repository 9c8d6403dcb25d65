"""jit(vmap(f)) gives vmap(f)'s values on the batching rule programs of tests/vmap_cases.py that jit
compiles; the rest are refused clearly (an AstjaxError), never wrong. vmap's shape helpers
(`batch_shape`, `batch_index`, `batch_part_rank`) are folded for the compiled signature
(astjax/runtime/numba_batching.py), so the programs that call them compile."""
import numpy as np
import pytest

import astjax
from astjax import vmap

import vmap_cases as cases
from test_vmap import close, example_args

# Programs whose vmapped source calls the shape helpers: they must compile now.
FOLDED = {"argmax_flat", "broadcast_to", "getitem_index_array", "at_update_unbatched_target"}


@pytest.mark.parametrize("name, fun, shapes, in_axes", cases.RULE_CASES, ids=[c[0] for c in cases.RULE_CASES])
def test_jit_of_vmap_matches_vmap(name, fun, shapes, in_axes):
    args, _ = example_args(shapes, in_axes, np.float64)
    want = vmap(fun, in_axes=in_axes)(*args)
    try:
        got = astjax.jit(vmap(fun, in_axes=in_axes))(*args)
    except astjax.errors.AstjaxError as exc:
        assert name not in FOLDED, f"jit refused {name}: {exc}"
        pytest.skip(f"jit refuses (a lowering it lacks): {str(exc).splitlines()[-2:]}")
    close(got, want, np.float64)


def test_folded_shapes_read_as_tuples():
    """The lowered source of a folded program shows the shape it computes, not the helper."""
    fun, shapes, in_axes = next((f, s, a) for n, f, s, a in cases.RULE_CASES if n == "broadcast_to")
    args, _ = example_args(shapes, in_axes, np.float64)
    source = astjax.jit(vmap(fun, in_axes=in_axes)).lower(*args).source
    assert "batch_shape" not in source and "x.shape[:1] + (1,) + x.shape[1:]" in source
