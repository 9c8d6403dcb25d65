"""Writing the tape: pushes in the primal sweep, pops where the adjoint sweep restores.

The adjoint sweep leaves a `__restore__(k)` marker where the primal value a
statement overwrote must come back. Given the plan of analyses/tape.py, the
primal sweep pushes the old value (or only its shape) before such a statement,
and each marker becomes the matching `v = pop(_tape)` or disappears.
"""

import gast

from ...codegen.templates import assign, call, is_marker, name
from ...frontend.normalize.base import copy_location
from ...codegen.node_walk import NodeTransformer

__all__ = ["TapeWriter"]


class TapeWriter:
    """Pushes and pops for one function, as the tape plan decided them."""

    def __init__(self, plan, restores, shape_names, tape, adjoint):
        self.plan = plan
        self.restores = restores            # marker id -> the statement it restores
        self.shape_names = shape_names      # variable -> name of its saved shape
        self.tape = tape
        self.adjoint = adjoint              # variable -> the name of its adjoint
        self.pushed = set()                 # id of each statement the primal sweep saves before
        # (ids of primal statements: the driver's `primal` list and self.restores keep them alive)

    def forward_block(self, stmts):
        out = []
        for stmt in stmts:
            if isinstance(stmt, gast.Assign):
                variable = stmt.targets[0].id
                if self.plan.pushes_before(stmt):
                    saved = name(variable)
                    if variable in self.plan.shape_saved:
                        saved = call("jnp.shape", saved)
                    out.append(copy_location(gast.Expr(value=call("push", name(self.tape), saved)), stmt))
                    self.pushed.add(id(stmt))
                out.append(stmt)
            elif isinstance(stmt, (gast.For, gast.While)):
                stmt.body = self.forward_block(stmt.body)
                out.append(stmt)
            elif isinstance(stmt, gast.If):
                stmt.body = self.forward_block(stmt.body) or [gast.Pass()]
                stmt.orelse = self.forward_block(stmt.orelse)
                out.append(stmt)
            else:
                out.append(stmt)
        return out

    def read_saved_shapes(self, stmts):
        """Read the saved shape of a variable whose shape alone is saved.

        `unbroadcast(g, x)` -> `unbroadcast_to(g, x_shape)`, and
        `bx = zero_like(x)` -> `bx = zeros_shaped(x_shape, bx)` (bx gives the dtype).
        """
        shapes = self.shape_names
        adjoint = self.adjoint

        class ReadShapes(NodeTransformer):
            def visit_Call(self, node):
                self.generic_visit(node)
                if not isinstance(node.func, gast.Name):
                    return node
                if (node.func.id == "unbroadcast" and len(node.args) == 2
                        and getattr(node.args[1], "shape_only", False) and node.args[1].id in shapes):
                    return call("unbroadcast_to", node.args[0], name(shapes[node.args[1].id]))
                if node.func.id == "zero_like" and isinstance(node.args[0], gast.Name) and node.args[0].id in shapes:
                    variable = node.args[0].id
                    return call("zeros_shaped", name(shapes[variable]), name(adjoint(variable)))
                return node
        return [ReadShapes().visit(s) for s in stmts]

    def resolve_restores(self, stmts):
        out = []
        for stmt in stmts:
            if is_marker(stmt, "__restore__"):
                original = self.restores[stmt.value.args[0].value]
                if id(original) in self.pushed:
                    variable = original.targets[0].id
                    target = self.shape_names.get(variable, variable)
                    out.append(copy_location(assign(target, call("pop", name(self.tape))), original))
                continue
            for field in ("body", "orelse"):
                if hasattr(stmt, field) and isinstance(getattr(stmt, field), list):
                    setattr(stmt, field, self.resolve_restores(getattr(stmt, field)))
            if isinstance(stmt, (gast.If,)) and not stmt.body:
                stmt.body = [gast.Pass()]
            if isinstance(stmt, gast.For) and not stmt.body:
                stmt.body = [gast.Pass()]
            out.append(stmt)
        return out
