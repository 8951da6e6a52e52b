# SPDX-License-Identifier: GPL-2.0
#
# make            build the modules and the htmtrace tool for the ppc64le test
#                 kernel (built and cached on first use) into build/release/
# make check      build the debug kernel and run every test in QEMU pseries
# make demo       boot the guest and show cat /dev/htm0 > htm.bin
# make bench      dump a 64 MiB simulated trace and print the throughput
# make lint       checkpatch --strict, sparse (C=1) and W=1 on our sources
# make dtl-picture  redraw userspace/dtl-report.png, the picture of README.md
#
# On a POWER LPAR, against the running kernel, with no cross compiler:
#   make KDIR=/lib/modules/$(uname -r)/build           htmtrace.ko and the tool
#   make KDIR=/lib/modules/$(uname -r)/build modules   htmtrace.ko alone (as
#                                                      dkms.conf builds it)
#   sudo insmod htmtrace.ko
# and to install what was built (see README.md):
#   sudo make install       [DESTDIR=...] [PREFIX=/usr/local] [KVER=$(uname -r)]
#   sudo make uninstall     the same variables

ifneq ($(KDIR),)
all:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
	$(MAKE) -C userspace O=$(CURDIR) PKG_CONFIG=pkg-config

# The production module only: HTMTRACE_TEST is emptied on kbuild's command
# line, so an HTMTRACE_TEST=y in the environment cannot add the simulator.
modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) HTMTRACE_TEST= modules

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace O=$(CURDIR) clean
else
all:
	tests/build.sh release

modules:
	@echo "make modules builds against a kernel: make KDIR=/lib/modules/\$$(uname -r)/build modules" >&2; exit 2

clean:
	rm -rf build
	$(MAKE) -C userspace O=$(CURDIR) clean
endif

check:
	tests/check.sh

demo:
	tests/demo.sh

bench:
	tests/bench.sh

lint:
	tests/lint.sh

# The picture of README.md: a simulated dispatch trace log capture (a CPU
# with three preempt reasons, a busy one with a loss, an idle one cycled
# offline, a time-sliced one; 2000 entries a CPU, aggregated) drawn by
# htmtrace dtl report --format svg and rendered by rsvg-convert
# (librsvg2-bin).
dtl-picture:
	$(MAKE) -s -C userspace host
	mkdir -p build/picture
	python3 tests/dtlgen.py build/picture/dtl.bin --cpus 4 --entries 8000 \
		--preempt 0:0.5:0.7:4 --share 1:0.006 --lost 1:1.0:12 \
		--share 2:0.99 --preempt 2:0:2:2 --offline 2:0.8:1.3 \
		--share 3:0.5 --preempt 3:0:2:4
	cd build/picture && ../host/htmtrace dtl report dtl.bin --format svg -o dtl.svg
	rsvg-convert build/picture/dtl.svg -o userspace/dtl-report.png

# --- make install / make uninstall -------------------------------------------
# What "make KDIR=..." built in this directory (never the test builds under
# build/), with the tool built here first if it is missing. The module is
# installed only if it was built; a test build (HTMTRACE_TEST=y, which
# leaves htmtrace_hvsim.ko here) is refused. The udev rule keeps the devices
# 0600 root and the modules-load.d snippet loads nothing until the admin
# opts in (README.md, "On a POWER LPAR").
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
MODULESLOADDIR ?= $(PREFIX)/lib/modules-load.d
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
KVER ?= $(shell uname -r)
MODULEDIR ?= /lib/modules/$(KVER)/updates
DEPMOD ?= depmod

INSTALL_FILES := \
	0755:htmtrace:$(BINDIR)/htmtrace \
	0644:uapi/linux/htmtrace.h:$(INCLUDEDIR)/linux/htmtrace.h \
	0644:man/htmtrace.1:$(MANDIR)/man1/htmtrace.1 \
	0644:man/htmtrace.4:$(MANDIR)/man4/htmtrace.4 \
	0644:udev/60-htmtrace.rules:$(UDEVRULESDIR)/60-htmtrace.rules \
	0644:udev/htmtrace.conf:$(MODULESLOADDIR)/htmtrace.conf \
	0644:userspace/htmtrace.bash-completion:$(BASHCOMPDIR)/htmtrace
TEST_MODULES := htmtrace_hvsim.ko htmtrace_kunit.ko
mode_of = $(word 1,$(subst :, ,$(1)))
src_of = $(word 2,$(subst :, ,$(1)))
dst_of = $(word 3,$(subst :, ,$(1)))

htmtrace:
	$(MAKE) -C userspace O=$(CURDIR) PKG_CONFIG=pkg-config

install-check:
	$(if $(wildcard $(TEST_MODULES)),@echo "install: $(wildcard \
		$(TEST_MODULES)) here: a test build (HTMTRACE_TEST=y) is never \
		installed; rebuild with make KDIR=... clean modules" >&2; exit 1)

install: install-check htmtrace
	$(foreach f,$(INSTALL_FILES),install -D -m $(call mode_of,$(f)) \
		$(call src_of,$(f)) $(DESTDIR)$(call dst_of,$(f))$(newline))
ifneq ($(wildcard htmtrace.ko),)
	install -D -m 0644 htmtrace.ko $(DESTDIR)$(MODULEDIR)/htmtrace.ko
	$(if $(DESTDIR),,$(DEPMOD) -a $(KVER))
else
	@echo "install: htmtrace.ko is not built here: module skipped (make KDIR=/lib/modules/$(KVER)/build modules, or DKMS)"
endif

uninstall:
	rm -f $(foreach f,$(INSTALL_FILES),$(DESTDIR)$(call dst_of,$(f)))
	$(if $(wildcard $(DESTDIR)$(MODULEDIR)/htmtrace.ko),rm -f \
		$(DESTDIR)$(MODULEDIR)/htmtrace.ko$(newline)$(if \
		$(DESTDIR),,$(DEPMOD) -a $(KVER)))

define newline


endef

.PHONY: all modules clean check demo bench lint dtl-picture install install-check uninstall
