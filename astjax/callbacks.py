"""ShapeDtypeStruct, eval_shape and pure_callback, as JAX's.

astjax computes eagerly and has no abstract values, so:

* `eval_shape(fun, *args)` runs `fun` on concrete stand-ins: every array or ShapeDtypeStruct leaf becomes an
  array of its shape and dtype, filled with random positive values (twice), the same values negated and
  zeros (STAND_INS). The results' shapes and dtypes, as ShapeDtypeStructs, are returned when the runs
  agree; where they differ the shape depends on the values, which JAX's eval_shape refuses too, and astjax
  raises. Reading values in a way that can choose a shape (`int(x[0])`, a branch on an array's truth,
  a boolean mask index, jnp.nonzero or jnp.unique without size=) is refused outright, where the user's
  code does it, as JAX refuses it: the runs may all agree on a shape a real input would change
  (`x[x > 3.0]`). (fun runs up to four times: side effects happen that often.)
* `pure_callback(callback, result_shape_dtypes, *args)` calls `callback` on NumPy arrays and checks that
  its results have the declared shapes (dtypes are cast to the declared ones, as JAX does). A derivative
  that reaches it is refused, as JAX refuses it ("Pure callbacks do not support JVP"); write a
  custom_jvp / custom_vjp around it. Under vmap it follows `vmap_method` (batch_pure_callback below): None
  raises NotImplementedError as in JAX, "sequential" and "sequential_unrolled" call it once per example,
  "expand_dims" and "broadcast_all" call it once with the batch as a leading axis.

This module is library code (classify._LIBRARIES): the transformations call it, never transform it.
"""
import os
import sys

import numpy as np

from . import tree_util
from .dtypes import default_dtype_of

__all__ = ["ShapeDtypeStruct", "eval_shape", "pure_callback"]

VMAP_METHODS = ("sequential", "sequential_unrolled", "expand_dims", "broadcast_all", "legacy_vectorized", None)


class ShapeDtypeStruct:
    """A shape and a dtype standing for an array (JAX's ShapeDtypeStruct); `sharding` is kept, not used."""
    __slots__ = ("shape", "dtype", "sharding", "weak_type")

    def __init__(self, shape, dtype, sharding=None, weak_type=False):
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.sharding = sharding
        self.weak_type = bool(weak_type)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __eq__(self, other):
        return isinstance(other, ShapeDtypeStruct) and (self.shape, self.dtype, self.weak_type) == (
            other.shape, other.dtype, other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"


# ---------------------------------------------------------------- eval_shape
# The stand-in fills, one run each: two random draws of positive values (the second with every boolean True),
# then the same draw negated and all zeros (every boolean False), so that a shape chosen by a sign (x[x > 0],
# int(x[0]), a branch on jnp.sum(x) > 0), by which entries are nonzero or by how many values are distinct
# (jnp.nonzero, jnp.unique) differs between runs. A run of the last two that raises is skipped: a stand-in
# the function cannot take (a singular matrix of zeros) is no evidence about its shapes.
STAND_INS = (("random", 0), ("random, booleans True", 1), ("negated", 0), ("zeros", 0))


def _stand_in(leaf, rng, fill="random"):
    """A concrete value for one argument leaf: arrays and ShapeDtypeStructs become arrays of their shape and
    dtype filled from `rng` (positive, away from 0 and 1), negated, or zeros (see STAND_INS); Python
    numbers and other leaves stay as they are."""
    if isinstance(leaf, ShapeDtypeStruct) or (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
        shape, dtype = tuple(leaf.shape), np.dtype(leaf.dtype)
        from . import numpy as jnp
        if fill == "zeros":
            return jnp.asarray(np.zeros(shape, dtype))
        if dtype == np.bool_:
            if fill != "random":
                return jnp.asarray(np.full(shape, fill != "negated"))
            return jnp.asarray(rng.integers(0, 2, size=shape).astype(bool))
        sign = -1 if fill == "negated" and dtype.kind != "u" else 1
        if dtype.kind in "iu":
            return jnp.asarray((sign * rng.integers(1, 5, size=shape)).astype(dtype))
        values = rng.uniform(1.5, 2.5, size=shape)
        if dtype.kind == "c":
            values = values + 1j * rng.uniform(1.5, 2.5, size=shape)
        return jnp.asarray((sign * values).astype(dtype))
    return leaf


def _describe(leaf):
    if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
        return ShapeDtypeStruct(np.shape(leaf), leaf.dtype)
    if isinstance(leaf, (bool, int, float, complex)):       # a Python number: weakly typed, as in JAX
        return ShapeDtypeStruct((), default_dtype_of(leaf), weak_type=not isinstance(leaf, bool))
    return leaf


def eval_shape(fun, *args, **kwargs):
    """The shapes and dtypes of `fun(*args, **kwargs)`, as a pytree of ShapeDtypeStructs (see the module's
    docstring: fun runs on four kinds of stand-in values, and a shape that depends on them is an error)."""
    described, fills = [], []
    for k, (fill, seed) in enumerate(STAND_INS):
        rng = np.random.default_rng(seed)
        stand_args, stand_kwargs = tree_util.tree_map(lambda leaf: _stand_in(leaf, rng, fill), (args, kwargs))
        reads = []
        try:
            with _reading_values(reads):
                result = fun(*stand_args, **stand_kwargs)
        except Exception:
            if k < 2:
                raise
            continue
        if reads:
            raise _value_read_refusal(fun, reads[0])
        described.append(tree_util.tree_map(_describe, result))
        fills.append(fill)
    first = tree_util.tree_flatten(described[0])
    for fill, other in zip(fills[1:], described[1:]):
        second = tree_util.tree_flatten(other)
        if first[1] != second[1] or first[0] != second[0]:
            raise ValueError(
                f"astjax.eval_shape: the shapes or dtypes of {getattr(fun, '__name__', 'the function')}'s results "
                "depend on the values of its arguments (runs on different stand-in values disagree: "
                f"{described[0]} on random values and {other} on {fill} values). JAX's eval_shape refuses such "
                "a function too. Instead: make the result's shape depend only on the arguments' shapes "
                "(jnp.where instead of boolean indexing, size= for jnp.nonzero and jnp.unique).")
    return described[0]


# What the function may do with an array's values that can choose a shape: convert one to a Python number or
# bool (`int(x[0])`, `if jnp.sum(x) > 0:`, `x[: n]` with n an array), select by a boolean mask, or ask which
# entries are nonzero or distinct without JAX's `size=`. JAX's eval_shape refuses each (its values are
# abstract); the stand-in runs cannot see every shape they may choose (`x[x > 3.0]` is empty on all four), so
# astjax refuses them too, where the user's own code (or code generated from it) does them.
_CONVERSIONS = ("__bool__", "__int__", "__index__", "__float__", "__complex__", "item", "tolist")
_SIZED_BY_VALUES = ("nonzero", "flatnonzero", "argwhere", "unique", "unique_values", "unique_counts",
                    "unique_inverse", "unique_all", "compress", "extract", "setdiff1d", "union1d", "intersect1d",
                    "setxor1d", "trim_zeros")


def _user_frame(depth, frame=None):
    """The (file, line) of the frame `depth` levels up (or of `frame`) when it is the user's code (or
    code generated from it)."""
    if frame is None:
        frame = sys._getframe(depth + 1)
    filename = frame.f_code.co_filename
    library = (os.path.dirname(os.path.abspath(__file__)), os.path.dirname(np.__file__),
               os.path.dirname(os.__file__), "<frozen ", "<lowering ")    # astjax, NumPy, the standard library
    return None if filename.startswith(library) else (filename, frame.f_lineno)


class _reading_values:
    """While a stand-in run lasts: record in `reads` each (what, file, line) where the user's code reads an
    array's values in a way that can choose a shape (see _CONVERSIONS, _SIZED_BY_VALUES)."""

    def __init__(self, reads):
        self.reads = reads
        self.saved = []

    def __enter__(self):
        from .array import Array
        from . import numpy as jnp
        for name in _CONVERSIONS + ("__getitem__",):
            self._patch(Array, name, self._watched_method(Array, name))
        # the functions are watched by their code objects (replacing them would hide them from the rule table)
        self.codes = {getattr(jnp, name).__code__: name for name in _SIZED_BY_VALUES + ("where",)
                      if hasattr(getattr(jnp, name, None), "__code__")}
        self.previous = sys.getprofile()
        sys.setprofile(self._on_call)
        return self

    def __exit__(self, *exc):
        sys.setprofile(self.previous)
        for owner, name, value in reversed(self.saved):
            setattr(owner, name, value)
        self.saved.clear()
        return False

    def _on_call(self, frame, event, arg):
        if event != "call" or frame.f_code not in self.codes:
            return
        name, local = self.codes[frame.f_code], frame.f_locals
        if local.get("size") is not None or (name == "where" and local.get("x") is not None):
            return
        where = _user_frame(0, frame.f_back)
        if where is not None:
            self.reads.append((f"jnp.{name} without size=",) + where)

    def _patch(self, owner, name, replacement):
        self.saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, replacement)

    def _watched_method(self, cls, name):
        original, reads = getattr(cls, name), self.reads

        def method(array, *args):
            masked = name == "__getitem__" and _has_mask(args[0])
            if name != "__getitem__" or masked:
                where = _user_frame(1)
                if where is not None:
                    reads.append(("a boolean mask index" if masked else f"`{name}` of an array",) + where)
            return original(array, *args)
        return method


def _has_mask(index):
    items = index if isinstance(index, tuple) else (index,)
    return any(isinstance(i, np.ndarray) and i.dtype == np.bool_ and i.ndim > 0 for i in items)


def _value_read_refusal(fun, read):
    what, filename, line = read
    return ValueError(
        f"astjax.eval_shape: the shapes of {getattr(fun, '__name__', 'the function')}'s results may depend on the "
        f"values of its arguments: {what} at File \"{filename}\", line {line} reads values, which JAX's eval_shape "
        "refuses too (its values are abstract), and runs on stand-in values cannot show every shape it may "
        "choose. Instead: make the result's shape depend only on the arguments' shapes (jnp.where instead of "
        "boolean indexing or branches on values, size= for jnp.nonzero and jnp.unique).")


# ---------------------------------------------------------------- pure_callback
def _checked(results, result_shape_dtypes, what):
    """`results` (the callback's) as arrays of the declared shapes, in the declared dtypes."""
    from . import numpy as jnp
    declared, declared_tree = tree_util.tree_flatten(result_shape_dtypes)
    got, got_tree = tree_util.tree_flatten(results)
    if got_tree != declared_tree:
        raise RuntimeError(f"astjax.pure_callback: {what} returned a pytree of structure {got_tree}, but "
                           f"result_shape_dtypes declares {declared_tree}")
    out = []
    for i, (value, spec) in enumerate(zip(got, declared)):
        value = np.asarray(value)
        if tuple(value.shape) != tuple(spec.shape):
            raise RuntimeError(f"astjax.pure_callback: incorrect output shape for return value #{i}: expected "
                               f"{tuple(spec.shape)}, actual {tuple(value.shape)}")
        if value.dtype.kind != np.dtype(spec.dtype).kind:     # float64 for float32 is cast, as JAX does
            raise RuntimeError(f"astjax.pure_callback: incorrect output dtype for return value #{i}: expected "
                               f"{np.dtype(spec.dtype)}, actual {value.dtype}")
        out.append(jnp.asarray(value.astype(spec.dtype, copy=False)))
    return tree_util.tree_unflatten(declared_tree, out)


def _host(tree):
    return tree_util.tree_map(lambda leaf: np.asarray(leaf) if hasattr(leaf, "shape") else leaf, tree)


def _check_arguments(result_shape_dtypes, vmap_method):
    if vmap_method not in VMAP_METHODS:
        raise ValueError(f"vmap_method must be one of the allowed methods {list(VMAP_METHODS)}, "
                         f"but got: {vmap_method}")
    for spec in tree_util.tree_leaves(result_shape_dtypes):
        if not (hasattr(spec, "shape") and hasattr(spec, "dtype")):
            raise TypeError(f"astjax.pure_callback: result_shape_dtypes must hold objects with .shape and "
                            f".dtype (ShapeDtypeStruct), got {spec!r}")


def pure_callback(callback, result_shape_dtypes, *args, sharding=None, vmap_method=None, **kwargs):
    """`callback(*args, **kwargs)` run on host NumPy arrays, its results checked against
    `result_shape_dtypes` (a pytree of ShapeDtypeStruct or arrays). No derivative (as in JAX)."""
    _check_arguments(result_shape_dtypes, vmap_method)
    return _checked(callback(*_host(args), **_host(kwargs)), result_shape_dtypes, "the callback")


def batch_pure_callback(batch_size, batched, vmap_method, callback, result_shape_dtypes, *args, **kwargs):
    """pure_callback over a batch (vmap): `batched[i]` says whether args[i] carries the batch on axis 0.
    Each result gets the batch as its leading axis."""
    _check_arguments(result_shape_dtypes, vmap_method)
    kwargs.pop("sharding", None)
    if vmap_method is None or vmap_method == "legacy_vectorized":
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one of 'sequential', "
            f"'sequential_unrolled', 'expand_dims' or 'broadcast_all'. Got vmap_method={vmap_method!r}.")
    host = _host(args)
    batch_size = int(batch_size)
    if vmap_method in ("sequential", "sequential_unrolled"):
        examples = [_checked(callback(*[a[b] if flag else a for a, flag in zip(host, batched)], **_host(kwargs)),
                             result_shape_dtypes, "the callback") for b in range(batch_size)]
        from . import numpy as jnp
        return tree_util.tree_map(lambda *leaves: jnp.stack(leaves), *examples)
    if vmap_method == "expand_dims":
        host = [a if flag else np.expand_dims(np.asarray(a), 0) for a, flag in zip(host, batched)]
    else:
        host = [a if flag else np.broadcast_to(np.asarray(a), (batch_size,) + np.shape(a)) for a, flag in
                zip(host, batched)]
    batched_shapes = tree_util.tree_map(lambda spec: ShapeDtypeStruct((batch_size,) + tuple(spec.shape), spec.dtype),
                                        result_shape_dtypes)
    return _checked(callback(*host, **_host(kwargs)), batched_shapes, f"the callback (vmap_method={vmap_method!r})")


def _batch_rule(bt, target, value):
    """vmap's statement `target = pure_callback(callback, shapes, *args, ...)` with a batched argument: the
    call `batch_pure_callback(B, flags, vmap_method, callback, shapes, *args, ...)` (the keywords kept)."""
    import gast
    if any(isinstance(a, gast.Starred) for a in value.args) or any(k.arg is None for k in value.keywords):
        return None
    if any(bt.is_batched(k.value) for k in value.keywords) or any(bt.is_batched(a) for a in value.args[:2]):
        return None
    method = [k.value for k in value.keywords if k.arg == "vmap_method"]
    keywords = [k for k in value.keywords if k.arg != "vmap_method"]
    flags = gast.Tuple(elts=[gast.Constant(value=bool(bt.is_batched(a)), kind=None) for a in value.args[2:]],
                       ctx=gast.Load())
    call = gast.Call(func=bt.helper(batch_pure_callback),
                     args=[bt.B, flags, method[0] if method else gast.Constant(value=None, kind=None)]
                     + list(value.args), keywords=keywords)
    return [bt.assign(target, call)]


pure_callback.__astjax_vmap_call__ = _batch_rule
pure_callback.__astjax_no_derivative__ = batch_pure_callback.__astjax_no_derivative__ = (
    "pure callbacks do not support JVP (as in JAX): the callback is opaque Python",
    "use astjax.custom_jvp or astjax.custom_vjp to give the function that calls the callback a derivative")
