// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/stateio.h"
#include "session/session.h"

#include <QCoreApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QJsonArray>
#include <QSignalBlocker>
#include <QSpinBox>

#include <cmath>

namespace attnui {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("StateReader", text);
}

} // namespace

bool failWith(QString *error, const QString &message)
{
    if (error) *error = message;
    return false;
}

std::optional<attn::HeadRef> parseHeadSpec(const QString &text)
{
    const QStringList parts = text.split(QLatin1Char('.'));
    bool okL = false, okH = false;
    const int l = parts.value(0).toInt(&okL), h = parts.value(1).toInt(&okH);
    if (parts.size() != 2 || !okL || !okH || l < 0 || h < 0) return std::nullopt;
    return attn::HeadRef{l, h};
}

QString headSpec(const attn::HeadRef &head)
{
    return QStringLiteral("%1.%2").arg(head.layer).arg(head.head);
}

StateReader::StateReader(const QJsonObject &state, const QStringList &known) : m_state(state)
{
    if (known.isEmpty()) return;
    for (const QString &key : state.keys())
        if (!known.contains(key)) {
            fail(key, tr("unknown field"));
            return;
        }
}

StateReader &StateReader::fail(const QString &key, const QString &why)
{
    if (m_error.isEmpty()) m_error = QStringLiteral("%1: %2").arg(key, why);
    return *this;
}

bool StateReader::ok(QString *error) const
{
    if (m_error.isEmpty()) return true;
    if (error) *error = m_error;
    return false;
}

StateReader &StateReader::integer(const QString &key, int lo, int hi, int &value)
{
    if (!pending(key)) return *this;
    const QJsonValue v = m_state.value(key);
    const double d = v.toDouble();
    if (!v.isDouble() || d != std::floor(d) || d < lo || d > hi)
        return fail(key, tr("expected an integer in %1..%2").arg(lo).arg(hi));
    value = int(d);
    return *this;
}

StateReader &StateReader::number(const QString &key, double lo, double hi, double &value)
{
    if (!pending(key)) return *this;
    const QJsonValue v = m_state.value(key);
    const double d = v.toDouble();
    if (!v.isDouble() || !(d >= lo && d <= hi)) return fail(key, tr("expected a number in [%1, %2]").arg(lo).arg(hi));
    value = d;
    return *this;
}

StateReader &StateReader::boolean(const QString &key, bool &value)
{
    if (!pending(key)) return *this;
    const QJsonValue v = m_state.value(key);
    if (!v.isBool()) return fail(key, tr("expected true or false"));
    value = v.toBool();
    return *this;
}

StateReader &StateReader::string(const QString &key, QString &value, qsizetype maxChars)
{
    if (!pending(key)) return *this;
    const QJsonValue v = m_state.value(key);
    if (!v.isString()) return fail(key, tr("expected a string"));
    if (v.toString().size() > maxChars) return fail(key, textTooLongReason(v.toString().size(), maxChars));
    value = v.toString();
    return *this;
}

StateReader &StateReader::choice(const QString &key, const QStringList &allowed, QString &value)
{
    if (!pending(key)) return *this;
    const QJsonValue v = m_state.value(key);
    if (!v.isString() || !allowed.contains(v.toString()))
        return fail(key, tr("expected one of %1").arg(allowed.join(QStringLiteral(", "))));
    value = v.toString();
    return *this;
}

StateReader &StateReader::head(const QString &key, attn::HeadRef &value)
{
    std::optional<attn::HeadRef> h;
    head(key, h);
    if (h) value = *h;
    return *this;
}

StateReader &StateReader::head(const QString &key, std::optional<attn::HeadRef> &value)
{
    if (!pending(key)) return *this;
    const auto h = parseHeadSpec(m_state.value(key).toString());
    if (!h) return fail(key, tr("expected \"L.H\" with layer and head counted from 0"));
    value = h;
    return *this;
}

void StateBindings::add(const QString &key, QComboBox *combo)
{
    m_bindings.push_back({key, combo, {}});
}

void StateBindings::add(const QString &key, QSpinBox *spin)
{
    m_bindings.push_back({key, spin, {}});
}

void StateBindings::add(const QString &key, QCheckBox *box)
{
    m_bindings.push_back({key, box, {}});
}

QStringList StateBindings::keys() const
{
    QStringList out;
    for (const Binding &b : m_bindings) out << b.key;
    return out;
}

QList<QWidget *> StateBindings::widgets() const
{
    QList<QWidget *> out;
    for (const Binding &b : m_bindings) out << b.widget;
    return out;
}

QJsonObject StateBindings::save() const
{
    QJsonObject o;
    for (const Binding &b : m_bindings) {
        if (auto *combo = qobject_cast<QComboBox *>(b.widget)) o.insert(b.key, combo->currentData().toString());
        else if (auto *spin = qobject_cast<QSpinBox *>(b.widget)) o.insert(b.key, spin->value());
        else if (auto *box = qobject_cast<QCheckBox *>(b.widget)) o.insert(b.key, box->isChecked());
    }
    return o;
}

void StateBindings::read(StateReader &in)
{
    for (Binding &b : m_bindings) {
        b.pending = QVariant();
        if (!in.has(b.key)) continue;
        if (auto *combo = qobject_cast<QComboBox *>(b.widget)) {
            QStringList allowed;
            for (int i = 0; i < combo->count(); ++i) allowed << combo->itemData(i).toString();
            QString v;
            in.choice(b.key, allowed, v);
            if (!v.isNull()) b.pending = v;
        } else if (auto *spin = qobject_cast<QSpinBox *>(b.widget)) {
            int v = spin->value();
            in.integer(b.key, spin->minimum(), spin->maximum(), v);
            b.pending = v;
        } else if (auto *box = qobject_cast<QCheckBox *>(b.widget)) {
            bool v = box->isChecked();
            in.boolean(b.key, v);
            b.pending = v;
        }
    }
}

void StateBindings::apply()
{
    for (Binding &b : m_bindings) {
        if (!b.pending.isValid()) continue;
        const QSignalBlocker block(b.widget);
        if (auto *combo = qobject_cast<QComboBox *>(b.widget)) combo->setCurrentIndex(combo->findData(b.pending.toString()));
        else if (auto *spin = qobject_cast<QSpinBox *>(b.widget)) spin->setValue(b.pending.toInt());
        else if (auto *box = qobject_cast<QCheckBox *>(b.widget)) box->setChecked(b.pending.toBool());
        b.pending = QVariant();
    }
}

} // namespace attnui
