"""The exception compiled code raises for a Python number it cannot hold (jit/python_numbers.py).

Its own module, free of Numba, so that `compiled.py` can catch it without importing Numba with astjax.
"""


class PythonNumberError(ArithmeticError):
    """Raised by compiled code: (what happened, "file:line" of the user's line)."""
