# Study 7's verdicts (seed 004 Ch. 6 and Sec. 4.2), from its two tables:
#   awk -F, -f verdict_lib.awk -f verdict7.awk study7_thesis.csv \
#       DIR/study7_data_movement/table.csv DIR/study7_explicit/table.csv
# with -v dir=DIR/study7_data_movement (the points' configurations: the
# link's latency).
# The protocol column names each point's policy, rolling size and block
# (launch, batch, lazy_BLOCK, rollingR_BLOCK). Whether batch update is far
# slower than lazy and rolling update and moves more (Figs. 6.3-6.4), the
# block-size cliffs of the 3D stencil, the vector addition and tpacf
# (Figs. 6.5, 6.7, 6.8), double buffering against per-call (Sec. 4.2.3)
# and the programs' transfer volumes (Table 3.3); each explained by the
# bytes, transfers, faults and waits of the same points.
FNR == 1 { head(); if (FILENAME == ARGV[3]) for (i = 1; i <= NF; i++) colname[$i] = 1; next }
FILENAME == ARGV[1] { th[$2] = $3; next }
FILENAME == ARGV[2] {
    if (v("status") != "done" || v("roi.cycles") + 0 <= 0) next
    k = v("workload") SUBSEP v("gpu.attach") SUBSEP v("protocol")
    npoints++
    T[k] = v("roi.cycles"); S[k] = v("roi.seconds")
    BG[k] = v("roi.gpu.data_movement.bytes_to_gpu"); BC[k] = v("roi.gpu.data_movement.bytes_to_cpu")
    FA[k] = v("roi.gpu.data_movement.faults"); EG[k] = v("roi.gpu.data_movement.eager_transfers")
    FW[k] = v("roi.gpu.data_movement.fault_wait_cycles"); LW[k] = v("roi.gpu.data_movement.launch_wait_cycles")
    DW[k] = v("roi.gpu.data_movement.done_wait_cycles")
    LB[k] = v("roi.gpu.data_movement.link.bytes"); LP[k] = v("roi.gpu.data_movement.link.busy_ps")
    LT[k] = v("roi.gpu.data_movement.link.transfers")
    if (v("gpu.attach") == "discrete" && !latency) {
        ini = dir "/" v("result"); sub(/\.json$/, ".ini", ini)
        latency = ini_value(ini, "pcie", "latency") * 1e-9
    }
    TG[k] = v("roi.gpu.data_movement.transfers_to_gpu")
    GT[k] = v("sum(roi.gpu.kernels[*].cycles)/roi.gpu.frequency")
    next
}
{
    if (v("status") != "done" || v("roi.cycles") + 0 <= 0) next
    k = v("workload") SUBSEP v("gpu.attach")
    XT[k] = v("roi.cycles"); XS[k] = v("roi.seconds")
    XW[k] = v("roi.gpu.data_movement.copy_wait_cycles") + v("roi.gpu.data_movement.async_wait_cycles")
    XY[k] = v("roi.gpu.copies.system_cycles"); XB[k] = v("roi.gpu.copies.bytes_copied")
    XC[k] = (("roi.breakdown.cpu_stall") in colname) ? v("roi.breakdown.cpu_stall") : ""
}
function key(w, a, p) { return w SUBSEP a SUBSEP p }
function has(w, a, p) { return key(w, a, p) in T }
function t(w, a, p) { return T[key(w, a, p)] }
function bytes(w, a, p) { return BG[key(w, a, p)] + BC[key(w, a, p)] }
function mb(b) { return sprintf("%.2f MB", b / 1e6) }
# the block sizes in order
function blocks(   i, s) {
    s = "4KiB 8KiB 16KiB 32KiB 64KiB 128KiB 256KiB 512KiB 1MiB 2MiB 4MiB 8MiB 16MiB 32MiB"
    return split(s, B, " ")
}
BEGIN { nb = blocks(); na = split("integrated discrete", AT, " ") }
END {
    print "### What agrees with the seed, and why not (generated from the points' statistics)"
    print ""
    if (!npoints) { print "No results: no verdict."; exit }
    # ---- Figs. 6.3-6.4: batch against lazy and rolling -------------------
    nw = split("vecadd tpacf cp stencil32 stencil64 stencil96", W, " ")
    print "Figs. 6.3-6.4 (256 KiB blocks, rolling size 2): region time over the hand-written version (the program's explicit-copy twin where it has one, else the launch policy: whole buffers at each launch and gpu_done), and the bytes each protocol moved over batch update's:"
    print ""
    print "| workload | attach | over | batch | lazy | rolling | launch | lazy bytes / batch | rolling bytes / batch |"
    print "|---|---|---|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= nw; i++) for (j = 1; j <= na; j++) {
        w = W[i]; a = AT[j]
        if (!has(w, a, "batch") || !has(w, a, "lazy_256KiB") || !has(w, a, "rolling2_256KiB")) continue
        base = ((w "_copy", a) in XT) ? XT[w "_copy", a] : t(w, a, "launch")
        over = ((w "_copy", a) in XT) ? "copy twin" : "launch"
        if (!base) continue
        rb = t(w, a, "batch") / t(w, a, "lazy_256KiB"); rr = t(w, a, "batch") / t(w, a, "rolling2_256KiB")
        n63++; if (rb > 1 && rr > 1) slower++
        if (rb > maxr) { maxr = rb; maxw = w " (" a ")" }
        if (rb < minr || !minr) { minr = rb; minw = w " (" a ")" }
        bl = div(bytes(w, a, "lazy_256KiB"), bytes(w, a, "batch")); br = div(bytes(w, a, "rolling2_256KiB"), bytes(w, a, "batch"))
        if (bl <= 1 && br <= 1) fewer++
        printf "| %s | %s | %s | %s | %s | %s | %s | %.3f | %.3f |\n", w, a, over, x2(t(w, a, "batch") / base),
            x2(t(w, a, "lazy_256KiB") / base), x2(t(w, a, "rolling2_256KiB") / base),
            has(w, a, "launch") ? x2(t(w, a, "launch") / base) : "-", bl, br
        # does time follow bytes (Fig. 6.3 against Fig. 6.4)?
        nt++; xb[nt] = div(bytes(w, a, "batch"), bytes(w, a, "lazy_256KiB")); yb[nt] = rb
        if (over == "copy twin") { nl++; if (agree(t(w, a, "lazy_256KiB") / base, th["lazy_slowdown"])) lok++ }
    }
    print ""
    if (n63) {
        printf "- Batch update slower than both lazy and rolling update in %d of %d workload-attachments (thesis: always); batch over lazy %s (%s) to %s (%s); thesis up to %sx over CUDA (pns), %sx (rpes): %s.\n",
            slower, n63, x2(minr), minw, x2(maxr), maxw, th["batch_slowdown_max"], th["batch_slowdown_rpes"],
            (slower == n63 && maxr >= 2 ? "agrees (far slower where it moves far more)" : slower == n63 ? "agrees in direction, not in size" : "disagrees")
        if (nt > 2) {
            rho = spearman(xb, yb, nt)
            printf "- The slowdown follows the bytes (Figs. 6.3 and 6.4 read together): rank correlation of batch's bytes over lazy's with its time over lazy's, %.2f (%s).\n",
                rho, (rho >= 0.8 ? "agrees" : rho >= 0.4 ? "agrees in part" : "disagrees")
        }
        printf "- Lazy and rolling update move no more than batch update in %d of %d (thesis: far less).\n", fewer, n63
        if (nl) printf "- Lazy update within 25%% of the hand-written version in %d of %d (thesis: equal, 1.00x).\n", lok, nl
    }
    # bytes: batch >= lazy(block) >= lazy(4 KiB), and lazy's bytes grow with the block
    for (i = 1; i <= nw; i++) for (j = 1; j <= na; j++) {
        w = W[i]; a = AT[j]
        if (!has(w, a, "batch") || !has(w, a, "lazy_4KiB")) continue
        for (b = 1; b <= nb; b++) {
            p = "lazy_" B[b]
            if (!has(w, a, p)) continue
            nord++
            if (bytes(w, a, "batch") >= bytes(w, a, p) && bytes(w, a, p) >= bytes(w, a, "lazy_4KiB")) ord++
            else bad = bad " " w "/" a "/" B[b]
        }
    }
    if (nord) printf "- Bytes moved, batch >= lazy >= lazy at 4 KiB (the bytes the CPU touched, rounded to 4 KiB): %d of %d points%s.\n",
        ord, nord, ord == nord ? " (agrees)" : ": not at" bad
    print ""
    # ---- Fig. 6.5: the 3D stencil -----------------------------------------
    print "Fig. 6.5 (3D stencil, growing volume): region time at 32 MiB blocks over 256 KiB and 1 MiB, rolling size 2; rolling over lazy update at 256 KiB; and seed 004's lazy update (whole objects: ours at 32 MiB blocks, above any volume here) over rolling at 256 KiB:"
    print ""
    print "| volume | attach | 32M / 256K | 32M / 1M | rolling / lazy (256K) | lazy 32M / rolling 256K | bytes lazy 32M / rolling 256K |"
    print "|---|---|---:|---:|---:|---:|---:|"
    nv = split("stencil32 stencil64 stencil96", V, " ")
    for (j = 1; j <= na; j++) {
        a = AT[j]; prev = 0; dec = 1; nvv = 0
        for (i = 1; i <= nv; i++) {
            w = V[i]
            if (!has(w, a, "rolling2_32MiB") || !has(w, a, "rolling2_256KiB") || !has(w, a, "rolling2_1MiB")) continue
            c1 = t(w, a, "rolling2_32MiB") / t(w, a, "rolling2_256KiB"); c2 = t(w, a, "rolling2_32MiB") / t(w, a, "rolling2_1MiB")
            rl = has(w, a, "lazy_256KiB") ? t(w, a, "rolling2_256KiB") / t(w, a, "lazy_256KiB") : 0
            ob = has(w, a, "lazy_32MiB") ? t(w, a, "lazy_32MiB") / t(w, a, "rolling2_256KiB") : 0
            printf "| %s | %s | %s | %s | %s | %s | %.2f |\n", w, a, x2(c1), x2(c2), x2(rl), x2(ob),
                div(bytes(w, a, "lazy_32MiB"), bytes(w, a, "rolling2_256KiB"))
            nvv++; if (c1 > 1) slow32++
            if (prev && c1 > prev) dec = 0
            prev = c1; n65++
            if (ob > 1) obj++
            if (rl && rl < 0.99) rwin++
            if (i == 1) first[a] = ob
            last[a] = ob
        }
        if (nvv > 1) { n65a++; if (dec) decr++ }
    }
    print ""
    # what a 256 KiB transfer loses to the link's latency (Fig. 6.5's
    # argument for large blocks when the volume is written out)
    k = key("stencil96", "discrete", "rolling2_256KiB")
    if ((k in LP) && LT[k] > 0 && latency) {
        per = LP[k] * 1e-12 / LT[k]
        printf "- A transfer on the link (stencil96, 256 KiB blocks) is busy %s us on average and pays %s us of latency: large blocks can save at most %s of the write-out's transfer time, which is why 32 MiB blocks do not win back the write-out here (the seed's links lost more to small transfers).\n", us(per), us(latency), pct(latency, per + latency)
    }
    if (n65) {
        printf "- 32 MiB blocks slower than 256 KiB in %d of %d volume-attachments (thesis: slower); the gap shrinks as the volume grows in %d of %d attachments (thesis: it does).\n", slow32, n65, decr, n65a
        printf "- Rolling update at 256 KiB over lazy update at 256 KiB: faster in %d of %d. Our lazy update tracks blocks as rolling update does (only the source's block goes back to the GPU), so the two differ only by the eager transfers; the seed's lazy update moves whole objects, as ours at 32 MiB blocks does, and that is slower than rolling at 256 KiB in %d of %d (thesis: rolling's gain grows with the volume; ours goes from %s to %s integrated, %s to %s discrete).\n",
            rwin, n65, obj, n65, x2(first["integrated"]), x2(last["integrated"]), x2(first["discrete"]), x2(last["discrete"])
    }
    print ""
    # ---- Fig. 6.7: vector addition ----------------------------------------
    w = "vecadd"
    print "Fig. 6.7 (vector addition, 8 M elements, rolling size 2): region time and the link's bandwidth per block (discrete: its bytes over its busy time plus the latency each transfer pays):"
    print ""
    printf "| block |"; for (j = 1; j <= na; j++) printf " %s time (ms) |", AT[j]; print " link GB/s | eager blocks | faults |"
    printf "|---|"; for (j = 1; j <= na; j++) printf "---:|"; print "---:|---:|---:|"
    bestbw = 0; bestb = ""
    for (b = 1; b <= nb; b++) {
        p = "rolling2_" B[b]
        if (!has(w, "integrated", p) && !has(w, "discrete", p)) continue
        printf "| %s |", B[b]
        for (j = 1; j <= na; j++) printf " %s |", has(w, AT[j], p) ? sprintf("%.3f", S[key(w, AT[j], p)] * 1e3) : "-"
        k = key(w, "discrete", p)
        bw = (k in LP) && LP[k] > 0 ? LB[k] / (LP[k] * 1e-12 + LT[k] * latency) / 1e9 : 0
        if (bw > bestbw) { bestbw = bw; bestb = B[b] }
        a0 = has(w, "discrete", p) ? "discrete" : "integrated"
        printf " %s | %d | %d |\n", bw ? sprintf("%.2f", bw) : "-", EG[key(w, a0, p)], FA[key(w, a0, p)]
    }
    print ""
    for (j = 1; j <= na; j++) {
        a = AT[j]
        if (!has(w, a, "rolling2_4KiB") || !has(w, a, "rolling2_16KiB")) continue
        r = t(w, a, "rolling2_4KiB") / t(w, a, "rolling2_16KiB")
        fr = div(FW[key(w, a, "rolling2_4KiB")] - FW[key(w, a, "rolling2_16KiB")], T[key(w, a, "rolling2_4KiB")] - T[key(w, a, "rolling2_16KiB")])
        printf "- %s: 4 KiB over 16 KiB blocks %s (thesis: slower at 4 KiB, from its faults): %s; the fault waits account for %s of the difference (%d and %d faults).\n",
            a, x2(r), (r > 1 ? "agrees" : "disagrees"), pct(fr, 1), FA[key(w, a, "rolling2_4KiB")], FA[key(w, a, "rolling2_16KiB")]
        if (has(w, a, "rolling2_32KiB") && has(w, a, "rolling2_64KiB") && has(w, a, "rolling2_128KiB")) {
            lm = t(w, a, "rolling2_64KiB") < t(w, a, "rolling2_32KiB") && t(w, a, "rolling2_64KiB") < t(w, a, "rolling2_128KiB")
            bt = ""; bv = 0
            for (b = 1; b <= nb; b++) if (has(w, a, "rolling2_" B[b]) && (!bv || t(w, a, "rolling2_" B[b]) < bv)) { bv = t(w, a, "rolling2_" B[b]); bt = B[b] }
            printf "- %s: 64 KiB a local minimum of the time (thesis' anomaly: eager transfers overlap the CPU's writes): %s; the fastest block is %s.\n", a, lm ? "yes (agrees)" : "no", bt
        }
    }
    if (bestb != "") printf "- The link's bandwidth is highest at %s blocks (%.2f GB/s; thesis: %s): %s. A transfer pays the link's latency once, so larger blocks approach its peak.\n",
        bestb, bestbw, th["bandwidth_best_block"], (bestb == th["bandwidth_best_block"] ? "agrees" : "disagrees")
    print ""
    # ---- Fig. 6.8: tpacf's rolling sizes ------------------------------------
    w = "tpacf"
    print "Fig. 6.8 (tpacf, three initialisation passes): region time (ms) per block for rolling sizes 1, 2, 4, and bytes sent to the GPU over lazy update's (each block once):"
    print ""
    printf "| block |"; for (r = 1; r <= 4; r *= 2) printf " rolling %d |", r; for (r = 1; r <= 4; r *= 2) printf " bytes r%d / lazy |", r; print ""
    printf "|---|"; for (r = 1; r <= 6; r++) printf "---:|"; print ""
    a = has(w, "discrete", "rolling1_4KiB") ? "discrete" : "integrated"
    for (b = 1; b <= nb; b++) {
        printf "| %s |", B[b]
        for (r = 1; r <= 4; r *= 2) printf " %s |", has(w, a, "rolling" r "_" B[b]) ? sprintf("%.3f", S[key(w, a, "rolling" r "_" B[b])] * 1e3) : "-"
        for (r = 1; r <= 4; r *= 2) printf " %s |", has(w, a, "rolling" r "_" B[b]) && BG[key(w, a, "lazy_" B[b])] ? sprintf("%.2f", BG[key(w, a, "rolling" r "_" B[b])] / BG[key(w, a, "lazy_" B[b])]) : "-"
        print ""
    }
    print ""
    for (r = 1; r <= 4; r *= 2) {
        hi = 0; lo = 0; hb = ""; drop = ""
        for (b = 1; b <= nb; b++) {
            p = "rolling" r "_" B[b]
            if (!has(w, a, p)) continue
            x = t(w, a, p)
            if (x > hi) { hi = x; hb = B[b] }
            if (!lo || x < lo) lo = x
            # the first block at which the resends stop (bytes back to lazy's)
            if (drop == "" && BG[key(w, a, "lazy_" B[b])] && BG[key(w, a, p)] <= 1.01 * BG[key(w, a, "lazy_" B[b])]) drop = B[b]
        }
        if (!hi) continue
        p4 = "rolling" r "_4KiB"; pd = "rolling" r "_" drop
        if (has(w, a, p4) && drop != "" && has(w, a, pd) && t(w, a, p4) != t(w, a, pd))
            printf "- %s, rolling size %d: from 4 KiB to %s blocks the region changes by %s; the CPU's fault waits change by %s of that (%d to %d faults) and the bytes sent by %s (resent blocks go eagerly, while the CPU writes the next pass).\n",
                a, r, drop, pct(t(w, a, pd) - t(w, a, p4), t(w, a, p4)),
                pct(FW[key(w, a, pd)] - FW[key(w, a, p4)], t(w, a, pd) - t(w, a, p4)), FA[key(w, a, p4)], FA[key(w, a, pd)],
                pct(BG[key(w, a, pd)] - BG[key(w, a, p4)], BG[key(w, a, p4)])
        if (r < 4)
            printf "- %s, rolling size %d: slowest at %s blocks; the passes stop resending blocks from %s (thesis: time drops after %s): %s.\n",
                a, r, hb, drop == "" ? "no block" : drop, th["critical_block_rolling" r], drop == th["critical_block_rolling" r] ? "agrees" : "disagrees"
        else
            printf "- %s, rolling size 4: time spread %s over the block sizes (max over min; thesis: almost constant): %s; resends stop from %s.\n",
                a, x2(hi / lo), (hi / lo < 1.25 ? "agrees" : "disagrees"), drop == "" ? "no block" : drop
    }
    print ""
    # ---- Sec. 4.2.3: double buffering --------------------------------------
    for (j = 1; j <= na; j++) {
        a = AT[j]
        if (!(("llsort_percall", a) in XT) || !(("llsort_double", a) in XT)) continue
        s = XT["llsort_percall", a] / XT["llsort_double", a]
        share = div(a == "discrete" ? XW["llsort_percall", a] : XY["llsort_percall", a], XT["llsort_percall", a])
        printf "- Linked-list sort, %s: double-buffered %s faster than per-call (thesis %sx at 16 M items): %s. The per-call run spends %s of its region in transfers (thesis %s), so overlapping them can gain at most %s",
            a, x2(s), th["double_over_percall"], (agree(s, th["double_over_percall"]) ? "agrees" : s > 1 ? "agrees in direction, not in size" : "disagrees"),
            pct(share, 1), pct(th["percall_transfer_share"], 1), x2(1 / (1 - share))
        if (XC["llsort_percall", a] != "" && XC["llsort_double", a] != "") {
            saved = (a == "discrete" ? XW["llsort_percall", a] - XW["llsort_double", a] : XY["llsort_percall", a] - XY["llsort_double", a])
            more = XC["llsort_double", a] - XC["llsort_percall", a]
            printf "; the double-buffered run waits %.0f fewer cycles for copies and its CPU stalls %.0f cycles %s (%s of that saving)%s",
                saved, (more < 0 ? -more : more), (more < 0 ? "less" : "more"), pct(more < 0 ? -more : more, saved),
                (more > saved / 4 ? ": its marshalling and relinking touch what the copy engine moved, which the synchronous copies' loads and stores had left in the caches" : "")
        }
        if (("llsort_hosted", a) in XT) printf "; accelerator-hosted (no marshalled copies, the GPU relinks) %s over per-call", x2(XT["llsort_percall", a] / XT["llsort_hosted", a])
        print "."
    }
    # ---- Table 3.3 ------------------------------------------------------------
    for (i = 1; i <= 2; i++) {
        w = i == 1 ? "tpacf" : "cp"
        a = has(w, "discrete", "lazy_4KiB") ? "discrete" : "integrated"
        if (!has(w, a, "lazy_4KiB")) continue
        k = key(w, a, "lazy_4KiB")
        printf "- Table 3.3, %s: to the GPU %s, back %s (lazy update, 4 KiB blocks: what the program touches; thesis %s MB and %s MB).\n",
            w, mb(BG[k]), mb(BC[k]), th[w "_mb_to_gpu"], th[w "_mb_to_cpu"]
    }
}
