/* PET list-mode histogramming into sinograms, events strided over the work-items. Each coincidence is two
 * words: ev_pair = crystal A (10 bits) | ring A (6) | crystal B (10) | ring B (6), ev_info = energy A (keV,
 * 10 bits) | energy B (10) | ... | delayed-window flag (bit 31). Events outside the energy window [elo, ehi]
 * on either side, with a corrupt crystal or ring id, or with a ring difference above maxrd are dropped. The
 * crystal pair (ncry a ring) gives the view (nview = ncry / 2, two neighbouring angles mashed) and the
 * radial bin, non-arc-corrected, nrad bins centred on the scanner axis; LORs beyond them are dropped.
 * The plane is ring A + ring B. Prompts and delayed coincidences are counted with atomic_inc into two
 * uint32 sinograms [plane][view][radial]. */
__kernel void pet_listmode_sino_atomic(const int nev, const int ncry, const int nring, const int nrad, const int maxrd,
                                       const uint elo, const uint ehi,
                                       __global const uint *ev_pair,
                                       __global const uint *ev_info,
                                       __global uint *prompts,
                                       __global uint *delayeds)
{
    const int nview = ncry / 2;
    for (int e = get_global_id(0); e < nev; e += get_global_size(0)) {
        const uint info = ev_info[e];
        const uint ea = info & 0x3ffu;
        const uint eb = (info >> 10) & 0x3ffu;
        if (ea < elo || ea > ehi || eb < elo || eb > ehi)
            continue;

        const uint w = ev_pair[e];
        int ca = (int)(w & 0x3ffu);
        const int ra = (int)((w >> 10) & 0x3fu);
        int cb = (int)((w >> 16) & 0x3ffu);
        const int rb = (int)(w >> 26);
        if (ca >= ncry || cb >= ncry || ca == cb || ra >= nring || rb >= nring)
            continue;
        if (abs(ra - rb) > maxrd)
            continue;

        if (ca > cb) {
            const int t = ca;
            ca = cb;
            cb = t;
        }
        int sum = ca + cb;
        int tang = cb - ca - nview;
        if (sum >= ncry) {   /* the LOR's normal wrapped past 180 degrees */
            sum -= ncry;
            tang = -tang;
        }
        const int view = sum >> 1;
        const int r = tang + nrad / 2;
        if (r < 0 || r >= nrad)
            continue;

        const int bin = ((ra + rb) * nview + view) * nrad + r;
        if (info & 0x80000000u)
            atomic_inc(&delayeds[bin]);
        else
            atomic_inc(&prompts[bin]);
    }
}
