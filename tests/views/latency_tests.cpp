// Rewrite ▸ Measure Latency through the real widgets, on the demo model.
#include "ReviewTestSupport.h"

#include "views/LatencyDialog.h"
#include "views/RewriteController.h"

#include <catch.hpp>

#include <QAction>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>

using namespace fusebox;
using namespace fusebox::viewtest;

TEST_CASE("Measure Latency times the original and the rewritten demo and says the same everywhere", "[views][latency]")
{
    auto w = openDemo();
    RewriteController *rewrite = w->rewrite();
    QAction *measure = rewrite->measureLatencyAction();
    REQUIRE(measure);
    CHECK(rewrite->rewriteMenu()->actions().contains(measure));
    CHECK(measure->isEnabled());

    w->document()->applyAll();
    REQUIRE(settle(*w));
    const size_t originalNodes = w->document()->history().original().size();
    const size_t currentNodes = w->document()->model().graph().size();
    REQUIRE(currentNodes < originalNodes);

    LatencyDialog *dialog = rewrite->latencyDialog();
    dialog->setRuns(6, 1);
    QSignalSpy finished(dialog, &LatencyDialog::finished);
    measure->trigger();
    CHECK(dialog->isVisible());
    CHECK(dialog->isRunning());
    CHECK(rewrite->busyText().contains(QStringLiteral("Measuring latency")));
    CHECK_FALSE(dialog->findChild<QPushButton *>(QStringLiteral("latencyMeasure"))->isEnabled());
    REQUIRE((finished.count() == 1 || finished.wait(120000)));
    REQUIRE(finished.at(0).at(0).toBool());

    // The dialog, the Log and the status bar say the measurement's own summary.
    REQUIRE(dialog->comparison());
    const LatencyComparison &c = *dialog->comparison();
    CHECK(c.engine == "libtorch 1.13");
    CHECK(c.before.iterations == 6);
    CHECK(c.after.iterations == 6);
    CHECK(c.warmup == 1);
    CHECK(c.before.medianMs > 0);
    CHECK(c.after.medianMs > 0);
    const QString summary = QString::fromStdString(c.summary());
    CHECK(dialog->resultText() == summary);
    CHECK(summary.contains(QStringLiteral("(median of 6, libtorch 1.13)")));
    const QString graphs = dialog->findChild<QLabel *>(QStringLiteral("latencyGraphs"))->text();
    CHECK(
        graphs.contains(QStringLiteral("Original: %1 nodes · current: %2 nodes").arg(originalNodes).arg(currentNodes)));
    CHECK(dialog->findChild<QLabel *>(QStringLiteral("latencyDetails"))->text().contains(QStringLiteral("6 runs")));
    const QString log = w->findChild<QPlainTextEdit *>(QStringLiteral("log"))->toPlainText();
    CHECK(log.contains(QStringLiteral("latency: ") + summary));
    CHECK(w->statusBar()->currentMessage().contains(summary));
    CHECK(rewrite->busyText().isEmpty());
    CHECK(dialog->findChild<QPushButton *>(QStringLiteral("latencyMeasure"))->isEnabled());

    if (const QString dir = qEnvironmentVariable("FUSEBOX_SCREENSHOT_DIR"); !dir.isEmpty()) {
        dialog->resize(640, 420);
        QTest::qWait(50);
        dialog->grab().save(dir + QStringLiteral("/latency-dialog.png"));
    }

    // Cancel stops a long measurement: nothing is reported as measured.
    dialog->setRuns(100000, 0);
    finished.clear();
    REQUIRE(dialog->start());
    QTest::qWait(100);
    dialog->cancel();
    REQUIRE((finished.count() == 1 || finished.wait(60000)));
    CHECK_FALSE(finished.at(0).at(0).toBool());
    CHECK(finished.at(0).at(1).toString() == QStringLiteral("cancelled"));
    CHECK_FALSE(dialog->comparison());
    CHECK(dialog->resultText() == QStringLiteral("Cancelled: nothing measured."));
    CHECK(w->findChild<QPlainTextEdit *>(QStringLiteral("log"))
              ->toPlainText()
              .contains(QStringLiteral("latency not measured: cancelled")));
}
