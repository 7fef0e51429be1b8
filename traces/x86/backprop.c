/* Backpropagation (Rodinia-style): one hidden layer, forward pass and
 * weight adjustment split among threads. Usage: backprop [THREADS]. */
#include <math.h>

#include "rodinia_common.h"

enum { IN = 8192, HID = 16, OUT = 1, ROUNDS = 3 };
static double input[IN + 1], hidden[HID + 1], output[OUT + 1], target[OUT + 1];
static double w_ih[IN + 1][HID + 1], w_ho[HID + 1][OUT + 1], dw_ih[IN + 1][HID + 1];
static double delta_h[HID + 1], delta_o[OUT + 1], partial[MAX_THREADS][HID + 1];

static double squash(double x) { return 1.0 / (1.0 + exp(-x)); }

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    long lo, hi;
    split(IN + 1, id, &lo, &hi);
    for (int round = 0; round < ROUNDS; round++) {
        for (int j = 1; j <= HID; j++) {
            double s = 0;
            for (long i = lo; i < hi; i++)
                s += w_ih[i][j] * input[i];
            partial[id][j] = s;
        }
        pthread_barrier_wait(&barrier);
        if (id == 0) {
            for (int j = 1; j <= HID; j++) {
                double s = 0;
                for (int t = 0; t < nthreads; t++)
                    s += partial[t][j];
                hidden[j] = squash(s);
            }
            double s = 0;
            for (int j = 0; j <= HID; j++)
                s += w_ho[j][1] * hidden[j];
            output[1] = squash(s);
            delta_o[1] = output[1] * (1 - output[1]) * (target[1] - output[1]);
            for (int j = 1; j <= HID; j++) {
                delta_h[j] = hidden[j] * (1 - hidden[j]) * w_ho[j][1] * delta_o[1];
                w_ho[j][1] += 0.3 * delta_o[1] * hidden[j];
            }
        }
        pthread_barrier_wait(&barrier);
        for (long i = lo; i < hi; i++)
            for (int j = 1; j <= HID; j++) {
                double d = 0.3 * delta_h[j] * input[i] + 0.3 * dw_ih[i][j];
                w_ih[i][j] += d;
                dw_ih[i][j] = d;
            }
        pthread_barrier_wait(&barrier);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    parse_threads(argc, argv);
    input[0] = hidden[0] = 1.0;
    for (int i = 1; i <= IN; i++)
        input[i] = lcg_unit();
    for (int i = 0; i <= IN; i++)
        for (int j = 0; j <= HID; j++)
            w_ih[i][j] = lcg_unit() * 0.02 - 0.01;
    for (int j = 0; j <= HID; j++)
        w_ho[j][1] = lcg_unit() * 0.2 - 0.1;
    target[1] = 0.9;
    run_parallel(worker);
    double sum = 0;
    for (int i = 0; i <= IN; i++)
        for (int j = 0; j <= HID; j++)
            sum += w_ih[i][j] * (double)((i + j) % 7 + 1);
    printf("backprop threads %d output %.12f checksum %.10f\n", nthreads, output[1], sum);
    return 0;
}
