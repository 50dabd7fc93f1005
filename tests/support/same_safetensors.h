#pragma once
// A safetensors file written as another was: the same tensors in the same order (a PyTorch
// reference's state_dict order), with the same names, dtypes, shapes and bytes.
#include <gtest/gtest.h>

#include "experiments/weights/safetensors_file.h"

namespace recurlab::testing {

inline void expectSameSafetensors(const experiments::weights::SafetensorsContents& got,
                                  const experiments::weights::SafetensorsContents& want) {
  ASSERT_EQ(got.tensors.size(), want.tensors.size());
  for (size_t i = 0; i < want.tensors.size(); ++i) {
    const auto& w = want.tensors[i];
    const auto& g = got.tensors[i];
    EXPECT_EQ(g.name, w.name) << "tensor " << i << ": the reference's state_dict order";
    EXPECT_EQ(g.dtype, w.dtype) << w.name;
    EXPECT_EQ(g.shape, w.shape) << w.name;
    EXPECT_EQ(g.data, w.data) << w.name;
  }
}

}  // namespace recurlab::testing
