# recurlab: a thin front over CMake. `make` builds, `make test` builds and runs the tests,
# `make exp-<name>` runs an experiment (ARGS="..." passes options to its binary).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_ARGS ?=
ARGS ?=

.PHONY: all deps configure build test fuzz figures clean \
        exp-variance exp-speed exp-classification exp-qa

all: build

deps:
	@scripts/install-deps.sh --check 2>/dev/null || scripts/install-deps.sh

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

configure: $(BUILD)/CMakeCache.txt

build: deps configure
	cmake --build $(BUILD) -j $(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

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
# of every run from its log.h5 alone.
figures: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target recurlab_analyze
	@set -e; for log in results/*/*/log.h5; do \
	  [ -e "$$log" ] || { echo "no runs under results/"; break; }; \
	  $(BUILD)/recurlab_analyze "$$(dirname "$$log")"; \
	done

clean:
	rm -rf $(BUILD)

# Text classification (Lei et al. 2018, App. B.1): the quick default unless ARGS says otherwise, e.g.
#   make exp-classification ARGS="--config configs/classification/full.json --shard 0/8 --run-id full"
# Fetches the classification data into ./data first when it is missing. One LibTorch thread by
# default: on a 2-core machine shared with other jobs, 2 OpenMP threads made epochs 8-17x slower
# (spin-waiting threads); CLASSIFICATION_THREADS=0 uses all cores on a machine of your own.
CLASSIFICATION_THREADS ?= 1
exp-classification: deps configure
	cmake --build $(BUILD) -j $(JOBS) --target recurlab_classification recurlab_analyze
	@[ -d data/classification ] || scripts/get-data.sh classification
	$(BUILD)/recurlab_classification $(if $(findstring --threads,$(ARGS)),,--threads $(CLASSIFICATION_THREADS)) $(ARGS)

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
