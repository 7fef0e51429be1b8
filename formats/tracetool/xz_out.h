/* Writing an .xz file (the xz container, CRC-64 check, preset 6: what
 * the xz program writes by default) with liblzma. */
#ifndef CGM_TRACETOOL_XZ_OUT_H
#define CGM_TRACETOOL_XZ_OUT_H

#include <stddef.h>

struct xz_out;

/* Creates PATH. Returns NULL with ERR filled. */
struct xz_out *xz_out_open(const char *path, char *err, size_t errlen);
/* Compresses LEN bytes. Returns 0, or -1 with ERR filled. */
int xz_out_write(struct xz_out *z, const void *data, size_t len, char *err, size_t errlen);
/* Finishes the stream, closes the file and frees Z (also on error).
 * Returns 0, or -1 with ERR filled. */
int xz_out_close(struct xz_out *z, char *err, size_t errlen);

#endif
