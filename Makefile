# cgmtrace build.
#
# Sources are found by folder, so adding a file needs no edit here:
#   common/*.c             -> libcgmcommon.a      (the statistics registry, the key tables)
#   formats/*.c            -> libcgmformats.a     formats/tracetool/*.c -> bin/tracetool
#   models/**/*.c, *.S     -> libcgmmodels.a
#   tracegen/**/*.c        -> libcgmtracegen.a    (tracegen/main.c -> bin/tracegen)
#   replay/**/*.c          -> libcgmreplay.a      (replay/main.c   -> bin/replay)
#   sweep/*.c              -> libcgmsweep.a       (sweep/main.c    -> bin/sweep)
#   formats/*.c again      -> libcgmtrace.so      python/cgmtrace/*.py -> $(BUILD)/python
#   tests/unit/PART/test_*.c -> one cmocka program each, run by `make test`
#                             (PART: formats, models, tracegen, replay, sweep;
#                             `make test-PART` runs one part's)
#   tests/python/test_*.py -> unittest modules, run by `make test` (and test-python)
#   tests/bench/bench_*.c  -> `make bench-NAME` (underscores become dashes)
#   tests/fuzz/fuzz_*.c    -> libFuzzer targets, `make fuzz`
#
# Everything is built under $(BUILD); `make check-asan` reuses these rules with
# BUILD=build/asan and the sanitizer flags.

BUILD   ?= build
PREFIX  ?= /usr/local
SAN     ?=

# Debian packages the project builds, tests and benchmarks with (g++: the C++
# guest workloads traces/x86/*.cc; busybox-static: a static program nobody here
# wrote, whose applets test_x86_busybox runs under tracegen; sqlite3: the
# dynamically linked SQLite shell make validate runs on a file database;
# python3-numpy: the Python reader's arrays, which its tests check).
DEB_PACKAGES := make pkg-config gcc clang lld llvm liblz4-dev libelf-dev \
                libcapstone-dev libcmocka-dev libinih-dev libcjson-dev \
                libxxhash-dev libsystemc-dev musl-tools valgrind gnuplot-nox \
                g++ busybox-static sqlite3 python3 python3-numpy liblzma-dev
PC_PACKAGES  := liblz4 libelf capstone cmocka inih libcjson libxxhash msgpack liblzma
# Programs the tests run that pkg-config cannot see (sweep plot draws with
# gnuplot; the C++ guest is built with g++; test_x86_busybox runs busybox;
# make validate runs sqlite3; test_opencl runs clinfo; the Python reader's
# tests run python3).
DEP_COMMANDS := gnuplot g++ busybox sqlite3 clinfo python3

# `make`, `make test` and `make demo` install missing packages first.
NO_DEPS_GOALS := deps clean help
ifeq ($(filter $(NO_DEPS_GOALS),$(MAKECMDGOALS)),)
DEPS_OK := $(shell pkg-config --exists $(PC_PACKAGES) 2>/dev/null && \
             for c in $(DEP_COMMANDS); do command -v $$c >/dev/null || exit 1; done && echo yes)
ifneq ($(DEPS_OK),yes)
$(info cgmtrace: build dependencies are missing; running 'make deps')
DEPS_RC := $(shell $(MAKE) --no-print-directory -f $(firstword $(MAKEFILE_LIST)) deps >&2; echo $$?)
ifneq ($(DEPS_RC),0)
$(error cgmtrace: 'make deps' failed; install the packages it names and try again)
endif
endif
endif

PC_CFLAGS := $(shell pkg-config --cflags $(PC_PACKAGES) 2>/dev/null)
# Unit tests also read the programs' JSON output.
TEST_LIBS := $(shell pkg-config --libs cmocka libcjson 2>/dev/null)

WARN     := -Wall -Wextra -Werror
CFLAGS   ?= -O2 -g
ALLFLAGS  = -std=c11 $(CFLAGS) $(WARN) $(SAN) $(EXTRA_CFLAGS)

# Link-time optimisation of the programs and benchmarks (gcc, not with
# sanitizers; LTO=0 turns it off): the hot paths cross files, KnightSim's
# queries and the protocol's cache lookups above all (bench-memsys: 5% fewer
# instructions, 6% more requests/s). Objects are fat, so the unit tests
# link their plain code without the link-time pass.
LTO ?= $(if $(SAN),0,$(shell $(CC) -v 2>&1 | grep -q '^gcc version' && echo 1 || echo 0))
ifeq ($(LTO),1)
LTO_COMPILE := -flto=auto -ffat-lto-objects
LTO_LINK    := -flto=auto
LINK_FLAGS  := -fno-lto
AR          := gcc-ar
else
LTO_COMPILE :=
LTO_LINK    :=
AR          := ar
endif
CPPFLAGS += -D_GNU_SOURCE -Iinclude -I. $(PC_CFLAGS) -MMD -MP

find_src = $(shell find $(1) -name '$(2)' 2>/dev/null | LC_ALL=C sort)

COMMON_SRC    := $(wildcard common/*.c)
FORMATS_SRC   := $(wildcard formats/*.c)
TRACETOOL_SRC := $(wildcard formats/tracetool/*.c)
MODELS_SRC    := $(call find_src,models,*.c) $(call find_src,models,*.S)
TRACEGEN_SRC  := $(filter-out tracegen/main.c,$(call find_src,tracegen,*.c)) \
                 $(call find_src,tracegen,*.S)
REPLAY_SRC    := $(filter-out replay/main.c,$(call find_src,replay,*.c))
SWEEP_SRC     := $(filter-out sweep/main.c,$(wildcard sweep/*.c))
TEST_PARTS    := formats models tracegen replay sweep
UNIT_SRC      := $(foreach p,$(TEST_PARTS),$(wildcard tests/unit/$(p)/test_*.c))
UNIT_HELPERS  := $(wildcard tests/unit/*.c)
BENCH_SRC     := $(wildcard tests/bench/bench_*.c)
FUZZ_SRC      := $(wildcard tests/fuzz/fuzz_*.c)

objs = $(patsubst %,$(BUILD)/obj/%.o,$(1))

LIB_COMMON   := $(BUILD)/lib/libcgmcommon.a
LIB_FORMATS  := $(BUILD)/lib/libcgmformats.a
LIB_MODELS   := $(BUILD)/lib/libcgmmodels.a
LIB_TRACEGEN := $(BUILD)/lib/libcgmtracegen.a
LIB_REPLAY   := $(BUILD)/lib/libcgmreplay.a
LIB_SWEEP    := $(BUILD)/lib/libcgmsweep.a
LIB_TESTS    := $(BUILD)/lib/libcgmtests.a
# Link order: users before what they use.
ALL_LIBS := $(LIB_SWEEP) $(LIB_REPLAY) $(LIB_TRACEGEN) $(LIB_MODELS) $(LIB_FORMATS) $(LIB_COMMON)

# The layers (README.md, "Layout"): tracegen and replay use formats and models; models
# knows nothing of traces, formats nothing of emulators or timing; common (the
# statistics registry and the key-table engine) is below them all. Each
# program, and each part's unit tests, links only its own layer, the layers
# below it and their Debian libraries, so a call that points the wrong way
# is an undefined symbol at link time. Benchmarks may use any layer.
USES_formats  := formats common
USES_models   := models common
USES_tracegen := tracegen formats common
USES_replay   := replay models formats common
USES_tracetool := formats common
# sweep runs replay as separate processes: it takes only replay's
# configuration table (and the DRAM presets that table names).
USES_sweep    := sweep replay models formats common
USES_bench    := replay tracegen models formats common
PC_common     := libcjson
PC_formats    := liblz4 libxxhash capstone
PC_models     := libcjson
PC_tracegen   := libelf capstone msgpack
PC_replay     := inih libcjson
PC_sweep      := libcjson libxxhash
# tracetool export --champsim writes .xz with liblzma (liblzma-dev).
PC_tracetool  := libcjson liblzma
layer_libs    = $(foreach l,$(USES_$(1)),$(BUILD)/lib/libcgm$(l).a)
layer_ldlibs  = $(shell pkg-config --libs $(sort $(PC_$(1)) $(foreach l,$(USES_$(1)),$(PC_$(l)))) \
                  2>/dev/null) \
                -lpthread -lm

BIN := $(if $(filter build,$(BUILD)),bin,$(BUILD)/bin)
PROGRAMS := $(BIN)/tracegen $(BIN)/replay $(BIN)/tracetool $(BIN)/sweep
unit_bins   = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(1))
UNIT_BINS  := $(call unit_bins,$(UNIT_SRC))
BENCH_BINS := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
BENCH_NAMES := $(patsubst bench_%,%,$(notdir $(basename $(BENCH_SRC))))

.PHONY: FORCE all deps test test-unit $(addprefix test-,$(TEST_PARTS)) check-asan bench fuzz demo install clean help
.DEFAULT_GOAL := all

all: $(PROGRAMS) $(ALL_LIBS)

help:
	@echo "make             build bin/tracegen, bin/replay, bin/tracetool, bin/sweep and the libraries"
	@echo "make test        build and run every test (ends with 'N passed, N failed')"
	@echo "make test-PART   one part's unit tests: $(addprefix test-,$(TEST_PARTS))"
	@echo "make demo        record and inspect the bundled workload, then a CPU-GPU one"
	@echo "make check-asan  unit tests under AddressSanitizer + UBSan"
	@echo "make fingerprints  replay statistics against tests/fingerprints/expected"
	@echo "make fingerprints-update  refresh them (a change of statistics on purpose)"
	@echo "make bench       every benchmark; make bench-NAME for one ($(BENCH_NAMES))"
	@echo "make fuzz        libFuzzer targets (clang) in $(BUILD)/fuzz"
	@echo "make validate    long validation runs against outside references"
	@echo "make studies     record the GPU workloads, sweep and plot the seed's three studies"
	@echo "make deps        install the Debian packages (as root) or print the command"
	@echo "make install PREFIX=/usr/local"

deps:
	@if [ "$$(id -u)" = 0 ]; then \
	  echo "apt-get update && apt-get install -y $(DEB_PACKAGES)"; \
	  apt-get -o DPkg::Lock::Timeout=300 update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq $(DEB_PACKAGES); \
	else \
	  echo "cgmtrace needs these Debian packages; run as root:"; \
	  echo "  apt-get update && apt-get install -y $(DEB_PACKAGES)"; \
	  exit 1; \
	fi

# ---- compilation -----------------------------------------------------------
# Objects depend on the compile command they were built with: a build directory
# reused with other flags (LTO=0, another CFLAGS) is rebuilt, not mixed.
COMPILE_C   = $(CC) $(CPPFLAGS) $(ALLFLAGS) $(LTO_COMPILE)
COMPILE_S   = $(CC) $(CPPFLAGS) $(SAN) $(EXTRA_CFLAGS)
FLAGS_STAMP = $(BUILD)/compile-flags
$(FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n%s\n' '$(COMPILE_C)' '$(COMPILE_S)' | cmp -s - $@ || \
	  printf '%s\n%s\n' '$(COMPILE_C)' '$(COMPILE_S)' > $@
FORCE:

$(BUILD)/obj/%.c.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(COMPILE_C) -c $< -o $@

$(BUILD)/obj/%.S.o: %.S $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(COMPILE_S) -c $< -o $@

define archive
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^
endef

$(LIB_COMMON):   $(call objs,$(COMMON_SRC));   $(archive)
$(LIB_FORMATS):  $(call objs,$(FORMATS_SRC));  $(archive)
$(LIB_MODELS):   $(call objs,$(MODELS_SRC));   $(archive)
$(LIB_TRACEGEN): $(call objs,$(TRACEGEN_SRC)); $(archive)
$(LIB_REPLAY):   $(call objs,$(REPLAY_SRC));   $(archive)
$(LIB_SWEEP):    $(call objs,$(SWEEP_SRC));    $(archive)
$(LIB_TESTS):    $(call objs,$(UNIT_HELPERS)); $(archive)

# $(call link,LAYER): the objects among the prerequisites, then LAYER's libraries.
define link
	@mkdir -p $(dir $@)
	$(CC) $(ALLFLAGS) $(LINK_FLAGS) -o $@ $(filter %.o %/libcgmtests.a,$^) \
	  $(call layer_libs,$(1)) $(call layer_ldlibs,$(1)) $(LDLIBS)
endef

$(PROGRAMS): LINK_FLAGS = $(LTO_LINK)
$(BUILD)/bench/%: LINK_FLAGS = $(LTO_LINK)
$(BIN)/tracegen:  $(call objs,tracegen/main.c) $(call layer_libs,tracegen);   $(call link,tracegen)
$(BIN)/replay:    $(call objs,replay/main.c) $(call layer_libs,replay);       $(call link,replay)
$(BIN)/tracetool: $(call objs,$(TRACETOOL_SRC)) $(call layer_libs,tracetool); $(call link,tracetool)
$(BIN)/sweep:     $(call objs,sweep/main.c) $(call layer_libs,sweep);         $(call link,sweep)

# Unit tests: tests/unit/PART/test_NAME.c -> $(BUILD)/tests/PART/test_NAME,
# linked with the shared helpers (an archive: a test takes only the helpers
# it calls) and PART's layers.
$(BUILD)/tests/%: LDLIBS += $(TEST_LIBS)
define test_link_rule
$(BUILD)/tests/$(1)/%: $(BUILD)/obj/tests/unit/$(1)/%.c.o $(LIB_TESTS) $(call layer_libs,$(1))
	$$(call link,$(1))
endef
$(foreach p,$(TEST_PARTS),$(eval $(call test_link_rule,$(p))))
# The x86 view's test reads the ELF entry point itself, as an outside reference.
$(BUILD)/tests/formats/test_x86_view: LDLIBS += -lelf
$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.c.o $(call layer_libs,bench); $(call link,bench)

# ---- the trace library as a shared library, and the Python reader ---------
# formats/ compiled again as position-independent code into libcgmtrace.so
# (the same code as libcgmformats.a; its SONAME's number changes when its
# ABI does). The Python package python/cgmtrace loads it through ctypes;
# `make` copies it to $(BUILD)/python (PYTHONPATH=$(BUILD)/python).
TRACE_SO_VERSION := 1.0.0
TRACE_SONAME     := libcgmtrace.so.1
LIB_TRACE_SO     := $(BUILD)/lib/libcgmtrace.so.$(TRACE_SO_VERSION)
# Without the sanitizers: the Python that loads it is not built with them.
$(BUILD)/pic/%.c.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=c11 $(CFLAGS) $(WARN) $(EXTRA_CFLAGS) -fPIC -c $< -o $@
$(LIB_TRACE_SO): $(patsubst %,$(BUILD)/pic/%.o,$(FORMATS_SRC))
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(CFLAGS) $(WARN) -shared -Wl,-soname,$(TRACE_SONAME) -Wl,--no-undefined -o $@ $^ \
	  $(call layer_ldlibs,formats)
	ln -sf $(notdir $@) $(BUILD)/lib/$(TRACE_SONAME)
	ln -sf $(TRACE_SONAME) $(BUILD)/lib/libcgmtrace.so
# Debian's interpreter when there is one: it sees Debian's python3-numpy.
PYTHON       ?= $(if $(wildcard /usr/bin/python3),/usr/bin/python3,python3)
PYTHON_PKG   := $(wildcard python/cgmtrace/*.py)
PYTHON_BUILT := $(patsubst python/%,$(BUILD)/python/%,$(PYTHON_PKG))
$(BUILD)/python/%.py: python/%.py
	@mkdir -p $(dir $@)
	cp $< $@
.PHONY: python
python: $(LIB_TRACE_SO) $(PYTHON_BUILT)
all: python

# ---- tests -----------------------------------------------------------------
# Unit tests find the programs and data through these variables.
TEST_ENV = CGM_BIN=$(abspath $(BIN)) CGM_ROOT=$(abspath .) CGM_BUILD=$(abspath $(BUILD)) \
           CGM_PYTHON=$(PYTHON) PYTHONPATH=$(abspath $(BUILD)/python)

# tests/python/test_*.py: the Python reader's unittest modules, run beside the
# cmocka programs (tests/run_tests.sh counts both).
PYTHON_TESTS := $(wildcard tests/python/test_*.py)
test: $(PROGRAMS) $(UNIT_BINS) python
	@$(TEST_ENV) sh tests/run_tests.sh $(UNIT_BINS) $(PYTHON_TESTS)

test-unit: test

define test_part_rule
test-$(1): $$(PROGRAMS) $$(call unit_bins,$$(wildcard tests/unit/$(1)/test_*.c))
	@$$(TEST_ENV) sh tests/run_tests.sh $$(call unit_bins,$$(wildcard tests/unit/$(1)/test_*.c))
endef
$(foreach p,$(TEST_PARTS),$(eval $(call test_part_rule,$(p))))
.PHONY: test-python
test-python: $(PROGRAMS) python
	@$(TEST_ENV) sh tests/run_tests.sh $(PYTHON_TESTS)

# Fingerprints of replay's statistics (tests/fingerprints/run.sh): the check
# (also a unit test, test_fingerprints) and the explicit refresh.
.PHONY: fingerprints fingerprints-update
fingerprints: $(PROGRAMS) x86-guests gpu-guests
	@sh tests/fingerprints/run.sh $(BIN) $(BUILD)
fingerprints-update: $(PROGRAMS) x86-guests gpu-guests
	@sh tests/fingerprints/run.sh --update $(BIN) $(BUILD)

check-asan:
	@$(MAKE) --no-print-directory BUILD=build/asan CC=$(CC) \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	  EXTRA_CFLAGS="-DCGM_ASAN=1 -DCGM_CHECKS=1" test

# ---- benchmarks ------------------------------------------------------------
bench: $(addprefix bench-,$(BENCH_NAMES))

define bench_rule
.PHONY: bench-$(subst _,-,$(1))
bench-$(subst _,-,$(1)): $(BUILD)/bench/bench_$(1) $(PROGRAMS)
	@$(TEST_ENV) $(BUILD)/bench/bench_$(1)
endef
$(foreach b,$(BENCH_NAMES),$(eval $(call bench_rule,$(b))))
# Guest instructions of the OpenCL twins against their cgm/guest.h twins
# (tests/bench/opencl_twins.py; --profile NAME for a per-function account).
.PHONY: bench-opencl-twins
bench: bench-opencl-twins
bench-opencl-twins: $(PROGRAMS) cl-guests gpu-guests
	@$(TEST_ENV) $(PYTHON) tests/bench/opencl_twins.py
bench-sweep: x86-guests

# ---- KnightSim: the SystemC baseline of bench-knightsim is a C++
# helper program (SystemC elaborates once per process; the sweep needs many).
KS_SYSTEMC_HELPER := $(BUILD)/bench/bench_knightsim_systemc
$(KS_SYSTEMC_HELPER): tests/bench/bench_knightsim_systemc.cpp
	@mkdir -p $(dir $@)
	$(CXX) -std=c++17 -O2 -g $(WARN) $(shell pkg-config --cflags systemc) -o $@ $< \
	  $(shell pkg-config --libs systemc)
bench-knightsim: $(KS_SYSTEMC_HELPER)

# ---- fuzzing ---------------------------------------------------------------
FUZZ_FLAGS := -fsanitize=fuzzer,address,undefined -fno-omit-frame-pointer -g -O1 \
              -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
FUZZ_LIB_SRC := $(FORMATS_SRC) $(COMMON_SRC)
fuzz: $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
	@echo "fuzz targets in $(BUILD)/fuzz; run e.g. $(BUILD)/fuzz/fuzz_trace_reader -max_total_time=60"

# Targets for parsers outside formats/ take their sources as extra prerequisites.
# (Every target takes common/: the statistics registry the DRAM model
# registers into, the key tables.)
# replay's configuration names the coherence protocols (models/coh), whose
# tables pull in the rest of the models.
FUZZ_DRAM_SRC := $(wildcard models/dram/*.c)
$(BUILD)/fuzz/fuzz_replay_config: replay/config.c $(MODELS_SRC)
$(BUILD)/fuzz/fuzz_sweep_spec: sweep/spec.c sweep/axis.c sweep/metric.c sweep/util.c replay/config.c \
  $(MODELS_SRC)
$(BUILD)/fuzz/fuzz_dram_trace: $(FUZZ_DRAM_SRC)
$(BUILD)/fuzz/fuzz_x86_guest: $(TRACEGEN_SRC)
$(BUILD)/fuzz/fuzz_x86_syscalls: $(TRACEGEN_SRC) tests/unit/sys_fuzz.c
# replay's simulation: KnightSim's stack switches are annotated for ASan
$(BUILD)/fuzz/fuzz_replay_sim: $(REPLAY_SRC) $(MODELS_SRC)
$(BUILD)/fuzz/fuzz_replay_sim: FUZZ_FLAGS += -DCGM_ASAN=1
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_SRC)
	@mkdir -p $(dir $@)
	clang -std=c11 $(WARN) $(FUZZ_FLAGS) -D_GNU_SOURCE -Iinclude -I. $(PC_CFLAGS) \
	  -o $@ $^ $(call layer_ldlibs,bench)

# ---- GPU kernels (Southern Islands part) -----------------------------------
# OpenCL C -> gfx600 code objects with Debian's clang and ld.lld; the device
# header in traces/include/ stands in for the ROCm device libraries.
# traces/kernels/NAME.cl -> $(BUILD)/kernels/NAME.co (workloads);
# tests/data/si/kernels/NAME.cl -> $(BUILD)/kernels/test/NAME.co (unit tests).
# NAME.s, LLVM's own listing, lets the tests compare the disassembler with it.
KERNEL_CLANG  ?= clang
# The code-object loader reads the kernel metadata note (MessagePack) with msgpack-c.
DEB_PACKAGES += libmsgpack-dev
# test_si_pocl compares the emulator with PoCL (Debian's CPU OpenCL) on the same .cl.
DEB_PACKAGES += pocl-opencl-icd ocl-icd-opencl-dev
$(BUILD)/tests/tracegen/test_si_pocl: LDLIBS += -lOpenCL
# test_si_fuzz compiles its generated kernels itself, with these.
$(BUILD)/tests/tracegen/test_si_fuzz: LDLIBS += -lOpenCL
export CGM_KERNEL_CLANG = $(KERNEL_CLANG)
export CGM_KERNEL_FLAGS = $(subst -Itraces/include,-I$(CURDIR)/traces/include,$(KERNEL_FLAGS))
KERNEL_FLAGS  := -target amdgcn-amd-amdhsa -mcpu=tahiti -nogpulib -O2 \
                 -Itraces/include -include cgm_device.h
KERNEL_COS := $(patsubst traces/kernels/%.cl,$(BUILD)/kernels/%.co,$(wildcard traces/kernels/*.cl)) \
              $(patsubst tests/data/si/kernels/%.cl,$(BUILD)/kernels/test/%.co,$(wildcard tests/data/si/kernels/*.cl))
define kernel_link
	@mkdir -p $(dir $@)
	$(KERNEL_CLANG) $(KERNEL_FLAGS) $(KERNEL_MCPU) -c $< -o $(@:.co=.o)
	$(KERNEL_CLANG) $(KERNEL_FLAGS) $(KERNEL_MCPU) -S $< -o $(@:.co=.s)
	ld.lld -shared $(@:.co=.o) -o $@
endef
$(BUILD)/kernels/%.co: traces/kernels/%.cl traces/include/cgm_device.h; $(kernel_link)
# tracegen carries the device header for the OpenCL C programs it compiles.
$(BUILD)/obj/tracegen/gpu/gpu_device_header.S.o: traces/include/cgm_device.h
$(BUILD)/kernels/test/%.co: tests/data/si/kernels/%.cl traces/include/cgm_device.h; $(kernel_link)
# What the loader must refuse or accept (test_si_refuse): micro.cl for other
# GPUs and the other SI chips -> $(BUILD)/kernels/target/GFX/micro.co, and
# tests/data/si/refused/NAME.cl (features the device lacks) -> kernels/refused/.
KERNEL_TARGETS := gfx601 gfx602 gfx700 gfx803 gfx900
KERNEL_COS += $(foreach g,$(KERNEL_TARGETS),$(BUILD)/kernels/target/$(g)/micro.co) \
              $(patsubst tests/data/si/refused/%.cl,$(BUILD)/kernels/refused/%.co,$(wildcard tests/data/si/refused/*.cl))
$(BUILD)/kernels/target/%/micro.co: KERNEL_MCPU = -mcpu=$*
$(BUILD)/kernels/target/%/micro.co: tests/data/si/kernels/micro.cl traces/include/cgm_device.h; $(kernel_link)
$(BUILD)/kernels/refused/%.co: tests/data/si/refused/%.cl traces/include/cgm_device.h; $(kernel_link)
.PHONY: kernels
kernels: $(KERNEL_COS)
all: kernels
test: kernels

# ---- x86 guest workloads (x86 part) -----------------------------------------
# traces/x86/*.c built statically with musl (every workload) and glibc; the
# x86 tests run them natively and under tracegen and compare.
X86_GUEST_SRC   := $(wildcard traces/x86/*.c)
X86_GUESTS_MUSL := $(patsubst traces/x86/%.c,$(BUILD)/traces/x86/musl/%,$(X86_GUEST_SRC))
X86_GUESTS_GLIBC := $(patsubst traces/x86/%.c,$(BUILD)/traces/x86/glibc/%,$(X86_GUEST_SRC))
X86_GUEST_FLAGS := -static -O2 -Iinclude
$(BUILD)/traces/x86/musl/%: traces/x86/%.c include/cgm/guest.h
	@mkdir -p $(dir $@)
	musl-gcc $(X86_GUEST_FLAGS) -o $@ $< -lm -lpthread
$(BUILD)/traces/x86/glibc/%: traces/x86/%.c include/cgm/guest.h
	@mkdir -p $(dir $@)
	gcc $(X86_GUEST_FLAGS) -o $@ $< -lm -lpthread
# The same workloads dynamically linked, as each compiler links by default
# (glibc: PIE with ld-linux; musl: its own loader): tracegen loads the
# host's interpreter and libraries.
X86_GUESTS_GLIBC_DYN := $(patsubst traces/x86/%.c,$(BUILD)/traces/x86/glibc-dyn/%,$(X86_GUEST_SRC))
X86_GUESTS_MUSL_DYN := $(patsubst traces/x86/%.c,$(BUILD)/traces/x86/musl-dyn/%,$(X86_GUEST_SRC))
$(BUILD)/traces/x86/musl-dyn/%: traces/x86/%.c include/cgm/guest.h
	@mkdir -p $(dir $@)
	musl-gcc -O2 -Iinclude -o $@ $< -lm -lpthread
$(BUILD)/traces/x86/glibc-dyn/%: traces/x86/%.c include/cgm/guest.h
	@mkdir -p $(dir $@)
	gcc -O2 -Iinclude -o $@ $< -lm -lpthread
# traces/x86/*.cc: C++ workloads, with glibc's libstdc++ only.
X86_GUEST_CXX := $(patsubst traces/x86/%.cc,$(BUILD)/traces/x86/glibc/%,$(wildcard traces/x86/*.cc))
$(BUILD)/traces/x86/glibc/%: traces/x86/%.cc
	@mkdir -p $(dir $@)
	g++ $(X86_GUEST_FLAGS) -pthread -o $@ $<
.PHONY: x86-guests
x86-guests: $(X86_GUESTS_MUSL) $(X86_GUESTS_GLIBC) $(X86_GUESTS_MUSL_DYN) $(X86_GUESTS_GLIBC_DYN) \
            $(X86_GUEST_CXX)
all: x86-guests
test: x86-guests

# ---- GPU host workloads (GPU driver part) ------------------------------------
# traces/gpu/*.c: guest programs that launch traces/kernels/*.cl through
# cgm/guest.h, built statically with musl; each prints PASS/FAIL under tracegen.
GPU_GUEST_SRC := $(wildcard traces/gpu/*.c)
GPU_GUESTS    := $(patsubst traces/gpu/%.c,$(BUILD)/traces/gpu/%,$(GPU_GUEST_SRC))
$(BUILD)/traces/gpu/%: traces/gpu/%.c $(wildcard traces/gpu/*.h) include/cgm/guest.h
	@mkdir -p $(dir $@)
	musl-gcc -static -O2 -Wall -Wextra -Werror -Iinclude -o $@ $< -lm -lpthread
.PHONY: gpu-guests
gpu-guests: $(GPU_GUESTS) kernels
all: gpu-guests
test: gpu-guests
bench-gpu: gpu-guests
validate: gpu-guests
$(addprefix test-,$(TEST_PARTS)): kernels x86-guests gpu-guests
test-formats: python

# ---- the guest OpenCL platform (opencl/) ------------------------------------
# Guest code: an ICD driver for the ocl-icd loader of dynamically linked
# (glibc) programs, with its vendors folder, which tracegen names in such a
# program's OCL_ICD_VENDORS, and a static library for static musl programs
# (-lcgmopencl, cgmopencl.pc). musl-gcc searches only musl's headers, so the
# OpenCL headers (Debian's opencl-c-headers) come through a folder of their own.
# clinfo (Debian's) runs under tracegen in test_opencl: one platform, one device.
DEB_PACKAGES += opencl-c-headers ocl-icd-libopencl1 clinfo
OPENCL_SRC    := $(wildcard opencl/*.c)
OPENCL_DIR    := $(BUILD)/opencl
OPENCL_ICD    := $(OPENCL_DIR)/libcgmopencl-icd.so
OPENCL_LIB    := $(OPENCL_DIR)/libcgmopencl.a
OPENCL_VENDOR := $(OPENCL_DIR)/vendors/cgmtrace.icd
OPENCL_INC    := $(OPENCL_DIR)/include
OPENCL_FLAGS  := -std=c11 -O2 -g $(WARN) -D_GNU_SOURCE -Iinclude
OPENCL_DEPS   := $(wildcard opencl/*.h) include/cgm/guest.h
$(OPENCL_INC)/CL:
	@mkdir -p $(dir $@)
	ln -sfn /usr/include/CL $@
$(OPENCL_DIR)/icd/%.o: opencl/%.c $(OPENCL_DEPS)
	@mkdir -p $(dir $@)
	gcc $(OPENCL_FLAGS) -fPIC -fvisibility=hidden -DCGM_OPENCL_ICD -c $< -o $@
$(OPENCL_DIR)/static/%.o: opencl/%.c $(OPENCL_DEPS) | $(OPENCL_INC)/CL
	@mkdir -p $(dir $@)
	musl-gcc $(OPENCL_FLAGS) -isystem $(OPENCL_INC) -c $< -o $@
$(OPENCL_ICD): $(patsubst opencl/%.c,$(OPENCL_DIR)/icd/%.o,$(OPENCL_SRC))
	gcc -shared -Wl,-soname,libcgmopencl-icd.so -o $@ $^ -lpthread
$(OPENCL_LIB): $(patsubst opencl/%.c,$(OPENCL_DIR)/static/%.o,$(OPENCL_SRC))
	@rm -f $@
	ar rcs $@ $^
$(OPENCL_VENDOR): $(OPENCL_ICD)
	@mkdir -p $(dir $@)
	echo $(abspath $(OPENCL_ICD)) > $@
.PHONY: opencl
opencl: $(OPENCL_ICD) $(OPENCL_LIB) $(OPENCL_VENDOR) $(OPENCL_INC)/CL
all: opencl
test: opencl
$(addprefix test-,$(TEST_PARTS)): opencl

# traces/opencl/*.c: plain OpenCL programs (twins of traces/gpu/ workloads),
# each linked two ways: dynamically with glibc and -lOpenCL (natively the
# host's platforms, under tracegen the guest platform) and statically with
# musl and libcgmopencl.a.
CL_GUEST_SRC := $(wildcard traces/opencl/*.c)
CL_GUESTS    := $(patsubst traces/opencl/%.c,$(BUILD)/traces/opencl/dyn/%,$(CL_GUEST_SRC)) \
                $(patsubst traces/opencl/%.c,$(BUILD)/traces/opencl/static/%,$(CL_GUEST_SRC))
CL_GUEST_FLAGS := -O2 -Wall -Wextra -Werror -Iinclude
$(BUILD)/traces/opencl/dyn/%: traces/opencl/%.c $(wildcard traces/opencl/*.h) include/cgm/guest.h
	@mkdir -p $(dir $@)
	gcc $(CL_GUEST_FLAGS) -o $@ $< -lOpenCL -lm
$(BUILD)/traces/opencl/static/%: traces/opencl/%.c $(wildcard traces/opencl/*.h) include/cgm/guest.h \
                                 $(OPENCL_LIB) | $(OPENCL_INC)/CL
	@mkdir -p $(dir $@)
	musl-gcc -static $(CL_GUEST_FLAGS) -isystem $(OPENCL_INC) -o $@ $< $(OPENCL_LIB) -lm -lpthread
.PHONY: cl-guests
cl-guests: $(CL_GUESTS) opencl
all: cl-guests
test: cl-guests
$(addprefix test-,$(TEST_PARTS)): cl-guests

# ---- demo, validation, install ---------------------------------------------
demo: $(PROGRAMS) x86-guests cl-guests
	@sh traces/demo.sh $(BIN)

# The seed's three studies (traces/studies/): record, sweep, plot into build/studies.
.PHONY: studies
studies: $(PROGRAMS) gpu-guests $(patsubst traces/opencl/%.c,$(BUILD)/traces/opencl/static/%,$(CL_GUEST_SRC))
	@sh traces/studies/run.sh $(BIN) $(BUILD)/traces/gpu

# Validation-only tools: a single-node Slurm cluster for the sweep's job arrays.
VALIDATE_PACKAGES := slurmctld slurmd slurm-client munge
.PHONY: deps-validate
deps-validate:
	@command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null && \
	  command -v munged >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq $(VALIDATE_PACKAGES); \
	  else echo "make validate needs: apt-get install -y $(VALIDATE_PACKAGES)"; exit 1; fi; }

validate: $(PROGRAMS) deps-validate
	@$(TEST_ENV) sh tests/validate/run.sh

# install-built installs what is built without building anything (the
# install test uses it on the tree make test built). The guest OpenCL
# platform: the ICD driver and its vendors folder under lib/cgmtrace (where
# an installed tracegen looks), libcgmopencl.a with cgmopencl.pc (musl static
# programs: musl-gcc -static $(pkg-config --cflags --libs cgmopencl)).
PYTHONDIR ?= $(PREFIX)/lib/python3/dist-packages
install: $(PROGRAMS) $(ALL_LIBS) $(LIB_TRACE_SO) python opencl
	@$(MAKE) --no-print-directory install-built
.PHONY: install-built
install-built:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/cgm $(DESTDIR)$(PREFIX)/lib \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PYTHONDIR)/cgmtrace \
	  $(DESTDIR)$(PREFIX)/lib/cgmtrace/vendors $(DESTDIR)$(PREFIX)/include/cgmtrace-opencl
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin
	install -m 644 include/cgm/*.h include/cgm/*.def $(DESTDIR)$(PREFIX)/include/cgm
	install -m 644 $(ALL_LIBS) $(DESTDIR)$(PREFIX)/lib
	install -m 644 $(LIB_FORMATS) $(DESTDIR)$(PREFIX)/lib/libcgmtrace.a
	install -m 755 $(LIB_TRACE_SO) $(DESTDIR)$(PREFIX)/lib
	ln -sf $(notdir $(LIB_TRACE_SO)) $(DESTDIR)$(PREFIX)/lib/$(TRACE_SONAME)
	ln -sf $(TRACE_SONAME) $(DESTDIR)$(PREFIX)/lib/libcgmtrace.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(TRACE_SO_VERSION)|' \
	  -e 's|@REQUIRES@|$(PC_formats)|' formats/cgmtrace.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/cgmtrace.pc
	install -m 644 $(PYTHON_PKG) $(DESTDIR)$(PYTHONDIR)/cgmtrace
	install -m 644 $(OPENCL_LIB) $(DESTDIR)$(PREFIX)/lib
	install -m 755 $(OPENCL_ICD) $(DESTDIR)$(PREFIX)/lib/cgmtrace
	echo $(PREFIX)/lib/cgmtrace/libcgmopencl-icd.so > $(DESTDIR)$(PREFIX)/lib/cgmtrace/vendors/cgmtrace.icd
	ln -sfn /usr/include/CL $(DESTDIR)$(PREFIX)/include/cgmtrace-opencl/CL
	printf '%s\n' 'prefix=$(PREFIX)' 'Name: cgmopencl' \
	  'Description: the cgmtrace guest OpenCL 1.2 platform, static, for musl programs' \
	  'Version: 1.2' 'Cflags: -I$${prefix}/include -isystem $${prefix}/include/cgmtrace-opencl' \
	  'Libs: -L$${prefix}/lib -lcgmopencl' > $(DESTDIR)$(PREFIX)/lib/pkgconfig/cgmopencl.pc

# Keep intermediate objects so a second make rebuilds nothing.
.SECONDARY:

clean:
	rm -rf build bin

-include $(shell find $(BUILD)/obj $(BUILD)/pic -name '*.d' 2>/dev/null)
