"""`python -m astjax demo`: a short tour of what astjax does today.
`python -m astjax explain path/to/file.py:function [--stage normalized]`: a function beside its gradient."""
import sys

USAGE = ("usage: python -m astjax demo\n"
         "       python -m astjax explain path/to/file.py:function [--stage optimized|normalized]")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "demo":
        from .demo import run
        run()
        return 0
    if argv and argv[0] == "explain" and len(argv) in (2, 4) and (len(argv) == 2 or argv[2] == "--stage"):
        return _explain(argv[1], argv[3] if len(argv) == 4 else None)
    print(USAGE)
    return 2


def _explain(target, stage):
    """Print explain(grad(function)) for `path/to/file.py:function` (the file is imported, not run as a script)."""
    import importlib.util
    import pathlib

    import astjax
    path, _, name = target.rpartition(":")
    if not path or not name or not pathlib.Path(path).is_file():
        print(f"astjax explain: expected path/to/file.py:function, got {target!r}")
        return 2
    spec = importlib.util.spec_from_file_location(pathlib.Path(path).stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    fn = getattr(module, name, None)
    if not callable(fn):
        print(f"astjax explain: {path} has no function {name!r}")
        return 2
    print(astjax.explain(astjax.grad(fn), stage=stage))
    return 0


if __name__ == "__main__":
    sys.exit(main())
