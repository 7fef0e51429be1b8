#!/bin/sh
# make studies' report: OUT/REPORT.md sets each study's results (the tables
# and plots run.sh made) beside the thesis' figures (SPECS/studyN_thesis.csv),
# with what a reader needs to reproduce them: the commit, the specs' and the
# base configuration's hashes, each trace's hash (the one the sweep keys
# its points with) and how to rerun a point.
#   sh traces/studies/report.sh [OUT] [SPECS]
set -u
OUT=${1:-build/studies}
SPECS=${2:-traces/studies}
R=$OUT/REPORT.md

# status STUDY: "N of M points done (F failed)" from the table's status column.
status() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") s = i; next }
             { n++; c[$s]++ }
             END { printf "%d of %d points done", c["done"], n;
                   if (c["failed"]) printf ", %d failed", c["failed"];
                   if (n - c["done"] - c["failed"]) printf ", %d not run", n - c["done"] - c["failed"] }' \
        "$OUT/$1/table.csv"
}

# ran STUDY: the study ran (else the reason is written): its spec passed
# this run's dry run (STUDY.err is empty) and its table exists.
ran() {
    if [ ! -s "$OUT/$1.err" ] && [ -s "$OUT/$1/table.csv" ]; then
        return 0
    fi
    printf '**Not run.** ' >> "$R"
    if [ -s "$OUT/$1.err" ]; then
        printf 'The spec cannot run yet: `%s`\n\n' "$(head -n 1 "$OUT/$1.err")" >> "$R"
    else
        printf 'No results in `%s/%s`.\n\n' "$OUT" "$1" >> "$R"
    fi
    return 1
}

# provenance STUDY: the spec's hash, the command, the traces' hashes.
provenance() {
    {
        printf '\nReproduce: `bin/sweep %s/%s.ini -o DIR` (spec SHA-256 `%s`); each point is\n' \
            "$SPECS" "$1" "$(sha256sum < "$SPECS/$1.ini" | cut -c1-16)"
        w=$(sed -n 's/^windows *= *\([0-9]*\).*/\1/p' "$SPECS/$1.ini")
        printf '`replay -c DIR/points/KEY.ini%s TRACE` (KEY in the table'"'"'s `result` column).\n' \
            "${w:+ --windows $w --windows-out FILE}"
        if [ -s "$OUT/$1.points" ]; then
            n=$(grep -c '^trace ' "$OUT/$1.points")
            printf 'Traces (XXH3-128 of the bytes, as the sweep keys points): %s, listed in `%s.traces`.\n' \
                "$n" "$1"
            grep '^trace ' "$OUT/$1.points" | sed "s|^trace .*/||" > "$OUT/$1.traces"
        fi
    } >> "$R"
}

# verdict N TABLE DIR [WINDOWS]: study N's verdicts (verdictN.awk) from
# TABLE, the thesis' figures, for the configuration of a point DIR/points
# and, for study 3, the windows table WINDOWS (sweep windows).
verdict() {
    awk -F, -v dir="$3" -v wfile="${4:-}" -f "$SPECS/verdict_lib.awk" -f "$SPECS/verdict$1.awk" \
        "$SPECS/study$1_thesis.csv" "$2"
}

{
    echo "# The seed's three studies (seed 000 Chapter 4), replayed"
    echo
    rev=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | head -n 1)
    printf 'Made by `make studies` at commit `%s`%s. Base configuration `traces/configs/seed.ini`\n' \
        "$rev" "${dirty:+ (with local changes)}"
    printf '(SHA-256 `%s`) plus each spec'"'"'s `[base]` and axes. The workloads were recorded by\n' \
        "$(sha256sum < traces/configs/seed.ini | cut -c1-16)"
    echo '`traces/studies/run.sh` (commands there); the thesis'"'"' figures are quoted from'
    echo 'seed 000 Sec. 4.3-4.5. Our workloads and inputs are smaller than the thesis'"'"','
    echo 'so the direction and ordering of the results are what compare, not their size.'
    echo
} > "$R"

# ---- study 1 -------------------------------------------------------------
{
    echo "## Study 1: memory organisations, GPU-only workloads (Sec. 4.3)"
    echo
} >> "$R"
if ran study1_coherence; then
    s=study1_coherence
    {
        echo "$(status $s). Speedup in region-of-interest cycles over NC-MC, per workload;"
        echo "the thesis' columns are its speedups over NC-MC (it gives none for NC-L3)."
        echo
        cat "$OUT/study1_speedup.md"
        echo
        echo "![study 1](study1_speedup.svg)"
        echo
        verdict 1 "$OUT/$s/table.csv" "$OUT/$s"
    } >> "$R"
    provenance $s
fi

# ---- study 2 -------------------------------------------------------------
{
    echo
    echo "## Study 2: collaborative execution (Sec. 4.4)"
    echo
} >> "$R"
if ran study2_gpu_only && ran study2_collaborative; then
    s=study2_collaborative
    {
        echo "GPU-only: $(status study2_gpu_only); collaborative: $(status $s). Speedup in"
        echo "region-of-interest cycles over the GPU-only run (the workload's twin without CPU worker"
        echo "threads: threads 0); the mean is over the collaborative points (shares 20-80%, 1-8 threads)."
        echo
        echo "| workload | best threads | best CPU share | best speedup | mean speedup | thesis threads | thesis share | thesis best | thesis mean |"
        echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
        awk -F, '
            FNR == 1 { for (i = 1; i <= NF; i++) col[FILENAME, $i] = i; next }
            FILENAME == thesis { t[$1] = $2 "|" $3 "|" $4 "|" $5; next }
            {
                w = $col[FILENAME, "workload"]; th = $col[FILENAME, "threads"]; sh = $col[FILENAME, "share"]
                if ($col[FILENAME, "status"] != "done") next
                v = $col[FILENAME, "roi.cycles"]
                if (!(w in seen)) { seen[w] = 1; ws[++nw] = w }
                if (th == 0 && sh == 0) base[w] = v
                if (sh > 0) { cyc[w, th, sh] = v; keys[w] = keys[w] " " th ":" sh }
            }
            END {
                for (i = 1; i <= nw; i++) {
                    w = ws[i]; best = 0; sum = 0; k = 0
                    m = (w in base) ? split(keys[w], list, " ") : 0
                    for (j = 1; j <= m; j++) {
                        split(list[j], p, ":"); sp = base[w] / cyc[w, p[1], p[2]]
                        sum += sp; k++
                        if (sp > best) { best = sp; bt = p[1]; bs = p[2] }
                    }
                    split(t[w], r, "|")
                    if (!k) {
                        printf "| %s | no %s result | | | | %s | %s%% | %s | %s |\n", w,
                               (w in base) ? "collaborative" : "GPU-only", r[1], r[2], r[3], r[4]
                        continue
                    }
                    printf "| %s | %d | %d%% | %.3f | %.3f | %s | %s%% | %s | %s |\n", w, bt, bs, best, sum / k, r[1], r[2], r[3], r[4]
                }
            }' thesis="$SPECS/study2_thesis.csv" "$SPECS/study2_thesis.csv" "$OUT/study2.csv"
        echo
        for w in collab_backprop collab_matmul collab_edge collab_knn collab_write; do
            [ -s "$OUT/study2_$w.svg" ] && printf '![%s](study2_%s.svg)\n' "$w" "$w"
        done
        echo
        verdict 2 "$OUT/study2.csv" "$OUT/$s"
    } >> "$R"
    provenance study2_gpu_only
    provenance $s
fi

# ---- study 3 -------------------------------------------------------------
{
    echo
    echo "## Study 3: a faster GPU and fabric (Sec. 4.5)"
    echo
} >> "$R"
if ran study3_future; then
    s=study3_future
    {
        echo "$(status $s). Mean over the five workloads (each at its thesis optimum) of the speedup"
        echo "over 1 GHz, 32-byte link, coalescer 32, fabric as built: in region-of-interest cycles"
        echo "(the whole run) and in the GPU's time inside the region; the thesis gives GPU and CPU"
        echo "times (Figs. 4.13-4.16)."
        echo
        echo "| GPU clock | link bytes | coalescer | fabric | speedup (region) | speedup (GPU time) | thesis figure | thesis GPU | thesis CPU |"
        echo "|---|---:|---:|---|---:|---:|---|---:|---:|"
        awk -F, '
            FNR == 1 { for (i = 1; i <= NF; i++) col[FILENAME, $i] = i; next }
            FILENAME == thesis { t[$1 "|" $2 "|" $3 "|" $4] = $5 "|" $6 "|" $7; next }
            {
                if ($col[FILENAME, "status"] != "done") next
                tr = $col[FILENAME, "trace"]
                cfg = $col[FILENAME, "gpu.frequency"] "|" $col[FILENAME, "gpu.link_bytes"] "|" \
                      $col[FILENAME, "gpu.l1.coalescer"] "|" $col[FILENAME, "fabric"]
                if (!(cfg in seen)) { seen[cfg] = 1; cs[++nc] = cfg }
                roi[tr, cfg] = $col[FILENAME, "roi.cycles"]
                gpu[tr, cfg] = $col[FILENAME, "sum(roi.gpu.kernels[*].cycles)/roi.gpu.frequency"]
                if (!(tr in tseen)) { tseen[tr] = 1; ts[++nt] = tr }
            }
            END {
                base = "1GHz|32|32|built"
                for (i = 1; i <= nc; i++) {
                    c = cs[i]; a = 0; g = 0; k = 0
                    for (j = 1; j <= nt; j++) {
                        tr = ts[j]
                        if (!((tr, c) in roi) || !((tr, base) in roi)) continue
                        a += roi[tr, base] / roi[tr, c]; g += gpu[tr, base] / gpu[tr, c]; k++
                    }
                    split(c, p, "|"); split(t[c], r, "|")
                    if (!k) { printf "| %s | %s | %s | %s | | | %s | %s | %s |\n", p[1], p[2], p[3], p[4], r[1], r[2], r[3]; continue }
                    printf "| %s | %s | %s | %s | %.3f | %.3f | %s | %s | %s |\n", p[1], p[2], p[3], p[4], a / k, g / k, r[1], r[2], r[3]
                }
            }' thesis="$SPECS/study3_thesis.csv" "$SPECS/study3_thesis.csv" "$OUT/$s/table.csv"
        echo
        for n in 4.13 4.14 4.15 4.16; do
            [ -s "$OUT/study3_fig$n.svg" ] && printf '![Fig. %s](study3_fig%s.svg)\n' "$n" "$n"
        done
        echo
        verdict 3 "$OUT/$s/table.csv" "$OUT/$s" "$OUT/study3_windows/windows.csv"
    } >> "$R"
    provenance $s
    if [ -s "$OUT/study3_windows/windows.csv" ]; then
        provenance study3_windows
        printf 'Its windows: `bin/sweep windows %s/study3_windows.ini -o DIR` (`DIR/windows.csv`).
' "$SPECS" >> "$R"
    fi
fi
# ---- study 4 -------------------------------------------------------------
{
    echo
    echo "## Study 4: the GPU's memory fidelity and protocols (seed 001, HD 7770)"
    echo
} >> "$R"
if ran study4_si_protocol && ran study4_nbs && ran study4_variants; then
    {
        echo "Protocols: $(status study4_si_protocol); non-blocking stores: $(status study4_nbs); L2 MSHR"
        echo "and coalescer: $(status study4_variants). OPC (active-lane operations per GPU cycle) of the"
        echo "OpenCL workload set at its study inputs on \`traces/configs/hd7770.ini\`: under \`gpu.protocol\`"
        echo "mesi, si and nmoesi at L1 MSHR 16-256; non-blocking stores under each protocol at L1 MSHR 16"
        echo "and 256; the L2 MSHR and the coalescer varied alone under mesi at L1 MSHR 256. mesi stands for"
        echo "the thesis' MOESI (the GPU's write-back, write-allocate protocol here). The thesis' numbers"
        echo "are what its text gives (\`study4_thesis.csv\`): its figures' bars are not in the text."
        echo
        for f in over_mesi fig4.8 fig2.2_si fig2.2_nmoesi variants_mesi variants_si variants_nmoesi; do
            if [ -s "$OUT/study4_$f.md" ]; then
                echo "#### study4_$f"
                echo
                cat "$OUT/study4_$f.md"
                echo
                printf '![%s](study4_%s.svg)\n\n' "$f" "$f"
            fi
        done
        echo "| figure | the thesis' claim | thesis |"
        echo "|---|---|---:|"
        awk -F, 'NR > 1 { printf "| %s | %s | %s |\n", $1, $2, $3 }' "$SPECS/study4_thesis.csv"
        echo
        verdict 4 "$OUT/study4.csv" "$OUT/study4_si_protocol"
    } >> "$R"
    for s in study4_si_protocol study4_nbs study4_variants; do provenance $s; done
fi

# ---- study 5 -------------------------------------------------------------
{
    echo
    echo "## Study 5: the Fetch-and-Replacement Cache (seed 001 Ch. 6, Figs. 6.6, 6.7, 6.10)"
    echo
} >> "$R"
if ran study5_frc; then
    s=study5_frc
    {
        echo "$(status $s). OPC and MPKO of the OpenCL workload set on \`traces/configs/rx540.ini\` and the"
        echo "RX 570 (32 CUs, 8 banks), gpu.protocol si, against the conventional L2 (victim policy"
        echo "serialized): the FRC at 4-512 entries per bank, the L2 at 2x and 4x. The thesis' numbers are the"
        echo "averages its text gives (\`study5_thesis.csv\`)."
        echo
        for f in rx540 rx570; do
            [ -s "$OUT/study5_$f.svg" ] && printf '![%s](study5_%s.svg)\n\n' "$f" "$f"
        done
        verdict 5 "$OUT/$s/table.csv" "$OUT/$s"
    } >> "$R"
    provenance $s
fi

# ---- study 6 -------------------------------------------------------------
{
    echo
    echo "## Study 6: VIPS-G against VI_Hammer and MESI (seed 002 Sec. 4, Figs. 9-11)"
    echo
} >> "$R"
if ran study6_vips; then
    s=study6_vips
    {
        echo "$(status $s), on seed 002's Table I system (traces/configs/vips_table1.ini). The paper's"
        echo "numbers (study6_thesis.csv) are those its text gives for Figs. 9-11; its programs are"
        echo "Rodinia's CUDA versions, ours the bundled and OpenCL workloads."
        echo
        [ -s "$OUT/study6_speedup.svg" ] && echo "![study 6](study6_speedup.svg)" && echo
        verdict 6 "$OUT/$s/table.csv" "$OUT/$s"
    } >> "$R"
    provenance $s
fi

# ---- study 7 -------------------------------------------------------------
{
    echo
    echo "## Study 7: data movement (seed 004 Ch. 6 and Sec. 4.2)"
    echo
} >> "$R"
if ran study7_data_movement && ran study7_explicit; then
    {
        echo "Copy protocols: $(status study7_data_movement); explicit copies: $(status study7_explicit)."
        echo "Seed 004's figures are plots; the quantities its text states are in \`study7_thesis.csv\`."
        echo "Region of interest: each program's producing, kernels and consuming (traces/gpu)."
        echo
        for w in vecadd tpacf; do
            [ -s "$OUT/study7_$w.svg" ] && printf '![%s](study7_%s.svg)\n' "$w" "$w"
        done
        echo
        awk -F, -v dir="$OUT/study7_data_movement" -f "$SPECS/verdict_lib.awk" -f "$SPECS/verdict7.awk" "$SPECS/study7_thesis.csv" \
            "$OUT/study7_data_movement/table.csv" "$OUT/study7_explicit/table.csv"
    } >> "$R"
    provenance study7_data_movement
    provenance study7_explicit
fi
echo "studies: report in $R"
