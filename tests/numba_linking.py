"""The test profile's Numba linking: each compiled callee's machine code is emitted once, not once per caller.

Numba finalizes every compiled function (a generated function, a runtime helper, each NumPy overload it
uses) as a library of its own, emitted to machine code and added to its JIT engine; a caller then links a
copy of every callee's LLVM IR into its own module (for inlining), and LLVM emits that copy again. At
NUMBA_OPT=0 (the test profile, tests/conftest.py) nothing is inlined, so the copies are pure cost: a jitted
loss calling 35 special-function helpers took 23.5 CPU-s to compile with them and 14.6 without.

`leave_callees_to_the_engine()` makes a library declare its callees instead of linking their IR: the engine
resolves each call to the callee's machine code, already emitted when the callee was finalized (Numba never
removes a module from its engine, and a caller keeps its callees' libraries alive). The machine code of each
function is the same; only where a call's target lives changes. Callees are linked as Numba links them
(all of them, transitively, since the callees themselves were not linked) whenever that matters:
- when optimizing (NUMBA_OPT > 0: `numba_fully_optimized`, or `NUMBA_OPT=3 pytest`), where inlining may
  change results;
- when Numba's machine-code cache is on (ASTJAX_NUMBA_CACHE, off in the test profile, on in the tests of
  that cache): cached object code must hold its callees, since another process has not emitted them.
`ASTJAX_TEST_LINK_CALLEES=1` links as Numba does throughout. The replacement is installed only over the
`finalize` it was written from (its source's digest below): another Numba version links as it always does.
"""
import hashlib
import inspect
import os

__all__ = ["leave_callees_to_the_engine"]

# sha256 of the source of numba 0.68's `CPUCodeLibrary.finalize`, whose steps `finalize` below repeats
_FINALIZE_DIGEST = "4b4c34b83488a72f"


def _links_callees():
    from numba.core import config
    return (config.OPT != 0 or os.environ.get("ASTJAX_NUMBA_CACHE", "1") != "0"
            or os.environ.get("ASTJAX_TEST_LINK_CALLEES") == "1")


def _callees(library):
    """Every library `library` calls into, directly or through its callees, each once."""
    seen, order, stack = set(), [], list(library._linking_libraries)
    while stack:
        callee = stack.pop()
        if callee not in seen:
            seen.add(callee)
            order.append(callee)
            stack.extend(callee._linking_libraries)
    return order


def leave_callees_to_the_engine():
    """Replace Numba's `CPUCodeLibrary.finalize` (numba 0.68's, step for step, less the linking); True when
    installed, False where Numba's `finalize` is not the one this was written from."""
    from numba.core import codegen

    source = inspect.getsource(codegen.CPUCodeLibrary.finalize)
    if hashlib.sha256(source.encode()).hexdigest()[:16] != _FINALIZE_DIGEST:
        return False
    verify_linked = codegen.CPUCodeLibrary._verify_declare_only_symbols

    def finalize(self):
        codegen.require_global_compiler_lock()
        self._codegen._check_llvm_bugs()
        self._raise_if_finalized()
        callees = _callees(self)
        for callee in callees:
            callee._ensure_finalized()
            self._reload_init.update(callee._reload_init)
        if _links_callees():
            for callee in callees:
                self._final_module.link_in(callee._get_module_for_linking(), preserve=True)
        self._optimize_final_module()
        self._final_module.verify()
        self._finalize_final_module()

    def verify_declarations(self):
        if _links_callees():
            verify_linked(self)

    codegen.CPUCodeLibrary.finalize = finalize
    codegen.CPUCodeLibrary._verify_declare_only_symbols = verify_declarations
    return True
