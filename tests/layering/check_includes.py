#!/usr/bin/env python3
"""Checks that each component includes only from the components it links.

Usage: check_includes.py --source-dir DIR --table FILE [--table FILE ...] --docs FILE

A table (written by CMake at configure time, graft_layering_table in
cmake/graft_helpers.cmake) has one line per component:
    component|folder|source folder[,source folder...]|linked target[,linked target...]
The docs file (docs/architecture.md) has, under "## Components", one row per
grafter component naming its public headers and the components it links; the
row's links must be CMake's. A source file of a component may include:
  - "F/name.hpp" (a private header) where F is a source folder of the component
    or of one it links, directly or through others;
  - <graft/name.hpp> (a grafter public header) owned by such a component;
and a grafter component includes nothing of the harness (<graft/harness/...>).
Exit 0 when every include is allowed, 1 with one line per violation, 2 on bad input.
"""

import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_SUFFIXES = (".cpp", ".hpp", ".cu")


class BadInput(Exception):
    pass


def read_tables(paths):
    components = {}
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                parts = line.split("|")
                if len(parts) != 4:
                    raise BadInput(f"{path}:{number}: expected component|folder|sources|links, got {line!r}")
                name, folder, dirs, links = parts
                components[name] = {
                    "folder": folder,
                    "dirs": [d for d in dirs.split(",") if d],
                    "links": [l[len("graft_"):] for l in links.split(",") if l.startswith("graft_")],
                }
    for name, c in components.items():
        c["links"] = [l for l in c["links"] if l in components]
    return components


def closure(components, name):
    seen, todo = set(), [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        todo.extend(components[current]["links"])
    return seen


def read_docs(path):
    """{component: (headers, links)} from the table under '## Components'."""
    rows, in_section = {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                in_section = line.strip() == "## Components"
            if not in_section or not line.startswith("| `"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 4:
                raise BadInput(f"{path}: a row of '## Components' needs 4 cells: {line.strip()}")
            name = cells[0].strip("`")
            rows[name] = (re.findall(r"`([a-z_0-9]+)`", cells[2]), re.findall(r"`([a-z_0-9]+)`", cells[3]))
    if not rows:
        raise BadInput(f"{path}: no table under '## Components'")
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--table", action="append", required=True)
    parser.add_argument("--docs", required=True)
    args = parser.parse_args()
    try:
        components = read_tables(args.table)
        docs = read_docs(args.docs)
    except (OSError, BadInput) as e:
        print(f"check_includes: {e}", file=sys.stderr)
        return 2

    problems = []
    grafter = {n for n, c in components.items() if c["folder"] == "grafter"}
    owner = {}
    for name, (headers, links) in docs.items():
        for header in headers:
            owner[header] = name
        if name not in components:
            # A CUDA-only component is documented in every build, built only with a CUDA compiler.
            if name != "cuda":
                problems.append(f"{args.docs}: component `{name}` is documented but CMake has none of that name")
            continue
        links = [l for l in links if l in components or l != "cuda"]
        if sorted(links) != sorted(components[name]["links"]):
            problems.append(f"{args.docs}: `{name}` links {sorted(links)} there, but CMake links "
                            f"{sorted(components[name]['links'])}; make the table say what CMakeLists.txt does")
    for name in sorted(grafter - set(docs)):
        problems.append(f"{args.docs}: grafter component `{name}` has no row under '## Components'")

    public_dir = os.path.join(args.source_dir, "grafter", "include", "graft")
    for entry in sorted(os.listdir(public_dir)):
        if entry.endswith(".hpp") and entry[:-4] not in owner:
            problems.append(f"grafter/include/graft/{entry}: no component owns it in {args.docs}; add it to a row")

    # Which component a private include names: the longest matching source folder.
    def private_owner(folder, include):
        best, best_length = None, -1
        for name, c in components.items():
            if c["folder"] != folder:
                continue
            for d in c["dirs"]:
                if include.startswith(d + "/") and include.count("/") == d.count("/") + 1 and len(d) > best_length:
                    best, best_length = name, len(d)
        return best

    def check_file(path, component):
        allowed = closure(components, component) if component in components else set()
        folder = components[component]["folder"] if component in components else "grafter"
        relative = os.path.relpath(path, args.source_dir)
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                quoted, include = m.group(1) == '"', m.group(2)
                closing = '"' if quoted else ">"
                where = f"{relative}:{number}: {component} includes {m.group(1)}{include}{closing}"
                if quoted:
                    used = private_owner(folder, include)
                    if used is not None and used not in allowed:
                        problems.append(f"{where}, a private header of {used}, which {component} does not link")
                elif include.startswith("graft/harness/") or include.startswith("graft/localize/"):
                    if folder == "grafter":
                        problems.append(f"{where}: the grafter knows nothing of the tools built on it")
                elif include.startswith("graft/") and include.count("/") == 1 and include.endswith(".hpp"):
                    header = include[len("graft/"):-len(".hpp")]
                    used = owner.get(header)
                    if used is not None and used not in allowed and (used in components or folder == "grafter"):
                        problems.append(f"{where}, a header of {used}, which {component} does not link "
                                        f"(it links {sorted(allowed - {component}) or 'nothing of graft'})")
        return 1

    checked = 0
    for name, c in sorted(components.items()):
        src_root = os.path.join(args.source_dir, c["folder"], "src")
        for d in c["dirs"]:
            folder_path = os.path.join(src_root, d)
            if not os.path.isdir(folder_path):
                problems.append(f"{os.path.relpath(folder_path, args.source_dir)}: source folder of {name} is missing")
                continue
            for entry in sorted(os.listdir(folder_path)):
                if entry.endswith(SOURCE_SUFFIXES):
                    checked += check_file(os.path.join(folder_path, entry), name)
    for entry in sorted(os.listdir(public_dir)):
        if entry.endswith(".hpp") and entry[:-4] in owner:
            checked += check_file(os.path.join(public_dir, entry), owner[entry[:-4]])

    for p in problems:
        print(p)
    if problems:
        print(f"check_includes: {len(problems)} include(s) cross a layer the build does not link; "
              "include only from linked components, or link the component in CMakeLists.txt and say so in "
              f"{args.docs}")
        return 1
    print(f"check_includes: {checked} files of {len(components)} components include only what they link")
    return 0


if __name__ == "__main__":
    sys.exit(main())
