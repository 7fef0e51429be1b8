/* VIPS-G's controllers (cgm/coh_vips.h): one first-level engine for the
 * cores and the vector L1s (vips_client.c, over a view of either's
 * resources), the L3 slices (vips_slice.c) and the GPU L2 banks
 * (vips_gpu_l2.c). */
#ifndef CGM_VIPS_INTERNAL_H
#define CGM_VIPS_INTERNAL_H

#include "cgm/coh_vips.h"
#include "coh_internal.h"

/* The first levels' rows, in cgm/vips_client_rows.def's order. */
enum vips_crow {
#define CROW(id, where, text) VIPS_C_##id,
#include "cgm/vips_client_rows.def"
#undef CROW
    VIPS_C_NROWS
};

/* A first level as the engine sees it: a core (its L2 holds the lines,
 * its data and instruction caches only the tags, which tell a first-level
 * hit from a second-level one; its data cache's write-back queue is the
 * write buffer) or a vector L1 (every block shared, no victims: it never
 * holds written data). */
struct vips_client {
    void *ctrl;
    bool gpu;
    int id, node;
    struct coh_array *a;
    struct cgm_cache_array *l1d, *l1i;
    struct cgm_mshr *mshr;
    struct core_wbq *wbuf, *victims;
    struct stall_list *stall;
    bool *replaying;
    unsigned *sync_acks;
    uint64_t *hits, *misses, *self_inv, *self_down, *diffs, *diff_bytes, *page_downgrades;
};

struct vips_client vips_core_view(struct cgm_coh_sys *s, struct core *c);
struct vips_client vips_gpu_l1_view(struct cgm_coh_sys *s, struct gpu_l1 *l1);
int vips_client_access(struct cgm_coh_sys *s, struct vips_client *v, const struct cgm_coh_req *r);
void vips_client_deliver(struct cgm_coh_sys *s, struct vips_client *v, const struct cgm_coh_msg *m);
void vips_client_wake(struct cgm_coh_sys *s, struct vips_client *v, uint64_t block, int what);
unsigned vips_client_copy(const struct vips_client *v, uint64_t block, uint64_t *data);
void vips_client_dump(const struct vips_client *v, uint64_t block, FILE *out);

void vips_slice_deliver(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_msg *m);
void vips_slice_wake(struct cgm_coh_sys *s, void *ctrl, uint64_t block, int what);
void vips_slice_dump(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, FILE *out);

void vips_gpu_l2_deliver(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_msg *m);
void vips_gpu_l2_wake(struct cgm_coh_sys *s, void *ctrl, uint64_t block, int what);
unsigned vips_gpu_l2_copy(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, uint64_t *data);
void vips_gpu_l2_dump(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, FILE *out);
bool vips_gpu_l2_admits(struct cgm_coh_sys *s, void *ctrl);
bool vips_gpu_l2_refusal_counted(const struct cgm_coh_sys *s, void *ctrl);

static inline void vips_row(struct cgm_coh_sys *s, unsigned row) { coh_count_row(s, CGM_COH_PROTOCOL_vips_g, row); }

/* Two byte masks of one block merged (0: the whole block). */
static inline uint64_t vips_mask_merge(uint64_t a, uint64_t b) { return a && b ? a | b : 0; }

#endif
