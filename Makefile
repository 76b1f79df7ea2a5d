# SPDX-License-Identifier: GPL-2.0
#
# make            build the module, the library, the tools and the tests
# make check      install what is missing, build, lint, run every test
#                 natively and in the VM; ends with "N passed, N failed"
# make check-debug the VM tests under a debug kernel (KASAN, lockdep,
#                 kmemleak, fault injection), built once and cached
# make run        build and run the example job over /dev/mpichan
# make bench-mpi  build, then MPI-level latency, bandwidth and CPU use of
#                 libmsg (device and fallback), Open MPI and MPICH in one
#                 VM boot (tools/bench/run-mpi)
# make bench-native build, then the OSU-style table of libmsg, Open MPI and
#                 MPICH natively on this machine, 2 ranks to every core
#                 and one oversubscribed count (tools/bench/run-native)
# make lint       checkpatch and sparse over the module and the uapi, groff over man/
# make module     just kernel/mpichan.ko (KDIR=... to pick the headers)

KDIR ?= $(shell tools/setup/kdir)
BUILD := $(CURDIR)/build
KSRC := $(BUILD)/ksrc
KSFT := $(KSRC)/tools/testing/selftests

CC ?= cc
CFLAGS ?= -O2 -g
WARNINGS := -Wall -Wextra -Werror
USER_CFLAGS = $(CFLAGS) $(WARNINGS) -I$(CURDIR)/uapi
export CC CFLAGS WARNINGS KSFT BUILD

.PHONY: all module user uct selftests tools libmsg examples check check-debug run soak bench-mpi bench-native lint clean ksrc deps

all: module user

module:
	@test -n "$(KDIR)" || { echo "no kernel headers: run tools/setup/deps build, or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

user: selftests tools libmsg examples uct

# The UCX transport (uct/), only where UCX is installed: the first build
# fetches and configures UCX's Debian source into $(BUILD)/uct/src.
uct:
	@if dpkg-query -W -f='$${Status}' libucx-dev ucx-utils 2>/dev/null | grep -q 'ok installed.*ok installed'; then \
		$(MAKE) -C uct OUT=$(BUILD)/uct; \
	else echo "uct: UCX not installed (tools/setup/deps ucx), uct_mpichan not built"; fi

# Sub-makes that appear as the project grows; each builds into $(BUILD).
libmsg:
	@if [ -f libmsg/Makefile ]; then $(MAKE) -C libmsg OUT=$(BUILD)/libmsg; fi

examples: libmsg
	@if [ -f examples/Makefile ]; then $(MAKE) -C examples OUT=$(BUILD)/examples; fi

ksrc: $(KSRC)/.stamp
$(KSRC)/.stamp: tools/setup/ksrc
	tools/setup/ksrc $(KSRC)

selftests: ksrc libmsg
	$(MAKE) -C selftests/mpichan OUT=$(BUILD)/selftests/mpichan
	@if [ -f selftests/libmsg/Makefile ]; then $(MAKE) -C selftests/libmsg OUT=$(BUILD)/selftests/libmsg; fi

tools: libmsg
	$(MAKE) -C tools/mpichan OUT=$(BUILD)/tools
	$(MAKE) -C tools/fuzz OUT=$(BUILD)/tools
	$(MAKE) -C tools/bench OUT=$(BUILD)/bench
	$(MAKE) -C tools/top OUT=$(BUILD)/bin

check:
	tools/test/check

check-debug:
	tools/test/check-debug

run:
	tools/test/run-example

soak: all
	tools/test/soak $(DURATION)

bench-mpi: all
	tools/bench/run-mpi

bench-native: libmsg tools
	tools/bench/run-native

lint: ksrc module
	tools/test/lint

deps:
	tools/setup/deps all

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)
