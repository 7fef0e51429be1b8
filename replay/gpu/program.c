/* Trace lookups for the GPU (replay/gpu/program.h). */
#include "replay/gpu/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A static table bigger than this is refused (a code object of 16 MiB). */
#define STATIC_SECTION_MAX (CGM_SI_STATIC_BYTES_MAX * (16u << 20) / 4)
#define KERNEL_SECTION_MAX 4096u

static int by_launch(const void *a, const void *b)
{
    const struct rp_launch_streams *x = a, *y = b;
    return x->launch < y->launch ? -1 : x->launch > y->launch;
}

int rp_gpu_trace_init(struct rp_gpu_trace *t, struct cgm_reader *r, const char *name, char *err,
                      size_t errlen)
{
    *t = (struct rp_gpu_trace){ .r = r, .name = name };
    size_t n = cgm_reader_stream_count(r), cap = 0;
    for (size_t i = 0; i < n; i++) {
        const struct cgm_stream_info *info = &cgm_reader_stream(r, i)->info;
        if (info->kind == CGM_STREAM_GPU_WAVEFRONT) {
            snprintf(err, errlen, "%s: stream %u: per-wavefront GPU streams are not supported (record "
                     "one stream per work-group)", name, info->id);
            return -1;
        }
        if (info->kind != CGM_STREAM_GPU_WORKGROUP)
            continue;
        struct rp_launch_streams *last = t->nlaunches ? &t->launches[t->nlaunches - 1] : NULL;
        if (last && last->launch == info->launch_id && last->first + last->count == i) {
            last->count++;
            continue;
        }
        if (t->nlaunches == cap) {
            cap = cap ? 2 * cap : 16;
            struct rp_launch_streams *v = realloc(t->launches, cap * sizeof *v);
            if (!v) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            t->launches = v;
        }
        t->launches[t->nlaunches++] = (struct rp_launch_streams){ info->launch_id, i, 1 };
    }
    qsort(t->launches, t->nlaunches, sizeof *t->launches, by_launch);
    for (size_t i = 1; i < t->nlaunches; i++)
        if (t->launches[i].launch == t->launches[i - 1].launch) {
            const struct cgm_stream_info *info = &cgm_reader_stream(r, t->launches[i].first)->info;
            snprintf(err, errlen, "%s: stream %u: launch %u's work-group streams are not contiguous",
                     name, info->id, info->launch_id);
            return -1;
        }
    return 0;
}

void rp_gpu_trace_free(struct rp_gpu_trace *t)
{
    for (size_t i = 0; i < t->nprogs; i++) {
        cgm_si_codec_free(&t->progs[i]->proto);
        free(t->progs[i]->table);
        free(t->progs[i]);
    }
    free(t->progs);
    free(t->launches);
    *t = (struct rp_gpu_trace){ 0 };
}

struct rp_launch_streams rp_gpu_trace_launch(const struct rp_gpu_trace *t, uint32_t launch)
{
    size_t lo = 0, hi = t->nlaunches;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->launches[mid].launch < launch)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < t->nlaunches && t->launches[lo].launch == launch)
        return t->launches[lo];
    return (struct rp_launch_streams){ launch, 0, 0 };
}

static struct rp_si_program *load_program(struct rp_gpu_trace *t, const char *section, char *err,
                                          size_t errlen)
{
    uint8_t *data = NULL;
    size_t len = 0;
    char why[512];
    if (strncmp(section, CGM_SI_STATIC_PREFIX, strlen(CGM_SI_STATIC_PREFIX)) ||
        cgm_reader_read_section(t->r, section, STATIC_SECTION_MAX, &data, &len, why, sizeof why)) {
        snprintf(err, errlen, "%s: work-group stream names '%s', which is not a static table in the "
                 "trace", t->name, section);
        free(data);
        return NULL;
    }
    struct rp_si_program *p = calloc(1, sizeof *p);
    size_t cap = len / 9 + 1; /* an entry takes at least 9 bytes */
    if (p)
        p->table = malloc(cap * sizeof *p->table);
    if (!p || !p->table) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    snprintf(p->section, sizeof p->section, "%s", section);
    const uint8_t *q = data, *end = data + len;
    uint32_t prev = 0;
    while (q < end) {
        if (p->n == cap || cgm_si_static_decode(&q, end, &prev, &p->table[p->n])) {
            snprintf(err, errlen, "%s: section %s: entry %zu is malformed (offset %zu)", t->name, section,
                     p->n, (size_t)(q - data));
            goto fail;
        }
        if (p->n && p->table[p->n].offset <= p->table[p->n - 1].offset) {
            snprintf(err, errlen, "%s: section %s: entry %zu is out of order", t->name, section, p->n);
            goto fail;
        }
        p->n++;
    }
    if (cgm_si_codec_init(&p->proto, p->table, p->n)) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    free(data);
    return p;
fail:
    free(data);
    if (p)
        free(p->table);
    free(p);
    return NULL;
}

const struct rp_si_program *rp_gpu_trace_program(struct rp_gpu_trace *t, const char *section,
                                                 char *err, size_t errlen)
{
    for (size_t i = 0; i < t->nprogs; i++)
        if (!strcmp(t->progs[i]->section, section))
            return t->progs[i];
    struct rp_si_program **v = realloc(t->progs, (t->nprogs + 1) * sizeof *v);
    if (!v) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    t->progs = v;
    struct rp_si_program *p = load_program(t, section, err, errlen);
    if (p)
        t->progs[t->nprogs++] = p;
    return p;
}

int rp_gpu_trace_kernel(struct rp_gpu_trace *t, uint32_t kernel, struct cgm_si_kernel_info *out,
                        char *err, size_t errlen)
{
    char section[CGM_STREAM_NAME_MAX], why[512];
    snprintf(section, sizeof section, CGM_SI_KERNEL_PREFIX "%u", kernel);
    if (cgm_reader_find_section(t->r, section) < 0)
        return 0;
    uint8_t *data = NULL;
    size_t len = 0;
    if (cgm_reader_read_section(t->r, section, KERNEL_SECTION_MAX, &data, &len, why, sizeof why) ||
        cgm_si_kernel_info_decode(data, len, out)) {
        snprintf(err, errlen, "%s: section %s is malformed", t->name, section);
        free(data);
        return -1;
    }
    free(data);
    return 1;
}
