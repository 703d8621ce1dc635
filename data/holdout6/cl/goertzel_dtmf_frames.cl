/* DTMF (touch-tone) decoder for 8 kHz telephone audio. One work-item per analysis frame of frame_len
 * samples; frames start every hop samples. The eight DTMF tones (rows 697, 770, 852, 941 Hz, columns
 * 1209, 1336, 1477, 1633 Hz) are measured with the Goertzel recurrence, coefficients 2 cos(w) in
 * __constant memory, and their powers (amplitude squared) stored. The frame holds a key when the
 * strongest row tone and the strongest column tone both reach min_power, their ratio (twist) is within
 * max_twist either way, each beats the other tones of its group by the factor dominance, and together
 * they carry most of the frame's energy (speech and music spread it over many frequencies). key gets
 * 4 * row + column (0 .. 15) or -1. */
#define NTONES 8
#define MIN_TONE_SHARE 0.6f

__kernel void goertzel_dtmf_frames(const int nframes, const int frame_len, const int hop,
                                   const float min_power, const float max_twist, const float dominance,
                                   __global const float *audio,
                                   __constant float *coeff,
                                   __global float *power,
                                   __global int *key)
{
    const int f = get_global_id(0);
    if (f >= nframes)
        return;

    __global const float *x = audio + (size_t)f * hop;
    float s1[NTONES], s2[NTONES];
    for (int k = 0; k < NTONES; k++) {
        s1[k] = 0.0f;
        s2[k] = 0.0f;
    }

    float energy = 0.0f;
    for (int t = 0; t < frame_len; t++) {
        const float v = x[t];
        energy += v * v;
        for (int k = 0; k < NTONES; k++) {
            const float s0 = v + coeff[k] * s1[k] - s2[k];
            s2[k] = s1[k];
            s1[k] = s0;
        }
    }

    /* |X(w)|^2 scaled so that a tone of amplitude A on the bin gives A^2 */
    const float norm = 4.0f / ((float)frame_len * (float)frame_len);
    float p[NTONES];
    for (int k = 0; k < NTONES; k++) {
        p[k] = (s1[k] * s1[k] + s2[k] * s2[k] - coeff[k] * s1[k] * s2[k]) * norm;
        power[(size_t)f * NTONES + k] = p[k];
    }

    int row = 0, col = 4;
    for (int k = 1; k < 4; k++)
        if (p[k] > p[row])
            row = k;
    for (int k = 5; k < 8; k++)
        if (p[k] > p[col])
            col = k;

    int code = -1;
    if (p[row] >= min_power && p[col] >= min_power) {
        const float twist = p[col] / p[row];
        int ok = twist <= max_twist && twist * max_twist >= 1.0f;
        for (int k = 0; k < 4 && ok; k++)
            if (k != row && p[k] * dominance > p[row])
                ok = 0;
        for (int k = 4; k < 8 && ok; k++)
            if (k != col && p[k] * dominance > p[col])
                ok = 0;
        /* mean square of a tone of amplitude A is A^2 / 2 */
        if (ok && p[row] + p[col] >= MIN_TONE_SHARE * 2.0f * energy / (float)frame_len)
            code = 4 * row + (col - 4);
    }
    key[f] = code;
}
