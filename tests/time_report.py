"""Sum the per-test times that ASTJAX_TEST_TIMES=PATH wrote (tests/conftest.py): CPU and wall seconds per file.

    ASTJAX_TEST_TIMES=/tmp/times ASTJAX_CACHE_DIR=$(mktemp -d) python -m pytest
    python tests/time_report.py /tmp/times [N]      # the N costliest files (default 30) and tests
"""
import collections
import glob
import sys


def main(prefix, top=30):
    cpu, wall, count, tests = collections.Counter(), collections.Counter(), collections.Counter(), []
    for path in sorted(glob.glob(prefix + ".gw*") + glob.glob(prefix + ".main")):
        with open(path) as fh:
            for line in fh:
                nodeid, c, w = line.rstrip("\n").rsplit("\t", 2)
                name = nodeid.split("::")[0]
                cpu[name] += float(c)
                wall[name] += float(w)
                count[name] += 1
                tests.append((float(c), nodeid))
    print(f"{sum(cpu.values()):8.1f} s CPU {sum(wall.values()):8.1f} s wall  {sum(count.values())} tests in all")
    print("   CPU s   wall s  tests  file")
    for name, c in cpu.most_common(top):
        print(f"{c:8.1f} {wall[name]:8.1f} {count[name]:6d}  {name}")
    print("costliest tests (CPU s):")
    for c, nodeid in sorted(tests, reverse=True)[:top]:
        print(f"{c:8.2f}  {nodeid}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30)
