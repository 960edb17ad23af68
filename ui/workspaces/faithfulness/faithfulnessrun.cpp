// SPDX-License-Identifier: GPL-3.0-or-later
#include "workspaces/faithfulness/faithfulnessrun.h"

#include "workspaces/explore/modelrun.h"

#include <attnscope/textmodel.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace attnui {

QString modelFolder(const QString &spec)
{
    if (spec.startsWith(QLatin1String("random:"))) return {};
    auto folder = attn::resolveModelSpec(spec.toStdString());
    return folder ? QString::fromStdString(*folder) : QString();
}

QList<RationaleExample> readRationales(const QString &folder)
{
    QList<RationaleExample> out;
    if (folder.isEmpty()) return out;
    QFile file(QDir(folder).filePath(QStringLiteral("rationales.json")));
    if (!file.open(QIODevice::ReadOnly)) return out;
    const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    if (root.value(QLatin1String("format")).toString() != QLatin1String("attnscope-rationales")) return out;
    for (const QJsonValue &v : root.value(QLatin1String("examples")).toArray()) {
        const QJsonObject e = v.toObject();
        RationaleExample ex;
        ex.text = e.value(QLatin1String("text")).toString();
        ex.label = e.value(QLatin1String("label_name")).toString();
        for (const QJsonValue &i : e.value(QLatin1String("evidence_token_indices")).toArray())
            ex.evidence.push_back(std::int64_t(i.toInteger(-1)));
        for (const QJsonValue &w : e.value(QLatin1String("evidence_words")).toArray()) ex.evidenceWords << w.toString();
        if (!ex.text.isEmpty()) out << ex;
    }
    return out;
}

std::int64_t estimatePasses(const attn::TextModel &model, const QString &text, const attn::TokenizeOptions &tokenize,
                            const attn::FaithfulnessSettings &s)
{
    auto tokens = model.tokenize(text.toStdString(), tokenize);
    if (!tokens) return -1;
    return attn::estimateFaithfulnessPasses(model.model(), std::int64_t(tokens->ids.size()), s);
}

attn::Result<std::shared_ptr<Snapshot>> runFaithfulnessJob(const FaithfulnessRequest &request, const JobContext &ctx)
{
    if (!request.model) return attn::Status::invalid("no model is open");
    const attn::TextModel &model = *request.model;
    auto tokens = model.tokenize(request.text.toStdString(), request.tokenize);
    if (!tokens) return tokens.status();
    auto snap = std::make_shared<FaithfulnessSnapshot>();
    snap->settings = request.settings;
    snap->model = request.model;
    snap->backend = attn::backendName(request.settings.backend);
    snap->estimatedPasses = attn::estimateFaithfulnessPasses(model.model(), std::int64_t(tokens->ids.size()), request.settings);
    auto result = attn::runFaithfulness(model, *tokens, request.settings, ctx.progressFn(), ctx.cancelFn());
    if (!result) return result.status();
    snap->result = std::move(result.value());
    const attn::FaithfulnessResult &r = snap->result;
    for (const std::string &label : r.tokens.labels) snap->labels << tokenDisplayLabel(label);

    const auto L = std::int64_t(r.tokens.ids.size());
    for (std::int64_t g : request.gold)
        if (g >= 0 && g < L) snap->gold.push_back(g);
    if (!snap->gold.empty()) {
        const int k = int(snap->gold.size());
        for (const attn::Importance &imp : r.importances) {
            // Perturbation importances are signed drops: the largest drops rank first, as in the metrics.
            snap->rationale.push_back({imp.name, attn::scoreRationale(imp.scores, snap->gold, k)});
        }
        snap->randomPrecision = r.scoredTokens > 0 ? double(k) / double(r.scoredTokens) : 0.0;
    }
    return std::shared_ptr<Snapshot>(std::move(snap));
}

} // namespace attnui
