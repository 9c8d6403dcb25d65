"""Build the generated functions of one derivative request: the main one and its callees.

`Derivation().reverse(f, wrt=(0,), mode="grad")` normalizes f, runs reverse
mode, cleans the result up and compiles it; each user function f calls gets its
own `vjp_<name>` function the same way (once per set of active arguments, so
recursion reuses the function being built).
"""
from ..codegen.namespace import GENERATED_NAMESPACE
from ..frontend.context import FunctionContext
from ..frontend.normalize import normalize
from ..frontend.parse import function_source
from ..optimize import cleanup
from ..backends.python import compile_function
from .jvp import ForwardMode
from .reverse import ReverseMode

__all__ = ["Derivation"]


class Derivation:
    """The generated functions behind one transformation, and their source text."""

    def __init__(self):
        self.functions = {}        # name -> compiled function
        self.sources = []          # (name, text), main function first
        self.namespaces = []
        self.callees = {}          # (function, mask) -> generated name

    def reverse(self, fn, wrt, mode="grad", has_aux=False, name=None):
        """Generate, clean up and compile the reverse-mode function of `fn`."""
        def make(context, node, names, namespace, label):
            return ReverseMode(context, node, names, mode=mode, has_aux=has_aux, name=label,
                               callee_vjp=self._callee_hook(namespace, context, "vjp"),
                               bind_name=lambda obj, base: self._bind(namespace, obj, base))
        return self._generate(fn, wrt, make, name, prefix=mode)

    def forward(self, fn, wrt, name=None):
        """Generate, clean up and compile the forward-mode function of `fn`: (args, tangents) -> (out, tangent)."""
        def make(context, node, names, namespace, label):
            return ForwardMode(context, node, names, name=label,
                               callee_jvp=self._callee_hook(namespace, context, "jvp"),
                               bind_name=lambda obj, base: self._bind(namespace, obj, base))
        return self._generate(fn, wrt, make, name, prefix="jvp")

    def _generate(self, fn, wrt, make_transform, name, prefix):
        """Normalize `fn`, run the transformation `make_transform` builds, clean up, compile."""
        source = function_source(_callable_with_source(fn))
        context = FunctionContext(source)
        node = normalize(source.node, context)
        _check_params(node, context)
        params = [a.id for a in node.args.args]
        namespace = dict(GENERATED_NAMESPACE)
        namespace.update(context.resolver.free_names(source.node))
        self.namespaces.append(namespace)
        label = name or f"{prefix}_{_clean(source.name)}"
        transform = make_transform(context, node, [params[i] for i in wrt], namespace, label)
        generated = cleanup(transform.transform())
        fn_out, text = compile_function(generated, namespace, label)
        self.functions[label] = fn_out
        self.sources.append((label, text))
        for ns in self.namespaces:
            ns.update(self.functions)
        return fn_out

    def _callee_hook(self, namespace, context, kind):
        return lambda callee, mask, stmt: self._callee(callee, mask, namespace, context, stmt, kind=kind)

    @staticmethod
    def _bind(namespace, obj, base):
        """Make `obj` callable from generated code as `base` (or `base2`, ... if taken)."""
        label, n = base, 1
        while label in namespace and namespace[label] is not obj:
            n += 1
            label = f"{base}{n}"
        namespace[label] = obj
        return label

    def _callee(self, callee, mask, namespace, context, stmt, kind="vjp"):
        key = (callee, mask, kind)
        if key not in self.callees:
            base = f"{kind}_{_clean(function_source(_callable_with_source(callee)).name)}"
            label = base
            n = 1
            while label in self.functions or label in self.callees.values():
                n += 1
                label = f"{base}_{n}"
            self.callees[key] = label
            wrt = [i for i, m in enumerate(mask) if m]
            if kind == "vjp":
                _refuse_if_impure(callee, context, stmt)
            try:
                if kind == "vjp":
                    self.reverse(callee, wrt, mode="vjp", name=label)
                else:
                    self.forward(callee, wrt, name=label)
            except Exception as exc:
                from ..errors import AstjaxError
                if isinstance(exc, AstjaxError):
                    raise
                raise context.error(f"could not differentiate the call to `{label.split('_', 1)[1]}`: {exc}",
                                    stmt) from exc
        return self.callees[key]

    def source_text(self):
        """All generated functions, the main one first."""
        main = self.sources[-1:]
        callees = self.sources[:-1]
        return "\n\n".join(text for _, text in main + callees)


def _callable_with_source(fn):
    """A custom_vjp/custom_jvp function is differentiated through a one-line function that calls it."""
    from ..custom_derivatives import custom_jvp, custom_vjp, trampoline
    if isinstance(fn, (custom_vjp, custom_jvp)):
        return trampoline(fn)
    return fn


def _clean(name):
    return "lambda" if name in ("<lambda>", "_lambda") else name


def _check_params(node, context):
    args = node.args
    if args.vararg or args.kwarg or args.kwonlyargs:
        raise context.error("functions with *args, **kwargs or keyword-only parameters cannot be transformed yet",
                            node, hint="list the parameters explicitly.")


def _refuse_if_impure(callee, context, stmt):
    """A callee's derivative re-runs its primal: it must give the same result the second time.

    One that draws random numbers would draw others; one that changes an object it
    did not create (a global, a closure's list, its caller's argument) would change
    it again and may read the change. Both are refused.
    """
    effect = _impurity(callee, set())
    if effect is not None:
        name = getattr(callee, "__name__", "the function")
        raise context.error(
            f"`{name}` {effect}; astjax's derivative of a call re-runs the callee, which would not give the "
            f"same result again", stmt,
            hint="draw random numbers (or change state) in the function you differentiate or outside it, and "
                 f"pass the values to `{name}` as arguments; for randomness use astjax.random with an explicit key.")


_IN_PLACE_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
                     "setdefault", "popitem", "add", "discard", "fill", "resize", "put", "itemset"}


def _impurity(fn, seen):
    """How `fn` or a user function it calls is impure (a random draw, a change to outside state), else None."""
    import inspect
    import random as _random
    import numpy as _np
    import gast
    from ..analyses.classify import is_library
    from ..frontend.resolve import NOT_STATIC
    fn = _callable_with_source(fn)
    if fn in seen or not inspect.isfunction(fn):
        return None
    seen.add(fn)
    try:
        source = function_source(fn)
    except Exception:
        return None
    resolver = FunctionContext(source).resolver
    statements = getattr(source.node, "body", source.node)     # a lambda's body is one expression
    body = [n for stmt in (statements if isinstance(statements, list) else [statements]) for n in gast.walk(stmt)]
    local = {n.id for n in body if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    for node in body:
        if isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(node.ctx, gast.Store):
            base = node.value
            while isinstance(base, (gast.Subscript, gast.Attribute)):
                base = base.value
            if isinstance(base, gast.Name) and base.id not in local:
                return f"assigns into `{base.id}`, which it did not create"
        if not isinstance(node, gast.Call):
            continue
        func = node.func
        if (isinstance(func, gast.Attribute) and func.attr in _IN_PLACE_METHODS and isinstance(func.value, gast.Name)
                and func.value.id not in local):
            return f"changes `{func.value.id}` in place (`.{func.attr}()`), which it did not create"
        target = resolver.static_value(func)
        if target is NOT_STATIC:
            continue
        owner = getattr(target, "__self__", None)
        module = getattr(target, "__module__", None) or ""
        if (module.startswith("numpy.random") or module in ("random", "_random")
                or isinstance(owner, (_np.random.Generator, _np.random.RandomState, _random.Random))
                or owner is _np.random or owner is _random):
            what = getattr(target, "__qualname__", getattr(target, "__name__", "a random source"))
            return f"draws random numbers (`{what}`)"
        if inspect.isfunction(target) and not is_library(target):
            found = _impurity(target, seen)
            if found is not None:
                return found
    return None
