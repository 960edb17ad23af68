// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonschema.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace attn::test {

namespace {

QString typeOf(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return QStringLiteral("boolean");
    case QJsonValue::Double: {
        const double d = v.toDouble();
        return std::floor(d) == d ? QStringLiteral("integer") : QStringLiteral("number");
    }
    case QJsonValue::String: return QStringLiteral("string");
    case QJsonValue::Array: return QStringLiteral("array");
    case QJsonValue::Object: return QStringLiteral("object");
    case QJsonValue::Undefined: break;
    }
    return QStringLiteral("undefined");
}

bool typeMatches(const QString &actual, const QString &wanted)
{
    return actual == wanted || (wanted == QLatin1String("number") && actual == QLatin1String("integer"));
}

class Checker {
public:
    explicit Checker(const QJsonObject &root) : m_root(root) {}

    void check(const QJsonValue &v, const QJsonObject &schema, const QString &path)
    {
        static const QStringList known = {"type", "required", "properties", "items", "enum", "minItems", "$ref",
                                          "$schema", "$id", "$defs", "title", "description"};
        for (const QString &key : schema.keys())
            if (!known.contains(key)) errors << path + QStringLiteral(": the schema uses '%1', outside the subset").arg(key);

        if (schema.contains("$ref")) {
            const QString ref = schema.value("$ref").toString();
            const QString prefix = QStringLiteral("#/$defs/");
            const QJsonValue target = m_root.value("$defs").toObject().value(ref.mid(prefix.size()));
            if (!ref.startsWith(prefix) || !target.isObject()) errors << path + QStringLiteral(": unresolved $ref ") + ref;
            else check(v, target.toObject(), path);
        }
        if (schema.contains("type")) {
            const QJsonValue t = schema.value("type");
            QStringList wanted;
            if (t.isArray()) for (const QJsonValue &x : t.toArray()) wanted << x.toString();
            else wanted << t.toString();
            const QString actual = typeOf(v);
            if (std::none_of(wanted.begin(), wanted.end(), [&](const QString &w) { return typeMatches(actual, w); })) {
                errors << path + QStringLiteral(": type is %1, expected %2").arg(actual, wanted.join('|'));
                return;
            }
        }
        if (schema.contains("enum") && !schema.value("enum").toArray().contains(v))
            errors << path + QStringLiteral(": value not in the enum");
        if (v.isObject()) {
            const QJsonObject o = v.toObject();
            for (const QJsonValue &name : schema.value("required").toArray())
                if (!o.contains(name.toString())) errors << path + QStringLiteral(": required '%1' missing").arg(name.toString());
            const QJsonObject props = schema.value("properties").toObject();
            for (auto it = props.begin(); it != props.end(); ++it)
                if (o.contains(it.key())) check(o.value(it.key()), it.value().toObject(), path + '/' + it.key());
        }
        if (v.isArray()) {
            const QJsonArray a = v.toArray();
            if (schema.contains("minItems") && a.size() < schema.value("minItems").toInt())
                errors << path + QStringLiteral(": %1 items, fewer than minItems %2").arg(a.size()).arg(schema.value("minItems").toInt());
            if (schema.contains("items"))
                for (qsizetype i = 0; i < a.size(); ++i)
                    check(a.at(i), schema.value("items").toObject(), path + '/' + QString::number(i));
        }
    }

    QStringList errors;

private:
    QJsonObject m_root;
};

} // namespace

QStringList validateJsonSchema(const QJsonValue &instance, const QJsonObject &schema)
{
    Checker checker(schema);
    checker.check(instance, schema, QString());
    return checker.errors;
}

QJsonObject readValidatedJson(const QString &path, const QString &schemaPath)
{
    QFile file(path), schemaFile(schemaPath);
    if (!file.open(QIODevice::ReadOnly) || !schemaFile.open(QIODevice::ReadOnly)) return {};
    const QJsonObject doc = QJsonDocument::fromJson(file.readAll()).object();
    const QStringList problems = validateJsonSchema(doc, QJsonDocument::fromJson(schemaFile.readAll()).object());
    if (!problems.isEmpty()) qWarning("%s", qPrintable(problems.join(QLatin1Char('\n'))));
    return problems.isEmpty() ? doc : QJsonObject();
}

} // namespace attn::test
