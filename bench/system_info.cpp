// SPDX-License-Identifier: GPL-3.0-or-later
#include "system_info.h"

#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attn::bench {
namespace {

double statusFieldMib(const std::string &field)
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(field + ":", 0) != 0) continue;
        std::istringstream fields(line.substr(field.size() + 1));
        double kib = 0.0;
        fields >> kib;   // "VmHWM:     12345 kB"
        return kib / 1024.0;
    }
    return 0.0;
}

} // namespace

double peakRssMib() { return statusFieldMib("VmHWM"); }
double currentRssMib() { return statusFieldMib("VmRSS"); }

bool resetPeakRss()
{
#if defined(__GLIBC__)
    // Freed blocks below glibc's (adaptive) mmap threshold stay resident in the heap; without the trim they
    // would be counted in the next peak although the next call never touches them.
    malloc_trim(0);
#endif
    std::ofstream clearRefs("/proc/self/clear_refs");
    if (!clearRefs) return false;
    clearRefs << "5";
    clearRefs.flush();
    return static_cast<bool>(clearRefs);
}

std::string cpuModelName()
{
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) != 0) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) break;
        const auto start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? std::string() : line.substr(start);
    }
    return "unknown";
}

std::string utcDateTime()
{
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

std::string compilerVersion()
{
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown";
#endif
}

} // namespace attn::bench
