"""Command line: `python -m srcdiff demo | show MODULE:FUNCTION`."""
import argparse
import importlib
import sys

from .errors import SrcdiffError


def _load(spec):
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise SystemExit(f"srcdiff show: expected MODULE:FUNCTION, got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SystemExit(f"srcdiff show: cannot import module {module_name!r}: {exc}")
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise SystemExit(f"srcdiff show: module {module_name!r} has no function {attr!r}")
        obj = getattr(obj, part)
    return getattr(obj, "fun", obj)


def show(args):
    import srcdiff as nf

    fn = _load(args.target)
    wrt = tuple(int(w) for w in args.wrt.split(","))
    derivative = nf.grad(fn, wrt=wrt[0] if len(wrt) == 1 else wrt, optimized=not args.raw)
    print(derivative.source, end="")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m srcdiff")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="check an emitted gradient, then train a small ResNet")
    commands.add_parser("train", help="train the numpy ResNet (see python -m srcdiff train -h)",
                        add_help=False)
    show_parser = commands.add_parser("show", help="print the emitted gradient of a function")
    show_parser.add_argument("target", help="MODULE:FUNCTION")
    show_parser.add_argument("--wrt", default="0", help="argument positions, e.g. 0,1")
    show_parser.add_argument("--raw", action="store_true", help="skip optimisation passes")
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["train"]:
        from .train import main as train
        return train(argv[1:])
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            from .demo import main as demo
            return demo()
        return show(args)
    except SrcdiffError as exc:
        print(f"srcdiff: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
