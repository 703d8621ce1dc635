#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* Interest accrued on a book of deposits between two dates, one row per work-item. Dates come as int32
 * yyyymmdd, as stored in the source table. Each row has its own day-count basis (0: ACT/365 fixed,
 * 1: ACT/360, 2: 30/360 US bond basis, 3: ACT/ACT ISDA, which splits the period at year ends) and
 * compounding frequency per year; the year fraction and the accrued interest
 * principal * ((1 + rate / freq)^(freq * yf) - 1) are written out. */
int days_from_civil(int y, const int m, const int d)
{
    /* days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm) */
    y -= m <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

double days_in_year(const int y)
{
    return ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0) ? 366.0 : 365.0;
}

__kernel void accrued_daycount_fp64(const int nrows,
                                    __global const int *start_date,
                                    __global const int *end_date,
                                    __global const int *basis,
                                    __global const int *freq,
                                    __global const double *principal,
                                    __global const double *rate,
                                    __global double *year_frac,
                                    __global double *accrued)
{
    const int i = get_global_id(0);
    if (i >= nrows)
        return;

    const int s = start_date[i];
    const int e = end_date[i];
    const int y1 = s / 10000, m1 = s / 100 % 100, d1 = s % 100;
    const int y2 = e / 10000, m2 = e / 100 % 100, d2 = e % 100;
    const int t1 = days_from_civil(y1, m1, d1);
    const int t2 = days_from_civil(y2, m2, d2);

    double yf;
    switch (basis[i]) {
    case 0:
        yf = (t2 - t1) / 365.0;
        break;
    case 1:
        yf = (t2 - t1) / 360.0;
        break;
    case 2: {
        const int dd1 = d1 == 31 ? 30 : d1;
        const int dd2 = (d2 == 31 && dd1 == 30) ? 30 : d2;
        yf = (360 * (y2 - y1) + 30 * (m2 - m1) + (dd2 - dd1)) / 360.0;
        break;
    }
    default: {
        yf = 0.0;
        int from = t1;
        for (int y = y1; y < y2; y++) {
            const int next = days_from_civil(y + 1, 1, 1);
            yf += (next - from) / days_in_year(y);
            from = next;
        }
        yf += (t2 - from) / days_in_year(y2);
        break;
    }
    }

    const double f = (double)freq[i];
    year_frac[i] = yf;
    accrued[i] = principal[i] * (pow(1.0 + rate[i] / f, f * yf) - 1.0);
}
