"""The ``kgraph`` command: a thin dispatcher to one module per sub-command.

Each module in :data:`COMMANDS` defines ``add_arguments(parser)`` and ``run(args) -> int``; when argv
names a command, only that command's ``add_arguments`` runs (keep the modules' top-level imports light).
Commands driven by LightningCLI (fit, validate, test, predict) take the rest of argv as is.
Every :class:`~kgraph.errors.KGraphError` becomes a one-line message and exit status 1 (2 for usage).
"""
from __future__ import annotations

import argparse
import gc
import importlib
import sys

from kgraph.errors import run_guarded

# command name -> (module, one-line help). One line per command; modules live in kgraph/app/cli/.
COMMANDS: dict[str, tuple[str, str]] = {
    "parse": ("kgraph.app.cli.parse", "parse kernels, print graph summaries and static analysis"),
    "measure": ("kgraph.app.cli.measure", "measure a kernel on an OpenCL device"),
    "dataset": ("kgraph.app.cli.dataset", "build, validate, import and describe measured datasets"),
    "estimate": ("kgraph.app.cli.estimate", "predict time, bandwidth, footprint and bound class"),
    "pretrain-lm": ("kgraph.app.cli.pretrain_lm", "train the BPE tokenizer and masked-LM code encoder"),
    "lm": ("kgraph.app.cli.lm", "build the code-LM corpus (Debian, PyPI) and its BPE tokenizer"),
    "sweep": ("kgraph.app.cli.sweep", "run a W&B sweep definition locally as a grid"),
    "report": ("kgraph.app.cli.report", "markdown ablation table and plots from runs"),
    "export": ("kgraph.app.cli.export", "export the compact model to ONNX or C"),
    "device": ("kgraph.app.cli.device", "make a device descriptor: measure one (describe) or from a spec sheet"),
}
LIGHTNING_COMMANDS = ("fit", "validate", "test", "predict")


def main(argv: list[str] | None = None) -> int:
    whole_process = argv is None  # the process's own command line (console script, python -m)
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in LIGHTNING_COMMANDS:
        try:
            from kgraph.models.cli import run_lightning_cli
        except ImportError as exc:  # pragma: no cover - only before the models package is installed
            print(f"kgraph: error: {argv[0]}: the models package is unavailable ({exc})", file=sys.stderr)
            return 1
        return _guard(lambda: run_lightning_cli(argv))
    parser = argparse.ArgumentParser(prog="kgraph", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in LIGHTNING_COMMANDS:
        sub.add_parser(name, help=f"LightningCLI {name} (--config conf/....yaml)", add_help=False)
    # Only the chosen command's options are added: some commands' add_arguments import heavy modules
    # (torch for pretrain-lm's defaults, the campaign harness for dataset), which the others do not need.
    chosen = argv[0] if argv and argv[0] in COMMANDS else None
    modules = {}
    for name, (module_name, help_text) in COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue
        modules[name] = module
        parser_of_command = sub.add_parser(name, help=help_text, description=help_text)
        if chosen in (None, name):
            module.add_arguments(parser_of_command)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    rc = _guard(lambda: modules[args.command].run(args))
    if whole_process and args.command == "estimate":
        # The process ends next. The interpreter's final garbage collections would walk the ~400k objects
        # that torch and torch_geometric create (about 1 s of estimate's cold start); estimate has printed
        # its output and holds no open file, so there is nothing to collect: frozen objects are skipped.
        gc.freeze()
    return rc


def _guard(fn) -> int:
    return run_guarded(fn, "kgraph")


if __name__ == "__main__":
    sys.exit(main())
