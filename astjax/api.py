"""The public transformations: grad, value_and_grad, vjp (and source, to read what they generate).

Each returns a Python function. Its first call generates the derivative's
source (once per transformation, not per input shape) and runs it on the
reference backend; `astjax.source(g)` prints that source. A transformed
function can be transformed again: the next pass reads the generated source.
"""
import functools
import inspect
import numbers
import weakref

import numpy as np

from . import tree_util
from .array import Array, wrap
from .rules.helpers import materialize
from .transforms.derivation import Derivation

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "jacfwd", "jacrev", "hessian", "source"]


def split_callable(fun):
    """(a function with source, leading arguments, keywords) for what a user may pass.

    A bound method is its function with `self` first; a `functools.partial`
    adds its arguments; an object with `__call__` is that method bound to it.
    """
    if inspect.ismethod(fun):
        inner, leading, keywords = split_callable(fun.__func__)
        return inner, leading + (fun.__self__,), keywords
    if isinstance(fun, functools.partial):
        inner, leading, keywords = split_callable(fun.func)
        return inner, leading + tuple(fun.args), {**keywords, **(fun.keywords or {})}
    if (not inspect.isfunction(fun) and not hasattr(fun, "__astjax_transform__") and not _is_custom(fun)
            and inspect.isfunction(getattr(type(fun), "__call__", None))):
        return type(fun).__call__, (fun,), {}
    return fun, (), {}


def _is_custom(fun):
    from .custom_derivatives import custom_jvp, custom_vjp
    return isinstance(fun, (custom_vjp, custom_jvp))


class ReverseTransform:
    """What `grad(f, argnums, has_aux)` knows: the function, the arguments, the generated code."""

    def __init__(self, fun, argnums, has_aux, kind, allow_int=False):
        _check_callable(fun, kind)
        self.allow_int = allow_int
        self.user_fun = fun
        self.fun, self.leading, self.keywords = split_callable(fun)
        self.single = isinstance(argnums, int)
        self.argnums = (argnums,) if self.single else tuple(argnums)    # positions in the user's call
        if not self.argnums or not all(isinstance(a, int) for a in self.argnums):
            raise TypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}")
        self.has_aux = has_aux
        self.kind = kind
        self._built = {}
        self._composable = None

    def call(self, mode, args, kwargs, before=()):
        """Run the generated function of `mode` on the user's arguments (after `before`, e.g. a cotangent)."""
        return self.generated(mode)(*before, *self.leading, *args, **{**self.keywords, **kwargs})

    def derivation(self, mode):
        """The Derivation for `mode` ("grad", "value_and_grad" or "vjp"), built once per function."""
        if mode not in self._built:
            shift = len(self.leading)
            wrt = tuple(a + shift for a in self.argnums) if mode != "vjp" else self._all_positions()
            key = (mode, tuple(wrt), self.has_aux)
            try:
                table = _REVERSE.setdefault(self.fun, {})
            except TypeError:        # not weak-referenceable: no cache beyond this transform
                table = {}
            if key not in table:
                derivation = Derivation()
                derivation.reverse(self.fun, wrt, mode=mode, has_aux=self.has_aux)
                table[key] = derivation
            self._built[mode] = table[key]
        return self._built[mode]

    def _all_positions(self):
        """Every parameter after the leading (bound) ones: what a pullback differentiates."""
        try:
            count = len(inspect.signature(self.fun).parameters)
        except (TypeError, ValueError):
            from .frontend.parse import function_source
            count = len(function_source(self.fun).node.args.args)
        return tuple(range(len(self.leading), count))

    def generated(self, mode):
        derivation = self.derivation(mode)
        return derivation.functions[derivation.sources[-1][0]]

    def composable_source(self):
        """The FunctionSource of the generated function, for the next transformation to read.

        With bound leading arguments (a method's `self`), a one-line generated
        function binds them, so the next transformation sees the user's signature.
        """
        generated = self.generated(self.kind)
        if not self.leading and not self.keywords:
            return generated.__astjax_function_source__
        if self._composable is None:
            self._composable = _bind_leading(generated, self.fun, self.leading, self.keywords)
        return self._composable

    def source_text(self):
        return self.derivation(self.kind).source_text()

    def prepare(self, args):
        """Check the arguments and turn differentiated Python floats into float32 arrays."""
        args = list(args)
        for i in self.argnums:
            if i >= len(args) or i < -len(args):
                raise TypeError(f"{self.kind} of {_name(self.fun)} with argnums={self.argnums} needs at least "
                                f"{max(self.argnums) + 1} positional arguments, got {len(args)}")
            arg = args[i]
            if self.allow_int:
                args[i] = tree_util.tree_map(
                    lambda leaf: _differentiable_input(leaf, self.kind) if _is_float_leaf(leaf) else leaf, arg)
            elif isinstance(arg, (np.ndarray, np.generic, float, int)):      # the common case: one leaf
                args[i] = _differentiable_input(arg, self.kind)
            else:
                args[i] = tree_util.tree_map(lambda leaf: _differentiable_input(leaf, self.kind), arg)
        return args


_FORWARD = weakref.WeakKeyDictionary()     # function -> {mask: generated jvp function}
_REVERSE = weakref.WeakKeyDictionary()     # function -> {(mode, wrt, has_aux): Derivation}


def _is_float_leaf(leaf):
    if isinstance(leaf, bool) or isinstance(leaf, numbers.Integral):
        return False
    if isinstance(leaf, numbers.Real):
        return True
    return np.issubdtype(np.result_type(leaf), np.inexact)


def forward_function(fun, mask):
    """The generated forward-mode function of `fun` for the float arguments in `mask` (cached)."""
    try:
        table = _FORWARD.setdefault(fun, {})
    except TypeError:         # not weak-referenceable: no cache
        table = {}
    if mask not in table:
        derivation = Derivation()
        derivation.forward(fun, [i for i, m in enumerate(mask) if m])
        table[mask] = derivation
    derivation = table[mask]
    return derivation.functions[derivation.sources[-1][0]], derivation


def jvp(fun, primals, tangents, has_aux=False):
    """`(fun(*primals), tangent of the output)`: forward mode along `tangents`, as `jax.jvp`."""
    _check_callable(fun, "jvp")
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp expects primals and tangents as tuples or lists: jvp(f, (x,), (dx,))")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp got {len(primals)} primals but {len(tangents)} tangents; pass one tangent per primal.")
    primals = list(primals)
    tangents = list(tangents)
    mask = []
    for i, (p, t) in enumerate(zip(primals, tangents)):
        leaves = tree_util.tree_leaves(p)
        is_float = bool(leaves) and all(_is_float_leaf(leaf) for leaf in leaves)
        mask.append(is_float)
        if not is_float:
            continue
        if tree_util.tree_structure(p) != tree_util.tree_structure(t):
            raise ValueError(f"jvp: primal {i} and its tangent have different structures: "
                             f"{tree_util.tree_structure(p)} and {tree_util.tree_structure(t)}")
        for leaf_p, leaf_t in zip(leaves, tree_util.tree_leaves(t)):
            if np.shape(leaf_p) != np.shape(leaf_t):
                raise ValueError(f"jvp called with different primal and tangent shapes: primal {i} has shape "
                                 f"{np.shape(leaf_p)}, its tangent {np.shape(leaf_t)}.")
        primals[i] = tree_util.tree_map(lambda leaf: _differentiable_input(leaf, "jvp"), p)
        tangents[i] = tree_util.tree_map(lambda leaf, like: wrap(np.asarray(leaf, dtype=np.result_type(like))),
                                         t, primals[i])
    function, leading, keywords = split_callable(fun)
    generated, _ = forward_function(function, (False,) * len(leading) + tuple(mask))
    value, tangent = generated(*leading, *primals, *[t for t, m in zip(tangents, mask) if m], **keywords)
    if has_aux:
        (value, aux), (tangent, _) = (value, tangent)
        return _as_output(value), _tangent_like(tangent, value), aux
    return _as_output(value), _tangent_like(tangent, value)


def _as_output(value):
    return tree_util.tree_map(lambda v: wrap(v) if isinstance(v, (np.ndarray, numbers.Number)) else v, value)


def _tangent_like(tangent, value):
    if isinstance(value, (tuple, list)):
        return type(value)(_tangent_like(t, v) for t, v in zip(tangent, value))
    return materialize(tangent, value)


def _zero_tangent(arg):
    """A zero tangent for any argument: zeros for float leaves, a 0-d zero for the rest."""
    return tree_util.tree_map(
        lambda leaf: np.zeros(np.shape(leaf), np.result_type(leaf)) if _is_float_leaf(leaf) else np.zeros(()), arg)


def jacfwd(fun, argnums=0, has_aux=False):
    """The Jacobian of `fun` by forward mode: one jvp per input element.

    Shape: the output's shape + the input's. For a pytree argument the result
    has the argument's structure, one Jacobian per leaf, as in JAX.
    """
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    @functools.wraps(fun)
    def jacfwd_f(*args):
        args = [tree_util.tree_map(lambda leaf: _differentiable_input(leaf, "jacfwd"), a) if i in nums else a
                for i, a in enumerate(args)]
        base = [_zero_tangent(a) for a in args]
        jacobians = []
        for i in nums:
            leaves, treedef = tree_util.tree_flatten(args[i])
            per_leaf = []
            for position, leaf in enumerate(leaves):
                columns, out_shape = [], None
                for k in range(np.size(leaf)):
                    basis = np.zeros(np.size(leaf), dtype=np.result_type(leaf))
                    basis[k] = 1
                    tangent_leaves = [np.zeros(np.shape(l), np.result_type(l)) for l in leaves]
                    tangent_leaves[position] = basis.reshape(np.shape(leaf))
                    tangents = list(base)
                    tangents[i] = tree_util.tree_unflatten(treedef, tangent_leaves)
                    out, tangent = jvp(fun, args, tangents)
                    out_shape = np.shape(out)
                    columns.append(np.asarray(tangent))
                if out_shape is None:
                    out_shape = np.shape(fun(*args))
                jac = np.stack(columns, axis=-1) if columns else np.zeros(out_shape + (0,))
                per_leaf.append(wrap(jac.reshape(out_shape + np.shape(leaf))))
            jacobians.append(tree_util.tree_unflatten(treedef, per_leaf))
        return jacobians[0] if single else tuple(jacobians)

    jacfwd_f.__astjax_transform__ = _ForwardTransform(fun, nums)
    return jacfwd_f


def jacrev(fun, argnums=0, has_aux=False):
    """The Jacobian of `fun` by reverse mode: one pullback per output element.

    Shape: the output's shape + the input's; pytree arguments as in `jacfwd`.
    """
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    @functools.wraps(fun)
    def jacrev_f(*args):
        out, pullback = vjp(fun, *args)
        out_arr = np.asarray(out)
        rows = {i: [] for i in nums}
        for k in range(out_arr.size):
            basis = np.zeros(out_arr.size, dtype=np.result_type(out_arr))
            basis[k] = 1
            cotangents = pullback(basis.reshape(out_arr.shape))
            for i in nums:
                rows[i].append([np.asarray(leaf) for leaf in tree_util.tree_leaves(cotangents[i])])
        jacobians = []
        for i in nums:
            leaves, treedef = tree_util.tree_flatten(args[i])
            per_leaf = []
            for position, leaf in enumerate(leaves):
                stacked = (np.stack([row[position] for row in rows[i]]) if rows[i]
                           else np.zeros((0,) + np.shape(leaf)))
                per_leaf.append(wrap(stacked.reshape(out_arr.shape + np.shape(leaf))))
            jacobians.append(tree_util.tree_unflatten(treedef, per_leaf))
        return jacobians[0] if single else tuple(jacobians)

    jacrev_f.__astjax_transform__ = ReverseTransform(fun, tuple(range(max(nums) + 1)), has_aux, "vjp")
    return jacrev_f


def hessian(fun, argnums=0, has_aux=False):
    """The Hessian of a scalar `fun`: forward mode over the generated reverse-mode gradient."""
    return jacfwd(grad(fun, argnums, has_aux=has_aux), argnums)


class _ForwardTransform:
    """What `astjax.source` shows for a forward-mode transformation: the generated jvp."""

    def __init__(self, fun, nums):
        self.fun, self.leading, _ = split_callable(fun)
        self.nums = tuple(n + len(self.leading) for n in nums)

    def _mask(self):
        from .frontend.parse import function_source
        count = len(function_source(self.fun).node.args.args)
        return tuple(i in self.nums for i in range(count))

    def source_text(self):
        return forward_function(self.fun, self._mask())[1].source_text()

    def composable_source(self):
        return forward_function(self.fun, self._mask())[0].__astjax_function_source__


def _bind_leading(generated, fun, leading, keywords):
    """FunctionSource of `def f(x): return generated(<leading>, x, <keywords>)`."""
    import gast

    from .backends.python import compile_function
    params = [p for p in list(inspect.signature(fun).parameters)[len(leading):] if p not in keywords]
    bound = [f"_leading{i}" for i in range(len(leading))]
    keyword_text = [f"{k}=_keyword_{k}" for k in keywords]
    call = f"_generated({', '.join(bound + params + keyword_text)})"
    text = f"def {generated.__name__}({', '.join(params)}):\n    return {call}\n"
    namespace = {"_generated": generated, **dict(zip(bound, leading)),
                 **{f"_keyword_{k}": v for k, v in keywords.items()}}
    fn, _ = compile_function(gast.parse(text).body[0], namespace, label=generated.__name__)
    return fn.__astjax_function_source__


def _differentiable_input(leaf, kind):
    if type(leaf) is Array and leaf.dtype.kind in "fc":
        return leaf
    dtype = np.result_type(leaf) if not isinstance(leaf, numbers.Number) else None
    if isinstance(leaf, bool) or isinstance(leaf, numbers.Integral) or (
            dtype is not None and not np.issubdtype(dtype, np.inexact)):
        shown = "int" if dtype is None else dtype.name
        raise TypeError(
            f"{kind} requires real-valued inputs (a float dtype), but got {shown}. "
            f"Pass a float (e.g. 3.0 instead of 3, or x.astype(jnp.float32)), or move the integer "
            f"argument out of argnums.")
    if isinstance(leaf, np.generic):
        return wrap(np.asarray(leaf))          # a NumPy scalar keeps its dtype (float64 stays float64)
    if isinstance(leaf, numbers.Real):
        return wrap(np.float32(leaf))
    if isinstance(leaf, np.ndarray) and type(leaf) is not Array:
        return wrap(leaf)
    return leaf


def _check_callable(fun, kind):
    if not callable(fun):
        raise TypeError(f"{kind} expects a function, got {type(fun).__name__}: {fun!r}")


def _name(fun):
    return getattr(fun, "__name__", repr(fun))


def _check_scalar_output(value, fun):
    if type(value) is Array and value.ndim == 0 and value.dtype.kind in "fc":
        return
    shape = np.shape(value)
    if shape != ():
        raise TypeError(f"grad requires a function with a scalar output, but {_name(fun)} returned an array "
                        f"of shape {shape}. Use jnp.sum(...) to reduce it, or astjax.vjp / astjax.jacrev for "
                        f"non-scalar outputs.")
    dtype = np.result_type(value)
    if not np.issubdtype(dtype, np.inexact):
        raise TypeError(f"grad requires a float-valued output, but {_name(fun)} returned {dtype.name}.")


FLOAT0 = np.dtype([("float0", np.void, 0)])    # JAX's dtype for the "gradient" of an integer


def _gradient_like(g, arg):
    """The gradient shaped like `arg`; integer leaves (with allow_int=True) get float0 zeros, as in JAX."""
    if isinstance(arg, (tuple, list, dict)):
        return tree_util.tree_map(
            lambda grad_leaf, leaf: grad_leaf if _is_float_leaf(leaf) else np.zeros(np.shape(leaf), FLOAT0),
            materialize(g, arg), arg)
    if _is_float_leaf(arg):
        return materialize(g, arg)
    return np.zeros(np.shape(arg), FLOAT0)


def _materialize_grads(transform, grads, args):
    grads = grads if len(transform.argnums) > 1 else (grads,)
    out = tuple(_gradient_like(g, args[i]) for g, i in zip(grads, transform.argnums))
    return out[0] if transform.single else out


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """A function returning `(fun(*args), grad(fun)(*args))`, computed in one pass.

    With has_aux=True, `fun` returns `(output, aux)` and the result is `((output, aux), grad)`.
    """
    transform = ReverseTransform(fun, argnums, has_aux, "value_and_grad", allow_int=allow_int)

    @functools.wraps(fun)
    def value_and_grad_f(*args, **kwargs):
        args = transform.prepare(args)
        value, grads = transform.call("value_and_grad", args, kwargs)
        output = value[0] if has_aux else value
        _check_scalar_output(output, fun)
        if has_aux:
            value = (wrap(output), value[1])
        else:
            value = wrap(value)
        return value, _materialize_grads(transform, grads, args)

    value_and_grad_f.__astjax_transform__ = transform
    return value_and_grad_f


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """The gradient of a scalar-valued `fun` with respect to the arguments in `argnums`.

    Like `jax.grad`: `argnums` is an int or a tuple of ints; arguments may be
    pytrees of float arrays; with has_aux=True `fun` returns `(output, aux)` and
    the result is `(gradient, aux)`. The derivative is Python source generated
    from `fun`'s source: see it with `astjax.source(grad(fun))`.
    """
    transform = ReverseTransform(fun, argnums, has_aux, "grad", allow_int=allow_int)

    @functools.wraps(fun)
    def grad_f(*args, **kwargs):
        args = transform.prepare(args)
        value, grads = transform.call("value_and_grad", args, kwargs)
        _check_scalar_output(value[0] if has_aux else value, fun)
        result = _materialize_grads(transform, grads, args)
        return (result, value[1]) if has_aux else result

    grad_f.__astjax_transform__ = transform
    return grad_f


def vjp(fun, *primals, has_aux=False):
    """`(fun(*primals), pullback)` where `pullback(ct)` gives the cotangents of all primals.

    Like `jax.vjp`; with has_aux=True the result is `(output, pullback, aux)`.
    """
    _check_callable(fun, "vjp")
    transform = ReverseTransform(fun, tuple(range(len(primals))) or (0,), has_aux, "vjp")
    args = transform.prepare(primals) if primals else []
    value = fun(*args)
    output, aux = (value[0], value[1]) if has_aux else (value, None)
    output = wrap(output) if isinstance(output, (np.ndarray, numbers.Number)) else output
    def pullback(cotangent):
        if np.shape(cotangent) != np.shape(output):
            raise ValueError(f"the cotangent passed to the vjp pullback has shape {np.shape(cotangent)}, "
                             f"but the output of {_name(fun)} has shape {np.shape(output)}; they must match.")
        cotangent = wrap(np.asarray(cotangent, dtype=np.result_type(output)))
        grads = transform.call("vjp", args, {}, before=(cotangent,))
        grads = grads if len(args) > 1 else (grads,)
        return tuple(materialize(g, a) for g, a in zip(grads, args))

    pullback.__astjax_transform__ = _PullbackTransform(transform, args)
    return (output, pullback, aux) if has_aux else (output, pullback)


class _PullbackTransform:
    """A pullback as source: `def pullback(ct): return (vjp_f(ct, p0, p1),)`, with the primals bound,
    so grad, jvp and vjp can differentiate a pullback like any function."""

    def __init__(self, transform, primals):
        self.transform = transform
        self.primals = primals
        self._source = None

    def source_text(self):
        return self.transform.source_text()

    def composable_source(self):
        if self._source is None:
            import gast

            from .backends.python import compile_function
            names = [f"p{i}" for i in range(len(self.primals))]
            call = f"vjp_f(ct, {', '.join(names)})"
            result = f"({call},)" if len(names) == 1 else call
            node = gast.parse(f"def pullback(ct):\n    return {result}\n").body[0]
            namespace = dict(zip(names, self.primals), vjp_f=self.transform.generated("vjp"))
            if self.transform.leading or self.transform.keywords:
                raise NotImplementedError("differentiating the pullback of a method or partial is not supported "
                                          "yet; differentiate a plain function instead")
            fn, _ = compile_function(node, namespace, label="pullback")
            self._source = fn.__astjax_function_source__
        return self._source


def source(fun):
    """The generated Python source behind an astjax-transformed function, as a string."""
    transform = getattr(fun, "__astjax_transform__", None)
    if transform is None:
        text = getattr(fun, "__astjax_source_text__", None)
        if text is not None:
            return text
        raise TypeError(f"{_name(fun)} is not an astjax-transformed function; pass e.g. astjax.grad(f).")
    return transform.source_text()


# Calls of these on values known when transforming (`astjax.grad(f)` inside a transformed function)
# are evaluated then, so the function they build is transformed like any callee.
for _transformation in (grad, value_and_grad, jacfwd, jacrev, hessian):
    _transformation.__astjax_static_call__ = True
