#!/usr/bin/env python3
"""The README's examples are what the program prints: runs `demo.sh` (offline, the sample
data and the stand-in) with the given binary and checks every stable line of the README's
"Start" example against what the demo printed.

A README line is compared after both texts are normalized: ports (`127.0.0.1:PORT`), the
demo's scratch folder (`...`), and durations (` in N s`) vary from run to run; colors are
dropped; a bundle's size in bytes moves with its publish time. Lines that elide (`...` as a word, or `  ...` alone), comments after `#` on a
command line, and the commands themselves are not compared: a command line only tells
which command's output follows. Prints what does not match and exits 1, else exits 0.

Usage: check_readme_examples.py BINARY [README]
"""
import os, re, shutil, signal, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def normalize(line):
    line = re.sub(r"\x1b\[[0-9;]*m", "", line)
    line = re.sub(r"/tmp/pokesync-demo\.[A-Za-z0-9]+", "...", line)
    line = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", line)
    line = re.sub(r" in \d+(\.\d+)? s\b", " in N s", line)
    # A bundle holds its version's publish time, so its exact size moves by a few bytes.
    line = re.sub(r"downloaded \d+ bytes instead of the full bundle's \d+", "downloaded N bytes instead of the full bundle's N", line)
    return line.rstrip()


def start_example(readme):
    """The first fenced block of the README's `## Start` section that shows a `$ pokesync` run."""
    section = readme.split("\n## Start", 1)[1].split("\n## ", 1)[0]
    block, inside = [], False
    for line in section.split("\n"):
        if line.startswith("```"):
            if inside and any(text.startswith("$ pokesync") for text in block):
                return block
            block, inside = [], not inside
        elif inside:
            block.append(line)
    raise SystemExit("README: no example with `$ pokesync` in its Start section")


def expected_lines(block):
    """The output lines a reader is promised, each with the command it follows."""
    command = None
    for raw in block:
        line = normalize(raw)
        if line.startswith("$ "):
            command = line
            continue
        stripped = line.strip()
        if not stripped or stripped == "..." or re.search(r"(^|\s)\.\.\.(\s|$)", stripped):
            continue
        yield command, line


def main():
    binary = os.path.abspath(sys.argv[1])
    readme_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(ROOT, "README.md")
    with open(readme_path, encoding="utf-8") as handle:
        block = start_example(handle.read())
    # The test runner starts this script with signals blocked, which its children inherit:
    # demo.sh's servers would then outlive their `kill`. They get an empty mask.
    demo = subprocess.run(["bash", os.path.join(HERE, "demo.sh"), binary], capture_output=True, text=True,
                          timeout=600, preexec_fn=lambda: signal.pthread_sigmask(signal.SIG_SETMASK, []))
    if demo.returncode != 0:
        print(f"demo.sh exited {demo.returncode}:\n{demo.stdout[-2000:]}\n{demo.stderr[-2000:]}")
        return 1
    scratch = re.search(r"scratch mirror at (/\S+)/Mirror", demo.stdout)
    if scratch and "/pokesync-demo." in scratch.group(1):
        shutil.rmtree(scratch.group(1), ignore_errors=True)
    printed = [normalize(line) for line in demo.stdout.split("\n")]
    missing = [(command, line) for command, line in expected_lines(block) if line not in printed]
    checked = sum(1 for _ in expected_lines(block))
    for command, line in missing:
        print(f"README line not printed by the demo (after {command!r}):\n    {line}")
    print(f"{checked - len(missing)} of {checked} README example lines printed by the demo")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
