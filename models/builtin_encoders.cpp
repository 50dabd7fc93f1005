#include "models/builtin_encoders.h"

namespace recurlab::models {

void registerBuiltinEncoders() {
  registerSruEncoders();
  registerLstmEncoders();
  registerQrnnEncoders();
  registerRationalEncoders();
  registerSelfIruEncoders();
}

}  // namespace recurlab::models
