# gpuaudit - top-level entry points. CMake does the building; this file is the
# short list of things a person types.
#
#   make            build (build/gpuaudit); without cmocka the tests are left out,
#                   said in one line (GA_TESTS=AUTO)
#   make demo       install what is missing of the build profile, build, describe
#                   this machine and run the preflight job on it
#   make test       install what is missing of the test profile, build, lint, and
#                   run every test twice: a normal build and an AddressSanitizer+UBSan build
#   (scripts/install-deps build|test|package|bench: the packages of each profile;
#    as a plain user it prints the one sudo line for what is missing)
#   make lint       clang-format --dry-run and the clang-tidy checks (tools/lint)
#   make fuzz       build the libFuzzer targets with clang (build-fuzz/)
#   make fuzz-short run each fuzz target for FUZZ_SHORT_SECONDS (2) on a copy of
#                   its corpus (part of make test when clang has libFuzzer)
#   make fuzz-long  the same for FUZZ_SECONDS each (600; nightly-style)
#   make bench      run the benchmarks in bench/ (installs the peer tools)
#   make format     clang-format the C sources
#   make install    install the binary and man pages (PREFIX=/usr/local)
#   make deb        the Debian package, built with debhelper from a copy of the
#                   tree (git's files in a checkout, the whole tree less build
#                   outputs in an unpacked tarball), then lintian
#                   (build-deb/gpuaudit_*.deb; docs/deploy.md)
#   make dist       build-dist/gpuaudit-VERSION.tar.gz: git archive of HEAD plus a
#                   REVISION file (make deb and make image work in it unpacked)
#   make image      the OCI image (build-image/: an OCI layout and a docker-archive
#                   tarball), assembled without a container daemon (scripts/mkimage)

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
DEB_BUILD  ?= build-deb
IMAGE_BUILD ?= build-image
PREFIX     ?= /usr/local
FUZZ_SECONDS       ?= 600
FUZZ_SHORT_SECONDS ?= 2
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
# The sanitizer pass runs one test more than there are CPUs: a sanitized process spends
# much of its life starting and exiting, and the tests that wait on servers and timers
# leave a CPU idle (on 2 cores: 408 s at -j2, 356-413 s at -j3, all passing; docs/testing.md).
ASAN_JOBS  ?= $(shell echo $$(( $(JOBS) + 1 )))
# Warnings are errors in CI (CI=true) and when WERROR=ON is given.
WERROR     ?= $(if $(filter true 1,$(CI)),ON,OFF)

CMAKE_COMMON = -DGA_WERROR=$(WERROR) -DCMAKE_INSTALL_PREFIX=$(PREFIX)

.PHONY: all build deps deps-build demo test test-normal test-asan lint fuzz fuzz-short fuzz-long bench format install deb image dist clean

all: build

deps:
	@scripts/install-deps test

deps-build:
	@scripts/install-deps build

# Configure every time (cheap once cached) so that WERROR and PREFIX given now
# apply to a build directory configured earlier without them.
build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_COMMON)
	cmake --build $(BUILD) -j $(JOBS)

demo: deps-build build
	@echo
	@echo '== gpuaudit discover (this machine) =='
	@$(BUILD)/gpuaudit discover; rc=$$?; echo; echo "exit status $$rc (0 = no error-level findings)"
	@echo
	@echo '== gpuaudit class (this machine'"'"'s node class and compile-cache key) =='
	@$(BUILD)/gpuaudit class
	@echo
	@echo '== gpuaudit preflight (discover, built-in GEMM warm-up checked against a CPU reference) =='
	@$(BUILD)/gpuaudit preflight; rc=$$?; echo; echo "exit status $$rc (0 = every step passed)"

test: deps
	$(MAKE) lint
	$(MAKE) test-normal
	$(MAKE) test-asan
	$(MAKE) fuzz-short FUZZ_OPTIONAL=1

# clang-tidy reads the build's compile_commands.json.
lint: build
	tools/lint $(BUILD)

test-normal: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGA_SANITIZE=ON $(CMAKE_COMMON)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(ASAN_JOBS) -LE 'source|measure|sanitizer-one-log'

fuzz: deps
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DGA_FUZZ=ON -DGA_TESTS=OFF $(CMAKE_COMMON)
	cmake --build $(FUZZ_BUILD) -j $(JOBS)

# tools/fuzz-run: every target for a budget each, JOBS at a time; exit 1 on any crash,
# leak, timeout or out-of-memory input (saved under build-fuzz/fuzz-run/crashes/).
# FUZZ_OPTIONAL=1 (make test): without clang's libFuzzer, say so and pass.
define fuzz_for
	@if ! tools/fuzz-run --available; then \
		if [ "$(FUZZ_OPTIONAL)" = 1 ]; then \
			echo "fuzz: skipped: clang with libFuzzer (-fsanitize=fuzzer) is not available"; exit 0; \
		fi; \
		echo "fuzz: clang with libFuzzer (-fsanitize=fuzzer) is not available" >&2; exit 2; \
	fi; \
	$(MAKE) fuzz && tools/fuzz-run --build $(FUZZ_BUILD) --seconds $(1) --jobs $(JOBS)
endef

fuzz-short:
	$(call fuzz_for,$(FUZZ_SHORT_SECONDS))

fuzz-long:
	$(call fuzz_for,$(FUZZ_SECONDS))

bench: build
	@scripts/install-deps bench
	bench/discover.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

install: build
	cmake --install $(BUILD)

# dpkg-buildpackage works in a copy of the tree, so the work tree stays clean: in a git
# checkout the tracked and untracked files (not the ignored build directories), exactly
# what git would ship; in an unpacked release tarball (no .git) the whole tree less the
# build outputs (also when the tarball is unpacked inside some other git work tree).
# The version is debian/changelog's either way (the tarball carries it). The package
# builds with GA_TESTS=OFF (debian/rules), so tests/ and fuzz/ (80,000 small fixture
# files, most of the tree's copy and dh_clean time) are not copied.
DEB_COPY_EXCLUDE = --exclude=./.git --exclude='./build' --exclude='./build-*' --exclude=./out --exclude=__pycache__ \
	--exclude=./$(DEB_BUILD) --exclude=./$(IMAGE_BUILD) --exclude=./$(BUILD) --exclude=./$(ASAN_BUILD) \
	--exclude=./$(FUZZ_BUILD) --exclude=./tests --exclude=./fuzz
deb:
	@scripts/install-deps package
	rm -rf $(DEB_BUILD) && mkdir -p $(DEB_BUILD)/src
	@if [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$$(pwd -P)" ]; then \
		echo "deb: copying git's files (tracked and untracked, not ignored)"; \
		git ls-files -z -co --exclude-standard -- . ':(exclude)tests' ':(exclude)fuzz' | tar --null -T - --ignore-failed-read -cf - 2>/dev/null \
			| tar -xf - -C $(DEB_BUILD)/src; \
	else \
		echo "deb: no git checkout: copying the tree (less build outputs)"; \
		tar $(DEB_COPY_EXCLUDE) -cf - . | tar -xf - -C $(DEB_BUILD)/src; \
	fi
	@test -s $(DEB_BUILD)/src/debian/changelog || { echo "deb: debian/changelog is missing from the copy" >&2; exit 1; }
	cd $(DEB_BUILD)/src && DEB_BUILD_OPTIONS="parallel=$(JOBS)" dpkg-buildpackage -us -uc -b
	lintian --fail-on error --info $(DEB_BUILD)/gpuaudit_*.changes | tee $(DEB_BUILD)/lintian.txt

# the release tarball: what git tracks at HEAD, under gpuaudit-VERSION/ (the version
# of debian/changelog, which the tarball carries), and the commit in REVISION
DIST_BUILD ?= build-dist
dist:
	@v=$$(dpkg-parsechangelog -S Version 2>/dev/null || sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog); \
	mkdir -p $(DIST_BUILD) && git rev-parse HEAD >$(DIST_BUILD)/REVISION && \
	git archive --format=tar.gz --prefix=gpuaudit-$$v/ --add-file=$(DIST_BUILD)/REVISION \
		-o $(DIST_BUILD)/gpuaudit-$$v.tar.gz HEAD && echo "$(DIST_BUILD)/gpuaudit-$$v.tar.gz"

image: deb
	scripts/mkimage $(DEB_BUILD) $(IMAGE_BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) $(DEB_BUILD) $(IMAGE_BUILD) $(DIST_BUILD)
