/* What the loader refuses before anything runs, each by name: code objects
 * for other GPUs (their instructions decode as Southern Islands ones and
 * fail later with faults that point elsewhere), symbols and relocations the
 * loader cannot resolve (it links nothing: printf's buffer pointer or an
 * undefined function would be address 0), and kernel arguments of kinds the
 * device does not have.  Relocations are si_reloc.c's. */
#include "tracegen/si/si_elf.h"

#include <stdio.h>
#include <string.h>

enum {
    EF_AMDGPU_MACH_MASK = 0xff,
    MACH_GFX600 = 0x20, MACH_GFX601 = 0x21, MACH_GFX602 = 0x3a
};

static int take_target(void *ctx, const void *desc, size_t len, uint64_t file_offset)
{
    (void)file_offset;
    char *out = ctx;
    return si_metadata_target(desc, len, out, 64) == 0;   /* stop at the first */
}

int si_refuse_target(Elf *elf, const GElf_Ehdr *eh, const char *name, char *err, size_t errlen)
{
    unsigned mach = eh->e_flags & EF_AMDGPU_MACH_MASK;
    if (mach == MACH_GFX600 || mach == MACH_GFX601 || mach == MACH_GFX602)
        return 0;
    /* The file names its target in the metadata (code object v4 and later);
     * e_flags alone is a number. */
    char target[64] = "";
    si_elf_metadata_notes(elf, take_target, target);
    const char *gfx = strstr(target, "--");
    char what[128];
    if (gfx && gfx[2])
        snprintf(what, sizeof what, "%s (target %s, e_flags 0x%x)", gfx + 2, target,
                 (unsigned)eh->e_flags);
    else
        snprintf(what, sizeof what, "EF_AMDGPU_MACH 0x%02x (e_flags 0x%x)", mach,
                 (unsigned)eh->e_flags);
    return si_elf_fail(name, err, errlen,
                  "code object for %s, not for this GPU: the emulator runs Southern Islands "
                  "code objects (gfx600, gfx601, gfx602); compile with -mcpu=tahiti",
                  what);
}

/* What a missing symbol means to the user. */
const char *si_undefined_meaning(const char *sym)
{
    if (strcmp(sym, "__printf_alloc") == 0)
        return "the kernel calls printf, which this device does not support "
               "(remove the call, or write results to a buffer)";
    return "a function or variable no code in the file defines (the device has no "
           "library: only the functions of traces/include/cgm_device.h and code in the "
           "kernel's own source)";
}

int si_refuse_unresolved(Elf *elf, const char *name, char *err, size_t errlen)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
            sh.sh_entsize == 0 || !(data = elf_getdata(scn, NULL)))
            continue;
        size_t count = sh.sh_size / sh.sh_entsize;
        for (size_t i = 1; i < count; i++) {       /* symbol 0 is the null symbol */
            GElf_Sym s;
            const char *sym;
            if (!gelf_getsym(data, (int)i, &s) || s.st_shndx != SHN_UNDEF ||
                !(sym = elf_strptr(elf, sh.sh_link, s.st_name)) || !sym[0])
                continue;
            return si_elf_fail(name, err, errlen, "undefined symbol %s: %s", sym,
                          si_undefined_meaning(sym));
        }
    }
    return 0;
}

/* What an argument's value kind needs that the device lacks, or NULL. */
static const char *lacking(const char *kind)
{
    static const struct { const char *kind, *why; } refused[] = {
        { "image", "images" },
        { "sampler", "samplers" },
        { "pipe", "pipes" },
        { "queue", "device-side enqueue" },
        { "hidden_default_queue", "device-side enqueue" },
        { "hidden_completion_action", "device-side enqueue" },
        { "hidden_printf_buffer", "printf" },
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (strcmp(kind, refused[i].kind) == 0)
            return refused[i].why;
    return NULL;
}

int si_refuse_arguments(const struct si_program *p, const char *name, char *err, size_t errlen)
{
    for (size_t i = 0; i < p->nkernels; i++) {
        const struct si_kernel *k = &p->kernels[i];
        for (size_t a = 0; a < k->nargs; a++) {
            const struct si_kernel_arg *arg = &k->args[a];
            const char *why = lacking(arg->value_kind);
            if (why)
                return si_elf_fail(name, err, errlen,
                              "kernel %s: argument %zu%s%s (%s, value kind %s) needs %s, which "
                              "this device does not support",
                              k->name, a, arg->name[0] ? " " : "", arg->name,
                              arg->type_name[0] ? arg->type_name : "hidden", arg->value_kind,
                              why);
        }
    }
    return 0;
}
