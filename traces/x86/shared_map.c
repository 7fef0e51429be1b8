/* Shared writable file mappings (mmap MAP_SHARED, PROT_WRITE), as SQLite's
 * WAL index uses them: stores through the mapping are the file's contents
 * at once (read and pread see them), the file's writes show in the
 * mapping, two mappings of one file see each other, MADV_DONTNEED keeps
 * the data, msync and munmap succeed, and what was stored is in the file
 * after it is closed. A descriptor opened read-only is refused (EACCES).
 * Works in the directory given (tracegen: an --allow-write one). Prints
 * the same natively and under tracegen.
 *   shared_map DIR            the checks above
 *   shared_map DIR past_end   maps two pages of a one-page file and prints
 *                             the result (tracegen refuses: not compared)
 *   shared_map DIR truncated  truncates a mapped file to one page and
 *                             touches the second: dies of SIGBUS */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096

static char path[4096];

static int make_file(size_t pages)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    char page[PAGE];
    for (size_t i = 0; i < pages; i++) {
        memset(page, 'a' + (int)i, sizeof page);
        if (write(fd, page, sizeof page) != (ssize_t)sizeof page)
            return -1;
    }
    return fd;
}

static void show(const char *what, const char *bytes, size_t n)
{
    printf("%s: %.*s\n", what, (int)n, bytes);
}

static int checks(void)
{
    int fd = make_file(3);
    if (fd < 0)
        return 1;
    char *m = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    char *second = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, PAGE);
    if (m == MAP_FAILED || second == MAP_FAILED) {
        printf("mmap failed: %s\n", strerror(errno));
        return 1;
    }
    show("mapped", m + 10, 3);
    memcpy(m + 100, "stored", 6);
    char buf[16];
    show("pread after a store", buf, (size_t)pread(fd, buf, 6, 100));
    lseek(fd, 100, SEEK_SET);
    show("read after a store", buf, (size_t)read(fd, buf, 6));
    pwrite(fd, "written", 7, PAGE + 50);
    show("mapping after pwrite", m + PAGE + 50, 7);
    show("second mapping", second + 50, 7);
    memcpy(second + 200, "through two", 11);
    show("first mapping", m + PAGE + 200, 11);
    printf("madvise DONTNEED = %d\n", madvise(m, 3 * PAGE, MADV_DONTNEED));
    show("after DONTNEED", m + 100, 6);
    printf("msync = %d\n", msync(m, 3 * PAGE, MS_SYNC));
    m[3 * PAGE - 1] = 'Z';
    printf("munmap = %d %d\n", munmap(m, 3 * PAGE), munmap(second, PAGE));
    close(fd);

    fd = open(path, O_RDONLY);
    char all[3 * PAGE];
    ssize_t n = read(fd, all, sizeof all);
    unsigned long sum = 0;
    for (ssize_t i = 0; i < n; i++)
        sum = sum * 31 + (unsigned char)all[i];
    printf("file after close: %zd bytes, last %c, checksum %lu\n", n, all[n - 1], sum);
    void *ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    printf("shared writable mapping of a read-only descriptor: %s\n",
           ro == MAP_FAILED ? strerror(errno) : "mapped");
    close(fd);
    unlink(path);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: shared_map DIR [past_end]\n");
        return 2;
    }
    snprintf(path, sizeof path, "%s/shared.dat", argv[1]);
    if (argc > 2 && !strcmp(argv[2], "past_end")) {
        int fd = make_file(1);
        void *m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        printf("%s\n", m == MAP_FAILED ? strerror(errno) : "mapped");
        unlink(path);
        return 0;
    }
    if (argc > 2 && !strcmp(argv[2], "truncated")) {
        int fd = make_file(2);
        char *m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED || ftruncate(fd, PAGE) != 0)
            return 1;
        unlink(path);
        m[PAGE] = 1;
        return 0;
    }
    return checks();
}
