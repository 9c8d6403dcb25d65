"""Local functions defined inside loops and branches, chosen by a condition, or called where they are made.

    for i in range(3):                          def f_1(v):
        f = lambda v: v * (i + 1.0)                 return v * (i + 1.0)
        s = s + f(x)                     ->     for i in range(3):
                                                    s = s + f_1(x)

    f = lambda v: v + 1.0                       def f_1(v): return v + 1.0
    if c:                                       def f_2(v): return v * v
        f = lambda v: v * v              ->     f = 0
    y = f(x)                                    if c:
                                                    f = 1
                                                y = f_1(x) if f == 0 else f_2(x)

    y = (lambda t: t * 5.0)(x)           ->     def _lambda_1(t): return t * 5.0
                                                y = _lambda_1(x)

A local function reads the enclosing function's variables when it is called
(Python's late binding), and normalize/one_primitive_per_statement.py inlines
each call where it is made, so where the definition is written does not matter
for what the body reads: each definition becomes a top-level local function
(normalize/local_functions.py) under its own name. What the name holds at a call
is the definition executed last before it: with one definition that is it; with
several, the name holds the number of the definition instead (an int assigned
where the definition was), and each call chooses on it. Default values are
evaluated where the definition runs, into a temporary of that definition.

A definition with default values (`f = lambda v, k=k: v * k`) is rewritten
this way too, wherever it is: its defaults are evaluated where it is written
(early binding), and a call that leaves one out passes that temporary.

Only a name every store of which is such a definition, and every read of which
is a call in the function's own body after a definition that always runs first
(in the same block or one around it), is rewritten: anything else is left to
the later passes, which refuse it.
"""
import copy

import gast

from .base import Pass, copy_location, name, store
from ...codegen.node_walk import NodeTransformer, walk

__all__ = ["LocalFunctionValues"]

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef, gast.ListComp, gast.SetComp,
           gast.DictComp, gast.GeneratorExp)


class LocalFunctionValues(Pass):
    """Hoist local functions defined in blocks or by conditional expressions; number them where needed."""

    def run(self, node):
        if not any(isinstance(n, gast.Lambda) or (isinstance(n, gast.FunctionDef) and n is not node)
                   for n in walk(node)):
            return node             # no local function: nothing to hoist
        hoisted = []
        node.body = [self._immediate_lambdas(s, hoisted) for s in node.body]
        sites = {}                 # name -> [(block, index, statement, its definitions, at top level?)]
        self._sites(node.body, sites, top=True)
        for target, found in sites.items():
            if (any(not top for _, _, _, _, top in found) or any(_conditional(s) for _, _, s, _, _ in found)
                    or any(_defaults(leaf) for _, _, _, leaves, _ in found for leaf in leaves)):
                hoisted.extend(self._rewrite(node, target, found) or [])
        node.body = hoisted + node.body
        return node

    # --- (lambda v: ...)(x)

    def _immediate_lambdas(self, stmt, hoisted):
        """`(lambda v: body)(x)` in a statement of the function's own scope: a call of a new local function."""
        ctx = self.context

        class Immediate(NodeTransformer):
            def generic_visit(self, node):
                if isinstance(node, _SCOPES):
                    return node           # another scope (a comprehension's variables are its own)
                return super().generic_visit(node)

            def visit_Call(self, node):
                node = self.generic_visit(node)
                if isinstance(node.func, gast.Lambda) and not node.func.args.defaults:
                    label = ctx.namer.fresh("_lambda")
                    hoisted.append(_function(label, node.func, node))
                    node.func = copy_location(name(label), node.func)
                return node

        if isinstance(stmt, _SCOPES):
            return stmt
        return Immediate().visit(stmt)

    # --- finding definitions

    def _sites(self, block, sites, top):
        for index, stmt in enumerate(block):
            leaves = _leaves(stmt)
            if leaves is not None:
                sites.setdefault(_defined(stmt), []).append((block, index, stmt, leaves, top))
            if isinstance(stmt, (gast.If, gast.For, gast.While)):
                self._sites(stmt.body, sites, top=False)
                self._sites(stmt.orelse, sites, top=False)

    # --- rewriting one name

    def _rewrite(self, node, target, found):
        """Hoist the definitions of `target` and redirect its calls; None (nothing changed) when its uses
        are not all calls a definition surely precedes."""
        stmts = {id(s) for _, _, s, _, _ in found}
        calls = []
        for n in gast.walk(gast.Module(body=node.body, type_ignores=[])):
            if isinstance(n, (gast.Global, gast.Nonlocal)) and target in n.names:
                return None
            if isinstance(n, gast.FunctionDef) and n.name == target and id(n) not in stmts:
                return None
            if isinstance(n, gast.arguments):
                if any(a.id == target for a in n.args + n.kwonlyargs + n.posonlyargs) or any(
                        a is not None and a.id == target for a in (n.vararg, n.kwarg)):
                    return None
        sited_targets = {id(s.targets[0]) for _, _, s, _, _ in found if isinstance(s, gast.Assign)}
        parents = _parents(node.body)
        for n in gast.walk(gast.Module(body=node.body, type_ignores=[])):
            if not (isinstance(n, gast.Name) and n.id == target):
                continue
            if not isinstance(n.ctx, gast.Load):
                if id(n) not in sited_targets:
                    return None
                continue
            call = parents.get(id(n))
            if not (isinstance(call, gast.Call) and call.func is n and not call.keywords
                    and not any(isinstance(a, gast.Starred) for a in call.args)):
                return None
            if self._enclosing_scope(n, parents) is not None or not self._dominated(n, found, parents, node.body):
                return None
        leaves = [leaf for _, _, _, ls, _ in found for leaf in ls]
        if any(_defaults(leaf) for leaf in leaves) and any(_conditional(s) for _, _, s, _, _ in found):
            return None          # a default of a conditional expression's lambda: evaluated only if chosen
        hoisted, definitions = [], {}
        for number, leaf in enumerate(leaves):
            label = self.context.namer.unique(target)
            temps = [self.context.namer.fresh(f"_{label}default") for _ in _defaults(leaf)]
            definitions[id(leaf)] = (number, label, len(leaf.args.args), temps)
            fdef = _function(label, leaf, leaf)
            fdef.args.defaults = []
            hoisted.append(fdef)
        choices = [definitions[id(leaf)] for leaf in leaves]
        node.body = _Calls(target, choices, self.error).visit(gast.Module(body=node.body, type_ignores=[])).body
        for block, _, stmt, leaves_here, _ in found:
            new = []
            for leaf in leaves_here:
                for label, expr in zip(definitions[id(leaf)][3], _defaults(leaf)):
                    new.append(copy_location(gast.Assign(targets=[store(label)], value=expr, type_comment=None),
                                             stmt))
            if len(leaves) > 1:
                value = _tag_expression(stmt, definitions)
                new.append(copy_location(gast.Assign(targets=[store(target)], value=value, type_comment=None), stmt))
            position = next(i for i, s in enumerate(block) if s is stmt)
            block[position:position + 1] = new or [copy_location(gast.Pass(), stmt)]
        return hoisted

    @staticmethod
    def _enclosing_scope(n, parents):
        while id(n) in parents:
            n = parents[id(n)]
            if isinstance(n, _SCOPES):
                return n
        return None

    @staticmethod
    def _dominated(n, found, parents, body):
        """Whether a definition always runs before the statement holding `n`: an earlier statement of a
        block around it is one, or an `if` both of whose branches always run one."""
        sites = {id(s) for _, _, s, _, _ in found}

        def defines(stmt):
            if id(stmt) in sites:
                return True
            return isinstance(stmt, gast.If) and any(defines(s) for s in stmt.body) and any(
                defines(s) for s in stmt.orelse)

        child = n
        while True:
            parent = parents.get(id(child))
            blocks = [body] if parent is None else [getattr(parent, f, None) for f in ("body", "orelse")]
            for block in blocks:
                if isinstance(block, list) and any(s is child for s in block):
                    index = next(i for i, s in enumerate(block) if s is child)
                    if any(defines(s) for s in block[:index]):
                        return True
            if parent is None:
                return False
            child = parent


class _Calls(NodeTransformer):
    """`f(a, b)`: `f_1(a, b)`, or with several definitions `f_1(a, b) if f == 0 else f_2(a, b)` (a default
    left out is passed from its definition's temporary)."""

    def __init__(self, target, choices, error):
        self.target, self.choices, self.error = target, choices, error

    def visit_Call(self, node):
        self.generic_visit(node)
        if not (isinstance(node.func, gast.Name) and node.func.id == self.target):
            return node
        options = []
        for number, label, count, temps in self.choices:
            if not count - len(temps) <= len(node.args) <= count:
                raise self.error(f"this call of `{self.target}` does not match the parameters of every definition "
                                 f"of `{self.target}` it may call", node)
            missing = temps[len(temps) - (count - len(node.args)):] if count > len(node.args) else []
            options.append((number, gast.Call(func=name(label), args=copy.deepcopy(node.args) + [
                name(t) for t in missing], keywords=[])))
        choice = options[-1][1]
        for number, call in reversed(options[:-1]):
            test = gast.Compare(left=name(self.target), ops=[gast.Eq()],
                                comparators=[gast.Constant(value=number, kind=None)])
            choice = gast.IfExp(test=test, body=call, orelse=choice)
        return copy_location(choice, node)


def _conditional(stmt):
    """`f = (lambda ...) if c else (lambda ...)`: a site with several definitions."""
    return not isinstance(stmt, gast.FunctionDef) and not isinstance(stmt.value, gast.Lambda)


def _defined(stmt):
    return stmt.name if isinstance(stmt, gast.FunctionDef) else stmt.targets[0].id


def _leaves(stmt):
    """The definitions (FunctionDef or Lambda nodes) a statement binds to one name, else None:
    `def f(...)`, `f = lambda ...`, `f = (lambda ...) if c else (lambda ...)` (nested)."""
    if isinstance(stmt, gast.FunctionDef):
        return None if stmt.decorator_list else [stmt]
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
        return None
    out = []

    def walk(expr):
        if isinstance(expr, gast.Lambda):
            out.append(expr)
            return True
        if isinstance(expr, gast.IfExp):
            return walk(expr.body) and walk(expr.orelse)
        return False

    return out if walk(stmt.value) else None


def _tag_expression(stmt, labels):
    """The statement's value with each lambda replaced by its number."""
    def walk(expr):
        if isinstance(expr, gast.IfExp):
            return gast.IfExp(test=expr.test, body=walk(expr.body), orelse=walk(expr.orelse))
        return gast.Constant(value=labels[id(expr)][0], kind=None)
    if isinstance(stmt, gast.FunctionDef):
        return gast.Constant(value=labels[id(stmt)][0], kind=None)
    return walk(stmt.value)


def _defaults(leaf):
    return list(leaf.args.defaults)


def _function(label, leaf, where):
    """A FunctionDef named `label` from a FunctionDef or a Lambda."""
    if isinstance(leaf, gast.FunctionDef):
        fdef = copy.deepcopy(leaf)
        fdef.name = label
        return fdef
    args = copy.deepcopy(leaf.args)
    ret = copy_location(gast.Return(value=copy.deepcopy(leaf.body)), where)
    return copy_location(gast.FunctionDef(name=label, args=args, body=[ret], decorator_list=[], returns=None,
                                          type_comment=None, type_params=[]), where)


def _parents(body):
    parents = {}
    for n in gast.walk(gast.Module(body=body, type_ignores=[])):
        for child in gast.iter_child_nodes(n):
            parents[id(child)] = n
    return parents
