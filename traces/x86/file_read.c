/* Reads a file given on the command line (/etc/passwd by default),
 * with stdio and with read(2), and prints counts and a checksum. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "/etc/passwd";
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return 2;
    }
    char line[1024];
    unsigned long lines = 0, chars = 0, sum = 0;
    while (fgets(line, sizeof line, f)) {
        lines++;
        chars += strlen(line);
        for (char *p = line; *p; p++)
            sum = sum * 131 + (unsigned char)*p;
    }
    fclose(f);
    int fd = open(path, O_RDONLY);
    char buf[512];
    ssize_t n;
    unsigned long bytes = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        bytes += (unsigned long)n;
    close(fd);
    printf("%s: %lu lines, %lu chars, %lu bytes, checksum %lu\n", path, lines, chars, bytes, sum);
    return lines == 0;
}
