"""A copy of a user function whose `*args`, keyword-only and `**kwargs` parameters are ordinary ones.

    def _sum_all(x, *vals, scale=1.0, **kw)   ->   def _sum_all(x, vals, scale, kw)

Each call site passes the `*args` tuple as a tuple literal and the `**kwargs`
dict as a dict literal (normalize/call_signatures.py), so the copy is made per
(number of extra positional arguments, keyword names): its source records them
(`static_lengths`, `static_keys`), and inside the copy `g(*vals)` and
`g(**kw)` can be expanded into arguments one by one. Defaults are not kept:
the call site passes every parameter, a default as the value bound when the
function was defined.
"""
import copy

from .parse import function_source
from .specialize import function_from_node

__all__ = ["has_special_parameters", "plain_signature", "ordinary_parameters"]

_CACHE = {}


def has_special_parameters(fn):
    """Whether the plain function `fn` takes *args, keyword-only parameters or **kwargs."""
    import inspect
    code = fn.__code__
    return bool(code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) or code.co_kwonlyargcount)


def plain_signature(fn, vararg_count, kwarg_keys):
    """`fn` with every parameter ordinary and without defaults, in the order: positional ones, the
    `*args` tuple, the keyword-only ones, the `**kwargs` dict."""
    key = (fn, fn.__code__, vararg_count, tuple(kwarg_keys))
    found = _CACHE.get(key)
    if found is not None and found[0] is fn:
        return found[1]
    source = function_source(fn)
    node = copy.deepcopy(source.node)
    args = node.args
    params = ordinary_parameters(args, with_kwarg=True)
    lengths = {args.vararg.id: vararg_count} if args.vararg is not None else {}
    keys = {args.kwarg.id: tuple(kwarg_keys)} if args.kwarg is not None else {}
    args.posonlyargs, args.args, args.vararg, args.kwarg = [], params, None, None
    args.kwonlyargs, args.kw_defaults, args.defaults = [], [], []
    for param in params:
        param.annotation = None
    node.decorator_list = []
    node.returns = None
    special = function_from_node(fn, node, source, {})
    special.__astjax_specialized_source__.static_lengths = lengths
    special.__astjax_specialized_source__.static_keys = keys
    _CACHE[key] = (fn, special)
    return special


def ordinary_parameters(args, with_kwarg):
    """The parameters of `args` (a gast arguments node) in call order: positional ones, the `*args`
    name, the keyword-only ones, and (with_kwarg) the `**kwargs` name."""
    params = list(args.posonlyargs) + list(args.args)
    if args.vararg is not None:
        params.append(args.vararg)
    params += list(args.kwonlyargs)
    if with_kwarg and args.kwarg is not None:
        params.append(args.kwarg)
    return params
