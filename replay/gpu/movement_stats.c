/* The "data_movement" statistics of the GPU: what the copy protocol moved
 * and what the CPU waited for, and the discrete GPU's link and DMA engine.
 * Registered only when a protocol other than launch runs or the GPU is
 * discrete, so the default system's statistics stay as they were. */
#include "replay/gpu/gpu_internal.h"

void rp_gpu_data_movement_register(struct rp_gpu *g, struct cgm_stats *reg, cgm_stat parent)
{
    static const char *const policies[] = { "launch", "batch", "lazy", "rolling" };
    struct rp_sync *y = &g->sync;
    cgm_stat m = cgm_stats_object(reg, parent, "data_movement");
    cgm_stat_label(reg, m, "copy_policy", policies[g->cfg->gpu_copy_policy]);
    cgm_stat_label(reg, m, "attach", y->discrete ? "discrete" : "integrated");
    if (y->adsm_on) {
        cgm_stat_constant(reg, m, "copy_block", (double)g->cfg->gpu_copy_block);
        cgm_stat_counter(reg, m, "bytes_to_gpu", &y->adsm.st.bytes_to_gpu);
        cgm_stat_counter(reg, m, "bytes_to_cpu", &y->adsm.st.bytes_to_cpu);
        cgm_stat_counter(reg, m, "transfers_to_gpu", &y->adsm.st.transfers_to_gpu);
        cgm_stat_counter(reg, m, "transfers_to_cpu", &y->adsm.st.transfers_to_cpu);
        cgm_stat_counter(reg, m, "faults", &y->adsm.st.faults);
        cgm_stat_counter(reg, m, "eager_transfers", &y->adsm.st.eager_transfers);
        cgm_stat_counter(reg, m, "eager_bytes", &y->adsm.st.eager_bytes);
        cgm_stat_counter(reg, m, "fault_wait_cycles", &y->fault_wait_cycles);
    }
    /* CPU cycles threads waited off their cores for the copies */
    cgm_stat_counter(reg, m, "launch_wait_cycles", &y->launch_wait_cycles);
    cgm_stat_counter(reg, m, "done_wait_cycles", &y->done_wait_cycles);
    cgm_stat_counter(reg, m, "copy_wait_cycles", &y->copy_wait_cycles);
    cgm_stat_counter(reg, m, "async_copies", &y->async_copies);
    cgm_stat_counter(reg, m, "async_bytes", &y->async_bytes);
    cgm_stat_counter(reg, m, "async_wait_cycles", &y->async_wait_cycles);
    if (!y->discrete)
        return;
    cgm_stat l = cgm_stats_object(reg, m, "link");
    cgm_stat_counter(reg, l, "transfers", &y->link.transfers);
    cgm_stat_counter(reg, l, "bytes", &y->link.bytes);
    cgm_stat_counter(reg, l, "packets", &y->link.packets);
    cgm_stat_counter(reg, l, "busy_ps", &y->link.busy_ps);
    cgm_stat_counter(reg, l, "dma_bursts_l3", &y->dma.bursts_cache);
    cgm_stat_counter(reg, l, "dma_bursts_memory", &y->dma.bursts_memory);
}
