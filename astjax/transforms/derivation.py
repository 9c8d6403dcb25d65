"""Build the generated functions of one derivative request: the main one and its callees.

`Derivation().reverse(f, wrt=(0,), mode="grad")` normalizes f, runs reverse
mode, cleans the result up and compiles it; each user function f calls gets its
own `vjp_<name>` function the same way (once per set of active arguments, so
recursion reuses the function being built).
"""
import copy
import re

import gast

from ..codegen.namespace import GENERATED_NAMESPACE
from ..frontend.bindings import Bindings
from ..frontend.context import FunctionContext
from ..frontend.normalize import normalize
from ..frontend.parse import function_source
from ..codegen.naming import names_in
from ..codegen.readable_names import name_temporaries
from ..optimize import cleanup
from ..backends.python import compile_function
from ..collection_pause import pausing_collection
from .jvp import ForwardMode
from .reverse import ReverseMode
from ..codegen.node_walk import walk

__all__ = ["Derivation"]


class Derivation:
    """The generated functions behind one transformation, and their source text."""

    def __init__(self):
        self.functions = {}        # name -> compiled function
        self.sources = []          # (name, text), main function first
        self.namespaces = []
        self.callees = {}          # (function, mask) -> generated name
        self.bindings = Bindings()  # what the resolved free names held when this was built
        self.vmap_results = {}     # generated vmap callee -> (kind, per-example rank) of its result

    def current(self):
        """Whether every global, closure cell, `__code__` and `__defaults__` this derivation resolved
        still holds the same object (else the caller builds it again)."""
        return self.bindings.current()

    def reverse(self, fn, wrt, mode="grad", has_aux=False, name=None, check_output=False, shape_gradients=False,
                float_wrt=False):
        """Generate, clean up and compile the reverse-mode function of `fn`. `float_wrt`: the differentiated
        parameters hold floats whenever the generated function runs (grad refuses integer ones first),
        so cleanup may drop a factor 1.0 from them and their items."""
        def make(context, node, names, namespace, label):
            return ReverseMode(context, node, names, mode=mode, has_aux=has_aux, name=label, check_output=check_output,
                               shape_gradients=shape_gradients,
                               callee_vjp=self._callee_hook(namespace, context, "vjp"),
                               callee_primal=self._callee_hook(namespace, context, "primal"),
                               bind_name=lambda obj, base: self._bind(namespace, obj, base, context.namer.taken))
        return self._generate(fn, wrt, make, name, prefix=mode, float_wrt=float_wrt)

    def forward(self, fn, wrt, name=None):
        """Generate, clean up and compile the forward-mode function of `fn`: (args, tangents) -> (out, tangent)."""
        def make(context, node, names, namespace, label):
            return ForwardMode(context, node, names, name=label,
                               callee_jvp=self._callee_hook(namespace, context, "jvp"),
                               callee_primal=self._callee_hook(namespace, context, "primal"),
                               bind_name=lambda obj, base: self._bind(namespace, obj, base, context.namer.taken))
        return self._generate(fn, wrt, make, name, prefix="jvp")

    def vmap(self, fn, spec, out_none=False, name=None, as_callee=False, axis_name=None):
        """Generate, clean up and compile the batched version of `fn` (transforms/vmap.py): `spec` says
        which parameters carry the batch on axis 0; every result carries it on axis 0 (except where
        `out_none` says the output is unbatched). `axis_name` names the batch axis for collectives
        (`lax.psum(x, 'i')`), in `fn` and in its callees."""
        from .vmap import BatchMode
        made = []
        if not as_callee:
            self.vmap_axis_name = axis_name
        axis_name = getattr(self, "vmap_axis_name", None)

        def make(context, node, names, namespace, label):
            mode = BatchMode(context, node, spec, label, self._callee_hook(namespace, context, "vmap"),
                             lambda obj, base: self._bind(namespace, obj, base, context.namer.taken),
                             out_none=out_none, result_of=lambda callee: self.vmap_results.get(callee, (None, None)),
                             as_callee=as_callee, axis_name=axis_name,
                             example_function=lambda stmt: self._callee(context.source.fn, (), namespace, context,
                                                                        stmt, kind="example"))
            made.append(mode)
            return mode
        fn_out = self._generate(fn, (), make, name, prefix="vmap")
        fn_out.__astjax_vmap_fallback__ = made[-1].fell_back if made else None
        if made:
            self.vmap_results[fn_out.__name__] = (made[-1].result_kind, made[-1].result_rank)
        return fn_out

    def primal(self, fn, name=None, callee_kind="jit"):
        """Normalize and clean up `fn` without differentiating it: the source jit compiles (and a derivative's
        primal sweep calls: transforms/primal_calls.py), its calls of user functions made `callee_kind`."""
        def make(context, node, names, namespace, label):
            return _Unchanged(node, label, context, self._callee_hook(namespace, context, callee_kind),
                              lambda obj, base: self._bind(namespace, obj, base, context.namer.taken))
        return self._generate(fn, (), make, name, prefix="jit")

    @pausing_collection
    def _generate(self, fn, wrt, make_transform, name, prefix, float_wrt=False):
        """Normalize `fn`, run the transformation `make_transform` builds, clean up, compile.

        An exception other than astjax's own while transforming is a construct astjax does not
        handle: it is reported as an error naming the user's function, never let through raw.
        """
        source = function_source(_callable_with_source(fn))
        context = FunctionContext(source)
        try:
            return self._generate_from(source, context, wrt, make_transform, name, prefix, float_wrt)
        except Exception as exc:
            from ..errors import AstjaxError
            if isinstance(exc, AstjaxError):
                raise
            raise context.error(
                f"astjax could not transform `{source.name}` ({type(exc).__name__}: {exc}): a construct in it "
                f"is not handled yet", source.node,
                hint="rewrite the function with simpler constructs (plain loops, named temporaries), and please "
                     "report this with the function's source.") from exc

    def _generate_from(self, source, context, wrt, make_transform, name, prefix, float_wrt=False):
        _check_params(source.node, context)
        node = normalize(source.node, context)
        for arg in node.args.args + node.args.kwonlyargs:
            arg.annotation = None      # annotations name types the generated module need not import
        node.returns = None
        if hasattr(node, "decorator_list"):
            node.decorator_list = []     # `fn` is the function before decoration: its decorators are outside it
        params = [a.id for a in node.args.args]
        namespace = dict(GENERATED_NAMESPACE)
        _bind_defaults(node, source.fn, context, namespace)
        free = context.resolver.free_names(source.node)
        for old, new in context.renamed_free.items():      # a global `push` or `range` keeps its value
            free.pop(old, None)                            # under its new name, not the generated one's
            free[new] = context.resolver.lookup(new)
        namespace.update(free)
        namespace.update(context.resolver.introduced)   # functions and constants normalization bound
        self._record_bindings(source, context, dict(free, **context.resolver.introduced))
        self.namespaces.append(namespace)
        label = name or f"{prefix}_{_clean(source.name)}"
        transform = make_transform(context, node, [params[i] for i in wrt], namespace, label)
        # Temporaries are named before cleanup, so an adjoint whose temporary is substituted away keeps
        # the name of what it is the adjoint of (`bWh_plus_x`); what cleanup leaves is then renumbered.
        generated = transform.transform()
        generated = self._own_vjp_wrapper(source, transform, generated, params) or generated
        protected = names_in(source.node)
        named = name_temporaries(generated, protected=protected, numbered=False)
        float_params = {params[i] for i in wrt} & {a.id for a in generated.args.args} if float_wrt else ()
        generated = cleanup(generated, temporaries=set(named.values()) | set(getattr(source, "temporaries", ())),
                            float_params=float_params)
        renames = {**named, **name_temporaries(generated, protected=protected)}
        if label in self.functions:       # a callee built meanwhile took the name: the main one must not shadow it
            n = 2
            while f"{label}_{n}" in self.functions or f"{label}_{n}" in self.callees.values():
                n += 1
            label = generated.name = f"{label}_{n}"
        fn_out, text = compile_function(generated, namespace, label, origin=source.filename)
        fn_out.__astjax_function_source__.bindings = self.bindings
        # a derivative's outputs are real: the transformation refused a complex return (analyses/complex_flow.py)
        fn_out.__astjax_function_source__.real_valued = prefix not in ("jit", "vmap")
        # the next transformation treats renamed temporaries as temporaries (optimize/forward_substitution.py)
        fn_out.__astjax_function_source__.temporaries = frozenset(renames.values()) | frozenset(
            getattr(source, "temporaries", ()))
        # adjoints and tangents: a zero one may stand for an array of any shape (jit reads this); a function
        # built from a derivative (jit's normalized copy of a generated vjp) keeps the names it had
        inherited = getattr(getattr(source, "fn", None), "__astjax_derivative_names__", frozenset())
        fn_out.__astjax_derivative_names__ = frozenset(
            renames.get(n, n) for n in set(context.namer.derived.values()) | set(inherited))
        # the reverse driver's tape declarations `v = None`: the only Nones jit may type (lower/typed_placeholders.py)
        fn_out.__astjax_tape_placeholders__ = frozenset(
            renames.get(n, n) for n in getattr(transform, "tape_placeholders", ())) | frozenset(
            getattr(getattr(source, "fn", None), "__astjax_tape_placeholders__", frozenset()))
        if context.renamed_params:
            fn_out.__astjax_param_renames__ = dict(context.renamed_params)
        self.functions[label] = fn_out
        self.sources.append((label, text))
        for ns in self.namespaces:
            ns.update(self.functions)
        return fn_out

    def _own_vjp_wrapper(self, source, transform, generated, params):
        """For the gradient of a recursive function, `return vjp_f(1.0, x, n)`: the function's own vjp,
        which its recursive calls use anyway, so its derivative is generated and printed once.

        None where that does not apply (not a plain gradient, or no recursive call of the same mask)."""
        if not (isinstance(transform, ReverseMode) and transform.mode == "grad" and not transform.has_aux
                and not transform.check_output):
            return None
        args = generated.args
        if args.kwonlyargs or args.vararg or args.kwarg:
            return None
        label = self.callees.get((source.fn, tuple(p in transform.wrt for p in params), "vjp"))
        if label is None or label not in self.functions:
            return None
        wrapper = gast.parse(f"def {generated.name}():\n    return {label}(1.0, {', '.join(params)})\n").body[0]
        wrapper.args = args          # the same parameters and defaults
        return wrapper

    def _record_bindings(self, source, context, free):
        """Remember what `source`'s free names resolved to (a generated source: what its derivation did)."""
        if source.generated:
            self.bindings.extend(getattr(source, "bindings", None))
        else:
            self.bindings.record_function(source.fn, source.node, context.resolver)
        for inlined in getattr(context, "inlined_functions", ()):    # closure factories run in place
            from ..frontend.resolve import Resolver
            node = function_source(inlined).node
            self.bindings.record_function(inlined, node, Resolver(inlined, node))
        for record in getattr(context, "class_attributes", ()):        # objects made in the function
            for cls, attr, value in record.used():
                self.bindings._add("attr", cls, attr, value)
        original = getattr(source.fn, "__astjax_specializes__", None)     # frontend/specialize.py
        if original is not None:         # its own code and defaults, which the specialization copied
            self.bindings._add("function", original, "__code__", original.__code__)
            self.bindings._add("function", original, "__defaults__", original.__defaults__)
        for value in free.values():
            generated = getattr(value, "__astjax_function_source__", None)
            if generated is not None:
                self.bindings.extend(getattr(generated, "bindings", None))

    def _callee_hook(self, namespace, context, kind):
        return lambda callee, mask, stmt: self._callee(callee, mask, namespace, context, stmt, kind=kind)

    @staticmethod
    def _bind(namespace, obj, base, taken=()):
        """Make `obj` callable from generated code as `base` (or `base2`, ... if taken, or a name the
        function itself uses, which would shadow it). A base that is no identifier (`<lambda>_fwd`, from a
        custom_vjp made of a lambda) is spelled as one (`lambda_fwd`)."""
        if not base.isidentifier():
            base = re.sub(r"\W", "_", base.replace("<lambda>", "lambda")).strip("_") or "f"
            base = base if base.isidentifier() else f"f_{base}"
        label, n = base, 1
        while (label in namespace and namespace[label] is not obj) or label in taken:
            n += 1
            label = f"{base}{n}"
        namespace[label] = obj
        return label

    def _callee(self, callee, mask, namespace, context, stmt, kind="vjp"):
        key = (callee, mask, kind)
        if key not in self.callees:
            plain = _clean(function_source(_callable_with_source(callee)).name)
            base = f"{plain.strip('_') or 'f'}_example" if kind == "example" else f"{kind}_{plain}"
            label = base
            n = 1
            while label in self.functions or label in self.callees.values() or label in context.namer.taken:
                n += 1
                label = f"{base}_{n}"
            self.callees[key] = label
            wrt = [i for i, m in enumerate(mask) if m]
            if kind == "vjp":
                _refuse_if_impure(callee, context, stmt)
            try:
                if kind == "vjp":
                    self.reverse(callee, wrt, mode="vjp", name=label)
                elif kind in ("jit", "example", "primal"):     # an example: what vmap's whole-batch loop calls;
                    # a primal: what a derivative's primal sweep calls (primal_calls.py)
                    self.primal(callee, name=label, callee_kind="primal" if kind == "primal" else "jit")
                elif kind == "vmap":
                    self.vmap(callee, mask, name=label, as_callee=True)
                else:
                    self.forward(callee, wrt, name=label)
            except Exception as exc:
                from ..errors import AstjaxError, TransformError
                what = "batch" if kind == "vmap" else "differentiate"
                if isinstance(exc, TransformError) and _in_astjax(exc.filename) and not _in_astjax(
                        getattr(context.source, "filename", None)):
                    # refused inside astjax's own library code (astjax.scipy.stats.beta.cdf): named at the
                    # user's call, which is what the user can change
                    raise context.error(f"astjax cannot {what} this call of `{plain}`: {exc.reason}", stmt,
                                        hint=exc.hint) from exc
                if isinstance(exc, AstjaxError):
                    raise
                raise context.error(f"could not {what} the call to `{label.split('_', 1)[1]}`: {exc}",
                                    stmt) from exc
        return self.callees[key]

    def source_text(self):
        """All generated functions, the main one first."""
        main = self.sources[-1:]
        callees = self.sources[:-1]
        return "\n\n".join(text for _, text in main + callees)


class _Unchanged:
    """The identity transformation: the normalized function under its generated name, its calls of
    user functions redirected to their normalized versions (so jit compiles them too)."""

    def __init__(self, node, label, context, callee_primal, bind):
        self.node, self.label = node, label
        self.context, self.callee_primal, self.bind = context, callee_primal, bind

    def transform(self):
        from ..analyses.classify import classify
        self.node.name = self.label
        for call in [n for n in walk(self.node) if isinstance(n, gast.Call)]:
            from ..frontend.resolve import NOT_STATIC
            target = self.context.resolver.static_value(call.func)
            if target is not NOT_STATIC and getattr(target, "__astjax_static_call__", False):
                continue      # `vmap(f)` in `vmap(f)(x)`: evaluated when transforming; the outer call is the callee
            app = classify(call, self.context.resolver)
            local = isinstance(call.func, gast.Name) and self.context.resolver.is_local(call.func.id)
            if app.kind == "function" and not local:
                label = self.callee_primal(app.callee, (), call)
                direct = gast.Call(func=gast.Name(id=label, ctx=gast.Load(), annotation=None, type_comment=None),
                                   args=call.args, keywords=call.keywords)
                if _gradient_transform(app.callee) is None:
                    call.func, call.args, call.keywords = direct.func, direct.args, direct.keywords
                else:        # `grad(loss)(params, x)`: the generated gradient, shaped as grad returns it
                    gradient = self.bind(app.callee, "gradient_function")
                    call.func = gast.Name(id="shaped_gradient", ctx=gast.Load(), annotation=None,
                                          type_comment=None)
                    call.args = [direct, gast.Name(id=gradient, ctx=gast.Load(), annotation=None, type_comment=None),
                                 gast.Tuple(elts=[copy.deepcopy(a) for a in direct.args], ctx=gast.Load())]
                    call.keywords = []
        return self.node


def _in_astjax(filename):
    """Whether `filename` is a file of astjax's own package (its library functions written in Python)."""
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return bool(filename) and os.path.abspath(filename).startswith(root + os.sep)


def _gradient_transform(fn):
    """The transform of `grad(f)` or `value_and_grad(f)` called with positional arguments only."""
    transform = getattr(fn, "__astjax_transform__", None)
    if getattr(transform, "kind", None) in ("grad", "value_and_grad") and not transform.leading:
        return transform
    return None


def _callable_with_source(fn):
    """A custom_vjp/custom_jvp function is differentiated through a one-line function that calls it."""
    from ..custom_derivatives import custom_jvp, custom_vjp, trampoline
    if isinstance(fn, (custom_vjp, custom_jvp)):
        return trampoline(fn)
    return fn


def _clean(name):
    return "lambda" if name in ("<lambda>", "_lambda") else name


def _bind_defaults(node, fn, context, namespace):
    """Default values are the ones bound when `fn` was defined (its `__defaults__`), never its source
    text evaluated again now: `def f(x, c=C)` keeps the C of its definition when C is rebound."""
    if not node.args.defaults:
        return
    values = getattr(fn, "__defaults__", None) or ()
    if len(values) != len(node.args.defaults):
        raise context.error(f"the defaults of `{context.source.name}` do not match its source "
                            f"({len(values)} values, {len(node.args.defaults)} in the source)", node,
                            hint="re-run the function's definition, and do not assign `__defaults__`.")
    names = []
    for value, expr in zip(values, node.args.defaults):
        label = context.namer.fresh("_default")
        namespace[label] = value
        names.append(gast.copy_location(gast.Name(id=label, ctx=gast.Load(), annotation=None,
                                                  type_comment=None), expr))
    node.args.defaults = names


def _check_params(node, context):
    args = node.args
    if (args.vararg or args.kwarg) and hasattr(context.source.fn, "__wrapped__"):
        wrapped = context.source.fn.__wrapped__
        name = getattr(wrapped, "__name__", "f")
        raise context.error(f"`{name}` is wrapped by a decorator whose wrapper takes *args/**kwargs: astjax "
                            "differentiates the wrapper (differentiating the undecorated function would drop what "
                            "the wrapper does), and cannot transform *args or **kwargs yet", node,
                            hint=f"give the wrapper explicit parameters (def wrapper(x): ...), or transform "
                                 f"`{name}.__wrapped__` and apply the decorator's effect in your own code.")
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


def _impurity(fn, seen):
    """How `fn` or a user function it calls is impure (a random draw, a change to outside state), else None."""
    import inspect
    import random as _random
    import numpy as _np
    import gast
    from ..analyses.classify import is_library
    from ..frontend.resolve import NOT_STATIC
    from ..optimize.effects import MUTATING_METHODS
    from ..rules import lookup_callable
    fn = _callable_with_source(fn)
    if fn in seen or not inspect.isfunction(fn) or hasattr(fn, "__astjax_function_source__"):
        return None
    seen.add(fn)
    try:
        source = function_source(fn)
    except Exception:
        return None
    resolver = FunctionContext(source).resolver
    statements = getattr(source.node, "body", source.node)     # a lambda's body is one expression
    body = [n for stmt in (statements if isinstance(statements, list) else [statements]) for n in walk(stmt)]
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
        if (isinstance(func, gast.Attribute) and func.attr in MUTATING_METHODS and isinstance(func.value, gast.Name)
                and func.value.id not in local
                and not inspect.ismodule(resolver.static_value(func.value))):    # `jnp.sort(x)` is no mutation
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
        if (inspect.isfunction(target) and not is_library(target) and lookup_callable(target) is None
                and not (getattr(target, "__module__", None) or "").startswith("astjax.")):
            found = _impurity(target, seen)
            if found is not None:
                return found
    return None
