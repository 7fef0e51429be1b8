#include "tests/unit/gpu_recording.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgm/trace.h"
#include "tests/unit/replay_run.h"

const char *const gpu_workloads[GPU_NWORK] = {
    "hotspot", "backprop", "lud", "kmeans", "nw", "bfs", "threads_launch 3",
    "collab_backprop 2 50 share", "collab_matmul 2 50 copy", "collab_edge 2 50 share",
    "collab_knn 2 50 copy", "collab_write 2 50 share",
};
char gpu_traces[GPU_NWORK][64];

void gpu_record(char *path, const char *kernels, const char *command)
{
    const char *bin = getenv("CGM_BIN"), *build = getenv("CGM_BUILD");
    assert_non_null(bin);
    assert_non_null(build);
    snprintf(path, 64, "/tmp/cgm_gpu_rec_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    char out[80], cmd[4096];
    snprintf(out, sizeof out, "%s.out", path);
    /* The guest sees its argv and environment (only what --env gives it):
     * relative paths from its own folder make the recording the same
     * wherever the tree is and whichever build (default or sanitizer) made
     * it, so the timing the tests assert on does not move with the
     * checkout's path. */
    snprintf(cmd, sizeof cmd, "cd %s/traces/gpu && %s/tracegen --env CGM_KERNELS=../../%s --quiet -o %s -- ./%s > %s",
             build, bin, kernels, path, command, out);
    int st = system(cmd);
    FILE *f = fopen(out, "r");
    char text[4096] = "";
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f)
        fclose(f);
    unlink(out);
    if (!WIFEXITED(st) || WEXITSTATUS(st) || !strstr(text, "PASS"))
        print_error("%s: %s\n", command, text);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int gpu_record_workloads(void **state)
{
    (void)state;
    for (size_t i = 0; i < GPU_NWORK; i++)
        gpu_record(gpu_traces[i], "kernels", gpu_workloads[i]);
    return 0;
}

int gpu_remove_workloads(void **state)
{
    (void)state;
    gpu_remove_traces(gpu_traces, GPU_NWORK);
    return 0;
}

void gpu_record_micro(char (*paths)[64], const char *const (*shapes)[3], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "gpu_micro %s %s %s", shapes[i][0], shapes[i][1], shapes[i][2]);
        gpu_record(paths[i], "kernels/test", cmd);
    }
}

void gpu_remove_traces(char (*paths)[64], size_t n)
{
    for (size_t i = 0; i < n; i++)
        unlink(paths[i]);
}

uint64_t gpu_recorded_instructions(const char *path)
{
    char err[256];
    struct cgm_reader *r = cgm_reader_open(path, err, sizeof err);
    assert_non_null(r);
    uint64_t n = 0;
    for (size_t i = 0; i < cgm_reader_stream_count(r); i++)
        if (cgm_reader_stream(r, i)->info.kind == CGM_STREAM_GPU_WORKGROUP)
            n += cgm_reader_stream(r, i)->totals.instructions;
    cgm_reader_close(r);
    return n;
}

void *gpu_replay_stats(const char *trace, const struct rp_config *cfg)
{
    struct rp_sim *s = replay_run_checked(trace, cfg);
    uint64_t *v = rp_stats_snapshot(s, s->end_cycle);
    assert_non_null(v);
    cJSON *json = cgm_stats_json(s->stats, v, CGM_STATS_ROOT);
    free(v);
    rp_sim_destroy(s);
    /* every GPU cycle of every compute unit is busy, stalled or idle */
    const cJSON *gpu = cJSON_GetObjectItemCaseSensitive(json, "gpu"), *cu;
    cJSON_ArrayForEach(cu, cJSON_GetObjectItemCaseSensitive(gpu, "compute_units"))
        assert_int_equal(gpu_stat(cu, "busy_cycles") + gpu_stat(cu, "stall_cycles_total") +
                         gpu_stat(cu, "idle_cycles"), gpu_stat(gpu, "cycles"));
    return json;
}

void *gpu_replay_json(const char *trace, const struct rp_config *cfg)
{
    struct rp_sim *s = replay_run_checked(trace, cfg);
    char *txt = NULL;
    FILE *f = open_memstream(&txt, &(size_t){ 0 });
    assert_non_null(f);
    assert_int_equal(rp_stats_write(s, f, NULL, false), 0);
    fclose(f);
    cJSON *j = cJSON_Parse(txt);
    free(txt);
    assert_non_null(j);
    rp_sim_destroy(s);
    return j;
}

double gpu_kernel_cycles(const void *json)
{
    double sum = 0;
    const cJSON *k;
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(json, "gpu"), "kernels"))
        sum += gpu_stat(k, "cycles");
    return sum;
}

double gpu_stat(const void *json, const char *path)
{
    const cJSON *x = json;
    char key[256];
    snprintf(key, sizeof key, "%s", path);
    for (char *save = NULL, *k = strtok_r(key, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
        if (cJSON_IsArray(x))
            x = cJSON_GetArrayItem(x, atoi(k));
        else
            x = cJSON_GetObjectItemCaseSensitive(x, k);
        if (!x)
            print_error("no statistic %s\n", path);
        assert_non_null(x);
    }
    assert_true(cJSON_IsNumber(x));
    return x->valuedouble;
}
