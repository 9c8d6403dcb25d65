"""Adversarial cases that fail today, each with a one-line reason (the fixers' work list).

A fix turns the case into an XPASS (the xfail is strict): then delete its entry here.
"""
KNOWN_FAILURES = {
}
