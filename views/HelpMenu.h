#pragma once

#include <QDialog>
#include <QString>

#include <vector>

class QMainWindow;
class QTableWidget;

namespace fusebox {

/// One keyboard shortcut of the window: where its action is and what it does.
struct ShortcutEntry {
    QString menu;    ///< "Rewrite", "File ▸ Recent" (menus without their '&')
    QString action;  ///< "Find Matches"
    QString keys;    ///< "F5", "Ctrl+Shift+Z, Ctrl+Y" (native text, every binding)
    QString toolTip; ///< what the action says of itself, when it says more than its name
};

/// Every action of `window`'s menu bar that has a shortcut, in menu order,
/// read from the actions themselves (so the list cannot go stale).
std::vector<ShortcutEntry> windowShortcuts(QMainWindow *window);

/// Help ▸ Keyboard Shortcuts: windowShortcuts() as a table, read when shown.
class ShortcutsDialog final : public QDialog {
    Q_OBJECT

public:
    explicit ShortcutsDialog(QMainWindow *window);
    /// Re-reads the window's actions.
    void refresh();
    QTableWidget *table() const { return m_table; }

private:
    QMainWindow *m_window;
    QTableWidget *m_table;
};

/// The text of Help ▸ About Fusebox: the version, what it is for, the Qt,
/// libtorch and Graphviz it was built with, and where its documentation is.
QString aboutText();

/// Adds the Help menu to `window`'s menu bar: Keyboard Shortcuts (F1), the
/// documentation's place, About Fusebox, About Qt.
void installHelpMenu(QMainWindow *window);

} // namespace fusebox
