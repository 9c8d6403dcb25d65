"""Reverse mode: grad, value_and_grad, vjp (and source, to read what the transformations generate).

Each returns a Python function. Its first call generates the derivative's
source (once per function and transformation, not per input shape) and runs it
on the reference backend; `astjax.source(g)` prints that source. A
transformed function can be transformed again: the next pass reads the
generated source.
"""
import functools
import inspect
import numbers
import weakref

import numpy as np

from . import tree_util
from .arguments import (FLOAT0, argnums_as_ints, Packing, check_callable, differentiable_input, is_float_leaf, name_of,
                        refuse_complex, split_callable)
from .array import Array, wrap
from .codegen.namespace import renamed_keywords
from .errors import api_boundary
from .teaching.display import add_notebook_display
from .jit.api import _ACTIVE as _ACTIVE_JIT, compiled_version
from .jit.grad_value_check import gradient_without_value
from .rules.helpers import ContainerSeedError, materialize
from .transforms.derivation import Derivation
from .transforms.forward_over_reverse import forward_over_reverse

__all__ = ["grad", "value_and_grad", "vjp", "source", "ReverseTransform"]

_REVERSE = weakref.WeakKeyDictionary()     # function -> {(mode, wrt, has_aux, allow_int): Derivation}


def derivation_cache_key(fun):
    """What the caches of generated derivatives are keyed by: `fun` itself, or for a gradient
    (`grad(f)`, `value_and_grad(f)`, a new function object at each call of grad) the source it composes,
    which is one object while f's gradient stays built. So `jvp(grad(f), ...)` or `grad(grad(f))` written
    inside a loop generates its source once, as `grad(f)` does."""
    transform = getattr(fun, "__astjax_transform__", None)
    if isinstance(transform, ReverseTransform) and transform.kind in ("grad", "value_and_grad"):
        try:
            return transform.composable_source()
        except Exception:           # noqa: BLE001 (an error shows where the derivation is built)
            return fun
    return fun
# The gradient another transformation composes (grad(grad(f)), jacrev(grad(f))): it checks in its
# own code that the output is a scalar, since no wrapper sees that output (ReverseMode.check_output).
_COMPOSED_GRAD = "grad, checking its output"
# value_and_grad as another transformation composes it: its gradients shaped like their parameters in its own
# code (as _COMPOSED_GRAD's are), since no wrapper shapes a bare 0.0 there.
_COMPOSED_VALUE_AND_GRAD = "value_and_grad, shaped"


class ReverseTransform:
    """What `grad(f, argnums, has_aux)` knows: the function, the arguments, the generated code."""

    def __init__(self, fun, argnums, has_aux, kind, allow_int=False):
        check_callable(fun, kind)
        self.allow_int = allow_int
        self.user_fun = fun
        self.fun, self.leading, self.keywords = split_callable(fun)
        argnums = argnums_as_ints(argnums)
        self.single = isinstance(argnums, int)
        self.argnums = (argnums,) if self.single else tuple(argnums)    # positions in the user's call
        if not self.argnums or not all(isinstance(a, int) for a in self.argnums):
            raise TypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}")
        self.has_aux = has_aux
        self.kind = kind
        self._built = {}
        self._composable = None
        self._checks_output = None       # see checks_its_output
        self.packing = None            # for *args / keyword-only parameters: see arguments.Packing
        if Packing.needed(self.fun):
            if self.leading or self.keywords:
                raise TypeError(f"{kind} of a bound method or partial of {name_of(self.fun)}, which has *args or "
                                f"keyword-only parameters, is not supported yet; transform a plain function.")
            if any(a < 0 for a in self.argnums):
                raise TypeError(f"{kind} of {name_of(self.fun)}, which has *args: pass non-negative argnums.")
            self.packing = Packing(self.fun)
        elif any(a < 0 for a in self.argnums):
            self.argnums = self._counted_from_the_start(self.argnums)

    def _counted_from_the_start(self, argnums):
        """Negative argnums as positions. JAX counts them from the end of the call's positional arguments: that
        is the function's own count of positional parameters when each must be passed (none has a default, none
        is bound by a partial's keyword), the only case where the position does not depend on the call (the
        derivation is built once per position: a position read wrongly differentiated another argument)."""
        try:
            params = list(inspect.signature(self.fun).parameters.values())
        except (TypeError, ValueError):
            params = None
        positional = None if params is None else [
            p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][len(self.leading):]
        if positional is None or self.keywords or any(p.default is not p.empty for p in positional):
            raise TypeError(f"{self.kind} of {name_of(self.fun)} with argnums={self.argnums}: a negative argnum "
                            f"counts from the end of the call's positional arguments, which astjax knows only when "
                            f"every positional parameter must be passed (none has a default or is bound by a "
                            f"partial); pass non-negative argnums.")
        count = len(positional)
        if any(a < -count for a in argnums):
            raise TypeError(f"{self.kind} of {name_of(self.fun)}: argnums={self.argnums} is out of range for a "
                            f"function of {count} positional parameters")
        return tuple(a + count if a < 0 else a for a in argnums)

    def call(self, mode, args, kwargs, before=(), generated=None):
        """Run the generated function of `mode` (or `generated`, one built earlier) on the user's arguments
        (after `before`, e.g. a cotangent)."""
        try:
            return self._call(mode, args, kwargs, before, generated)
        except ContainerSeedError as exc:
            if mode not in ("grad", "value_and_grad"):
                raise
            raise _container_output_error(self.user_fun, exc) from None

    def _call(self, mode, args, kwargs, before=(), generated=None):
        generated = compiled_version(generated or self.generated(mode), self.user_fun)
        if self.packing is not None:
            return generated(*before, *self.packing.pack(args, kwargs))
        keywords = renamed_keywords(generated, {**self.keywords, **kwargs}) if kwargs or self.keywords else {}
        return generated(*before, *self.leading, *args, **keywords)

    def packed_wrt(self):
        """The packed parameters the argnums fall in (the *args tuple counts once), in order."""
        return tuple(sorted({self.packing.position(a, max(self.argnums) + 1)[0] for a in self.argnums}))

    def derivation(self, mode):
        """The Derivation for `mode` ("grad", "value_and_grad" or "vjp"), built once per function
        and built again when a global, closure cell or default it resolved has been rebound."""
        built = self._built.get(mode)
        if built is not None and built.current():
            return built
        shift = len(self.leading)
        wrt = tuple(a + shift for a in self.argnums) if mode != "vjp" else self._all_positions()
        fun = self.fun
        if self.packing is not None:
            wrt, fun = self.packed_wrt(), self.packing.source
        key = (mode, tuple(wrt), self.has_aux, self.allow_int)
        try:
            table = _REVERSE.setdefault(derivation_cache_key(fun), {})
        except TypeError:        # not weak-referenceable: no cache beyond this transform
            table = {}
        if key not in table or not table[key].current():     # a global or closure cell was rebound
            # grad(grad(f)) of a scalar: the jvp of grad(f)
            derivation = forward_over_reverse(self, mode) if self.packing is None else None
            if derivation is None:
                derivation = Derivation()
                checked = mode == _COMPOSED_GRAD
                composed = mode in (_COMPOSED_GRAD, _COMPOSED_VALUE_AND_GRAD)
                base = {_COMPOSED_GRAD: "grad", _COMPOSED_VALUE_AND_GRAD: "value_and_grad"}.get(mode, mode)
                # grad refuses integer differentiated arguments (unless allow_int) before its code runs
                float_wrt = base in ("grad", "value_and_grad") and not self.allow_int and self.packing is None
                derivation.reverse(fun, wrt, mode=base, has_aux=self.has_aux, check_output=checked,
                                   shape_gradients=composed, float_wrt=float_wrt)
            table[key] = derivation
        self._built[mode] = table[key]
        return self._built[mode]

    def checks_its_output(self):
        """Whether the generated gradient checks by itself that its output is a float scalar, so grad
        may run the gradient-only function (the one the next order composes) instead of value_and_grad.

        True for grad of a gradient with respect to the same argument (forward over reverse): its
        output is the inner gradient, a scalar because the generated code checks the argument is one.
        """
        if self._checks_output is None:
            from .transforms.forward_over_reverse import applies
            self._checks_output = self.packing is None and applies(self)
        return self._checks_output

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
        composed = (_COMPOSED_GRAD if self.kind == "grad" and not self.checks_its_output()
                    else _COMPOSED_VALUE_AND_GRAD if self.kind == "value_and_grad" else self.kind)
        generated = self.generated(composed)
        if not self.leading and not self.keywords:
            return generated.__astjax_function_source__
        if self._composable is None or self._composable[0] is not generated:     # built again since
            self._composable = (generated, _bind_leading(generated, self.fun, self.leading, self.keywords))
        return self._composable[1]

    def source_text(self):
        return self.derivation(self.kind).source_text()

    def printed_derivation(self):
        """The Derivation whose functions `source_text` prints."""
        return self.derivation(self.kind)

    def run_printed(self, args, kwargs):
        """Run the generated function `source_text` prints (grad's wrapper may run value_and_grad's)."""
        return self.call(self.kind, self.prepare(args), kwargs)

    def prepare(self, args):
        """Check the arguments and turn differentiated Python floats into float32 arrays."""
        args = list(args)
        refuse_complex(args, self.kind)
        for i in self.argnums:
            if i >= len(args) or i < -len(args):
                raise TypeError(f"{self.kind} of {name_of(self.fun)} with argnums={self.argnums} needs at least "
                                f"{max(self.argnums) + 1} positional arguments, got {len(args)}")
            arg = args[i]
            if self.allow_int:
                args[i] = tree_util.tree_map(
                    lambda leaf: differentiable_input(leaf, self.kind) if is_float_leaf(leaf) else leaf, arg)
            elif isinstance(arg, (np.ndarray, np.generic, float, int)):      # the common case: one leaf
                args[i] = differentiable_input(arg, self.kind)
            else:
                args[i] = tree_util.tree_map(lambda leaf: differentiable_input(leaf, self.kind), arg)
        return args


def _bind_leading(generated, fun, leading, keywords):
    """FunctionSource of `def f(x): return generated(<leading>, x, <keywords>)`."""
    import gast

    from .backends.python import compile_function
    params = [p for p in list(inspect.signature(fun).parameters)[len(leading):] if p not in keywords]
    bound = [f"_leading{i}" for i in range(len(leading))]
    keyword_text = [f"{k}=_keyword_{k}" for k in renamed_keywords(generated, keywords)]
    call = f"_generated({', '.join(bound + params + keyword_text)})"
    text = f"def {generated.__name__}({', '.join(params)}):\n    return {call}\n"
    namespace = {"_generated": generated, **dict(zip(bound, leading)),
                 **{f"_keyword_{k}": v for k, v in renamed_keywords(generated, keywords).items()}}
    fn, _ = compile_function(gast.parse(text).body[0], namespace, label=generated.__name__)
    return fn.__astjax_function_source__


def _container_output_error(fun, exc):
    """grad's seed met a returned list or dict (raised deep in the generated sweep): a TypeError, as JAX's, at the
    function's return line."""
    from .errors import OutputTypeError
    from .frontend.return_lines import error_at_return
    return error_at_return(fun, f"Gradient only defined for scalar-output functions: {name_of(fun)} returns a list "
                                "or a dict, and grad needs one float scalar.",
                           "return one float scalar (`jnp.sum(...)` of the items), or use astjax.vjp / astjax.jacrev "
                           "for a container of outputs.", OutputTypeError) or exc


def _check_scalar_output(value, fun):
    """grad needs one float scalar: anything else raises TypeError, with JAX's wording first."""
    if type(value) is Array and value.ndim == 0 and value.dtype.kind == "f":
        return
    if value is None or not isinstance(value, (np.ndarray, np.generic, numbers.Number)):
        shown = "None" if value is None else f"a {type(value).__name__}"
        raise TypeError(f"Gradient only defined for scalar-output functions. Output was {shown}: "
                        f"{name_of(fun)} must return one float scalar"
                        + (" (did it forget a `return`?)." if value is None else
                           "; with has_aux=True it may return (output, aux)."))
    shape = np.shape(value)
    if shape != ():
        raise TypeError(f"Gradient only defined for scalar-output functions. Output had shape: {shape}. "
                        f"grad requires a function with a scalar output, but {name_of(fun)} returned an array "
                        f"of shape {shape}. Use jnp.sum(...) to reduce it, or astjax.vjp / astjax.jacrev for "
                        f"non-scalar outputs.")
    dtype = np.result_type(value)
    if not np.issubdtype(dtype, np.floating):
        raise TypeError(f"grad requires real-valued outputs (output dtype that is a sub-dtype of np.floating), "
                        f"but {name_of(fun)} returned {dtype.name}. astjax has no complex differentiation yet "
                        f"(no holomorphic=True); differentiate the real and imaginary parts separately.")


def _gradient_like(g, arg):
    """The gradient shaped like `arg`; integer leaves (with allow_int=True) get float0 zeros, as in JAX."""
    if isinstance(arg, (tuple, list, dict)):
        return tree_util.tree_map(
            lambda grad_leaf, leaf: grad_leaf if is_float_leaf(leaf) else np.zeros(np.shape(leaf), FLOAT0),
            materialize(g, arg), arg)
    if is_float_leaf(arg):
        return materialize(g, arg)
    return np.zeros(np.shape(arg), FLOAT0)


def _materialize_grads(transform, grads, args, kwargs=None):
    if transform.packing is not None:
        return _materialize_packed_grads(transform, grads, args, kwargs)
    grads = grads if len(transform.argnums) > 1 else (grads,)
    out = tuple(_gradient_like(g, args[i]) for g, i in zip(grads, transform.argnums))
    return out[0] if transform.single else out


def _materialize_packed_grads(transform, grads, args, kwargs=None):
    """Gradients of the user's positional arguments, read from those of the packed parameters (`kwargs`:
    the call's keyword arguments, which a keyword-only parameter without a default needs to bind)."""
    wrt = transform.packed_wrt()
    grads = grads if len(wrt) > 1 else (grads,)
    packed = transform.packing.pack(args, kwargs or {})[:len(transform.packing.positional) + 1]
    out = []
    for a in transform.argnums:
        param, item = transform.packing.position(a, len(args))
        g = grads[wrt.index(param)]
        out.append(_gradient_like(g, args[a]) if item is None else _gradient_like(g, packed[param])[item])
    return out[0] if transform.single else tuple(out)


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """A function returning `(fun(*args), grad(fun)(*args))`, computed in one pass.

    With has_aux=True, `fun` returns `(output, aux)` and the result is `((output, aux), grad)`.
    """
    transform = ReverseTransform(fun, argnums, has_aux, "value_and_grad", allow_int=allow_int)

    @functools.wraps(fun)
    @api_boundary
    def value_and_grad_f(*args, **kwargs):
        args = transform.prepare(args)
        value, grads = transform.call("value_and_grad", args, kwargs)
        output = value[0] if has_aux else value
        _check_scalar_output(output, fun)
        if has_aux:
            value = (wrap(output), value[1])
        else:
            value = wrap(value)
        return value, _materialize_grads(transform, grads, args, kwargs)

    value_and_grad_f.__astjax_transform__ = transform
    add_notebook_display(value_and_grad_f)              # Jupyter shows the generated source
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
    @api_boundary
    def grad_f(*args, **kwargs):
        args = transform.prepare(args)
        if transform.checks_its_output():      # grad of a gradient: one generated function serves both uses
            return _materialize_grads(transform, transform.call("grad", args, kwargs), args, kwargs)
        if _ACTIVE_JIT.get() is not None:    # inside jit: the value's check may be decided per signature
            grads = gradient_without_value(transform, args, kwargs, _ACTIVE_JIT.get())
            if grads is not None:
                return _materialize_grads(transform, grads, args, kwargs)
        value, grads = transform.call("value_and_grad", args, kwargs)
        _check_scalar_output(value[0] if has_aux else value, fun)
        result = _materialize_grads(transform, grads, args, kwargs)
        return (result, value[1]) if has_aux else result

    grad_f.__astjax_transform__ = transform
    add_notebook_display(grad_f)                        # Jupyter shows the generated source
    return grad_f


@api_boundary
def vjp(fun, *primals, has_aux=False):
    """`(fun(*primals), pullback)` where `pullback(ct)` gives the cotangents of all primals.

    Like `jax.vjp`; with has_aux=True the result is `(output, pullback, aux)`.
    """
    check_callable(fun, "vjp")
    transform = ReverseTransform(fun, tuple(range(len(primals))) or (0,), has_aux, "vjp")
    args = transform.prepare(primals) if primals else []
    pinned = transform.generated("vjp")     # the pullback belongs to the function as it is now, as in JAX
    from .forward import primal_output
    output, aux = primal_output(fun, args, has_aux, given=primals)
    output = tree_util.tree_map(lambda v: wrap(v) if isinstance(v, (np.ndarray, numbers.Number)) else v, output)

    @api_boundary
    def pullback(cotangent):
        cotangent = _cotangent_like(cotangent, output, fun)
        grads = transform.call("vjp", args, {}, before=(cotangent,), generated=pinned)
        grads = grads[0] if has_aux else grads
        if transform.packing is not None:
            return _materialize_packed_grads(transform, grads, args)
        grads = grads if len(args) > 1 else (grads,)
        return tuple(materialize(g, a) for g, a in zip(grads, args))

    pullback.__astjax_transform__ = _PullbackTransform(transform, args, pinned)
    return (output, pullback, aux) if has_aux else (output, pullback)


def _cotangent_like(cotangent, output, fun):
    """The cotangent as Arrays of the output's dtypes, after checking it has the output's structure and shapes."""
    out_leaves, out_tree = tree_util.tree_flatten(output)
    ct_leaves, ct_tree = tree_util.tree_flatten(cotangent)
    if out_tree != ct_tree:
        raise ValueError(f"the cotangent passed to the vjp pullback has structure {ct_tree}, but the output of "
                         f"{name_of(fun)} has structure {out_tree}; they must match.")
    for c, o in zip(ct_leaves, out_leaves):
        if np.shape(c) != np.shape(o):
            raise ValueError(f"the cotangent passed to the vjp pullback has shape {np.shape(c)}, "
                             f"but the output of {name_of(fun)} has shape {np.shape(o)}; they must match.")
        if np.result_type(o).kind in "fc" and np.result_type(c).kind in "biu":     # JAX: a ValueError too
            raise ValueError(f"the cotangent passed to the vjp pullback has dtype {np.result_type(c)}, but the output "
                             f"of {name_of(fun)} is {np.result_type(o)}: pass a float cotangent (1.0, not 1).")
    return as_seed(tree_util.tree_unflatten(
        out_tree, [wrap(np.asarray(c, dtype=np.result_type(o))) for c, o in zip(ct_leaves, out_leaves)]))


def as_seed(cotangent):
    """A cotangent as generated pullbacks read it: containers become TreeAdjoints (a plain tuple reads as zero)."""
    from .rules.helpers import TreeAdjoint
    if isinstance(cotangent, dict):
        return TreeAdjoint({k: as_seed(v) for k, v in cotangent.items()})
    if isinstance(cotangent, (tuple, list)):
        return TreeAdjoint({i: as_seed(v) for i, v in enumerate(cotangent)}, getattr(cotangent, "_fields", None))
    return cotangent


class _PullbackTransform:
    """A pullback as source: `def pullback(ct): return (vjp_f(ct, p0, p1),)`, with the primals bound,
    so grad, jvp and vjp can differentiate a pullback like any function."""

    def __init__(self, transform, primals, generated):
        self.transform = transform
        self.primals = primals
        self.generated = generated      # the generated vjp the pullback was made with
        self._source = None

    def source_text(self):
        return self.transform.source_text()

    def printed_derivation(self):
        return self.transform.printed_derivation()

    def composable_source(self):
        generated = self.generated
        if self._source is None:
            import gast

            from .backends.python import compile_function
            names = [f"p{i}" for i in range(len(self.primals))]
            call = f"vjp_f(ct, {', '.join(names)})"
            result = f"({call},)" if len(names) == 1 else call
            node = gast.parse(f"def pullback(ct):\n    return {result}\n").body[0]
            namespace = dict(zip(names, self.primals), vjp_f=generated)
            if self.transform.leading or self.transform.keywords or self.transform.packing is not None:
                raise NotImplementedError("differentiating the pullback of a method, a partial or a function with "
                                          "*args is not supported yet; differentiate a plain function instead")
            fn, _ = compile_function(node, namespace, label="pullback")
            self._source = fn.__astjax_function_source__
        return self._source


def source(fun, *example_args, standalone=False, **example_kwargs):
    """The generated Python source behind an astjax-transformed function, as a string.

    With example arguments, the source is specialized to their shapes and dtypes (teaching/): it runs
    `fun(*example_args, **example_kwargs)` once and prints the code with its shape helpers folded away
    where every execution agreed (`unbroadcast(g, x)` between equal shapes is `g`). With
    `standalone=True` the text starts with the imports and definitions it needs to run when pasted
    into a file (`from astjax.generated import *`, the user's functions it calls)."""
    text = _with_the_users_signature(_source(fun, example_args, example_kwargs), fun)
    if not standalone:
        return text
    from .teaching.standalone import standalone_source
    derivation = getattr(getattr(fun, "__astjax_transform__", None), "printed_derivation", None)
    if derivation is None:
        raise TypeError(f"source(..., standalone=True) of {name_of(fun)} is not supported; pass a function "
                        f"transformed by grad, value_and_grad, vjp, jvp, jacfwd, jacrev, vmap or jit.")
    functions = derivation().functions
    return standalone_source(text, {name: fn.__globals__ for name, fn in functions.items()})


def _with_the_users_signature(text, fun):
    """The printed main function called as the user's is: a function with `*args` or keyword-only parameters
    is transformed with them as ordinary ones (arguments.Packing), `def grad_f(x, args)`; printed, it takes
    them as the user's function does, `def grad_f(x, *args)`, so a reader who calls it passes what grad takes."""
    import re
    packing = getattr(getattr(fun, "__astjax_transform__", None), "packing", None)
    if packing is None:
        return text
    packed = packing.positional + ([packing.vararg] if packing.vararg else []) + packing.keyword_only
    written = packing.positional + ([f"*{packing.vararg}"] if packing.vararg else ["*"] if packing.keyword_only
                                    else []) + packing.keyword_only
    header = re.compile(r"^def (\w+)\(" + re.escape(", ".join(packed)) + r"\):", re.M)
    return header.sub(lambda m: f"def {m.group(1)}({', '.join(written)}):", text, count=1)


def _source(fun, example_args, example_kwargs):
    transform = getattr(fun, "__astjax_transform__", None)
    if transform is None:
        text = getattr(fun, "__astjax_source_text__", None)
        if text is not None and not (example_args or example_kwargs):
            return text
        raise TypeError(f"{name_of(fun)} is not an astjax-transformed function; pass e.g. astjax.grad(f).")
    kernels = getattr(transform, "kernel_source", None)
    if kernels is not None and (example_args or example_kwargs):
        text = kernels(example_args, example_kwargs)       # jit(f, backend="gpu"): the kernels it runs
        if text is not None:
            return text
    if example_args or example_kwargs:
        from .teaching import specialized_source
        fun(*example_args, **example_kwargs)          # builds the generated code (and checks the arguments)
        run_printed = getattr(transform, "run_printed", None)
        run = ((lambda: run_printed(example_args, example_kwargs)) if run_printed is not None
               else (lambda: fun(*example_args, **example_kwargs)))
        return specialized_source(run, transform.source_text())
    return transform.source_text()


# Calls of these on values known when transforming (`astjax.grad(f)` inside a transformed
# function) are evaluated then, so the function they build is transformed like any callee.
for _transformation in (grad, value_and_grad):
    _transformation.__astjax_static_call__ = True
