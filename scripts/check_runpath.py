#!/usr/bin/python3
"""Checks the RUNPATH and RPATH of every ELF program and shared object under the given folders.

The dynamic loader searches each entry of a RUNPATH/RPATH for a library's dependencies. An empty
entry (a leading, trailing or doubled ':') and a relative entry mean the current directory of
whoever runs the program, so a library planted there would be loaded; an entry with $ORIGIN may
only name the file's own folder or one below the tree that holds it. Every such entry is printed
as FILE: RUNPATH 'VALUE' has ENTRY (WHY), and the exit status is 1 when there is one.

Usage: check_runpath.py [--root TREE] FOLDER...
  --root TREE: $ORIGIN entries may not climb above TREE (default: each FOLDER).
Needs readelf (binutils).
"""
import os
import subprocess
import sys

DYNAMIC_TAGS = ("(RUNPATH)", "(RPATH)")


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def search_paths(path):
    """[(tag, value)] of the file's RUNPATH/RPATH entries, from readelf -d."""
    out = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=False)
    found = []
    for line in out.stdout.splitlines():
        for tag in DYNAMIC_TAGS:
            if tag in line and "[" in line:
                found.append((tag.strip("()"), line[line.index("[") + 1:line.rindex("]")]))
    return found


def problems_of(path, value, root):
    problems = []
    for entry in value.split(":"):
        if entry == "":
            problems.append(("''", "an empty entry: the current directory"))
        elif entry.startswith("$ORIGIN") or entry.startswith("${ORIGIN}"):
            rest = entry.split("ORIGIN", 1)[1].lstrip("}")
            target = os.path.normpath(os.path.dirname(os.path.abspath(path)) + rest)
            if os.path.commonpath([target, root]) != root:
                problems.append((entry, "climbs above %s" % root))
        elif not entry.startswith("/"):
            problems.append((entry, "a relative entry: depends on the current directory"))
    return problems


def main(argv):
    root = None
    folders = []
    args = iter(argv[1:])
    for arg in args:
        if arg == "--root":
            root = os.path.abspath(next(args, ""))
        else:
            folders.append(arg)
    if not folders:
        print(__doc__.strip().splitlines()[-3])
        return 2
    checked = 0
    bad = 0
    for folder in folders:
        if not os.path.isdir(folder):
            print("check_runpath: %s is not a folder" % folder)
            return 2
        tree = root or os.path.abspath(folder)
        for parent, dirs, files in os.walk(folder):
            dirs.sort()
            for name in sorted(files):
                path = os.path.join(parent, name)
                if os.path.islink(path) or not is_elf(path):
                    continue
                checked += 1
                for tag, value in search_paths(path):
                    for entry, why in problems_of(path, value, tree):
                        print("%s: %s '%s' has %s (%s)" % (path, tag, value, entry, why))
                        bad += 1
    print("check_runpath: %d ELF files, %d unsafe search path entries" % (checked, bad))
    if checked == 0:
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
