/* Historical-simulation value at risk and expected shortfall, one portfolio per work-item.
 * Each of nscen historical scenarios gives a return per asset (scen[s * nasset + a]); the portfolio's
 * loss in scenario s is minus its weighted return. The ntail largest losses are kept in a private array
 * sorted in descending order (insertion when a loss beats the smallest kept one); VaR is the ntail-th
 * largest loss, ES the mean of the ntail largest. */
#define MAX_TAIL 128

__kernel void var_es_hist_insert(const int nport, const int nscen, const int nasset, const int ntail,
                                 __global const float *weights,
                                 __global const float *scen,
                                 __global float *var_out,
                                 __global float *es_out)
{
    const int p = get_global_id(0);
    if (p >= nport)
        return;

    __global const float *w = weights + (size_t)p * nasset;
    float worst[MAX_TAIL];
    int kept = 0;

    for (int s = 0; s < nscen; s++) {
        __global const float *ret = scen + (size_t)s * nasset;
        float pnl = 0.0f;
        for (int a = 0; a < nasset; a++)
            pnl += w[a] * ret[a];
        const float loss = -pnl;

        if (kept < ntail) {
            int j = kept - 1;
            while (j >= 0 && worst[j] < loss) {
                worst[j + 1] = worst[j];
                j--;
            }
            worst[j + 1] = loss;
            kept++;
        } else if (loss > worst[ntail - 1]) {
            int j = ntail - 2;
            while (j >= 0 && worst[j] < loss) {
                worst[j + 1] = worst[j];
                j--;
            }
            worst[j + 1] = loss;
        }
    }

    float sum = 0.0f;
    for (int k = 0; k < ntail; k++)
        sum += worst[k];
    var_out[p] = worst[ntail - 1];
    es_out[p] = sum / ntail;
}
