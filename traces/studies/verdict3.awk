# Study 3's verdicts, from the sweep's table (the region, the kernels' time,
# the hub's link, the ring's busiest links, DRAM, the GPU L1s' refusals)
# and the windows of the baseline points at 1 and 4 GHz (WFILE: the table
# of `sweep windows study3_windows.ini`, a row per window of each point):
#   awk -F, -v dir=DIR -v wfile=WFILE -f verdict_lib.awk -f verdict3.awk study3_thesis.csv DIR/table.csv
# Whether each setting moves the GPU's time and the region the way the
# thesis' Figs. 4.13-4.16 do, the settings' order, and what limits the GPU
# when more link bandwidth or a larger coalescer stops helping. DIR holds
# the points' configurations (the ring's clock, the L1's MSHR size).
FNR == 1 { head(); next }
FILENAME == ARGV[1] { tg[$1 "|" $2 "|" $3 "|" $4] = $6; tc[$1 "|" $2 "|" $3 "|" $4] = $7; tf[$1 "|" $2 "|" $3 "|" $4] = $5; next }
v("status") != "done" || v("roi.seconds") + 0 <= 0 || v("sum(roi.gpu.kernels[*].cycles)") + 0 <= 0 { next }
{
    tr = v("trace")
    c = v("gpu.frequency") "|" v("gpu.link_bytes") "|" v("gpu.l1.coalescer") "|" v("fabric")
    if (!(tr in seen)) { seen[tr] = 1; trs[++ntr] = tr }
    if (!(c in cseen)) { cseen[c] = 1; cs[++nc] = c }
    hzc = v("roi.cycles") / v("roi.seconds")
    R[tr, c] = v("roi.seconds")
    G[tr, c] = v("sum(roi.gpu.kernels[*].cycles)/roi.gpu.frequency")
    kc[tr, c] = v("sum(roi.gpu.kernels[*].cycles)")
    C[tr, c] = (v("roi.breakdown.cpu_busy") + v("roi.breakdown.cpu_stall")) / hzc
    cstall[tr, c] = v("roi.breakdown.cpu_stall") / hzc
    up = v("roi.gpu_hub.to_memory.bytes"); down = v("roi.gpu_hub.to_gpu.bytes")
    link[tr, c] = (up > down ? up : down) / (v("gpu.link_bytes") * kc[tr, c])
    up = v("roi.gpu_hub.to_memory.link_full_cycles"); down = v("roi.gpu_hub.to_gpu.link_full_cycles")
    full[tr, c] = (up > down ? up : down) / kc[tr, c]
    west = v("max(roi.network.switches[*].west_link_busy)"); east = v("max(roi.network.switches[*].east_link_busy)")
    if (!ringhz) {
        ini = dir "/" v("result"); sub(/\.json$/, ".ini", ini)
        ringhz = hz(ini_value(ini, "network", "frequency")); mshr = ini_value(ini, "gpu.l1", "mshr")
    }
    # the ring's busiest link and DRAM over the region (the least load they
    # carried while the kernels ran) and over the kernels' time (the most)
    ring[tr, c] = div(west > east ? west : east, R[tr, c] * ringhz)
    ringk[tr, c] = div(west > east ? west : east, G[tr, c] * ringhz)
    dram[tr, c] = div(v("roi.dram.bytes") / R[tr, c], v("roi.dram.peak_bandwidth_gbps") * 1e9)
    dramk[tr, c] = div(v("roi.dram.bytes") / G[tr, c], v("roi.dram.peak_bandwidth_gbps") * 1e9)
    refused[tr, c] = div(v("sum(roi.caches[gpu_l1v].full_stalls)"), v("sum(roi.caches[gpu_l1v].accesses)"))
    peak[tr, c] = v("max(roi.caches[gpu_l1v].mshr_peak)")
    lat[tr, c] = v("roi.memory_requests.avg_latency_cpu_cycles")
    merged[tr, c] = div(v("sum(roi.caches[gpu_l1v].coalesced)"), v("sum(roi.caches[gpu_l1v].accesses)"))
    held = v("sum(roi.gpu.compute_units[*].busy_cycles)") + v("sum(roi.gpu.compute_units[*].stall_cycles_total)")
    memwait[tr, c] = div(v("sum(roi.gpu.compute_units[*].stall_cycles.memory_wait)"), held)
}
# spread(X, NAME, N): the largest max/min - 1 of X over the settings of one
# GPU clock (NAME's last word)
function spread(x, name, n,   i, c, lo, hi, k, w) {
    for (i = 1; i <= n; i++) {
        c = name[i]; sub(/.* /, "", c)
        if (!(c in lo) || x[i] < lo[c]) lo[c] = x[i]
        if (!(c in hi) || x[i] > hi[c]) hi[c] = x[i]
    }
    for (k in lo) if (lo[k] > 0 && hi[k] / lo[k] - 1 > w) w = hi[k] / lo[k] - 1
    return w
}
# mean over the workloads of A's value over B's (time A / time B: < 1 faster)
function gmean(a, b,   i, s, n) {
    for (i = 1; i <= ntr; i++) if (((trs[i], a) in G) && ((trs[i], b) in G)) { s += G[trs[i], b] / G[trs[i], a]; n++ }
    return n ? s / n : 0
}
function rmean(a, b,   i, s, n) {
    for (i = 1; i <= ntr; i++) if (((trs[i], a) in R) && ((trs[i], b) in R)) { s += R[trs[i], b] / R[trs[i], a]; n++ }
    return n ? s / n : 0
}
function kshare(c,   i, s, n) {
    for (i = 1; i <= ntr; i++) if ((trs[i], c) in R) { s += G[trs[i], c] / R[trs[i], c]; n++ }
    return n ? s / n : 0
}
# what the loads say of a resource: at least LO, at most HI of its capacity
# while the kernels run
function load(name, lo, hi) {
    if (lo > 0.7) return name " is saturated"
    if (hi < 0.7) return name " is not saturated"
    return name " may be saturated while the kernels run (the region's totals cannot tell)"
}
# windows(TRACE, CLOCK): reads the rows of TRACE at GPU clock CLOCK from
# the windows table into the kernels' loads of the ring's busiest link,
# DRAM and the hub's link (the busier way, when the table has it: hubw):
# wring/wdram/whub, their means weighted by the compute units' cycles
# holding a work-group (the kernels' time in each window), and
# sring/sdram/shub, the share of those cycles in windows loaded 70% or
# more. 0 when there are no windows or no kernel ran in them.
function windows(tr, clock,   line, f, c, i, held, w, secs, rl, dl, n, west, east, up, down, den, hl) {
    wring = wdram = sring = sdram = whub = shub = hubw = nwin = wlen = 0
    n = 0
    while (wfile != "" && (getline line < wfile) > 0) {
        split(line, f, ",")
        if (!n++) { for (i = 1; i in f; i++) c[f[i]] = i; continue }
        if (f[c["trace"]] != tr || f[c["gpu.frequency"]] != clock) continue
        held = f[c["sum(gpu.compute_units[*].busy_cycles)"]] + f[c["sum(gpu.compute_units[*].stall_cycles_total)"]]
        secs = f[c["seconds"]]
        if (!wlen) wlen = f[c["cycles"]]
        if (held <= 0 || secs <= 0) continue
        west = f[c["max(network.switches[*].west_link_busy)"]]; east = f[c["max(network.switches[*].east_link_busy)"]]
        rl = (west > east ? west : east) / (secs * ringhz)
        dl = f[c["dram.bytes"]] / (secs * f[c["dram.peak_bandwidth_gbps"]] * 1e9)
        w += held; nwin++
        wring += rl * held; wdram += dl * held
        if (rl >= 0.7) sring += held
        if (dl >= 0.7) sdram += held
        if ("gpu_hub.link_bytes_per_cycle" in c) {
            up = f[c["gpu_hub.to_memory.bytes"]]; down = f[c["gpu_hub.to_gpu.bytes"]]
            den = f[c["gpu_hub.link_bytes_per_cycle"]] * hz(clock) * secs
            if (den > 0) {
                hl = (up > down ? up : down) / den; hubw = 1
                whub += hl * held
                if (hl >= 0.7) shub += held
            }
        }
    }
    if (wfile != "") close(wfile)
    if (w > 0) { wring /= w; wdram /= w; sring /= w; sdram /= w; whub /= w; shub /= w }
    return w > 0
}
# " a b c" as "a, b, c" ("none" when empty)
function listed(s) { s = substr(s, 2); gsub(/ /, ", ", s); return s == "" ? "none" : s }
# what the windows say of a resource: its mean load while the kernels run
# and the share of their time it is loaded 70% or more
function wload(name, mean, share) {
    if (share >= 0.5) return sprintf("%s is saturated while the kernels run (70%% or more of its capacity in %s of their time)", name, pct(share, 1))
    if (share < 0.1) return sprintf("%s is not saturated while the kernels run (%s of their time at 70%% or more)", name, pct(share, 1))
    return sprintf("%s is saturated in part of the kernels' time (%s of it at 70%% or more)", name, pct(share, 1))
}
END {
    b = "1GHz|32|32|built"
    print "### What agrees with the thesis, and why not (generated from the points' statistics)"
    print ""
    if (!ntr || !((trs[1], b) in R)) { print "No result at the baseline (1 GHz, 32 bytes, coalescer 32, fabric as built): no verdict."; exit }
    # the settings' order by GPU-time speedup, where the thesis gives one
    n = 0
    for (i = 1; i <= nc; i++)
        if ((cs[i] in tg) && tg[cs[i]] != "" && gmean(cs[i], b)) { n++; ours[n] = gmean(cs[i], b); theirs[n] = tg[cs[i]]; nm[n] = "Fig. " tf[cs[i]] " " substr(cs[i], 1, index(cs[i], "|") - 1) }
    if (n > 1) {
        rho = spearman(ours, theirs, n)
        printf "- Settings by the GPU's speedup, ours: %s; thesis: %s; rank correlation %.2f (%s)",
            order(ours, nm, n), order(theirs, nm, n), rho, (rho >= 0.8 ? "agrees" : rho >= 0.4 ? "agrees in part" : "disagrees")
        # The clock may decide the order alone: how far apart the settings
        # of one clock are, ours and the thesis'
        so = spread(ours, nm, n); st = spread(theirs, nm, n)
        if (so < 0.05 && st > 0.1)
            printf ". The clock orders them: within one clock our settings differ by at most %s, the thesis' by up to %s, so only the order between the clocks agrees", pct(so, 1), pct(st, 1)
        print "."
    }
    f4 = "4GHz|72|32|built"; f1 = "1GHz|72|32|built"
    if (gmean(f4, b))
        printf "- A 4 GHz GPU with the 72-byte link (Fig. 4.13; thesis GPU 1.92x, CPU 1.06x, CPU-limited): GPU time %s, region %s. The kernels are %s of the region at 1 GHz and %s at 4 GHz; the rest is the CPU threads' work and serial time, which a faster GPU does not shorten%s.\n",
            x2(gmean(f4, b)), x2(rmean(f4, b)), pct(kshare(f1), 1), pct(kshare(f4), 1),
            (rmean(f4, b) < 1.1 ? ": CPU-limited, as the thesis finds" : "")
    if (gmean(f1, b))
        printf "- The 72-byte link at 1 GHz (Fig. 4.13; thesis GPU 1.04x, CPU 1.11x, GPU-limited): GPU time %s, region %s%s.\n",
            x2(gmean(f1, b)), x2(rmean(f1, b)),
            (kshare(f1) < 0.5 ? "; our runs are not GPU-limited at 1 GHz: the kernels are under half of the region" : "")
    c96 = "1GHz|72|96|built"; c96f = "4GHz|72|96|built"
    if (gmean(c96, f1) && gmean(c96f, f4))
        printf "- Coalescer 32 -> 96 with the 72-byte link (Fig. 4.14 over Fig. 4.13; thesis GPU %s at 1 GHz, %s at 4 GHz): GPU speedup %s at 1 GHz, %s at 4 GHz.\n",
            x2(div(tg[c96], tg[f1])), x2(div(tg[c96f], tg[f4])), x2(gmean(c96, f1)), x2(gmean(c96f, f4))
    n1 = "1GHz|32|32|negligible"; n4 = "4GHz|32|32|negligible"; b4 = "4GHz|32|32|built"
    if (gmean(n1, b) && gmean(n4, b4)) {
        s1 = 0; s2 = 0; s3 = 0; s4 = 0
        for (i = 1; i <= ntr; i++) if (((trs[i], n1) in R)) { s1 += lat[trs[i], b]; s2 += lat[trs[i], n1]; s3 += cstall[trs[i], b]; s4 += C[trs[i], b] }
        printf "- A negligible fabric (Fig. 4.15; thesis GPU 1.07x and CPU 1.50x at 1 GHz, GPU 2.66x at 4 GHz): GPU speedup %s at 1 GHz and %s at 4 GHz, region %s at 1 GHz. The mean latency of memory requests falls by %s (%.1f to %.1f CPU cycles, mean over the workloads): the fabric is that small a part of a trip; and the CPU stalls (for any cause) %s of its time in the region.\n",
            x2(gmean(n1, b)), x2(gmean(n4, b4)), x2(rmean(n1, b)), pct(s1 - s2, s1), s1 / ntr, s2 / ntr, pct(s3, s4)
    }
    print ""
    printf "Why more bandwidth or a larger coalescer stops helping, per workload at 4 GHz (link 32 bytes, coalescer 32, fabric as built, unless named): the GPU's speedup from the 72-byte link and from coalescer 96, and the share of the L1s' requests merged into one already outstanding; the hub link's load while the kernels run (its traffic is the GPU's alone); the ring's busiest link and DRAM, whose traffic includes the CPU threads', as a share of their capacity over the region and over the kernels' time (the least and the most they carried while the kernels ran); the compute units' cycles waiting on memory, of those they held a work-group; the L1s' MSHR peak (of %s entries):\n", mshr
    print ""
    c72 = "4GHz|72|32|built"; c96 = "4GHz|32|96|built"
    for (i = 1; i <= ntr; i++) {
        tr = trs[i]
        if (!((tr, b4) in R)) continue
        printf "- **%s**: 72 bytes %s, coalescer 96 %s (merged %s of requests, %s at 32). Link %s loaded, full in %s of the kernels' cycles; ring %s-%s; DRAM %s-%s of peak; waiting on memory %s; MSHR peak %d. ",
            tr, ((tr, c72) in G) ? x2(G[tr, b4] / G[tr, c72]) : "-", ((tr, c96) in G) ? x2(G[tr, b4] / G[tr, c96]) : "-",
            ((tr, c96) in G) ? pct(merged[tr, c96], 1) : "-", pct(merged[tr, b4], 1),
            pct(link[tr, b4], 1), pct(full[tr, b4], 1), pct(ring[tr, b4], 1), pct(ringk[tr, b4], 1),
            pct(dram[tr, b4], 1), pct(dramk[tr, b4], 1), pct(memwait[tr, b4], 1), peak[tr, b4]
        lk = link[tr, b4] > full[tr, b4] ? link[tr, b4] : full[tr, b4]
        printf "%s; ", load("The link", lk, lk)
        nl++; if (lk > 0.7) lsat++
        if (windows(tr, "4GHz")) {
            printf "in windows of %d CPU cycles, the %d in which the kernels ran: ring %s loaded on average, DRAM %s of peak; %s; %s",
                wlen, nwin, pct(wring, 1), pct(wdram, 1), wload("the ring", wring, sring), wload("DRAM", wdram, sdram)
            if (hubw) {
                printf "; the hub link %s loaded on average, %s of their time at 70%% or more", pct(whub, 1), pct(shub, 1)
                nh++; if (shub >= 0.5) hsat++
            }
            printf "."
            nw++; if (sring >= 0.5) rsat = rsat " " tr; if (sdram >= 0.5) dsat = dsat " " tr
            if (windows(tr, "1GHz")) {
                printf " At 1 GHz (%d windows with kernels): ring %s on average, %s of the kernels' time at 70%% or more; DRAM %s, %s",
                    nwin, pct(wring, 1), pct(sring, 1), pct(wdram, 1), pct(sdram, 1)
                printf "%s", hubw ? sprintf("; hub link %s, %s", pct(whub, 1), pct(shub, 1)) : ""
                if (((tr, f1) in G) && ((tr, b) in G)) printf "; the 72-byte link gains %s there", x2(G[tr, b] / G[tr, f1])
                printf "."
                nw1++; if (sring >= 0.5) rsat1 = rsat1 " " tr; if (sdram >= 0.5) dsat1 = dsat1 " " tr
                if (hubw && shub >= 0.5) hsat1 = hsat1 " " tr
            }
            print ""
        } else
            printf "%s; %s.\n", load("the ring", ring[tr, b4], ringk[tr, b4]), load("DRAM", dram[tr, b4], dramk[tr, b4])
    }
    if (nw)
        printf "\nWhile the kernels run at 4 GHz (%d workloads with windows), the ring is saturated for %d (%s) and DRAM for %d (%s); the hub link for %d of %d workloads%s%s.\n",
            nw, split(rsat, x, " "), listed(rsat), split(dsat, y, " "), listed(dsat),
            nh ? hsat : lsat, nh ? nh : nl, nh ? " (from the windows)" : "", (nh ? hsat : lsat) ? "" : ", so a wider one cannot help"
    if (nw1) {
        n1r = split(rsat1, x, " ")
        printf "At 1 GHz (%d workloads with windows) the ring is saturated for %d (%s), DRAM for %d (%s)%s: ",
            nw1, n1r, listed(rsat1), split(dsat1, y, " "), listed(dsat1),
            nh ? sprintf(" and the hub link for %d (%s)", split(hsat1, z, " "), listed(hsat1)) : ""
        if (n1r)
            print "for those the ring is full at 1 GHz already, which bounds what the 72-byte link can gain there (the gains above)."
        else if (rsat != "")
            print "the ring has room at 1 GHz and fills only with the faster GPU."
        else
            print "the ring is saturated at neither clock."
    }
}
