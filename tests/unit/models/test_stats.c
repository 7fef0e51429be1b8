/* The statistics registry: counters are read at the snapshot, a region is
 * the difference of two snapshots with labels, ids, constants and peaks
 * left alone, ratios are computed from the values they are printed with,
 * regions add up as one region over their cycles would (peaks as at the
 * last one's end), one counter reads alone as the snapshot reads it,
 * members print in registration order, paths find nodes, a reader by
 * path names the first path the registry lacks instead of reading 0, and
 * a failed registration is reported instead of crashing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/stats.h"

struct model {
    uint64_t hits, misses, peak, hist[4], msgs[3];
};

static uint64_t accesses(const void *ctx)
{
    const struct model *m = ctx;
    return m->hits + m->misses;
}

static const char *const msg_names[3] = { "get", NULL, "put" };

/* A registry over one model: {name, id, hits, misses, accesses, peak,
 * hist, msgs, freq (hidden), miss_rate, per_second}. */
static struct cgm_stats *build(struct model *m)
{
    struct cgm_stats *s = cgm_stats_create();
    assert_non_null(s);
    cgm_stat caches = cgm_stats_array(s, CGM_STATS_ROOT, "caches");
    cgm_stat c = cgm_stats_object(s, caches, NULL);
    cgm_stat_label(s, c, "name", "l1d");
    cgm_stat_id(s, c, "id", 7);
    cgm_stat_counter(s, c, "hits", &m->hits);
    cgm_stat misses = cgm_stat_counter(s, c, "misses", &m->misses);
    cgm_stat acc = cgm_stat_computed(s, c, "accesses", accesses, m);
    cgm_stat_peak(s, c, "peak", &m->peak);
    cgm_stat_histogram(s, c, "hist", m->hist, 4);
    cgm_stat_counters(s, c, "msgs", m->msgs, msg_names, 3);
    cgm_stat freq = cgm_stat_constant(s, c, NULL, 4.0);
    cgm_stat_ratio(s, c, "miss_rate", misses, acc, 1, 1);
    cgm_stat_ratio(s, c, "per_second", acc, freq, 100, 10);
    assert_false(cgm_stats_failed(s));
    return s;
}

static double at(const struct cgm_stats *s, const uint64_t *v, const char *path)
{
    cgm_stat n = cgm_stats_find(s, CGM_STATS_ROOT, path);
    assert_true(n >= 0);
    return cgm_stats_value(s, v, n);
}

static void test_snapshot_and_region(void **state)
{
    (void)state;
    struct model m = { .hits = 30, .misses = 10, .peak = 5, .hist = { 1, 0, 2, 0 }, .msgs = { 3, 9, 4 } };
    struct cgm_stats *s = build(&m);
    /* hits, misses, accesses, peak, 4 buckets, 2 named message counters */
    assert_int_equal(cgm_stats_slots(s), 4 + 4 + 2);
    uint64_t *a = calloc(cgm_stats_slots(s), sizeof *a), *b = calloc(cgm_stats_slots(s), sizeof *b);
    cgm_stats_read(s, a);
    assert_true(at(s, a, "caches.0.accesses") == 40);
    assert_true(at(s, a, "caches.0.miss_rate") == 10.0 / 40.0);
    assert_true(at(s, a, "caches.0.per_second") == 40.0 / 4.0 * 100 / 10);
    /* a name table's counters are reached by path; an unnamed one is not there */
    assert_true(at(s, a, "caches.0.msgs.put") == 4);
    assert_int_equal(cgm_stats_count(s, cgm_stats_find(s, CGM_STATS_ROOT, "caches.0.msgs")), 2);
    m.hits += 50;
    m.msgs[0] += 6;
    m.misses += 30;
    m.peak = 3; /* a peak is read as it is, not accumulated */
    m.hist[2] += 5;
    cgm_stats_read(s, b);
    cgm_stats_subtract(s, b, a);
    assert_true(at(s, b, "caches.0.hits") == 50);
    assert_true(at(s, b, "caches.0.accesses") == 80);
    assert_true(at(s, b, "caches.0.miss_rate") == 30.0 / 80.0);
    assert_true(at(s, b, "caches.0.peak") == 3);
    assert_true(at(s, b, "caches.0.msgs.get") == 6);
    assert_true(at(s, b, "caches.0.msgs.put") == 0);
    assert_true(at(s, b, "caches.0.id") == 7);
    cgm_stat name = cgm_stats_find(s, CGM_STATS_ROOT, "caches.0.name");
    assert_string_equal(cgm_stats_label_of(s, name), "l1d");
    /* no accesses: a ratio is 0, not a division by zero */
    memset(b, 0, cgm_stats_slots(s) * sizeof *b);
    assert_true(at(s, b, "caches.0.miss_rate") == 0);
    free(a);
    free(b);
    cgm_stats_destroy(s);
}

/* Two regions of a run, [a, b) and [c, d): their sum counts what happened
 * inside them and nothing of the gap between. */
static void test_regions_add_up(void **state)
{
    (void)state;
    struct model m = { .hits = 1, .misses = 1, .peak = 2, .hist = { 0, 1, 0, 0 }, .msgs = { 0, 0, 0 } };
    struct cgm_stats *s = build(&m);
    size_t n = cgm_stats_slots(s);
    uint64_t *snap[4], *sum = calloc(n, sizeof *sum);
    for (int i = 0; i < 4; i++)
        snap[i] = calloc(n, sizeof *snap[i]);
    cgm_stats_read(s, snap[0]);
    m.hits += 10; m.hist[1] += 2; m.peak = 7;   /* inside the first region */
    cgm_stats_read(s, snap[1]);
    m.hits += 1000; m.misses += 1000;           /* the gap */
    cgm_stats_read(s, snap[2]);
    m.hits += 5; m.misses += 3; m.msgs[2] += 4; m.peak = 4;  /* inside the second */
    cgm_stats_read(s, snap[3]);
    cgm_stats_accumulate(s, sum, snap[1], snap[0]);
    cgm_stats_accumulate(s, sum, snap[3], snap[2]);
    assert_true(at(s, sum, "caches.0.hits") == 15);
    assert_true(at(s, sum, "caches.0.misses") == 3);
    assert_true(at(s, sum, "caches.0.accesses") == 18);
    assert_true(at(s, sum, "caches.0.miss_rate") == 3.0 / 18.0);
    assert_true(at(s, sum, "caches.0.msgs.put") == 4);
    assert_true(at(s, sum, "caches.0.peak") == 4); /* the second region's end */
    /* the histogram's bucket 1 (the 5th slot: hits, misses, accesses, peak, then buckets) */
    assert_int_equal(sum[4 + 1], 2);
    /* one counter alone: the value the next snapshot would hold */
    assert_int_equal(cgm_stats_read_one(s, cgm_stats_find(s, CGM_STATS_ROOT, "caches.0.accesses")),
                     m.hits + m.misses);
    assert_int_equal(cgm_stats_read_one(s, cgm_stats_find(s, CGM_STATS_ROOT, "caches.0.peak")), 4);
    assert_int_equal(cgm_stats_read_one(s, cgm_stats_find(s, CGM_STATS_ROOT, "caches.0.id")), 0);
    assert_int_equal(cgm_stats_read_one(s, -1), 0);
    for (int i = 0; i < 4; i++)
        free(snap[i]);
    free(sum);
    cgm_stats_destroy(s);
}

static void test_json_shape(void **state)
{
    (void)state;
    struct model m = { .hits = 3, .misses = 1, .peak = 2, .hist = { 0, 4, 0, 1 }, .msgs = { 1, 2, 3 } };
    struct cgm_stats *s = build(&m);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(cgm_stats_write_json(s, CGM_STATS_ROOT, f), 0);
    fclose(f);
    cJSON *j = cJSON_Parse(buf);
    assert_non_null(j);
    cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "caches"), 0);
    /* registration order, the hidden constant left out */
    static const char *const order[] = { "name", "id", "hits", "misses", "accesses", "peak", "hist",
                                         "msgs", "miss_rate", "per_second" };
    int i = 0;
    for (cJSON *x = c->child; x; x = x->next, i++)
        assert_string_equal(x->string, order[i]);
    assert_int_equal(i, 10);
    /* histogram: the non-empty buckets as ranges: bucket 1 is [1, 2), bucket 3 [4, 8) */
    cJSON *h = cJSON_GetObjectItem(c, "hist");
    assert_int_equal(cJSON_GetArraySize(h), 2);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(h, 0), "from")->valueint, 1);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(h, 0), "below")->valueint, 2);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(h, 0), "count")->valueint, 4);
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(h, 1), "from")->valueint, 4);
    /* a name table without its NULL entries */
    cJSON *msgs = cJSON_GetObjectItem(c, "msgs");
    assert_int_equal(cJSON_GetArraySize(msgs), 2);
    assert_int_equal(cJSON_GetObjectItem(msgs, "put")->valueint, 3);
    cJSON_Delete(j);
    free(buf);
    cgm_stats_destroy(s);
}

static void test_paths_and_failures(void **state)
{
    (void)state;
    struct model m = { 0 };
    struct cgm_stats *s = build(&m);
    assert_int_equal(cgm_stats_find(s, CGM_STATS_ROOT, "caches.1.hits"), -1);   /* no element 1 */
    assert_int_equal(cgm_stats_find(s, CGM_STATS_ROOT, "caches.x.hits"), -1);
    assert_int_equal(cgm_stats_find(s, CGM_STATS_ROOT, "nothing"), -1);
    cgm_stat caches = cgm_stats_child(s, CGM_STATS_ROOT, "caches");
    assert_int_equal(cgm_stats_count(s, caches), 1);
    /* ten printed members and the hidden constant */
    assert_int_equal(cgm_stats_count(s, cgm_stats_member(s, caches, 0)), 11);
    assert_false(cgm_stats_failed(s));
    /* a value cannot hold members; a ratio needs numeric operands */
    cgm_stat hits = cgm_stats_find(s, CGM_STATS_ROOT, "caches.0.hits");
    assert_true(cgm_stat_counter(s, hits, "x", &m.hits) < 0);
    assert_true(cgm_stats_failed(s));
    cgm_stats_destroy(s);
    s = build(&m);
    cgm_stat name = cgm_stats_find(s, CGM_STATS_ROOT, "caches.0.name");
    assert_true(cgm_stat_ratio(s, CGM_STATS_ROOT, "r", name, hits, 1, 1) < 0);
    assert_true(cgm_stats_failed(s));
    /* once failed, later registrations fail too (a group of -1 passes on) */
    assert_true(cgm_stats_object(s, -1, "g") < 0);
    cgm_stats_destroy(s);
}

/* Read by path through a reader: values that exist read as the snapshot
 * has them; a path that does not exist, or names a group or a label where
 * a number is asked for, reads as NaN (never 0) and the reader keeps the
 * first one, named from the root. */
static void test_reader_names_missing(void **state)
{
    (void)state;
    struct model m = { .hits = 3, .misses = 1 };
    struct cgm_stats *s = build(&m);
    uint64_t *v = calloc(cgm_stats_slots(s), sizeof *v);
    assert_non_null(v);
    cgm_stats_read(s, v);
    struct cgm_stats_reader r = { .s = s, .values = v };
    cgm_stat c = cgm_stats_find(s, CGM_STATS_ROOT, "caches.0");
    assert_true(cgm_stats_get(&r, c, "hits") == 3);
    assert_true(cgm_stats_get(&r, CGM_STATS_ROOT, "caches.0.miss_rate") == 0.25);
    assert_string_equal(cgm_stats_get_label(&r, c, "name"), "l1d");
    assert_string_equal(r.missing, "");
    assert_true(isnan(cgm_stats_get(&r, c, "hitz")));
    assert_string_equal(r.missing, "caches.0.hitz");
    /* the first stays */
    assert_true(isnan(cgm_stats_get(&r, CGM_STATS_ROOT, "caches.1.hits")));
    assert_string_equal(r.missing, "caches.0.hitz");
    struct cgm_stats_reader r2 = { .s = s, .values = v };
    assert_true(isnan(cgm_stats_get(&r2, c, "msgs"))); /* a group */
    assert_string_equal(r2.missing, "caches.0.msgs");
    struct cgm_stats_reader r3 = { .s = s, .values = v };
    assert_null(cgm_stats_get_label(&r3, c, "hits")); /* a number, not a label */
    assert_string_equal(r3.missing, "caches.0.hits");
    char path[64];
    cgm_stats_path(s, cgm_stats_find(s, CGM_STATS_ROOT, "caches.0.msgs.put"), NULL, path, sizeof path);
    assert_string_equal(path, "caches.0.msgs.put");
    free(v);
    cgm_stats_destroy(s);
}

/* A label registered before its text is known prints the text as it is
 * when printed. */
static void test_label_read_when_printed(void **state)
{
    (void)state;
    struct cgm_stats *s = cgm_stats_create();
    assert_non_null(s);
    char name[16] = "";
    cgm_stat n = cgm_stat_label_ref(s, CGM_STATS_ROOT, "name", name);
    assert_false(cgm_stats_failed(s));
    snprintf(name, sizeof name, "hotspot");
    assert_string_equal(cgm_stats_label_of(s, n), "hotspot");
    cJSON *j = cgm_stats_json(s, NULL, CGM_STATS_ROOT);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "name")->valuestring, "hotspot");
    cJSON_Delete(j);
    cgm_stats_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshot_and_region),
        cmocka_unit_test(test_regions_add_up),
        cmocka_unit_test(test_json_shape),
        cmocka_unit_test(test_paths_and_failures),
        cmocka_unit_test(test_label_read_when_printed),
        cmocka_unit_test(test_reader_names_missing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
