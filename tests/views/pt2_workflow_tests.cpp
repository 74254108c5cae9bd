// The PyTorch 2 actions through the real window and the real bridge: capture a
// model script, compare the graph with Inductor's own passes, a bad Python.
// Needs PyTorch 2 (scripts/setup-pt2.sh, or FUSEBOX_PYTHON): without it the
// test fails, it does not skip.
#include "core/io/FxText.h"
#include "core/io/PassConfig.h"
#include "core/pt2/InductorInput.h"
#include "core/pt2/Pt2Bridge.h"
#include "core/torch/TorchSchemas.h"
#include "views/DiffView.h"
#include "views/Document.h"
#include "views/GraphScene.h"
#include "views/MainWindow.h"
#include "views/Pt2Controller.h"
#include "views/RewriteController.h"

#include <catch.hpp>

#include <QAction>
#include <QDir>
#include <QFile>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace fusebox;

namespace {

constexpr int kWorkflowBridgeTimeoutMs = 120000;

const char *kFiveLinears = R"(import torch
from torch import nn


class FiveLinears(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(16, 16) for _ in range(5))

    def forward(self, x):
        return sum(torch.relu(layer(x)) for layer in self.layers)


model = FiveLinears().eval()
example_inputs = (torch.randn(4, 16),)
)";

/// Keeps the Python setting (and the variables that choose the default) as they were.
class SettingsGuard {
public:
    SettingsGuard()
        : m_had(QSettings().contains(Pt2Controller::kPythonKey))
        , m_value(QSettings().value(Pt2Controller::kPythonKey))
        , m_python(qgetenv("FUSEBOX_PYTHON"))
        , m_hadPython(qEnvironmentVariableIsSet("FUSEBOX_PYTHON"))
        , m_root(qgetenv("FUSEBOX_PT2_ROOT"))
        , m_hadRoot(qEnvironmentVariableIsSet("FUSEBOX_PT2_ROOT"))
        , m_testing(qgetenv("FUSEBOX_PT2_TESTING_ROOT"))
        , m_hadTesting(qEnvironmentVariableIsSet("FUSEBOX_PT2_TESTING_ROOT"))
    {}
    ~SettingsGuard()
    {
        if (m_had)
            QSettings().setValue(Pt2Controller::kPythonKey, m_value);
        else
            QSettings().remove(Pt2Controller::kPythonKey);
        restore("FUSEBOX_PYTHON", m_hadPython, m_python);
        restore("FUSEBOX_PT2_ROOT", m_hadRoot, m_root);
        restore("FUSEBOX_PT2_TESTING_ROOT", m_hadTesting, m_testing);
    }

private:
    static void restore(const char *name, bool had, const QByteArray &value)
    {
        if (had)
            qputenv(name, value);
        else
            qunsetenv(name);
    }
    bool m_had;
    QVariant m_value;
    QByteArray m_python;
    bool m_hadPython;
    QByteArray m_root;
    bool m_hadRoot;
    QByteArray m_testing;
    bool m_hadTesting;
};

QString workflowLogText(MainWindow &w)
{
    return w.findChild<QPlainTextEdit *>(QStringLiteral("log"))->toPlainText();
}

bool settleWorkflow(MainWindow &w)
{
    return QTest::qWaitFor(
        [&w] {
            return !w.pt2()->isBusy() && !w.document()->jobs().isSearching() && !w.document()->jobs().isApplyingAll()
                   && !w.scene()->isLayoutRunning();
        },
        kWorkflowBridgeTimeoutMs);
}

} // namespace

TEST_CASE("PyTorch 2 workflow: capture a script, compare with Inductor, a bad Python", "[views][pt2]")
{
    SettingsGuard guard;
    QSettings().remove(Pt2Controller::kPythonKey);
    // The default Python (FUSEBOX_PYTHON or the setup-pt2.sh root) must be there.
    auto found = pt2::Pt2Bridge::find();
    INFO((found ? std::string() : found.error().message));
    REQUIRE(found);

    MainWindow w;
    w.setErrorDialogsEnabled(false);
    w.resize(1600, 1000);
    w.show();
    Pt2Controller &pt2 = *w.pt2();
    Document &doc = *w.document();
    CHECK_FALSE(pt2.compareAction()->isEnabled()); // nothing open yet
    CHECK(pt2.captureAction()->isEnabled());

    // The window's PyTorch 2 jobs run on the document's bridge (one Python for
    // the document): after a check, its Python is the one running (issue 36).
    {
        QSignalSpy checked(&pt2, &Pt2Controller::checkFinished);
        REQUIRE(pt2.checkPython());
        REQUIRE(checked.wait(kWorkflowBridgeTimeoutMs));
        INFO(checked.first().at(1).toString().toStdString());
        REQUIRE(checked.first().at(0).toBool());
        REQUIRE(doc.pt2Bridge());
        CHECK(doc.pt2Bridge()->running());
    }

    QTemporaryDir temp;
    REQUIRE(temp.isValid());
    const QString script = temp.filePath(QStringLiteral("five_linears.py"));
    {
        QFile file(script);
        REQUIRE(file.open(QIODevice::WriteOnly));
        file.write(kFiveLinears);
    }
    const QString outDir = Pt2Controller::defaultCaptureDir(script);
    CHECK(outDir == temp.filePath(QStringLiteral("five_linears_capture")));

    // Cancel (Esc) kills the Python: nothing is written, the window is idle again.
    QSignalSpy captured(&pt2, &Pt2Controller::captureFinished);
    REQUIRE(pt2.capture(script, outDir));
    w.rewrite()->cancelAction()->trigger();
    REQUIRE(captured.wait(kWorkflowBridgeTimeoutMs));
    CHECK_FALSE(captured.first().at(0).toBool());
    CHECK(captured.first().at(1).toString().contains(QStringLiteral("cancelled")));
    CHECK_FALSE(QFile::exists(QDir(outDir).filePath(QStringLiteral("dynamo.py"))));
    CHECK_FALSE(pt2.isBusy());
    CHECK(w.rewrite()->busyText().isEmpty());
    CHECK_FALSE(doc.model().hasGraph());
    captured.clear();

    // (a) Capture: the graphs land in the folder and dynamo.py opens, with its shapes.
    QSignalSpy shown(&w, &MainWindow::graphShown);
    REQUIRE(pt2.capture(script, outDir));
    CHECK(pt2.isBusy());
    CHECK(w.rewrite()->busyText().startsWith(QStringLiteral("PyTorch 2: capturing five_linears.py")));
    CHECK(w.rewrite()->cancelAction()->isEnabled()); // Esc cancels the job
    CHECK_FALSE(pt2.captureAction()->isEnabled());
    REQUIRE(captured.wait(kWorkflowBridgeTimeoutMs));
    INFO(captured.first().at(1).toString().toStdString());
    REQUIRE(captured.first().at(0).toBool());
    const QString dynamo = QDir(outDir).filePath(QStringLiteral("dynamo.py"));
    CHECK(captured.first().at(1).toString() == dynamo);
    CHECK(QFile::exists(dynamo));
    CHECK(QFile::exists(QDir(outDir).filePath(QStringLiteral("aot_forward.py"))));
    CHECK(workflowLogText(w).contains(QStringLiteral("wrote %1").arg(dynamo)));
    REQUIRE((shown.count() > 0 || shown.wait(kWorkflowBridgeTimeoutMs)));
    CHECK(doc.model().filePath() == dynamo);
    CHECK(doc.model().graph().nodesWithOp("aten::linear").size() == 5);
    for (NodeId id : doc.model().graph().nodesWithOp("aten::linear"))
        CHECK(doc.model().graph().node(id)->meta.isKnown()); // shapes came along
    CHECK(pt2.compareAction()->isEnabled());
    CHECK(w.rewrite()->busyText().isEmpty());

    // (b) Compare with Inductor under the document's (default) pass config.
    QSignalSpy compared(&pt2, &Pt2Controller::comparisonFinished);
    REQUIRE(pt2.compareWithInductor());
    REQUIRE(compared.wait(kWorkflowBridgeTimeoutMs));
    INFO(compared.first().at(1).toString().toStdString());
    REQUIRE(compared.first().at(0).toBool());
    const QString headline = compared.first().at(1).toString();
    CHECK_FALSE(headline.isEmpty());
    CHECK((headline.startsWith(QStringLiteral("Same as Inductor")) || headline.startsWith(QStringLiteral("Differs"))));
    DiffView &view = *pt2.comparisonView();
    CHECK(view.isVisible());
    CHECK(view.isComparison());
    CHECK(view.summaryText().contains(headline.toHtmlEscaped()));
    CHECK(workflowLogText(w).contains(headline));

    // The counters shown are Inductor's own: ask the bridge directly for the same run.
    auto passes = (*found)->request("inductor_passes", nlohmann::json::object());
    REQUIRE(passes);
    std::vector<std::string> leftOut;
    const PassConfig config = pt2::passesInductorHas(doc.persistence().passConfig(), *passes, &leftOut);
    CHECK_FALSE(config.preGradFusionOptions.empty()); // batch_linear and friends are Inductor's
    auto direct = (*found)->runInductor(pt2::graphTextForInductor(doc.history().original()), writePassConfig(config),
                                        "auto", pt2::inductorInputsOf(doc.history().original()));
    INFO((direct ? std::string() : direct.error().message));
    REQUIRE(direct);
    CHECK(pt2.lastInductorCounters() == direct->counters);
    for (const auto &[name, n] : direct->counters) {
        const QString shownCounter = QStringLiteral("%1 %2").arg(QString::fromStdString(name)).arg(n);
        CHECK(view.summaryText().contains(shownCounter));
        CHECK(workflowLogText(w).contains(shownCounter));
    }
    for (const std::string &name : leftOut)
        CHECK(view.summaryText().contains(QString::fromStdString(name)));
    // Left: Fusebox's current graph; right: Inductor's result read back.
    REQUIRE(QTest::qWaitFor([&] { return !view.isLayingOut() && view.afterScene()->nodeItemCount() > 0; }, 60000));
    CHECK(view.beforeScene()->document()->model().graph().size() == doc.model().graph().size());
    auto theirs = readFxText(direct->graphText, {&torchSchemas(), "Inductor's result"});
    REQUIRE(theirs);
    CHECK(view.afterScene()->document()->model().graph().size() == theirs->graph.size());
    if (headline.startsWith(QStringLiteral("Differs")))
        CHECK((!view.beforeScene()->marks().isEmpty() || !view.afterScene()->marks().isEmpty()));

    // Apply All runs Inductor's schedule by default, and agrees with Inductor:
    // nothing fires on these five linears under the default config.
    QSignalSpy appliedAll(&doc.jobs(), &DocumentJobs::applyAllFinished);
    CHECK(doc.jobs().schedule() == PassSchedule::Inductor);
    w.rewrite()->applyAllAction()->trigger();
    REQUIRE(appliedAll.wait(kWorkflowBridgeTimeoutMs));
    CHECK(appliedAll.first().at(0).toInt() == 0);
    CHECK(workflowLogText(w).contains(QStringLiteral("Apply All: 0 rewrites in Inductor's schedule")));
    // Fusebox's own search goes further; the Fusebox side then shows what it
    // applied, per pattern.
    appliedAll.clear();
    w.rewrite()->setSchedule(PassSchedule::Greedy);
    CHECK(workflowLogText(w).contains(QStringLiteral("schedule: greedy")));
    w.rewrite()->applyAllAction()->trigger();
    REQUIRE(appliedAll.wait(kWorkflowBridgeTimeoutMs));
    std::map<std::string, int> applied;
    for (const MatchEntry &e : doc.review().matches())
        if (e.status == MatchStatus::Applied)
            ++applied[e.match.pattern];
    INFO(workflowLogText(w).toStdString());
    REQUIRE_FALSE(applied.empty()); // batch_linear at least
    compared.clear();
    REQUIRE(pt2.compareWithInductor());
    REQUIRE(compared.wait(kWorkflowBridgeTimeoutMs));
    REQUIRE(compared.first().at(0).toBool());
    CHECK_FALSE(view.summaryText().contains(QStringLiteral("none yet")));
    for (const auto &[pattern, n] : applied)
        CHECK(view.summaryText().contains(QStringLiteral("%1 %2").arg(QString::fromStdString(pattern)).arg(n)));
    CHECK(view.beforeScene()->document()->model().graph().size() == doc.model().graph().size());

    // (c) A Python that is not there: one line, and the window keeps working.
    QSignalSpy checked(&pt2, &Pt2Controller::checkFinished);
    pt2.setPythonCommand(QStringLiteral("/nonexistent/python"));
    CHECK(QSettings().value(Pt2Controller::kPythonKey).toString() == QStringLiteral("/nonexistent/python"));
    REQUIRE((checked.count() > 0 || checked.wait(kWorkflowBridgeTimeoutMs)));
    CHECK_FALSE(checked.first().at(0).toBool());
    const QString error = checked.first().at(1).toString();
    CHECK_FALSE(error.isEmpty());
    CHECK_FALSE(error.contains(QLatin1Char('\n')));
    CHECK(error.contains(QStringLiteral("/nonexistent/python")));
    CHECK(workflowLogText(w).contains(QStringLiteral("error: %1").arg(error)));
    compared.clear();
    pt2.compareWithInductor();
    REQUIRE((compared.count() > 0 || compared.wait(kWorkflowBridgeTimeoutMs)));
    CHECK_FALSE(compared.first().at(0).toBool());
    CHECK_FALSE(compared.first().at(1).toString().contains(QLatin1Char('\n')));
    REQUIRE(settleWorkflow(w));
    CHECK(pt2.compareAction()->isEnabled());
    CHECK(doc.model().filePath() == dynamo);
    QSignalSpy matches(&doc.review(), &DocumentReview::matchesChanged);
    w.rewrite()->findMatchesAction()->trigger();
    REQUIRE(matches.wait(60000));

    // No PyTorch 2 at all: both actions say so in one line.
    QSettings().remove(Pt2Controller::kPythonKey);
    qunsetenv("FUSEBOX_PYTHON");
    qputenv("FUSEBOX_PT2_ROOT", temp.filePath(QStringLiteral("no-root")).toLocal8Bit());
    qputenv("FUSEBOX_PT2_TESTING_ROOT", temp.filePath(QStringLiteral("no-testing-root")).toLocal8Bit());
    captured.clear();
    compared.clear();
    CHECK_FALSE(pt2.capture(script, outDir));
    REQUIRE(captured.count() == 1);
    CHECK(captured.first().at(1).toString() == QString::fromStdString(pt2::noPythonMessage()));
    CHECK_FALSE(pt2.compareWithInductor());
    REQUIRE(compared.count() == 1);
    CHECK(compared.first().at(1).toString() == QString::fromStdString(pt2::noPythonMessage()));
    CHECK(workflowLogText(w).contains(QString::fromStdString(pt2::noPythonMessage())));
}

TEST_CASE("the window counts the values without a shape and infers them in PyTorch 2 when asked", "[views][pt2]")
{
    SettingsGuard guard;
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("shuffle.py"));
    {
        // pixel_shuffle has no C++ shape rule: it and the relu reading it
        // stay without a shape until PyTorch 2 answers.
        QFile f(model);
        REQUIRE(f.open(QIODevice::WriteOnly));
        f.write(R"PY(import torch

class GraphModule(torch.nn.Module):
    def forward(self, L_x_: "f32[1, 8, 3, 3]"):
        l_x_ = L_x_
        shuffled = torch.nn.functional.pixel_shuffle(l_x_, 2);  l_x_ = None
        relu = torch.relu(shuffled);  shuffled = None
        return (relu,)
)PY");
    }
    MainWindow w;
    w.setErrorDialogsEnabled(false);
    w.resize(1600, 1000);
    w.show();
    auto *button = w.findChild<QPushButton *>(QStringLiteral("inferShapesButton"));
    auto *action = w.findChild<QAction *>(QStringLiteral("inferShapesAction"));
    REQUIRE(button);
    REQUIRE(action);

    // A PyTorch 2 that cannot run: the load still opens, the status bar
    // says how many values lack a shape and offers to infer them.
    QSettings().setValue(Pt2Controller::kPythonKey, QStringLiteral("/nonexistent/python"));
    {
        QSignalSpy shown(&w, &MainWindow::graphShown);
        w.openFile(model);
        REQUIRE(shown.wait(kWorkflowBridgeTimeoutMs));
    }
    const Graph &before = w.document()->model().graph();
    CHECK(w.countsText()
          == QStringLiteral("%1 nodes · %2 edges · 2 of 2 values without a shape")
                 .arg(before.size())
                 .arg(before.edgeCount()));
    CHECK_FALSE(button->isHidden());
    CHECK(action->isEnabled());

    // Asked with that Python, the answer is its error; the graph stays.
    const size_t nodes = before.size();
    {
        QSignalSpy failed(&w.document()->jobs(), &DocumentJobs::loadFailed);
        REQUIRE(w.inferShapes());
        REQUIRE(failed.wait(kWorkflowBridgeTimeoutMs));
        const QString error = failed.first().at(1).toString();
        CHECK(error.contains(QStringLiteral("cannot infer its shapes in PyTorch 2")));
        CHECK(error.contains(QStringLiteral("/nonexistent/python")));
        CHECK_FALSE(error.contains(QLatin1Char('\n')));
    }
    CHECK(w.document()->model().graph().size() == nodes);
    CHECK_FALSE(button->isHidden());

    // The PyTorch 2 Fusebox finds (the reference roots): every value shaped,
    // pixel_shuffle's [1, 2, 6, 6] as torch computes it.
    QSettings().remove(Pt2Controller::kPythonKey);
    {
        QSignalSpy shown(&w, &MainWindow::graphShown);
        QTest::mouseClick(button, Qt::LeftButton);
        REQUIRE(shown.wait(kWorkflowBridgeTimeoutMs));
    }
    const Graph &after = w.document()->model().graph();
    CHECK(w.countsText() == QStringLiteral("%1 nodes · %2 edges").arg(after.size()).arg(after.edgeCount()));
    CHECK(button->isHidden());
    CHECK_FALSE(action->isEnabled());
    const Node *out = after.node(after.findByName("relu"));
    REQUIRE(out);
    CHECK(out->meta.toString() == "f32[1, 2, 6, 6]");
}
