#include "HelpMenu.h"

#include "core/torch/TorchRuntime.h"

#include <QAction>
#include <QApplication>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QRegularExpression>
#include <QTableWidget>
#include <QVBoxLayout>

namespace fusebox {
namespace {

QString plainText(QString text)
{
    text.remove(QRegularExpression(QStringLiteral("&(?!&)")));
    text.replace(QStringLiteral("&&"), QStringLiteral("&"));
    text.remove(QStringLiteral("…"));
    return text.trimmed();
}

void collect(QMenu *menu, const QString &path, std::vector<ShortcutEntry> &out)
{
    for (QAction *a : menu->actions()) {
        if (a->isSeparator())
            continue;
        if (QMenu *sub = a->menu()) {
            collect(sub, path + QStringLiteral(" ▸ ") + plainText(sub->title()), out);
            continue;
        }
        const QList<QKeySequence> keys = a->shortcuts();
        if (keys.isEmpty())
            continue;
        QStringList texts;
        for (const QKeySequence &k : keys)
            texts << k.toString(QKeySequence::NativeText);
        const QString name = plainText(a->text());
        QString tip = a->toolTip();
        if (plainText(tip) == name || tip == a->text())
            tip.clear();
        out.push_back({path, name, texts.join(QStringLiteral(", ")), tip});
    }
}

} // namespace

std::vector<ShortcutEntry> windowShortcuts(QMainWindow *window)
{
    std::vector<ShortcutEntry> out;
    for (QAction *top : window->menuBar()->actions())
        if (QMenu *menu = top->menu())
            collect(menu, plainText(menu->title()), out);
    return out;
}

ShortcutsDialog::ShortcutsDialog(QMainWindow *window)
    : QDialog(window)
    , m_window(window)
    , m_table(new QTableWidget(this))
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard Shortcuts"));
    m_table->setColumnCount(4);
    m_table->setHorizontalHeaderLabels({tr("Keys"), tr("Action"), tr("Menu"), tr("What it does")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(true);
    m_table->horizontalHeader()->setStretchLastSection(true);
    auto *note = new QLabel(tr("Read from the window's menus; in the graph, the wheel zooms and a drag pans. "
                               "Shift+drag selects with a rubber band, Ctrl+click adds to the selection."),
                            this);
    note->setWordWrap(true);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::hide);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_table, 1);
    layout->addWidget(note);
    layout->addWidget(buttons);
    resize(820, 640);
    refresh();
}

void ShortcutsDialog::refresh()
{
    const std::vector<ShortcutEntry> entries = windowShortcuts(m_window);
    m_table->setRowCount(int(entries.size()));
    for (int row = 0; row < int(entries.size()); ++row) {
        const ShortcutEntry &e = entries[size_t(row)];
        int column = 0;
        for (const QString &text : {e.keys, e.action, e.menu, e.toolTip})
            m_table->setItem(row, column++, new QTableWidgetItem(text));
    }
    m_table->resizeColumnsToContents();
    m_table->resizeRowsToContents();
}

QString aboutText()
{
    const QString torch = QString::fromLatin1(libtorchVersion());
    return QObject::tr(
               "<h3>Fusebox %1</h3>"
               "<p>An IDE for inspecting and rewriting PyTorch model graphs at the operator level with "
               "Optimus-style patterns (split/cat simplifications, horizontal batch fusions), and "
               "<code>fusebox-pass</code>, the headless pass that applies the same rewrites.</p>"
               "<p>Built with Qt %2 (running %3)%4. PyTorch 2 graphs run through the bridge to the "
               "Python that File ▸ PyTorch 2 finds.</p>"
               "<p>Documentation: <code>docs/ide.md</code> (this window), <code>docs/pattern-language.md</code> "
               "(patterns), <code>docs/pt2-bridge.md</code> (PyTorch 2) in the source tree; "
               "<code>fusebox-pass --help</code> for the command line.</p>")
        .arg(QStringLiteral(FUSEBOX_VERSION), QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()),
             torch.isEmpty() ? QString() : QObject::tr(" and libtorch %1").arg(torch));
}

void installHelpMenu(QMainWindow *window)
{
    QMenu *help = window->menuBar()->addMenu(QObject::tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    QAction *shortcuts = help->addAction(QObject::tr("&Keyboard Shortcuts"), window, [window] {
        auto *dialog = window->findChild<ShortcutsDialog *>();
        if (!dialog)
            dialog = new ShortcutsDialog(window);
        dialog->refresh();
        dialog->show();
        dialog->raise();
    });
    shortcuts->setShortcut(QKeySequence::HelpContents);
    shortcuts->setToolTip(QObject::tr("Every shortcut of the window, read from its menus (F1)"));
    help->addSeparator();
    help->addAction(QObject::tr("&About Fusebox"), window,
                    [window] { QMessageBox::about(window, QObject::tr("About Fusebox"), aboutText()); });
    help->addAction(QObject::tr("About &Qt"), window, [window] { QMessageBox::aboutQt(window); });
}

} // namespace fusebox
