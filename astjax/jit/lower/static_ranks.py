"""Tests on ranks decided for this signature: `jnp.ndim(a) == 1` becomes a constant and the branch it
picks the only one compiled.

Rules and vmap's batching are written for any rank, so a derivative's callees branch on ranks:

    def vmap_dot_rhs_adjoint(g, a, b, _batch_size=None):
        _t1 = jnp.ndim(a) - 1 == 0
        if _t1: ...                               # a scalar per example
        elif jnp.ndim(b) <= 2:
            _ret = vmap_matmul_rhs_adjoint(g, a, b, _batch_size=_B1)
        else: ...                                 # batched matmul, moveaxis, reshapes

For one signature every rank is known (jit observed each variable's type when it ran the reference
backend: jit/observe.py), and Numba types `a.ndim` as a constant anyway; but Numba still types and
compiles every branch, and a branch the first call never ran has no observed types for its locals (vmap's
`batch_shape` there cannot be folded, so jit refused the whole function). Here `jnp.ndim(a)` becomes
the rank, integer arithmetic, comparisons, `and`/`or`/`not` on what it gives are folded, a name
assigned once at the top level from such a constant is read as that constant (constants the code
wrote itself are left as they are), and an `if` (or `x if c else y`) on a
constant keeps only its branch; repeated until nothing changes. The first call of `jit(vmap(grad(f)))`
for the per-example gradient of a dense layer compiled in 19-28 s instead of 32-40 s (load 7-8, 2 shared
cores; docs/performance.md, "Per-example gradients").

Only ranks observed as exactly one array or NumPy-scalar type fold (never a name that also held None or
a Python number). What folds is true for the parameters' observed ranks, so a callee whose parameter
ranks were folded starts with a test Numba decides per compiled version (`if a.ndim != 2 or b.ndim != 2:`):
for the observed ranks Numba drops it; a call with other ranks (a call site the first run never
reached) runs the function's unfolded body under it, or, when that body cannot be lowered (vmap's shape
helpers in a branch no observed run reached), raises a ValueError saying so instead of taking a branch
chosen for other ranks. The entry function needs no test: its parameters have the signature's ranks.
"""
import copy

import gast
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["fold_static_ranks"]

_COMPARE = {gast.Eq: lambda a, b: a == b, gast.NotEq: lambda a, b: a != b, gast.Lt: lambda a, b: a < b,
            gast.LtE: lambda a, b: a <= b, gast.Gt: lambda a, b: a > b, gast.GtE: lambda a, b: a >= b}
_ARITHMETIC = {gast.Add: lambda a, b: a + b, gast.Sub: lambda a, b: a - b}


def fold_static_ranks(node, context, keep_other_ranks=True):
    """Fold rank tests in the function `node` and keep only the branches they pick. Returns whether the
    function keeps its unfolded body for parameters of other ranks (see the module's docstring)."""
    original = copy.deepcopy(node.body)
    folder = _Fold(context, {a.id for a in node.args.args})
    for _ in range(20):
        folder.changed = False
        folder.visit(node)
        node.body = _prune(node.body, folder)
        constants = _constant_names(node)
        for i, stmt in enumerate(node.body):
            _Substitute({name: value for name, (value, at) in constants.items() if at < i}, folder).visit(stmt)
        if not folder.changed:
            break
    if not folder.folded_parameters or (getattr(context, "entry", False) and not _calls_itself(node, context)):
        return False            # the entry's parameters have the signature's ranks
    ranks = sorted(folder.folded_parameters.items())
    other = gast.parse(" or ".join(f"{name}.ndim != {rank}" for name, rank in ranks)).body[0].value
    kept = keep_other_ranks and original and isinstance(original[-1], gast.Return)
    if kept:
        body = original
    else:
        described = ", ".join(f"a rank-{rank} `{name}`" for name, rank in ranks)
        message = (f"jit compiled this function for {described} (the ranks its first call saw), and this call "
                   f"passed other ranks")
        body = [gast.parse(f"raise ValueError({message!r})").body[0]]
    guard = gast.If(test=other, body=body, orelse=[])
    for n in walk(guard):
        if hasattr(n, "lineno") and getattr(n, "lineno", None) is None:
            n.lineno = getattr(node, "lineno", 1)
    node.body[:0] = [guard]
    return kept


def _calls_itself(node, context):
    return any(isinstance(n, gast.Name) and context.namespace.get(n.id) is context.generated for n in walk(node))


class _Fold(NodeTransformer):
    def __init__(self, context, parameters):
        self.context = context
        self.changed = False
        self.folded_parameters = {}          # parameter -> the rank folded for it
        self.parameters = parameters

    def _rank(self, expr):
        if not isinstance(expr, gast.Name):
            return None
        types = self.context.types_of(expr.id)
        if len(types) != 1:
            return None
        kind = next(iter(types))
        if kind[0] == "array":
            rank = kind[2]
        elif kind[0] == "scalar" and expr.id not in self.parameters:
            rank = 0
        else:
            return None
        if expr.id in self.parameters:       # checked at entry: an array parameter's rank
            self.folded_parameters[expr.id] = rank
        return rank

    def _is_ndim(self, expr):
        """`jnp.ndim(x)` / `np.ndim(x)` with the name resolving to astjax.numpy or NumPy."""
        if not (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and expr.func.attr == "ndim"
                and isinstance(expr.func.value, gast.Name) and len(expr.args) == 1 and not expr.keywords):
            return False
        import numpy as np

        from ... import numpy as anp
        module = self.context.namespace.get(expr.func.value.id)
        return getattr(module, "ndim", None) in (np.ndim, anp.ndim)

    def visit_Call(self, node):
        self.generic_visit(node)
        if self._is_ndim(node):
            rank = self._rank(node.args[0])
            if rank is not None:
                self.changed = True
                return _folded(rank)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        a, b = _int(node.left), _int(node.right)
        if a is not None and b is not None and type(node.op) in _ARITHMETIC and _from_ranks(node.left, node.right):
            self.changed = True
            return _folded(_ARITHMETIC[type(node.op)](a, b))
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            a, b = _int(node.left), _int(node.comparators[0])
            if a is not None and b is not None and _from_ranks(node.left, node.comparators[0]):
                self.changed = True
                return _folded(_COMPARE[type(node.ops[0])](a, b))
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Not) and _bool(node.operand) is not None:
            self.changed = True
            return _folded(not _bool(node.operand))
        return node

    def visit_BoolOp(self, node):
        """Python's `and`/`or` left to right: a constant that decides ends it (it is the value when reached),
        one that does not drops out (unless it is last: then it is the value when reached)."""
        self.generic_visit(node)
        deciding = isinstance(node.op, gast.Or)
        values = []
        for k, value in enumerate(node.values):
            truth = _bool(value)
            if truth is None or k == len(node.values) - 1:
                values.append(value)
            elif truth == deciding:
                values.append(value)
                break
        if len(values) == len(node.values):
            return node
        self.changed = True
        return values[0] if len(values) == 1 else gast.BoolOp(op=node.op, values=values)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        truth = _bool(node.test)
        if truth is None:
            return node
        self.changed = True
        return node.body if truth else node.orelse


def _prune(body, folder):
    """`body` with each `if` on a constant replaced by the statements of its branch (recursively)."""
    out = []
    for stmt in body:
        for field in ("body", "orelse"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt) \
                    and not isinstance(stmt, gast.FunctionDef):
                setattr(stmt, field, _prune(block, folder))
        if isinstance(stmt, gast.If) and _bool(stmt.test) is not None:
            folder.changed = True
            out.extend(stmt.body if _bool(stmt.test) else stmt.orelse)
        else:
            out.append(stmt)
    return out or [gast.Pass()]


def _constant_names(node):
    """{name: (constant, index)} for names stored exactly once in the function, by a top-level assignment
    of a bool or int this pass folded, at the statement `index` (reads after it may use the constant)."""
    stores = {}
    for n in walk(node):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
    for n in walk(node):
        if isinstance(n, (gast.Global, gast.Nonlocal)):
            for name in n.names:
                stores[name] = 2
    out = {}
    for i, stmt in enumerate(node.body):
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and stores.get(stmt.targets[0].id) == 1 and _from_ranks(stmt.value)
                and (_bool(stmt.value) is not None or _int(stmt.value) is not None)):
            out[stmt.targets[0].id] = (stmt.value.value, i)
    return out


class _Substitute(NodeTransformer):
    """Reads of constant names (in a statement after their assignment) as the constants."""

    def __init__(self, constants, folder):
        self.constants, self.folder = constants, folder

    def visit_Name(self, node):
        if node.id in self.constants and isinstance(node.ctx, gast.Load):
            self.folder.changed = True
            return _folded(self.constants[node.id])
        return node


def _folded(value):
    """A constant this pass computed from ranks (only those take part in further folding)."""
    constant = gast.Constant(value=value, kind=None)
    constant._astjax_from_ranks = True
    return constant


def _from_ranks(*exprs):
    return any(getattr(e, "_astjax_from_ranks", False) for e in exprs)


def _int(expr):
    if isinstance(expr, gast.Constant) and isinstance(expr.value, int) and not isinstance(expr.value, bool):
        return expr.value
    return None


def _bool(expr):
    """The value of a constant bool this pass computed (a `True` the user wrote is left alone)."""
    if isinstance(expr, gast.Constant) and isinstance(expr.value, bool) and _from_ranks(expr):
        return expr.value
    return None
