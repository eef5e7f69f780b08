# SPDX-License-Identifier: MIT
# msprof: dynamic profiling for AI accelerator tasks.  `make V=1` shows commands.

# --- target: ARCH is the compiler's, so CROSS_COMPILE=aarch64-linux-gnu- (or
# CC=...) is all a cross build needs; an ARCH given too must agree with it.
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
kernel_arch = $(shell echo $(1) | sed -e 's/-.*//' -e 's/x86_64/x86/' \
	-e 's/aarch64/arm64/' -e 's/powerpc64le/powerpc/' -e 's/ppc64le/powerpc/' \
	-e 's/riscv64/riscv/' -e 's/s390x/s390/')
CC_MACHINE := $(shell $(CC) -dumpmachine)
CC_ARCH := $(call kernel_arch,$(CC_MACHINE))
HOST_ARCH := $(call kernel_arch,$(shell uname -m))
# No compiler yet (a fresh machine before `make deps`): the host's.
ifeq ($(CC_ARCH)$(CROSS_COMPILE),)
CC_ARCH := $(HOST_ARCH)
endif
ifeq ($(CC_ARCH),)
$(error cannot tell the target architecture: '$(CC) -dumpmachine' failed (a cross compiler: tools/install-deps.sh cross))
endif
ARCH ?= $(CC_ARCH)
ifneq ($(ARCH),$(CC_ARCH))
$(error ARCH=$(ARCH) but $(CC) builds for $(CC_ARCH): set CROSS_COMPILE (e.g. aarch64-linux-gnu-) or CC to match)
endif
# A cross build has its own tree and runs its tests through qemu-user
# (unless the host runs the target's code: then QEMU= runs them directly).
ifneq ($(ARCH),$(HOST_ARCH))
CROSS := 1
BUILD ?= build/$(ARCH)
# The cross compiler's sanitizer runtimes are outside the multiarch paths;
# LeakSanitizer cannot stop the world under qemu-user (it spins).
QEMU ?= env ASAN_OPTIONS=detect_leaks=0 LD_LIBRARY_PATH=/lib/$(CC_MACHINE):$(dir \
	$(realpath $(shell $(CC) -print-file-name=libasan.so))) \
	qemu-$(firstword $(subst -, ,$(CC_MACHINE)))-static -L /
endif
BUILD ?= build
CLANG ?= clang
BPFTOOL ?= bpftool
LLVM_STRIP ?= llvm-strip

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

WARN := -Wall -Wextra -Werror
CFLAGS ?= -O2 -g
# The user's own, for sub-makes of another architecture: ours add -I$(BUILD)/gen.
USER_CFLAGS := $(CFLAGS)
override CFLAGS += $(WARN) -std=gnu11 -fPIC -D_GNU_SOURCE \
	-Iinclude -Iuser -Itools/npusim/include -I$(BUILD)/gen
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined

OBJ := $(BUILD)/obj
BIN := $(BUILD)/bin
LIB := $(BUILD)/lib
GEN := $(BUILD)/gen

COMMON_SRC := $(wildcard user/common/*.c)
CTL_SRC := $(filter-out user/ctl/main.c,$(wildcard user/ctl/*.c)) \
	$(wildcard user/proc/*.c user/host/*.c user/task/*.c user/sys/*.c user/export/*.c) $(COMMON_SRC)
# What the controller's objects link against (msprof, the unit tests, the fuzzers).
CTL_LIBS := -lbpf -lelf -lz -ledit -lsqlite3
AGENT_SRC := $(wildcard user/agent/*.c) $(COMMON_SRC)
NPUSIM_SRC := $(wildcard tools/npusim/*.c)
HCCL_SRC := $(wildcard tools/npusim/hccl/*.c)
MSTX_SRC := $(wildcard tools/npusim/mstx/*.c)
UNIT_SRC := $(wildcard tests/unit/*.c)
BPF_SRC := $(wildcard bpf/*.bpf.c)
SKELS := $(patsubst bpf/%.bpf.c,$(GEN)/%.skel.h,$(BPF_SRC))

obj = $(patsubst %.c,$(OBJ)/%.o,$(1))
san_obj = $(patsubst %.c,$(OBJ)/san/%.o,$(1))
fuzz_obj = $(patsubst %.c,$(OBJ)/fuzz/%.o,$(1))

# The CUPTI backend compiles against CUDA's headers where a toolkit is
# installed (else it is a stub); the agent never links CUDA: it dlopen()s it.
CUDA_HOME ?= /usr/local/cuda
# A cross build leaves it out: the installed toolkit is the host's.
CUPTI_H := $(if $(CROSS),,$(firstword $(wildcard $(CUDA_HOME)/extras/CUPTI/include/cupti.h \
	$(CUDA_HOME)/include/cupti.h)))
ifneq ($(CUPTI_H),)
CUPTI_SRC := $(wildcard user/agent/*cupti*.c tests/unit/test_cupti_window.c)
$(call obj,$(CUPTI_SRC)) $(call san_obj,$(CUPTI_SRC)) $(call fuzz_obj,$(CUPTI_SRC)): override CFLAGS += \
	-DMSPROF_HAVE_CUPTI -isystem $(dir $(CUPTI_H)) -isystem $(CUDA_HOME)/include
endif

TARGETS := $(BIN)/msprof $(LIB)/libmsprof_agent.so $(LIB)/libnpusim.so \
	$(LIB)/libhccl.so $(LIB)/libms_tools_ext.so $(BIN)/npu_sample

# The CUDA test program, where a CUDA toolkit is installed.
NVCC ?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
CUDA_TESTS := $(if $(NVCC),$(if $(CROSS),,$(BUILD)/tests/cuda_sample))

.SECONDARY:
# A recipe that fails leaves no half-made target to be taken as made.
.DELETE_ON_ERROR:
.PHONY: all deps vmlinux test unit e2e fuzz demo bench clean asan-msprof \
	install uninstall FORCE test-kernels
all: $(TARGETS)

# --- BPF: CO-RE object against the per-arch vmlinux.h, then a skeleton ----
# (the recipes serve make bench's floor object too)
define bpf_object
	$(call msg,BPF,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_$(ARCH) \
		-Iinclude -Ivmlinux/$(ARCH) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@
endef
define bpf_skeleton
	$(call msg,GEN-SKEL,$@)
	@mkdir -p $(@D)
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@
endef

$(OBJ)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(wildcard include/msprof/*.h) vmlinux/$(ARCH)/vmlinux.h
	$(bpf_object)

$(GEN)/%.skel.h: $(OBJ)/bpf/%.bpf.o
	$(bpf_skeleton)

# x86 and arm64 are checked in (tools/gen-vmlinux-h.sh); another architecture
# may take the running kernel's, never a foreign one's.
vmlinux/%/vmlinux.h:
	$(if $(filter $*,$(HOST_ARCH)),,$(error $@ is missing and cannot come from this $(HOST_ARCH) kernel: run tools/gen-vmlinux-h.sh $*))
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

vmlinux:
ifneq ($(filter x86 arm64,$(ARCH)),)
	$(Q)tools/gen-vmlinux-h.sh $(ARCH)
else ifeq ($(CROSS),)
	$(Q)rm -f vmlinux/$(ARCH)/vmlinux.h
	$(Q)$(MAKE) --no-print-directory vmlinux/$(ARCH)/vmlinux.h
else
	$(error tools/gen-vmlinux-h.sh makes x86's and arm64's vmlinux.h only; $(ARCH)'s cannot come from this $(HOST_ARCH) kernel)
endif

# --- user space -------------------------------------------------------------
# Objects follow the flags they were built with: `make CFLAGS=...` after a
# plain `make` rebuilds (the stamp changes only when the flags do).
FLAGS_STAMP := $(BUILD)/flags
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	$(Q)echo '$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS)' | cmp -s - $@ || \
		echo '$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS)' >$@

$(OBJ)/%.o: %.c $(wildcard include/msprof/*.h) $(FLAGS_STAMP)
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(OBJ)/san/%.o: %.c $(wildcard include/msprof/*.h) $(FLAGS_STAMP)
	$(call msg,CC-SAN,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) -MMD -MP -c $< -o $@

# Only the tracer, its attach step and its thread-state hooks include the
# BPF skeleton: nothing else waits for clang.
SKEL_SRC := user/host/tracer.c user/host/attach.c user/host/sched_hooks.c
$(call obj,$(SKEL_SRC)) $(call san_obj,$(SKEL_SRC)) $(call fuzz_obj,$(SKEL_SRC)): $(SKELS)

# The syscalls' names by number, as the build's libc headers have them.
$(GEN)/gen_syscall_names.h: tools/gen-syscall-names.sh
	$(call msg,GEN,$@)
	@mkdir -p $(@D)
	$(Q)tools/gen-syscall-names.sh "$(CC)" $@
NAMES_SRC := user/host/syscall_names.c
$(call obj,$(NAMES_SRC)) $(call san_obj,$(NAMES_SRC)) $(call fuzz_obj,$(NAMES_SRC)): $(GEN)/gen_syscall_names.h

$(BIN)/msprof: $(call obj,user/ctl/main.c $(CTL_SRC))
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(CTL_LIBS)

# nodelete: the server thread runs the agent's code until the process ends.
$(LIB)/libmsprof_agent.so: $(call obj,$(AGENT_SRC)) user/agent/agent.map
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libmsprof_agent.so \
		-Wl,--version-script=user/agent/agent.map -Wl,-z,nodelete \
		$(call obj,$(AGENT_SRC)) -o $@ -pthread -ldl

$(LIB)/libnpusim.so: $(call obj,$(NPUSIM_SRC)) $(LIB)/libmsprof_agent.so
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libnpusim.so \
		$(call obj,$(NPUSIM_SRC)) -o $@ -L$(LIB) -lmsprof_agent \
		-Wl,-rpath,'$$ORIGIN' -pthread

# npusim's collectives: a library of their own, probed as CANN's libhccl is.
$(LIB)/libhccl.so: $(call obj,$(HCCL_SRC)) $(LIB)/libnpusim.so
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libhccl.so \
		$(call obj,$(HCCL_SRC)) -o $@ -L$(LIB) -lnpusim -lmsprof_agent \
		-Wl,-rpath,'$$ORIGIN' -pthread

# npusim's user marks: CANN's libms_tools_ext, a library of its own as there.
$(LIB)/libms_tools_ext.so: $(call obj,$(MSTX_SRC))
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libms_tools_ext.so \
		$(call obj,$(MSTX_SRC)) -o $@

$(BIN)/npu_sample: $(call obj,tools/npusim/sample/npu_sample.c) $(LIB)/libhccl.so \
		$(LIB)/libms_tools_ext.so
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@ -L$(LIB) -lhccl -lnpusim -lms_tools_ext \
		-Wl,-rpath,'$$ORIGIN/../lib:$$ORIGIN'

# Unit tests link the controller's and agent's objects, built with sanitizers.
# npusim's collectives lend their arithmetic, which touches nothing shared.
UNIT_HCCL_SRC := tools/npusim/hccl/hccl_reduce.c
$(BUILD)/tests/unit_tests: $(call san_obj,$(UNIT_SRC) $(CTL_SRC) $(filter-out $(COMMON_SRC),$(AGENT_SRC)) $(UNIT_HCCL_SRC))
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) $(LDFLAGS) $^ -o $@ -lcunit $(CTL_LIBS) -pthread -ldl

# libFuzzer targets: each tests/fuzz/fuzz_<name>.c with the unit tests' set
# of objects, built by clang with the fuzzer's coverage and the sanitizers.
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZERS := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_LIB_OBJ := $(call fuzz_obj,$(CTL_SRC) $(filter-out $(COMMON_SRC),$(AGENT_SRC)))
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := $(SAN_FLAGS)

$(OBJ)/fuzz/%.o: %.c $(wildcard include/msprof/*.h) $(FLAGS_STAMP)
	$(call msg,CC-FUZZ,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(CFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(BUILD)/fuzz/%: $(OBJ)/fuzz/tests/fuzz/%.o $(FUZZ_LIB_OBJ)
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CLANG) $(CFLAGS) $(FUZZ_CFLAGS) $(LDFLAGS) -fsanitize=fuzzer $^ -o $@ $(CTL_LIBS) -pthread -ldl

# Small programs the end-to-end tests run.
TEST_PROGS := $(patsubst tests/programs/%.c,$(BUILD)/tests/%,$(wildcard tests/programs/*.c))
ifdef CROSS
# A cross build is carried to the target whole: its tests come with it.
all: $(BUILD)/tests/unit_tests $(TEST_PROGS)
endif

$(BUILD)/tests/%: tests/programs/%.c
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@ -ldl

# The collectives' check runs against npusim's own libraries.
$(BUILD)/tests/hccl_collectives: tests/programs/hccl_collectives.c $(LIB)/libhccl.so
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $< -o $@ -L$(LIB) -lhccl -lnpusim \
		-Wl,-rpath,'$$ORIGIN/../lib'

# make bench's synthetic window: PROF_ files as a stop writes them.
$(BUILD)/tools/synth_window: $(call obj,tools/bench/synth_window.c user/task/profdir.c user/task/hostinfo.c user/task/params.c $(COMMON_SRC))
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@

# make bench's per-call driver: a tight loop over one function of a shared
# library, and the floor it is measured against (an empty uprobe and
# uretprobe of our own, built here and not in bpf/: the controller has no
# use for it; it holds empty syscall hooks too, for the neighbours' part,
# whose timed loops of syscalls are neighbour's).
BENCH_CALL_TOOLS := $(addprefix $(BUILD)/tools/,libbench_call.so call_driver floor neighbour \
	pingpong)

$(BUILD)/tools/libbench_call.so: $(call obj,tools/bench/bench_call.c)
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libbench_call.so $^ -o $@

$(BUILD)/tools/call_driver: $(call obj,tools/bench/call_driver.c) $(BUILD)/tools/libbench_call.so
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< -o $@ -L$(BUILD)/tools -lbench_call \
		-Wl,-rpath,'$$ORIGIN' -pthread

$(BUILD)/tools/neighbour: $(call obj,tools/bench/neighbour.c)
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@

# The thread-state part's neighbours: two processes handing a byte back and forth.
$(BUILD)/tools/pingpong: $(call obj,tools/bench/pingpong.c)
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@

$(OBJ)/tools/bench/%.bpf.o: tools/bench/%.bpf.c vmlinux/$(ARCH)/vmlinux.h
	$(bpf_object)

$(GEN)/bench/%.skel.h: $(OBJ)/tools/bench/%.bpf.o
	$(bpf_skeleton)

$(call obj,tools/bench/floor.c): $(GEN)/bench/floor.skel.h
$(call obj,tools/bench/floor.c): override CFLAGS += -I$(GEN)/bench

$(BUILD)/tools/floor: $(call obj,tools/bench/floor.c)
	$(call msg,LINK,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ -lbpf -lelf -lz

$(BUILD)/tests/cuda_sample: tests/cuda/cuda_sample.cu
	$(call msg,NVCC,$@)
	@mkdir -p $(@D)
	$(Q)$(NVCC) -cudart shared -o $@ $<

# --- install ------------------------------------------------------------------
# `make install [DESTDIR=...] [PREFIX=/usr]`; see README.md, "Install".  The
# installed msprof is msprof relinked with the agent's path relative to BINDIR
# (the build tree's is ../lib): it finds its agent wherever the tree is moved.
VERSION := $(shell cat VERSION)
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
MANDIR ?= $(PREFIX)/share/man
PROGRAM ?= msprof
INSTALL_SAMPLE ?= 1
INSTALL ?= install
AGENT_REL := $(shell realpath -m -s --relative-to='$(BINDIR)' \
	'$(LIBDIR)/msprof')/libmsprof_agent.so
INST := $(BUILD)/install
PKGLIB := $(DESTDIR)$(LIBDIR)/msprof

$(GEN)/version.h: VERSION
	@mkdir -p $(@D)
	$(Q)printf '#define MSPROF_VERSION "%s"\n' '$(VERSION)' >$@
$(call obj,user/ctl/main.c user/task/profdir.c) $(call san_obj,user/task/profdir.c) \
	$(call fuzz_obj,user/task/profdir.c): $(GEN)/version.h

# Rewritten only when the path changes, so a new PREFIX relinks.
$(INST)/agent_rel: FORCE
	@mkdir -p $(@D)
	$(Q)echo '$(AGENT_REL)' | cmp -s - $@ || echo '$(AGENT_REL)' >$@

$(OBJ)/install/agent_path.o: user/ctl/agent_path.c $(INST)/agent_rel
	$(call msg,CC,$@)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -DMSPROF_AGENT_REL='"$(AGENT_REL)"' \
		-MMD -MP -c $< -o $@

$(INST)/msprof: $(call obj,user/ctl/main.c $(filter-out user/ctl/agent_path.c,$(CTL_SRC))) \
		$(OBJ)/install/agent_path.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@ $(CTL_LIBS)

# Built with the rest, so that `make && sudo make install` only copies as root.
all: $(INST)/msprof

install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(PKGLIB) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 755 $(INST)/msprof $(DESTDIR)$(BINDIR)/$(PROGRAM)
	$(INSTALL) -m 644 $(LIB)/libmsprof_agent.so $(PKGLIB)/
	$(INSTALL) -m 644 docs/msprof.1 $(DESTDIR)$(MANDIR)/man1/$(PROGRAM).1
ifeq ($(INSTALL_SAMPLE),1)
	$(INSTALL) -m 644 $(LIB)/libnpusim.so $(LIB)/libhccl.so $(LIB)/libms_tools_ext.so $(PKGLIB)/
	$(INSTALL) -m 755 $(BIN)/npu_sample $(PKGLIB)/
endif

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/$(PROGRAM) $(DESTDIR)$(MANDIR)/man1/$(PROGRAM).1 \
		$(addprefix $(PKGLIB)/,libmsprof_agent.so libnpusim.so libhccl.so libms_tools_ext.so npu_sample)
	-rmdir $(PKGLIB)

# --- entry points -------------------------------------------------------------
# The one entry point that installs (with demo and bench, which run it
# first): test and fuzz take the machine as it is, as .ci/run sets it up.
deps:
	$(Q)tools/install-deps.sh

unit: $(BUILD)/tests/unit_tests
	$(Q)$(QEMU) $(BUILD)/tests/unit_tests

e2e: all
	$(Q)tests/e2e/run.sh

fuzz:
	$(Q)$(MAKE) --no-print-directory $(FUZZERS)
	$(Q)tests/fuzz/run.sh $(FUZZ_SECONDS)

# The controller once more with the sanitizers, for end-to-end runs.
asan-msprof:
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/asan \
		CFLAGS="-O1 -g $(SAN_FLAGS)" $(BUILD)/asan/bin/msprof

test:
	$(Q)$(MAKE) --no-print-directory all $(BUILD)/tests/unit_tests $(TEST_PROGS) $(CUDA_TESTS) $(FUZZERS) $(BENCH_CALL_TOOLS) \
		$(BUILD)/tools/synth_window asan-msprof
	$(Q)tests/run-all.sh

# The kernel matrix: the e2e subset on this kernel and in QEMU on Debian's
# 5.10 and 6.1 kernels, x86_64 and arm64 (tools/kernels/matrix.sh).
KERNEL_CACHE ?= /var/cache/msprof-kernels
test-kernels:
	$(Q)tools/install-deps.sh cross kernels
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		CC=aarch64-linux-gnu-gcc BUILD=$(BUILD)/arm64 CFLAGS='$(USER_CFLAGS)' all
	$(Q)BUILD=$(BUILD) ARM64_BUILD=$(BUILD)/arm64 KERNEL_CACHE=$(KERNEL_CACHE) \
		tools/kernels/matrix.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tools/demo.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory all $(BUILD)/tools/synth_window $(BENCH_CALL_TOOLS)
	$(Q)tools/bench.sh
	$(Q)tools/bench_calls.sh
	$(Q)tools/bench_idle.sh
	$(Q)tools/bench_neighbours.sh
	$(Q)tools/bench_sched.sh
	$(Q)tools/bench_osrt.sh
	$(Q)tools/bench_latency.sh
	$(Q)tools/bench_loss.sh
	$(Q)tools/bench_export.sh
	$(Q)tools/bench_python.sh
	$(Q)tools/bench_host_sys.sh
	$(Q)tools/bench/goals.py $${RESULTS:-bench/results.json}

clean:
	$(Q)rm -rf $(BUILD)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
