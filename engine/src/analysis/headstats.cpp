// SPDX-License-Identifier: GPL-3.0-or-later
#include <attnscope/analysis.h>

#include <cmath>
#include <cstddef>

namespace attn {

HeadStatistics headStatistics(const float *weights, const std::vector<std::int64_t> &tokens)
{
    const std::size_t n = tokens.size();
    HeadStatistics s;
    double entropy = 0.0, distance = 0.0, first = 0.0, self = 0.0, previous = 0.0, duplicate = 0.0, induction = 0.0;
    std::size_t rows = 0, previousRows = 0, repeatedRows = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float *row = weights + i * n;
        double sum = 0.0;
        for (std::size_t j = 0; j < n; ++j) sum += row[j];
        if (sum <= 0.0) continue;   // fully masked or ablated: no distribution to describe
        ++rows;
        for (std::size_t j = 0; j < n; ++j) {
            const double a = row[j];
            if (a > 0.0) entropy -= a * std::log(a);   // 0·log 0 = 0
            distance += a * double(i > j ? i - j : j - i);
        }
        first += row[0];
        self += row[i];
        if (i >= 1) {
            previous += row[i - 1];
            ++previousRows;
        }
        // Earlier occurrences of this query's token: the duplicate head looks at them, the induction head at
        // the token that followed each of them.
        double dup = 0.0, ind = 0.0;
        bool repeated = false;
        for (std::size_t j = 0; j < i; ++j) {
            if (tokens[j] != tokens[i]) continue;
            repeated = true;
            dup += row[j];
            ind += row[j + 1];   // j + 1 ≤ i
        }
        if (repeated) {
            duplicate += dup;
            induction += ind;
            ++repeatedRows;
        }
    }
    if (rows == 0) return s;
    s.entropy = entropy / double(rows);
    s.meanDistance = distance / double(rows);
    s.firstToken = first / double(rows);
    s.self = self / double(rows);
    if (previousRows > 0) s.previousToken = previous / double(previousRows);
    if (repeatedRows > 0) {
        s.duplicateToken = duplicate / double(repeatedRows);
        s.induction = induction / double(repeatedRows);
    }
    return s;
}

} // namespace attn
