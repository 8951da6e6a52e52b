# SPDX-License-Identifier: GPL-2.0
#
# make            build the modules and the htmtrace tool for the ppc64le test
#                 kernel (built and cached on first use) into build/release/
# make check      build the debug kernel and run every test in QEMU pseries
# make demo       boot the guest and show cat /dev/htm0 > htm.bin
# make bench      dump a 64 MiB simulated trace and print the throughput
# make lint       checkpatch --strict, sparse (C=1) and W=1 on our sources
#
# On a POWER LPAR, against the running kernel, with no cross compiler:
#   make KDIR=/lib/modules/$(uname -r)/build
#   sudo insmod htmtrace.ko

ifneq ($(KDIR),)
all:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
	$(MAKE) -C userspace O=$(CURDIR) PKG_CONFIG=pkg-config

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -f htmtrace
else
all:
	tests/build.sh release

clean:
	rm -rf build
endif

check:
	tests/check.sh

demo:
	tests/demo.sh

bench:
	tests/bench.sh

lint:
	tests/lint.sh

.PHONY: all clean check demo bench lint
