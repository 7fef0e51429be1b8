/* malloc/realloc/free churn and qsort, printing a checksum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
    unsigned seed = 12345;
    unsigned long sum = 0;
    enum { N = 20000, S = 2000 };
    int *v = malloc(N * sizeof *v);
    for (int i = 0; i < N; i++) {
        seed = seed * 1103515245u + 12345u;
        v[i] = (int)(seed >> 8) % 100000 - 50000;
    }
    qsort(v, N, sizeof *v, cmp_int);
    for (int i = 1; i < N; i++)
        if (v[i - 1] > v[i])
            return 1;
    for (int i = 0; i < N; i += 97)
        sum = sum * 7 + (unsigned)v[i];
    char **s = calloc(S, sizeof *s);
    for (int i = 0; i < S; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t len = 1 + (seed >> 16) % 300;
        s[i] = malloc(len + 1);
        for (size_t k = 0; k < len; k++)
            s[i][k] = (char)('a' + (seed >> (k % 20)) % 26);
        s[i][len] = 0;
        if (i % 3 == 0) {
            s[i] = realloc(s[i], len * 4 + 1);
            strcat(s[i], "tail");
        }
    }
    qsort(s, S, sizeof *s, cmp_str);
    for (int i = 0; i < S; i++) {
        sum = sum * 31 + (unsigned char)s[i][0] + strlen(s[i]);
        if (i % 2)
            free(s[i]);
    }
    void *big = malloc(8 << 20);
    memset(big, 1, 8 << 20);
    sum += ((unsigned char *)big)[12345];
    free(big);
    for (int i = 0; i < S; i += 2)
        free(s[i]);
    free(s);
    free(v);
    printf("malloc_qsort checksum %lu\n", sum);
    return 0;
}
