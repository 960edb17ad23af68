// SPDX-License-Identifier: GPL-3.0-or-later
#include "perturb.h"

#include "parallel.h"

#include <attnscope/metrics.h>

#include <algorithm>
#include <cassert>
#include <cmath>

namespace attn::detail {

std::string PassSpec::key() const
{
    std::string k(1, static_cast<char>('0' + static_cast<int>(op)));
    for (std::uint8_t b : kept) k.push_back(b ? '1' : '0');
    for (const HeadAblation &a : ablations)
        k += "|a" + std::to_string(a.head.layer) + "." + std::to_string(a.head.head) + "." + std::to_string(static_cast<int>(a.kind));
    for (const HeadOverride &o : overrides)
        k += "|o" + std::to_string(o.head.layer) + "." + std::to_string(o.head.head) + "." +
             std::to_string(static_cast<int>(o.kind)) + "." + std::to_string(o.seed);
    return k;
}

Perturber::Perturber(const Model &model, const std::vector<std::int64_t> &ids, const std::vector<std::uint8_t> &special,
                     Target target, Replacements repl, Backend backend)
    : m_model(model), m_ids(ids), m_special(special), m_target(std::move(target)), m_repl(repl), m_backend(backend),
      m_lm(model.config().head == ModelHead::CausalLM || model.config().head == ModelHead::MaskedLM)
{
}

Outcome Perturber::read(const ForwardResult &r, std::int64_t row) const
{
    Outcome o;
    const ModelConfig &c = m_model.config();
    const std::size_t width = m_lm ? static_cast<std::size_t>(c.vocabSize) : r.logits.size();
    const float *begin = r.logits.data() + (m_lm ? static_cast<std::size_t>(row) * width : 0);
    const std::vector<double> p = softmax(std::vector<double>(begin, begin + width));
    o.argmax = std::max_element(p.begin(), p.end()) - p.begin();
    // log p(y*) in nats for LMs (−inf when p underflows to 0); the probability for classifiers.
    const auto score = [&](std::int64_t i) { return m_lm ? std::log(p[static_cast<std::size_t>(i)]) : p[static_cast<std::size_t>(i)]; };
    o.score = score(m_target.index);
    o.otherScore = score(m_target.otherIndex);
    o.tvd = totalVariation(p, m_target.base);
    return o;
}

Result<ForwardResult> Perturber::forward(const PassSpec &spec, std::int64_t *row) const
{
    const auto L = static_cast<std::int64_t>(m_ids.size());
    ForwardInput in;
    ForwardOptions opt;
    opt.backend = m_backend;
    opt.threads = 1;   // the passes themselves run in parallel
    opt.ablations = spec.ablations;
    opt.overrides = spec.overrides;
    *row = m_target.position;
    if (spec.op == RemovalOperator::Deletion) {
        std::int64_t keptUpToTarget = 0;
        for (std::int64_t i = 0; i < L; ++i) {
            if (!spec.kept[static_cast<std::size_t>(i)]) continue;
            in.tokenIds.push_back(m_ids[static_cast<std::size_t>(i)]);
            if (!m_types.empty()) in.tokenTypeIds.push_back(m_types[static_cast<std::size_t>(i)]);
            if (i <= m_target.position) ++keptUpToTarget;
        }
        // The row that now predicts the target; a causal LM with nothing left sees one filler token instead.
        if (in.tokenIds.empty()) {
            in.tokenIds.push_back(m_repl.filler);
            if (!m_types.empty()) in.tokenTypeIds.push_back(0);
        }
        *row = m_lm ? std::max<std::int64_t>(keptUpToTarget - 1, 0) : 0;
    } else {
        in.tokenIds = m_ids;
        in.tokenTypeIds = m_types;
        for (std::int64_t i = 0; i < L; ++i) {
            if (spec.kept[static_cast<std::size_t>(i)]) continue;
            switch (spec.op) {
            case RemovalOperator::Knockout: opt.knockouts.push_back({i, -1}); break;
            case RemovalOperator::MaskToken: in.tokenIds[static_cast<std::size_t>(i)] = m_repl.mask; break;
            case RemovalOperator::UnkToken: in.tokenIds[static_cast<std::size_t>(i)] = m_repl.unk; break;
            case RemovalOperator::PadToken: in.tokenIds[static_cast<std::size_t>(i)] = m_repl.pad; break;
            case RemovalOperator::ZeroEmbedding: opt.zeroEmbeddings.push_back(i); break;
            case RemovalOperator::Deletion: break;
            }
        }
    }
    if (Status s = m_model.validate(in, opt); !s) return s;
    return m_model.forward(in, opt);
}

void Perturber::request(const PassSpec &spec)
{
    if (m_cache.count(spec.key())) return;
    m_cache.emplace(spec.key(), Outcome{});
    m_queue.push_back(spec);
}

Status Perturber::run(int threads, const CancelFn &cancel, const ProgressFn &progress)
{
    std::vector<Outcome> outcomes(m_queue.size());
    std::vector<Status> errors(static_cast<std::size_t>(std::max(threads, 1)));
    Status s = parallelFor(
        static_cast<std::int64_t>(m_queue.size()), std::max(threads, 1),
        [&](std::int64_t item, int thread) {
            std::int64_t row = 0;
            auto r = forward(m_queue[static_cast<std::size_t>(item)], &row);
            if (!r) {
                errors[static_cast<std::size_t>(thread)] = r.status();
                return;
            }
            outcomes[static_cast<std::size_t>(item)] = read(*r, row);
        },
        cancel, progress);
    if (!s) return s;
    for (const Status &e : errors)
        if (!e) return e;
    for (std::size_t i = 0; i < m_queue.size(); ++i) m_cache[m_queue[i].key()] = std::move(outcomes[i]);
    m_passes += static_cast<std::int64_t>(m_queue.size());
    m_queue.clear();
    return Status::ok();
}

const Outcome &Perturber::lookup(const PassSpec &spec) const
{
    const auto it = m_cache.find(spec.key());
    assert(it != m_cache.end());
    return it->second;
}

} // namespace attn::detail
