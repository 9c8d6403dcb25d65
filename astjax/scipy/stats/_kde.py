"""jax.scipy.stats.gaussian_kde: a Gaussian kernel density estimate, its methods written from primitives.

The constructor computes the bandwidth and covariances as JAX does; the methods are plain astjax code
over the attributes, so a transformed function calling `kde.logpdf(x)` on a kde built outside it is
differentiated in `x` (and in the integration limits, means and covariances the methods take). A
gaussian_kde built inside a transformed function from a value that needs a derivative is refused: the
object is not one astjax's records can follow (build it outside and differentiate in the points, or write
the kernel sum from jnp functions for a derivative in the data).
"""
import astjax.numpy as jnp
from ... import random
from .. import special
from .. import linalg

__all__ = ["gaussian_kde"]

_LOG_2PI = 1.8378770664093453
_SQRT_2PI = 2.5066282746310002


class gaussian_kde:
    """Gaussian kernel density estimator, as jax.scipy.stats.gaussian_kde.

    dataset: (n,) or (d, n) data; bw_method: "scott" (default), "silverman", a scalar or a callable of
    the kde; weights: (n,) weights (normalized to sum 1).
    """

    def __init__(self, dataset, bw_method=None, weights=None):
        dataset = jnp.atleast_2d(jnp.asarray(dataset))
        if jnp.iscomplexobj(dataset):
            raise NotImplementedError("gaussian_kde does not support complex data")
        if not jnp.size(dataset) > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        d, n = jnp.shape(dataset)
        if weights is not None:
            zero = jnp.zeros((), jnp.result_type(dataset, weights, 0.0))
            dataset = dataset + zero
            weights = jnp.atleast_1d(jnp.asarray(weights) + zero)
            weights = weights / jnp.sum(weights)
            if jnp.ndim(weights) != 1:
                raise ValueError("`weights` input should be one-dimensional.")
            if len(weights) != n:
                raise ValueError("`weights` input should be of length n")
        else:
            dataset = dataset + jnp.zeros((), jnp.result_type(dataset, 0.0))
            weights = jnp.full(n, 1.0 / n, dtype=dataset.dtype)
        self.dataset = dataset
        self.weights = weights
        self.neff = 1 / jnp.sum(weights ** 2)
        bw_method = "scott" if bw_method is None else bw_method
        if isinstance(bw_method, str) and bw_method == "scott":
            factor = jnp.power(self.neff, -1.0 / (d + 4))
        elif isinstance(bw_method, str) and bw_method == "silverman":
            factor = jnp.power(self.neff * (d + 2) / 4.0, -1.0 / (d + 4))
        elif jnp.isscalar(bw_method) and not isinstance(bw_method, str):
            factor = bw_method
        elif callable(bw_method):
            factor = bw_method(self)
        else:
            raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")
        data_covariance = jnp.atleast_2d(jnp.cov(dataset, rowvar=1, bias=False, aweights=weights))
        self.covariance = data_covariance * factor ** 2
        self.inv_cov = jnp.linalg.inv(data_covariance) / factor ** 2

    @property
    def d(self):
        return self.dataset.shape[0]

    @property
    def n(self):
        return self.dataset.shape[1]

    def evaluate(self, points):
        """The density at `points` ((d, m), or (m,) for d = 1)."""
        return _kernel_sum(self.dataset, self.weights, self.inv_cov, _points(points, self.d), False)

    def __call__(self, points):
        return self.evaluate(points)

    def pdf(self, x):
        """Probability density function (evaluate)."""
        return self.evaluate(x)

    def logpdf(self, x):
        """Log of the density, as a logsumexp (finite far from the data, where pdf underflows)."""
        return _kernel_sum(self.dataset, self.weights, self.inv_cov, _points(x, self.d), True)

    def integrate_gaussian(self, mean, cov):
        """The integral of the density times the normal density N(mean, cov)."""
        mean = jnp.atleast_1d(jnp.squeeze(mean))
        cov = jnp.atleast_2d(cov)
        if jnp.shape(mean) != (self.d,):
            raise ValueError(f"mean does not have dimension {self.d}")
        if jnp.shape(cov) != (self.d, self.d):
            raise ValueError(f"covariance does not have dimension {self.d}")
        return _convolve(self.covariance + cov, self.dataset, self.weights, jnp.reshape(mean, (self.d, 1)))[0]

    def integrate_box_1d(self, low, high):
        """The integral of a one-dimensional density from `low` to `high` (scalars)."""
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if jnp.ndim(low) != 0 or jnp.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        sigma = jnp.squeeze(jnp.sqrt(self.covariance))
        lower = jnp.squeeze((low - self.dataset) / sigma)
        upper = jnp.squeeze((high - self.dataset) / sigma)
        return jnp.sum(self.weights * (special.ndtr(upper) - special.ndtr(lower)))

    def integrate_kde(self, other):
        """The integral of the product of this density and `other`'s."""
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        small, large = (self, other) if self.n < other.n else (other, self)
        values = _convolve(self.covariance + other.covariance, large.dataset, large.weights, small.dataset)
        return jnp.sum(values * small.weights)

    def resample(self, key, shape=()):
        """A sample of shape (d,) + shape drawn from the density (astjax.random's bits, not JAX's)."""
        ind_key, eps_key = random.split(key)
        ind = random.choice(ind_key, self.n, shape=shape, p=self.weights)
        eps = random.multivariate_normal(eps_key, jnp.zeros(self.d, self.covariance.dtype), self.covariance,
                                         shape=shape, dtype=self.dataset.dtype)
        return self.dataset[:, ind] + jnp.moveaxis(eps, -1, 0)

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Not implemented, as in JAX."""
        raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        """Not implemented, as in JAX."""
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")


def _points(points, d):
    """`points` as a (d, m) array: JAX's reshaping (a (d,) vector is one point when d > 1)."""
    if jnp.iscomplexobj(points):
        raise NotImplementedError("gaussian_kde does not support complex coordinates")
    points = jnp.atleast_2d(points)
    rows, m = jnp.shape(points)
    if rows != d:
        if rows == 1 and m == d:
            return jnp.reshape(points, (d, 1))
        raise ValueError(f"points have dimension {rows}, dataset has dimension {d}")
    return points


def _kernel_sum(dataset, weights, inv_cov, points, in_log):
    """sum_i w_i N(x; data_i, cov) at each column x of `points` (its log with in_log), from the whitened
    squared distances."""
    d = jnp.shape(dataset)[0]
    whitening = jnp.linalg.cholesky(inv_cov)
    data = jnp.matmul(jnp.transpose(dataset), whitening)             # (n, d)
    xi = jnp.matmul(jnp.transpose(points), whitening)                # (m, d)
    log_norm = jnp.sum(jnp.log(jnp.diagonal(whitening))) - 0.5 * d * _LOG_2PI
    difference = jnp.expand_dims(xi, 1) - jnp.expand_dims(data, 0)   # (m, n, d)
    exponent = log_norm - 0.5 * jnp.sum(difference * difference, axis=-1)
    if in_log:
        return special.logsumexp(exponent + jnp.log(weights), axis=1)
    return jnp.sum(weights * jnp.exp(exponent), axis=1)


def _convolve(covariance, target, weights, means):
    """For each column m of `means`: sum_i w_i N(target_i; m, covariance)."""
    d = jnp.shape(target)[0]
    factor = linalg.cho_factor(covariance)
    norm = 1.0 / (_SQRT_2PI ** d * jnp.prod(jnp.diagonal(factor[0])))     # a Python float: weak, as the data
    difference = jnp.expand_dims(target, 1) - jnp.expand_dims(means, 2)            # (d, k, n)
    flat = jnp.reshape(difference, (d, -1))
    solved = jnp.reshape(linalg.cho_solve(factor, flat), jnp.shape(difference))
    exponent = 0.5 * jnp.sum(difference * solved, axis=0)                            # (k, n)
    return norm * jnp.sum(jnp.exp(-exponent) * weights, axis=1)


# Built inside a transformed function from a value that needs a derivative, the object is opaque to astjax's
# transformations (its records follow only the user's plain classes): refused at the user's line, saying why.
gaussian_kde.__astjax_no_derivative__ = (
    "a gaussian_kde built inside a differentiated function from a value that needs a derivative is an object "
    "the transformations do not follow (JAX differentiates in the data through its pytree; astjax does not)",
    "build the kde outside and differentiate in the points, or write the kernel sum with jnp functions "
    "(jax.scipy.stats.norm.pdf of the differences) for a derivative in the data")
