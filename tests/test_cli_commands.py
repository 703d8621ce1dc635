"""Every ``kgraph`` command parses its options, and the modules that also run as ``python -m <module>`` take
the same options and fail the same way under both spellings (issue 13 §3: one parser per command)."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from kgraph.app.cli.main import COMMANDS, main

# Commands whose module also has a ``python -m`` main built from the same add_arguments (and the prefix of
# argv naming the command; ``lm pretrain`` is a step of ``kgraph lm``).
MODULE_COMMANDS = {
    ("frontend",): "kgraph.parsers",
    ("analyze",): "kgraph.analysis",
    ("instrument",): "kgraph.data.instrumented",
    ("corpus-check",): "kgraph.data.corpus.check",
    ("c-campaign",): "kgraph.data.harness.c_campaign",
    ("dataset", "campaign"): "kgraph.data.harness.campaign",
    ("baselines",): "kgraph.models.baselines.run",
    ("compact-train",): "kgraph.models.compact_training",
    ("ship-model",): "kgraph.models.predictor",
    ("schedule",): "kgraph.app.scheduling.run",
    ("schedule-tables",): "kgraph.app.scheduling.from_datasets",
    ("starpu-run",): "kgraph.app.runtime.starpu_runner",
    ("export-verify",): "kgraph.models.export.verify",
    ("lm", "pretrain"): "kgraph.models.code_lm.pretrain",
}
OPTION = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)")


def _help_of(argv: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--help"])
    assert exc.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_prints_its_help(command, capsys):
    assert f"usage: kgraph {command}" in _help_of([command], capsys)


def test_every_module_main_is_a_command():
    named = {argv[0] for argv in MODULE_COMMANDS}
    assert named <= set(COMMANDS)


@pytest.mark.parametrize("argv", sorted(MODULE_COMMANDS), ids=" ".join)
def test_a_bad_option_is_a_one_line_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--no-such-option"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    # a step's unrecognized option is reported by its command (argparse hands it up: "kgraph dataset: error")
    assert re.match(rf"kgraph {argv[0]}( [a-z-]+)?: error: ", err.strip().splitlines()[-1])


@pytest.mark.parametrize("argv", [("schedule",), ("frontend",), ("corpus-check",)], ids=" ".join)
def test_python_m_and_kgraph_take_the_same_options(argv, capsys):
    module = MODULE_COMMANDS[argv]
    ours = _help_of(list(argv), capsys)
    theirs = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120)
    assert theirs.returncode == 0, theirs.stderr
    assert theirs.stdout.startswith(f"usage: python -m {module}")
    options = lambda text, prog: set(OPTION.findall(text.replace(prog, "")))  # noqa: E731
    assert options(ours, f"kgraph {' '.join(argv)}") == options(theirs.stdout, f"python -m {module}")
    bad = subprocess.run([sys.executable, "-m", module, "--no-such-option"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1].startswith(f"python -m {module}: error: ")


def test_a_usage_error_raised_by_a_command_is_exit_2(tmp_path, capsys):
    truth = tmp_path / "t.csv"
    truth.write_text("kind,tile,device,time_us\n")
    assert main(["schedule", "--truth", str(truth), "--cpus", "-1"]) == 2
    assert capsys.readouterr().err.strip() == "kgraph: error: --cpus must be >= 0 and --sizes >= 1"
