/* Photon transport in a voxel phantom (emission imaging, dosimetry): the flight of every photon from its
 * emission point to its first real interaction by Woodcock (delta) tracking, one photon per work-item. The
 * phantom is an nvox^3 cube of material ids (uchar, x fastest) with voxels of vox_cm; sig_t[m * ngroup + g]
 * is the attenuation coefficient (1/cm) of material m in energy group g, sig_maj[g] the largest over all
 * materials. The photon flies exponential distances under the majorant; at each tentative collision point it
 * looks up the voxel and accepts a real collision with probability sig_t / sig_maj, else the collision is
 * virtual and it flies on. It stops on a real collision (hit_vox: the voxel), on leaving the phantom
 * (hit_vox -1) or after max_iter tentative collisions (-2); hit_pos gets the last point, n_virt the number of
 * virtual collisions. The generator is PCG-RXS-M-XS with one uint of state per photon, written back. */
uint pcg_next(uint *state)
{
    const uint s = *state;
    *state = s * 747796405u + 2891336453u;
    const uint word = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
    return (word >> 22u) ^ word;
}

/* uniform in (0, 1] */
float pcg_u01(uint *state)
{
    return (float)((pcg_next(state) >> 8) + 1u) * 5.9604645e-08f;
}

__kernel void woodcock_voxel_flight(const int nphot, const int nvox, const int ngroup, const int max_iter,
                                    const float vox_cm,
                                    __global const uchar *vox_mat,
                                    __global const float *sig_t,
                                    __global const float *sig_maj,
                                    __global const float *pos,
                                    __global const float *dir,
                                    __global const int *group,
                                    __global uint *rng,
                                    __global float *hit_pos,
                                    __global int *hit_vox,
                                    __global int *n_virt)
{
    const int i = get_global_id(0);
    if (i >= nphot)
        return;

    float3 p = vload3(i, pos);
    const float3 d = vload3(i, dir);
    const int g = group[i];
    const float smaj = sig_maj[g];
    const float box = nvox * vox_cm;
    uint state = rng[i];
    int where = -2, nv = 0;

    for (int it = 0; it < max_iter; it++) {
        p += (-log(pcg_u01(&state)) / smaj) * d;
        if (p.x < 0.0f || p.y < 0.0f || p.z < 0.0f || p.x >= box || p.y >= box || p.z >= box) {
            where = -1;
            break;
        }
        const int ix = min((int)(p.x / vox_cm), nvox - 1);
        const int iy = min((int)(p.y / vox_cm), nvox - 1);
        const int iz = min((int)(p.z / vox_cm), nvox - 1);
        const int v = (iz * nvox + iy) * nvox + ix;
        const float st = sig_t[vox_mat[v] * ngroup + g];
        if (pcg_u01(&state) * smaj <= st) {
            where = v;
            break;
        }
        nv++;
    }

    vstore3(p, i, hit_pos);
    hit_vox[i] = where;
    n_virt[i] = nv;
    rng[i] = state;
}
