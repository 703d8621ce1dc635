"""The device-resident batch path (kgraph.data.resident) gives the CPU DataLoader path's batches exactly."""
from __future__ import annotations

import torch

from kgraph.data.features import feature_names
from kgraph.models.kgraph_model import KGraphModel, ModelConfig
from tests.test_datamodule import datasets, make  # noqa: F401 - the module fixture

ROWS = [0, 1, 8, 2, 40, 17, 33]


def test_resident_batch_equals_collate(datasets, tmp_path):  # noqa: F811
    dm = make(datasets, tmp_path, resident=True)
    cpu = dm.collate(ROWS)
    res = dm._loader("train", shuffle=False).batch(torch.tensor(ROWS))
    for name in ("source_index", "features", "targets", "bound", "family", "row"):
        torch.testing.assert_close(getattr(cpu, name), getattr(res, name), rtol=0, atol=0, equal_nan=True,
                                   msg=name)
    for name in ("x", "edge_index", "edge_type", "edge_pos", "batch"):
        assert torch.equal(getattr(cpu.graphs, name), getattr(res.graphs, name)), name
    assert cpu.graphs.num_graphs == res.graphs.num_graphs


def test_model_output_is_the_same_on_both_paths(datasets, tmp_path):  # noqa: F811
    dm = make(datasets, tmp_path, resident=True)
    torch.manual_seed(0)
    model = KGraphModel(ModelConfig(use_tokens=False), feature_names()).eval()
    cpu, res = dm.collate(ROWS), dm._loader("train", shuffle=False).batch(torch.tensor(ROWS))
    with torch.no_grad():
        a = model(cpu.graphs, None, cpu.source_index, cpu.features)
        b = model(res.graphs, None, res.source_index, res.features)
    assert torch.allclose(a.regression(), b.regression(), atol=1e-6, equal_nan=True)


def test_resident_epoch_covers_every_row_once_and_reshuffles(datasets, tmp_path):  # noqa: F811
    dm = make(datasets, tmp_path, resident=True)
    loader = dm._loader("train", shuffle=True)
    first = torch.cat([b.row for b in loader])
    second = torch.cat([b.row for b in loader])
    train = sorted(dm.splits["train"].tolist())
    assert sorted(first.tolist()) == train and sorted(second.tolist()) == train
    assert not torch.equal(first, second)  # a new permutation each epoch
    assert len(loader) == -(-len(train) // dm.batch_size)
    again = dm._loader("train", shuffle=True)
    assert torch.equal(torch.cat([b.row for b in again]), first)  # seeded: reproducible


def test_resident_shards_are_disjoint_and_equal_sized(datasets, tmp_path):  # noqa: F811
    from kgraph.data.resident import ResidentLoader

    dm = make(datasets, tmp_path, resident=True)
    base = dm._loader("val", shuffle=False)
    shards = [ResidentLoader(base.rows, base.item, base.tables, base.store, 4, False, True, False, 0, r, 3)
              for r in range(3)]
    rows = [torch.cat([b.row for b in s]) for s in shards]
    assert len({r.numel() for r in rows}) == 1
    assert set(torch.cat(rows).tolist()) == set(dm.splits["val"].tolist())


def test_graphs_built_on_a_pool_equal_the_serial_ones():
    from kgraph.data import graph_dataset
    from tests.test_datamodule import KERNELS

    rows = [(k, src, "opencl", name) for k, (_, name, src) in KERNELS.items()]
    rows.append(("broken", "__kernel void broken(__global float* x) { x[0] = ; }", "opencl", "broken"))
    serial = graph_dataset._graphs_of(rows, jobs=1)
    pooled = graph_dataset._graphs_of(rows, jobs=2, min_items=1)
    assert [e for _, e in serial] == [e for _, e in pooled] and serial[-1][0] is None and serial[-1][1]
    for (a, _), (b, _) in zip(serial[:-1], pooled[:-1]):
        assert a.key == b.key and torch.equal(a.x, b.x) and torch.equal(a.edge_index, b.edge_index)
    # a worker returns numpy arrays (through its pipe), never tensors (through /dev/shm)
    arrays, _ = graph_dataset._graph_of(rows[0])
    assert arrays and not any(isinstance(v, torch.Tensor) for v in arrays.values())


def test_training_graphs_need_no_analysis():
    """The graph cache builds graphs with analyze=False (the features analyse each kernel once): the tensors
    are the same as with the analysis attached."""
    import kgraph
    from kgraph.data.corpus import all_specs

    for spec in all_specs()[::40]:
        with_analysis = [g for g in kgraph.from_source(spec.source, spec.lang) if g.name == spec.kernel_name][0]
        without = [g for g in kgraph.from_source(spec.source, spec.lang, analyze=False)
                   if g.name == spec.kernel_name][0]
        a, b = kgraph.to_pyg(with_analysis), kgraph.to_pyg(without)
        for name in ("x", "edge_index", "edge_type", "edge_pos"):
            assert torch.equal(getattr(a, name), getattr(b, name)), (spec.kernel_id, name)
