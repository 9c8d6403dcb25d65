"""The Numba CPU lowerings of astjax's primitives, by primitive name (imported only when jit runs).

The rule table names them (`deflowering(prim, numba="astjax.runtime.numba_cpu:exp")`);
each is a stub that Numba-compiled code calls with the primitive's arguments in
the order of `prim.signature`, defaults filled in, keyword-only ones positional,
sequence operands as tuples. Called from plain Python a stub runs `prim.impl`.
The implementations live in the numba_* modules beside this one; `COMPOSITES`
holds Numba twins of the composite functions in astjax/rules/linalg.py.

What the code that calls them must know:

* A lowering gives `prim.impl`'s values and dtype, or fails at typing time
  (a Numba TypingError: jit turns it into a refusal). It never guesses.
* Weak scalars: an int literal in the compiled source is a Python int (weak).
  A runtime `int64` may be a Python int or an np.int64: where the two give
  different dtypes (`int32_array + n`), the lowering declines. A `float64`
  scalar is read as np.float64: Numba has no float literals, so the jit pass
  must give weak Python floats their dtype (`np.float32(2.0)` in float32 code)
  before the call (numba_typing.AMBIGUOUS_FLOATS = True declines instead).
* Static arguments (axis, keepdims, axes, mode, order, a pad_width's nesting,
  an index's kind) must be literals or tuples whose length is in their type.
  Index arrays, `where=` masks, `out=` and `initial=` are declined.
* 0-d results are scalars of the right dtype; results may be views of their
  operands where NumPy's are (never zero-stride views), and `.at[]` updates
  return a new array.
"""
from . import numba_adjoints, numba_elementwise, numba_reductions, numba_structural  # noqa: F401 (they register)
from . import numba_special  # noqa: F401 (registers the special functions' lowerings)
from . import numba_rearranging, numba_norms, numba_quantiles  # noqa: F401 (roll, sort; norm; median)
from . import numba_differences  # noqa: F401 (diff and its adjoint)
from . import numba_running  # noqa: F401 (cumprod's derivatives; running extrema and their derivatives)
from . import numba_batch_indices  # noqa: F401 (vmap's batch_take_index; axis_pad)
from . import numba_list_adjoints  # noqa: F401 (stack_adjoint, item_adjoint: a scanned list's adjoint)
from . import numba_builtin_sums  # noqa: F401 (Python's sum of a list, and its adjoint)
from . import numba_examples  # noqa: F401 (vmap's example_of)
from . import numba_example_stacks  # noqa: F401 (vmap's stack_examples, stack_adjoint_examples)
from . import numba_cholesky  # noqa: F401 (jnp.linalg.cholesky and its adjoint)
from .numba_build import STUBS
from .numba_linalg import COMPOSITES  # noqa: F401 (exported)

globals().update(STUBS)
