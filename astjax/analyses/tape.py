"""What the reverse sweep must keep: which variables go on the tape, and where a push is safe.

A variable is saved when a rule of the adjoint sweep reads it (for more than
its shape) and the primal sweep overwrites it: it is assigned more than once,
or inside a loop. Every other value is still in its variable when the adjoint
sweep needs it, so the tape grows only with what is overwritten.
"""
import itertools

import gast

__all__ = ["TapePlan"]


class TapePlan:
    """Positions of the primal statements and the tape decisions that follow from them."""

    def __init__(self, function_node, primal, params):
        self.function = function_node
        self.params = list(params)
        self.position = {}            # id(stmt) -> place in program order
        self.in_loop = {}             # id(stmt) -> inside some loop?
        self.top_level = {id(stmt) for stmt in primal}   # ids of self.function's statements: held by it
        self.assigned_at = {p: [-1] for p in self.params}    # variable -> positions assigned
        self.saved = set()
        self.shape_saved = set()
        self._assignments = None      # variable -> its Assign nodes (see assignments)
        counter = itertools.count()

        def walk(block, in_loop):
            for stmt in block:
                pos = next(counter)
                self.position[id(stmt)] = pos
                self.in_loop[id(stmt)] = in_loop
                if isinstance(stmt, gast.Assign):
                    self.assigned_at.setdefault(stmt.targets[0].id, []).append(pos)
                if isinstance(stmt, gast.For):
                    self.assigned_at.setdefault(stmt.target.id, []).append(pos)
                    walk(stmt.body, True)
                elif isinstance(stmt, gast.While):
                    walk(stmt.body, True)
                elif isinstance(stmt, gast.If):
                    walk(stmt.body, in_loop)
                    walk(stmt.orelse, in_loop)
        walk(primal, False)

    def assignments(self, variable):
        """The `variable = ...` statements of the function, in `gast.walk` order. Indexed by one walk on
        the first call: the sweeps ask once per variable, and a walk each time made the reverse transform
        quadratic in the function's length. The primal's assignments do not change after the plan is made
        (the sweeps add statements to their own lists; the tape writer adds pushes, which are not
        assignments)."""
        if self._assignments is None:
            self._assignments = {}
            for n in gast.walk(self.function):
                if isinstance(n, gast.Assign):
                    self._assignments.setdefault(n.targets[0].id, []).append(n)
        return list(self._assignments.get(variable, ()))

    def defined_at_top_level(self, variable):
        return any(id(s) in self.top_level for s in self.assignments(variable))

    def decide(self, adjoint, restored_by):
        """Choose the saved variables, given the adjoint sweep's statements.

        `restored_by(stmt)` names the variable a restore marker of the adjoint
        sweep restores (None for other statements). A read needs the tape when
        it may run after a restore of its variable; a read before any restore,
        outside a loop that restores, sees the final value still in place. A
        variable read only for its shape (a node marked `shape_only`, such as
        `unbroadcast`'s second argument) keeps just its shape on the tape
        (`shape_saved`), and so does `zero_like`'s argument (a loop may change
        the shape of a variable from one iteration to the next).
        """
        reads, shape_reads = set(), set()
        restored = set()

        def restores_in(stmts):
            return {v for s in stmts for n in gast.walk(s) if (v := restored_by(n)) is not None}

        def scan(stmts, restored_in_loop):
            for stmt in stmts:
                variable = restored_by(stmt)
                if variable is not None:
                    restored.add(variable)
                    continue
                if isinstance(stmt, (gast.For, gast.While)):
                    # The header runs once, before the body's restores: it reads what is in place now.
                    note_reads([stmt.iter if isinstance(stmt, gast.For) else stmt.test], restored_in_loop)
                    scan(stmt.body, restored_in_loop | restores_in(stmt.body))
                    continue
                if isinstance(stmt, gast.If):
                    parts = [stmt.test]
                    scan(stmt.body, restored_in_loop)
                    scan(stmt.orelse, restored_in_loop)
                else:
                    parts = [stmt]
                note_reads(parts, restored_in_loop)

        def note_reads(parts, restored_in_loop):
            zero_like_args = {id(c.args[0]) for p in parts for c in gast.walk(p) if isinstance(c, gast.Call)
                              and isinstance(c.func, gast.Name) and c.func.id == "zero_like"}
            for p in parts:
                for n in gast.walk(p):
                    if not (isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)):
                        continue
                    if n.id in restored or n.id in restored_in_loop:
                        shape_only = getattr(n, "shape_only", False) or id(n) in zero_like_args
                        (shape_reads if shape_only else reads).add(n.id)

        scan(adjoint, set())
        shape_reads -= reads
        # A loop variable is set again by the reversed loop's header: normalization (control_flow.py) gave
        # any loop variable the body rebinds, or code after the loop reads, a variable of its own.
        loop_targets = {n.target.id for n in gast.walk(self.function) if isinstance(n, gast.For)}
        for variable, positions in self.assigned_at.items():
            if variable in loop_targets or variable not in reads | shape_reads:
                continue
            if len(positions) > 1 or any(self.in_loop.get(id(s)) for s in self.assignments(variable)):
                whole = variable in reads or self._holds_a_container(variable)
                (self.saved if whole else self.shape_saved).add(variable)
        return self.saved

    def _holds_a_container(self, variable):
        """A variable assigned a tuple, list or dict display (a while loop's state `(i, x)`): its adjoint
        is one per item and takes no shape, and NumPy has no shape for items of different shapes, so
        the tape keeps the container itself (its items, not copies)."""
        return any(isinstance(s.value, (gast.Tuple, gast.List, gast.Dict)) for s in self.assignments(variable))

    def pushes_before(self, stmt):
        """Whether the primal sweep saves the old value (or shape) of `stmt`'s target before `stmt` runs.

        Not for a variable's first definition made at the top level: it surely had no value.
        """
        variable = stmt.targets[0].id
        if variable not in self.saved and variable not in self.shape_saved:
            return False
        first = self.assigned_at.get(variable, [0])[0] == self.position[id(stmt)]
        return not (first and id(stmt) in self.top_level)

    def declarations(self):
        """Saved variables that a branch or loop may define first: they start as None, so a push has a value."""
        out = []
        for variable in sorted((self.saved | self.shape_saved) - set(self.params)):
            firsts = [s for s in self.assignments(variable)
                      if self.position.get(id(s)) == self.assigned_at[variable][0]]
            if not any(id(s) in self.top_level for s in firsts):
                out.append(variable)
        return out
