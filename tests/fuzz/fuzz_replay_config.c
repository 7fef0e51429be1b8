/* libFuzzer target for replay's configuration parsing: the input is an INI
 * file (read through libinih from a memfd), then each of its lines is also
 * tried as a --set override. Any bytes must give 0 or -1 with a message,
 * never a crash, and a configuration that loads and passes the cross-key
 * checks must print and load back to the same values. Seed it with
 * traces/configs/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replay/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(int rc, const char *err)
{
    if (rc && !err[0])
        abort(); /* a refusal must say why */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz.ini", 0);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct rp_config c;
    rp_config_defaults(&c);
    char err[512] = "";
    int rc = rp_config_load(&c, path, err, sizeof err);
    check_message(rc, err);
    if (!rc) {
        err[0] = 0;
        rc = rp_config_check(&c, err, sizeof err);
        check_message(rc, err);
    }
    if (!rc) {
        /* Round trip: what --print-config writes loads back unchanged. */
        FILE *f = tmpfile();
        if (f) {
            rp_config_print(&c, f);
            fflush(f);
            snprintf(path, sizeof path, "/proc/self/fd/%d", fileno(f));
            struct rp_config again;
            rp_config_defaults(&again);
            err[0] = 0;
            if (rp_config_load(&again, path, err, sizeof err) || memcmp(&again, &c, sizeof c))
                abort();
            fclose(f);
        }
    }
    close(fd);
    /* Every line as an override. */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        rp_config_defaults(&c);
        err[0] = 0;
        check_message(rp_config_set(&c, line, err, sizeof err), err);
    }
    free(text);
    return 0;
}
