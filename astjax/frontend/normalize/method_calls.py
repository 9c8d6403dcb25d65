"""Array methods and properties become calls of astjax.numpy functions.

    y = x.sum(axis=0) + x.T        ->   y = jnp.sum(x, axis=0) + jnp.transpose(x)
    r = x.real + x.conj()          ->   r = jnp.real(x) + jnp.conjugate(x)
    z = x.reshape(2, 3)            ->   z = jnp.reshape(x, (2, 3))

Only methods called on values (not on modules such as `np`) are rewritten; an array held by a global
counts as a value (`_W.copy()` -> `jnp.copy(_W)`).
"""
import copy

import gast
import numpy as np

from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name

# method -> astjax.numpy function (same arguments, the array first)
METHODS = {m: m for m in ("sum", "mean", "prod", "max", "min", "var", "std", "argmax", "argmin",
                          "ravel", "squeeze", "clip", "cumsum", "swapaxes", "dot", "round",
                          "any", "all", "copy", "transpose", "reshape", "astype", "cumprod", "diagonal",
                          "trace", "take", "repeat", "argsort")}
METHODS["flatten"] = "ravel"
METHODS.update(conj="conjugate", conjugate="conjugate")      # of a real array: the identity (rules check it is real)
_PROPERTIES = {"T": "transpose", "real": "real", "imag": "imag"}     # x.real -> jnp.real(x)
VARARG_METHODS = {"reshape", "transpose"}
_UPDATES = {"max": "maximum", "min": "minimum", "power": None, "subtract": None, "divide": None, "multiply": None}


def _index_value(index):
    """An index written inside `[...]` as an expression a call can take: `1:3` -> `slice(1, 3, None)`."""
    if isinstance(index, gast.Slice):
        parts = [copy.deepcopy(p) if p is not None else gast.Constant(value=None, kind=None)
                 for p in (index.lower, index.upper, index.step)]
        return gast.Call(func=name("slice"), args=parts, keywords=[])
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[_index_value(e) for e in index.elts], ctx=gast.Load())
    return index   # x.reshape(2, 3) means x.reshape((2, 3))


class MethodCalls(Pass):
    """Rewrite `x.method(...)` and `x.T` into `jnp.<function>(x, ...)`."""

    def _is_value(self, node):
        """A value computed in the function, or an array held by a global or closure (`_W.copy()`): its
        methods are astjax.numpy's functions too (a global is not a module like `np`)."""
        static = self.context.resolver.static_value(node)
        return static is NOT_STATIC or isinstance(static, np.ndarray)

    def visit_Call(self, node):
        self.generic_visit(node)
        self._at_keywords(node)
        func = node.func
        update = self._index_update(node)
        if update is not None:
            return copy_location(update, node)
        if not (isinstance(func, gast.Attribute) and self._is_value(func.value)):
            return node
        if func.attr not in METHODS:
            return node
        args = node.args
        if func.attr in VARARG_METHODS and len(args) > 1:
            args = [gast.Tuple(elts=args, ctx=gast.Load())]
        call = gast.Call(func=gast.Attribute(value=name("jnp"), attr=METHODS[func.attr], ctx=gast.Load()),
                         args=[func.value] + args, keywords=node.keywords)
        return copy_location(call, node)

    def _at_keywords(self, node):
        """JAX's keywords of `x.at[i].method(...)`, settled before the update is rewritten (in place).

            x.at[i].mul(v)                               ->   x.at[i].multiply(v)
            x.at[i].set(v, mode="drop", unique_indices=True)   ->   x.at[i].set(v)

        The hints (`indices_are_sorted`, `unique_indices`) and the modes that keep astjax's own meaning
        (an update drops an out-of-bounds position; "promise_in_bounds") are dropped. `mode="clip"`, and a
        read with `mode="fill"`/`fill_value`, are refused: their rules are not written, and dropping the
        keyword would change the number.
        """
        func = node.func
        if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Subscript)
                and isinstance(func.value.value, gast.Attribute) and func.value.value.attr == "at"
                and self._is_value(func.value.value.value)):
            return
        if func.attr == "mul":
            func.attr = "multiply"
        kept = []
        for keyword in node.keywords:
            value = keyword.value
            constant = value.value if isinstance(value, gast.Constant) else NOT_STATIC
            if keyword.arg in ("indices_are_sorted", "unique_indices"):
                continue
            if keyword.arg == "mode" and (constant in (None, "promise_in_bounds") or (
                    func.attr != "get" and constant in ("drop", "fill"))):
                continue
            if keyword.arg in ("mode", "fill_value"):
                raise self.error(f"`x.at[...].{func.attr}(..., {keyword.arg}=...)` is not supported inside an astjax "
                                 "transformation (its out-of-bounds meaning has no derivative rule here)", node,
                                 hint="move the index inside the array yourself, e.g. `x.at[jnp.clip(i, 0, n - 1)]` "
                                      "for non-negative i, or call it outside the transformed function")
            if keyword.arg is not None:
                raise self.error(f"`x.at[...].{func.attr}()` got an unexpected keyword argument `{keyword.arg}`",
                                 node, hint="JAX's keywords are indices_are_sorted, unique_indices, mode (and "
                                            "fill_value for get)")
            kept.append(keyword)
        node.keywords = kept

    def _index_update(self, node):
        """`x.at[i].max(v)` and friends as the updates whose rules astjax has (None for other calls).

            x.at[i].max(v)        ->   x.at[unique_index(i, x)].set(jnp.maximum(x[i], v))
            x.at[i].min(v)        ->   x.at[unique_index(i, x)].set(jnp.minimum(x[i], v))
            x.at[i].power(v)      ->   x.at[unique_index(i, x)].set(x[i] ** v)
            x.at[i].subtract(v)   ->   x.at[i].add(-v)
            x.at[i].divide(v)     ->   x.at[unique_index(i, x)].multiply(1.0 / v)
            x.at[i].multiply(v)   ->   x.at[unique_index(i, x)].multiply(v)     (v not a literal)

        (`unique_index` checks at run time that no position repeats: with repeats a
        scatter-max is not a max of one old value and one new one.)
        """
        func = node.func
        if not (isinstance(func, gast.Attribute) and func.attr in _UPDATES and isinstance(func.value, gast.Subscript)
                and isinstance(func.value.value, gast.Attribute) and func.value.value.attr == "at"
                and len(node.args) == 1 and not node.keywords and self._is_value(func.value.value.value)):
            return None
        array, index, value = func.value.value.value, func.value.slice, node.args[0]

        def at(idx, method, argument):
            ref = gast.Subscript(value=gast.Attribute(value=copy.deepcopy(array), attr="at", ctx=gast.Load()),
                                 slice=idx, ctx=gast.Load())
            return gast.Call(func=gast.Attribute(value=ref, attr=method, ctx=gast.Load()), args=[argument],
                             keywords=[])

        checked = gast.Call(func=name("unique_index"), args=[_index_value(index), copy.deepcopy(array)],
                            keywords=[])
        if func.attr == "multiply":       # by a literal: a repeated position is multiplied by it twice, as in JAX
            return at(checked, "multiply", value) if not isinstance(value, gast.Constant) else None
        if func.attr == "subtract":
            return at(index, "add", gast.UnaryOp(op=gast.USub(), operand=value))
        if func.attr == "divide":
            return at(checked, "multiply", gast.BinOp(left=gast.Constant(value=1.0, kind=None), op=gast.Div(),
                                                      right=value))
        old = gast.Subscript(value=copy.deepcopy(array), slice=copy.deepcopy(index), ctx=gast.Load())
        if func.attr == "power":
            new = gast.BinOp(left=old, op=gast.Pow(), right=value)
        else:
            new = gast.Call(func=gast.Attribute(value=name("jnp"), attr=_UPDATES[func.attr], ctx=gast.Load()),
                            args=[old, value], keywords=[])
        return at(checked, "set", new)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr in _PROPERTIES and isinstance(node.ctx, gast.Load) and self._is_value(node.value):
            call = gast.Call(func=gast.Attribute(value=name("jnp"), attr=_PROPERTIES[node.attr], ctx=gast.Load()),
                             args=[node.value], keywords=[])
            return copy_location(call, node)
        return node
