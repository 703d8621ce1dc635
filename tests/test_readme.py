"""The README's examples run: every ``$ kgraph ...`` line of a ```console block exits 0,
and the README opens with the two commands (main job, tests) that the Makefile defines."""
from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def console_commands() -> list[str]:
    blocks = re.findall(r"```console\n(.*?)```", README, flags=re.S)
    return [line[2:].strip() for block in blocks for line in block.splitlines() if line.startswith("$ ")]


def test_readme_opens_with_the_two_make_targets():
    first_block = re.search(r"```\n(.*?)```", README, flags=re.S).group(1)
    targets = [line.split()[1] for line in first_block.splitlines() if line.startswith("make ")]
    assert targets == ["demo", "test"]
    makefile = (ROOT / "Makefile").read_text()
    for target in targets:
        assert re.search(rf"^{target}:", makefile, flags=re.M), f"Makefile has no '{target}' target"
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_readme_has_console_examples():
    assert len(console_commands()) >= 3


@pytest.mark.parametrize("command", console_commands())
def test_readme_example_runs(command, monkeypatch, capsys):
    from kgraph.app.cli.main import main

    argv = shlex.split(command)
    assert argv[0] == "kgraph", f"README example is not a kgraph command: {command}"
    monkeypatch.chdir(ROOT)
    status = main(argv[1:])
    out = capsys.readouterr()
    assert status == 0, f"{command!r} exited {status}: {out.err[-2000:]}"
    assert out.out.strip(), f"{command!r} printed nothing"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_python_examples_run(monkeypatch, capsys):
    """Every ```python block of the README runs from the repository root and prints something."""
    blocks = python_blocks()
    assert blocks, "the README shows the Python API"
    monkeypatch.chdir(ROOT)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    assert re.search(r" us \(80%: [\d.]+-[\d.]+ us; floor ", out) and "footprint_source" in out, out
