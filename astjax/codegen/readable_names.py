"""Temporaries named after what they hold, the rest numbered without gaps.

    _t1 = jnp.sin(a)        ->   sin_a = jnp.sin(a)          (b_t1 -> bsin_a, d_t1 -> dsin_a)
    _t2 = W @ h             ->   Wh = W @ h
    _t3 = i < 20            ->   i_lt_20 = i < 20
    h = at_set(h, i, _t4)   ->   h_item = ...                (written into an item, no short name)
    _t7 = q @ k_T / 2.0     ->   _t1 = ...                   (no short name: numbered from 1)

A temporary is renamed with its whole family (its adjoint `b_t1`, tangent
`d_t1`, saved shape `_t1_shape`), only where every assignment of it suggests
the same name and no name of the family is taken, so renaming never changes
what the code computes. Names of the user's own function are never touched.
"""
import keyword
import re

import gast

from .naming import names_in
from .node_walk import walk, NodeTransformer

__all__ = ["name_temporaries"]

_FAMILY = re.compile(r"^(?P<prefix>[bd]*)(?P<base>_t\d+)(?P<suffix>(_shape)?_*)$")
_MAX_LENGTH = 14
_SYMBOLS = {gast.Add: "plus", gast.Sub: "minus", gast.Div: "over", gast.Lt: "lt", gast.LtE: "le", gast.Gt: "gt",
            gast.GtE: "ge", gast.Eq: "eq", gast.NotEq: "ne"}


def name_temporaries(function_node, protected=(), numbered=True):
    """Rename the `_tN` temporaries of `function_node` in place; return {old name: new name}.
    With numbered=False, only those a short name describes are renamed (the others keep their numbers)."""
    used = names_in(function_node)
    families = {}
    for name in used:
        match = _FAMILY.match(name)
        if match and name not in protected and _derived_here(name, match, protected):
            families.setdefault(match.group("base"), set()).add(name)
    if not families:
        return {}
    assignments = _assignments(function_node, set(families))
    items = _item_updates(function_node, set(families))
    renamed = {member for members in families.values() for member in members}
    taken = (set(used) - renamed) | set(protected)      # every renamed member gets a new name below
    bases = {}
    order = _in_order_of_appearance(function_node, families)
    for base in order:
        name = _suggestion(assignments.get(base, ()), bases) or items.get(base)
        if name and _free_family(name, families[base], taken):
            bases[base] = name
            taken |= {_member(name, m) for m in families[base]}
    number = 0
    for base in order:
        if base in bases:
            continue
        if not numbered:
            bases[base] = base
            taken |= set(families[base])
            continue
        while True:
            number += 1
            candidate = f"_t{number}"
            if _free_family(candidate, families[base], taken):
                break
        bases[base] = candidate
        taken |= {_member(candidate, m) for m in families[base]}
    renames = {member: _member(bases[base], member) for base, members in families.items() for member in members}
    renames = {old: new for old, new in renames.items() if old != new}
    if renames:
        _Rename(renames).visit(function_node)
    return renames


def _derived_here(name, match, protected):
    """Whether `name` derives from its base through names of this function only: `dd_t9` is the tangent
    of `d_t9`, which must not be a name the source already had (the source's own `d_t9` is another
    quantity than the tangent of this function's `_t9`)."""
    prefix, rest = match.group("prefix"), match.group("base") + match.group("suffix")
    for k in range(1, len(prefix)):
        if prefix[k:] + rest in protected:
            return False
    if match.group("suffix") and any(prefix[k:] + match.group("base") in protected for k in range(len(prefix))):
        return False          # `d_t4_shape` is the saved shape of the user's own `d_t4`, not of `_t4`'s tangent
    return rest not in protected or not prefix


def _member(base, member):
    """`member` of a family (e.g. `b_t3`) with the family's base replaced by `base`."""
    match = _FAMILY.match(member)
    return f"{match.group('prefix')}{base}{match.group('suffix')}"


def _free_family(base, members, taken):
    names = [_member(base, m) for m in members]
    return all(n.isidentifier() and not keyword.iskeyword(n) and n not in taken for n in names)


def _in_order_of_appearance(function_node, families):
    """The families' bases ordered by the first statement (in reading order) that mentions them."""
    first = {}
    for i, stmt in enumerate(_statements(function_node)):
        parts = [stmt] if not hasattr(stmt, "body") else [getattr(stmt, f) for f in ("test", "target", "iter")
                                                           if getattr(stmt, f, None) is not None]
        for part in parts:
            for node in walk(part):
                if isinstance(node, gast.Name):
                    match = _FAMILY.match(node.id)
                    if match and match.group("base") in families:
                        first.setdefault(match.group("base"), i)
    return sorted(families, key=lambda base: (first.get(base, 1 << 30), int(base[2:])))


def _statements(node):
    out = []
    for field in ("body", "orelse"):
        for stmt in getattr(node, field, None) or []:
            out.append(stmt)
            out.extend(_statements(stmt))
    return out


def _assignments(function_node, bases):
    """{base: the values assigned to that temporary}, restores and placeholders left out."""
    found = {}
    for node in walk(function_node):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            target = node.targets[0].id
            if target in bases and not _restores(node.value):
                found.setdefault(target, []).append(node.value)
    return found


def _item_updates(function_node, bases):
    """{base: `h_item`} for a temporary only written into an array's item (`h = at_set(h, i, _t1)`),
    where what it computes has no short name: the adjoint `bh_item` then says what it is."""
    found = {}
    for node in walk(function_node):
        if (isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id in _ITEM_UPDATES
                and len(node.args) == 3 and isinstance(node.args[0], gast.Name)
                and isinstance(node.args[2], gast.Name) and node.args[2].id in bases
                and not _FAMILY.match(node.args[0].id)):
            found.setdefault(node.args[2].id, set()).add(f"{node.args[0].id}_item")
    return {base: names.pop() for base, names in found.items() if len(names) == 1}


_ITEM_UPDATES = ("at_set", "at_add")


def _suggestion(values, named):
    """The name every value suggests (temporaries read in them by the names `named` gave them), or None."""
    names = {_describe(value, named) for value in values}
    if len(names) != 1 or None in names:
        return None
    name = names.pop()
    return name if len(name) <= _MAX_LENGTH else None


def _restores(value):
    """`t = None` (a placeholder before a loop) and `t = pop(_tape)` (a restore) say nothing of `t`."""
    return ((isinstance(value, gast.Constant) and value.value is None)
            or (isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and value.func.id == "pop"))


def _describe(expr, named):
    """A short name for what `expr` computes, or None."""
    if isinstance(expr, gast.Name):
        if _FAMILY.match(expr.id):
            name = named.get(expr.id)
            return None if name is None or _FAMILY.match(name) else name
        return expr.id
    if isinstance(expr, gast.Constant) and isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool):
        return str(int(expr.value)) if float(expr.value).is_integer() and expr.value >= 0 else None
    if isinstance(expr, gast.Call) and expr.args and not any(isinstance(a, gast.Starred) for a in expr.args):
        function = expr.func.attr if isinstance(expr.func, gast.Attribute) else getattr(expr.func, "id", None)
        if function and function.startswith("primal_"):        # a user function's normalized version
            function = function[len("primal_"):]              # (transforms/primal_calls.py): its own name
        argument = _describe(expr.args[0], named)
        if function == "transpose" and len(expr.args) == 1 and argument:
            return f"{argument}_T"
        return f"{function}_{argument}" if function and argument and not function.startswith("_") else None
    if isinstance(expr, gast.BinOp):
        left, right = _describe(expr.left, named), _describe(expr.right, named)
        if left is None or right is None:
            return None
        if isinstance(expr.op, (gast.Mult, gast.MatMult)):
            return left + right if len(left) == 1 and len(right) == 1 else f"{left}_{right}"
        if isinstance(expr.op, gast.Pow):
            return f"{left}_sq" if right == "2" else f"{left}_pow_{right}"
        symbol = _SYMBOLS.get(type(expr.op))
        return f"{left}_{symbol}_{right}" if symbol else None
    if isinstance(expr, gast.Compare) and len(expr.ops) == 1:
        left, right, symbol = _describe(expr.left, named), _describe(expr.comparators[0], named), _SYMBOLS.get(type(expr.ops[0]))
        return f"{left}_{symbol}_{right}" if left and right and symbol else None
    if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, gast.USub):
        inner = _describe(expr.operand, named)
        return f"neg_{inner}" if inner else None
    if isinstance(expr, gast.Attribute) and expr.attr == "T":
        inner = _describe(expr.value, named)
        return f"{inner}_T" if inner else None
    if isinstance(expr, gast.Subscript):
        inner, index = _describe(expr.value, named), _describe(expr.slice, named)
        return f"{inner}_{index}" if inner and index else None
    return None


class _Rename(NodeTransformer):
    """Renames each Name node once: cleanup may share one node between two places, and renaming it on
    each visit would apply `b_t3 -> b_t2` and then `b_t2 -> b_t1`."""

    def __init__(self, renames):
        self.renames = renames
        self.done = set()

    def visit_Name(self, node):
        if id(node) not in self.done:
            self.done.add(id(node))
            node.id = self.renames.get(node.id, node.id)
        return node
