#pragma once
// The demo window and the waits shared by the [views] review tests
// (rewrite_workflow_tests.cpp, review_truth_tests.cpp).

#include "views/Document.h"
#include "views/GraphScene.h"
#include "views/MainWindow.h"

#include <catch.hpp>

#include <QFile>
#include <QSignalSpy>
#include <QtTest/QTest>

#include <memory>
#include <string>

namespace fusebox::viewtest {

inline const QString kDemo = QStringLiteral(FUSEBOX_FIXTURE_DIR "/recsys_demo.pt");

/// Waits for the document to settle: no search, no Apply All, no layout.
inline bool settle(MainWindow &w)
{
    return QTest::qWaitFor(
        [&w] {
            return !w.document()->isSearching() && !w.document()->isApplyingAll() && !w.scene()->isLayoutRunning()
                   && !w.scene()->hasPendingOverlays();
        },
        60000);
}

/// The first row of the document's match list with this pattern and status, or -1.
inline int firstRow(const Document &d, const std::string &pattern, MatchStatus status)
{
    for (size_t i = 0; i < d.matches().size(); ++i)
        if (d.matches()[i].match.pattern == pattern && d.matches()[i].status == status)
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

} // namespace fusebox::viewtest
