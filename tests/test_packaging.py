"""The wheel: one top-level package (``kgraph``) holding every package folder of the tree and the data
a user needs (shipped models, dialect queries, examples, runtime sources), and no datasets; installed
into a fresh venv outside the checkout, ``kgraph estimate`` and ``kgraph export`` work."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(out), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (found,) = out.glob("kgraph-*.whl")
    return found


def test_wheel_has_one_top_level_package_and_every_module(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"kgraph"}
    from tests.test_layers import modules

    for module, path in modules().items():
        expected = module.replace(".", "/") + ("/__init__.py" if path.name == "__init__.py" else ".py")
        assert expected in names, f"{path.relative_to(ROOT)} is not in the wheel as {expected}"
    for data in ("kgraph/models/default/model.safetensors", "kgraph/models/default_compact/compact.pt",
                 "kgraph/models/code_lm/weights/config.json", "kgraph/parsers/dialects/c/functions.scm",
                 "kgraph/examples/opencl/saxpy.cl", "kgraph/app/runtime/starpu/tiled_workload.c",
                 "kgraph/data/corpus/tiles/tile_gemm.cl", "kgraph/models/export/c/kgraph_driver.c"):
        assert data in names, data
    assert not [n for n in names if "/datasets/" in n or n.endswith(".parquet")]


def test_installed_wheel_estimates_outside_the_checkout(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = Path(subprocess.run([str(venv / "bin" / "python"), "-c",
                                   "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  capture_output=True, text=True, check=True).stdout.strip())
    # the dependencies come from this interpreter's site-packages as a plain path (a .pth line adds the
    # folder to sys.path without running its .pth files, so the checkout's editable install stays out)
    (purelib / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(purelib)
    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "models.py").write_text("raise SystemExit('a models.py in the working directory was imported')\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KGRAPH_DATASETS")}
    run = lambda *a: subprocess.run([str(venv / "bin" / "python"), "-c", "from kgraph.app.cli.main import main; "
                                     "raise SystemExit(main())", *a], cwd=work, env=env, capture_output=True,
                                    text=True, timeout=300)
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import kgraph; print(kgraph.__file__)"], cwd=work,
                           env=env, capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(purelib)), where
    saxpy = purelib / "kgraph" / "examples" / "opencl" / "saxpy.cl"
    proc = run("estimate", str(saxpy), "--kernel", "saxpy", "--global", "1048576", "--local", "256",
               "--arg", "n=1048576", "--arg", "a=2", "--device", "h200", "--json")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert '"footprint_source": "static"' in proc.stdout
    proc = run("export", "--format", "c", "--out", str(tmp_path / "c"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "c" / "kgraph_model.c").is_file()
