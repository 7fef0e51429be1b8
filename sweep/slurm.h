/* The Slurm backend: the points without results become one job array
 * (sbatch --array), one task per point, each running replay on the shared
 * file system and renaming its result into DIR/points/ as the local runner
 * does, so `sweep collect` builds the same table. */
#ifndef SWEEP_SLURM_H
#define SWEEP_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include "sweep/plan.h"

struct sweep_slurm_opts {
    const char *dir;
    const char *replay;       /* the replay program (made absolute) */
    const char *sbatch;       /* the sbatch program ("sbatch") */
    const char *partition, *time, *mem;  /* #SBATCH options, or NULL */
    char *const *extra;       /* more sbatch arguments */
    size_t nextra;
    int max_running;          /* the array's %N throttle; 0: none */
    bool rerun;
    bool wait;                /* sbatch --wait: return when the job has ended */
};

/* Writes DIR/slurm/job-STAMP.sh and tasks-STAMP.txt and submits them.
 * Returns 0 (submitted, or nothing to do), or -1 with a message. With
 * WAIT, a non-zero sbatch status (some task failed) is not an error here:
 * collect reports the failed points. */
int sweep_slurm_submit(const struct sweep_plan *p, const struct sweep_slurm_opts *o, char *err, size_t errlen);

#endif
