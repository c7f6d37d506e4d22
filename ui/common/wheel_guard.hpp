#pragma once
// Keeps the mouse wheel from changing values by accident: a spin box, slider or combo box only
// takes the wheel once it has focus (a click or Tab), so scrolling a panel that the pointer
// passes over moves the panel, not the policy threshold under it (as Qt Creator and
// PlotJuggler behave). Scroll bars keep the wheel: scrolling is what they are for.
#include <QObject>

class QWidget;

namespace kvscope::ui {

class WheelGuard : public QObject {
  Q_OBJECT
 public:
  // Guards every spin box, slider and combo box under `root` (and `root` itself): they take
  // focus by click or Tab, not by wheel (Qt::StrongFocus), and ignore the wheel without it.
  // Call again after adding controls; a control is only guarded once.
  static void guard(QWidget* root);

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  WheelGuard() = default;
  static WheelGuard* instance();
};

}  // namespace kvscope::ui
