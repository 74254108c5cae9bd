#pragma once
// The demo window and the waits shared by the [views] review tests
// (rewrite_workflow_tests.cpp, review_truth_tests.cpp, end_to_end_review_tests.cpp),
// and the readout checks they share.

#include "views/Document.h"
#include "views/GraphScene.h"
#include "views/DiffView.h"
#include "views/InspectorPanel.h"
#include "views/MainWindow.h"
#include "views/MatchesPanel.h"
#include "views/RewriteController.h"

#include <catch.hpp>

#include <QAction>
#include <QFile>
#include <QSignalSpy>
#include <QtTest/QTest>

#include <algorithm>
#include <map>
#include <memory>
#include <string>

namespace fusebox::viewtest {

inline const QString kDemo = (QString::fromUtf8(FUSEBOX_FIXTURE_DIR) + QStringLiteral("/recsys_demo.pt"));

/// Waits for the document to settle: no search, no Apply All, no layout.
inline bool settle(MainWindow &w)
{
    return QTest::qWaitFor(
        [&w] {
            return !w.document()->jobs().isSearching() && !w.document()->jobs().isApplyingAll()
                   && !w.scene()->isLayoutRunning() && !w.scene()->hasPendingOverlays();
        },
        60000);
}

/// The first row of the document's match list with this pattern and status, or -1.
inline int firstRow(const Document &d, const std::string &pattern, MatchStatus status)
{
    for (size_t i = 0; i < d.review().matches().size(); ++i)
        if (d.review().matches()[i].match.pattern == pattern && d.review().matches()[i].status == status)
            return int(i);
    return -1;
}

/// A shown 1600x1000 window on the demo model, laid out.
inline std::unique_ptr<MainWindow> openDemo()
{
    auto w = std::make_unique<MainWindow>();
    w->setErrorDialogsEnabled(false);
    w->resize(1600, 1000);
    w->show();
    QSignalSpy shown(w.get(), &MainWindow::graphShown);
    REQUIRE(QFile::exists(kDemo));
    w->openFile(kDemo);
    REQUIRE(shown.wait(120000));
    return w;
}

/// A shown window that opened the session at `path` and restored it, settled;
/// checks that the restore succeeded (its message as INFO when not).
inline std::unique_ptr<MainWindow> reopenSession(const QString &path)
{
    auto w = std::make_unique<MainWindow>();
    w->setErrorDialogsEnabled(false);
    w->show();
    QSignalSpy restored(w.get(), &MainWindow::sessionRestored);
    REQUIRE(w->openSession(path));
    REQUIRE(restored.wait(120000));
    INFO(restored.first().at(1).toString().toStdString());
    CHECK(restored.first().at(0).toBool());
    REQUIRE(settle(*w));
    return w;
}

/// F5, then waits for the search and the marks.
inline void findMatches(MainWindow &w)
{
    w.rewrite()->findMatchesAction()->trigger();
    REQUIRE(
        QTest::qWaitFor([&] { return w.document()->review().hasMatchResults() && !w.document()->jobs().isSearching(); },
                        60000));
    REQUIRE(settle(w));
}

/// Apply All, as the toolbar triggers it; waits for it and for the document
/// to settle, and returns how many rewrites it reported.
inline int applyAll(MainWindow &w)
{
    QSignalSpy allDone(&w.document()->jobs(), &DocumentJobs::applyAllFinished);
    w.rewrite()->applyAllAction()->trigger();
    REQUIRE((allDone.count() > 0 || allDone.wait(60000)));
    REQUIRE(settle(w));
    return allDone.first().at(0).toInt();
}

/// Rejects Matches row `row` as a user does (select it, Reject Match) and
/// waits for the document to settle.
inline void rejectRow(MainWindow &w, int row)
{
    w.rewrite()->matchesPanel()->selectMatchRow(row);
    w.rewrite()->rejectAction()->trigger();
    REQUIRE(settle(w));
}

/// The rows of the document's match list with this status, counted here.
inline int countStatus(const Document &d, MatchStatus status)
{
    return int(std::count_if(d.review().matches().begin(), d.review().matches().end(),
                             [&](const MatchEntry &e) { return e.status == status; }));
}

/// "N nodes · E edges" and each op's "op ×count", counted here from the graph.
inline void checkInspectorSummary(MainWindow &w, const char *step)
{
    INFO(step);
    const Graph &g = w.document()->model().graph();
    size_t nodes = 0, edges = 0;
    std::map<std::string, size_t> ops;
    for (NodeId id : g.nodeIds()) {
        const Node &n = *g.node(id);
        ++nodes;
        edges += n.inputNodes().size();
        if (n.isOp())
            ++ops[n.op];
    }
    auto *inspector = w.findChild<InspectorPanel *>();
    REQUIRE(inspector);
    const QString text = inspector->text();
    INFO(text.toStdString());
    CHECK(text.contains(QStringLiteral("%1 nodes · %2 edges").arg(nodes).arg(edges)));
    // The twelve most frequent ops are listed: each listed one with its count now.
    int listed = 0;
    for (const auto &[op, count] : ops)
        if (text.contains(QString::fromStdString(op) + QStringLiteral(" ×"))) {
            ++listed;
            CHECK(text.contains(QStringLiteral("%1 ×%2\n").arg(QString::fromStdString(op)).arg(count)));
        }
    CHECK(listed == int(std::min<size_t>(ops.size(), 12)));
}

/// The diff's per-pattern counts against the applied rows of the Matches
/// table, and its rewrite count against the applied rows.
inline void checkDiffAgreesWithRows(MainWindow &w, const char *step)
{
    INFO(step);
    DiffView &diff = *w.rewrite()->diffView();
    std::map<std::string, std::tuple<size_t, size_t, size_t>> rows; // rewrites, removed, added
    size_t applied = 0;
    for (const MatchEntry &e : w.document()->review().matches())
        if (e.status == MatchStatus::Applied) {
            auto &[n, removed, added] = rows[e.match.pattern];
            ++n;
            removed += e.nodesRemoved;
            added += e.nodesAdded;
            ++applied;
        }
    size_t rewrites = 0;
    for (const auto &p : diff.diff().byPattern) {
        INFO(p.pattern);
        rewrites += p.rewrites;
        REQUIRE(rows.count(p.pattern));
        CHECK(std::get<0>(rows[p.pattern]) == p.rewrites);
        CHECK(std::get<1>(rows[p.pattern]) == p.removed);
        CHECK(std::get<2>(rows[p.pattern]) == p.added);
    }
    CHECK(rewrites == applied);
    const QString headline = applied == 1 ? QStringLiteral("<b>1 rewrite</b>:")
                                          : QStringLiteral("<b>%1 rewrites</b>:").arg(applied);
    CHECK(diff.summaryText().startsWith(headline));
    CHECK(diff.summaryText().contains(QStringLiteral("%1 → %2 nodes")
                                          .arg(w.document()->history().original().size())
                                          .arg(w.document()->model().graph().size())));
}

} // namespace fusebox::viewtest
