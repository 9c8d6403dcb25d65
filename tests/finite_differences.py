"""Central differences for tests that check a derivative numerically."""
import numpy as np


def central_difference(f, args, argnum, eps=1e-6):
    """d f / d args[argnum] of the scalar f(*args) by central differences, one coordinate at a time."""
    x = np.array(args[argnum], dtype=np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        hi = list(args)
        lo = list(args)
        hi[argnum], lo[argnum] = up, down
        out[i] = (float(f(*hi)) - float(f(*lo))) / (2 * eps)
    return out


def jit_gradient_agrees(f, calls, argnum=0):
    """jit(grad(f)) on each call (the second runs the compiled code alone) against grad(f) and central
    differences; returns the jitted gradient."""
    import astjax
    compiled = astjax.jit(astjax.grad(f, argnums=argnum))
    for call in calls:
        got = compiled(*call)
        np.testing.assert_allclose(got, astjax.grad(f, argnums=argnum)(*call), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got, central_difference(f, call, argnum), rtol=1e-5, atol=1e-7)
    return compiled
