// fusebox: the IDE. With --screenshot, or without a display, it runs headless:
// open the model, wait for load + layout, print a summary, write a PNG, exit.

#include "core/ir/GraphSummary.h"
#include "views/CollapsedGraph.h"
#include "views/Document.h"
#include "views/GraphScene.h"
#include "views/InputShapes.h"
#include "views/DiffView.h"
#include "views/MainWindow.h"
#include "views/MatchesPanel.h"
#include "views/Pt2Controller.h"
#include "views/RewriteController.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QPixmap>
#include <QTimer>

#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

using namespace fusebox;

namespace {

// "1,3,224,224" -> {1, 3, 224, 224}; several inputs: "1,16;1,8" or the option repeated.
std::optional<std::vector<std::vector<int64_t>>> parseShapes(const QStringList &values, QString *error)
{
    QString why;
    auto shapes = fusebox::parseInputShapes(values.join(QLatin1Char(';')), &why);
    if (!shapes)
        *error = QStringLiteral("--input-shape: %1").arg(why);
    return shapes;
}

QString shapeOf(const Node &node)
{
    return QString::fromStdString(node.meta.isKnown() ? node.meta.toString() : node.type);
}

void printSummary(const MainWindow &window, qint64 elapsedMs)
{
    const Document &doc = *window.document();
    const Graph &graph = doc.model().graph();
    const GraphSummary summary = summarize(graph);
    const CollapsedGraph &shown = window.scene()->visibleGraph();
    QString out;
    // A file opened by name shows its path; the demo (a temporary copy) its name.
    const bool named = QFileInfo(doc.model().filePath()).fileName() == doc.model().displayName();
    out += QStringLiteral("file:    %1\n")
               .arg(named ? QFileInfo(doc.model().filePath()).absoluteFilePath() : doc.model().displayName());
    out += QStringLiteral("nodes:   %1 (%2 inputs, %3 ops, %4 constants, 1 output)\n")
               .arg(summary.nodes)
               .arg(summary.inputs)
               .arg(summary.ops)
               .arg(summary.constants);
    out += QStringLiteral("edges:   %1\n").arg(summary.edges);
    out += QStringLiteral("ops (top 10 of %1 kinds):\n").arg(summary.opHistogram.size());
    for (size_t i = 0; i < summary.opHistogram.size() && i < 10; ++i)
        out += QStringLiteral("  %1  %2\n")
                   .arg(summary.opHistogram[i].second, 5)
                   .arg(QString::fromStdString(summary.opHistogram[i].first));
    out += QStringLiteral("inputs:\n");
    for (NodeId id : graph.inputs())
        out += QStringLiteral("  %1: %2\n").arg(QString::fromStdString(graph.node(id)->name), shapeOf(*graph.node(id)));
    out += QStringLiteral("outputs:\n");
    for (NodeId id : graph.outputValues())
        if (const Node *n = graph.node(id))
            out += QStringLiteral("  %1: %2\n").arg(QString::fromStdString(n->name), shapeOf(*n));
    const ScopeTree &tree = window.scene()->scopeTree();
    size_t modules = 0;
    for (size_t s = 1; s < tree.size(); ++s)
        modules += tree.scope(int(s)).artificial ? 0 : 1;
    out += QStringLiteral("modules: %1 scopes, %2 at top level, %3 deep\n")
               .arg(modules)
               .arg(tree.scope(tree.root()).scopes.size())
               .arg(tree.maxDepth());
    const size_t groups = shown.groupCount();
    out += QStringLiteral("view:    %1 items (%2 nodes, %3 collapsed groups%4), %5 edges drawn; %6\n")
               .arg(shown.items().size())
               .arg(shown.items().size() - groups)
               .arg(groups)
               .arg(shown.hiddenNodeCount() ? QStringLiteral(", %1 constants hidden").arg(shown.hiddenNodeCount())
                                            : QString())
               .arg(shown.edges().size())
               .arg(window.scene()->startedCollapsed()
                        ? QStringLiteral(
                              "started collapsed (fully expanded: %1 items, layout size %2; limits %3 and %4)")
                              .arg(window.scene()->fullItemCount())
                              .arg(qRound64(window.scene()->fullLayoutSize()))
                              .arg(GraphScene::kCollapseThreshold)
                              .arg(qRound64(GraphScene::kMaxLayoutSize))
                        : QStringLiteral("fully expanded"));
    out += QStringLiteral("time:    %1 ms to load and lay out\n").arg(elapsedMs);
    for (const QString &w : doc.model().warnings())
        out += QStringLiteral("warning: %1\n").arg(w);
    std::fputs(out.toLocal8Bit().constData(), stdout);
    std::fflush(stdout);
}

// Headless runs print a summary to stdout and errors as one line to stderr;
// drop the offscreen platform's notices that say nothing about the model.
void quietMessageHandler(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (type < QtCriticalMsg
        && (message.contains(QLatin1String("propagateSizeHints")) || message.contains(QLatin1String("XDG_RUNTIME_DIR"))
            || message.contains(QLatin1String("does not support raise()"))))
        return;
    std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
}

/// Without a display, and unless the user chose a platform, renders
/// offscreen. True when the platform draws nothing (offscreen, minimal).
bool chooseHeadlessPlatform()
{
    const bool noDisplay = qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
    if (noDisplay && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
    const bool headless = platform.startsWith("offscreen") || platform.startsWith("minimal");
    if (headless)
        qInstallMessageHandler(quietMessageHandler);
    return headless;
}

/// What the command line asked for.
struct Request {
    QString model; ///< empty: the demo model
    std::vector<std::vector<int64_t>> inputShapes;
    std::optional<QString> screenshot;
    bool findMatches = false;
    bool compareInductor = false;
};

/// The request, or the exit status after a one-line error (--help and
/// --version exit from inside).
std::variant<Request, int> parseCommandLine(const QApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Fusebox: inspect PyTorch model graphs at the operator level.\n"
        "Opens MODEL (TorchScript .pt/.pth/.zip, torch.export .pt2, an FX text dump .py/.txt, a TORCH_TRACE\n"
        "log or a graph in one (LOG#compile/kind), Fusebox graph .json, or a review session .fusebox), or the\n"
        "embedded demo model when none is given.\n"
        "Rewrite ▸ Find Matches (F5) shows the engine's candidate matches; see README for the workflow.\n"
        " Without a display (no DISPLAY/WAYLAND_DISPLAY and QT_QPA_PLATFORM\n"
        "unset), or with --screenshot, it runs headless: it loads and lays out the model, prints a\n"
        "summary (nodes, edges, top ops, inputs/outputs), writes a 1600x1000 PNG of the window and exits\n"
        "(0 on success, 1 when the model cannot be opened)."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("model"),
                                 QStringLiteral("Model file to open (default: the demo model)."),
                                 QStringLiteral("[model]"));
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                  QStringLiteral(
                                      "Write a PNG of the window to <out.png> once the graph is shown, then exit. "
                                      "Headless runs default to ./fusebox-screenshot.png."),
                                  QStringLiteral("out.png"));
    QCommandLineOption inputShape(QStringLiteral("input-shape"),
                                  QStringLiteral(
                                      "Shape of the model's tensor input, e.g. 1,3,224,224; repeat the option "
                                      "(or separate with ';') for several inputs. Overrides shapes the file records."),
                                  QStringLiteral("dims"));
    QCommandLineOption findMatches(QStringLiteral("find-matches"),
                                   QStringLiteral("Run the engine's search once the graph is shown (as F5 does); "
                                                  "with --screenshot, the picture shows the matches."));
    QCommandLineOption compareInductor(QStringLiteral("compare-inductor"),
                                       QStringLiteral(
                                           "Run Rewrite ▸ Compare with Inductor once the graph is shown (needs "
                                           "PyTorch 2, docs/pt2-bridge.md); with --screenshot, the picture "
                                           "is of the comparison window."));
    for (const QCommandLineOption *option : {&screenshot, &inputShape, &findMatches, &compareInductor})
        parser.addOption(*option);
    parser.process(app);

    if (parser.positionalArguments().size() > 1) {
        std::fprintf(stderr, "fusebox: expected at most one model file, got %lld\n",
                     static_cast<long long>(parser.positionalArguments().size()));
        return 2;
    }
    QString error;
    auto shapes = parseShapes(parser.values(inputShape), &error);
    if (!shapes) {
        std::fprintf(stderr, "fusebox: %s\n", qPrintable(error));
        return 2;
    }
    Request request;
    if (!parser.positionalArguments().isEmpty())
        request.model = parser.positionalArguments().first();
    request.inputShapes = *shapes;
    if (parser.isSet(screenshot))
        request.screenshot = parser.value(screenshot);
    request.findMatches = parser.isSet(findMatches);
    request.compareInductor = parser.isSet(compareInductor);
    return request;
}

/// Prints the summary, writes the picture (the window, or the comparison
/// window) to `out` and ends the event loop: 0, or 1 when it cannot be written.
void grabAndExit(MainWindow &window, const QString &out, qint64 elapsed, bool comparison)
{
    printSummary(window, elapsed);
    QWidget *shown = comparison ? static_cast<QWidget *>(window.pt2()->comparisonView()) : &window;
    const QPixmap shot = shown->grab();
    if (shot.isNull() || !shot.save(out, "PNG")) {
        std::fprintf(stderr, "fusebox: could not write the screenshot to %s\n", qPrintable(out));
        QCoreApplication::exit(1);
        return;
    }
    std::printf("screenshot: %s (%dx%d)\n", qPrintable(QFileInfo(out).absoluteFilePath()), shot.width(), shot.height());
    std::fflush(stdout);
    QCoreApplication::exit(0);
}

/// --compare-inductor in a batch run: grabs once both sides of the
/// comparison are laid out.
void grabAfterComparison(MainWindow &window, const std::function<void()> &grab)
{
    QObject::connect(window.pt2(), &Pt2Controller::comparisonFinished, &window,
                     [&window, grab](bool ok, const QString &message) {
                         if (!ok) {
                             std::fprintf(stderr, "fusebox: %s\n", qPrintable(message));
                             QCoreApplication::exit(1);
                             return;
                         }
                         std::printf("compare-inductor: %s\n", qPrintable(message));
                         auto *poll = new QTimer(&window);
                         QObject::connect(poll, &QTimer::timeout, &window, [&window, grab, poll] {
                             if (window.pt2()->comparisonView()->isLayingOut())
                                 return;
                             poll->deleteLater();
                             grab();
                         });
                         poll->start(100);
                     });
}

/// --find-matches in a batch run: finds, prints the Matches panel's own
/// words ("8 candidates · 0 rejected · 0 applied"), then grabs.
void findThenGrab(MainWindow &window, const std::function<void()> &grab)
{
    auto once = std::make_shared<QMetaObject::Connection>();
    *once = QObject::connect(&window.document()->review(), &DocumentReview::matchesChanged, &window,
                             [once, grab, &window] {
                                 QObject::disconnect(*once);
                                 std::printf("find-matches: %s\n",
                                             qPrintable(window.rewrite()->matchesPanel()->summaryText()));
                                 std::fflush(stdout);
                                 grab();
                             });
    window.document()->findMatches();
}

/// A headless or --screenshot run: once the graph is shown (and what the
/// request asked for is done), the picture is written and the app exits.
void setUpBatchRun(MainWindow &window, const Request &request, const QElapsedTimer &timer)
{
    const QString out = request.screenshot.value_or(QStringLiteral("fusebox-screenshot.png"));
    window.setErrorDialogsEnabled(false);
    window.resize(1600, 1000);
    const bool compare = request.compareInductor;
    auto grab = [&window, &timer, out, compare] {
        const qint64 elapsed = timer.elapsed();
        // Let the status bar and docks settle before grabbing.
        QTimer::singleShot(50, &window,
                           [&window, out, elapsed, compare] { grabAndExit(window, out, elapsed, compare); });
    };
    if (compare)
        grabAfterComparison(window, grab);
    QObject::connect(&window, &MainWindow::graphShown, &window, [&window, grab, compare, find = request.findMatches] {
        if (compare)
            window.pt2()->compareWithInductor();
        else if (find)
            findThenGrab(window, grab);
        else
            grab();
    });
    QObject::connect(&window, &MainWindow::openFailed, &window, [](const QString &message) {
        std::fprintf(stderr, "fusebox: %s\n", qPrintable(message.simplified()));
        QCoreApplication::exit(1);
    });
}

} // namespace

int main(int argc, char *argv[])
{
    const bool headless = chooseHeadlessPlatform();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Fusebox"));
    QApplication::setApplicationName(QStringLiteral("Fusebox"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    auto parsed = parseCommandLine(app);
    if (const int *exit = std::get_if<int>(&parsed))
        return *exit;
    const Request &request = std::get<Request>(parsed);

    MainWindow window;
    LoadOptions options;
    options.inputShapes = request.inputShapes;
    window.setLoadOptions(options);
    const bool batch = headless || request.screenshot;
    QElapsedTimer timer;
    if (batch) {
        setUpBatchRun(window, request, timer);
    } else {
        if (request.findMatches)
            QObject::connect(&window, &MainWindow::graphShown, window.document(), &Document::findMatches);
        if (request.compareInductor)
            QObject::connect(&window, &MainWindow::graphShown, window.pt2(), &Pt2Controller::compareWithInductor);
    }
    window.show();
    timer.start();
    if (request.model.isEmpty()) {
        if (!window.openDemoModel() && batch)
            return 1;
    } else {
        window.openFile(request.model);
    }
    return app.exec();
}
