#pragma once
// One registration function per model family; registerBuiltinEncoders() calls them all.
namespace recurlab::models {

void registerSruEncoders();
void registerLstmEncoders();
void registerQrnnEncoders();
void registerRationalEncoders();
void registerSelfIruEncoders();
void registerGatedConvEncoders();
void registerCnnEncoders();

void registerBuiltinEncoders();

}  // namespace recurlab::models
