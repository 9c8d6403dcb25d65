"""The derivative batteries' comparison (tests/closeness.py): an infinite expected entry neither widens the
tolerance of the others nor matches a finite number."""
import numpy as np
import pytest

from closeness import assert_scaled_close


@pytest.mark.parametrize("actual, expected, agrees", [
    ([1.0, 5.0], [np.inf, 2.0], False),      # an infinity once made the tolerance infinite: 5 passed for 2
    ([np.inf, 2.0], [np.inf, 2.0], True),
    ([-np.inf, 2.0], [np.inf, 2.0], False),
    ([np.nan, 1.0], [np.nan, 1.0], True),
    ([1.0], [np.nan], False),
    ([1000.0 + 5e-4], [1000.0], True),        # the tolerance scales with the largest finite entry
    ([1.0 + 5e-4], [1.0], False),
])
def test_scaled_comparison(actual, expected, agrees):
    if agrees:
        assert_scaled_close(actual, expected, 1e-7, 1e-6, "case")
    else:
        with pytest.raises(AssertionError):
            assert_scaled_close(actual, expected, 1e-7, 1e-6, "case")
