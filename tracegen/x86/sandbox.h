/* The guest's write sandbox: every path the guest creates, writes,
 * renames, links, unlinks, changes the mode or times of, or truncates is
 * resolved by the kernel beneath one of the --allow-write directories,
 * each opened once (openat2 with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
 * where openat2 is missing, a walk of one component at a time with
 * O_NOFOLLOW that follows symbolic links itself and never climbs above the
 * directory). So "..", absolute and relative symbolic links, directory
 * links and a race between a check and a use can never leave the
 * directory: what is checked is the file the kernel opens, not the path's
 * text. Reading stays open everywhere, except what describes tracegen
 * itself (see sandbox_read_refused). */
#ifndef TRACEGEN_X86_SANDBOX_H
#define TRACEGEN_X86_SANDBOX_H

#include <stddef.h>

struct sandbox;

/* Opens the N directories DIRS. WALK: confine with the walk even where
 * openat2 exists (to test it). NULL with ERR when a directory cannot be
 * opened or is not one. */
struct sandbox *sandbox_create(const char *const *dirs, int n, int walk, char *err,
                               size_t errlen);
void sandbox_destroy(struct sandbox *sb);
/* 1 when openat2 confines the paths, 0 for the walk. */
int sandbox_openat2(const struct sandbox *sb);

/* The calls below take a guest path PATH relative to host directory BASE
 * (AT_FDCWD: the working directory). They return -errno on failure:
 * -EACCES when PATH lies outside every allowed directory or leads out of
 * one, WHY (WHYLEN bytes) then saying so for the user. */

/* Opens PATH with FLAGS and MODE as openat would, confined. */
int sandbox_open(struct sandbox *sb, int base, const char *path, int flags, int mode, char *why,
                 size_t whylen);

/* For the calls that act on a name without following it (unlink, rmdir,
 * mkdir, rename, link, symlink): opens PATH's parent directory, confined,
 * in *DIRFD (the caller closes it) and copies PATH's last component, with
 * any trailing slash, to NAME. Returns 0. The allowed directory itself has
 * no confined parent (-EACCES). */
int sandbox_parent(struct sandbox *sb, int base, const char *path, int *dirfd, char *name,
                   size_t namelen, char *why, size_t whylen);

/* 1 when host descriptor FD, just opened for the guest to read, is a file
 * of /proc that describes or acts on tracegen itself (its memory, its
 * descriptors, its environment: /proc/self, /proc/thread-self and
 * /proc/PID of tracegen and its threads), which the guest may not read. */
int sandbox_read_refused(int fd);

#endif
