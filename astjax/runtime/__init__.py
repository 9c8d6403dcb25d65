"""Runtimes for compiled code: how each primitive runs on a compiled backend.

`numba_cpu` holds the Numba lowerings that the rule table names
(`deflowering(prim, numba="astjax.runtime.numba_cpu:exp")`). Nothing here is
imported by `import astjax`: Numba loads only when something is jitted.
"""
