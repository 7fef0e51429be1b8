/* [memsys]: the memory system's own keys. The model's defaults
 * (cgm_memsys_default_config, cgm_memsys_default_gpu) are the rows'
 * defaults, the very values replay's table starts from; a key set in
 * replay reaches the memory system's config through the rows' copy, as
 * replay/sim.c builds it; bad values are refused naming the key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "replay/config.h"

static void test_one_set_of_defaults(void **state)
{
    (void)state;
    struct rp_config *c = calloc(1, sizeof *c);
    assert_non_null(c);
    rp_config_defaults(c);
    struct cgm_memsys_config m;
    cgm_memsys_default_config(&m);
    cgm_memsys_default_gpu(&m, 8, true, true);
    for (size_t i = 0; i < cgm_memsys_nkeys; i++) {
        uint64_t def;
        assert_int_equal(cgm_key_parse(cgm_memsys_keys[i].def, CGM_KEY_TYPE(&cgm_memsys_keys[i]), &def), 0);
        assert_true(cgm_key_get(&cgm_memsys_keys[i], &m) == def);
        assert_true(cgm_key_get(&cgm_memsys_keys[i], &c->memsys) == def);
    }
    for (size_t i = 0; i < cgm_memsys_gpu_nkeys; i++)
        assert_true(cgm_key_get(&cgm_memsys_gpu_keys[i], &m) == cgm_key_get(&cgm_memsys_gpu_keys[i], &c->memsys));
    /* the literal values the model had before its rows: an outside check */
    assert_int_equal(m.header_bytes, 8);
    assert_int_equal(m.coh.wb_entries, 8);
    assert_int_equal(m.coh.gpu.l2_wb_entries, 16);
    assert_int_equal(m.gpu_queue, 64);
    free(c);
}

static void test_set_reaches_the_model(void **state)
{
    (void)state;
    struct rp_config *c = calloc(1, sizeof *c);
    assert_non_null(c);
    rp_config_defaults(c);
    char err[512];
    assert_int_equal(rp_config_set(c, "memsys.l2_wb_entries=3", err, sizeof err), 0);
    assert_int_equal(rp_config_set(c, "memsys.gpu_l1_wb_entries=5", err, sizeof err), 0);
    assert_int_equal(rp_config_set(c, "memsys.header_bytes=16", err, sizeof err), 0);
    struct cgm_memsys_config m;
    cgm_memsys_default_config(&m);
    cgm_keys_copy(cgm_memsys_keys, cgm_memsys_nkeys, &m, &c->memsys);
    cgm_memsys_default_gpu(&m, 4, false, false);
    cgm_keys_copy(cgm_memsys_gpu_keys, cgm_memsys_gpu_nkeys, &m, &c->memsys);
    assert_int_equal(m.coh.wb_entries, 3);
    assert_int_equal(m.coh.gpu.l1_wb_entries, 5);
    assert_int_equal(m.header_bytes, 16);
    assert_int_equal(m.coh.l3_wb_entries, 16); /* untouched rows keep their defaults */
    assert_int_equal(rp_config_set(c, "memsys.ports=0", err, sizeof err), -1);
    assert_non_null(strstr(err, "memsys.ports: 0 is out of range [1, 64]"));
    assert_int_equal(rp_config_set(c, "memsys.port=2", err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown key port in [memsys] (did you mean ports?)"));
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_set_of_defaults),
        cmocka_unit_test(test_set_reaches_the_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
