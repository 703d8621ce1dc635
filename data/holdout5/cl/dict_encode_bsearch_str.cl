/* Dictionary encoding of a string column: records and dictionary entries are CHAR(width) values,
 * fixed-width byte strings padded with NULs, and the dictionary is sorted bytewise (as strcmp orders
 * them). Each work-item binary-searches the dictionary for its record and writes the entry's code,
 * or -1 for a string that is not in the dictionary. */
int compare_fixed(__global const uchar *a, __global const uchar *b, const int width)
{
    for (int c = 0; c < width; c++) {
        const int d = (int)a[c] - (int)b[c];
        if (d != 0)
            return d;
        if (a[c] == 0)
            return 0;
    }
    return 0;
}

__kernel void dict_encode_bsearch_str(const int nrec, const int ndict, const int width,
                                      __global const uchar *records,
                                      __global const uchar *dict,
                                      __global int *code)
{
    const int i = get_global_id(0);
    if (i >= nrec)
        return;

    __global const uchar *rec = records + (size_t)i * width;
    int lo = 0;
    int hi = ndict - 1;
    int found = -1;
    while (lo <= hi) {
        const int mid = lo + (hi - lo) / 2;
        const int c = compare_fixed(rec, dict + (size_t)mid * width, width);
        if (c == 0) {
            found = mid;
            break;
        }
        if (c < 0)
            hi = mid - 1;
        else
            lo = mid + 1;
    }
    code[i] = found;
}
