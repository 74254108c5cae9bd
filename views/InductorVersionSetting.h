#pragma once

#include <QObject>
#include <QString>

class QAction;
class QActionGroup;
class QMenu;

namespace fusebox {

class Document;
struct InductorProfile;

/// Settings ▸ Inductor Version: whose Inductor the session's answers follow
/// (fusebox-pass --inductor-version in the IDE). Automatic, the default,
/// takes the torch of the PyTorch 2 Fusebox uses (Settings ▸ PyTorch 2
/// Python, as its schema cache or a check reported it; no Python starts),
/// else the newest profile; or a profile chosen by name. The choice is kept
/// in QSettings; the log names the version followed and why, and the menu's
/// Automatic item says what it resolves to.
class InductorVersionSetting final : public QObject {
    Q_OBJECT

public:
    /// QSettings key: "" (or absent) for Automatic, else a profile's version ("2.6").
    static constexpr const char *kKey = "inductor/version";

    InductorVersionSetting(Document *document, QObject *parent);

    /// The submenu, created on the first call.
    QMenu *menu();
    /// Resolves the choice again and gives it to the document: after the
    /// Python changed (`pythonCommand`, "" for the default) or a check
    /// reported its torch (`checkedTorch`, "" when unknown).
    void refresh(const QString &pythonCommand, const QString &checkedTorch = {});
    /// Stores a choice ("" for Automatic, else "2.6" / "2.14") and applies it.
    void choose(const QString &version);

signals:
    void logLine(const QString &line);

private:
    struct Resolved {
        const InductorProfile *profile = nullptr;
        QString why;  ///< "the PyTorch 2 at …: torch 2.14.1+debian"
        QString note; ///< a version between two profiles, or none found
    };
    Resolved resolveAutomatic() const;
    void apply();

    Document *m_document;
    QString m_python, m_checkedTorch;
    QString m_lastLine;
    QMenu *m_menu = nullptr;
    QAction *m_automatic = nullptr;
    QActionGroup *m_group = nullptr;
};

} // namespace fusebox
