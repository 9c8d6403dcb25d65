"""Functions the jit tests compile (module level: astjax reads their source)."""
import astjax
import astjax.numpy as jnp
from astjax import lax

ALPHA = 1.6732632423543772848170429916717
SCALE = 1.0507009873554804934193349852946


def selu(x):
    return SCALE * jnp.where(x > 0, x, ALPHA * jnp.exp(x) - ALPHA)


def selu_defaults(x, alpha=1.67, lmbda=1.05):
    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def power_loop(x, n):
    y = 1.0
    for _ in range(n):
        y = y * x
    return y


def newton_sqrt(a):
    x = a
    i = 0
    while i < 20:
        x = 0.5 * (x + a / x)
        i += 1
    return x


def relu_branch(x):
    if x > 0:
        return x * x
    else:
        return -x


def fact_pow(x, n):
    if n == 0:
        return 1.0
    return x * fact_pow(x, n - 1)


def sigmoid(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def sum_logistic(x):
    return jnp.sum(sigmoid(x))


def square_plus(x):
    return jnp.sum(x * x + x)


def mlp_loss(w1, w2, x):
    h = jnp.tanh(jnp.dot(x, w1))
    return jnp.sum(jnp.dot(h, w2) ** 2)


def blur(image, kernel):
    im_h, im_w = image.shape
    ker_h, ker_w = kernel.shape
    pad_h, pad_w = ker_h // 2, ker_w // 2
    padded = jnp.pad(image, ((pad_h, pad_h), (pad_w, pad_w)), mode="edge")
    output = jnp.zeros_like(image)
    for i in range(ker_h):
        for j in range(ker_w):
            window = lax.dynamic_slice(padded, (i, j), (im_h, im_w))
            output += kernel[i, j] * window
    return output


def zeros_of(n, x):
    return jnp.zeros(n) + x


def scale_by(x, factor):
    return x * factor


def int_times_float(k):
    return k * 2.5


def uses_method(x):
    return x.tolist()


def sum_of_pair(pair):
    a, b = pair
    return jnp.sum(a * b)


def branch_changes_type(x, n):
    if n > 0:
        y = x * 2.0
    else:
        y = 0.0
    return y


def product_loop_over_array(x, n):
    y = 1.0
    for _ in range(n):
        y = y * x
    return y


def index_past_the_end(x):
    return x[5] * 2.0


def divide_by_zero(x):
    return jnp.sum(x / (x - x))


def uses_global(x):
    return SCALE * x


def value_of_a(d):
    return d["a"] * 2.0


def pad_edge_2d(x):
    return jnp.pad(x, ((1, 2), (3, 0)), mode="edge")


def pad_zeros_1d(x):
    return jnp.pad(x, ((2, 1),))


def pad_edge_1d(x):
    return jnp.pad(x, ((0, 3),), mode="edge")


def sum_of_squared_difference(a, b):
    return jnp.sum((a - b) ** 2)


def layer_loss(w, x, y):
    return jnp.sum((jnp.tanh(jnp.dot(x, w)) - y) ** 2)


def _tanh_loss(w, x):
    return jnp.sum(jnp.tanh(x @ w) ** 2)


def _tanh_loss_with_aux(w, x):
    return jnp.sum(jnp.tanh(x @ w) ** 2), w[0]


def step_with_grad(w, x):
    return w - 0.1 * astjax.grad(_tanh_loss)(w, x)


def step_with_grad_and_aux(w, x):
    g, aux = astjax.grad(_tanh_loss_with_aux, has_aux=True)(w, x)
    return w - 0.1 * g + aux


def step_with_value_and_grad(w, x):
    v, g = astjax.value_and_grad(_tanh_loss)(w, x)
    return w - v * g


def sum_of_two_gradients(w, x):
    gw, gx = astjax.grad(_tanh_loss, argnums=(0, 1))(w, x)
    return jnp.sum(gw) + jnp.sum(gx)


def _list_loss(params, x):
    W, b = params
    return jnp.sum(jnp.tanh(x @ W + b) ** 2)


def list_update(params, x):
    grads = astjax.grad(_list_loss)(params, x)
    return [p - 0.1 * g for p, g in zip(params, grads)]
