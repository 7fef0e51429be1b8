# Study 4's verdicts, from the sweep's table (axes workload, gpu.l1.mshr,
# gpu.protocol, variant; metric gpu.opc and the L1 requests):
#   awk -F, -f verdict_lib.awk -f verdict4.awk study4_thesis.csv DIR/table.csv
# The thesis' numbers (study4_thesis.csv, one line per claim, in its
# order) are what seed 001's text gives of Figs. 4.8, 2.2, 3.8, 4.4 and
# 4.6/4.7 (the figures' bars are not in the text). OPC is the measure
# throughout (the thesis' relative performance); a protocol's speedup
# over another is the ratio of their OPCs on the same program. MOESI's
# nearest here is mesi (the GPU's write-back, write-allocate MESI).
FNR == 1 { head(); next }
FILENAME == ARGV[1] { nt++; th[nt] = $3; next }
v("status") != "done" || v("gpu.opc") + 0 <= 0 { next }
{
    w = v("workload"); m = v("gpu.l1.mshr"); p = v("gpu.protocol"); x = v("variant")
    if (!(w in seen)) { seen[w] = 1; ws[++nw] = w }
    if (!(m in mseen)) { mseen[m] = 1; ms[++nm] = m }
    opc[w, m, p, x] = v("gpu.opc")
    req[w, m, p, x] = v("sum(caches[gpu_l1v].accesses)")
    mpko[w, m, p, x] = v("gpu.mpko"); vmb[w, m, p, x] = v("gpu.vector_buffer_full_fraction")
    lat[w, m, p, x] = v("gpu.vector_memory_latency.mean")
}
function has(w, m, p, x) { return (w, m, p, x) in opc }
function ratio(a, b) { return b > 0 ? a / b : 0 }
function say(ok, partly) { return ok ? "agrees" : partly ? "agrees in part" : "disagrees" }
END {
    if (!nw) { print "No point of study 4 is done: no verdict."; exit }
    print "### What agrees with the thesis, and why not (generated from the points' OPC)"
    print ""

    # How much the memory limits these programs: the thesis' gains (and
    # losses) come from programs bound by memory; ours are smaller inputs.
    print "How memory-bound each program is (mesi, base variant, largest L1 MSHR): L2 misses per"
    print "thousand lane operations, the share of cycles the vector memory buffer was full, and the"
    print "mean vector memory instruction latency (GPU cycles)."
    print ""
    print "| workload | MPKO | buffer full | mean latency |"
    print "|---|---:|---:|---:|"
    mx = ms[nm]
    for (i = 1; i <= nw; i++)
        if (has(ws[i], mx, "mesi", "base"))
            printf "| %s | %.2f | %.1f%% | %.0f |\n", ws[i], mpko[ws[i], mx, "mesi", "base"],
                100 * vmb[ws[i], mx, "mesi", "base"], lat[ws[i], mx, "mesi", "base"]
    print ""

    # ---- Fig. 4.8 and 2.2: the protocols, at the base variant ------------
    print "OPC of si and nmoesi over mesi (MOESI's nearest) at the same L1 MSHR size, and si over"
    print "nmoesi; base variant (hd7770.ini as it is)."
    print ""
    print "| workload | L1 MSHR | mesi OPC | si / mesi | nmoesi / mesi | si / nmoesi |"
    print "|---|---:|---:|---:|---:|---:|"
    for (i = 1; i <= nw; i++)
        for (j = 1; j <= nm; j++) {
            w = ws[i]; m = ms[j]
            if (!has(w, m, "mesi", "base") || !has(w, m, "si", "base") || !has(w, m, "nmoesi", "base")) continue
            printf "| %s | %s | %.3f | %.3f | %.3f | %.3f |\n", w, m, opc[w, m, "mesi", "base"],
                ratio(opc[w, m, "si", "base"], opc[w, m, "mesi", "base"]),
                ratio(opc[w, m, "nmoesi", "base"], opc[w, m, "mesi", "base"]),
                ratio(opc[w, m, "si", "base"], opc[w, m, "nmoesi", "base"])
        }
    print ""
    # Fig. 4.8 at each L1 MSHR size: programs with si >= 1.5x, >= 1.8x
    # nmoesi, and with nmoesi >= 1.1x si.
    for (j = 1; j <= nm; j++) {
        m = ms[j]; n = 0; a = 0; b = 0; c = 0
        for (i = 1; i <= nw; i++) {
            w = ws[i]
            if (!has(w, m, "si", "base") || !has(w, m, "nmoesi", "base")) continue
            n++; r = ratio(opc[w, m, "si", "base"], opc[w, m, "nmoesi", "base"])
            if (r >= 1.5) a++
            if (r >= 1.8) b++
            if (r > 0 && 1 / r >= 1.1) c++
        }
        if (!n) continue
        share = a / n
        printf "- Fig. 4.8, L1 MSHR %s: si at least 1.5x nmoesi in %d of %d programs (thesis: %s of them), about 2x in %d (thesis %s), nmoesi 1.1x or more above si in %d (thesis %s): %s.\n",
            m, a, n, th[1] == 0.5 ? "half" : th[1], b, th[2], c, th[3],
            say(share >= th[1] - 0.17 && share <= th[1] + 0.17, a > 0)
    }
    # Fig. 2.2: over mesi at L1 MSHR 256 (the thesis' MOESI baseline), each
    # protocol at every L1 MSHR size.
    base = "256"
    n = 0; both = 0; best_si = 0; best_nm = 0
    for (i = 1; i <= nw; i++) {
        w = ws[i]
        if (!has(w, base, "mesi", "base")) continue
        n++; gs = 0; gn = 0
        for (j = 1; j <= nm; j++) {
            m = ms[j]
            if (has(w, m, "si", "base")) { r = ratio(opc[w, m, "si", "base"], opc[w, base, "mesi", "base"]); if (r > best_si) { best_si = r; bsw = w " at " m }; if (r >= 1.1) gs = 1 }
            if (has(w, m, "nmoesi", "base")) { r = ratio(opc[w, m, "nmoesi", "base"], opc[w, base, "mesi", "base"]); if (r > best_nm) { best_nm = r; bnw = w " at " m }; if (r >= 1.1) gn = 1 }
        }
        if (gs && gn) both++
    }
    if (n) {
        printf "- Fig. 2.2: the largest speedup over mesi at L1 MSHR 256 is %.2fx for si (%s) and %.2fx for nmoesi (%s); the thesis: up to %sx for both: %s.\n",
            best_si, bsw, best_nm, bnw, th[4],
            say(best_si >= th[4] / 2 && best_nm >= th[5] / 2, best_si >= 1.1 || best_nm >= 1.1)
        printf "- Fig. 2.2: both gain 1.1x or more over mesi in %d of %d programs (thesis: %.0f%% of them): %s.\n",
            both, n, 100 * th[6], say(both / n >= th[6] - 0.2, both > 0)
    }

    # ---- Fig. 3.8: non-blocking stores, every protocol and size ----------
    n = 0; slower = 0; gain = 0; worst = 1e9; list = ""
    for (i = 1; i <= nw; i++)
        for (j = 1; j <= nm; j++)
            for (k = split("mesi si nmoesi", ps, " "); k >= 1; k--) {
                w = ws[i]; m = ms[j]; p = ps[k]
                if (!has(w, m, p, "base") || !has(w, m, p, "nbs")) continue
                n++; r = ratio(opc[w, m, p, "nbs"], opc[w, m, p, "base"])
                if (r > gain) gain = r
                if (r < worst) { worst = r; ww = w " (" p ", L1 MSHR " m ")" }
                if (r < 1) slower++
            }
    if (n)
        printf "- Fig. 3.8: non-blocking stores slower at %d of %d points (worst %.4fx, %s), largest gain %.3fx (thesis: never slower, up to %sx): %s.\n",
            slower, n, worst, ww, gain, th[8], say(slower == 0, worst >= 0.99)

    # ---- Fig. 4.4: the L2 MSHR, at mesi, every L1 MSHR size --------------
    n = 0; low = 0; flat = 0
    for (i = 1; i <= nw; i++)
        for (j = 1; j <= nm; j++) {
            w = ws[i]; m = ms[j]
            if (!has(w, m, "mesi", "l2mshr_16") || !has(w, m, "mesi", "l2mshr_128") || !has(w, m, "mesi", "l2mshr_256")) continue
            n++
            if (ratio(opc[w, m, "mesi", "l2mshr_16"], opc[w, m, "mesi", "l2mshr_256"]) < 0.3) low++
            if (ratio(opc[w, m, "mesi", "l2mshr_256"], opc[w, m, "mesi", "l2mshr_128"]) < 1.1) flat++
        }
    if (n) {
        printf "- Fig. 4.4 (mesi): OPC at L2 MSHR 16 below 30%% of that at 256 for %d of %d program and L1 MSHR pairs (thesis: most): %s.\n",
            low, n, say(low / n > th[9], low > 0)
        printf "- Fig. 4.4 (mesi): less than 10%% gained from L2 MSHR 128 to 256 for %d of %d (thesis: most): %s.\n",
            flat, n, say(flat / n > th[10], flat > 0)
    }

    # ---- Fig. 4.6/4.7: coalescing against merging, at mesi ---------------
    # Coalescing: per instruction (coalesce_instruction); merging: in the
    # L1's MSHR (coalesce_l1_mshr), Multi2Sim's access-level approach.
    n = 0; similar = 0; best = 0
    for (i = 1; i <= nw; i++)
        for (j = 1; j <= nm; j++) {
            w = ws[i]; m = ms[j]
            if (!has(w, m, "mesi", "coalesce_instruction") || !has(w, m, "mesi", "coalesce_l1_mshr")) continue
            n++
            rq = ratio(req[w, m, "mesi", "coalesce_l1_mshr"], req[w, m, "mesi", "coalesce_instruction"])
            if (rq >= 0.95 && rq <= 1.05) similar++
            r = ratio(opc[w, m, "mesi", "coalesce_instruction"], opc[w, m, "mesi", "coalesce_l1_mshr"])
            if (r > best) { best = r; bw = w " at L1 MSHR " m }
        }
    if (n) {
        printf "- Fig. 4.6 (mesi): L1 requests under merging within 5%% of coalescing's for %d of %d (thesis: %.0f%%): %s.\n",
            similar, n, 100 * th[11], say(similar / n >= th[11] - 0.2, similar > 0)
        printf "- Fig. 4.7 (mesi): the largest OPC gain of coalescing over merging is %.3fx (%s; thesis: up to %sx): %s.\n",
            best, bw, th[12], say(best >= 1.5, best > 1.01)
    }
}
