// warpscope-soak: drives the real main window for a long time, as a person would, and watches
// its memory. A program, not a test: it runs for minutes or hours and reports as it goes.
//
//   warpscope-soak [--minutes N] [--report-seconds S] [--warmup-minutes W] [--tolerance-mb T]
//                  [--backend auto|cpu|cuda]
//
// Through QTest's key and mouse events on the real widgets it cycles through the workspaces:
// the field (bounds, columns, reference points), the launch lesson (block sizes, overlays),
// the periodogram (points, grid) and the streams lab (small runs). Every S seconds (30) it
// prints one line: elapsed time, resident memory (/proc/self/status), device memory in use
// (CUDA; "n/a" on the CPU), the timeline's span count, and the median and longest field
// frame of that window (from the paint to the composed frame's swap). Each time the field
// comes back it checks that the field is drawn.
//
// At the end it compares resident (and device) memory at the last reports with the first
// report after W minutes of warm-up (2) and exits 1 if it grew more than T MiB (16), or if the
// field was ever found blank. Needs an X server: under xvfb-run where there is no display.
#include "Help.h"
#include "warpscope/gpu/DevicePool.h"
#include "warpscope/ui/FieldView.h"
#include "warpscope/ui/LaunchPanel.h"
#include "warpscope/ui/MainWindow.h"
#include "warpscope/ui/NumberField.h"
#include "warpscope/ui/ParametersPanel.h"
#include "warpscope/ui/PeriodogramWorkspace.h"
#include "warpscope/ui/StreamsLabPanel.h"
#include "warpscope/ui/TimelinePanel.h"

#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <QUndoStack>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <malloc.h>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace warpscope;

namespace {

struct Options
{
    double minutes = 10.0;
    double reportSeconds = 30.0;
    double warmupMinutes = 2.0;
    double toleranceMb = 16.0;
    gpu::BackendKind backend = gpu::BackendKind::Auto;
};

int usage(bool asked = false)
{
    return bench::printUsage("usage: warpscope-soak [--minutes N] [--report-seconds S] "
                             "[--warmup-minutes W] [--tolerance-mb T] [--backend auto|cpu|cuda]\n",
                             asked);
}

std::optional<Options> parse(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) {
            usage();
            return std::nullopt;
        }
        const char* value = argv[++i];
        if (arg == "--minutes")
            o.minutes = std::atof(value);
        else if (arg == "--report-seconds")
            o.reportSeconds = std::atof(value);
        else if (arg == "--warmup-minutes")
            o.warmupMinutes = std::atof(value);
        else if (arg == "--tolerance-mb")
            o.toleranceMb = std::atof(value);
        else if (arg == "--backend" && std::strcmp(value, "cpu") == 0)
            o.backend = gpu::BackendKind::Cpu;
        else if (arg == "--backend" && std::strcmp(value, "cuda") == 0)
            o.backend = gpu::BackendKind::Cuda;
        else if (arg == "--backend" && std::strcmp(value, "auto") == 0)
            o.backend = gpu::BackendKind::Auto;
        else {
            usage();
            return std::nullopt;
        }
    }
    if (!(o.minutes > 0.0) || !(o.reportSeconds > 0.0) || !(o.warmupMinutes >= 0.0) ||
        !(o.toleranceMb >= 0.0)) {
        usage();
        return std::nullopt;
    }
    return o;
}

double rssMb()
{
    QFile status("/proc/self/status");
    if (!status.open(QIODevice::ReadOnly))
        return 0.0;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
    return 0.0;
}

// What the program holds on the heap, as opposed to what the allocator keeps mapped: when
// resident memory grows and this does not, the growth is the allocator's, not a leak.
double heapInUseMb()
{
    const struct mallinfo2 info = mallinfo2();
    return double(info.uordblks + info.hblkhd) / (1024.0 * 1024.0);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// Times each of the field's frames from its paint to the swap of the composed window.
class FrameClock : public QObject
{
public:
    explicit FrameClock(ui::FieldView* view) : QObject(view)
    {
        view->installEventFilter(this);
        connect(view, &QOpenGLWidget::frameSwapped, this, [this] {
            if (m_paintedAt.isValid())
                m_frames.push_back(double(m_paintedAt.nsecsElapsed()) / 1e6);
            m_paintedAt.invalidate();
        });
    }
    std::vector<double> take() { return std::exchange(m_frames, {}); }

protected:
    bool eventFilter(QObject*, QEvent* event) override
    {
        if (event->type() == QEvent::Paint)
            m_paintedAt.start();
        return false;
    }

private:
    QElapsedTimer m_paintedAt;
    std::vector<double> m_frames;
};

struct Report
{
    double seconds = 0.0;
    double rssMb = 0.0;
    std::optional<double> deviceMb;
};

// A context on the device the soak computes on, only to read its memory; none on the CPU.
std::unique_ptr<gpu::Context> openMemoryWatch(gpu::BackendKind kind)
{
    gpu::DevicePool devices(kind, -1, nullptr);
    std::unique_ptr<gpu::Context> context;
    devices.open("memory", context);
    return context;
}

class Soak
{
public:
    Soak(ui::MainWindow& window, const Options& options)
        : m_window(window), m_options(options), m_clock(new FrameClock(window.fieldView())),
          m_memory(openMemoryWatch(options.backend))
    {}

    int run()
    {
        std::printf("warpscope-soak: %.1f minutes, a report every %.0f s, warm-up %.1f minutes, "
                    "tolerance %.1f MiB, field on %s\n",
                    m_options.minutes, m_options.reportSeconds, m_options.warmupMinutes,
                    m_options.toleranceMb, qPrintable(m_window.fieldView()->backendDescription()));
        std::fflush(stdout);
        m_elapsed.start();
        double nextReport = m_options.reportSeconds;
        const double end = m_options.minutes * 60.0;
        for (int step = 0; seconds() < end; ++step) {
            switch (step % 4) {
            case 0:
                fieldStep();
                break;
            case 1:
                launchStep();
                break;
            case 2:
                periodogramStep();
                break;
            default:
                labStep();
                break;
            }
            ++m_steps;
            while (seconds() >= nextReport) {
                report();
                nextReport += m_options.reportSeconds;
            }
        }
        return verdict();
    }

private:
    double seconds() const { return double(m_elapsed.nsecsElapsed()) / 1e9; }
    int pick(int count) { return std::uniform_int_distribution<int>(0, count - 1)(m_random); }

    void showTab(int index)
    {
        auto* tabs = m_window.findChild<QTabWidget*>("workspaces");
        QTabBar* bar = tabs->tabBar();
        QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(index).center());
        QTest::qWait(50);
    }

    void type(QWidget* field, const QString& text)
    {
        field->setFocus();
        QTest::keyClick(field, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(field, text);
        QTest::keyClick(field, Qt::Key_Return);
    }

    // Waits for the field to show what was asked, then checks that it is drawn: most of the
    // map area is the field's colours, not the background.
    void settleField()
    {
        ui::FieldView* view = m_window.fieldView();
        const bool settled = QTest::qWaitFor(
            [&] {
                view->update();
                return view->frameSettled() && view->shownParams() == view->params();
            },
            60000);
        QTest::qWait(50); // the last frame composed
        const QImage image = view->grabFramebuffer();
        const QRgb background = qRgb(38, 40, 46);
        long long drawn = 0;
        for (int y = 0; y < image.height(); y += 4)
            for (int x = 0; x < image.width(); x += 4)
                drawn += (image.pixel(x, y) & 0xffffff) != (background & 0xffffff);
        const long long sampled = (image.height() / 4 + 1) * (image.width() / 4 + 1);
        ++m_fieldChecks;
        if (!settled || drawn * 20 < sampled) {
            ++m_blankFields;
            std::printf("  %s: the field is %s\n", clock().c_str(),
                        settled ? "blank" : "not settled after 60 s");
            std::fflush(stdout);
        }
    }

    void fieldStep()
    {
        showTab(0);
        if (auto* dock = m_window.findChild<QWidget*>("parametersDock"))
            dock->raise();
        ui::ParametersPanel* panel = m_window.parametersPanel();
        auto spin = [&](const char* name) {
            return panel->findChild<ui::NumberField*>(name)->spinBox();
        };
        switch (pick(4)) {
        case 0:
            type(spin("latMin"), QString::number(28.0 + 0.5 * pick(4)));
            break;
        case 1:
            type(spin("lonMax"), QString::number(100.5 + 0.5 * pick(4)));
            break;
        case 2:
            type(spin("nx"), QString::number(400 + 200 * pick(4)));
            break;
        default: {
            // A click moves the selected reference point there.
            ui::FieldView* view = m_window.fieldView();
            const QPoint at(view->width() / 3 + pick(view->width() / 3),
                            view->height() / 3 + pick(view->height() / 3));
            QTest::mouseClick(view, Qt::LeftButton, {}, at);
            break;
        }
        }
        settleField();
    }

    void launchStep()
    {
        showTab(0);
        m_window.showLaunchPanel();
        ui::LaunchPanel* launch = m_window.launchPanel();
        auto* kernel = launch->findChild<QComboBox*>("kernel");
        kernel->setFocus();
        QTest::keyClick(kernel, pick(3) == 0 ? Qt::Key_Up : Qt::Key_Down); // mostly teaching
        static const char* const blocks[] = {"8", "16", "32"};
        type(launch->field("blockx"), blocks[pick(3)]);
        type(launch->field("blocky"), blocks[pick(3)]);
        launch->findChild<QPushButton*>()->click(); // fit the grid to the mesh
        auto* overlay = launch->findChild<QComboBox*>("overlay");
        overlay->setFocus();
        QTest::keyClick(overlay, overlay->currentIndex() + 1 < overlay->count() ? Qt::Key_Down
                                                                                : Qt::Key_Home);
        settleField();
    }

    void periodogramStep()
    {
        showTab(1);
        ui::PeriodogramWorkspace* periodogram = m_window.periodogramWorkspace();
        auto wait = [&] {
            if (!QTest::qWaitFor([&] { return !periodogram->busy(); }, 60000))
                std::printf("  %s: the periodogram is still busy after 60 s\n", clock().c_str());
        };
        wait();
        auto* points = periodogram->findChild<QAbstractSpinBox*>("points");
        auto* samplesPerPeak = periodogram->findChild<QAbstractSpinBox*>("samplesPerPeak");
        for (int i = 0; i < 20 && points; ++i) {
            points->setFocus();
            QTest::keyClick(points, (i / 5) % 2 ? Qt::Key_Down : Qt::Key_Up);
            wait();
        }
        if (samplesPerPeak) {
            samplesPerPeak->setFocus();
            QTest::keyClick(samplesPerPeak, pick(2) ? Qt::Key_Up : Qt::Key_Down);
            wait();
        }
    }

    void labStep()
    {
        m_window.showStreamsLab();
        ui::StreamsLabPanel* lab = m_window.streamsLabPanel();
        type(lab->arraysField(), QString::number(2 + pick(4)));
        type(lab->lengthField(), QString::number(100000 * (1 + pick(5))));
        QSignalSpy finished(lab, &ui::StreamsLabPanel::finished);
        QTest::mouseClick(lab->findChild<QPushButton*>(pick(2) ? "labRun" : "labCompare"),
                          Qt::LeftButton);
        if (finished.isEmpty())
            finished.wait(60000);
    }

    std::string clock() const
    {
        const int s = int(seconds());
        char text[32];
        std::snprintf(text, sizeof text, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
        return text;
    }

    void report()
    {
        Report r;
        r.seconds = seconds();
        r.rssMb = rssMb();
        if (m_memory)
            if (const auto memory = m_memory->memory())
                r.deviceMb = double(memory->usedBytes) / (1024.0 * 1024.0);
        const std::vector<double> frames = m_clock->take();
        const std::size_t spans = m_window.timeline()->snapshot().spans.size();
        int undoSteps = 0;
        for (const QUndoStack* stack : m_window.findChildren<QUndoStack*>())
            undoSteps += stack->count();
        const std::string device =
            r.deviceMb ? std::to_string(int(*r.deviceMb + 0.5)) + " MiB" : std::string("n/a");
        std::printf("%s  RSS %7.1f MiB  heap %6.1f MiB  GPU memory %s  spans %6zu  undo %4d  "
                    "field frames %4zu: median %6.1f ms, max %7.1f ms  steps %d\n",
                    clock().c_str(), r.rssMb, heapInUseMb(), device.c_str(), spans, undoSteps,
                    frames.size(), median(frames),
                    frames.empty() ? 0.0 : *std::max_element(frames.begin(), frames.end()),
                    m_steps);
        std::fflush(stdout);
        m_reports.push_back(r);
    }

    // Compares the last reports with the first after the warm-up. A single reading can catch
    // a transient peak, so the last three are taken and the least of them counts.
    int verdict()
    {
        const double warmup = m_options.warmupMinutes * 60.0;
        const auto first = std::find_if(m_reports.begin(), m_reports.end(),
                                        [&](const Report& r) { return r.seconds >= warmup; });
        int status = 0;
        if (first == m_reports.end() || m_reports.end() - first < 2) {
            std::printf("Too few reports after the warm-up to judge memory: run longer\n");
            status = 1;
        } else {
            const auto last =
                m_reports.end() - std::min<std::ptrdiff_t>(3, m_reports.end() - first - 1);
            double rss = last->rssMb;
            std::optional<double> device = last->deviceMb;
            for (auto it = last; it != m_reports.end(); ++it) {
                rss = std::min(rss, it->rssMb);
                if (device && it->deviceMb)
                    device = std::min(*device, *it->deviceMb);
            }
            const double rssGrowth = rss - first->rssMb;
            std::printf("RSS after warm-up: %.1f MiB at %s, %.1f MiB at the end: %s %.1f MiB "
                        "(tolerance %.1f MiB)\n",
                        first->rssMb, std::to_string(int(first->seconds)).append(" s").c_str(), rss,
                        rssGrowth > m_options.toleranceMb ? "GREW" : "flat,", rssGrowth,
                        m_options.toleranceMb);
            if (rssGrowth > m_options.toleranceMb)
                status = 1;
            if (device && first->deviceMb) {
                const double deviceGrowth = *device - *first->deviceMb;
                std::printf(
                    "GPU memory after warm-up: %.0f MiB, at the end %.0f MiB: %s %.1f MiB\n",
                    *first->deviceMb, *device,
                    deviceGrowth > m_options.toleranceMb ? "GREW" : "flat,", deviceGrowth);
                if (deviceGrowth > m_options.toleranceMb)
                    status = 1;
            } else {
                std::printf("GPU memory: n/a\n");
            }
        }
        std::printf("Field drawn on %d of %d checks; %d steps\n", m_fieldChecks - m_blankFields,
                    m_fieldChecks, m_steps);
        if (m_blankFields > 0)
            status = 1;
        return status;
    }

    ui::MainWindow& m_window;
    Options m_options;
    FrameClock* m_clock;
    // Only asked for device memory, which the driver reports for the whole device.
    std::unique_ptr<gpu::Context> m_memory; // asked for the device's memory
    std::mt19937 m_random{2026};
    QElapsedTimer m_elapsed;
    std::vector<Report> m_reports;
    int m_steps = 0;
    int m_fieldChecks = 0;
    int m_blankFields = 0;
};

} // namespace

int main(int argc, char** argv)
{
    if (bench::asksForHelp(argc, argv))
        return usage(true);
    const auto options = parse(argc, argv);
    if (!options)
        return 2;
    // As the app: every GL widget shares one context's objects.
    QApplication::setAttribute(Qt::AA_ShareOpenGLContexts);
    QApplication app(argc, argv);
    QApplication::setOrganizationName("WarpscopeSoak"); // never the user's own settings
    ui::WindowOptions windowOptions;
    windowOptions.backend = options->backend;
    windowOptions.useSettings = false;
    ui::MainWindow window(windowOptions);
    window.resize(1400, 900);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window)) {
        std::fprintf(stderr, "warpscope-soak: the window was never shown (is there a display?)\n");
        return 2;
    }
    if (!QTest::qWaitFor([&] { return window.fieldView()->frameSettled(); }, 60000))
        std::fprintf(stderr, "warpscope-soak: the first field took over a minute\n");
    Soak soak(window, *options);
    return soak.run();
}
