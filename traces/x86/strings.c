/* Exercises the C library's string functions (often hand-vectorised with
 * SSE2 in the library) and prints a checksum of the results. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

static unsigned long hash(const char *s, size_t n)
{
    unsigned long h = 5381;
    for (size_t i = 0; i < n; i++)
        h = h * 33 + (unsigned char)s[i];
    return h;
}

int main(void)
{
    char buf[4096], cpy[4096];
    unsigned long sum = 0;
    for (int round = 0; round < 200; round++) {
        size_t n = (size_t)(round * 17 % 4000) + 1;
        for (size_t i = 0; i < n; i++)
            buf[i] = (char)('a' + (i * 7 + (size_t)round) % 26);
        buf[n] = 0;
        memcpy(cpy, buf, n + 1);
        sum += strlen(cpy);
        sum += (unsigned long)(strchr(cpy, 'q') ? strchr(cpy, 'q') - cpy : -1);
        sum += (unsigned long)(strrchr(cpy, 'e') ? strrchr(cpy, 'e') - cpy : -1);
        sum += (unsigned long)(memchr(cpy, 'z', n) ? (char *)memchr(cpy, 'z', n) - cpy : -1);
        cpy[n / 2] = 'A';
        sum += (unsigned long)(strcmp(buf, cpy) > 0) + (unsigned long)(memcmp(buf, cpy, n) < 0) * 2;
        sum += (unsigned long)(strncmp(buf, cpy, n / 2) == 0);
        memmove(cpy + 1, cpy, n);
        memset(cpy + n / 3, 'x', n / 4);
        sum = sum * 31 + hash(cpy, n);
        char *tok = strstr(cpy, "xxx");
        sum += tok ? (unsigned long)(tok - cpy) : 7;
        sum += strspn(cpy, "abcdefghijklm") + strcspn(cpy, "x");
        for (size_t i = 0; i < n; i += 5)
            cpy[i] = (char)toupper((unsigned char)cpy[i]);
        sum ^= hash(cpy, n) << 1;
    }
    char num[64];
    snprintf(num, sizeof num, "%lu", sum);
    printf("strings checksum %s (%zu digits)\n", num, strlen(num));
    printf("strtol %ld strtoul %lu atoi %d\n", strtol("-12345", NULL, 10),
           strtoul("ffee", NULL, 16), atoi("987"));
    return 0;
}
