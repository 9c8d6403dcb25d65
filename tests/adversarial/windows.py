"""Windows and accumulations in loops (stencil session, issue 7): the programs that jit's stencil,
recompute_windows and shape_only_values passes rewrite, and their near misses, where a rewrite would
be wrong: a window read after its loop, a sliced array rebound inside the loop, starts that are not
bare counters, clamped windows, an accumulation whose shape grows by broadcasting. Each is checked
under grad here; under jit by tests/test_jit_corpus.py (sampled; all with ASTJAX_LONG_PROPERTIES=1)."""
import astjax.numpy as jnp
from astjax import lax

from .case import case, mat, vec


def window_read_after_its_loop(img, k):
    h, w = img.shape
    out = jnp.zeros((h - 2, w - 2))
    for i in range(3):
        for j in range(3):
            win = lax.dynamic_slice(img, (i, j), (h - 2, w - 2))
            out = out + k[i, j] * win
    return jnp.sum(out * win)


case(window_read_after_its_loop, lambda r: (mat(r, 6, 7), mat(r, 3, 3)), "works", argnums=(0, 1))


def window_of_a_rebound_array(img, k):
    h, w = img.shape
    out = jnp.zeros((h - 2, w))
    src = img
    for i in range(3):
        win = lax.dynamic_slice(src, (i, 0), (h - 2, w))
        out = out + k[i] * win
        src = src * 1.5
    return jnp.sum(out ** 2)


case(window_of_a_rebound_array, lambda r: (mat(r, 6, 4), vec(r, 3)), "works", argnums=(0, 1))


def window_at_a_shifted_counter(img, k):
    h, w = img.shape
    out = jnp.zeros((h - 3, w))
    for i in range(3):
        win = lax.dynamic_slice(img, (i + 1, 0), (h - 3, w))
        out = out + k[i] * win * win
    return jnp.sum(out)


case(window_at_a_shifted_counter, lambda r: (mat(r, 7, 4), vec(r, 3)), "works", argnums=1)


def clamped_windows_kernel_gradient(img, k):
    h, w = img.shape
    out = jnp.zeros((h - 1, w - 1))
    for i in range(4):
        for j in range(4):
            out = out + k[i, j] * lax.dynamic_slice(img, (i, j), (h - 1, w - 1))
    return jnp.sum(out ** 2)


case(clamped_windows_kernel_gradient, lambda r: (mat(r, 5, 6), mat(r, 4, 4)), "works", argnums=1)


def blur_kernel_gradient(k, img):
    h, w = img.shape
    padded = jnp.pad(img, ((1, 1), (1, 1)), mode="edge")
    out = jnp.zeros_like(img)
    for i in range(3):
        for j in range(3):
            window = lax.dynamic_slice(padded, (i, j), (h, w))
            out += k[i, j] * window
    return jnp.sum(out ** 2)


case(blur_kernel_gradient, lambda r: (mat(r, 3, 3), mat(r, 5, 6)), "works")


def accumulation_that_broadcasts(x, row):
    acc = jnp.zeros((1, x.shape[1]))
    for i in range(2):
        acc = acc + x * row * (i + 1.0)
    return jnp.sum(acc * acc)


case(accumulation_that_broadcasts, lambda r: (mat(r, 3, 4), vec(r, 4)), "works", argnums=(0, 1))


def shape_only_temporary(x, k):
    t = jnp.zeros_like(x)
    total = 0.0
    for i in range(3):
        t = k[i] * x + t
        total = total + k[i] * jnp.sum(x * x)
    return total + jnp.sum(t) * 0.0


case(shape_only_temporary, lambda r: (vec(r, 5), vec(r, 3)), "works", argnums=(0, 1))
