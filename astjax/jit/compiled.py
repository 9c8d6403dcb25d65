"""A generated function compiled with Numba, once per signature, and checked against the reference.

The first call of a signature (argument dtypes, ranks, Python-number
arguments, static values) runs the generated function on the reference
backend while observing its variables' types, lowers its source (and its
callees') with those types, compiles it, runs the compiled code on the same
arguments and compares the two results. They must agree in structure, shape
and dtype, and in value to rounding: otherwise jit raises rather than return
a number it cannot vouch for. Later calls go straight to the compiled code.
"""
import copy
import inspect

import numpy as np

from ..array import Array, wrap
from ..backends.numba_cpu import JitError, compile_lowered, numba_error
from ..collection_pause import pausing_collection
from ..errors import RuntimeRefusal, trace_to_user
from .lower import LoweringContext, lower_function
from .lower.known_ranks import GUARDED, RankGuardError, pruning_disabled, unpruned
from . import cache
from .frozen_globals import FrozenArrays
from .build_plan import BuildRecorder, plan_key, replay
from .boundary_trees import entry_source, layout_of, needs_boundary, tree_signature
from .dense_adjoints import dense_adjoints_out, without_zero_items
from .fast_dispatch import MAX_ENTRIES, MISS, always_miss, dispatch_function, guard_pattern
from .numba_import import blas_extensions_placed, load_numba
from .observe import Observed, abstract, observe
from .python_number_error import PythonNumberError

__all__ = ["CompiledFunction"]


class PerSignature:
    """A generated function compiled once per signature of its arguments, called like it: what the CPU
    (CompiledFunction) and GPU (backends/cuda.py's CudaFunction) backends share. Each entry's `text` is
    the source it compiled."""

    def __init__(self, generated, static=()):
        self.generated = generated
        self.parameters = list(inspect.signature(generated).parameters)
        self.static = frozenset(static)          # parameter names whose values are compiled in
        self.entries = {}                        # signature -> its compiled entry
        self.fast = always_miss                  # args tuple -> result, or MISS (jit/fast_dispatch.py)

    def lowered(self, *args, **kwargs):
        """The lowered source for these arguments (compiling them if needed)."""
        if kwargs or len(args) != len(self.parameters):
            args = self._positional(args, kwargs)
        if self._key(args) not in self.entries:
            self(*args)
        return self.entries[self._key(args)].text

    def _positional(self, args, kwargs):
        bound = inspect.signature(self.generated).bind(*args, **kwargs)
        bound.apply_defaults()
        return tuple(bound.arguments.values())


class CompiledFunction(PerSignature):
    """`generated` (a function with generated source) compiled per signature with Numba; called like it."""

    def __init__(self, generated, static=()):
        super().__init__(generated, static)
        self.by_quick_key = {}                   # quick_key of the arguments -> _Entry (containers' path)
        self.guarded = []                        # (guard pattern, _Entry) that self.fast tests, newest first
        self.static_flags = [name in self.static for name in self.parameters]

    def __call__(self, *args, **kwargs):
        try:
            return self._call(*args, **kwargs)
        except RankGuardError:      # jit/lower/known_ranks.py: a callee met ranks it was not pruned for
            return self._call_unpruned(args, kwargs)
        except RuntimeRefusal:      # compiled code refused a value (runtime/): the reference names the user's line
            return self.generated(*args, **kwargs)
        except JitError:            # Numba typed a pruned callee for other types than the first call saw
            if not GUARDED or pruning_disabled():
                raise
            return self._call_unpruned(args, kwargs)
        except OverflowError as exc:    # Numba's "int too big to convert": a Python int argument past int64
            error = _python_int_overflow(self.generated, self.parameters, args, kwargs, top=2 ** 63)
            if error is None or isinstance(exc, ArgumentOverflow):
                raise
            raise error from exc

    def _call_unpruned(self, args, kwargs):
        """Compile this signature again with every branch kept (as without known_ranks), and run it."""
        if kwargs or len(args) != len(self.parameters):
            args = self._positional(args, kwargs)
        pruned = self.entries.get(self._key(args))
        if pruned is not None:
            self._forget(pruned)
        with unpruned():
            try:
                return self._call(*args)
            except RankGuardError as exc:
                raise exc.at(_location(self.generated)) from None

    def _call(self, *args, **kwargs):
        if not kwargs:
            out = self.fast(args)
            if out is not MISS:
                return out
        if not kwargs and not self.static:
            try:
                entry = self.by_quick_key.get(tuple(map(quick_key, args)))
            except TypeError:
                entry = None
            if entry is not None and (entry.frozen is None or not entry.frozen.changed()):
                return entry.run(args)
        if kwargs or len(args) != len(self.parameters):
            args = self._positional(args, kwargs)
        key = self._key(args)
        entry = self.entries.get(key)
        if entry is not None and entry.frozen is not None and entry.frozen.changed():
            self._forget(entry)                   # an array it compiled in was written into: compile again
            entry = None
        if entry is None:
            return self._first_call(key, args)
        self._remember_quick_key(args, entry)
        return entry.run(args)

    def _forget(self, entry):
        self.entries = {k: e for k, e in self.entries.items() if e is not entry}
        self.by_quick_key = {k: e for k, e in self.by_quick_key.items() if e is not entry}
        if any(e is entry for _, e in self.guarded):
            self.guarded = [(p, e) for p, e in self.guarded if e is not entry]
            self._write_fast()

    def _remember_quick_key(self, args, entry):
        if len(args) == len(self.parameters) and entry.arg_layouts is None:
            pattern = guard_pattern(args, self.static_flags)
            if pattern is not None and all(p != pattern for p, _ in self.guarded):
                self.guarded = [(pattern, entry)] + self.guarded[:MAX_ENTRIES - 1]
                self._write_fast()
        if not self.static and len(args) == len(self.parameters):
            try:
                self.by_quick_key[tuple(map(quick_key, args))] = entry
            except TypeError:
                pass

    def _write_fast(self):
        """Generate self.fast again from self.guarded."""
        self.fast = dispatch_function(len(self.parameters), self.guarded, python_number_refusal) \
            if self.guarded else always_miss

    def _key(self, args):
        return tuple(_static_key(a) if name in self.static else _signature(a)
                     for name, a in zip(self.parameters, args)) + (len(args),)

    @pausing_collection
    def _first_call(self, key, args):
        load_numba()                              # before anything imports Numba (jit/numba_import.py)
        overflow = _python_int_overflow(self.generated, self.parameters, args, {})
        if overflow is not None:                  # Numba would type it as a Python object
            raise overflow
        quiet = _quiet_numba()
        del GUARDED[:]
        try:
            with blas_extensions_placed():        # Numba's gemm lookup without scipy.linalg (jit/numba_import.py)
                got = self._compile_and_run(key, args)
            del GUARDED[:]                        # kept only when this build failed (see __call__)
            return got
        except JitError as exc:
            if isinstance(exc, RankGuardError):    # a guard the first call itself failed: __call__ compiles again
                raise
            if exc.filename is None and _location(self.generated) is not None:     # name the user's function
                raise JitError(exc.reason, _location(self.generated), exc.hint) from None
            raise
        finally:
            quiet.__exit__(None, None, None)

    def _compile_and_run(self, key, args):
        static = {name: a for name, a in zip(self.parameters, args) if name in self.static}
        dynamic = [n not in self.static for n in self.parameters]
        trees_in = any(needs_boundary(a) for a, keep in zip(args, dynamic) if keep)
        disk_key = cache.entry_key(self.generated, key) if cache.enabled() and not trees_in else None
        record = cache.load(disk_key) if disk_key else None
        if record is not None:                      # compiled and checked by an earlier process
            types, out_spec, facts = record
            observed = Observed.by_name(cache.reachable_generated(self.generated), types, facts)
            try:
                plan = cache.load_plan(plan_key(disk_key))
                dispatcher, text, frozen = build(self.generated, observed, static, disk_key, plan=plan)
                entry = _Entry(dispatcher, text, out_spec, dynamic, frozen)
                got = entry.run(args)
            except Exception:       # noqa: BLE001 -- a stale or foreign record: build it again below
                pass
            else:
                self.entries[key] = entry
                self._remember_quick_key(args, entry)
                return got
        try:
            expected, observed = _observe_reference(self.generated, args)
        except AttributeError as exc:
            refusal = _numpy_at_refusal(exc)
            if refusal is None:
                raise
            raise refusal from None
        observed.argument_keys = _dict_argument_keys(self.parameters, args)   # the signature's (lower/dict_key_loops.py)
        scalar = _scalarized(self.generated, args, dynamic, expected)
        if scalar is not None:       # a derivative with respect to containers: one variable per leaf
            trees_in, disk_key = True, None
        dense = None
        if scalar is None and "TreeAdjoint" in repr(abstract(expected)):
            # a tuple's adjoint, one per item (jit/dense_adjoints.py); no disk record (it keeps no such structure)
            dense, disk_key = dense_adjoints_out(expected), None
            if dense is None:
                # Numba has no other container adjoints: refuse now rather than after a long, failing type inference
                raise _container_adjoint_refusal(JitError("", _location(self.generated)),
                                                 "function index_adjoint at")
        trees = trees_in or needs_boundary(expected)
        if trees and scalar is None:      # leaves in and out through an entry function (jit/boundary_trees.py)
            boundary = _Boundary([a for a, keep in zip(args, dynamic) if keep], expected, self.generated)
        recorder = BuildRecorder() if disk_key is not None and scalar is None else None
        dispatcher, text, frozen = build(self.generated, observed, static, disk_key,
                                       scalar.rewrite if scalar is not None else None, recorder=recorder)
        entry = _Entry(dispatcher, text, abstract(expected), dynamic, frozen)
        if scalar is not None:
            trees = False
            scalar.attach(entry)
        elif dense is not None:
            entry.convert_out = dense
        try:
            try:
                if trees:
                    entry = boundary.entry(entry)
                got = entry.run(args)
            except (ImportError, EOFError, AttributeError) as exc:       # Numba's cache files could not be read
                if disk_key is None or _is_numba_error(exc):
                    raise
                disk_key = recorder = None
                dispatcher, text, frozen = build(self.generated, observed, static, None)
                entry = _Entry(dispatcher, text, abstract(expected), dynamic, frozen)
                if trees:
                    entry = boundary.entry(entry)
                got = entry.run(args)
        except JitError:
            raise
        except Exception as exc:
            if _is_numba_error(exc):
                error = numba_error(exc, _location(self.generated))
                if trees_in or any(isinstance(a, (tuple, list)) for a in args):
                    error = _container_adjoint_refusal(error, str(exc))
                raise error from None
            if isinstance(exc, TypeError) and str(exc).endswith("got None"):
                raise _unobserved_branch(self.generated) from exc
            if isinstance(exc, NotImplementedError) and "float16" in str(exc):
                raise JitError("Numba has no float16 arithmetic: compiled code cannot compute with a float16 value "
                               f"(`{self.generated.__name__}` received or made one)", _location(self.generated),
                               "cast to float32 before the jitted call (`x.astype(np.float32)`), or run it "
                               "without jit") from exc
            # The reference backend ran these arguments without an error: the compiled code must too.
            raise _disagree(self.generated, f"it raised {type(exc).__name__}: {exc}") from exc
        _check_agrees(got, expected, self.generated)
        self.entries[key] = entry
        self._remember_quick_key(args, entry)
        if disk_key is not None and observed.complete and not trees:     # a record holds no result structure
            reachable = cache.reachable_generated(self.generated)
            cache.store(disk_key, {fn.__name__: observed.for_code(fn.__code__) for fn in reachable}, entry.out_spec,
                        {fn.__name__: observed.facts_for(fn.__code__) for fn in reachable})
            plan = recorder.plan() if recorder is not None else None
            if plan is not None:           # what the lowering made, for the next process (jit/build_plan.py)
                cache.store_plan(plan_key(disk_key), plan)
        return got


def _quiet_numba():
    """Numba's advice on contiguous arrays concerns code astjax wrote, not the user's: keep it out of sight."""
    import warnings
    from numba.core.errors import NumbaPerformanceWarning
    manager = warnings.catch_warnings()
    manager.__enter__()
    warnings.simplefilter("ignore", NumbaPerformanceWarning)
    return manager


class _Entry:
    """One compiled signature: the dispatcher and how to pass arguments in and results out."""

    def __init__(self, dispatcher, text, out_spec, dynamic, frozen=None):
        self.dispatcher, self.text, self.out_spec = dispatcher, text, out_spec
        self.frozen = frozen if frozen is not None and frozen.items else None     # arrays compiled in
        self.dynamic = dynamic
        self.all_dynamic = all(dynamic)
        self.convert_out = _converter(out_spec)
        self.arg_layouts = None          # with an entry function: each dynamic argument's Layout

    def run(self, args):
        if self.arg_layouts is not None:
            values = []
            for a, layout in zip(args if self.all_dynamic else
                                 [a for a, keep in zip(args, self.dynamic) if keep], self.arg_layouts):
                values.extend([to_numba(leaf) for leaf in layout.leaves(a)])
        elif self.all_dynamic:
            values = [to_numba(a) for a in args]
        else:
            values = [to_numba(a) for a, keep in zip(args, self.dynamic) if keep]
        try:
            out = self.dispatcher(*values)
        except PythonNumberError as exc:
            raise python_number_refusal(exc) from None
        return self.convert_out(out)


def quick_key(value, _ndarray=np.ndarray, _plain=(float, int, bool, type(None))):
    """A cheap stand-in for the abstract signature of one argument, for the dispatch dictionary."""
    kind = type(value)
    if kind is _ndarray or kind is Array:
        return value.dtype, value.ndim
    if kind in _plain or issubclass(kind, np.generic):
        return kind
    if kind is dict:           # the keys in their order: the reference backend iterates them so
        return (kind, tuple(value)) + tuple(map(quick_key, value.values()))
    if kind is tuple or kind is list or (issubclass(kind, tuple) and hasattr(kind, "_fields")):
        return (kind,) + tuple(map(quick_key, value))
    raise TypeError("no quick key")


class _Boundary:
    """The entry function of a signature whose arguments or result hold dicts or NamedTuples: each
    dynamic argument's leaves go in as separate parameters, the result's leaves come out as one tuple
    (jit/boundary_trees.py says why)."""

    def __init__(self, dynamic_args, expected, generated):
        self.arg_layouts = [layout_of(a, f"argument {i + 1} of `{generated.__name__}`")
                            for i, a in enumerate(dynamic_args)]
        self.out_layout = layout_of(expected, f"the result of `{generated.__name__}`") \
            if needs_boundary(expected) else None
        if self.out_layout is not None:
            self.out_specs = [abstract(leaf) for leaf in self.out_layout.leaves(expected)]
        self.generated = generated

    def entry(self, inner):
        """`inner` (an _Entry) behind an entry function."""
        import gast
        text, names = entry_source(f"astjax_entry_{self.generated.__name__}", "astjax_compiled",
                                   self.arg_layouts, self.out_layout)
        namespace = dict(names, astjax_compiled=inner.dispatcher)
        dispatcher, text = compile_lowered(gast.parse(text).body[0], namespace,
                                           self.generated.__code__.co_filename)
        entry = _Entry(dispatcher, text + "\n\n" + inner.text, inner.out_spec, inner.dynamic, None)
        entry.frozen = inner.frozen
        entry.arg_layouts = self.arg_layouts
        if self.out_layout is not None:
            converters = [_converter(spec) for spec in self.out_specs]
            layout = self.out_layout

            def tree_out(flat):
                return layout.rebuild([convert(v) for convert, v in zip(converters, flat)])
            entry.convert_out = tree_out
        return entry


def _converter(spec):
    """A function turning a compiled result into what the reference backend returns, made once per signature."""
    if spec and spec[0] == "array":
        dtype = np.dtype(spec[1])

        def array_out(value):
            if type(value) is np.ndarray and value.dtype == dtype:
                return value.view(Array)
            return from_numba(value, spec)
        return array_out
    if spec and spec[0] == "tuple":
        items = [_converter(s) for s in spec[1]]

        def tuple_out(value):
            if type(value) is tuple and len(value) == len(items):
                return tuple([convert(v) for convert, v in zip(items, value)])
            return from_numba(value, spec)
        return tuple_out
    if spec and spec[0] == "scalar":
        dtype = np.dtype(spec[1])
        same = {float, np.float64} if dtype == np.float64 else {dtype.type}

        def scalar_out(value):
            if type(value) in same or (type(value) is float and dtype.kind == "f"):
                return wrap(np.asarray(value, dtype))
            return from_numba(value, spec)
        return scalar_out
    return lambda value: from_numba(value, spec)


class _Build:
    """What one build has made so far: a dispatcher per generated function (None while it is being
    built, so a call back into it is recursion), the lowered texts, every dispatcher, and whether any
    function calls itself, directly or around a cycle."""

    def __init__(self, source_file, recorder=None):
        self.source_file = source_file
        self.recorder = recorder             # a BuildRecorder (jit/build_plan.py), or None
        self.built = {}
        self.texts = []
        self.dispatchers = []
        self.recursive = False
        self.frozen = FrozenArrays()


def build(generated, observed, static, disk_key=None, scalar=None, plan=None, recorder=None):
    """Lower and compile `generated` and the generated functions it calls; return (dispatcher, all text,
    the FrozenArrays its code compiled in).

    With a `disk_key` (and ASTJAX_NUMBA_CACHE on), each lowered function is written to a file stamped
    with that key (Numba caches machine code per file and does not notice when a callee or a global
    value changed: the key does), and Numba's machine-code cache is switched on once the whole build
    is known to be free of recursion: Numba compiles a recursive call to a symbol that a later process
    loading the cache does not resolve, and the loaded code would jump to address 0.

    With a `plan` (jit/build_plan.py) the lowered texts are compiled as they are, without lowering;
    a `recorder` collects what a plan of this build needs.
    """
    source_file = None
    if disk_key is not None and cache.numba_machine_code():
        stamp = f"{disk_key} unpruned" if pruning_disabled() else disk_key     # callees differ: another stamp
        source_file = lambda text: cache.source_file(f"{text}\n# astjax entry {stamp}\n")  # noqa: E731
    state = _Build(source_file, recorder)
    if plan is not None and scalar is None:
        dispatcher = replay(plan, generated, state, static, compile_lowered)
    else:
        dispatcher = _build(generated, observed, state, static, scalar)
    if source_file is not None and not state.recursive:
        for compiled in state.dispatchers:        # Numba compiles lazily: nothing has been compiled yet
            compiled.enable_caching()
    return dispatcher, "\n\n".join(state.texts), state.frozen


def _build(generated, observed, state, static, scalar=None):
    """The dispatcher of `generated`, lowering and compiling it (and its callees) into `state`."""
    if generated in state.built:
        if state.built[generated] is None:
            state.recursive = True
        return state.built[generated]
    filename = generated.__code__.co_filename

    def error(message, node, hint):
        line = getattr(node, "lineno", None)
        location = trace_to_user(filename, line) if line else None
        return JitError(message, location or _location(generated), hint)

    _observe_primal_callee(generated, observed)
    context = LoweringContext(generated, observed.for_code(generated.__code__), error)
    context.argument_keys = getattr(observed, "argument_keys", {}) if not state.built else {}
    context.entry = not state.built             # the function jit was called on: its parameters' types are the
                                                # signature's (lower/static_ranks.py, lower/known_ranks.py)
    if scalar is not None:          # jit/container_arguments.py rewrote the function: lower that
        context.source = _WithNode(context.source, scalar.node)
        context.types = dict(context.types, **scalar.leaf_types)
    try:
        node = lower_function(context)
    except JitError as exc:
        raise exc.with_traceback(None) from None      # the walk over the tree says nothing to the user
    if static:
        node.args.args = [a for a in node.args.args if a.id not in static]
        node.args.defaults = []
    from .numba_support import SUPPORT
    namespace = dict(generated.__globals__)
    namespace.update(SUPPORT)
    namespace.update(context.bindings)
    namespace.update(static)
    state.built[generated] = None
    kernel_namespace = dict(SUPPORT)
    kernel_records = []
    for label, kernel, options in context.kernels:          # element functions come before their sums
        kernel_namespace[label], kernel_text = compile_lowered(kernel, kernel_namespace, filename,
                                                               state.source_file, checked=False, **options)
        kernel_records.append((label, kernel_text, options, kernel_namespace[label]))
        namespace[label] = kernel_namespace[label]
        state.dispatchers.append(kernel_namespace[label])
        state.texts.append(kernel_text)
    for callee in context.callees:
        if callee is generated:
            state.recursive = True
            continue
        try:
            dispatcher = _build(callee, observed, state, {})
        except JitError as exc:
            raise _at_call_site(exc, error, context.call_sites.get(callee)) from None
        for label, obj in context.bindings.items():
            if obj is callee:
                namespace[label] = dispatcher
    self_names = [label for label, obj in context.bindings.items() if obj is generated]
    state.recursive = state.recursive or bool(self_names)
    state.frozen.capture(node, namespace)
    dispatcher, text = compile_lowered(node, namespace, filename, state.source_file, self_names)
    if state.recorder is not None:
        state.recorder.record(text, kernel_records, context.bindings, self_names, bool(context.callees), dispatcher)
    state.built[generated] = dispatcher
    state.dispatchers.append(dispatcher)
    state.texts.insert(0, text)
    return dispatcher


class _WithNode:
    """A generated function's source object with another function node in place of its own."""

    def __init__(self, source, node):
        self._source, self.node = source, node

    def __getattr__(self, name):
        return getattr(self._source, name)


class _ScalarEntry:
    """How a rewritten derivative's entry passes leaves in and rebuilds the TreeAdjoints it returns."""

    def __init__(self, rewrite, layouts, expected_flat):
        self.rewrite, self.layouts = rewrite, layouts
        self.converters = [_converter(abstract(v)) for v in expected_flat]

    def attach(self, entry):
        from .container_arguments import rebuild
        entry.arg_layouts = self.layouts
        recipe, converters = self.rewrite.recipe, self.converters
        entry.convert_out = lambda flat: rebuild(recipe, flat, lambda i, v: converters[i](v))


def _scalarized(generated, args, dynamic, expected):
    """The _ScalarEntry of a derivative with respect to container arguments that
    jit/container_arguments.py can rewrite leaf by leaf, or None."""
    from .container_arguments import expected_leaves, scalarize
    if "TreeAdjoint" not in repr(abstract(expected)):
        return None
    source = getattr(generated, "__astjax_function_source__", None)
    names = list(inspect.signature(generated).parameters)
    containers = {n: a for n, a, keep in zip(names, args, dynamic) if keep and isinstance(a, (tuple, list, dict))}
    if source is None or not containers:
        return None
    try:
        layouts = {n: layout_of(a) for n, a in containers.items()}
    except JitError:
        return None
    node = _dict_key_loops_unrolled(generated, source.node, names, args)
    rewrite = scalarize(node, layouts, {n: layouts[n].leaves(a) for n, a in containers.items()}, abstract)
    if rewrite is None:
        return None
    expected_flat = expected_leaves(rewrite.recipe, expected)
    if expected_flat is None:
        return None
    all_layouts = [layouts[n] if n in layouts else layout_of(a) for n, a, keep in zip(names, args, dynamic) if keep]
    return _ScalarEntry(rewrite, all_layouts, expected_flat)


def _dict_key_loops_unrolled(generated, node, names, args):
    """`node`, or a copy whose loops over a dict argument's keys are written out once per key (the keys are the
    signature's, lower/dict_key_loops.py): a derivative's sweeps then read the dict, and add into its adjoint,
    by constant keys in top-level statements, which container_arguments.py rewrites leaf by leaf."""
    keys = _dict_argument_keys(names, args)
    if not keys:
        return node
    from .lower import LoweringContext
    from .lower.dict_key_loops import unroll_dict_key_loops
    context = LoweringContext(generated, {}, None)
    context.argument_keys = keys
    return unroll_dict_key_loops(copy.deepcopy(node), context)


def _observe_reference(generated, args):
    """Run `generated` on the reference backend, observing its types. A batched function that vmap calls at run
    time (a derivative's primal sweep of jnp.piecewise) runs as itself there, not as its own compiled function:
    compiled code calls it as a callee (lower/vmap_calls.py), typed by this run."""
    from .api import _ACTIVE
    token = _ACTIVE.set(None)
    try:
        return observe(generated, args, {}, _is_generated)
    finally:
        _ACTIVE.reset(token)


def _dict_argument_keys(parameters, args):
    """{parameter: its keys} for each dict argument whose keys are strings: part of the signature."""
    return {name: tuple(a) for name, a in zip(parameters, args)
            if type(a) is dict and all(isinstance(k, str) for k in a)}


def _observe_primal_callee(generated, observed):
    """A user function that a derivative calls runs as itself on the reference backend; jit compiles its
    normalized version, whose types are learned by running that version once on the arguments the user
    function received."""
    user = getattr(generated, "__astjax_primal_of__", None)
    code = getattr(user, "__code__", None)
    if observed.for_code(generated.__code__) or code not in observed.user_calls:
        return
    try:
        _, seen = observe(generated, observed.user_calls[code], {}, _is_generated)
    except Exception:        # noqa: BLE001 -- no types: Numba types the code alone
        return
    observed.types.update(seen.types)


def to_numba(value, _ndarray=np.ndarray):
    """An argument as Numba takes it: plain ndarrays, 0-d arrays as scalars, lists as tuples."""
    if type(value) is Array and value.ndim:
        return value.view(_ndarray)
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return value.view(_ndarray)[()]          # a NumPy scalar (an Array's [()] stays a 0-d Array)
        return value if type(value) is np.ndarray else value.view(np.ndarray)
    if value is None or isinstance(value, (bool, int, float, np.generic)):
        return value
    if isinstance(value, (tuple, list)) and not hasattr(value, "_fields"):
        return tuple(to_numba(v) for v in value)
    raise JitError(f"jit cannot pass a {type(value).__name__} into compiled code yet",
                   hint="pass arrays, numbers, or tuples and lists of them (or mark the argument static)")


def from_numba(value, spec):
    """A compiled result as the reference backend gives it (Arrays of the same dtype, 0-d included). None is
    None whatever the first call returned there (`w = None; if flag: w = ...; return w`), never an array's nan."""
    if value is None:
        return None
    if isinstance(value, tuple):
        items = spec[1] if spec and spec[0] == "tuple" and len(spec[1]) == len(value) else [None] * len(value)
        return tuple(from_numba(v, s) for v, s in zip(value, items))
    if isinstance(value, list):
        return [from_numba(v, None) for v in value]
    kind = spec[0] if spec else None
    if kind in ("array", "scalar"):
        dtype = np.dtype(spec[1])
        array = np.asarray(value)
        if kind == "scalar" and array.ndim and array.size == 1:
            array = array.reshape(())
        return wrap(array if array.dtype == dtype else array.astype(dtype))
    if kind == "weak" and isinstance(value, np.ndarray) and value.size == 1:
        return float(value.reshape(())) if spec[1] == "float" else int(value.reshape(()))
    if isinstance(value, np.ndarray):
        return wrap(value)
    if isinstance(value, np.generic):
        return wrap(np.asarray(value))
    return value


def _check_agrees(got, expected, generated):
    """The compiled result must be the reference's: same structure, shapes, dtypes and values."""
    from .. import tree_util
    got = without_zero_items(got, expected, lambda what: _disagree(generated, what))
    got_leaves, got_tree = tree_util.tree_flatten(_plain_adjoints(got))
    want_leaves, want_tree = tree_util.tree_flatten(_plain_adjoints(expected))
    if got_tree != want_tree:
        raise _disagree(generated, f"it returned {got_tree}, the reference backend {want_tree}")
    for g, w in zip(got_leaves, want_leaves):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            if not (g.size == w.size == 1 or (g.size == 1 and not np.any(g))):
                raise _disagree(generated, f"a result has shape {g.shape}, the reference's {w.shape}")
            g = np.broadcast_to(g.reshape(()), w.shape)      # a one-element result: its value must still agree
        if w.dtype.kind in "fc":
            tolerance = 1e-3 if w.dtype.itemsize <= 4 else 1e-7
            scale = np.max(np.abs(w[np.isfinite(w)])) if np.isfinite(w).any() else 1.0
            if not np.allclose(g, w, rtol=tolerance, atol=tolerance * max(scale, 1e-30), equal_nan=True):
                raise _disagree(generated, "its values differ from the reference backend's beyond rounding")
        elif not np.array_equal(g, w):
            raise _disagree(generated, "its values differ from the reference backend's")


def python_number_refusal(exc):
    """The JitError for a Python number compiled code cannot hold (jit/python_numbers.py raised it)."""
    what, where = (tuple(exc.args) + ("", ""))[:2]
    filename, _, line = str(where).lstrip("?").rpartition(":")
    location = (filename, int(line)) if filename and line.isdigit() else None
    return JitError(f"jit cannot give Python's answer here: {what}", location,
                    "run this function without jit (Python's numbers are exact there), or compute with "
                    "floats or fixed-width arrays, whose overflow NumPy defines")


def _plain_adjoints(value):
    """`value` with each TreeAdjoint as a dict of its items (keys as text), so that results compare as trees."""
    from ..rules.helpers import TreeAdjoint
    if isinstance(value, TreeAdjoint):
        return {"TreeAdjoint": {repr(k): _plain_adjoints(v) for k, v in value.items.items()}}
    if type(value) is tuple:
        return tuple(_plain_adjoints(v) for v in value)
    return value


def _container_adjoint_refusal(error, message):
    """A clearer refusal when Numba met the adjoint of a container: jit compiles derivatives with respect
    to arrays, and a derivative with respect to a dict, list or tuple of arrays is not compiled yet."""
    location = (error.filename, error.lineno) if error.filename is not None else None
    if "built-in function getitem" in message and "getitem(Tuple(" in message:
        return JitError("jit compiles a loop over a list or tuple only when its items have one type (the same "
                        "structure, dtypes and ranks: a list of layers `[(W1, b1), (W2, b2)]` with every W a "
                        "matrix and every b a vector); compiled code reads a list of mixed items by constant "
                        "indices only", location,
                        "give every item the same structure and ranks, or read the items by constant keys "
                        "(`W1, b1 = layers[0]`), or run this function without jit")
    if not any(f"function {name} at" in message for name in ("index_adjoint", "attribute_adjoint", "item_adjoint")):
        return error
    return JitError("jit compiles a derivative with respect to a dict, list, tuple or NamedTuple argument only "
                    "when the function reads it by constant keys outside loops and branches, or loops over a "
                    "list or tuple of items of one type (a list of layers)",
                    location, "read the container's items by constant keys (`W1, b1 = layers[0]`), or pass the "
                    "arrays as separate arguments (grad(f, argnums=(0, 1))), or run this derivative without jit")


def _disagree(generated, what):
    return JitError(f"the compiled code of `{generated.__name__}` does not agree with the reference backend: {what}",
                    _location(generated), "run this function without jit, and please report it")


class ArgumentOverflow(OverflowError):
    """A Python int argument compiled code cannot hold (`_python_int_overflow`)."""


def _python_int_overflow(generated, parameters, args, kwargs, top=2 ** 64):
    """An OverflowError naming the Python int argument compiled code cannot take (it holds a Python int in
    64 bits, as JAX refuses one past its integer width; a later call of a signature compiled for int64 takes
    no int from 2 ** 63 on, top=2 ** 63), or None when no argument is such an int."""
    named = list(zip(parameters, args)) + list(kwargs.items())
    for name, value in named:
        if type(value) is int and not -2 ** 63 <= value < top:
            width = "64 bits" if top == 2 ** 64 else "int64, as the first call of this signature compiled it"
            return ArgumentOverflow(
                f"jit of `{generated.__name__}`: the Python int {value} passed as `{name}` does not fit in {width}, "
                "and compiled code holds a Python int in 64 bits (JAX refuses one past its integer width too); pass "
                "it as a float (`float(k)`) or mark it static (static_argnames)")
    return None


def _unobserved_branch(generated):
    """Numba's `expected float32, got None`: a value the derivative saves on a branch (an `elif`) that the
    first call never took kept its `None` declaration, so compiled code holds no type for it."""
    return JitError(f"jit types each variable of `{generated.__name__}` by the value the first call of a "
                    "signature saw it hold, and this call never set some of them (on a branch it did not take, an "
                    "`if`/`elif` in a loop): compiled code holds them as None, where the generated code needs a "
                    "number", _location(generated),
                    "call the jitted function first with arguments that run every branch (later calls reuse that "
                    "compile), or run it without jit")


def _at_call_site(exc, error, site):
    """A callee's refusal located in astjax's own source (a rule's helper that vmap or grad
    transformed) is re-told at the line that calls it, which leads back to the user's line."""
    import os
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    if site is None or exc.filename is None or not os.path.abspath(exc.filename).startswith(package):
        return exc
    return error(exc.reason, site, exc.hint)


def _location(generated):
    """The user's line that the first traceable line of `generated` came from (its def line often is not)."""
    if getattr(generated, "__astjax_function_source__", None) is None:
        return None
    code = generated.__code__
    last = max((line for _, _, line in code.co_lines() if line is not None), default=code.co_firstlineno)
    for line in range(code.co_firstlineno, last + 1):
        location = trace_to_user(code.co_filename, line)
        if location is not None:
            return location
    return None


def _numpy_at_refusal(exc):
    """`x.at[i].set(v)` on a NumPy array the function was given: NumPy arrays have no `.at`, and calling the
    function itself raises AttributeError; jit raises it too, naming the user's line and what to write."""
    if "'numpy.ndarray' object has no attribute 'at'" not in str(exc):
        return None
    location, tb = None, exc.__traceback__
    while tb is not None:
        if _is_generated(tb.tb_frame.f_code.co_filename):
            location = trace_to_user(tb.tb_frame.f_code.co_filename, tb.tb_lineno) or location
        tb = tb.tb_next
    text = str(JitError("`x.at[...]` of a NumPy array: NumPy arrays have no `.at` (the function raises this "
                        "AttributeError without jit too)", location,
                        "pass an astjax array (`jnp.asarray(x)`), or write `jnp.asarray(x).at[...]` in the function"))
    return AttributeError(text)     # Python's exception type, as the function itself raises, with the user's line


def _is_generated(filename):
    return filename.startswith("<astjax:")


def _is_numba_error(exc):
    try:
        from numba.core.errors import NumbaError
    except ImportError:
        return False
    return isinstance(exc, NumbaError)


def _signature(value):
    """The abstract type of an argument, telling a Python bool from a NumPy one: Numba holds both as a
    boolean, but Python's `~True` is -2 and `True + True` is 2, NumPy's False and True. Each gets its own
    compiled entry, checked against the reference on its first call."""
    if type(value) is bool:
        return ("python bool",)
    kind = type(value)
    if kind is tuple or kind is list or kind is dict or (issubclass(kind, tuple) and hasattr(kind, "_fields")):
        return tree_signature(value, _signature)
    return abstract(value)


def _static_key(value):
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"a static argument must be hashable, got a {type(value).__name__}") from None
    return ("static", type(value).__name__, value)
