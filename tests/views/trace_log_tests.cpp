// A TORCH_TRACE log in the real window: opened as a user opens any file, its
// compiles listed in the Compiles panel, a graph opened as a document, a
// compile's Optimus steps shown as before/after diffs and replayed. The log
// is made here by the reference PyTorch 2 (torch.compile of two oracle
// models under TORCH_TRACE, tests/pt2/TraceLogMaker.h): without PyTorch 2
// the test fails, it does not skip.
#include "pt2/TraceLogMaker.h"
#include "views/CompilesPanel.h"
#include "views/DiffView.h"
#include "views/Document.h"
#include "views/GraphScene.h"
#include "views/MainWindow.h"
#include "views/OptimusStepsWindow.h"
#include "views/TaskService.h"
#include "patterns/InductorProfile.h"

#include <catch.hpp>

#include <fstream>
#include <sstream>

#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

using namespace fusebox;

namespace {

constexpr int kTimeoutMs = 300000;

const std::string &towersLog()
{
    static const std::string path = [] {
        auto config = json_support::readTextFile(std::string(FUSEBOX_SOURCE_DIR)
                                                 + "/tests/pt2/configs/pre_grad_all.json");
        REQUIRE(config);
        auto made = testing::sharedTraceLog({"towers_6x16", "gated_halves_5"}, *config,
                                            std::string(FUSEBOX_BINARY_DIR) + "/test-output/views-trace/run.log");
        INFO((made ? std::string() : made.error().message));
        REQUIRE(made);
        return *made;
    }();
    return path;
}

std::string readFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeFile(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary) << text;
}

/// Opens the log as a user opens a file, and waits until Compiles lists it.
void openLog(MainWindow &w, const QString &path)
{
    w.setErrorDialogsEnabled(false);
    QSignalSpy indexed(w.compiles(), &CompilesPanel::logIndexed);
    w.openFile(path);
    REQUIRE(QTest::qWaitFor([&] { return indexed.count() == 1; }, kTimeoutMs));
}

/// Selects compile `index` and clicks "Optimus, pass by pass", as a user
/// does: the window, once it has read the steps' graphs.
OptimusStepsWindow *openOptimusSteps(CompilesPanel *panel, int index)
{
    panel->tree()->setCurrentItem(panel->compileItem(index));
    REQUIRE(panel->optimusButton()->isEnabled());
    QSignalSpy shown(panel, &CompilesPanel::optimusStepsShown);
    panel->optimusButton()->click();
    REQUIRE(shown.count() == 1);
    auto *window = shown.at(0).at(0).value<OptimusStepsWindow *>();
    REQUIRE(window);
    QSignalSpy stepsLoaded(window, &OptimusStepsWindow::stepsLoaded);
    REQUIRE(QTest::qWaitFor([&] { return stepsLoaded.count() == 1; }, kTimeoutMs));
    return window;
}

} // namespace

TEST_CASE("A TORCH_TRACE log opens into the Compiles panel, and a graph of it as a document", "[views][pt2][trace]")
{
    const QString path = QString::fromStdString(towersLog());
    MainWindow w;
    openLog(w, path);
    CompilesPanel *panel = w.compiles();
    CHECK_FALSE(panel->isHidden());
    const auto log = panel->log();
    REQUIRE(log);
    // Two models, the first again (served from the FX graph cache) and its recompile.
    REQUIRE(log->compiles.size() == 4);
    CHECK_FALSE(w.tasks()->isRunning());
    QTreeWidgetItem *cached = panel->compileItem(2);
    REQUIRE(cached);
    CHECK(cached->text(2).contains(QStringLiteral("served from the FX graph cache")));
    CHECK(panel->compileItem(3)->text(2).contains(QStringLiteral("recompile")));

    // The filter keeps the compiles that logged a pass's graph.
    panel->filter()->setText(QStringLiteral("optimus_PreGradBatchLinearFusion"));
    CHECK_FALSE(panel->compileItem(0)->isHidden());
    CHECK(panel->compileItem(2)->isHidden());
    // An op, in no row's text: the graphs' text is searched in the background.
    // batch_linear's fused graph in compile 0 calls torch.baddbmm.
    panel->filter()->setText(QStringLiteral("torch.baddbmm"));
    REQUIRE(QTest::qWaitFor([&] { return !w.tasks()->isRunning(); }, kTimeoutMs));
    CHECK_FALSE(panel->compileItem(0)->isHidden()); // batch_linear's fused graph calls it
    // Fusebox's name of the op finds it too (the payload writes torch.baddbmm).
    panel->filter()->setText(QStringLiteral("aten::baddbmm"));
    REQUIRE(QTest::qWaitFor([&] { return !w.tasks()->isRunning(); }, kTimeoutMs));
    CHECK_FALSE(panel->compileItem(0)->isHidden());
    panel->filter()->clear();
    CHECK_FALSE(panel->compileItem(2)->isHidden());

    // Double-click a graph: the window opens it as its document.
    QTreeWidgetItem *compile = panel->compileItem(0);
    QTreeWidgetItem *before = nullptr;
    for (int i = 0; i < compile->childCount(); ++i)
        if (compile->child(i)->text(0) == QStringLiteral("before_pre_grad_graph"))
            before = compile->child(i);
    REQUIRE(before);
    QSignalSpy loaded(&w.document()->model(), &DocumentGraph::graphLoaded);
    panel->activate(before);
    REQUIRE(QTest::qWaitFor([&] { return loaded.count() == 1; }, kTimeoutMs));
    CHECK(w.document()->model().filePath() == path + QStringLiteral("#0/0/before_pre_grad_graph"));
    CHECK(w.document()->model().graph().size() > 20);
    REQUIRE(QTest::qWaitFor([&] { return !w.scene()->isLayoutRunning(); }, kTimeoutMs));
}

TEST_CASE("Optimus, pass by pass: each logged step a diff, replayed by Fusebox", "[views][pt2][trace]")
{
    const QString path = QString::fromStdString(towersLog());
    MainWindow w;
    openLog(w, path);
    CompilesPanel *panel = w.compiles();

    // A cache hit has no steps: the panel says why instead of opening nothing.
    CHECK(panel->showOptimusSteps(2) == nullptr);

    OptimusStepsWindow *window = openOptimusSteps(panel, 0);
    // before_pre_grad_graph, the passes that changed the graph, after_pre_grad_graph.
    const auto steps = optimusStepsOf(panel->log()->compiles[0]);
    REQUIRE(steps.size() >= 3);
    CHECK(window->steps()->count() == static_cast<int>(steps.size()));
    CHECK(window->steps()->item(0)->text().startsWith(QStringLiteral("before_pre_grad_graph")));
    CHECK(window->steps()->item(1)->text().startsWith(QStringLiteral("optimus_")));
    // The first pass's step is shown: its removed and added nodes marked on each side.
    CHECK(window->steps()->currentRow() == 1);
    CHECK(window->diff()->isComparison());
    CHECK(window->diff()->summaryText().contains(QString::fromStdString(steps[1]->kind)));

    QSignalSpy replayed(window, &OptimusStepsWindow::replayed);
    window->replayButton()->click();
    REQUIRE(QTest::qWaitFor([&] { return replayed.count() == 1; }, kTimeoutMs));
    REQUIRE(window->replay());
    CHECK(window->replay()->replayed);
    CHECK(window->replay()->same);
    CHECK(window->header()->text().contains(QStringLiteral("Inductor 2.")));
    CHECK(window->steps()->item(1)->text().contains(QStringLiteral("✓ same")));
    CHECK(window->steps()->item(window->steps()->count() - 1)->text().contains(QStringLiteral("Fusebox's result")));
    // A pass's step says whose answer the replay gave; the stage's end is
    // not called a pass.
    window->steps()->setCurrentRow(1);
    CHECK(window->diff()->summaryText().contains(QStringLiteral("Fusebox, as Inductor 2.")));
    window->steps()->setCurrentRow(window->steps()->count() - 1);
    CHECK(window->diff()->summaryText().contains(QStringLiteral("the graph after every pre-grad pass")));
    window->close();
}

TEST_CASE("A log that records no torch version replays with the document's Inductor version and says so",
          "[views][pt2][trace]")
{
    // The towers log without its torch_version artifact (the record and its
    // payload lines), as a log whose job did not write one.
    std::istringstream in(readFile(towersLog()));
    std::string kept, line;
    bool inVersion = false;
    while (std::getline(in, line)) {
        if (line.find("\"name\": \"torch_version\"") != std::string::npos)
            inVersion = true;
        else if (!line.starts_with("\t"))
            inVersion = false;
        if (!inVersion)
            kept += line + "\n";
    }
    REQUIRE(kept.size() < readFile(towersLog()).size());
    const std::string path = std::string(FUSEBOX_BINARY_DIR) + "/test-output/views-trace/no-version.log";
    writeFile(path, kept);

    MainWindow w;
    const InductorProfile *chosen = findInductorProfile("2.14");
    REQUIRE(chosen);
    w.document()->setInductorProfile(*chosen);
    openLog(w, QString::fromStdString(path));
    REQUIRE(w.compiles()->log()->torchVersion.empty());
    OptimusStepsWindow *window = openOptimusSteps(w.compiles(), 0);
    QSignalSpy replayed(window, &OptimusStepsWindow::replayed);
    window->replayButton()->click();
    REQUIRE(QTest::qWaitFor([&] { return replayed.count() == 1; }, kTimeoutMs));
    REQUIRE(window->replay());
    INFO(window->header()->text().toStdString());
    CHECK(window->replay()->profile
          == chosen->label() + " (the document's, Settings ▸ Inductor Version; the log records no torch version)");
    CHECK(window->header()->text().contains(QStringLiteral("Settings ▸ Inductor Version")));
    CHECK(window->replay()->same); // 2.14's answers on a 2.14 log
    window->close();
}

TEST_CASE("Optimus, pass by pass: the post-grad batch fusions follow, replayed on before_post_grad_graph",
          "[views][pt2][trace]")
{
    static const std::string logPath = [] {
        auto config = json_support::readTextFile(std::string(FUSEBOX_SOURCE_DIR)
                                                 + "/tests/pt2/configs/post_grad_all.json");
        REQUIRE(config);
        auto made = testing::sharedTraceLog({"pointwise_add_mul"}, *config,
                                            std::string(FUSEBOX_BINARY_DIR) + "/test-output/views-trace/post.log");
        INFO((made ? std::string() : made.error().message));
        REQUIRE(made);
        return *made;
    }();
    MainWindow w;
    openLog(w, QString::fromStdString(logPath));
    CompilesPanel *panel = w.compiles();
    // The log's torch logs each Optimus pass's graph (2.8 and later; the
    // views tests run the Debian testing root's 2.14).
    REQUIRE(panel->log()->torchVersion.rfind("2.6", 0) != 0);
    OptimusStepsWindow *window = openOptimusSteps(panel, 0);

    // pointwise_add_mul: no pre-grad pass fires; post-grad, batch_aten_add and
    // batch_aten_mul each fuse the model's adds and muls (read from the log
    // made above by hand: two optimus_*PostGradFusion graphs).
    int start = -1;
    std::vector<int> fusions;
    for (int row = 0; row < window->steps()->count(); ++row) {
        const QString text = window->steps()->item(row)->text();
        if (text.contains(QStringLiteral("before_post_grad_graph")))
            start = row;
        else if (text.startsWith(QStringLiteral("optimus_")) && text.contains(QStringLiteral("PostGradFusion")))
            fusions.push_back(row);
    }
    REQUIRE(start >= 0);
    REQUIRE(fusions.size() == 2);
    CHECK(fusions.front() == start + 1);
    // The stage's start is shown alone, not as a diff from after_pre_grad_graph.
    window->steps()->setCurrentRow(start);
    CHECK(window->diff()->summaryText().contains(QStringLiteral("the graph Optimus starts from")));

    QSignalSpy replayed(window, &OptimusStepsWindow::replayed);
    window->replayButton()->click();
    REQUIRE(QTest::qWaitFor([&] { return replayed.count() == 1; }, kTimeoutMs));
    REQUIRE(window->replay());
    CHECK(window->replay()->same);
    for (int row : fusions) {
        INFO(window->steps()->item(row)->text().toStdString());
        CHECK(window->steps()->item(row)->text().contains(QStringLiteral("✓ same")));
    }
    CHECK(window->replay()->postGradNote.find("2 batch-fusion steps replayed") != std::string::npos);
    window->close();
}

TEST_CASE("Replay every compile: each compile's row says whether Fusebox gives production's graph",
          "[views][pt2][trace]")
{
    auto replayAll = [](CompilesPanel *panel) {
        REQUIRE(panel->replayAllButton()->isEnabled());
        CHECK(panel->tree()->isColumnHidden(3)); // no replay yet: the log's own notes show
        QSignalSpy done(panel, &CompilesPanel::replayedAll);
        panel->replayAllButton()->click();
        REQUIRE(QTest::qWaitFor([&] { return done.count() == 1; }, kTimeoutMs));
        CHECK_FALSE(panel->tree()->isColumnHidden(3));
        return std::pair{done.at(0).at(0).toInt(), done.at(0).at(1).toInt()};
    };
    // towers_6x16, gated_halves_5 and the recompile are replayed; the cache
    // hit (compile 2) ran no Optimus pass. The recompile's shapes are
    // symbolic (f32[s37, 16]): Fusebox batches its linears, layer norms and
    // relus and unbinds its stacks over them as production does.
    {
        MainWindow w;
        openLog(w, QString::fromStdString(towersLog()));
        CompilesPanel *panel = w.compiles();
        CHECK(replayAll(panel) == std::pair{3, 3});
        for (int i : {0, 1, 3})
            CHECK(panel->compileItem(i)->text(3) == QStringLiteral("✓ same as production"));
        CHECK(panel->compileItem(2)->text(3) == QStringLiteral("not replayed"));
        CHECK(panel->compileItem(2)->toolTip(3).contains(QStringLiteral("FX graph cache")));
        CHECK(panel->headerLabel()->text().contains(
            QStringLiteral("replayed 3 of 4 compiles: 3 give production's graph")));
    }
    // The same log with production's graph after the recompile's batch_relu
    // edited (a baddbmm written as addbmm): that compile's row says where
    // Fusebox parts from production, and the filter finds it by the words.
    std::string text = readFile(towersLog());
    const size_t step = text.find(
        R"("optimus_BatchReLuPreGradFusion", "encoding": "string"}, "frame_id": 0, "frame_compile_id": 1)");
    REQUIRE(step != std::string::npos);
    const size_t call = text.find("torch.baddbmm(", step);
    REQUIRE(call != std::string::npos);
    text.replace(call, 14, "torch.addbmm(");
    const std::string edited = std::string(FUSEBOX_BINARY_DIR) + "/test-output/views-trace/edited.log";
    writeFile(edited, text);
    MainWindow w;
    openLog(w, QString::fromStdString(edited));
    CompilesPanel *panel = w.compiles();
    CHECK(replayAll(panel) == std::pair{3, 2});
    CHECK(panel->compileItem(0)->text(3) == QStringLiteral("✓ same as production"));
    CHECK(panel->compileItem(3)->text(3) == QStringLiteral("≠ differs at batch_relu"));
    CHECK(panel->compileItem(3)->toolTip(3).contains(QStringLiteral("addbmm")));
    CHECK(panel->headerLabel()->text().contains(QStringLiteral("replayed 3 of 4 compiles: 2 give production's graph")));
    panel->filter()->setText(QStringLiteral("differs"));
    CHECK(panel->compileItem(0)->isHidden());
    CHECK(panel->compileItem(2)->isHidden());
    CHECK_FALSE(panel->compileItem(3)->isHidden());
}
