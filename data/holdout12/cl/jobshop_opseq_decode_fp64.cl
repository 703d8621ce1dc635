#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Fitness of a genetic algorithm's population for the job-shop problem (n jobs, m machines, every job visiting
 * every machine once in its own order), in fp64. A chromosome is an operation-based sequence of n * m job ids,
 * each job appearing m times: its k-th occurrence stands for the job's k-th operation, on machine route[j][k]
 * for ptime[j][k] time units. A work-item decodes one chromosome into the semi-active schedule (an operation
 * starts as soon as both its job and its machine are free) and reports the makespan and the total weighted
 * tardiness, sum over jobs of weight[j] * max(0, completion[j] - due[j]). route and ptime are n x m row-major;
 * chromosomes lie back to back. At most MAX_JOBS jobs and MAX_MACH machines. */
#define MAX_JOBS 64
#define MAX_MACH 32

__kernel void jobshop_opseq_decode_fp64(const int npop, const int njobs, const int nmach,
                                        __global const int *chrom,
                                        __global const int *route,
                                        __global const double *ptime,
                                        __global const double *due,
                                        __global const double *weight,
                                        __global double *makespan,
                                        __global double *tardiness)
{
    const int g = get_global_id(0);
    if (g >= npop)
        return;

    double job_free[MAX_JOBS];
    int next_op[MAX_JOBS];
    double mach_free[MAX_MACH];
    for (int j = 0; j < njobs; j++) {
        job_free[j] = 0.0;
        next_op[j] = 0;
    }
    for (int q = 0; q < nmach; q++)
        mach_free[q] = 0.0;

    const int len = njobs * nmach;
    __global const int *seq = chrom + (size_t)g * len;
    for (int s = 0; s < len; s++) {
        const int j = seq[s];
        const int op = j * nmach + next_op[j];
        next_op[j]++;
        const int q = route[op];
        const double start = fmax(job_free[j], mach_free[q]);
        const double end = start + ptime[op];
        job_free[j] = end;
        mach_free[q] = end;
    }

    double cmax = 0.0;
    double twt = 0.0;
    for (int j = 0; j < njobs; j++) {
        cmax = fmax(cmax, job_free[j]);
        const double late = job_free[j] - due[j];
        if (late > 0.0)
            twt += weight[j] * late;
    }
    makespan[g] = cmax;
    tardiness[g] = twt;
}
