/* Statistics per kernel (kernel_stats.h). A row is a list of fields, each
 * the sum of some registry counters: the same path in every compute unit
 * ("stall_cycles.barrier"), the same counter of every cache of a kind
 * ("gpu_l1v.misses" sums caches[gpu_l1v].misses) or one counter from the
 * root ("dram.reads"); a field whose sources the registry lacks (the
 * ideal memory has no GPU caches) is left out. At a launch's start the
 * fields' sums are read (a few hundred counters, not a snapshot of the
 * whole registry, whose size grows with the launches the trace holds);
 * the launch's row is the sums now less those. */
#include "replay/gpu/kernel_stats.h"

#include <stdlib.h>
#include <string.h>

#include "cgm/check.h"
#include "replay/gpu/gpu_internal.h"

enum field_kind { F_LAUNCHES, F_CYCLES, F_CUS, F_CACHES, F_ROOT };

struct field {
    char path[80];                 /* in the row */
    enum field_kind kind;
    cgm_stat *src;                 /* the counters it sums */
    unsigned nsrc;
};

/* A kernel of the program: its launches added up. */
struct group {
    uint32_t kernel;
    char name[128];
    uint64_t *done;                /* the launches that ended */
    uint64_t *shown;               /* done plus the running launch: what the registry reads */
};

/* The row of the launch a line is written for. */
struct line {
    uint64_t launch, kernel, work_groups, start, end;
    char name[128];
    uint64_t *row;
};

struct rp_kstats {
    struct rp_gpu *g;
    struct cgm_stats *reg;
    struct field *fields;
    unsigned nfields, cap;
    struct group *groups;
    size_t ngroups;
    /* the running launch */
    const struct rp_kernel *running;
    struct group *running_group;   /* NULL: its kernel has no description */
    uint64_t *at_start, *now;      /* the fields' sums at its start; scratch */
    /* lines (--kernels-out) */
    FILE *out;
    bool write_failed;
    struct cgm_stats *line_reg;
    uint64_t *line_values;
    struct line line;
};

/* ---- the fields ------------------------------------------------------- */

static struct field *add_field(struct rp_kstats *ks, enum field_kind kind, const char *fmt, const char *a,
                               const char *b)
{
    if (ks->nfields == ks->cap) {
        unsigned cap = ks->cap ? 2 * ks->cap : 64;
        struct field *v = realloc(ks->fields, cap * sizeof *v);
        if (!v)
            cgm_oom("the per-kernel statistics");
        ks->fields = v;
        ks->cap = cap;
    }
    struct field *f = &ks->fields[ks->nfields];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    snprintf(f->path, sizeof f->path, fmt, a, b);
    return f;
}

static void add_source(struct field *f, cgm_stat node)
{
    cgm_stat *v = realloc(f->src, (f->nsrc + 1) * sizeof *v);
    if (!v)
        cgm_oom("the per-kernel statistics");
    f->src = v;
    f->src[f->nsrc++] = node;
}

/* Keeps the field just added if it found a source. */
static void keep_if_found(struct rp_kstats *ks)
{
    struct field *f = &ks->fields[ks->nfields];
    if (f->nsrc || f->kind == F_LAUNCHES || f->kind == F_CYCLES)
        ks->nfields++;
    else
        free(f->src);
}

/* PATH (a format with one %s, or none) in every compute unit. */
static void cu_field(struct rp_kstats *ks, cgm_stat cus, const char *fmt, const char *arg)
{
    struct field *f = add_field(ks, F_CUS, fmt, arg, NULL);
    for (unsigned i = 0; i < cgm_stats_count(ks->reg, cus); i++) {
        cgm_stat n = cgm_stats_find(ks->reg, cgm_stats_member(ks->reg, cus, i), f->path);
        if (n >= 0)
            add_source(f, n);
    }
    keep_if_found(ks);
}

/* Counter NAME of every cache of KIND. */
static void cache_field(struct rp_kstats *ks, const char *kind, const char *name)
{
    struct field *f = add_field(ks, F_CACHES, "%s.%s", kind, name);
    cgm_stat caches = cgm_stats_child(ks->reg, CGM_STATS_ROOT, "caches");
    for (unsigned i = 0; i < cgm_stats_count(ks->reg, caches); i++) {
        cgm_stat c = cgm_stats_member(ks->reg, caches, i);
        const char *k = cgm_stats_label_of(ks->reg, cgm_stats_child(ks->reg, c, "kind"));
        cgm_stat n = cgm_stats_child(ks->reg, c, name);
        if (k && !strcmp(k, kind) && n >= 0)
            add_source(f, n);
    }
    keep_if_found(ks);
}

static void root_field(struct rp_kstats *ks, const char *path)
{
    struct field *f = add_field(ks, F_ROOT, "%s", path, NULL);
    cgm_stat n = cgm_stats_find(ks->reg, CGM_STATS_ROOT, path);
    if (n >= 0)
        add_source(f, n);
    keep_if_found(ks);
}

static void make_fields(struct rp_kstats *ks, cgm_stat gpu_group)
{
    const struct rp_gpu *g = ks->g;
    cgm_stat cus = cgm_stats_child(ks->reg, gpu_group, "compute_units");
    add_field(ks, F_LAUNCHES, "launches", NULL, NULL);
    keep_if_found(ks);
    add_field(ks, F_CYCLES, "cycles", NULL, NULL);
    keep_if_found(ks);
    cu_field(ks, cus, "wavefront_instructions", NULL);
    for (unsigned u = 0; u < CGM_SI_UNIT_COUNT; u++)
        if (g->unit_names[u])
            cu_field(ks, cus, "instructions_by_unit.%s", g->unit_names[u]);
    cu_field(ks, cus, "busy_cycles", NULL);
    for (unsigned c = 0; c < CS_COUNT; c++)
        cu_field(ks, cus, "stall_cycles.%s", rp_cu_stall_names[c]);
    cu_field(ks, cus, "idle_cycles", NULL);
    cu_field(ks, cus, "occupancy.wavefront_cycles", NULL);
    cu_field(ks, cus, "lds.instructions", NULL);
    cu_field(ks, cus, "lds.bank_conflict_cycles", NULL);
    cu_field(ks, cus, "memory.vector_instructions", NULL);
    cu_field(ks, cus, "memory.vector_requests", NULL);
    cu_field(ks, cus, "memory.scalar_requests", NULL);
    cu_field(ks, cus, "operations", NULL);
    cu_field(ks, cus, "memory.vector_latency.instructions", NULL);
    cu_field(ks, cus, "memory.vector_latency.cycles", NULL);
    cu_field(ks, cus, "memory.vector_buffer_full_cycles", NULL);
    static const char *const kinds[] = { "gpu_l1v", "gpu_l2" };
    static const char *const counts[] = { "accesses", "hits", "misses", "coalesced" };
    for (int k = 0; k < 2; k++)
        for (int c = 0; c < 4; c++)
            cache_field(ks, kinds[k], counts[c]);
    root_field(ks, "gpu_hub.to_memory.bytes");
    root_field(ks, "gpu_hub.to_gpu.bytes");
    root_field(ks, "dram.reads");
    root_field(ks, "dram.writes");
    root_field(ks, "dram.bytes");
}

/* The fields' sums now, for a launch from START at GPU cycle NOW. */
static void read_fields(const struct rp_kstats *ks, uint64_t start, uint64_t now, uint64_t *out)
{
    for (unsigned f = 0; f < ks->nfields; f++) {
        const struct field *x = &ks->fields[f];
        uint64_t sum = 0;
        if (x->kind == F_LAUNCHES)
            sum = 1;
        else if (x->kind == F_CYCLES)
            sum = now - start;
        for (unsigned i = 0; i < x->nsrc; i++)
            sum += cgm_stats_read_one(ks->reg, x->src[i]);
        out[f] = sum;
    }
}

/* ---- rows in a registry ------------------------------------------------ */

/* The object at the path's groups under GROUP (made when missing); *LAST
 * the path's last name. */
static cgm_stat parent_of(struct cgm_stats *reg, cgm_stat group, const char *path, const char **last)
{
    char part[80];
    const char *dot;
    while ((dot = strchr(path, '.'))) {
        size_t len = (size_t)(dot - path);
        CGM_CHECK(len < sizeof part);
        memcpy(part, path, len);
        part[len] = 0;
        cgm_stat c = cgm_stats_child(reg, group, part);
        group = c >= 0 ? c : cgm_stats_object(reg, group, part);
        path = dot + 1;
    }
    *last = path;
    return group;
}

static void ratio_times(struct cgm_stats *reg, cgm_stat group, const char *path, const char *num, const char *den,
                        double mul)
{
    cgm_stat n = cgm_stats_find(reg, group, num), d = cgm_stats_find(reg, group, den);
    if (n < 0 || d < 0)
        return;
    const char *last;
    cgm_stat parent = parent_of(reg, group, path, &last);
    cgm_stat_ratio(reg, parent, last, n, d, mul, 1);
}

static void ratio(struct cgm_stats *reg, cgm_stat group, const char *path, const char *num, const char *den)
{
    ratio_times(reg, group, path, num, den, 1);
}

/* The fields as counters of ROW under GROUP, then the ratios of them. */
static void register_row(const struct rp_kstats *ks, struct cgm_stats *reg, cgm_stat group, const uint64_t *row)
{
    for (unsigned f = 0; f < ks->nfields; f++) {
        const char *last;
        cgm_stat p = parent_of(reg, group, ks->fields[f].path, &last);
        cgm_stat_counter(reg, p, last, &row[f]);
    }
    /* wavefronts resident on the whole GPU, on average over the launch */
    ratio(reg, group, "occupancy.average_wavefronts", "occupancy.wavefront_cycles", "cycles");
    ratio(reg, group, "gpu_l1v.miss_rate", "gpu_l1v.misses", "gpu_l1v.accesses");
    ratio(reg, group, "gpu_l2.miss_rate", "gpu_l2.misses", "gpu_l2.accesses");
    /* seed 001's measures: operations per GPU cycle, L2 misses per
       thousand operations, vector memory latency */
    ratio(reg, group, "opc", "operations", "cycles");
    ratio_times(reg, group, "mpko", "gpu_l2.misses", "operations", 1000);
    ratio(reg, group, "memory.vector_latency.mean", "memory.vector_latency.cycles", "memory.vector_latency.instructions");
}

/* ---- the kernels of the program --------------------------------------- */

static int by_kernel_id(const void *a, const void *b)
{
    const struct group *x = a, *y = b;
    return (x->kernel > y->kernel) - (x->kernel < y->kernel);
}

/* One group per kernel description the trace holds, by kernel id. */
static void find_kernels(struct rp_kstats *ks)
{
    struct rp_gpu_trace *t = &ks->g->trace;
    size_t prefix = strlen(CGM_SI_KERNEL_PREFIX);
    for (size_t i = 0; i < cgm_reader_stream_count(t->r); i++) {
        const struct cgm_stream_info *info = &cgm_reader_stream(t->r, i)->info;
        char *end;
        if (info->kind != CGM_STREAM_SECTION || strncmp(info->name, CGM_SI_KERNEL_PREFIX, prefix))
            continue;
        unsigned long id = strtoul(info->name + prefix, &end, 10);
        struct cgm_si_kernel_info k;
        char err[600];
        if (*end || id > UINT32_MAX || rp_gpu_trace_kernel(t, (uint32_t)id, &k, err, sizeof err) != 1)
            continue; /* a malformed description fails the launch that uses it */
        struct group *v = realloc(ks->groups, (ks->ngroups + 1) * sizeof *v);
        if (!v)
            cgm_oom("the per-kernel statistics");
        ks->groups = v;
        struct group *gr = &v[ks->ngroups++];
        memset(gr, 0, sizeof *gr);
        gr->kernel = (uint32_t)id;
        snprintf(gr->name, sizeof gr->name, "%s", k.name);
    }
    if (ks->ngroups)
        qsort(ks->groups, ks->ngroups, sizeof *ks->groups, by_kernel_id);
}

static uint64_t *row_new(const struct rp_kstats *ks)
{
    uint64_t *r = calloc(ks->nfields ? ks->nfields : 1, sizeof *r);
    if (!r)
        cgm_oom("the per-kernel statistics");
    return r;
}

struct rp_kstats *rp_kstats_register(struct rp_gpu *g, struct cgm_stats *reg, cgm_stat gpu_group)
{
    struct rp_kstats *ks = calloc(1, sizeof *ks);
    if (!ks)
        return NULL;
    ks->g = g;
    ks->reg = reg;
    make_fields(ks, gpu_group);
    ks->at_start = row_new(ks);
    ks->now = row_new(ks);
    find_kernels(ks);
    cgm_stat arr = cgm_stats_array(reg, gpu_group, "by_kernel");
    for (size_t i = 0; i < ks->ngroups; i++) {
        struct group *gr = &ks->groups[i];
        gr->done = row_new(ks);
        gr->shown = row_new(ks);
        cgm_stat x = cgm_stats_object(reg, arr, NULL);
        cgm_stat_label(reg, x, "name", gr->name);
        cgm_stat_id(reg, x, "kernel", gr->kernel);
        register_row(ks, reg, x, gr->shown);
    }
    return ks;
}

void rp_kstats_free(struct rp_kstats *ks)
{
    if (!ks)
        return;
    for (unsigned f = 0; f < ks->nfields; f++)
        free(ks->fields[f].src);
    free(ks->fields);
    for (size_t i = 0; i < ks->ngroups; i++) {
        free(ks->groups[i].done);
        free(ks->groups[i].shown);
    }
    free(ks->groups);
    free(ks->at_start);
    free(ks->now);
    cgm_stats_destroy(ks->line_reg);
    free(ks->line_values);
    free(ks->line.row);
    free(ks);
}

/* ---- launches ----------------------------------------------------------- */

static struct group *group_of(struct rp_kstats *ks, uint32_t kernel)
{
    for (size_t i = 0; i < ks->ngroups; i++)
        if (ks->groups[i].kernel == kernel)
            return &ks->groups[i];
    return NULL;
}

/* The running launch's row up to NOW (compute units settled) into ks->now. */
static void running_row(struct rp_kstats *ks, uint64_t now)
{
    read_fields(ks, ks->running->start, now, ks->now);
    for (unsigned f = 0; f < ks->nfields; f++)
        if (ks->fields[f].kind != F_LAUNCHES && ks->fields[f].kind != F_CYCLES)
            ks->now[f] -= ks->at_start[f];
}

void rp_kstats_begin(struct rp_kstats *ks, const struct rp_kernel *k, uint64_t now)
{
    CGM_CHECK(!ks->running); /* kernels run one at a time */
    rp_gpu_settle_cus(ks->g, now);
    read_fields(ks, now, now, ks->at_start);
    ks->running = k;
    ks->running_group = group_of(ks, k->kernel);
}

static void write_line(struct rp_kstats *ks, const struct rp_kernel *k)
{
    if (!ks->line_reg) {
        struct cgm_stats *reg = ks->line_reg = cgm_stats_create();
        ks->line.row = row_new(ks);
        if (!reg)
            cgm_oom("the per-kernel statistics");
        cgm_stat_counter(reg, CGM_STATS_ROOT, "launch", &ks->line.launch);
        cgm_stat_label_ref(reg, CGM_STATS_ROOT, "name", ks->line.name);
        cgm_stat_counter(reg, CGM_STATS_ROOT, "kernel", &ks->line.kernel);
        cgm_stat_counter(reg, CGM_STATS_ROOT, "work_groups", &ks->line.work_groups);
        cgm_stat_counter(reg, CGM_STATS_ROOT, "start", &ks->line.start);
        cgm_stat_counter(reg, CGM_STATS_ROOT, "end", &ks->line.end);
        register_row(ks, reg, CGM_STATS_ROOT, ks->line.row);
        ks->line_values = calloc(cgm_stats_slots(reg) + 1, sizeof *ks->line_values);
        if (cgm_stats_failed(reg) || !ks->line_values)
            cgm_oom("the per-kernel statistics");
    }
    ks->line.launch = k->launch;
    ks->line.kernel = k->kernel;
    ks->line.work_groups = k->streams.count;
    ks->line.start = k->start;
    ks->line.end = k->end;
    snprintf(ks->line.name, sizeof ks->line.name, "%s", k->name);
    memcpy(ks->line.row, ks->now, ks->nfields * sizeof *ks->now);
    cgm_stats_read(ks->line_reg, ks->line_values);
    cJSON *j = cgm_stats_json(ks->line_reg, ks->line_values, CGM_STATS_ROOT);
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    if (!text)
        cgm_oom("a kernel's statistics");
    if (fprintf(ks->out, "%s\n", text) < 0)
        ks->write_failed = true;
    free(text);
}

void rp_kstats_end(struct rp_kstats *ks, const struct rp_kernel *k, uint64_t now)
{
    CGM_CHECK(ks->running == k);
    rp_gpu_settle_cus(ks->g, now);
    running_row(ks, k->end);
    if (ks->running_group)
        for (unsigned f = 0; f < ks->nfields; f++)
            ks->running_group->done[f] += ks->now[f];
    if (ks->out && !ks->write_failed)
        write_line(ks, k);
    ks->running = NULL;
    ks->running_group = NULL;
}

void rp_kstats_settle(struct rp_kstats *ks, uint64_t now)
{
    for (size_t i = 0; i < ks->ngroups; i++)
        memcpy(ks->groups[i].shown, ks->groups[i].done, ks->nfields * sizeof *ks->now);
    if (!ks->running || !ks->running_group)
        return;
    running_row(ks, now);
    for (unsigned f = 0; f < ks->nfields; f++)
        ks->running_group->shown[f] += ks->now[f];
}

void rp_kstats_write_to(struct rp_kstats *ks, FILE *out) { ks->out = out; }

bool rp_kstats_written(const struct rp_kstats *ks) { return !ks->write_failed; }
