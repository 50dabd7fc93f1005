#pragma once
// The PyTorch reference layouts of the registry's encoders (docs/weights.md, "Names"), one
// place for all of them: the layers of a stack are the reference's layer modules held in an
// nn.ModuleList `layers` ("layers.<i>." before the reference layer's own names).
//   min_gru, min_lstm: BorealisAI/minRNNs' minGRU / minLSTM (Feng et al. 2024), the authors'
//     code: to_hidden_and_gate (the gates and candidate fused in its order), and to_out, a
//     projection recurlab's layer lacks: the identity.
//   hgrn: fla-org/flash-linear-attention's HGRNAttention (i_proj, f_proj, g_proj, g_norm,
//     o_proj) and HGRNModel's lower_bounds.
//   gla: fla-org/flash-linear-attention's GatedLinearAttention (q_proj, k_proj, v_proj, g_proj,
//     gk_proj.0/.1, o_proj, g_norm_swish_gate).
//   rg_lru: google-deepmind/recurrentgemma's ResidualBlock of type RECURRENT (temporal_pre_norm,
//     recurrent_block.{linear_y, linear_x, conv_1d, rg_lru, linear_out}; its MLP half zero) per
//     layer, and Griffin's final_norm.
// The SRU's is its prefix (weights_exchange.h, referencePrefix): its modules are the reference's.
#include <torch/torch.h>

#include <optional>
#include <string>

#include "experiments/weights/reference_layout.h"

namespace recurlab::experiments::weights {

// The layout of `encoder`, the registry's encoder `encoder_name`; nullopt for an encoder
// without one here. Throws std::runtime_error (one line, naming the option that makes it fit)
// when the encoder's options give a model the reference module cannot compute.
std::optional<ReferenceLayout> referenceLayout(const std::string& encoder_name,
                                               const torch::nn::Module& encoder);

}  // namespace recurlab::experiments::weights
