# Helpers the verdict programs share (awk -f verdict_lib.awk -f verdictN.awk):
# columns by header name, numbers from a point's configuration, the rank
# correlation the verdicts compare orderings with, and number formats.

# head(): after reading a CSV header line, col[FILENAME, NAME] is its column.
# v(NAME): the current line's NAME; a column the table does not have is an
# error naming it (exit 2), never a 0 read from the wrong field.
function head(   i) { for (i = 1; i <= NF; i++) col[FILENAME, $i] = i }
function v(name) {
    if (!((FILENAME, name) in col)) {
        printf "verdict: %s has no column %s\n", FILENAME, name > "/dev/stderr"
        exit 2
    }
    return $col[FILENAME, name]
}

# hz("2GHz"): a clock as replay writes it, in Hz.
function hz(s,   n) {
    n = s + 0
    if (s ~ /GHz$/) return n * 1e9
    if (s ~ /MHz$/) return n * 1e6
    if (s ~ /kHz$/) return n * 1e3
    return n
}

# ini_value(FILE, SECTION, KEY): KEY's value in [SECTION] of a point's
# effective configuration (DIR/points/KEY.ini), "" if absent.
function ini_value(file, section, key,   line, sec, k, val) {
    sec = ""
    while ((getline line < file) > 0) {
        if (line ~ /^\[/) { sec = line; gsub(/[][]/, "", sec); continue }
        if (sec != section || line ~ /^;/ || line !~ /=/) continue
        k = line; sub(/[ \t]*=.*/, "", k)
        if (k != key) continue
        val = line; sub(/^[^=]*=[ \t]*/, "", val); sub(/[ \t]*;.*/, "", val)
        close(file)
        return val
    }
    close(file)
    return ""
}

# rank(X, N, R): R[i] = the rank of X[i] among X[1..N] (1 = largest; ties
# share their mean rank).
function rank(x, n, r,   i, j, above, same) {
    for (i = 1; i <= n; i++) {
        above = 0; same = 0
        for (j = 1; j <= n; j++) {
            if (x[j] > x[i]) above++
            else if (x[j] == x[i]) same++
        }
        r[i] = above + (same + 1) / 2
    }
}

# spearman(X, Y, N): Spearman's rank correlation of X[1..N] and Y[1..N]
# (Pearson's correlation of the ranks): 1 the same order, -1 the reverse.
function spearman(x, y, n,   rx, ry, i, mx, my, sxy, sxx, syy) {
    rank(x, n, rx); rank(y, n, ry)
    for (i = 1; i <= n; i++) { mx += rx[i]; my += ry[i] }
    mx /= n; my /= n
    for (i = 1; i <= n; i++) {
        sxy += (rx[i] - mx) * (ry[i] - my)
        sxx += (rx[i] - mx) ^ 2; syy += (ry[i] - my) ^ 2
    }
    return sxx && syy ? sxy / sqrt(sxx * syy) : 0
}

# order(X, NAME, N): NAME[1..N] by X, largest first, as "a > b > c".
function order(x, name, n,   o, i, j, t, s) {
    for (i = 1; i <= n; i++) o[i] = i
    for (i = 1; i <= n; i++)
        for (j = i + 1; j <= n; j++)
            if (x[o[j]] > x[o[i]]) { t = o[i]; o[i] = o[j]; o[j] = t }
    s = ""
    for (i = 1; i <= n; i++) s = s (i > 1 ? " > " : "") name[o[i]]
    return s
}

function div(a, b) { return b ? a / b : 0 }
function pct(a, b) { return b ? sprintf("%.0f%%", 100 * a / b) : "-" }
function us(seconds) { return sprintf("%.1f", seconds * 1e6) }
function x2(r) { return sprintf("%.2fx", r) }

# agree(OURS, THEIRS): within a quarter of each other (the studies compare
# directions and orderings; our inputs are smaller than the thesis').
function agree(a, b) { return a > 0 && b > 0 && a / b < 1.25 && b / a < 1.25 }
