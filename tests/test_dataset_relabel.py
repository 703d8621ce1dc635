"""``kgraph dataset relabel``: a folder's rows copied under another device id, keys recomputed, the source kept;
misuse (an existing --out, the same id, keys not made from their columns) refused with the reason."""
from __future__ import annotations

import json

import pytest

from kgraph.data.harness.keys import launch_key
from kgraph.data.harness.relabel import relabel_dataset
from kgraph.data.harness.store import DatasetStore, read_launches, read_manifest, read_sources
from kgraph.data.harness.validate import validate_dataset
from kgraph.errors import InputError, UsageError
from test_dataset_merge import _folder
from test_hardening_harness import _row, _source


def test_relabel_copies_every_row_under_the_new_id(tmp_path):
    src = _folder(tmp_path / "src", "dev", [1, 2, 3])
    line = relabel_dataset(src, tmp_path / "new", "dev-host2")
    assert "3 row(s) of 'dev'" in line and "'dev-host2'" in line
    new, old = read_launches(tmp_path / "new"), read_launches(src)
    assert (new.device_id == "dev-host2").all() and (old.device_id == "dev").all()  # the source is kept
    assert sorted(new.key) == sorted(launch_key("dev-host2", "k", {"n": i}, [i], [1]) for i in (1, 2, 3))
    assert not set(new.key) & set(old.key)
    assert sorted(new.median_time_ns) == sorted(old.median_time_ns)
    device = json.loads((tmp_path / "new" / "device.json").read_text())
    assert device["device_id"] == "dev-host2"
    assert device["roofline"] == json.loads((src / "device.json").read_text())["roofline"]
    manifest = read_manifest(tmp_path / "new")
    assert set(manifest["failed_kernels"]) == {"bad-src"} and manifest["ceilings"]["k"] == 1000.0
    assert len(read_sources(tmp_path / "new")) == 1
    assert validate_dataset(tmp_path / "new") == []


def test_relabel_refuses_misuse_and_writes_nothing(tmp_path):
    src = _folder(tmp_path / "src", "dev", [1])
    with pytest.raises(UsageError, match="must name a new device"):
        relabel_dataset(src, tmp_path / "a", "dev")
    with pytest.raises(UsageError, match="exists"):
        relabel_dataset(src, src, "other")
    bad = tmp_path / "bad"  # a key made under another id than the row's own
    with DatasetStore(bad, "dev") as store:
        store.add_source(_source())
        store.append({**_row(1), "key": launch_key("elsewhere", "k", {"n": 1}, [1], [1])})
    (bad / "device.json").write_text((src / "device.json").read_text())
    with pytest.raises(InputError, match="not made from their own columns"):
        relabel_dataset(bad, tmp_path / "b", "other")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_cli_relabel_and_its_misuse(tmp_path, capsys):
    from kgraph.app.cli.main import main

    src = _folder(tmp_path / "src", "dev", [1, 2])
    assert main(["dataset", "relabel", str(src), "--device-id", "dev2", "--out", str(tmp_path / "o")]) == 0
    assert "2 row(s)" in capsys.readouterr().out
    assert main(["dataset", "relabel", str(src), "--device-id", "dev2", "--out", str(tmp_path / "o")]) == 2
    assert "--out" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:  # argparse names the missing option
        main(["dataset", "relabel", str(src), "--out", str(tmp_path / "p")])
    assert exit_.value.code == 2 and "--device-id" in capsys.readouterr().err


def test_relabel_under_an_existing_device_keeps_its_descriptor(tmp_path):
    """``--descriptor-of``: a host's rows moved under an existing id; that id's median descriptor does not move,
    the host's rooflines survive the merge as a record, and a folder of another id is refused."""
    from kgraph.data.device_descriptors import read_descriptors
    from kgraph.data.harness.merge import merge_datasets

    main_ = _folder(tmp_path / "main", "dev", [1, 2])
    host = tmp_path / "host"  # another host's rows, 150 GB/s where main measured 100, under their own id
    relabel_dataset(_folder(tmp_path / "h", "dev", [3, 4, 5], roof=1.5), host, "dev-host2")
    relabel_dataset(host, tmp_path / "moved", "dev", described_by=main_)
    moved = json.loads((tmp_path / "moved" / "device.json").read_text())
    assert moved["roofline"]["copy_bw_gbs"] == 100.0
    assert [m["copy_bw_gbs"] for m in moved["uncounted_rooflines"]] == [150.0]
    assert (read_launches(tmp_path / "moved").device_id == "dev").all()
    merge_datasets(main_, [tmp_path / "moved"])
    assert len(read_launches(main_)) == 5
    merged = json.loads((main_ / "device.json").read_text())
    assert [m["copy_bw_gbs"] for m in merged["uncounted_rooflines"]] == [150.0]
    descriptor = read_descriptors([main_])["dev"]
    assert descriptor["roofline"]["copy_bw_gbs"] == 100.0 and "uncounted_rooflines" not in descriptor
    with pytest.raises(UsageError, match="holds device 'dev-host2'"):
        relabel_dataset(main_, tmp_path / "x", "dev-host3", described_by=host)
    assert not (tmp_path / "x").exists()


def test_cli_descriptor_of_names_a_bad_folder(tmp_path, capsys):
    from kgraph.app.cli.main import main

    src = _folder(tmp_path / "src", "dev", [1])
    rc = main(["dataset", "relabel", str(src), "--device-id", "dev2", "--out", str(tmp_path / "o"),
               "--descriptor-of", str(tmp_path / "missing")])
    assert rc != 0 and "missing" in capsys.readouterr().err and not (tmp_path / "o").exists()
