// SPDX-License-Identifier: GPL-3.0-or-later
#include "kit/texteditor.h"

#include "session/session.h"

#include <QKeyEvent>
#include <QMimeData>
#include <QTextCursor>

namespace attnui {

TextEditor::TextEditor(QWidget *parent) : QPlainTextEdit(parent) {}

bool TextEditor::fits(qsizetype inserted)
{
    const QTextCursor cursor = textCursor();
    // characterCount() counts the document's closing paragraph separator: one more than toPlainText().size().
    const qsizetype now = document()->characterCount() - 1;
    const qsizetype after = now - (cursor.selectionEnd() - cursor.selectionStart()) + inserted;
    if (after <= kMaxTextChars) return true;
    emit refused(tr("the text would have %1").arg(textTooLongReason(after)));
    return false;
}

void TextEditor::insertFromMimeData(const QMimeData *source)
{
    // Measured before Qt lays anything out: a 180 MB paste never reaches the document.
    if (source && source->hasText() && !fits(source->text().size())) return;
    QPlainTextEdit::insertFromMimeData(source);
}

void TextEditor::keyPressEvent(QKeyEvent *event)
{
    const QString typed = event->text();
    const bool inserts = !typed.isEmpty() && typed.front().isPrint() && !(event->modifiers() & Qt::ControlModifier);
    if (inserts && !fits(typed.size())) {
        event->accept();
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
}

} // namespace attnui
