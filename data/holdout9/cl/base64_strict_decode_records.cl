/* Strict base64 decoding (RFC 4648, standard alphabet, no line breaks) of many short records, such as
 * the key blobs or tokens of a log or a certificate store, one record per work-item. Record r is
 * text[in_off[r] .. in_off[r + 1]); its bytes go to out from out_off[r] (room for 3 bytes a quad).
 * dec_tab maps a character to its 6-bit value, 64 for '=' and 255 for anything else. The record is
 * decoded quad by quad and rejected at the first fault: a character outside the alphabet, '=' anywhere
 * but the last one or two places of the last quad, or a final quad whose unused bits are not zero
 * (non-canonical), and a length that is not a multiple of 4. status[r] is the number of bytes decoded,
 * or -(1 + the position of the offending character) on error; the quads before it stay decoded. */
__kernel void base64_strict_decode_records(const int nrec,
                                           __global const uchar *text,
                                           __global const int *in_off,
                                           __global const int *out_off,
                                           __constant uchar *dec_tab,
                                           __global uchar *out,
                                           __global int *status)
{
    const int r = get_global_id(0);
    if (r >= nrec)
        return;

    __global const uchar *src = text + in_off[r];
    __global uchar *dst = out + out_off[r];
    const int len = in_off[r + 1] - in_off[r];
    const int full = len & ~3;
    int nout = 0;
    int bad = -1;

    for (int q = 0; q < full && bad < 0; q += 4) {
        const int last = (q + 4 == len);
        uint v[4];
        int npad = 0;
        for (int k = 0; k < 4; k++) {
            v[k] = dec_tab[src[q + k]];
            if (v[k] == 255u) {
                bad = q + k;
                break;
            }
            if (v[k] == 64u) {
                if (!last || k < 2 || (k == 2 && dec_tab[src[q + 3]] != 64u)) {
                    bad = q + k;
                    break;
                }
                v[k] = 0u;
                npad++;
            }
        }
        if (bad >= 0)
            break;
        if (npad == 1 && (v[2] & 3u) != 0u) {
            bad = q + 2;
            break;
        }
        if (npad == 2 && (v[1] & 15u) != 0u) {
            bad = q + 1;
            break;
        }
        const uint bits = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
        dst[nout] = (uchar)(bits >> 16);
        if (npad < 2)
            dst[nout + 1] = (uchar)(bits >> 8);
        if (npad < 1)
            dst[nout + 2] = (uchar)bits;
        nout += 3 - npad;
    }
    if (bad < 0 && full != len)
        bad = full;
    status[r] = (bad < 0) ? nout : -(bad + 1);
}
