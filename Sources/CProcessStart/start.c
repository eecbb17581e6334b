// `pokesync serve` ignores SIGHUP from the executable's first instruction, before the
// dynamic loader runs any library's initializer and before Swift's runtime and main: a
// SIGHUP sent while serve starts (a logrotate postrotate, a `systemctl reload` racing a
// restart) never ends it by its default action. Serving.md, "Overview", says how early
// that is, measured. Swift's own code (PokeServer.prepareProcess, ServerSignals) takes
// over from there: SIGHUP then reopens the access log.
//
// Only serve: `sync` and `full` keep SIGHUP's default, so a terminal that hangs up ends
// them as it ends any command (a crawl resumes where it stopped); cron sends them none.
#include <signal.h>
#include <string.h>
#include "cprocessstart.h"

// argv[1] is the command (main.swift dispatches on the first word).
static void ignore_hangup_for_serve(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc > 1 && argv[1] != NULL && strcmp(argv[1], "serve") == 0) {
        signal(SIGHUP, SIG_IGN);
    }
}

#if defined(__linux__)
// .preinit_array: glibc's loader calls these (with argc, argv, envp) before the
// initializers of every shared library (libswiftCore, Foundation, ...), the earliest code
// of an executable's own that runs; only the loader's mapping of the libraries comes first.
__attribute__((section(".preinit_array"), used))
static void (*const preinit_entry)(int, char **, char **) = ignore_hangup_for_serve;
#else
// Elsewhere (macOS: dyld passes argc and argv to initializers too) a constructor, which
// runs after the libraries' initializers but still before Swift's main.
__attribute__((constructor))
static void constructor_entry(int argc, char **argv, char **envp) {
    ignore_hangup_for_serve(argc, argv, envp);
}
#endif
