"""Forward mode and second derivatives: jvp, jacfwd, jacrev and hessian, with their generated source."""
import numpy as np

import astjax
import astjax.numpy as jnp


def energy(x):
    return jnp.sum(jnp.exp(x) * x ** 2)


if __name__ == "__main__":
    x = np.array([0.5, 1.0, 1.5])
    value, slope = astjax.jvp(energy, (x,), (np.ones(3),))
    print("energy:", value, " directional derivative along ones:", slope)
    print("gradient:", astjax.grad(energy)(x))
    print("hessian (forward over reverse):\n", astjax.hessian(energy)(x))
    print(astjax.source(astjax.jacfwd(energy)))
