"""One primitive per statement: nested expressions get named temporaries.

    y = jnp.sin(x) * x + 1.0     ->   _t1 = jnp.sin(x)
                                      _t2 = _t1 * x
                                      y = _t2 + 1.0

Operands become names or constants; a conditional expression becomes an
`if` statement and `a and b` short-circuits through one; a `while` test is
computed before the loop and again at the end of its body. The derivative
passes then see each primitive application on its own line, and the cleanup
passes fold single-use temporaries back in so generated code reads well.
"""
import copy

import gast

from ..resolve import NOT_STATIC
from .base import Pass, Renamer, copy_location, name, range_of, store
from ...codegen.node_walk import walk

_UNSUPPORTED = {
    gast.Try: ("try/except", "move the error handling outside the transformed function"),
    gast.With: ("`with` blocks", "move the `with` outside the transformed function"),
    gast.Global: ("`global`", "pass the value as an argument and return the new value"),
    gast.Nonlocal: ("`nonlocal`", "pass the value as an argument and return the new value"),
    gast.Delete: ("`del`", "let the name go out of use instead"),
    gast.ClassDef: ("class definitions", "define the class outside the transformed function"),
    gast.Import: ("imports", "import at module level"),
    gast.ImportFrom: ("imports", "import at module level"),
}
_UNSUPPORTED_EXPR = {
    gast.Yield: ("`yield` (generators)", "return a list or array instead"),
    gast.YieldFrom: ("`yield from`", "return a list or array instead"),
    gast.Await: ("`await`", "transform a plain (not async) function"),
    gast.NamedExpr: ("the walrus operator `:=`", "assign on its own line"),
    gast.Starred: ("starred arguments (*args)", "pass the arguments one by one"),
    gast.Lambda: ("a lambda inside a transformed function", "define it with `def` at module level"),
    gast.DictComp: ("dict comprehensions", "build the dict with a loop"),
    gast.SetComp: ("set comprehensions", "use a list"),
}


class OnePrimitivePerStatement(Pass):
    """Flatten nested expressions into a sequence of single-primitive assignments."""

    def run(self, node):
        self.local_functions = getattr(node, "local_functions", {})
        self._refuse_local_functions_as_values(node)
        self.returned_only = _returned_only(node)
        self.inlining = []
        node.body = self.block(node.body)
        return node

    def _refuse_local_functions_as_values(self, node):
        """A local function is inlined where it is called; read as a value (passed to `astjax.grad`, stored,
        returned) its name would be left undefined in the generated code, and what it reads of the enclosing
        function (a closure over the input) would carry no derivative: refuse it at the user's line."""
        stored = {n.id for n in walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        names = set(self.local_functions) - stored
        bodies = [node] + list(self.local_functions.values())
        for body in bodies:
            called = {id(n.func) for n in walk(body) if isinstance(n, gast.Call)}
            for n in walk(body):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in names \
                        and id(n) not in called:
                    raise self.error(f"local function `{n.id}` is used as a value here: astjax inlines a local "
                                     "function where it is called, and cannot pass it on", n,
                                     hint=f"define `{n.id}` at module level and pass what it reads from this "
                                          "function as arguments.")

    # --------------------------------------------------------- statements
    def block(self, stmts):
        out = []
        for stmt in stmts:
            out.extend(self.statement(stmt))
        return out

    def statement(self, stmt):
        self.emitted = []
        self.current = stmt
        kind = type(stmt)
        if isinstance(stmt, gast.Delete) and any(isinstance(t, gast.Subscript) for t in stmt.targets):
            raise self.error("`del` of an item or slice cannot be transformed", stmt,
                             hint="remove a list's item with `xs.pop(i)`, or build a new value without it "
                                  "(`xs = [v for k, v in enumerate(xs) if k != i]`, `x = jnp.delete(x, i)`).")
        if kind in _UNSUPPORTED:
            what, instead = _UNSUPPORTED[kind]
            raise self.error(f"{what} cannot be transformed", stmt, hint=instead + ".")
        if isinstance(stmt, gast.FunctionDef):
            raise self.error("a function defined inside a branch or loop of a transformed function is not supported",
                             stmt, hint="define it at the top of the function body, or at module level.")
        if isinstance(stmt, gast.Assign) and isinstance(stmt.value, gast.Dict) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id in self.returned_only:
            # `out = {"l": l}` then `return (g, out)` (as generated code writes a returned dict): no alias
            # or mutation can reach the dict, so it is the returned dict literal.
            new = gast.Assign(targets=stmt.targets, value=self.dict_literal(stmt.value), type_comment=None)
        elif isinstance(stmt, gast.Assign):
            value = self.expression(stmt.value)
            new = gast.Assign(targets=stmt.targets, value=value, type_comment=None)
        elif isinstance(stmt, gast.AnnAssign):
            value = self.expression(stmt.value)
            new = gast.Assign(targets=[stmt.target], value=value, type_comment=None)
        elif isinstance(stmt, gast.Expr):
            if isinstance(stmt.value, gast.Constant):
                return []      # a docstring or a bare constant does nothing
            new = gast.Expr(value=self.expression(stmt.value))
        elif isinstance(stmt, gast.Return):
            new = gast.Return(value=self.returned(stmt.value))
        elif isinstance(stmt, gast.If):
            test = self.operand(stmt.test)
            if isinstance(test, gast.Name) and test.id in _assigned_in(stmt.body + stmt.orelse, self.local_functions):
                test = self.assign_temp(test)   # the derivative re-tests the value the branch saw
            pre = self.emitted
            new = gast.If(test=test, body=self.block(stmt.body) or [gast.Pass()], orelse=self.block(stmt.orelse))
            self.emitted = pre
        elif isinstance(stmt, gast.For):
            new = self.for_loop(stmt)
        elif isinstance(stmt, gast.While):
            new = self.while_loop(stmt)
        elif isinstance(stmt, (gast.Pass, gast.Break, gast.Continue, gast.Assert, gast.Raise)):
            new = stmt      # checks run in the primal sweep as written; they carry no derivative
        else:
            raise self.error(f"`{type(stmt).__name__}` statements cannot be transformed", stmt)
        emitted = self.emitted
        return [copy_location(s, stmt) for s in emitted + [new]]

    def for_loop(self, stmt):
        call, backwards = range_of(stmt.iter, lambda f, b: self.context.resolver.static_value(f) is b)
        assigned = _assigned_in(stmt.body, self.local_functions)
        args = []
        for arg in call.args:
            atom = self.operand(arg)
            if isinstance(atom, gast.Name) and atom.id in assigned:
                atom = self.assign_temp(atom)   # the bounds are read once, before the loop
            args.append(atom)
        pre = self.emitted
        body = self.block(stmt.body) or [gast.Pass()]
        self.emitted = pre
        iterator = gast.Call(func=call.func, args=args, keywords=[])
        if backwards:
            iterator = gast.Call(func=stmt.iter.func, args=[iterator], keywords=[])
        return gast.For(target=stmt.target, iter=iterator, body=body, orelse=[], type_comment=None)

    def while_loop(self, stmt):
        pre = self.emitted
        self.emitted = []
        test = self.operand(stmt.test)
        test_stmts = self.emitted
        body = self.block(stmt.body)
        self.emitted = pre + test_stmts
        if test_stmts:   # recompute the test at the end of each iteration
            body = body + [copy_location(copy.deepcopy(s), stmt) for s in test_stmts]
        return gast.While(test=test, body=body or [gast.Pass()], orelse=[])

    def returned(self, value):
        """The returned value as a name: a computed result is called `out`."""
        if value is None:
            return None
        if isinstance(value, gast.Tuple):
            items = [self.returned(e) for e in value.elts]
            return gast.Tuple(elts=[self.assign_temp(self.flat_structure(e)) if _holds_names(e) else e
                                    for e in items], ctx=gast.Load())
        # A dict literal returned as written (`return loss, {"acc": acc}`) cannot be aliased or mutated.
        value = self.dict_literal(value) if isinstance(value, gast.Dict) else self.expression(value)
        if isinstance(value, (gast.Name, gast.Constant)):
            return value
        out = "out" if "out" not in self.context.namer.taken else self.context.namer.fresh("out")
        self.context.namer.reserve(out)
        self.emitted.append(copy_location(gast.Assign(targets=[store(out)], value=value, type_comment=None),
                                          self.current))
        return name(out)

    # -------------------------------------------------------- expressions
    def assign_temp(self, value):
        tmp = self.context.namer.fresh()
        self.emitted.append(copy_location(gast.Assign(targets=[store(tmp)], value=value, type_comment=None),
                                          self.current))
        return name(tmp)

    def is_static(self, node):
        return self.context.resolver.static_value(node) is not NOT_STATIC

    def operand(self, node):
        """`node` as a name or constant, computing it into a temporary if needed."""
        if isinstance(node, (gast.Name, gast.Constant)):
            return node
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant):
            return gast.Constant(value=-node.operand.value, kind=None)
        if isinstance(node, gast.Attribute) and self.is_static(node):
            return node        # np.pi, jnp.float32: constants
        if isinstance(node, (gast.Tuple, gast.List)) and all(
                isinstance(e, (gast.Constant, gast.Name)) for e in node.elts):
            return gast.Tuple(elts=node.elts, ctx=gast.Load()) if isinstance(node, gast.Tuple) else node
        value = self.expression(node)
        if isinstance(value, (gast.Name, gast.Constant)):
            return value
        return self.assign_temp(value)

    def structure(self, node):
        """Operands of calls may be (nested) tuples and lists of operands: shapes, pad widths, stacks."""
        if isinstance(node, (gast.Tuple, gast.List)):
            kind = gast.Tuple if isinstance(node, gast.Tuple) else gast.List
            return kind(elts=[self.structure(e) for e in node.elts], ctx=gast.Load())
        return self.operand(node)

    def flat_structure(self, node):
        """`t = ((x, y), z)` -> `_t1 = (x, y); t = (_t1, z)`: a tuple whose items hold variables has only
        names as items, so each derivative reads every item back (a nested literal would drop one)."""
        kind = type(node)
        return kind(elts=[self.assign_temp(self.flat_structure(e)) if _holds_names(e) else e for e in node.elts],
                    ctx=gast.Load())

    def index(self, node):
        if isinstance(node, gast.Slice):
            return gast.Slice(lower=node.lower and self.operand(node.lower),
                              upper=node.upper and self.operand(node.upper),
                              step=node.step and self.operand(node.step))
        if isinstance(node, gast.Tuple):
            return gast.Tuple(elts=[self.index(e) for e in node.elts], ctx=gast.Load())
        return self.operand(node)

    def expression(self, node):
        """`node` as one primitive applied to operands (the right side of one statement)."""
        kind = type(node)
        if kind in _UNSUPPORTED_EXPR:
            what, instead = _UNSUPPORTED_EXPR[kind]
            raise self.error(f"{what} cannot be transformed", node, hint=instead + ".")
        if isinstance(node, (gast.Name, gast.Constant)):
            return node
        if isinstance(node, gast.BinOp):
            return gast.BinOp(left=self.operand(node.left), op=node.op, right=self.operand(node.right))
        if isinstance(node, gast.UnaryOp):
            if isinstance(node.operand, gast.Constant) and isinstance(node.op, gast.USub):
                return gast.Constant(value=-node.operand.value, kind=None)
            return gast.UnaryOp(op=node.op, operand=self.operand(node.operand))
        if isinstance(node, gast.Compare):
            return self.compare(node)
        if isinstance(node, gast.BoolOp):
            return self.bool_op(node)
        if isinstance(node, gast.IfExp):
            return self.if_expression(node)
        if isinstance(node, gast.Call):
            return self.call(node)
        if isinstance(node, gast.Subscript):
            return gast.Subscript(value=self.operand(node.value), slice=self.index(node.slice), ctx=gast.Load())
        if isinstance(node, gast.Attribute):
            if self.is_static(node):
                return node
            return gast.Attribute(value=self.operand(node.value), attr=node.attr, ctx=gast.Load())
        if isinstance(node, (gast.Tuple, gast.List)):
            return self.flat_structure(self.structure(node))
        if isinstance(node, gast.Dict):     # constant keys, values as operands (items are read back by key)
            return self.dict_literal(node)
        if isinstance(node, (gast.ListComp, gast.GeneratorExp)):
            # A generator consumed by a call (sum(f(v) for v in xs)) is the list it produces.
            return self.list_comprehension(node)
        if isinstance(node, gast.JoinedStr):
            return node
        raise self.error(f"`{type(node).__name__}` expressions cannot be transformed", node)

    def dict_literal(self, node):
        if not all(isinstance(k, gast.Constant) for k in node.keys):
            raise self.error("a dict literal with computed keys (or `**`) cannot be transformed", node,
                             hint="write each key as a constant, e.g. {\"acc\": acc}.")
        return gast.Dict(keys=node.keys, values=[self.operand(v) for v in node.values])

    def compare(self, node):
        if len(node.ops) == 1:
            return gast.Compare(left=self.operand(node.left), ops=node.ops,
                                comparators=[self.operand(node.comparators[0])])
        # a < b < c  ->  (a < b) and (b < c), b evaluated once
        left = self.operand(node.left)
        parts = []
        for op, right in zip(node.ops, node.comparators):
            right = self.operand(right)
            parts.append(gast.Compare(left=left, ops=[op], comparators=[right]))
            left = right
        return self.bool_op(gast.BoolOp(op=gast.And(), values=parts))

    def bool_op(self, node):
        """`a and b` -> `_t1 = a; if _t1: _t2 = b else: _t2 = _t1` (b only evaluated when needed).

        The result gets a name of its own, so the test a derivative re-reads is never overwritten.
        """
        result = self.operand(node.values[0])
        for value in node.values[1:]:
            test = result if isinstance(result, gast.Name) else self.assign_temp(result)
            combined = self.context.namer.fresh()
            pre = self.emitted
            self.emitted = []
            later = self.expression(value)
            evaluated = self.emitted + [gast.Assign(targets=[store(combined)], value=later, type_comment=None)]
            self.emitted = pre
            kept = [gast.Assign(targets=[store(combined)], value=name(test.id), type_comment=None)]
            keep_going = isinstance(node.op, gast.And)
            branch = gast.If(test=name(test.id), body=evaluated if keep_going else kept,
                             orelse=kept if keep_going else evaluated)
            self.emitted.append(copy_location(branch, self.current))
            result = name(combined)
        return result

    def if_expression(self, node):
        """`a if c else b` -> `if c: _t = a else: _t = b` (only the chosen side is evaluated)."""
        test = self.operand(node.test)
        result = self.context.namer.fresh()
        branches = []
        for side in (node.body, node.orelse):
            pre = self.emitted
            self.emitted = []
            value = self.expression(side)
            branches.append(self.emitted + [gast.Assign(targets=[store(result)], value=value, type_comment=None)])
            self.emitted = pre
        self.emitted.append(copy_location(gast.If(test=test, body=branches[0], orelse=branches[1]), self.current))
        return name(result)

    def inline(self, node):
        """A call of a local function: its body, with its own names prefixed, computed here."""
        import copy as copy_module
        callee_name = node.func.id
        if callee_name in self.inlining:
            raise self.error(f"local function `{callee_name}` calls itself; recursion needs a module-level function",
                             node, hint=f"define `{callee_name}` at module level.")
        fdef = copy_module.deepcopy(self.local_functions[callee_name])
        params = [a.id for a in fdef.args.args]
        if len(node.args) != len(params) or node.keywords:
            raise self.error(f"local function `{callee_name}` takes {len(params)} positional arguments", node)
        from ..resolve import local_names
        from .nonlocal_rebinding import nonlocal_names, without_nonlocal
        renames = {n: self.context.namer.unique(f"{callee_name}_{n}") for n in local_names(fdef)
                   if n not in nonlocal_names(fdef)}
        for arg, param in zip(node.args, params):
            value = self.expression(arg)
            self.emitted.append(copy_location(gast.Assign(targets=[store(renames[param])], value=value,
                                                          type_comment=None), self.current))
        body = [Renamer(renames).visit(s) for s in without_nonlocal(fdef, fdef.body)]
        self.inlining.append(callee_name)
        pre, current = self.emitted, self.current
        stmts = self.block(body[:-1])
        self.emitted, self.current = pre + stmts, current
        result = body[-1].value if isinstance(body[-1], gast.Return) else gast.Constant(value=None, kind=None)
        value = self.expression(result) if result is not None else gast.Constant(value=None, kind=None)
        self.inlining.pop()
        return value

    def call(self, node):
        func = node.func
        if isinstance(func, gast.Name) and func.id in self.local_functions:
            return self.inline(node)
        if isinstance(func, gast.Attribute) and not self.is_static(func):
            func = self.method_target(func)
        elif not isinstance(func, (gast.Name, gast.Attribute)) and not self.is_static(func):
            func = self.operand(func)
        for arg in node.args:
            if isinstance(arg, gast.Starred):
                what, instead = _UNSUPPORTED_EXPR[gast.Starred]
                raise self.error(f"{what} cannot be transformed", arg, hint=instead + ".")
        args = [self.structure(a) for a in node.args]
        keywords = []
        for kw in node.keywords:
            if kw.arg is None:
                raise self.error("**kwargs in a call cannot be transformed", node, hint="pass keywords by name.")
            keywords.append(gast.keyword(arg=kw.arg, value=self.structure(kw.value)))
        if keywords:
            args, keywords = self.by_position(func, args, keywords)
        if self.is_user_function(func):
            # A tuple or list built at the call is a value of its own: the callee's derivative
            # gives back one adjoint for it, which the derivative then splits item by item.
            args = [self.assign_temp(a) if isinstance(a, (gast.Tuple, gast.List)) else a for a in args]
        return gast.Call(func=func, args=args, keywords=keywords)

    def is_user_function(self, func):
        """Whether `func` is the user's own Python function (transformed, not a primitive)."""
        import inspect
        from ...analyses.classify import is_library
        from ...rules import lookup_callable
        target = self.context.resolver.static_value(func)
        return (target is not NOT_STATIC and inspect.isfunction(target) and not is_library(target)
                and lookup_callable(target) is None)

    def by_position(self, func, args, keywords):
        """A call of the user's own function passes every argument by position (derivatives flow by position)."""
        import inspect
        target = self.context.resolver.static_value(func)
        if not self.is_user_function(func):
            return args, keywords
        try:
            signature = inspect.signature(target)
            bound = signature.bind(*args, **{k.arg: k.value for k in keywords})
        except TypeError:
            return args, keywords
        positional = []
        for param_name, param in signature.parameters.items():
            if param.kind not in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
                return args, keywords
            if param_name in bound.arguments:
                positional.append(bound.arguments[param_name])
            elif param.default is not param.empty and isinstance(param.default, (int, float, bool, str, type(None))):
                positional.append(gast.Constant(value=param.default, kind=None))
            else:
                return args, keywords
        while len(positional) > len(args) and isinstance(positional[-1], gast.Constant) and \
                signature.parameters[list(signature.parameters)[len(positional) - 1]].name not in bound.arguments:
            positional.pop()      # trailing defaults the call did not pass stay implicit
        return positional, []

    def method_target(self, func):
        """`x.at[i].add` keeps its shape with `x` and `i` as operands; other methods keep their object."""
        inner = func.value
        if (isinstance(inner, gast.Subscript) and isinstance(inner.value, gast.Attribute)
                and inner.value.attr == "at"):
            base = self.operand(inner.value.value)
            at = gast.Attribute(value=base, attr="at", ctx=gast.Load())
            return gast.Attribute(value=gast.Subscript(value=at, slice=self.index(inner.slice), ctx=gast.Load()),
                                  attr=func.attr, ctx=gast.Load())
        return gast.Attribute(value=self.operand(inner), attr=func.attr, ctx=gast.Load())

    def list_comprehension(self, node):
        """`[e for a in xs if c for b in ys]` -> nested loops (and ifs) that append to a fresh list.

        The comprehension's variables are its own (Python 3): each gets a fresh
        name, so none leaks into the function or shadows a variable the element
        reads. The first iterable is evaluated in the enclosing scope, the later
        ones and the conditions see the earlier variables, as in Python.
        """
        renames, loops = {}, []
        for gen in node.generators:
            iterable = Renamer(renames).visit(copy.deepcopy(gen.iter))
            own = {n.id: self.context.namer.unique(n.id) for n in walk(gen.target) if isinstance(n, gast.Name)}
            renames = {**renames, **own}
            target = Renamer(renames).visit(copy.deepcopy(gen.target))
            conditions = [Renamer(renames).visit(copy.deepcopy(c)) for c in gen.ifs]
            loops.append((target, iterable, conditions))
        elt = Renamer(renames).visit(copy.deepcopy(node.elt))
        result = self.context.namer.fresh()
        body = [gast.Expr(value=gast.Call(func=gast.Attribute(value=name(result), attr="append", ctx=gast.Load()),
                                          args=[elt], keywords=[]))]
        for target, iterable, conditions in reversed(loops):
            for condition in reversed(conditions):
                body = [gast.If(test=condition, body=body, orelse=[])]
            body = [gast.For(target=target, iter=iterable, body=body, orelse=[], type_comment=None)]
        init = gast.Assign(targets=[store(result)], value=gast.List(elts=[], ctx=gast.Load()), type_comment=None)
        from .control_flow import ControlFlow
        loop = ControlFlow(self.context).visit(copy_location(body[0], self.current))
        loops = loop if isinstance(loop, list) else [loop]
        pre = self.emitted
        self.emitted = []
        stmts = self.block([copy_location(init, self.current)] + loops)
        self.emitted = pre + stmts
        return name(result)


def _holds_names(node):
    """A tuple or list literal with a variable somewhere inside (constant ones stay literal: shapes, widths)."""
    return isinstance(node, (gast.Tuple, gast.List)) and any(isinstance(n, gast.Name) for n in walk(node))


def _returned_only(function_node):
    """Names assigned once, at the top level of the body, and read only as items returned as they are
    (`return out`, `return loss, out`) or by plain copies (`aux = out`) or tuples (`_out = (loss, out)`)
    into names that are themselves."""
    assigned = {}
    for stmt in function_node.body:
        if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name):
            assigned[stmt.targets[0].id] = assigned.get(stmt.targets[0].id, 0) + 1
    stores = [n.id for n in walk(function_node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)]
    copies, other_reads, returned = {}, set(), set()
    stack = list(function_node.body)
    while stack:
        node = stack.pop()
        if isinstance(node, gast.Return):      # `return out` or `return (loss, out)`: out is returned as is
            items = node.value.elts if isinstance(node.value, gast.Tuple) else [node.value]
            returned |= {item.id for item in items if isinstance(item, gast.Name)}
            stack.extend(item for item in items if item is not None and not isinstance(item, gast.Name))
            continue
        if (isinstance(node, gast.Assign) and isinstance(node.value, gast.Name) and len(node.targets) == 1
                and isinstance(node.targets[0], gast.Name)):
            copies.setdefault(node.value.id, []).append(node.targets[0].id)
            continue
        if (isinstance(node, gast.Assign) and isinstance(node.value, gast.Tuple) and len(node.targets) == 1
                and isinstance(node.targets[0], gast.Name)):      # `_out = (loss, aux)`: an item, as returned
            for item in node.value.elts:
                if isinstance(item, gast.Name):
                    copies.setdefault(item.id, []).append(node.targets[0].id)
                else:
                    stack.append(item)
            continue
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            other_reads.add(node.id)
        stack.extend(gast.iter_child_nodes(node))
    candidates = {v for v, count in assigned.items() if count == 1 and stores.count(v) == 1
                  and v not in other_reads}
    changed = True
    while changed:
        changed = False
        for v in list(candidates):
            uses = copies.get(v, [])
            if not all(u in candidates for u in uses) or not (v in returned or uses):
                candidates.discard(v)
                changed = True
    return candidates


def _assigned_in(stmts, local_functions=None):
    """Names `stmts` bind, counting the enclosing names a local function they call rebinds (`nonlocal`)."""
    from .nonlocal_rebinding import nonlocal_names
    local_functions = local_functions or {}
    names, seen, stack = set(), set(), list(stmts)
    while stack:
        for n in walk(stack.pop()):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                names.add(n.id)
            elif isinstance(n, gast.Name) and n.id in local_functions and n.id not in seen:
                seen.add(n.id)
                names |= nonlocal_names(local_functions[n.id])
                stack.extend(local_functions[n.id].body)
    return names

