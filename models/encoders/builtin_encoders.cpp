#include "models/encoders/builtin_encoders.h"

namespace recurlab::models {

void addBuiltinEncoders(const EncoderSink& add) {
  addSruEncoders(add);
  addLstmEncoders(add);
  addQrnnEncoders(add);
  addRationalEncoders(add);
  addSelfIruEncoders(add);
  addGatedConvEncoders(add);
  addCnnEncoders(add);
  addLinearRecurrenceEncoders(add);
  addTransformerEncoders(add);
}

}  // namespace recurlab::models
