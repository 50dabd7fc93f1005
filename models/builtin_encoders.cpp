#include "models/builtin_encoders.h"

namespace recurlab::models {

void registerBuiltinEncoders() {
  registerSruEncoders();
  registerLstmEncoders();
  registerCnnEncoders();
}

}  // namespace recurlab::models
