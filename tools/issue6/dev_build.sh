#!/bin/sh
# Device-machine helper for the quality runs of issue 6 (the CPU tool on the device host's cores).
# The model (98 MB) is over the 64 MiB a device call may carry, so it travels in two calls:
# `split -b 49000000 -d` of the GGUF gives three parts: the first goes in build/mp1/a, the second and
# the 362,432-byte third in build/mp2/b and build/mp2/c, next to copies of ../shared/data/*.txt.
#   call 1: carry build/mp1: sh tools/issue6/dev_build.sh a
#   call 2: carry build/mp2: sh tools/issue6/dev_build.sh b   (soon after: an idle machine is given back)
# "a" stores the first part and builds build/d/oscar (-O3 -march=native); "b" joins the parts,
# checks the SHA-256 that mk/model.mk checks and copies the texts to models/.
set -e
M=models/SmolLM2-135M-Instruct.Q4_1.gguf
mkdir -p models build/d
case "$1" in
a)  cp build/mp1/a models/part_a
    make -n BUILD=build/d build/d/oscar | tail -1 | sed 's/-O2/-O3 -march=native/' | sh
    nproc; grep -m1 'model name' /proc/cpuinfo ;;
b)  cat models/part_a build/mp2/b build/mp2/c > $M && rm -f models/part_a && cp build/mp2/*.txt models/
    echo "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53  $M" | sha256sum -c - ;;
esac
