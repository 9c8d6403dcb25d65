"""Augmented and item assignments become plain, functional assignments.

    x += e          ->   x = x + e
    y[i] = e        ->   y = at_set(y, i, e)
    y[i] += e       ->   y = at_add(y, i, e)
    y[1:3] *= e     ->   y = at_multiply(y, slice(1, 3), e)

A name bound to a NumPy array (by a NumPy function, or `.copy()`) keeps NumPy's in-place meaning:

    y = np.zeros(3, np.float32); y += e   ->   y = inplace_result(y, y + e)

(the result keeps y's shape and dtype; what NumPy refuses is refused when the function runs).

So code that looks like it mutates a local array differentiates correctly:
the update is a primitive with a derivative rule, not a hidden side effect.
(`at_set(y, i, e)` is `y.at[i].set(e)` written as a function, so it also
works on a plain NumPy array made with `np.zeros`.)

An index the aliasing pass could not prove free of repeated positions (an
index array) is checked when the function runs, since NumPy writes each
position once however often it is repeated:

    y[idx] += e     ->   y = at_add(y, distinct_index(y, idx, "f.py:7"), e)

Whether the update may be made functional at all (no other name sees `y`'s
memory) is decided by the aliasing pass, which runs first.
"""
import gast

from ...codegen.templates import index_expression
from .base import Pass, copy_location
from ...codegen.node_walk import walk

_AT_METHOD = {gast.Add: "add", gast.Mult: "multiply", gast.Sub: None, gast.Div: None}


def _at_update(target, method, value, where):
    index = index_expression(_load(target.slice))
    if getattr(target, "checked_index", False):
        index = gast.Call(func=gast.Name(id="distinct_index", ctx=gast.Load(), annotation=None, type_comment=None),
                          args=[_load(target.value), index, gast.Constant(value=where, kind=None)], keywords=[])
    call = gast.Call(func=gast.Name(id=f"at_{method}", ctx=gast.Load(), annotation=None, type_comment=None),
                     args=[_load(target.value), index, value], keywords=[])
    return gast.Assign(targets=[_store(target.value)], value=call, type_comment=None)


def _load(node):
    import copy
    node = copy.deepcopy(node)
    node.ctx = gast.Load()
    return node


def _store(node):
    import copy
    node = copy.deepcopy(node)
    node.ctx = gast.Store()
    return node


class AugmentedAssignment(Pass):
    """Desugar `x op= e`, `y[i] = e` and `y[i] op= e`."""

    def run(self, node):
        self.numpy_arrays = _numpy_bound_names(node, self.context.resolver)
        return self.visit(node)

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        target = node.target
        if isinstance(target, gast.Name):
            value = gast.BinOp(left=_load(target), op=node.op, right=node.value)
            if target.id in self.numpy_arrays:
                value = gast.Call(func=gast.Name(id="inplace_result", ctx=gast.Load(), annotation=None,
                                                 type_comment=None), args=[_load(target), value], keywords=[])
            return copy_location(gast.Assign(targets=[_store(target)], value=value, type_comment=None), node)
        if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
            op = type(node.op)
            if op in (gast.Add, gast.Mult):
                return copy_location(_at_update(target, _AT_METHOD[op], node.value, self.where(node)), node)
            current = gast.Subscript(value=_load(target.value), slice=_load(target.slice), ctx=gast.Load())
            value = gast.BinOp(left=current, op=node.op, right=node.value)
            return copy_location(_at_update(target, "set", value, self.where(node)), node)
        raise self.error("astjax can only update names and items of local arrays in place", node,
                         hint="assign the result to a local name first (obj = ...; obj += e).")

    def where(self, node):
        """`file:line: text` of the user's statement, for an error raised when the function runs."""
        source = self.context.source
        line = source.file_line(node.lineno) if getattr(node, "lineno", None) else source.first_line
        return f"{source.filename}:{line}: {self.context.line_text(node)}"

    def visit_Assign(self, node):
        self.generic_visit(node)
        if len(node.targets) != 1:
            raise self.error("chained assignment (a = b = e) is not supported", node,
                             hint="write one assignment per line.")
        target = node.targets[0]
        if isinstance(target, gast.Subscript):
            if not isinstance(target.value, gast.Name):
                raise self.error("item assignment is supported on local array names only", node,
                                 hint="assign the array to a local name first.")
            return copy_location(_at_update(target, "set", node.value, self.where(node)), node)
        if isinstance(target, gast.Attribute):
            raise self.error("assigning to attributes is not supported in transformed functions", node,
                             hint="keep values in local variables and return them.")
        return node


def _numpy_bound_names(function_node, resolver):
    """Names some assignment binds to the result of a NumPy function (`np.zeros(3)`) or of a `.copy()`: in the
    original program they may hold NumPy arrays, which `x op= e` updates in place."""
    names = set()
    for stmt in walk(function_node):
        if not (isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Call)):
            continue
        func = stmt.value.func
        value = resolver.static_value(func)
        module = getattr(value, "__module__", None) or getattr(type(value), "__module__", "")
        from_numpy = isinstance(module, str) and (module == "numpy" or module.startswith("numpy."))
        copied = (isinstance(func, gast.Attribute) and func.attr == "copy" and not stmt.value.args
                  or getattr(value, "__name__", None) == "copy")      # `x.copy()`, written `jnp.copy(x)` by now
        if from_numpy or copied:
            names.update(t.id for t in stmt.targets if isinstance(t, gast.Name))
    return names
