/* What a program is handed at its start, checked against its own ELF
 * headers: the auxiliary vector's entry point, program headers and page
 * size; a dynamically linked program's interpreter (its ELF header in
 * memory at AT_BASE equal to the file's); the objects the loader mapped.
 * The same lines natively and under tracegen. With "vdso" it says whether
 * a vDSO was offered; with "maps" it prints each object's file and load
 * address. */
#define _GNU_SOURCE /* dl_iterate_phdr in glibc */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

extern const ElfW(Ehdr) __ehdr_start; /* the linker's symbol for the loaded ELF header */
extern char _start[];

static const char *yes(int c)
{
    return c ? "yes" : "no";
}

/* The program's own name of its interpreter (PT_INTERP), or NULL. */
static const char *interpreter(void)
{
    const ElfW(Phdr) *ph = (const void *)((const char *)&__ehdr_start + __ehdr_start.e_phoff);
    uintptr_t bias = 0;
    for (int i = 0; i < __ehdr_start.e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0)
            bias = (uintptr_t)&__ehdr_start - ph[i].p_vaddr;
    for (int i = 0; i < __ehdr_start.e_phnum; i++)
        if (ph[i].p_type == PT_INTERP)
            return (const char *)(bias + ph[i].p_vaddr);
    return NULL;
}

/* 1 when the ELF header of the file PATH is the one at ADDR. */
static int header_is_file(const char *path, uintptr_t addr)
{
    ElfW(Ehdr) file;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(&file, 1, sizeof file, f);
    fclose(f);
    return addr && n == sizeof file && memcmp(&file, (const void *)addr, sizeof file) == 0;
}

/* The vDSO is left out of the objects: the kernel's, not a file, and
 * tracegen offers none. Its program headers follow its ELF header. */
static int is_vdso(const struct dl_phdr_info *info)
{
    const ElfW(Ehdr) *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);
    return vdso && (const char *)info->dlpi_phdr == (const char *)vdso + vdso->e_phoff;
}

/* Objects in load order, the program first; with their load address when
 * LISTING->addresses. */
struct listing {
    int index;
    int addresses;
};

static int print_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct listing *l = data;
    if (is_vdso(info))
        return 0;
    const char *name = l->index++ == 0 ? "(program)" : info->dlpi_name;
    if (l->addresses)
        printf("%s %#llx\n", name, (unsigned long long)info->dlpi_addr);
    else
        printf("object: %s\n", name);
    return 0;
}

int main(int argc, char **argv)
{
    struct listing l = { 0, 0 };
    if (argc > 1 && strcmp(argv[1], "vdso") == 0) {
        printf("vdso: %s\n", getauxval(AT_SYSINFO_EHDR) ? "offered" : "none");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "maps") == 0) {
        l.addresses = 1;
        dl_iterate_phdr(print_object, &l);
        return 0;
    }
    printf("AT_ENTRY is _start: %s\n", yes(getauxval(AT_ENTRY) == (uintptr_t)_start));
    printf("AT_PHDR is the program's headers: %s\n",
           yes(getauxval(AT_PHDR) == (uintptr_t)&__ehdr_start + __ehdr_start.e_phoff));
    printf("AT_PHNUM is their count: %s\n", yes(getauxval(AT_PHNUM) == __ehdr_start.e_phnum));
    printf("AT_PHENT: %lu, AT_PAGESZ: %lu\n", getauxval(AT_PHENT), getauxval(AT_PAGESZ));
    const char *interp = interpreter();
    if (!interp)
        printf("interpreter: none, AT_BASE is 0: %s\n", yes(getauxval(AT_BASE) == 0));
    else
        printf("interpreter: %s, its ELF header at AT_BASE: %s\n", interp,
               yes(header_is_file(interp, getauxval(AT_BASE))));
    dl_iterate_phdr(print_object, &l);
    return 0;
}
