/* Decodes a column of UTF-8 strings to code points, validating as RFC 3629 does: no stray continuation
 * bytes, no truncated sequences, no overlong forms, no UTF-16 surrogates, nothing above U+10FFFF.
 * String i is bytes [offsets[i], offsets[i+1]); its code points go to cps starting at offsets[i] (a string
 * never has more code points than bytes). ncp[i] is the number of code points, or -(1 + p) where p is the
 * byte position, within the string, of the first invalid sequence; decoding stops there. */
__kernel void utf8_decode_validate(const int nstr,
                                   __global const int *offsets,
                                   __global const uchar *bytes,
                                   __global uint *cps,
                                   __global int *ncp)
{
    const int i = get_global_id(0);
    if (i >= nstr)
        return;

    const int begin = offsets[i];
    const int end = offsets[i + 1];
    __global uint *out = cps + begin;
    int n = 0;
    int p = begin;
    while (p < end) {
        const uint b0 = bytes[p];
        if (b0 < 0x80u) {
            out[n++] = b0;
            p++;
            continue;
        }

        int len;
        uint cp, lo = 0x80u, hi = 0xBFu; /* allowed range of the second byte */
        if (b0 >= 0xC2u && b0 <= 0xDFu) {
            len = 2;
            cp = b0 & 0x1Fu;
        } else if (b0 >= 0xE0u && b0 <= 0xEFu) {
            len = 3;
            cp = b0 & 0x0Fu;
            if (b0 == 0xE0u)
                lo = 0xA0u; /* overlong */
            else if (b0 == 0xEDu)
                hi = 0x9Fu; /* surrogates */
        } else if (b0 >= 0xF0u && b0 <= 0xF4u) {
            len = 4;
            cp = b0 & 0x07u;
            if (b0 == 0xF0u)
                lo = 0x90u; /* overlong */
            else if (b0 == 0xF4u)
                hi = 0x8Fu; /* above U+10FFFF */
        } else {
            break; /* continuation byte, C0, C1 or F5..FF as a lead */
        }
        if (p + len > end)
            break;

        const uint b1 = bytes[p + 1];
        if (b1 < lo || b1 > hi)
            break;
        cp = (cp << 6) | (b1 & 0x3Fu);
        int k = 2;
        for (; k < len; k++) {
            const uint b = bytes[p + k];
            if ((b & 0xC0u) != 0x80u)
                break;
            cp = (cp << 6) | (b & 0x3Fu);
        }
        if (k < len)
            break;
        out[n++] = cp;
        p += len;
    }
    ncp[i] = (p < end) ? -(1 + (p - begin)) : n;
}
