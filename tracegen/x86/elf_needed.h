#ifndef TRACEGEN_X86_ELF_NEEDED_H
#define TRACEGEN_X86_ELF_NEEDED_H

/* 1 when the ELF file PATH has a DT_NEEDED entry starting with PREFIX
 * ("libOpenCL.so"), 0 otherwise (also when it cannot be read). */
int x86_elf_needs(const char *path, const char *prefix);

#endif
