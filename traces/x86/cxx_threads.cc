// C++ exceptions and threads (glibc, libstdc++): exceptions thrown and
// caught inside worker threads, an exception carried from a thread to
// another by std::promise and std::exception_ptr, std::async, a mutex and a
// condition variable, and unwinding through destructors. libgcc's unwinder
// runs the CET shadow-stack instructions a processor without CET treats as
// no-ops. Prints the same natively and under tracegen.
#include <condition_variable>
#include <cstdio>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

static std::mutex m;
static std::condition_variable cv;
static long total;
static int done_count;
static int destroyed;

struct Guard {
    ~Guard() { destroyed++; }
};

static long depth_throw(int n)
{
    Guard g;
    if (n == 0)
        throw std::out_of_range("bottom");
    return depth_throw(n - 1) + 1;
}

static void work(int id)
{
    long local = 0;
    for (int i = 0; i < 3000; i++) {
        try {
            if (i % 7 == id % 7)
                throw std::runtime_error("boom " + std::to_string(i));
            local += i;
        } catch (const std::exception &e) {
            local -= (long)std::string(e.what()).size();
        }
    }
    std::lock_guard<std::mutex> lock(m);
    total += local;
    done_count++;
    cv.notify_one();
}

int main()
{
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; i++)
        threads.emplace_back(work, i);
    {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [] { return done_count == 4; });
    }
    for (auto &t : threads)
        t.join();
    std::printf("workers: total %ld\n", total);

    std::promise<int> p;
    std::future<int> f = p.get_future();
    std::thread thrower([&p] {
        try {
            throw std::invalid_argument("from another thread");
        } catch (...) {
            p.set_exception(std::current_exception());
        }
    });
    try {
        f.get();
        std::printf("no exception?\n");
    } catch (const std::invalid_argument &e) {
        std::printf("caught across threads: %s\n", e.what());
    }
    thrower.join();

    auto a = std::async(std::launch::async, [] { return depth_throw(3); });
    try {
        a.get();
    } catch (const std::out_of_range &e) {
        std::printf("async: %s, %d destructors ran\n", e.what(), destroyed);
    }
    try {
        throw 42;
    } catch (int v) {
        std::printf("caught %d\n", v);
    }
    return 0;
}
