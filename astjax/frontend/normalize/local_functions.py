"""Functions defined inside the transformed function are inlined where they are called.

    def f(x):                          def f(x):
        def scaled(t):                     scaled_t = x
            return t * c                   _t1 = scaled_t * c
        sq = lambda t: t * t      ->       y = _t1 ...
        return sq(scaled(x))

A local function may read the enclosing function's variables, which may need
derivatives themselves; inlining its body (its own names prefixed with its
name) keeps those dependencies visible to the derivative passes. This pass
lifts the definitions out of the body and normalizes them; the
one-primitive-per-statement pass inlines each call.
"""
import gast

from .base import Pass, Renamer, copy_location
from .nonlocal_rebinding import accept_nonlocal_rebinding
from ...codegen.node_walk import walk

__all__ = ["LocalFunctions"]


class LocalFunctions(Pass):
    """Collect `def g(...)` and `g = lambda ...` from the body into `function.local_functions`.

    A name defined again (`f = lambda t: 2 * t; ...; f = lambda t: 3 * t`)
    gets a fresh name for each later definition, and the statements after it
    call that one, so each call site uses the body in force there.
    """

    def run(self, node):
        from . import AugmentedAssignment, ControlFlow, FunctionArguments, MethodCalls, TupleAssignment
        local = {}
        current = {}            # a local function's name in the source -> its key in `local`
        body = []
        for stmt in node.body:
            defined = _definition(stmt)
            if defined is not None:
                source_name, fdef = defined
                if fdef.decorator_list:
                    raise self.error(f"local function `{source_name}` has a decorator, which astjax would not "
                                     f"apply", fdef.decorator_list[0],
                                     hint=f"define `{source_name}` at module level: a decorated module-level "
                                          f"function is differentiated as its wrapper.")
                key = source_name
                if source_name in current:
                    self._check_not_called_later(local, current[source_name], fdef)
                    key = self.context.namer.unique(source_name)
                fdef.name = key
                local[key] = Renamer({k: v for k, v in current.items() if k != v}, loads_only=True).visit(fdef)
                current[source_name] = key
                continue
            if current:
                stmt = Renamer({k: v for k, v in current.items() if k != v}, loads_only=True).visit(stmt)
                for n in walk(stmt):
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and n.id in current:
                        raise self.error(f"local function `{n.id}` is rebound to a value", n,
                                         hint=f"give the value another name than `{n.id}`.")
            body.append(stmt)
        for name, fdef in list(local.items()):
            accept_nonlocal_rebinding(fdef)
            if fdef.args.vararg or fdef.args.kwarg or fdef.args.kwonlyargs or fdef.args.defaults:
                raise self.error(f"local function `{name}` may only take plain positional parameters", fdef,
                                 hint="define it at module level to use defaults, *args or keywords.")
            # FunctionArguments too: `lambda z: _model.predict(z)` calls a bound method of a global object,
            # which must become `_Model.predict(_receiver, z)` here as in the body (else its derivative is
            # called without the object)
            for pass_class in (MethodCalls, FunctionArguments, AugmentedAssignment, TupleAssignment, ControlFlow):
                fdef = pass_class(self.context).run(fdef)
            local[name] = fdef
        self._check_not_passed_to_libraries(body, current)
        node.body = body
        node.local_functions = local
        return node

    def _check_not_passed_to_libraries(self, body, current):
        """Refuse a local function passed to a NumPy-like function (`jnp.fromfunction(g, shape)`,
        `jnp.piecewise(x, conds, [g])`): its calls are inlined, so no function object is left to pass."""
        from ...analyses.classify import is_library
        from ..resolve import NOT_STATIC
        names = set(current.values())
        if not names:
            return
        # (vmap of `jnp.vectorize(g)` or `jnp.fromfunction(g, ...)` met a NameError here before: g's def is gone)
        for stmt in body:
            for call in (n for n in walk(stmt) if isinstance(n, gast.Call)):
                target = self.context.resolver.static_value(call.func)
                if target is NOT_STATIC or not is_library(target) or not _numpy_like(target):
                    continue
                for arg in list(call.args) + [k.value for k in call.keywords]:
                    for n in _passed_names(arg):
                        if n.id in names:
                            raise self.error(f"local function `{n.id}` is passed to "
                                             f"`{getattr(target, '__name__', 'a library function')}`, which astjax "
                                             f"does not transform (it inlines local functions where they are "
                                             f"called)", call,
                                             hint=f"write the computation with primitives (jnp.where, jnp.indices, "
                                                  f"vmap) instead, or define `{n.id}` at module level and call the "
                                                  f"library function outside the transformed function.")

    def _check_not_called_later(self, local, key, redefinition):
        """Refuse when another local function calls `key`, which is about to be redefined: Python would
        call the new definition from there at call time."""
        for other_key, fdef in local.items():
            if other_key != key and any(isinstance(n, gast.Name) and n.id == key for n in walk(fdef)):
                raise self.error(f"local function `{fdef.name}` uses `{key}`, which is defined again here",
                                 redefinition, hint=f"give the new definition another name than `{key}`.")


def _numpy_like(fn):
    """A function of NumPy, SciPy or astjax.numpy (not lax or tree_util, whose function arguments other passes
    and vmap's example-by-example fallback handle)."""
    module = getattr(fn, "__module__", "") or ""
    return any(module == m or module.startswith(m + ".") for m in ("numpy", "scipy", "astjax.numpy"))


def _passed_names(arg):
    """The names an argument passes as values: itself, or the items of a literal list or tuple."""
    if isinstance(arg, gast.Name) and isinstance(arg.ctx, gast.Load):
        return [arg]
    if isinstance(arg, (gast.List, gast.Tuple)):
        return [n for e in arg.elts for n in _passed_names(e)]
    return []


def _definition(stmt):
    """(name, FunctionDef) for `def g(...)` or `g = lambda ...`, else None."""
    if isinstance(stmt, gast.FunctionDef):
        return stmt.name, stmt
    if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and isinstance(stmt.value, gast.Lambda)):
        lam = stmt.value
        ret = copy_location(gast.Return(value=lam.body), lam.body)
        return stmt.targets[0].id, copy_location(
            gast.FunctionDef(name=stmt.targets[0].id, args=lam.args, body=[ret], decorator_list=[],
                             returns=None, type_comment=None, type_params=[]), stmt)
    return None

