#!/usr/bin/env python3
"""Guest instructions of the OpenCL twins (traces/opencl/, static build)
against their cgm/guest.h twins (traces/gpu/): whole program
(`tracetool info`'s instructions) and region of interest (replay's
roi.instructions), with the ratio, for every pair on its default input.

    opencl_twins.py                 the table (make bench-opencl-twins); opencl-res:
                                    without the result the OpenCL programs
                                    print for the comparison with PoCL (their
                                    cl_result_* functions, which the twins lack)
    opencl_twins.py --profile NAME [ARGS...]
                                    instructions per function of both sides
                                    (trace blocks attributed to the static
                                    binaries' symbols), whole run and ROI

Run from the top of the tree (the OpenCL programs read their kernel sources
from traces/); CGM_BIN and CGM_BUILD name the programs' folders. Guest
instruction counts are deterministic: one run a side is a measurement.
Last line: BENCH opencl_twins max_ratio=... max_ratio_without_result=... (whole program)."""
import bisect
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

BIN = os.environ.get('CGM_BIN', 'bin')
BUILD = os.environ.get('CGM_BUILD', 'build')
# a pair: its arguments, or the twin's and the OpenCL program's when they differ
PAIRS = [
    ['backprop'], ['hotspot'], ['lud'], ['kmeans'], ['nw'], ['bfs'],
    (['double_buffer', 'single', '8', '16384'], ['double_buffer', 'blocking', '8', '16384']),
    (['double_buffer', 'double', '8', '16384'], ['double_buffer', 'nonblocking', '8', '16384']),
    ['collab_write', '2', '50', 'copy'], ['collab_matmul', '2', '50', 'copy'],
    ['collab_edge', '2', '50', 'copy'], ['collab_knn', '2', '30', 'copy'],
    ['collab_backprop', '2', '25', 'copy'],
]


def prog(side, name):
    return os.path.join(BUILD, 'traces', 'gpu' if side == 'twin' else 'opencl/static', name)


def record(side, argv, trace):
    cmd = [os.path.join(BIN, 'tracegen'), '--quiet', '--env', 'CGM_KERNELS=%s/kernels' % BUILD,
           '-o', trace, '--', prog(side, argv[0])] + argv[1:]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0 or 'PASS' not in r.stdout:
        sys.exit('opencl_twins: %s failed (make cl-guests gpu-guests?):\n%s%s'
                 % (' '.join(cmd), r.stdout, r.stderr))


def whole(trace):
    info = subprocess.run([os.path.join(BIN, 'tracetool'), 'info', trace],
                          stdout=subprocess.PIPE, text=True, check=True).stdout
    return int(re.search(r'^\s*instructions\s+(\d+)', info, re.M).group(1))


def roi(trace, tmp):
    stats = os.path.join(tmp, 'stats.json')
    subprocess.run([os.path.join(BIN, 'replay'), '-q', '-o', stats, trace], check=True)
    with open(stats) as f:
        return json.load(f)['roi']['instructions']


def table():
    print('%-34s %10s %10s %7s %10s %7s %9s %9s %7s' % (
        'workload', 'twin', 'opencl', 'ratio', 'opencl-res', 'ratio', 'roi_twin', 'roi_ocl', 'ratio'))
    worst = worst_res = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, 't.cgt')
        for pair in PAIRS:
            n = {}
            for side, argv in zip(('twin', 'opencl'), pair if isinstance(pair, tuple) else (pair, pair)):
                record(side, argv, trace)
                n[side] = (whole(trace), roi(trace, tmp))
            # the result the OpenCL programs print for the comparison with
            # PoCL (cl_result_*: a hash or a sum the twins do not compute)
            funcs = by_function(prog('opencl', argv[0]), trace)[0]
            res = sum(c for f, c in funcs.items() if f.startswith('cl_result_'))
            (t, tr), (o, orr) = n['twin'], n['opencl']
            worst, worst_res = max(worst, o / t), max(worst_res, (o - res) / t)
            print('%-34s %10d %10d %7.3f %10d %7.3f %9d %9d %7.3f' % (
                ' '.join(argv), t, o, o / t, o - res, (o - res) / t, tr, orr,
                orr / tr if tr else 0.0))
    print('BENCH opencl_twins max_ratio=%.3f max_ratio_without_result=%.3f' % (worst, worst_res))


def symbols(binary):
    syms = []
    out = subprocess.run(['nm', '-n', binary], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'tTwW':
            syms.append((int(p[0], 16), p[2]))
    syms.sort()
    return [a for a, _ in syms], [s for _, s in syms]


def by_function(binary, trace):
    addrs, names = symbols(binary)
    dump = subprocess.Popen([os.path.join(BIN, 'tracetool'), 'dump', trace],
                            stdout=subprocess.PIPE, text=True)
    total, in_roi = collections.Counter(), collections.Counter()
    inside = False
    block = re.compile(r'\d+:\d+ block (0x[0-9a-f]+) insts=(\d+)')
    for line in dump.stdout:
        if line.startswith(' '):
            continue
        if ' roi_begin ' in line:
            inside = True
        elif ' roi_end ' in line:
            inside = False
        m = block.match(line)
        if m:
            i = bisect.bisect_right(addrs, int(m.group(1), 16)) - 1
            f = names[i] if i >= 0 else '?'
            total[f] += int(m.group(2))
            if inside:
                in_roi[f] += int(m.group(2))
    dump.wait()
    return total, in_roi


def profile_side(side, argv, tmp):
    trace = os.path.join(tmp, side + '.cgt')
    record(side, argv, trace)
    return by_function(prog(side, argv[0]), trace)


def profile(argv):
    with tempfile.TemporaryDirectory() as tmp:
        sides = {s: profile_side(s, argv, tmp) for s in ('twin', 'opencl')}
    for k, what in ((0, 'whole program'), (1, 'region of interest')):
        t, o = sides['twin'][k], sides['opencl'][k]
        print('%s (%s): twin %d, opencl %d' % (' '.join(argv), what, sum(t.values()),
                                                 sum(o.values())))
        print('%10s %10s %10s  function' % ('twin', 'opencl', 'change'))
        for f in sorted(set(t) | set(o), key=lambda f: -abs(o[f] - t[f]))[:40]:
            print('%10d %10d %+10d  %s' % (t[f], o[f], o[f] - t[f], f))


if __name__ == '__main__':
    if len(sys.argv) > 2 and sys.argv[1] == '--profile':
        profile(sys.argv[2:])
    elif len(sys.argv) == 1:
        table()
    else:
        sys.exit(__doc__)
