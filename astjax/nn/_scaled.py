"""jax.nn.scaled_matmul, scaled_dot_general and get_scaled_dot_general_config.

JAX runs these through cuDNN's block-scaled fp8/fp4 kernels (GPU only: on CPU its scaled_matmul raises).
astjax has no float8/float4 dtypes, so:

* `scaled_matmul` computes what JAX documents it to mean, in float32:
  `einsum("BMK,BNK->BMN", lhs * repeat(lhs_scales, K // K_a), rhs * repeat(rhs_scales, K // K_b))`.
  It is written from primitives, so it has the exact derivative in all four operands (JAX has none).
* `scaled_dot_general(..., configs=None)` is `lax.dot_general` (as in JAX), with its rules. With
  `configs` it would quantize both operands to fp8/fp4 blocks and differentiate with a straight-through
  estimator: astjax raises NotImplementedError rather than return unquantized numbers under that name.
* `get_scaled_dot_general_config` returns JAX's BlockScaleConfig fields (dtypes named by strings).
"""
from dataclasses import dataclass
from typing import Any

import astjax.numpy as jnp
from .. import lax

__all__ = ["BlockScaleConfig", "scaled_matmul", "scaled_dot_general", "get_scaled_dot_general_config"]


@dataclass(frozen=True)
class BlockScaleConfig:
    """How scaled_dot_general quantizes an operand (JAX's fields; the dtypes by name)."""
    mode: str
    block_size: int
    data_type: str
    scale_type: str
    global_scale: Any
    infer_only: bool


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=jnp.float32):
    """Block-scaled batched matmul of lhs (B, M, K) and rhs (B, N, K) with scales (B, M, K_a), (B, N, K_b):
    each block of K // K_a entries of a row of lhs is multiplied by its scale (likewise rhs), then the rows
    are contracted over K: shape (B, M, N)."""
    if jnp.ndim(lhs) != 3 or jnp.ndim(rhs) != 3 or jnp.ndim(lhs_scales) != 3 or jnp.ndim(rhs_scales) != 3:
        raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
    b, m, k = jnp.shape(lhs)
    rb, n, rk = jnp.shape(rhs)
    if k != rk or b != rb:
        raise ValueError("scaled_matmul requires inputs a and b to have matching batch (B) and contract (K) "
                         f"dimensions, but got shapes {jnp.shape(lhs)} and {jnp.shape(rhs)}")
    sb, sm, ka = jnp.shape(lhs_scales)
    tb, tn, kb = jnp.shape(rhs_scales)
    if ka != kb or sb != tb:
        raise ValueError("scaled_matmul requires scales to have matching batch (B) and contract (K) dimensions, "
                         f"but got shapes {jnp.shape(lhs_scales)} and {jnp.shape(rhs_scales)}")
    if sm != m or tn != n:
        raise ValueError("scaled_matmul requires scales to match non-contract dimensions of inputs")
    if k % ka != 0:
        raise ValueError(f"scaled_matmul: the contracting size {k} is not a multiple of the scales' {ka}")
    lhs32 = jnp.astype(lhs, jnp.float32)
    rhs32 = jnp.astype(rhs, jnp.float32)
    blocks_lhs = jnp.reshape(lhs32, (b, m, ka, k // ka)) * jnp.expand_dims(jnp.astype(lhs_scales, jnp.float32), -1)
    blocks_rhs = jnp.reshape(rhs32, (b, n, kb, k // kb)) * jnp.expand_dims(jnp.astype(rhs_scales, jnp.float32), -1)
    scaled_lhs = jnp.reshape(blocks_lhs, (b, m, k))
    scaled_rhs = jnp.reshape(blocks_rhs, (b, n, k))
    return jnp.astype(jnp.einsum("bmk,bnk->bmn", scaled_lhs, scaled_rhs), preferred_element_type)


def get_scaled_dot_general_config(mode, global_scale=None):
    """JAX's quantization config for scaled_dot_general: "nvfp4" (blocks of 16) or "mxfp8" (blocks of 32)."""
    if mode == "nvfp4":
        return BlockScaleConfig(mode="nvfp4", block_size=16, data_type="float4_e2m1fn", scale_type="float8_e4m3fn",
                                global_scale=jnp.ones((1,), jnp.float32) if global_scale is None else global_scale,
                                infer_only=False)
    if mode == "mxfp8":
        return BlockScaleConfig(mode="mxfp8", block_size=32, data_type="float8_e4m3fn", scale_type="float8_e8m0fnu",
                                global_scale=None, infer_only=False)
    raise ValueError(f"Unsupported mode: {mode}")


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type=jnp.float32, configs=None,
                       implementation=None):
    """lax.dot_general when `configs` is None (as JAX); block-scaled quantization (`configs`) is refused."""
    if configs is not None:
        raise NotImplementedError(
            "astjax.nn.scaled_dot_general with configs quantizes to float8/float4 blocks, which astjax cannot "
            "represent (JAX runs it on cuDNN GPUs only). Instead: pass configs=None for lax.dot_general, or "
            "quantize yourself and call astjax.nn.scaled_matmul with the scales.")
    return lax.dot_general(lhs, rhs, dimension_numbers, preferred_element_type=preferred_element_type)
