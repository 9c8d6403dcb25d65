"""Lowering: generated reference source -> source Numba compiles, for one signature.

Each pass reads the generated function's AST and the abstract types the
first call observed (jit/observe.py), and rewrites one concern:

    dict_key_loops       a loop over a dict argument's keys (the signature's) runs once per key, written out
    static_ranks         `jnp.ndim(a) == 1` folded for this signature; an `if` on it keeps only its branch
    (runtime/numba_batching: vmap's shape helpers `batch_shape(...)` folded for this signature)
    known_ranks          what static_ranks left: branches decided by observed ranks (`if a.ndim == 0`) in callees,
                         which inline_callees then writes into their caller (a guard recompiles other ranks)
    vmap_calls           `vmap(f)(x)` left in a derivative's primal sweep calls the batched f the first call ran
    inline_callees       a straight-line generated callee (or user function) is written into its caller
    typed_placeholders   `v = None` and zero adjoints `bv = 0.0` get the type v holds later
    tape_stacks          the one heterogeneous tape becomes one typed stack per saved variable
    recompute_windows    a saved `dynamic_slice` window is recomputed where the reverse sweep reads it, not taped
    shape_only_values    an array of which only the shape is ever read is computed as its shape (a tuple)
    weak_scalars         a Python number meeting an array takes the array's dtype (JAX's weak types)
    python_numbers       an operator on two Python numbers keeps Python's meaning (no int64 wrap, x / 0 raises)
    narrow_integers      an operator on int8/int16/int32 (and unsigned) values wraps in its dtype, as NumPy's
    masked_while_loops   vmap's masked `while any(m)` over elementwise statements becomes a while loop per element
    fuse_elementwise     a tree of elementwise operations on arrays becomes one loop
                         (merge_sibling_loops: a fused sum and an elementwise loop over the same arrays, one pass)
    stencil_loops        a loop nest accumulating one fused loop into an array becomes one kernel, rows outermost
    literal_rows         a list of values read only as a row of `jnp.array([...])` becomes a tuple (Numba's type)
    numba_calls          each primitive call becomes its Numba lowering; `+=` becomes `b = b + e`
    share_kernels        generated loops identical but for their names are compiled once

The result is still Python source (`astjax.jit(f).lower(*args).source` prints it).
"""
import builtins
import copy

import gast

from .dict_key_loops import unroll_dict_key_loops
from .fuse_elementwise import fuse_elementwise
from .inline_callees import inline_callees
from .known_ranks import prune_known_ranks
from .literal_rows import rows_as_tuples
from .masked_while_loops import run_masked_loops_per_element
from .narrow_integers import wrap_narrow_integers
from .numba_calls import lower_calls
from .python_numbers import keep_python_arithmetic
from .recompute_windows import recompute_windows
from .shape_only_values import compute_shapes_only
from .share_kernels import share_identical_kernels
from .static_ranks import fold_static_ranks
from .stencil_loops import interchange_stencils
from .tape_stacks import split_tape
from .typed_placeholders import type_placeholders
from .vmap_calls import call_batched_functions
from .weak_scalars import cast_weak_scalars

__all__ = ["lower_function", "LoweringContext"]


class LoweringContext:
    """What the passes share: the function, its namespace, the observed types, the error reporter."""

    def __init__(self, generated, observed_types, error):
        self.generated = generated
        self.source = generated.__astjax_function_source__
        self.namespace = generated.__globals__
        self.types = observed_types              # {name: set of abstract types}
        self.error = error                       # (message, node, hint) -> exception
        self.bindings = {}                       # name in lowered code -> object
        self.callees = []                        # generated functions this one calls
        self.call_sites = {}                     # callee -> the first call node of it (errors point there)
        self.kernels = []                        # (name, function node) of fused loops it calls
        self.entry = False                       # the function jit was called on (its parameters: the signature)
        self.same_shape = {}                     # name a pass introduced -> a name that always has its shape
        # the reverse driver's tape declarations `v = None` (inline_callees adds a callee's, renamed): the
        # only Nones typed_placeholders may give the type v holds later
        self.tape_placeholders = set(getattr(generated, "__astjax_tape_placeholders__", ()))

    def static_object(self, expr):
        """The object an expression of names and attributes (`np.exp`, `fast_exp`) names in the function's
        namespace or among the builtins, or None."""
        if isinstance(expr, gast.Name):
            return self.namespace.get(expr.id, getattr(builtins, expr.id, None))
        if isinstance(expr, gast.Attribute):
            base = self.static_object(expr.value)
            return getattr(base, expr.attr, None) if base is not None else None
        return None

    def types_of(self, name):
        return self.types.get(name, set())

    def lowered_type(self, name):
        """The one type `name` has in compiled code, or None: a Python number that later holds a
        value with a dtype takes that dtype, and a `None` placeholder takes the type it is replaced by."""
        from .weak_kinds import WEAK_KINDS
        types = self.types_of(name) - {("none",)}
        strong = {t for t in types if t not in WEAK_KINDS}
        if len(strong) == 1:
            return next(iter(strong))
        if not strong and len(types) == 1:
            return next(iter(types))
        return None

    def bind(self, base, obj, taken):
        """A name for `obj` in the lowered namespace that no local of the function uses."""
        label, n = base, 1
        while label in taken or (label in self.bindings and self.bindings[label] is not obj):
            n += 1
            label = f"{base}_{n}"
        self.bindings[label] = obj
        return label


def lower_function(context):
    """The lowered copy of `context.generated`'s function node."""
    from ...runtime.numba_memory import keep_freed_buffers
    keep_freed_buffers()                      # compiled code's outputs reuse freed buffers (see that module)
    saved = _snapshot(context)
    try:
        return _lower(context, keep_other_ranks=True)
    except Exception as exc:
        from ...backends.numba_cpu import JitError
        if not isinstance(exc, JitError) or not getattr(context, "kept_other_ranks", False):
            raise
    _restore(context, saved)                  # the unfolded body for other ranks could not be lowered
    return _lower(context, keep_other_ranks=False)


def _lower(context, keep_other_ranks):
    node = copy.deepcopy(context.source.node)
    context.same_shape = {}
    unroll_dict_key_loops(node, context)      # a loop over a dict argument's keys, one copy per key
    context.kept_other_ranks = fold_static_ranks(node, context, keep_other_ranks)   # rank tests, this signature
    from ...runtime.numba_batching import fold_batch_shapes
    fold_batch_shapes(node, context)          # vmap's shape helpers, for this signature
    from ...runtime.numba_per_slice import fold_per_slice_helpers
    fold_per_slice_helpers(node, context)     # piecewise's and apply_along_axis's dtypes and axes, likewise
    prune_known_ranks(node, context)
    call_batched_functions(node, context)     # vmap(f)(x) of a derivative's primal sweep: the batched f it ran
    inline_callees(node, context)
    type_placeholders(node, context)
    split_tape(node, context)
    recompute_windows(node, context)
    compute_shapes_only(node, context)
    cast_weak_scalars(node, context)
    keep_python_arithmetic(node, context)
    wrap_narrow_integers(node, context)
    run_masked_loops_per_element(node, context)
    fuse_elementwise(node, context)
    interchange_stencils(node, context)
    rows_as_tuples(node, context)             # `_l1 = [c, -s]` read only as a row of jnp.array([...]): a tuple
    lower_calls(node, context)
    share_identical_kernels(node, context)
    return node


def _snapshot(context):
    types = {name: set(kinds) if isinstance(kinds, set) else kinds for name, kinds in context.types.items()}
    return types, dict(context.bindings), list(context.callees), dict(context.call_sites), list(context.kernels)


def _restore(context, saved):
    for table, value in zip((context.types, context.bindings, context.call_sites), (saved[0], saved[1], saved[3])):
        table.clear()
        table.update(value)
    context.callees[:] = saved[2]
    context.kernels[:] = saved[4]
