"""Same-shape classes: which values provably have the same shape.

Each variable gets the set of shape classes it may have: a parameter's own
class, `scalar` for Python numbers, or a class made up for a value whose shape
is unknown. An elementwise primitive's result has its operands' class when they
share one (a scalar fits any shape). Reverse mode leaves out `unbroadcast`
where an operand's class is exactly the result's, so `y = jnp.sin(x) * x`
gives `bx = by * jnp.sin(x) + ...` and a loop's `y = y * x` gives `bx += by * y`.

The fixed point starts optimistic (a variable not yet seen constrains nothing)
and only ever grows the sets, so it ends.
"""
import gast

from .classify import classify
from ..codegen.node_walk import walk

__all__ = ["ShapeClasses", "SCALAR"]

SCALAR = "scalar"          # a Python number: broadcasts against anything, changes no shape


class ShapeClasses:
    """The possible shape classes of every variable and statement of a normalized function."""

    def __init__(self, function_node, resolver):
        self.resolver = resolver
        self._held = {}                 # id -> node named by an `unknown:<id>` class: kept alive, so ids stay unique
        statements = [n for n in walk(function_node)
                      if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name)]
        self.variable = {a.id: frozenset([f"param:{a.id}"]) for a in function_node.args.args}
        for node in walk(function_node):
            if isinstance(node, gast.For):
                self.variable[node.target.id] = frozenset([SCALAR])
        self.of_statement = {}         # id(stmt) -> (stmt, its classes): the node kept, its id not reused
        # Each statement is classified once and its Application kept: the default and static-constant
        # nodes classify makes (`full_like(G, x)` with a global tuple G) are labelled by id() below, and a
        # node freed after one round gave its id to the next round's node, or to another statement's
        # (the classes never settled, and two unrelated values could share a class).
        self._applications = {id(stmt): classify(stmt.value, resolver) for stmt in statements}
        for _ in range(4 * len(statements) + 4):
            changed = False
            for stmt in statements:
                classes = self._expression(stmt)
                self.of_statement[id(stmt)] = (stmt, classes)
                name = stmt.targets[0].id
                merged = self.variable.get(name, frozenset()) | classes
                if merged != self.variable.get(name):
                    self.variable[name] = merged
                    changed = True
            if not changed:
                break
        self.numeric = _surely_numeric(function_node, statements, self._applications)

    def of(self, node):
        """The possible classes of an operand node (a name or a constant)."""
        if isinstance(node, gast.Constant) and isinstance(node.value, (int, float, bool)):
            return frozenset([SCALAR])
        if isinstance(node, gast.Name):
            if node.id not in self.variable and isinstance(self.resolver.lookup(node.id), (int, float)):
                return frozenset([SCALAR])      # a global or closure number
            return self.variable.get(node.id, frozenset([f"free:{node.id}"]))
        self._held[id(node)] = node         # its id stays its own while these classes are consulted
        return frozenset([f"unknown:{id(node)}"])

    def statement(self, stmt):
        known = self.of_statement.get(id(stmt))
        if known is not None and known[0] is stmt:
            return known[1]
        self._held[id(stmt)] = stmt         # its id stays its own while these classes are consulted
        return frozenset([f"unknown:{id(stmt)}"])

    def same_shape(self, operand, stmt):
        """Whether `operand` certainly has the shape of `stmt`'s result (so nothing was broadcast)."""
        mine = self.of(operand)
        return len(mine) == 1 and mine == self.statement(stmt)

    def _expression(self, stmt):
        value = stmt.value
        app = self._applications[id(stmt)]
        if app.kind == "copy":
            return self.of(value)
        if isinstance(value, gast.Constant) and isinstance(value.value, (int, float)):
            return frozenset([SCALAR])
        if app.kind == "primitive" and app.bound.get(app.primitive.result_shape_of) is not None:
            return self.of(app.bound[app.primitive.result_shape_of])
        if app.kind == "primitive" and app.primitive.elementwise:
            operands = [node for key, node in app.bound.items()
                        if key in app.primitive.operands or key in app.primitive.broadcasts_with]
            shaped = frozenset().union(*(self.of(node) for node in operands)) - {SCALAR}
            if len(shaped) <= 1:
                return shaped or frozenset([SCALAR])
        return frozenset([f"unknown:{id(stmt)}"])


# `-`, `/`, `**`, `@`, ... of a list or tuple raise in Python: their results are numbers or arrays. `+` and `*`
# join and repeat lists.
_NUMERIC_OPERATORS = (gast.Sub, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow, gast.MatMult)


def _surely_numeric(function_node, statements, applications):
    """The variables every assignment of which gives a number or an array, never a list or tuple: a number,
    an elementwise primitive's result or another primitive's one array, `-`, `/`, `**`, `@` of anything, `+` or `*` with such an operand
    (a list + a number raises; `xs * 2` is caught where its adjoint is scaled), a copy of such a variable.
    Parameters and items read from containers may be lists. (The shape classes cannot tell `a + a` of
    arrays from a list joined to itself; reverse mode asks this before leaving out an `unbroadcast`.)"""
    from .batching import _ARRAY_RESULTS, _ELEMENTWISE_EXTRA, _KEEP_RANK, _REDUCTIONS
    # primitives whose result is one array (jnp.zeros_like, lax.dynamic_slice, a reduction); not Python's
    # max/min, which return one of their operands (a list, for lists)
    array_results = (_ARRAY_RESULTS | _ELEMENTWISE_EXTRA | _KEEP_RANK | _REDUCTIONS) - {"builtin_max", "builtin_min"}
    params = {a.id for a in function_node.args.args}
    assigned = {}
    for stmt in statements:
        assigned.setdefault(stmt.targets[0].id, []).append(stmt)
    stored_elsewhere = {n.id for n in walk(function_node) if isinstance(n, gast.Name)
                        and isinstance(n.ctx, gast.Store)} - set(assigned)
    numeric = set(assigned) - params - stored_elsewhere

    def operand_numeric(node):
        if isinstance(node, gast.Constant):
            return isinstance(node.value, (int, float, complex)) and not isinstance(node.value, bool)
        return isinstance(node, gast.Name) and node.id in numeric

    def value_numeric(stmt):
        value = stmt.value
        if isinstance(value, gast.Constant) or isinstance(value, gast.Name):
            return operand_numeric(value)
        if isinstance(value, gast.UnaryOp):
            return not isinstance(value.op, gast.Not)
        if isinstance(value, gast.BinOp):
            return (isinstance(value.op, _NUMERIC_OPERATORS) or operand_numeric(value.left)
                    or operand_numeric(value.right))
        app = applications[id(stmt)]
        return app.kind == "primitive" and (bool(app.primitive.elementwise) or app.primitive.name in array_results)

    changed = True
    while changed:
        changed = False
        for name_, stmts in assigned.items():
            if name_ in numeric and not all(value_numeric(s) for s in stmts):
                numeric.discard(name_)
                changed = True
    return frozenset(numeric)

