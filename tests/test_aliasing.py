"""NumPy's mutation semantics: in-place operations either give NumPy's numbers or a clear refusal.

Each "followed" function is checked against running it on fresh float64 NumPy
copies of its inputs (the value), central finite differences (the gradient),
and forward mode (jvp along a fixed direction). Each "refused" function must
raise an astjax error naming this file, the alias and what to write instead.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

GLOBAL_WEIGHTS = np.array([1.0, 2.0, 3.0])


# ---------------------------------------------------------------- followed: NumPy's numbers
def jax_style_rebinding(x):
    y = x * 2
    y += 1
    z = jnp.zeros_like(x)
    z = z.at[0].set(x[0])
    acc = 0.0
    for i in range(3):
        acc += x[i]
    return np.sum(y * z) + acc


def alias_not_read_again(x):
    y = x
    y += 1.0
    return np.sum(y * y)


def copy_then_update(x):
    y = x.copy()
    y[0] = 0.0
    y += x
    return np.sum(y * x)


def np_array_copies(x):
    y = np.array(x)
    y[1] *= 3.0
    return np.sum(y * x)


def update_a_parameter(x):
    x[0] = 0.0          # NumPy changes the caller's array too; astjax never does, the numbers agree
    return np.sum(x * x)


def fresh_array_in_a_loop(x):
    u = x * 1.0
    for _ in range(3):
        new = np.zeros(3)
        new[0] = u[0]
        new[1:] = u[1:] * u[:-1]
        u = new
    return np.sum(u)


def slice_update_of_fresh_array(x):
    y = x * 2.0
    y[1:] += x[:-1]
    y[:2] *= x[1:]
    return np.sum(y ** 2)


def np_add_at_accumulates(x, v):
    y = x * 1.0
    np.add.at(y, [0, 0, 2], v)
    return np.sum(y * y)


def np_subtract_at(x, v):
    y = x * 1.0
    np.subtract.at(y, [1, 1], v)
    return np.sum(y * x)


def fill_in_place(x):
    y = x * 1.0
    y.fill(x[0])
    return np.sum(y * x)


def out_argument(x):
    y = x * 1.0
    np.multiply(x, x, out=y)
    return np.sum(y * x)


def index_array_without_repeats(x, idx):
    y = x * 1.0
    y[idx] += x[0]
    y[idx] = y[idx] * 2.0
    return np.sum(y * y)


def boolean_mask_update(x):
    y = x * 1.0
    y[y > 1.5] = 0.0
    return np.sum(y * x)


def number_accumulator_kept(x):
    s = 0.0
    prev = s
    s += x[0]
    return s - prev + x[1]


def integer_array_of_integers(x):
    counts = np.zeros(3, dtype=int)
    counts[0] = 2
    counts[1] += 1
    return np.sum(counts * x)


def branches_unshared(x, flag):
    if flag > 0:
        y = x * 2.0
    else:
        y = x + 1.0
    y[0] = 1.0
    return np.sum(y * x)


FOLLOWED = [
    (jax_style_rebinding, ([1.0, 2.0, 3.0],)),
    (alias_not_read_again, ([1.0, 2.0, 3.0],)),
    (copy_then_update, ([1.0, 2.0, 3.0],)),
    (np_array_copies, ([1.0, 2.0, 3.0],)),
    (update_a_parameter, ([1.0, 2.0, 3.0],)),
    (fresh_array_in_a_loop, ([1.1, 1.2, 1.3],)),
    (slice_update_of_fresh_array, ([1.0, -2.0, 3.0],)),
    (np_add_at_accumulates, ([1.0, 2.0, 3.0], 2.0)),
    (np_subtract_at, ([1.0, 2.0, 3.0], 0.5)),
    (fill_in_place, ([1.0, 2.0, 3.0],)),
    (out_argument, ([1.0, 2.0, 3.0],)),
    (index_array_without_repeats, ([1.0, 2.0, 3.0, 4.0], np.array([3, 0]))),
    (boolean_mask_update, ([1.0, 2.0, 1.2],)),
    (number_accumulator_kept, ([1.0, 2.0],)),
    (integer_array_of_integers, ([1.0, 2.0, 3.0],)),
    (branches_unshared, ([1.0, 2.0, 3.0], 1.0)),
    (branches_unshared, ([1.0, 2.0, 3.0], -1.0)),
]


def _numpy(args):
    return [np.array(a, dtype=np.float64) if isinstance(a, list) else (np.copy(a) if isinstance(a, np.ndarray)
            else a) for a in args]


def _central_differences(fn, args, h=1e-6):
    x = np.array(args[0], dtype=np.float64)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (float(fn(up, *_numpy(args[1:]))) - float(fn(down, *_numpy(args[1:])))) / (2 * h)
    return grad


@pytest.mark.parametrize("fn, args", FOLLOWED, ids=lambda v: getattr(v, "__name__", ""))
def test_in_place_code_gives_numpys_value_and_gradient(fn, args):
    expected_value = float(fn(*_numpy(args)))
    value, grad = astjax.value_and_grad(fn)(*_numpy(args))
    assert np.allclose(float(value), expected_value, rtol=1e-12, atol=1e-12)
    assert np.allclose(np.asarray(grad), _central_differences(fn, args), rtol=1e-6, atol=1e-6)
    direction = np.linspace(0.5, 1.5, np.size(args[0])).reshape(np.shape(args[0]))
    primals = _numpy(args)
    tangents = [direction] + [np.zeros_like(np.asarray(a, dtype=float)) for a in primals[1:]]
    _, tangent = astjax.jvp(fn, tuple(primals), tuple(tangents))
    assert np.allclose(float(tangent), float(np.sum(np.asarray(grad) * direction)), rtol=1e-9, atol=1e-9)


def test_np_add_at_accumulates_the_derivative_of_each_repetition():
    x = np.array([1.0, 2.0, 3.0])
    grad_v = astjax.grad(np_add_at_accumulates, argnums=1)(x, 2.0)
    h = 1e-6
    expected = (np_add_at_accumulates(x.copy(), 2.0 + h) - np_add_at_accumulates(x.copy(), 2.0 - h)) / (2 * h)
    assert np.allclose(float(grad_v), expected, rtol=1e-6)


def two_fresh_arrays_unpacked(x):
    a, b = np.zeros(3), np.zeros(3)
    a[0] = x[0]
    b[1] = x[1]
    a += b
    return np.sum(a * b) + np.sum(a * x)


def time_stepping(x):
    u = x.copy()
    for _ in range(3):
        u_new = u.copy()
        u_new[1:-1] = u[1:-1] + 0.1 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        u = u_new
    return np.sum(u * u)


def while_with_counter(x):
    i = 0
    y = np.zeros(3)
    while i < 3:
        y[i] += x[i] * x[i]
        i += 1
    return np.sum(y)


FOLLOWED += [
    (two_fresh_arrays_unpacked, ([1.0, 2.0, 3.0],)),
    (time_stepping, ([1.0, 2.0, 3.0, 1.5, 0.5],)),
    (while_with_counter, ([1.0, 2.0, 3.0],)),
]


def step_in_place(u):
    u += 0.5 * u
    return u


def count_down(n, x):
    n -= 1
    return x * n


def helper_result_only(x):
    y = x * 1.0
    v = step_in_place(y)            # NumPy changes y too, but y is not read again
    return np.sum(v * v)


def helper_on_a_number(x):
    k = 3
    return np.sum(count_down(k, x)) + k


def local_body_accumulates(x):
    def body(i, acc):
        acc += x[i] ** 2
        return acc
    return astjax.lax.fori_loop(0, 3, body, 0.0)


def local_helper_result_only(x):
    def bump(a):
        a += 1.0
        return a
    y = x * 1.0
    z = bump(y)
    return np.sum(z * z)


def doubled(a):
    return a * 2.0


def helper_result_is_fresh(x):
    y = x * 1.0
    v = doubled(y)
    y[0] = 1.0                       # v is a new array: NumPy leaves it alone
    return np.sum(v * x) + np.sum(y * x)


FOLLOWED += [
    (helper_result_is_fresh, ([1.0, 2.0, 3.0],)),
    (local_body_accumulates, ([1.0, 2.0, 3.0],)),
    (local_helper_result_only, ([1.0, 2.0, 3.0],)),
    (helper_result_only, ([1.0, 2.0, 3.0],)),
    (helper_on_a_number, ([1.0, 2.0, 3.0],)),
]


# A list object and the arrays it holds are told apart: a list mutator conflicts only with the names
# that may reach the list itself (another name for it, a list holding it), not with its items.
def history_read_while_it_grows(x):
    h = [x[0] * 1.0, x[1] * 1.0]
    for i in range(2, 5):
        h.append(h[i - 1] * 0.5 + h[i - 2] * x[2])
    return h[-1] + h[2]


def accumulator_appended_then_rebound(x):
    out = []
    for i in range(2):
        acc = 0.0
        for j in range(2):
            acc = acc + x[i + j] * x[j]
        out.append(acc)
    return jnp.sum(jnp.stack(out) ** 2)


def item_read_then_list_grows(x):
    xs = [x * 1.0]
    v = xs[0]
    xs.append(v * 2.0)
    return np.sum(v * xs[1])


def array_in_a_list_rebound_not_changed(x):
    row = x * 1.0
    rows = [row]
    row = row + 1.0
    rows.append(row)
    return np.sum(rows[0] * rows[1])


def items_removed_while_read(x):
    items = [1.0, 2.0, 3.0]
    s = 0.0
    while len(items) > 0:
        v = items[0]
        s = s + v * np.sum(x ** 2)
        items.remove(v)
    return s


def loop_over_a_list_that_grew(x):
    items = [x[0], x[1] * 2.0]
    for i in range(len(items)):
        items.append(items[i] * x[2])
    s = 0.0
    for v in items:
        s = s + v
    return s


FOLLOWED += [
    (history_read_while_it_grows, ([1.0, 2.0, 0.5],)),
    (accumulator_appended_then_rebound, ([1.0, 2.0, 3.0],)),
    (item_read_then_list_grows, ([1.0, 2.0, 3.0],)),
    (array_in_a_list_rebound_not_changed, ([1.0, 2.0, 3.0],)),
    (items_removed_while_read, ([1.0, 2.0, 3.0],)),
    (loop_over_a_list_that_grew, ([1.0, 2.0, 3.0],)),
]


def changed_array_read_by_a_lambda_later(x):
    row = x * 1.0
    first = lambda: row             # noqa: E731  (reads the name when it runs: the new value)
    row += 1.0
    return np.sum(first() * x)


FOLLOWED += [(changed_array_read_by_a_lambda_later, ([1.0, 2.0, 3.0],))]


def test_the_callers_array_is_never_written():
    x = np.array([1.0, 2.0, 3.0])
    astjax.grad(update_a_parameter)(x)
    assert np.array_equal(x, [1.0, 2.0, 3.0])


# ---------------------------------------------------------------- refused: the alias is named
def alias_read_after_augmented(x):
    y = x
    y += 1.0
    return np.sum(x * y)


def alias_read_after_item_write(x):
    y = x * 2.0
    z = y
    z[0] = 0.0
    return np.sum(y * x)


def view_by_slice(x):
    b = x * 1.0
    a = b[1:]
    a[0] = 5.0
    return np.sum(b * x)


def view_by_transpose(x):
    A = x * 1.0
    b = A.T
    b[0] += 1.0
    return np.sum(A * A)


def view_by_reshape(x):
    A = x * 1.0
    b = A.reshape(3, 1)
    b += 1.0
    return np.sum(A * x)


def view_by_asarray(x):
    y = np.asarray(x)
    y[0] = 0.0
    return np.sum(x * y)


def alias_on_one_branch(x, flag):
    if flag > 0:
        y = x
    else:
        y = x * 2.0
    y[0] = 1.0
    return np.sum(x * y)


def alias_from_last_iteration(x):
    y = x * 1.0
    prev = y
    for _ in range(2):
        y += x
        prev = y            # rebound before it is read again: the old alias is never seen (followed)
    return np.sum(prev)


def alias_read_in_next_iteration(x):
    y = x * 1.0
    prev = y
    s = 0.0
    for _ in range(2):
        y += x
        s = s + np.sum(prev)    # the alias of y NumPy just changed
        prev = y
    return s


def old_neighbour_read_before_rebinding(b):
    u = np.zeros(len(b))
    for sweep in range(3):
        for i in range(len(b)):
            left = u[i - 1] if i > 0 else 0.0       # a number read from u, bound anew each iteration
            u[i] = 0.5 * (b[i] + left)
    return np.sum(u ** 2)


def old_value_kept_in_a_list(x):
    y = x * 1.0
    kept = [y]
    y *= 2.0
    return np.sum(kept[0])


def mutates_a_global(x):
    w = GLOBAL_WEIGHTS
    w[0] = x[0]
    return np.sum(w * x)


def local_function_writes_its_argument(x):
    def zero_first(a):
        a[0] = 0.0
        return a
    y = zero_first(x)
    return np.sum(x * y)


def repeated_literal_index(x, v):
    y = x * 1.0
    y[[0, 0, 2]] += v
    return np.sum(y * y)


def float_into_integer_array(x):
    y = np.zeros(3, dtype=int)
    y[0] = x[0]
    return np.sum(y * x)


def float_into_arange(x):
    y = np.arange(3)
    y += x
    return np.sum(y)


def multiply_at(x, v):
    y = x * 1.0
    np.multiply.at(y, [0, 0], v)
    return np.sum(y)


def out_used_as_value(x):
    y = x * 1.0
    z = np.multiply(x, x, out=y)
    return np.sum(z)


def out_into_alias(x):
    y = x
    np.multiply(x, 2.0, out=y)
    return np.sum(x * y)


def copyto(x):
    y = x * 1.0
    np.copyto(y, x * 2.0)
    return np.sum(y)


def old_accumulator_read(x):
    s = x[0] * 1.0
    prev = s
    s += x[1]
    return s - prev


def zero_first_through_an_alias(a):
    b = a
    b[0] = 0.0


def helper_writes_an_array_read_later(x):
    y = x * 1.0
    v = step_in_place(y)
    return np.sum(y * v)


def helper_side_effect_only(x):
    y = x * 2.0
    zero_first_through_an_alias(y)
    return np.sum(y * x)


def sort_inside_an_expression(x):
    y = x * 1.0
    unused = [y.sort() for _ in range(1)]
    return np.sum(y * x)


def fill_part_of_an_array(x):
    y = x * 1.0
    y[1:].fill(0.0)
    return np.sum(y * x)


def list_grown_through_an_alias(x):
    ys = [x]
    alias = ys
    unused = [ys.append(v) for v in [x * 2.0]]
    return np.sum(alias[-1])


def first_row(a):
    return a[0]


def weights():
    return GLOBAL_WEIGHTS


def helper_returns_a_view(x):
    A = x * 1.0
    row = first_row(A)
    row += 1.0
    return np.sum(A)


def helper_returns_a_global(x):
    w = weights()
    w *= x
    return np.sum(w)


def shallow_list_copy(x):
    xs = [x * 1.0, x * 2.0]
    ys = xs.copy()
    ys[0] += 1.0                     # NumPy: the array inside xs changes too
    return np.sum(xs[0] * x)


def alias_left_by_break(x):
    y = x * 1.0
    z = x * 2.0
    for i in range(3):
        z = y
        if i == 1:
            break
        z = y * 1.0
    y[0] = 5.0                       # after the break, z is y: NumPy changes z too
    return np.sum(z * x)


def lambda_sorts_in_place(x):
    sort_it = lambda a: a.sort()     # noqa: E731
    y = x * 1.0
    sort_it(y)
    return np.sum(y * np.arange(3.0))


def array_changed_while_in_a_list(x):
    row = x * 1.0
    rows = [row]
    row += 1.0                       # NumPy: rows[0] is row, it changes too
    return np.sum(rows[0] * x)


def inner_list_grown_while_in_a_list(x):
    row = [x[0]]
    rows = []
    rows.append(row)
    row.append(x[1])                 # rows[0] is row: it grows too
    return rows[0][1] * x[0]


def inner_list_grown_through_an_item(x):
    grid = [[x[0]], [x[1]]]
    inner = grid[0]
    inner.append(x[2] * 2.0)         # grid[0] is inner
    return grid[0][-1] * x[0]


def inner_list_grown_through_a_subscript(x):
    xs = [x * 1.0]
    pair = [xs, x]
    pair[0].append(x * 2.0)          # pair[0] is xs
    return np.sum(xs[-1])


def inner_list_grown_through_a_shallow_copy(x):
    grid = [[x[0]], [x[1]]]
    copied = grid.copy()
    copied[0].append(x[2])           # a shallow copy holds the same inner lists
    return grid[0][-1] * x[0]


def _rows_of(x):
    return [x * 1.0, x * 2.0]


def item_changed_in_place_through_its_list(x):
    vals = _rows_of(x)
    a = vals[0]
    vals[0] += 1.0                   # NumPy: the array a is changes in place
    return np.sum(a * x)


def list_comprehension_of_the_same_arrays(x):
    y = x * 1.0
    ys = [y for _ in range(2)]
    y += 1.0                         # ys holds y twice
    return np.sum(ys[0] * x)


def history_of_one_array_changed_in_place(x):
    acc = x * 1.0
    hist = []
    for i in range(3):
        hist.append(acc)
        acc *= 2.0                   # every entry of hist is this one array
    return np.sum(hist[0] * x)


def loop_variable_item_changed(x):
    xs = [x * 1.0, x * 2.0]
    for v in xs:
        v += 1.0                     # v is an item of xs
    return np.sum(xs[0] * x)


def cell_of_a_nested_list_changed(x):
    grid = [[x * 1.0]]
    row = grid[0]
    cell = row[0]
    cell += 1.0
    return np.sum(grid[0][0] * x)


def items_of_a_comprehension_copy_changed(x):
    xs = [x * 1.0, x * 2.0]
    ys = [v for v in xs]             # a new list, the same arrays
    ys[0] += 1.0
    return np.sum(xs[0] * x)


def dict_value_changed_through_a_name(x):
    d = {"a": x * 1.0}
    a = d["a"]
    a += 1.0
    return np.sum(d["a"] * x)


def starred_rest_item_changed(x):
    xs = [x * 1.0, x * 2.0]
    first, *rest = xs
    rest[0] += 1.0
    return np.sum(xs[1] * x)


def list_read_later_by_a_local_function(x):
    row = x * 1.0
    rows = [row]

    def first():
        return rows[0]
    row += 1.0                       # first() reads rows when it runs: NumPy's row, changed
    return np.sum(first() * x)


def item_returned_by_a_local_function_changed(x):
    rows = [x * 1.0, x * 2.0]

    def get(i):
        return rows[i]
    r = get(0)
    r += 1.0                         # r is rows[0]
    return np.sum(rows[0] * x)


def view_returned_by_a_local_function_changed(x):
    y = x * 1.0

    def tail():
        return y[1:]
    v = tail()
    v[0] = 5.0                       # v is a view of y
    return np.sum(y * x)


# a name bound anew before it is read again does not see the array changed in place (liveness)
FOLLOWED_BY_LIVENESS = [(alias_from_last_iteration, ([1.0, 2.0, 3.0],)),
                        (old_neighbour_read_before_rebinding, ([1.0, 2.0, 3.0],))]


@pytest.mark.parametrize("fn, args", FOLLOWED_BY_LIVENESS, ids=lambda v: getattr(v, "__name__", ""))
def test_names_rebound_before_their_next_read_do_not_block_in_place_updates(fn, args):
    test_in_place_code_gives_numpys_value_and_gradient(fn, args)


REFUSED = [
    (lambda_sorts_in_place, ([3.0, 1.0, 2.0],), ["lambda", "a.sort()"]),
    (alias_left_by_break, ([1.0, 2.0, 3.0],), ["`z`", "y[0] = 5.0"]),
    (shallow_list_copy, ([1.0, 2.0, 3.0],), ["`xs`", "ys = xs.copy()"]),
    (helper_returns_a_view, ([[1.0, 2.0], [3.0, 4.0]],), ["`row += 1.0`", "`A`"]),
    (helper_returns_a_global, ([1.0, 2.0, 3.0],), ["global returned by `weights`"]),
    (sort_inside_an_expression, ([3.0, 1.0, 2.0],), ["y.sort()", "own line"]),
    (fill_part_of_an_array, ([1.0, 2.0, 3.0],), ["y[1:].fill(0.0)"]),
    (list_grown_through_an_alias, ([1.0, 2.0, 3.0],), ["ys.append(v)", "`alias`"]),
    (helper_writes_an_array_read_later, ([1.0, 2.0, 3.0],), ["step_in_place", "`u`", "`y`"]),
    (helper_side_effect_only, ([1.0, 2.0, 3.0],), ["zero_first_through_an_alias", "`a`", "return the new value"]),
    (alias_read_after_augmented, ([1.0, 2.0, 3.0],), ["`y += 1.0`", "`x`", "y = x", "y = y + "]),
    (alias_read_after_item_write, ([1.0, 2.0, 3.0],), ["`z[0] = 0.0`", "`y`", "z = y", "z = z.copy()"]),
    (view_by_slice, ([1.0, 2.0, 3.0],), ["`b`", "a = b[1:]"]),
    (view_by_transpose, ([[1.0, 2.0], [3.0, 4.0]],), ["`A`", "b = A.T"]),
    (view_by_reshape, ([1.0, 2.0, 3.0],), ["`A`", "reshape"]),
    (view_by_asarray, ([1.0, 2.0, 3.0],), ["`x`", "asarray"]),
    (alias_on_one_branch, ([1.0, 2.0, 3.0], -1.0), ["`x`", "y[0] = 1.0"]),
    (alias_read_in_next_iteration, ([1.0, 2.0, 3.0],), ["`prev`", "y += x"]),
    (old_value_kept_in_a_list, ([1.0, 2.0, 3.0],), ["`kept`"]),
    (mutates_a_global, ([1.0, 2.0, 3.0],), ["global", "GLOBAL_WEIGHTS"]),
    (local_function_writes_its_argument, ([1.0, 2.0, 3.0],), ["zero_first"]),
    (repeated_literal_index, ([1.0, 2.0, 3.0], 2.0), ["repeats", "np.add.at"]),
    (float_into_integer_array, ([1.5, 2.0, 3.0],), ["integer array", "truncate", "dtype=int"]),
    (float_into_arange, ([1.5, 2.0, 3.0],), ["integer array"]),
    (multiply_at, ([1.0, 2.0, 3.0], 2.0), ["multiply"]),
    (out_used_as_value, ([1.0, 2.0, 3.0],), ["out="]),
    (out_into_alias, ([1.0, 2.0, 3.0],), ["`x`"]),
    (copyto, ([1.0, 2.0, 3.0],), ["copyto", "in place"]),
    (old_accumulator_read, ([1.0, 2.0, 3.0],), ["`prev`", "s = s + "]),
    (array_changed_while_in_a_list, ([1.0, 2.0, 3.0],), ["`row += 1.0`", "`rows` may hold what it changes"]),
    (inner_list_grown_while_in_a_list, ([1.0, 2.0, 3.0],), ["row.append(x[1])", "`rows`"]),
    (inner_list_grown_through_an_item, ([1.0, 2.0, 3.0],), ["inner.append(x[2] * 2.0)", "`grid`"]),
    (inner_list_grown_through_a_subscript, ([1.0, 2.0, 3.0],), ["pair[0].append(x * 2.0)", "`xs`"]),
    (inner_list_grown_through_a_shallow_copy, ([1.0, 2.0, 3.0],), ["copied[0].append(x[2])", "`grid`"]),
    (item_changed_in_place_through_its_list, ([1.0, 2.0, 3.0],), ["vals[0] += 1.0", "`a`"]),
    (list_comprehension_of_the_same_arrays, ([1.0, 2.0, 3.0],), ["`y += 1.0`", "`ys`"]),
    (history_of_one_array_changed_in_place, ([1.0, 2.0, 3.0],), ["`acc *= 2.0`", "`hist` may hold"]),
    (loop_variable_item_changed, ([1.0, 2.0, 3.0],), ["`v += 1.0`", "`xs` may hold"]),
    (cell_of_a_nested_list_changed, ([1.0, 2.0, 3.0],), ["`cell += 1.0`", "`grid` may hold"]),
    (items_of_a_comprehension_copy_changed, ([1.0, 2.0, 3.0],), ["`ys[0] += 1.0`", "`xs` may hold"]),
    (dict_value_changed_through_a_name, ([1.0, 2.0, 3.0],), ["`a += 1.0`", "`d` may hold"]),
    (starred_rest_item_changed, ([1.0, 2.0, 3.0],), ["`rest[0] += 1.0`", "`xs` may hold"]),
    (list_read_later_by_a_local_function, ([1.0, 2.0, 3.0],), ["`row += 1.0`", "`rows` may hold"]),
    (item_returned_by_a_local_function_changed, ([1.0, 2.0, 3.0],), ["`r += 1.0`", "`rows`", "r = get(0)"]),
    (view_returned_by_a_local_function_changed, ([1.0, 2.0, 3.0],), ["`v[0] = 5.0`", "`y`", "v = tail()"]),
]


@pytest.mark.parametrize("fn, args, words", REFUSED, ids=lambda v: getattr(v, "__name__", ""))
def test_in_place_code_numpy_would_compute_differently_is_refused(fn, args, words):
    with pytest.raises(AstjaxError) as info:
        astjax.grad(fn)(*_numpy(args))
    message = str(info.value)
    assert "test_aliasing.py" in message and "Instead:" in message, message
    for word in words:
        assert word in message, (word, message)


def test_a_repeated_index_array_is_refused_when_the_function_runs():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    with pytest.raises(AstjaxError) as info:
        astjax.grad(index_array_without_repeats)(x, np.array([1, 1]))
    message = str(info.value)
    assert "test_aliasing.py" in message and "y[idx] += x[0]" in message and "np.add.at" in message
    assert np.allclose(np.asarray(astjax.grad(index_array_without_repeats)(x, np.array([2, 1]))),
                       _central_differences(index_array_without_repeats, (x, np.array([2, 1]))), rtol=1e-6)


def write_into_a_buffer_argument(x, buf):
    buf[0] = x[0]
    return np.sum(buf * x)


def write_into_zeros_like_an_index(x, idx):
    y = np.zeros_like(idx)
    y[0] = x[0]
    return np.sum(y * x)


@pytest.mark.parametrize("fn", [write_into_a_buffer_argument, write_into_zeros_like_an_index])
def test_a_float_written_into_an_integer_array_is_refused_when_the_function_runs(fn):
    with pytest.raises(AstjaxError, match="truncates"):
        astjax.grad(fn)(np.array([1.5, 2.0, 3.0]), np.zeros(3, dtype=int))


def test_integers_written_into_an_integer_array_still_work():
    x = np.array([1.5, 2.0, 3.0])
    grad = astjax.grad(integer_array_of_integers)(x)
    assert np.allclose(np.asarray(grad), [2.0, 1.0, 0.0])


def second_order_through_updates(x):
    y = x * 1.0
    y[0] = y[1] * y[2]
    y += x
    return np.sum(y * y)


def test_second_derivatives_through_in_place_updates():
    """grad of the generated gradient: astjax's own output is not checked again for aliasing."""
    x = np.array([1.0, 2.0, 3.0])
    hessian = np.asarray(astjax.hessian(second_order_through_updates)(x))
    grad = astjax.grad(second_order_through_updates)
    h = 1e-5
    expected = np.array([(np.asarray(grad(x + h * e)) - np.asarray(grad(x - h * e))) / (2 * h) for e in np.eye(3)])
    assert np.allclose(hessian, expected, rtol=1e-6, atol=1e-6)


# ---------------------------------------------- `s = b[i]; s -= e`: a number, or a row NumPy would change
def back_substitution_accumulator(b):
    U = np.array([[3.0, 1.0, 0.5], [0.0, 2.0, -1.0], [0.0, 0.0, 4.0]])
    x = np.zeros(3)
    for i in range(2, -1, -1):
        s = b[i]                    # a number read from b (b is 1-D): `s -= ...` rebinds it
        for j in range(i + 1, 3):
            s -= U[i, j] * x[j]
        x[i] = s / U[i, i]
    return np.sum(x ** 2)


def row_accumulator(B):
    s = B[0]                        # a row of B: `s -= ...` changes B in NumPy
    s -= B[1] * 2.0
    return np.sum(s) + np.sum(B[0])


def test_an_item_accumulated_in_place_is_followed_when_it_is_a_number():
    test_in_place_code_gives_numpys_value_and_gradient(back_substitution_accumulator, ([1.0, 2.0, 3.0],))


def test_an_item_accumulated_in_place_is_refused_when_it_is_a_row():
    with pytest.raises(AstjaxError) as info:
        astjax.grad(row_accumulator)(np.arange(6.0).reshape(2, 3))
    assert "a row of it" in str(info.value) and "test_aliasing.py" in str(info.value)
