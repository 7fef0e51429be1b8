/* Guest memory: a sparse, page-granular 47-bit address space with
 * permissions. A three-level radix table maps guest pages to host pages;
 * each guest mapping is backed by a host MAP_NORESERVE mapping, so only
 * pages the guest touches cost host memory. What the guest may map is
 * bounded (gmem_set_limit): every page it can access counts in full, as
 * if touched, and so do the tables, so no guest drives the host out of
 * memory. */
#ifndef TRACEGEN_X86_MEM_H
#define TRACEGEN_X86_MEM_H

#include <stddef.h>
#include <stdint.h>

#define GPAGE_SHIFT 12
#define GPAGE_SIZE  4096ull
#define GPAGE_MASK  (GPAGE_SIZE - 1)
#define GADDR_LIMIT (1ull << 47)
/* The bound of a new gmem until gmem_set_limit changes it. */
#define GMEM_MAPPED_LIMIT (64ull << 30)

enum {
    GPROT_R = 1,
    GPROT_W = 2,
    GPROT_X = 4,
    GPROT_CODE = 8, /* decoded instructions were cached from this page */
    GPROT_SHARED = 16, /* a page of a file, shared with it (gmem_map_shared_file) */
};

struct gmem;

struct gmem *gmem_create(void);
void gmem_destroy(struct gmem *m);

/* Bounds gmem_host_bytes: maps and protection changes that would pass
 * BYTES fail. */
void gmem_set_limit(struct gmem *m, uint64_t bytes);
uint64_t gmem_limit(const struct gmem *m);
/* What the guest's memory may cost the host: accessible pages in full and
 * the tables; and the tables alone. */
uint64_t gmem_host_bytes(const struct gmem *m);
uint64_t gmem_table_bytes(const struct gmem *m);

/* Maps [ADDR, ADDR+LEN) (page aligned) as fresh zeroed memory, replacing
 * whatever was there. Returns 0, or -1 when the range is not canonical or
 * the limit would be passed. */
int gmem_map(struct gmem *m, uint64_t addr, uint64_t len, int prot);
/* Maps [ADDR, ADDR+LEN) (page aligned) onto the bytes of host file FD
 * from offset OFF (page aligned), shared with the file as a host
 * MAP_SHARED mapping: the guest's stores are the file's contents at once,
 * and the file's changes show in the pages. The range must lie within the
 * file: a page past its end would raise SIGBUS in tracegen. Returns 0, or
 * -1 as gmem_map does or when the host refuses the mapping. */
int gmem_map_shared_file(struct gmem *m, uint64_t addr, uint64_t len, int prot, int fd,
                         uint64_t off);
/* Unmaps the pages of the range that are mapped. Costs what is mapped,
 * whatever the range's size. */
void gmem_unmap(struct gmem *m, uint64_t addr, uint64_t len);
/* Changes permissions; -1 (ENOMEM semantics) when a page is unmapped or
 * the limit would be passed. */
int gmem_protect(struct gmem *m, uint64_t addr, uint64_t len, int prot);
/* Zeroes the mapped pages of the range, giving their host memory back
 * (pages shared with a file read back its contents, as natively).
 * Returns -1 (ENOMEM semantics) when part of the range is unmapped. */
int gmem_discard(struct gmem *m, uint64_t addr, uint64_t len);
/* 1 when every page of the range is mapped. */
int gmem_is_mapped(const struct gmem *m, uint64_t addr, uint64_t len);

/* The host address of the guest page holding ADDR and its permission
 * bits, or NULL when unmapped. */
uint8_t *gmem_page(const struct gmem *m, uint64_t addr, int *prot);
/* Marks/clears the CODE bit of the page holding ADDR. */
void gmem_set_code(struct gmem *m, uint64_t addr, int on);

/* Copies between guest and host, honouring permissions (need read for
 * copy_in, write for copy_out unless FORCE). Return 0, or -1 at a fault
 * with *FAULT set to the faulting guest address. */
int gmem_copy_in(const struct gmem *m, void *dst, uint64_t src, size_t n,
                 uint64_t *fault);
int gmem_copy_out(struct gmem *m, uint64_t dst, const void *src, size_t n,
                  int force, uint64_t *fault);
/* Reads a NUL-terminated string of at most MAX bytes (NUL included).
 * Returns its length, or -1 on a fault or when it is too long. */
long gmem_read_str(const struct gmem *m, char *dst, uint64_t src, size_t max);

/* Generation counter, bumped by every unmap/protect so caches of page
 * translations can tell they are stale. */
uint64_t gmem_generation(const struct gmem *m);
/* Where that counter lives, for a cheap check per block. */
const uint64_t *gmem_generation_ptr(const struct gmem *m);

#endif
