#include "models/encoders/builtin_encoders.h"

namespace recurlab::models {

void registerBuiltinEncoders() {
  registerSruEncoders();
  registerLstmEncoders();
  registerQrnnEncoders();
  registerRationalEncoders();
  registerSelfIruEncoders();
  registerGatedConvEncoders();
  registerCnnEncoders();
}

}  // namespace recurlab::models
