#!/usr/bin/env python3
"""Fails when Swift code uses a name one platform's C library alone has outside a
branch for that platform: the command line and the reader build on Linux (glibc) and on
macOS/iOS (Darwin), and the compiler of one never sees the other's branch.

    check_platform_names.py [ROOT]     (default: this repository; reads ROOT/Sources/**/*.swift)

A glibc name (st_mtim, epoll_*, mallopt, MSG_NOSIGNAL, ...) must sit in an
`#if os(Linux)` / `#if canImport(Glibc)` branch, or in the `#else` of a Darwin one; a
Darwin name (st_mtimespec, kqueue, ...) in a Darwin branch or the `#else` of a Linux one.
Comments are not read. Prints one line per use found, `path:line: name (glibc only)`, and
exits 1; exits 0 with "no platform-only name outside its branch" when there is none.
Python stdlib only.
"""
import os
import re
import sys

GLIBC = re.compile(r"\b(st_[amc]tim|epoll_\w+|EPOLL\w*|mallopt|malloc_trim|M_MMAP_THRESHOLD|M_ARENA_MAX|"
                   r"M_TRIM_THRESHOLD|SOCK_CLOEXEC|SOCK_NONBLOCK|MSG_NOSIGNAL|TCP_INFO|tcp_info|TCP_CORK|"
                   r"TCP_QUICKACK|O_TMPFILE|pipe2|accept4|sendfile|eventfd|inotify_\w+|prctl|syncfs|statx|"
                   r"renameat2|memfd_create|fallocate|sched_getaffinity|get_nprocs|__errno_location)\b|\bGlibc\.")
DARWIN = re.compile(r"\b(st_[amc]timespec|st_birthtimespec|kqueue|kevent|EVFILT_\w+|SO_NOSIGPIPE|F_FULLFSYNC|"
                    r"F_NOCACHE|mach_\w+)\b|\bDarwin\.")
LINUX_CONDITION = re.compile(r"os\(Linux\)|canImport\((Glibc|Musl)\)")
DARWIN_CONDITION = re.compile(r"canImport\(Darwin\)|os\((macOS|iOS|tvOS|watchOS|visionOS)\)")
DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")


def platform_of(condition):
    """'linux', 'darwin' or None (both, or cannot tell) for one `#if`/`#elseif` condition."""
    if "!" in condition or "||" in condition:
        return None
    linux, darwin = LINUX_CONDITION.search(condition), DARWIN_CONDITION.search(condition)
    if linux and not darwin:
        return "linux"
    if darwin and not linux:
        return "darwin"
    return None


def code_of(line):
    """The line without its `//` comment (a `//` inside a string cuts it short: harmless here)."""
    return line.split("//", 1)[0]


def check_file(path, display):
    problems = []
    # One frame per open #if: the platforms of its branches so far, and the current one.
    stack = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            directive = DIRECTIVE.match(line)
            if directive:
                word, rest = directive.group(1), code_of(directive.group(2))
                if word == "if":
                    stack.append({"seen": [platform_of(rest)]})
                elif word == "elseif" and stack:
                    stack[-1]["seen"].append(platform_of(rest))
                elif word == "else" and stack:
                    seen = stack[-1]["seen"]
                    other = None
                    if "darwin" in seen and "linux" not in seen and None not in seen:
                        other = "linux"
                    elif "linux" in seen and "darwin" not in seen and None not in seen:
                        other = "darwin"
                    seen.append(other)
                elif word == "endif" and stack:
                    stack.pop()
                continue
            code = code_of(line)
            if not code.strip():
                continue
            platforms = {frame["seen"][-1] for frame in stack}
            for pattern, platform in ((GLIBC, "linux"), (DARWIN, "darwin")):
                if platform in platforms:
                    continue
                for match in pattern.finditer(code):
                    label = "glibc" if platform == "linux" else "Darwin"
                    problems.append("%s:%d: %s (%s only) outside a %s branch"
                                    % (display, number, match.group(0), label,
                                       "#if os(Linux)" if platform == "linux" else "#if canImport(Darwin)"))
    return problems


def repository_root():
    """The ROOT argument, else this repository (two folders above this script)."""
    return sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def swift_sources(root):
    """Each Swift file below ROOT/Sources, in a stable order: (its path, the path from ROOT)."""
    for folder, folders, files in os.walk(os.path.join(root, "Sources")):
        folders.sort()
        for name in sorted(files):
            if name.endswith(".swift"):
                path = os.path.join(folder, name)
                yield path, os.path.relpath(path, root)


def check_sources(check, counted, all_well, skip=()):
    """Runs `check(path, display)` over every Swift file of the repository but those in
    `skip`, prints each problem it returns, then `counted % N` (exit status 1) or `all_well`
    (exit status 0). Returns the exit status."""
    problems = []
    for path, display in swift_sources(repository_root()):
        if display.replace(os.sep, "/") not in skip:
            problems += check(path, display)
    for problem in problems:
        print(problem)
    print(counted % len(problems) if problems else all_well)
    return 1 if problems else 0


def main():
    return check_sources(check_file, "%d platform-only name(s) outside their branch",
                         "no platform-only name outside its branch")


if __name__ == "__main__":
    sys.exit(main())
