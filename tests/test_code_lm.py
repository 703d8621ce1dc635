"""The code LM (kgraph.models.code_lm) and its tokenizer: qualifiers stay single tokens, the int8 weights
round-trip, the shipped size fits the budget, and the tiny preset pretrains on CPU with a falling loss."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from kgraph.data.lm_corpus.tokenizer import load_qualifiers, load_tokenizer, save_tokenizer, stats, train_tokenizer
from kgraph.models.code_lm.config import PRESETS
from kgraph.models.code_lm.model import build_model, load, parameter_counts, save, train_flops_per_token

REPO = Path(__file__).resolve().parents[1]
QUALIFIERS = load_qualifiers(REPO / "conf" / "lm" / "qualifiers.json")
KERNEL = """__kernel void saxpy(__global float *y, __global const float *x, const float a) {
    const int i = get_global_id(0);
    __local float tile[64];
    tile[get_local_id(0)] = x[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    y[i] = a * tile[get_local_id(0)] + y[i];
}
"""
CUDA = """__global__ void reduce(const float *__restrict__ in, float *out, int n) {
    __shared__ float buf[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(out, buf[0]);
}
"""


def texts(n: int = 60) -> list[str]:
    out = []
    for k in range(n):
        out.append(KERNEL.replace("saxpy", f"saxpy{k}").replace("64", str(16 + k)))
        out.append(CUDA.replace("reduce", f"reduce_{k}").replace("256", str(32 * (k % 8 + 1))))
        out.append(f"static int add{k}(int a, int b) {{\n    return a + b * {k};\n}}\n")
    return out


@pytest.fixture(scope="module")
def tok():
    return train_tokenizer(texts(), 700, QUALIFIERS)


def test_qualifiers_are_single_tokens_and_text_round_trips(tok):
    for q in ("__global", "__kernel", "__local", "get_global_id", "__shared__", "threadIdx", "__syncthreads",
              "CLK_LOCAL_MEM_FENCE", "hipLaunchKernelGGL"):
        assert q in QUALIFIERS
        for text in (q, f"x = {q}(y);", f"({q} float *p)"):
            assert q in [t.lstrip(" ") for t in tok.encode(text, add_special_tokens=False).tokens], (q, text)
    plain = train_tokenizer(["int x = a + b;"] * 10, 300, QUALIFIERS)  # BPE never saw a qualifier
    for text in ("int __global_x = my__kernel;", "a __kernelx b", "a_b__kernel"):  # added tokens: whole words only
        assert not {"__global", " __global", "__kernel", " __kernel"} & set(plain.encode(text).tokens), text
    assert "__kernel" in plain.encode("x.__kernel").tokens
    for text in (KERNEL, CUDA, "a\n\t\tb  c\r\n", "/* caf\u00e9 */ int x;"):
        assert tok.decode(tok.encode(text, add_special_tokens=False).ids) == text
    s = stats(tok, [KERNEL, CUDA], QUALIFIERS)
    assert s["qualifiers_single_token"] == len(QUALIFIERS) and s["bytes_per_token"] > 1.5
    ids = tok.encode("int x;").ids
    assert ids[0] == tok.token_to_id("<s>") and ids[-1] == tok.token_to_id("</s>")
    assert [tok.token_to_id(t) for t in ("<s>", "<pad>", "</s>", "<unk>", "<mask>")] == [0, 1, 2, 3, 4]


SHIPPED_TOKENIZER = REPO / "models" / "code_lm" / "weights" / "tokenizer.json"


@pytest.mark.skipif(not SHIPPED_TOKENIZER.exists(), reason="no trained tokenizer committed yet")
def test_shipped_tokenizer():
    t = load_tokenizer(SHIPPED_TOKENIZER)
    assert 4096 <= t.get_vocab_size() <= 65535
    s = stats(t, [KERNEL, CUDA], QUALIFIERS)
    assert s["qualifiers_single_token"] == len(QUALIFIERS)
    assert t.decode(t.encode(KERNEL, add_special_tokens=False).ids) == KERNEL


def test_int8_round_trip_and_shipped_size(tok, tmp_path):
    model = build_model(PRESETS["tiny"], tok)
    save_tokenizer(tok, tmp_path)
    save(model, tmp_path / "tokenizer.json", tmp_path, "int8")
    back = load(tmp_path)
    ids = torch.tensor([tok.encode(KERNEL).ids])
    with torch.no_grad():
        a, b = model.eval().model(ids).last_hidden_state, back.model(ids).last_hidden_state
    assert (a - b).abs().max() < 0.05 * a.abs().max()
    assert back.decoder.weight.data_ptr() == back.model.embeddings.tok_embeddings.weight.data_ptr()  # tied
    # the shipped preset with an 8192-id vocabulary: int8 weights of about one byte a parameter, under 8 MB
    from kgraph.models.code_lm.config import hf_config
    from transformers import ModernBertForMaskedLM

    with torch.device("meta"):
        small = ModernBertForMaskedLM(hf_config(PRESETS["small"], 8192, {"bos": 0, "pad": 1, "eos": 2, "mask": 4}))
    counts = parameter_counts(small)
    assert 4e6 < counts["total"] < 7.5e6
    assert train_flops_per_token(PRESETS["small"], 8192, 0.3) > 6 * counts["non_embedding"]


def test_tiny_model_pretrains_on_cpu(tok, tmp_path):
    from kgraph.models.code_lm.pretrain import main

    corpus = tmp_path / "corpus"
    (corpus / "shards").mkdir(parents=True)
    docs = texts()
    for split, part in (("train", docs[:-12]), ("validation", docs[-12:])):
        with open(corpus / "shards" / f"{split}-00000.jsonl", "w") as f:
            for t in part:
                f.write(json.dumps({"package": "p", "file": "f", "lang": "c", "text": t}) + "\n")
    save_tokenizer(tok, tmp_path / "tok")
    out = tmp_path / "model"
    rc = main(["--corpus", str(corpus), "--tokenizer", str(tmp_path / "tok" / "tokenizer.json"), "--out", str(out),
               "--preset", "tiny", "--max-steps", "24", "--batch-size", "8", "--lr", "1e-2", "--warmup", "0.1",
               "--log-every", "4", "--eval-windows", "8", "--no-kernel-corpus", "--device", "cpu",
               "--threads", "1"])
    assert rc == 0
    metrics = json.loads((out / "metrics.json").read_text())
    curve = [float(line.split(",")[3]) for line in (out / "loss_curve.csv").read_text().splitlines()[1:]]
    assert metrics["steps"] == 24 and len(curve) >= 4
    assert sum(curve[-2:]) / 2 < sum(curve[:2]) / 2 - 0.5  # the loss falls
    assert metrics["validation"]["perplexity"] < 700 and metrics["tokens_per_s_median"] > 0
    assert (out / "model.safetensors").exists() and (out / "tokenizer.json").exists()
    assert (corpus / "packed").is_dir() and not list((corpus / "run").glob("*.pt"))
    assert load(out).config.hidden_size == PRESETS["tiny"].hidden


def test_pooled_and_span_embeddings(tok):
    from kgraph.models.code_lm.embed import embed

    model = build_model(PRESETS["tiny"], tok).eval()
    text = "/* \u00e9 */ " + KERNEL * 3  # non-ASCII: byte and character offsets differ; longer than one window
    start = text.encode().index(b"get_global_id")
    spans = [(start, start + len("get_global_id")), (0, len(text.encode())), (5, 5)]
    pooled, nodes = embed(model, tok, text, spans)
    assert pooled.shape == (PRESETS["tiny"].hidden,) and nodes.shape == (3, PRESETS["tiny"].hidden)
    enc = tok.encode(text, add_special_tokens=False)
    assert len(enc.ids) > PRESETS["tiny"].seq_len  # several windows
    assert torch.allclose(nodes[1], pooled, atol=1e-5)  # the whole text's span is the pooled vector
    assert torch.equal(nodes[2], pooled)  # an empty span falls back to the pooled vector
    assert not torch.allclose(nodes[0], pooled)


def test_pretraining_resumes_from_a_checkpoint(tok, tmp_path):
    from kgraph.models.code_lm.pretrain import main

    corpus = tmp_path / "corpus"
    (corpus / "shards").mkdir(parents=True)
    (corpus / "shards" / "train-00000.jsonl").write_text(
        "".join(json.dumps({"package": "p", "file": "f", "lang": "c", "text": t}) + "\n" for t in texts(20)))
    save_tokenizer(tok, tmp_path / "tok")
    argv = ["--corpus", str(corpus), "--tokenizer", str(tmp_path / "tok" / "tokenizer.json"), "--out",
            str(tmp_path / "model"), "--preset", "tiny", "--max-steps", "3", "--session-minutes", "60",
            "--batch-size", "4", "--eval-windows", "2", "--no-kernel-corpus", "--device", "cpu", "--threads", "1"]
    assert main(argv) == 0
    assert (corpus / "run" / "checkpoint-tiny.pt").exists()
    assert main(argv) == 0  # resumes: the step count goes on
    metrics = json.loads((tmp_path / "model" / "metrics.json").read_text())
    assert metrics["steps"] == 6 and [e["step"] for e in metrics["evals"]] == [3, 6]
    assert len(list((corpus / "packed").glob("train-*.u16"))) == 1  # packed once, reused on resume
    with open(corpus / "shards" / "train-00000.jsonl", "a") as f:  # a changed corpus is packed anew
        f.write(json.dumps({"package": "p", "file": "g", "lang": "c", "text": KERNEL}) + "\n")
    assert main(argv) == 0 and len(list((corpus / "packed").glob("train-*.u16"))) == 2
