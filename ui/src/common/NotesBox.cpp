#include "NotesBox.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace warpscope::ui {

NotesBox::NotesBox(QLabel* notes, int lines, QWidget* parent)
    : QWidget(parent), m_notes(notes), m_more(new QToolButton(this)),
      m_shortHeight(lines * notes->fontMetrics().lineSpacing())
{
    m_notes->setParent(this);
    m_notes->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_notes->setMaximumHeight(m_shortHeight);
    m_more->setObjectName("notesMore");
    m_more->setText(tr("More"));
    m_more->setCheckable(true);
    m_more->hide();
    connect(m_more, &QToolButton::toggled, this, [this](bool all) {
        m_notes->setMaximumHeight(all ? QWIDGETSIZE_MAX : m_shortHeight);
        m_more->setText(all ? tr("Less") : tr("More"));
    });
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_notes, 1);
    layout->addWidget(m_more, 0, Qt::AlignTop);
    // A new width may let the text fit or not.
    m_notes->installEventFilter(this);
    hide();
}

void NotesBox::setText(const QString& text)
{
    m_more->setChecked(false); // a new text starts short
    m_notes->setText(text);
    setVisible(!text.isEmpty());
    fitMore();
}

QString NotesBox::text() const
{
    return m_notes->text();
}

bool NotesBox::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_notes && event->type() == QEvent::Resize)
        fitMore();
    return QWidget::eventFilter(watched, event);
}

void NotesBox::fitMore()
{
    int width = m_notes->width();
    if (m_more->isVisible())
        width += m_more->width() + layout()->spacing();
    const bool fits = m_notes->heightForWidth(width) <= m_shortHeight;
    m_more->setVisible(!fits || m_more->isChecked());
}

} // namespace warpscope::ui
