// SPDX-License-Identifier: GPL-3.0-or-later
#include <attnscope/analysis.h>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <limits>
#include <string>

namespace attn {

namespace {

// Ã = 0.5·A + 0.5·I with each row divided by its own sum (faithfulness.md §5 item 6: never another axis).
// Without the residual, rows are still renormalized; an all-zero row stays zero.
std::vector<double> withResidual(const std::vector<double> &a, int n, bool residual)
{
    std::vector<double> r(a);
    for (int i = 0; i < n; ++i) {
        double *row = r.data() + std::size_t(i) * n;
        if (residual) {
            for (int j = 0; j < n; ++j) row[j] *= 0.5;
            row[i] += 0.5;
        }
        double sum = 0.0;
        for (int j = 0; j < n; ++j) sum += row[j];
        if (sum > 0.0)
            for (int j = 0; j < n; ++j) row[j] /= sum;
    }
    return r;
}

Status checkLayers(const std::vector<std::vector<double>> &layers, int n)
{
    if (n <= 0) return Status::invalid("no tokens: rollout and flow need at least one");
    if (layers.empty()) return Status::invalid("no layers: rollout and flow need at least one");
    for (std::size_t l = 0; l < layers.size(); ++l)
        if (layers[l].size() != std::size_t(n) * std::size_t(n))
            return Status::invalid("layer " + std::to_string(l) + " has " + std::to_string(layers[l].size()) +
                                   " values; expected " + std::to_string(n) + "×" + std::to_string(n));
    return Status::ok();
}

// Dinic's max-flow on a small graph with double capacities.
class MaxFlow {
public:
    explicit MaxFlow(int nodes) : m_first(std::size_t(nodes), -1), m_level(std::size_t(nodes)), m_next(std::size_t(nodes)) {}

    void addEdge(int from, int to, double capacity)
    {
        m_edges.push_back({to, m_first[std::size_t(from)], capacity, capacity});
        m_first[std::size_t(from)] = int(m_edges.size()) - 1;
        m_edges.push_back({from, m_first[std::size_t(to)], 0.0, 0.0});
        m_first[std::size_t(to)] = int(m_edges.size()) - 1;
    }

    double run(int source, int sink)
    {
        for (Edge &e : m_edges) e.residual = e.capacity;
        double total = 0.0;
        while (levels(source, sink)) {
            std::copy(m_first.begin(), m_first.end(), m_next.begin());
            while (double pushed = push(source, sink, std::numeric_limits<double>::infinity())) total += pushed;
        }
        return total;
    }

private:
    static constexpr double kEps = 1e-15;   // capacities are probabilities; smaller residuals are rounding
    struct Edge {
        int to, next;
        double capacity, residual;
    };

    bool levels(int source, int sink)
    {
        std::fill(m_level.begin(), m_level.end(), -1);
        std::deque<int> queue{source};
        m_level[std::size_t(source)] = 0;
        while (!queue.empty()) {
            const int v = queue.front();
            queue.pop_front();
            for (int e = m_first[std::size_t(v)]; e >= 0; e = m_edges[std::size_t(e)].next) {
                const Edge &edge = m_edges[std::size_t(e)];
                if (edge.residual > kEps && m_level[std::size_t(edge.to)] < 0) {
                    m_level[std::size_t(edge.to)] = m_level[std::size_t(v)] + 1;
                    queue.push_back(edge.to);
                }
            }
        }
        return m_level[std::size_t(sink)] >= 0;
    }

    double push(int v, int sink, double limit)
    {
        if (v == sink) return limit;
        for (int &e = m_next[std::size_t(v)]; e >= 0; e = m_edges[std::size_t(e)].next) {
            Edge &edge = m_edges[std::size_t(e)];
            if (edge.residual <= kEps || m_level[std::size_t(edge.to)] != m_level[std::size_t(v)] + 1) continue;
            if (const double pushed = push(edge.to, sink, std::min(limit, edge.residual))) {
                edge.residual -= pushed;
                m_edges[std::size_t(e ^ 1)].residual += pushed;
                return pushed;
            }
        }
        return 0.0;
    }

    std::vector<int> m_first;
    std::vector<int> m_level;
    std::vector<int> m_next;
    std::vector<Edge> m_edges;
};

} // namespace

std::vector<double> meanOverHeads(const std::vector<const float *> &heads, int n)
{
    const std::size_t nn = std::size_t(std::max(n, 0)) * std::size_t(std::max(n, 0));
    std::vector<double> mean(nn, 0.0);
    if (heads.empty()) return mean;
    for (const float *h : heads)
        for (std::size_t k = 0; k < nn; ++k) mean[k] += h[k];
    for (double &v : mean) v /= double(heads.size());
    return mean;
}

Result<std::vector<double>> attentionRollout(const std::vector<std::vector<double>> &layers, int n, bool residual)
{
    if (Status s = checkLayers(layers, n); !s.isOk()) return s;
    std::vector<double> rollout = withResidual(layers[0], n, residual);
    std::vector<double> next(rollout.size());
    for (std::size_t l = 1; l < layers.size(); ++l) {
        // R_l = Ã_l · R_{l−1}: the later layer on the left.
        const std::vector<double> a = withResidual(layers[l], n, residual);
        std::fill(next.begin(), next.end(), 0.0);
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < n; ++k) {
                const double aik = a[std::size_t(i) * n + k];
                if (aik == 0.0) continue;
                for (int j = 0; j < n; ++j) next[std::size_t(i) * n + j] += aik * rollout[std::size_t(k) * n + j];
            }
        rollout.swap(next);
    }
    return rollout;
}

namespace {

// Node (l, p) = l·n + p; layer 0 is the input, layer L the last layer's output.
MaxFlow flowGraph(const std::vector<std::vector<double>> &layers, int n, bool residual)
{
    const int L = int(layers.size());
    MaxFlow graph((L + 1) * n);
    for (int l = 1; l <= L; ++l) {
        const std::vector<double> a = withResidual(layers[std::size_t(l - 1)], n, residual);
        for (int p = 0; p < n; ++p)
            for (int q = 0; q < n; ++q)
                if (const double c = a[std::size_t(p) * n + q]; c > 0.0) graph.addEdge(l * n + p, (l - 1) * n + q, c);
    }
    return graph;
}

} // namespace

Result<std::vector<double>> attentionFlowRow(const std::vector<std::vector<double>> &layers, int n, int o,
                                             bool residual, const std::function<bool()> &cancel)
{
    if (Status s = checkLayers(layers, n); !s.isOk()) return s;
    if (o < 0 || o >= n) return Status::invalid("attention flow row " + std::to_string(o) + " is outside the " + std::to_string(n) + " tokens");
    const int L = int(layers.size());
    MaxFlow graph = flowGraph(layers, n, residual);
    std::vector<double> row(std::size_t(n), 0.0);
    double sum = 0.0;
    for (int q = 0; q < n; ++q) {
        if (cancel && cancel()) return Status::cancelled();
        sum += row[std::size_t(q)] = graph.run(L * n + o, q);
    }
    if (sum > 0.0)
        for (double &v : row) v /= sum;
    return row;
}

Result<std::vector<double>> attentionFlow(const std::vector<std::vector<double>> &layers, int n, bool residual,
                                          const std::function<bool()> &cancel)
{
    if (Status s = checkLayers(layers, n); !s.isOk()) return s;
    if (n > kMaxFlowTokens)
        return Status::invalid("attention flow solves one max-flow per token pair; it is limited to " +
                               std::to_string(kMaxFlowTokens) + " tokens and this input has " + std::to_string(n));
    const int L = int(layers.size());
    MaxFlow graph = flowGraph(layers, n, residual);
    std::vector<double> flow(std::size_t(n) * std::size_t(n), 0.0);
    for (int o = 0; o < n; ++o) {
        if (cancel && cancel()) return Status::cancelled();
        double sum = 0.0;
        for (int q = 0; q < n; ++q) sum += flow[std::size_t(o) * n + q] = graph.run(L * n + o, q);
        if (sum > 0.0)
            for (int q = 0; q < n; ++q) flow[std::size_t(o) * n + q] /= sum;
    }
    return flow;
}

} // namespace attn
