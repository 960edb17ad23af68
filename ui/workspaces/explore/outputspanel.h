// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the model predicts: next-token top-k for causal LMs (after a chosen position, the last by default),
// class probabilities for classifiers, top-k for each [MASK] of masked LMs.

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QTableWidget;

namespace attnui {

struct ExploreSnapshot;

class OutputsPanel : public QWidget {
    Q_OBJECT
public:
    explicit OutputsPanel(QWidget *parent = nullptr);

    void setSnapshot(std::shared_ptr<const ExploreSnapshot> snapshot);
    QTableWidget *table() const { return m_table; }
    QString headline() const;
    QSize figureSize() const;   // the headline, the note and every row of the table, 560 px wide

private:
    void showPosition();

    std::shared_ptr<const ExploreSnapshot> m_snapshot;
    QLabel *m_headline = nullptr;
    QLabel *m_note = nullptr;
    QLabel *m_positionLabel = nullptr;
    QComboBox *m_position = nullptr;
    QTableWidget *m_table = nullptr;
};

} // namespace attnui
