"""Rule cases (tests/test_rules.py) for the shape, stacking, signal and polynomial primitives.

Same format as tests/rule_cases.py: each function takes the differentiable
operands first and a weight `w` shaped like the primitive's result last.
"""
import numpy as np

import astjax.numpy as jnp
from astjax.rules.shape_helpers import split_adjoint, split_items, split_parts, take_along_axis_adjoint
from astjax.rules.signal_helpers import conv_general, gradient_adjoint, gradient_items
from rule_cases import Case, normal, nonzero, uniform, _array

CASES = []


def case(primitive, label, fn, *args, argnums=None):
    CASES.append(Case(primitive, label, fn, tuple(args), tuple(range(len(args))) if argnums is None else argnums))


_ORDER = _array([[2, 0, 1], [1, 1, 0]]).astype(np.int64)
_KNOTS = _array([-1.0, -0.2, 0.5, 1.3, 2.0])


# ------------------------------------------------------------ rearranging
def fliplr_fn(m, w):
    return jnp.sum(w * jnp.fliplr(m))


def flipud_fn(m, w):
    return jnp.sum(w * np.flipud(m))


def rot90_fn(m, w):
    return jnp.sum(w * jnp.rot90(m))


def rot90_k3_axes(m, w):
    return jnp.sum(w * jnp.rot90(m, 3, (1, 2)))


def rollaxis_fn(a, w):
    return jnp.sum(w * jnp.rollaxis(a, 2))


def rollaxis_start(a, w):
    return jnp.sum(w * np.rollaxis(a, 0, 3))


def permute_dims_fn(a, w):
    return jnp.sum(w * jnp.permute_dims(a, (2, 0, 1)))


def matrix_transpose_fn(x, w):
    return jnp.sum(w * jnp.matrix_transpose(x))


def atleast_1d_fn(a, w):
    return jnp.sum(w * jnp.atleast_1d(a))


def atleast_2d_fn(a, w):
    return jnp.sum(w * jnp.atleast_2d(a))


def atleast_3d_fn(a, w):
    return jnp.sum(w * np.atleast_3d(a))


def roll_fn(a, w):
    return jnp.sum(w * jnp.roll(a, 2))


def roll_axes(a, w):
    return jnp.sum(w * jnp.roll(a, (1, -2), (0, 1)))


def tile_fn(A, w):
    return jnp.sum(w * jnp.tile(A, (2, 1, 3)))


def tile_int(A, w):
    return jnp.sum(w * np.tile(A, 2))


def tril_fn(m, w):
    return jnp.sum(w * jnp.tril(m, -1))


def triu_fn(m, w):
    return jnp.sum(w * np.triu(m, 1))


def diagflat_fn(v, w):
    return jnp.sum(w * jnp.diagflat(v, 1))


def resize_fn(a, w):
    return jnp.sum(w * jnp.resize(a, (3, 5)))


def delete_fn(arr, w):
    return jnp.sum(w * jnp.delete(arr, 1, 1))


def delete_flat(arr, w):
    return jnp.sum(w * np.delete(arr, [0, 4]))


def take_along_axis_fn(arr, w):
    return jnp.sum(w * jnp.take_along_axis(arr, _ORDER, 1))


def take_along_axis_adjoint_fn(g, w):
    return jnp.sum(w * take_along_axis_adjoint(g, np.zeros((2, 4)), _ORDER, 1))


def sort_fn(a, w):
    return jnp.sum(w * jnp.sort(a))


def sort_axis0_descending(a, w):
    return jnp.sum(w * jnp.sort(a, axis=0, descending=True))


def sort_flat(a, w):
    return jnp.sum(w * np.sort(a, axis=None))


def compress_fn(a, w):
    return jnp.sum(w * jnp.compress(np.array([True, False, True]), a, 1))


def compress_flat(a, w):
    return jnp.sum(w * np.compress([False, True, True, False, True], a))


def extract_fn(arr, w):
    return jnp.sum(w * jnp.extract(arr > 0.0, arr))


case("fliplr", "matrix", fliplr_fn, normal(3, 4))
case("flipud", "rank3", flipud_fn, normal(3, 2, 2))
case("rot90", "default", rot90_fn, normal(3, 4))
case("rot90", "k3_axes", rot90_k3_axes, normal(2, 3, 4))
case("rollaxis", "to_front", rollaxis_fn, normal(2, 3, 4))
case("rollaxis", "start", rollaxis_start, normal(2, 3, 4))
case("permute_dims", "rank3", permute_dims_fn, normal(2, 3, 4))
case("matrix_transpose", "batch", matrix_transpose_fn, normal(2, 3, 4))
case("atleast_1d", "scalar", atleast_1d_fn, normal())
case("atleast_2d", "vector", atleast_2d_fn, normal(3))
case("atleast_3d", "matrix", atleast_3d_fn, normal(2, 3))
case("roll", "flat", roll_fn, normal(3, 4))
case("roll", "axes", roll_axes, normal(3, 4))
case("tile", "reps_longer", tile_fn, normal(2, 3))
case("tile", "int", tile_int, normal(2, 3))
case("tril", "k", tril_fn, normal(3, 4))
case("triu", "k", triu_fn, normal(2, 3, 3))
case("diagflat", "matrix_input", diagflat_fn, normal(2, 2))
case("resize", "cyclic", resize_fn, normal(2, 3))
case("delete", "axis", delete_fn, normal(3, 4))
case("delete", "flat", delete_flat, normal(2, 3))
case("take_along_axis", "repeats", take_along_axis_fn, normal(2, 4))
case("take_along_axis_adjoint", "repeats", take_along_axis_adjoint_fn, normal(2, 3))
case("sort", "last_axis", sort_fn, normal(3, 4))
case("sort", "axis0_descending", sort_axis0_descending, normal(3, 4))
case("sort", "flat", sort_flat, normal(3, 4))
case("compress", "axis", compress_fn, normal(2, 3))
case("compress", "flat", compress_flat, normal(2, 3))
case("extract", "positive", extract_fn, nonzero(0.3, 2.0, 3, 3))


# ------------------------------------------------------------ joining and splitting
def hstack_fn(a, b, w):
    return jnp.sum(w * jnp.hstack([a, b]))


def hstack_vectors(a, b, w):
    return jnp.sum(w * np.hstack((a, b, a)))


def vstack_fn(a, b, w):
    return jnp.sum(w * jnp.vstack([a, b]))


def row_stack_fn(a, b, w):
    return jnp.sum(w * jnp.row_stack([a, b]))


def dstack_fn(a, b, w):
    return jnp.sum(w * jnp.dstack([a, b]))


def column_stack_fn(a, b, w):
    return jnp.sum(w * jnp.column_stack([a, b]))


def concat_fn(a, b, w):
    return jnp.sum(w * jnp.concat([a, b], axis=1))


def append_flat(arr, values, w):
    return jnp.sum(w * jnp.append(arr, values))


def append_axis(arr, values, w):
    return jnp.sum(w * np.append(arr, values, axis=0))


def split_fn(ary, w):
    return jnp.sum(w * jnp.stack(jnp.split(ary, 2, 1)))


def split_uneven(ary, w):
    parts = np.split(ary, [1, 4])
    return jnp.sum(w * jnp.concatenate([parts[0] * 2.0, parts[2]]))


def array_split_fn(ary, w):
    return jnp.sum(w * jnp.concatenate(jnp.array_split(ary, 3)))


def hsplit_fn(ary, w):
    return jnp.sum(w * jnp.stack(jnp.hsplit(ary, 2)))


def vsplit_fn(ary, w):
    return jnp.sum(w * jnp.stack(jnp.vsplit(ary, 2)))


def dsplit_fn(ary, w):
    return jnp.sum(w * jnp.stack(jnp.dsplit(ary, 2)))


def unstack_fn(x, w):
    rows = jnp.unstack(x, axis=1)
    return jnp.sum(w * (rows[0] * rows[2] + rows[1]))


def split_parts_fn(x, w):
    return jnp.sum(w * jnp.concatenate(split_parts(x, [1, 3], 0, "split")))


def split_items_fn(x, w):
    return jnp.sum(w * split_adjoint(split_items(x, 2, 0, "vsplit"), x, 2, 0, "vsplit"))


def split_adjoint_fn(a, b, w):
    return jnp.sum(w * split_adjoint([a, b], np.zeros((2, 3)), 2, 1, "hsplit"))


case("hstack", "matrices", hstack_fn, normal(2, 3), normal(2, 1))
case("hstack", "vectors", hstack_vectors, normal(3), normal(2))
case("vstack", "vector_and_matrix", vstack_fn, normal(3), normal(2, 3))
case("vstack", "row_stack", row_stack_fn, normal(3), normal(3))
case("dstack", "matrices", dstack_fn, normal(2, 3), normal(2, 3, 2))
case("column_stack", "vector_and_matrix", column_stack_fn, normal(3), normal(3, 2))
case("concatenate", "concat", concat_fn, normal(2, 3), normal(2, 2))
case("append", "flat", append_flat, normal(2, 2), normal(3))
case("append", "axis", append_axis, normal(2, 3), normal(1, 3))
case("split", "sections", split_fn, normal(3, 4))
case("split", "indices", split_uneven, normal(6))
case("array_split", "uneven", array_split_fn, normal(7))
case("hsplit", "matrix", hsplit_fn, normal(2, 4))
case("vsplit", "matrix", vsplit_fn, normal(4, 3))
case("dsplit", "rank3", dsplit_fn, normal(2, 2, 4))
case("unstack", "axis1", unstack_fn, normal(2, 3))
case("split_parts", "indices", split_parts_fn, normal(5, 2))
case("split_items", "vsplit", split_items_fn, normal(4, 2))
case("split_adjoint", "hsplit", split_adjoint_fn, normal(2, 2), normal(2, 1))


# ------------------------------------------------------------ creation
def vander_fn(x, w):
    return jnp.sum(w * jnp.vander(x))


def vander_increasing(x, w):
    return jnp.sum(w * np.vander(x, 5, True))


def logspace_fn(start, stop, w):
    return jnp.sum(w * jnp.logspace(start, stop, 5))


def logspace_base(start, stop, w):
    return jnp.sum(w * jnp.logspace(start, stop, 4, endpoint=False, base=2.0))


def geomspace_fn(start, stop, w):
    return jnp.sum(w * jnp.geomspace(start, stop, 5))


def geomspace_negative(start, stop, w):
    return jnp.sum(w * jnp.geomspace(start, stop, 4, endpoint=False))


case("vander", "square", vander_fn, normal(4))
case("vander", "increasing", vander_increasing, normal(3))
case("logspace", "default", logspace_fn, uniform(-0.5, 0.5), uniform(0.6, 1.2))
case("logspace", "base2", logspace_base, uniform(-0.5, 0.5, 2), uniform(0.6, 1.2, 2))
case("geomspace", "default", geomspace_fn, uniform(0.5, 1.0), uniform(2.0, 3.0))
case("geomspace", "negative", geomspace_negative, uniform(-3.0, -2.0), uniform(-1.0, -0.5))


# ------------------------------------------------------------ differences
def diff_fn(a, w):
    return jnp.sum(w * jnp.diff(a))


def diff_n2_axis0(a, w):
    return jnp.sum(w * np.diff(a, 2, 0))


def diff_prepend_append(a, w):
    return jnp.sum(w * jnp.diff(a, 1, 0, prepend=0.5, append=np.ones((2, 3))))


def ediff1d_fn(ary, w):
    return jnp.sum(w * jnp.ediff1d(ary))


def ediff1d_ends(ary, w):
    return jnp.sum(w * jnp.ediff1d(ary, to_end=np.array([1.0, 2.0]), to_begin=-3.0))


case("diff", "default", diff_fn, normal(3, 5))
case("diff", "n2_axis0", diff_n2_axis0, normal(5, 2))
case("diff", "prepend_append", diff_prepend_append, normal(3, 3))
case("ediff1d", "matrix", ediff1d_fn, normal(2, 3))
case("ediff1d", "ends", ediff1d_ends, normal(4))


# ------------------------------------------------------------ products
def kron_fn(a, b, w):
    return jnp.sum(w * jnp.kron(a, b))


def kron_mixed_ranks(a, b, w):
    return jnp.sum(w * np.kron(a, b))


def cross_fn(a, b, w):
    return jnp.sum(w * jnp.cross(a, b))


def cross_broadcast(a, b, w):
    return jnp.sum(w * np.cross(a, b))


case("kron", "matrices", kron_fn, normal(2, 3), normal(2, 2))
case("kron", "mixed_ranks", kron_mixed_ranks, normal(3), normal(2, 2))
case("cross", "vectors", cross_fn, normal(3), normal(3))
case("cross", "broadcast", cross_broadcast, normal(4, 3), normal(3))


# ------------------------------------------------------------ convolution
def convolve_fn(a, v, w):
    return jnp.sum(w * jnp.convolve(a, v))


def convolve_same(a, v, w):
    return jnp.sum(w * np.convolve(a, v, "same"))


def convolve_valid_short_a(a, v, w):
    return jnp.sum(w * jnp.convolve(a, v, mode="valid"))


def correlate_fn(a, v, w):
    return jnp.sum(w * jnp.correlate(a, v))


def correlate_same_short_a(a, v, w):
    return jnp.sum(w * np.correlate(a, v, "same"))


def correlate_full(a, v, w):
    return jnp.sum(w * jnp.correlate(a, v, "full"))


def conv_general_fn(a, v, w):
    return jnp.sum(w * conv_general(a, v, "same", True))


def polymul_fn(a1, a2, w):
    return jnp.sum(w * jnp.polymul(a1, a2))


case("convolve", "full", convolve_fn, normal(5), normal(3))
case("convolve", "same", convolve_same, normal(4), normal(6))
case("convolve", "valid_short_a", convolve_valid_short_a, normal(3), normal(5))
case("correlate", "valid", correlate_fn, normal(6), normal(3))
case("correlate", "same_short_a", correlate_same_short_a, normal(6), normal(7))
case("correlate", "full", correlate_full, normal(3), normal(4))
case("conv_general", "same_flipped", conv_general_fn, normal(4), normal(5))
case("polymul", "vectors", polymul_fn, normal(3), normal(4))


# ------------------------------------------------------------ interpolation
def interp_fn(x, fp, w):
    return jnp.sum(w * jnp.interp(x, _KNOTS, fp))


def interp_outside(x, fp, w):
    return jnp.sum(w * np.interp(x, _KNOTS, fp))


def interp_constants(x, fp, w):
    return jnp.sum(w * jnp.interp(x, _KNOTS, fp, left=-1.0, right=2.0))


_INSIDE = _array([[-0.9, -0.5, 0.3], [0.9, 1.6, 1.95]])
_OUTSIDE = _array([-1.6, -0.1, 0.7, 2.4])
case("interp", "inside", interp_fn, _INSIDE, normal(5))
case("interp", "outside", interp_outside, _OUTSIDE, normal(5))
case("interp", "constants", interp_constants, _OUTSIDE, normal(5))


# ------------------------------------------------------------ polynomials
def polyval_fn(p, x, w):
    return jnp.sum(w * jnp.polyval(p, x))


def polyval_scalar(p, x, w):
    return jnp.sum(w * np.polyval(p, x))


def polyder_fn(p, w):
    return jnp.sum(w * jnp.polyder(p))


def polyder_m2(p, w):
    return jnp.sum(w * np.polyder(p, 2))


def polyint_fn(p, w):
    return jnp.sum(w * jnp.polyint(p))


def polyint_constants(p, w):
    return jnp.sum(w * np.polyint(p, 2, [1.0, -2.0]))


def polyadd_fn(a1, a2, w):
    return jnp.sum(w * jnp.polyadd(a1, a2))


def polysub_fn(a1, a2, w):
    return jnp.sum(w * np.polysub(a1, a2))


case("polyval", "vector_x", polyval_fn, normal(4), normal(2, 3))
case("polyval", "scalar_x", polyval_scalar, normal(3), normal())
case("polyder", "first", polyder_fn, normal(4))
case("polyder", "second", polyder_m2, normal(5))
case("polyint", "first", polyint_fn, normal(3))
case("polyint", "constants", polyint_constants, normal(3))
case("polyadd", "longer_first", polyadd_fn, normal(4), normal(2))
case("polysub", "longer_second", polysub_fn, normal(2), normal(3))


# ------------------------------------------------------------ integration
def trapezoid_points(samples, points, w):
    return jnp.sum(w * jnp.trapezoid(samples, points))


def trapezoid_spacing(samples, w):
    return jnp.sum(w * np.trapezoid(samples, dx=0.3, axis=0))


def trapezoid_points_nd(samples, points, w):
    return jnp.sum(w * jnp.trapezoid(samples, points, axis=0))


def trapezoid_keyword_x(samples, w):
    return jnp.sum(w * jnp.trapezoid(samples, x=np.array([0.0, 0.5, 1.5, 1.75])))


case("trapezoid", "points_1d", trapezoid_points, normal(2, 4), _array([0.0, 0.4, 1.1, 1.5]))
case("trapezoid", "spacing_axis0", trapezoid_spacing, normal(4, 2))
case("trapezoid", "points_nd_axis0", trapezoid_points_nd, normal(3, 2), _array([[0.0, 0.1], [0.5, 0.7], [1.2, 1.0]]))
case("trapezoid", "keyword_x", trapezoid_keyword_x, normal(4))


# ------------------------------------------------------------ selection
def select_fn(a, b, default, w):
    return jnp.sum(w * jnp.select([a > 0.0, b > 0.5], [a, b], default))


def select_broadcast(a, w):
    c = a * 2.0
    return jnp.sum(w * np.select([a < 0.0, a > 1.0], [a, c]))


case("select", "two_choices", select_fn, normal(3, 2), normal(3, 2), normal(2))
case("select", "broadcast_default", select_broadcast, uniform(-2.0, 2.0, 5) + 0.01)


# ------------------------------------------------------------ numerical gradient
def gradient_fn(f, w):
    return jnp.sum(w * jnp.gradient(f, 0.5))


def gradient_coordinates_edge2(f, w):
    return jnp.sum(w * jnp.gradient(f, np.array([0.0, 0.2, 0.5, 0.9, 1.0]), edge_order=2))


def gradient_unit_spacing(f, w):
    return jnp.sum(w * jnp.gradient(f))        # no *varargs: the rule's `varargs` is an empty tuple


def gradient_two_axes(f, w):
    return jnp.sum(w * jnp.stack(jnp.gradient(f, 0.5, 2.0)))


def gradient_adjoint_fn(g, w):
    return jnp.sum(w * gradient_adjoint(g, np.zeros(5), (0.3,), None, 2))


def gradient_items_fn(t, w):
    return jnp.sum(w * gradient_items(t, (), 1, 1))


case("gradient", "spacing", gradient_fn, normal(6))
case("gradient", "coordinates_edge2", gradient_coordinates_edge2, normal(5))
case("gradient", "two_axes", gradient_two_axes, normal(3, 4))
case("gradient", "unit_spacing", gradient_unit_spacing, normal(6))
case("gradient_adjoint", "edge2", gradient_adjoint_fn, normal(5))
case("gradient_items", "axis1", gradient_items_fn, normal(3, 4))
