// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a benchmark line records about the process and the machine (Linux /proc; zeros elsewhere).

#include <string>

namespace attn::bench {

double peakRssMib();      // VmHWM: the process's resident-set high-water mark
double currentRssMib();   // VmRSS
// Starts a new high-water mark at the current RSS (Linux ≥ 4.0: "5" > /proc/self/clear_refs), after handing
// freed heap back to the kernel, so a peak can be attributed to one call. False if the kernel refused.
bool resetPeakRss();

std::string cpuModelName();   // "AMD EPYC 9R14", from /proc/cpuinfo
std::string utcDateTime();    // "2025-01-31T12:34:56Z"
std::string compilerVersion();

} // namespace attn::bench
