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
    // A printable key, Enter (a new paragraph: one character) or Tab where it is typed into the text.
    const bool newline = event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter;
    const bool tab = event->key() == Qt::Key_Tab && !tabChangesFocus();
    const bool printable = !typed.isEmpty() && typed.front().isPrint();
    const bool inserts = (printable || newline || tab) && !(event->modifiers() & Qt::ControlModifier);
    if (inserts && !fits(printable ? typed.size() : 1)) {
        event->accept();
        return;
    }
    QPlainTextEdit::keyPressEvent(event);
}

} // namespace attnui
