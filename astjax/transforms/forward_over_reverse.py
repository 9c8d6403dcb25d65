"""grad of a gradient with respect to the same scalar: forward mode over the generated gradient.

`grad(grad(f))(x)` differentiates the code of `grad(f)`. Reverse mode over it
replays its primal sweep and reverses its reverse sweep (a tape of the
adjoints it accumulates), about four times the code per order. When the
outer grad differentiates with respect to the same single argument as the
inner one, that argument is a scalar (the inner gradient has its shape, and
the outer grad needs a scalar output), so the derivative is the tangent of
the inner gradient along 1.0:

    def grad_grad_f(x):                 # jvp_grad_f(x, dx) with dx = 1.0
        if jnp.ndim(x) != 0:
            raise TypeError("grad requires a function with a scalar output, ...")
        ...
        return dout                     # value_and_grad returns (out, dout)

Forward mode adds a tangent beside each statement (about twice the code per
order, before cleanup) and needs no tape of its own.
"""
import ast
import copy

import gast

from ..frontend.parse import function_source
from .derivation import Derivation, _clean
from .jvp import ForwardMode
from ..codegen.node_walk import walk

__all__ = ["forward_over_reverse", "applies"]


def forward_over_reverse(transform, mode):
    """A Derivation computing `mode` ("grad" or "value_and_grad") of `transform` in forward mode,
    or None when the request is not the grad of a gradient with respect to the same argument."""
    if mode not in ("grad", "value_and_grad") or not applies(transform):
        return None
    position = transform.argnums[0]
    derivation = _Seeded()
    base = _clean(function_source(transform.fun).name)
    derivation.seeded(transform.fun, position, mode, f"{mode}_{base}")
    return derivation


def applies(transform):
    from ..api import ReverseTransform
    inner = getattr(transform.fun, "__astjax_transform__", None)
    plain = (transform.single and not transform.has_aux and not transform.allow_int
             and not transform.leading and not transform.keywords)
    return (plain and isinstance(inner, ReverseTransform) and inner.kind == "grad" and inner.single
            and not inner.has_aux and not inner.allow_int and not inner.leading and not inner.keywords
            and inner.argnums == transform.argnums)


class _Seeded(Derivation):
    def seeded(self, fn, position, mode, name):
        def make(context, node, names, namespace, label):
            defaults = copy.deepcopy(node.args.defaults)     # the seeded function keeps the primal's defaults
            forward = ForwardMode(context, node, names, name=label,
                                  callee_jvp=self._callee_hook(namespace, context, "jvp"),
                                  bind_name=lambda obj, base: self._bind(namespace, obj, base))
            return _SeedOne(forward, mode, defaults)
        return self._generate(fn, [position], make, name, prefix=mode)


class _SeedOne:
    """The forward-mode function with its one tangent parameter bound to 1.0 at the top."""

    def __init__(self, forward, mode, defaults=()):
        self.forward, self.mode, self.defaults = forward, mode, list(defaults)

    def transform(self):
        fn = self.forward.transform()
        seed = fn.args.args.pop()           # the tangent of the differentiated argument comes last
        fn.args.defaults = self.defaults    # what is left are the primal's parameters, defaults and all
        variable = self.forward.wrt[0]
        message = (f"grad requires a function with a scalar output, but the gradient with respect to "
                   f"`{variable}` has its shape, and `{variable}` is not a scalar. Use astjax.hessian or "
                   f"astjax.jacfwd(astjax.grad(f)) for the second derivatives of an array argument.")
        check = gast.parse(f"if jnp.ndim({variable}) != 0:\n    raise TypeError({message!r})").body[0]
        bind = gast.Assign(targets=[gast.Name(id=seed.id, ctx=gast.Store(), annotation=None, type_comment=None)],
                           value=gast.Constant(value=1.0, kind=None), type_comment=None)
        ret = fn.body[-1]
        if self.mode == "grad":
            ret.value = copy.deepcopy(ret.value.elts[1])
        body = _without_implied_output_checks(_without(fn.body, check), self.forward, variable)
        fn.body = [check, bind] + body      # a lower order's copy of the check goes
        return _located(fn)


def _without(body, check):
    """`body` less the copies of `check` (and the line comment above each); dead code removes their tests."""
    text = _text(check.body[0])         # its test may have been normalized into a temporary: match the raise
    out = []
    for stmt in body:
        if isinstance(stmt, gast.If) and len(stmt.body) == 1 and _text(stmt.body[0]) == text and not stmt.orelse:
            if out and _is_comment(out[-1]):
                out.pop()
            continue
        out.append(stmt)
    return out


def _without_implied_output_checks(body, forward, variable):
    """`body` less the inner gradient's scalar-output checks (`if jnp.ndim(out) != 0: raise TypeError(...)`,
    reverse/driver.py) on an output that provably has the shape of `variable` (only elementwise operations
    of it and of numbers: analyses/shapes.py), which the check above has just found to be a scalar. The
    check stays for any other output: `grad(grad(f))` of a vector-valued f still raises."""
    single = _assigned_once(body)
    out = []
    for stmt in body:
        checked = _output_checked(stmt, single)
        if checked is not None and forward.shapes.variable.get(checked) == frozenset([f"param:{variable}"]) \
                and _only_plainly_assigned(forward.function, checked):
            continue                    # its test's temporaries are dead code now
        out.append(stmt)
    return out


def _only_plainly_assigned(function_node, variable):
    """Whether every assignment to `variable` is `variable = <expression>`, the only kind the shape
    classes follow (not `+=`, a loop target, an unpacked tuple, or a parameter)."""
    plain = sum(1 for n in walk(function_node) if isinstance(n, gast.Assign) and len(n.targets) == 1
                and isinstance(n.targets[0], gast.Name) and n.targets[0].id == variable)
    stores = sum(1 for n in walk(function_node) if isinstance(n, gast.Name) and n.id == variable
                 and not isinstance(n.ctx, gast.Load))
    return plain == stores


def _assigned_once(body):
    """{name: value} of the names the top level assigns exactly once, and nothing else assigns."""
    stores = {}
    for node in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
    return {stmt.targets[0].id: stmt.value for stmt in body
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and stores.get(stmt.targets[0].id) == 1}


def _output_checked(stmt, single):
    """`out` when `stmt` is the scalar-output check of reverse/driver.py on the name `out`, else None."""
    if not (isinstance(stmt, gast.If) and not stmt.orelse and len(stmt.body) == 1
            and isinstance(stmt.body[0], gast.Raise) and _text(stmt.body[0]).startswith(_OUTPUT_CHECK)):
        return None
    test = _resolved(stmt.test, single)
    if not (isinstance(test, gast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], gast.NotEq)
            and isinstance(test.comparators[0], gast.Constant) and test.comparators[0].value == 0):
        return None
    ndim = _resolved(test.left, single)
    if (isinstance(ndim, gast.Call) and isinstance(ndim.func, gast.Attribute) and ndim.func.attr == "ndim"
            and isinstance(ndim.func.value, gast.Name) and ndim.func.value.id == "jnp" and len(ndim.args) == 1
            and not ndim.keywords and isinstance(ndim.args[0], gast.Name)):
        return ndim.args[0].id
    return None


_OUTPUT_CHECK = "raise TypeError('Gradient only defined for scalar-output functions: "


def _resolved(node, single):
    while isinstance(node, gast.Name) and node.id in single:
        node = single[node.id]
    return node


def _text(stmt):
    return ast.unparse(gast.gast_to_ast(stmt))


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")


def _located(fn):
    for node in walk(fn):
        if hasattr(node, "lineno") and getattr(node, "lineno", None) is None:
            node.lineno = fn.lineno
    return gast.fix_missing_locations(fn)
