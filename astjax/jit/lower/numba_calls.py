"""Each call in generated code becomes a call Numba can compile.

    _t2 = jnp.exp(-x)                  ->   _t2 = exp(-x)            (exp: the primitive's Numba lowering)
    bx = unreduce(bout, _t4) * _t4     ->   bx = unreduce(bout, _t4, None, False, None) * _t4
    _t2 = blur(_t1, x)                 ->   _t2 = jit_blur(_t1, x)   (a generated callee, compiled too)
    bx += e                            ->   bx = bx + e
    for i in reversed(range(n)):       ->   for i in range(n - 1, -1, -1):

Arguments are passed by position in the primitive's signature order, defaults
written out, so a lowering needs no keyword handling. `+=` becomes an
assignment because Numba would add into the array in place, through every
name that shares it (`bx = b_t2; bx += e` would change b_t2). A call that has
no lowering, and any construct Numba would have to guess at, is refused at
the user's line.
"""
import builtins
import copy
import inspect
import weakref

import gast

from ...codegen.unparse import unparse
from ...rules import lookup_callable
from ...rules.registry import lowering
from .dtypes import DtypeReader
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["lower_calls"]

# Builtins Numba compiles with Python's meaning.
_BUILTINS = {"range", "len", "enumerate", "zip", "int", "bool", "tuple", "slice"}
# Exceptions the generated checks raise (`if jnp.ndim(out) != 0: raise TypeError("...")`).
_EXCEPTIONS = {"TypeError", "ValueError", "IndexError"}


def _constant_exception(node, target):
    """`TypeError("text")`: a builtin exception built from constants, which Numba can raise."""
    func = node.func
    return (isinstance(func, gast.Name) and func.id in _EXCEPTIONS and getattr(builtins, func.id) is target
            and not node.keywords and all(isinstance(a, gast.Constant) for a in node.args))


# Methods of lists created inside the function.
_LIST_METHODS = {"append", "pop"}
# Helpers the lowering passes write (jit/numba_support.py, jit/python_numbers.py).
_WRITTEN_BY_LOWERING = {"shape_of", "weak_like", "pad_edge_or_zeros", "zeros_shaped", "stack_list", "py_add",
                        "py_sub", "py_mul", "py_div", "py_floordiv", "py_mod", "py_pow", "py_lshift", "py_rshift", "py_neg", "py_math1", "py_math2", "np_int_pow", "wide_sum", "wide_mean",
                        "py_int", "broadcast_shape", "window_shape", "mask_select", "wrap_narrow", "weak_int",
                        "integer_true_divide", "int64_floor_divide"}


def lower_calls(node, context):
    locals_ = {n.id for n in walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param))}
    locals_ |= {a.id for a in node.args.args}
    _CallLowering(context, locals_).visit(node)


class _CallLowering(NodeTransformer):
    def __init__(self, context, locals_):
        self.context = context
        self.locals = locals_

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        target = node.target
        if not isinstance(target, gast.Name):
            raise self.context.error("jit cannot compile an in-place update of this target", node,
                                     "write `a = a + b`")
        load = gast.Name(id=target.id, ctx=gast.Load(), annotation=None, type_comment=None)
        if isinstance(node.op, gast.Add) and self._may_be_tuple_adjoint(target.id, node.value):
            value = self._adjoint_sum(load, node.value)
        else:
            value = gast.BinOp(left=load, op=node.op, right=node.value)
        return gast.copy_location(gast.Assign(targets=[target], value=value), node)

    def _may_be_tuple_adjoint(self, name, value):
        """Whether `name += value` may add adjoints of tuples: the reference held a TreeAdjoint there, or
        an adjoint whose types were not observed meets a helper that builds one."""
        types = self.context.types_of(name)
        if ("object", "TreeAdjoint") in types:
            return True
        derivatives = getattr(self.context.generated, "__astjax_derivative_names__", frozenset())
        return name in derivatives and not types and _builds_tree_adjoint(value)

    def _adjoint_sum(self, left, right):
        """A tuple's adjoint adds item by item (Numba's `+` would join the tuples): runtime/numba_list_adjoints."""
        from ...runtime.numba_list_adjoints import adjoint_sum
        label = self.context.bind("adjoint_sum", adjoint_sum, self.locals)
        return gast.Call(func=_name(label), args=[left, right], keywords=[])

    def visit_BinOp(self, node):
        """`b + e` of tuple adjoints adds item by item. `a @ b` with an operand of rank 3 or more (vmap's batched products): Numba's `@` takes 1-d and
        2-d operands only, so it goes to matmul's lowering (one BLAS call for a batch times a matrix); so does one
        of two dtypes (float32 @ float64)."""
        self.generic_visit(node)
        if isinstance(node.op, gast.Add) and any(
                isinstance(a, gast.Name) and self._may_be_tuple_adjoint(a.id, b)
                for a, b in ((node.left, node.right), (node.right, node.left))):
            return gast.copy_location(self._adjoint_sum(node.left, node.right), node)   # `b = b + e` of adjoints
        if not isinstance(node.op, gast.MatMult):
            return node
        if all(self._rank(o) in (1, 2) for o in (node.left, node.right)) and self._one_dtype(node.left, node.right):
            return node
        from ... import numpy as anp
        call = gast.copy_location(gast.Call(func=_name("matmul"), args=[node.left, node.right], keywords=[]), node)
        return self._primitive(call, lookup_callable(anp.matmul))

    def _one_dtype(self, left, right):
        """Both operands observed with one dtype: Numba's `@` refuses float32 @ float64, which matmul's lowering
        computes in their result type as the reference does."""
        reader = DtypeReader(self.context)
        dtypes = {reader.dtype(v) for v in (left, right)}
        return len(dtypes) == 1 and None not in dtypes

    def _rank(self, expr):
        kind = self.context.lowered_type(expr.id) if isinstance(expr, gast.Name) else None
        return kind[2] if kind is not None and kind[0] == "array" else None

    def visit_For(self, node):
        it = node.iter
        if isinstance(it, gast.Call) and self._static(it.func) is builtins.reversed and len(it.args) == 1:
            inner, count = it.args[0], None
            if (isinstance(inner, gast.Subscript) and isinstance(inner.slice, gast.Slice)
                    and inner.slice.lower is None and inner.slice.step is None and inner.slice.upper is not None):
                inner, count = inner.value, inner.slice.upper      # the first `count` steps (a loop left by break)
            if isinstance(inner, gast.Call) and self._static(inner.func) is builtins.range:
                node.iter = _reversed_range(inner, self.context, node, count)
        self.generic_visit(node)
        return node

    def visit_Subscript(self, node):
        """`x[mask]` with a boolean mask of rank 2 or more: Numba indexes with it as with an integer array (a
        wrong shape), so jit/numba_support.py's mask_select selects in C order, as NumPy does. vmap's
        `x[jnp.arange(B), batch_take_index(i)]` (two index arrays, which Numba does not take) reads row i[b]
        of example b through runtime/numba_batch_indices.py's batch_take_rows."""
        rows = self._batch_take_rows(node)
        if rows is not None:
            return rows
        self.generic_visit(node)
        if isinstance(node.ctx, gast.Load) and _boolean_mask_rank(node.slice, self.context) >= 2:
            return gast.copy_location(gast.Call(func=_name("mask_select"), args=[node.value, node.slice],
                                                keywords=[]), node)
        return node

    def _batch_take_rows(self, node):
        from ...rules.batching import batch_take_index
        index = node.slice
        if not (isinstance(node.ctx, gast.Load) and isinstance(index, gast.Tuple) and len(index.elts) == 2
                and all(isinstance(e, gast.Call) and len(e.args) == 1 and not e.keywords for e in index.elts)):
            return None
        arange = lookup_callable(self._static(index.elts[0].func))
        if arange is None or arange.name != "arange" or self._static(index.elts[1].func) is not batch_take_index:
            return None
        from ...runtime.numba_batch_indices import STUBS
        call = gast.Call(func=_name(self.context.bind("batch_take_rows", STUBS["batch_take_rows"], self.locals)),
                         args=[self.visit(node.value), self.visit(index.elts[1].args[0])], keywords=[])
        return gast.copy_location(call, node)

    def visit_Call(self, node):
        if isinstance(node.func, gast.Call) and isinstance(node.func.func, gast.Name) \
                and node.func.func.id == "checked_callee" and len(node.func.args) == 1:
            node.func = node.func.args[0]     # primal_calls.py's check of a callee known when it runs: Numba
            #                                    compiles the call as written (NumPy's semantics) or refuses it
        functional = _functional_update(node)
        if functional is not None:                  # by.at[i].set(0.0) -> at_set(by, i, 0.0)
            node = functional
        native = self._native(node)
        attribute = self._native_attribute(node)
        if node.args and isinstance(node.args[0], gast.Call) and not node.keywords and len(node.args) == 1:
            stacked = lookup_callable(self._static(node.func)) if not isinstance(node.func, gast.Name) or \
                node.func.id not in self.locals else None
            if stacked is not None and stacked.name == "stack":
                node.args[0]._astjax_sequence_of = "stack"      # see _list_local
        self.generic_visit(node)
        if attribute is not None:
            return gast.copy_location(gast.Attribute(value=node.args[0], attr=attribute, ctx=gast.Load()), node)
        if native is not None:
            return gast.copy_location(gast.Call(func=gast.parse(native).body[0].value, args=node.args, keywords=[]),
                                      node)
        func = node.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id in self.locals:
            if func.attr in _LIST_METHODS:
                return node
            raise self.context.error(f"jit cannot compile the method call `.{func.attr}()` here", node,
                                     "call the astjax.numpy function instead (x.sum() -> jnp.sum(x))")
        if isinstance(func, gast.Name) and func.id in self.locals:
            raise self.context.error(f"jit cannot compile a call of the local value `{func.id}`", node,
                                     "call the function by its global name")
        if isinstance(func, gast.Attribute) and func.attr == "__call__":
            raise self.context.error("jit cannot compile this call", node, None)
        if isinstance(func, gast.Name) and (func.id in _WRITTEN_BY_LOWERING or func.id.startswith(("_fused_", "_stencil_", "_while_", "_rank_guard", "_number_carry"))
                                            and func.id in self.context.bindings):
            return node                               # written by the lowering passes themselves
        target = self._static(func)
        if target is _UNKNOWN:
            raise self.context.error(f"jit cannot tell what `{unparse(node).strip()}` calls", node,
                                     "call a function defined at module level or an astjax.numpy function")
        if _is_numpy_scalar_type(target):                  # np.float32(x): a cast Numba knows
            return node
        if isinstance(func, gast.Name) and func.id in _BUILTINS and getattr(builtins, func.id) is target:
            return node
        if _constant_exception(node, target):       # raise TypeError("..."): Numba raises it as it is
            return node
        from ...rules import helpers
        if target is helpers.shaped_gradient:       # Numba's arguments are arrays: nothing to reshape
            return node.args[0]
        if target is helpers.zeros_shaped:
            node.func = _name("zeros_shaped")        # jit/numba_support.py
            return node
        if target is helpers.tuple_items and self._list_local(node):
            return node.args[0]                     # the list itself: `jnp.stack(...)` of it stacks a list
        padded = self._native_pad(node, target)
        if padded is not None:
            return padded
        stacked = self._stack_of_list(node, target)
        if stacked is not None:
            return stacked
        if target is _stack_adjoint_examples():    # vmap of a derivative stacks its examples (not a primitive)
            from ...runtime.numba_cpu import STUBS
            label = self.context.bind("stack_adjoint_examples", STUBS["stack_adjoint_examples"], self.locals)
            return gast.copy_location(gast.Call(func=_name(label), args=node.args, keywords=[]), node)
        prim = lookup_callable(target)
        if prim is not None and prim.name not in ("push", "pop", "Tape"):
            return self._primitive(node, prim)
        generated = getattr(target, "__astjax_function_source__", None)
        if generated is not None and getattr(target, "__globals__", None) is not None:
            return self._callee(node, target)
        product = self._native_product_adjoint(node, target)
        if product is not None:
            return product
        composite = _composite_lowering(target)
        if composite is not None:
            label = self.context.bind(target.__name__, composite, self.locals)
            return gast.copy_location(gast.Call(func=_name(label), args=node.args, keywords=node.keywords), node)
        if _is_user_function(target):
            return self._callee(node, primal_of(target))
        raise self.context.error(f"jit cannot compile a call to `{_describe(target)}`: it has no Numba lowering",
                                 node, "run this function without jit, or compute this value outside the jitted "
                                       "function and pass it in")

    def _native_attribute(self, node):
        """`jnp.shape(x)`, `jnp.ndim(x)`, `jnp.size(x)` of an array: its attribute (compiled in no time)."""
        if node.keywords or len(node.args) != 1:
            return None
        target = self._static(node.func)
        prim = lookup_callable(target) if target is not _UNKNOWN else None
        if prim is None or prim.name not in ("shape", "ndim", "size"):
            return None
        rank = _rank(node.args[0], self.context)
        return prim.name if rank is not None and rank >= 1 else None

    def _native(self, node):
        """`np.<name>` when Numba's own NumPy function gives exactly the reference's result here: the
        operands are given by position, all of one float dtype (float32 or float64), and the call passes
        nothing else. Numba types its own functions far faster than a generic lowering."""
        if node.keywords or not node.args:
            return None
        target = self._static(node.func)
        prim = lookup_callable(target) if target is not _UNKNOWN else None
        if prim is not None and prim.name == "transpose" and len(node.args) == 2 and \
                isinstance(node.args[1], gast.Constant) and node.args[1].value is None:
            node.args = node.args[:1]           # transpose(x, None) reverses the axes, as np.transpose(x)
        if prim is None or prim.name not in NATIVE or len(node.args) != NATIVE[prim.name][1]:
            return None
        reader = DtypeReader(self.context)
        operands = node.args[1:] if prim.name == "where" else node.args
        dtypes = {reader.dtype(a) for a in operands}
        dtype = dtypes.pop() if len(dtypes) == 1 else None
        if dtype not in ("float32", "float64"):
            return None
        if dtype == "float32" and prim.name in _WIDE:        # Numba's np.sum adds float32 to a float32 total
            return _WIDE[prim.name]
        if prim.name == "where" and not _is_boolean(node.args[0], self.context):
            return None
        if prim.name in ("dot", "matmul") and not all(_rank(a, self.context) in (1, 2) for a in node.args):
            return None
        if prim.name in ("zeros_like", "zero_tangent"):         # allocated inline (runtime/numba_allocate.py)
            from ...runtime.numba_allocate import zeros_like_array
            return self.context.bind("zeros_like_array", zeros_like_array, self.locals)
        if prim.name in ("dot", "matmul") and all(_rank(a, self.context) == 2 for a in node.args):
            node.args = [*node.args, _false(), _false()]        # one gemm for every layout (numba_gemm.py)
            return self._matrix_product()
        return NATIVE[prim.name][0]

    def _matrix_product(self):
        """The bound name of runtime/numba_gemm.py's `matrix_product(a, b, transpose_a, transpose_b)`."""
        from ...runtime.numba_gemm import matrix_product
        return self.context.bind("matrix_product", matrix_product, self.locals)

    def _list_local(self, node):
        """`tuple_items(xs)` (normalization's `tuple(v for v in ...)`) of a local that held only lists: Numba
        cannot make a tuple of a length it does not know, so the list stands for it, and only where a
        list means the same: as the sequence `jnp.stack` reads (elsewhere the
        compiled result would hold a list where the reference has a tuple, and the first call's check
        refuses it)."""
        if len(node.args) != 1 or node.keywords or not isinstance(node.args[0], gast.Name):
            return False
        kinds = self.context.types_of(node.args[0].id)
        parent = getattr(node, "_astjax_sequence_of", None)
        return bool(kinds) and all(k[0] == "list" for k in kinds) and parent is not None

    def _stack_of_list(self, node, target):
        """`jnp.stack(results)` of a list variable (vmap's loop over the batch builds one): Numba stacks
        tuples only, so a list goes through jit/numba_support.py's stack_list."""
        prim = lookup_callable(target)
        if (prim is None or prim.name != "stack" or len(node.args) != 1 or node.keywords
                or not isinstance(node.args[0], gast.Name)):
            return None
        return gast.copy_location(gast.Call(func=_name("stack_list"), args=node.args, keywords=[]), node)

    def _native_pad(self, node, target):
        """`jnp.pad(x, widths, mode="edge" | "constant")` of a vector or matrix: one loop nest
        (jit/numba_support.py), where the generic lowering takes seconds to compile."""
        prim = lookup_callable(target)
        if prim is None or prim.name != "pad" or len(node.args) != 2:
            return None
        modes = [k.value.value for k in node.keywords if k.arg == "mode" and isinstance(k.value, gast.Constant)]
        if len(node.keywords) > 1 or (node.keywords and not modes) or (modes and modes[0] not in ("edge", "constant")):
            return None
        if _rank(node.args[0], self.context) not in (1, 2):
            return None
        edge = gast.Constant(value=bool(modes) and modes[0] == "edge", kind=None)
        return gast.copy_location(gast.Call(func=_name("pad_edge_or_zeros"), args=[*node.args, edge], keywords=[]),
                                  node)

    def _native_product_adjoint(self, node, target):
        """dot/matmul adjoints of vectors and matrices of one float dtype, as the products they are
        (`g @ b.T`, `a.T @ g`, outer products): Numba types these in milliseconds."""
        name = getattr(target, "__name__", None)
        if name not in _PRODUCT_ADJOINTS or node.keywords or len(node.args) != 3:
            return None
        from ...rules.linalg import COMPOSITES
        if COMPOSITES.get(name) is not target:
            return None
        g, a, b = node.args
        ranks = (_rank(a, self.context), _rank(b, self.context))
        template = _PRODUCT_ADJOINTS[name].get(ranks)
        reader = DtypeReader(self.context)
        dtypes = {reader.dtype(v) for v in (g, a, b)}
        if template is None or len(dtypes) != 1 or dtypes.pop() not in ("float32", "float64") \
                or not all(isinstance(v, gast.Name) for v in (a, b)):
            return None
        text = template.format(g=f"({unparse(g).strip()})", a=a.id, b=b.id)
        if ranks == (2, 2):                                   # one gemm for every layout (numba_gemm.py)
            text = text.replace("matrix_product", self._matrix_product())
        return gast.copy_location(gast.parse(text).body[0].value, node)

    def _primitive(self, node, prim):
        implementation = lowering(prim, "numba")
        if implementation is None:
            raise self.context.error(f"jit has no Numba lowering for `{prim.name}` yet", node,
                                     "run this function without jit (astjax.jit refuses rather than run it slowly "
                                     "without telling you)")
        bound = prim.bind(node.args, {k.arg: k.value for k in node.keywords})
        if bound is None:
            raise self.context.error(f"these arguments do not fit `{prim.name}`'s signature", node, None)
        args = []
        for name, param in prim.signature.parameters.items():
            if param.kind is inspect.Parameter.VAR_KEYWORD:
                continue
            value = bound.get(name)
            if value is None:
                value = gast.Constant(value=None, kind=None)
            if name == prim.sequence_operand and isinstance(value, gast.List):
                value = _list_literals_as_tuples(value)
            args.append(value)
        label = self.context.bind(prim.name, implementation, self.locals)
        return gast.copy_location(gast.Call(func=_name(label), args=args, keywords=[]), node)

    def _callee(self, node, target):
        if node.keywords:
            signature = inspect.signature(target)
            try:
                bound = signature.bind(*node.args, **{k.arg: k.value for k in node.keywords})
            except TypeError:
                raise self.context.error("these arguments do not fit the called function", node, None)
            bound.apply_defaults()
            node.args = [v if isinstance(v, gast.AST) else gast.Constant(value=v, kind=None)
                         for v in bound.arguments.values()]
            node.keywords = []
        if target not in self.context.callees:
            self.context.callees.append(target)
            self.context.call_sites[target] = gast.copy_location(gast.Pass(), node)
        label = self.context.bind(target.__name__, target, self.locals)
        node.func = _name(label)
        return node

    def _static(self, expr):
        if isinstance(expr, gast.Name):
            if expr.id == "_astjax_helpers":          # written by _functional_update
                from ...rules import helpers
                return helpers
            if expr.id in self.locals:
                return _UNKNOWN
            if expr.id in self.context.namespace:
                return self.context.namespace[expr.id]
            if expr.id in self.context.bindings:      # bound by an earlier pass (lower/vmap_calls.py)
                return self.context.bindings[expr.id]
            if expr.id == "np":                 # written by the lowering passes themselves
                import numpy
                return numpy
            return getattr(builtins, expr.id, _UNKNOWN)
        if isinstance(expr, gast.Attribute):
            base = self._static(expr.value)
            return _UNKNOWN if base is _UNKNOWN else getattr(base, expr.attr, _UNKNOWN)
        return _UNKNOWN


_UNKNOWN = object()
# primitive -> (Numba's NumPy function, the number of positional operands it is used with)
NATIVE = {name: (f"np.{name}", 1) for name in (
    "exp", "log", "tanh", "sin", "cos", "tan", "sqrt", "expm1", "log1p", "arcsin", "arccos", "arctan", "sinh",
    "cosh", "negative", "abs", "floor", "ceil", "sum", "max", "min", "mean", "prod", "zeros_like", "ones_like",
    "transpose")}
# (not maximum/minimum: Numba's np.maximum(-0.0, 0.0) is -0.0, NumPy's 0.0; their kernels follow NumPy)
NATIVE.update({name: (f"np.{name}", 2) for name in ("add", "subtract", "multiply", "divide", "power", "dot")})
NATIVE["matmul"] = ("np.dot", 2)
_WIDE = {"sum": "wide_sum", "mean": "wide_mean"}      # float32 sums accumulated in float64 (numba_support.py)
NATIVE["where"] = ("np.where", 3)
NATIVE["zero_tangent"] = ("np.zeros_like", 1)     # records and lists, its other cases, never reach Numba


# The adjoints of y = dot(a, b) (and matmul) by the ranks of (a, b), as Numba's own products (two
# matrices: runtime/numba_gemm.py's one gemm with transpose flags, whatever their layouts).
_DOT_LHS = {(2, 2): "matrix_product({g}, {b}, False, True)", (1, 2): "np.dot({b}, {g})", (2, 1): "np.outer({g}, {b})",
            (1, 1): "{g} * {b}"}
_DOT_RHS = {(2, 2): "matrix_product({a}, {g}, True, False)", (1, 2): "np.outer({a}, {g})", (2, 1): "np.dot({a}.T, {g})",
            (1, 1): "{g} * {a}"}
_PRODUCT_ADJOINTS = {"dot_lhs_adjoint": _DOT_LHS, "dot_rhs_adjoint": _DOT_RHS,
                     "matmul_lhs_adjoint": _DOT_LHS, "matmul_rhs_adjoint": _DOT_RHS}


def _functional_update(node):
    """`x.at[idx].set(v)` (and add, multiply), which derivative rules write, as `at_set(x, idx, v)`; a slice in
    the index (`x.at[0, 1:3]`, `x.at[i, :]`) is passed as `slice(1, 3, None)`, which Numba builds. None for
    anything else."""
    func = node.func
    if not (isinstance(func, gast.Attribute) and func.attr in ("set", "add", "multiply") and len(node.args) == 1
            and not node.keywords and isinstance(func.value, gast.Subscript)
            and isinstance(func.value.value, gast.Attribute) and func.value.value.attr == "at"):
        return None
    index = _slices_as_calls(func.value.slice)
    if index is None:
        return None
    name = {"set": "at_set", "add": "at_add", "multiply": "at_multiply"}[func.attr]
    call = gast.Call(func=gast.Attribute(value=_name("_astjax_helpers"), attr=name, ctx=gast.Load()),
                     args=[func.value.value.value, index, node.args[0]], keywords=[])
    return gast.copy_location(call, node)


def _slices_as_calls(index):
    """The index `0, 1:3` as the expression `(0, slice(1, 3, None))`; None where a slice is nested deeper."""
    parts = index.elts if isinstance(index, gast.Tuple) else None
    if parts is None:
        return _slice_call(index) if isinstance(index, gast.Slice) else index
    parts = [_slice_call(p) if isinstance(p, gast.Slice) else p for p in parts]
    if any(isinstance(n, gast.Slice) for p in parts for n in walk(p)):
        return None
    return gast.Tuple(elts=parts, ctx=gast.Load())


def _slice_call(part):
    none = gast.Constant(value=None, kind=None)
    bounds = [copy.deepcopy(b) if b is not None else none for b in (part.lower, part.upper, part.step)]
    return gast.Call(func=_name("slice"), args=bounds, keywords=[])


def _is_integer(expr, context):
    kinds = context.types_of(expr.id)
    return bool(kinds) and all(k == ("weak", "int") or (k[0] == "scalar" and k[1].startswith("int")) for k in kinds)


def _is_boolean(expr, context):
    if isinstance(expr, gast.Compare):
        return True
    if isinstance(expr, gast.Name):
        kinds = {t[1] for t in context.types_of(expr.id) if t[0] in ("array", "scalar")}
        return kinds == {"bool"}
    return False


def _false():
    return gast.Constant(value=False, kind=None)


def _is_scalar_cast(expr):
    """`np.float64(0)`: weak_scalars' cast of a number (a scalar)."""
    return (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and isinstance(expr.func.value, gast.Name)
            and expr.func.value.id == "np" and len(expr.args) == 1 and isinstance(expr.args[0], gast.Constant))


def _boolean_mask_rank(expr, context):
    """The rank of a boolean array index (a name observed as one, or a comparison), else 0."""
    if isinstance(expr, gast.Name):
        kinds = context.types_of(expr.id) - {("none",)}
        kind = next(iter(kinds)) if len(kinds) == 1 else None
        return kind[2] if kind is not None and kind[0] == "array" and kind[1] == "bool" else 0
    if isinstance(expr, gast.Compare):
        ranks = [0 if isinstance(e, gast.Constant) or _is_scalar_cast(e) else _rank(e, context)
                 for e in [expr.left, *expr.comparators]]
        return 0 if None in ranks else max(ranks)
    return 0


def _rank(expr, context):
    if isinstance(expr, gast.Subscript):                     # x[i] and x[i, j] with integer indices
        index = expr.slice.elts if isinstance(expr.slice, gast.Tuple) else [expr.slice]
        base = _rank(expr.value, context)
        if base is None or not all(isinstance(i, (gast.Name, gast.Constant)) for i in index):
            return None
        if any(isinstance(i, gast.Constant) and not isinstance(i.value, int) for i in index):
            return None
        if any(isinstance(i, gast.Name) and not _is_integer(i, context) for i in index):
            return None
        return base - len(index) if base >= len(index) else None
    if isinstance(expr, gast.Name):
        ranks = {t[2] if t[0] == "array" else 0 for t in context.types_of(expr.id) - {("none",)}}
        return ranks.pop() if len(ranks) == 1 else None
    return None
_PRIMALS = weakref.WeakKeyDictionary()      # user function -> (Derivation, its normalized generated function)


def primal_of(function):
    """The normalized generated version of a user function that generated code calls (a derivative's
    primal sweep calls the user's own callee), built again when a global it read was rebound."""
    from ...transforms.derivation import Derivation
    built = _PRIMALS.get(function)
    if built is None or not built[0].current():
        derivation = Derivation()
        built = _PRIMALS[function] = (derivation, derivation.primal(function))
        built[1].__astjax_primal_of__ = function
    return built[1]


def _stack_adjoint_examples():
    from ...rules.batching import stack_adjoint_examples
    return stack_adjoint_examples


def _composite_lowering(obj):
    """The Numba twin of a derivative rule's helper function (rules/linalg.py COMPOSITES), or None."""
    from ...rules.linalg import COMPOSITES
    name = getattr(obj, "__name__", None)
    if name not in COMPOSITES or COMPOSITES[name] is not obj:
        return None
    from ...runtime import numba_cpu
    return getattr(numba_cpu, "COMPOSITES", {}).get(name)


# astjax modules written as plain astjax code (the distributions, the nn activations, apply_along_axis's
# along_axis_result that a derivative's primal sweep calls): jit compiles them as it compiles the user's
_PLAIN_ASTJAX_CODE = ("astjax.scipy.stats.", "astjax.nn.", "astjax.rules.per_slice.")


def _is_user_function(obj):
    from ...analyses.classify import is_library
    module = obj.__module__ or "" if inspect.isfunction(obj) else ""
    return (inspect.isfunction(obj) and not is_library(obj)
            and (not module.startswith("astjax.") or module == "astjax.demo"
                 or (module + ".").startswith(_PLAIN_ASTJAX_CODE)))


def _reversed_range(call, context, loop, count=None):
    """`range(...)` walked backwards as a range Numba compiles; with `count`, only its first `count` values
    (`reversed(range(n)[:count])`: the iterations a loop ran before a `break`)."""
    args = call.args
    if call.keywords or len(args) > 2:
        raise context.error("jit cannot compile `reversed(range(start, stop, step))` yet", loop,
                            "write the loop with a positive step")
    from ...codegen.unparse import unparse
    start = unparse(args[0]).strip() if len(args) == 2 else "0"
    stop = unparse(args[1] if len(args) == 2 else args[0]).strip()
    if count is not None:
        stop = f"min({stop}, {start} + {unparse(count).strip()})"
    return gast.parse(f"range({stop} - 1, {start} - 1, -1)").body[0].value


def _is_numpy_scalar_type(obj):
    import numpy as np
    return isinstance(obj, type) and issubclass(obj, np.generic)


def _describe(obj):
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__
    return f"{module}.{name}" if module else name


_TREE_ADJOINT_BUILDERS = {"index_adjoint", "attribute_adjoint", "tree_item_adjoint", "item_adjoint"}


def _builds_tree_adjoint(expr):
    """A call of a helper that may build the adjoint of a tuple (an index_adjoint of one)."""
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id in _TREE_ADJOINT_BUILDERS


def _name(identifier):
    return gast.Name(id=identifier, ctx=gast.Load(), annotation=None, type_comment=None)


def _list_literals_as_tuples(node):
    """`[[a, b], [c, d]]` as nested tuples: Numba types a tuple of values, not a list of lists."""
    if isinstance(node, gast.List):
        return gast.Tuple(elts=[_list_literals_as_tuples(e) for e in node.elts], ctx=gast.Load())
    return node
