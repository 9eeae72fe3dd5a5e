# Caldera's build: bin/jobserver and bin/jobctl, the sanitizer-built test suite,
# benchmarks and fuzzers. Missing Debian packages are installed before anything builds.

.DEFAULT_GOAL := all
SHELL := /bin/bash
.DELETE_ON_ERROR:

# --- dependencies ----------------------------------------------------------
NO_DEPS_GOALS := clean help
ifeq ($(filter $(NO_DEPS_GOALS),$(MAKECMDGOALS)),)
# make bench drives the server with wrk (Debian's) too.
ifneq ($(filter bench,$(MAKECMDGOALS)),)
EXTRA_DEBS += wrk
endif
DEPS_STATUS := $(shell ./tools/ensure-deps $(EXTRA_DEBS) >&2 && echo ok)
ifneq ($(DEPS_STATUS),ok)
$(error build dependencies are missing; see the message above)
endif
endif

# Every core compiles: the four builds (release, ASan, TSan, fuzzers) are ~2,000 compilations, which took
# about as long as the tests themselves one at a time. A -j given on the command line wins.
MAKEFLAGS += -j$(shell nproc)

PKG_MODULES := libmicrohttpd jansson libcurl sqlite3 libwebsockets yaml-0.1 libcrypto
PKG_CFLAGS := $(shell pkg-config --cflags $(PKG_MODULES) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(PKG_MODULES) 2>/dev/null) -lpthread -lm

CC ?= cc
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers -Wno-format-truncation
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -I. $(PKG_CFLAGS) -MMD -MP
# Release builds drop the assert()s on the core's invariants; the sanitizer builds (tests) keep them.
REL_CFLAGS := $(BASE_CFLAGS) -O2 -g -DNDEBUG
# The sanitizer builds keep line tables only (-g1): a report's every frame still names its file and
# line, and each compilation takes a fifth less (the suite compiles ~1,400 files this way). For a
# debugger's variables: make SAN_DEBUG=-g ...
SAN_DEBUG ?= -g1
ASAN_CFLAGS := $(BASE_CFLAGS) -O1 $(SAN_DEBUG) -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
# The runtimes linked in: GCC's shared libubsan carries a 6 MB writable segment of its own, which
# LeakSanitizer scans (page by page, faulting each in) at every exit: 36 ms of each ASan process's
# ~100 ms here, and the suite runs thousands (jobctl, servers, tests).
ASAN_LDFLAGS := -fsanitize=address,undefined -static-libasan -static-libubsan
# ThreadSanitizer cannot share objects with ASan: its own tree, build/tsan/.
TSAN_CFLAGS := $(BASE_CFLAGS) -O1 $(SAN_DEBUG) -fno-omit-frame-pointer -fsanitize=thread
TSAN_LDFLAGS := -fsanitize=thread

# --- sources ---------------------------------------------------------------
# The library: every source under these folders, at any depth; the daemon's own folder builds bin/jobserver.
LIB_ROOTS := common model store adapters runtime scheduler gateway
LIB_SRCS := $(shell find $(LIB_ROOTS) -name '*.c' | LC_ALL=C sort)
JOBSERVER_SRCS := $(wildcard daemon/*.c)
JOBCTL_SRCS := $(wildcard tools/jobctl/*.c)
SIMULATE_SRCS := $(wildcard tools/simulate/*.c)
# The web terminal companion, with its page and xterm.js compiled in (tools/terminal/embed-assets).
TERMINAL_SRCS := $(wildcard tools/terminal/*.c) build/gen/terminal_assets.c
TESTLIB_SRCS := $(wildcard tests/lib/*.c)
UNIT_SRCS := $(wildcard tests/unit/*.c)
INTEGRATION_SRCS := $(wildcard tests/integration/*.c)
BENCH_SRCS := $(wildcard tests/bench/*.c)

# Quiet by default; `make V=1` prints every command.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-7s %s\n' $(1) $(2)
endif

obj = $(patsubst %.c,build/$(1)/%.o,$(2))

# The tools' own code minus their main(), so unit tests can link against it.
TOOL_LIB_SRCS := $(filter-out tools/jobctl/main.c tools/simulate/main.c,$(JOBCTL_SRCS) $(SIMULATE_SRCS))

REL_LIB := build/rel/libcaldera.a
REL_TESTLIB := build/rel/libtest.a

UNIT_BINS := $(patsubst tests/unit/%.c,build/asan/tests/unit/%,$(UNIT_SRCS))
INTEGRATION_BINS := $(patsubst tests/integration/%.c,build/asan/tests/integration/%,$(INTEGRATION_SRCS))
BENCH_BINS := $(patsubst tests/bench/%.c,build/rel/tests/bench/%,$(BENCH_SRCS))

# --- rules -----------------------------------------------------------------
build/rel/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(REL_CFLAGS) -c $< -o $@

# san_build(VARIANT,LABEL,FLAGS): a sanitizer build in build/VARIANT/, compiled with $(FLAGS_CFLAGS) and
# linked with $(FLAGS_LDFLAGS): objects, the libraries, the servers and tools in bin/, the tests.
define san_build
build/$(1)/%.o: %.c
	@mkdir -p $$(@D)
	$$(call say,$(2),$$<)
	$$(Q)$$(CC) $$($(3)_CFLAGS) -c $$< -o $$@

build/$(1)/libcaldera.a: $$(call obj,$(1),$$(LIB_SRCS))
	@rm -f $$@
	$$(Q)ar rcs $$@ $$^

build/$(1)/libtest.a: $$(call obj,$(1),$$(TESTLIB_SRCS))
	@rm -f $$@
	$$(Q)ar rcs $$@ $$^

build/$(1)/libtools.a: $$(call obj,$(1),$$(TOOL_LIB_SRCS))
	@rm -f $$@
	$$(Q)ar rcs $$@ $$^

build/$(1)/bin/jobserver: $$(call obj,$(1),$$(JOBSERVER_SRCS))
build/$(1)/bin/jobctl: $$(call obj,$(1),$$(JOBCTL_SRCS))
build/$(1)/bin/simulate: $$(call obj,$(1),$$(SIMULATE_SRCS))
build/$(1)/bin/jobserver build/$(1)/bin/jobctl build/$(1)/bin/simulate: build/$(1)/libcaldera.a
	@mkdir -p $$(@D)
	$$(call say,LINK,$$@)
	$$(Q)$$(CC) $$($(3)_LDFLAGS) -o $$@ $$(filter %.o,$$^) $$(filter %.a,$$^) $$(PKG_LIBS)

build/$(1)/bin/caldera-terminal: $$(call obj,$(1),$$(TERMINAL_SRCS)) build/$(1)/libcaldera.a
	@mkdir -p $$(@D)
	$$(call say,LINK,$$@)
	$$(Q)$$(CC) $$($(3)_LDFLAGS) -o $$@ $$^ $$(PKG_LIBS)

build/$(1)/tests/%: build/$(1)/tests/%.o build/$(1)/libtest.a build/$(1)/libtools.a build/$(1)/libcaldera.a
	@mkdir -p $$(@D)
	$$(call say,LINK,$$@)
	$$(Q)$$(CC) $$($(3)_LDFLAGS) -o $$@ $$^ $$(PKG_LIBS)
endef
$(eval $(call san_build,asan,CC-ASAN,ASAN))
$(eval $(call san_build,tsan,CC-TSAN,TSAN))

$(REL_LIB): $(call obj,rel,$(LIB_SRCS))
	@rm -f $@
	$(Q)ar rcs $@ $^

$(REL_TESTLIB): $(call obj,rel,$(TESTLIB_SRCS))
	@rm -f $@
	$(Q)ar rcs $@ $^

bin/jobserver: $(call obj,rel,$(JOBSERVER_SRCS)) $(REL_LIB)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(PKG_LIBS)

bin/jobctl: $(call obj,rel,$(JOBCTL_SRCS)) $(REL_LIB)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(PKG_LIBS)

bin/simulate: $(call obj,rel,$(SIMULATE_SRCS)) $(REL_LIB)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(PKG_LIBS)

bin/caldera-terminal: $(call obj,rel,$(TERMINAL_SRCS)) $(REL_LIB)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(PKG_LIBS)

# Never fails for want of npm: without it the terminal's page falls back to a line console.
build/gen/terminal_assets.c: tools/terminal/embed-assets $(wildcard tools/terminal/web/*)
	$(call say,GEN,$@)
	$(Q)./tools/terminal/embed-assets $@ build/npm

# The task supervisor: one runs beside every task, so it is small, static and uninstrumented, and
# built against musl, whose static start-up costs half of glibc's (measured: 0.2 ms against 0.4 ms
# per exec here). The sanitizer builds' servers find their copy next to themselves.
SHIM_CC := $(shell command -v musl-gcc 2>/dev/null || echo $(CC))
SHIM_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -O2 -static
bin/caldera-shim build/asan/bin/caldera-shim build/tsan/bin/caldera-shim: $(wildcard tools/shim/*.c tools/shim/*.h)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(SHIM_CC) $(SHIM_CFLAGS) -o $@ $(filter %.c,$^)

# The browser UI's bench is a Node script (Chromium through playwright-core, as tests/e2e), run with the rest.
BENCH_BINS += build/rel/tests/bench/bench_ui
build/rel/tests/bench/bench_ui: tests/bench/bench_ui.mjs
	@mkdir -p $(@D)
	$(Q)install -m 755 $< $@

# A stand-in for the driver's libnvidia-ml.so.1 (fixed devices; utilisation and memory set through its
# environment), which the GPU discovery and usage tests load.
FAKE_NVML := build/fake/libnvidia-ml.so.1
$(FAKE_NVML): tests/fakes/fake_nvml.c
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(CC) -std=c11 $(WARN) -O1 -shared -fPIC -o $@ $<
build/asan/tests/unit/test_gpu_discovery build/tsan/tests/unit/test_gpu_discovery: | $(FAKE_NVML)
build/asan/tests/unit/test_gpu_usage build/tsan/tests/unit/test_gpu_usage: | $(FAKE_NVML)
# The GPU usage test's servers sample it.
build/asan/tests/integration/test_gpu_usage build/tsan/tests/integration/test_gpu_usage: | $(FAKE_NVML)
# The GPU health test's servers load it for MIG devices, Xid events and GPUs that go.
build/asan/tests/integration/test_gpu_health build/tsan/tests/integration/test_gpu_health: | $(FAKE_NVML)
# The WatchDog test's servers lose and regain GPUs through it.
build/asan/tests/integration/test_watchdog build/tsan/tests/integration/test_watchdog: | $(FAKE_NVML)

build/rel/tests/bench/%: build/rel/tests/bench/%.o $(REL_TESTLIB) $(REL_LIB)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(CC) -o $@ $^ $(PKG_LIBS)

# Fuzzers: clang's libFuzzer against the library compiled on its own with coverage, ASan and UBSan.
# build/fuzz/suite/fuzz_NAME runs fuzzer NAME for $FUZZ_SECONDS through tests/fuzz/run-fuzzer, so
# tests/run-tests counts it like any test binary.
FUZZ_CC := /usr/bin/clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := $(filter-out -Wno-format-truncation,$(BASE_CFLAGS)) -O1 $(SAN_DEBUG) -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link -DINTAKE_ARENA_MIN_BODY=0
FUZZ_LDFLAGS := $(FUZZ_SAN) -fsanitize=fuzzer
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SUPPORT_SRCS := $(wildcard tests/fuzz/support/*.c)
FUZZ_LIB := build/fuzz/libcaldera.a
# The fuzzers drive the intake and the adapters: the archive holds adapters/ and the floors it stands on
# (test_layers keeps adapters/ off the floors above), not the ~200 files of the scheduler, store and
# gateway that no fuzzer links (a minute of the suite's build).
FUZZ_LIB_ROOTS := common model runtime adapters
FUZZ_LIB_SRCS := $(filter $(addsuffix /%,$(FUZZ_LIB_ROOTS)),$(LIB_SRCS))
FUZZ_BINS := $(patsubst %,build/fuzz/bin/fuzz_%,$(FUZZ_NAMES))
FUZZ_SUITE := $(patsubst %,build/fuzz/suite/fuzz_%,$(FUZZ_NAMES))

build/fuzz/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC-FUZZ,$<)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_LIB): $(call obj,fuzz,$(FUZZ_LIB_SRCS))
	@rm -f $@
	$(Q)ar rcs $@ $^

build/fuzz/bin/fuzz_%: build/fuzz/tests/fuzz/fuzz_%.o $(call obj,fuzz,$(FUZZ_SUPPORT_SRCS)) $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(PKG_LIBS)

build/fuzz/suite/fuzz_%: build/fuzz/bin/fuzz_%
	@mkdir -p $(@D)
	$(Q)printf '#!/bin/sh\n# Runs fuzzer %s for $$FUZZ_SECONDS (made by the Makefile).\nexec "$$(dirname "$$0")/../../../tests/fuzz/run-fuzzer" %s\n' $* $* >$@
	$(Q)chmod +x $@

.SECONDARY:

# --- goals -----------------------------------------------------------------
.PHONY: all run test test-build e2e e2e-deps compose-test tsan tsan-build bench soak fuzz clean help layers

BINARIES := bin/jobserver bin/jobctl bin/caldera-shim bin/caldera-terminal $(if $(SIMULATE_SRCS),bin/simulate)
ASAN_BINARIES := build/asan/bin/jobserver build/asan/bin/jobctl build/asan/bin/caldera-shim build/asan/bin/caldera-terminal $(if $(SIMULATE_SRCS),build/asan/bin/simulate)

all: $(BINARIES)

## make run [PORT=8080] [DATA=./var] [ARGS="..."]: build and start the server with its embedded defaults on
## 127.0.0.1:PORT, its database and the jobs' files in DATA
PORT ?= 8080
DATA ?= ./var
run: all
	./bin/jobserver --listen 127.0.0.1:$(PORT) --data $(DATA) $(ARGS)

test-build: $(UNIT_BINS) $(INTEGRATION_BINS) $(ASAN_BINARIES) all $(FUZZ_SUITE)

## make test: every unit and integration test, built with ASan+UBSan, each fuzzer for FUZZ_SECONDS
## (default 20), the browser, README and container tests (tests/e2e) and the house's plan (tests/structure),
## TEST_JOBS at a time (default: cores + 1); prints "N passed, N failed"
# Longest first, so the last slots hold short tests rather than one long one: tests/e2e (its container
# stack's first build takes minutes, mostly downloads), then the fuzzers (each FUZZ_SECONDS of a core),
# the integration tests, the unit tests and the house's plan. Alone, after the others (TEST_SERIAL):
# ml_jobs, whose PyTorch and Open MPI ranks load every core.
TEST_SERIAL := test_ml_jobs
test: test-build e2e-deps
	@FUZZ_SECONDS=$(or $(FUZZ_SECONDS),20) TEST_SERIAL="$(TEST_SERIAL)" ./tests/run-tests tests/e2e build/fuzz/suite build/asan/tests/integration build/asan/tests/unit tests/structure

## make e2e: the browser tests only (tests/e2e: Node, playwright-core, headless Chromium)
e2e: $(ASAN_BINARIES) e2e-deps
	@./tests/run-tests tests/e2e

# The browser tests' Chromium (Debian's) and playwright-core (pinned, in build/npm), the companions'
# jupyter-notebook (Debian's 6.4: test_companions, test_companion_proxy), and the
# Kubernetes clients' python3-kubernetes and kubectl (Debian's; test_kubectl_get and
# tests/e2e/test_k8s_clients), fetched when missing; never fails the build: without them the tests
# skip, saying what to install. code-server (~70 s and 280 MB, native modules built) only with
# CALDERA_E2E_CODE_SERVER=1.
PLAYWRIGHT_VERSION := 1.65.1
CODE_SERVER_VERSION := 4.100.3
e2e-deps:
	@./tools/ensure-deps chromium || echo "caldera: no Chromium; the browser tests (tests/e2e) will skip" >&2
	@./tools/ensure-deps jupyter-notebook || echo "caldera: no jupyter-notebook; the companions' jupyter cases skip" >&2
	@./tools/ensure-deps python3-kubernetes || echo "caldera: no python3-kubernetes; tests/e2e/test_k8s_clients and test_kubectl_write's client case skip" >&2
	@./tools/ensure-deps slurmctld slurmd slurm-client slurmrestd || echo "caldera: no Slurm; tests/integration/test_slurm_* skip" >&2
	@./tools/ensure-deps slurmdbd mariadb-server || echo "caldera: no slurmdbd/MariaDB; tests/integration/test_slurm_accounting skips" >&2
	@command -v kubectl >/dev/null || ./tools/ensure-deps kubectl || echo "caldera: no kubectl; test_kubectl_get and test_k8s_clients skip their kubectl cases" >&2
	@grep -qs '"version": "$(PLAYWRIGHT_VERSION)"' build/npm/node_modules/playwright-core/package.json || \
	  timeout 180 npm install --no-audit --no-fund --silent --save-exact --prefix build/npm playwright-core@$(PLAYWRIGHT_VERSION) >&2 || \
	  echo "caldera: npm could not install playwright-core; the browser tests (tests/e2e) will skip" >&2
	@if [ -n "$${CALDERA_E2E_CODE_SERVER:-}" ]; then ./tests/e2e/lib/install-code-server build/npm $(CODE_SERVER_VERSION); fi

## make layers: the folders at each depth, bottom floor first, what each uses, and the files that call each other;
## fails where an include or a call runs back up between folders or a loop of calling files spans more than two
layers: test-build
	@./tests/structure/test_layers --show build/asan

## make tsan: the integration tests and the unit tests of the threaded parts (hub, store writer, spare
## files, WebSocket rules, document arenas and free_later) built with ThreadSanitizer, against TSan-built
## servers; any report fails the test that caused it; prints "N passed, N failed"
TSAN_UNIT := hub store store_history_list store_migrations store_retention spare_files ws_rules notifier intake_arena intake_parts \
             restore_jobs core_start
# Integration tests left out under TSan (make test runs them), each with its reason:
#   ml_jobs: its work is PyTorch and Open MPI in the tasks; the server's threads do nothing there that
#            the other tests do not (12 s under TSan, and the suite's time is kept under 15 minutes).
#   slurm_cluster, simulate: no thread of Caldera's runs in them (the Slurm REST client alone against
#            the daemons; bin/simulate, one thread): TSan has nothing to watch (9-79 s and 4-11 s).
TSAN_SKIP := ml_jobs slurm_cluster simulate
TSAN_TESTS := $(patsubst %,build/tsan/tests/unit/test_%,$(TSAN_UNIT)) \
              $(filter-out $(patsubst %,build/tsan/tests/integration/test_%,$(TSAN_SKIP)),$(patsubst tests/integration/%.c,build/tsan/tests/integration/%,$(INTEGRATION_SRCS)))
TSAN_BINARIES := build/tsan/bin/jobserver build/tsan/bin/jobctl build/tsan/bin/caldera-shim build/tsan/bin/caldera-terminal $(if $(SIMULATE_SRCS),build/tsan/bin/simulate)
TSAN_REPORTS := $(CURDIR)/build/tsan/reports

tsan-build: $(TSAN_TESTS) $(TSAN_BINARIES)

tsan: tsan-build
	@rm -rf build/tsan/suite && mkdir -p build/tsan/suite/unit build/tsan/suite/integration
	@for t in $(TSAN_TESTS); do ln -s "$(CURDIR)/$$t" "build/tsan/suite/$$(basename "$$(dirname "$$t")")/"; done
	@TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 log_path=$(TSAN_REPORTS)/tsan suppressions=$(CURDIR)/tests/tsan.supp" \
	  SANITIZER_REPORT_DIR=$(TSAN_REPORTS) CALDERA_BIN_DIR=$(CURDIR)/build/tsan/bin CALDERA_JOBCTL=$(CURDIR)/build/tsan/bin/jobctl \
	  ./tests/run-tests build/tsan/suite/integration build/tsan/suite/unit

## make bench [ONLY=prefix]: every benchmark, one "bench: <name> <value> <unit>" line per figure
## make soak [SOAK_SECONDS=600]: the server under a steady mixed load, its memory sampled (release
## build), then the same with the ASan+UBSan server, whose reports (leaks too) are counted
soak: $(BENCH_BINS) all $(ASAN_BINARIES)
	@./tests/bench/run-benches build/rel/tests/bench soak
	@SOAK_ASAN=1 ./tests/bench/run-benches build/rel/tests/bench soak

bench: $(BENCH_BINS) all
	@./tests/bench/run-benches build/rel/tests/bench "$(ONLY)"

## make compose-test: tests/e2e/test_compose alone (a docker daemon of its own builds the stack from a
## debootstrap base image and brings it up: 3-4 minutes the first time)
compose-test: all
	@./tests/e2e/test_compose

## make fuzz [FUZZ_SECONDS=600]: each libFuzzer target for FUZZ_SECONDS; crashes kept in build/fuzz/crashes/
fuzz: $(FUZZ_SUITE)
	@FUZZ_SECONDS=$(or $(FUZZ_SECONDS),600) TEST_TIMEOUT=$$(( $(or $(FUZZ_SECONDS),600) + 300 )) ./tests/run-tests build/fuzz/suite

clean:
	rm -rf build bin

help:
	@grep -h '^## ' $(MAKEFILE_LIST) | sed 's/^## //'

-include $(shell find build -name '*.d' 2>/dev/null)
