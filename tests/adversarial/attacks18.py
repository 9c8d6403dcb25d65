"""An attacker's corpus, eighteenth round: user helpers that answer by which object a value is.

astjax's generated code holds astjax Arrays (an ndarray subclass) where the program holds NumPy arrays, and may hold
one object where the program computes two. Helpers that read `.flags`/`.base`, `np.shares_memory`,
`x.__class__`, `hasattr(x, "at")`, `np.asarray(x) is x`, `id(x)`, `repr(x)`, `setflags`, in-place ufuncs with
`out=`, helpers reached through a dict, `getattr` on a module, a local name, a loop over a list or a method, a
chain of 24 helpers (deeper than primal_calls.py looked), recursion, a global array written by a helper, and
the same helpers called with values no tangent goes into (forward mode calls them too). Each must give NumPy's
number or a clear refusal at the user's line.
"""
import types

import numpy as np

import astjax.numpy as jnp  # noqa: F401  (the corpus convention: programs may use either namespace)

from .case import case, long_only


def _x(*values):
    return np.array(values, dtype=np.float64)


_X4 = lambda r: (_x(0.3, -0.7, 1.1, 0.5),)      # noqa: E731


# ============================================================ identity: `is` and id()
def asarray_is_the_argument(x):
    """NumPy: np.asarray of an ndarray is that ndarray (first branch); astjax's Array gave a new one."""
    if np.asarray(x) is x:
        return np.sum(x ** 2)
    return np.sum(3 * x ** 2)


case(asarray_is_the_argument, _X4, "either")


def _contiguous_or_scaled(y):
    if np.ascontiguousarray(y) is y:
        return y * 2.0
    return y * 3.0


def helper_asks_ascontiguousarray_is(x):
    return np.sum(_contiguous_or_scaled(x) ** 2)


case(helper_asks_ascontiguousarray_is, _X4, "either")


def asarray_is_not(x):
    y = np.asarray(x, dtype=np.float64)
    if y is not x:
        return np.sum(3 * x ** 2)
    return np.sum(x ** 2)


case(asarray_is_not, _X4, "either")


def product_by_one_is_new(x):
    """NumPy: x * 1.0 is a new array (second branch); the derivative's code held x itself."""
    y = x * 1.0
    if y is x:
        return np.sum(x ** 2)
    return np.sum(3 * x ** 2)


case(product_by_one_is_new, _X4, "either")


def _two_or_three(y):
    return 2.0 if np.asarray(y) is y else 3.0


def helper_is_on_a_constant_of_x(x):
    """The helper gets np.floor(x) (no tangent goes in): forward mode called it as written on an astjax Array."""
    return np.sum(x ** 2) * _two_or_three(np.floor(x))


case(helper_is_on_a_constant_of_x, _X4, "either")


def _same_object(y):
    return 2.0 if id(y) == id(np.asarray(y)) else 3.0


def helper_compares_ids(x):
    return np.sum(x ** 2) * _same_object(np.floor(x))


case(helper_compares_ids, _X4, "either")


def none_default_then_is(x, scale=None):
    if scale is None:
        scale = 2.0
    return np.sum(x ** 2) * scale


case(none_default_then_is, _X4, "works")


# ============================================================ storage: flags, base, class, hasattr
def _by_flags(y):
    return y * (2.0 if y.flags.writeable else 3.0)


def helper_reads_flags(x):
    return np.sum(_by_flags(x) ** 2)


case(helper_reads_flags, _X4, "either")


def _by_base(y):
    return 2.0 if y.base is None else 3.0


def helper_reads_base_of_a_constant(x):
    return np.sum(x ** 2) * _by_base(np.floor(x) * 1.0)


case(helper_reads_base_of_a_constant, _X4, "either")


def _by_class(y):
    return 2.0 if y.__class__ is np.ndarray else 3.0


def helper_reads_class_of_a_constant(x):
    return np.sum(x ** 2) * _by_class(np.floor(x))


case(helper_reads_class_of_a_constant, _X4, "either")


def _by_at(y):
    return 3.0 if hasattr(y, "at") else 2.0


def helper_asks_hasattr_at(x):
    return np.sum(x ** 2) * _by_at(np.floor(x))


case(helper_asks_hasattr_at, _X4, "either")


def _shares(a, b):
    return a * (2.0 if np.shares_memory(a, b) else 3.0)


def helper_shares_memory(x):
    return np.sum(_shares(x[:2], x) ** 2)


case(helper_shares_memory, _X4, "either")


def _frozen_copy(y):
    z = y.copy()
    z.setflags(write=False)
    return z * 2.0


def helper_setflags(x):
    return np.sum(_frozen_copy(x) ** 2)


case(helper_setflags, _X4, "either")


# ============================================================ in-place writes a helper hides
def _doubled_in_place(y):
    z = y.copy()
    np.multiply(z, 2.0, out=z)
    return z


def helper_copy_then_out(x):
    return np.sum(_doubled_in_place(x) ** 2)


case(helper_copy_then_out, _X4, "either")


def _view_doubled(y):
    a = y.copy()
    b = a[1:]
    np.multiply(b, 2.0, out=b)
    return a


def helper_out_into_a_view(x):
    return np.sum(_view_doubled(x) ** 2)


case(helper_out_into_a_view, _X4, "either")


def _fill_argument(y):
    y.fill(0.0)


def helper_fills_its_argument(x):
    z = x * 1.0
    _fill_argument(z)
    return np.sum(z ** 2) + x[0]


case(helper_fills_its_argument, _X4, "either")


def _first_set(y):
    z = y.copy()
    z[0] = 5.0
    return z


_TABLE = {"first": _first_set}
_MODULE = types.SimpleNamespace(first=_first_set)


def helper_from_a_dict(x):
    return np.sum(_TABLE["first"](x) ** 2)


case(helper_from_a_dict, _X4, "either")


def helper_by_getattr(x):
    return np.sum(getattr(_MODULE, "first")(x) ** 2)


case(helper_by_getattr, _X4, "either")


_G = np.zeros(4)


def _into_global(y):
    _G[...] = y
    return 1.0


def helper_writes_a_global(x):
    _into_global(np.floor(x))
    return np.sum(x ** 2 * _G)


case(helper_writes_a_global, _X4, "either")


def _recursive_set(y, n):
    if n == 0:
        z = y.copy()
        z[0] = 5.0
        return z
    return _recursive_set(y, n - 1)


def recursion_down_to_a_write(x):
    return np.sum(_recursive_set(x, 3) ** 2)


case(recursion_down_to_a_write, _X4, "either")


# ============================================================ helpers reached through a local name, a list, a method
def _class_of(y):
    return 2.0 if type(y) is np.ndarray else 3.0


_HELPERS = [_class_of]


def helper_through_a_local_name(x):
    """`f = helper; f(v)` on a value no tangent goes into: called as written on an astjax Array (silently wrong)."""
    f = _class_of
    return np.sum(x ** 2) * f(np.floor(x))


case(helper_through_a_local_name, _X4, "either")


def helper_from_a_loop_over_a_list(x):
    total = 0.0
    for f in _HELPERS:
        total = total + f(np.floor(x))
    return np.sum(x ** 2) * total


case(helper_from_a_loop_over_a_list, _X4, "either")


def helper_local_name_writes_an_item(x):
    g = _first_set
    return np.sum(x * g(np.floor(x)))


case(helper_local_name_writes_an_item, _X4, "either")


class _Scaler:
    def scale(self, y):
        return 2.0 if type(y) is np.ndarray else 3.0


def helper_as_a_method(x):
    return np.sum(x ** 2) * _Scaler().scale(np.floor(x))


case(helper_as_a_method, _X4, "either")


def repr_of_an_array(x):
    return np.sum(x ** 2) * (2.0 if repr(np.floor(x)).startswith("array") else 3.0)


case(repr_of_an_array, _X4, "either")


# ============================================================ a chain of 24 helpers ending in an item write
def _deep0(y):
    z = y.copy()
    z[0] = 5.0
    return z


def _deep1(y):
    return _deep0(y)


def _deep2(y):
    return _deep1(y)


def _deep3(y):
    return _deep2(y)


def _deep4(y):
    return _deep3(y)


def _deep5(y):
    return _deep4(y)


def _deep6(y):
    return _deep5(y)


def _deep7(y):
    return _deep6(y)


def _deep8(y):
    return _deep7(y)


def _deep9(y):
    return _deep8(y)


def _deep10(y):
    return _deep9(y)


def _deep11(y):
    return _deep10(y)


def _deep12(y):
    return _deep11(y)


def _deep13(y):
    return _deep12(y)


def _deep14(y):
    return _deep13(y)


def _deep15(y):
    return _deep14(y)


def _deep16(y):
    return _deep15(y)


def _deep17(y):
    return _deep16(y)


def _deep18(y):
    return _deep17(y)


def _deep19(y):
    return _deep18(y)


def _deep20(y):
    return _deep19(y)


def _deep21(y):
    return _deep20(y)


def _deep22(y):
    return _deep21(y)


def _deep23(y):
    return _deep22(y)


def helpers_24_deep(x):
    """grad crashed ("astjax arrays are immutable", in no line of the user's): primal_calls.py looked 20 deep."""
    return np.sum(_deep23(x) ** 2)


case(helpers_24_deep, _X4, "works")


# the cases of the mechanisms fixed with this round (tests/test_attacks18.py pins them as well)
_FIXED_HERE = ("asarray_is_the_argument", "product_by_one_is_new", "helper_is_on_a_constant_of_x",
               "helpers_24_deep", "helper_through_a_local_name")
LONG_ONLY = long_only("attacks18", _FIXED_HERE)
