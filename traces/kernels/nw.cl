/* Needleman-Wunsch (seed 000 Sec. 3.3.1, the alignment of Rodinia's nw): the
 * (n+1)^2 score matrix is filled one anti-diagonal per launch; cell (i, j)
 * with i + j == diag takes the best of a match/mismatch from the north-west
 * and a gap from the north or the west. */
__kernel void nw_diagonal(__global int *score, __global const int *similarity,
                          int n, int diag, int penalty)
{
    int first = diag - n > 1 ? diag - n : 1;      /* smallest row on the diagonal */
    int i = first + (int)get_global_id(0);
    int j = diag - i;
    if (i > n || j < 1 || j > n)
        return;
    int w = n + 1;
    int nw = score[(i - 1) * w + j - 1] + similarity[i * w + j];
    int up = score[(i - 1) * w + j] - penalty;
    int left = score[i * w + j - 1] - penalty;
    score[i * w + j] = max(nw, max(up, left));
}
