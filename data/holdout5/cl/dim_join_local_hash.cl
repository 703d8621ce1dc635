/* Star-schema join of a fact table (order lines) with a small dimension table (products) that fits in
 * local memory. Every work-group first builds its own hash table of the dimension: each product key is
 * inserted by linear probing, claiming an empty slot with atomic_cmpxchg, and the product's row is
 * stored beside it. After a barrier the work-items walk the order lines with a grid-stride loop, probe
 * the table for the line's product key and, on a hit, gather the product's unit price to compute the
 * line's net revenue. Lines whose product is not in the dimension get row -1 and revenue 0.
 * table_size is a power of two, at least twice the number of products; product keys are unique and
 * never 0xffffffff (the empty marker). */
#define EMPTY_KEY 0xffffffffu

uint hash_key(uint k)
{
    k ^= k >> 16;
    k *= 0x7feb352du;
    k ^= k >> 15;
    k *= 0x846ca68bu;
    k ^= k >> 16;
    return k;
}

__kernel void dim_join_local_hash(const int nlines, const int nproducts, const int table_size,
                                  __global const uint *product_key,
                                  __global const float *unit_price,
                                  __global const uint *line_product,
                                  __global const int *line_qty,
                                  __global const float *line_discount,
                                  __global int *line_match,
                                  __global float *line_revenue,
                                  __local uint *slot_key,
                                  __local int *slot_row)
{
    const int lid = get_local_id(0);
    const int lsz = get_local_size(0);
    const uint mask = (uint)table_size - 1u;

    for (int s = lid; s < table_size; s += lsz)
        slot_key[s] = EMPTY_KEY;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int r = lid; r < nproducts; r += lsz) {
        const uint key = product_key[r];
        uint s = hash_key(key) & mask;
        while (atomic_cmpxchg(&slot_key[s], EMPTY_KEY, key) != EMPTY_KEY)
            s = (s + 1u) & mask;
        slot_row[s] = r;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int i = get_global_id(0); i < nlines; i += get_global_size(0)) {
        const uint key = line_product[i];
        uint s = hash_key(key) & mask;
        int row = -1;
        while (1) {
            const uint k = slot_key[s];
            if (k == key) {
                row = slot_row[s];
                break;
            }
            if (k == EMPTY_KEY)
                break;
            s = (s + 1u) & mask;
        }
        line_match[i] = row;
        if (row >= 0)
            line_revenue[i] = (float)line_qty[i] * unit_price[row] * (1.0f - line_discount[i]);
        else
            line_revenue[i] = 0.0f;
    }
}
