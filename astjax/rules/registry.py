"""The primitive table: each primitive's meaning, derivative rules and lowerings in one place.

A rule is a line of Python written the way it is written on a blackboard::

    defvjp(sin, "bx += by * jnp.cos(x)")
    defjvp(sin, "dy = dx * jnp.cos(x)")

Inside a template, the primitive's own parameter names (`x`, `x1`, `axis`)
stand for the arguments of the call being differentiated, `y` for its result,
`by` / `bx` for adjoints (reverse mode) and `dy` / `dx` for tangents (forward
mode). A rule may call only other primitives, so the code it generates can be
transformed again: that is how grad of grad works.
"""
import importlib
import inspect
import sys
from collections import namedtuple

import gast
from ..codegen.node_walk import walk

__all__ = ["Primitive", "primitive", "add_aliases", "defvjp", "defjvp", "defbatch", "deflowering", "lowering", "lookup_callable", "lookup_operator",
           "all_primitives", "parse_expression", "PRIMITIVES", "Classification", "classification",
           "resolve_lazy_aliases", "lazy_alias_modules"]


class Primitive:
    """One operation astjax knows: what it computes and how to differentiate and batch it.

    operands: the parameter names that carry differentiable values (`x`, or
        `x1, x2`); every other parameter is a static argument (`axis`, ...).
    vjp: operand name -> expression template of its adjoint contribution.
    jvp: operand name -> expression template of its tangent contribution.
    differentiable: False for comparisons, `floor`, `argmax`, shape queries:
        their results carry no derivative.
    sequence_operand: name of an operand that is a list of arrays (`stack`).
    reason: why a primitive with differentiable=False has a zero derivative
        (its result is integer or boolean, piecewise constant, or depends only on shapes).
    shape_params: non-operand parameters read only for their shape or structure
        (`unreduce(g, x)` reads x's shape): they may hold values that carry a
        derivative. Any other non-operand parameter that does is refused.
    effect: what the call does besides returning a value (it mutates its
        argument, it prints), else None: dead-code elimination keeps such calls.
    guard: the call only checks its arguments (it returns None, or raises astjax's refusal):
        vmap runs it once per example of a batched argument, as the per-example program would.
    index_params: parameters that are an index (`x[idx]`): a rule passes them to a
        function, so a slice in them is written as `slice(a, b)`.
    result_shape_of: the parameter whose shape the result has (`zeros_like(a)`), if any.
    broadcasts_with: non-operand parameters whose shape takes part in the result's
        broadcast shape (`where`'s condition).
    reads_shapes_of: parameters read only for their shape, ndim, dtype or type, never their
        values (rules/shape_only_parameters.py): vmap runs a shape helper once when only these
        carry the batch, and per example when any other parameter does.
    identity: the identity its rules apply, in one line a teacher writes on the board
        (`d det(A) = det(A) tr(inv(A) dA)`), or None: reverse mode prints it as a comment
        above the adjoint lines of each call.
    """

    def __init__(self, name, impl, operands=("x",), differentiable=True,
                 unbroadcast=False, sequence_operand=None, signature=None, doc=None,
                 reason=None, shape_params=(), effect=None, index_params=(), result_shape_of=None,
                 broadcasts_with=(), guard=False):
        self.name = name
        self.guard = guard
        self.impl = impl
        self.operands = tuple(operands)
        self.differentiable = differentiable
        self.reason = reason
        self.effect = effect
        self.index_params = tuple(index_params)
        self.result_shape_of = result_shape_of
        self.broadcasts_with = tuple(broadcasts_with)
        self.reads_shapes_of = frozenset()
        self.unbroadcast = unbroadcast
        self.sequence_operand = sequence_operand
        self._vjp = {}
        self._jvp = {}
        self._pending_rules = []     # rule texts parsed on first use of vjp/jvp: `import astjax` stays fast
        self.elementwise = False     # result has the broadcast shape of the operands
        self.static_check = None     # bound args -> (message, hint) when the rules do not cover this use
        self.accepts_scalar_zero = False   # its rules work when `by` is a bare 0.0 (nothing reached y yet)
        self.promotes_tuple_items = False  # its one argument is a tuple of values promoted together (jit casts
        #                                    the weak Python numbers in it as it casts an operator's operands)
        self.batch = None
        self.identity = None
        self.lowerings = {}
        self.signature = _signature(signature or impl)
        self.doc = doc
        names = set(self.signature.parameters) if self.signature is not None else set()
        self.shape_params = frozenset(shape_params) | (INTEGER_PARAMETERS & names)

    @property
    def vjp(self):
        """operand name -> gast expression of its adjoint contribution (templates parsed on first use)."""
        if self._pending_rules:
            self._parse_pending_rules()
        return self._vjp

    @vjp.setter
    def vjp(self, rules):
        self._vjp = rules

    @property
    def jvp(self):
        """operand name -> gast expression of its tangent term (templates parsed on first use)."""
        if self._pending_rules:
            self._parse_pending_rules()
        return self._jvp

    @jvp.setter
    def jvp(self, rules):
        self._jvp = rules

    def _parse_pending_rules(self):
        pending, self._pending_rules = self._pending_rules, []
        for parse in pending:
            parse()

    @property
    def zero_safe(self):
        """Whether a bare 0.0 may stand for its result's adjoint: true when the rules only broadcast it."""
        return self.elementwise or self.accepts_scalar_zero

    def bind(self, args, keywords):
        """Map the call's argument nodes to this primitive's parameter names.

        Returns a dict name -> gast expression, defaults filled in as constants;
        None when the arguments do not fit the signature.
        """
        if self.signature is None:
            return None
        try:
            bound = self.signature.bind(*args, **keywords)
        except TypeError:
            return None
        out = {}
        for name, param in self.signature.parameters.items():
            if name in bound.arguments:
                value = bound.arguments[name]
                if param.kind is inspect.Parameter.VAR_POSITIONAL:
                    value = gast.Tuple(elts=list(value), ctx=gast.Load())
                elif param.kind is inspect.Parameter.VAR_KEYWORD:
                    continue
                out[name] = value
            elif param.kind is inspect.Parameter.VAR_POSITIONAL:     # `*varargs` given nothing: the empty tuple
                out[name] = gast.Tuple(elts=[], ctx=gast.Load())
            elif param.default is not inspect.Parameter.empty:
                out[name] = _constant_node(param.default)
        return out

    def __repr__(self):
        return f"<primitive {self.name}>"


# Parameters NumPy accepts only integers, shapes, axes or indices for (a float there is an error), so
# no derivative can flow through them: a value from the tape (a popped index) may stand there.
INTEGER_PARAMETERS = frozenset({
    "idx", "i", "k", "axis", "axes", "axis1", "axis2", "shape", "newshape", "num", "offset", "repeats",
    "indices", "source", "destination", "start_indices", "slice_sizes", "pad_width", "ddof", "order", "dtype",
    "keepdims", "endpoint", "indexing", "sparse", "copy", "mode", "attr", "subscripts", "precision",
    "preferred_element_type", "total_repeat_length", "is_leaf"})

PRIMITIVES = {}          # name -> Primitive
_BY_CALLABLE = {}        # callable object -> Primitive (jnp.sin, np.sin, math.sin, ...)
_RANK = {}               # callable object -> registration number of the alias that won it
_BY_OPERATOR = {}        # gast operator class -> Primitive (gast.Add -> add)
_LAZY = {}               # module name -> [(attribute, registration number, Primitive)], not yet resolved
_COUNTER = [0]


def primitive(name, impl, *, aliases=(), operator=None, **kwargs):
    """Register a primitive computed by `impl`, also reachable as each of `aliases`.

    An alias is a callable or a dotted path ("scipy.special.gammaln"): a path is
    resolved lazily (see `resolve_lazy_aliases`), so `import astjax` does not
    import SciPy; an alias whose module or attribute does not exist is skipped.
    """
    prim = Primitive(name, impl, **kwargs)
    PRIMITIVES[name] = prim
    for fn in (impl,) + tuple(aliases):
        if isinstance(fn, str):
            module, _, attribute = fn.rpartition(".")
            _LAZY.setdefault(module, []).append((attribute, _next_rank(), prim))
        elif fn is not None:
            _register_callable(fn, _next_rank(), prim)
    if operator is not None:
        _BY_OPERATOR[operator] = prim
    return prim


def add_aliases(prim, *callables):
    """Make each of `callables` (None entries skipped) another name of the existing primitive `prim`
    (`np.linalg.matmul` of `matmul`): a name that means another primitive already keeps it."""
    for fn in callables:
        if fn is not None:
            _register_callable(fn, _next_rank(), prim)
    return prim


def resolve_lazy_aliases(modules=None):
    """Resolve the dotted-path aliases of `modules` (default: those whose module is imported already).

    A callable reached through an alias lives in a module the user's program
    has imported, so a lookup that misses resolves the aliases of the modules in
    sys.modules and tries again. Coverage pages pass every module (importing them).
    An alias keeps the precedence its registration order gives it.
    """
    if modules is None:
        modules = [m for m in _LAZY if m in sys.modules]
    for module_name in list(modules):
        pending = _LAZY.pop(module_name, None)
        if not pending:
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for attribute, rank, prim in pending:
            fn = getattr(module, attribute, None)
            if fn is not None:
                _register_callable(fn, rank, prim)


def lazy_alias_modules():
    """The modules whose dotted-path aliases are not resolved yet."""
    return list(_LAZY)


def defvjp(prim, *rules):
    """Give `prim` reverse-mode rules, one `bx += <expression>` line per operand.

    The operand a rule names is checked now; its expression is parsed the first
    time the rules are used (parsing every template made `import astjax` slow).
    """
    for rule in rules:
        target, expression = _split_rule_text(rule, "b", "+=")
        operand = _operand(prim, target, rule)
        prim._pending_rules.append(lambda operand=operand, expression=expression:
                                   prim._vjp.__setitem__(operand, parse_expression(expression)))
    return prim


def defjvp(prim, *rules):
    """Give `prim` forward-mode rules: `dy = <expression>` sums one term per operand.

    Either one rule whose right-hand side is a sum of per-operand terms, each
    naming exactly one tangent (`dy = dx1 * x2 + x1 * dx2`), or one rule per
    operand written `dx -> <term>`. Parsed, like defvjp's, on first use.
    """
    for rule in rules:
        if "->" in rule:
            target, term = (part.strip() for part in rule.split("->", 1))
            operand = _operand(prim, target, rule)
            prim._pending_rules.append(lambda operand=operand, term=term:
                                       prim._jvp.__setitem__(operand, parse_expression(term)))
            continue
        target, expression = _split_rule_text(rule, "d", "=")
        if target != "dy":
            raise ValueError(f"a jvp rule assigns dy: {rule!r}")
        prim._pending_rules.append(lambda rule=rule, expression=expression: _add_sum_rule(prim, rule, expression))
    return prim


def _add_sum_rule(prim, rule, expression):
    for term in _sum_terms(parse_expression(expression)):
        tangents = {n.id for n in walk(term) if isinstance(n, gast.Name)
                    and n.id[:1] == "d" and n.id[1:] in prim.operands}
        if len(tangents) != 1:
            raise ValueError(f"each term of {rule!r} must use exactly one tangent")
        prim._jvp[tangents.pop()[1:]] = term


def defbatch(prim, rule):
    """Give `prim` its batching rule (vmap): `rule(batcher, target, app)` returns the statements that
    compute `target` for the whole batch, or None to let vmap loop over the batch for this statement.
    Primitives without one use the generic rules of astjax/rules/batching.py (elementwise, reductions)."""
    prim.batch = rule
    return prim


def deflowering(prim, **backends):
    """Say how `prim` runs on each compiled backend: `deflowering(sin, numba="astjax.runtime.numba_cpu:sin")`.

    A lowering is named as "module:attribute" and imported only when something
    is compiled, so `import astjax` never imports Numba.
    """
    prim.lowerings.update(backends)
    return prim


def lowering(prim, backend):
    """The callable that runs `prim` on `backend` ("numba"), imported on first use; None when it has none."""
    target = prim.lowerings.get(backend)
    if target is None or callable(target):
        return target
    module_name, _, attribute = target.partition(":")
    resolved = getattr(importlib.import_module(module_name), attribute)
    prim.lowerings[backend] = resolved
    return resolved


def lookup_callable(fn):
    """The primitive that `fn` (jnp.sin, np.sin, math.sin, scipy.special.gammaln, ...) computes, or None."""
    try:
        prim = _BY_CALLABLE.get(_key(fn))
    except TypeError:   # unhashable objects are never primitives
        return None
    if prim is None and _LAZY and any(m in sys.modules for m in _LAZY):
        resolve_lazy_aliases()
        prim = _BY_CALLABLE.get(_key(fn))
    return prim


Classification = namedtuple("Classification", "kind primitive detail")
Classification.__doc__ = """How astjax treats a callable under a derivative.

kind: "rules" (a primitive with VJP and JVP rules), "nondifferentiable" (a
    primitive whose result carries no derivative; detail says why) or
    "refused" (no rule: an error where a derivative reaches it).
primitive: the primitive's name (None when refused).
"""

REFUSED = ("astjax has no derivative rule for it: a call that a derivative reaches is an error "
           "(use it on values that do not depend on the differentiated input, or give it a rule "
           "with @astjax.custom_vjp)")


def classification(obj):
    """The Classification of `obj` (a function such as `np.sin` or `jnp.linalg.det`): data for coverage pages."""
    prim = lookup_callable(obj)
    if prim is None:
        return Classification("refused", None, REFUSED)
    if not prim.differentiable:
        return Classification("nondifferentiable", prim.name, prim.reason)
    return Classification("rules", prim.name, f"differentiable in {', '.join(prim.operands) or 'nothing'}")


def lookup_operator(op):
    return _BY_OPERATOR.get(type(op))


def all_primitives():
    return list(PRIMITIVES.values())


def parse_expression(text):
    """A gast expression node for a template's text."""
    return gast.parse(text).body[0].value


# ----------------------------------------------------------------- internals
def _key(fn):
    return fn


def _next_rank():
    _COUNTER[0] += 1
    return _COUNTER[0]


def _register_callable(fn, rank, prim):
    """`fn` means `prim`, unless an alias registered earlier claimed it (the first registration wins)."""
    key = _key(fn)
    if key not in _BY_CALLABLE or _RANK[key] > rank:
        _BY_CALLABLE[key] = prim
        _RANK[key] = rank


def _signature(impl):
    try:
        return inspect.signature(impl)
    except (TypeError, ValueError):
        return None


def _constant_node(value):
    if isinstance(value, tuple):
        return gast.Tuple(elts=[_constant_node(v) for v in value], ctx=gast.Load())
    return gast.Constant(value=value, kind=None)


def _split_rule_text(rule, prefix, assign):
    """(target, expression text) of `<prefix><name> <assign> <expression>`."""
    if assign not in rule:
        raise ValueError(f"rule {rule!r} must read `{prefix}<name> {assign} <expression>`")
    target, expression = rule.split(assign, 1)
    if assign == "=" and target.rstrip().endswith("+"):
        raise ValueError(f"rule {rule!r}: use `=`")
    return target.strip(), expression.strip()


def _split_rule(rule, prefix, assign):
    target, expression = _split_rule_text(rule, prefix, assign)
    return target, parse_expression(expression)


def _operand(prim, target, rule):
    name = target[1:]
    if name not in prim.operands:
        raise ValueError(f"rule {rule!r} names {target}, but {prim.name}'s operands are {prim.operands}")
    return name


def _sum_terms(expression):
    if isinstance(expression, gast.BinOp) and isinstance(expression.op, gast.Add):
        return _sum_terms(expression.left) + _sum_terms(expression.right)
    return [expression]
