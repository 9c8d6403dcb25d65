"""Reverse mode, one job per file: driver (assembles the function), adjoint (the adjoint
sweep, statement by statement), loops (reversing loops), tape_writer (pushes and pops),
custom_calls (custom_vjp's fwd and bwd)."""
from .driver import ReverseMode

__all__ = ["ReverseMode"]
