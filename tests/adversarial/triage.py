"""Run every adversarial case and print one line each: status, time, and the first line of the failure.

    cd <repo> && python tests/adversarial/triage.py [substring]

Fixers use it to see which cases a change flips; `--known` prints entries in
the form of known_failures.KNOWN_FAILURES for cases that fail.
"""
import os
import sys
import time

_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.dirname(_TESTS), _TESTS]  # this checkout's astjax, then the corpus

from adversarial import CASES  # noqa: E402
from adversarial.harness import run_case  # noqa: E402
from adversarial.known_failures import KNOWN_FAILURES  # noqa: E402


def _reason(exc, name):
    text = str(exc).strip().splitlines()
    text = [t for t in text if t.strip()]
    labelled = [t for t in text if t.startswith(name)]
    head = labelled[0][len(name) + 2:] if labelled else (text[0] if text else type(exc).__name__)
    tail = text[-1] if len(text) > 1 else ""
    return (head + (" | " + tail if tail and tail != head else ""))[:200]


def main(argv):
    known = "--known" in argv
    pattern = next((a for a in argv if not a.startswith("--")), "")
    counts = {}
    for c in CASES:
        if pattern not in c.name:
            continue
        t0 = time.time()
        try:
            status, reason = run_case(c), ""
        except BaseException as exc:  # noqa: BLE001
            status, reason = "FAIL", _reason(exc, c.name)
        dt = time.time() - t0
        counts[status] = counts.get(status, 0) + 1
        mark = " (known)" if c.name in KNOWN_FAILURES else ""
        if known and status == "FAIL":
            print(f"    {c.name!r}: {reason!r},")
        elif not known:
            print(f"{status} {dt:5.2f}s {c.outcome:6s} {c.name}{mark} {reason}")
    print(counts, file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
