/* .xz output: see xz_out.h. */
#include "formats/tracetool/xz_out.h"

#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct xz_out {
    FILE *f;
    const char *path;
    lzma_stream s;
    uint8_t buf[64 * 1024];
};

struct xz_out *xz_out_open(const char *path, char *err, size_t errlen)
{
    struct xz_out *z = calloc(1, sizeof *z);
    if (!z) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    z->path = path;
    z->s = (lzma_stream)LZMA_STREAM_INIT;
    if (lzma_easy_encoder(&z->s, 6, LZMA_CHECK_CRC64) != LZMA_OK) {
        snprintf(err, errlen, "%s: cannot start the xz encoder", path);
        free(z);
        return NULL;
    }
    z->f = fopen(path, "wb");
    if (!z->f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        lzma_end(&z->s);
        free(z);
        return NULL;
    }
    return z;
}

/* Runs the encoder over the input set in Z->s with ACTION, writing what it makes. */
static int pump(struct xz_out *z, lzma_action action, char *err, size_t errlen)
{
    for (;;) {
        z->s.next_out = z->buf;
        z->s.avail_out = sizeof z->buf;
        lzma_ret rc = lzma_code(&z->s, action);
        size_t made = sizeof z->buf - z->s.avail_out;
        if (made && fwrite(z->buf, 1, made, z->f) != made) {
            snprintf(err, errlen, "%s: %s", z->path, strerror(errno));
            return -1;
        }
        if (rc == LZMA_STREAM_END)
            return 0;
        if (rc != LZMA_OK) {
            snprintf(err, errlen, "%s: xz encoder error %d", z->path, (int)rc);
            return -1;
        }
        if (action == LZMA_RUN && z->s.avail_in == 0)
            return 0;
    }
}

int xz_out_write(struct xz_out *z, const void *data, size_t len, char *err, size_t errlen)
{
    z->s.next_in = data;
    z->s.avail_in = len;
    return pump(z, LZMA_RUN, err, errlen);
}

int xz_out_close(struct xz_out *z, char *err, size_t errlen)
{
    z->s.next_in = NULL;
    z->s.avail_in = 0;
    int rc = pump(z, LZMA_FINISH, err, errlen);
    if (fclose(z->f) && rc == 0) {
        snprintf(err, errlen, "%s: %s", z->path, strerror(errno));
        rc = -1;
    }
    lzma_end(&z->s);
    free(z);
    return rc;
}
