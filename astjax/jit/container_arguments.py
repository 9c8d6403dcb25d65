"""Derivatives with respect to dicts, lists, tuples and NamedTuples: one variable per leaf.

Generated derivative code reads a container argument by constant keys
(`_t1 = params['W']`) and builds its adjoint sparsely
(`bparams = index_adjoint(params, 'b', e)`, `bparams += index_adjoint(params, 'W', e2)`),
with a TreeAdjoint object Numba cannot hold. Within one signature the
container's structure is known, so jit replaces it by its leaves, as JAX
flattens a pytree before tracing: each container parameter becomes one
parameter per leaf, a constant-key read becomes that leaf's name, and the
adjoint becomes one variable per leaf reached (`bparams__W`), added into as
the code adds. The function returns those variables in a flat tuple, and
Python rebuilds the TreeAdjoint the reference backend returns.

The rewrite is all or nothing: it applies when every use of a container (and
of its adjoint) is one of those forms in the function's top-level statements
(no loop or branch touches them); otherwise the code is left as it was, and
jit refuses it clearly if Numba cannot compile it.
"""
import copy

import gast
from ..codegen.node_walk import NodeTransformer

__all__ = ["scalarize", "Scalarized"]

_ADJOINT_CALLS = ("index_adjoint", "attribute_adjoint")


class _GiveUp(Exception):
    pass


class Scalarized:
    """The rewritten function node, each parameter's Layout (None: passed as it is) and the result recipe:
    per returned item, ("value",) or ("adjoint", [(path, kinds)...]) naming the leaf adjoints returned."""

    def __init__(self, node, recipe, leaf_types):
        self.node, self.recipe, self.leaf_types = node, recipe, leaf_types


def scalarize(function_node, layouts, leaf_values, abstract):
    """The Scalarized rewrite of `function_node` for parameters with these layouts ({name: Layout} for the
    container parameters, whose leaves are `leaf_values[name]`), or None when the code uses a container
    in a way this rewrite does not cover."""
    try:
        return _Rewrite(function_node, layouts, leaf_values, abstract).run()
    except _GiveUp:
        return None


def _leaf_paths(node, prefix=()):
    """[(path, node)] of every leaf and container of a Layout node, paths of keys (ints for sequences)."""
    out = [(prefix, node)]
    kind = node[0]
    if kind == "dict":
        for key, kid in zip(node[1], node[2]):
            out += _leaf_paths(kid, prefix + (key,))
    elif kind in ("tuple", "list", "namedtuple"):
        for i, kid in enumerate(node[-1]):
            out += _leaf_paths(kid, prefix + (i,))
    return out


class _Rewrite:
    def __init__(self, function_node, layouts, leaf_values, abstract):
        self.node = copy.deepcopy(function_node)
        self.layouts = layouts
        self.taken = {n.id for n in gast.walk(self.node) if isinstance(n, gast.Name)}
        self.nodes = {}          # (param, path) -> Layout node
        self.leaf_name = {}      # (param, path) -> leaf parameter name
        self.leaf_types = {}
        for param, layout in layouts.items():
            leaves = iter(leaf_values[param])
            for path, sub in _leaf_paths(layout.node):
                self.nodes[(param, path)] = sub
                if sub[0] == "leaf":
                    self.leaf_name[(param, path)] = self._fresh(f"{param}__leaf")
                    self.leaf_types[self.leaf_name[(param, path)]] = {abstract(next(leaves))}
        self.trees = {p: (p, ()) for p in layouts}      # name -> (param, path) of a container it holds
        self.adjoints = {}       # name -> {(param, path): variable name} of the leaf adjoints reached
        self.zeros = set()       # names set to a zero adjoint `bd = 0.0` that a loop written out adds into
        self.recipe = None

    def _fresh(self, base):
        n = 0
        while f"{base}{n}" in self.taken:
            n += 1
        self.taken.add(f"{base}{n}")
        return f"{base}{n}"

    def run(self):
        params = []
        for arg in self.node.args.args:
            if arg.id in self.layouts:
                layout = self.layouts[arg.id]
                for path, sub in _leaf_paths(layout.node):
                    if sub[0] == "leaf":
                        params.append(gast.Name(self.leaf_name[(arg.id, path)], gast.Param(), None, None))
            else:
                params.append(arg)
        if self.node.args.vararg or self.node.args.kwarg or self.node.args.kwonlyargs:
            raise _GiveUp
        body = []
        for statement in self.node.body:
            body.extend(self._statement(statement))
        if self.recipe is None:
            raise _GiveUp
        self.node.args.args = params
        self.node.args.defaults = []
        self.node.body = body
        return Scalarized(self.node, self.recipe, self.leaf_types)

    # ---------------------------------------------------------------- statements
    def _statement(self, statement):
        statement = self._constant_lengths(statement)
        if isinstance(statement, gast.Assert) and isinstance(statement.test, gast.Compare) \
                and all(isinstance(n, gast.Constant) for n in [statement.test.left] + statement.test.comparators):
            import ast
            test = ast.fix_missing_locations(ast.Expression(gast.gast_to_ast(statement.test)))
            if not eval(compile(test, "<assert>", "eval"), {}):  # noqa: S307 -- constants compared
                raise _GiveUp         # the reference backend raised here: let it say so
            return []                 # an unpacking's length check, true for this structure
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], gast.Name):
            name, value = statement.targets[0].id, statement.value
            self._no_rebinding(name)
            read = self._read(value)
            if read is not None:
                if self.nodes[read][0] == "leaf":
                    return [_assign(name, gast.Name(self.leaf_name[read], gast.Load(), None, None))]
                if self.nodes[read][0] == "none":
                    raise _GiveUp
                self.trees[name] = read
                return []
            sparse = self._adjoint(value)
            if sparse is not None:
                self.adjoints[name] = {}
                return self._add_into(name, sparse)
            self.zeros.discard(name)
            if isinstance(value, gast.Constant) and type(value.value) in (int, float) and value.value == 0:
                self.zeros.add(name)     # `bd = 0.0; bd += index_adjoint(d, 'a', e); ...` (lower/dict_key_loops.py)
        elif isinstance(statement, gast.AugAssign) and isinstance(statement.op, gast.Add) \
                and isinstance(statement.target, gast.Name) and statement.target.id in self.adjoints.keys() | self.zeros:
            sparse = self._adjoint(statement.value)
            if sparse is None:
                raise _GiveUp
            if statement.target.id not in self.adjoints:
                self.zeros.discard(statement.target.id)
                self.adjoints[statement.target.id] = {}
            return self._add_into(statement.target.id, sparse)
        elif isinstance(statement, gast.Return) and statement.value is not None:
            return [self._return(statement)]
        self._untouched(statement)
        return [statement]

    def _constant_lengths(self, statement):
        """`len(c)` of a container as the constant it is for this structure."""
        trees, nodes = self.trees, self.nodes

        class Lengths(NodeTransformer):
            def visit_Call(self, call):
                self.generic_visit(call)
                if isinstance(call.func, gast.Name) and call.func.id == "len" and len(call.args) == 1 \
                        and isinstance(call.args[0], gast.Name) and call.args[0].id in trees:
                    node = nodes[trees[call.args[0].id]]
                    return gast.Constant(len(node[-1]), None)
                return call
        return Lengths().visit(statement)

    def _no_rebinding(self, name):
        if name in self.trees or name in self.adjoints:
            raise _GiveUp

    def _untouched(self, node):
        """Raise _GiveUp when `node` uses a container or an adjoint of one."""
        for sub in gast.walk(node):
            if isinstance(sub, gast.Name) and (sub.id in self.trees or sub.id in self.adjoints):
                raise _GiveUp

    def _add_into(self, name, sparse):
        out = []
        components = self.adjoints[name]
        for key, expression in sparse:
            if key in components:
                variable = components[key]
                expression = gast.BinOp(gast.Name(variable, gast.Load(), None, None), gast.Add(), expression)
            else:
                variable = components[key] = self._fresh(f"{name}__leaf")
            out.append(_assign(variable, expression))
        return out

    def _return(self, statement):
        returned = []
        recipe = self._returned(statement.value, returned)
        if self.recipe is not None or "adjoint" not in repr(recipe):
            raise _GiveUp
        self.recipe = recipe
        return gast.Return(gast.Tuple(returned, gast.Load()))

    def _returned(self, item, returned):
        """The recipe of one returned item (tuples nest), appending the flat values to `returned`."""
        if isinstance(item, gast.Tuple):
            return ("tuple", [self._returned(e, returned) for e in item.elts])
        if isinstance(item, gast.Name) and item.id in self.adjoints:
            keys = list(self.adjoints[item.id])
            returned += [gast.Name(self.adjoints[item.id][k], gast.Load(), None, None) for k in keys]
            return ("adjoint", [(key, self._kinds(key)) for key in keys])
        self._untouched(item)
        returned.append(item)
        return ("value",)

    def _kinds(self, key):
        """The Layout nodes along `key`'s path (the rebuild needs each level's kind)."""
        param, path = key
        return [self.nodes[(param, path[:i])] for i in range(len(path))]

    # ---------------------------------------------------------------- expressions
    def _read(self, value):
        """(param, path) when `value` is a constant-key read of a container (`c['W']`, `c[0]`, `c.W`)."""
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) \
                and value.value.id in self.trees:
            return self._child(self.trees[value.value.id], value.slice)
        if isinstance(value, gast.Attribute) and isinstance(value.value, gast.Name) \
                and value.value.id in self.trees:
            where = self.trees[value.value.id]
            node = self.nodes[where]
            if node[0] != "namedtuple" or value.attr not in node[1]._fields:
                raise _GiveUp
            return (where[0], where[1] + (node[1]._fields.index(value.attr),))
        return None

    def _child(self, where, key_node):
        if not isinstance(key_node, gast.Constant) or type(key_node.value) not in (str, int):
            raise _GiveUp
        node, key = self.nodes[where], key_node.value
        if node[0] == "dict":
            if key not in node[1]:
                raise _GiveUp
        elif node[0] in ("tuple", "list", "namedtuple") and type(key) is int:
            if not -len(node[-1]) <= key < len(node[-1]):
                raise _GiveUp
            key %= len(node[-1])
        else:
            raise _GiveUp
        return (where[0], where[1] + (key,))

    def _adjoint(self, value):
        """[((param, path), leaf adjoint expression)] for an index_adjoint / attribute_adjoint of a
        container with a constant key (nested ones included), or None for any other expression."""
        if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Name)
                and value.func.id in _ADJOINT_CALLS and len(value.args) == 3 and not value.keywords):
            return None
        container, key, inner = value.args
        if not (isinstance(container, gast.Name) and container.id in self.trees):
            raise _GiveUp
        where = self.trees[container.id]
        if value.func.id == "attribute_adjoint":
            node = self.nodes[where]
            if node[0] != "namedtuple" or not isinstance(key, gast.Constant) or key.value not in node[1]._fields:
                raise _GiveUp
            target = (where[0], where[1] + (node[1]._fields.index(key.value),))
        else:
            target = self._child(where, key)
        if self.nodes[target][0] == "leaf":
            self._untouched(inner)
            return [(target, inner)]
        if isinstance(inner, gast.Name) and inner.id in self.adjoints:      # an adjoint built before
            nested = [(k, gast.Name(v, gast.Load(), None, None)) for k, v in self.adjoints[inner.id].items()]
        else:
            nested = self._adjoint(inner)
        if nested is None or any(k[0] != target[0] or k[1][:len(target[1])] != target[1] for k, _ in nested):
            raise _GiveUp
        return nested


def _assign(name, value):
    return gast.Assign([gast.Name(name, gast.Store(), None, None)], value, None)


def rebuild(recipe, flat, convert):
    """The reference backend's result from the flat tuple the rewritten function returned: TreeAdjoints
    for the adjoint items (`convert(i, value)` turns the i-th flat value into what the reference gives)."""
    return _rebuild(recipe, flat, convert, [0])


def _rebuild(recipe, flat, convert, position):
    from ..rules.helpers import TreeAdjoint
    if recipe[0] == "tuple":
        return tuple(_rebuild(item, flat, convert, position) for item in recipe[1])
    if recipe[0] == "value":
        position[0] += 1
        return convert(position[0] - 1, flat[position[0] - 1])
    root, fields_of = {}, {}
    for (param, path), kinds in recipe[1]:
        level = root
        for depth, key in enumerate(path):
            if kinds[depth][0] == "namedtuple":
                fields_of[id(level)] = kinds[depth][1]._fields
            if depth == len(path) - 1:
                level[key] = convert(position[0], flat[position[0]])
            else:
                level = level.setdefault(key, {})
        position[0] += 1
    return _tree_adjoint(root, fields_of, TreeAdjoint)


def expected_leaves(recipe, expected):
    """The reference result's values in the order the rewritten function returns them, or None when its
    structure is not the recipe's."""
    from ..rules.helpers import TreeAdjoint
    out = []

    def walk(recipe, value):
        if recipe[0] == "tuple":
            if type(value) is not tuple or len(value) != len(recipe[1]):
                return False
            return all(walk(r, v) for r, v in zip(recipe[1], value))
        if recipe[0] == "value":
            out.append(value)
            return True
        for (_, path), _ in recipe[1]:
            item = value
            for key in path:
                if not isinstance(item, TreeAdjoint) or key not in item.items:
                    return False
                item = item.items[key]
            out.append(item)
        return isinstance(value, TreeAdjoint)
    return out if walk(recipe, expected) else None


def _tree_adjoint(level, fields_of, TreeAdjoint):
    items = {k: _tree_adjoint(v, fields_of, TreeAdjoint) if isinstance(v, dict) else v for k, v in level.items()}
    return TreeAdjoint(items, fields_of.get(id(level)))
