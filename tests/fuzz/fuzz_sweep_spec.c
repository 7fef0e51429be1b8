/* libFuzzer target for the sweep spec reader and the metric syntax: any
 * bytes give a spec or a refusal with a message naming the file, never a
 * crash, an unbounded allocation or a hang; a spec that is accepted has a
 * product within the bounds, labels on every value, and settings that
 * replay's configuration table takes again. Each line is also tried as a
 * metric. Seed it with traces/sweeps/ and traces/studies/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/config.h"
#include "sweep/metric.h"
#include "sweep/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sweep_spec s;
    char err[1024] = "";
    if (sweep_spec_parse(&s, "fuzz.ini", (const char *)data, size, err, sizeof err)) {
        if (strncmp(err, "fuzz.ini", 8))
            abort(); /* a refusal names the spec */
    } else {
        size_t points = 1;
        for (size_t a = 0; a < s.naxes; a++) {
            const struct sweep_axis *ax = &s.axes[a];
            if (!ax->nvalues || ax->nvalues > SWEEP_MAX_VALUES)
                abort();
            points *= ax->nvalues;
            for (size_t v = 0; v < ax->nvalues; v++) {
                if (!ax->values[v].label[0] && ax->kind != SWEEP_AXIS_TRACE)
                    abort();
                for (size_t k = 0; k < ax->values[v].nset; k++) {
                    const struct sweep_setting *st = &ax->values[v].set[k];
                    struct rp_config c;
                    rp_config_defaults(&c);
                    if (rp_config_apply(&c, st->section, st->key, st->value, "fuzz", 0, err, sizeof err))
                        abort(); /* canonical values read back */
                }
            }
        }
        if (points != s.npoints || points > SWEEP_MAX_POINTS || !s.ntraces)
            abort();
        sweep_spec_free(&s);
    }
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        err[0] = 0;
        struct sweep_metric *m = sweep_metric_parse(line, err, sizeof err);
        if (!m && !err[0])
            abort();
        sweep_metric_free(m);
    }
    free(text);
    return 0;
}
