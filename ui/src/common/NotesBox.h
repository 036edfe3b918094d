#pragma once

#include <QWidget>

class QLabel;
class QToolButton;

namespace warpscope::ui {

// A text of a few lines above a kernel: shown whole when it fits in `lines` lines, else its
// first `lines` lines and a More button that opens the rest. Hidden while the text is empty.
class NotesBox : public QWidget
{
    Q_OBJECT

public:
    // notes: the label to show (word-wrapped), taken into the box.
    NotesBox(QLabel* notes, int lines, QWidget* parent);

    void setText(const QString& text);
    QString text() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // Shows More only where the text needs more than the short height at the width the
    // label has without the button.
    void fitMore();

    QLabel* m_notes;
    QToolButton* m_more;
    int m_shortHeight;
};

} // namespace warpscope::ui
