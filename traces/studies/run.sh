#!/bin/sh
# make studies: records the workloads the study specs name (under
# build/studies/, where the specs look for them), runs each study's sweep
# and draws its plots. Run from the top of the tree: the GPU workloads load
# their kernels from build/kernels/.
#   sh traces/studies/run.sh [BIN] [GUESTS] [JOBS] [TIMEOUT]
# JOBS points run at once (default: the cores); a point running longer than
# TIMEOUT seconds (default 120; a point takes about a second) is stopped and
# reported as failed.
# A study whose spec replay cannot take yet (a GPU key the models do not
# have) is reported and skipped; the exit status is 1 if any was.
set -u
BIN=${1:-bin}
GUESTS=${2:-build/traces/gpu}
JOBS=${3:-$(nproc)}
TIMEOUT=${4:-120}
OUT=build/studies
SPECS=traces/studies

# record TRACE PROGRAM [ARGS...]: once, and again when PROGRAM is newer than
# TRACE; a trace is renamed into place only when tracegen succeeded, so an
# interrupted run records it again.
record() {
    trace=$1
    shift
    [ -s "$trace" ] && [ "$trace" -nt "$1" ] && return 0
    if "$BIN/tracegen" --quiet -o "$trace.part" -- "$@" > "$trace.out"; then
        mv "$trace.part" "$trace"
    else
        echo "studies: recording $* failed (its output: $trace.out)" >&2
        rm -f "$trace.part"
        return 1
    fi
}

mkdir -p "$OUT/gpu" "$OUT/collab"
recorded=0
echo "== recording the workloads into $OUT"
for w in backprop lud kmeans nw bfs; do
    record "$OUT/gpu/$w.cgt" "$GUESTS/$w" || recorded=1
done
# hotspot without its CPU check (64x64, 4 steps): the thesis' CPU sleeps
# while the GPU runs
record "$OUT/gpu/hotspot.cgt" "$GUESTS/hotspot" 64 4 0 || recorded=1
# The collaborative workloads, as study 2's trace template names them:
# THREADS CPU threads taking SHARE% of the work, on memory both sides share.
# Threads 0 with share 0 is the GPU-only twin, study 2's baseline.
for w in collab_backprop collab_matmul collab_edge collab_knn collab_write; do
    record "$OUT/collab/${w}_t0_c0.cgt" "$GUESTS/$w" 0 0 share || recorded=1
    for t in 1 2 3 4 5 6 7 8; do
        for c in 0 20 30 40 50 60 70 80; do
            record "$OUT/collab/${w}_t${t}_c${c}.cgt" "$GUESTS/$w" "$t" "$c" share || recorded=1
        done
    done
done

# Study 7's workloads (seed 004 Ch. 6 and Sec. 4.2), as its specs name
# them: the study inputs, without the CPU checks that can be left out.
mkdir -p "$OUT/data"
for m in share copy; do
    suffix=$([ "$m" = copy ] && echo _copy)
    record "$OUT/data/vecadd$suffix.cgt" "$GUESTS/vecadd" 8388608 "$m" || recorded=1
    record "$OUT/data/tpacf$suffix.cgt" "$GUESTS/tpacf" 147456 16 "$m" 0 || recorded=1
    record "$OUT/data/cp$suffix.cgt" "$GUESTS/cp" 512 10 16 "$m" 0 || recorded=1
done
for n in 32 64 96; do
    record "$OUT/data/stencil$n.cgt" "$GUESTS/stencil3d" "$n" 8 4 0 || recorded=1
done
for m in percall double hosted; do
    record "$OUT/data/llsort_$m.cgt" "$GUESTS/llsort" "$m" 262144 8 || recorded=1
done

# The OpenCL workload set at its study inputs (traces/opencl/workloads.list):
# the GPU studies replay it.
mkdir -p "$OUT/opencl"
CL_GUESTS=$(dirname "$GUESTS")/opencl/static
while read -r name args; do
    case "$name" in ''|'#'*) continue ;; esac
    # shellcheck disable=SC2086 # the arguments are words
    record "$OUT/opencl/$name.cgt" "$CL_GUESTS/$name" $args || recorded=1
done < traces/opencl/workloads.list

# sweep STUDY: runs the spec into $OUT/STUDY; 1 (with the reason) if it
# cannot. Points that fail are reported by the sweep and leave empty cells;
# the study is still drawn, and make studies fails at the end.
failed=0
sweep() {
    if ! "$BIN/sweep" "$SPECS/$1.ini" --dry-run -o "$OUT/$1" > "$OUT/$1.points" 2> "$OUT/$1.err"; then
        echo "studies: $1 cannot run yet: $(head -n 1 "$OUT/$1.err")" >&2
        return 1
    fi
    "$BIN/sweep" "$SPECS/$1.ini" -j "$JOBS" --timeout "$TIMEOUT" -o "$OUT/$1" || failed=1
}

plot() {
    "$BIN/sweep" plot "$@" || echo "studies: sweep plot $* failed" >&2
}

skipped=0
echo "== study 1: memory organisations, GPU-only workloads"
if sweep study1_coherence; then
    plot "$OUT/study1_coherence/table.csv" --metric roi.cycles --x workload --lines mode \
        --speedup mode=NC-MC --style bars --reference "$SPECS/study1_thesis.csv" -o "$OUT/study1_speedup"
else
    skipped=1
fi

echo "== study 2: collaborative execution"
# Its table (study2.csv) starts with the GPU-only points as threads 0, share 0:
# every speedup is over them.
if sweep study2_gpu_only && sweep study2_collaborative; then
    awk -F, -f "$SPECS/join_gpu_only.awk" "$OUT/study2_collaborative/table.csv" \
        "$OUT/study2_gpu_only/table.csv" > "$OUT/study2.csv"
    for w in collab_backprop collab_matmul collab_edge collab_knn collab_write; do
        plot "$OUT/study2.csv" --metric roi.cycles --x share --lines threads \
            --where "workload=$w" --speedup share=0,threads=0 \
            --title "$w: speedup over the GPU alone (threads 0)" -o "$OUT/study2_$w"
    done
else
    skipped=1
fi

echo "== study 3: a faster GPU and fabric"
if sweep study3_future; then
    # The thesis' Figs. 4.13-4.16: the GPU's time over the study-2 best, per
    # workload, at 1 and 4 GHz: 72-byte link; + coalescer 96; negligible
    # fabric with the 32-byte link; + coalescer 96.
    for fig in "4.13 32 built 72" "4.14 96 built 72" "4.15 32 negligible 32" "4.16 96 negligible 32"; do
        set -- $fig
        plot "$OUT/study3_future/table.csv" --metric "sum(roi.gpu.kernels[*].cycles)/roi.gpu.frequency" \
            --x trace --lines gpu.frequency --where gpu.l1.coalescer="$2" --where fabric="$3" \
            --where gpu.link_bytes="$4" --style bars \
            --speedup gpu.frequency=1GHz,gpu.link_bytes=32,gpu.l1.coalescer=32,fabric=built \
            --title "GPU time over the study-2 best: link $4 bytes, coalescer $2, fabric $3 (thesis Fig. $1)" \
            -o "$OUT/study3_fig$1"
    done
    # Its baseline points at 1 and 4 GHz again, with windows of 1000 CPU
    # cycles (study3_windows.ini), so the verdicts can see the ring and DRAM
    # while the kernels run; one table of every point's windows.
    if sweep study3_windows; then
        "$BIN/sweep" windows "$SPECS/study3_windows.ini" -o "$OUT/study3_windows" || failed=1
    else
        skipped=1
    fi
else
    skipped=1
fi

echo "== study 4: the GPU's memory fidelity and protocols (seed 001, hd7770)"
# Its largest points (floyd, dct8x8, bitonic at the study inputs) take a few
# minutes each: ten times the timeout for this study's points.
timeout=$TIMEOUT
TIMEOUT=$((timeout * 10))
# Its three parts share their columns: one table, study4.csv.
if sweep study4_si_protocol && sweep study4_nbs && sweep study4_variants; then
    s4=$OUT/study4.csv
    awk 'FNR == 1 && NR > 1 { next } { print }' "$OUT/study4_si_protocol/table.csv" \
        "$OUT/study4_nbs/table.csv" "$OUT/study4_variants/table.csv" > "$s4"
    # Figs. 2.2 and 4.8: each protocol's OPC over mesi's (MOESI's nearest)
    # and over nmoesi's, at L1 MSHR 256; Fig. 2.2 per L1 MSHR size, over
    # mesi at 256 (the thesis' baseline).
    plot "$s4" --metric gpu.opc --x workload --lines gpu.protocol --where variant=base --where gpu.l1.mshr=256 \
        --normalise gpu.protocol=mesi --style bars --title "OPC over mesi, L1 MSHR 256 (thesis Fig. 2.2)" \
        -o "$OUT/study4_over_mesi"
    plot "$s4" --metric gpu.opc --x workload --lines gpu.protocol --where variant=base --where gpu.l1.mshr=256 \
        --normalise gpu.protocol=nmoesi --style bars --title "OPC over nmoesi, L1 MSHR 256 (thesis Fig. 4.8)" \
        -o "$OUT/study4_fig4.8"
    for p in si nmoesi; do
        plot "$s4" --metric gpu.opc --x workload --lines gpu.l1.mshr --where variant=base --where gpu.protocol=$p \
            --normalise gpu.protocol=mesi,gpu.l1.mshr=256 --style bars \
            --title "$p: OPC over mesi at L1 MSHR 256, per L1 MSHR size (thesis Fig. 2.2)" -o "$OUT/study4_fig2.2_$p"
    done
    # Figs. 3.8, 4.4, 4.7: each switch's OPC over the base variant, per protocol.
    for p in mesi si nmoesi; do
        plot "$s4" --metric gpu.opc --x workload --lines variant --where gpu.l1.mshr=256 --where gpu.protocol=$p \
            --normalise variant=base --style bars \
            --title "$p, L1 MSHR 256: OPC over the base (thesis Figs. 3.8, 4.4, 4.7)" -o "$OUT/study4_variants_$p"
    done
else
    skipped=1
fi
TIMEOUT=$timeout

echo "== study 7: data movement (seed 004 Ch. 6, Sec. 4.2)"
# vecadd's points (8 M elements) and llsort's take about a minute each on
# an idle core: five times the timeout for this study's points
timeout=$TIMEOUT
TIMEOUT=$((timeout * 5))
if sweep study7_data_movement && sweep study7_explicit; then
    for w in vecadd tpacf; do
        plot "$OUT/study7_data_movement/table.csv" --metric roi.cycles --x protocol --lines gpu.attach \
            --where workload=$w --title "$w: region cycles per copy protocol" -o "$OUT/study7_$w"
    done
else
    skipped=1
fi
TIMEOUT=$timeout

# ---- study 5 ----------------------------------------------------------
echo "== study 5: the Fetch-and-Replacement Cache (seed 001 Ch. 6, rx540/rx570)"
# an RX 540 point of the study inputs takes about 45 s on an idle core, an
# RX 570 one longer: ten times the timeout for this study's points
timeout=$TIMEOUT
TIMEOUT=$((timeout * 10))
if sweep study5_frc; then
    for m in rx540 rx570; do
        plot "$OUT/study5_frc/table.csv" --metric gpu.opc --x workload --lines variant --where machine=$m \
            --normalise variant=base --style bars --title "$m: OPC over the conventional L2 (thesis Figs. 6.6, 6.10)" \
            -o "$OUT/study5_$m"
    done
else
    skipped=1
fi
TIMEOUT=$timeout

# ---- study 6 ----------------------------------------------------------
echo "== study 6: VIPS-G against VI_Hammer and MESI (seed 002)"
if sweep study6_vips; then
    plot "$OUT/study6_vips/table.csv" --metric "sum(roi.gpu.kernels[*].cycles)" --x workload --lines protocol \
        --speedup protocol=vi-hammer --style bars --title "Speedup in the kernels' GPU cycles over VI_Hammer (seed 002 Fig. 11)" \
        -o "$OUT/study6_speedup"
else
    skipped=1
fi

sh "$SPECS/report.sh" "$OUT" "$SPECS"
echo "studies: results, tables and plots in $OUT"
[ "$recorded" = 0 ] && [ "$skipped" = 0 ] && [ "$failed" = 0 ]
