# Study 2's table with its baseline: the GPU-only points (study2_gpu_only.ini's
# table) as threads 0, share 0, then the collaborative points' table.
#   awk -F, -f join_gpu_only.awk COLLAB/table.csv GPU_ONLY/table.csv > TABLE.csv
# Columns are matched by name; one the GPU-only table lacks stays empty.
NR == 1 { n = NF; for (i = 1; i <= NF; i++) name[i] = $i; print; next }
NR == FNR { collab[++rows] = $0; next }
FNR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
{
    line = ""
    for (i = 1; i <= n; i++) {
        c = name[i]
        line = line (i > 1 ? "," : "") (c == "threads" || c == "share" ? 0 : (c in at) ? $at[c] : "")
    }
    print line
}
END { for (r = 1; r <= rows; r++) print collab[r] }
