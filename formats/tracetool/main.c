#include <stdio.h>
int main(void)
{
    fputs("tracetool: not built yet\n", stderr);
    return 2;
}
