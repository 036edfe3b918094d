#pragma once

#include "warpscope/ui/FieldView.h"
#include "warpscope/ui/MainWindow.h"
#include "warpscope/ui/NumberField.h"
#include "warpscope/ui/ParametersPanel.h"
#include "warpscope/ui/PeriodogramWorkspace.h"

#include <QDoubleSpinBox>
#include <QImage>
#include <QScreen>
#include <QSpinBox>
#include <QTest>
#include <functional>
#include <memory>

// What the window tests share: the real main window on the CPU backend, never the user's
// settings, and ways to read its pictures.
namespace warpscope::test {

inline ui::WindowOptions cpuWindowOptions()
{
    ui::WindowOptions options;
    options.backend = gpu::BackendKind::Cpu;
    options.useSettings = false;
    return options;
}

// The pixels of widget that the X screen shows, once settled holds and the frame has reached
// the screen: what a person sees. Never QWidget::grab or QOpenGLWidget::grabFramebuffer, which
// paint the widget again and so would show a picture where the window showed a blank frame.
inline QImage screenPixels(QWidget* widget, const std::function<bool()>& settled)
{
    if (!QTest::qWaitFor(settled, 60000))
        qWarning("the view did not settle");
    QTest::qWait(300); // the composited frame, flushed to the X server
    const QPoint at = widget->mapToGlobal(QPoint(0, 0));
    return widget->screen()
        ->grabWindow(0, at.x(), at.y(), widget->width(), widget->height())
        .toImage()
        .convertToFormat(QImage::Format_RGB32);
}

inline int differingPixels(const QImage& a, const QImage& b)
{
    if (a.size() != b.size())
        return a.width() * a.height();
    int n = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            n += a.pixel(x, y) != b.pixel(x, y);
    return n;
}

// A test class driving a fresh main window per test, as a person would: typing into fields,
// clicking, undoing. Its init() calls openWindow() and its cleanup() closeWindow().
class WindowTest : public QObject
{
protected:
    std::unique_ptr<ui::MainWindow> m_window;

    bool openWindow()
    {
        m_window = std::make_unique<ui::MainWindow>(cpuWindowOptions());
        m_window->resize(1000, 700);
        m_window->show();
        return QTest::qWaitForWindowExposed(m_window.get());
    }
    void closeWindow() { m_window.reset(); }

    ui::ParametersPanel* panel() const { return m_window->parametersPanel(); }
    ui::FieldView* view() const { return m_window->fieldView(); }
    ui::PeriodogramWorkspace* periodogram() const { return m_window->periodogramWorkspace(); }
    QSpinBox* periodogramPoints() const { return periodogram()->findChild<QSpinBox*>("points"); }
    QDoubleSpinBox* spin(const char* name) const
    {
        return panel()->findChild<ui::NumberField*>(name)->spinBox();
    }

    // Waits until the view shows the requested field and its colours, then grabs it.
    QImage settledImage()
    {
        bool ok = QTest::qWaitFor(
            [&] {
                view()->update();
                return view()->frameSettled() && view()->shownParams() == view()->params();
            },
            20000);
        if (!ok)
            qWarning("the field did not settle");
        return view()->grabFramebuffer();
    }

    bool waitForPeriodogram()
    {
        return QTest::qWaitFor([&] { return !periodogram()->busy(); }, 30000);
    }

    static void typeInto(QDoubleSpinBox* box, const QString& text)
    {
        box->setFocus();
        box->selectAll();
        QTest::keyClicks(box, text);
        QTest::keyClick(box, Qt::Key_Return);
    }
};

} // namespace warpscope::test
