"""A module that shadows the builtin `range` (and `len`) at module level: generated
code must not pick up the user's globals for its own loops. Category: names."""
import astjax.numpy as jnp

from .case import case, vec


def range(n):  # noqa: A001 -- shadows the builtin on purpose: it counts down
    return [n - 1 - k for k in __builtins__["range"](n)] if isinstance(__builtins__, dict) \
        else [n - 1 - k for k in __builtins__.range(n)]


def user_range_shadows_builtin(x):
    s = 0.0
    for i in range(3):
        s = s * 2.0 + x[i]
    return s


case(user_range_shadows_builtin, lambda r: (vec(r, 3),), "either", category="names")


def loop_over_list_in_module_with_user_range(x):
    s = 0.0
    for v in [x[0], x[1], x[2]]:
        s = s * v + 1.0
    return s


case(loop_over_list_in_module_with_user_range, lambda r: (vec(r, 3),), "works", category="names")


def len(obj):  # noqa: A001 -- shadows the builtin on purpose
    return 2


def user_len_shadows_builtin(x):
    items = [x[0], x[1], x[2]]
    s = 0.0
    for v in items:
        s = s + v * len(items)
    return s


case(user_len_shadows_builtin, lambda r: (vec(r, 3),), "works", category="names")
