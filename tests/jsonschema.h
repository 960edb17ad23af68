// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A small JSON Schema checker for the subset docs/schema/*.json use (docs/json-format.md, "Schema"):
//   type (a name or a list of names: object, array, string, number, integer, boolean, null), required,
//   properties, items (one schema for every element), enum, minItems, and $ref to "#/$defs/NAME".
// Annotations ($schema, $id, $defs, title, description) are read or skipped; any other keyword is reported as an
// error, so a schema cannot drift outside what this checker enforces.

#include <QJsonObject>
#include <QJsonValue>
#include <QStringList>

namespace attn::test {

// Every violation as "path: what", e.g. "/attention/0/1: type is string, expected array|null". Empty: valid.
QStringList validateJsonSchema(const QJsonValue &instance, const QJsonObject &schema);

// The JSON object in the file at `path`, checked against the schema file `schemaPath`; empty when either cannot
// be read or the document violates the schema (each violation is printed as a warning).
QJsonObject readValidatedJson(const QString &path, const QString &schemaPath);

} // namespace attn::test
