"""One-GPU masked-LM pretraining of the code LM (bf16, SDPA attention, ``torch.compile``)::

    python -m kgraph.models.code_lm.pretrain --corpus lm_corpus --minutes 25 --out models/code_lm/weights

``--corpus DIR`` is the output of ``kgraph lm corpus``: its ``gpu/train.jsonl.xz`` and
``gpu/validation.jsonl.xz`` subset (or, without it, ``shards/*.jsonl``) are tokenized and packed into
``DIR/packed/`` first (cached; ~20 s for 50 M tokens on 16 cores). Training is time-boxed: the learning-rate
schedule runs over ``--minutes`` of training time. ``--session-minutes`` stops this call earlier and
leaves a checkpoint in ``DIR/run/``; the same command run again resumes (for hosts that cap one command's
time). Logged: loss, tokens/s and model FLOP utilisation (MFU) every ``--log-every`` steps, validation
masked-token perplexity on held-out packages and on the kgraph kernel corpus (data/corpus). Written to
``--out``: config.json, model.safetensors (int8 by default), tokenizer.json, metrics.json,
loss_curve.csv (+ .png). Runs on CPU with ``--preset tiny`` (the tests do).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

from kgraph.data.lm_corpus.pack import packed
from kgraph.data.lm_corpus.tokenizer import load_tokenizer
from kgraph.errors import module_main

from . import WEIGHTS
from .config import PRESETS
from .model import FORMATS, build_model, parameter_counts, save, special_ids, train_flops_per_token

PEAK_BF16_TFLOPS = {"H200": 989.0, "H100": 989.0, "A100": 312.0, "L40S": 362.0, "A10": 125.0}


def add_arguments(p) -> None:
    """The options of ``kgraph lm pretrain`` and ``python -m kgraph.models.code_lm.pretrain``.

    Args:
        p: the argparse parser to fill.
    """
    p.add_argument("--corpus", required=True, help="output folder of `kgraph lm corpus`")
    p.add_argument("--tokenizer", default=str(WEIGHTS / "tokenizer.json"), help="tokenizer.json")
    p.add_argument("--out", default=str(WEIGHTS), help="model folder to write (default: the shipped one)")
    p.add_argument("--preset", default="small", choices=sorted(PRESETS), help="model size")
    p.add_argument("--minutes", type=float, default=25.0, help="training time the schedule spans (all calls)")
    p.add_argument("--session-minutes", type=float, default=None,
                   help="stop this call after so many minutes of training, checkpoint, resume on the next call")
    p.add_argument("--max-steps", type=int, default=None,
                   help="stop after so many steps; the schedule then runs over steps, not time (tests)")
    p.add_argument("--batch-size", type=int, default=128, help="windows per step")
    p.add_argument("--lr", type=float, default=2e-3, help="peak AdamW learning rate")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--warmup", type=float, default=0.03, help="share of the schedule spent warming up")
    p.add_argument("--mask-rate", type=float, default=0.3, help="share of tokens masked (ModernBERT: 0.3)")
    p.add_argument("--device", default="auto", help="cuda, cpu or auto")
    p.add_argument("--compile", action=argparse.BooleanOptionalAction, default=None,
                   help="torch.compile the model (default: on for CUDA)")
    p.add_argument("--format", default="int8", choices=FORMATS, help="saved weights")
    p.add_argument("--log-every", type=int, default=50)
    p.add_argument("--eval-windows", type=int, default=512, help="validation windows per evaluation")
    p.add_argument("--eval-every-minutes", type=float, default=5.0)
    p.add_argument("--no-kernel-corpus", action="store_true", help="skip the data/corpus perplexity")
    p.add_argument("--peak-tflops", type=float, default=None, help="accelerator bf16 peak for MFU")
    p.add_argument("--threads", type=int, default=None, help="CPU threads for torch (default: torch's own)")
    p.add_argument("--seed", type=int, default=0)


def corpus_files(corpus: Path) -> tuple[list[Path], list[Path]]:
    gpu = corpus / "gpu"
    if (gpu / "train.jsonl.xz").exists():
        return [gpu / "train.jsonl.xz"], [gpu / "validation.jsonl.xz"]
    shards = corpus / "shards"
    train, val = sorted(shards.glob("train-*.jsonl")), sorted(shards.glob("validation-*.jsonl"))
    if not train:
        raise SystemExit(f"pretrain: no gpu/train.jsonl.xz nor shards/train-*.jsonl under {corpus} "
                         "(run `kgraph lm corpus --out DIR` first)")
    return train, val


def kernel_corpus_texts() -> list[str]:
    from kgraph.data.corpus import all_specs

    return [spec.source for spec in all_specs()]


def mlm_loss(backbone, model, inputs, labels, attention_mask=None):
    """Masked-LM loss: ``backbone`` (possibly compiled; fixed shapes) over every token, then the prediction
    head and tied decoder on the masked positions only (sparse prediction, data-dependent shape)."""
    hidden = backbone(input_ids=inputs, attention_mask=attention_mask).last_hidden_state
    chosen = labels != -100
    logits = model.decoder(model.head(hidden[chosen]))
    return torch.nn.functional.cross_entropy(logits.float(), labels[chosen])


class Masker:
    def __init__(self, vocab: int, special: dict[str, int], rate: float, n_special: int):
        self.vocab, self.mask_id, self.rate, self.n_special = vocab, special["mask"], rate, n_special
        self.pad = special["pad"]

    def __call__(self, ids: torch.Tensor, gen: torch.Generator | None = None):
        """(inputs, labels): ``rate`` of the non-special tokens chosen; 80% -> <mask>, 10% random, 10% kept."""
        r = torch.rand(ids.shape, generator=gen, device=ids.device)
        chosen = (r < self.rate) & (ids >= self.n_special)
        labels = torch.where(chosen, ids, torch.full_like(ids, -100))
        u = torch.rand(ids.shape, generator=gen, device=ids.device)
        inputs = torch.where(chosen & (u < 0.8), torch.full_like(ids, self.mask_id), ids)
        rnd = torch.randint(self.n_special, self.vocab, ids.shape, generator=gen, device=ids.device)
        inputs = torch.where(chosen & (u >= 0.8) & (u < 0.9), rnd, inputs)
        return inputs, labels


def windows_from(array: torch.Tensor, starts: torch.Tensor, seq_len: int, bos: int) -> torch.Tensor:
    offsets = torch.arange(seq_len - 1, device=array.device)
    body = array[starts[:, None] + offsets[None, :]]
    return torch.cat([torch.full((len(starts), 1), bos, dtype=body.dtype, device=body.device), body], dim=1)


@torch.no_grad()
def evaluate(model, batches, masker, device, autocast) -> dict:
    """Masked-token loss and perplexity over fixed batches (masks drawn from a fixed seed)."""
    model.eval()
    gen = torch.Generator().manual_seed(1234)
    total, count = 0.0, 0
    for ids, attn in batches:
        inputs, labels = masker(ids, gen)
        n = int((labels != -100).sum())
        if n == 0:
            continue
        with autocast():
            loss = mlm_loss(model.model, model, inputs.to(device), labels.to(device),
                            None if attn is None else attn.to(device))
        total += float(loss) * n
        count += n
    model.train()
    loss = total / max(count, 1)
    return {"loss": loss, "perplexity": math.exp(min(loss, 50)), "masked_tokens": count}


def eval_batches_from_array(arr: np.ndarray, seq_len: int, bos: int, n: int, batch: int):
    if len(arr) < seq_len:
        return []
    k = min(n, (len(arr) - 1) // (seq_len - 1))
    starts = torch.arange(k) * (seq_len - 1)
    t = torch.from_numpy(np.asarray(arr[: k * (seq_len - 1) + 1], dtype=np.int64))
    w = windows_from(t, starts, seq_len, bos)
    return [(w[i:i + batch], None) for i in range(0, len(w), batch)]


def eval_batches_from_texts(texts: list[str], tok, seq_len: int, special: dict, batch: int):
    out = []
    encs = [e.ids[:seq_len - 1] for e in tok.encode_batch(texts, add_special_tokens=False)]
    for i in range(0, len(encs), batch):
        chunk = encs[i:i + batch]
        width = max(len(c) for c in chunk) + 2
        ids = torch.full((len(chunk), width), special["pad"], dtype=torch.long)
        attn = torch.zeros((len(chunk), width), dtype=torch.long)
        for j, c in enumerate(chunk):
            row = [special["bos"], *c, special["eos"]][:width]
            ids[j, :len(row)] = torch.tensor(row)
            attn[j, :len(row)] = 1
        out.append((ids, attn))
    return out


def peak_flops(device: torch.device, override: float | None) -> float | None:
    if override:
        return override * 1e12
    if device.type != "cuda":
        return None
    name = torch.cuda.get_device_name(device)
    for key, tflops in PEAK_BF16_TFLOPS.items():
        if key in name:
            return tflops * 1e12
    return None


def lr_at(progress: float, peak: float, warmup: float) -> float:
    """Linear warm-up, then cosine decay to 10% of the peak, over training time (progress in [0, 1])."""
    if progress < warmup:
        return peak * max(progress / warmup, 0.01)
    p = min(1.0, (progress - warmup) / max(1e-9, 1 - warmup))
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * p)))


def plot_curve(curve: list[dict], path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        return
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([c["tokens"] / 1e6 for c in curve], [c["loss"] for c in curve], lw=1)
    ax.set_xlabel("training tokens (M)")
    ax.set_ylabel("MLM loss")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(args) -> int:
    """Pretrain (or resume) with torch's CPU threads set for the run and restored after it.

    Args:
        args: the parsed options of :func:`add_arguments`.
    """
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "true")
    threads = torch.get_num_threads()
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        return _main(args)
    finally:
        torch.set_num_threads(threads)


def _main(args) -> int:
    t_start = time.time()
    corpus = Path(args.corpus)
    device = torch.device("cuda" if args.device == "auto" and torch.cuda.is_available() else
                          ("cpu" if args.device == "auto" else args.device))
    use_compile = device.type == "cuda" if args.compile is None else args.compile
    torch.manual_seed(args.seed)
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    size = PRESETS[args.preset]
    tok_json = Path(args.tokenizer)
    tok = load_tokenizer(tok_json)
    special = special_ids(tok)
    vocab = tok.get_vocab_size()
    n_special = 5

    train_files, val_files = corpus_files(corpus)
    t0 = time.time()
    train_arr = packed(train_files, tok, tok_json, corpus / "packed", "train")
    val_arr = packed(val_files, tok, tok_json, corpus / "packed", "validation") if val_files else np.zeros(0)
    pack_s = time.time() - t0
    log = lambda **kw: print(json.dumps(kw), flush=True)
    log(event="data", train_tokens=int(len(train_arr)), validation_tokens=int(len(val_arr)), pack_seconds=round(pack_s, 1),
        device=str(device), compile=use_compile)
    if len(train_arr) < size.seq_len + 1:
        raise SystemExit(f"pretrain: only {len(train_arr)} training tokens, fewer than one window")

    train_t = torch.from_numpy(np.asarray(train_arr, dtype=np.int32)).to(device)
    model = build_model(size, tok, seed=args.seed).to(device)
    counts = parameter_counts(model)
    fpt = train_flops_per_token(size, vocab, args.mask_rate)
    peak = peak_flops(device, args.peak_tflops)
    fused = device.type == "cuda"
    decay = [p for n, p in model.named_parameters() if p.ndim >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.ndim < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=args.lr, betas=(0.9, 0.98),
                            eps=1e-6, fused=fused)
    run_dir = corpus / "run"
    ckpt = run_dir / f"checkpoint-{args.preset}.pt"
    state = {"step": 0, "tokens": 0, "train_seconds": 0.0, "curve": [], "evals": []}
    if ckpt.exists():
        saved = torch.load(ckpt, map_location=device, weights_only=True)
        model.load_state_dict(saved["model"])
        opt.load_state_dict(saved["optimizer"])
        state = json.loads(saved["state"])
        log(event="resume", step=state["step"], train_seconds=round(state["train_seconds"], 1))
    backbone = torch.compile(model.model, dynamic=False) if use_compile else model.model
    amp = (lambda: torch.autocast("cuda", dtype=torch.bfloat16)) if device.type == "cuda" else \
        (lambda: torch.autocast("cpu", enabled=False))
    masker = Masker(vocab, special, args.mask_rate, n_special)
    gen = torch.Generator(device=device).manual_seed(args.seed + state["step"])
    val_batches = eval_batches_from_array(np.asarray(val_arr), size.seq_len, special["bos"], args.eval_windows,
                                          args.batch_size)
    kernel_batches = [] if args.no_kernel_corpus else eval_batches_from_texts(
        kernel_corpus_texts(), tok, size.seq_len, special, args.batch_size)

    def run_evals() -> dict:
        res = {"step": state["step"], "tokens": state["tokens"]}
        if val_batches:
            res["validation"] = evaluate(model, val_batches, masker, device, amp)
        if kernel_batches:
            res["kernel_corpus"] = evaluate(model, kernel_batches, masker, device, amp)
        state["evals"].append(res)
        log(event="eval", **res)
        return res

    budget = args.minutes * 60
    session_end = state["train_seconds"] + (args.session_minutes * 60 if args.session_minutes else budget)
    tokens_per_step = args.batch_size * size.seq_len
    last_eval = state["train_seconds"]
    window_t, window_tokens = time.time(), 0
    model.train()
    hi = len(train_t) - size.seq_len
    steps_this_call = 0
    while state["train_seconds"] < min(budget, session_end):
        if args.max_steps is not None and steps_this_call >= args.max_steps:
            break
        t_step = time.time()
        progress = state["train_seconds"] / budget if args.max_steps is None else state["step"] / args.max_steps
        lr = lr_at(progress, args.lr, args.warmup)
        for g in opt.param_groups:
            g["lr"] = lr
        starts = torch.randint(0, hi + 1, (args.batch_size,), generator=gen, device=device)
        ids = windows_from(train_t, starts, size.seq_len, special["bos"]).long()
        inputs, labels = masker(ids, gen)
        with amp():
            loss = mlm_loss(backbone, model, inputs, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        state["step"] += 1
        steps_this_call += 1
        state["tokens"] += tokens_per_step
        window_tokens += tokens_per_step
        if state["step"] % args.log_every == 0 or steps_this_call <= 2:
            loss_v = float(loss.detach())  # synchronises
            now = time.time()
            tps = window_tokens / max(now - window_t, 1e-9)
            window_t, window_tokens = now, 0
            row = {"step": state["step"], "tokens": state["tokens"], "train_seconds": round(state["train_seconds"], 2),
                   "loss": round(loss_v, 4), "lr": lr, "tokens_per_s": round(tps),
                   "mfu": None if peak is None else round(tps * fpt / peak, 4)}
            state["curve"].append(row)
            log(event="train", **row)
        if device.type == "cuda" and steps_this_call <= 2:
            torch.cuda.synchronize()
        state["train_seconds"] += time.time() - t_step
        if state["train_seconds"] - last_eval >= args.eval_every_minutes * 60:
            run_evals()
            last_eval = state["train_seconds"]
            window_t = time.time()
    final = run_evals()
    done = state["train_seconds"] >= budget
    run_dir.mkdir(parents=True, exist_ok=True)
    if done or (args.max_steps is not None and args.session_minutes is None):
        ckpt.unlink(missing_ok=True)
    else:
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "state": json.dumps(state)}, ckpt)
    steady = [c["tokens_per_s"] for c in state["curve"][len(state["curve"]) // 4:]] or [0]
    metrics = {
        "preset": args.preset, "size": size.to_dict(), "parameters": counts, "vocab_size": vocab,
        "train_flops_per_token": fpt, "device": torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu",
        "peak_flops": peak, "steps": state["step"], "tokens": state["tokens"], "train_seconds": state["train_seconds"],
        "finished": done, "tokens_per_s_median": float(np.median(steady)),
        "mfu_median": None if peak is None else float(np.median(steady)) * fpt / peak,
        "train_tokens_available": int(len(train_arr)), "epochs": state["tokens"] / max(len(train_arr), 1),
        "validation": final.get("validation"), "kernel_corpus": final.get("kernel_corpus"), "evals": state["evals"],
        "wall_seconds_this_call": time.time() - t_start, "pack_seconds": pack_s, "args": vars(args),
    }
    out = Path(args.out)
    save(model, tok_json, out, args.format, extra={"steps": state["step"], "tokens": state["tokens"]})
    (out / "metrics.json").write_text(json.dumps(metrics, indent=1) + "\n")
    with open(out / "loss_curve.csv", "w") as f:
        f.write("step,tokens,train_seconds,loss,tokens_per_s,mfu\n")
        for c in state["curve"]:
            f.write(f"{c['step']},{c['tokens']},{c['train_seconds']},{c['loss']},{c['tokens_per_s']},{c['mfu']}\n")
    plot_curve(state["curve"], out / "loss_curve.png")
    log(event="done", finished=done, out=str(out), steps=state["step"],
        validation_ppl=(final.get("validation") or {}).get("perplexity"),
        kernel_corpus_ppl=(final.get("kernel_corpus") or {}).get("perplexity"))
    return 0


def main(argv=None) -> int:
    return module_main(argv, "python -m kgraph.models.code_lm.pretrain", __doc__.splitlines()[0], add_arguments, run)


if __name__ == "__main__":
    sys.exit(main())
