"""Control flow in the form the derivative passes read: range loops, one exit.

1. Loops over values become loops over positions::

       for v in xs:                 ->   for _i in range(len(xs)):
                                             v = xs[_i]
       for i, v in enumerate(xs):   ->   for i in range(len(xs)):
                                             v = xs[i]
       for i, (a, b) in enumerate(zip(xs, ys))  ->  as zip, with i the position
       for i, v in enumerate(xs, 1) ->   for _i in range(len(xs)):
                                             i = _i + 1
                                             v = xs[_i]
       for a, b in zip(xs, ys):     ->   for _i in range(min(len(xs), len(ys))):
                                             a = xs[_i]
                                             b = ys[_i]
       for v in reversed(xs):       ->   _t = xs[::-1]; for _i in range(len(_t)): v = _t[_i]

2. Statements after a branch that always leaves (return, break, continue)
   move into the branch that does not, so every jump ends its block::

       if n == 0:                   ->   if n == 0:
           return 1.0                        return 1.0
       return x * f(x, n - 1)            else:
                                             return x * f(x, n - 1)

3. A function with several returns assigns the result and returns it once;
   a return inside a loop sets a flag and breaks out::

       if c:                        ->   if c:
           return a                          _ret = a
       else:                             else:
           return b                          _ret = b
                                         return _ret
"""
import copy

import itertools

import gast

from ...optimize.effects import MUTATING_METHODS
from .base import Pass, copy_location, name, range_of, store
from ...codegen.node_walk import walk

JUMPS = (gast.Return, gast.Break, gast.Continue)


def always_jumps(block):
    """Whether running `block` always ends in a return, break or continue."""
    if not block:
        return False
    last = block[-1]
    if isinstance(last, JUMPS):
        return True
    if isinstance(last, gast.If):
        return always_jumps(last.body) and always_jumps(last.orelse)
    return False


def may_jump(block):
    """Whether some path through `block` (outside nested loops) jumps."""
    for stmt in block:
        if isinstance(stmt, JUMPS):
            return True
        if isinstance(stmt, gast.If) and (may_jump(stmt.body) or may_jump(stmt.orelse)):
            return True
    return False


def append_to_fallthrough(block, rest):
    """Append `rest` to every path through `block` that does not jump."""
    if always_jumps(block):
        return block
    if block and isinstance(block[-1], gast.If) and (may_jump(block[-1].body) or may_jump(block[-1].orelse)):
        last = block[-1]
        last.body = append_to_fallthrough(last.body, copy.deepcopy(rest))
        last.orelse = append_to_fallthrough(last.orelse, rest)
        return block
    return block + rest


def _drop_tail_continues(block):
    """A `continue` that ends every path it is on does nothing once the rest moved into `else`."""
    if block and isinstance(block[-1], gast.Continue):
        block[-1] = copy_location(gast.Pass(), block[-1])
    elif block and isinstance(block[-1], gast.If):
        _drop_tail_continues(block[-1].body)
        _drop_tail_continues(block[-1].orelse)
    return block


def _loop_may_return(stmt, flag):
    """Whether a loop at or inside `stmt` sets the flag `flag` (a return inside it became a break)."""
    if flag is None:
        return False
    return any(isinstance(loop, (gast.For, gast.While)) and any(
        isinstance(n, gast.Name) and n.id == flag and isinstance(n.ctx, gast.Store) for n in walk(loop))
        for loop in walk(stmt))


def _count_loads(node):
    counts = {}
    for n in walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _closure_loads(node):
    """Loads of the enclosing function's names inside its local functions (inlined at each call, after
    this pass, so a loop variable they read is read outside its loop: it needs its own variable)."""
    from ..resolve import local_names
    from .nonlocal_rebinding import nonlocal_names
    counts = {}
    for fdef in (getattr(node, "local_functions", None) or {}).values():
        own = local_names(fdef) - nonlocal_names(fdef)
        for n in walk(fdef):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id not in own:
                counts[n.id] = counts.get(n.id, 0) + 1
    return counts


_SNAPSHOT_ITERTOOLS = (itertools.combinations, itertools.permutations, itertools.product,
                       itertools.combinations_with_replacement)
_ITERTOOLS = tuple(v for v in vars(itertools).values() if isinstance(v, type))


def _assigned_in(block):
    return {n.id for s in block for n in walk(s) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _target_name(loop):
    """The name the loop binds to the position: `i` in `for i in range(n)` or `for i, v in enumerate(xs)`."""
    target = loop.target
    if isinstance(target, gast.Name):
        return target.id
    if isinstance(target, gast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], gast.Name):
        return target.elts[0].id
    return None


class ControlFlow(Pass):
    """Rewrite loops to range loops and put every jump at the end of its block."""

    def run(self, node):
        self.loop_returns = False
        # The names of the early-return flag and of the returned value: `_returned` and `_ret` unless the
        # function has them already (a generated derivative normalized again keeps its primal's).
        self.returned_flag = None
        self.returned_value = None
        self.loads = _count_loads(node)
        for name_, count in _closure_loads(node).items():     # local functions read them where inlined
            self.loads[name_] = self.loads.get(name_, 0) + count
        node = self.visit(node)
        node.body = self.structure(node.body, in_loop=False)
        node.body = self.single_return(node)
        return node

    # ------------------------------------------------------------ loops
    def visit_For(self, node):
        rename = self._target_needs_own_variable(node)
        assigned = _assigned_in(node.body + [node.target])      # `for x in x` rebinds x too
        self.generic_visit(node)
        if node.orelse:
            raise self.error("`for ... else` is not supported in transformed functions", node,
                             hint="use a flag variable set before `break`.")
        it = node.iter
        if range_of(it, self._is_builtin) is not None:
            if not isinstance(node.target, gast.Name):
                raise self.error("a range loop needs a single loop variable", node)
            return self._own_loop_variable(node, node.target.id) if rename else node
        position = start = start_pre = None
        if isinstance(it, gast.Call) and self._is_builtin(it.func, enumerate) and self._enumerate_start(it):
            if not (isinstance(node.target, gast.Tuple) and len(node.target.elts) == 2
                    and isinstance(node.target.elts[0], gast.Name)):
                raise self.error("write `for i, v in enumerate(xs)`", node)
            position, target = node.target.elts
            sequences, targets = [it.args[0]], [target]
            inner = it.args[0]
            if (isinstance(inner, gast.Call) and self._is_builtin(inner.func, zip) and not inner.keywords
                    and isinstance(target, gast.Tuple) and len(target.elts) == len(inner.args)):
                sequences, targets = inner.args, target.elts        # `for i, (a, b) in enumerate(zip(xs, ys))`
            start = self._enumerate_start(it)[0]
            if start is not None:       # `enumerate(xs, 1)`: the count is its own variable, the position fresh
                counter, position = position, None
                if not isinstance(start, gast.Constant):    # Python reads `start` once, before the loop
                    start_pre, start = self._hoist(start, assigned)
        elif isinstance(it, gast.Call) and self._is_builtin(it.func, zip):
            if not (isinstance(node.target, gast.Tuple) and len(node.target.elts) == len(it.args)):
                raise self.error("unpack one name per zipped sequence: `for a, b in zip(xs, ys)`", node)
            sequences, targets = it.args, node.target.elts
        else:
            sequences, targets = [it], [node.target]
        for sequence in sequences:
            if isinstance(sequence, gast.Call) and self._is_builtin(sequence.func, reversed) and sequence.args:
                self._refuse_changed_while_iterated(sequence.args[0], node.body)
        sequences = [self._reversed_as_slice(self._sized(s, node)) for s in sequences]
        if position is None:
            position = store(self.context.namer.fresh("_i"))
        for sequence in sequences:
            self._refuse_changed_while_iterated(sequence, node.body)
        sequences = [self._hoist(s, assigned) for s in sequences]
        hoisted = [s for s, _ in sequences if s is not None] + ([start_pre] if start_pre else [])
        sequences = [n for _, n in sequences]
        lengths = [gast.Call(func=name("len"), args=[copy.deepcopy(s)], keywords=[]) for s in sequences]
        count = lengths[0] if len(lengths) == 1 else gast.Call(func=name("min"), args=lengths, keywords=[])
        loads = []
        if start is not None:
            count_from = gast.BinOp(left=name(position.id), op=gast.Add(), right=start)
            loads.append(copy_location(gast.Assign(targets=[counter], value=count_from, type_comment=None), node))
        for seq, target in zip(sequences, targets):
            item = gast.Subscript(value=copy.deepcopy(seq), slice=name(position.id), ctx=gast.Load())
            loads += [copy_location(s, node) for s in self._unpack(target, item, node)]
        loop = gast.For(target=store(position.id), iter=gast.Call(func=name("range"), args=[count], keywords=[]),
                        body=loads + node.body, orelse=[], type_comment=None)
        if rename and position.id == _target_name(node):
            loop = self._own_loop_variable(loop, position.id)
        return [copy_location(s, node) for s in hoisted + [loop]]

    def _unpack(self, target, value, loop):
        """Assignments binding a loop target (a name, or nested tuples of names) to `value`."""
        if isinstance(target, gast.Name):
            return [gast.Assign(targets=[store(target.id)], value=value, type_comment=None)]
        if not isinstance(target, (gast.Tuple, gast.List)):
            raise self.error("loop targets must be names or tuples of names", loop)
        item = self.context.namer.fresh("_item")
        out = [gast.Assign(targets=[store(item)], value=value, type_comment=None)]
        for k, element in enumerate(target.elts):
            part = gast.Subscript(value=name(item), slice=gast.Constant(value=k, kind=None), ctx=gast.Load())
            out += self._unpack(element, part, loop)
        return out

    def _refuse_changed_while_iterated(self, sequence, body):
        """Python iterates a list or array live: a body that changes it in place changes the iteration."""
        if not isinstance(sequence, gast.Name):
            return
        for node in (n for s in body for n in walk(s)):
            changed = None
            if (isinstance(node, gast.Assign) and isinstance(node.value, gast.Call)
                    and isinstance(node.value.func, gast.Name) and node.value.func.id.startswith("at_")
                    and node.value.args and isinstance(node.value.args[0], gast.Name)
                    and node.value.args[0].id == sequence.id):
                changed = "an item assignment"
            elif (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
                    and isinstance(node.func.value, gast.Name) and node.func.value.id == sequence.id
                    and node.func.attr in MUTATING_METHODS):
                changed = f"`.{node.func.attr}()`"
            if changed:
                raise self.error(
                    f"the loop changes `{sequence.id}` in place ({changed}) while iterating over it; Python "
                    f"would see the change in later iterations", node,
                    hint=f"iterate over a copy made for the loop (`{sequence.id}.copy()` for an array), or "
                         f"build the new values in another list or array.")

    def _target_needs_own_variable(self, loop):
        """Whether the loop variable is rebound in the body or read outside the loop.

        The reverse sweep re-creates a loop variable from its range; that is only
        the value the primal saw when nothing else writes or reads the name.
        """
        target = _target_name(loop)
        if target is None:
            return False
        inside = sum(1 for s in [loop.iter] + loop.body for n in walk(s)
                     if isinstance(n, gast.Name) and n.id == target and isinstance(n.ctx, gast.Load))
        loads = getattr(self, "loads", None) or {}     # a comprehension's loop: its variable is its own
        return target in _assigned_in(loop.body) or loads.get(target, inside) > inside

    def _own_loop_variable(self, loop, target):
        """`for i in range(n): body` -> `for _k in range(n): i = _k; body`: i becomes an ordinary variable."""
        counter = self.context.namer.fresh("_k")
        loop.body.insert(0, copy_location(gast.Assign(targets=[store(target)], value=name(counter),
                                                      type_comment=None), loop))
        loop.target = store(counter)
        return loop

    def _sized(self, sequence, loop):
        """A loop is read by position (`range(len(seq))`, `seq[i]`): an itertools iterator has no length.
        combinations/permutations/product/combinations_with_replacement read their inputs whole when made
        and are finite, so `list(...)` of them gives the same items; the other itertools iterators (some
        infinite, some reading their input lazily) are refused here rather than failing in generated code."""
        if not isinstance(sequence, gast.Call):
            return sequence
        made_by = self.context.resolver.static_value(sequence.func)
        if getattr(made_by, "__module__", None) != "itertools" and made_by not in _ITERTOOLS:
            return sequence
        if made_by in _SNAPSHOT_ITERTOOLS:
            return copy_location(gast.Call(func=name("list"), args=[sequence], keywords=[]), sequence)
        raise self.error(f"a loop over `itertools.{getattr(made_by, '__name__', '?')}(...)` cannot be "
                         "transformed: astjax reads a loop's items by position", loop,
                         hint="iterate over a list or range (for example over `list(...)` of a finite "
                              "iterator, or `for k in range(n)` with the item computed from k).")

    def _hoist(self, sequence, assigned=()):
        """The sequence a loop iterates, as a name the body does not rebind (Python iterates the original)."""
        if isinstance(sequence, gast.Name) and sequence.id not in assigned:
            return None, sequence
        tmp = self.context.namer.fresh()
        return gast.Assign(targets=[store(tmp)], value=sequence, type_comment=None), name(tmp)

    @staticmethod
    def _enumerate_start(call):
        """(start,) of `enumerate(xs)` (start None), `enumerate(xs, s)` or `enumerate(xs, start=s)`; else None."""
        args, keywords = call.args, call.keywords
        if len(args) == 1 and not keywords:
            return (None,)
        if len(args) == 2 and not keywords:
            return (args[1],)
        if len(args) == 1 and len(keywords) == 1 and keywords[0].arg == "start":
            return (keywords[0].value,)
        return None

    def _reversed_as_slice(self, sequence):
        """`reversed(xs)` -> `xs[::-1]`: the same items in the same order, as a sequence with a length
        and positions (the iterator `reversed` returns has neither)."""
        if not (isinstance(sequence, gast.Call) and self._is_builtin(sequence.func, reversed)
                and len(sequence.args) == 1 and not sequence.keywords):
            return sequence
        backwards = gast.Slice(lower=None, upper=None, step=gast.UnaryOp(op=gast.USub(), operand=gast.Constant(
            value=1, kind=None)))
        return copy_location(gast.Subscript(value=sequence.args[0], slice=backwards, ctx=gast.Load()), sequence)

    def _is_builtin(self, func, builtin):
        return self.context.resolver.static_value(func) is builtin

    def visit_While(self, node):
        self.generic_visit(node)
        if node.orelse:
            raise self.error("`while ... else` is not supported in transformed functions", node,
                             hint="use a flag variable set before `break`.")
        return node

    # ------------------------------------------------------------ jumps
    def structure(self, block, in_loop):
        """Move statements after a jumping branch into the branch that falls through.

        After a statement whose inner loop may have returned, the rest of the block
        runs only if it did not: `if _returned: break` inside a loop, else
        `if _returned: pass else: rest`.
        """
        out = []
        for i, stmt in enumerate(block):
            rest = block[i + 1:]
            if isinstance(stmt, (gast.For, gast.While)):
                stmt.body = _drop_tail_continues(self.structure(stmt.body, in_loop=True))
                stmt.body = self.returns_in_loop(stmt)
            elif isinstance(stmt, gast.If):
                stmt.body = self.structure(stmt.body, in_loop)
                stmt.orelse = self.structure(stmt.orelse, in_loop)
                if rest and (may_jump(stmt.body) or may_jump(stmt.orelse)):
                    out.append(stmt)
                    return append_to_fallthrough(out, self._guarded(stmt, rest, in_loop))
            out.append(stmt)
            if isinstance(stmt, JUMPS):
                break   # anything after a jump is dead
            if _loop_may_return(stmt, self.returned_flag):
                out.append(self._guarded(stmt, rest, in_loop, force=True)[0])
                return out
        return out

    def _guarded(self, stmt, rest, in_loop, force=False):
        """`rest`, structured; behind `if _returned` when a loop inside `stmt` may have returned."""
        if not (force or _loop_may_return(stmt, self.returned_flag)):
            return self.structure(rest, in_loop)
        leave = gast.Break() if in_loop else gast.Pass()
        guard = gast.If(test=name(self.returned_flag), body=[copy_location(leave, stmt)],
                        orelse=self.structure(rest, in_loop))
        return [copy_location(guard, stmt)]

    def returns_in_loop(self, loop):
        """A `return e` inside a loop becomes `_ret = e; _returned = True; break`."""
        body = loop.body
        if not any(isinstance(n, gast.Return) for s in body for n in walk(s)):
            return body
        self.loop_returns = True
        if self.returned_flag is None:
            self.returned_flag = self.context.namer.unique("_returned")
        self._rewrite_returns(body)
        return body

    def _rewrite_returns(self, block):
        for i, stmt in enumerate(block):
            if isinstance(stmt, gast.Return):
                block[i:i + 1] = [copy_location(s, stmt) for s in (
                    gast.Assign(targets=[store(self._value_name())],
                                value=stmt.value or gast.Constant(value=None, kind=None), type_comment=None),
                    gast.Assign(targets=[store(self.returned_flag)], value=gast.Constant(value=True, kind=None),
                                type_comment=None),
                    gast.Break())]
                return
            if isinstance(stmt, gast.If):
                self._rewrite_returns(stmt.body)
                self._rewrite_returns(stmt.orelse)

    def single_return(self, function):
        """Give the function exactly one return, at its end."""
        body = function.body
        returns = [n for n in walk(function) if isinstance(n, gast.Return)]
        if self.loop_returns:
            body.insert(0, gast.Assign(targets=[store(self.returned_flag)], value=gast.Constant(value=False, kind=None),
                                       type_comment=None))
        elif len(returns) == 1 and body and isinstance(body[-1], gast.Return):
            return body
        elif not returns:
            return body + [gast.Return(value=gast.Constant(value=None, kind=None))]
        returned = self._value_name()
        if not self.loop_returns and not always_jumps(body):   # falling off the end returns None, as in Python
            body = append_to_fallthrough(body, [gast.Return(value=gast.Constant(value=None, kind=None))])
        self._assign_returns(body)
        return body + [gast.Return(value=name(returned))]

    def _value_name(self):
        if self.returned_value is None:
            self.returned_value = self.context.namer.unique("_ret")
        return self.returned_value

    def _assign_returns(self, block):
        for i, stmt in enumerate(block):
            if isinstance(stmt, gast.Return):
                value = stmt.value or gast.Constant(value=None, kind=None)
                block[i] = copy_location(gast.Assign(targets=[store(self._value_name())], value=value,
                                                     type_comment=None), stmt)
            elif isinstance(stmt, gast.If):
                self._assign_returns(stmt.body)
                self._assign_returns(stmt.orelse)
