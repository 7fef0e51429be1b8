/* Private/shared classification of pages for a directory-less protocol
 * (seed 002 Sec. 2.2, VIPS-G), kept beside the page table, one entry per
 * physical frame, as the TLBs would learn it on a miss: flat among the
 * CPU's cores (a page a second core touches stays shared until it is
 * unmapped), adaptive between the devices, the whole GPU counted as one
 * logical core (its page leaves the classification when it leaves the
 * GPU's TLB: a page only one core then uses is private to it again).
 *
 * A page is private to the one agent (a core, or the GPU) that uses it,
 * shared otherwise. A TLB miss that makes a private page shared is a
 * private-to-shared transition: the previous owner's written blocks of the
 * page must go back (CGM_OP_DOWNGRADE, cgm/coh.h) before the access. */
#ifndef CGM_PAGE_CLASS_H
#define CGM_PAGE_CLASS_H

#include <stdbool.h>
#include <stdint.h>

/* Agents: cores 0..63, and the GPU. */
enum { CGM_PAGE_AGENT_GPU = 64 };
enum cgm_page_kind { CGM_PAGE_UNUSED, CGM_PAGE_PRIVATE_CPU, CGM_PAGE_PRIVATE_GPU, CGM_PAGE_SHARED, CGM_PAGE_KINDS };

struct cgm_page_class_stats {
    uint64_t pages[CGM_PAGE_KINDS];  /* pages in each class now */
    uint64_t to_shared, to_private;  /* transitions: private to shared, shared to private */
    uint64_t downgrades;             /* to_shared from a core (its written blocks go back) */
};

/* What a TLB miss learns. */
struct cgm_page_class_touch {
    bool shared;      /* the page is shared now */
    int downgrade;    /* the core whose blocks of the page must be downgraded first; -1 none */
};

struct cgm_page_class;
/* Frames 0..frames-1; NULL if out of memory. */
struct cgm_page_class *cgm_page_class_create(uint64_t frames);
void cgm_page_class_destroy(struct cgm_page_class *pc);
/* Agent (a core, or CGM_PAGE_AGENT_GPU) missed its TLB on frame pfn. */
struct cgm_page_class_touch cgm_page_class_touch(struct cgm_page_class *pc, uint64_t pfn, unsigned agent);
/* Whether frame pfn's page is shared now (what a TLB entry holds). */
bool cgm_page_class_shared(const struct cgm_page_class *pc, uint64_t pfn);
/* The GPU's TLB gave up frame pfn's translation. */
void cgm_page_class_gpu_left(struct cgm_page_class *pc, uint64_t pfn);
/* Frame pfn was unmapped: unused again. */
void cgm_page_class_forget(struct cgm_page_class *pc, uint64_t pfn);
enum cgm_page_kind cgm_page_class_kind(const struct cgm_page_class *pc, uint64_t pfn);
const struct cgm_page_class_stats *cgm_page_class_stats(const struct cgm_page_class *pc);

#endif
