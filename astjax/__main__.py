"""`python -m astjax demo`: a short tour of what astjax does today."""
import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] != "demo":
        print("usage: python -m astjax demo")
        return 2
    from .demo import run
    run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
