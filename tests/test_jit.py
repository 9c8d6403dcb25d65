"""astjax.jit: compiled results agree with the reference backend, or jit refuses at the user's line."""
import os
import subprocess
import sys

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.backends.numba_cpu import JitError

from jit_cases import programs as P

pytest.importorskip("numba")

rng = np.random.default_rng(0)


def close(a, b, rtol=1e-5):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_selu_agrees_with_reference_in_value_and_dtype(dtype):
    x = rng.normal(size=(50,)).astype(dtype)
    y = astjax.jit(P.selu)(x)
    assert y.dtype == dtype and isinstance(y, astjax.Array)
    close(y, P.selu(x))


def test_the_compiled_source_casts_python_floats_to_the_arrays_dtype():
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    text = astjax.jit(P.selu).lower(x).source
    assert "def jit_selu(x):" in text and "np.float32(SCALE)" in text


def test_defaults_are_the_functions_own():
    y = astjax.jit(P.selu_defaults)(np.array([-1.0, 0.5], dtype=np.float32))
    close(y, [1.05 * 1.67 * (np.exp(-1.0) - 1.0), 0.525])


def test_a_loop_compiles_once_whatever_its_trip_count():
    looped = astjax.jit(P.power_loop)
    for n in (1, 10, 1000):
        close(looped(1.0001, n), 1.0001 ** n, rtol=1e-4)
    assert len(looped.compiled().entries) == 1


def test_jit_of_grad_of_a_loop():
    looped = astjax.jit(astjax.grad(P.power_loop))
    for n in (1, 10, 1000):
        close(looped(1.0001, n), astjax.grad(P.power_loop)(1.0001, n), rtol=1e-4)


@pytest.mark.parametrize("fn, x", [(P.newton_sqrt, 4.0), (P.relu_branch, 3.0), (P.relu_branch, -2.0)])
def test_jit_of_grad_through_while_and_branches(fn, x):
    close(astjax.jit(astjax.grad(fn))(x), astjax.grad(fn)(x))


def test_jit_of_grad_with_a_user_callee():
    x = np.arange(3.0)
    close(astjax.jit(astjax.grad(P.sum_logistic))(x), astjax.grad(P.sum_logistic)(x))


def test_accumulating_into_an_adjoint_does_not_write_through_an_alias():
    x = rng.normal(size=(6,))
    close(astjax.jit(astjax.grad(P.square_plus))(x), 2 * x + 1)


def test_jit_of_value_and_grad_of_an_mlp():
    w1, w2, x = rng.normal(size=(4, 5)), rng.normal(size=(5, 2)), rng.normal(size=(3, 4))
    want = astjax.value_and_grad(P.mlp_loss, argnums=(0, 1))(w1, w2, x)
    got = astjax.jit(astjax.value_and_grad(P.mlp_loss, argnums=(0, 1)))(w1, w2, x)
    close(got[0], want[0])
    close(got[1][0], want[1][0])
    close(got[1][1], want[1][1])


def test_blur_agrees_with_numpy():
    image = rng.uniform(size=(20, 30)).astype(np.float32)
    kernel = rng.uniform(size=(5, 5)).astype(np.float32)
    close(astjax.jit(P.blur)(image, kernel), P.blur(image, kernel))


def test_grad_of_a_jitted_function_differentiates_its_source():
    x = rng.normal(size=(4,))
    close(astjax.grad(astjax.jit(P.sum_logistic))(x), astjax.grad(P.sum_logistic)(x))


def test_static_argnums_compile_the_value_in():
    f = astjax.jit(P.zeros_of, static_argnums=0)
    close(f(3, 2.0), np.full(3, 2.0))
    close(f(4, 1.0), np.ones(4))


def test_python_numbers_give_jaxs_dtypes():
    assert astjax.jit(P.scale_by)(np.ones(3, np.float32), 2.5).dtype == np.float32
    assert astjax.jit(P.int_times_float)(jnp.arange(3)).dtype == P.int_times_float(jnp.arange(3)).dtype
    out = astjax.jit(P.power_loop)(1.5, 2)
    assert isinstance(out, astjax.Array) and out.dtype == np.float32


def test_tuples_are_passed_in():
    a, b = rng.normal(size=3), rng.normal(size=3)
    close(astjax.jit(P.sum_of_pair)((a, b)), np.sum(a * b))


def test_a_method_call_is_refused_at_the_users_line():
    with pytest.raises(JitError) as info:
        astjax.jit(P.uses_method)(np.ones(3))
    assert "programs.py" in str(info.value) and "x.tolist()" in str(info.value)


def test_a_dict_argument_is_passed_as_its_leaves():
    """Dict arguments compile now (jit/boundary_trees.py); one Numba cannot build is still refused clearly."""
    p = {"a": np.arange(2.0)}
    close(astjax.jit(P.value_of_a)(p), P.value_of_a(p))
    with pytest.raises(JitError, match="dict"):
        astjax.jit(P.value_of_a)({"a": np.ones(2), 1: np.ones(2)})


def test_a_wrong_lowering_is_caught_by_the_first_call_check(monkeypatch):
    fuse_elementwise = sys.modules["astjax.jit.lower.fuse_elementwise"]
    monkeypatch.setenv("ASTJAX_DISK_CACHE", "0")
    monkeypatch.setattr(fuse_elementwise, "_fast_math", lambda: False)
    monkeypatch.setitem(fuse_elementwise.SCALAR_FORMS, "exp", "np.sin(a)")
    with pytest.raises(JitError, match="does not agree"):
        astjax.jit(P.selu)(np.linspace(-2, 2, 9))


def test_importing_astjax_does_not_import_numba():
    code = "import sys, astjax; assert 'numba' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_variable_that_is_a_number_on_one_path_and_an_array_on_another_is_refused():
    with pytest.raises(JitError):
        astjax.jit(P.branch_changes_type)(np.ones(3), 1)


def test_a_product_started_as_a_number_and_grown_into_an_array_keeps_the_number_where_the_loop_never_runs():
    """`y = 1.0; for _ in range(n): y = y * x` compiles with y an array from the start (lower/number_carries.py);
    n = 0 returns the number 1.0, as without jit (the reference backend computes that call), never a (1,) array."""
    f = astjax.jit(P.product_loop_over_array)
    x = np.array([0.5, -2.0, 3.0])
    np.testing.assert_array_equal(f(x, 2), x * x)
    none = f(x, 0)
    assert np.ndim(none) == 0 and float(none) == 1.0


def test_an_index_past_the_end_raises_as_in_numpy():
    with pytest.raises(IndexError):
        astjax.jit(P.index_past_the_end)(np.ones(3))


def test_division_by_zero_gives_inf_not_an_exception():
    assert np.isinf(float(astjax.jit(P.divide_by_zero)(np.ones(3))))


def test_rebinding_a_global_recompiles(monkeypatch):
    f = astjax.jit(P.uses_global)
    close(f(np.ones(2)), P.SCALE * np.ones(2))
    monkeypatch.setattr(P, "SCALE", 3.0)
    close(f(np.ones(2)), 3.0 * np.ones(2))


def test_recursion_compiles_or_is_refused_clearly():
    try:
        got = astjax.jit(astjax.grad(P.fact_pow))(2.0, 3)
    except JitError:
        return
    close(got, 12.0)


def test_the_disk_cache_serves_a_new_process(tmp_path):
    script = ("import numpy as np, astjax\n"
              "from jit_cases import programs as P\n"
              "print(float(astjax.jit(astjax.grad(P.power_loop))(1.0001, 100)))\n")
    root = __import__("pathlib").Path(__file__).parent
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path), PYTHONPATH=os.pathsep.join(filter(None, [str(root.parent), os.environ.get("PYTHONPATH")])))
    runs = [subprocess.run([sys.executable, "-c", script], env=env, cwd=root, capture_output=True, text=True)
            for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr[-2000:]
    assert runs[0].stdout == runs[1].stdout
    assert list((tmp_path / "entries").iterdir()), "the first process wrote no cache entry"


MACHINE_CODE_SCRIPT = """\
import numpy as np, astjax, astjax.numpy as jnp
from jit_cases import programs as P
rng = np.random.default_rng(0)
w, x, y = rng.normal(size=(19, 6)), rng.normal(size=(4, 19)), rng.normal(size=(4, 6))
per_example = astjax.vmap(astjax.grad(P.layer_loss), in_axes=(None, 0, 0))   # callees and reductions
print(np.asarray(astjax.jit(per_example)(w, x, y)).round(12).tolist())
print(float(astjax.jit(P.fact_pow)(1.5, 4)))                                    # recursion
print(float(astjax.jit(astjax.grad(P.power_loop))(1.0001, 100)))
"""


def test_machine_code_cache_serves_a_new_process_without_crashing(tmp_path):
    """Numba's machine-code cache is on: a second process loads what the first compiled. A recursive
    call (the pairwise sum once was one, fact_pow still is) compiles to a symbol a loaded cache does
    not resolve, so a build with recursion is never cached; everything else is, and agrees."""
    root = __import__("pathlib").Path(__file__).parent
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path), PYTHONPATH=os.pathsep.join(filter(None, [str(root.parent), os.environ.get("PYTHONPATH")])))
    env.pop("ASTJAX_NUMBA_CACHE", None)
    env.pop("NUMBA_OPT", None)    # as users compile: unoptimized code keeps a global array that blocks caching
    runs = [subprocess.run([sys.executable, "-c", MACHINE_CODE_SCRIPT], env=env, cwd=root,
                           capture_output=True, text=True) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), (runs[0].returncode, runs[1].returncode, runs[-1].stderr[-2000:])
    assert runs[0].stdout == runs[1].stdout and runs[0].stdout.count("\n") == 3
    cached = [p.name for p in (tmp_path / "lowered" / "__pycache__").glob("*.nbi")]
    assert any("vmap_grad_layer_loss" in name for name in cached), cached
    assert not any("fact_pow" in name for name in cached), cached


def test_a_corrupt_cache_entry_is_ignored(tmp_path, monkeypatch):
    monkeypatch.setenv("ASTJAX_CACHE_DIR", str(tmp_path))
    x = np.linspace(-1, 1, 5)
    astjax.jit(P.selu)(x)
    for entry in (tmp_path / "entries").iterdir():
        entry.write_text("{ not json")
    close(astjax.jit(P.selu)(x), P.selu(x))


@pytest.mark.parametrize("fn, shape", [(P.pad_edge_2d, (3, 4)), (P.pad_zeros_1d, (5,)), (P.pad_edge_1d, (4,))])
def test_pad_agrees_with_numpy(fn, shape):
    x = rng.normal(size=shape).astype(np.float32)
    close(astjax.jit(fn)(x), fn(x))


def test_a_fused_sum_of_two_arrays_keeps_its_unfused_form_for_broadcasting():
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    f = astjax.jit(P.sum_of_squared_difference)
    close(f(a, b), np.sum((a - b) ** 2))
    close(f(a, b[:1]), np.sum((a - b[:1]) ** 2))       # same signature, shapes that broadcast


@pytest.mark.parametrize("fn", [P.step_with_grad, P.step_with_grad_and_aux, P.step_with_value_and_grad,
                                P.sum_of_two_gradients])
def test_a_gradient_called_inside_jitted_code_agrees_with_the_plain_call(fn):
    w, x = np.array([0.1, 0.2]), rng.normal(size=(3, 2))
    close(astjax.jit(fn)(w, x), fn(w, x), rtol=1e-10)


def test_a_gradient_of_list_parameters_inside_jit_is_shaped_as_grad_returns_it_or_refused():
    """The generated gradient of a list is the items it reached; inside jit it is rebuilt as the
    list grad returns (the reference run), and Numba, which takes no lists, refuses clearly."""
    params, x = [np.full((2, 2), 0.1), np.zeros(2)], np.ones((3, 2))
    want = P.list_update(params, x)
    try:
        got = astjax.jit(P.list_update)(params, x)
    except JitError:
        return
    for g, w in zip(got, want):
        close(g, w, rtol=1e-10)


def _sum_squares_until_large(x):
    acc = 0.0
    for i in range(1, x.shape[0]):
        if x[i] > 0.5:
            break
        acc = acc + x[i] ** 2 * x[i - 1]
    return acc


def test_the_gradient_of_a_loop_left_by_break_compiles_and_agrees():
    """The reverse sweep walks `reversed(range(1, n)[:count])`: the iterations run before the break."""
    for x in (np.array([0.1, 0.3, 0.7, 0.2]), np.array([0.9, 0.1, 0.2, 0.3]), np.array([0.2, 0.8, 0.1])):
        assert np.allclose(astjax.jit(astjax.grad(_sum_squares_until_large))(x),
                           astjax.grad(_sum_squares_until_large)(x))
