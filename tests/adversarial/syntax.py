"""Syntax a parser-based tool may trip on: semicolons, backslash continuations,
multi-line calls, annotations, docstrings, comments, imports inside functions,
functions defined under `if`, nested decorators, f-strings, long expressions.
Errors must still name the right line; values must still be right."""
import math

import numpy as np

import astjax.numpy as jnp

from .case import case, vec, mat, scalar


def semicolons(x):
    a = x * 2.0; b = jnp.sin(a); c = b * x  # noqa: E702
    return jnp.sum(c)


case(semicolons, lambda r: (vec(r, 3),), "works")


def backslash_continuation(x):
    y = x[0] * 2.0 + \
        x[1] * 3.0 + \
        jnp.sin(x[2])
    return y * y


case(backslash_continuation, lambda r: (vec(r, 3),), "works")


def multiline_call_and_comments(x):
    y = jnp.sum(  # a comment inside the call
        jnp.tanh(
            x * 2.0
            # a comment line between arguments
        ),
    )
    return y * x[0]


case(multiline_call_and_comments, lambda r: (vec(r, 3),), "works")


def annotated(x: np.ndarray, scale: float = 2.0) -> float:
    """A docstring, then annotated assignments."""
    y: np.ndarray = x * scale
    total: float = jnp.sum(y ** 2)
    return total


case(annotated, lambda r: (vec(r, 3),), "works")


def annotation_without_value(x):
    y: float
    y = jnp.sum(x) * 3.0
    return y * y


case(annotation_without_value, lambda r: (vec(r, 3),), "works")


def import_inside_function(x):
    import numpy
    return numpy.sum(numpy.sin(x) ** 2)


case(import_inside_function, lambda r: (vec(r, 3),), "either")


def from_import_inside_function(x):
    from math import pi
    return jnp.sum(x * pi)


case(from_import_inside_function, lambda r: (vec(r, 3),), "either")


if True:
    def defined_under_if(x):
        return jnp.sum(jnp.cos(x) * x)

    case(defined_under_if, lambda r: (vec(r, 3),), "works")


def fstring_print(x):
    y = jnp.sum(x ** 2)
    label = f"loss={float(y):.3f}"  # noqa: F841
    return y


case(fstring_print, lambda r: (vec(r, 3),), "either",
     note="float(y) of a traced value inside an f-string (only for display)")


def very_long_expression(x):
    return (x[0] * x[1] + jnp.sin(x[2]) * jnp.cos(x[0]) - x[1] ** 3 / (2.0 + x[2] ** 2) + jnp.tanh(x[0] - x[1])
            * jnp.exp(-x[2] ** 2) + jnp.log(1.0 + x[0] ** 2) * jnp.sqrt(1.0 + x[1] ** 2) - x[0] * x[1] * x[2])


case(very_long_expression, lambda r: (vec(r, 3),), "works")


def lambda_and_def_on_nearby_lines(x):
    f = lambda v: v * 3.0; g = lambda v: v * 5.0  # noqa: E702,E731
    return f(x[0]) + g(x[1])


case(lambda_and_def_on_nearby_lines, lambda r: (vec(r, 2),), "works")


def math_constants_and_builtins(x):
    return jnp.sum(x * math.pi) + abs(x[0]) * 2.0 + max(x[1], 0.0) + min(x[2], 5.0) + pow(x[0], 2)


case(math_constants_and_builtins, lambda r: (np.array([0.5, 0.7, 0.3]),), "works")


def builtin_round_and_divmod(x):
    q, rem = divmod(7, 3)
    return x[0] * q + x[1] * rem + round(2.6) * x[2]


case(builtin_round_and_divmod, lambda r: (vec(r, 3),), "works")


def string_keys_and_formatting(params):
    total = 0.0
    for i in range(2):
        total = total + jnp.sum(params[f"w{i}"] ** 2)
    return total


case(string_keys_and_formatting, lambda r: ({"w0": vec(r, 2), "w1": vec(r, 3)},), "works")


def augmented_power_and_floordiv(x):
    y = x * 1.0
    y **= 2
    k = 7
    k //= 2
    y *= k
    return jnp.sum(y)


case(augmented_power_and_floordiv, lambda r: (vec(r, 3),), "works")


def unary_and_bitwise_on_ints(x):
    k = ~1 & 0xF | 2
    s = -x[0] * k + +x[1]
    return s * (k >> 1)


case(unary_and_bitwise_on_ints, lambda r: (vec(r, 2),), "works")


def matmul_operator_augmented(A, x):
    y = x * 1.0
    y = A @ y
    y @= A
    return jnp.sum(y ** 2)


case(matmul_operator_augmented, lambda r: (mat(r, 3), vec(r, 3)), "either", argnums=(0, 1))


def tuple_return_indexed(x):
    return (jnp.sum(x ** 2), jnp.sum(x))[0]


case(tuple_return_indexed, lambda r: (vec(r, 3),), "works")


def nested_function_with_decorator_inside(x):
    def twice(fn):
        def inner(v):
            return fn(fn(v))
        return inner

    @twice
    def step(v):
        return jnp.sin(v) + 0.5 * v
    return jnp.sum(step(x))


case(nested_function_with_decorator_inside, lambda r: (vec(r, 3),), "either")


def is_and_in_operators(x, mode):
    s = jnp.sum(x ** 2)
    if mode is not None and "double" in mode:
        s = s * 2.0
    return s


case(is_and_in_operators, lambda r: (vec(r, 3), "double_it"), "works", jvp=False)
