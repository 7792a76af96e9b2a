# mk/cuda.mk - the GPU side (oscar_cuda.h): embedded kernels, tests, sanitizer runs, GPU benchmark.
# Included by the top Makefile. Nothing here needs a CUDA SDK: NVRTC and the driver are dlopen'ed.

CUDA_KERNELS := kernels/oscar_common.cuh kernels/oscar_append.cu kernels/oscar_decode.cu
CUDA_DEPS    := oscar.h oscar_cuda.h
CUDA_SANITIZER ?= compute-sanitizer
BENCH_GPU_ARGS ?=
CUDA_SDK_INCLUDE ?= /usr/local/cuda/include

# make test runs the CPU-side GPU checks (NVRTC compiles; GPU parts SKIP without a GPU)
TEST_EXTRA += test-cuda-cpu
# the oscar tool gets `oscar bench --gpu` (cli/bench_gpu.c: oscar_cli_bench_gpu)
CLI_SRC  += cli/bench_gpu.c
CLI_DEFS += -DOSCAR_CLI_GPU=1

.PHONY: embed check-embed test-cuda-cpu test-cuda test-cuda-sm80 sanitize-cuda bench-gpu

# embed: copy kernels/*.cu and *.cuh into oscar_cuda.h (run after editing a kernel)
embed: | $(BUILD)
	sh tools/embed.sh oscar_cuda.h $(CUDA_KERNELS) > $(BUILD)/oscar_cuda.h.new
	mv $(BUILD)/oscar_cuda.h.new oscar_cuda.h

# check-embed: fail when the kernel sources embedded in oscar_cuda.h differ from kernels/
check-embed: | $(BUILD)
	@sh tools/embed.sh oscar_cuda.h $(CUDA_KERNELS) > $(BUILD)/oscar_cuda.h.check
	@cmp -s oscar_cuda.h $(BUILD)/oscar_cuda.h.check || { echo "check-embed: oscar_cuda.h is stale; run 'make embed'"; exit 1; }
	@echo "check-embed: oscar_cuda.h matches kernels/"

$(BUILD)/test_cuda: tests/test_cuda.c $(CUDA_DEPS) | $(BUILD)
	$(CC) $(CSTD) $(CFLAGS) $(WARN) $< -o $@ $(LDLIBS)

# test-cuda-cpu: embedded kernels current; oscar_cuda.h builds as C (gcc, clang) and C++; every
# kernel variant compiles with NVRTC for sm_80 and sm_90; loader error codes (no GPU needed)
test-cuda-cpu: check-embed $(BUILD)/test_cuda
	$(CXX) $(OPT) $(WARN) -fsyntax-only -x c++ tests/test_cuda.c
	$(CXX) $(OPT) $(WARN) -fsyntax-only -x c++ cli/bench_gpu.c
	@if [ -f $(CUDA_SDK_INCLUDE)/cuda.h ] && [ -f $(CUDA_SDK_INCLUDE)/nvrtc.h ]; then \
	  $(CC) $(CSTD) $(OPT) $(WARN) -fsyntax-only -DOSCAR_CUDA_USE_SDK_HEADERS -isystem $(CUDA_SDK_INCLUDE) tests/test_cuda.c && \
	  echo "oscar_cuda.h: builds against the SDK headers too"; \
	else echo "SKIP: no CUDA SDK headers for the OSCAR_CUDA_USE_SDK_HEADERS build"; fi
	@if command -v clang >/dev/null 2>&1; then \
	  clang $(CSTD) $(OPT) $(WARN) -fsyntax-only tests/test_cuda.c; \
	else echo "SKIP: clang not installed"; fi
	./$(BUILD)/test_cuda --compile

# test-cuda: the GPU against the CPU reference (needs a GPU; prints SKIP without one), on the model's own rows too
# where `make real-dump` has written them (else that group prints SKIP)
REAL_ARG = $$( [ -f $(BUILD)/real_dump.safetensors ] && echo --real $(BUILD)/real_dump.safetensors )
test-cuda: $(BUILD)/test_cuda
	./$(BUILD)/test_cuda --gpu $(REAL_ARG)

# test-cuda-real: the real-data group alone (makes the dump first: needs the model, `make model`)
.PHONY: test-cuda-real
test-cuda-real: $(BUILD)/test_cuda real-dump
	./$(BUILD)/test_cuda --gpu --only "real data" --real $(BUILD)/real_dump.safetensors

# test-cuda-sm80: the same with the kernels an sm_80 card (A100) runs, as PTX for compute_80 that the
# driver finishes for this GPU: no programmatic dependent launch, no clusters, the sm_80 write codec
test-cuda-sm80: $(BUILD)/test_cuda
	./$(BUILD)/test_cuda --gpu --arch 80 $(REAL_ARG)

# sanitize-cuda: the GPU tests' quick subset under compute-sanitizer memcheck (leaks too), racecheck,
# initcheck and synccheck; one clean / NOT CLEAN line per tool (tools/gpu_sanitize.sh)
sanitize-cuda: $(BUILD)/test_cuda
	CUDA_SANITIZER=$(CUDA_SANITIZER) OUT=$(BUILD)/gpu_sanitize sh tools/gpu_sanitize.sh

$(BUILD)/bench_gpu: cli/bench_gpu.c $(CUDA_DEPS) | $(BUILD)
	$(CC) $(CSTD) $(BENCH_OPT) $(WARN) -DOSCAR_BENCH_GPU_MAIN $< -o $@ $(LDLIBS)

# bench-gpu: decode attention (BF16 and INT2) and copy bandwidth; BENCH_GPU_ARGS="--ctx 8192,32768"
bench-gpu: $(BUILD)/bench_gpu
	./$(BUILD)/bench_gpu $(BENCH_GPU_ARGS)
