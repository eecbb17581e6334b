# pokesync: make demo (offline end-to-end on the sample data), make test, make bench.
SWIFT ?= swift
PREFIX ?= /usr/local
RELEASE_BIN = .build/release/pokesync
# `make install`'s build: the Swift runtime and Foundation linked in (--static-swift-stdlib),
# so the binary runs on a machine without the toolchain; its own folder, so that `make build`
# and this do not rebuild each other. It still loads system libraries (static-check lists them).
STATIC_BIN = .build/static/release/pokesync

.PHONY: build build-commit debug test demo bench bench-whole bench-media bench-serve bench-serve-busy bench-replicas static static-check install install-files uninstall clean

# The commit `pokesync --version` and `status --json` name besides the release: git describe
# of this checkout (-dirty with uncommitted changes), written into a Swift file git ignores
# and compiled in by BUILD_COMMIT_FLAG (PokeSync.commit). Written only when it changes, so an
# unchanged tree does not rebuild; outside a git checkout it says nil ("unknown commit").
# safe.directory: `make install` as root in a checkout another user owns still reads it.
BUILD_COMMIT_FILE ?= Sources/PokeSyncCore/Support/BuildCommit.generated.swift
BUILD_COMMIT_FLAG = -Xswiftc -DPOKESYNC_BUILD_COMMIT

build-commit:
	@commit=$$(git -c safe.directory='$(CURDIR)' -C '$(CURDIR)' describe --always --dirty --abbrev=12 2>/dev/null); \
	if [ -n "$$commit" ]; then value="\"$$commit\""; else value=nil; fi; \
	printf '%s\n' '// Written by `make build-commit` (the Makefile); git ignores it. See PokeSync.commit.' \
	    "let buildCommit: String? = $$value" > "$(BUILD_COMMIT_FILE).new"; \
	if cmp -s "$(BUILD_COMMIT_FILE).new" "$(BUILD_COMMIT_FILE)"; then rm -f "$(BUILD_COMMIT_FILE).new"; \
	else mv -f "$(BUILD_COMMIT_FILE).new" "$(BUILD_COMMIT_FILE)"; fi

build: build-commit
	$(SWIFT) build -c release $(BUILD_COMMIT_FLAG)

debug:
	$(SWIFT) build

# Warnings are errors here, so the build stays warning-free (CI runs exactly this).
test:
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	$(SWIFT) test --skip-build

demo: build
	bash Tests/Support/demo.sh $(RELEASE_BIN)

# Needs PokeAPI's data: a PokeAPI/api-data checkout named by POKESYNC_API_DATA (every part
# reads it), else ../shared/fixtures (Tests/Support/bench_data.py says how); see Tests/Support/bench.py
# (the crawl), Tests/Support/bench_bundles.py (export, deltas, installs, the reader),
# Tests/Support/bench_serve.py (serve against nginx, with wrk: apt-get install nginx-light wrk),
# Tests/Support/bench_whole.py (the whole API: --kinds all and the byte-identical api-data export) and
# Tests/Support/bench_media.py (the whole API with every sprite and cry it links).
# BENCH_ARGS go to the crawl part, e.g. --quick (no sprite runs) or --repeat 1.
bench: build
	python3 Tests/Support/bench.py $(RELEASE_BIN) $(BENCH_ARGS)
	python3 Tests/Support/bench_bundles.py $(RELEASE_BIN) .build/release/pokedex-bench
	python3 Tests/Support/bench_serve.py $(RELEASE_BIN)
	python3 Tests/Support/bench_whole.py $(RELEASE_BIN)
	python3 Tests/Support/bench_media.py $(RELEASE_BIN)

# The whole API alone (--kinds all of pokeapi-all-2026-08-08, its export compared with the
# fixture byte for byte, what each kind costs): the last part of `make bench`.
bench-whole: build
	python3 Tests/Support/bench_whole.py $(RELEASE_BIN)

# The whole API with every sprite and cry it links (Tests/Support/bench_media.py).
bench-media: build
	python3 Tests/Support/bench_media.py $(RELEASE_BIN)

# serve against nginx alone (Tests/Support/bench_serve.py: wrk, a whole-API crawl, then the
# clients that cost others from Tests/Support/bench_attacks.py against both).
bench-serve: build
	python3 Tests/Support/bench_serve.py $(RELEASE_BIN)

# serve's fresh start against nginx, each turn quiet and beside two `yes > /dev/null`: how
# much of its quiet lead serve keeps under CPU-bound load (Benchmarks.md, "Under load").
bench-serve-busy: build
	python3 Tests/Support/bench_serve.py $(RELEASE_BIN) --fresh-start-only --busy 2

# "Growing past one machine"'s figures (Tests/Support/bench_replicas.py): what a replica moves
# on an idle and an ordinary night, requests a second of a replica and through nginx, one killed.
bench-replicas: build
	python3 Tests/Support/bench_replicas.py $(RELEASE_BIN)

# FoundationNetworking, linked statically, asks the linker for -lcurl: libcurl4-openssl-dev.
# Only the pokesync product: what `make install` installs, and nothing it does not.
static: build-commit
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build/static --product pokesync $(BUILD_COMMIT_FLAG)

# The static build loads nothing from the toolchain's folder: ldd names only system
# libraries, and it runs (`--version`, then a `full` of the sample folder).
static-check: static
	bash Tests/Support/static_check.sh $(STATIC_BIN)

# `make install PREFIX=/opt/pokesync` (default /usr/local; DESTDIR= for packaging) installs a
# working whole, every file naming PREFIX (the cron/ files name /usr/local: sed rewrites them):
#   PREFIX/bin/pokesync                       the static binary, stripped
#   PREFIX/lib/pokesync/pokesync.debug        its debug info (objcopy --only-keep-debug; the
#                                             binary's .gnu_debuglink names it)
#   PREFIX/lib/pokesync/pokesync-nightly.sh, pokesync-publish-rsync.sh   the nightly job, its hook
#   PREFIX/lib/pokesync/crontab, *.service, *.timer, *.logrotate         to copy or load from there
#   PREFIX/lib/pokesync/installed-files       what `make uninstall` removes (the folders install made too),
#                                             as the installed machine names them (without DESTDIR;
#                                             with it, only folders within PREFIX count as made)
# install-files is the same recipe on a binary already built (BIN=...): the tests install
# their debug build with it rather than spend a static release build.
BIN ?= $(STATIC_BIN)
INSTALL_BIN = $(DESTDIR)$(PREFIX)/bin
INSTALL_LIB = $(DESTDIR)$(PREFIX)/lib/pokesync
INSTALLED = $(INSTALL_LIB)/installed-files
CRON_SCRIPTS = pokesync-nightly.sh pokesync-publish-rsync.sh
CRON_FILES = crontab pokesync-nightly.service pokesync-nightly.timer pokesync-serve.service $(notdir $(wildcard cron/*.logrotate))

install: static
	$(MAKE) install-files BIN=$(STATIC_BIN)

install-files:
	@test -x "$(BIN)" || { echo "make: no binary at $(BIN) (make static, or BIN=...)" >&2; exit 1; }
	@set -e; \
	made=$$(grep '/$$' "$(INSTALLED)" 2>/dev/null | sed 's|^|$(DESTDIR)|' || true); \
	for d in "$(DESTDIR)$(PREFIX)/lib" "$(INSTALL_BIN)" "$(INSTALL_LIB)"; do [ -d "$$d" ] || made="$$made $$d/"; done; \
	d="$(DESTDIR)$(PREFIX)"; while [ ! -d "$$d" ]; do made="$$made $$d/"; d=$$(dirname "$$d"); done; \
	install -d "$(INSTALL_BIN)" "$(INSTALL_LIB)"; \
	objcopy --only-keep-debug "$(BIN)" "$(INSTALL_LIB)/pokesync.debug"; \
	chmod 0644 "$(INSTALL_LIB)/pokesync.debug"; \
	objcopy --strip-all --remove-section=.gnu_debuglink --add-gnu-debuglink="$(INSTALL_LIB)/pokesync.debug" "$(BIN)" "$(INSTALL_BIN)/.pokesync.new"; \
	chmod 0755 "$(INSTALL_BIN)/.pokesync.new"; \
	mv -f "$(INSTALL_BIN)/.pokesync.new" "$(INSTALL_BIN)/pokesync"; \
	for f in $(CRON_SCRIPTS) $(CRON_FILES); do \
	    sed 's|/usr/local/|$(PREFIX)/|g' "cron/$$f" > "$(INSTALL_LIB)/.$$f.new"; \
	    case $$f in *.sh) chmod 0755 "$(INSTALL_LIB)/.$$f.new";; *) chmod 0644 "$(INSTALL_LIB)/.$$f.new";; esac; \
	    mv -f "$(INSTALL_LIB)/.$$f.new" "$(INSTALL_LIB)/$$f"; done; \
	{ echo "$(PREFIX)/bin/pokesync"; echo "$(PREFIX)/lib/pokesync/pokesync.debug"; \
	  for f in $(CRON_SCRIPTS) $(CRON_FILES); do echo "$(PREFIX)/lib/pokesync/$$f"; done; \
	  for d in $$made; do t="$${d#"$(DESTDIR)"}"; \
	      case "$(DESTDIR):$$t" in :*|*:"$(PREFIX)"/*) echo "$$t";; esac; done; } > "$(INSTALLED)"; \
	echo "installed $(INSTALL_BIN)/pokesync and $(INSTALL_LIB)/ ($(CRON_SCRIPTS) $(CRON_FILES))"

# Removes what install-files wrote (its list), then the folders it made if they are empty;
# the mirror, and the units, logrotate snippet or crontab copied into /etc, are left alone
# (Deployment's "Removing it" removes those, and says what else stays).
uninstall:
	@set -e; \
	if [ -f "$(INSTALLED)" ]; then list=$$(cat "$(INSTALLED)"); else \
	    list="$(PREFIX)/bin/pokesync $(PREFIX)/lib/pokesync/pokesync.debug $(addprefix $(PREFIX)/lib/pokesync/,$(CRON_SCRIPTS) $(CRON_FILES))"; fi; \
	rm -f "$(INSTALLED)"; \
	for p in $$list; do case $$p in */) ;; *) rm -f "$(DESTDIR)$$p";; esac; done; \
	rmdir "$(INSTALL_LIB)" 2>/dev/null || true; \
	for d in $$(printf '%s\n' $$list | grep '/$$' | sort -r); do rmdir "$(DESTDIR)$$d" 2>/dev/null || true; done; \
	echo "removed pokesync from $(DESTDIR)$(PREFIX)"

clean:
	rm -rf .build

# Every design link resolves, and nothing cites an issue number or a note outside the repo
# (DesignDocsTests runs the same; `python3 Tests/Support/check_doc_links.py --citations`
# is the citation check alone, to re-run after a merge). No build needed.
.PHONY: check-docs
check-docs:
	python3 Tests/Support/check_doc_links.py .
