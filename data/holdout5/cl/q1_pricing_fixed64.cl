#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable

/* TPC-H query 1 (pricing summary report) on a lineitem table stored column by column. Lines shipped on
 * or before the cutoff day are grouped by (returnflag, linestatus) and summed in exact fixed point:
 * quantity, extended price (cents), discounted price (cents * (100 - discount%)) and charge
 * (discounted price * (100 + tax%)), plus a line count per group; the host divides for the averages.
 * Each work-item walks its share of the rows (grid-stride) into private per-group accumulators and
 * adds them to the global totals with 64-bit atomics at the end. */
#define NGROUPS 6

int group_of(const uchar returnflag, const uchar linestatus)
{
    int r;
    if (returnflag == 'A')
        r = 0;
    else if (returnflag == 'N')
        r = 1;
    else
        r = 2;
    return 2 * r + (linestatus == 'O' ? 1 : 0);
}

__kernel void q1_pricing_fixed64(const int nrows, const int cutoff,
                                 __global const int *shipdate,
                                 __global const int *quantity,
                                 __global const int *extprice,
                                 __global const uchar *discount,
                                 __global const uchar *tax,
                                 __global const uchar *returnflag,
                                 __global const uchar *linestatus,
                                 __global long *sums,
                                 __global int *counts)
{
    long sum_qty[NGROUPS], sum_base[NGROUPS], sum_disc[NGROUPS], sum_charge[NGROUPS];
    int count[NGROUPS];
    for (int g = 0; g < NGROUPS; g++) {
        sum_qty[g] = 0;
        sum_base[g] = 0;
        sum_disc[g] = 0;
        sum_charge[g] = 0;
        count[g] = 0;
    }

    for (int i = get_global_id(0); i < nrows; i += get_global_size(0)) {
        if (shipdate[i] > cutoff)
            continue;
        const int g = group_of(returnflag[i], linestatus[i]);
        const long price = extprice[i];
        const long disc_price = price * (100 - discount[i]);
        sum_qty[g] += quantity[i];
        sum_base[g] += price;
        sum_disc[g] += disc_price;
        sum_charge[g] += disc_price * (100 + tax[i]);
        count[g]++;
    }

    for (int g = 0; g < NGROUPS; g++) {
        if (count[g] == 0)
            continue;
        atom_add(&sums[4 * g + 0], sum_qty[g]);
        atom_add(&sums[4 * g + 1], sum_base[g]);
        atom_add(&sums[4 * g + 2], sum_disc[g]);
        atom_add(&sums[4 * g + 3], sum_charge[g]);
        atomic_add(&counts[g], count[g]);
    }
}
