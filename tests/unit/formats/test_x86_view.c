/* The x86 trace view: the dump starts at the program's ELF entry point
 * with the instruction capstone reads from the ELF file itself, the
 * statistics account for every instruction, and syscall instructions
 * match the system-call events one for one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <capstone/capstone.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgm/events.h"
#include "cgm/x86view.h"
#include "tests/unit/x86_recording.h"

/* The entry point and the text of its first instruction, from the file. */
static uint64_t entry_insn(const char *path, char *text, size_t len)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    elf_version(EV_CURRENT);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    GElf_Ehdr eh;
    assert_non_null(gelf_getehdr(e, &eh));
    size_t n;
    elf_getphdrnum(e, &n);
    uint8_t bytes[16];
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        gelf_getphdr(e, (int)i, &ph);
        if (ph.p_type == PT_LOAD && eh.e_entry >= ph.p_vaddr &&
            eh.e_entry + 16 <= ph.p_vaddr + ph.p_filesz) {
            assert_int_equal(pread(fd, bytes, 16, (off_t)(ph.p_offset + eh.e_entry - ph.p_vaddr)), 16);
            found = 1;
        }
    }
    assert_true(found);
    csh h;
    cs_insn *ci;
    assert_int_equal(cs_open(CS_ARCH_X86, CS_MODE_64, &h), CS_ERR_OK);
    assert_int_equal(cs_disasm(h, bytes, 16, eh.e_entry, 1, &ci), 1);
    snprintf(text, len, "0x%llx  %s %s", (unsigned long long)eh.e_entry, ci->mnemonic, ci->op_str);
    cs_free(ci, 1);
    cs_close(&h);
    elf_end(e);
    close(fd);
    return eh.e_entry;
}

static void test_dump_and_stats(void **state)
{
    (void)state;
    static const char *const no_options[] = { NULL };
    struct x86_recording t;
    x86_record_guest(&t, "hello", no_options);
    assert_int_equal(t.status, 3);
    char err[512];
    struct cgm_reader *r = cgm_reader_open(t.path, err, sizeof err);
    assert_non_null(r);
    struct cgm_x86_view *v = cgm_x86_view_open(r, err, sizeof err);
    assert_non_null(v);
    assert_true(cgm_x86_view_count(v) > 100);
    long si = cgm_reader_find_stream(r, 1000);
    assert_true(si >= 0);

    char *dump = NULL;
    size_t dumplen = 0;
    FILE *out = open_memstream(&dump, &dumplen);
    assert_int_equal(cgm_x86_dump_stream(out, v, r, (size_t)si, 0, 3, err, sizeof err), 0);
    fclose(out);
    char want[256];
    uint64_t entry = entry_insn(t.guest, want, sizeof want);
    char head[64];
    snprintf(head, sizeof head, "1000:0 block 0x%llx ", (unsigned long long)entry);
    assert_true(strncmp(dump, head, strlen(head)) == 0);
    assert_non_null(strstr(dump, want));
    free(dump);

    struct cgm_x86_stats s;
    memset(&s, 0, sizeof s);
    struct cgm_x86_footprint *f = cgm_x86_footprint_new();
    assert_int_equal(cgm_x86_stream_stats(v, r, (size_t)si, &s, f, err, sizeof err), 0);
    const struct cgm_reader_stream *rs = cgm_reader_stream(r, (size_t)si);
    assert_true(s.instructions == rs->totals.instructions);
    uint64_t sum = 0;
    for (int c = 0; c < CGM_X86_CLASS_COUNT; c++)
        sum += s.by_class[c];
    assert_true(sum == s.instructions);
    assert_true(s.by_class[CGM_X86_OTHER] == 0); /* every instruction is in the table */

    /* each syscall instruction left one event: SYSCALL, or THREAD_EXIT for exit_group */
    uint64_t syscall_events = 0;
    struct cgm_riter *it = cgm_riter_open(r, (size_t)si);
    const uint8_t *rec;
    size_t len;
    while (cgm_riter_next(it, &rec, &len) == 1) {
        struct cgm_event ev;
        if (cgm_event_decode(rec, len, &ev) == 0 &&
            (ev.type == CGM_EV_SYSCALL || ev.type == CGM_EV_THREAD_EXIT))
            syscall_events++;
    }
    cgm_riter_close(it);
    assert_true(s.by_class[CGM_X86_SYSCALL] == syscall_events);
    assert_true(cgm_x86_footprint_pages(f) >= 2);
    assert_true(cgm_x86_footprint_lines(f) >= cgm_x86_footprint_pages(f));
    assert_true(s.reads > 0 && s.writes > 0);
    cgm_x86_footprint_free(f);

    /* registers and micro-ops of instructions whose effect the manual fixes:
     * push r13 (41 55) reads rsp and r13, writes rsp, one store of 8 bytes */
    int pushes = 0;
    for (uint64_t a = entry; a < entry + 0x4000; a++) {
        const struct cgm_x86_static *e = cgm_x86_view_find(v, a);
        if (!e || e->len != 2 || e->bytes[0] != 0x41 || e->bytes[1] != 0x55)
            continue;
        pushes++;
        assert_int_equal(e->nsrc, 2);
        assert_int_equal(e->src[0], CGM_X86_REG_RAX + 4);  /* rsp */
        assert_int_equal(e->src[1], CGM_X86_REG_RAX + 13); /* r13 */
        assert_int_equal(e->ndst, 1);
        assert_int_equal(e->dst[0], CGM_X86_REG_RAX + 4);
        assert_int_equal(e->stores, 1);
        assert_int_equal(e->loads, 0);
        assert_int_equal(e->uops, 1);
        assert_int_equal(e->mem_size, 8);
        assert_int_equal(e->cls, CGM_X86_INT);
    }
    assert_true(pushes > 0);
    cgm_x86_view_close(v);
    cgm_reader_close(r);
    x86_recording_remove(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dump_and_stats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
