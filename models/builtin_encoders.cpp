#include "models/builtin_encoders.h"

namespace recurlab::models {

void registerBuiltinEncoders() {
  registerSruEncoders();
  registerLstmEncoders();
}

}  // namespace recurlab::models
