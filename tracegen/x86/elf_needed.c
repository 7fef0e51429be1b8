/* Whether a program names a shared library among its DT_NEEDED entries:
 * tracegen points an OpenCL program's ICD loader at the guest platform
 * (main.c) only when the program links libOpenCL. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "tracegen/x86/elf_needed.h"

int x86_elf_needs(const char *path, const char *prefix)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    int found = 0;
    for (Elf_Scn *scn = NULL; e && !found && (scn = elf_nextscn(e, scn));) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Dyn dyn;
            if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag != DT_NEEDED)
                continue;
            const char *name = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
            if (name && !strncmp(name, prefix, strlen(prefix)))
                found = 1;
        }
    }
    if (e)
        elf_end(e);
    close(fd);
    return found;
}
