/* The coherence system: the caches of the cores (first-level caches and a
 * private L2 each), the L3 slices that hold the directory over them, and
 * the GPU's vector L1s and L2 banks, exchanging messages over an
 * environment that delivers them and times wake-ups. It knows nothing of
 * the engine that drives it (the coherence testers drive it with random
 * delays; the timed hierarchy in models/memsys wraps the same handlers in
 * KnightSim contexts). Channels between two nodes must be FIFO.
 *
 * What a cache does is its protocol's (struct cgm_coh_protocol): one is
 * chosen for the CPU's controllers (cores and slices) and one for the
 * GPU's (vector L1s and L2 banks), from the registry cgm/coh_protocols.def.
 * The plumbing every protocol runs on is here: the node table, requests,
 * messages and their lanes and sizes, wake-ups, the statistics and the
 * views checkers use. mesi (cgm/coh_mesi.h) is seed 000's protocol. */
#ifndef CGM_COH_H
#define CGM_COH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cgm/cache.h"

/* A request. The flushes are issued by a core and complete once the block
 * has left every cache on that side (the CPU's caches, the L3 included, or
 * the GPU's), its written data at the level below (memory, or the L3 the
 * GPU shares): what the non-coherent organisations need before the other
 * side may read. */
enum cgm_coh_op { CGM_OP_LOAD, CGM_OP_STORE, CGM_OP_FETCH, CGM_OP_FLUSH_CPU, CGM_OP_FLUSH_GPU,
                  CGM_OP_ACQUIRE, CGM_OP_RELEASE, CGM_OP_DOWNGRADE };
/* The synchronisations and page transitions a self-invalidating protocol
 * (struct cgm_coh_protocol's self_invalidating) is told of; the others
 * are never sent them. ACQUIRE: what was released before is visible to
 * the requester's later reads (its shared blocks self-invalidated);
 * RELEASE: its writes so far reach the shared level (its write buffer
 * drained, the shared blocks self-downgraded); both with
 * CGM_COH_SCOPE_SYSTEM at a compute unit reach the GPU L2 as well.
 * DOWNGRADE of a block at its page's previous owner: the page turns from
 * private to shared, the owner writes the block back if it wrote it. */
static inline bool cgm_coh_op_is_sync(uint8_t op) { return op >= CGM_OP_ACQUIRE; }

/* The instruction's bits a request carries (the same bits as a compute
 * unit's CGM_GPU_GLC and CGM_GPU_SLC): globally coherent (bypass or write
 * through the first level), system level coherent (bypass both levels).
 * A protocol honours them or not; MESI does not. */
enum { CGM_COH_GLC = 1, CGM_COH_SLC = 2 };
/* Bits the environment sets for a self-invalidating protocol: the
 * block's page is shared (its classification at the requester's TLB);
 * a synchronisation of system scope (kernel start and end). */
enum { CGM_COH_SHARED = 4, CGM_COH_SCOPE_SYSTEM = 8 };

/* A request at a first-level cache: its operation and block, the
 * caller's tag (handed back at completion), the value a store writes, and
 * what of the block it touches: mask has bit i set for byte i (bit i for
 * the i-th 64th of a block larger than 64 bytes; 0: the whole block),
 * bytes its size (0: the whole block). */
struct cgm_coh_req {
    uint64_t block, tag, value;
    uint64_t mask;
    uint16_t bytes;
    uint8_t op;        /* enum cgm_coh_op */
    uint8_t flags;     /* CGM_COH_GLC | CGM_COH_SLC */
};
/* The mask of bytes [offset, offset + bytes) of a block (0 when that is
 * the whole block of block_bytes, or bytes is 0). */
uint64_t cgm_coh_byte_mask(unsigned block_bytes, unsigned offset, unsigned bytes);

enum cgm_coh_msg_type {
#define MSG(id, name, cls, data, extra) id,
#include "cgm/coh_msgs.def"
#undef MSG
    COH_NTYPES
};
/* A message type's columns in cgm/coh_msgs.def. */
enum cgm_coh_msg_class { COH_CLASS_ASK, COH_CLASS_ANSWER, COH_CLASS_ORDER };
enum cgm_coh_msg_data { COH_DATA_NONE, COH_DATA_BLOCK, COH_DATA_WRITTEN, COH_DATA_MASKED };
struct cgm_coh_msg_info {
    const char *name;
    uint8_t cls;       /* enum cgm_coh_msg_class */
    uint8_t data;      /* enum cgm_coh_msg_data */
    uint8_t extra;     /* bytes beyond the network header in every one */
};
extern const struct cgm_coh_msg_info cgm_coh_msgs[COH_NTYPES];
/* The data column as bits: bit 0 the type carries data when clean, bit 1
 * when dirty (for cgm_coh_msg_has_data, on every message sent). */
extern const uint8_t cgm_coh_msg_carries[COH_NTYPES];
extern const char *const cgm_coh_msg_names[COH_NTYPES];

struct cgm_coh_msg {
    uint8_t type;
    bool instr;        /* for the instruction cache */
    bool dirty;        /* the data is written (newer than the directory's) */
    bool noncoherent;  /* a GPU bank's request or write-back the L3 serves untracked */
    uint8_t req;       /* NACK: the request type refused; WriteBack_Ack: Flush for a flush */
    bool absent;       /* NACK of an upgrade: the slice no longer has the block */
    uint8_t flags;     /* the request's CGM_COH_GLC | CGM_COH_SLC */
    bool owner;        /* Fwd_Ack: the forwarder keeps the block as its owner, shared and written (MOESI's O) */
    uint16_t bytes;    /* data bytes it carries beyond its header (set when sent) */
    int src, dst;      /* node ids (see cgm_coh_node_count) */
    int requester;     /* forwards: the node to send the block to */
    uint64_t block;
    uint64_t data;
    uint64_t mask;     /* the bytes of the block it carries or asks for, as a request's; 0: all */
};
/* Whether m carries data: its type's data column, and for a type that
 * carries the block only when written, its dirty flag. The bytes it
 * carries: the block's, or for a masked type the bytes of its mask. */
static inline bool cgm_coh_msg_has_data(const struct cgm_coh_msg *m)
{
    return (cgm_coh_msg_carries[m->type] >> m->dirty) & 1;
}

/* ---- protocols ----------------------------------------------------------- */
/* The nodes of a system, numbered cores first (0..cores-1), then the L3
 * slices, the GPU vector L1s and the GPU L2 banks. A node is one message
 * endpoint: a core's caches (its L2 talks for its L1s), a CU's vector L1,
 * or a directory. Each kind is a kind of controller a protocol provides. */
enum cgm_coh_node_kind { CGM_NODE_CORE, CGM_NODE_SLICE, CGM_NODE_GPU_L1, CGM_NODE_GPU_L2, CGM_NODE_KINDS };

/* What a copy in a state lets its holder do, for the checkers. */
enum cgm_coh_permission { CGM_COH_NO_COPY, CGM_COH_READ, CGM_COH_WRITE };
/* The copies of one block the checker sees, by permission. */
struct cgm_coh_census {
    unsigned readers, writers;
};
/* A row of a protocol's tables: the controller kind it is of (enum
 * cgm_coh_node_kind), its table, its text (state, substate, event and
 * actions as the table reads) and the two as its statistic's name
 * ("3.4 M: Load -> Hit -> Set_Core_Holder -> PutX"). */
struct cgm_coh_row_info {
    uint8_t kind;
    const char *table, *text, *name;
};
/* What a protocol does at one kind of controller (models/coh). */
struct coh_kind_ops;

/* A protocol: its states (state 0 is no copy), what each lets a holder
 * do, its rows, the messages it sends, its invariant and its controllers.
 * Registered by one line of cgm/coh_protocols.def. */
struct cgm_coh_protocol {
    const char *name;          /* the configuration's value (coherence.protocol) */
    const char *summary;       /* one line for replay --help */
    unsigned id;               /* its index in cgm_coh_protocols */
    unsigned nstates;
    const char *const *state_names;
    const uint8_t *permission; /* [state]: enum cgm_coh_permission */
    unsigned nrows;
    const struct cgm_coh_row_info *rows;
    /* The protocol whose handlers it reuses, whose rows are its first rows
     * (counted by those handlers); NULL if none. */
    const struct cgm_coh_protocol *extends;
    uint32_t messages;         /* bit t: it sends messages of type t (enum cgm_coh_msg_type) */
    /* NULL if copies of one block so counted may coexist, else what is
     * wrong with them (MESI: "one writer excludes every other copy"); NULL
     * in a protocol that extends another: the other's. */
    const char *(*invariant)(const struct cgm_coh_census *c);
    /* [kind]: its controller of that kind; NULL if it has none (the
     * system then runs mesi's there). An operation left NULL by a protocol
     * that extends another is the other's. */
    const struct coh_kind_ops *ops[CGM_NODE_KINDS];
    /* It keeps no directory: the environment tells it of synchronisations
     * and page classes (CGM_OP_ACQUIRE .. CGM_OP_DOWNGRADE, CGM_COH_SHARED),
     * and the GPU must share the last level with the CPU. */
    bool self_invalidating;
    /* Its GPU caches are not coherent with the CPU's: the system refuses
     * it for the GPU under a coherent L3 (cfg.gpu.coherent). */
    bool gpu_noncoherent;
    /* A protocol whose controller of some kind it runs without extending
     * it (vi-hammer's vector L1 is si's); NULL if none. The lender's own
     * rows (those after the rows of the protocol it extends), counted by
     * its handlers, are this protocol's from row borrowed_at on. */
    const struct cgm_coh_protocol *borrows;
    unsigned borrowed_at;
};

enum cgm_coh_protocol_id {
#define PROTOCOL(id) CGM_COH_PROTOCOL_##id,
#include "cgm/coh_protocols.def"
#undef PROTOCOL
    CGM_COH_NPROTOCOLS
};
/* The registry, in cgm/coh_protocols.def's order. */
extern const struct cgm_coh_protocol *const cgm_coh_protocols[CGM_COH_NPROTOCOLS];
/* The protocol of that name; NULL if none. */
const struct cgm_coh_protocol *cgm_coh_protocol_find(const char *name);
/* "mesi, moesi": the registered names, for error messages. */
const char *cgm_coh_protocol_list(void);
/* The name of state st of p ("?" if it has none). */
const char *cgm_coh_state_name(const struct cgm_coh_protocol *p, unsigned st);

/* ---- the system -------------------------------------------------------- */
struct cgm_coh_env {
    void *ctx;
    /* Deliver m to m->dst (FIFO per source-destination pair). */
    void (*send)(void *ctx, const struct cgm_coh_msg *m);
    /* Call cgm_coh_wake(sys, node, block, what) after some delay. */
    void (*later)(void *ctx, int node, uint64_t block, int what);
    /* A core request completed: loads and fetches return the value read,
     * stores the value written; level is the cache that served it (1 an L1,
     * 2 the L2, after any miss below it was filled; flushes 2). */
    void (*done)(void *ctx, int core, uint64_t tag, uint8_t op, uint64_t block, uint64_t value,
                 unsigned level);
    /* A compute unit's request completed (in its vector L1's step). */
    void (*gpu_done)(void *ctx, int cu, uint64_t tag, uint8_t op, uint64_t block, uint64_t value);
    /* The environment's clock, for the statistics that time a miss's parts
     * (NULL: they stay 0). */
    uint64_t (*now)(void *ctx);
};

/* Wake-up reasons passed through env->later. MEM_READ and MEM_WRITE are a
 * directory's requests to memory (its parent when it is the last level):
 * the environment performs them and wakes the node when they are done. */
enum cgm_coh_wake {
    COH_WAKE_RETRY = 1,        /* resend a NACKed request */
    COH_WAKE_WB_DRAIN,         /* a queued victim may leave */
    COH_WAKE_MEM_READ,
    COH_WAKE_MEM_WRITE,
    COH_WAKE_STALLED,          /* run the requests that found the resources full */
    COH_WAKE_L1WB_DRAIN,       /* the data cache's victim leaves for the L2 */
    COH_WAKE_L1WB_DONE,        /* ... and reaches it */
    COH_WAKE_L1_FLUSHED,       /* the data cache acknowledged an L2 victim's flush */
    COH_WAKE_RETRY_UPGRADE,    /* resend a NACKed upgrade whose block the directory still has */
    COH_WAKE_RETRY_CPU_FLUSH,  /* resend a NACKed flush (from the CPU's caches) */
    COH_WAKE_RETRY_GPU_FLUSH,  /* resend a NACKed flush (from the GPU's caches) */
    COH_WAKE_FRC_FETCH,        /* a GPU L2 bank's FRC tags were looked up after the L2's: the miss asks below */
    COH_WAKE_FRC_SWAP,         /* a block in the FRC swaps with its L2 victim (again if none could go) */
};
static inline bool cgm_coh_wake_is_retry(int what)
{
    return what == COH_WAKE_RETRY || what == COH_WAKE_RETRY_UPGRADE || what == COH_WAKE_RETRY_CPU_FLUSH ||
           what == COH_WAKE_RETRY_GPU_FLUSH;
}

/* The GPU side (cus 0: none). */
struct cgm_coh_gpu_config {
    unsigned cus, banks;              /* banks: a power of two, striped in runs of 2^interleave_bits
                                         blocks (0: by block) */
    unsigned interleave_bits;
    unsigned l1_sets, l1_ways, l1_mshr, l1_coalesce, l1_wb_entries;
    unsigned l2_sets, l2_ways, l2_mshr, l2_coalesce, l2_wb_entries; /* per bank */
    /* The vector L1s' and L2 banks' protocol; NULL: the system's if it has
     * GPU controllers, else mesi. */
    const struct cgm_coh_protocol *protocol;
    bool shared_llc;                  /* L2 misses go to the L3 (else to memory) */
    bool coherent;                    /* with shared_llc: the L3 directory tracks the GPU */
    /* When a bank's miss needs its victim to leave first (CUs' copies to
     * flush, data to write back): early (0), the victim goes to the
     * write-back queue and the fetch starts at once; serialized, the way
     * stays transient through the victim's eviction and then the fetch
     * (Multi2Sim; seed 001 Fig. 6.2a). */
    enum cgm_coh_victim_policy { CGM_COH_VICTIM_EARLY, CGM_COH_VICTIM_SERIALIZED } l2_victim_policy;
    /* Each bank's Fetch-and-Replacement Cache (seed 001 Ch. 5-6,
     * models/coh/frc.h): entries (0: none; else a power of two, 4 to 512)
     * in sets of frc_ways (0 or more than entries: fully associative). */
    unsigned l2_frc_entries, l2_frc_ways;
};

struct cgm_coh_config {
    unsigned cores, slices;
    unsigned l1_sets, l1_ways, l1i_sets, l1i_ways;
    unsigned l2_sets, l2_ways;        /* the private L2 */
    unsigned l1_wb_entries;           /* the data cache's write-back queue (into the L2) */
    unsigned l3_sets, l3_ways;        /* per slice */
    unsigned mshr, coalesce, wb_entries; /* the L2's MSHR and write-back queue */
    unsigned l3_wb_entries;
    unsigned l3_mshr;                 /* misses to memory in flight per slice; 0: unbounded.
                                         A miss beyond it is NACKed (seed 001 Sec. 4.5.1) */
    uint64_t blocks;                  /* memory size in blocks (functional values) */
    unsigned block_bytes;             /* a block's bytes, as a message carries it; 0: 64 */
    const struct cgm_coh_protocol *protocol; /* the whole system's; NULL: mesi */
    struct cgm_coh_gpu_config gpu;
};

struct cgm_coh_core_stats {
    /* hits, misses and evictions are the L1s' (data and instruction) */
    uint64_t accesses, hits, misses, upgrades, coalesced, stalls, nacks_received, retries;
    uint64_t evictions, writebacks, wb_hits;
    uint64_t l2_hits, l2_misses, l2_evictions, l1_writebacks, l1_wb_hits;
    /* writebacks counts written blocks sent to the L3 with their data;
     * clean_evictions the unwritten exclusive blocks the L2 gave up with a
     * notice (Evict, no data); the other L2 evictions were silent. */
    uint64_t clean_evictions;
    uint64_t l1_nacks;         /* flush conflicts NACKed by the L2 to the data cache */
    /* Data-cache loads and stores that missed and joined a miss or upgrade
     * of the same block already in flight (secondary misses; fetches and
     * replays of parked requests are not counted). */
    uint64_t l1d_secondary_misses;
    /* the instruction cache's share of accesses, hits, misses, evictions */
    uint64_t fetch_accesses, fetch_hits, fetch_misses, fetch_evictions;
    uint64_t mshr_peak;        /* most MSHR entries in use at once */
    uint64_t wb_queue_peak;    /* most write-back queue entries in use at once */
    uint64_t flushes;          /* CGM_OP_FLUSH_CPU and _GPU requests sent */
    /* self-invalidating protocols: shared blocks dropped at acquires,
     * write-buffer entries sent at releases (self-downgrades), diff
     * messages sent and their data bytes, blocks written back by page
     * downgrades (private to shared) */
    uint64_t self_invalidations, self_downgrades, diffs, diff_bytes, page_downgrades;
};
struct cgm_coh_slice_stats {
    uint64_t requests, hits, misses, nacks_sent, forwards, invalidations, evictions,
             back_invalidations, mem_reads, mem_writes, wb_hits, joins, mshr_nacks;
    uint64_t mshr_used, mshr_peak;
    uint64_t flushes;          /* blocks flushed for a core's CGM_OP_FLUSH_CPU */
    uint64_t untracked_requests, untracked_writebacks; /* a GPU bank's, served untracked */
};
struct cgm_coh_gpu_l1_stats {
    uint64_t accesses, loads, stores, hits, misses;
    uint64_t coalesced;        /* joined a miss of the block in flight, or waited for a way */
    uint64_t stalls;           /* refused: MSHR, coalescer or write-back queue full */
    uint64_t nacks_received, retries, evictions, writebacks, wb_hits, invalidations, joins;
    uint64_t mshr_peak;
    uint64_t self_invalidations, self_downgrades, diffs, diff_bytes; /* as a core's */
};
struct cgm_coh_gpu_l2_stats {
    uint64_t requests, hits, misses, coalesced, nacks_sent, nacks_received, mshr_nacks, retries;
    uint64_t recalls;          /* holders asked for the block back (GetFwd, GetXFwd) */
    uint64_t invalidations, evictions, back_invalidations, writebacks, clean_evictions, wb_hits, joins;
    uint64_t parent_requests, parent_forwards, deferred, mem_reads, mem_writes;
    uint64_t flushes;          /* blocks flushed for a core's CGM_OP_FLUSH_GPU */
    uint64_t full_stalls;      /* times a CU's request had to wait for an MSHR or write-back entry */
    uint64_t mshr_peak;
    uint64_t self_invalidations; /* self-invalidating protocols: shared blocks dropped at system acquires */
    /* gpu.l2.victim_policy = serialized: misses whose fetch waited for
     * their victim, and the time (env->now) they waited for its CUs'
     * copies (invalidate) and for it to leave (evict) */
    uint64_t victim_waits, invalidate_cycles, evict_cycles;
    /* the FRC (gpu.l2.frc_entries): misses it took (the rest, frc_full,
     * found no free entry and were conventional), blocks swapped into the
     * L2, swaps that waited for a victim that could go, and requests that
     * found their block in it leaving (served from or joining the victim) */
    uint64_t frc_fetches, frc_full, frc_swaps, frc_swap_waits, frc_hits;
};

struct cgm_coh_sys;

unsigned cgm_coh_node_count(const struct cgm_coh_sys *s);
enum cgm_coh_node_kind cgm_coh_node_kind(const struct cgm_coh_sys *s, int node);
/* The node's number among the nodes of its kind (core 2, slice 0, ...). */
int cgm_coh_node_index(const struct cgm_coh_sys *s, int node);

/* The lane a message travels on, so that each source-destination pair
 * uses one lane and stays in order: from a node to its directory the
 * request lane, but the answers (class ANSWER in cgm/coh_msgs.def) to a
 * directory that keeps requests it cannot take yet waiting in their lane
 * (a GPU L2 bank, cgm_coh_gpu_bank_admits) travel past them on the
 * coherence lane; from a directory to its node the reply lane; between
 * two nodes neither of which is the other's directory (a block forwarded
 * core to core, a core's flush at a GPU bank) the coherence lane. */
enum cgm_coh_lane { COH_LANE_REQUEST, COH_LANE_REPLY, COH_LANE_COHERENCE };
enum cgm_coh_lane cgm_coh_msg_lane(const struct cgm_coh_sys *s, const struct cgm_coh_msg *m);

unsigned cgm_coh_msg_bytes(const struct cgm_coh_sys *s, const struct cgm_coh_msg *m);

/* NULL on a bad configuration or out of memory, the reason in err. */
struct cgm_coh_sys *cgm_coh_create(const struct cgm_coh_config *cfg, const struct cgm_coh_env *env, char *err,
                                   size_t errlen);
void cgm_coh_destroy(struct cgm_coh_sys *s);

/* A core request. Returns 1 if it completed at once (env->done was
 * called), 0 if it is in flight, -1 if the core cannot take it now (MSHR,
 * coalescer, victim or write-back queue full): try again later. */
int cgm_coh_access(struct cgm_coh_sys *s, int core, const struct cgm_coh_req *r);
/* A compute unit's load or store (CGM_OP_LOAD, CGM_OP_STORE) at its
 * vector L1; returns as cgm_coh_access, completion through env->gpu_done. */
int cgm_coh_gpu_access(struct cgm_coh_sys *s, int cu, const struct cgm_coh_req *r);
/* Drops every copy CU cu's vector L1 holds that its protocol keeps
 * coherent by software (si: every valid copy; buffer_wbinvl1, the start of
 * a kernel); returns how many went (0 under mesi, whose L1s
 * the banks keep coherent). Pending requests are not affected. */
unsigned cgm_coh_gpu_invalidate(struct cgm_coh_sys *s, int cu);
/* Whether the vector L1s' protocol has copies to invalidate (si), so that
 * an invalidation is work to time. */
bool cgm_coh_gpu_invalidates(const struct cgm_coh_sys *s);
void cgm_coh_deliver(struct cgm_coh_sys *s, const struct cgm_coh_msg *m);
void cgm_coh_wake(struct cgm_coh_sys *s, int node, uint64_t block, int what);

/* The protocol kind k's controllers run in s. */
const struct cgm_coh_protocol *cgm_coh_protocol_of(const struct cgm_coh_sys *s, enum cgm_coh_node_kind k);
/* How often each row of protocol p (cgm_coh_protocol_of a kind) was taken,
 * indexed as p->rows; NULL if no controller of s runs p. A protocol and
 * the one it extends count into the same array. */
const uint64_t *cgm_coh_row_counts(const struct cgm_coh_sys *s, const struct cgm_coh_protocol *p);
const uint64_t *cgm_coh_msg_counts(const struct cgm_coh_sys *s);
/* Coherence messages by type that one node sent and received. Nodes are
 * the cores 0..cores-1 (each core's L2, the only cache of a core that
 * exchanges messages: its L1s act on it within the step) and the L3 slices
 * cores..cores+slices-1. Index the arrays with enum cgm_coh_msg_type and
 * name them with cgm_coh_msg_names. */
struct cgm_coh_msg_stats {
    uint64_t sent[COH_NTYPES], received[COH_NTYPES];
};
const struct cgm_coh_msg_stats *cgm_coh_node_msgs(const struct cgm_coh_sys *s, int node);
const struct cgm_coh_core_stats *cgm_coh_core_stats(const struct cgm_coh_sys *s, int core);
const struct cgm_coh_slice_stats *cgm_coh_slice_stats(const struct cgm_coh_sys *s, int slice);
int cgm_coh_slice_of(const struct cgm_coh_sys *s, uint64_t block);
/* Whether the block's L3 slice holds it (a look, not a request). */
bool cgm_coh_l3_holds(const struct cgm_coh_sys *s, uint64_t block);
const struct cgm_coh_gpu_l1_stats *cgm_coh_gpu_l1_stats(const struct cgm_coh_sys *s, int cu);
const struct cgm_coh_gpu_l2_stats *cgm_coh_gpu_l2_stats(const struct cgm_coh_sys *s, int bank);
/* For checkers: the places bank's FRC holds block in (its entries, one
 * more if it fetches or holds the block arrived while the L2 has a line of
 * it too); more than one is a block held twice. */
unsigned cgm_coh_gpu_frc_copies(const struct cgm_coh_sys *s, int bank, uint64_t block);
int cgm_coh_gpu_bank_of(const struct cgm_coh_sys *s, uint64_t block);
/* Whether GPU L2 bank `bank` takes a CU's request now: it has a free MSHR
 * entry and a free write-back entry. A timed scheduler asks before handing
 * it one and otherwise leaves the request in its input queue until an entry
 * frees (seed 000's cache scheduler takes no new request while its
 * outstanding-request table or write-back queue is full); a request handed
 * to a full bank anyway is NACKed. The first refusal after the bank last
 * admitted one is counted (full_stalls). */
bool cgm_coh_gpu_bank_admits(struct cgm_coh_sys *s, int bank);
/* Whether cgm_coh_gpu_bank_admits would now refuse and change nothing,
 * its refusal being counted already: a scheduler that asks each cycle may
 * stop asking until the bank has handled something. */
bool cgm_coh_gpu_bank_refusal_counted(const struct cgm_coh_sys *s, int bank);
/* The coherence node of a CU's vector L1, of a GPU L2 bank. */
int cgm_coh_gpu_l1_node(const struct cgm_coh_sys *s, int cu);
int cgm_coh_gpu_l2_node(const struct cgm_coh_sys *s, int bank);

/* For checkers: the newest copy of block core c holds. Returns its state
 * in the cores' protocol (0 if none; cgm_coh_protocol_of(s, CGM_NODE_CORE)
 * names it and says what it permits) and the data through *data. Looked
 * for in order: the data cache, its write-back queue (the core's newest
 * data even once sent to the L2), the L2, the L2's write-back queue entry
 * not yet sent, the instruction cache. */
unsigned cgm_coh_core_copy(const struct cgm_coh_sys *s, int core, uint64_t block, uint64_t *data);
/* For checkers: the copy of block CU cu's vector L1 holds (its array,
 * then its write-back queue), as cgm_coh_core_copy, in the vector L1s'
 * protocol. */
unsigned cgm_coh_gpu_copy(const struct cgm_coh_sys *s, int cu, uint64_t block, uint64_t *data);
/* The GPU L2 bank's own copy of block, readable when no CU holds it
 * exclusively: its state in the banks' protocol (0 if it has no readable
 * copy) and its data. */
unsigned cgm_coh_gpu_l2_copy(const struct cgm_coh_sys *s, uint64_t block, uint64_t *data);
/* What the checkers hold a block's copies to: NULL if census (the copies
 * the agents of protocol p hold) agrees with p's invariant, else what is
 * wrong. */
const char *cgm_coh_check_census(const struct cgm_coh_protocol *p, const struct cgm_coh_census *census);
/* Prints every controller's view of block (for deadlock reports). */
void cgm_coh_dump_block(const struct cgm_coh_sys *s, uint64_t block, FILE *out);

#endif
