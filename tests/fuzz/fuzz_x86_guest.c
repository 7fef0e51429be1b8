/* libFuzzer target for tracegen's emulator on arbitrary machine code: the
 * input becomes the text of a minimal static ELF (one read/write/execute
 * segment at 0x401000, entry at its first byte) run for at most 20,000
 * instructions. Any bytes must end in a clean stop (exit, fault delivered to
 * the guest, unimplemented instruction, instruction limit), never a crash,
 * a hang or an unbounded allocation in the emulator. The guest's own output
 * is discarded. */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tracegen/x86/process.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define TEXT_OFF 0x1000u
#define TEXT_ADDR 0x401000u

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0)
        dup2(null, STDOUT_FILENO); /* the guest's writes; libFuzzer reports on stderr */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size || size > 65536)
        return 0;
    static uint8_t image[TEXT_OFF + 65536];
    memset(image, 0, TEXT_OFF);
    Elf64_Ehdr eh = { .e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
                      .e_entry = TEXT_ADDR, .e_phoff = sizeof eh, .e_ehsize = sizeof eh,
                      .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
    memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_ident[EI_OSABI] = ELFOSABI_SYSV;
    Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_W | PF_X, .p_offset = TEXT_OFF,
                      .p_vaddr = TEXT_ADDR, .p_paddr = TEXT_ADDR, .p_filesz = size,
                      .p_memsz = size, .p_align = 0x1000 };
    memcpy(image, &eh, sizeof eh);
    memcpy(image + sizeof eh, &ph, sizeof ph);
    memcpy(image + TEXT_OFF, data, size);
    int fd = memfd_create("fuzz.elf", 0);
    if (fd < 0)
        return 0;
    if (write(fd, image, TEXT_OFF + size) != (ssize_t)(TEXT_OFF + size)) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct x86_options opt = { .max_insts = 20000, .quantum = 1000, .quiet = 1, .seed = 1 };
    char perr[256];
    struct x86_process *p = x86_process_create(&opt, perr, sizeof perr);
    if (p) {
        char *argv[] = { path, NULL };
        char *envp[] = { NULL };
        char err[512];
        if (x86_load_program(p, path, 1, argv, envp, err, sizeof err) == 0)
            x86_process_run(p);
        x86_process_destroy(p);
    }
    close(fd);
    return 0;
}
