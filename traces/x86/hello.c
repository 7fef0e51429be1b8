/* The smallest guest: prints a line and exits with a chosen status. */
#include <stdio.h>

int main(int argc, char **argv)
{
    printf("hello from %s with %d argument(s)\n", argv[0][0] ? "the guest" : "?", argc - 1);
    for (int i = 1; i < argc; i++)
        printf("arg %d: %s\n", i, argv[i]);
    return 3;
}
