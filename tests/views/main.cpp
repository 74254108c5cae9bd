// The views test runner: Qt widgets need a QApplication before any test runs,
// so this binary has its own Catch2 main (tests/catch_main.cpp is for the
// others). Runs offscreen unless QT_QPA_PLATFORM says otherwise.
#define CATCH_CONFIG_RUNNER
#include <catch.hpp>

#include "core/rewrite/RewriteContract.h"

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

int main(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // QSettings (recent files, window state, the PyTorch 2 Python) go to a test
    // location, not the user's, and one of this process's own: ctest runs the
    // cases in parallel, and a case that sets a bad Python must not reach another.
    QStandardPaths::setTestModeEnabled(true);
    QTemporaryDir settings;
    if (settings.isValid())
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings.path());
    fusebox::setRewriteContractChecks(true);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("FuseboxTests"));
    QApplication::setApplicationName(QStringLiteral("fusebox_views_tests"));
    return Catch::Session().run(argc, argv);
}
