"""Backends: where generated source runs. `python` (NumPy) is the reference, always available."""
