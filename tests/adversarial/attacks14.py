"""An attacker's corpus, fourteenth round: Python's object model where earlier rounds did not go, and the API's
argument conventions.

Mutation through what a call returns (`d.setdefault(k, []).append(v)`, `d.get(k).append(v)`,
`helper(d).append(v)`) and dict mutators through another name (`e = d; e.update(...)`, `inner = d["a"]`,
`d["a"].update(b=v)`, a loop's `d.update(...)` over a list of dicts): grad dropped the change (the value was
right, the gradient silently wrong); now refused at the line. A module-level list or dict changed in place
(`_G.clear(); _G.extend(...)`, `CFG.update(...)`): read as a constant, grad and jvp gave 0 (jvp of `_G.append`
crashed); now refused. In-place changes spelled another way: `m.__setitem__(0, v)`, `z.__iadd__(1.0)`,
`dict.update(d, ...)`, `list.append(l, v)`, a ufunc's output passed positionally (`np.add(z, 1.0, z)`): grad
dropped the change, or computed another value (wrong values as well as wrong gradients); now refused. A write
into the copy that advanced indexing makes (`y[[0, 1]][0] = v`, `y[mask][0] += v`, `y[idx][0] = v` with idx an
array): NumPy leaves y unchanged, astjax changed it (wrong values); now refused (when the function runs for an
index of unknown kind). A negative argnum of a function with a defaulted
parameter: grad differentiated the signature's last parameter and shaped that gradient like the last argument
passed; now counted from the function's parameters when each must be passed, refused otherwise (JAX counts it
from the call's arguments). The rest: `and`/`or` returning operands, chained comparisons calling helpers,
nonlocal writes, `sum(gen, start)`, `*args`/`**kwargs` forwarding, keyword-only parameters, array defaults,
`functools.partial` of a differentiated keyword, walrus in loops and comprehensions, `enumerate(zip(...),
start=)`, `sorted(key=)`/`reversed` of lists of arrays, negative/None steps, Ellipsis and np.newaxis, repeated
integer and boolean-mask indices, slices assigned backwards, generators/iterators consumed twice, rows swapped
through views, lists sharing inner lists, and JAX's numbers at boundaries (double where, norm and hypot at zero,
prod and cumprod with a zero, ties in median/quantile) (sampled like attacks12).
"""
import functools

import numpy as np

import astjax
import astjax.numpy as jnp

from .case import CASES, case, vec


def _x(*values):
    return np.array(values, dtype=np.float64)


_X4 = lambda r: (_x(0.3, -0.7, 1.1, 0.5),)      # noqa: E731


# ============================================================ mutation through a call's result or another name
def _list_of(d):
    return d["k"]


def helper_returned_list_append(x):
    d = {"k": [x[2]]}
    _list_of(d).append(x[0])
    return sum(d["k"]) ** 2


case(helper_returned_list_append, _X4, "either")


def dict_get_append(x):
    d = {"k": [x[2]]}
    d.get("k").append(x[0])
    return sum(d["k"]) ** 2


case(dict_get_append, _X4, "either")


def setdefault_append(x):
    d = {}
    d.setdefault("k", []).append(x[0])
    d.setdefault("k", []).append(x[1] * 2.0)
    return sum(d["k"]) ** 2


case(setdefault_append, _X4, "either")


def dict_update_through_alias(x):
    d = {"b": x[0]}
    e = d
    e.update({"b": x[1] * 4.0})
    return d["b"] ** 2


case(dict_update_through_alias, _X4, "either")


def inner_dict_update(x):
    d = {"a": {"b": x[0]}}
    inner = d["a"]
    inner.update({"b": x[1] * 4.0})
    return d["a"]["b"] ** 2


case(inner_dict_update, _X4, "either")


def inner_dict_update_keyword(x):
    d = {"a": {"b": x[0]}}
    d["a"].update(b=x[1] * 4.0)
    return d["a"]["b"] ** 2


case(inner_dict_update_keyword, _X4, "either")


def list_of_dicts_update(x):
    ds = [{"b": x[0]}, {"b": x[2]}]
    for d in ds:
        d.update({"b": d["b"] * 3.0})
    return (ds[0]["b"] + ds[1]["b"]) ** 2


case(list_of_dicts_update, _X4, "either")


def dict_setdefault_through_alias(x):
    d = {"k": x[0]}
    e = d
    e.setdefault("j", x[1] * 3.0)
    return (d["k"] + d.get("j", 0.0)) ** 2


case(dict_setdefault_through_alias, _X4, "either")


def dict_popitem_inner(x):
    d = {"a": {"b": x[0], "c": x[1]}}
    inner = d["a"]
    k, v = inner.popitem()
    return v * 2.0 + sum(d["a"].values()) * 5.0


case(dict_popitem_inner, _X4, "either")


# ============================================================ a module-level list or dict changed in place
_HISTORY = []
_SETTINGS = {"a": 0.0}


def global_list_refilled(x):
    _HISTORY.clear()
    _HISTORY.extend([x[0], x[1] * 3.0])
    return sum(_HISTORY) ** 2


case(global_list_refilled, _X4, "either")


def global_dict_updated(x):
    _SETTINGS.update(a=x[0] * 3.0)
    return _SETTINGS["a"] ** 2


case(global_dict_updated, _X4, "either")


def global_list_appended(x):
    _HISTORY.clear()
    _HISTORY.append(x[0] * 3.0)
    return sum(_HISTORY) ** 2


case(global_list_appended, _X4, "either")


# ============================================================ in-place changes spelled another way
def special_method_setitem(x):
    items = [x[0]]
    alias = items
    alias.__setitem__(0, x[1] * 3.0)
    return items[0] ** 2


case(special_method_setitem, _X4, "either")


def special_method_iadd_on_array(x):
    y = x * 1.0
    z = y
    z.__iadd__(1.0)
    return jnp.sum(y * x)


case(special_method_iadd_on_array, _X4, "either")


def method_called_through_its_class(x):
    d = {"a": x[0]}
    dict.update(d, a=x[1] * 3.0)
    items = [x[0]]
    list.append(items, x[1] * 3.0)
    return d["a"] ** 2 + sum(items) ** 2


case(method_called_through_its_class, _X4, "either")


def ufunc_output_passed_positionally(x):
    y = x * 1.0
    z = y
    np.add(z, 1.0, z)
    return jnp.sum(y * x)


case(ufunc_output_passed_positionally, _X4, "either")


# ============================================================ writes into a copy made by advanced indexing
def write_into_fancy_index_copy(x):
    y = x * 1.0
    y[[0, 1]][0] = x[1] * 3.0          # NumPy writes into a copy: y is unchanged
    return jnp.sum(y ** 2)


case(write_into_fancy_index_copy, _X4, "either")


def add_into_mask_copy(x):
    y = x * 1.0
    m = y > -5.0
    y[m][0] += 100.0                    # a copy too
    return jnp.sum(y ** 2)


case(add_into_mask_copy, _X4, "either")


def write_into_copy_by_parameter(x, idx):
    y = x * 1.0
    y[idx][0] = 100.0                   # idx an integer array: a copy (checked when the function runs)
    return jnp.sum(y ** 2)


case(write_into_copy_by_parameter, lambda r: (_x(0.3, -0.7, 1.1, 0.5), np.array([0, 1])), "either")


def write_into_copy_by_true_or_0d_array(x):
    y = x * 1.0
    flag = True
    y[flag][0] = 100.0                  # y[True] is a copy with a new axis
    m = x.reshape(2, 2) * 1.0
    k = np.array(1)
    m[k][0] = 100.0                     # a 0-d integer array indexes as an array: a copy
    return jnp.sum(y ** 2) + jnp.sum(m ** 2)


case(write_into_copy_by_true_or_0d_array, _X4, "either")


def rows_written_by_loop_indices(x):
    m = x.reshape(2, 2) * 1.0
    for i in np.arange(2):
        m[i][0] = x[i] * 3.0            # integers: rows NumPy writes through
    k = np.argmax(x[:2])
    m[k][1] = x[2] * 3.0
    return jnp.sum(m ** 2)


case(rows_written_by_loop_indices, _X4, "works")


def write_through_a_row(x, i):
    y = x.reshape(2, 2) * 1.0
    y[i][0] = x[3] * 3.0                # i an integer: y[i] is a row NumPy writes through
    return jnp.sum(y ** 2)


case(write_through_a_row, lambda r: (_x(0.3, -0.7, 1.1, 0.5), 1), "works")


def write_into_what_get_returns(x):
    d = {"k": [x[0], x[1]], "a": x * 1.0}
    d.get("k")[0] = x[2] * 3.0          # the list d holds: d["k"][0] changes
    d.get("a")[0] = x[3] * 3.0          # the array d holds
    return sum(d["k"]) ** 2 + jnp.sum(d["a"] ** 2)


case(write_into_what_get_returns, _X4, "either")


# ============================================================ negative argnums
def scaled_product(a, b, scale=1.0):
    return jnp.sum(a ** 2 * b) * scale


case(scaled_product, lambda r: (vec(r, 3), vec(r, 3)), "either", argnums=-1, errors=(TypeError,),
     error_match="pass non-negative argnums", name="negative_argnum_with_default")


def product_of_two(a, b):
    return jnp.sum(a ** 2 * jnp.sin(b))


case(product_of_two, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(-1, 0), name="negative_argnums_tuple")


def _negative_argnums_battery(fn, args):
    a, b = args
    hess_b = np.diag(-a ** 2 * np.sin(b))
    return [(astjax.grad(fn, argnums=-1)(a, b), a ** 2 * np.cos(b), "grad argnums=-1"),
            (astjax.value_and_grad(fn, argnums=-2)(a, b)[1], 2 * a * np.sin(b), "value_and_grad argnums=-2"),
            (astjax.hessian(fn, argnums=-1)(a, b), hess_b, "hessian argnums=-1"),
            (astjax.jacfwd(astjax.grad(fn, argnums=-1), argnums=-1)(a, b), hess_b, "jacfwd(grad) argnums=-1")]


case(product_of_two, lambda r: (vec(r, 3), vec(r, 3)), "works", mode="custom", check=_negative_argnums_battery,
     name="negative_argnums_battery")


# ============================================================ Python semantics
def and_or_operand(x):
    y = x > 0 and x or -x
    return y * y * 3.0


case(and_or_operand, lambda r: (np.float64(-0.7),), "works")


_CALLS = []


def chained_comparison_calls_helper(x):
    def doubled(v):
        _CALLS.append(1)
        return v * 2.0
    if 0.0 < doubled(x) < 5.0:
        return doubled(x) ** 2
    return x


case(chained_comparison_calls_helper, lambda r: (np.float64(1.5),), "works")


def nonlocal_accumulator(x):
    acc = 0.0

    def add(v):
        nonlocal acc
        acc = acc + v * v
    add(x[0])
    add(x[1] * 3.0)
    return acc


case(nonlocal_accumulator, _X4, "works")


def sum_generator_with_start(x):
    return sum((x[i] ** 2 for i in range(3)), x[3])


case(sum_generator_with_start, _X4, "works")


def _forwarded(*args, **kw):
    return args[0] * kw["s"] + args[1]


def star_args_forwarding(x):
    pair = (x[0], x[1])
    options = {"s": x[2]}
    return _forwarded(*pair, **options) ** 2


case(star_args_forwarding, _X4, "works")


def _keyword_only(a, *, scale=2.0, shift):
    return a * scale + shift


def keyword_only_helper(x):
    return jnp.sum(_keyword_only(x, shift=x[0]) ** 2)


case(keyword_only_helper, _X4, "works")


_WEIGHTS = np.array([1.0, 2.0, 3.0, 4.0])


def _weighted(a, w=_WEIGHTS):
    return jnp.sum(a * w)


def array_default_argument(x):
    return _weighted(x) ** 2


case(array_default_argument, _X4, "works")


def _affine(a, b, scale):
    return a * scale + b


def partial_with_differentiated_keyword(x):
    p = functools.partial(_affine, scale=x[1])
    return p(x[0], b=x[2]) ** 2


case(partial_with_differentiated_keyword, _X4, "works")


def walrus_in_loop_and_comprehension(x):
    total = 0.0
    for i in range(3):
        if (t := x[i] * 2.0) > 0:
            total = total + t * t
        else:
            total = total - t
    kept = [y * y for i in range(4) if (y := x[i] + 1.0) > 0.5]
    return total + sum(kept)


case(walrus_in_loop_and_comprehension, _X4, "works")


def enumerate_zip_with_start(x):
    total = 0.0
    for i, (a, b) in enumerate(zip(x, x[::-1]), start=1):
        total = total + i * a * b
    return total


case(enumerate_zip_with_start, _X4, "works")


def sorted_key_and_reversed(x):
    items = [x[0] * 2.0, x[1], x[2] * 3.0]
    ordered = sorted(items, key=lambda v: float(v))
    backwards = list(reversed(items))
    return ordered[0] * 1.0 + ordered[2] * 10.0 + backwards[0] * 100.0


case(sorted_key_and_reversed, _X4, "works")


def strided_slices_ellipsis_newaxis(x):
    m = x[:, np.newaxis] * x[np.newaxis, :]
    return (jnp.sum(x[::-2] * x[-1::-2]) + jnp.sum(x[..., None, 1:] ** 2)
            + jnp.sum(m[np.newaxis, ..., np.newaxis][0, 1:, ::-1, 0] ** 2))


case(strided_slices_ellipsis_newaxis, _X4, "works")


def repeated_index_and_mask(x):
    idx = np.array([0, 0, 2, 2, 2])
    return jnp.sum(x[idx] ** 2) + jnp.sum(x[x > 0.0] ** 3)


case(repeated_index_and_mask, _X4, "works")


def slice_assigned_backwards(x):
    y = np.zeros(4)
    y[::-1] = x
    z = x * 1.0
    z[3:0:-2] = x[:2] * 5.0
    return jnp.sum(y * np.arange(4.0)) + jnp.sum(z ** 2)


case(slice_assigned_backwards, _X4, "works")


def masked_square_in_place(x):
    y = x * 1.0
    m = y > 0
    y[m] = y[m] ** 2
    return jnp.sum(y)


case(masked_square_in_place, _X4, "works")


def late_binding_lambdas(x):
    fs = [lambda: x[i] ** 2 for i in range(3)]      # every lambda reads i == 2
    return sum(f() for f in fs)


case(late_binding_lambdas, _X4, "works")


def loop_variable_shadows_parameter(x):
    total = 0.0
    for x in x:
        total = total + x * x
    return total


case(loop_variable_shadows_parameter, _X4, "works")


def list_insert_and_pop_front(x):
    a = [x[0], x[1], x[2]]
    a.insert(0, x[3] * 4.0)
    v = a.pop(0)
    return v * 3.0 + a[0] * 10.0


case(list_insert_and_pop_front, _X4, "works")


# ============================================================ NumPy and Python semantics astjax refuses
def generator_consumed_twice(x):
    g = (v * v for v in x)
    first = sum(g)
    second = sum(g)          # empty: the generator is spent
    return first + 10.0 * second + x[0]


case(generator_consumed_twice, _X4, "either")


def zip_of_one_iterator(x):
    it = iter([x[0], x[1], x[2], x[3]])
    pairs = list(zip(it, it))           # (x0, x1), (x2, x3)
    return sum(a * b * (k + 1) for k, (a, b) in enumerate(pairs))


case(zip_of_one_iterator, _X4, "either")


def rows_swapped_through_views(x):
    m = x.reshape(2, 2) * 1.0
    m[0], m[1] = m[1], m[0]             # NumPy: both rows end up as the old m[1]
    return jnp.sum(m * np.array([[1.0, 2.0], [3.0, 4.0]]))


case(rows_swapped_through_views, _X4, "either")


def lists_sharing_an_inner_list(x):
    grid = [[0.0] * 2] * 2
    grid[0][0] = x[0]                   # grid[1] is grid[0]
    return grid[1][0] * x[1]


case(lists_sharing_an_inner_list, _X4, "either")


def dict_keys_view_sees_new_key(x):
    d = {"a": x[0]}
    ks = d.keys()
    d["b"] = x[1]
    return sum(d[k] for k in ks) ** 2


case(dict_keys_view_sees_new_key, _X4, "either")


def popped_array_shared(x):
    d = {"a": x * 1.0}
    keep = d["a"]
    a = d.pop("a")
    a += 3.0                            # keep is that array
    return jnp.sum(keep ** 2)


case(popped_array_shared, _X4, "either")


# ============================================================ JAX's numbers at boundaries
def _boundary_numbers(fn, args):
    del fn, args
    with np.errstate(all="ignore"):
        def double_where(v):
            return jnp.sum(jnp.where(v > 0, jnp.log(jnp.where(v > 0, v, 1.0)), 0.0))
        out = [(astjax.grad(double_where)(_x(0.0, 1.0, -1.0)), _x(0.0, 1.0, 0.0), "double where"),
               (astjax.grad(lambda v: jnp.hypot(v[0], v[1]))(_x(0.0, 0.0)), _x(0.5, 0.5), "hypot at 0"),
               (astjax.grad(jnp.prod)(_x(1.5, 0.0, 2.0)), _x(0.0, 3.0, 0.0), "prod with a zero"),
               (astjax.hessian(lambda v: jnp.sum(jnp.cumprod(v)))(_x(1.5, 0.0, 2.0)),
                np.array([[0.0, 3.0, 0.0], [3.0, 0.0, 1.5], [0.0, 1.5, 0.0]]), "hessian of cumprod with a zero"),
               (astjax.grad(jnp.median)(_x(0.5, 0.5, 0.2, 0.5)), _x(0.5, 0.5, 0.0, 0.0), "median at a tie"),
               (astjax.grad(lambda v: jnp.quantile(v, 0.5))(_x(0.5, 0.5, 0.5, 0.2)), _x(0.5, 0.5, 0.0, 0.0),
                "quantile at a tie"),
               (astjax.grad(lambda v: jnp.sum(jnp.sort(v) * _x(1.0, 2.0, 3.0)))(_x(0.5, 0.5, 0.2)),
                _x(2.0, 3.0, 1.0), "sort with ties")]
        norm = np.asarray(astjax.grad(jnp.linalg.norm)(np.zeros(3)))
    out.append((np.isnan(norm).all(), True, "norm at 0 is nan (JAX)"))
    return out


case(_boundary_numbers, lambda r: (), "works", mode="custom", check=_boundary_numbers, name="jax_boundary_numbers")


# Default profile (the suite's time budget): the cases of the mechanisms fixed here, then every third other case
# and the first of each kind of check; ASTJAX_LONG_PROPERTIES=1 runs them all.
from .case import long_only  # noqa: E402

_FIXED_HERE = {"helper_returned_list_append", "setdefault_append", "dict_update_through_alias",
               "inner_dict_update_keyword", "negative_argnum_with_default", "global_list_refilled",
               "global_dict_updated", "special_method_iadd_on_array", "method_called_through_its_class",
               "ufunc_output_passed_positionally", "write_into_fancy_index_copy", "add_into_mask_copy",
               "write_into_copy_by_parameter", "write_through_a_row", "write_into_what_get_returns"}
LONG_ONLY = long_only("attacks14", _FIXED_HERE)
