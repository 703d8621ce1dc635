"""A token-only regressor on an LLMPerf-style prompt: the launch configuration as text, then the
kernel source. No graph, no static analysis, no device descriptor numbers (only the device id).

Prompt (:func:`to_prompt`)::

    device: pocl-amd-epyc
    kernel: saxpy
    global: 4096,1,1
    local: 64,1,1
    args: n=4096 alpha=1.5
    <source text>

Two encoders, chosen by ``encoder``:

- ``bag`` — a byte-level BPE tokenizer trained on the training prompts
  (``kgraph.models.lm_pretrain.train_tokenizer``), each prompt a bag of token counts (log1p), ridge
  regression per log target and a logistic regression for the bound class.
- a local Hugging Face model directory (e.g. ``models/code_lm/weights``, the project's code LM): the
  frozen encoder's mean-pooled states of the prompt (first ``max_length`` tokens), then the same
  ridge/logistic heads.

``auto`` uses ``models/code_lm/weights`` when its weights exist, else ``bag``; :attr:`TokenRegressorBaseline.encoder_used`
says which was used (the report names it).
"""
from __future__ import annotations

import numpy as np

from kgraph.data.features import REGRESSION_TARGETS
from kgraph.models.baselines.base import Baseline, LaunchRows, empty_outputs


def to_prompt(device_id: str, kernel_name: str, global_size, local_size, args: dict, source: str) -> str:
    """The LLMPerf-style prompt of one launch (launch configuration first, so truncation keeps it)."""
    arg_text = " ".join(f"{k}={v}" for k, v in args.items())
    return (f"device: {device_id}\nkernel: {kernel_name}\nglobal: {','.join(str(int(g)) for g in global_size)}\n"
            f"local: {','.join(str(int(x)) for x in local_size)}\nargs: {arg_text}\n{source}")


def to_prompts(rows: LaunchRows) -> list[str]:
    src = rows.source_rows()["source"].fillna("").tolist()
    g = rows.launches[["g0", "g1", "g2"]].to_numpy()
    lsz = rows.launches[["l0", "l1", "l2"]].to_numpy()
    return [to_prompt(d, k, g[i], lsz[i], a, src[i]) for i, (d, k, a) in
            enumerate(zip(rows.launches["device_id"], rows.launches["kernel_name"], rows.args()))]


class TokenRegressorBaseline(Baseline):
    """Ridge/logistic regression over token features of the prompt.

    Args:
        encoder: ``auto``, ``bag`` or a local Hugging Face model directory.
        vocab_size: BPE vocabulary of the ``bag`` tokenizer.
        alpha: ridge penalty.
        max_length: tokens kept per prompt by a Hugging Face encoder.
    """

    name = "token_regressor"

    def __init__(self, encoder: str = "auto", vocab_size: int = 2048, alpha: float = 1.0, max_length: int = 256):
        self.encoder, self.vocab_size, self.alpha, self.max_length = encoder, vocab_size, alpha, max_length
        self.encoder_used = None

    # -------------------------------------------------------------------------------- encoding
    def _resolve(self) -> str:
        if self.encoder != "auto":
            return self.encoder
        from kgraph.models.shipped import LM_DIR

        return str(LM_DIR) if (LM_DIR / "model.safetensors").is_file() else "bag"

    def _encode(self, prompts: list[str]):
        if self.encoder_used == "bag":
            from scipy import sparse

            ids = self.tokenizer(prompts, add_special_tokens=False)["input_ids"]
            indptr = np.cumsum([0] + [len(x) for x in ids])
            m = sparse.csr_matrix((np.ones(indptr[-1]), np.concatenate(ids or [[]]).astype(np.int64), indptr),
                                  shape=(len(prompts), len(self.tokenizer)))
            m.sum_duplicates()
            m.data = np.log1p(m.data)
            return m
        import torch

        vectors = []
        with torch.no_grad():
            for start in range(0, len(prompts), 32):
                batch = self.tokenizer(prompts[start:start + 32], truncation=True, max_length=self.max_length,
                                       padding=True, return_tensors="pt")
                states, pooled = self.model(batch["input_ids"], batch["attention_mask"])
                vectors.append(pooled.numpy())
        return np.concatenate(vectors) if vectors else np.zeros((0, self.model.out_dim))

    # ----------------------------------------------------------------------------- fit/predict
    def fit(self, train: LaunchRows) -> "TokenRegressorBaseline":
        from sklearn.linear_model import LogisticRegression, Ridge

        prompts = to_prompts(train)
        self.encoder_used = self._resolve()
        if self.encoder_used == "bag":
            from kgraph.models.lm_pretrain import train_tokenizer

            self.tokenizer = train_tokenizer(prompts, self.vocab_size, self.max_length)
        else:
            from kgraph.data.graph_dataset import load_tokenizer
            from kgraph.models.token_encoder import TokenEncoder, TokenEncoderConfig

            self.tokenizer = load_tokenizer(self.encoder_used)
            self.model = TokenEncoder(TokenEncoderConfig(path=self.encoder_used, freeze=True,
                                                         max_length=self.max_length)).eval()
        x = self._encode(prompts)
        y, bound = train.targets()
        self.regressors = {}
        for j, name in enumerate(REGRESSION_TARGETS):
            known = np.isfinite(y[:, j])
            if known.sum() >= 2:
                self.regressors[name] = Ridge(alpha=self.alpha).fit(x[known], y[known, j])
        known = bound >= 0
        classes = np.unique(bound[known])
        self.classifier = LogisticRegression(max_iter=1000).fit(x[known], bound[known]) if len(classes) >= 2 else None
        self.constant_bound = int(classes[0]) if len(classes) == 1 else None
        return self

    def predict(self, rows: LaunchRows) -> dict[str, np.ndarray]:
        out = empty_outputs(len(rows))
        if not len(rows):
            return out
        x = self._encode(to_prompts(rows))
        for name, model in self.regressors.items():
            out[f"log_{name}"] = model.predict(x)
        if self.classifier is not None:
            out["bound"] = self.classifier.predict(x).astype(np.int64)
        elif self.constant_bound is not None:
            out["bound"][:] = self.constant_bound
        return out
