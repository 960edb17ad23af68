// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The input text box: a QPlainTextEdit that never holds more than kMaxTextChars (session/session.h). A paste, a
// drop or typing that would pass the limit is refused whole (the text stays as it was) and refused() says why;
// setPlainText() callers check their texts first (sessions and lessons refuse longer ones when they are read).

#include <QPlainTextEdit>

namespace attnui {

class TextEditor : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit TextEditor(QWidget *parent = nullptr);

signals:
    void refused(const QString &reason);   // "the text would have 1000005 characters; the limit is 1000000"

protected:
    void insertFromMimeData(const QMimeData *source) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    // Whether replacing the selection by `inserted` characters keeps the text within the limit; if not, refused().
    bool fits(qsizetype inserted);
};

} // namespace attnui
