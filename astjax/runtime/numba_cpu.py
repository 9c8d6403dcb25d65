"""The Numba CPU lowerings of astjax's primitives, by primitive name (imported only when jit runs).

The rule table names them (`deflowering(prim, numba="astjax.runtime.numba_cpu:exp")`);
each is a stub that Numba-compiled code calls with the primitive's arguments in
the order of `prim.signature`, defaults filled in. The implementations live in
the numba_* modules beside this one; `COMPOSITES` holds Numba twins of the
composite functions in astjax/rules/linalg.py (dot_lhs_adjoint, ...).
"""
from . import numba_adjoints, numba_elementwise, numba_reductions, numba_structural  # noqa: F401 (they register)
from .numba_build import STUBS
from .numba_linalg import COMPOSITES

globals().update(STUBS)
