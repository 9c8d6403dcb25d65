"""The primitive table. Importing this package registers every rule family."""
from .registry import (PRIMITIVES, Classification, Primitive, all_primitives, classification,
                       lookup_callable, lookup_operator)
from . import elementwise, reductions, linalg, structural, creation, nondifferentiable, control  # noqa: F401 (registration)
from . import statistics, signal, special, decompositions, scipy_linalg, fft, lax_rules  # noqa: F401 (registration: issue 9)
from . import tensordot, casts, custom_jvp_transpose  # noqa: F401 (registration: issue 6)
from . import more  # noqa: F401 (registration: the last jax.numpy functions)
from . import complex_parts  # noqa: F401 (registration: abs/real/imag/conj of the FFTs' complex results)
from . import array_api_linalg  # noqa: F401 (registration: numpy.linalg's array-API names)
from . import collectives  # noqa: F401 (registration: lax.psum and the other collectives over a vmap axis)
from . import batching_examples  # noqa: F401 (registration: derivatives of vmap's loop over examples)
from . import batching_axes  # noqa: F401 (registration: batching rules declared by what a primitive does with axes)
from . import batching_solves  # noqa: F401 (registration: batching rules of solves and the split family)
from . import batching_adjoints  # noqa: F401 (registration: batching rules of the adjoint helpers)
from . import batching_signal  # noqa: F401 (registration: batching rules of convolve, correlate, poly*)
from . import batching_choices  # noqa: F401 (registration: batching rules of select, choose, compress, extract)
from . import batching_grids  # noqa: F401 (registration: the batching rule of meshgrid)
from . import batching_statistics  # noqa: F401 (registration: the batching rule of cov)
from . import record_constructions  # noqa: F401 (registration: namedtuples built in the function)
from . import special_fill  # noqa: F401 (registration: sici, fresnel, bessel_jn)
from . import batching_trees  # noqa: F401 (registration: batching rules of the adjoint-tree helpers)
from . import batching_fourth  # noqa: F401 (registration: batching rules of the fourth batch; after special_fill)
from . import batching_fifth  # noqa: F401 (registration: batching rules of the fifth batch: convolutions, windows)
from . import cuda_lowerings  # noqa: F401 (registration: the elementwise primitives' CUDA lowerings)
from . import scipy_linalg_more  # noqa: F401 (registration: the rest of jax.scipy.linalg)
from . import lax_reduce_sort  # noqa: F401 (registration: lax.reduce's and lax.sort's helpers)
from . import fiedler_companion  # noqa: F401 (registration: jax.scipy.linalg.fiedler_companion)
from . import per_slice  # noqa: F401 (registration: apply_along_axis's and piecewise's shape helpers)
from . import stats_functions  # noqa: F401 (registration: jax.scipy.stats.rankdata and mode)
from . import batching_sixth  # noqa: F401 (registration: batching rules of the sixth batch; after the families they batch)

__all__ = ["PRIMITIVES", "Classification", "classification", "Primitive", "all_primitives", "lookup_callable", "lookup_operator",
           "elementwise", "reductions", "linalg", "structural", "creation", "nondifferentiable", "control",
           "statistics", "signal", "special", "decompositions", "scipy_linalg", "fft", "lax_rules", "tensordot", "casts", "custom_jvp_transpose", "complex_parts"]
