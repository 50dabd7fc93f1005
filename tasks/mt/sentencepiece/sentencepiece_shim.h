#pragma once
// A C interface to libsentencepiece, built as its own shared module (librecurlab_sentencepiece.so)
// and loaded with dlopen(RTLD_LOCAL | RTLD_DEEPBIND) by subword_model.cpp. Why: Debian's
// libsentencepiece carries its own copy of protobuf-lite and exports its symbols, while LibTorch
// loads the system libprotobuf; linked into one program, one copy's calls land in the other
// (a crash in libprotobuf's static initialisers, or "CHECK failed: scc->visit_status" inside
// sentencepiece). Deep binding keeps sentencepiece on its own copy.
#include <cstddef>

extern "C" {

// Every function returns 0 on success, else writes a message into `error` (NUL-terminated,
// at most error_size bytes) and returns nonzero.
int recurlab_sp_train(const char* const* sentences, size_t sentence_count,
                      const char* const* keys, const char* const* values, size_t arg_count,
                      const char* model_path, char* error, size_t error_size);
int recurlab_sp_load(const char* model_path, void** handle, char* error, size_t error_size);
void recurlab_sp_free(void* handle);
// ids: room for `capacity` ints; *count receives the number of ids (retry when > capacity).
int recurlab_sp_encode(void* handle, const char* text, size_t length, int* ids, size_t capacity,
                       size_t* count, char* error, size_t error_size);
// text: room for `capacity` bytes; *length receives the text's length (retry when > capacity).
int recurlab_sp_decode(void* handle, const int* ids, size_t count, char* text, size_t capacity,
                       size_t* length, char* error, size_t error_size);
// 0: piece count, 1: pad id, 2: unk id, 3: bos id, 4: eos id.
int recurlab_sp_info(void* handle, int what);

}
