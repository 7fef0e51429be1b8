# Study 5's verdicts, from the sweep's table (axes workload, machine,
# variant; metrics gpu.opc, gpu.mpko and the memory measures):
#   awk -F, -f verdict_lib.awk -f verdict5.awk study5_thesis.csv DIR/table.csv
# The thesis' numbers (study5_thesis.csv) are the averages seed 001's text
# gives of Figs. 6.6, 6.7 and 6.10. A variant's gain on a program is its
# OPC over the base's (the conventional L2, victim policy serialized)
# minus 1, its MPKO change its MPKO over the base's minus 1 (programs with
# base MPKO 0 left out); the averages are arithmetic means over the
# programs, as the thesis' are.
FNR == 1 { head(); next }
FILENAME == ARGV[1] { nt++; th[nt] = $3; tm[nt] = $2; next }
v("status") != "done" || v("gpu.opc") + 0 <= 0 { next }
{
    w = v("workload"); m = v("machine"); x = v("variant")
    if (!(w in seen)) { seen[w] = 1; ws[++nw] = w }
    if (!(m in mseen)) { mseen[m] = 1; ms[++nm] = m }
    opc[w, m, x] = v("gpu.opc"); mpko[w, m, x] = v("gpu.mpko")
    fetch[w, m, x] = v("gpu.l2_miss_latency.fetch_mean"); bw[w, m, x] = v("gpu.l2_memory_bytes_per_cycle")
}
function has(w, m, x) { return (w, m, x) in opc && (w, m, "base") in opc }
# gain(M, X): mean OPC gain of X over the base on machine M; n_[M, X] programs
function gain(m, x,   i, s, n) {
    for (i = 1; i <= nw; i++) if (has(ws[i], m, x)) { s += opc[ws[i], m, x] / opc[ws[i], m, "base"] - 1; n++ }
    ng[m, x] = n
    return n ? s / n : 0
}
function mpko_change(m, x,   i, s, n) {
    for (i = 1; i <= nw; i++)
        if (has(ws[i], m, x) && mpko[ws[i], m, "base"] > 0) { s += mpko[ws[i], m, x] / mpko[ws[i], m, "base"] - 1; n++ }
    return n ? s / n : 0
}
function share_above(m, x, t,   i, k, n) {
    for (i = 1; i <= nw; i++) if (has(ws[i], m, x)) { n++; if (opc[ws[i], m, x] / opc[ws[i], m, "base"] - 1 > t) k++ }
    return n ? k / n : 0
}
function signed(r) { return sprintf("%+.0f%%", 100 * r) }
function say(ok) { return ok ? "agrees" : "disagrees" }
END {
    if (!nw) { print "No point of study 5 is done: no verdict."; exit }
    nv = split("early frc4 frc16 frc64 frc256 frc512 l2x2 l2x4", vs, " ")
    print "### What agrees with the thesis, and why not (generated from the points' OPC and MPKO)"
    print ""
    for (j = 1; j <= nm; j++) {
        m = ms[j]
        print "Mean over the programs on " m ", against the base (victim policy serialized):"
        print ""
        print "| variant | programs | OPC gain | MPKO change |"
        print "|---|---:|---:|---:|"
        for (k = 1; k <= nv; k++) {
            g[m, vs[k]] = gain(m, vs[k]); c[m, vs[k]] = mpko_change(m, vs[k])
            if (ng[m, vs[k]]) printf "| %s | %d | %s | %s |\n", vs[k], ng[m, vs[k]], signed(g[m, vs[k]]), signed(c[m, vs[k]])
        }
        print ""
    }
    print "| figure | claim | thesis | ours | verdict |"
    print "|---|---|---:|---:|---|"
    # the claims of study5_thesis.csv, in its order: machine and variant each is of
    split("rx540 rx540 rx540 rx540 rx540 rx540 rx540 rx570 rx570 rx570 rx570", cm, " ")
    split("frc4 frc512 l2x2 l2x4 frc512 frc4 frc512 frc4 frc512 l2x2 l2x4", cv, " ")
    ours[1] = g["rx540", "frc4"]; ours[2] = g["rx540", "frc512"]; ours[3] = g["rx540", "l2x2"]; ours[4] = g["rx540", "l2x4"]
    ours[5] = share_above("rx540", "frc512", 0.1); ours[6] = c["rx540", "frc4"]; ours[7] = c["rx540", "frc512"]
    ours[8] = g["rx570", "frc4"]; ours[9] = g["rx570", "frc512"]; ours[10] = g["rx570", "l2x2"]; ours[11] = g["rx570", "l2x4"]
    for (i = 1; i <= nt && i <= 11; i++) {
        fig = i <= 5 ? "6.6" : i <= 7 ? "6.7" : "6.10"
        if (!ng[cm[i], cv[i]]) {
            printf "| %s | %s | %s | - | not run |\n", fig, tm[i], i == 5 ? pct(th[i], 1) : signed(th[i])
            continue
        }
        # a change within 2% is none: the direction is the thesis' only if it is larger
        same = th[i] > 0 ? ours[i] > 0.02 : ours[i] < -0.02
        ok = same && agree(ours[i] < 0 ? -ours[i] : ours[i], th[i] < 0 ? -th[i] : th[i])
        printf "| %s | %s | %s | %s | %s |\n", fig, tm[i],
            i == 5 ? pct(th[i], 1) : signed(th[i]), i == 5 ? pct(ours[i], 1) : signed(ours[i]),
            ok ? "agrees" : same ? "same direction, other size" : "disagrees"
    }
    print ""
    for (j = 1; j <= nm; j++) {
        m = ms[j]
        if (!ng[m, "frc4"] || !ng[m, "l2x2"]) continue
        beats = ""
        split("frc4 frc16 frc64 frc256 frc512", fs, " ")
        for (k = 1; k <= 5; k++) if (ng[m, fs[k]] && g[m, fs[k]] > g[m, "l2x2"]) beats = beats (beats ? ", " : "") fs[k]
        printf "- %s: does the FRC beat doubling the L2 (%s)? %s.\n", m, signed(g[m, "l2x2"]),
            beats ? "yes, at " beats : "no, at no size"
        grow = 1
        for (k = 2; k <= 5; k++) if (ng[m, fs[k]] && g[m, fs[k]] < g[m, fs[k - 1]] - 0.01) grow = 0
        flat = g[m, "frc512"] - g[m, "frc64"] < g[m, "frc64"] - g[m, "frc4"]
        printf "- %s: does the gain grow with the entries (%s, %s, %s, %s, %s)? %s; does it flatten past 64 (less gained from 64 to 512 than from 4 to 64)? %s (thesis: grows, saturating at 64-128).\n",
            m, signed(g[m, "frc4"]), signed(g[m, "frc16"]), signed(g[m, "frc64"]), signed(g[m, "frc256"]),
            signed(g[m, "frc512"]), grow ? "yes" : "no", flat ? "yes" : "no"
        n = 0
        for (i = 1; i <= nw; i++) if (has(ws[i], m, "frc512")) { n++; r[n] = opc[ws[i], m, "frc512"] / opc[ws[i], m, "base"]; nm_[n] = ws[i] }
        printf "- %s: programs by their gain at 512 entries: %s (thesis: Kmeans and PRK most, 3MM and HotSpot none).\n", m, order(r, nm_, n)
        delete r; delete nm_
    }
    print ""
    print "Why ours may differ: how memory-bound each program is at the base (MPKO, the L2's fetch latency"
    print "in GPU cycles, bytes per cycle to memory), beside the FRC's gain; a program with MPKO near 0 has"
    print "no misses for the FRC to take."
    print ""
    print "| workload | machine | base MPKO | base fetch | base bytes/cycle | frc512 gain | frc512 MPKO change |"
    print "|---|---|---:|---:|---:|---:|---:|"
    for (j = 1; j <= nm; j++)
        for (i = 1; i <= nw; i++) {
            w = ws[i]; m = ms[j]
            if (!has(w, m, "frc512")) continue
            printf "| %s | %s | %.2f | %.0f | %.2f | %s | %s |\n", w, m, mpko[w, m, "base"], fetch[w, m, "base"],
                bw[w, m, "base"], signed(opc[w, m, "frc512"] / opc[w, m, "base"] - 1),
                (mpko[w, m, "base"] > 0 ? signed(mpko[w, m, "frc512"] / mpko[w, m, "base"] - 1) : "-")
        }
}
