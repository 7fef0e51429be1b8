/* Runs a kernel dispatch: work-groups in order, their wavefronts taking
 * turns until each reaches s_barrier or s_endpgm; registers at wave start as
 * the AMDHSA ABI lays them out (user SGPRs, then work-group ids and the
 * private segment wave offset; work-item ids in v0..v2). */
#include "tracegen/si/si_wave.h"

#include <stdio.h>
#include <stdlib.h>

#include "cgm/codec.h"

enum { MAX_WAVES_PER_GROUP = 16, MAX_GROUP_ITEMS = MAX_WAVES_PER_GROUP * SI_LANES };

static uint64_t private_per_wave(const struct si_kernel *k)
{
    uint64_t per_lane = (k->kd.private_segment_fixed_size + 3u) & ~3u;
    return per_lane * SI_LANES;
}

static unsigned group_items(const struct si_launch *l)
{
    return l->group[0] * l->group[1] * l->group[2];
}

uint64_t si_scratch_bytes(const struct si_launch *l)
{
    unsigned waves = (group_items(l) + SI_LANES - 1) / SI_LANES;
    return private_per_wave(l->kernel) * waves;
}

void si_fill_packet(const struct si_launch *l, uint8_t pk[64])
{
    memset(pk, 0, 64);
    cgm_put_le16(pk + 2, (uint16_t)l->dims);                         /* setup: dimensions */
    for (int d = 0; d < 3; d++) {
        cgm_put_le16(pk + 4 + 2 * d, (uint16_t)l->group[d]);
        cgm_put_le32(pk + 12 + 4 * d, l->grid[d]);
    }
    cgm_put_le32(pk + 24, l->kernel->kd.private_segment_fixed_size);
    cgm_put_le32(pk + 28, l->kernel->kd.group_segment_fixed_size + l->dynamic_lds);
    cgm_put_le64(pk + 32, l->code_address + l->kernel->kd_address);
    cgm_put_le64(pk + 40, l->kernarg_address);
}

size_t si_build_kernarg(const struct si_kernel *k, const void *args, size_t args_bytes,
                        uint8_t *out, size_t out_size)
{
    size_t size = k->kernarg_segment_size;
    uint32_t first_hidden = (uint32_t)size;
    for (size_t i = 0; i < k->nargs; i++)
        if (k->args[i].is_hidden && k->args[i].offset < first_hidden)
            first_hidden = k->args[i].offset;
    if (size > out_size || args_bytes > first_hidden)
        return 0;
    memset(out, 0, size);
    memcpy(out, args, args_bytes);
    return size;       /* hidden arguments: global offsets 0, the rest unused on SI */
}

/* ---- decode cache ------------------------------------------------------------ */

static const struct cgm_si_inst *fetch_inst(struct si_ctx *c, struct si_wave *w)
{
    const struct si_program *p = c->l->program;
    uint64_t off = w->pc - c->l->code_address;
    if (w->pc < c->l->code_address || off < p->text_start || off >= p->text_end || (off & 3)) {
        si_fault(c, w, NULL, -1, "program counter outside the code");
        return NULL;
    }
    const struct cgm_si_inst *in = &p->insts[(off - p->text_start) / 4];
    if (in->size == 0) {
        si_fault(c, w, NULL, -1, "undecodable instruction word 0x%08x",
                 (uint32_t)p->image[off] | (uint32_t)p->image[off + 1] << 8 |
                 (uint32_t)p->image[off + 2] << 16 | (uint32_t)p->image[off + 3] << 24);
        return NULL;
    }
    return in;
}

/* ---- wave start -------------------------------------------------------------- */

static int init_wave(struct si_ctx *c, struct si_wave *w, unsigned index, uint64_t scratch)
{
    const struct si_launch *l = c->l;
    const struct si_kernel_setup *s = &l->kernel->setup;
    memset(w->s, 0, sizeof w->s);
    w->index = index;
    w->pc = l->code_address + l->kernel->entry;
    w->scc = 0;
    w->status = SI_WAVE_RUNNING;
    w->mode = (uint32_t)(s->float_round_32 | s->float_round_64 << 2 | s->float_denorm_32 << 4 |
                         s->float_denorm_64 << 6 | s->dx10_clamp << 8 | s->ieee_mode << 9);
    unsigned r = 0;
    if (s->private_segment_buffer) {
        /* V# for swizzled private memory: 4-byte elements, 64 lanes, ADD_TID. */
        w->s[r++] = (uint32_t)l->scratch_address;
        w->s[r++] = (uint32_t)(l->scratch_address >> 32 & 0xffff) | 1u << 31;
        w->s[r++] = 0xffffffffu;
        w->s[r++] = 1u << 19 | 3u << 21 | 1u << 23;
    }
    uint64_t packet = l->packet_address, kernarg = l->kernarg_address;
    if (s->dispatch_ptr) {
        w->s[r++] = (uint32_t)packet;
        w->s[r++] = (uint32_t)(packet >> 32);
    }
    if (s->queue_ptr) r += 2;
    if (s->kernarg_segment_ptr) {
        w->s[r++] = (uint32_t)kernarg;
        w->s[r++] = (uint32_t)(kernarg >> 32);
    }
    if (s->dispatch_id) r += 2;
    if (s->flat_scratch_init) r += 2;
    if (s->private_segment_size) w->s[r++] = l->kernel->kd.private_segment_fixed_size;
    if (r != s->user_sgpr_count)
        return si_fault(c, w, NULL, -1, "descriptor enables %u user SGPRs but declares %u", r,
                        s->user_sgpr_count);
    for (int d = 0; d < 3; d++)
        if (s->workgroup_id[d])
            w->s[r++] = c->group_id[d];
    if (s->workgroup_info)
        w->s[r++] = 0;
    if (s->scratch_en)
        w->s[r++] = (uint32_t)scratch;
    if (r > CGM_SI_OP_SGPR_LAST + 1)
        return si_fault(c, w, NULL, -1, "initial SGPRs exceed s103");
    w->s[CGM_SI_OP_M0] = ~0u;

    unsigned items = group_items(l), first = index * SI_LANES;
    uint64_t exec = 0;
    memset(w->v, 0, (size_t)w->vgprs * SI_LANES * sizeof *w->v);
    for (unsigned lane = 0; lane < SI_LANES && first + lane < items; lane++) {
        unsigned id = first + lane;
        uint32_t x = id % l->group[0], y = (id / l->group[0]) % l->group[1],
                 z = id / (l->group[0] * l->group[1]);
        exec |= 1ull << lane;
        w->v[lane] = x;
        if (s->workitem_id_dims >= 1 && w->vgprs > 1) w->v[SI_LANES + lane] = y;
        if (s->workitem_id_dims >= 2 && w->vgprs > 2) w->v[2 * SI_LANES + lane] = z;
    }
    si_set_exec(w, exec);
    if (l->wave_init)
        l->wave_init(l->wave_init_ctx, index, w->s, w->v, w->vgprs);
    return 0;
}

/* Bit count without relying on a POPCNT instruction being enabled. */
static inline uint64_t popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (x * 0x0101010101010101ull) >> 56;
}

/* ---- execution ------------------------------------------------------------------ */

static int step(struct si_ctx *c, struct si_wave *w, const struct cgm_si_inst *in)
{
    switch (in->fmt) {
    case CGM_SI_FMT_SOP2: case CGM_SI_FMT_SOPK: case CGM_SI_FMT_SOP1: case CGM_SI_FMT_SOPC:
    case CGM_SI_FMT_SOPP:
        return si_exec_scalar(c, w, in);
    case CGM_SI_FMT_SMRD:
        return si_exec_smrd(c, w, in);
    case CGM_SI_FMT_VOP2: case CGM_SI_FMT_VOP1: case CGM_SI_FMT_VOPC: case CGM_SI_FMT_VOP3:
        return si_exec_valu(c, w, in);
    case CGM_SI_FMT_DS:
        return si_exec_ds(c, w, in);
    case CGM_SI_FMT_MUBUF: case CGM_SI_FMT_MTBUF:
        return si_exec_buffer(c, w, in);
    default:
        return si_fault(c, w, in, -1, "instruction format not supported for compute");
    }
}

/* Runs the wave until it ends, waits at a barrier, or faults. */
static int run_wave(struct si_ctx *c, struct si_wave *w)
{
    const struct si_observer *obs = c->obs;
    w->status = SI_WAVE_RUNNING;
    while (w->status == SI_WAVE_RUNNING) {
        const struct cgm_si_inst *in = fetch_inst(c, w);
        if (!in)
            return -1;
        uint64_t exec = si_exec(w);
        w->next_pc = w->pc + in->size;
        c->step.access = CGM_SI_NONE;
        if (step(c, w, in))
            return -1;
        if (++c->stats->wave_instructions == c->l->max_instructions)
            return si_fault(c, w, in, -1, "stopped after %llu wavefront instructions (the "
                            "launch's limit)", (unsigned long long)c->l->max_instructions);
        c->stats->lane_operations += popcount64(exec);
        if (obs && obs->step) {
            c->step.wave = w->index;
            c->step.pc = w->pc;
            c->step.inst = in;
            c->step.exec = exec;
            c->step.addr = c->addr;
            memcpy(c->step.group_id, c->group_id, sizeof c->group_id);
            obs->step(obs->ctx, &c->step);
        }
        w->pc = w->next_pc;
    }
    return 0;
}

static int run_group(struct si_ctx *c, struct si_wave *waves, unsigned nwaves)
{
    const struct si_launch *l = c->l;
    uint64_t per_wave = private_per_wave(l->kernel);
    for (unsigned i = 0; i < nwaves; i++)
        if (init_wave(c, &waves[i], i, i * per_wave))
            return -1;
    memset(c->lds, 0, c->lds_size);
    if (c->obs && c->obs->group_begin)
        c->obs->group_begin(c->obs->ctx, c->group_id, nwaves);
    for (;;) {
        unsigned done = 0, waiting = 0;
        for (unsigned i = 0; i < nwaves; i++) {
            if (waves[i].status == SI_WAVE_RUNNING && run_wave(c, &waves[i]))
                return -1;
            done += waves[i].status == SI_WAVE_DONE;
            waiting += waves[i].status == SI_WAVE_BARRIER;
        }
        if (done == nwaves)
            break;
        /* Every wave still running waits at the barrier (ended waves no
         * longer take part, as in hardware): release them. */
        (void)waiting;
        for (unsigned i = 0; i < nwaves; i++)
            if (waves[i].status == SI_WAVE_BARRIER)
                waves[i].status = SI_WAVE_RUNNING;
    }
    if (c->obs && c->obs->group_end)
        c->obs->group_end(c->obs->ctx, c->group_id);
    c->stats->groups++;
    c->stats->waves += nwaves;
    return 0;
}

static int check_launch(const struct si_launch *l, char *err, size_t errlen)
{
    const char *name = l->kernel ? l->kernel->name : "?";
    if (!l->program || !l->kernel) {
        snprintf(err, errlen, "launch without program or kernel");
        return -1;
    }
    if (l->dims < 1 || l->dims > 3) {
        snprintf(err, errlen, "kernel %s: %u dimensions (1..3 allowed)", name, l->dims);
        return -1;
    }
    unsigned items = 1;
    for (int d = 0; d < 3; d++) {
        if (l->group[d] == 0 || l->grid[d] == 0 || l->grid[d] % l->group[d]) {
            snprintf(err, errlen, "kernel %s: grid %u is not a positive multiple of work-group "
                     "size %u in dimension %d", name, l->grid[d], l->group[d], d);
            return -1;
        }
        items *= l->group[d];
    }
    if (items > MAX_GROUP_ITEMS || (l->kernel->max_flat_workgroup_size &&
                                    items > l->kernel->max_flat_workgroup_size)) {
        snprintf(err, errlen, "kernel %s: work-group of %u work-items exceeds the limit %u", name,
                 items, l->kernel->max_flat_workgroup_size ? l->kernel->max_flat_workgroup_size
                                                          : MAX_GROUP_ITEMS);
        return -1;
    }
    if (l->kernel->setup.float_round_32 || l->kernel->setup.float_round_64) {
        snprintf(err, errlen, "kernel %s: float round modes %u/%u are not emulated (only round "
                 "to nearest even)", name, l->kernel->setup.float_round_32,
                 l->kernel->setup.float_round_64);
        return -1;
    }
    if ((uint64_t)l->kernel->kd.group_segment_fixed_size + l->dynamic_lds > 65536) {
        snprintf(err, errlen, "kernel %s: %u bytes of LDS exceed 64 KiB", name,
                 l->kernel->kd.group_segment_fixed_size + l->dynamic_lds);
        return -1;
    }
    return 0;
}

int si_run(const struct si_launch *l, const struct si_memory *mem,
           const struct si_observer *observer, struct si_run_stats *stats,
           char *err, size_t errlen)
{
    struct si_run_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    if (check_launch(l, err, errlen))
        return -1;
    struct si_ctx c;
    memset(&c, 0, sizeof c);
    c.l = l;
    c.mem = mem;
    c.obs = observer;
    c.stats = stats;
    c.err = err;
    c.errlen = errlen;
    c.lds_size = l->kernel->kd.group_segment_fixed_size + l->dynamic_lds;
    c.lds = calloc(1, c.lds_size ? c.lds_size : 1);
    unsigned nwaves = (group_items(l) + SI_LANES - 1) / SI_LANES;
    unsigned vgprs = l->kernel->setup.vgprs;
    struct si_wave waves[MAX_WAVES_PER_GROUP];
    uint32_t *vregs = calloc((size_t)nwaves * vgprs * SI_LANES, sizeof *vregs);
    int rc = -1;
    if (!c.lds || !vregs) {
        snprintf(err, errlen, "kernel %s: out of memory", l->kernel->name);
        goto out;
    }
    for (unsigned i = 0; i < nwaves; i++) {
        waves[i].v = vregs + (size_t)i * vgprs * SI_LANES;
        waves[i].vgprs = vgprs;
    }
    uint32_t ng[3];
    for (int d = 0; d < 3; d++)
        ng[d] = l->grid[d] / l->group[d];
    for (uint32_t z = 0; z < ng[2]; z++)
        for (uint32_t y = 0; y < ng[1]; y++)
            for (uint32_t x = 0; x < ng[0]; x++) {
                c.group_id[0] = x;
                c.group_id[1] = y;
                c.group_id[2] = z;
                if (run_group(&c, waves, nwaves))
                    goto out;
            }
    rc = 0;
out:
    free(vregs);
    free(c.lds);
    return rc;
}
