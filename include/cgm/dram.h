/* DRAM model: channels, ranks, bank groups, banks and rows behind an FR-FCFS
 * memory controller, stepped one DRAM clock at a time in its own clock domain.
 *
 * Every timing parameter is in DRAM command-clock cycles (nCK). The data bus
 * is double data rate: a burst of BL beats occupies BL/2 cycles and moves
 * BL * bus_bits / 8 bytes. Read latency RL = AL + CL, write latency
 * WL = AL + CWL, both to the first data beat. */
#ifndef CGM_DRAM_H
#define CGM_DRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cgm/stats.h"

struct cgm_dram_timing {
    double   tck_ns;     /* command clock period */
    unsigned bl;         /* burst length in beats (even) */
    unsigned cl, cwl, al;
    unsigned rcd, rp, ras, rc;
    unsigned wr, rtp;
    unsigned wtr_l, wtr_s;   /* write to read, same / other bank group */
    unsigned rrd_l, rrd_s;   /* activate to activate, same / other bank group */
    unsigned ccd_l, ccd_s;   /* column to column, same / other bank group */
    unsigned faw;            /* at most four activates per rank in any faw window */
    unsigned rtrs;           /* data-bus turnaround between ranks */
    unsigned rfc;            /* refresh cycle time */
    unsigned refi;           /* refresh interval; 0 turns refresh off */
};

/* One device's supply and IDD currents (mA) as a datasheet gives them, for
 * energy by DRAMPower's arithmetic (replay's [energy]): IDD0 an ACT-PRE
 * cycle every tRC, IDD2N precharged standby, IDD3N active standby, IDD4R
 * and IDD4W bursts, IDD5 refresh. A rank has bus_bits / device_bits
 * devices. The controller never powers a rank down, so IDD2P and IDD3P
 * have no use here. */
struct cgm_dram_power {
    double vdd, idd0, idd2n, idd3n, idd4r, idd4w, idd5;
    unsigned device_bits;
};

enum cgm_dram_page_policy { CGM_DRAM_OPEN_PAGE, CGM_DRAM_CLOSED_PAGE };

/* How a write queue drains (see write_queue_size). */
enum cgm_dram_write_drain {
    /* Also whenever nothing waits to be scheduled (no read queued; with
     * bank queues, those empty) and a write waits; a drain stops at
     * write_low writes when reads wait (Ramulator's and USIMM's rule). */
    CGM_DRAM_DRAIN_IDLE,
    /* With nothing waiting to be scheduled, only once more than write_low
     * writes wait (fewer stay queued); a drain takes the writes queued at
     * its start and only them, then stops whether reads wait or not. Taking
     * a write is writing it without bank queues (reads wait until the
     * drain's last write), moving it to its bank queue with them (reads
     * already there keep issuing beside the writes; the reads queued behind
     * wait). With bank_queue_size = 8, write_high = write_queue_size and
     * write_low = 8 this is DRAMsim3's controller. */
    CGM_DRAM_DRAIN_WATERMARK
};

/* Address fields, named in mapping strings as "row", "rank", "bank", "bg",
 * "chan" and "col". */
enum cgm_dram_field {
    CGM_DRAM_F_ROW, CGM_DRAM_F_RANK, CGM_DRAM_F_BG, CGM_DRAM_F_BANK,
    CGM_DRAM_F_CHAN, CGM_DRAM_F_COL, CGM_DRAM_NFIELDS
};

#define CGM_DRAM_MAPPING_MAX 64

struct cgm_dram_config {
    char preset[32];
    struct cgm_dram_timing t;
    struct cgm_dram_power power;
    unsigned channels, ranks, bank_groups, banks_per_group;
    unsigned rows;       /* per bank */
    unsigned columns;    /* per row, in bus-width units */
    unsigned bus_bits;   /* data bus width of a channel */
    enum cgm_dram_page_policy page_policy;
    unsigned queue_size; /* transaction queue entries per channel (reads only
                            when there is a write queue) */
    /* Write queue per channel; 0: reads and writes share the transaction
     * queue. With one, writes are acknowledged when queued and written in
     * drains: a drain starts when write_high writes are queued, or when no
     * read is queued and writes wait; write_drain says how many must wait
     * then and when a drain stops. */
    unsigned write_queue_size, write_high, write_low;
    enum cgm_dram_write_drain write_drain;
    /* Per-bank command queues between the transaction queues and the
     * scheduler; 0: none, the scheduler picks FR-FCFS from the transaction
     * queue (reads or, in a drain, writes). With them, one request a cycle
     * moves from the transaction queue a drain says (the oldest whose bank
     * queue has room) to its bank's queue, and the scheduler looks at the
     * banks in turn from the one after the last that issued, taking in a
     * bank's queue the first request, read or write, whose next command may
     * issue (a precharge only for the oldest, and while a request for the
     * open row waits only once hit_cap column commands used the row). */
    unsigned bank_queue_size;
    unsigned hit_cap;    /* row hits served ahead of an older conflicting request */
    /* Fields from the most to the least significant address bit, separated
     * by ':'; the burst offset lies below them. Every field appears once. */
    char mapping[CGM_DRAM_MAPPING_MAX];
};

/* Fills cfg with a named preset: "DDR3-1600", "DDR4-2400" or "GDDR5".
 * Returns 0, or -1 if the name is unknown. */
int cgm_dram_preset(const char *name, struct cgm_dram_config *cfg);
/* The preset names, NULL-terminated. */
extern const char *const cgm_dram_preset_names[];
/* The presets' names as a list: "DDR3-1600, DDR4-2400" then LAST_SEP
 * (", " or " or ") before the last one; cut short to fit LEN. */
void cgm_dram_preset_list(const char *last_sep, char *buf, size_t len);

/* Checks a configuration: powers of two where the address mapping needs
 * them, a complete mapping, timings the controller can honour. On error
 * writes a one-line reason to err and returns -1. */
int cgm_dram_config_validate(const struct cgm_dram_config *cfg, char *err, size_t errlen);

/* Sets one [dram] key from its text (the one table of [dram] keys). "preset"
 * replaces every value that still comes from the previous preset; values
 * set away from it stay, so a preset may come before or after the keys it
 * should not override. On error writes a reason naming the key (without a
 * file or line: the reader of the file adds them) and returns -1. */
int cgm_dram_config_set(struct cgm_dram_config *cfg, const char *key, const char *value, char *err,
                        size_t errlen);
/* The same for a section of another name holding the same keys (replay's
 * [gpu.dram]): its messages name SECTION instead of dram. */
int cgm_dram_config_set_in(struct cgm_dram_config *cfg, const char *section, const char *key, const char *value,
                           char *err, size_t errlen);
/* Whether KEY is a [dram] key that takes one whole number (the timings in
 * nCK, the geometry, the queues: not preset, tCK_ns, page_policy, mapping
 * nor the tWTR/tRRD/tCCD pairs); if so, its range. */
bool cgm_dram_config_uint_key(const char *key, unsigned *min, unsigned *max);
/* Prints every [dram] key, each under a comment saying what it is, as INI
 * lines (no section header) that cgm_dram_config_set reads back. */
void cgm_dram_config_print(const struct cgm_dram_config *cfg, FILE *out);

/* Bytes moved by one burst, and the peak bandwidth of all channels. */
unsigned cgm_dram_burst_bytes(const struct cgm_dram_config *cfg);
double cgm_dram_peak_gbytes_per_s(const struct cgm_dram_config *cfg);

/* ---- address mapping --------------------------------------------------- */
struct cgm_dram_addr {
    unsigned chan, rank, bg, bank; /* bank within its group */
    uint32_t row, col;             /* col counts bursts within the row */
};

struct cgm_dram_map {
    unsigned offset_bits;                 /* burst offset below the fields */
    unsigned shift[CGM_DRAM_NFIELDS];
    unsigned bits[CGM_DRAM_NFIELDS];
};

int cgm_dram_map_init(struct cgm_dram_map *m, const struct cgm_dram_config *cfg,
                      char *err, size_t errlen);
struct cgm_dram_addr cgm_dram_map_decode(const struct cgm_dram_map *m, uint64_t addr);
uint64_t cgm_dram_map_encode(const struct cgm_dram_map *m, const struct cgm_dram_addr *a);

/* ---- commands and their observer -------------------------------------- */
enum cgm_dram_cmd { CGM_DRAM_ACT, CGM_DRAM_PRE, CGM_DRAM_RD, CGM_DRAM_WR, CGM_DRAM_REF };
const char *cgm_dram_cmd_name(enum cgm_dram_cmd c);

struct cgm_dram_command {
    uint64_t cycle;
    enum cgm_dram_cmd cmd;
    unsigned chan, rank, bg, bank;
    uint32_t row; /* ACT, RD, WR: the row addressed */
    /* REF of an idle rank over a long stretch (cgm_dram_skip_idle): `times`
     * refreshes, the first at `cycle`, `every` cycles apart (0 or 1: one) */
    uint64_t times, every;
};

typedef void (*cgm_dram_observer_fn)(void *ctx, const struct cgm_dram_command *c);

/* ---- the controller ------------------------------------------------------ */
struct cgm_dram_request {
    uint64_t addr;
    bool write;
    uint64_t arrival;   /* DRAM cycle the request reached the controller */
    void *tag;          /* the caller's */
};

/* Called when a read's last data beat has crossed the bus (or it was served
 * from the write queue), and when a write is acknowledged: queued in the
 * write queue, or without one, its last beat has crossed the bus; done is
 * the DRAM cycle. */
typedef void (*cgm_dram_done_fn)(void *ctx, const struct cgm_dram_request *r, uint64_t done);

#define CGM_DRAM_HIST_BUCKETS 24  /* latency buckets [2^(i-1), 2^i), bucket 0 holds 0 */

struct cgm_dram_stats {
    uint64_t reads, writes;  /* requests completed (a queued write is complete
                                when acknowledged) */
    uint64_t reads_forwarded; /* reads served from the write queue */
    uint64_t writes_merged;   /* writes to a block whose write was still queued */
    uint64_t write_drains;    /* switches from reading to writing */
    uint64_t row_hits;       /* column command to an already open row */
    uint64_t row_misses;     /* request needed an activate (closed or conflicting row) */
    uint64_t row_conflicts;  /* subset of row_misses that needed a precharge first */
    uint64_t activates, precharges, refreshes;
    uint64_t read_bursts, write_bursts; /* column commands (for energy: replay's [energy]) */
    uint64_t read_latency_sum, write_latency_sum;
    uint64_t read_latency_max;
    uint64_t read_hist[CGM_DRAM_HIST_BUCKETS];
    uint64_t queue_full_stalls;   /* enqueue attempts refused */
    uint64_t queue_occupancy_sum; /* summed over channels and cycles */
    uint64_t cycles;
    uint64_t first_arrival, last_done;
    bool any;
};

struct cgm_dram;

/* Returns NULL and writes err on a bad configuration or out of memory. */
struct cgm_dram *cgm_dram_create(const struct cgm_dram_config *cfg, char *err, size_t errlen);
void cgm_dram_destroy(struct cgm_dram *d);
void cgm_dram_set_done(struct cgm_dram *d, cgm_dram_done_fn fn, void *ctx);
void cgm_dram_set_observer(struct cgm_dram *d, cgm_dram_observer_fn fn, void *ctx);
const struct cgm_dram_config *cgm_dram_config_of(const struct cgm_dram *d);
const struct cgm_dram_map *cgm_dram_map_of(const struct cgm_dram *d);

/* Whether the channel that addr maps to has room for a request of either
 * kind. */
bool cgm_dram_can_accept(const struct cgm_dram *d, uint64_t addr);
/* Whether cgm_dram_enqueue would take r now. */
bool cgm_dram_can_enqueue(const struct cgm_dram *d, const struct cgm_dram_request *r);
/* Queues r (copied). Returns 0, or -1 if the queue it needs is full. A read
 * of a block with a write in the write queue is served from that queue one
 * cycle later; so is the acknowledgement of a queued write. */
int cgm_dram_enqueue(struct cgm_dram *d, const struct cgm_dram_request *r);
/* Advances one DRAM cycle: completions due now, refresh, then at most one
 * command per channel. */
void cgm_dram_tick(struct cgm_dram *d);
uint64_t cgm_dram_now(const struct cgm_dram *d);
/* Requests queued or with data still in flight, but not the writes that the
 * watermark drain policy holds while no read is queued (they issue nothing
 * until more requests come). */
unsigned cgm_dram_pending(const struct cgm_dram *d);
/* Writes in the write queues (acknowledged, not yet written). */
unsigned cgm_dram_writes_queued(const struct cgm_dram *d);
/* Jumps an idle controller (nothing pending) forward to cycle `to`,
 * issuing the refreshes that fall in between. */
void cgm_dram_skip_idle(struct cgm_dram *d, uint64_t to);
const struct cgm_dram_stats *cgm_dram_stats(const struct cgm_dram *d);
/* Rank-cycles with at least one bank open (active standby), summed over
 * the ranks of every channel up to now; the other rank-cycles of
 * channels * ranks * cycles are precharged standby. */
uint64_t cgm_dram_active_standby_cycles(const struct cgm_dram *d);

/* Registers the statistics as the object "dram" in group (cgm/stats.h):
 * counts, latency sums and averages in DRAM cycles, bandwidth in GB/s over
 * the active span, the read latency histogram. Returns the object. */
cgm_stat cgm_dram_stats_register(const struct cgm_dram *d, struct cgm_stats *reg, cgm_stat group);
/* Writes those statistics as a JSON object. Returns 0 or -1. */
int cgm_dram_stats_write_json(const struct cgm_dram *d, FILE *out);

/* ---- independent timing checker ---------------------------------------- */
struct cgm_dram_checker;

/* The checker re-derives every constraint from the configuration, keeps
 * its own bank state and a window of past commands, and checks each new
 * command pairwise against that window. */
struct cgm_dram_checker *cgm_dram_checker_create(const struct cgm_dram_config *cfg);
void cgm_dram_checker_destroy(struct cgm_dram_checker *k);
/* An observer function: pass it with the checker as ctx. */
void cgm_dram_checker_observe(void *checker, const struct cgm_dram_command *c);
/* Checks the refresh interval up to cycle `now` (call at the end of a run). */
void cgm_dram_checker_finish(struct cgm_dram_checker *k, uint64_t now);
uint64_t cgm_dram_checker_violations(const struct cgm_dram_checker *k);
uint64_t cgm_dram_checker_commands(const struct cgm_dram_checker *k);
/* The first violation found, or "" if none. */
const char *cgm_dram_checker_first_error(const struct cgm_dram_checker *k);

/* ---- the DRAM-only driver (replay --dram-trace) ------------------------ */
/* Runs a trace of "ADDRESS READ|WRITE CYCLE" lines through a controller.
 * Returns 0, or -1 with a message naming the file and line in err. */
int cgm_dram_run_trace(struct cgm_dram *d, FILE *in, const char *name, char *err, size_t errlen);

#endif
