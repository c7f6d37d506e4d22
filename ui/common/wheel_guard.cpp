#include "common/wheel_guard.hpp"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QScrollBar>
#include <QWidget>

namespace kvscope::ui {
namespace {

bool isGuarded(const QWidget* w) {
  if (qobject_cast<const QScrollBar*>(w)) return false;
  return qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QAbstractSlider*>(w) ||
         qobject_cast<const QComboBox*>(w);
}

}  // namespace

WheelGuard* WheelGuard::instance() {
  static auto* guard = new WheelGuard;  // stateless; lives as long as the application
  return guard;
}

void WheelGuard::guard(QWidget* root) {
  QList<QWidget*> widgets = root->findChildren<QWidget*>();
  widgets.prepend(root);
  for (QWidget* w : widgets) {
    if (!isGuarded(w) || w->property("kvscopeWheelGuard").toBool()) continue;
    w->setProperty("kvscopeWheelGuard", true);
    if (w->focusPolicy() == Qt::WheelFocus) w->setFocusPolicy(Qt::StrongFocus);
    w->installEventFilter(instance());
  }
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::Wheel) return false;
  auto* w = static_cast<QWidget*>(watched);
  if (w->hasFocus()) return false;
  // Ignored and filtered: QApplication hands a wheel event nobody accepted to the parent, so
  // the scroll area around the control scrolls instead.
  event->ignore();
  return true;
}

}  // namespace kvscope::ui
