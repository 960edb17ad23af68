// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The perturbation runner behind faithfulness.cpp: turns "these tokens kept, removed by this operator, with these
// head interventions" into a forward pass, reads the fixed target off the output, and runs many such passes in
// parallel (one thread per pass) with a cache, so metric code can ask for the same set twice at no cost.
//
// Two-phase use, so the pure metric functions (metrics.h) can stay synchronous: run a metric once with a
// score function that only records the sets it asks for (request), run() them all in parallel, then run the
// metric again with a score function that reads the cache (lookup).

#include <attnscope/faithfulness.h>

#include <atomic>
#include <map>
#include <string>
#include <vector>

namespace attn::detail {

// What a pass leaves behind: a few numbers, not the distribution (a vocabulary per pass would not fit for real LMs).
struct Outcome {
    double score = 0.0;            // m(x') for the fixed target
    double otherScore = 0.0;       // the same score for the runner-up class / token (RandomLogit)
    double tvd = 0.0;              // TVD between the output distribution on x' and on x
    std::int64_t argmax = -1;      // the predicted class / next token on x'
};

// One pass: `kept` [L] over all positions (special positions are always kept), the operator that removes the
// others, and optional head interventions (with everything kept).
struct PassSpec {
    std::vector<std::uint8_t> kept;
    RemovalOperator op = RemovalOperator::Deletion;
    std::vector<HeadAblation> ablations;
    std::vector<HeadOverride> overrides;
    std::string key() const;
};

class Perturber {
public:
    struct Target {
        std::int64_t position = 0;        // the output row read (LMs; 0 for classifiers)
        std::int64_t index = 0;           // class or token id
        std::int64_t otherIndex = 0;      // the runner-up on x (RandomLogit)
        std::vector<double> base;         // the output distribution on x (for TVD)
    };
    struct Replacements {
        std::int64_t mask = -1, unk = -1, pad = 0;
        std::int64_t filler = 0;          // a causal LM with nothing left sees this one token
    };
    Perturber(const Model &model, const std::vector<std::int64_t> &ids, const std::vector<std::uint8_t> &special,
              Target target, Replacements ids_, Backend backend);
    bool isLanguageModel() const { return m_lm; }
    // Token type ids [L] passed with every pass (a BERT sentence pair; TextModel::forwardInput), each token keeping
    // its own under deletion. Empty (the default): none.
    void setTokenTypes(std::vector<std::int64_t> types) { m_types = std::move(types); }

    void request(const PassSpec &spec);                      // queue (deduplicated against the cache)
    Status run(int threads, const CancelFn &cancel, const ProgressFn &progress);   // queued passes
    const Outcome &lookup(const PassSpec &spec) const;       // after run(); asserts the set was run
    std::int64_t passes() const { return m_passes; }
    std::size_t queued() const { return m_queue.size(); }

    // Reads an outcome off a forward result (also used for the unperturbed pass).
    Outcome read(const ForwardResult &r, std::int64_t row) const;
    Result<ForwardResult> forward(const PassSpec &spec, std::int64_t *row) const;

private:
    const Model &m_model;
    std::vector<std::int64_t> m_ids;
    std::vector<std::int64_t> m_types;
    std::vector<std::uint8_t> m_special;
    Target m_target;
    Replacements m_repl;
    Backend m_backend;
    bool m_lm = false;
    std::map<std::string, Outcome> m_cache;
    std::vector<PassSpec> m_queue;
    std::int64_t m_passes = 0;
};

} // namespace attn::detail
