"""The full kgraph model: code encoders (graph, tokens) + launch/hardware encoder -> fusion -> heads.

Ablations are switches of :class:`ModelConfig` (presets in ``conf/model/*.yaml``):

======================  ==========  ==========  ============  =================
variant                 use_graph   use_tokens  use_hardware  use_static_counts
======================  ==========  ==========  ============  =================
hybrid (default)        yes         yes         yes           yes
graph_only              yes         no          yes           yes
tokens_only             no          yes         yes           yes
static_only             no          no          yes           yes
no_hardware             yes         yes         no            yes
======================  ==========  ==========  ============  =================
"""
from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass, field

import torch
from torch import Tensor, nn

from kgraph.data.floors import FLOORS
from kgraph.errors import ModelError
from kgraph.models.fusion import Fusion, FusionConfig
from kgraph.models.graph_encoder import GraphEncoder, GraphEncoderConfig
from kgraph.models.heads import HeadConfig, MultiTaskHead, Prediction
from kgraph.models.launch_encoder import LaunchEncoder, LaunchEncoderConfig
from kgraph.models.token_encoder import TokenEncoder, TokenEncoderConfig

#: raw feature columns of the traffic-anchored head's memory term (:meth:`KGraphModel.log_memory`)
MEMORY_TERM_FEATURES = ("traffic_global_sector_bytes_total", "hw_log10_copy_bw_gbs")


@dataclass
class ModelConfig:
    """Architecture of :class:`KGraphModel`.

    Args:
        graph: graph encoder settings.
        tokens: token encoder settings.
        launch: launch/hardware MLP settings.
        fusion: fusion settings.
        head: multi-task head and loss settings.
        use_graph: encode the kernel graph (GNN).
        use_tokens: encode the source tokens (language model).
        use_hardware: feed the device descriptor (``hw_`` features) to the launch encoder.
        use_static_counts: feed the static-analysis counts (``static_`` features).
        use_traffic: feed the global traffic by access pattern and its sector estimate (``traffic_``
            features, :mod:`kgraph.analysis.traffic`); off in models made before them.
    """

    graph: GraphEncoderConfig = field(default_factory=GraphEncoderConfig)
    tokens: TokenEncoderConfig = field(default_factory=TokenEncoderConfig)
    launch: LaunchEncoderConfig = field(default_factory=LaunchEncoderConfig)
    fusion: FusionConfig = field(default_factory=FusionConfig)
    head: HeadConfig = field(default_factory=HeadConfig)
    use_graph: bool = True
    use_tokens: bool = True
    use_hardware: bool = True
    use_static_counts: bool = True
    use_traffic: bool = False

    @classmethod
    def from_dict(cls, data: dict) -> "ModelConfig":
        """Rebuild from a plain dict: ``dataclasses.asdict`` output (a shipped model's ``config.json``
        ``arch``) or checkpoint hyper-parameters written by LightningCLI. The one way a config is read back."""
        return config_from_dict(cls, data)

    def feature_groups(self) -> tuple[str, ...]:
        """Prefixes of the launch feature groups this variant uses (the physical floors need both the
        hardware and the static counts)."""
        return ("launch_",) + (("hw_",) if self.use_hardware else ()) + (
            ("static_",) if self.use_static_counts else ()) + (
            ("floor_",) if self.use_hardware and self.use_static_counts else ()) + (
            ("traffic_",) if self.use_traffic else ())



def config_from_dict(cls, data: dict):
    """A (nested) config dataclass ``cls`` from a plain dict: nested dicts become the field's dataclass,
    keys that are not fields are ignored (configs written by another version still load)."""
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            value = data[f.name]
            kwargs[f.name] = (config_from_dict(hints[f.name], value)
                              if dataclasses.is_dataclass(hints[f.name]) and isinstance(value, dict) else value)
    return cls(**kwargs)

class KGraphModel(nn.Module):
    """Predict a launch's log time, bandwidth, footprint, FLOPs, bytes and bound class.

    Args:
        config: :class:`ModelConfig`.
        feature_names: column names of the launch feature vector (``kgraph.data.features.feature_names()``).

    Shapes:
        - graphs: a PyG ``Batch`` of U distinct kernel graphs (or None without ``use_graph``)
        - tokens: ``{"input_ids", "attention_mask"}`` Long[U, L] (or None without ``use_tokens``)
        - source_index: Long[B], the distinct source (0..U-1) of each launch
        - features: Float[B, F]
        - returns :class:`~kgraph.models.heads.Prediction` (each Float[B], bound_logits Float[B, 3])
    """

    def __init__(self, config: ModelConfig, feature_names: list[str]):
        super().__init__()
        self.config = config
        self.graph_encoder = GraphEncoder(config.graph) if config.use_graph else None
        self.token_encoder = TokenEncoder(config.tokens) if config.use_tokens else None
        self.launch_encoder = LaunchEncoder(config.launch, feature_names, config.feature_groups())
        code_dims = [e.out_dim for e in (self.graph_encoder, self.token_encoder) if e is not None]
        if config.fusion.kind == "cross_attention" and not code_dims:
            raise ModelError("fusion.kind=cross_attention needs use_graph or use_tokens")
        self.fusion = Fusion(config.fusion, self.launch_encoder.out_dim, code_dims)
        self.head = MultiTaskHead(config.head, self.fusion.out_dim)
        # raw (not standardised) log-floor columns of the feature vector, for the bounded time head
        self.register_buffer("floor_columns", torch.tensor(
            [list(feature_names).index(f"floor_{n}") for n in FLOORS] if config.head.time == "bounded" else [],
            dtype=torch.long), persistent=False)
        # raw columns of the traffic anchor's memory term: log1p(sector bytes of the launch), log10(copy GB/s)
        anchored = config.head.time == "bounded" and config.head.anchor == "traffic"
        if anchored and not set(MEMORY_TERM_FEATURES) <= set(feature_names):
            raise ModelError(f"head.anchor=traffic needs the features {', '.join(MEMORY_TERM_FEATURES)} "
                             "(use_traffic and use_hardware)")
        self.register_buffer("memory_columns", torch.tensor(
            [list(feature_names).index(n) for n in MEMORY_TERM_FEATURES] if anchored else [],
            dtype=torch.long), persistent=False)

    @property
    def code_dim(self) -> int:
        """Width D of :meth:`encode_code`'s output."""
        return sum(e.out_dim for e in (self.graph_encoder, self.token_encoder) if e is not None)

    def _encode(self, graphs, tokens) -> tuple[list[Tensor], list[tuple[Tensor, Tensor]]]:
        vectors: list[Tensor] = []
        sets: list[tuple[Tensor, Tensor]] = []
        if self.graph_encoder is not None:
            if graphs is None:
                raise ModelError("the model encodes graphs (use_graph) but the batch has none")
            nodes, pooled = self.graph_encoder(graphs.x, graphs.edge_index, graphs.edge_type,
                                               graphs.edge_pos, graphs.batch, graphs.num_graphs,
                                               getattr(graphs, "lm", None), getattr(graphs, "lm_pooled", None))
            vectors.append(pooled)  # [U, Hg]
            if self.config.fusion.kind == "cross_attention":  # only cross-attention reads the node sets
                sets.append(to_dense_batch(nodes, graphs.batch, batch_size=graphs.num_graphs))  # [U, Nmax, Hg]
        if self.token_encoder is not None:
            if tokens is None:
                raise ModelError("the model encodes tokens (use_tokens) but the batch has none")
            states, pooled = self.token_encoder(tokens["input_ids"], tokens["attention_mask"])
            vectors.append(pooled)  # [U, Ht]
            sets.append((states, tokens["attention_mask"].bool()))  # [U, L, Ht]
        return vectors, sets

    def encode_code(self, graph_batch, tokens: dict[str, Tensor] | None) -> Tensor:
        """Code embedding Float[U, D] of U distinct kernels (graph and/or token vectors concatenated).

        Public and stable: the compact runtime head (``models/compact.py``) consumes it.
        """
        vectors, _ = self._encode(graph_batch, tokens)
        if not vectors:
            raise ModelError("encode_code: this model variant has no code encoder (static_only)")
        return torch.cat(vectors, dim=-1)

    def forward(self, graphs, tokens: dict[str, Tensor] | None, source_index: Tensor,
                features: Tensor) -> Prediction:
        # 1. code: one vector per distinct source, then gathered per launch
        vectors, sets = self._encode(graphs, tokens)  # each [S, D_i]
        # 2. launch + hardware
        launch = self.launch_encoder(features)  # [B, H_l]
        # 3. fusion (concat: the code's share of the first layer once per source, then gathered)
        if self.config.fusion.kind == "concat":
            fused = self.fusion.forward_gathered(launch, vectors, source_index)  # [B, H_f]
        else:
            code = [v.index_select(0, source_index) for v in vectors]  # each [B, D_i]
            code_sets = None
            if self.config.fusion.kind == "cross_attention":
                code_sets = [(s.index_select(0, source_index), m.index_select(0, source_index)) for s, m in sets]
            fused = self.fusion(launch, code, code_sets)  # [B, H_f]
        # 4. heads (the bounded time head reads the launch's physical floors)
        log_floors = features.index_select(1, self.floor_columns) if self.floor_columns.numel() else None  # [B, K]
        return self.head(fused, log_floors, self.log_memory(features))

    def log_memory(self, features: Tensor) -> Tensor | None:
        """Float[B] log ns of the launch's sector bytes ÷ its device's copy bandwidth (GB/s = bytes/ns), the
        traffic anchor's memory term; None without that anchor. A launch of no counted bytes reads 1 byte."""
        if not self.memory_columns.numel():
            return None
        sector, log10_bw = features.index_select(1, self.memory_columns).unbind(1)  # [B], [B]
        return torch.log(torch.expm1(sector).clamp_min(1.0)) - log10_bw * math.log(10.0)  # [B]


def to_dense_batch(x: Tensor, batch: Tensor, batch_size: int | None = None) -> tuple[Tensor, Tensor]:
    """``torch_geometric.utils.to_dense_batch(x, batch, batch_size=...)`` without importing PyG (the
    same values; ``batch`` sorted): Float[B, Nmax, ...] with zeros past each graph's nodes, and the
    Bool[B, Nmax] mask of real nodes."""
    if batch_size is None:
        batch_size = int(batch.max()) + 1 if batch.numel() else 0
    counts = torch.zeros(batch_size, dtype=torch.long, device=x.device).scatter_add_(0, batch, torch.ones_like(batch))
    max_nodes = int(counts.max()) if batch_size else 0
    starts = torch.cumsum(counts, 0) - counts
    slot = batch * max_nodes + (torch.arange(batch.size(0), device=x.device) - starts[batch])
    out = x.new_zeros((batch_size * max_nodes, *x.shape[1:]))
    out[slot] = x
    mask = torch.zeros(batch_size * max_nodes, dtype=torch.bool, device=x.device)
    mask[slot] = True
    return out.view(batch_size, max_nodes, *x.shape[1:]), mask.view(batch_size, max_nodes)
