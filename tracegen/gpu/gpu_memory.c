/* Guest memory for the GPU: fresh mappings in the guest's address space
 * (the GPU shares it, as in HSA) and the emulator's view of that memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/events.h"
#include "tracegen/si/si_emu.h"
#include "tracegen/gpu/gpu_driver.h"
#include "tracegen/x86/mem.h"
#include "tracegen/x86/process.h"
#include "tracegen/x86/recorder.h"

uint64_t gpu_guest_map(struct x86_process *p, uint64_t len, int prot)
{
    len = (len + GPAGE_MASK) & ~GPAGE_MASK;
    /* the same rule as anonymous mmap: grow down, keep 1 GiB above brk */
    if (!len || len > (1ull << 40) || p->mmap_top - len < p->brk_cur + (1ull << 30))
        return 0;
    uint64_t at = p->mmap_top - len;
    if (gmem_map(p->mem, at, len, prot) < 0)
        return 0;
    p->mmap_top = at;
    return at;
}

uint8_t *gpu_copy_in_new(struct x86_process *p, uint64_t addr, uint64_t len, const char *what,
                         long *rc)
{
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf) {
        *rc = -ENOMEM;
        return NULL;
    }
    if (gmem_copy_in(p->mem, buf, addr, len, NULL) < 0) {
        fprintf(stderr, "tracegen: gpu: %s: %llu bytes at 0x%llx are not mapped\n", what,
                (unsigned long long)len, (unsigned long long)addr);
        free(buf);
        *rc = -EFAULT;
        return NULL;
    }
    return buf;
}

/* Host pointer to [addr, addr+len) when every byte is mapped with the
 * needed permission and the bytes are contiguous on the host too (pages of
 * one guest mapping are; an access straddling two mappings is refused). */
static uint8_t *map_guest(void *ctx, uint64_t addr, size_t len, int write)
{
    const struct gmem *m = ctx;
    int need = write ? GPROT_W : GPROT_R, prot;
    uint8_t *h = gmem_page(m, addr, &prot);
    if (!h || !(prot & need))
        return NULL;
    uint64_t off = addr & GPAGE_MASK;
    if (len && off + len > GPAGE_SIZE) {
        uint8_t *next = gmem_page(m, addr + GPAGE_SIZE, &prot);
        if (next != h + GPAGE_SIZE || !(prot & need))
            return NULL;
    }
    return h + off;
}

struct si_memory gpu_si_memory(struct x86_process *p)
{
    struct si_memory m;
    m.ctx = p->mem;
    m.map = map_guest;
    return m;
}

void gpu_record(struct x86_thread *t, const struct cgm_event *ev)
{
    if (t->rec)
        x86_rec_event(t->rec, ev);
}

void gpu_record_map(struct x86_thread *t, uint64_t addr, uint64_t len, enum cgm_gpu_map_what what,
                    uint32_t launch)
{
    struct cgm_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = CGM_EV_GPU_MAP;
    ev.f[CGM_EVF_GPU_MAP_ADDR] = addr;
    ev.f[CGM_EVF_GPU_MAP_BYTES] = len;
    ev.f[CGM_EVF_GPU_MAP_WHAT] = what;
    ev.f[CGM_EVF_GPU_MAP_LAUNCH] = launch;
    gpu_record(t, &ev);
}
