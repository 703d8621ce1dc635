/* Stereo-linked feed-forward compressor on the tracks of a mixer, one work-item per track, sequential in time.
 * pcm holds nframes frames of ntracks tracks, frame-major; each word is one stereo frame of 16-bit PCM (left
 * in the low half, right in the high half). Per frame: the louder channel's peak level in dBFS goes through
 * the track's soft-knee gain computer (threshold thr_db, ratio, knee width knee_db; Giannoulis, Massberg and
 * Reiss 2012); the gain reduction is smoothed in the log domain with the attack coefficient while it deepens
 * and the release coefficient while it recovers; the track's make-up gain is added and both channels are
 * scaled by the linear gain. out is float stereo, frame-major like pcm; gr_min gets each track's deepest
 * smoothed gain reduction (dB, <= 0). */
__kernel void compressor_softknee_tracks(const int ntracks, const int nframes, const float knee_db,
                                         const float att, const float rel,
                                         __global const float *thr_db,
                                         __global const float *ratio,
                                         __global const float *makeup_db,
                                         __global const uint *pcm,
                                         __global float *out,
                                         __global float *gr_min)
{
    const int t = get_global_id(0);
    if (t >= ntracks)
        return;

    const float thr = thr_db[t];
    const float slope = 1.0f / ratio[t] - 1.0f;
    const float makeup = makeup_db[t];
    const float half_knee = 0.5f * knee_db;

    float g = 0.0f;
    float gmin = 0.0f;
    for (int f = 0; f < nframes; f++) {
        const size_t idx = (size_t)f * ntracks + t;
        const uint w = pcm[idx];
        const float l = (float)(short)(w & 0xffffu) * (1.0f / 32768.0f);
        const float r = (float)(short)(w >> 16) * (1.0f / 32768.0f);

        const float level = 20.0f * log10(fmax(fmax(fabs(l), fabs(r)), 1e-6f));
        const float over = level - thr;
        float target;
        if (over <= -half_knee) {
            target = 0.0f;
        } else if (over < half_knee) {
            const float a = over + half_knee;
            target = slope * a * a / (2.0f * knee_db);
        } else {
            target = slope * over;
        }

        if (target < g)
            g = att * g + (1.0f - att) * target;
        else
            g = rel * g + (1.0f - rel) * target;
        gmin = fmin(gmin, g);

        const float gain = exp10((g + makeup) * 0.05f);
        out[2 * idx] = l * gain;
        out[2 * idx + 1] = r * gain;
    }
    gr_min[t] = gmin;
}
