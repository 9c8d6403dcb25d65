"""astjax pauses Python's cyclic collector while it builds code (astjax/collection_pause.py) and puts it
back as it found it: on after a build, still off when the user switched it off, on after an error."""
import gc

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.collection_pause import paused_collection, pausing_collection


def loss(x):
    return jnp.sum(jnp.sin(x) * x)


def test_a_build_leaves_the_collector_on():
    assert gc.isenabled()
    g = astjax.grad(loss)(np.array([0.5, 1.0]))
    np.testing.assert_allclose(g, np.sin([0.5, 1.0]) + np.array([0.5, 1.0]) * np.cos([0.5, 1.0]))
    assert gc.isenabled()


def test_nested_pauses_resume_once_and_errors_resume_too():
    @pausing_collection
    def inner():
        assert not gc.isenabled()
        raise ValueError("inside a build")

    with paused_collection():
        assert not gc.isenabled()
        with pytest.raises(ValueError):
            inner()
        assert not gc.isenabled()        # the outer build is still under way
    assert gc.isenabled()


def test_a_collector_the_user_switched_off_stays_off():
    gc.disable()
    try:
        astjax.grad(loss)(np.array([0.25]))
        assert not gc.isenabled()
    finally:
        gc.enable()
