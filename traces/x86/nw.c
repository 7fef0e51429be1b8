/* Needleman-Wunsch (Rodinia-style): the score matrix is filled block by
 * block along anti-diagonals; blocks of one diagonal are split among
 * threads. Usage: nw [THREADS]. */
#include "rodinia_common.h"

enum { L = 1024, B = 32, NB = L / B, PENALTY = 10 };
static int score[L + 1][L + 1], sim[L + 1][L + 1];
static unsigned char s1[L + 1], s2[L + 1];

static int max3(int a, int b, int c)
{
    int m = a > b ? a : b;
    return m > c ? m : c;
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    for (int d = 0; d < 2 * NB - 1; d++) {
        int first = d < NB ? 0 : d - NB + 1, last = d < NB ? d : NB - 1;
        for (int bi = first + id; bi <= last; bi += nthreads) {
            int bj = d - bi;
            for (int i = bi * B + 1; i <= (bi + 1) * B; i++)
                for (int j = bj * B + 1; j <= (bj + 1) * B; j++)
                    score[i][j] = max3(score[i - 1][j - 1] + sim[i][j],
                                       score[i - 1][j] - PENALTY, score[i][j - 1] - PENALTY);
        }
        pthread_barrier_wait(&barrier);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    parse_threads(argc, argv);
    for (int i = 1; i <= L; i++) {
        s1[i] = (unsigned char)(lcg() % 10);
        s2[i] = (unsigned char)(lcg() % 10);
    }
    for (int i = 0; i <= L; i++) {
        score[i][0] = -i * PENALTY;
        score[0][i] = -i * PENALTY;
    }
    for (int i = 1; i <= L; i++)
        for (int j = 1; j <= L; j++)
            sim[i][j] = s1[i] == s2[j] ? 5 : -3;
    run_parallel(worker);
    long sum = 0;
    for (int i = 0; i <= L; i += 7)
        for (int j = 0; j <= L; j += 5)
            sum += score[i][j];
    printf("nw %d threads %d final %d checksum %ld\n", L, nthreads, score[L][L], sum);
    return 0;
}
