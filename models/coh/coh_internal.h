/* The plumbing every coherence protocol runs on: the node table and its
 * controllers' resources (arrays with their lines' protocol fields, MSHRs,
 * write-back queues, lists of stalled requests), sending, replays and the
 * operations a protocol provides per kind of controller. A protocol's own
 * substates, tables and handlers are in its files (mesi_internal.h). */
#ifndef CGM_COH_INTERNAL_H
#define CGM_COH_INTERNAL_H

#include "cgm/check.h"
#include "cgm/coh.h"
#include "frc.h"

/* ---- cache arrays with the protocol's fields of their lines ---------------
 * A line of the array holds its block, state, data and dirty bit; what the
 * protocol keeps besides (a directory's holders and owner, the operation a
 * line waits for) is in coh_line, one per line, indexed as the lines. */
struct coh_line {
    uint64_t sharers;    /* directory: holders 0..63 (bit per holder; the rest in holders_ext) */
    int32_t owner;       /* directory: exclusive holder, or -1 */
    int32_t requester;   /* the request being served (or joined) while pending */
    uint16_t acks;       /* acknowledgements still expected */
    uint8_t pending;     /* the transient operation; 0 none */
    uint8_t req;         /* the request type being served */
    uint8_t early_wb;    /* a write-back that overtook the operation pending */
    bool instr;          /* the request being served or joined is an instruction fetch */
    bool shared;         /* self-invalidating protocols: the P/S bit, the block's page shared when filled */
};
struct coh_array {
    struct cgm_cache_array a;
    struct coh_line *line;     /* [line index] */
    unsigned holder_words;     /* 64-bit words per holder set (1: coh_line's sharers alone) */
    uint64_t *holders_ext;     /* words 1.. of each line's holder set, [line][holder_words - 1] */
};
/* An array of sets x ways lines (set_shift as cgm_cache_array_init) whose
 * directory tracks holders holders (0: none); every owner -1. false if out
 * of memory or the geometry is bad. */
bool coh_array_init(struct coh_array *ca, unsigned sets, unsigned ways, unsigned set_shift, unsigned holders);
void coh_array_free(struct coh_array *ca);
static inline struct coh_line *coh_meta(const struct coh_array *ca, const struct cgm_cache_line *l)
{
    return &ca->line[cgm_cache_line_index(&ca->a, l)];
}
/* Empties line l and its fields (owner -1). */
void coh_line_clear(struct coh_array *ca, struct cgm_cache_line *l);

/* A directory line's holders: a bit per holder. Holders 0..63 are the
 * coh_line's sharers word, so a directory over at most 64 holders (the
 * usual case) pays nothing for the rest. */
static inline uint64_t *coh_holders_word(const struct coh_array *ca, const struct cgm_cache_line *l, unsigned w)
{
    size_t i = cgm_cache_line_index(&ca->a, l);
    return w ? &ca->holders_ext[i * (ca->holder_words - 1) + w - 1] : &ca->line[i].sharers;
}
static inline bool coh_holders_has(const struct coh_array *ca, const struct cgm_cache_line *l, unsigned h)
{
    return (*coh_holders_word(ca, l, h / 64) >> (h % 64)) & 1;
}
static inline void coh_holders_add(const struct coh_array *ca, const struct cgm_cache_line *l, unsigned h)
{
    *coh_holders_word(ca, l, h / 64) |= 1ull << (h % 64);
}
static inline void coh_holders_del(const struct coh_array *ca, const struct cgm_cache_line *l, unsigned h)
{
    *coh_holders_word(ca, l, h / 64) &= ~(1ull << (h % 64));
}
static inline void coh_holders_clear(const struct coh_array *ca, const struct cgm_cache_line *l)
{
    for (unsigned w = 0; w < ca->holder_words; w++)
        *coh_holders_word(ca, l, w) = 0;
}
static inline bool coh_holders_empty(const struct coh_array *ca, const struct cgm_cache_line *l)
{
    for (unsigned w = 0; w < ca->holder_words; w++)
        if (*coh_holders_word(ca, l, w))
            return false;
    return true;
}
static inline unsigned coh_holders_count(const struct coh_array *ca, const struct cgm_cache_line *l)
{
    unsigned n = 0;
    for (unsigned w = 0; w < ca->holder_words; w++)
        n += (unsigned)__builtin_popcountll(*coh_holders_word(ca, l, w));
    return n;
}
/* The first holder at or after h, or -1. Iterate with
 * for (int h = coh_holders_next(ca, l, 0); h >= 0; h = coh_holders_next(ca, l, h + 1)). */
static inline int coh_holders_next(const struct coh_array *ca, const struct cgm_cache_line *l, unsigned h)
{
    for (unsigned w = h / 64; w < ca->holder_words; w++) {
        uint64_t v = *coh_holders_word(ca, l, w);
        if (w == h / 64)
            v &= ~0ull << (h % 64);
        if (v)
            return (int)(w * 64 + (unsigned)__builtin_ctzll(v));
    }
    return -1;
}

/* ---- write-back queues -----------------------------------------------------------
 * A first-level cache's and a private L2's (entries struct core_wb), and a
 * directory's (entries struct dir_wb, which requests may join). */
/* A write-back queue entry: an evicted block, readable until it is sent
 * (writable), then waiting for its acknowledgement. The data cache's queue
 * writes into the L2; the L2's queue writes to the L3. */
struct core_wb {
    uint64_t block, data;
    bool used, sent, dirty;
    bool flushing;   /* L2 victim: waits for the data cache's flush acknowledgement */
    bool shared;     /* L2 victim held shared with its data written (MOESI's O): merges back shared */
    uint64_t mask;   /* a write buffer's entry: the bytes written (a diff's; 0: all) */
};

/* A write-back queue: its entries, and a filter with bit wbq_bit(block) set
 * for the block of every entry in use, so that looking for a block the
 * queue does not hold (the usual case: every miss asks) ends without a
 * scan. Entries come into use through wbq_take and leave it through
 * wbq_release only, which keep the filter. */
struct core_wbq {
    struct core_wb *e;
    unsigned n;
    uint64_t filter;
};
static inline uint64_t wbq_bit(uint64_t block) { return 1ull << ((block * 0x9e3779b97f4a7c15ull) >> 58); }
/* n entries, none in use; false if out of memory. */
bool wbq_init(struct core_wbq *q, unsigned n);
/* The lowest entry in use that holds block; NULL if none. */
struct core_wb *wbq_find(const struct core_wbq *q, uint64_t block);
/* The lowest entry not in use; NULL if every one is. */
struct core_wb *wbq_free(const struct core_wbq *q);
/* Entry slot (not in use) takes w (which has used set). */
void wbq_take(struct core_wbq *q, struct core_wb *slot, struct core_wb w);
/* Entry w leaves use. */
void wbq_release(struct core_wbq *q, struct core_wb *w);

/* A directory write-back queue entry (a victim): it first takes the block
 * back from its holders (flushing), then may merge back (writable) until
 * it is written to the parent (writing); requests meanwhile join it. */
enum { DWB_FLUSHING = 1, DWB_WRITABLE, DWB_WRITING };
struct joined { int src; uint8_t type; bool instr; };
struct dir_wb {
    uint64_t block, data;
    bool dirty;
    bool notify;       /* an unwritten exclusive victim the parent must hear of (Evict) */
    uint8_t state;
    unsigned acks;
    struct joined *join;
    unsigned njoin;
    /* serialized victims (gpu_l2_below.h): the miss whose fetch waits for
     * this victim to leave, and since when it waited for this part */
    bool then_fetch;
    uint64_t then_block, since;
    int frc_entry;     /* the FRC entry (frc.h) this victim holds while it leaves, or -1 */
};
/* A directory's write-back queue, as struct core_wbq: an entry is in use
 * while its state is not 0; dwbq_take gives a free entry its block and
 * first state, dwbq_release frees it. */
struct dir_wbq {
    struct dir_wb *e;
    unsigned n;
    uint64_t filter;
};
bool dwbq_init(struct dir_wbq *q, unsigned n);
struct dir_wb *dwbq_find(const struct dir_wbq *q, uint64_t block);
struct dir_wb *dwbq_free(const struct dir_wbq *q);
void dwbq_take(struct dir_wbq *q, struct dir_wb *slot, uint64_t block, uint8_t state);
void dwbq_release(struct dir_wbq *q, struct dir_wb *wb);
/* ---- nodes -------------------------------------------------------------------- */
struct coh_node {
    uint8_t kind;      /* enum cgm_coh_node_kind */
    int index;         /* among the nodes of its kind */
    int holder;        /* its holder index at its directory; -1 if none */
    void *ctrl;        /* its controller: a struct core, slice, gpu_l1 or gpu_l2 */
};

/* What a protocol provides at one kind of controller; ctrl is the node's
 * controller (struct core for CGM_NODE_CORE, slice, gpu_l1, gpu_l2). */
struct coh_kind_ops {
    /* A request at a first-level cache (cores and vector L1s; NULL for
     * directories): returns as cgm_coh_access. */
    int (*access)(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_req *r);
    void (*deliver)(struct cgm_coh_sys *s, void *ctrl, const struct cgm_coh_msg *m);
    void (*wake)(struct cgm_coh_sys *s, void *ctrl, uint64_t block, int what);
    /* The checker's view of block at this controller (first-level caches;
     * the GPU L2's own copy): a state of the protocol, 0 if none. */
    unsigned (*copy)(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, uint64_t *data);
    /* Prints the controller's view of block (for error reports). */
    void (*dump)(const struct cgm_coh_sys *s, void *ctrl, uint64_t block, FILE *out);
    /* GPU L2 banks: cgm_coh_gpu_bank_admits and _refusal_counted. */
    bool (*admits)(struct cgm_coh_sys *s, void *ctrl);
    bool (*refusal_counted)(const struct cgm_coh_sys *s, void *ctrl);
    /* GPU vector L1s: cgm_coh_gpu_invalidate (NULL: the L1 is kept
     * coherent by its protocol, nothing to drop). */
    unsigned (*invalidate)(struct cgm_coh_sys *s, void *ctrl);
};

/* ---- requests waiting ------------------------------------------------------------ */

/* A request as an MSHR entry keeps it, and back. */
static inline struct cgm_mshr_waiter coh_waiter_of(const struct cgm_coh_req *r)
{
    return (struct cgm_mshr_waiter){ .tag = r->tag, .value = r->value, .mask = r->mask, .bytes = r->bytes,
                                     .op = r->op, .flags = r->flags };
}
static inline struct cgm_coh_req coh_req_of(uint64_t block, const struct cgm_mshr_waiter *w)
{
    return (struct cgm_coh_req){ .block = block, .tag = w->tag, .value = w->value, .mask = w->mask,
                                 .bytes = w->bytes, .op = w->op, .flags = w->flags };
}

/* Requests that found a cache's resources full (or its set busy), run
 * again shortly (a COH_WAKE_STALLED of the node). */
struct stall_list {
    struct cgm_coh_req *q;
    unsigned n, cap;
    bool wake_pending;
    /* the array the requests of the last replay were in, kept for the
     * next (a request that waits runs again every cycle) */
    struct cgm_coh_req *spare;
    unsigned spare_cap;
};
struct cgm_coh_sys;
void coh_stall(struct cgm_coh_sys *s, struct stall_list *l, int node, const struct cgm_coh_req *r);
/* A cache's access function, for running requests again. */
typedef int (*coh_access_fn)(struct cgm_coh_sys *s, void *cache, const struct cgm_coh_req *r);
/* Runs the requests MSHR entry e of m held, in arrival order (the entry is
 * released first); one refused now goes to the stall list. *replaying is
 * set meanwhile (a replayed request is not a new access). */
void coh_replay_entry(struct cgm_coh_sys *s, struct cgm_mshr *m, struct cgm_mshr_entry *e, coh_access_fn fn,
                      void *cache, struct stall_list *l, int node, bool *replaying);
/* Runs the stall list's requests again (a COH_WAKE_STALLED). */
void coh_replay_stalled(struct cgm_coh_sys *s, coh_access_fn fn, void *cache, struct stall_list *l, int node,
                        bool *replaying);
/* Frees a write-back entry and hands each request that joined it to
 * rerun, in order. */
void dwb_release(struct dir_wbq *q, struct dir_wb *wb,
                 void (*rerun)(struct cgm_coh_sys *s, void *dir, const struct joined *j, uint64_t block),
                 struct cgm_coh_sys *s, void *dir);

/* ---- the controllers' resources ------------------------------------------------- */

/* A core: instruction and data caches, the data cache's write-back queue,
 * the private L2 with its MSHR and write-back queue (the protocol gives
 * the L2's lines their fields). */
struct core {
    int id;
    struct cgm_cache_array l1d, l1i;
    struct coh_array l2;
    struct cgm_mshr mshr;     /* the L2's */
    struct core_wbq wb;       /* the L2's write-back queue */
    struct core_wbq l1wb;     /* the data cache's write-back queue */
    struct stall_list stall;
    bool replaying;           /* statistics: a replayed request is not a new access */
    struct cgm_coh_core_stats st;
};

/* An L3 slice: a directory array over its holders and its write-back
 * queue. */
struct slice {
    int id;
    int node;
    struct coh_array l3;
    struct dir_wbq wb;
    struct cgm_coh_msg *deferred; /* messages waiting for a way or a write-back entry (self-invalidating protocols) */
    unsigned ndeferred, capdeferred;
    struct cgm_coh_slice_stats st;
};

/* A CU's vector L1 (mesi_gpu_l1.c under mesi). Its lines' states and
 * fields are its protocol's. */
struct gpu_l1 {
    int id, node;
    struct coh_array a;
    struct cgm_mshr mshr;
    struct core_wbq wb;       /* written victims on their way to the bank */
    struct stall_list stall;
    bool replaying;           /* statistics: a replayed request is not a new access */
    /* The last request refused (block, op, tag) while nothing has changed
     * since: a refusal changes nothing, so asked again it is refused again
     * (cgm_coh_gpu_access counts that without looking). */
    bool refusal_stands;
    uint8_t refused_op;
    uint64_t refused_block, refused_tag;
    unsigned sync_acks;       /* acknowledgements a synchronisation waits for (self-invalidating protocols) */
    struct cgm_coh_gpu_l1_stats st;
};

/* Where a bank's misses go. */
enum gpu_parent { GPU_PARENT_MEMORY, GPU_PARENT_L3_UNTRACKED, GPU_PARENT_L3 };

/* A GPU L2 bank (mesi_gpu_l2.c under mesi): a directory over the CUs
 * (its lines' holders) and a client of its parent; its lines' states and
 * its MSHR entries' use are its protocol's. */
struct gpu_l2 {
    int id, node;
    struct coh_array a;
    struct cgm_mshr mshr;
    struct dir_wbq wb;
    struct cgm_coh_msg *deferred; /* the parent's messages waiting for their line to settle */
    unsigned ndeferred, capdeferred;
    bool full;                    /* refused a CU's request since it last admitted one */
    struct frc frc;               /* its Fetch-and-Replacement Cache (off: no entries) */
    struct cgm_coh_gpu_l2_stats st;
};

struct cgm_coh_sys {
    struct cgm_coh_config cfg;
    struct cgm_coh_env env;
    struct coh_node *nodes;
    unsigned nnodes;
    struct core *cores;
    struct slice *slices;
    struct gpu_l1 *gpu_l1;
    struct gpu_l2 *gpu_l2;
    enum gpu_parent gpu_parent;
    unsigned l3_holders;   /* holders the L3 directory tracks (the cores, the GPU if coherent) */
    unsigned l3_joins, gpu_l2_joins; /* capacity of a write-back entry's join list */
    uint64_t *mem;         /* memory contents per block */
    /* The protocol of each kind of controller, and the counts of the rows
     * of every protocol some controller runs (row_arrays[id], one per
     * table, as the statistics read them; NULL for the others).
     * row_cell[id][r] is where row r of protocol id is counted, for every
     * protocol some controller runs, extends or borrows (NULL for the
     * others): in the table of the protocol that runs the row's kind of
     * controller, as the two protocols that extend one (the cores' moesi,
     * the GPU's si) number their added rows alike. */
    const struct cgm_coh_protocol *proto[CGM_NODE_KINDS];
    struct coh_kind_ops ops[CGM_NODE_KINDS]; /* proto[k]'s, inherited operations filled in */
    uint64_t **row_cell[CGM_COH_NPROTOCOLS];
    uint64_t *row_arrays[CGM_COH_NPROTOCOLS];
    uint64_t *row_spares[CGM_COH_NPROTOCOLS]; /* [id]: rows of id no table in use has */
    uint64_t msgs[COH_NTYPES];
    struct cgm_coh_msg_stats *node_msgs; /* per node */
};

/* Counts row r of the protocol of that id (which some controller runs). */
static inline void coh_count_row(struct cgm_coh_sys *s, unsigned id, unsigned r) { (*s->row_cell[id][r])++; }
void coh_send(struct cgm_coh_sys *s, struct cgm_coh_msg m);
int coh_slice_node(const struct cgm_coh_sys *s, uint64_t block);
/* The node of holder h at the L3 directory, for block. */
int coh_l3_holder_node(const struct cgm_coh_sys *s, int h, uint64_t block);

int coh_gpu_bank_node(const struct cgm_coh_sys *s, uint64_t block);

#endif
