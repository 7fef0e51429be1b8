// SystemC baseline for bench_knightsim (seed 000, Sec. 2.6, Experiment 2):
// N SC_THREADs, each resuming once per simulated nanosecond through wait().
// A separate program because the SystemC kernel elaborates only once per
// process, and the sweep needs a fresh model for every N.
//   bench_knightsim_systemc N CYCLES   ->  "events E seconds S"
#include <systemc>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <time.h>

static unsigned long long events;

// Process CPU time, as bench_knightsim times the other single-threaded engines.
static double cpu_seconds()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

SC_MODULE(ticker)
{
    SC_CTOR(ticker) { SC_THREAD(run); }
    void run()
    {
        for (;;) {
            wait(1, sc_core::SC_NS);
            ++events;
        }
    }
};

int sc_main(int argc, char *argv[])
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s CONTEXTS CYCLES\n", argv[0]);
        return 2;
    }
    long n = std::strtol(argv[1], nullptr, 10), cycles = std::strtol(argv[2], nullptr, 10);
    if (n <= 0 || cycles <= 0) {
        std::fprintf(stderr, "%s: CONTEXTS and CYCLES must be positive\n", argv[0]);
        return 2;
    }
    std::vector<std::unique_ptr<ticker>> t;
    for (long i = 0; i < n; i++)
        t.emplace_back(new ticker(("t" + std::to_string(i)).c_str()));
    sc_core::sc_start(sc_core::SC_ZERO_TIME); // elaboration and first activation
    events = 0;
    double a = cpu_seconds();
    sc_core::sc_start(static_cast<double>(cycles), sc_core::SC_NS);
    double b = cpu_seconds();
    std::printf("events %llu seconds %.9f\n", events, b - a);
    return 0;
}
