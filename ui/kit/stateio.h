// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading a workspace's session state (sessionState() written by the same workspace, or a lesson's "state"):
// field by field, every value checked, the first bad one named ("layer: expected an integer in 0..4095"); the
// caller applies nothing unless ok(). A field that is absent leaves its variable as it is. Head and token
// indices count from 0, as everywhere in AttnScope.

#include <attnscope/model.h>

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <QVariant>

#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QSpinBox;
class QWidget;

namespace attnui {

class StateReader {
public:
    // `known`: every field the workspace writes; another field is an error ("foo: unknown field"). Empty: any.
    StateReader(const QJsonObject &state, const QStringList &known = {});

    bool has(const QString &key) const { return m_state.contains(key); }
    const QJsonObject &state() const { return m_state; }

    StateReader &integer(const QString &key, int lo, int hi, int &value);
    StateReader &number(const QString &key, double lo, double hi, double &value);
    StateReader &boolean(const QString &key, bool &value);
    // A string of at most maxChars characters (texts: kMaxTextChars, session/session.h).
    StateReader &string(const QString &key, QString &value, qsizetype maxChars = 4096);
    // One of `allowed` (a combo's item data, a list of names).
    StateReader &choice(const QString &key, const QStringList &allowed, QString &value);
    // "L.H", both counted from 0 (not checked against a model: a session restores its state before its model opens).
    StateReader &head(const QString &key, attn::HeadRef &value);
    StateReader &head(const QString &key, std::optional<attn::HeadRef> &value);

    // Records a problem with `key` found by the workspace itself.
    StateReader &fail(const QString &key, const QString &why);
    // True when every field read so far was good; else false with `error` set to "KEY: why".
    bool ok(QString *error) const;

private:
    bool pending(const QString &key) const { return m_error.isEmpty() && m_state.contains(key); }

    QJsonObject m_state;
    QString m_error;
};

// Session fields that are the value of a control: a combo box's item data, a spin box's value (within its
// range), a check box. save() writes them; read() checks a state's values against the controls (the choices a
// combo offers, the spin box's range) into a StateReader, and apply() then sets the controls, signals blocked.
class StateBindings {
public:
    void add(const QString &key, QComboBox *combo);
    void add(const QString &key, QSpinBox *spin);
    void add(const QString &key, QCheckBox *box);

    QStringList keys() const;
    QJsonObject save() const;
    void read(StateReader &in);
    void apply();
    QList<QWidget *> widgets() const;

private:
    struct Binding {
        QString key;
        QWidget *widget = nullptr;
        QVariant pending;   // read() → apply()
    };
    std::vector<Binding> m_bindings;
};

// Sets *error (when given) and returns false: for showView() and checks outside a StateReader.
bool failWith(QString *error, const QString &message);

// "L.H" → a head, both ≥ 0; nothing for anything else.
std::optional<attn::HeadRef> parseHeadSpec(const QString &text);
QString headSpec(const attn::HeadRef &head);   // "1.2"

} // namespace attnui
