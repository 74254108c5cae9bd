#include "CompilesPanel.h"

#include "OptimusStepsWindow.h"
#include "QtStrings.h"
#include "TaskService.h"
#include "core/io/TorchTraceGraphs.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QHBoxLayout>
#include <QPushButton>

#include <algorithm>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <set>

namespace fusebox {
namespace {

// Item data: which compile (and payload) a row is.
constexpr int kCompileRole = Qt::UserRole;
constexpr int kPayloadRole = Qt::UserRole + 1;

QString compileNotes(const TraceCompile &compile)
{
    QStringList notes;
    if (!compile.failure.empty())
        notes << QObject::tr("failed: %1").arg(qs(compile.failure));
    if (!compile.recompileReason.empty())
        notes << QObject::tr("recompile: %1").arg(qs(compile.recompileReason));
    if (compile.ranNoPreGradPasses())
        notes << QObject::tr("served from the FX graph cache: no Optimus pass ran");
    else if (compile.fxGraphCacheHit())
        notes << QObject::tr("FX graph cache hit");
    return notes.join(QStringLiteral(" · "));
}

} // namespace

CompilesPanel::CompilesPanel(TaskService *tasks, QWidget *parent)
    : QDockWidget(tr("Compiles"), parent)
    , m_tasks(tasks)
    , m_header(new QLabel(tr("Open a TORCH_TRACE log (File ▸ Open) to list its compiles.")))
    , m_filter(new QLineEdit)
    , m_tree(new QTreeWidget)
    , m_optimus(new QPushButton(tr("Optimus, pass by pass")))
    , m_replayAll(new QPushButton(tr("Replay every compile")))
{
    setObjectName(QStringLiteral("compilesDock"));
    m_header->setWordWrap(true);
    m_filter->setPlaceholderText(tr("Filter: compile id, frame, graph or pass name"));
    m_filter->setClearButtonEnabled(true);
    m_tree->setColumnCount(4);
    m_tree->setHeaderLabels({tr("Compile / graph"), tr("Line"), tr("What the log says"), tr("Fusebox's replay")});
    m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    // The replay's verdict is read first, beside the compile's name (the
    // column stays the fourth for the code: only where it is drawn moves).
    m_tree->header()->moveSection(3, 1);
    m_tree->setColumnHidden(3, true); // shown once a replay ran
    m_tree->setUniformRowHeights(true);
    m_optimus->setEnabled(false);
    m_optimus->setToolTip(tr("The compile's pre-grad graph before Optimus, after each pass that changed it, and "
                             "after all of them, each step a before/after diff; Replay compares Fusebox's passes "
                             "with them"));
    auto *body = new QWidget;
    auto *layout = new QVBoxLayout(body);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_header);
    layout->addWidget(m_filter);
    layout->addWidget(m_tree, 1);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_optimus);
    buttons->addWidget(m_replayAll);
    layout->addLayout(buttons);
    setWidget(body);
    m_replayAll->setEnabled(false);
    m_replayAll->setToolTip(tr("Runs Fusebox's Inductor profile for the log's torch version on every compile's "
                               "before-graph, with the options it used, and says on its row whether Fusebox gives "
                               "production's graph, pass by pass"));
    connect(m_replayAll, &QPushButton::clicked, this, &CompilesPanel::replayAll);

    connect(m_filter, &QLineEdit::textChanged, this, &CompilesPanel::applyFilter);
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) { activate(item); });
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this] {
        const int index = currentCompile();
        m_optimus->setEnabled(index >= 0 && !optimusStepsOf(m_log->compiles[static_cast<size_t>(index)]).empty());
    });
    connect(m_optimus, &QPushButton::clicked, this, [this] {
        if (int index = currentCompile(); index >= 0)
            showOptimusSteps(index);
    });
}

void CompilesPanel::openLog(const QString &path)
{
    const quint64 generation = ++m_generation;
    m_tasks->cancel(QStringLiteral("trace.index")); // another log was asked for
    m_opMatches.clear();
    m_searchedText.clear();
    m_header->setText(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    auto result = std::make_shared<Expected<TraceLog>>(Error{"not read"});
    m_tasks->run(
        tr("Reading %1").arg(QFileInfo(path).fileName()), QStringLiteral("trace.index"), this,
        [path = path.toStdString(), result](TaskControl &control) {
            *result = indexTorchTrace(path, [&control](uint64_t done, uint64_t total) {
                control.setProgress(static_cast<qint64>(done), static_cast<qint64>(total));
                return !control.isCancelled();
            });
        },
        [this, generation, path, result](bool cancelled) {
            if (generation != m_generation)
                return; // another log was opened meanwhile
            if (cancelled || !*result) {
                const QString message = cancelled ? tr("%1: reading cancelled").arg(path) : qs(result->error().message);
                m_header->setText(message);
                emit indexFailed(message);
                return;
            }
            m_log = std::make_shared<const TraceLog>(std::move(result->value()));
            // Opening its graphs by address reads this index, not the file again.
            rememberTraceIndex(m_log->path, m_log);
            fill();
            m_replayAll->setEnabled(!m_log->compiles.empty());
            emit logIndexed(path);
        });
}

void CompilesPanel::fill()
{
    m_tree->clear();
    m_tree->setColumnHidden(3, true); // a new log has no replay yet
    m_compileItems.assign(m_log->compiles.size(), nullptr);
    const TraceLog &log = *m_log;
    const size_t graphs = log.graphs().size();
    m_header->setText(
        tr("%1 · %2 compiles · %3 graphs · torch %4%5")
            .arg(QFileInfo(qs(log.path)).fileName())
            .arg(log.compiles.size())
            .arg(graphs)
            .arg(log.torchVersion.empty() ? tr("version not recorded") : qs(log.torchVersion))
            .arg(log.warnings.empty() ? QString() : tr(" · %1 lines not read (see the log)").arg(log.warnings.size())));
    std::map<int, QTreeWidgetItem *> ranks;
    for (size_t i = 0; i < log.compiles.size(); ++i) {
        const TraceCompile &compile = log.compiles[i];
        QTreeWidgetItem *parent = nullptr;
        if (compile.rank) {
            auto &rank = ranks[*compile.rank];
            if (!rank) {
                rank = new QTreeWidgetItem(m_tree, {tr("rank %1").arg(*compile.rank)});
                rank->setExpanded(true);
            }
            parent = rank;
        }
        const QStringList columns = {QStringLiteral("[%1] %2").arg(qs(compile.id.str()), qs(compile.frame)), QString(),
                                     compileNotes(compile)};
        auto *item = parent ? new QTreeWidgetItem(parent, columns) : new QTreeWidgetItem(m_tree, columns);
        item->setData(0, kCompileRole, static_cast<int>(i));
        item->setData(0, kPayloadRole, -1);
        m_compileItems[i] = item;
        item->setToolTip(0, columns[0]);
        item->setToolTip(2, columns[2]);
        if (!compile.failure.empty())
            item->setForeground(2, QColor(0xb0, 0x20, 0x20));
        for (size_t p = 0; p < compile.payloads.size(); ++p) {
            const TracePayload &payload = compile.payloads[p];
            QString kind = qs(payload.kind);
            if (payload.occurrence)
                kind += QStringLiteral(".%1").arg(payload.occurrence);
            auto *row = new QTreeWidgetItem(item, {kind, QString::number(payload.line),
                                                   payload.isGraph ? tr("graph: double-click to open") : QString()});
            row->setData(0, kCompileRole, static_cast<int>(i));
            row->setData(0, kPayloadRole, static_cast<int>(p));
            if (!payload.isGraph)
                row->setForeground(0, m_tree->palette().color(QPalette::Disabled, QPalette::Text));
        }
    }
    applyFilter(m_filter->text());
}

namespace {

/// How a graph payload may spell what the user typed: as typed, and a
/// Fusebox op name ("aten::cat") as the payloads write it ("aten.cat" in an
/// AOT graph, "torch.cat" in a Dynamo one).
std::vector<std::string> payloadSpellings(const std::string &text)
{
    std::vector<std::string> spellings{text};
    const size_t colons = text.find("::");
    if (colons == std::string::npos)
        return spellings;
    const std::string ns = text.substr(0, colons), name = text.substr(colons + 2);
    spellings.push_back(ns + "." + name);
    if (ns == "aten")
        spellings.push_back("torch." + name);
    return spellings;
}

} // namespace

void CompilesPanel::applyFilter(const QString &text)
{
    if (!m_log)
        return;
    // What the listing says is matched at once; the graphs' text (an op:
    // "torch.cat", "aten.addmm", "baddbmm") is searched in the background.
    for (size_t i = 0; i < m_log->compiles.size(); ++i) {
        QTreeWidgetItem *item = compileItem(static_cast<int>(i));
        if (!item)
            continue;
        bool show = text.isEmpty() || item->text(0).contains(text, Qt::CaseInsensitive)
                    || item->text(2).contains(text, Qt::CaseInsensitive)
                    || item->text(3).contains(text, Qt::CaseInsensitive) || m_opMatches.count(static_cast<int>(i));
        for (int c = 0; c < item->childCount() && !show; ++c)
            show = item->child(c)->text(0).contains(text, Qt::CaseInsensitive);
        item->setHidden(!show);
    }
    if (text.size() < 3 || text == m_searchedText)
        return;
    m_searchedText = text;
    m_opMatches.clear();
    m_tasks->cancel(QStringLiteral("trace.search"));
    auto found = std::make_shared<std::set<int>>();
    const auto log = m_log;
    m_tasks->run(
        tr("Searching the graphs for %1").arg(text), QStringLiteral("trace.search"), this,
        [log, needles = payloadSpellings(text.toStdString()), found](TaskControl &task) {
            const auto graphs = log->graphs();
            for (size_t g = 0; g < graphs.size() && !task.isCancelled(); ++g) {
                task.setProgress(static_cast<qint64>(g), static_cast<qint64>(graphs.size()));
                const int compile = static_cast<int>(graphs[g].compile - log->compiles.data());
                if (found->count(compile))
                    continue;
                auto payload = readTracePayload(*log, *graphs[g].payload);
                if (payload && std::any_of(needles.begin(), needles.end(), [&](const std::string &n) {
                        return payload->find(n) != std::string::npos;
                    }))
                    found->insert(compile);
            }
        },
        [this, log, text, found](bool cancelled) {
            if (cancelled || log != m_log || text != m_filter->text())
                return;
            m_opMatches = *found;
            for (int index : m_opMatches)
                if (QTreeWidgetItem *item = compileItem(index))
                    item->setHidden(false);
        });
}

QTreeWidgetItem *CompilesPanel::compileItem(int index) const
{
    // A table, not a walk of the tree: the filter asks once per compile on
    // every keystroke, and a long production job logs thousands.
    return index >= 0 && size_t(index) < m_compileItems.size() ? m_compileItems[size_t(index)] : nullptr;
}

int CompilesPanel::currentCompile() const
{
    const QTreeWidgetItem *item = m_tree->currentItem();
    if (!item || !m_log || !item->data(0, kCompileRole).isValid())
        return -1;
    return item->data(0, kCompileRole).toInt();
}

void CompilesPanel::activate(QTreeWidgetItem *item)
{
    if (!item || !m_log || !item->data(0, kCompileRole).isValid())
        return;
    const int payload = item->data(0, kPayloadRole).toInt();
    if (payload < 0) {
        item->setExpanded(!item->isExpanded());
        return;
    }
    const TraceCompile &compile = m_log->compiles[static_cast<size_t>(item->data(0, kCompileRole).toInt())];
    const TracePayload &p = compile.payloads[static_cast<size_t>(payload)];
    if (!p.isGraph)
        return;
    emit graphActivated(qs(traceGraphPath(*m_log, {&compile, &p})));
}

OptimusStepsWindow *CompilesPanel::showOptimusSteps(int index)
{
    if (!m_log || index < 0 || static_cast<size_t>(index) >= m_log->compiles.size())
        return nullptr;
    const TraceCompile &compile = m_log->compiles[static_cast<size_t>(index)];
    if (optimusStepsOf(compile).empty()) {
        m_header->setText(
            tr("[%1] logged no pre-grad stage: %2")
                .arg(qs(compile.id.str()), compile.ranNoPreGradPasses()
                                               ? tr("served from the FX graph cache, it ran no Optimus pass")
                                               : tr("this torch logs no before_pre_grad_graph (2.6 does not)")));
        return nullptr;
    }
    auto *window = new OptimusStepsWindow(m_log, static_cast<size_t>(index), m_tasks, m_fallback, this);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->setWindowFlag(Qt::Window);
    window->resize(1400, 800);
    window->show();
    emit optimusStepsShown(window);
    return window;
}

void CompilesPanel::replayAll()
{
    if (!m_log)
        return;
    m_replayAll->setEnabled(false);
    const auto log = m_log;
    auto results = std::make_shared<std::vector<Expected<CompileReplay>>>();
    m_tasks->run(
        tr("Replaying %1 compiles with Fusebox").arg(log->compiles.size()), QStringLiteral("trace.replayAll"), this,
        [log, results, options = traceReplayOptions(m_fallback)](TaskControl &control) {
            for (size_t i = 0; i < log->compiles.size() && !control.isCancelled(); ++i) {
                control.setProgress(static_cast<qint64>(i), static_cast<qint64>(log->compiles.size()));
                control.setStatus(tr("replaying [%1]").arg(qs(log->compiles[i].label())));
                results->push_back(replayCompile(*log, log->compiles[i], options));
            }
        },
        [this, log, results](bool cancelled) {
            m_replayAll->setEnabled(true);
            if (log != m_log)
                return; // another log was opened meanwhile
            int replayed = 0, same = 0;
            for (size_t i = 0; i < results->size(); ++i) {
                showReplay(static_cast<int>(i), (*results)[i]);
                if ((*results)[i] && (*results)[i]->replayed) {
                    ++replayed;
                    same += (*results)[i]->same;
                }
            }
            m_tree->setColumnHidden(3, false);
            m_tree->resizeColumnToContents(3);
            applyFilter(m_filter->text());
            if (cancelled)
                return;
            m_header->setText(m_header->text()
                              + tr(" · replayed %1 of %2 compiles: %3 give production's graph, %4 differ")
                                    .arg(replayed)
                                    .arg(log->compiles.size())
                                    .arg(same)
                                    .arg(replayed - same));
            emit replayedAll(replayed, same);
        });
}

void CompilesPanel::showReplay(int index, const Expected<CompileReplay> &replay)
{
    QTreeWidgetItem *item = compileItem(index);
    if (!item)
        return;
    QString text, tip;
    QColor color = m_tree->palette().color(QPalette::Text);
    if (!replay) {
        text = tr("error: %1").arg(qs(replay.error().message));
        tip = text;
        color = QColor(0xb0, 0x20, 0x20);
    } else if (!replay->replayed) {
        text = tr("not replayed");
        tip = qs(replay->notReplayed);
        color = m_tree->palette().color(QPalette::Disabled, QPalette::Text);
    } else if (replay->same) {
        text = tr("✓ same as production");
        tip = qs(replay->verdict);
    } else {
        const ReplayStep *first = replay->firstDifference ? &replay->steps[*replay->firstDifference] : nullptr;
        text = first ? tr("≠ differs at %1").arg(qs(first->pass)) : tr("≠ differs");
        tip = qs(first ? first->verdict : replay->verdict);
        color = QColor(0xb0, 0x20, 0x20);
    }
    if (replay && replay->replayed && !replay->postGradNote.empty())
        tip += QStringLiteral("\n") + qs(replay->postGradNote);
    item->setText(3, text);
    item->setToolTip(3, tip);
    item->setForeground(3, color);
}

} // namespace fusebox
