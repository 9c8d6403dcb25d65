"""Deterministic samples of test batteries for the suite's default profile (its time budget).

A battery that checks the same rule on many cases runs, by default, every case that is the first of
its key (a primitive, say) plus every `every`-th case; `ASTJAX_LONG_PROPERTIES=1` runs them all.
The first-of-its-key rule means no key can drop out of the sample: `assert_covers` checks that
after the fact, so a later edit to the sampling rule cannot silently lose a primitive.
See docs/testing.md.
"""
import os

__all__ = ["LONG", "covering_sample", "assert_covers"]

LONG = bool(os.environ.get("ASTJAX_LONG_PROPERTIES"))


def covering_sample(items, key, every, offset=0, keep=lambda item: False):
    """`items` in order: all of them under LONG; otherwise the first item of each `key(item)`, the items
    at positions `offset`, `offset + every`, ..., and those `keep(item)` asks for. Two batteries over
    the same items with different offsets together run every item in some form."""
    if LONG or every <= 1:
        return list(items)
    seen, out = set(), []
    for n, item in enumerate(items):
        k = key(item)
        if k not in seen or n % every == offset or keep(item):
            out.append(item)
        seen.add(k)
    return out


def assert_covers(sample, items, key, what):
    """Every key of `items` has an item in `sample`."""
    missing = sorted({key(i) for i in items} - {key(i) for i in sample}, key=str)
    assert not missing, f"the default sample of {what} drops {missing}"
