"""Holdout12 kernels, group codec (written by hand; see docs/HOLDOUT12.md): what a video encoder or decoder runs per
block of a picture. HEVC's in-loop deblocking of the luma plane, the vertical-edge pass: a work-item per 4-row
segment of an edge of the 8x8 grid on a 2-D (edge column, segment) NDRange, beta and tc from the standard's tables
at the two sides' average QP and the segment's boundary strength, the filter / strong / normal decisions from the
second differences of rows 0 and 3, the normal filter skipped on a row whose step looks like a real edge, uint8
samples changed in place; and H.264's residual coding of 4x4 luma blocks, a work-item per block: the residual, the
integer core transform's butterflies, quantisation by the multiplication factors of qp % 6 with an intra or inter
dead zone, the zig-zag scan, x264-style decimation of sparse +/-1 inter blocks, int16 levels with the
end-of-block position and the nonzero count. Neither uses atomics; the group's other two kernels are in
:mod:`.codec_more`."""
from __future__ import annotations

import numpy as np

from kgraph.data.corpus.spec import Arg, KernelSpec

from .common import L1, L2, _spec, round_up

#: the picture's height for a width W and an aspect code (9: 16:9, 12: 4:3), a multiple of 16 (whole macroblocks)
HEIGHT = "W * ASPECT // 256 * 16"

# --- HEVC luma deblocking, vertical edges ---------------------------------------------------------------------------
#: H.265 Table 8-12: beta' by Q (0 .. 51) and tc' by Q (0 .. 53)
BETA = np.array([0] * 16 + [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18] + list(range(20, 65, 2)))
TC = np.array([0] * 18 + [1] * 9 + [2] * 4 + [3] * 4 + [4] * 3 + [5, 5, 6, 6, 7, 8, 9, 10, 11, 13, 14, 16, 18, 20, 22,
                                                                   24])
DEBLOCK_BS = (0.25, 0.45, 0.30)  # hevc_luma_vedge_deblock_2d: share of edge segments with bS 0, 1, 2
DEBLOCK_TEXTURE = ((0, 0.3), (1, 0.3), (3, 0.25), (28, 0.15))  # (noise amplitude, share of 8x8 blocks)
DEBLOCK_JUMP = 0.12  # hevc_luma_vedge_deblock_2d: share of 8x8 blocks off the field by up to +/- 90 (object edges)


def _inputs_deblock(rng, sz):
    """A blocky decoded picture: each 8x8 block flat at its own level (a slow cosine field plus a normal step of
    sd 6 to its neighbours, DEBLOCK_JUMP of them much further off: real edges, where the normal filter leaves
    rows alone) with uniform noise of an amplitude drawn per block from DEBLOCK_TEXTURE (flat blocks take the
    strong filter, noisy ones none); bS per segment by DEBLOCK_BS, QpY 20 .. 40 per 8x8 block."""
    w = sz["W"]
    h = w * sz["ASPECT"] // 256 * 16
    by, bx = h // 8, w // 8
    yy, xx = np.mgrid[0:by, 0:bx]
    dc = 128.0 + 70.0 * np.cos(yy / 11.0) * np.cos(xx / 17.0) + rng.normal(0.0, 6.0, (by, bx))
    dc += np.where(rng.random((by, bx)) < DEBLOCK_JUMP, rng.uniform(-90.0, 90.0, (by, bx)), 0.0)
    amp_v, amp_p = zip(*DEBLOCK_TEXTURE)
    amp = rng.choice(np.array(amp_v, dtype=np.float32), (by, bx), p=amp_p)
    pic = rng.random((by, 8, bx, 8), dtype=np.float32) * 2.0 - 1.0
    pic *= amp[:, None, :, None]
    pic += dc.astype(np.float32)[:, None, :, None]
    return {"bs": rng.choice(3, (h // 4, bx), p=DEBLOCK_BS), "qp": rng.integers(20, 41, (by, bx)),
            "pic": np.clip(np.rint(pic), 0, 255).astype(np.uint8).reshape(h, w)}


def _ref_deblock(inp, sz):
    w, h = int(inp["width"]), int(inp["height"])
    boff, toff = int(inp["beta_offset_div2"]), int(inp["tc_offset_div2"])
    pic = np.asarray(inp["pic"]).reshape(h, w).astype(np.int64)
    ncol, nseg = w // 8, h // 4
    bs = np.asarray(inp["bs"]).reshape(nseg, ncol).astype(np.int64)[:, 1:]
    qp = np.asarray(inp["qp"]).reshape(h // 8, ncol).astype(np.int64)[np.arange(nseg) // 2]
    qpl = (qp[:, :-1] + qp[:, 1:] + 1) >> 1
    beta = BETA[np.clip(qpl + 2 * boff, 0, 51)][..., None]
    tc = TC[np.clip(qpl + 2 * (bs - 1) + 2 * toff, 0, 53)][..., None]
    rows = np.arange(nseg)[:, None, None, None] * 4 + np.arange(4)[None, None, :, None]
    cols = np.arange(1, ncol)[None, :, None, None] * 8 + np.arange(-4, 4)[None, None, None, :]
    rows, cols = np.broadcast_arrays(rows, cols)
    s = pic[rows, cols]  # (segment, edge, row, p3 .. q3)
    p3, p2, p1, p0, q0, q1, q2, q3 = (s[..., i] for i in range(8))
    dp, dq = np.abs(p2 - 2 * p1 + p0), np.abs(q2 - 2 * q1 + q0)
    dpq = (dp + dq)[..., [0, 3]]
    on = (bs[..., None] > 0) & (dpq.sum(-1, keepdims=True) < beta)
    row_strong = ((2 * dpq < (beta >> 2)) & ((np.abs(p3 - p0) + np.abs(q0 - q3))[..., [0, 3]] < (beta >> 3))
                  & (np.abs(p0 - q0)[..., [0, 3]] < ((5 * tc + 1) >> 1)))
    strong = row_strong.all(-1, keepdims=True)
    side = (beta + (beta >> 1)) >> 3
    use_p1 = dp[..., [0, 3]].sum(-1, keepdims=True) < side
    use_q1 = dq[..., [0, 3]].sum(-1, keepdims=True) < side
    t2 = 2 * tc
    st = [np.clip((2 * p3 + 3 * p2 + p1 + p0 + q0 + 4) >> 3, p2 - t2, p2 + t2),
          np.clip((p2 + p1 + p0 + q0 + 2) >> 2, p1 - t2, p1 + t2),
          np.clip((p2 + 2 * p1 + 2 * p0 + 2 * q0 + q1 + 4) >> 3, p0 - t2, p0 + t2),
          np.clip((p1 + 2 * p0 + 2 * q0 + 2 * q1 + q2 + 4) >> 3, q0 - t2, q0 + t2),
          np.clip((p0 + q0 + q1 + q2 + 2) >> 2, q1 - t2, q1 + t2),
          np.clip((p0 + q0 + q1 + 3 * q2 + 2 * q3 + 4) >> 3, q2 - t2, q2 + t2)]
    delta = (9 * (q0 - p0) - 3 * (q1 - p1) + 8) >> 4
    weak = np.abs(delta) < 10 * tc
    delta = np.clip(delta, -tc, tc)
    tch = tc >> 1
    wk = [p2, np.where(use_p1, np.clip(p1 + np.clip((((p2 + p0 + 1) >> 1) - p1 + delta) >> 1, -tch, tch), 0, 255), p1),
          np.clip(p0 + delta, 0, 255), np.clip(q0 - delta, 0, 255),
          np.where(use_q1, np.clip(q1 + np.clip((((q2 + q0 + 1) >> 1) - q1 - delta) >> 1, -tch, tch), 0, 255), q1),
          q2]
    new = s.copy()
    for i in range(6):
        filt = np.where(strong, st[i], np.where(weak, wk[i], s[..., i + 1]))
        new[..., i + 1] = np.where(on, filt, s[..., i + 1])
    pic[rows, cols] = new
    return {"pic": pic}


def hevc_luma_vedge_deblock_2d() -> KernelSpec:
    return _spec(
        "hevc_luma_vedge_deblock_2d",
        idiom="HEVC luma deblocking, vertical edges, 2-D (edge column, 4-row segment): bS and QP-indexed beta / "
              "tc from __constant tables, row 0 / 3 decisions, strong or normal filter per row, uint8 in place",
        sizes={"W": [160, 320, 640, 1280, 1920, 3840, 7680], "ASPECT": [9, 12]}, check={"W": 96, "ASPECT": 12},
        args=[Arg("width", "scalar", "int32", "W"), Arg("height", "scalar", "int32", HEIGHT),
              Arg("beta_offset_div2", "scalar", "int32", "0"), Arg("tc_offset_div2", "scalar", "int32", "0"),
              Arg("bs", "buffer", "uint8", f"W // 8 * ({HEIGHT}) // 4"),
              Arg("qp", "buffer", "uint8", f"W // 8 * ({HEIGHT}) // 8"),
              Arg("pic", "buffer", "uint8", f"W * ({HEIGHT})", "inout")],
        gsize=[round_up("W // 8 - 1", 32), round_up(f"({HEIGHT}) // 4", 16)], local=L2, reference=_ref_deblock,
        make_inputs=_inputs_deblock)


# --- H.264 4x4 residual: core transform, quantisation, zig-zag, decimation ---------------------------------------
#: H.264 quantisation multiplication factors by qp % 6: positions (even, even), mixed, (odd, odd)
MF = np.array([[13107, 8066, 5243], [11916, 7490, 4660], [10082, 6554, 4194],
               [9362, 5825, 3647], [8192, 5243, 3355], [7282, 4559, 2893]])
ZIGZAG4 = np.array([0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15])
DS_TABLE = np.array([3, 2, 2, 1, 1, 1] + [0] * 10)  # decimation score by the zero run before a +/-1
CORE = np.array([[1, 1, 1, 1], [2, 1, -1, -2], [1, -1, -1, 1], [1, -2, 2, -1]])
RESID_SD = (0.7, 2.0, 5.0, 14.0)  # avc_core4x4_quant_zigzag: residual sd per macroblock, drawn uniformly
INTRA_SHARE = 0.3  # avc_core4x4_quant_zigzag: share of intra macroblocks


def _inputs_core4x4(rng, sz):
    """A textured source picture and a prediction that misses it by a normal residual of a per-macroblock sd
    (RESID_SD: good to poor predictions); QP 14 .. 40 and INTRA_SHARE intra per macroblock."""
    w = sz["W"]
    h = w * 9 // 256 * 16
    nmb = (w // 16) * (h // 16)
    ay, ax = np.arange(h, dtype=np.float32) / 41.0, np.arange(w, dtype=np.float32) / 23.0
    orig = 12.0 * rng.standard_normal((h, w), dtype=np.float32) + 128.0  # + 60 sin(x / 23 + y / 41)
    orig += 60.0 * (np.outer(np.cos(ay), np.sin(ax)) + np.outer(np.sin(ay), np.cos(ax)))
    sd = rng.choice(np.array(RESID_SD, dtype=np.float32), (h // 16, 1, w // 16, 1))
    noise = (rng.standard_normal((h // 16, 16, w // 16, 16), dtype=np.float32) * sd).reshape(h, w)
    orig = np.clip(np.rint(orig), 0, 255)
    return {"orig": orig, "pred": np.clip(np.rint(orig + noise), 0, 255), "mb_qp": rng.integers(14, 41, nmb),
            "mb_intra": rng.random(nmb) < INTRA_SHARE}


def _ref_core4x4(inp, sz):
    w = int(inp["width"])
    h = w * 9 // 256 * 16
    bw, bh = w // 4, h // 4
    d = (np.asarray(inp["orig"]).astype(np.int64) - np.asarray(inp["pred"]).astype(np.int64)).reshape(h, w)
    blocks = d.reshape(bh, 4, bw, 4).transpose(0, 2, 1, 3).reshape(-1, 4, 4)
    coef = (CORE @ blocks @ CORE.T).reshape(-1, 16)[:, ZIGZAG4]
    by, bx = np.divmod(np.arange(bh * bw), bw)
    mb = (by // 4) * (bw // 4) + bx // 4
    qp = np.asarray(inp["mb_qp"]).astype(np.int64)[mb]
    intra = np.asarray(inp["mb_intra"]).astype(bool)[mb]
    qbits = 15 + qp // 6
    f = (np.int64(1) << qbits) // np.where(intra, 3, 6)
    cls = (ZIGZAG4 & 1) + ((ZIGZAG4 >> 2) & 1)
    mf = MF[qp % 6][:, cls]
    lev = (np.abs(coef) * mf + f[:, None]) >> qbits[:, None]
    lev = np.where(coef < 0, -lev, lev)
    nz = lev != 0
    last = np.where(nz.any(1), 16 - np.argmax(nz[:, ::-1], axis=1), 0)
    prev = np.maximum.accumulate(np.where(nz, np.arange(16), -1), axis=1)  # last nonzero at or before k
    before = np.concatenate([np.full((lev.shape[0], 1), -1), prev[:, :-1]], axis=1)
    score = np.where(nz, DS_TABLE[np.arange(16) - before - 1], 0).sum(1)
    drop = ~intra & nz.any(1) & (np.abs(lev).max(1) <= 1) & (score < int(inp["dec_thresh"]))
    lev[drop] = 0
    nz[drop] = False
    return {"levels": lev, "eob": np.where(drop, 0, last), "nnz": nz.sum(1)}


def avc_core4x4_quant_zigzag() -> KernelSpec:
    nblk = "W // 4 * (W * 9 // 256 * 4)"
    nmb = "W // 16 * (W * 9 // 256)"
    return _spec(
        "avc_core4x4_quant_zigzag",
        idiom="H.264 4x4 residual coding, an item per block: orig - pred, integer core-transform butterflies, "
              "qp % 6 multiplier quantisation with intra / inter dead zone, zig-zag, decimation, EOB and count",
        sizes={"W": [128, 256, 320, 640, 1280, 1920, 2560, 3840, 5120, 7680]}, check={"W": 256},
        args=[Arg("width", "scalar", "int32", "W"), Arg("nblk", "scalar", "int32", nblk),
              Arg("dec_thresh", "scalar", "int32", "4"),
              Arg("orig", "buffer", "uint8", "W * (W * 9 // 256 * 16)"),
              Arg("pred", "buffer", "uint8", "W * (W * 9 // 256 * 16)"),
              Arg("mb_qp", "buffer", "uint8", nmb), Arg("mb_intra", "buffer", "uint8", nmb),
              Arg("levels", "buffer", "int16", "W * (W * 9 // 256 * 16)", "out"),
              Arg("eob", "buffer", "int32", nblk, "out"), Arg("nnz", "buffer", "int32", nblk, "out")],
        gsize=[round_up(nblk)], local=L1, reference=_ref_core4x4, make_inputs=_inputs_core4x4)


#: this group's builders, in the order of ``specs()``
BUILDERS = (hevc_luma_vedge_deblock_2d, avc_core4x4_quant_zigzag)
