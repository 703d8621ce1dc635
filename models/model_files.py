"""The files of a model directory, each read and checked before anything is built from it.

``config.json`` (:func:`read_config`, :func:`check_config`), the header of ``model.safetensors``
(:func:`read_tensor_header`) against the architecture it must fit (:func:`check_tensor_shapes`), its
tensors (:func:`_load_tensors`: finite values only) and the optional interval head ``interval.pt``
(:func:`load_interval_head`). Every problem is a :class:`~kgraph.errors.ModelError` naming the file and
what is wrong; nothing is unpickled except through ``weights_only`` loading.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

from kgraph.errors import InputError, KGraphError, ModelError

FORMAT = "kgraph-default/1"
MAX_BYTES = 20 * 1024 * 1024


def missing_model_message(directory: Path) -> str:
    return (f"no trained model in {directory}: run `python -m kgraph.models.predictor --from-ckpt CKPT --out {directory}` "
            "on a checkpoint of `kgraph fit` (see docs/BASELINES.md)")


#: the optional interval head of a model directory (a code-free compact checkpoint with ``interval=True``)
INTERVAL_FILE = "interval.pt"


#: the groups of the interval's margin by exactness (``metrics["margins_by_exactness"]`` of ``interval.pt``): launches
#: whose counts are exact (``flops_source`` static) and the others
EXACTNESS_GROUPS = ("exact", "inexact")
#: the optional third group: launches whose kernel assumes a loop's trip count the launch does not give, with its own
#: ``[lower, upper]`` margins (ln; docs/MODELS.md "The margin for assumed trip counts")
ASSUMED_GROUP = "assumed"


def load_interval_head(path: Path):
    """The interval head of a model directory; :class:`ModelError` unless it is a compact checkpoint
    with interval outputs and no code embedding (it reads only launch, static and device features).
    The head carries ``margins_by_exactness`` (:data:`EXACTNESS_GROUPS` -> ln margin and, where the checkpoint has
    it, :data:`ASSUMED_GROUP` -> ``(lower, upper)`` ln margins, from its checkpoint's metrics; None when it has none:
    one margin for every launch)."""
    from kgraph.models.compact import from_checkpoint

    bundle = from_checkpoint(path)
    head = bundle.head
    if not head.config.interval or head.config.code_dim != 0:
        raise ModelError(f"{path}: not an interval head (a compact head with interval=True and code_dim 0); "
                         f"{REPAIR}")
    margins = bundle.metrics.get("margins_by_exactness")
    if margins is not None:
        def number(v) -> bool:
            return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

        pair = margins.get(ASSUMED_GROUP) if isinstance(margins, dict) else None
        ok = isinstance(margins, dict) and set(margins) - {ASSUMED_GROUP} == set(EXACTNESS_GROUPS) and all(
            number(margins[k]) for k in EXACTNESS_GROUPS) and (
            pair is None or (isinstance(pair, (list, tuple)) and len(pair) == 2 and all(number(v) for v in pair)))
        if not ok:
            raise ModelError(f"{path}: metrics['margins_by_exactness'] is not a finite ln margin for each of "
                             f"{', '.join(EXACTNESS_GROUPS)} (and, optionally, a [lower, upper] pair for "
                             f"{ASSUMED_GROUP}); {REPAIR}")
        margins = {k: (float(v) if k != ASSUMED_GROUP else tuple(float(x) for x in v)) for k, v in margins.items()}
    head.margins_by_exactness = margins
    return head




def margins_of(groups: dict | None, exact: list[bool] | None, n: int, assumed: list[bool] | None = None):
    """Float[n, 2] the interval's conformal margins (ln; lower, upper) of each of ``n`` launches from the head's
    ``margins_by_exactness`` ``groups``: its exactness group's (``exact[i]`` says which) on both sides or, where
    ``assumed[i]`` and ``groups`` has :data:`ASSUMED_GROUP`, that group's pair; None where every launch takes the
    head's one margin (``groups`` or ``exact`` None)."""
    import numpy as np

    if groups is None or exact is None:
        return None
    if len(exact) != n or (assumed is not None and len(assumed) != n):
        raise ValueError(f"interval margins: {len(exact)} exactness flags"
                         f"{'' if assumed is None else f' and {len(assumed)} assumed flags'} for {n} launches")
    one = np.where(np.asarray(exact, dtype=bool), groups["exact"], groups["inexact"])
    out = np.stack([one, one], 1)
    if assumed is not None and ASSUMED_GROUP in groups:
        out[np.asarray(assumed, dtype=bool)] = groups[ASSUMED_GROUP]
    return out


REPAIR = ("copy the model directory again, or convert its checkpoint again (python -m kgraph.models.predictor "
          "--from-ckpt CKPT --out DIR)")
#: bytes per element of each safetensors dtype
SAFETENSORS_DTYPES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U64": 8,
                      "U32": 4, "U16": 2, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}
MAX_HEADER_BYTES = 100 * 2**20  # the safetensors library's own limit on the JSON header


def read_config(directory: Path) -> dict:
    """The ``config.json`` of a model directory, checked (:func:`check_config`).

    Args:
        directory: the model directory.

    Raises:
        ModelError: naming the file and what is wrong (unreadable, not UTF-8, invalid or truncated
            JSON with its line and column, a missing or mistyped key).
    """
    path = Path(directory) / "config.json"
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ModelError(f"{path}: not UTF-8 text (byte {exc.start} is 0x{exc.object[exc.start]:02x}): a binary "
                         f"or damaged file; {REPAIR}") from None
    except OSError as exc:
        raise ModelError(f"{path}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        ends_early = exc.pos >= len(text.rstrip()) or not text.rstrip().endswith(("}", "]"))
        raise ModelError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON ({exc.msg})"
                         f"{': the file ends early (truncated?)' if ends_early else ''}; {REPAIR}") from None
    except RecursionError:
        raise ModelError(f"{path}: JSON nested too deeply to be a model config; {REPAIR}") from None
    check_config(config, path)
    return config


def check_config(config, path: Path) -> None:
    """Raise :class:`ModelError` naming ``path`` and the key when ``config`` is not a usable model config:
    a JSON object with this kgraph's ``format`` and ``vocab_version``, ``arch`` an object,
    ``feature_names`` a non-empty list of names, ``devices`` (optional) valid device descriptors by id,
    ``trained_on`` (optional) a list of device ids, ``ensemble`` (optional) the number of members of an
    ensemble (:mod:`kgraph.models.ensemble`), ``member_archs`` (optional, an ensemble whose members differ)
    one architecture object per member.

    Args:
        config: the parsed ``config.json``.
        path: its path, for the messages.
    """
    from kgraph.data.harness.descriptor import validate_descriptor
    from kgraph.schema import VOCAB_VERSION

    if not isinstance(config, dict):
        raise ModelError(f"{path}: a model config is a JSON object, got a {type(config).__name__}; {REPAIR}")
    if config.get("format") != FORMAT:
        raise ModelError(f"{path}: format {repr(config.get('format'))[:60]}, expected {FORMAT!r}")
    if config.get("vocab_version") != VOCAB_VERSION:
        raise ModelError(f"{path.parent}: trained with graph vocabulary {repr(config.get('vocab_version'))[:60]}, this kgraph "
                         f"has {VOCAB_VERSION}; retrain the model (token ids would not match)")
    if not isinstance(config.get("arch"), dict):
        raise ModelError(f"{path}: key 'arch' is missing or not an object (the model's architecture); {REPAIR}")
    names = config.get("feature_names")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise ModelError(f"{path}: key 'feature_names' must be a non-empty list of feature names; {REPAIR}")
    devices = config.get("devices", {})
    if not isinstance(devices, dict):
        raise ModelError(f"{path}: key 'devices' must be an object (device id -> device.json); {REPAIR}")
    for device_id, descriptor in devices.items():
        try:
            validate_descriptor(descriptor, f"{path}: devices.{device_id}")
        except InputError as exc:
            raise ModelError(str(exc)) from None
    from kgraph.models.ensemble import MAX_MEMBERS

    members = config.get("ensemble", 1)
    if isinstance(members, bool) or not isinstance(members, int) or not 1 <= members <= MAX_MEMBERS:
        raise ModelError(f"{path}: key 'ensemble' must be the number of members, 1 to {MAX_MEMBERS}, "
                         f"got {repr(members)[:40]}; {REPAIR}")
    archs = config.get("member_archs")
    if archs is not None and (not isinstance(archs, list) or len(archs) != members
                              or not all(isinstance(a, dict) for a in archs)):
        raise ModelError(f"{path}: key 'member_archs' must be a list of {members} architecture objects, one per "
                         f"member; {REPAIR}")
    trained = config.get("trained_on", [])
    if not isinstance(trained, list) or not all(isinstance(t, str) for t in trained):
        raise ModelError(f"{path}: key 'trained_on' must be a list of device ids; {REPAIR}")


def read_tensor_header(path: Path) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Tensor name -> (dtype, shape) from the header of a safetensors file, after checking that the
    header is whole and that the file holds exactly the bytes its tensors need (no data read).

    Args:
        path: the ``model.safetensors`` file.

    Raises:
        ModelError: naming the file: too short, truncated (how many bytes are missing), a damaged
            header, a tensor whose shape and byte range disagree, or bytes past the last tensor.
    """
    size = path.stat().st_size
    with path.open("rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise ModelError(f"{path}: {size} bytes, too short for a safetensors file (truncated?); {REPAIR}")
        length = int.from_bytes(head, "little")
        if length > MAX_HEADER_BYTES or length > size - 8:
            raise ModelError(f"{path}: truncated or not a safetensors file: the header says {length} bytes of "
                             f"metadata, the file has {size - 8} after its first 8 bytes; {REPAIR}")
        raw = f.read(length)
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ModelError(f"{path}: damaged header (not the JSON a safetensors file starts with); {REPAIR}") from None
    if not isinstance(header, dict):
        raise ModelError(f"{path}: damaged header (a JSON {type(header).__name__}, not an object); {REPAIR}")
    tensors, end = {}, 0
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype, shape, first, last = _tensor_entry(name, entry, path)
        tensors[name] = (dtype, shape)
        end = max(end, last)
    data = size - 8 - length
    if end > data:
        raise ModelError(f"{path}: truncated: its tensors need {end} bytes of data, the file holds {data} "
                         f"({end - data} missing); {REPAIR}")
    if end < data:
        raise ModelError(f"{path}: {data - end} byte(s) after the last tensor (a damaged or appended file); {REPAIR}")
    return tensors


def _tensor_entry(name: str, entry, path: Path) -> tuple[str, tuple[int, ...], int, int]:
    """(dtype, shape, first byte, end byte) of one header entry; ModelError when it is inconsistent."""
    ok = (isinstance(entry, dict) and isinstance(entry.get("dtype"), str) and entry["dtype"] in SAFETENSORS_DTYPES
          and isinstance(entry.get("shape"), list) and isinstance(entry.get("data_offsets"), list)
          and len(entry["data_offsets"]) == 2
          and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                  for v in [*entry["shape"], *entry["data_offsets"]]))
    if not ok:
        raise ModelError(f"{path}: damaged header: tensor {name!r} lacks a known dtype, a shape or its byte "
                         f"range; {REPAIR}")
    first, last = entry["data_offsets"]
    need = SAFETENSORS_DTYPES[entry["dtype"]]
    for d in entry["shape"]:
        need *= d
    if last - first != need:
        raise ModelError(f"{path}: tensor {name!r} of shape {entry['shape']} ({entry['dtype']}) needs {need} bytes, "
                         f"its byte range holds {last - first} (edited shapes?); {REPAIR}")
    return entry["dtype"], tuple(entry["shape"]), first, last


#: sub-folder of a model directory with the code LM whose vectors its graph encoder reads (graph.lm_dim > 0)
LM_FOLDER = "code_lm"


def _arch_of(config: dict, directory: Path, key: dict | None = None):
    """The ``ModelConfig`` of ``config['arch']`` (or of ``key``, one of its ``member_archs``; the token encoder's
    path resolved to ``lm/``)."""
    from kgraph.models.kgraph_model import ModelConfig

    try:
        arch = ModelConfig.from_dict(config["arch"] if key is None else key)
        if arch.use_tokens:
            arch.tokens.path = str((directory / "lm").resolve())
        if arch.graph.lm_dim:
            arch.graph.lm_path = str((directory / LM_FOLDER).resolve())
    except Exception as exc:  # noqa: BLE001 - any mistyped field of an edited config
        raise ModelError(f"{directory / 'config.json'}: 'arch' is not a model architecture "
                         f"({type(exc).__name__}: {str(exc)[:200]}); {REPAIR}") from None
    return arch


def _build_model(arch, config: dict, directory: Path, meta: bool = False):
    """A :class:`KGraphModel` of ``arch`` (a :class:`KGraphEnsemble` of ``config['ensemble']`` of them when
    that is 2 or more, of ``config['member_archs']`` where given; on the meta device: shapes only, no memory);
    ModelError naming ``config.json`` when its ``arch`` or ``feature_names`` do not make a model.

    Args:
        arch: the ``ModelConfig``.
        config: the ``config.json`` dict (``feature_names``).
        directory: the model directory, for the messages.
        meta: build on the meta device.
    """
    import contextlib

    import torch

    from kgraph.models.graph_encoder import native_layers
    from kgraph.models.ensemble import KGraphEnsemble
    from kgraph.models.kgraph_model import KGraphModel

    members = config.get("ensemble", 1)
    each = [_arch_of(config, directory, a) for a in config["member_archs"]] if config.get("member_archs") else None
    try:  # the PyG-free graph layers (same weights, same outputs; no torch_geometric import)
        with torch.device("meta") if meta else contextlib.nullcontext(), native_layers():
            if members > 1:
                return KGraphEnsemble(arch, config["feature_names"], members, each)
            return KGraphModel(arch, config["feature_names"])
    except KGraphError as exc:
        raise ModelError(f"{directory / 'config.json'}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - torch and the modules raise many types on an edited architecture
        raise ModelError(f"{directory / 'config.json'}: 'arch' does not make a model this kgraph can build "
                         f"({type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}); "
                         f"{REPAIR}") from None


def check_tensor_shapes(model, stored: dict[str, tuple], directory: Path, frozen: str | None = None) -> None:
    """Raise :class:`ModelError` when the tensors of ``model.safetensors`` (``stored``: name -> (dtype,
    shape), :func:`read_tensor_header`) are not those of ``model``: a shape differs, a tensor is
    missing (except a frozen token encoder's, kept in ``lm/``) or one is left over.

    Args:
        model: the model ``config.json`` describes (any device, the meta one included).
        stored: the header of ``model.safetensors``.
        directory: the model directory, for the messages.
        frozen: prefix of the parameters that may be absent from the file.
    """
    expected = {k: tuple(v.shape) for k, v in model.state_dict().items()}
    path = directory / "model.safetensors"
    wrong = [(k, stored[k][1], expected[k]) for k in stored if k in expected and stored[k][1] != expected[k]]
    if wrong:
        name, got, want = wrong[0]
        more = f" (and {len(wrong) - 1} more)" if len(wrong) > 1 else ""
        raise ModelError(f"{path}: tensor {name} has shape {list(got)}, the architecture in config.json makes "
                         f"{list(want)}{more}: the weights and config.json are not of one model; {REPAIR}")
    missing = [k for k in expected if k not in stored and not (frozen and k.startswith(frozen))]
    unexpected = [k for k in stored if k not in expected]
    if missing or unexpected:
        raise ModelError(f"{path} does not match config.json: missing {missing[:3]}, unexpected {unexpected[:3]}")


def _load_tensors(path: Path) -> dict:
    """The tensors of a checked safetensors file on the CPU; ModelError naming the file when one cannot
    be read or holds NaN or infinite values."""
    import torch
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    try:
        state = load_file(str(path), device="cpu")
    except (SafetensorError, OSError, ValueError, RuntimeError) as exc:
        raise ModelError(f"{path}: cannot be read ({str(exc)[:200]}); {REPAIR}") from None
    for name, tensor in state.items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise ModelError(f"{path}: tensor {name} holds NaN or infinite values (damaged weights); {REPAIR}")
    return state
