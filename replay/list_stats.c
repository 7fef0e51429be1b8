/* The statistics' paths and shape before a run (list_stats.h). */
#include "replay/list_stats.h"

#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "cgm/events.h"
#include "replay/gpu/program.h"

/* Prints the path of every number under NODE, PREFIX being NODE's. An
 * array element is named by its "name" when it has one (the selector
 * sweep's metrics use), else by its index. */
static void print_paths(FILE *out, const cJSON *node, char *prefix, size_t len, size_t cap)
{
    if (cJSON_IsNumber(node)) {
        fprintf(out, "%.*s\n", (int)len, prefix);
        return;
    }
    size_t i = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, node) {
        int n;
        if (cJSON_IsArray(node)) {
            const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
            if (cJSON_IsString(name) && name->valuestring[0])
                n = snprintf(prefix + len, cap - len, "[%s]", name->valuestring);
            else
                n = snprintf(prefix + len, cap - len, "[%zu]", i);
        } else {
            n = snprintf(prefix + len, cap - len, "%s%s", len ? "." : "", c->string);
        }
        i++;
        if (n > 0 && (size_t)n < cap - len)
            print_paths(out, c, prefix, len + (size_t)n, cap);
    }
}

/* The kernels' elements of the tree (gpu.kernels, and the region's) that
 * launch LAUNCH made get NAME. */
static void name_launch(cJSON *const *lists, size_t n, uint64_t launch, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        cJSON *k;
        cJSON_ArrayForEach(k, lists[i]) {
            const cJSON *l = cJSON_GetObjectItemCaseSensitive(k, "launch");
            if (cJSON_IsNumber(l) && l->valuedouble == (double)launch)
                cJSON_ReplaceItemInObjectCaseSensitive(k, "name", cJSON_CreateString(name));
        }
    }
}

/* A run learns a kernel's name at its launch (until then the kernel is
 * "launchN"): the names come from the gpu_launch events of the threads'
 * streams and the kernels' descriptions. Read only for traces with GPU
 * work. Returns 0 or -1. */
static int name_kernels(struct rp_sim *s, cJSON *tree)
{
    cJSON *lists[2];
    size_t n = 0;
    const cJSON *roi = cJSON_GetObjectItemCaseSensitive(tree, "roi");
    const cJSON *parts[2] = { tree, roi };
    for (int i = 0; i < 2; i++) {
        const cJSON *gpu = parts[i] ? cJSON_GetObjectItemCaseSensitive(parts[i], "gpu") : NULL;
        cJSON *k = gpu ? cJSON_GetObjectItemCaseSensitive(gpu, "kernels") : NULL;
        if (cJSON_IsArray(k) && cJSON_GetArraySize(k))
            lists[n++] = k;
    }
    if (!n)
        return 0;
    struct rp_gpu_trace t;
    char err[600];
    if (rp_gpu_trace_init(&t, s->reader, s->trace_name, err, sizeof err))
        return -1;
    int rc = 0;
    for (size_t i = 0; i < cgm_reader_stream_count(s->reader) && !rc; i++) {
        if (cgm_reader_stream(s->reader, i)->info.kind != CGM_STREAM_X86_THREAD)
            continue;
        struct cgm_riter *it = cgm_riter_open(s->reader, i);
        const uint8_t *rec;
        size_t len;
        int k;
        while (it && (k = cgm_riter_next(it, &rec, &len)) > 0) {
            struct cgm_event ev;
            struct cgm_si_kernel_info info;
            if (cgm_event_decode(rec, len, &ev) || ev.type != CGM_EV_GPU_LAUNCH ||
                ev.f[CGM_EVF_GPU_LAUNCH_KERNEL] > UINT32_MAX ||
                rp_gpu_trace_kernel(&t, (uint32_t)ev.f[CGM_EVF_GPU_LAUNCH_KERNEL], &info, err, sizeof err) != 1)
                continue;
            name_launch(lists, n, ev.f[CGM_EVF_GPU_LAUNCH_LAUNCH], info.name);
        }
        rc = it ? 0 : -1;
        cgm_riter_close(it);
    }
    rp_gpu_trace_free(&t);
    return rc;
}

int rp_list_stats(struct rp_sim *s, bool roi_only, FILE *paths, FILE *json)
{
    /* a region of interest from the first cycle to the first cycle */
    free(s->roi_begin);
    free(s->roi_end);
    s->roi_begin = rp_stats_snapshot(s, 0);
    s->roi_end = rp_stats_snapshot(s, 0);
    s->roi_seen = true;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f || !s->roi_begin || !s->roi_end) {
        if (f)
            fclose(f);
        free(text);
        return -1;
    }
    int rc = rp_stats_write(s, f, NULL, roi_only);
    if (fclose(f))
        rc = -1;
    cJSON *tree = rc ? NULL : cJSON_ParseWithLength(text, len);
    free(text);
    if (!tree || name_kernels(s, tree)) {
        cJSON_Delete(tree);
        return -1;
    }
    char *out = json ? cJSON_Print(tree) : NULL;
    if (json && (!out || fprintf(json, "%s\n", out) < 0))
        rc = -1;
    free(out);
    if (!rc && paths) {
        char prefix[1024];
        print_paths(paths, tree, prefix, 0, sizeof prefix);
    }
    cJSON_Delete(tree);
    return rc;
}
