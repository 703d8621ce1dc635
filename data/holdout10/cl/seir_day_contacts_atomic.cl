/* One day of a stochastic SEIR agent model on a synthetic population's contact network. Agent a's contacts
 * are contact_idx[k] for k in [contact_off[a], contact_off[a + 1]), contact_kind[k] the setting (0 household,
 * 1 work or school, 2 community) with a daily transmission probability of p_kind[kind] / 2^32 per contact.
 * States: 0 susceptible, 1 exposed, 2 infectious, 3 recovered; days_in counts the days spent in the state
 * (saturating at 255). A susceptible agent meets its contacts in turn and every infectious one transmits on
 * an independent draw of a counter-based generator, Philox-2x32-10 keyed by the seed and the day with the agent
 * and the contact's slot as the counter, so the outcome does not depend on the order of work; the first
 * transmission makes the agent exposed. Exposed agents turn infectious after latent_days, infectious ones
 * recover after infectious_days. Today's state goes to state_out / days_out (yesterday's is only read); the
 * day's new exposures, onsets and recoveries are counted in counts[0..2], new exposures per ward in ward_cases. */
#define PHILOX_M 0xD256D193u
#define PHILOX_W 0x9E3779B9u

uint philox2x32_10(uint c0, uint c1, uint key)
{
    for (int r = 0; r < 10; r++) {
        const uint hi = mul_hi(PHILOX_M, c0);
        const uint lo = PHILOX_M * c0;
        c0 = hi ^ key ^ c1;
        c1 = lo;
        key += PHILOX_W;
    }
    return c0;
}

__kernel void seir_day_contacts_atomic(const int nagent, const uint day, const uint seed,
                                       const int latent_days, const int infectious_days,
                                       __global const int *contact_off,
                                       __global const uint *contact_idx,
                                       __global const uchar *contact_kind,
                                       __global const uint *p_kind,
                                       __global const int *ward,
                                       __global const uchar *state_in,
                                       __global const uchar *days_in,
                                       __global uchar *state_out,
                                       __global uchar *days_out,
                                       __global int *counts,
                                       __global int *ward_cases)
{
    const int a = get_global_id(0);
    if (a >= nagent)
        return;

    const int s = state_in[a];
    const int d = days_in[a];
    int ns = s;
    int nd = min(d + 1, 255);

    if (s == 0) {
        const uint key = seed ^ (day * 0x85EBCA6Bu);
        const int end = contact_off[a + 1];
        for (int k = contact_off[a]; k < end; k++) {
            if (state_in[contact_idx[k]] != 2)
                continue;
            if (philox2x32_10((uint)a, (uint)k, key) < p_kind[contact_kind[k]]) {
                ns = 1;
                break;
            }
        }
        if (ns == 1) {
            atomic_inc(&counts[0]);
            atomic_inc(&ward_cases[ward[a]]);
        }
    } else if (s == 1) {
        if (d + 1 >= latent_days) {
            ns = 2;
            atomic_inc(&counts[1]);
        }
    } else if (s == 2) {
        if (d + 1 >= infectious_days) {
            ns = 3;
            atomic_inc(&counts[2]);
        }
    }
    if (ns != s)
        nd = 0;
    state_out[a] = (uchar)ns;
    days_out[a] = (uchar)nd;
}
