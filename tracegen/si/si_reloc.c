/* Dynamic relocations of a code object.  ld.lld -shared leaves one
 * R_AMDGPU_RELATIVE64 per program-scope pointer initialised with an address
 * (`__constant int *__constant p = &table[1];`): the slot must hold the
 * image's guest address plus the addend, known only when the driver places
 * the image.  Every other relocation names a symbol the loader would have
 * to resolve (it links nothing) and is refused. */
#include "tracegen/si/si_elf.h"

#include <stdio.h>
#include <stdlib.h>

enum { R_AMDGPU_ABS64 = 3, R_AMDGPU_RELATIVE64 = 13, MAX_RELOCS = 1 << 20 };

/* LLVM's names (ELFRelocs/AMDGPU.def) for the messages. */
static const char *reloc_name(unsigned type)
{
    static const char *const names[] = {
        "R_AMDGPU_NONE", "R_AMDGPU_ABS32_LO", "R_AMDGPU_ABS32_HI", "R_AMDGPU_ABS64",
        "R_AMDGPU_REL32", "R_AMDGPU_REL64", "R_AMDGPU_ABS32", "R_AMDGPU_GOTPCREL",
        "R_AMDGPU_GOTPCREL32_LO", "R_AMDGPU_GOTPCREL32_HI", "R_AMDGPU_REL32_LO",
        "R_AMDGPU_REL32_HI", "(type 12)", "R_AMDGPU_RELATIVE64", "R_AMDGPU_REL16",
    };
    return type < sizeof names / sizeof names[0] ? names[type] : "(unknown type)";
}

static int bad(const char *name, char *err, size_t errlen, const char *what, unsigned type,
               uint64_t at, const char *sym)
{
    if (errlen)
        snprintf(err, errlen, "%s: relocation %s at 0x%llx%s%s: %s", name, reloc_name(type),
                 (unsigned long long)at, sym && sym[0] ? " against " : "", sym ? sym : "", what);
    return -1;
}

static const char *symbol_name(Elf *elf, size_t symtab, size_t index)
{
    Elf_Scn *scn = elf_getscn(elf, symtab);
    GElf_Shdr sh;
    GElf_Sym s;
    Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
    if (!index || !data || !gelf_getshdr(scn, &sh) || !gelf_getsym(data, (int)index, &s))
        return NULL;
    return elf_strptr(elf, sh.sh_link, s.st_name);
}

int si_read_relocations(Elf *elf, const char *name, struct si_program *p, char *err,
                        size_t errlen)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL))
            continue;
        if (sh.sh_type == SHT_REL)
            return bad(name, err, errlen, "REL sections (without addends) are not AMDGPU's",
                       0, sh.sh_offset, NULL);
        if (sh.sh_entsize == 0 || !(data = elf_getdata(scn, NULL)))
            continue;
        size_t count = sh.sh_size / sh.sh_entsize;
        if (count > MAX_RELOCS || p->nrelocs + count > MAX_RELOCS)
            return bad(name, err, errlen, "more relocations than the loader takes", 0,
                       sh.sh_offset, NULL);
        struct si_reloc *v = realloc(p->relocs, (p->nrelocs + count + 1) * sizeof *v);
        if (!v)
            return bad(name, err, errlen, "out of memory", 0, sh.sh_offset, NULL);
        p->relocs = v;
        for (size_t i = 0; i < count; i++) {
            GElf_Rela r;
            if (!gelf_getrela(data, (int)i, &r))
                return bad(name, err, errlen, "unreadable", 0, sh.sh_offset, NULL);
            unsigned type = (unsigned)GELF_R_TYPE(r.r_info);
            const char *sym = symbol_name(elf, sh.sh_link, GELF_R_SYM(r.r_info));
            if (type != R_AMDGPU_RELATIVE64 || GELF_R_SYM(r.r_info))
                return bad(name, err, errlen,
                           sym && sym[0] ? si_undefined_meaning(sym)
                                         : "the loader applies only R_AMDGPU_RELATIVE64",
                           type, r.r_offset, sym);
            if (r.r_offset > p->image_size || p->image_size - r.r_offset < 8)
                return bad(name, err, errlen, "the slot lies outside the loaded image", type,
                           r.r_offset, NULL);
            p->relocs[p->nrelocs].offset = r.r_offset;
            p->relocs[p->nrelocs].addend = r.r_addend;
            p->nrelocs++;
        }
    }
    return 0;
}

void si_program_relocate(struct si_program *p, uint64_t address)
{
    for (size_t i = 0; i < p->nrelocs; i++) {
        uint64_t v = address + (uint64_t)p->relocs[i].addend;
        for (int b = 0; b < 8; b++)
            p->image[p->relocs[i].offset + (size_t)b] = (uint8_t)(v >> (8 * b));
    }
}
