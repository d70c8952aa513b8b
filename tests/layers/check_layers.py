#!/usr/bin/python3
"""Checks that the folders of host/ depend on each other only downwards (host/README.md gives the order).

Two kinds of edge are checked:
  * link edges, from the real build: every undefined symbol of a library object (nm -u) is mapped to the
    folder of the object that defines it (nm --defined-only); an edge from folder A to folder B is a call or
    data reference from code in A to code in B;
  * include edges, from the sources: every #include "dir/file.h" of a file under host/ names the folder
    dir (an include without a folder is the file's own folder; kernels/ctn_*.h is the folder kernels).
An edge A -> B is allowed when B is A itself or comes before A in LAYERS. Every edge that goes upward is
printed with the symbol or include that makes it, and the check fails.

usage: check_layers.py SOURCE_DIR OBJECT_LIST_FILE [NM]
  OBJECT_LIST_FILE: the library's object files, one per line or ';'-separated (CMake's
  $<TARGET_OBJECTS:...> written by file(GENERATE)).
"""
import os
import re
import subprocess
import sys

# Lowest first: a folder may use the folders before it, never those after it.
LAYERS = ["kernels", "core", "collide", "solve", "opencl", "api", "scenes", "io", "cli"]
RANK = {name: i for i, name in enumerate(LAYERS)}


def folder_of_object(path):
    """The layer of an object file: host/<folder>/x.c.o, or the embedded kernel source (opencl)."""
    parts = path.replace("\\", "/").split("/")
    if "host" in parts:
        i = len(parts) - 1 - parts[::-1].index("host")
        if i + 1 < len(parts) - 1:
            return parts[i + 1]
    if os.path.basename(path).startswith("catena_kernels"):
        return "opencl"  # the kernel source embedded as a C string, loaded by host/opencl
    return None


NM_LINE = re.compile(r"^(.*?\.o):\s*(.*)$")  # "file.o: [address] type name"


def nm_symbols(nm, objects, flag):
    """(object, symbol) for the undefined (flag "-u") or defined external symbols of every object, from one
    nm run (-A prefixes each line with its file)."""
    args = [nm, "-A", flag] + ([] if flag == "-u" else ["-g"]) + objects
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    pairs = []
    for line in out.splitlines():
        m = NM_LINE.match(line)
        if not m:
            continue
        path, fields = m.group(1), m.group(2).split()
        if flag == "-u" and fields:
            pairs.append((path, fields[-1]))
        elif len(fields) >= 3 and fields[1] not in ("U", "w", "v"):
            pairs.append((path, fields[2]))
    return pairs


def link_edges(nm, objects):
    defined = {}
    for obj, name in nm_symbols(nm, objects, "--defined-only"):
        defined.setdefault(name, (folder_of_object(obj), obj))
    edges = []
    for obj, name in nm_symbols(nm, objects, "-u"):
        if name in defined:
            edges.append((folder_of_object(obj), defined[name][0], "%s uses %s (defined in %s)" % (
                os.path.basename(obj), name, os.path.basename(defined[name][1]))))
    return edges


INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def include_edges(src):
    edges = []
    host = os.path.join(src, "host")
    for layer in sorted(os.listdir(host)):
        d = os.path.join(host, layer)
        if not os.path.isdir(d):
            continue
        for root, _, files in os.walk(d):
            for f in sorted(files):
                if not f.endswith((".c", ".h", ".cpp")):
                    continue
                path = os.path.join(root, f)
                with open(path, encoding="utf-8") as fh:
                    for no, line in enumerate(fh, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        inc = m.group(1)
                        if "/" in inc:
                            target = inc.split("/")[0]
                            if target == "catena":
                                continue  # the public header
                        elif inc.startswith("ctn_"):
                            target = "kernels"
                        else:
                            target = layer
                        rel = os.path.relpath(path, src)
                        edges.append((layer, target, '%s:%d includes "%s"' % (rel, no, inc)))
    return edges


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    src, listing = argv[1], argv[2]
    nm = argv[3] if len(argv) > 3 else "nm"
    with open(listing, encoding="utf-8") as fh:
        objects = [o for o in re.split(r"[;\n]", fh.read()) if o.strip()]
    objects = [o.strip() for o in objects]
    if not objects:
        print("no object files listed in %s" % listing)
        return 1
    bad = []
    unknown = set()
    edges = link_edges(nm, objects) + include_edges(src)
    seen = set()
    for a, b, why in edges:
        if a == b:
            continue
        if a not in RANK or b not in RANK:
            unknown.add(a if a not in RANK else b)
            continue
        seen.add((a, b))
        if RANK[b] > RANK[a]:
            bad.append("%s -> %s: %s" % (a, b, why))
    for name in sorted(unknown):
        bad.append("folder %s is not in the layer order (add it to LAYERS and host/README.md)" % name)
    print("layer order: %s" % " < ".join(LAYERS))
    print("edges between folders (%d objects): %s" % (
        len(objects), ", ".join("%s->%s" % e for e in sorted(seen, key=lambda e: (RANK[e[0]], RANK[e[1]])))))
    if bad:
        print("%d upward dependencies:" % len(bad))
        for line in bad:
            print("  " + line)
        return 1
    print("no upward dependencies")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
