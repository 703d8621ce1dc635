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

# command name -> (module, one-line help). One line per command; the modules live in kgraph/app/cli/, or next
# to the code they drive when they also run as ``python -m <module>`` (same add_arguments, same guard).
COMMANDS: dict[str, tuple[str, str]] = {
    "parse": ("kgraph.app.cli.parse", "parse kernels, print graph summaries and static analysis"),
    "measure": ("kgraph.app.cli.measure", "measure a kernel on an OpenCL device"),
    "dataset": ("kgraph.app.cli.dataset", "build, validate, import and describe measured datasets"),
    "estimate": ("kgraph.app.cli.estimate", "predict time, bandwidth, footprint and bound class"),
    "pretrain-lm": ("kgraph.app.cli.pretrain_lm", "train the BPE tokenizer and masked-LM code encoder"),
    "lm": ("kgraph.app.cli.lm", "build the code-LM corpus and its BPE tokenizer; pretrain the code LM"),
    "sweep": ("kgraph.app.cli.sweep", "run a W&B sweep definition locally as a grid"),
    "report": ("kgraph.app.cli.report", "markdown ablation table and plots from runs"),
    "export": ("kgraph.app.cli.export", "export the compact model to ONNX or C"),
    "device": ("kgraph.app.cli.device", "make a device descriptor: measure one (describe) or from a spec sheet"),
    "frontend": ("kgraph.parsers.__main__", "run the front end alone: diagnostics, each function's kind and parameters"),
    "analyze": ("kgraph.analysis.__main__", "symbolic per-work-item counts, loops and access patterns of kernels"),
    "instrument": ("kgraph.data.instrumented.__main__", "count a kernel's work by an instrumented run (PoCL)"),
    "corpus-check": ("kgraph.data.corpus.check", "check corpus kernels against their references on OpenCL"),
    "c-campaign": ("kgraph.data.harness.c_campaign", "measure the C kernels on this CPU into datasets"),
    "baselines": ("kgraph.models.baselines.run", "fit and evaluate the baseline predictors on a split"),
    "compact-train": ("kgraph.models.compact_training", "distil a full-model checkpoint into compact heads"),
    "export-verify": ("kgraph.models.export.verify", "check exported C and ONNX against the compact head's torch"),
    "ship-model": ("kgraph.models.predictor", "convert a checkpoint into the shipped default model"),
    "schedule": ("kgraph.app.scheduling.run", "replay task DAGs on a GPU + CPUs platform under time beliefs"),
    "schedule-tables": ("kgraph.app.scheduling.from_datasets", "time tables for `kgraph schedule` from datasets"),
    "starpu-run": ("kgraph.app.runtime.starpu_runner", "build and run the StarPU walk-through codelet"),
    "registry": ("kgraph.data.registry.cli", "fetch, plan and measure the registry set (kernels from package archives)"),
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
    # Only the chosen command's module is imported and only its options are added: some commands'
    # modules import heavy ones (torch for pretrain-lm's defaults and lm pretrain, the campaign harness for
    # dataset), which the others do not need. Without a command, the table's help lines are enough.
    chosen = argv[0] if argv and argv[0] in COMMANDS else None
    module = command_parser = None
    for name, (module_name, help_text) in COMMANDS.items():
        parser_of_command = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            command_parser = parser_of_command
            try:
                module = importlib.import_module(module_name)
            except ModuleNotFoundError as exc:  # pragma: no cover - a layer left out of the installation
                if exc.name != module_name:
                    raise
                print(f"kgraph: error: {name}: {module_name} is not installed", file=sys.stderr)
                return 1
            module.add_arguments(parser_of_command)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # named by the command's own prog ("kgraph <cmd>: error: ..."), not the dispatcher's
        (command_parser or parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.print_help()
        return 2
    rc = _guard(lambda: module.run(args))
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
