"""In-place operations: allowed where NumPy's meaning and astjax's agree, refused elsewhere.

NumPy arrays are mutable and shared: after `y = x`, `y += 1` changes `x` too;
`a = b[1:]` is a view, so `a[0] = 5` changes `b`. astjax's later passes make
every update functional (`y += e` -> `y = y + e`, `y[i] = v` -> `y = at_set(y, i, v)`),
which computes the same numbers exactly when nothing else can see the old
value. This pass proves that, statement by statement, or refuses:

* it tracks, for every local name, which objects its value may be (an
  allocation, a parameter, a global): `y = x`, `x[1:]`, `x.T`,
  `x.reshape(...)` share x's memory, unknown calls share what their arguments
  reach; arithmetic, `.copy()`, `np.zeros(...)`, `np.array(...)`, ufuncs
  allocate. A list, tuple or dict is an object of its own whose items are
  kept apart (analyses/aliasing.py): `v = xs[0]` is an item, not the list;
* an in-place operation (`y op= e` unless `y` is a number, `y[i] = v`,
  `y[i] op= v`, `y.sort()`, `y.fill(v)`, `np.add.at(y, i, v)`, `out=y`,
  `xs.append(v)`) is refused when another name that may reach the object it
  changes is read afterwards, or when that object may be a global or closure
  value (NumPy would change it for later calls too). `xs.append(v)` changes
  the list only: names holding its items do not see it, a list holding `xs`
  does; `row += 1` changes the array row, seen by any list holding it;
* a parameter has no other name: mutating it changes only the caller's
  array, which astjax never writes into (the value and derivative returned
  are NumPy's). A call of a user function (module-level or local) is read
  through a summary of its own source: which parameters it writes into (the
  caller may then not read the array it passed) and which its result may
  share (`return a[0]` is a view of the argument; `return a * 2` is new);
* writing a value that may be a float into an integer array (NumPy truncates:
  no derivative) is refused;
* `y[[0, 0, 2]] += v` (NumPy adds once per position) is refused when the index
  repeats a literal position; an index that may be an integer array is checked
  when the function runs (`distinct_index`);
* in-place calls become assignments the later passes understand::

      y.sort()                 ->   y = jnp.sort(y)
      y.fill(v)                ->   y = jnp.zeros_like(y) + v
      np.add.at(y, i, v)       ->   y = at_add(y, i, v)        (accumulates, as NumPy)
      np.multiply(a, b, out=y) ->   y = np.multiply(a, b)

Loops are analysed to a fixed point and branches joined, so a name is
unshared only if it is unshared on every path.
"""
import copy

import gast
import numpy as np

from ...analyses.aliasing import (ALLOCATING, ALLOCATING_METHODS, COPYING_BUILTINS, DICT_MUTATORS, IN_PLACE_METHODS,
                                  ITEM_BUILTINS, LAZY_BUILTINS, LIST_MUTATORS, METADATA, MUTATING_FUNCTIONS, NUMBER_BUILTINS, VIEWS,
                                  State, Tag, base_name, closure_reads_of, integral, module_of, mutable, reads,
                                  root_name, text)
from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name, store
from .container_idioms import dict_names
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["Aliasing"]

# special methods that change their object (`y.__setitem__(i, v)` is `y[i] = v`, `y.__iadd__(v)` is `y += v`)
_IN_PLACE_SPECIAL_METHODS = {"__setitem__", "__delitem__", "__iadd__", "__isub__",
                             "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__", "__imatmul__",
                             "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__"}


class Aliasing(Pass):
    """Check every in-place operation against the names that may see its memory; lower in-place calls."""

    def run(self, node):
        source = self.context.source
        if getattr(source, "generated", False) and not getattr(source, "user_code", False):
            return node     # astjax's own output: every update in it is already functional
        self.rewrites = {}        # id(statement) -> replacement statements
        self.function = node
        self.known_tags = {}
        self.written_parameters = set()     # parameters this function writes into (its callers must know)
        self.local_writes = {}              # local function -> (its parameters, those it writes into)
        self.returned = set()               # tags the returned value may let its reader see
        self.jumps = []                     # per enclosing loop: states at its `break`s and `continue`s
        self.param_names = [a.id for a in node.args.args + node.args.kwonlyargs]
        for extra in (node.args.vararg, node.args.kwarg):
            if extra is not None:
                self.param_names.append(extra.id)
        state = State()
        for p in self.param_names:
            state.tags[p] = frozenset([self.tag("parameter", p)])
            state.origin[p] = None
        self.scope_locals = None
        self.closure_reads = closure_reads_of(node)
        self.dict_names = dict_names(node)          # read as dicts (`p["w"]`, `p.items()`): `.copy()` is a dict
        self.block(node.body, state, frozenset())
        return _Apply(self.rewrites).visit(node)

    def reads_of(self, stmt):
        """The names `stmt` reads, counting those read by the local functions and lambdas it names (they
        run later, and see the objects those names hold then)."""
        names = reads(stmt)
        return names.union(*(self.closure_reads[n] for n in names if n in self.closure_reads))

    # ------------------------------------------------------------ statements
    def block(self, stmts, state, after):
        """Analyse `stmts` from `state`; `after`: names that may be read once the block is done."""
        reads_after = [frozenset()] * len(stmts)
        later = frozenset(after)
        for i in range(len(stmts) - 1, -1, -1):
            reads_after[i] = later
            later = (later - _rebound_names(stmts[i])) | self.reads_of(stmts[i])
        for stmt, later in zip(stmts, reads_after):
            state = self.statement(stmt, state, later)
        return state

    def statement(self, stmt, state, after):
        state = state.copy()
        if isinstance(stmt, gast.If):
            self.age(state, stmt.test)
        elif not isinstance(stmt, (gast.For, gast.While, gast.FunctionDef, gast.With, gast.Try)):
            self.age(state, stmt)
        if isinstance(stmt, gast.Assign):
            return self.assign(stmt, stmt.targets, stmt.value, state, after)
        if isinstance(stmt, gast.AnnAssign):
            if stmt.value is None:
                return state
            return self.assign(stmt, [stmt.target], stmt.value, state, after)
        if isinstance(stmt, gast.AugAssign):
            return self.augmented(stmt, state, after)
        if isinstance(stmt, gast.Expr):
            self.expression_statement(stmt, state, after)
            self.value(stmt.value, state, after, stmt)
            return state
        if isinstance(stmt, gast.If):
            self.value(stmt.test, state, after, stmt)
            left = self.block(stmt.body, state.copy(), after)
            right = self.block(stmt.orelse, state.copy(), after)
            return left.join(right)
        if isinstance(stmt, (gast.For, gast.While)):
            return self.loop(stmt, state, after)
        if isinstance(stmt, gast.FunctionDef):
            self.local_function(stmt, state)
            state.tags[stmt.name] = frozenset()
            return state
        if isinstance(stmt, (gast.Break, gast.Continue)):
            if self.jumps:
                self.jumps[-1].append(state.copy())
            return state
        if isinstance(stmt, gast.Return):
            self.returned |= state.reach(self.value(stmt.value, state, after, stmt))
            return state
        if isinstance(stmt, (gast.With, gast.Try)):
            for part in ("body", "orelse", "finalbody"):
                state = self.block(getattr(stmt, part, []) or [], state, after)
            for handler in getattr(stmt, "handlers", []):
                state = state.join(self.block(handler.body, state.copy(), after))
            return state
        if isinstance(stmt, gast.Delete):
            for target in stmt.targets:
                if isinstance(target, gast.Subscript) and root_name(target) is not None:   # del xs[i]
                    holder = self.value(target.value, state, after, stmt)
                    self.check_unshared(root_name(target), stmt, state, after, f"`{text(stmt)}`", holder)
            return state
        for child in gast.iter_child_nodes(stmt):
            if isinstance(child, gast.expr):
                self.value(child, state, after, stmt)
        return state

    def exposed_reads(self, stmts, assigned):
        """The names `stmts` may read before binding them (the next iteration of a loop reads only those
        of the values the previous one left: `left = u[i - 1]` at the top of the body is a new binding)."""
        exposed = set()
        for stmt in stmts:
            if isinstance(stmt, gast.For):
                target = _rebound_names(gast.Assign(targets=[stmt.target], value=None))
                exposed |= (self.reads_of(stmt.iter) - assigned) | self.exposed_reads(stmt.body, assigned | target)
                exposed |= self.exposed_reads(stmt.orelse, assigned)
            elif isinstance(stmt, (gast.If, gast.While)):
                exposed |= (self.reads_of(stmt.test) - assigned) | self.exposed_reads(stmt.body, assigned)
                exposed |= self.exposed_reads(stmt.orelse, assigned)
            else:
                exposed |= self.reads_of(stmt) - assigned
            assigned = assigned | _rebound_names(stmt)
        return frozenset(exposed)

    def loop(self, stmt, state, after):
        # the next iteration reads what the loop header reads and what its body reads before rebinding it
        header = self.reads_of(stmt.iter if isinstance(stmt, gast.For) else stmt.test)
        bound = _rebound_names(gast.Assign(targets=[stmt.target], value=None)) if isinstance(stmt, gast.For) \
            else frozenset()
        inside = after | header | self.exposed_reads(stmt.body, bound)
        entry = state
        for _ in range(20):
            current = entry.copy()
            if isinstance(stmt, gast.For):
                self.age(current, stmt.iter)
                items = current.items_of(self.value(stmt.iter, current, inside, stmt))
                target = stmt.target
                if (isinstance(stmt.iter, gast.Call) and self.context.resolver.static_value(stmt.iter.func)
                        is enumerate and isinstance(target, gast.Tuple) and len(target.elts) == 2):
                    self.bind(target.elts[0], frozenset(), current, stmt, inside, kind="int")
                    target = target.elts[1]
                self.bind(target, items, current, stmt, inside, kind=self.element_kind(stmt.iter, current))
            else:
                self.age(current, stmt.test)
                self.value(stmt.test, current, inside, stmt)
            self.jumps.append([])
            end = self.block(stmt.body, current, inside)
            for jumped in self.jumps.pop():     # `break` and `continue` leave with the state they saw
                end = end.join(jumped)
            joined = entry.join(end)
            if joined.same(entry):
                break
            entry = joined
        else:
            raise self.error("astjax could not analyse which arrays this loop shares", stmt)
        end = self.block(stmt.orelse, entry.copy(), after)
        return entry.join(end)

    def local_function(self, fdef, state):
        """A local function's parameters and free names belong to its caller: it may not write into them."""
        inner = Aliasing(self.context)
        inner.rewrites = self.rewrites
        inner.known_tags = self.known_tags
        inner.written_parameters = set()
        inner.param_names = []
        inner.scope_locals = {n.id for n in walk(fdef) if isinstance(n, gast.Name)
                              and isinstance(n.ctx, gast.Store)}
        inner.local_writes = {}
        inner.returned = set()
        inner.jumps = []
        inner.function = self.function         # a global it changes may be read anywhere in the outer function
        inner.closure_reads = self.closure_reads
        inner.dict_names = dict_names(fdef)
        inner_state = State()
        outside = self.tag("external", f"an enclosing variable of local function `{fdef.name}`")
        for a in fdef.args.args:      # its callers check what it writes into (as for module-level helpers)
            inner_state.tags[a.id] = frozenset([self.tag("parameter", a.id, key=("local", id(fdef), a.id))])
            inner_state.origin[a.id] = None
        inner.outside = outside
        inner.block(fdef.body, inner_state, frozenset())
        self.local_writes[fdef.name] = ([a.id for a in fdef.args.args], frozenset(inner.written_parameters))

    def assign(self, stmt, targets, value, state, after):
        if (len(targets) == 1 and isinstance(targets[0], (gast.Tuple, gast.List))
                and isinstance(value, (gast.Tuple, gast.List)) and len(targets[0].elts) == len(value.elts)
                and not any(isinstance(e, gast.Starred) for e in targets[0].elts + value.elts)):
            parts = [(t, v, self.value(v, state, after, stmt), self.kind_of(v, state))   # a, b = e1, e2
                     for t, v in zip(targets[0].elts, value.elts)]
            for target, node, tags, kind in parts:
                self.bind(target, tags, state, stmt, after, kind, node)
            return state
        tags = self.value(value, state, after, stmt)
        kind = self.kind_of(value, state)
        for target in targets:
            self.bind(target, tags, state, stmt, after, kind, value)
        return state

    def bind(self, target, tags, state, stmt, after, kind=None, value=None):
        """Bind `target` to a value with `tags`: a name, the items of a tuple target, or an item store."""
        if isinstance(target, gast.Name):
            state.tags[target.id] = tags
            state.origin[target.id] = stmt
            if kind is not None:
                state.kind[target.id] = kind
            else:
                state.kind.pop(target.id, None)
        elif isinstance(target, (gast.Tuple, gast.List)):      # a, b = e: each name is an item of e
            items = state.items_of(tags)
            for elt in target.elts:
                if isinstance(elt, gast.Starred):               # a, *rest = e: rest is a new list of items
                    rest = self.tag("fresh", elt, container=True)
                    state.add_items([rest], items)
                    self.bind(elt.value, frozenset([rest]), state, stmt, after, "list")
                else:
                    self.bind(elt, items, state, stmt, after)
        elif isinstance(target, gast.Subscript):
            self.item_store(stmt, target, value, tags, state, after, augmented=False)
        # an attribute target is refused by the augmented-assignment pass

    def augmented(self, stmt, state, after):
        added = self.value(stmt.value, state, after, stmt)
        target = stmt.target
        if isinstance(target, gast.Name):
            y = target.id
            tags = self.lookup(y, state)
            if not tags:          # a number: `y += e` rebinds it
                state.tags[y] = frozenset([self.tag("fresh", stmt)])
                state.origin[y] = stmt
                if not (state.kind.get(y) == "int" and self.is_int(stmt.value, state)
                        and not isinstance(stmt.op, gast.Div)):
                    state.kind.pop(y, None)
                return state
            source = self.item_read_from(y, state)
            if source is not None and not any(t.container for t in self.lookup(source, state)) \
                    and self.refused(y, stmt, state, after):
                # `s = b[i]; s -= e`: a number unless b has more dimensions (then a row NumPy would change):
                # checked when the function runs, and s is its own value after the update
                guard = gast.Expr(value=gast.Call(func=name("not_a_row"), args=[name(y), name(source)],
                                                  keywords=[]))
                self.rewrites[id(stmt)] = [copy_location(guard, stmt), stmt]
                state.tags[y] = frozenset([self.tag("fresh", stmt)])
                state.origin[y] = stmt
                return state
            self.check_unshared(y, stmt, state, after, f"`{text(stmt)}`")
            if state.kind.get(y) == "int_array" and not self.is_int(stmt.value, state):
                raise self.int_array_error(y, stmt, state)
            if state.kind.get(y) == "int" and not self.is_int(stmt.value, state):
                state.kind.pop(y, None)
            if state.kind.get(y) == "list" or self.is_container(stmt.value, state) or any(
                    t.container for t in added):          # xs += [v]: the list holds v now
                state.add_items(tags, state.items_of(added))
            return state
        if isinstance(target, gast.Subscript):
            self.item_store(stmt, target, stmt.value, added, state, after, augmented=True)
        return state

    def item_store(self, stmt, target, value, tags, state, after, augmented):
        """`y[i] = v` / `y[i] op= v` changes the object `y` is (an array's memory, a list, a dict); an
        augmented one may also change the item in place (`xs[0] += 1` on a list of arrays)."""
        root = root_name(target)
        base = target.value
        while isinstance(base, (gast.Subscript, gast.Attribute)):
            base = base.value
        if isinstance(base, gast.Call) and self.context.resolver.static_value(base.func) is NOT_STATIC:
            # `d.get("k")[0] = v`: the list or array a call returns, which a container may hold (astjax wrote
            # into a copy of it, and gave its reader the old value: wrong values and gradients)
            raise self.error(f"`{text(stmt)}` writes into what `{text(base)}` returns, which astjax cannot follow",
                             stmt, hint=f"write into the container itself (`d[k][i] = v`), or name the value first "
                                        f"(`part = {text(base)}`) and write into that.")
        if root is None:
            return
        if isinstance(target.value, gast.Subscript) and self.index_to_check(target.value.slice, state):
            # `y[idx][0] = v` with idx a parameter or another value of unknown kind: checked when it runs
            guard = gast.Expr(value=gast.Call(func=name("basic_index"), args=[copy.deepcopy(target.value.slice)],
                                              keywords=[]))
            self.rewrites.setdefault(id(stmt), [copy_location(guard, stmt), stmt])    # once, though loops run again
        if isinstance(target.value, gast.Subscript) and self.copying_index(target.value.slice, state):
            inner = text(target.value)
            raise self.error(f"`{text(stmt)}` writes into the copy that `{inner}` makes (an index that is a list, "
                             f"an array or a mask copies): NumPy leaves `{text(target.value.value)}` unchanged, and "
                             "astjax would change it", stmt,
                             hint=f"index once (`{text(target.value.value)}[idx[k]] = v`), or name the copy "
                                  f"(`part = {inner}`) and write into that.")
        holder = self.value(target.value, state, after, stmt)
        changed = holder | state.items_of(holder) if augmented else holder
        hint = None
        if augmented and any(t.container for t in holder):     # a list's item NumPy may add into
            item = text(target)
            hint = (f"write the item anew (`{item} = {item} + e` rather than `{item} += e`), or copy what it "
                    f"may share first (`{item} = {item}.copy()`, or copies of the arrays put in `{root}`).")
        copied = self.copied_from(root, state)
        if augmented and copied is not None and isinstance(target.value, gast.Name) \
                and not any(t.container for t in holder) \
                and self.shared_only_through_items(root, stmt, state, after, holder, changed):
            # `y = x.copy(); y[i] += v`: only a list's shallow copy shares its items with x; check that x is
            # an array when the copy is made
            origin = state.origin[root]
            guard = copy_location(gast.Expr(value=gast.Call(func=name("array_holder"), args=[name(copied)],
                                                            keywords=[])), origin)
            self.rewrites[id(origin)] = [guard] + [s for s in self.rewrites.get(id(origin), [origin])
                                                   if not _is_guard(s)]
            changed = holder
        self.check_unshared(root, stmt, state, after, f"`{text(stmt)}`", changed, hint)
        if state.kind.get(root) == "int_array" and not self.is_int(value, state):
            raise self.int_array_error(root, stmt, state)
        if isinstance(target.value, gast.Name):
            self.check_index(stmt, target, state)
        if state.kind.get(root) not in ("array", "int_array"):
            if not augmented:
                state.add_items(holder, tags)    # a list or dict now holds the value
                return
            # `d[k] op= v` leaves in d the item changed in place (an array) or a new value (`item op v` of a
            # number): never v itself; `xs[0] += [v]` on a list item puts v's items into that list
            state.add_items(holder, frozenset([self.tag("fresh", stmt)]))
            if any(t.container for t in tags):
                state.add_items(state.items_of(holder), state.items_of(tags))

    @staticmethod
    def item_read_from(y, state):
        """`b` when `y` was last bound by `y = b[i]` or `..., y, ... = ..., b[i], ...` (an index without
        slices: an item, not a slice), else None."""
        origin = state.origin.get(y)
        value = getattr(origin, "value", None)
        if (isinstance(origin, gast.Assign) and len(origin.targets) == 1
                and isinstance(origin.targets[0], (gast.Tuple, gast.List)) and isinstance(value, (gast.Tuple, gast.List))
                and len(origin.targets[0].elts) == len(value.elts)):
            named = [k for k, t in enumerate(origin.targets[0].elts) if isinstance(t, gast.Name) and t.id == y]
            if len(named) != 1:
                return None
            value = value.elts[named[0]]
        elif not (isinstance(origin, gast.Assign) and len(origin.targets) == 1
                  and isinstance(origin.targets[0], gast.Name)):
            return None
        if not (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)):
            return None
        index = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
        if any(isinstance(i, gast.Slice) or (isinstance(i, gast.Constant) and i.value in (None, Ellipsis))
               for i in index):
            return None
        return value.value.id

    def refused(self, y, stmt, state, after):
        """Whether `y op= e` would be refused as a change of memory another live name sees."""
        from ...errors import AstjaxError
        written = set(self.written_parameters)
        try:
            self.check_unshared(y, stmt, state, after, "")
            return False
        except AstjaxError:
            return True
        finally:
            self.written_parameters = written

    @staticmethod
    def copied_from(y, state):
        """`x` when `y` was last bound by `y = x.copy()` (x a name), else None."""
        origin = state.origin.get(y)
        value = getattr(origin, "value", None)
        if (isinstance(origin, gast.Assign) and isinstance(value, gast.Call) and not value.args
                and not value.keywords and isinstance(value.func, gast.Attribute) and value.func.attr == "copy"
                and isinstance(value.func.value, gast.Name)):
            return value.func.value.id
        return None

    def shared_only_through_items(self, root, stmt, state, after, holder, changed):
        """Whether `root[i] op= v` is unsafe only because the items of what `root` holds may be shared
        (an array's memory is unshared, but if it is a list its items are other names' arrays)."""
        from ...errors import AstjaxError
        written = set(self.written_parameters)
        try:
            for objects, expected in ((holder, False), (changed, True)):
                try:
                    self.check_unshared(root, stmt, state, after, "", objects)
                except AstjaxError:
                    return expected
            return False
        finally:
            self.written_parameters = written

    def expression_statement(self, stmt, state, after):
        """`y.sort()`, `y.fill(v)`, `np.add.at(y, i, v)`, `f(..., out=y)`, `xs.append(v)` as statements."""
        call = stmt.value
        if not isinstance(call, gast.Call):
            return
        func = call.func
        static = self.context.resolver.static_value(func)
        out = [k for k in call.keywords if k.arg == "out"]
        if out:
            self.out_argument(stmt, call, out[0], state, after)
            return
        if isinstance(func, gast.Attribute) and func.attr == "at" and isinstance(
                self.context.resolver.static_value(func.value), np.ufunc):
            return self.ufunc_at(stmt, call, func, state, after)
        if static is not NOT_STATIC and getattr(static, "__name__", None) in MUTATING_FUNCTIONS and \
                module_of(static) in ("numpy", "astjax"):
            raise self.error(f"`{text(call)}` writes into its first argument in place, which astjax cannot "
                             "differentiate", call,
                             hint="build the new array with a function instead (np.where, y.at[i].set(v)).")
        if isinstance(func, gast.Attribute) and func.attr in LIST_MUTATORS | DICT_MUTATORS | IN_PLACE_METHODS:
            self.global_container_mutator(call, func)
        if not isinstance(func, gast.Attribute) or static is not NOT_STATIC:
            return
        receiver = func.value
        if not isinstance(receiver, gast.Name):
            base = base_name(receiver)
            if func.attr in LIST_MUTATORS | DICT_MUTATORS and base is not None:   # pair[0].append(v): the list
                self.list_mutator(base, call, state, after, stmt, holder=self.value(receiver, state, after, stmt))
                # the derivative passes follow a list's changes by its name only: the items added to a list
                # reached through a container would get no derivative (a silently wrong gradient)
                raise self.error(f"`{text(call)}` changes a list or dict held inside `{base}`, which astjax's "
                                 "derivatives cannot follow", call,
                                 hint="build the inner list or dict completely (under its own name) before putting "
                                      f"it into `{base}`.")
            if func.attr in LIST_MUTATORS | DICT_MUTATORS:
                # `d.setdefault(k, []).append(v)`, `helper(d).append(v)`: the list changed is the result of a call,
                # which may be held by a container the function reads afterwards (the derivative passes, following
                # a list's changes by its name, would give the items added no derivative)
                raise self.error(f"`{text(call)}` changes the list or dict that `{text(receiver)}` returns, which "
                                 "astjax's derivatives cannot follow", call,
                                 hint="build the list or dict under its own name (`xs = [...]`, `xs.append(v)`) and "
                                      "put it into its container afterwards.")
            if func.attr in IN_PLACE_METHODS:
                raise self.error(f"`{text(call)}` changes part of an array in place, which astjax cannot follow",
                                 call, hint="compute the new array and assign it to the name (`y = y.at[i].set(v)`, `y = jnp.sort(y)`).")
            return
        y = receiver.id
        # a list's in-place sort is a list mutation too: through another name (`ys = xs; ys.sort()`) it
        # reorders xs, which the derivative passes (following xs by name) would not see
        if func.attr in LIST_MUTATORS | DICT_MUTATORS or (func.attr == "sort" and state.kind.get(y) == "list"):
            self.list_mutator(y, call, state, after, stmt)
            return
        if func.attr not in IN_PLACE_METHODS or state.kind.get(y) == "list":
            return
        self.check_unshared(y, stmt, state, after, f"`{text(call)}`")
        if func.attr == "sort" and not call.args:
            new = gast.Call(func=gast.Attribute(value=name("jnp"), attr="sort", ctx=gast.Load()),
                            args=[name(y)], keywords=call.keywords)
        elif func.attr == "fill" and len(call.args) == 1 and not call.keywords:
            if state.kind.get(y) == "int_array" and not self.is_int(call.args[0], state):
                raise self.int_array_error(y, stmt, state)
            zeros = gast.Call(func=gast.Attribute(value=name("jnp"), attr="zeros_like", ctx=gast.Load()),
                              args=[name(y)], keywords=[])
            new = gast.BinOp(left=zeros, op=gast.Add(), right=call.args[0])
        else:
            raise self.error(f"`{text(call)}` changes `{y}` in place, which astjax cannot differentiate", call,
                             hint=f"assign a new array to `{y}` instead (`{y} = ...`).")
        self.rewrites[id(stmt)] = [copy_location(gast.Assign(targets=[store(y)], value=new, type_comment=None),
                                                 stmt)]

    def copying_index(self, index, state):
        """Whether the index `index` surely makes a copy (NumPy's advanced indexing): a list, a comparison (a mask),
        an array made by a call, or a name bound to an integer or boolean array."""
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        for part in parts:
            if isinstance(part, (gast.List, gast.ListComp, gast.Compare, gast.BoolOp)) or (
                    isinstance(part, gast.Constant) and isinstance(part.value, bool)):
                return True
            if isinstance(part, gast.UnaryOp) and isinstance(part.op, (gast.Not, gast.Invert)):
                return True
            if isinstance(part, gast.Call) and not (isinstance(part.func, gast.Name) and part.func.id == "slice"):
                return self.kind_of(part, state) in ("int_array", "array")
            if isinstance(part, gast.Name) and state.kind.get(part.id) in ("int_array", "mask"):
                return True
        return False

    def index_to_check(self, index, state):
        """Whether an index written through (`y[index][b] = v`) holds a name whose kind is unknown (a parameter, a
        helper's result): it may be an array, which makes `y[index]` a copy."""
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        return any(isinstance(p, gast.Name) and not self.is_int(p, state)
                   and state.kind.get(p.id) not in ("int", "int_array", "mask") for p in parts)

    def refuse_hidden_mutation(self, call):
        """In-place changes spelled so that the checks above, which read `y.append(v)`, `y[i] = v`, `y += v` and
        `out=y`, do not see them: a special method called by name (`m.__setitem__(0, v)`, `m.__iadd__(v)`), a
        method called through its class (`list.append(l, v)`, `dict.update(d, ...)`), a ufunc's output passed
        positionally (`np.add(z, 1.0, z)`). grad dropped the change (and with it the derivative), or computed
        another value."""
        func = call.func
        if isinstance(func, gast.Attribute) and func.attr in _IN_PLACE_SPECIAL_METHODS:
            raise self.error(f"`{text(call)}` changes `{text(func.value)}` in place through its special method "
                             f"`{func.attr}`, which astjax does not follow", call,
                             hint="write the statement it stands for (`y[i] = v`, `y += v`), or compute a new value.")
        static = self.context.resolver.static_value(func)
        if static is NOT_STATIC:
            return
        owner = getattr(static, "__objclass__", None)
        name = getattr(static, "__name__", "")
        if owner in (list, dict, set, bytearray, np.ndarray) and call.args and (
                name in LIST_MUTATORS | DICT_MUTATORS | IN_PLACE_METHODS | _IN_PLACE_SPECIAL_METHODS
                or name in ("add", "discard")):
            raise self.error(f"`{text(call)}` calls the method `{name}` through its class `{owner.__name__}`, which "
                             "changes its first argument in place; astjax follows such a change only when called on "
                             "the object", call, hint=f"write `{text(call.args[0])}.{name}(...)`.")
        if isinstance(static, np.ufunc) and len(call.args) > static.nin:
            raise self.error(f"`{text(call)}` passes the array `{static.__name__}` writes into positionally", call,
                             hint=f"assign the new array instead (`y = np.{static.__name__}(...)`).")

    def global_container_mutator(self, call, func):
        """`_G.extend(v)`, `CACHE.update(k=v)`, `_A.sort()` on a module-level (or closure) list, dict or array: the
        derivative passes read that value as a constant, taken when transforming (its change and the derivative of
        what it holds are lost: a silently wrong gradient), and Python keeps the change for later calls. A value
        computed in the function and put there (`_LOG.append(y)`) would be an intermediate of the derivative
        (JAX: a leaked tracer; astjax's jvp crashed)."""
        receiver = self.context.resolver.static_value(func.value)
        if receiver is NOT_STATIC or not mutable(receiver) or not isinstance(receiver, (list, dict, np.ndarray)):
            return
        if not self.reads_outside_its_changes(func.value) and all(
                not reads(a) or (isinstance(a, gast.Call) and self.context.resolver.static_value(a.func)
                                 in NUMBER_BUILTINS) for a in call.args + [k.value for k in call.keywords]):
            # only changed with constants or Python numbers (`_CALLS.append(float(x[0]))`), never read: no
            # derivative reaches it
            return
        raise self.error(f"`{text(call)}` changes `{text(func.value)}`, a {type(receiver).__name__} defined outside "
                         "the function, in place: astjax reads it as a constant (the change and its derivative would "
                         "be lost), and Python would keep the change for later calls", call,
                         hint=f"build the values in a local {type(receiver).__name__} and return them (or pass "
                              f"`{text(func.value)}` in as an argument and return its new value).")

    def reads_outside_its_changes(self, receiver):
        """Whether the function reads the name `receiver` starts from other than as the receiver of a statement
        changing it (`_G.append(v)` on its own line), or uses such a change's result (`v = _G.pop()`)."""
        root = receiver
        while isinstance(root, (gast.Attribute, gast.Subscript)):
            root = root.value
        if not isinstance(root, gast.Name):
            return True
        changing = set()
        for stmt in walk(self.function):
            call = stmt.value if isinstance(stmt, gast.Expr) else None
            if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute):
                inner = call.func.value
                while isinstance(inner, (gast.Attribute, gast.Subscript)):
                    inner = inner.value
                changing.add(id(inner))
        return any(isinstance(n, gast.Name) and n.id == root.id and isinstance(n.ctx, gast.Load)
                   and id(n) not in changing for n in walk(self.function))

    def list_mutator(self, y, call, state, after, stmt, holder=None):
        """`xs.append(v)` (and extend, insert, pop, remove, ...) changes the list object only: it conflicts
        with the names that may reach that list, not with those holding its items."""
        holder = self.lookup(y, state) if holder is None else holder
        hint = (f"copy the dict first (`{y} = dict({y})` before this line), or build a new one (`{y} = {{**{y}, "
                f"key: value}}`)." if call.func.attr in DICT_MUTATORS else None)
        self.check_unshared(y, stmt, state, after, f"`{text(call)}`", holder, hint=hint)
        args = [self.value(a, state, after, stmt) for a in call.args]
        if call.func.attr in ("append", "insert", "setdefault") and args:
            state.add_items(holder, args[-1])
        elif call.func.attr in ("extend", "update") and args:
            state.add_items(holder, state.items_of(args[0]))
        if call.func.attr == "update":      # d.update(k=v)
            for k in call.keywords:
                state.add_items(holder, self.value(k.value, state, after, stmt))

    def out_argument(self, stmt, call, out, state, after):
        if not isinstance(out.value, gast.Name):
            raise self.error("`out=` must name a local array for astjax to follow it", call,
                             hint="assign the result instead: y = f(...).")
        y = out.value.id
        self.check_unshared(y, stmt, state, after, f"`{text(call)}`")
        if state.kind.get(y) == "int_array":
            raise self.int_array_error(y, stmt, state)
        new = gast.Call(func=call.func, args=call.args, keywords=[k for k in call.keywords if k is not out])
        self.rewrites[id(stmt)] = [copy_location(gast.Assign(targets=[store(y)], value=new, type_comment=None),
                                                 stmt)]

    def ufunc_at(self, stmt, call, func, state, after):
        ufunc = self.context.resolver.static_value(func.value)
        call_text = text(call)
        if len(call.args) != 3 or call.keywords or not isinstance(call.args[0], gast.Name):
            raise self.error(f"astjax follows `{call_text}` only as `np.add.at(y, index, values)` on a local name",
                             call, hint="write `y = y.at[index].add(values)`.")
        y = call.args[0].id
        if ufunc not in (np.add, np.subtract):
            raise self.error(f"`{call_text}` applies `{ufunc.__name__}` repeatedly at repeated indices; astjax has "
                             "no derivative for that", call, hint="use np.add.at, or a loop over the indices.")
        self.check_unshared(y, stmt, state, after, f"`{call_text}`")
        values = call.args[2]
        if state.kind.get(y) == "int_array" and not self.is_int(values, state):
            raise self.int_array_error(y, stmt, state)
        if ufunc is np.subtract:
            values = gast.UnaryOp(op=gast.USub(), operand=values)
        new = gast.Call(func=name("at_add"), args=[name(y), call.args[1], values], keywords=[])
        self.rewrites[id(stmt)] = [copy_location(gast.Assign(targets=[store(y)], value=new, type_comment=None),
                                                 stmt)]

    # ------------------------------------------------------------ tags
    def tag(self, kind, label, key=None, container=False):
        """The one tag of an allocation site or outside value (so loops reach a fixed point)."""
        if key is None:
            key = (kind, label if isinstance(label, str) else id(label), container)
        if key not in self.known_tags:
            self.known_tags[key] = Tag(kind, label, container)
        return self.known_tags[key]

    def age(self, state, node):
        """`node` runs again: the objects its earlier runs made (an earlier loop iteration) are an older
        generation, told apart from the ones it makes now (done before it runs, so what it reads is old)."""
        inside = {id(n) for n in walk(node)}
        older = {}
        for tag in state.all_tags():
            if tag.kind == "fresh" and id(tag.label) in inside:
                older[tag] = self.tag("older", tag.label, key=("older", id(tag)), container=tag.container)
        if older:
            state.rename(older)

    def new_container(self, node, state, items, container=True):
        """The tag of the list, tuple or dict made at `node`, holding `items` (container=False: an object
        that may be an array or a container, whose items are also kept)."""
        tag = self.tag("fresh", node, container=container)
        state.add_items([tag], items)
        return frozenset([tag])

    # ------------------------------------------------------------ checks
    def check_unshared(self, y, stmt, state, after, what, changed=None, hint=None):
        """Refuse `what` (an in-place change of the objects `changed`, by default `y`'s own) if another live
        name may see one of them (as itself, or through a list, tuple or dict), or if one may be a global."""
        changed = self.lookup(y, state) if changed is None else frozenset(changed)
        self.written_parameters.update(tag.label for tag in changed if tag.kind == "parameter")
        for tag in changed:
            if tag.kind == "external":
                raise self.error(
                    f"{what} changes `{y}` in place, and `{y}` may be {tag.label}{self.bound(y, state)}; NumPy "
                    f"would change that array too", stmt,
                        hint=hint or f"copy it first (`{y} = {y}.copy()`), or write `{y} = ...` with a new value "
                                 f"(`{y} = {y} + e`, `{y} = {y}.at[i].set(v)`).")
        for other in sorted(state.tags):
            if other == y or other not in after or not (state.reach(state.tags[other]) & changed):
                continue
            how = f"`{y}` may share memory with `{other}`" if state.tags[other] & changed else \
                f"`{other}` may hold what it changes (in a list, tuple or dict)"
            raise self.error(
                f"{what} changes `{y}` in place, but {how}{self.bound(y, state, other)}, which is used "
                f"afterwards: NumPy would change `{other}` too", stmt,
                hint=hint or f"write `{y} = ...` with a new value (`{y} = {y} + e`, `{y} = {y}.at[i].set(v)`), "
                             f"or copy it first (`{y} = {y}.copy()` before this line).")

    def check_callee_writes(self, callee, call, state, after, stmt):
        """A user function that writes into a parameter changes the caller's array in NumPy; astjax
        computes it without that side effect, so the array passed must not be read afterwards."""
        written = parameters_written_by(callee)
        if not written:
            return
        import inspect
        try:
            bound = inspect.signature(callee).bind_partial(*call.args, **{k.arg: k.value for k in call.keywords
                                                                        if k.arg is not None})
        except (TypeError, ValueError):
            bound = None
        arguments = bound.arguments.items() if bound is not None else [(p, None) for p in written]
        self.check_written_arguments(callee, written, arguments, call, state, after, stmt)

    def user_function_result(self, callee, call, state, after, stmt, unknown):
        """What a user function's result may let its reader see: what the arguments it returns (a view or an
        item of) may reach, or a global."""
        import inspect
        summary = summary_of(callee)
        if summary is None:
            return unknown
        _, returned, external = summary
        try:
            bound = inspect.signature(callee).bind_partial(*call.args, **{k.arg: k.value for k in call.keywords
                                                                        if k.arg is not None})
        except (TypeError, ValueError):
            return unknown
        result = frozenset([self.tag("fresh", call)])
        for param in returned:
            if param in bound.arguments:
                arg = bound.arguments[param]
                parts = arg if isinstance(arg, (tuple, list)) else [arg]
                result = result.union(*(state.reach(self.value(a, state, after, stmt))
                                        for a in parts if isinstance(a, gast.AST)))
            elif isinstance(call.func, gast.Attribute):
                result = result | state.reach(self.value(call.func.value, state, after, stmt))  # `self`'s memory
            else:
                external = True
        if external:
            name_ = getattr(callee, "__name__", "the function")
            result = result | {self.tag("external", f"a global returned by `{name_}`")}
        return result

    def check_local_writes(self, call, state, after, stmt):
        """Calls of local functions that write into a parameter, or that are handed to another call."""
        func = call.func
        if isinstance(func, gast.Name) and func.id in self.local_writes:
            params, written = self.local_writes[func.id]
            if written:
                self.check_written_arguments(func.id, written, list(zip(params, call.args)), call, state, after,
                                             stmt)
        for arg in call.args:
            if isinstance(arg, gast.Name) and self.local_writes.get(arg.id, (None, None))[1]:
                others = [(f"p{i}", a) for i, a in enumerate(call.args) if a is not arg]
                self.check_written_arguments(arg.id, {p for p, _ in others}, others, call, state, after, stmt)

    def check_written_arguments(self, callee, written, arguments, call, state, after, stmt):
        for param, arg in arguments:
            if param not in written or (arg is not None and self.is_number(arg, state)):
                continue
            tags = self.value(arg, state, after, stmt) if arg is not None else frozenset().union(
                *(self.value(a, state, after, stmt) for a in call.args))
            touched = state.reach(tags)       # the callee may write into anything the argument reaches
            readers = sorted(n for n in state.tags if n in after and state.reach(state.tags[n]) & touched)
            if readers or [t for t in touched if t.kind == "external"]:
                what = readers[0] if readers else text(arg) if arg is not None else "its argument"
                name_ = callee if isinstance(callee, str) else getattr(callee, "__name__", "f")
                raise self.error(
                    f"`{name_}` writes into its parameter `{param}` in place, so NumPy would change `{what}` "
                    "here; astjax computes the call without that side effect", call,
                    hint=f"return the new value from `{name_}` and assign it (`y = {name_}(y)`), "
                         "or pass a copy (`.copy()`).")
            self.written_parameters.update(t.label for t in touched if t.kind == "parameter")   # passed on

    def bound(self, y, state, other=None):
        places = []
        for n in (y, other):
            origin = state.origin.get(n) if n else None
            if origin is not None and getattr(origin, "lineno", None) is not None:
                line = self.context.source.file_line(origin.lineno)
                places.append(f"line {line}: {text(origin).splitlines()[0]}")
        return f" ({'; '.join(places)})" if places else ""

    def int_array_error(self, y, stmt, state):
        return self.error(
            f"`{y}` is an integer array{self.bound(y, state)}: `{text(stmt).splitlines()[0]}` would truncate "
            "the value to an integer (as NumPy does), which has no derivative", stmt,
            hint=f"make `{y}` a float array (drop `dtype=int`), or convert explicitly (`int(...)`) "
                 "if truncation is meant.")

    def check_index(self, stmt, target, state):
        """Repeated positions: NumPy's `y[idx] op= v` applies once per position; refuse or check at run time."""
        index = target.slice
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        unknown = False
        for part in parts:
            if isinstance(part, (gast.List, gast.Tuple)) or (
                    isinstance(part, gast.Call) and getattr(self.context.resolver.static_value(part.func),
                                                            "__name__", "") in ("array", "asarray")):
                elts = part.elts if isinstance(part, (gast.List, gast.Tuple)) else (
                    part.args[0].elts if part.args and isinstance(part.args[0], (gast.List, gast.Tuple)) else None)
                if elts is not None and all(isinstance(e, gast.Constant) and type(e.value) is int for e in elts):
                    values = [e.value for e in elts]
                    if len(set(values)) != len(values):
                        raise self.error(
                            f"the index {text(part)} repeats a position: NumPy's `{text(stmt)}` applies the update "
                            "once per position, not once per repetition", stmt,
                            hint="write each position once, or use np.add.at(y, index, v) to add repeatedly.")
                    continue
                unknown = True
            elif not self.is_basic_index(part, state):
                unknown = True
        if unknown:
            target.checked_index = True       # the lowering checks at run time that no position repeats

    def is_basic_index(self, part, state):
        if isinstance(part, (gast.Slice, gast.Compare)):
            return True
        if isinstance(part, gast.Constant):
            # a string is a dict's key (`d["n"] += 1`): never an index array with repeated positions
            return part.value is None or part.value is Ellipsis or type(part.value) in (int, bool, str)
        return self.is_int(part, state)

    # ------------------------------------------------------------ values
    def lookup(self, n, state):
        if n in state.tags:
            return state.tags[n]
        if self.scope_locals is not None:          # inside a local function
            if n in self.scope_locals:
                return frozenset()
            return frozenset([self.outside])
        if self.context.resolver.is_local(n):
            return frozenset()                      # not bound yet on this path
        value = self.context.resolver.lookup(n)
        if value is NOT_STATIC or mutable(value):
            where = "a closure variable" if n in self.context.resolver.closure else "a global"
            return frozenset([self.tag("external", f"{where} (`{n}`)")])
        return frozenset()

    def value(self, node, state, after, stmt):
        """The objects the value of expression `node` may be (a new list's items go into state.contents)."""
        if node is None or isinstance(node, gast.Constant):
            return frozenset()
        if isinstance(node, gast.Name):
            return self.lookup(node.id, state)
        if isinstance(node, gast.Lambda):
            for inner in walk(node.body):
                if isinstance(inner, gast.Call) and (any(k.arg == "out" for k in inner.keywords) or (
                        isinstance(inner.func, gast.Attribute) and (
                            inner.func.attr in IN_PLACE_METHODS | LIST_MUTATORS or inner.func.attr == "at"))):
                    raise self.error(f"this lambda changes an array or list in place (`{text(inner)}`)", inner,
                                     hint="define a function with `def` that returns the new value.")
            return frozenset()
        static = self.context.resolver.static_value(node) if isinstance(node, gast.Attribute) else NOT_STATIC
        if static is not NOT_STATIC:
            return frozenset([self.tag("external", f"a global (`{text(node)}`)")]) if mutable(static) \
                else frozenset()
        if isinstance(node, (gast.BinOp, gast.UnaryOp)):
            operands = [node.left, node.right] if isinstance(node, gast.BinOp) else [node.operand]
            shared = frozenset().union(*(self.value(o, state, after, stmt) for o in operands))
            if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
                return frozenset()
            if any(self.is_container(o, state) for o in operands):
                return self.new_container(node, state, state.items_of(shared))   # [a] * 3, xs + ys
            if not shared and all(self.is_number(o, state) for o in operands):
                return frozenset()
            return frozenset([self.tag("fresh", node)])
        if isinstance(node, gast.Compare):
            for part in [node.left] + node.comparators:
                self.value(part, state, after, stmt)
            return frozenset([self.tag("fresh", node)])
        if isinstance(node, (gast.BoolOp, gast.IfExp)):
            parts = node.values if isinstance(node, gast.BoolOp) else [node.body, node.orelse]
            if isinstance(node, gast.IfExp):
                self.value(node.test, state, after, stmt)
            return frozenset().union(*(self.value(p, state, after, stmt) for p in parts))
        if isinstance(node, gast.Subscript):
            self.value(node.slice, state, after, stmt)
            base = self.value(node.value, state, after, stmt)
            if isinstance(node.slice, gast.Slice):     # an array's slice is a view; a list's a new list
                views = frozenset(t for t in base if not t.container)
                lists = [t for t in base if t.container]
                return views | (self.new_container(node, state, state.items_of(lists)) if lists else frozenset())
            return state.items_of(base)
        if isinstance(node, gast.Attribute):
            base = self.value(node.value, state, after, stmt)
            if node.attr in METADATA:
                return frozenset()
            return base | state.items_of(base)        # a view (x.T), or a field of an object
        if isinstance(node, (gast.Tuple, gast.List, gast.Set)):
            items = frozenset()
            for e in node.elts:
                if isinstance(e, gast.Starred):       # [*xs, v]: the items of xs
                    items |= state.items_of(self.value(e.value, state, after, stmt))
                else:
                    items |= self.value(e, state, after, stmt)
            return self.new_container(node, state, items)
        if isinstance(node, gast.Dict):
            items = frozenset()
            for k, v in zip(node.keys, node.values):
                part = self.value(v, state, after, stmt)
                items |= part if k is not None else state.items_of(part)      # {**d}: d's items
                items |= self.value(k, state, after, stmt)
            return self.new_container(node, state, items)
        if isinstance(node, gast.Starred):
            return self.value(node.value, state, after, stmt)
        if isinstance(node, gast.Call):
            return self.call(node, state, after, stmt)
        if isinstance(node, (gast.ListComp, gast.GeneratorExp, gast.SetComp, gast.DictComp)):
            return self.new_container(node, state, self.comprehension(node, state, after, stmt))
        shared = frozenset()
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.expr):
                shared = shared | self.value(child, state, after, stmt)
        return state.reach(shared) | {self.tag("fresh", node)}

    def comprehension(self, node, state, after, stmt):
        """The items a comprehension makes: its targets are bound to the items of what they iterate over
        (beside the names they shadow, kept: a check inside still sees those)."""
        inner = state.copy()
        for generator in node.generators:
            items = inner.items_of(self.value(generator.iter, inner, after, stmt))
            before = {n.id: inner.tags.get(n.id, frozenset()) for n in walk(generator.target)
                      if isinstance(n, gast.Name)}
            self.bind(generator.target, items, inner, stmt, after)
            for n, tags in before.items():
                inner.tags[n] = inner.tags[n] | tags
            for condition in generator.ifs:
                self.value(condition, inner, after, stmt)
        if isinstance(node, gast.DictComp):
            made = self.value(node.key, inner, after, stmt) | self.value(node.value, inner, after, stmt)
        else:
            made = self.value(node.elt, inner, after, stmt)
        state.contents = inner.contents      # lists made or grown inside
        return made

    def call(self, node, state, after, stmt):
        self.refuse_hidden_mutation(node)
        fresh = frozenset([self.tag("fresh", node)])
        args = frozenset().union(*(self.value(a, state, after, stmt) for a in node.args),
                                 *(self.value(k.value, state, after, stmt) for k in node.keywords))
        if any(k.arg == "out" for k in node.keywords) and not (isinstance(stmt, gast.Expr) and stmt.value is node):
            raise self.error(f"`{text(node)}` writes into its `out=` array, and its result is used as a value",
                             node, hint="call it on its own line, or assign the result instead: y = f(...).")
        func = node.func
        static = self.context.resolver.static_value(func)
        statement_call = isinstance(stmt, gast.Expr) and stmt.value is node
        if isinstance(func, gast.Attribute) and func.attr in LIST_MUTATORS | DICT_MUTATORS | IN_PLACE_METHODS:
            self.global_container_mutator(node, func)       # `v = _G.pop()`
        if not statement_call and isinstance(func, gast.Attribute) and static is NOT_STATIC and (
                func.attr in IN_PLACE_METHODS or func.attr in LIST_MUTATORS | {"setdefault", "popitem"}):
            if func.attr in IN_PLACE_METHODS:
                raise self.error(f"`{text(node)}` changes `{text(func.value)}` in place inside an expression",
                                 node, hint="call it on its own line, or compute a new array (jnp.sort(y)).")
            base = base_name(func.value)
            if base is not None:
                self.list_mutator(base, node, state, after, stmt, holder=self.value(func.value, state, after, stmt))
        self.check_local_writes(node, state, after, stmt)
        if static is not NOT_STATIC:
            self.check_callee_writes(static, node, state, after, stmt)
            fname = getattr(static, "__name__", "")
            module = module_of(static)
            if static in NUMBER_BUILTINS or module == "math":
                return frozenset()
            if static is range:
                return frozenset()
            if module in ("numpy", "astjax"):
                copy_false = any(k.arg == "copy" and isinstance(k.value, gast.Constant) and k.value.value is False
                                 for k in node.keywords)
                if (isinstance(static, np.ufunc) or fname in ALLOCATING) and not copy_false:
                    return fresh
                if fname in VIEWS or copy_false or module == "numpy":
                    return state.reach(args) | fresh     # a view of an argument, or of an item of one
                return fresh          # astjax.numpy computes a new immutable Array
            if static in COPYING_BUILTINS:           # list(xs), sorted(xs), dict(d): a new container, same items
                return self.new_container(node, state, state.items_of(args))
            if static in LAZY_BUILTINS:              # zip(xs, ys), enumerate(xs): iterate over the items
                items = state.reach(args) if static in (map, filter) else state.items_of(args)
                return args | self.new_container(node, state, items)
            if static in ITEM_BUILTINS:              # max(xs), next(it): one of the items
                return state.items_of(args)
            if static is sum:                        # a new array (or a new list of the items' items)
                return self.new_container(node, state, state.items_of(state.items_of(args)), container=False)
            return self.user_function_result(static, node, state, after, stmt, state.reach(args) | fresh)
        if isinstance(func, gast.Attribute):
            receiver = self.value(func.value, state, after, stmt)
            if func.attr == "copy" and receiver and (all(t.container for t in receiver) or (
                    isinstance(func.value, gast.Name) and func.value.id in self.dict_names)):
                return self.new_container(node, state, state.items_of(receiver))   # a list's copy is shallow
            if func.attr == "copy" and state.kind.get(getattr(func.value, "id", None)) not in ("array", "int_array"):
                # an array's copy, or a container's (shallow): it keeps the items
                return self.new_container(node, state, state.items_of(receiver), container=False)
            if func.attr == "pop" and receiver and all(t.container for t in receiver):
                return state.items_of(receiver)
            if func.attr in ALLOCATING_METHODS and not any(
                    k.arg == "copy" and isinstance(k.value, gast.Constant) and k.value.value is False
                    for k in node.keywords):
                return fresh
            if func.attr in ("set", "add", "multiply", "mul", "subtract", "divide", "power", "min", "max", "get") \
                    and isinstance(func.value, gast.Subscript) and isinstance(func.value.value, gast.Attribute) \
                    and func.value.value.attr == "at":
                return fresh
            return state.reach(receiver | args) | fresh
        result = self.value(func, state, after, stmt) | state.reach(args) | fresh
        if isinstance(func, gast.Name) and func.id in self.closure_reads:   # a local function or lambda may
            for n in self.closure_reads[func.id]:                            # return what its body reads
                result |= state.reach(self.lookup(n, state))
        return result

    # ------------------------------------------------------------ kinds
    def kind_of(self, value, state):
        """"int_array", "int", "list" or None (unknown) for a bound value."""
        if isinstance(value, gast.Constant) and isinstance(value.value, bool):
            return "mask"           # as an index, `y[True]` is advanced indexing (a copy), not an integer
        if self.is_int(value, state):
            return "int"
        if isinstance(value, gast.Name):
            return state.kind.get(value.id)
        if isinstance(value, (gast.List, gast.ListComp)):
            return "list"
        if isinstance(value, (gast.Compare, gast.BoolOp)) or (
                isinstance(value, gast.UnaryOp) and isinstance(value.op, gast.Not)):
            return "mask"           # a bool or a boolean array: as an index, NumPy's advanced indexing (a copy)
        if isinstance(value, (gast.BinOp, gast.UnaryOp)) and not any(
                self.is_container(o, state) for o in gast.iter_child_nodes(value) if isinstance(o, gast.expr)):
            return "array"
        if isinstance(value, gast.Call):
            static = self.context.resolver.static_value(value.func)
            if static is list:
                return "list"
            if module_of(static) in ("numpy", "astjax") and getattr(static, "__name__", "") in (
                    "zeros", "ones", "empty", "full", "array", "asarray", "arange", "zeros_like", "ones_like",
                    "empty_like", "full_like", "eye", "identity"):
                dtype = self.dtype_argument(value, static.__name__)
                if dtype is not None:
                    return "int_array" if integral(dtype) else None
                if static.__name__ == "arange" and all(self.is_int(a, state) for a in value.args):
                    return "int_array"
                if static.__name__ in ("array", "asarray") and value.args and isinstance(
                        value.args[0], (gast.List, gast.Tuple)) and value.args[0].elts and all(
                        isinstance(e, gast.Constant) and type(e.value) in (int, bool) for e in value.args[0].elts):
                    return "int_array"
                if static.__name__.endswith("_like") and value.args and isinstance(value.args[0], gast.Name) \
                        and state.kind.get(value.args[0].id) == "int_array":
                    return "int_array"
            if module_of(static) in ("numpy", "astjax") and (
                    isinstance(static, np.ufunc) or getattr(static, "__name__", "") in ALLOCATING):
                return "array"
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "astype" \
                and value.args:
            dtype = self.context.resolver.static_value(value.args[0]) if not isinstance(
                value.args[0], gast.Constant) else value.args[0].value
            if dtype is not NOT_STATIC and integral(dtype):
                return "int_array"
        return None

    def dtype_argument(self, call, fname):
        position = {"zeros": 1, "ones": 1, "empty": 1, "full": 2, "array": 1, "asarray": 1, "arange": 3,
                    "zeros_like": 1, "ones_like": 1, "empty_like": 1, "full_like": 2, "eye": 3,
                    "identity": 1}[fname]
        node = next((k.value for k in call.keywords if k.arg == "dtype"), None)
        if node is None and len(call.args) > position and fname != "arange":
            node = call.args[position]
        if node is None:
            return None
        if isinstance(node, gast.Constant):
            return node.value
        value = self.context.resolver.static_value(node)
        return None if value is NOT_STATIC else value

    def element_kind(self, iterator, state):
        if isinstance(iterator, gast.Call) and self.context.resolver.static_value(iterator.func) in (range,):
            return "int"
        return None

    def is_int(self, node, state):
        """Whether `node` is certainly a Python / NumPy integer scalar."""
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, bool)
        if isinstance(node, gast.Name):
            return state.kind.get(node.id) == "int"
        if isinstance(node, gast.UnaryOp):
            return self.is_int(node.operand, state)
        if isinstance(node, gast.BinOp):
            return not isinstance(node.op, (gast.Div, gast.Pow, gast.MatMult)) and self.is_int(node.left, state) \
                and self.is_int(node.right, state)
        if isinstance(node, gast.Call):
            static = self.context.resolver.static_value(node.func)
            return static in (int, len) or (static is round and len(node.args) == 1)
        return False

    def is_number(self, node, state):
        if isinstance(node, gast.Constant):
            return isinstance(node.value, (int, float, complex, bool))
        return self.is_int(node, state) or (isinstance(node, gast.Name) and not self.lookup(node.id, state))

    def is_container(self, node, state):
        if isinstance(node, (gast.List, gast.Tuple, gast.ListComp)):
            return True
        return isinstance(node, gast.Name) and state.kind.get(node.id) == "list"



_SUMMARIES = {}


def summary_of(fn):
    """(parameters it writes into, parameters whose memory its result may share, whether the result may be
    a global), found by this pass on a user function's source; None for functions it does not analyse."""
    import inspect
    from ...analyses.classify import is_library
    from ...rules import lookup_callable
    target = getattr(fn, "__func__", fn)
    if (not inspect.isfunction(target) or is_library(target) or module_of(target) == "astjax"
            or lookup_callable(target) is not None):
        return None              # astjax's own runtime (tape push/pop) and primitives with rules
    if getattr(fn, "__astjax_transform__", None) is not None:
        # grad(f), vmap(f), ...: generated code that writes into no argument; its result may share one
        return (frozenset(), frozenset(inspect.signature(target).parameters), True)
    origin = getattr(target, "__astjax_jvp_of__", None)      # normalize/jvp_calls.py: f's generated jvp
    if origin is not None:
        everything = frozenset(inspect.signature(target).parameters)
        inner = summary_of(origin)
        writes = everything if inner is None or inner[0] else frozenset()
        return (writes, everything, True)
    generated = getattr(target, "__astjax_function_source__", None)
    if generated is not None and generated.generated and not getattr(generated, "user_code", False):
        # generated code (Aliasing.run skips it: its updates are functional): it writes into no argument
        return (frozenset(), frozenset(inspect.signature(target).parameters), True)
    code = target.__code__
    if code in _SUMMARIES:
        return _SUMMARIES[code]
    everything = frozenset(inspect.signature(target).parameters)
    _SUMMARIES[code] = (frozenset(), everything, True)     # a recursive call while this one is analysed
    from ..context import FunctionContext
    from ..parse import function_source
    try:
        context = FunctionContext(function_source(target))
        analysis = Aliasing(context)
        analysis.run(copy.deepcopy(context.source.node))
        returned = {t.label for t in analysis.returned if t.kind == "parameter"}
        summary = (frozenset(analysis.written_parameters), frozenset(returned),
                   any(t.kind == "external" for t in analysis.returned))
    except Exception:           # not analysable: it may write into, and return, anything
        summary = (everything, everything, True)
    _SUMMARIES[code] = summary
    return summary


def parameters_written_by(fn):
    """Names of the parameters a user function writes into (in place)."""
    summary = summary_of(fn)
    return summary[0] if summary is not None else frozenset()


def _rebound_names(stmt):
    """Names a simple assignment `a = ...` / `a, b = ...` binds anew (their old values are then unreadable)."""
    if not isinstance(stmt, gast.Assign):
        return frozenset()
    names = set()
    for target in stmt.targets:
        stack = [target]
        while stack:
            t = stack.pop()
            if isinstance(t, gast.Name):
                names.add(t.id)
            elif isinstance(t, (gast.Tuple, gast.List)):
                stack.extend(t.elts)
            else:
                return frozenset()      # `a[i] = ...`, `a.b = ...`, `*rest`: keep every name live
    return frozenset(names)


def _is_guard(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id in ("array_holder", "not_a_row"))


class _Apply(NodeTransformer):
    """Replace in-place calls by the assignments chosen for them; mark indices checked at run time."""

    def __init__(self, rewrites):
        self.rewrites = rewrites

    def generic_visit(self, node):
        for field, old in gast.iter_fields(node):
            if isinstance(old, list):
                new = []
                for item in old:
                    if isinstance(item, gast.AST) and id(item) in self.rewrites:
                        new.extend(self.rewrites[id(item)])
                        continue
                    if not isinstance(item, gast.AST):
                        new.append(item)        # kept as is: a dict display's None key (`{**d, "a": v}`)
                        continue
                    item = self.visit(item)
                    if isinstance(item, list):
                        new.extend(item)
                    elif item is not None:
                        new.append(item)
                old[:] = new
            elif isinstance(old, gast.AST):
                if isinstance(node, gast.Subscript) and field == "slice" and ("index", id(node)) in self.rewrites:
                    node.checked_index = True
                setattr(node, field, self.visit(old))
        return node
