// Replays a request stream through DRAMsim3 (built outside the tree by
// dram_vs_dramsim3.sh) and prints the figures dram_replay.c prints for the
// project's model, with the same front end: one DRAM cycle at a time, the
// requests whose cycle has come enter in order while the controller takes
// them (a refused one holds back the rest), then the controller ticks.
//
//   dramsim3_replay CONFIG.ini STREAM OUTDIR
//
// STREAM holds "ADDRESS READ|WRITE CYCLE" lines. Read latency runs from the
// cycle a read entered to its callback; bandwidth is requests of one burst over
// the span from the first request's cycle to the last completion; row hits
// are DRAMsim3's own counts (column commands to a row already hit since its
// activate count, as in the model: the first after an activate does not).
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "json.hpp"
#include "memory_system.h"

struct request {
    uint64_t addr, cycle;
    bool write;
};

static std::vector<request> read_stream(const char *path)
{
    std::vector<request> v;
    FILE *f = std::fopen(path, "r");
    if (!f) {
        std::fprintf(stderr, "%s: cannot open\n", path);
        std::exit(2);
    }
    char op[16];
    unsigned long long a, c;
    unsigned long line = 0;
    int n;
    while ((n = std::fscanf(f, "%llx %15s %llu", &a, op, &c)) == 3) {
        line++;
        v.push_back({ a, c, !std::strcmp(op, "WRITE") });
    }
    if (n != EOF) {
        std::fprintf(stderr, "%s:%lu: expected \"ADDRESS READ|WRITE CYCLE\"\n", path, line + 1);
        std::exit(2);
    }
    std::fclose(f);
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: dramsim3_replay CONFIG.ini STREAM OUTDIR\n");
        return 2;
    }
    std::vector<request> reqs = read_stream(argv[2]);
    uint64_t now = 0, last_done = 0, reads = 0, read_lat = 0, done = 0;
    uint64_t progress = 0; // the cycle of the last entry or completion
    std::unordered_map<uint64_t, std::deque<uint64_t>> waiting; // address -> entry cycles
    auto on_read = [&](uint64_t addr) {
        auto &q = waiting[addr];
        read_lat += now - q.front();
        q.pop_front();
        reads++;
        done++;
        last_done = progress = now;
    };
    auto on_write = [&](uint64_t) {
        done++;
        last_done = progress = now;
    };
    dramsim3::MemorySystem *mem = dramsim3::GetMemorySystem(argv[1], argv[3], on_read, on_write);
    size_t next = 0;
    while (done < reqs.size()) {
        // DRAMsim3 stops serving reads when its write buffer is full and a
        // write waits for an older read of its block (the drain restarts
        // and gives up every cycle): the streams avoid that; say so if not.
        if (now > progress + 1000000 && (next == reqs.size() || reqs[next].cycle + 1000000 < now)) {
            std::fprintf(stderr, "%s: no request entered or completed for a million cycles at cycle %" PRIu64
                                 " (%zu of %zu entered, %" PRIu64 " done)\n",
                         argv[2], now, next, reqs.size(), done);
            return 1;
        }

        while (next < reqs.size() && reqs[next].cycle <= now &&
               mem->WillAcceptTransaction(reqs[next].addr, reqs[next].write)) {
            if (!reqs[next].write)
                waiting[reqs[next].addr].push_back(now);
            mem->AddTransaction(reqs[next].addr, reqs[next].write);
            next++;
            progress = now;
        }
        mem->ClockTick();
        now++;
    }
    mem->PrintStats();

    std::ifstream js(std::string(argv[3]) + "/dramsim3.json");
    nlohmann::json j;
    js >> j;
    uint64_t cols = 0, hits = 0;
    for (auto &ch : j.items()) {
        cols += ch.value()["num_read_cmds"].get<uint64_t>() + ch.value()["num_write_cmds"].get<uint64_t>();
        hits += ch.value()["num_read_row_hits"].get<uint64_t>() +
                ch.value()["num_write_row_hits"].get<uint64_t>();
    }
    double span_ns = (double)(last_done - reqs.front().cycle) * mem->GetTCK();
    double burst_bytes = mem->GetBusBits() / 8.0 * mem->GetBurstLength();
    std::printf("requests %zu reads %" PRIu64 " bandwidth_gbps %.4f avg_read_latency %.3f "
                "row_hit_pct %.3f columns %" PRIu64 " cycles %" PRIu64 "\n",
                reqs.size(), reads, reqs.size() * burst_bytes / span_ns, reads ? (double)read_lat / reads : 0.0,
                cols ? 100.0 * hits / cols : 0.0, cols, last_done);
    delete mem;
    return 0;
}
