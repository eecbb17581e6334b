# pokesync: make demo (offline end-to-end on the sample data), make test, make bench.
SWIFT ?= swift
PREFIX ?= /usr/local
RELEASE_BIN = .build/release/pokesync
# `make install`'s build: the Swift runtime and Foundation linked in (--static-swift-stdlib),
# so the binary runs on a machine without the toolchain; its own folder, so that `make build`
# and this do not rebuild each other. It still loads system libraries (static-check lists them).
STATIC_BIN = .build/static/release/pokesync

.PHONY: build debug test demo bench bench-whole bench-media bench-serve bench-replicas static static-check install clean

build:
	$(SWIFT) build -c release

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

# "Growing past one machine"'s figures (Tests/Support/bench_replicas.py): what a replica moves
# on an idle and an ordinary night, requests a second of a replica and through nginx, one killed.
bench-replicas: build
	python3 Tests/Support/bench_replicas.py $(RELEASE_BIN)

# FoundationNetworking, linked statically, asks the linker for -lcurl: libcurl4-openssl-dev.
static:
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build/static

# The static build loads nothing from the toolchain's folder: ldd names only system
# libraries, and it runs (`--version`, then a `full` of the sample folder).
static-check: static
	bash Tests/Support/static_check.sh $(STATIC_BIN)

install: static
	install -d $(PREFIX)/bin $(PREFIX)/lib/pokesync
	install -m 0755 $(STATIC_BIN) $(PREFIX)/bin/pokesync
	install -m 0755 cron/pokesync-nightly.sh cron/pokesync-publish-rsync.sh $(PREFIX)/lib/pokesync/

clean:
	rm -rf .build

# Every design link resolves, and nothing cites an issue number or a note outside the repo
# (DesignDocsTests runs the same; `python3 Tests/Support/check_doc_links.py --citations`
# is the citation check alone, to re-run after a merge). No build needed.
.PHONY: check-docs
check-docs:
	python3 Tests/Support/check_doc_links.py .
