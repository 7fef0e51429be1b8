# Study 2's verdicts, from the sweep's table with the GPU-only points as
# threads 0, share 0 (join_gpu_only.awk; the region, the kernels' time, the
# CPU's busy and stalled time):
#   awk -F, -f verdict_lib.awk -f verdict2.awk study2_thesis.csv study2.csv
# Whether the thesis' trends hold (more threads help; a CPU share past the
# optimum hurts; collaboration mostly beats the GPU alone; the workloads'
# order), and per workload what bounds the speedup: how much slower one CPU
# thread is than the GPU on the same work (the best a balanced split can
# give) and the time in the region that is neither.
FNR == 1 { head(); next }
FILENAME == ARGV[1] { tt[$1] = $2; ts[$1] = $3; tb[$1] = $4; tm[$1] = $5; next }
v("status") != "done" || v("roi.seconds") + 0 <= 0 { next }
{
    w = v("workload"); t = v("threads") + 0; s = v("share") + 0
    if (!(w in seen)) { seen[w] = 1; ws[++nw] = w }
    if (!((t, 0) in tseen)) { tseen[t, 0] = 1; thr[++nt] = t }
    if (!((0, s) in sseen)) { sseen[0, s] = 1; shr[++ns] = s }
    hzc = v("roi.cycles") / v("roi.seconds")
    R[w, t, s] = v("roi.seconds")
    G[w, t, s] = v("sum(roi.gpu.kernels[*].cycles)/roi.gpu.frequency")
    C[w, t, s] = (v("roi.breakdown.cpu_busy") + v("roi.breakdown.cpu_stall")) / hzc
    S[w, t, s] = v("roi.breakdown.system") / hzc
}
function has(w, t, s) { return (w, t, s) in R }
END {
    tmax = 0; smin = 1e9; smax = 0
    for (i = 1; i <= nt; i++) if (thr[i] > tmax) tmax = thr[i]
    for (i = 1; i <= ns; i++) if (shr[i] > 0) { if (shr[i] < smin) smin = shr[i]; if (shr[i] > smax) smax = shr[i] }
    print "### What agrees with the thesis, and why not (generated from the points' statistics)"
    print ""
    more = 0; nmore = 0; falls = 0; nfalls = 0; won = 0; ncollab = 0; n = 0; list = ""
    for (i = 1; i <= nw; i++) {
        w = ws[i]
        if (!has(w, 0, 0)) continue
        r0 = R[w, 0, 0]; best[w] = 0
        for (a = 1; a <= nt; a++)
            for (b = 1; b <= ns; b++) {
                t = thr[a]; s = shr[b]
                if (!s || !has(w, t, s)) continue
                sp = r0 / R[w, t, s]; ncollab++; if (sp > 1) won++
                if (sp > best[w]) { best[w] = sp; bt[w] = t; bs[w] = s }
            }
        for (b = 1; b <= ns; b++)
            if (shr[b] && has(w, 1, shr[b]) && has(w, tmax, shr[b])) { nmore++; if (R[w, tmax, shr[b]] < R[w, 1, shr[b]]) more++ }
        for (a = 1; a <= nt; a++)
            if (has(w, thr[a], smin) && has(w, thr[a], smax)) { nfalls++; if (R[w, thr[a], smax] > R[w, thr[a], smin]) falls++ }
        if (best[w] && (w in tb)) { n++; ours[n] = best[w]; theirs[n] = tb[w]; nm[n] = w }
    }
    if (!ncollab) { print "No workload has both a GPU-only and a collaborative result: no verdict."; exit }
    printf "- More threads help at a fixed CPU share (thesis: yes): %d threads beat one at %d of %d shares over the workloads%s.\n",
        tmax, more, nmore, (more * 2 > nmore ? ": agrees" : ": disagrees")
    printf "- A larger CPU share unbalances the run (thesis: imbalance grows from 20%% to 80%% at any thread count): the %d%% share is slower than the %d%% one at %d of %d thread counts over the workloads%s.\n",
        smax, smin, falls, nfalls, (falls * 2 > nfalls ? ": agrees" : ": disagrees")
    printf "- Collaboration mostly beats the GPU alone (thesis: yes, its mean speedups exceed 1 for four of five workloads): %d of %d collaborative points are faster than the GPU-only run%s.\n",
        won, ncollab, (won * 2 > ncollab ? ": agrees" : ": disagrees")
    if (n > 1) {
        rho = spearman(ours, theirs, n)
        printf "- Order of the workloads by best speedup: ours %s; thesis %s; rank correlation %.2f (%s).\n",
            order(ours, nm, n), order(theirs, nm, n), rho,
            (rho >= 0.8 ? "agrees" : rho >= 0.4 ? "agrees in part" : "disagrees")
    }
    print ""
    print "Per workload: one CPU thread's time for the whole work is estimated from its CPU work at one thread and"
    printf "the nominal %d%% and %d%% shares (a workload rounds its share to the GPU's granularity, so this is an\n", smin, smax
    print "estimate); split perfectly, T threads and a GPU k times faster than one thread give at most 1 + T/k, at a"
    print "CPU share of T/(T+k)."
    print ""
    for (i = 1; i <= nw; i++) {
        w = ws[i]
        if (!has(w, 0, 0)) { printf "- **%s**: no GPU-only result (threads 0): no speedups.\n", w; continue }
        r0 = R[w, 0, 0]; g0 = G[w, 0, 0]
        printf "- **%s**: best %s at %d threads and %d%% (thesis %s at %s and %s%%)", w, x2(best[w]), bt[w], bs[w],
            (w in tb) ? x2(tb[w]) : "none", tt[w], ts[w]
        if ((w in tb) && agree(best[w], tb[w])) printf ", within a quarter of the thesis'"
        printf ". GPU-only region %s us, kernels %s us", us(r0), us(g0)
        if (has(w, 1, 0) && has(w, tmax, 0))
            printf "; at share 0 with 1 and %d threads it takes %s and %s of that", tmax, pct(R[w, 1, 0], r0),
                pct(R[w, tmax, 0], r0)
        printf "."
        if (has(w, 1, smin) && has(w, 1, smax) && g0 > 0) {
            whole = (C[w, 1, smax] - C[w, 1, smin]) / ((smax - smin) / 100)
            if (whole > 0) {
                k = whole / g0
                printf " One CPU thread needs about %s us for the whole work, %.1f times the GPU's time: %d threads split perfectly give at most %s (at a CPU share of %.0f%%)",
                    us(whole), k, tmax, x2(1 + tmax / k), 100 * tmax / (tmax + k)
                if ((w in tb) && tb[w] > 1)
                    printf "; the thesis' %s with %s threads needs a CPU thread at most %.1f times slower than the GPU",
                        x2(tb[w]), tt[w], tt[w] / (tb[w] - 1)
                printf "."
            }
        }
        t = bt[w]; s = bs[w]
        longer = G[w, t, s] > C[w, t, s] / t ? G[w, t, s] : C[w, t, s] / t
        printf " At the best point the region (%s us) is %s us longer than the longer of the kernels (%s us) and the mean CPU thread's work (%s us): a serial part neither overlaps (system calls, such as creating and joining the threads, take %s us over the cores).\n",
            us(R[w, t, s]), us(R[w, t, s] - longer), us(G[w, t, s]), us(C[w, t, s] / t), us(S[w, t, s])
    }
}
