// A Dynamo capture reviewed in the window, with every rewrite checked in
// PyTorch 2 through the document's own bridge, off the GUI thread: apply one
// match (progress in the busy line, Esc cancels), an unsafe custom pattern
// that the check undoes (output, element, both values), Apply All, Measure
// Latency eagerly and compiled by torch.compile, and Export
// for Stock PyTorch 2, whose .pt2 stock PyTorch runs against the real model.
// Needs PyTorch 2 (scripts/setup-pt2.sh, or FUSEBOX_PYTHON): without it the
// test fails, it does not skip.
#include "pt2/CaptureCache.h"
#include "pt2/ExportCheck.h"
#include "ReviewTestSupport.h"

#include "core/ir/GraphCompare.h"
#include "core/ir/GraphSource.h"
#include "core/pt2/PythonCommand.h"
#include "views/LatencyDialog.h"
#include "views/MatchesPanel.h"
#include "views/Pt2Controller.h"
#include "views/ReviewFiles.h"

#include <QCheckBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QUndoStack>

using namespace fusebox;
using namespace fusebox::viewtest;

namespace {

constexpr int kBridgeTimeoutMs = 180000;
const std::string kTowers = std::string(FUSEBOX_SOURCE_DIR) + "/tests/pt2/models/recsys_towers.py";

QString logText(MainWindow &w)
{
    return w.findChild<QPlainTextEdit *>(QStringLiteral("log"))->toPlainText();
}

bool idle(MainWindow &w)
{
    return QTest::qWaitFor(
        [&w] {
            return !w.document()->pt2().isApplying() && !w.document()->jobs().isApplyingAll()
                   && !w.document()->jobs().isSearching() && !w.scene()->isLayoutRunning();
        },
        kBridgeTimeoutMs);
}

/// The Dynamo graph of recsys_towers.py, captured once per build (CaptureCache.h).
std::string towersDynamo()
{
    auto bridge = pt2::Pt2Bridge::find();
    INFO((bridge ? std::string() : bridge.error().message));
    REQUIRE(bridge);
    auto capture = testing::sharedCapture(**bridge, kTowers, FUSEBOX_BINARY_DIR, pt2::bridgePythonDir());
    INFO((capture ? std::string() : capture.error().message));
    REQUIRE(capture);
    return capture->outputDir + "/dynamo.py";
}

} // namespace

TEST_CASE("PyTorch 2 in the review: each apply to a Dynamo graph is verified in PyTorch 2, an unsafe one is undone, "
          "the export runs in stock PyTorch 2",
          "[views][pt2]")
{
    QSettings().remove(Pt2Controller::kPythonKey); // the default Python: FUSEBOX_PYTHON or the setup-pt2.sh root
    const QString dynamo = QString::fromStdString(towersDynamo());

    MainWindow w;
    w.setErrorDialogsEnabled(false);
    w.resize(1600, 1000);
    w.show();
    QSignalSpy shown(&w, &MainWindow::graphShown);
    w.openFile(dynamo);
    REQUIRE(shown.wait(kBridgeTimeoutMs));
    Document &doc = *w.document();
    RewriteController &rc = *w.rewrite();
    REQUIRE(isPt2Graph(doc.model().graph()));
    REQUIRE(doc.verifiesInPyTorch2());
    findMatches(w);

    // (a) One match, applied off the GUI thread and checked in PyTorch 2:
    // the window stays live, says what it verifies, and Esc would cancel.
    const int row = firstRow(doc, "batch_linear", MatchStatus::Pending);
    REQUIRE(row >= 0);
    const Graph before = doc.model().graph().clone();
    QSignalSpy started(&doc.pt2(), &DocumentPt2::applyStarted);
    QSignalSpy finished(&doc.pt2(), &DocumentPt2::applyFinished);
    rc.matchesPanel()->selectMatchRow(row);
    REQUIRE(settle(w));
    rc.applyAction()->trigger();
    REQUIRE(started.count() == 1);
    CHECK(started.first().at(0).toString().startsWith(QStringLiteral("Apply batch_linear at %")));
    CHECK(doc.pt2().isApplying());
    CHECK(rc.busyText().startsWith(QStringLiteral("PyTorch 2: ")));
    CHECK(rc.cancelAction()->isEnabled());
    CHECK_FALSE(rc.applyAllAction()->isEnabled());  // one job at a time
    CHECK(doc.history().undoStack()->count() == 0); // nothing lands before it is checked
    REQUIRE(finished.wait(kBridgeTimeoutMs));
    REQUIRE(idle(w));
    INFO(logText(w).toStdString());
    CHECK(finished.first().at(0).toInt() == 1);
    CHECK(finished.first().at(1).toString().endsWith(QStringLiteral(": verified in PyTorch 2")));
    CHECK(doc.history().undoStack()->count() == 1);
    CHECK(doc.model().graph().nodesWithOp("aten::linear").size() < before.nodesWithOp("aten::linear").size());
    const int applied = firstRow(doc, "batch_linear", MatchStatus::Applied);
    REQUIRE(applied >= 0);
    const QString verification = doc.review().matches()[size_t(applied)].verification;
    CHECK(verification.startsWith(QStringLiteral("passed in PyTorch 2.")));
    CHECK(verification.contains(QStringLiteral("through the bridge")));
    CHECK(logText(w).contains(QStringLiteral("verifying in PyTorch 2 (Esc cancels)")));
    CHECK(w.statusBar()->currentMessage() == finished.first().at(1).toString());
    CHECK(rc.busyText().isEmpty());

    // Undo takes the checked rewrite back exactly.
    rc.undoAction()->trigger();
    REQUIRE(idle(w));
    CHECK(firstDifference(doc.model().graph(), before) == std::nullopt);

    // (b) Cancel: the Python is killed, nothing is applied, the window is idle.
    const int again = firstRow(doc, "batch_linear", MatchStatus::Pending);
    REQUIRE(again >= 0);
    finished.clear();
    rc.matchesPanel()->selectMatchRow(again);
    REQUIRE(settle(w));
    rc.applyAction()->trigger();
    REQUIRE(doc.pt2().isApplying());
    REQUIRE(rc.cancelAction()->isEnabled());
    rc.cancelAction()->trigger();
    REQUIRE((finished.count() > 0 || finished.wait(kBridgeTimeoutMs)));
    REQUIRE(idle(w));
    CHECK(finished.first().at(0).toInt() == 0);
    CHECK(finished.first().at(1).toString().contains(QStringLiteral("cancelled; nothing was applied")));
    CHECK(doc.history().undoStack()->index() == 0);
    CHECK(firstDifference(doc.model().graph(), before) == std::nullopt);

    // (c) A pattern that changes the outputs (sigmoid is not tanh): PyTorch 2
    // catches it, the rewrite is undone and the failure names the output,
    // the element and both values.
    auto names = doc.addPatternText(QStringLiteral(
                                        "pattern unsafe_sigmoid {\n    match {\n        r = aten::sigmoid(x)\n"
                                        "    }\n    replace {\n        r = aten::tanh(x)\n    }\n}\n"),
                                    QStringLiteral("unsafe.patterns"));
    REQUIRE(names);
    findMatches(w);
    const int unsafe = firstRow(doc, "unsafe_sigmoid", MatchStatus::Pending);
    REQUIRE(unsafe >= 0);
    QSignalSpy failed(&doc.review(), &DocumentReview::verificationFailed);
    finished.clear();
    QString error;
    CHECK(doc.applyMatches({unsafe}, &error) == 0);
    REQUIRE(finished.wait(kBridgeTimeoutMs));
    REQUIRE(idle(w));
    CHECK(finished.first().at(0).toInt() == 0);
    REQUIRE(failed.count() == 1);
    CHECK(failed.first().at(0).toString() == QStringLiteral("unsafe_sigmoid"));
    const QString why = failed.first().at(2).toString();
    INFO(why.toStdString());
    CHECK(why.contains(QStringLiteral("output 0 (%")));
    CHECK(why.contains(QStringLiteral("at index")));
    CHECK(why.contains(QStringLiteral("(expected ")));
    CHECK(why.contains(QStringLiteral(", got ")));
    CHECK(logText(w).contains(QStringLiteral("unsafe_sigmoid at %")));
    CHECK(logText(w).contains(QStringLiteral("failed numeric verification and was undone")));
    CHECK(firstDifference(doc.model().graph(), before) == std::nullopt);
    CHECK(doc.history().undoStack()->index() == 0);
    doc.setPatternEnabled(QStringLiteral("unsafe_sigmoid"), false);

    // (d) Apply All, in Inductor's schedule, through the same check.
    QSignalSpy appliedAll(&doc.jobs(), &DocumentJobs::applyAllFinished);
    rc.applyAllAction()->trigger();
    REQUIRE(appliedAll.wait(kBridgeTimeoutMs));
    REQUIRE(idle(w));
    INFO(appliedAll.first().at(1).toString().toStdString());
    CHECK(appliedAll.first().at(0).toInt() >= 1);
    CHECK(doc.jobs().lastCounters().at("batch_linear").applied == 1);
    for (const MatchEntry &e : doc.review().matches())
        if (e.status == MatchStatus::Applied) {
            INFO(e.match.pattern << ": " << e.verification.toStdString());
            CHECK(e.verification.startsWith(QStringLiteral("passed in PyTorch 2.")));
        }

    // (e) Measure Latency: eager and compiled by torch.compile, on the
    // document's bridge, what Inductor made of each graph beside the times.
    LatencyDialog *dialog = rc.latencyDialog();
    dialog->setRuns(5, 1);
    REQUIRE(dialog->findChild<QCheckBox *>(QStringLiteral("latencyCompiled"))->isChecked());
    QSignalSpy measured(dialog, &LatencyDialog::finished);
    rc.measureLatencyAction()->trigger();
    REQUIRE((measured.count() == 1 || measured.wait(kBridgeTimeoutMs)));
    INFO(measured.first().at(1).toString().toStdString());
    REQUIRE(measured.first().at(0).toBool());
    REQUIRE(dialog->comparison());
    const LatencyComparison &lc = *dialog->comparison();
    CHECK(lc.engine.find("PyTorch 2.") != std::string::npos);
    REQUIRE(lc.compiled);
    CHECK(lc.compiled->before.iterations == 5);
    CHECK(lc.compiled->after.iterations == 5);
    CHECK(lc.compiled->freezing);
    CHECK(lc.compiled->beforeStats.externCalls == 10); // the ten linears' addmm
    CHECK(lc.compiled->afterStats.externCalls < 10);   // batched
    CHECK(dialog->resultText().contains(QString::fromStdString(lc.compiledSummary())));
    CHECK(dialog->findChild<QLabel *>(QStringLiteral("latencyDetails"))
              ->text()
              .contains(QStringLiteral("Compiled before: ")));
    CHECK(logText(w).contains(QString::fromStdString(lc.compiledSummary())));
    dialog->close();

    // (f) File ▸ Export for Stock PyTorch 2: a .pt2 that stock PyTorch 2 loads
    // and runs with the real model's outputs, and the rewrite is in it.
    QTemporaryDir temp;
    REQUIRE(temp.isValid());
    const QString archive = temp.filePath(QStringLiteral("towers_reviewed.pt2"));
    QSignalSpy exported(rc.files(), &ReviewFiles::pt2ExportFinished);
    REQUIRE(rc.files()->exportForPyTorch2(archive, &error));
    CHECK(rc.busyText().startsWith(QStringLiteral("PyTorch 2: exporting")));
    REQUIRE(exported.wait(kBridgeTimeoutMs));
    INFO(exported.first().at(1).toString().toStdString());
    CHECK(exported.first().at(0).toBool());
    // "1 output matches" or "N outputs match", never "1 outputs match".
    CHECK(exported.first().at(1).toString().contains(
        QRegularExpression(QStringLiteral("\\b(1 output matches|([02-9]|\\d\\d+) outputs match)\\b"))));
    CHECK(w.statusBar()->currentMessage() == exported.first().at(1).toString());
    auto bridge = doc.pt2Bridge();
    REQUIRE(bridge);
    auto check = testing::checkExportInStockPyTorch(bridge->command(), kTowers, "pt2", "towers_reviewed",
                                                    {archive.toStdString()});
    INFO(check.dump());
    CHECK(check["passed"] == true);
    CHECK(check["max_abs_diff"].get<double>() <= 1e-4);
    const auto &ops = check["ops"];
    auto count = [&ops](const char *target) { return ops.contains(target) ? ops[target].get<int>() : 0; };
    CHECK(count("torch.ops.aten.baddbmm.default") + count("torch.ops.aten.bmm.default") == 1);
}
