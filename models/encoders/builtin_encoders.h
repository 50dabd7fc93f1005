#pragma once
// One function per model family adding its encoders to a sink; addBuiltinEncoders calls
// them all (the registry does, on first use).
#include "models/encoders/encoder_entry.h"

namespace recurlab::models {

void addSruEncoders(const EncoderSink& add);
void addLstmEncoders(const EncoderSink& add);
void addQrnnEncoders(const EncoderSink& add);
void addRationalEncoders(const EncoderSink& add);
void addSelfIruEncoders(const EncoderSink& add);
void addGatedConvEncoders(const EncoderSink& add);
void addCnnEncoders(const EncoderSink& add);
void addLinearRecurrenceEncoders(const EncoderSink& add);
void addTransformerEncoders(const EncoderSink& add);

void addBuiltinEncoders(const EncoderSink& add);

}  // namespace recurlab::models
