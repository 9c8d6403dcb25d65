"""astjax.vmap: a function's batched version, written as Python source.

`vmap(f, in_axes, out_axes)` returns a function that moves each mapped
argument's axis to the front, checks the batch sizes agree, calls the
generated `vmap_f` (transforms/vmap.py: the source of f rewritten to compute a
whole batch; `astjax.source` prints it) and moves axis 0 of each output to its
out_axes. The generated source depends on which arguments are mapped and on
their ranks, so it is built once per such signature. The generated function is
itself a function with source: `grad(vmap(f))`, `vmap(vmap(f))` and
`jit(vmap(f))` transform it like any other.
"""
import functools
import inspect
import weakref

import numpy as np

from . import tree_util
from .analyses.batching import ARRAY
from .api import derivation_cache_key
from .arguments import Packing, check_callable, differentiable_input, name_of, refuse_complex, split_callable
from .array import wrap
from .errors import api_boundary
from .jit.api import compiled_version
from .transforms.derivation import Derivation
from .transforms.vmap import ParamSpec

__all__ = ["vmap"]

_BUILT = weakref.WeakKeyDictionary()      # function -> {(spec, out_none): Derivation}


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None):
    """Vectorize `fun` over a batch axis, as `jax.vmap`: by generating its batched source.

    in_axes: an int, None, or a tuple with one entry per positional argument (each an int,
        None, or a pytree of them matching that argument); negative axes count from the end.
    out_axes: the same for the outputs. None means the output does not depend on the batch.
    axis_size: the batch size when no argument is mapped.
    """
    check_callable(fun, "vmap")
    _check_axes_spec(in_axes, "in_axes")
    _check_axes_spec(out_axes, "out_axes")
    if isinstance(in_axes, dict):       # as JAX: a dict would be applied to every argument, which no one means
        raise TypeError(f"vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional "
                        f"arguments passed to the function, but got {in_axes}. For a dict argument write "
                        f"in_axes=({in_axes},) (one entry per positional argument).")
    if isinstance(in_axes, list):
        raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries corresponding to the positional "
                         f"arguments passed to the function, but got {in_axes}.")
    transform = VmapTransform(fun, in_axes, out_axes, axis_name, axis_size)

    @functools.wraps(fun)
    @api_boundary
    def vmap_f(*args, **kwargs):
        return transform.call(args, kwargs)

    vmap_f.__astjax_transform__ = transform
    return vmap_f


vmap.__astjax_static_call__ = True


class VmapTransform:
    """What vmap(f, in_axes, out_axes) knows, and the generated source per signature."""

    def __init__(self, fun, in_axes, out_axes, axis_name, axis_size):
        self.user_fun = fun
        self.fun, self.leading, self.keywords = split_callable(fun)
        self.in_axes, self.out_axes = in_axes, out_axes
        self.axis_name, self.axis_size = axis_name, axis_size
        self._last = None
        self._composable = None
        self.packing = None          # for *args / keyword-only parameters, as grad: see arguments.Packing
        if Packing.needed(self.fun):
            if self.leading or self.keywords:
                raise TypeError(f"vmap of a bound method or partial of {name_of(self.fun)}, which has *args or "
                                f"keyword-only parameters, is not supported yet; vmap a plain function.")
            self.packing = Packing(self.fun)

    # ------------------------------------------------------------ calling
    def call(self, args, kwargs):
        if kwargs:
            raise TypeError(f"vmap of {name_of(self.fun)}: pass the arguments by position (vmap maps keyword "
                            f"arguments over axis 0 in JAX; astjax asks for them positionally to say so explicitly).")
        if isinstance(self.in_axes, tuple) and len(self.in_axes) != len(args):
            raise ValueError(f"vmap in_axes specification must be a tree prefix of the corresponding value, got "
                             f"specification {self.in_axes} for value tree of {len(args)} positional arguments "
                             f"(in_axes has {len(self.in_axes)} entries for {len(args)} arguments of "
                             f"{name_of(self.fun)}).")
        axes = self.in_axes if isinstance(self.in_axes, tuple) else (self.in_axes,) * len(args)
        names = _parameter_names(self.fun, len(self.leading), len(args))
        count, user_args = len(args), args
        if self.packing is not None:
            args, axes, names = self._pack(args, axes)
        sizes = []            # (size, axis, name, leaf)
        prepared, spec = [], []
        for i, (arg, axis) in enumerate(zip(args, axes)):
            value, arg_spec = _prepare(arg, axis, names[i], sizes)
            prepared.append(value)
            spec.append(arg_spec)
        size = _batch_size(sizes, self.axis_size)
        if not sizes:
            return self._unmapped(user_args, size)
        if not self.leading and not self.keywords:
            _check_differentiated_inputs(self.fun, user_args)
        out_none = _out_none(self.out_axes)
        spec = tuple([ParamSpec(False)] * len(self.leading) + spec)
        generated = self.generated(spec, out_none)
        result = compiled_version(generated)(*self.leading, *prepared, **self.keywords)
        result = _materialize_gradients(self.fun, result, prepared, spec[len(self.leading):], size, count)
        _refuse_adjoint_trees(self.fun, result)
        if _nested_none(self.out_axes):
            result = _unmapped_leaves(result, self.out_axes)
        return _place_outputs(result, self.out_axes, size)

    def _pack(self, args, axes):
        """The user's positional arguments as the packed parameters (arguments.Packing: `def rnn(params,
        *inputs)` is transformed as `def rnn(params, inputs)`), each with its in_axes: the *args tuple
        maps each of its items on the axis in_axes gives that positional argument, as in JAX."""
        packing = self.packing
        packed = packing.pack(args, {})
        count = len(packing.positional)
        packed_axes = list(axes[:count])
        names = list(packing.positional)
        if packing.vararg is not None:
            extra = tuple(axes[count:])
            packed_axes.append(extra if any(a is not None for a in extra) else None)
            names.append(f"*{packing.vararg}")
        packed_axes += [None] * len(packing.keyword_only)
        names += list(packing.keyword_only)
        return tuple(packed), tuple(packed_axes), names

    def _unmapped(self, args, size):
        """No argument is mapped: the function runs once and every mapped output is repeated axis_size times."""
        result = self.user_fun(*args)
        return _place_outputs(_broadcast_outputs(result, self.out_axes, size), self.out_axes, size)

    # ------------------------------------------------------------ generating
    def derivation(self, spec, out_none):
        key = (spec, out_none, self.axis_name)
        try:
            table = _BUILT.setdefault(derivation_cache_key(self.fun), {})
        except TypeError:
            table = {}
        built = table.get(key)
        if built is None or not built.current():
            built = Derivation()
            built.vmap(self.fun if self.packing is None else self.packing.source, spec, out_none=out_none,
                       axis_name=self.axis_name)
            table[key] = built
        self._last = built
        return built

    def generated(self, spec, out_none):
        derivation = self.derivation(spec, out_none)
        return derivation.functions[derivation.sources[-1][0]]

    def _static_spec(self):
        """The signature the next transformation sees (it passes arrays, mapped as in_axes says)."""
        if self.packing is not None:
            raise NotImplementedError(f"transforming vmap(f) again where {name_of(self.fun)} has *args or keyword-"
                                      f"only parameters is not supported yet; list its parameters explicitly")
        count = len(_parameter_names(self.fun, len(self.leading), None))
        axes = self.in_axes if isinstance(self.in_axes, tuple) else (self.in_axes,) * count
        if any(a is not None and not isinstance(a, int) for a in axes):
            raise NotImplementedError("transforming vmap(f) again with pytree in_axes is not supported yet; pass an "
                                      "int or None per argument")
        if not isinstance(self.out_axes, int) and self.out_axes is not None and not (
                isinstance(self.out_axes, tuple) and all(a is None or isinstance(a, int) for a in self.out_axes)):
            raise NotImplementedError("transforming vmap(f) again with pytree out_axes is not supported yet")
        spec = tuple([ParamSpec(False)] * len(self.leading) + [ParamSpec(a is not None, ARRAY, None) for a in axes])
        return axes, spec

    def composable_source(self):
        """The source the next transformation reads: the generated function, behind a one-line
        function that moves in_axes and out_axes when they are not 0."""
        axes, spec = self._static_spec()
        if all(a is None for a in axes):
            return self._unmapped_source()
        generated = self.generated(spec, _out_none(self.out_axes))
        simple = all(a in (0, None) for a in axes) and self.out_axes in (0, None) and not self.leading \
            and not self.keywords
        if simple:
            return generated.__astjax_function_source__
        if self._composable is None or self._composable[0] is not generated:
            self._composable = (generated, _moving_source(generated, self.fun, self.leading, self.keywords,
                                                          axes, self.out_axes))
        return self._composable[1]

    def _unmapped_source(self):
        """No argument is mapped (in_axes None, axis_size given): the function called once, each mapped output
        repeated axis_size times, as `_unmapped` computes it, written as source for the next transformation."""
        if self.axis_size is None:
            raise ValueError("vmap must have at least one non-None value in in_axes or axis_size must be specified")
        if self.leading or self.keywords or not (self.out_axes is None or isinstance(self.out_axes, int) or (
                isinstance(self.out_axes, tuple) and all(a is None or isinstance(a, int) for a in self.out_axes))):
            raise NotImplementedError("transforming vmap(f, in_axes=None, axis_size=...) again is supported for a "
                                      "plain function with int, None or a tuple of them as out_axes")
        if self._composable is None or self._composable[0] is not self.user_fun:
            self._composable = (self.user_fun, _repeating_source(self.user_fun, self.out_axes, self.axis_size))
        return self._composable[1]

    def source_text(self):
        return self.printed_derivation().source_text()

    def printed_derivation(self):
        """The Derivation of the last call (or of the signature the next transformation sees)."""
        if self._last is None:
            axes, spec = self._static_spec()
            self.derivation(spec, _out_none(self.out_axes))
        return self._last


# ---------------------------------------------------------------- arguments
class AxesSpecError(TypeError, ValueError):
    """An in_axes/out_axes leaf that is not an int or None: JAX raises a TypeError; astjax's earlier
    releases a ValueError, which code may still catch."""


def _check_axes_spec(spec, what):
    for leaf in tree_util.tree_leaves(spec, is_leaf=lambda x: x is None):
        if leaf is not None and (not isinstance(leaf, int) or isinstance(leaf, bool)):
            raise AxesSpecError(f"vmap {what} must be an int, None, or (nested) container with those types as "
                                f"leaves, but got {spec}.")


def _parameter_names(fun, skip, count):
    try:
        params = list(inspect.signature(fun).parameters)[skip:]
    except (TypeError, ValueError):
        params = []
    if count is None:
        return params
    return [params[i] if i < len(params) else f"argument {i}" for i in range(count)]


def _prepare(arg, axis, name, sizes):
    """(the argument with its mapped axis moved to 0, its ParamSpec); records each mapped leaf's size."""
    if axis is None:
        return arg, _unmapped_spec(arg)
    leaves, treedef = tree_util.tree_flatten(arg)
    axis_leaves = [axis] * len(leaves) if isinstance(axis, int) else _broadcast_prefix(axis, arg, name)
    if len(axis_leaves) != len(leaves):
        raise ValueError(f"vmap in_axes specification must be a tree prefix of the corresponding value, got "
                         f"specification {axis} for value tree {treedef} (argument {name}).")
    moved = []
    for leaf, a, leaf_name in zip(leaves, axis_leaves, _leaf_names(arg, name, len(leaves))):
        if a is None:
            moved.append(leaf)
            continue
        array = np.asarray(leaf)
        if not -array.ndim <= a < array.ndim or array.ndim == 0:
            raise ValueError(f"vmap was requested to map its argument along axis {a}, which implies that its rank "
                             f"should be at least {(a if a >= 0 else -a - 1) + 1}, but is only {array.ndim} (its "
                             f"shape is {array.shape}) (argument {leaf_name}).")
        sizes.append((array.shape[a], a, leaf_name, array))
        moved.append(wrap(np.moveaxis(array, a, 0)) if a not in (0, -array.ndim) else wrap(array))
    if not any(a is not None for a in axis_leaves):
        return arg, _unmapped_spec(arg)
    if treedef == tree_util.tree_structure(0.0) or not isinstance(arg, (tuple, list, dict)):
        return moved[0], ParamSpec(True, ARRAY, np.ndim(moved[0]) - 1)
    # a container: every leaf carries the batch (unmapped leaves repeated along a new axis 0)
    size = next(m.shape[0] for m, a in zip(moved, axis_leaves) if a is not None)
    leaves = [wrap(np.broadcast_to(np.asarray(m), (size,) + np.shape(m))) if a is None else m
              for m, a in zip(moved, axis_leaves)]
    value = tree_util.tree_unflatten(treedef, leaves)
    return value, ParamSpec(True, _kind(value, batched=True), None)


def _leaf_names(arg, name, count):
    """Each leaf's name as JAX's errors print it (`p['w']`, `p[0]`), in tree_flatten's order; the argument's
    name for every leaf of a tree holding other nodes (a namedtuple, a registered class)."""
    names = []

    def walk(x, path):
        if isinstance(x, dict):
            if type(x) is not dict:          # an OrderedDict flattens in insertion order: not named here
                raise TypeError(type(x))
            for key in sorted(x):
                walk(x[key], f"{path}[{key!r}]")
        elif type(x) in (tuple, list):
            for i, item in enumerate(x):
                walk(item, f"{path}[{i}]")
        elif x is not None:
            names.append(path)

    try:
        walk(arg, name)
    except TypeError:            # keys that do not sort
        names = []
    return names if len(names) == count else [name] * count


def _unmapped_spec(arg):
    kind = _kind(arg, batched=False)
    return ParamSpec(False, ARRAY if isinstance(kind, int) else kind, kind if isinstance(kind, int) else None)


def _kind(value, batched):
    """The kind transforms/vmap.py records: a rank for an array, a tuple of kinds for a tuple or list."""
    if isinstance(value, (tuple, list)):
        return tuple(_kind(v, batched) for v in value)
    if isinstance(value, dict):
        return "tree"
    if isinstance(value, (np.ndarray, np.generic, int, float, bool, complex)):
        return int(np.ndim(value)) - (1 if batched else 0)
    return None


def _broadcast_prefix(axis, arg, name):
    """in_axes given as a pytree prefix of the argument: the axis of every leaf of `arg`, in its flattening
    order. A None in the argument (`{"b": None}`) is an empty subtree, as in JAX: it has no leaf, so whatever
    in_axes says for it (an int or None) gives no entry."""
    per_leaf = []

    def spread(a, sub):
        per_leaf.extend([a] * len(tree_util.tree_leaves(sub)))

    try:
        tree_util.tree_map(spread, axis, arg, is_leaf=lambda x: x is None)
        return per_leaf
    except Exception as exc:
        raise ValueError(f"vmap in_axes specification must be a tree prefix of the corresponding value, got "
                         f"specification {axis} for value tree {tree_util.tree_structure(arg)} (argument {name}).") \
            from exc


def _batch_size(sizes, axis_size):
    distinct = sorted({s for s, _, _, _ in sizes})
    if len(distinct) > 1 or (axis_size is not None and distinct and distinct[0] != axis_size):
        lines = []
        for size in distinct:
            group = [(a, n, leaf) for s, a, n, leaf in sizes if s == size]
            a, n, leaf = group[0]
            where = f"axis {a} of argument {n} of type {leaf.dtype.name}{list(leaf.shape)}"
            lines.append(f"  * {'one axis' if len(group) == 1 else f'{len(group)} axes'} had size {size}: {where}")
        if axis_size is not None and distinct and axis_size not in distinct:
            lines.append(f"  * axis_size was given as {axis_size}")
        raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n" + ";\n".join(lines))
    if distinct:
        return distinct[0]
    if axis_size is None:
        raise ValueError("vmap must have at least one non-None value in in_axes or axis_size must be specified")
    return axis_size


def _through_jit(inner):
    """The transform a chain of jits wraps (jit is transparent to vmap: it batches the source jit holds)."""
    while inner is not None and type(inner).__name__ == "_JitTransform" and getattr(inner, "jitted", None) is not None:
        inner = getattr(inner.jitted.fun, "__astjax_transform__", None)
    return inner


def _check_differentiated_inputs(fun, args):
    """vmap(grad(f)) runs grad's generated source, not grad's wrapper: the wrapper's check of the arguments
    it differentiates is made here, on the batched arguments (an example has its batch's dtype). An integer
    or complex input is then the TypeError it is under grad (JAX raises too), never derivatives of integers."""
    from .api import ReverseTransform
    from .forward import _JacobianTransform
    inner = _through_jit(getattr(fun, "__astjax_transform__", None))
    while isinstance(inner, VmapTransform) and not inner.leading and not inner.keywords:
        # an example of an example has the same dtype
        inner = _through_jit(getattr(inner.fun, "__astjax_transform__", None))
    if isinstance(inner, ReverseTransform) and not inner.allow_int:
        kind, positions = inner.kind, inner.argnums
    elif isinstance(inner, _JacobianTransform):
        kind, positions = inner.kind, inner.nums
    else:
        return
    refuse_complex(args, kind)
    for i in positions:
        if -len(args) <= i < len(args):
            tree_util.tree_map(lambda leaf: differentiable_input(leaf, kind), args[i])


# ---------------------------------------------------------------- outputs
def _refuse_adjoint_trees(fun, result):
    """A gradient of a dict or tuple that grad computed inside the function and returned (`return
    astjax.grad(loss)(params, x)`) reaches vmap as an adjoint tree: only grad's own wrapper rebuilds its
    structure (zero items included) from the differentiated argument, which is not at hand here. Refused at
    the function's return line rather than handed out half-built (vmap(grad(f)) itself is rebuilt above)."""
    from .errors import OutputTypeError
    from .frontend.return_lines import error_at_return
    from .rules.helpers import TreeAdjoint

    def holds(value):
        if isinstance(value, TreeAdjoint):
            return True
        if isinstance(value, dict):
            return any(holds(v) for v in value.values())
        return isinstance(value, (tuple, list)) and any(holds(v) for v in value)
    if holds(result):
        message = (f"vmap of {name_of(fun)}, which returns a gradient of a dict or tuple that grad computes inside "
                   "it: astjax cannot rebuild that gradient's structure inside vmap")
        hint = ("return its items (`g = grad(loss)(p, x); return g['w'], g['b']`), or vmap the gradient itself "
                "(`vmap(grad(loss), in_axes=(None, 0))`).")
        raise error_at_return(fun, message, hint, OutputTypeError) or TypeError(f"{message}; {hint}")


def _materialize_gradients(fun, result, args, spec, size, count):
    """vmap(grad(f)) runs grad's generated source, whose gradients of tuples and dicts are adjoint
    trees (rules/helpers.TreeAdjoint) and whose zero gradients may be bare 0.0: rebuilt here, as grad's
    own wrapper does, against the arguments with the batch axis."""
    from .api import ReverseTransform
    from .rules.helpers import materialize
    # vmap(jit(grad(f))): jit is transparent (vmap batches grad's source), so its gradients need the same
    # rebuilding; they reached the user as adjoint trees before (a crash, or a tuple's gradient of wrong shape)
    inner = _through_jit(getattr(fun, "__astjax_transform__", None))
    if not isinstance(inner, ReverseTransform) or inner.kind not in ("grad", "value_and_grad") or (
            inner.leading or inner.keywords):
        return result

    def batched_like(i):
        arg = args[i]
        if spec[i].batched:
            return arg
        return tree_util.tree_map(lambda leaf: wrap(np.broadcast_to(np.asarray(leaf), (size,) + np.shape(leaf))), arg)

    def gradient(g, like):
        return materialize(_batch_axis_first(_pieces_batch_first(g, like), like), like)

    def rebuild(grads):
        if inner.packing is not None:       # args are the packed parameters: *args is one tuple
            wrt = inner.packed_wrt()
            single = grads if len(wrt) > 1 else (grads,)
            out = []
            for a in inner.argnums:
                param, item = inner.packing.position(a, count)
                g = gradient(single[wrt.index(param)], batched_like(param))
                out.append(g if item is None else g[item])
            out = tuple(out)
        else:
            single = grads if len(inner.argnums) > 1 else (grads,)
            out = tuple(gradient(g, batched_like(i)) for g, i in zip(single, inner.argnums))
        return out[0] if inner.single else out

    if inner.kind == "value_and_grad":
        value, grads = result
        return value, rebuild(grads)
    if inner.has_aux:
        grads, aux = result
        return rebuild(grads), aux
    return rebuild(result)


def _pieces_batch_first(g, like):
    """An array's gradient given as a list of pieces (the adjoint of `jnp.stack(x)` is the list of x's
    rows, or their TreeAdjoint), each batched on axis 0: stacked on axis 1, so the batch stays first (np.asarray would put it
    second)."""
    from .rules.helpers import TreeAdjoint
    if isinstance(g, TreeAdjoint) and isinstance(like, np.ndarray) and np.ndim(like) >= 2 and all(
            type(k) is int and 0 <= k < np.shape(like)[1] for k in g.items):
        g = [g.items.get(k, np.zeros(np.shape(like)[:1] + np.shape(like)[2:])) for k in range(np.shape(like)[1])]
    if isinstance(g, list) and isinstance(like, np.ndarray) and g and all(
            isinstance(p, np.ndarray) and np.ndim(p) >= 1 and np.shape(p)[0] == np.shape(like)[0] for p in g):
        return wrap(np.stack([np.asarray(p) for p in g], axis=1))
    return g


def _batch_axis_first(g, like):
    """A batched gradient of lower per-example rank than its argument (grad's bare zero `0.0`, which
    stands for zeros of any shape, batched to shape (B,)): unit axes after the batch axis, so that
    materialize broadcasts each example's value (NumPy would line the batch axis up with the last one)."""
    from .rules.helpers import TreeAdjoint
    if isinstance(g, TreeAdjoint) and isinstance(like, (tuple, list, dict)):
        keys = like.keys() if isinstance(like, dict) else range(len(like))
        return TreeAdjoint({k: _batch_axis_first(v, like[k]) if k in keys else v for k, v in g.items.items()},
                           g.fields)
    if isinstance(g, (tuple, list)) and isinstance(like, (tuple, list)) and len(g) == len(like):
        items = [_batch_axis_first(v, w) for v, w in zip(g, like)]
        return type(g)(*items) if hasattr(g, "_fields") else type(g)(items)
    if isinstance(g, np.ndarray) and type(like) in (list, tuple) and like and g.ndim >= 2 \
            and g.shape[1] == len(like) and all(isinstance(w, np.ndarray) and np.shape(w)[:1] == g.shape[:1]
                                                for w in like):
        # a list read as one array (`jnp.sort(xs)`): its adjoint holds the batch, then one entry per item
        return type(like)(_batch_axis_first(g[:, k], w) for k, w in enumerate(like))
    if isinstance(g, dict) and isinstance(like, dict):
        return {k: _batch_axis_first(v, like.get(k)) for k, v in g.items()}
    if isinstance(g, np.ndarray) and isinstance(like, np.ndarray) and 1 <= g.ndim < like.ndim \
            and g.shape[0] == like.shape[0]:
        return g.reshape(g.shape[:1] + (1,) * (like.ndim - g.ndim) + g.shape[1:])
    return g


def _out_none(out_axes):
    """Which outputs out_axes leaves unbatched, as the generated source is told: True (the whole output),
    a tuple of booleans (one per item of a returned tuple), else False. None deeper in out_axes
    (`((0, None), 0)`, `{'a': None}`) is checked on the results instead (_unmapped_leaves)."""
    if out_axes is None:
        return True
    if isinstance(out_axes, tuple) and any(a is None for a in out_axes) and all(
            a is None or isinstance(a, int) for a in out_axes):
        return tuple(a is None for a in out_axes)
    return False


def _nested_none(out_axes):
    """Whether out_axes has a None leaf the generated source was not told of (see _out_none)."""
    return _out_none(out_axes) is False and any(
        leaf is None for leaf in tree_util.tree_leaves(out_axes, is_leaf=lambda x: x is None))


def _unmapped_leaves(result, out_axes):
    """The outputs whose out_axes is None, nested in a container: the generated source computed them with the
    batch axis first (repeated, where they do not depend on the batch). Each becomes one example's value if
    every example has the same one; else the output depends on the batch, which out_axes=None forbids (JAX's
    error)."""
    def one(leaf):
        array = np.asarray(leaf)
        if array.ndim == 0 or not np.array_equal(array, np.broadcast_to(array[:1], array.shape), equal_nan=True):
            raise ValueError("vmap has mapped output but out_axes is None: an output whose out_axes is None "
                             "depends on the batched inputs")
        return wrap(array[0])

    def place(a, sub):
        return tree_util.tree_map(one, sub) if a is None else sub
    try:
        return tree_util.tree_map(place, out_axes, result, is_leaf=lambda x: x is None)
    except (ValueError, TypeError, KeyError) as exc:
        if "out_axes is None" in str(exc):
            raise
        raise ValueError(f"vmap out_axes specification must be a tree prefix of the corresponding value, got "
                         f"specification {out_axes} for value tree {tree_util.tree_structure(result)}.") from exc


def _place_outputs(result, out_axes, size):
    """Move axis 0 of each mapped output leaf to its out_axes."""
    if out_axes is None:
        return result
    if isinstance(out_axes, int):
        return tree_util.tree_map(lambda leaf: _move(leaf, out_axes), result)
    if isinstance(out_axes, (tuple, list)) and isinstance(result, (tuple, list)) and len(out_axes) != len(result):
        raise ValueError(f"vmap out_axes specification must be a tree prefix of the corresponding value, got "
                         f"specification {out_axes} for value tree {tree_util.tree_structure(result)}.")
    try:
        return tree_util.tree_map(lambda a, sub: sub if a is None else tree_util.tree_map(
            lambda leaf: _move(leaf, a), sub), out_axes, result, is_leaf=lambda x: x is None)
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"vmap out_axes specification must be a tree prefix of the corresponding value, got "
                         f"specification {out_axes} for value tree {tree_util.tree_structure(result)}.") from exc


def _move(leaf, axis):
    array = np.asarray(leaf)
    if not -array.ndim <= axis < array.ndim:
        raise ValueError(f"vmap out_axes={axis} is out of range for an output of rank {array.ndim - 1} "
                         f"(shape {array.shape[1:]} per example)")
    return wrap(np.moveaxis(array, 0, axis)) if axis not in (0, -array.ndim) else wrap(array)


def _broadcast_outputs(result, out_axes, size):
    """Every output leaf out_axes maps, repeated `size` times along a new axis 0 (None leaves as they are)."""
    def grow(leaf):
        array = np.asarray(leaf)
        return wrap(np.broadcast_to(array, (size,) + array.shape))
    if out_axes is None:
        return result
    if isinstance(out_axes, int):
        return tree_util.tree_map(grow, result)
    try:
        return tree_util.tree_map(lambda a, sub: sub if a is None else tree_util.tree_map(grow, sub), out_axes,
                                  result, is_leaf=lambda x: x is None)
    except (ValueError, TypeError, KeyError) as exc:
        raise ValueError(f"vmap out_axes specification must be a tree prefix of the corresponding value, got "
                         f"specification {out_axes} for value tree {tree_util.tree_structure(result)}.") from exc


_CONTAINER_OUTPUT = ("transforming vmap(f, in_axes=None, axis_size=...) again where f returns a container: give "
                     "out_axes one entry per output (a tuple), or map an argument")


def _repeating_source(fun, out_axes, size):
    """FunctionSource of `def f(x): out = fun(x); return moveaxis(broadcast_to(out, (size,) + shape(out)), 0, k)`
    for each output whose out_axes is not None (vmap with no mapped argument and axis_size=size)."""
    import gast

    from .backends.python import compile_function
    params = list(inspect.signature(fun).parameters)

    def repeated(item, axis):
        if axis is None:
            return item
        grown = f"jnp.broadcast_to({item}, ({int(size)},) + jnp.shape({item}))"
        return grown if axis == 0 else f"jnp.moveaxis({grown}, 0, {int(axis)})"

    lines = [f"    out = _fun({', '.join(params)})"]
    if isinstance(out_axes, tuple):
        lines.append(f"    out = ({', '.join(repeated(f'out[{i}]', a) for i, a in enumerate(out_axes))},)")
    elif out_axes is not None:      # one int for every output: written for one array (a container is refused)
        lines += ["    if isinstance(out, (tuple, list, dict)):",
                  f"        raise NotImplementedError({_CONTAINER_OUTPUT!r})",
                  f"    out = {repeated('out', out_axes)}"]
    name = f"vmap_{getattr(fun, '__name__', 'f')}"
    text = f"def {name}({', '.join(params)}):\n" + "\n".join(lines) + "\n    return out\n"
    from . import numpy as jnp
    compiled, _ = compile_function(gast.parse(text).body[0], {"_fun": fun, "jnp": jnp}, label=name)
    return compiled.__astjax_function_source__


def _moving_source(generated, fun, leading, keywords, axes, out_axes):
    """FunctionSource of `def f(x, w): return moveaxis(generated(moveaxis(x, a, 0), w), 0, k)`."""
    import gast

    from .backends.python import compile_function
    from .codegen.namespace import renamed_keywords
    params = [p for p in list(inspect.signature(fun).parameters)[len(leading):] if p not in keywords]
    lines, passed = [], []
    for p, a in zip(params, axes):
        if a in (None, 0):
            passed.append(p)
        else:
            lines.append(f"    {p}_moved = jnp.moveaxis({p}, {a}, 0)")
            passed.append(f"{p}_moved")
    bound = [f"_leading{i}" for i in range(len(leading))]
    keyword_text = [f"{k}=_keyword_{k}" for k in renamed_keywords(generated, keywords)]
    lines.append(f"    out = _generated({', '.join(bound + passed + keyword_text)})")
    if isinstance(out_axes, int) and out_axes != 0:
        lines.append(f"    out = jnp.moveaxis(out, 0, {out_axes})")
    elif isinstance(out_axes, tuple):
        items = [f"out[{i}]" if a in (None, 0) else f"jnp.moveaxis(out[{i}], 0, {a})" for i, a in enumerate(out_axes)]
        lines.append(f"    out = ({', '.join(items)},)")
    text = f"def {generated.__name__}({', '.join(params)}):\n" + "\n".join(lines) + "\n    return out\n"
    from . import numpy as jnp
    namespace = {"_generated": generated, "jnp": jnp, **dict(zip(bound, leading)),
                 **{f"_keyword_{k}": v for k, v in renamed_keywords(generated, keywords).items()}}
    fn, _ = compile_function(gast.parse(text).body[0], namespace, label=generated.__name__)
    return fn.__astjax_function_source__
