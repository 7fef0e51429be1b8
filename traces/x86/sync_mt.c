/* Synchronization workout: mutex-protected counter, condition-variable
 * producer/consumer queue, barrier phases and C11 atomics. Output depends
 * only on the program, not on the thread interleaving. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

enum { THREADS = 4, ITEMS = 2000, PHASES = 5, QCAP = 16 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t barrier;
static long counter;
static atomic_long atomic_sum;
static atomic_int spin_flag;
static int queue[QCAP], qhead, qcount, produced_done;
static long consumed_sum, phase_sum[PHASES];

static void *producer(void *arg)
{
    (void)arg;
    for (int i = 1; i <= ITEMS; i++) {
        pthread_mutex_lock(&lock);
        while (qcount == QCAP)
            pthread_cond_wait(&not_full, &lock);
        queue[(qhead + qcount++) % QCAP] = i;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    produced_done = 1;
    pthread_cond_broadcast(&not_empty);
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *consumer(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (qcount == 0 && !produced_done)
            pthread_cond_wait(&not_empty, &lock);
        if (qcount == 0) {
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        int v = queue[qhead];
        qhead = (qhead + 1) % QCAP;
        qcount--;
        consumed_sum += v;
        pthread_cond_signal(&not_full);
        pthread_mutex_unlock(&lock);
    }
}

static void *worker(void *arg)
{
    long id = (long)arg;
    for (int ph = 0; ph < PHASES; ph++) {
        for (int i = 0; i < 1000; i++) {
            pthread_mutex_lock(&lock);
            counter++;
            pthread_mutex_unlock(&lock);
            atomic_fetch_add(&atomic_sum, id + i);
        }
        pthread_barrier_wait(&barrier);
        if (id == 0)
            phase_sum[ph] = counter;
        pthread_barrier_wait(&barrier);
    }
    /* a spin hand-off through an atomic flag */
    while (atomic_load(&spin_flag) != id)
        sched_yield();
    atomic_store(&spin_flag, (int)id + 1);
    return NULL;
}

int main(void)
{
    pthread_t th[THREADS + 2];
    pthread_barrier_init(&barrier, NULL, THREADS);
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    pthread_create(&th[THREADS], NULL, producer, NULL);
    pthread_create(&th[THREADS + 1], NULL, consumer, NULL);
    for (int t = 0; t < THREADS + 2; t++)
        pthread_join(th[t], NULL);
    printf("counter %ld atomic %ld consumed %ld spin %d\n", counter, (long)atomic_sum,
           consumed_sum, (int)spin_flag);
    for (int ph = 0; ph < PHASES; ph++)
        printf("phase %d: %ld\n", ph, phase_sum[ph]);
    return 0;
}
