"""NumPy's mutation semantics: aliases, views, in-place operators, repeated fancy
indices, ufunc.at, in-place sort, floats written into int arrays, writes into
arguments. astjax must follow NumPy exactly or refuse naming the alias.

The harness passes every run fresh copies of the inputs, so the reference
values are what NumPy computes on the caller's arrays.
"""
import numpy as np

from .case import case, vec, mat, pos


def alias_iadd(x):
    y = x
    y += 1.0
    return np.sum(y * x)


case(alias_iadd, lambda r: (vec(r, 3),), "either")


def alias_item_assign(x):
    y = x * 2.0
    z = y
    z[0] = 0.0
    return np.sum(y * x)


case(alias_item_assign, lambda r: (vec(r, 3),), "either")


def alias_of_argument_item_assign(x):
    z = x
    z[1] = 5.0
    return np.sum(x ** 2)


case(alias_of_argument_item_assign, lambda r: (vec(r, 3),), "either")


def repeated_fancy_iadd(x, v):
    y = x * 1.0
    y[[0, 0, 2]] += v
    return np.sum(y * y)


case(repeated_fancy_iadd, lambda r: (vec(r, 3), vec(r, 3)), "either", argnums=(0, 1))


def np_add_at(x, v):
    y = x * 1.0
    np.add.at(y, [0, 0, 2], v)
    return np.sum(y * y)


case(np_add_at, lambda r: (vec(r, 3), vec(r, 3)), "either", argnums=(0, 1))


def sort_in_place(x):
    y = x * 1.0
    y.sort()
    return y[0] * 3.0 + y[-1]


case(sort_in_place, lambda r: (np.array([0.3, -0.5, 0.9, 0.1]),), "either")


def sort_in_place_alias(x):
    y = x
    y.sort()
    return x[0] * 3.0 + x[-1]


case(sort_in_place_alias, lambda r: (np.array([0.3, -0.5, 0.9, 0.1]),), "either")


def float_into_int_array(x):
    y = np.zeros(3, dtype=np.int64)
    y[0] = x[0] * 2.5
    y[1] = x[1]
    return np.sum(y) * x[2]


case(float_into_int_array, lambda r: (np.array([1.3, 2.6, 0.7]),), "either")


def float_into_int_array_like(x, idx):
    y = np.zeros_like(idx)
    y[:] = x * 3.0
    return np.sum(y * x)


case(float_into_int_array_like, lambda r: (np.array([1.3, 2.6, 0.7]), np.array([1, 2, 3])), "either")


def write_into_argument(x):
    x[0] = x[1] * 2.0
    return np.sum(x ** 2)


case(write_into_argument, lambda r: (vec(r, 3),), "either")


def iadd_on_argument(x):
    x += 1.0
    return np.sum(x ** 2)


case(iadd_on_argument, lambda r: (vec(r, 3),), "either")


def slice_view_imul(x):
    v = x[1:]
    v *= 2.0
    return np.sum(x ** 2)


case(slice_view_imul, lambda r: (vec(r, 4),), "either")


def local_slice_view_write(x):
    y = x * 1.0
    v = y[::2]
    v[0] = 10.0 * x[1]
    return np.sum(y * x)


case(local_slice_view_write, lambda r: (vec(r, 4),), "either")


def reshape_view_write(x):
    y = x * 1.0
    M = y.reshape(2, 2)
    M[0, 1] = M[1, 0] * 3.0
    return np.sum(y ** 2)


case(reshape_view_write, lambda r: (vec(r, 4),), "either")


def transpose_view_write(A):
    B = A * 1.0
    T = B.T
    T[0] *= 2.0
    return np.sum(B * A)


case(transpose_view_write, lambda r: (mat(r, 3),), "either")


def _scale_inplace(a):
    a *= 2.0


def helper_mutates_argument(x):
    y = x * 1.0
    _scale_inplace(y)
    return np.sum(y * x)


case(helper_mutates_argument, lambda r: (vec(r, 3),), "either")


def copy_then_iadd(x):
    y = x.copy()
    y += 1.0
    return np.sum(y * x)


case(copy_then_iadd, lambda r: (vec(r, 3),), "works")


def np_array_copy_then_write(x):
    y = np.array(x)
    y[0] = 5.0
    return np.sum(y * x)


case(np_array_copy_then_write, lambda r: (vec(r, 3),), "works")


def rebind_not_alias(x):
    y = x
    y = y + 1.0
    return np.sum(y * x)


case(rebind_not_alias, lambda r: (vec(r, 3),), "works")


def local_iadd_no_alias(x):
    y = x * 1.0
    y -= np.mean(y)
    return np.sum(y ** 2)


case(local_iadd_no_alias, lambda r: (vec(r, 4),), "works")


def local_item_assign_no_alias(x):
    y = np.zeros(4)
    y[1:3] = x[0:2] * 2.0
    y[0] = x[2]
    return np.sum(y * y) + y[3]


case(local_item_assign_no_alias, lambda r: (vec(r, 3),), "works")


def boolean_mask_assign(x):
    y = x * 1.0
    y[y < 0] = 0.0
    return np.sum(y ** 2)


case(boolean_mask_assign, lambda r: (np.array([0.3, -0.5, 0.9, -0.1]),), "works")


def list_holds_alias_iadd(x):
    rows = [x, x]
    rows[0] += 1.0
    return np.sum(rows[1] * x)


case(list_holds_alias_iadd, lambda r: (vec(r, 3),), "either")


def fill_diagonal(A):
    B = A * 1.0
    np.fill_diagonal(B, 0.0)
    return np.sum(B * A)


case(fill_diagonal, lambda r: (mat(r, 3),), "either")


def out_parameter(x):
    y = np.empty_like(x)
    np.multiply(x, 2.0, out=y)
    return np.sum(y * x)


case(out_parameter, lambda r: (vec(r, 3),), "either")


def mutate_while_iterating(x):
    y = x * 1.0
    for v in y:
        y[0] += v
    return np.sum(y * y)


case(mutate_while_iterating, lambda r: (vec(r, 3),), "either")


def iadd_in_loop_accumulator_array(x):
    acc = np.zeros(3)
    for i in range(3):
        acc += x * (i + 1.0)
    return np.sum(acc ** 2)


case(iadd_in_loop_accumulator_array, lambda r: (vec(r, 3),), "works")


def item_iadd_in_loop(x):
    y = np.zeros(3)
    for i in range(3):
        y[i] += x[i] ** 2
        y[(i + 1) % 3] += x[i]
    return np.sum(y * y)


case(item_iadd_in_loop, lambda r: (vec(r, 3),), "works")


def accumulator_alias_of_zeros_reused(x):
    acc = np.zeros(3)
    first = acc
    acc += x
    return np.sum(first * x)


case(accumulator_alias_of_zeros_reused, lambda r: (vec(r, 3),), "either")


def matrix_row_write_from_other_row(A):
    B = A * 1.0
    B[0] = B[1] * 2.0
    B[1] = B[0] + B[2]
    return np.sum(B ** 2)


case(matrix_row_write_from_other_row, lambda r: (mat(r, 3),), "works")


def swap_rows_by_fancy_index(A):
    B = A * 1.0
    B[[0, 1]] = B[[1, 0]]
    return np.sum(B * np.arange(9.0).reshape(3, 3))


case(swap_rows_by_fancy_index, lambda r: (mat(r, 3),), "works")


def swap_rows_by_view_trap(A):
    B = A * 1.0
    tmp = B[0]
    B[0] = B[1]
    B[1] = tmp
    return np.sum(B * np.arange(9.0).reshape(3, 3))


case(swap_rows_by_view_trap, lambda r: (mat(r, 3),), "either",
     note="tmp is a view: NumPy writes B[1] = the new B[0] (both rows equal the old row 1)")


def cumulative_in_place(x):
    y = x * 1.0
    for i in range(1, 4):
        y[i] = y[i] + y[i - 1] * 0.5
    return np.sum(y ** 2)


case(cumulative_in_place, lambda r: (vec(r, 4),), "works")


def at_style_scatter_with_duplicates_via_loop(x, v):
    y = x * 1.0
    idx = [0, 0, 2]
    for k in range(3):
        y[idx[k]] = y[idx[k]] + v[k]
    return np.sum(y * y)


case(at_style_scatter_with_duplicates_via_loop, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def ravel_view_write(A):
    B = A * 1.0
    flat = B.ravel()
    flat[0] = 7.0 * A[1, 1]
    return np.sum(B * A)


case(ravel_view_write, lambda r: (mat(r, 2),), "either")


def flatten_copy_write(A):
    B = A * 1.0
    flat = B.flatten()
    flat[0] = 7.0 * A[1, 1]
    return np.sum(B * A) + np.sum(flat)


case(flatten_copy_write, lambda r: (mat(r, 2),), "either")


def int_argument_iadd_float(x, counts):
    c = counts
    c = c + x
    return np.sum(c * x)


case(int_argument_iadd_float, lambda r: (vec(r, 3), np.array([1, 2, 3])), "works")


def diag_indices_assign(A):
    B = A * 1.0
    B[np.diag_indices(3)] = 1.0
    return np.sum(B * A)


case(diag_indices_assign, lambda r: (mat(r, 3),), "works")


def negative_index_write(x):
    y = x * 1.0
    y[-1] = y[0] * y[1]
    return np.sum(y ** 2)


case(negative_index_write, lambda r: (vec(r, 3),), "works")


def ellipsis_write(A):
    B = np.zeros((2, 3))
    B[...] = A * 2.0
    return np.sum(B ** 2)


case(ellipsis_write, lambda r: (mat(r, 2, 3),), "works")


def column_write(A):
    B = A * 1.0
    B[:, 1] = B[:, 0] ** 2
    return np.sum(B * A)


case(column_write, lambda r: (mat(r, 3),), "works")


def asarray_is_alias(x):
    y = np.asarray(x)
    y[0] = 3.0 * x[1]
    return np.sum(x ** 2)


case(asarray_is_alias, lambda r: (vec(r, 3),), "either", note="np.asarray of an ndarray does not copy")


def reversed_view_write(x):
    y = x * 1.0
    v = y[::-1]
    v[0] = y[0] * 2.0
    return np.sum(y * x)


case(reversed_view_write, lambda r: (vec(r, 3),), "either")


def copyto_local(x):
    y = np.zeros(3)
    np.copyto(y, x * 2.0)
    return np.sum(y * x)


case(copyto_local, lambda r: (vec(r, 3),), "either")


def tuple_alias_iadd(x):
    y = x * 1.0
    a, b = y, y
    a += 1.0
    return np.sum(b * x)


case(tuple_alias_iadd, lambda r: (vec(r, 3),), "either")


def fill_method(x):
    y = x * 1.0
    z = y
    z.fill(0.5)
    return np.sum(y * x)


case(fill_method, lambda r: (vec(r, 3),), "either")


def np_put(x, v):
    y = x * 1.0
    np.put(y, [0, 2], v)
    return np.sum(y ** 2)


case(np_put, lambda r: (vec(r, 3), vec(r, 2)), "either", argnums=(0, 1))


def clip_out_in_place(x):
    y = x * 2.0
    np.clip(y, -0.5, 0.5, out=y)
    return np.sum(y * x)


case(clip_out_in_place, lambda r: (np.array([0.1, 0.6, -0.4]),), "either")


def newaxis_view_write(x):
    y = x * 1.0
    v = y[np.newaxis]
    v[0, 1] = 7.0 * x[0]
    return np.sum(y * x)


case(newaxis_view_write, lambda r: (vec(r, 3),), "either")


def augmented_on_subscript_of_alias_in_loop(x):
    y = x * 1.0
    z = y
    for i in range(3):
        z[i] *= y[(i + 1) % 3]
    return np.sum(y)


case(augmented_on_subscript_of_alias_in_loop, lambda r: (vec(r, 3),), "either")
