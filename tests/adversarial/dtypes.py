"""dtypes as JAX keeps them: float32 inputs stay float32 through grad, hessian,
jacfwd(grad), jvp(grad); Python floats are weakly typed (float32); booleans times
a float are float32; gradients have the dtype of their input. Numbers are checked
against float64 finite differences with float32 tolerances."""
import numpy as np

import astjax
import astjax.numpy as jnp

from .case import case, vec, scalar
from .harness import fd_grad, fd_hessian

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


def _as64(args):
    return tuple(np.asarray(a, dtype=np.float64) for a in args)


def smooth32(x):
    return jnp.sum(jnp.sin(x) * x ** 2) + x[0] * x[1]


def _check_float32_grad(fn, args):
    args32 = tuple(np.asarray(a, dtype=np.float32) for a in args)
    value, g = astjax.value_and_grad(fn)(*args32)
    expected = fd_grad(fn, _as64(args32), 0)[0]
    return [(value, F32, "value dtype"), (g, F32, "grad dtype"), (g, expected, "grad (float32 tolerance)")]


case(smooth32, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_float32_grad, rtol=2e-3,
     name="float32_grad")


def _check_float32_second_order(fn, args):
    args32 = tuple(np.asarray(a, dtype=np.float32) for a in args)
    H = fd_hessian(fn, _as64(args32))
    t = np.array([1.0, -0.5, 0.25], dtype=np.float32)
    h = astjax.hessian(fn)(*args32)
    jg = astjax.jacfwd(astjax.grad(fn))(*args32)
    _, hvp = astjax.jvp(astjax.grad(fn), args32, (t,))
    return [(h, F32, "hessian dtype"), (h, H, "hessian"), (jg, F32, "jacfwd(grad) dtype"), (jg, H, "jacfwd(grad)"),
            (hvp, F32, "jvp(grad) dtype"), (hvp, H @ t.astype(np.float64), "jvp(grad)")]


case(smooth32, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_float32_second_order, rtol=3e-3,
     name="float32_second_order")


def bool_mask_times_float(x):
    w = (x > 0) * 1.0
    return jnp.sum(w * x ** 2)


def _check_bool_mask_dtype(fn, args):
    args32 = tuple(np.asarray(a, dtype=np.float32) for a in args)
    g = astjax.grad(fn)(*args32)
    mask = jnp.asarray(args32[0]) > 0
    return [(mask * 1.0, F32, "bool_array * 1.0"), (1 - mask, np.dtype(np.int32), "1 - bool_array"),
            (g, F32, "grad dtype"), (g, fd_grad(fn, _as64(args32), 0)[0], "grad")]


case(bool_mask_times_float, lambda r: (np.array([0.3, -0.6, 0.8]),), "works", mode="custom",
     check=_check_bool_mask_dtype, rtol=2e-3, name="bool_times_float_is_float32")


def mixed_precision(x32, y64):
    return jnp.sum(x32 * y64 + jnp.sin(x32) * 2.0)


def _check_mixed(fn, args):
    x32 = np.asarray(args[0], dtype=np.float32)
    y64 = np.asarray(args[1], dtype=np.float64)
    gx, gy = astjax.grad(fn, argnums=(0, 1))(x32, y64)
    a64 = (x32.astype(np.float64), y64)
    return [(gx, F32, "gradient of the float32 argument is float32"),
            (gy, F64, "gradient of the float64 argument is float64"),
            (gx, fd_grad(fn, a64, 0)[0], "d/dx32"), (gy, fd_grad(fn, a64, 1)[0], "d/dy64")]


case(mixed_precision, lambda r: (vec(r, 3), vec(r, 3)), "works", mode="custom", check=_check_mixed, rtol=2e-3)


def python_float_argument(x):
    return x ** 3 + jnp.sin(x)


def _check_python_float(fn, args):
    x = float(args[0])
    g = astjax.grad(fn)(x)
    return [(g, F32, "grad of a Python float is float32 (weak type)"), (g, 3 * x * x + np.cos(x), "grad")]


case(python_float_argument, lambda r: (scalar(r),), "works", mode="custom", check=_check_python_float, rtol=2e-3)


def float64_stays_float64(x):
    y = x * 2.0 + 1
    z = jnp.sum(y * jnp.ones(3)) + jnp.sum(jnp.zeros_like(x) + x ** 2)
    return z


def _check_float64(fn, args):
    value, g = astjax.value_and_grad(fn)(*args)
    _, hvp = astjax.jvp(astjax.grad(fn), tuple(args), (np.ones(3),))
    return [(value, F64, "value dtype"), (g, F64, "grad dtype"), (hvp, F64, "jvp(grad) dtype"),
            (g, fd_grad(fn, args, 0)[0], "grad")]


case(float64_stays_float64, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_float64)


def int_array_times_float_argument(x, counts):
    return jnp.sum(counts * x ** 2) + jnp.sum(counts) * 0.5


def _check_int_times_float32(fn, args):
    x32 = np.asarray(args[0], dtype=np.float32)
    counts = np.asarray(args[1], dtype=np.int32)
    g = astjax.grad(fn)(x32, counts)
    return [(g, F32, "grad dtype (int32 * float32 is float32)"),
            (g, fd_grad(fn, (x32.astype(np.float64), counts), 0)[0], "grad")]


case(int_array_times_float_argument, lambda r: (vec(r, 3), np.array([1, 2, 3])), "works", mode="custom",
     check=_check_int_times_float32, rtol=2e-3)


def zeros_default_dtype_in_float64_program(x):
    acc = jnp.zeros(3)
    for i in range(3):
        acc = acc + x * (i + 1.0)
    return jnp.sum(acc * acc)


case(zeros_default_dtype_in_float64_program, lambda r: (vec(r, 3),), "works", rtol=1e-5,
     note="jnp.zeros is float32 by default: a float64 x promotes the accumulator; values must stay accurate")


def float16_input(x):
    return jnp.sum(x * x)


def _check_float16(fn, args):
    x16 = np.asarray(args[0], dtype=np.float16)
    g = astjax.grad(fn)(x16)
    return [(g, np.dtype(np.float16), "grad dtype float16"), (g, 2.0 * x16.astype(np.float64), "grad")]


case(float16_input, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_float16, rtol=1e-2)
