"""`+ - *` of two boolean scalars the function computes, under jit.

NumPy's bools add as `or` and multiply as `and` (`np.True_ + np.True_` is True); Python's add as ints
(`True + True` is 2). jit's first call records both as bool, so compiled code could take Python's meaning
where the reference took NumPy's: `c = x[0] > 0; c = c + (x[1] > 0); return c * 2` gave 4 instead of 2 on
a later call with both positive. jit refuses it at the user's line; Python bool arguments and bool arrays
keep their meanings (tests/test_jit_attacks.py, tests/test_jit_vmap_attacks11.py).
"""
import numpy as np
import pytest

import astjax
from astjax.backends.numba_cpu import JitError

pytest.importorskip("numba")


def count_positive_pair(x):
    c = x[0] > 0
    c = c + (x[1] > 0)
    return c * 2


def both_positive_times_three(x):
    both = (x[0] > 0) * (x[1] > 0)
    return both * 3


def test_arithmetic_of_two_computed_boolean_scalars_is_refused_at_the_users_line():
    for fn, symbol in ((count_positive_pair, r"\+"), (both_positive_times_three, r"\*")):
        with pytest.raises(JitError, match=f"booleans meeting at `{symbol}`") as info:
            astjax.jit(fn)(np.array([1.0, -1.0]))
        assert __file__ in str(info.value)
