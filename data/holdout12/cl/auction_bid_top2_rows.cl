/* Bidding phase of Bertsekas' auction algorithm for the dense assignment problem (n persons, n objects, benefit
 * a(i, j), row-major). Each person still unassigned after the last assignment phase is listed in unassigned[];
 * a work-item takes one of them and scans its row for the object of largest net value a(i, j) - price(j) (the
 * lowest j on a tie) and the second-largest net value over the other objects. Its bid raises that object's price
 * by the difference plus eps, the amount that makes the person indifferent between the two. Bids are written in
 * list order; the assignment phase (another kernel) keeps the highest bid per object. */
__kernel void auction_bid_top2_rows(const int nunassigned, const int nobj, const float eps,
                                    __global const int *unassigned,
                                    __global const float *benefit,
                                    __global const float *price,
                                    __global int *bid_obj,
                                    __global float *bid_val)
{
    const int k = get_global_id(0);
    if (k >= nunassigned)
        return;

    const int person = unassigned[k];
    __global const float *row = benefit + (size_t)person * nobj;
    float best = -INFINITY;
    float second = -INFINITY;
    int jbest = 0;
    for (int j = 0; j < nobj; j++) {
        const float v = row[j] - price[j];
        if (v > best) {
            second = best;
            best = v;
            jbest = j;
        } else if (v > second) {
            second = v;
        }
    }
    bid_obj[k] = jbest;
    bid_val[k] = price[jbest] + (best - second) + eps;
}
