#include "quant/kernels.hpp"

namespace kvscope {

const kernel_set& best_kernels() noexcept {
  static const kernel_set& chosen = avx2_kernels() != nullptr ? *avx2_kernels() : scalar_kernels();
  return chosen;
}

}  // namespace kvscope
