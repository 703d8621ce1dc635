#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* Reflectance of a thin-film multilayer (an interference filter or an anti-reflection coating) on a substrate, by
 * the characteristic-matrix (Abeles) method in double precision. Every work-item of the 2-D NDRange takes one
 * (angle of incidence, wavelength) pair: x runs over nang angles, y over nwl wavelengths. Layer j of nlayer has a
 * complex refractive index n - ik tabulated per wavelength (nk[(w * nlayer + j) * 2 + {0,1}]) and a physical
 * thickness thick[j] in nm; the incidence medium has a real index n_inc and the substrate a complex index per
 * wavelength. For both polarisations the 2x2 complex matrices of the layers are multiplied from the incidence
 * side, applied to (1, eta_sub), and R = |(eta0 B - C) / (eta0 B + C)|^2 is written for s and p. */

typedef double2 cdouble;

inline cdouble cmul(cdouble a, cdouble b)
{
    return (cdouble)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

inline cdouble cdiv(cdouble a, cdouble b)
{
    const double d = b.x * b.x + b.y * b.y;
    return (cdouble)((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d);
}

/* principal square root (Re >= 0): with N = n - ik the tilted index keeps Im <= 0, a wave damped along +z */
inline cdouble csqrt_pr(cdouble z)
{
    const double r = hypot(z.x, z.y);
    const double re = sqrt(0.5 * (r + z.x));
    double im = sqrt(0.5 * (r - z.x));
    if (z.y < 0.0)
        im = -im;
    return (cdouble)(re, im);
}

__kernel void tmm_multilayer_rsp_2d_fp64(const int nang, const int nwl, const int nlayer, const double n_inc,
                                         __global const double *theta,
                                         __global const double *lambda_nm,
                                         __global const double *nk,
                                         __global const double *thick,
                                         __global const double *nsub,
                                         __global double *r_s,
                                         __global double *r_p)
{
    const int a = get_global_id(0);
    const int w = get_global_id(1);
    if (a >= nang || w >= nwl)
        return;

    const double s0 = n_inc * sin(theta[a]);
    const double beta2 = s0 * s0;
    const double eta0_s = n_inc * cos(theta[a]);
    const double eta0_p = n_inc / cos(theta[a]);
    const double k0 = 2.0 * M_PI / lambda_nm[w];

    /* running products for s and p: [[a b] [c d]] */
    cdouble as = (cdouble)(1.0, 0.0), bs = (cdouble)(0.0, 0.0), cs = (cdouble)(0.0, 0.0), ds = (cdouble)(1.0, 0.0);
    cdouble ap = as, bp = bs, cp = cs, dp = ds;

    for (int j = 0; j < nlayer; j++) {
        const size_t o = ((size_t)w * nlayer + j) * 2;
        const cdouble n = (cdouble)(nk[o], -nk[o + 1]);
        const cdouble n2 = cmul(n, n);
        /* q = n cos(theta_j) = sqrt(n^2 - (n_inc sin theta)^2) */
        const cdouble q = csqrt_pr(n2 - (cdouble)(beta2, 0.0));
        /* phase thickness delta = k0 q d (complex in an absorbing layer) */
        const cdouble delta = k0 * thick[j] * q;
        const double ch = cosh(delta.y), sh = sinh(delta.y);
        double sn, cn;
        sn = sincos(delta.x, &cn);
        const cdouble cosd = (cdouble)(cn * ch, -sn * sh);
        const cdouble sind = (cdouble)(sn * ch, cn * sh);
        const cdouble isind = (cdouble)(-sind.y, sind.x); /* i sin(delta) */
        /* tilted admittances (units of the free-space admittance) */
        const cdouble eta_s = q;
        const cdouble eta_p = cdiv(n2, q);

        /* layer matrix [[cos, i sin / eta], [i eta sin, cos]] */
        cdouble m12 = cdiv(isind, eta_s), m21 = cmul(isind, eta_s);
        cdouble t0 = cmul(as, cosd) + cmul(bs, m21);
        cdouble t1 = cmul(as, m12) + cmul(bs, cosd);
        cdouble t2 = cmul(cs, cosd) + cmul(ds, m21);
        cdouble t3 = cmul(cs, m12) + cmul(ds, cosd);
        as = t0; bs = t1; cs = t2; ds = t3;

        m12 = cdiv(isind, eta_p);
        m21 = cmul(isind, eta_p);
        t0 = cmul(ap, cosd) + cmul(bp, m21);
        t1 = cmul(ap, m12) + cmul(bp, cosd);
        t2 = cmul(cp, cosd) + cmul(dp, m21);
        t3 = cmul(cp, m12) + cmul(dp, cosd);
        ap = t0; bp = t1; cp = t2; dp = t3;
    }

    const cdouble ns = (cdouble)(nsub[2 * w], -nsub[2 * w + 1]);
    const cdouble ns2 = cmul(ns, ns);
    const cdouble es = csqrt_pr(ns2 - (cdouble)(beta2, 0.0));
    const cdouble ep = cdiv(ns2, es);

    cdouble B = as + cmul(bs, es), C = cs + cmul(ds, es);
    cdouble num = eta0_s * B - C, den = eta0_s * B + C;
    cdouble r = cdiv(num, den);
    r_s[(size_t)w * nang + a] = r.x * r.x + r.y * r.y;

    B = ap + cmul(bp, ep);
    C = cp + cmul(dp, ep);
    num = eta0_p * B - C;
    den = eta0_p * B + C;
    r = cdiv(num, den);
    r_p[(size_t)w * nang + a] = r.x * r.x + r.y * r.y;
}
