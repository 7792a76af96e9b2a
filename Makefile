# oscar - build, test and benchmark. A C compiler, -lm, -ldl and -lpthread are all it needs.
#   make demo    the long-context decode demo        make test    every test that needs no GPU
CC       ?= cc
CXX      ?= c++
OPT      ?= -O2
WARN     := -Wall -Wextra -Wpedantic -Werror
CFLAGS   ?= $(OPT) -g
CSTD     := -std=c99
LDLIBS   := -lm -ldl -lpthread
BUILD    := build
PREFIX   ?= /usr/local
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
BENCH_OPT ?= -O3 -march=native

# the oscar tool; fragments in mk/ add their sources (CLI_SRC) and defines (CLI_DEFS)
CLI_SRC  := cli/main.c cli/util.c cli/cmd_fit.c cli/cmd_demo.c
CLI_HDR  := oscar.h $(wildcard cli/*.h)
CLI_DEFS :=
# extra test targets added by the fragments (GPU compile checks, model tests)
TEST_EXTRA :=

.PHONY: valgrind fuzz fuzz-smoke all test test-unit test-compile test-cmake test-cli test-threads tsan demo demo-synthetic bench asan install uninstall clean
.DEFAULT_GOAL := all

# fragments owned by sub-projects (GPU kernels, model runner) add targets, sources and tests
-include mk/*.mk

# all: the oscar tool and the unit tests
all: $(BUILD)/oscar $(BUILD)/test_oscar

$(BUILD)/oscar: $(CLI_SRC) $(CLI_HDR) | $(BUILD)
	$(CC) $(CSTD) $(CFLAGS) $(WARN) $(CLI_DEFS) $(CLI_SRC) -o $@ $(LDLIBS)

$(BUILD)/test_oscar: tests/test_oscar.c oscar.h cli/synth.h | $(BUILD)
	$(CC) $(CSTD) $(CFLAGS) $(WARN) $< -o $@ $(LDLIBS)

$(BUILD):
	@mkdir -p $(BUILD)

# test: unit tests (plain, ASan+UBSan), C/C++/CMake compile tests, the CLI (plain, valgrind),
# threads (TSan), fuzz smoke runs, and the fragments' tests. No GPU needed.
test: test-unit test-compile test-cmake test-cli test-threads tsan asan valgrind fuzz-smoke $(TEST_EXTRA)
	@echo "make test: all passed"

# test-unit: the CPU reference against its oracles
test-unit: $(BUILD)/test_oscar
	./$(BUILD)/test_oscar

# test-compile: the header as C99 (gcc, clang) and C++, with and without OSCAR_STATIC; unit tests
# and the tool built with clang too
test-compile: | $(BUILD)
	$(CC) $(CSTD) $(OPT) $(WARN) tests/compile_test.c -o $(BUILD)/compile_c $(LDLIBS) && ./$(BUILD)/compile_c
	$(CC) $(CSTD) $(OPT) $(WARN) -DOSCAR_STATIC tests/compile_test.c -o $(BUILD)/compile_c_static $(LDLIBS) && ./$(BUILD)/compile_c_static
	$(CXX) $(OPT) $(WARN) -x c++ tests/compile_test.c -o $(BUILD)/compile_cpp $(LDLIBS) && ./$(BUILD)/compile_cpp
	$(CXX) $(OPT) $(WARN) -x c++ -DOSCAR_STATIC tests/compile_test.c -o $(BUILD)/compile_cpp_static $(LDLIBS) && ./$(BUILD)/compile_cpp_static
	@if command -v clang >/dev/null 2>&1; then \
	  clang $(CSTD) $(OPT) $(WARN) tests/compile_test.c -o $(BUILD)/compile_clang $(LDLIBS) && ./$(BUILD)/compile_clang && \
	  clang $(CSTD) $(OPT) $(WARN) tests/test_oscar.c -o $(BUILD)/test_oscar_clang $(LDLIBS) && ./$(BUILD)/test_oscar_clang | tail -1 && \
	  clang $(CSTD) $(OPT) $(WARN) $(CLI_DEFS) $(CLI_SRC) -o $(BUILD)/oscar_clang $(LDLIBS); \
	else echo "SKIP: clang not installed"; fi
	$(CC) $(CSTD) $(OPT) $(WARN) -I. examples/embed.c -o $(BUILD)/embed $(LDLIBS) && ./$(BUILD)/embed

# test-cmake: a consumer project uses oscar::oscar through add_subdirectory()
test-cmake: | $(BUILD)
	@if command -v cmake >/dev/null 2>&1; then \
	  cmake -S tests/cmake -B $(BUILD)/cmake -DCMAKE_BUILD_TYPE=Release >/dev/null && \
	  cmake --build $(BUILD)/cmake >/dev/null && ./$(BUILD)/cmake/consumer; \
	else echo "SKIP: cmake not installed"; fi

# test-threads: separate caches on separate threads give the serial results bit for bit
test-threads: | $(BUILD)
	$(CC) $(CSTD) $(OPT) $(WARN) tests/test_threads.c -o $(BUILD)/test_threads $(LDLIBS) && ./$(BUILD)/test_threads

# tsan: the same under ThreadSanitizer
tsan: | $(BUILD)
	$(CC) $(CSTD) -O1 -g $(WARN) -fsanitize=thread tests/test_threads.c -o $(BUILD)/test_threads_tsan $(LDLIBS) && ./$(BUILD)/test_threads_tsan

# valgrind: the tool's main commands under memcheck (no errors, no leaks)
valgrind: $(BUILD)/oscar
	sh tests/test_valgrind.sh ./$(BUILD)/oscar

# test-cli: synth-dump -> fit -> info round trip, and rejected bad input, through the tool
test-cli: $(BUILD)/oscar
	sh tests/test_cli.sh ./$(BUILD)/oscar

# demo: the real-model demo (mk/model.mk: demo-model): a long passage, a question, bf16 vs oscar cache
demo: demo-model

# demo-synthetic: the synthetic long-context decode demo (four cache modes, no model needed)
demo-synthetic: $(BUILD)/oscar
	./$(BUILD)/oscar demo

# bench: CPU benchmarks (built with $(BENCH_OPT)); record results in BENCHMARKS.md
bench: | $(BUILD)
	$(CC) $(CSTD) $(BENCH_OPT) $(WARN) $(CLI_DEFS) $(CLI_SRC) -o $(BUILD)/oscar-bench $(LDLIBS)
	./$(BUILD)/oscar-bench bench

# asan: the unit tests and the CLI test under AddressSanitizer + UndefinedBehaviorSanitizer
asan: | $(BUILD)
	$(CC) $(CSTD) -O1 -g $(WARN) $(SANITIZE) tests/test_oscar.c -o $(BUILD)/test_oscar_asan $(LDLIBS)
	./$(BUILD)/test_oscar_asan
	$(CC) $(CSTD) -O1 -g $(WARN) $(SANITIZE) $(CLI_DEFS) $(CLI_SRC) -o $(BUILD)/oscar_asan $(LDLIBS)
	sh tests/test_cli.sh ./$(BUILD)/oscar_asan

# fuzz: libFuzzer targets (clang); FUZZ_SECONDS each, starting from the committed seed corpora
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := safetensors cli_numbers gguf tokenizer
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
fuzz: | $(BUILD)
	@if ! command -v clang >/dev/null 2>&1; then echo "SKIP: fuzzing needs clang"; exit 0; fi; \
	for t in $(FUZZ_TARGETS); do \
	  clang $(FUZZ_FLAGS) tests/fuzz/fuzz_$$t.c -o $(BUILD)/fuzz_$$t $(LDLIBS) || exit 1; \
	  mkdir -p $(BUILD)/fuzz-corpus/$$t; \
	  ./$(BUILD)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $(BUILD)/fuzz-corpus/$$t tests/fuzz/corpus/$$t \
	    >$(BUILD)/fuzz_$$t.log 2>&1; rc=$$?; \
	  echo "fuzz $$t: $$(grep -E '^stat::number_of_executed_units' $(BUILD)/fuzz_$$t.log) in $(FUZZ_SECONDS) s, \
	    $$(grep -oE 'cov: [0-9]+' $(BUILD)/fuzz_$$t.log | tail -1), exit $$rc"; \
	  if [ $$rc != 0 ]; then tail -40 $(BUILD)/fuzz_$$t.log; exit 1; fi; \
	done

# fuzz-smoke: a short fuzz run of every target (part of make test)
fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=10

# install: headers into $(PREFIX)/include, the tool into $(PREFIX)/bin
install: $(BUILD)/oscar
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/bin
	install -m 644 oscar.h $(DESTDIR)$(PREFIX)/include/
	if [ -f oscar_cuda.h ]; then install -m 644 oscar_cuda.h $(DESTDIR)$(PREFIX)/include/; fi
	install -m 755 $(BUILD)/oscar $(DESTDIR)$(PREFIX)/bin/

# uninstall: remove what install put there
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/oscar.h $(DESTDIR)$(PREFIX)/include/oscar_cuda.h $(DESTDIR)$(PREFIX)/bin/oscar

# clean: remove build outputs
clean:
	rm -rf $(BUILD)
