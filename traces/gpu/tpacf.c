/* A Parboil-tpacf-like program (seed 004 Table 3.3: 4.73 MB to the GPU in
 * two transfers, 0.03 MB back): the angular-correlation histogram of N data
 * points against the first M of N random points (tpacf.cl). The CPU turns
 * each set's (right ascension, declination) into unit vectors in three
 * passes, one coordinate a pass, as the seed's tpacf initialises its shared
 * structures in several passes (Fig. 6.8: a small rolling size sends each
 * block once a pass); after the kernel it sums the work-groups' histograms.
 *   tpacf [N (default 4096, a multiple of 256)] [M (default 16)] [share|copy (default share)] [CHECK (default 1)]
 * The region of interest is the passes, the kernel and the sum. CHECK 0
 * leaves out the CPU's check: every pair binned once, and every 16th
 * work-group's histogram recomputed bin for bin. */
#include "movement_common.h"

#define NBINS 20
#define GROUP 256

struct point {
    float x, y, z, w;
};

static int bin_of(float dot, const float *bounds)
{
    int b = 0;
    while (b < NBINS && dot < bounds[b])
        b++;
    return b;
}

/* One set of N points: its angles (the input file's) and three passes. */
static void make_points(struct point *p, long n, float *ra, float *dec)
{
    for (long i = 0; i < n; i++) {
        ra[i] = 6.2831853f * gpu_frand();
        dec[i] = 1.5707963f * (2.0f * gpu_frand() - 1.0f);
    }
    for (long i = 0; i < n; i++) {
        p[i].x = cosf(dec[i]) * cosf(ra[i]);
        p[i].w = 0.0f;
    }
    for (long i = 0; i < n; i++)
        p[i].y = cosf(dec[i]) * sinf(ra[i]);
    for (long i = 0; i < n; i++)
        p[i].z = sinf(dec[i]);
}

int main(int argc, char **argv)
{
    gpu_require();
    long n = argc > 1 ? atol(argv[1]) : 4096, m = argc > 2 ? atol(argv[2]) : 16;
    int share = argc > 3 ? mv_mode(argv[3]) : 1, check = argc > 4 ? atoi(argv[4]) : 1;
    if (argc > 5 || n < GROUP || n % GROUP || m < 1 || m > n || share < 0) {
        puts("FAIL: usage: tpacf [N (a multiple of 256)] [M (1..N)] [share|copy] [CHECK]");
        return 1;
    }
    long k = gpu_get_kernel("tpacf", "tpacf_hist");
    long groups = n / GROUP;
    size_t pbytes = (size_t)n * sizeof(struct point), hbytes = (size_t)groups * (NBINS + 1) * sizeof(uint32_t);
    struct mv_buffer D, R, Bd, H;
    struct point *data = mv_alloc(&D, pbytes, share), *random = mv_alloc(&R, pbytes, share);
    float *bounds = mv_alloc(&Bd, NBINS * sizeof(float), share);
    uint32_t *hist = mv_alloc(&H, hbytes, share);
    float *ra = malloc((size_t)n * sizeof *ra), *dec = malloc((size_t)n * sizeof *dec);
    if (!ra || !dec)
        gpu_die("malloc", 0);
    /* bounds: the cosines of angles from 0.01 to 90 degrees, log-spaced */
    for (int b = 0; b < NBINS; b++)
        bounds[b] = cosf(0.017453293f * 0.01f * powf(9000.0f, (float)b / (NBINS - 1)));
    uint64_t total[NBINS + 1] = { 0 };
    cgm_roi_begin();
    make_points(data, n, ra, dec);
    make_points(random, n, ra, dec);
    mv_to_gpu(&Bd, Bd.bytes);
    mv_to_gpu(&D, pbytes);
    mv_to_gpu(&R, pbytes);
    struct gpu_args g = { .n = 0 };
    arg_ptr(&g, D.dev);
    arg_ptr(&g, R.dev);
    arg_ptr(&g, Bd.dev);
    arg_ptr(&g, H.dev);
    arg_int(&g, (int)n);
    arg_int(&g, (int)m);
    arg_int(&g, NBINS);
    gpu_run(k, 1, (size_t)n, 1, GROUP, 1, &g);
    if (cgm_gpu_wait() < 0)
        gpu_die("wait", 0);
    mv_to_cpu(&H);
    for (long gr = 0; gr < groups; gr++)
        for (int b = 0; b <= NBINS; b++)
            total[b] += hist[gr * (NBINS + 1) + b];
    cgm_roi_end();
    if (!check)
        return gpu_finish(1);
    uint64_t pairs = 0;
    for (int b = 0; b <= NBINS; b++)
        pairs += total[b];
    int ok = pairs == (uint64_t)n * (uint64_t)m;
    if (!ok)
        printf("histogram: %llu pairs, %ld x %ld expected\n", (unsigned long long)pairs, n, m);
    for (long gr = 0; gr < groups && ok; gr += 16) {
        uint32_t want[NBINS + 1] = { 0 };
        for (long i = gr * GROUP; i < (gr + 1) * GROUP; i++)
            for (long j = 0; j < m; j++) {
                float dot = data[i].x * random[j].x;
                dot = dot + data[i].y * random[j].y;
                dot = dot + data[i].z * random[j].z;
                want[bin_of(dot, bounds)]++;
            }
        for (int b = 0; b <= NBINS && ok; b++)
            if (want[b] != hist[gr * (NBINS + 1) + b]) {
                printf("group %ld bin %d: GPU %u, CPU %u\n", gr, b, hist[gr * (NBINS + 1) + b], want[b]);
                ok = 0;
            }
    }
    return gpu_finish(ok);
}
