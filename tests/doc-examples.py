#!/usr/bin/env python3
# cudaoptics — LGPL-2.1-or-later
"""Runs the examples of the user's manual as written.

Every ```sh and ```python block of README.md and docs/*.md, and every |[ ]|
block of the elements' doc comments (gst/*.c), is an example.  A block runs
here as a user pastes it: from the source tree's root, after the README's
own set-up lines (the `export` lines of its first block that sets
GST_PLUGIN_PATH) and nothing else (no GST_PLUGIN_PATH, PATH or PYTHONPATH of
this script's); a Python block is given to the system's Python
(/usr/bin/python3, the one the README tells users to run), unless its
first line says what it needs:

    # needs: gpu            (an NVIDIA GPU: run by --gpu on a GPU machine)
    # needs: camera | display | jetson | build

A block that needs a gpu, camera, display or jetson must have a runnable
twin: the block before it in the same file runs without them (or is another
such block after the same twin).  A block that fails for want of another
project's element (an old GStreamer without -bad's circle or rgb2bayer) is
counted as not run here, never one of ours.  'build'
marks the build and install commands themselves (CI runs those anyway).

Usage: doc-examples.py [--gpu] SOURCE_ROOT BUILD_DIR"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

NEEDS = re.compile(r"^#\s*needs:\s*(.+)$")
KNOWN = {"gpu", "camera", "display", "jetson", "build"}
OURS = {"cudalensdistort", "cudafoveate", "cudaomniunwrap", "cudashcentroid",
        "cudacltcorrelate",
        "cudaaberration"}
TWINNED = {"gpu", "camera", "display", "jetson"}


# the system's Python: the README's examples run with it
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"


def as_shell(lang, text):
    """a block as the shell commands that run it"""
    if lang == "python":
        return "%s - <<'CO_DOC_PYTHON'\n%s\nCO_DOC_PYTHON" % (PYTHON, text)
    return text


def md_blocks(path):
    """(line, text) of the ```sh and ```python blocks, a Python block given
    as the shell command that runs it"""
    blocks, cur, start, lang = [], None, 0, None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            s = line.rstrip("\n")
            if cur is None and s.strip() in ("```sh", "```python"):
                cur, start, lang = [], n + 1, s.strip()[3:]
            elif cur is not None and s.strip() == "```":
                blocks.append((start, lang, "\n".join(cur)))
                cur = None
            elif cur is not None:
                cur.append(s)
    return blocks


def c_blocks(path):
    """|[ ... ]| blocks of a gtk-doc comment, the leading ' * ' removed."""
    blocks, cur, start = [], None, 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            s = re.sub(r"^\s*\*\s?", "", line.rstrip("\n"))
            if cur is None and s.startswith("|["):
                cur, start = [], n + 1
            elif cur is not None and s.startswith("]|"):
                blocks.append((start, "sh", "\n".join(cur)))
                cur = None
            elif cur is not None:
                cur.append(s)
    return blocks


def readme_setup(path):
    """the export lines of README.md's first block that sets GST_PLUGIN_PATH"""
    for _, lang, text in md_blocks(path):
        if lang != "sh":
            continue
        lines = [l for l in text.split("\n") if l.startswith("export ")]
        if any(l.startswith("export GST_PLUGIN_PATH=") for l in lines):
            return "\n".join(lines)
    return None


# build folders other than the user's build/ (CI's, the GPU machine's
# packs) and staged runtimes: only the contributor page may name them
CONTRIB_ONLY = re.compile(r"\bbuild-[\w-]+|\.gpu-runtime")
CONTRIB_PAGE = os.path.join("docs", "testing.md")


def needs(text):
    first = text.strip().split("\n", 1)[0]
    m = NEEDS.match(first.strip())
    if not m:
        return set()
    return {w.strip() for w in re.split(r"[,|]", m.group(1)) if w.strip()}


def main():
    args = sys.argv[1:]
    gpu = "--gpu" in args
    args = [a for a in args if a != "--gpu"]
    root, build = os.path.abspath(args[0]), os.path.abspath(args[1])
    files = [os.path.join(root, "README.md")] + \
        sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    sources = sorted(glob.glob(os.path.join(root, "gst", "*.c")))
    # the examples name the build folder build/: where the one under test
    # is another (CI's build-ci), they run in a view of the tree whose
    # build/ is it
    cwd = root
    if os.path.realpath(os.path.join(root, "build")) != os.path.realpath(build):
        cwd = tempfile.mkdtemp(prefix="co-doc-examples-")
        for name in os.listdir(root):
            if name != "build":
                os.symlink(os.path.join(root, name), os.path.join(cwd, name))
        os.symlink(build, os.path.join(cwd, "build"))
    env = dict(os.environ)
    # what the README's set-up gives, and nothing of the test harness's
    for k in ("GST_PLUGIN_PATH", "GST_PLUGIN_PATH_1_0", "GST_DEBUG", "PWD",
              "PYTHONPATH"):
        env.pop(k, None)
    setup = readme_setup(os.path.join(root, "README.md"))
    if not setup:
        print("PROBLEM README.md: no set-up block (export GST_PLUGIN_PATH=...)")
        return 1

    if gpu:
        probe = subprocess.run(["gst-launch-1.0", "-q", "videotestsrc",
                                "num-buffers=1", "!", "cudaupload", "!",
                                "cudadownload", "!", "fakesink"], env=env,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        if probe.returncode != 0:
            print("no usable CUDA device (cudaupload fails): skipped")
            return 77
    problems, ran, failed, skipped = [], 0, 0, {}
    for path in files + sources:
        blocks = md_blocks(path) if path.endswith(".md") else c_blocks(path)
        rel = os.path.relpath(path, root)
        prev_twinned = False
        for line, lang, text in blocks:
            need = needs(text)
            where = "%s:%d" % (rel, line)
            if rel != CONTRIB_PAGE and CONTRIB_ONLY.search(text):
                problems.append("%s: names %s, which users do not have (keep "
                                "it in %s)" % (where,
                                               CONTRIB_ONLY.search(text).group(0),
                                               CONTRIB_PAGE))
            if need - KNOWN:
                problems.append("%s: unknown needs %s" % (where,
                                ", ".join(sorted(need - KNOWN))))
            # a needs-block follows its runnable twin, directly or after
            # other needs-blocks of the same twin
            twinned = not need or prev_twinned or not need & TWINNED
            if need & TWINNED and not prev_twinned:
                problems.append("%s: needs %s but no runnable twin comes right "
                                "before it" % (where, ", ".join(sorted(need))))
            prev_twinned = twinned and "build" not in need
            run = not need or (gpu and need == {"gpu"})
            if gpu and not need:
                run = False         # the CPU suite runs those
            if not run:
                for w in need or {"cpu"}:
                    skipped[w] = skipped.get(w, 0) + 1
                continue
            ran += 1
            t0 = time.time()
            try:
                r = subprocess.run(["bash", "-e", "-o", "pipefail", "-c",
                                    setup + "\n" + as_shell(lang, text)],
                                   cwd=cwd, env=env, timeout=300,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)
                rc, out = r.returncode, r.stdout.decode(errors="replace")
            except subprocess.TimeoutExpired as e:
                rc, out = "timeout", (e.stdout or b"").decode(errors="replace")
            dt = time.time() - t0
            missing = re.findall(r'no element "([^"]+)"', out) if rc != 0 else []
            foreign = [m for m in missing if m not in OURS]
            if foreign:
                # another project's plugin this machine lacks (an old
                # GStreamer root without -bad): not run, not failed
                ran -= 1
                skipped["no " + foreign[0]] = skipped.get("no " + foreign[0], 0) + 1
                print("skip %s (no element %s here)" % (where, foreign[0]))
                continue
            if rc != 0:
                failed += 1
                print("FAIL %s (%s, %.1f s)\n%s\n--- output:\n%s" %
                      (where, rc, dt, text, out[-3000:]))
            else:
                print("ok   %s (%.1f s)" % (where, dt))
    if cwd != root:
        shutil.rmtree(cwd, ignore_errors=True)
    for p in problems:
        print("PROBLEM " + p)
    print("doc examples: %d run, %d passed, %d failed; not run here: %s" %
          (ran, ran - failed, failed,
           ", ".join("%d %s" % (n, w) for w, n in sorted(skipped.items())) or "none"))
    if gpu and ran == 0:
        return 77
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
