# recurlab: a thin front over CMake. `make` builds, `make test` builds and runs the tests,
# `make exp-<name>` runs an experiment (ARGS="..." passes options to its binary).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=
ARGS ?=

.PHONY: all deps configure build test test-torch2 fuzz figures clean bench \
        exp-variance exp-speed exp-classification exp-lm exp-qa exp-synthetic

all: build

deps:
	@scripts/install-deps.sh --check 2>/dev/null || scripts/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

configure: $(BUILD)/CMakeCache.txt

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

# After ctest's summary, each skipped test with its reason (scripts/ctest-skips.sh).
test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS); status=$$?; \
	  $(CURDIR)/scripts/ctest-skips.sh .; exit $$status

# The same suite against the second LibTorch recurlab supports: the one inside PyPI's torch at
# the GPU machines' version (scripts/install-torch2.sh holds the pin), with the CUDA kernels and
# their glue compiled by nvcc for TORCH_CUDA_ARCH_LIST (they run on a GPU only; here their tests
# skip), built in $(TORCH2_BUILD) and run on the CPU.
TORCH2_BUILD ?= build-torch2
TORCH_CUDA_ARCH_LIST ?= 9.0
test-torch2: deps
	scripts/install-torch2.sh
	cmake -S . -B $(TORCH2_BUILD) -DTORCH_CUDA_ARCH_LIST="$(TORCH_CUDA_ARCH_LIST)" \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_PREFIX_PATH="$$(scripts/install-torch2.sh --root)" $(CMAKE_ARGS)
	cmake --build $(TORCH2_BUILD) -j $(JOBS)
	cd $(TORCH2_BUILD) && ctest --output-on-failure -j $(JOBS); status=$$?; \
	  $(CURDIR)/scripts/ctest-skips.sh .; exit $$status

# libFuzzer targets of fuzz/ (clang): each runs FUZZ_SECONDS on a copy of its seed corpus;
# FUZZ_TARGETS picks some (labeled_sentences word_vectors search_space).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_BUILD=$(BUILD)/fuzz fuzz/run-fuzzers.sh $(FUZZ_TARGETS)

# Experiments build only what they run: `make exp-<experiment>` builds and runs
# $(BUILD)/recurlab_<experiment>, which writes results/<experiment>/<run-id>/.
exp-variance: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target recurlab_variance recurlab_analyze
	$(BUILD)/recurlab_variance $(ARGS)

exp-speed: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target recurlab_speed recurlab_analyze
	$(BUILD)/recurlab_speed $(ARGS)

# Regenerates report.md, figures (PNG, PDF, script, data), tables (.tex, .csv) and summary.json
# of every run (results/<experiment>/<run>/ and the committed reference runs
# results/reference/<task>/<run>/) from its logs alone (log.h5, or the log.shard-i-of-n.h5 of a
# run split over worker processes), then every comparison (recurlab_compare) whose folder holds
# the runs.txt it wrote.
figures: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target recurlab_analyze recurlab_compare
	@set -e; found=0; for dir in results/*/*/ results/reference/*/*/; do \
	  ls "$$dir"log*.h5 >/dev/null 2>&1 || continue; found=1; \
	  echo "recurlab_analyze $$dir"; $(BUILD)/recurlab_analyze "$$dir"; \
	done; [ $$found = 1 ] || echo "no runs under results/"
	@# Comparisons (recurlab_compare) again, over the runs their runs.txt lists.
	@set -e; for list in results/*/*/runs.txt results/reference/*/*/runs.txt; do \
	  [ -f "$$list" ] || continue; dir=$$(dirname "$$list"); \
	  echo "recurlab_compare $$(tr '\n' ' ' < "$$list")--out $$dir"; \
	  $(BUILD)/recurlab_compare $$(cat "$$list") --out "$$dir" >/dev/null; \
	done

# The full-protocol reference runs (docs/results.md): make reference-<run>, <run> one of mt,
# lm-char, lm-char-linear, lm-word, classification, qa, synthetic, synthetic-mqar,
# synthetic-negative-eigenvalues, synthetic-lengths or all; hours to days on 2 cores, resumable by the same command.
# REFERENCE_ARGS passes options to scripts/reference-runs.sh (--jobs N, --data-dir DIR).
REFERENCE_ARGS ?=
reference-%: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target recurlab_mt recurlab_lm recurlab_classification \
	  recurlab_qa recurlab_synthetic recurlab_bleu recurlab_squad_eval recurlab_analyze recurlab_compare
	scripts/reference-runs.sh $(REFERENCE_ARGS) $*

clean:
	rm -rf $(BUILD)

# recurlab beside PyTorch's own modules on identical shapes (docs/performance.md): MT training
# and beam search, the PTB character LMs, the classification SRU, at 1 and 2 threads in
# interleaved rounds; writes results/bench/<run-id>/ (log.h5, report.md, summary.json).
# PyTorch (Debian's python3-torch) is optional: without it our side is timed alone.
# BENCH_ARGS="--rounds 5 --cases mt_train" passes options.
BENCH_ARGS ?=
bench: deps configure
	@scripts/install-deps.sh --check --bench 2>/dev/null || \
	  echo "make bench: no python3-torch (scripts/install-deps.sh --bench installs it): timing recurlab alone"
	cmake --build $(BUILD) -j $(JOBS) --target recurlab_bench recurlab_analyze
	$(BUILD)/recurlab_bench $(BENCH_ARGS)

# Text classification (Lei et al. 2018, App. B.1): the quick default unless ARGS says otherwise, e.g.
#   make exp-classification ARGS="--config configs/classification/full.json --shard 0/8 --run-id full"
# Fetches the classification data into ./data first when it is missing. The units run in
# CLASSIFICATION_JOBS worker processes (default: one per core) of CLASSIFICATION_THREADS LibTorch
# threads (default 1): on a 2-core machine shared with other jobs, 2 OpenMP threads in one
# process made epochs 8-17x slower (spin-waiting threads), separate processes do not
# (docs/cluster.md). ARGS with --jobs, --shard or --nproc-per-node decide for themselves.
CLASSIFICATION_THREADS ?= 1
CLASSIFICATION_JOBS ?= $(shell nproc)
exp-classification: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target recurlab_classification recurlab_analyze
	@[ -d data/classification ] || scripts/get-data.sh classification
	$(BUILD)/recurlab_classification $(if $(findstring --threads,$(ARGS)),,--threads $(CLASSIFICATION_THREADS)) $(if $(or $(findstring --jobs,$(ARGS)),$(findstring --shard,$(ARGS)),$(findstring --nproc-per-node,$(ARGS))),,--jobs $(CLASSIFICATION_JOBS)) $(ARGS)

# Machine translation (Lei et al. 2018, App. B.3): the quick default (Transformer vs
# Transformer+SRU vs Transformer+Self-IRU on a Multi30k subset) unless ARGS says otherwise, e.g.
#   make exp-mt ARGS="--config configs/mt/multi30k.json --run-id full"
# Fetches Multi30k into ./data first when it is missing; one LibTorch thread by default
# (MT_THREADS=0: all cores on a machine of your own).
.PHONY: exp-mt
MT_THREADS ?= 1
exp-mt: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target recurlab_mt recurlab_bleu recurlab_analyze
	@[ -d data/multi30k ] || scripts/get-data.sh multi30k
	$(BUILD)/recurlab_mt $(if $(findstring --threads,$(ARGS)),,--threads $(MT_THREADS)) $(ARGS)

# Language modelling (Lei et al. 2018 App. B.4; Peng et al. 2018 App. E.2): the quick default
# (PTB char, SRU vs QRNN vs LSTM at one small budget) unless ARGS says otherwise, e.g.
#   make exp-lm ARGS="--config configs/lm/ptb-char.json --run-id ptb-char"
# Fetches PTB into ./data first when it is missing (enwik8: scripts/get-data.sh enwik8).
LM_THREADS ?= 1
exp-lm: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target recurlab_lm recurlab_analyze
	@[ -d data/ptb ] || scripts/get-data.sh ptb
	$(BUILD)/recurlab_lm $(if $(findstring --threads,$(ARGS)),,--threads $(LM_THREADS)) $(ARGS)

# SQuAD v1.1 question answering (Lei et al. 2018 §4.3, App. B.2), SRU vs bi-LSTM DrQA readers:
# the quick offline default unless ARGS says otherwise, e.g.
#   make exp-qa ARGS="--config configs/qa/squad.json --embeddings glove.840B.300d.txt --run-id squad"
# Fetches SQuAD into ./data first (dev from the mirror; train-v1.1.json only with network access:
# without it the offline protocol runs). One LibTorch thread by default, as exp-classification.
QA_THREADS ?= 1
exp-qa: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target recurlab_qa recurlab_squad_eval recurlab_analyze
	@[ -f data/squad/dev-v1.1.json ] || scripts/get-data.sh squad
	$(BUILD)/recurlab_qa $(if $(findstring --threads,$(ARGS)),,--threads $(QA_THREADS)) $(ARGS)

# Synthetic capability suite (docs/synthetic.md): MQAR, selective copying, induction heads,
# parity, cycle navigation, modular arithmetic, majority; data drawn from the seed, no files. The
# quick default unless ARGS says otherwise, e.g.
#   make exp-synthetic ARGS="--config configs/synthetic/full.json --run-id full --jobs 2"
# One LibTorch thread per process by default, as exp-classification.
SYNTHETIC_THREADS ?= 1
exp-synthetic: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target recurlab_synthetic recurlab_analyze
	$(BUILD)/recurlab_synthetic $(if $(findstring --threads,$(ARGS)),,--threads $(SYNTHETIC_THREADS)) $(ARGS)

# The test suite under AddressSanitizer + UndefinedBehaviorSanitizer (gcc), in a build dir of its
# own, at -O1 (the usual sanitizer level; compiles faster than -O2). No ccache hits for these
# flags: a cold build takes about 45 minutes on 2 idle cores, the run about 25. The fuzz tests
# (clang, sanitized by themselves) and the nvcc compile test are left out; the sentencepiece tests
# skip themselves (ASan refuses the module's dlopen(RTLD_DEEPBIND): SubwordModel::unavailableReason).
# LibTorch is not instrumented: detect_leaks=0 (its allocator caches are freed at exit, or never),
# protect_shadow_gap=0 (its OpenMP/BLAS reserve memory at fixed addresses the shadow gap would
# forbid), vptr off (its classes' typeinfo lives in the uninstrumented library).
SANITIZE_BUILD ?= build-sanitize
SANITIZE_FLAGS ?= -fsanitize=address,undefined -fno-sanitize=vptr -fno-omit-frame-pointer -g1
SANITIZE_ASAN_OPTIONS ?= detect_leaks=0:protect_shadow_gap=0:detect_odr_violation=0:abort_on_error=1
SANITIZE_UBSAN_OPTIONS ?= print_stacktrace=1:halt_on_error=1
SANITIZE_ENV = ASAN_OPTIONS=$(SANITIZE_ASAN_OPTIONS) UBSAN_OPTIONS=$(SANITIZE_UBSAN_OPTIONS)
.PHONY: test-sanitize
test-sanitize: deps
	cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" \
	  -DCMAKE_C_FLAGS="$(SANITIZE_FLAGS)" -DCMAKE_CXX_FLAGS="$(SANITIZE_FLAGS)" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
	  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
	  -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined"
	# The options also for the build: gtest_discover_tests runs the test programs to list them.
	$(SANITIZE_ENV) cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	cd $(SANITIZE_BUILD) && $(SANITIZE_ENV) \
	  ctest --output-on-failure -j $(JOBS) -E 'FuzzLoaders|cuda_sources_compile'
