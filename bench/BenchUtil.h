#pragma once
// Timing and memory helpers shared by the benchmark executables.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace fusebox::bench {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

inline double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// A field of /proc/self/status in KiB ("VmRSS", "VmHWM"); -1 when unreadable.
inline long procStatusKiB(const char *field)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    const size_t len = std::strlen(field);
    while (std::getline(in, line))
        if (line.compare(0, len, field) == 0 && line.size() > len && line[len] == ':')
            return std::stol(line.substr(len + 1));
    return -1;
}

/// Resets VmHWM to the current RSS (Linux >= 4.0: write "5" to clear_refs).
/// Returns false when the kernel refuses; the peak then spans the process.
inline bool resetPeakRss()
{
    std::FILE *f = std::fopen("/proc/self/clear_refs", "w");
    if (!f)
        return false;
    const bool ok = std::fputs("5", f) >= 0;
    return std::fclose(f) == 0 && ok;
}

inline double mib(long kib)
{
    return kib / 1024.0;
}

} // namespace fusebox::bench
