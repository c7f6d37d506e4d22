#pragma once
#include <QMainWindow>

#include <memory>

class QCustomPlot;
class QTimer;

namespace kvscope {
class policy_controller;
}

namespace kvscope::ui {

// The desktop app's main window. For now: the policy on the built-in demo pressure curve.
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

 private:
  void advance();

  QCustomPlot* plot_ = nullptr;
  QTimer* timer_ = nullptr;
  std::unique_ptr<policy_controller> policy_;
  int step_ = 0;
};

}  // namespace kvscope::ui
