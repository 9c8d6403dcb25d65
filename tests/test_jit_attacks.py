"""Red-team jit: programs where Numba's semantics differ from Python's and NumPy's.

Each program runs as plain Python and through astjax.jit (every argument tuple in turn, through one
jitted function, so all but the first of a signature take the compiled path without a check). jit must
give Python's answer under astjax's result policy (a Python float comes back float32, a Python int
int32, as in JAX; arrays keep their dtype), or refuse with an AstjaxError. Where Python raises, jit
raises too (the same exception or an AstjaxError). Differentiable programs also check jit(grad(f))
against grad(f). The functions live in jit_cases/attacks.py.
"""
import math
import os

import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError

from jit_cases import attacks as A

pytest.importorskip("numba")

NAN, INF = float("nan"), float("inf")
f32, f64, i32, i64 = np.float32, np.float64, np.int32, np.int64


def arr(values, dtype=f64):
    return np.array(values, dtype=dtype)


MATCH, REFUSE, EITHER = "match", "refuse", "either"

# (function, [argument tuples], allowed outcome)
ATTACKS = [
    (A.factorial, [(5,), (20,), (21,), (25,)], EITHER),
    (A.power_mod, [(3,), (50,), (100,)], EITHER),
    (A.big_constant, [(1,), (2,)], EITHER),
    (A.sum_of_squares_mod, [(10,), (7000,)], EITHER),
    (A.shift_left, [(3,), (70,)], EITHER),
    (A.negate_add, [(-5,), (5,)], EITHER),
    (A.floordiv_ints, [(7, 2), (-7, 2), (7, -2), (-7, -2)], MATCH),
    (A.mod_ints, [(7, 3), (-7, 3), (7, -3), (-7, -3)], MATCH),
    (A.floordiv_floats, [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-0.5, 1.0), (5.0, INF), (-5.0, INF)], MATCH),
    (A.mod_floats, [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-1e-20, 1.0), (-5.0, INF), (5.0, -INF), (INF, 3.0)],
     MATCH),
    (A.mod_arrays, [(arr([7.0, -7.0, 7.0, -7.0]), arr([3.0, 3.0, -3.0, -3.0])),
                    (arr([7, -7, 7, -7], i64), arr([3, 3, -3, -3], i64))], MATCH),
    (A.floordiv_arrays, [(arr([7.0, -7.0, 7.0, -7.0]), arr([2.0, 2.0, -2.0, -2.0])),
                         (arr([7, -7, 7, -7], i64), arr([2, 2, -2, -2], i64))], MATCH),
    (A.divmod_ints, [(7, 3), (-7, 3), (7, -3)], EITHER),
    (A.int_negative_power, [(2,), (-3,)], EITHER),
    (A.int_power_int, [(2, 3), (-2, 3), (2, -1), (0, 0)], EITHER),
    (A.float_power_float, [(2.0, 0.5), (-8.0, 1.0 / 3.0)], EITHER),
    (A.true_division_ints, [(7, 2), (-7, 2), (1, 3)], MATCH),
    (A.float_division, [(1.0, 2.0), (1.0, 0.0)], MATCH),
    (A.int_division_by_zero, [(7, 2), (7, 0)], MATCH),
    (A.int_mod_by_zero, [(7, 2), (7, 0)], MATCH),
    (A.array_divide_by_zero, [(arr([1.0, -1.0, 0.0]),)], MATCH),
    (A.float32_times_python_float, [(arr([1.0, 2.0], f32),), (arr([3.0], f32),)], MATCH),
    (A.float32_plus_big_python_float, [(arr([1.0, 2.0], f32),)], MATCH),
    (A.int32_plus_python_int, [(arr([1, 2], i32),), (arr([2147483647], i32),)], MATCH),
    (A.int32_plus_big_python_int, [(arr([1, 2], i32),)], EITHER),
    (A.int_array_true_divide, [(arr([1, 3], i32),), (arr([1, 3], i64),)], MATCH),
    (A.float32_scalar_arithmetic, [(2.0,), (f32(2.5),)], MATCH),
    (A.uint_minus, [(arr([0, 5], np.uint8),)], MATCH),
    (A.int8_sum, [(arr([100, 100, 100], np.int8),)], MATCH),
    (A.bool_plus_bool, [(True, True), (True, False)], MATCH),
    (A.bool_invert, [(np.bool_(True),), (True,), (False,)], EITHER),
    (A.bool_plus_bool, [(np.bool_(True), np.bool_(True)), (True, True)], EITHER),
    (A.bool_negate, [(np.bool_(True),), (True,)], EITHER),
    (A.bool_negate, [(True,), (False,)], MATCH),
    (A.bool_array_sum, [(arr([1.0, -1.0, 2.0]),)], MATCH),
    (A.bool_times_float, [(True, 2.5), (False, 2.5)], MATCH),
    (A.round_half, [(2.5,), (3.5,), (-2.5,), (0.49999999999999994,)], EITHER),
    (A.round_digits, [(0.25,), (2.675,), (-0.35,)], EITHER),
    (A.int_of_negative, [(-2.7,), (2.7,), (-0.5,)], MATCH),
    (A.int_of_float, [(2.5,), (NAN,), (float("inf"),), (1e300,), (-1e10,)], EITHER),
    (A.branch_local_overflow, [(3, False), (3, True), (100000, True)], EITHER),
    (A.negative_python_int, [(3,), (-2 ** 63,)], EITHER),
    (A.int_shift_right, [(1024, 3), (-1024, 70), (5, 64)], MATCH),
    (A.floor_ceil, [(-2.5,), (2.5,), (-0.0,)], EITHER),
    (A.floor_is_int, [(-3.5,), (7.5,)], EITHER),
    (A.float_of_int, [(7,), (-7,)], EITHER),
    (A.abs_int, [(-5,), (-9223372036854775807,)], EITHER),
    (A.abs_int64_array, [(arr([-5, np.iinfo(np.int64).min], i64),)], MATCH),
    (A.trunc_math, [(-2.5,), (2.5,)], EITHER),
    (A.python_max_nan, [(1.0, 2.0), (NAN, 1.0), (1.0, NAN)], MATCH),
    (A.python_min_nan, [(1.0, 2.0), (NAN, 1.0), (1.0, NAN)], MATCH),
    (A.max_of_three, [(1.0, 3.0, 2.0), (1.0, NAN, 2.0), (NAN, 1.0, 2.0)], MATCH),
    (A.compare_nan, [(1.0, 2.0), (2.0, 1.0), (NAN, 1.0)], MATCH),
    (A.nan_not_equal, [(1.0,), (NAN,)], MATCH),
    (A.jnp_max_nan, [(arr([1.0, 2.0]),), (arr([1.0, NAN, 2.0]),), (arr([NAN, 1.0]),)], MATCH),
    (A.jnp_maximum_nan, [(arr([1.0, NAN]), arr([NAN, 1.0])),], MATCH),
    (A.sorted_list, [(3.0, 1.0, 2.0), (3.0, NAN, 2.0)], EITHER),
    (A.range_negative_step, [(10,), (0,), (-3,)], MATCH),
    (A.range_step, [(10, 3), (10, -1), (10, 0)], MATCH),
    (A.negative_index, [(arr([1.0, 2.0, 3.0]),)], MATCH),
    (A.slice_past_end, [(arr([1.0, 2.0, 3.0, 4.0]),), (arr([1.0]),)], MATCH),
    (A.slice_negative, [(arr([1.0, 2.0, 3.0, 4.0]),), (arr([1.0, 2.0]),)], MATCH),
    (A.slice_reversed, [(arr([1.0, 2.0, 3.0]),)], MATCH),
    (A.slice_empty, [(arr([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),)], MATCH),
    (A.index_out_of_bounds, [(arr([1.0, 2.0]), 1), (arr([1.0, 2.0]), 2), (arr([1.0, 2.0]), -3)], MATCH),
    (A.sum_empty, [(arr([1.0]),), (arr([]),)], MATCH),
    (A.max_empty, [(arr([1.0]),), (arr([]),)], MATCH),
    (A.mean_empty, [(arr([1.0]),), (arr([]),)], MATCH),
    (A.prod_empty, [(arr([2.0]),), (arr([]),)], MATCH),
    (A.augmented_alias, [(arr([1.0, 2.0]),), (arr([3.0]),)], MATCH),
    (A.augmented_alias_returns_both, [(arr([1.0, 2.0]),), (arr([3.0]),)], EITHER),
    (A.returns_input, [(arr([1.0, 2.0]),)], MATCH),
    (A.returns_input_twice, [(arr([1.0, 2.0]),)], MATCH),
    (A.item_update, [(arr([1.0, 2.0]),), (arr([3.0]),)], MATCH),
    (A.returns_tuple, [(arr([1.0]),), (arr([2.0, 3.0]),)], MATCH),
    (A.returns_list, [(arr([1.0]),)], MATCH),
    (A.returns_dict, [(arr([1.0]),)], EITHER),
    (A.returns_none, [(arr([1.0]),)], MATCH),
    (A.returns_string, [(arr([1.0]),)], EITHER),
    (A.returns_mixed, [(arr([1.0]),)], MATCH),
    (A.returns_bool, [(1.0,), (-1.0,)], MATCH),
    (A.returns_int_count, [(arr([1.0, -1.0, 2.0]),), (arr([-1.0]),)], MATCH),
    (A.uses_default, [(2.0,), (arr([1.0, 2.0], f32),)], MATCH),
    (A.uses_int_default, [(2,), (2.0,), (arr([1, 2], i32),)], MATCH),
    (A.poly, [(2,), (2.0,), (f32(2.0),), (arr([1.0, 2.0]),), (arr([[1.0]], f32),), (arr([1, 2], i32),),
              (np.array(3.0),), (True,)], MATCH),
    (A.sum_all, [(arr([1.0, 2.0]),), (arr([[1.0, 2.0]]),), (arr([1, 2], i64),), (arr([True, False], bool),)],
     MATCH),
    (A.complex_square, [(1.0 + 2.0j,), (arr([1.0 + 1.0j], np.complex128),)], EITHER),
    (A.complex_abs, [(arr([3.0 + 4.0j], np.complex128),)], EITHER),
    (A.uses_np_random, [(arr([1.0]),)], REFUSE),
    (A.recursive_power, [(2.0, 3), (2.0, 10)], MATCH),
    (A.recursive_fib, [(5,), (10,)], MATCH),
    (A.math_sqrt, [(4.0,), (-1.0,)], EITHER),
    (A.math_log, [(1.0,), (0.0,), (-1.0,)], EITHER),
    (A.math_exp, [(1.0,), (1000.0,)], EITHER),
    (A.math_sqrt_minus_one, [(4.0,), (1.0000001,)], MATCH),
    (A.jnp_sqrt_minus_one, [(4.0,), (1.0000001,)], MATCH),
    (A.builtin_pow, [(2, 3), (2, 70), (2, -1)], EITHER),
    (A.tuple_product, [((3, 4),), ((2 ** 40, 2 ** 40),)], EITHER),
    (A.python_sum, [(3, 4), (2 ** 62, 2 ** 62)], EITHER),
    (A.loop_over_tuple, [((3, 4),), ((2 ** 40, 2 ** 40),)], EITHER),
    (A.float_mul_overflow, [(2.0,), (1e200,)], EITHER),
    (A.exp_of_python_int, [(1,), (2,)], MATCH),
    (A.int_array_times_python_int, [(arr([1, 2], i64), 3), (arr([1, 2], i64), 2 ** 62)], EITHER),
    (A.int_array_negative_power, [(arr([1, 2], i64), 2), (arr([1, 2], i64), -1)], EITHER),
    (A.int32_sum_overflow, [(arr([1, 2], i32),), (arr([2 ** 30, 2 ** 30, 2 ** 30], i32),)], MATCH),
    (A.set_item, [(arr([1.0, 2.0]),)], EITHER),
    (A.while_counter, [(10,), (3_000_000,)], EITHER),
    (A.shape_times, [(arr([1.0, 2.0]), 3), (arr([1.0, 2.0]), 2 ** 62 + 1)], EITHER),
    (A.int32_array_true_divide_zero, [(arr([1, 0, -1], i32), arr([2, 0, 0], i32))], MATCH),
    (A.float32_scalar_divide_zero, [(1.0,), (-1.0,), (0.0,)], MATCH),
    (A.return_global, [(arr([1.0]),)], MATCH),
    (A.compare_big, [(5,), (-5,)], EITHER),
    (A.int_of_numpy_float, [(f64(9.5),), (f64(NAN),), (f64(INF),), (f64(1e30),), (f32(-9.5),)], EITHER),
    (A.abs_float, [(-2.5,), (-0.0,), (NAN,)], MATCH),
    (A.int_true_divide_big, [(7,), (2 ** 60 + 1,)], MATCH),
    (A.arange_times, [(5,), (100_000,)], EITHER),
    (A.fused_two, [(np.ones((3, 4)), np.ones((3, 4))), (np.ones((3, 4)), np.full((1, 4), 2.0)),
                   (np.ones((3, 4)), np.full((3, 1), 2.0)), (np.ones((1, 4)), np.full((3, 4), 2.0)),
                   (np.ones((3, 4)), np.ones((2, 4)))], MATCH),
    (A.fused_two_sum, [(np.ones((3, 4), f32), np.ones((3, 4), f32)), (np.ones((3, 4), f32), np.ones((1, 4), f32)),
                       (np.ones((1, 4), f32), np.full((3, 4), 2.0, f32)), (np.ones(5, f32), np.ones(3, f32))], MATCH),
    (A.fused_three, [(np.ones(4), np.ones(4), np.ones(4)), (np.ones(4), np.ones(1), np.ones(4)),
                     (np.ones(1), np.ones(4), np.arange(4.0)), (np.ones(4)[::2], np.ones(2), np.arange(4.0)[::2]),
                     (np.ones(4), np.ones(4), np.ones(7))], MATCH),
    (A.poly, [(np.ones(3, np.float16),)], EITHER),
    (A.plain_sum, [(np.ones(10, f32),), (np.ones(17_000_000, f32),)], MATCH),     # past 2 ** 24 in float32
    (A.mean_of, [(np.ones(10, f32),), (np.ones(17_000_000, f32),)], MATCH),
    (A.sum_all, [(np.ones(10, f32),), (np.ones(17_000_000, f32),)], MATCH),
    (A.exp_sum, [(np.zeros(10, f32),), (np.full(5000, 0.5, f32),)], MATCH),
    (A.fused_sum, [(np.ones(10, f32),), (np.ones(3_000_000, f32),)], MATCH),
    (A.sum_sigmoid, [(np.ones(10, f32),), (np.full(3_000_000, 0.3, f32),)], MATCH),
    (A.uses_global_list, [(2.0,)], EITHER),
    (A.uses_global_dict, [(2.0,)], EITHER),
]

GRAD_ATTACKS = [
    (A.grad_mod, [(2.0,), (-2.0,), (4.0,)]),
    (A.grad_floor, [(2.5,), (-2.5,)]),
    (A.grad_pow_int, [(2.0,), (-0.5,)]),
    (A.grad_max_python, [(1.0, 2.0), (3.0, 2.0)]),
    (A.grad_where_nan, [(arr([1.0, -1.0, 4.0]),), (arr([0.0, 2.0]),)]),
    (A.grad_loop_int, [(1.0, 3), (2.0, 0), (2.0, 50)]),
    (A.grad_float32_mix, [(arr([1.0, 2.0], f32),)]),
    (A.grad_round, [(2.5,), (3.5,)]),
    (A.grad_abs, [(arr([1.0, -2.0, 0.0]),)]),
    (A.grad_reciprocal, [(2.0,), (0.0,)]),
    (A.grad_int_power, [(1.0, 3), (1.0, 50)]),
    (A.grad_divide_python, [(1.0, 3.0, 2.0), (1.0, 3.0, 0.0), (2.0, 7, 0)]),
]


def _copy(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def _run(fn, args):
    """(result, exception) of fn on a copy of args, and whether it changed its arguments."""
    fresh = _copy(args)
    try:
        out, exc = fn(*fresh), None
    except Exception as error:     # noqa: BLE001 -- compared below
        out, exc = None, error
    mutated = [i for i, (a, b) in enumerate(zip(args, fresh))
               if isinstance(a, np.ndarray) and not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")]
    return out, exc, mutated


def mismatch(want, got):
    """Why `got` (jit's result) is not `want` (Python's) under astjax's result policy; None if it is."""
    if isinstance(want, (tuple, list)):
        if type(got) is not type(want) or len(got) != len(want):
            return f"structure {type(got).__name__} of {len(got) if hasattr(got, '__len__') else '?'}, want {want!r}"
        for w, g in zip(want, got):
            why = mismatch(w, g)
            if why:
                return why
        return None
    if isinstance(want, dict):
        if not isinstance(got, dict) or set(got) != set(want):
            return f"got {got!r}, want a dict {want!r}"
        return next((m for m in (mismatch(want[k], got[k]) for k in want) if m), None)
    if want is None or isinstance(want, str):
        return None if got == want and type(got) is type(want) else f"got {got!r}, want {want!r}"
    if isinstance(want, bool):
        dtype = np.dtype(bool)
    elif isinstance(want, int):
        dtype = np.dtype(np.int32)
        if not np.iinfo(np.int32).min <= want <= np.iinfo(np.int32).max:
            return f"got {got!r} for {want}, which does not fit the int32 policy (must refuse)"
    elif isinstance(want, float) and not isinstance(want, np.generic):     # np.float64 keeps its dtype
        dtype = np.dtype(np.float32)
    elif isinstance(want, complex):
        dtype = np.dtype(np.complex64)
    else:
        dtype = np.asarray(want).dtype
    if not isinstance(got, (np.ndarray, np.generic)):
        return f"got a {type(got).__name__} {got!r}, want {dtype} {want!r}"
    w = np.asarray(want).astype(dtype) if not isinstance(want, np.ndarray) else np.asarray(want)
    g = np.asarray(got)
    if g.dtype != dtype or g.shape != w.shape:
        return f"got {g.dtype}{g.shape} {g!r}, want {dtype}{w.shape} {w!r}"
    if dtype.kind in "fc":
        tol = 1e-6 if dtype.itemsize <= 8 and dtype.kind == "c" or dtype.itemsize <= 4 else 1e-12
        ok = np.allclose(g, w, rtol=tol, atol=0, equal_nan=True)
        if dtype.kind == "f":       # -0.0 is not 0.0 (a NaN's sign is nobody's business)
            ok = ok and np.array_equal(np.signbit(g) & ~np.isnan(g), np.signbit(w) & ~np.isnan(w))
    else:
        ok = np.array_equal(g, w)
    return None if ok else f"got {g!r}, want {w!r}"


def check_attack(fn, argsets, outcome, transform=None):
    """Run every argument tuple through plain Python (or `transform(fn)`) and one jitted function."""
    plain = transform(fn) if transform else fn
    jitted = astjax.jit(transform(fn) if transform else fn)
    refused = []
    for args in argsets:
        want, want_exc, want_mutated = _run(plain, args)
        got, got_exc, got_mutated = _run(jitted, args)
        label = f"{fn.__name__}{args!r}"
        if isinstance(got_exc, AstjaxError):
            assert str(got_exc).strip() and "attacks.py" in str(got_exc), f"{label}: a refusal not at the user's file: {got_exc}"
            refused.append(label)
            continue
        assert outcome != REFUSE, f"{label}: jit ran something it must refuse, giving {got!r}"
        if want_exc is not None:
            assert got_exc is not None, f"{label}: Python raised {want_exc!r}; jit returned {got!r}"
            assert type(got_exc) is type(want_exc), f"{label}: Python raised {want_exc!r}; jit raised {got_exc!r}"
            continue
        assert got_exc is None, f"{label}: Python returned {want!r}; jit raised {got_exc!r}"
        why = mismatch(want, got)
        assert why is None, f"{label}: {why}"
        # Arrays are immutable under jit (as in JAX): it may leave alone what NumPy code writes into, never the reverse.
        assert set(got_mutated) <= set(want_mutated), f"{label}: jit changed arguments {got_mutated}, Python {want_mutated}"
    if outcome == MATCH:
        assert not refused, f"refused where a match is expected: {refused}"
    return refused


# The suite's time budget (docs/testing.md): every second attack by default (each compiles, 0.1-2 s), every one
# under ASTJAX_LONG_PROPERTIES=1.
ATTACKS_RUN = ATTACKS if os.environ.get("ASTJAX_LONG_PROPERTIES") else ATTACKS[::2]


@pytest.mark.parametrize("fn, argsets, outcome", ATTACKS_RUN, ids=[a[0].__name__ for a in ATTACKS_RUN])
def test_jit_gives_pythons_answer_or_refuses(fn, argsets, outcome):
    check_attack(fn, argsets, outcome)


@pytest.mark.parametrize("fn, argsets", GRAD_ATTACKS, ids=[a[0].__name__ for a in GRAD_ATTACKS])
def test_jit_of_grad_gives_grads_answer_or_refuses(fn, argsets):
    check_attack(fn, argsets, EITHER, transform=astjax.grad)


if __name__ == "__main__":       # triage: python tests/test_jit_attacks.py [substring]
    import sys
    import traceback
    pattern = sys.argv[1] if len(sys.argv) > 1 else ""
    for fn, argsets, outcome in ATTACKS:
        if pattern in fn.__name__:
            try:
                refused = check_attack(fn, argsets, outcome)
                print(f"ok      {fn.__name__}" + (f"  refused {refused}" if refused else ""))
            except AssertionError as exc:
                print(f"FAIL    {fn.__name__}: {str(exc)[:400]}")
            except Exception as exc:    # noqa: BLE001
                print(f"CRASH   {fn.__name__}: {type(exc).__name__}: {str(exc)[:300]}")
    for fn, argsets in GRAD_ATTACKS:
        if pattern in fn.__name__:
            try:
                refused = check_attack(fn, argsets, EITHER, transform=astjax.grad)
                print(f"ok      grad {fn.__name__}" + (f"  refused {refused}" if refused else ""))
            except AssertionError as exc:
                print(f"FAIL    grad {fn.__name__}: {str(exc)[:400]}")
            except Exception as exc:    # noqa: BLE001
                print(f"CRASH   grad {fn.__name__}: {type(exc).__name__}: {str(exc)[:300]}")


# ---- state that changes between calls: compiled code must not keep a stale copy


def test_a_global_number_rebound_between_calls(monkeypatch):
    jitted = astjax.jit(A.uses_offset)
    assert float(jitted(1.0)) == 2.0
    monkeypatch.setattr(A, "OFFSET", 5.0)
    assert float(jitted(1.0)) == 6.0
    monkeypatch.setattr(A, "OFFSET", 2)
    assert float(jitted(1.0)) == 3.0


def test_a_global_array_written_into_between_calls(monkeypatch):
    monkeypatch.setattr(A, "TABLE", np.array([1.0, 2.0, 3.0]))
    jitted, x = astjax.jit(A.uses_table), np.ones(3)
    assert float(jitted(x)) == 6.0
    A.TABLE[0] = 100.0                     # Numba compiled the old values in as a constant
    assert float(jitted(x)) == 105.0 == A.uses_table(x)
    monkeypatch.setattr(A, "TABLE", np.array([1.0, 1.0, 1.0]))
    assert float(jitted(x)) == 3.0


def test_a_closed_over_array_written_into_between_calls():
    a = np.array([1.0, 2.0])
    inner = A.make_closure(a)
    jitted, y = astjax.jit(inner), np.array([1.0, 1.0])
    np.testing.assert_array_equal(jitted(y), [1.0, 2.0])
    a[0] = 50.0
    np.testing.assert_array_equal(jitted(y), inner(y))


def test_jit_of_grad_sees_a_global_array_written_into(monkeypatch):
    monkeypatch.setattr(A, "TABLE", np.array([1.0, 2.0, 3.0]))
    jitted, x = astjax.jit(astjax.grad(A.uses_table)), np.ones(3)
    np.testing.assert_array_equal(jitted(x), [1.0, 2.0, 3.0])
    A.TABLE[1] = -7.0
    np.testing.assert_array_equal(jitted(x), [1.0, -7.0, 3.0])


def test_defaults_changed_after_jit():
    def restore(defaults):
        A.uses_default.__defaults__ = defaults
    saved = A.uses_default.__defaults__
    try:
        jitted = astjax.jit(A.uses_default)
        assert float(jitted(2.0)) == 6.0
        A.uses_default.__defaults__ = (10.0,)
        assert float(jitted(2.0)) == 20.0
    finally:
        restore(saved)


def test_one_jitted_function_over_many_signatures_keeps_each_answer():
    """int, float, float32, 0-d, 1-d, 2-d, int32 and bool through one jitted function, then again in reverse."""
    jitted = astjax.jit(A.poly)
    inputs = [2, 2.0, f32(2.0), np.array(3.0), arr([1.0, 2.0]), arr([[1.0]], f32), arr([1, 2], i32), True]
    for x in inputs + inputs[::-1]:
        want, got = A.poly(x), jitted(x)
        assert mismatch(want, got) is None, (x, want, got)


def test_a_static_python_int_keeps_pythons_arithmetic():
    jitted = astjax.jit(A.static_power, static_argnums=1)
    for n in (3, 70, 200):
        want, got = A.static_power(1.5, n), None
        try:
            got = jitted(1.5, n)
        except AstjaxError as exc:
            assert "attacks.py" in str(exc)
            continue
        assert mismatch(want, got) is None, (n, want, got)
