/* The recorder: see recorder.h. */
#include "tracegen/x86/recorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/trace.h"
#include "cgm/x86rec.h"
#include "tracegen/x86/ops.h"
#include "tracegen/x86/rec_static.h"
#include "tracegen/x86/static_info.h"

#define PROGRAM_SECTION_ID 0x7fff0000u

struct x86_rec_thread {
    struct x86_recorder *r;
    struct cgm_wstream *s;
    struct cgm_x86_codec codec;
    struct x86_cpu *cpu;
    const struct x86_block *block;
    struct cgm_x86_access acc[CGM_X86_ACCESS_MAX];   /* the CPU's access log */
    struct x86_rec_thread *next;
};

struct x86_recorder {
    struct cgm_writer *w;
    struct rec_static *table;    /* the x86.static section */
    struct x86_rec_thread *threads;
    uint8_t *buf;
    int roi_only;
    int enabled;
    int failed;
    uint64_t loads, stores, modifies;   /* counted as valgrind's lackey does */
};

struct x86_recorder *x86_rec_create(const char *path, int roi_only, uint32_t chunk_bytes,
                                    struct x86_code_cache *cc, struct gmem *m, char *err,
                                    size_t errlen)
{
    struct cgm_writer_options wopt = { .chunk_bytes = chunk_bytes };
    struct x86_recorder *r = calloc(1, sizeof *r);
    if (!r || !(r->buf = malloc(CGM_X86_RECORD_BYTES_MAX))) {
        free(r);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->w = cgm_writer_create(path, &wopt, err, errlen);
    if (r->w && !(r->table = rec_static_open(r->w, cc, m))) {
        snprintf(err, errlen, "%s", cgm_writer_error(r->w));
        cgm_writer_abandon(r->w);
        r->w = NULL;
    }
    if (!r->w) {
        free(r->buf);
        free(r);
        return NULL;
    }
    r->roi_only = roi_only;
    r->enabled = !roi_only;
    return r;
}

static void log_full(struct x86_cpu *c);

struct x86_rec_thread *x86_rec_attach(struct x86_recorder *r, struct x86_cpu *c, uint64_t tid)
{
    struct x86_rec_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    struct cgm_stream_info info;
    memset(&info, 0, sizeof info);
    info.id = (uint32_t)tid;
    info.kind = CGM_STREAM_X86_THREAD;
    info.thread_id = tid;
    snprintf(info.name, sizeof info.name, "thread %llu", (unsigned long long)tid);
    t->s = cgm_writer_open_stream(r->w, &info);
    if (!t->s) {
        free(t);
        return NULL;
    }
    t->r = r;
    t->cpu = c;
    c->access_ctx = t;
    c->log = NULL;
    c->log_full = log_full;
    t->next = r->threads;
    r->threads = t;
    return t;
}

void x86_rec_detach(struct x86_rec_thread *t)
{
    struct x86_recorder *r = t->r;
    if (t->s)
        cgm_wstream_close(t->s);
    t->cpu->log = NULL;
    /* a thread's codec state and access log are large: free them now,
     * not at the end, for a guest that makes threads by the thousand */
    for (struct x86_rec_thread **pp = &r->threads; *pp; pp = &(*pp)->next)
        if (*pp == t) {
            *pp = t->next;
            break;
        }
    free(t);
}

static void append(struct x86_rec_thread *t, const void *rec, size_t len, uint32_t insts)
{
    struct x86_recorder *r = t->r;
    if (!r->failed && t->s && cgm_wstream_append(t->s, rec, len, insts) != 0) {
        r->failed = 1;
        fprintf(stderr, "tracegen: writing the trace failed: %s\n", cgm_writer_error(r->w));
    }
}

/* Counts the logged accesses as lackey would and writes them as a record
 * of TYPE for the running block. */
static void flush_accesses(struct x86_rec_thread *t, uint8_t type, uint32_t ninsn)
{
    struct x86_recorder *r = t->r;
    const struct cgm_x86_access *acc = t->acc;
    uint32_t n = t->cpu->log_n;
    for (uint32_t i = 0; i < n; i++) {
        if (acc[i].write && i && !acc[i - 1].write && acc[i - 1].addr == acc[i].addr &&
            acc[i - 1].size == acc[i].size && acc[i - 1].insn == acc[i].insn) {
            r->loads--;
            r->modifies++;
        } else if (acc[i].write) {
            r->stores++;
        } else {
            r->loads++;
        }
    }
    size_t len = cgm_x86_block_encode(&t->codec, r->buf, type, t->block->start, ninsn, acc, n);
    append(t, r->buf, len, ninsn);
    t->cpu->log_n = 0;
}

/* The log of a block still running is full (long rep strings): write what
 * it holds as a PARTIAL record. */
static void log_full(struct x86_cpu *c)
{
    struct x86_rec_thread *t = c->access_ctx;
    flush_accesses(t, CGM_X86_REC_PARTIAL, 0);
}

void x86_rec_block_begin(struct x86_rec_thread *t, const struct x86_block *b)
{
    struct x86_cpu *c = t->cpu;
    if (!t->r->enabled || !t->s) {
        t->block = NULL;
        c->log = NULL;
        return;
    }
    t->block = b;
    c->log = t->acc;
    c->log_n = 0;
    c->log_cap = CGM_X86_ACCESS_MAX;
    c->log_base = b->insn;
}

void x86_rec_block_end(struct x86_rec_thread *t, uint32_t retired)
{
    if (!t->block)
        return;
    flush_accesses(t, CGM_X86_REC_BLOCK, retired);
    t->block = NULL;
    t->cpu->log = NULL;
}

void x86_rec_event(struct x86_rec_thread *t, const struct cgm_event *ev)
{
    uint8_t buf[CGM_EVENT_BYTES_MAX];
    size_t n = cgm_event_encode(buf, ev);
    /* map changes, threads and synchronization are kept outside the ROI
     * too: replay needs them to stay consistent */
    int always = ev->type != CGM_EV_SYSCALL;
    if (n && (t->r->enabled || always))
        append(t, buf, n, 0);
}

void x86_rec_event_fields(struct x86_rec_thread *t, uint8_t type, uint64_t f0, uint64_t f1,
                          uint64_t f2, uint64_t f3)
{
    if (!t)
        return;
    struct cgm_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.f[0] = f0;
    ev.f[1] = f1;
    ev.f[2] = f2;
    ev.f[3] = f3;
    x86_rec_event(t, &ev);
}

struct cgm_writer *x86_rec_writer(struct x86_recorder *r) { return r->w; }

const char *x86_rec_error(const struct x86_recorder *r)
{
    return r->failed || cgm_writer_failed(r->w) ? cgm_writer_error(r->w) : NULL;
}

uint64_t x86_rec_bytes(const struct x86_recorder *r) { return cgm_writer_bytes(r->w); }

int x86_rec_recording(const struct x86_recorder *r) { return r->enabled; }

void x86_rec_counts(const struct x86_recorder *r, uint64_t *loads, uint64_t *stores,
                    uint64_t *modifies)
{
    *loads = r->loads;
    *stores = r->stores;
    *modifies = r->modifies;
}

void x86_rec_roi(struct x86_rec_thread *t, int begin, uint64_t seq)
{
    struct x86_recorder *r = t->r;
    struct cgm_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = begin ? CGM_EV_ROI_BEGIN : CGM_EV_ROI_END;
    ev.f[0] = seq;
    x86_rec_event(t, &ev);
    if (r->roi_only)
        r->enabled = begin; /* takes effect at each thread's next block */
}

unsigned x86_insn_class(const struct x86_dinsn *in)
{
    int mem = 0;
    for (int i = 0; i < in->nops; i++)
        if (in->o[i].kind == OPK_MEM)
            mem = 1;
    switch (in->op) {
    case XOP_NOP: return CGM_X86_NOP;
    case XOP_MUL: case XOP_IMUL1: case XOP_IMUL: return CGM_X86_MUL;
    case XOP_DIV: case XOP_IDIV: return CGM_X86_DIV;
    case XOP_X87: return CGM_X86_FP;
    case XOP_SSE: return x86_is_gather(in->csid) ? CGM_X86_GATHER : CGM_X86_SIMD;
    case XOP_JCC: case XOP_JRCXZ: case XOP_LOOP: return CGM_X86_BRANCH_COND;
    case XOP_JMP: return in->o[0].kind == OPK_IMM ? CGM_X86_JUMP : CGM_X86_JUMP_INDIRECT;
    case XOP_CALL: return in->o[0].kind == OPK_IMM ? CGM_X86_CALL : CGM_X86_CALL_INDIRECT;
    case XOP_RET: return CGM_X86_RET;
    case XOP_SYSCALL: return CGM_X86_SYSCALL;
    case XOP_FENCE: return CGM_X86_FENCE;
    case XOP_CMPXCHG: case XOP_CMPXCHG16B: case XOP_XADD: return CGM_X86_ATOMIC;
    case XOP_XCHG: return mem ? CGM_X86_ATOMIC : CGM_X86_INT;
    case XOP_MOVS: case XOP_STOS: case XOP_LODS: case XOP_CMPS: case XOP_SCAS:
        return CGM_X86_STRING;
    case XOP_UNIMPL: case XOP_UD2: case XOP_HLT: case XOP_INT3: case XOP_CPUID: case XOP_PRIV:
    case XOP_RDTSC:
        return CGM_X86_OTHER;
    default:
        return CGM_X86_INT;
    }
}

int x86_rec_program(struct x86_recorder *r, const char *text)
{
    return cgm_writer_add_section(r->w, PROGRAM_SECTION_ID, "program", text, strlen(text));
}

int x86_rec_finish(struct x86_recorder *r, char *err, size_t errlen)
{
    int rc = rec_static_close(r->table);
    if (rc)
        snprintf(err, errlen, "writing the static table failed: %s", cgm_writer_error(r->w));
    while (r->threads) {
        struct x86_rec_thread *t = r->threads;
        r->threads = t->next;
        if (t->s)
            t->cpu->log = NULL;
        free(t);
    }
    if (cgm_writer_finalize(r->w, rc ? NULL : err, errlen) != 0)
        rc = -1;
    if (r->failed)
        rc = -1;
    free(r->buf);
    free(r);
    return rc;
}
