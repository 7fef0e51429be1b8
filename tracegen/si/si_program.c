/* Code-object loader (libelf): maps the PT_LOAD segments into one image at
 * their virtual addresses, turns every NAME.kd symbol into a kernel with its
 * AMDHSA descriptor, and hands the NT_AMDGPU_METADATA note to the metadata
 * reader.  Input is untrusted: every size and address is bounds-checked. */
#include "tracegen/si/si_elf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgm/input.h"

enum {
    KD_SIZE = 64,
    NT_AMDGPU_METADATA = 32,
    MAX_FILE = 256u << 20,
    MAX_IMAGE = 256u << 20,
    MAX_KERNELS = 4096
};

#ifndef EM_AMDGPU
#define EM_AMDGPU 224
#endif

int si_elf_fail(const char *name, char *err, size_t errlen, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (errlen)
        snprintf(err, errlen, "%s: %s", name, msg);
    return -1;
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

struct si_kernel_setup si_kernel_setup_from(const struct si_kernel_descriptor *kd)
{
    struct si_kernel_setup s;
    uint32_t r1 = kd->rsrc1, r2 = kd->rsrc2, pr = kd->properties;
    memset(&s, 0, sizeof s);
    s.vgprs = ((r1 & 0x3f) + 1) * 4;
    s.sgprs = (((r1 >> 6) & 0xf) + 1) * 8;
    s.float_round_32 = (r1 >> 12) & 3;
    s.float_round_64 = (r1 >> 14) & 3;
    s.float_denorm_32 = (r1 >> 16) & 3;
    s.float_denorm_64 = (r1 >> 18) & 3;
    s.dx10_clamp = (r1 >> 21) & 1;
    s.ieee_mode = (r1 >> 23) & 1;
    s.scratch_en = r2 & 1;
    s.user_sgpr_count = (r2 >> 1) & 0x1f;
    for (int d = 0; d < 3; d++)
        s.workgroup_id[d] = (r2 >> (7 + d)) & 1;
    s.workgroup_info = (r2 >> 10) & 1;
    s.workitem_id_dims = (r2 >> 11) & 3;
    s.private_segment_buffer = pr & 1;
    s.dispatch_ptr = (pr >> 1) & 1;
    s.queue_ptr = (pr >> 2) & 1;
    s.kernarg_segment_ptr = (pr >> 3) & 1;
    s.dispatch_id = (pr >> 4) & 1;
    s.flat_scratch_init = (pr >> 5) & 1;
    s.private_segment_size = (pr >> 6) & 1;
    return s;
}

static int map_segments(Elf *elf, const char *name, const uint8_t *file, size_t fsize,
                        struct si_program *p, char *err, size_t errlen)
{
    size_t n;
    if (elf_getphdrnum(elf, &n) != 0)
        return si_elf_fail(name, err, errlen, "cannot read the program headers: %s", elf_errmsg(-1));
    uint64_t end = 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph))
            return si_elf_fail(name, err, errlen, "program header %zu unreadable", i);
        if (ph.p_type != PT_LOAD)
            continue;
        if (ph.p_filesz > ph.p_memsz || ph.p_offset > fsize || ph.p_filesz > fsize - ph.p_offset)
            return si_elf_fail(name, err, errlen, "segment %zu (file offset 0x%llx) lies outside the file",
                        i, (unsigned long long)ph.p_offset);
        if (ph.p_vaddr > MAX_IMAGE || ph.p_memsz > MAX_IMAGE - ph.p_vaddr)
            return si_elf_fail(name, err, errlen, "segment %zu at 0x%llx is larger than %u MiB", i,
                        (unsigned long long)ph.p_vaddr, MAX_IMAGE >> 20);
        if (ph.p_vaddr + ph.p_memsz > end)
            end = ph.p_vaddr + ph.p_memsz;
    }
    if (end == 0)
        return si_elf_fail(name, err, errlen, "no loadable segment");
    p->image = calloc(1, end);
    if (!p->image)
        return si_elf_fail(name, err, errlen, "out of memory for a %llu-byte image",
                    (unsigned long long)end);
    p->image_size = end;
    p->text_start = end;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        memcpy(p->image + ph.p_vaddr, file + ph.p_offset, ph.p_filesz);
        if (ph.p_flags & PF_X) {
            if (ph.p_vaddr < p->text_start)
                p->text_start = ph.p_vaddr;
            if (ph.p_vaddr + ph.p_memsz > p->text_end)
                p->text_end = ph.p_vaddr + ph.p_memsz;
        }
    }
    if (p->text_end == 0)
        return si_elf_fail(name, err, errlen, "no executable segment");
    return 0;
}

static int add_kernel(struct si_program *p, const char *sym, uint64_t addr, const char *name,
                      char *err, size_t errlen)
{
    size_t len = strlen(sym) - 3;
    if (len == 0 || len >= SI_NAME_MAX)
        return si_elf_fail(name, err, errlen, "kernel symbol '%s' has a bad name length", sym);
    if (addr > p->image_size || p->image_size - addr < KD_SIZE)
        return si_elf_fail(name, err, errlen, "descriptor %s at 0x%llx lies outside the image", sym,
                    (unsigned long long)addr);
    for (size_t i = 0; i < p->nkernels; i++)
        if (strncmp(p->kernels[i].name, sym, len) == 0 && p->kernels[i].name[len] == '\0')
            return 0;   /* listed in both .symtab and .dynsym */
    if (p->nkernels >= MAX_KERNELS)
        return si_elf_fail(name, err, errlen, "more than %d kernels", MAX_KERNELS);
    struct si_kernel *ks = realloc(p->kernels, (p->nkernels + 1) * sizeof *ks);
    if (!ks)
        return si_elf_fail(name, err, errlen, "out of memory");
    p->kernels = ks;
    struct si_kernel *k = &ks[p->nkernels++];
    memset(k, 0, sizeof *k);
    memcpy(k->name, sym, len);
    const uint8_t *d = p->image + addr;
    k->kd_address = addr;
    k->kd.group_segment_fixed_size = rd32(d + 0);
    k->kd.private_segment_fixed_size = rd32(d + 4);
    k->kd.kernarg_size = rd32(d + 8);
    k->kd.entry_byte_offset = (int64_t)rd64(d + 16);
    k->kd.rsrc1 = rd32(d + 48);
    k->kd.rsrc2 = rd32(d + 52);
    k->kd.properties = (uint16_t)(d[56] | d[57] << 8);
    k->setup = si_kernel_setup_from(&k->kd);
    k->entry = addr + (uint64_t)k->kd.entry_byte_offset;
    if (k->entry >= p->image_size || (k->entry & 3))
        return si_elf_fail(name, err, errlen, "kernel %s: entry 0x%llx is outside the image or unaligned",
                    k->name, (unsigned long long)k->entry);
    return 0;
}

/* Decodes every instruction of the executable span once, for the emulator. */
static int decode_text(struct si_program *p, const char *name, char *err, size_t errlen)
{
    uint64_t words = (p->text_end - p->text_start) / 4 + 1;
    p->insts = calloc(words, sizeof *p->insts);
    if (!p->insts)
        return si_elf_fail(name, err, errlen, "out of memory for %llu decoded words",
                    (unsigned long long)words);
    for (uint64_t off = p->text_start; off + 4 <= p->text_end; off += 4)
        cgm_si_decode(p->image + off, p->text_end - off, &p->insts[(off - p->text_start) / 4]);
    return 0;
}

static int find_kernels(Elf *elf, const char *name, struct si_program *p, char *err,
                        size_t errlen)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        if (!data || sh.sh_entsize == 0)
            continue;
        size_t count = sh.sh_size / sh.sh_entsize;
        for (size_t i = 0; i < count; i++) {
            GElf_Sym s;
            if (!gelf_getsym(data, (int)i, &s))
                return si_elf_fail(name, err, errlen, "symbol %zu unreadable", i);
            const char *sym = elf_strptr(elf, sh.sh_link, s.st_name);
            if (!sym || GELF_ST_TYPE(s.st_info) != STT_OBJECT)
                continue;
            size_t len = strlen(sym);
            if (len > 3 && strcmp(sym + len - 3, ".kd") == 0 &&
                add_kernel(p, sym, s.st_value, name, err, errlen))
                return -1;
        }
    }
    return 0;
}

int si_elf_metadata_notes(Elf *elf, int (*fn)(void *ctx, const void *desc, size_t len,
                                              uint64_t file_offset),
                          void *ctx)
{
    Elf_Scn *scn = NULL;
    int found = 0;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        size_t off = 0, noff, doff;
        GElf_Nhdr nh;
        while (data && (off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
            const char *owner = (const char *)data->d_buf + noff;
            if (nh.n_type != NT_AMDGPU_METADATA || nh.n_namesz != 7 ||
                memcmp(owner, "AMDGPU", 7) != 0)
                continue;
            found++;
            if (fn(ctx, (const char *)data->d_buf + doff, nh.n_descsz, sh.sh_offset + doff))
                return -1;
        }
    }
    return found;
}

struct notes_ctx {
    struct si_program *p;
    const char *name;
    char *err;
    size_t errlen;
};

static int parse_note(void *ctx, const void *desc, size_t len, uint64_t file_offset)
{
    struct notes_ctx *n = ctx;
    char why[200];
    if (si_metadata_parse(desc, len, n->p, why, sizeof why))
        return si_elf_fail(n->name, n->err, n->errlen, "%s (note at file offset 0x%llx)", why,
                    (unsigned long long)file_offset);
    return 0;
}

static int read_notes(Elf *elf, const char *name, struct si_program *p, char *err, size_t errlen)
{
    struct notes_ctx n = { p, name, err, errlen };
    int found = si_elf_metadata_notes(elf, parse_note, &n);
    if (found < 0)
        return -1;
    if (!found && p->nkernels)
        return si_elf_fail(name, err, errlen, "no NT_AMDGPU_METADATA note (code object v3 or later needed)");
    return 0;
}

int si_program_load_memory(const void *data, size_t size, const char *name,
                           struct si_program *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", name);
    if (elf_version(EV_CURRENT) == EV_NONE)
        return si_elf_fail(name, err, errlen, "libelf is unusable");
    char *copy = malloc(size ? size : 1);
    if (!copy)
        return si_elf_fail(name, err, errlen, "out of memory");
    memcpy(copy, data, size);
    Elf *elf = elf_memory(copy, size);
    int rc = -1;
    GElf_Ehdr eh;
    if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
        si_elf_fail(name, err, errlen, "not an ELF file");
    } else if (gelf_getclass(elf) != ELFCLASS64 || eh.e_machine != EM_AMDGPU) {
        si_elf_fail(name, err, errlen, "not a 64-bit AMDGPU code object (e_machine %u)", eh.e_machine);
    } else if (!si_refuse_target(elf, &eh, name, err, errlen) &&
               !si_refuse_unresolved(elf, name, err, errlen) &&
               !map_segments(elf, name, data, size, out, err, errlen) &&
               !si_read_relocations(elf, name, out, err, errlen) &&
               !decode_text(out, name, err, errlen) &&
               !find_kernels(elf, name, out, err, errlen) &&
               !read_notes(elf, name, out, err, errlen) &&
               !si_refuse_arguments(out, name, err, errlen)) {
        rc = 0;
    }
    if (elf)
        elf_end(elf);
    free(copy);
    if (rc)
        si_program_free(out);
    return rc;
}

int si_program_load(const char *path, struct si_program *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char why[512];
    FILE *f = cgm_fopen_input(path, why, sizeof why);
    if (!f) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (len < 0 || (unsigned long)len > MAX_FILE) {
        fclose(f);
        return si_elf_fail(path, err, errlen, "size %ld is not between 0 and %u MiB", len, MAX_FILE >> 20);
    }
    uint8_t *buf = malloc(len ? (size_t)len : 1);
    size_t got = buf ? fread(buf, 1, (size_t)len, f) : 0;
    fclose(f);
    if (!buf || got != (size_t)len) {
        free(buf);
        return si_elf_fail(path, err, errlen, "cannot read");
    }
    int rc = si_program_load_memory(buf, got, path, out, err, errlen);
    free(buf);
    return rc;
}

void si_program_free(struct si_program *p)
{
    for (size_t i = 0; i < p->nkernels; i++)
        free(p->kernels[i].args);
    free(p->kernels);
    free(p->relocs);
    free(p->insts);
    free(p->image);
    memset(p, 0, sizeof *p);
}

const struct si_kernel *si_program_kernel(const struct si_program *p, const char *name)
{
    for (size_t i = 0; i < p->nkernels; i++)
        if (strcmp(p->kernels[i].name, name) == 0)
            return &p->kernels[i];
    return NULL;
}
