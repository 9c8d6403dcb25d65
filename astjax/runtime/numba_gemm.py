"""`matrix_product(a, b, transpose_a, transpose_b)`: one BLAS gemm call for every layout of a 2-d product.

Numba compiles `np.dot` once per operand layout: the MLP gradient's `x @ w`, `g @ w.T` and
`h.T @ g` are (C, C), (C, F) and (F, C), and each layout costs Numba's `dot_2_mm` and `dot_3`
typed, lowered and optimized again (about 0.5 s of a cold compile each). Here the operands stay
in their C layout and the transposes are run-time flags of the same gemm call Numba's `np.dot`
makes for a transposed view (numba/np/linalg.py `call_xxgemm`: the row-major product
`C = op(A) @ op(B)` is the column-major `C^T = op(B)^T @ op(A)^T`), so the result is the same
to the bit and one compilation per dtype serves every call site.

Operands of another layout (a strided view) are copied to C order first, as Numba's `np.dot`
copies a non-contiguous operand. Only 2-d arrays of one float dtype (float32 or float64) are
accepted: the lowering passes (jit/lower/numba_calls.py) call it only for those.
"""
import numpy as np
from numba.core import types
from numba.core.errors import TypingError
from numba.extending import intrinsic, overload

from .numba_allocate import empty_array
from .numba_build import JIT_OPTIONS

__all__ = ["matrix_product"]

_NO, _YES = ord("n"), ord("t")


def matrix_product(a, b, transpose_a, transpose_b):
    """op(a) @ op(b), where op transposes when its flag is set (NumPy, outside compiled code)."""
    return np.dot(a.T if transpose_a else a, b.T if transpose_b else b)


@overload(matrix_product, jit_options=JIT_OPTIONS)
def _matrix_product(a, b, transpose_a, transpose_b):
    from numba.np.linalg import _BLAS, ensure_blas, get_blas_kind
    if not (isinstance(a, types.Array) and isinstance(b, types.Array) and a.ndim == 2 and b.ndim == 2
            and a.dtype == b.dtype and a.dtype in (types.float32, types.float64)):
        raise TypingError("matrix_product takes two 2-d arrays of one float dtype")
    ensure_blas()
    gemm = _BLAS().numba_xxgemm(a.dtype)
    kind = ord(get_blas_kind(a.dtype))
    dtype = np.dtype(str(a.dtype)).type        # the class, as the fused loops pass it
    contiguous_a, contiguous_b = a.layout == "C", b.layout == "C"

    def impl(a, b, transpose_a, transpose_b):
        left = a if contiguous_a else np.ascontiguousarray(a)
        right = b if contiguous_b else np.ascontiguousarray(b)
        m, k = (left.shape[1], left.shape[0]) if transpose_a else (left.shape[0], left.shape[1])
        k2, n = (right.shape[1], right.shape[0]) if transpose_b else (right.shape[0], right.shape[1])
        if k != k2:
            raise ValueError("dot: the inner dimensions of the matrices do not match")
        out = empty_array((m, n), dtype)
        if k == 0:
            for i in range(m):
                for j in range(n):
                    out[i, j] = 0
            return out
        if m == 0 or n == 0:
            return out
        one, zero = empty_array((1, 1), dtype), empty_array((1, 1), dtype)   # not constants: those would
        one[0, 0], zero[0, 0] = 1, 0                                          # stop Numba caching the caller
        status = gemm(kind, _YES if transpose_b else _NO, _YES if transpose_a else _NO, n, m, k,
                      one.ctypes, right.ctypes, right.shape[1], left.ctypes, left.shape[1],
                      zero.ctypes, out.ctypes, n)
        if status != 0:
            raise RuntimeError("BLAS gemm failed")
        _alive_until_here(left, right, out, one, zero)
        return out
    return impl


@intrinsic
def _alive_until_here(typingctx, left, right, out, one, zero):
    """A use of the five arrays after the gemm call, so Numba releases none of them before it (gemm reads
    and writes them through raw pointers). Emits no code; Numba's linalg writes
    `_dummy_liveness_func([a.size, ...])` instead, a function of a list compiled in every process (0.05 s)."""
    def codegen(context, builder, signature, args):
        return context.get_dummy_value()
    return types.none(left, right, out, one, zero), codegen
