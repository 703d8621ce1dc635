/* Uncrossing of limit order books after an auction call, one instrument per work-item.
 * Instrument i has nbid[i] bid levels (prices in ticks, descending) and nask[i] ask levels (ascending),
 * stored in slots i * maxlev ... of the price and quantity arrays. Best bid and best ask are matched
 * while the bid price is at least the ask price; the matched volume, the clearing price (mid of the last
 * matched bid and ask levels) and the depth imbalance of what rests on the book afterwards are written. */
__kernel void book_uncross_u32(const int ninst, const int maxlev,
                               __global const uint *bid_px, __global const uint *bid_qty,
                               __global const uint *ask_px, __global const uint *ask_qty,
                               __global const int *nbid, __global const int *nask,
                               __global uint *matched,
                               __global float *clear_px,
                               __global float *imbalance)
{
    const int i = get_global_id(0);
    if (i >= ninst)
        return;

    const size_t off = (size_t)i * maxlev;
    const int nb = nbid[i], na = nask[i];
    int ib = 0, ia = 0;
    uint bq = nb > 0 ? bid_qty[off] : 0u;
    uint aq = na > 0 ? ask_qty[off] : 0u;
    uint vol = 0u;
    float px = 0.0f;

    while (ib < nb && ia < na && bid_px[off + ib] >= ask_px[off + ia]) {
        const uint q = min(bq, aq);
        vol += q;
        px = 0.5f * (float)(bid_px[off + ib] + ask_px[off + ia]);
        bq -= q;
        aq -= q;
        if (bq == 0u) {
            ib++;
            bq = ib < nb ? bid_qty[off + ib] : 0u;
        }
        if (aq == 0u) {
            ia++;
            aq = ia < na ? ask_qty[off + ia] : 0u;
        }
    }

    /* resting depth: the partly filled top levels plus everything behind them */
    uint db = ib < nb ? bq : 0u, da = ia < na ? aq : 0u;
    for (int k = ib + 1; k < nb; k++)
        db += bid_qty[off + k];
    for (int k = ia + 1; k < na; k++)
        da += ask_qty[off + k];

    matched[i] = vol;
    clear_px[i] = px;
    imbalance[i] = (db + da) > 0u ? ((float)db - (float)da) / (float)(db + da) : 0.0f;
}
