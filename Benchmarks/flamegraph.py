"""A flame graph (SVG) of a `perf record -g` file, with Swift's symbols demangled.

    python3 Benchmarks/flamegraph.py PERF.data OUT.svg [--title TEXT]

Debian has `perf` but no flame-graph tools, so this folds `perf script`'s stacks itself. Each
box is a function, as wide as its share of the samples, above the function that called it;
boxes under 0.1 % of the samples are left out to keep the file small. Hovering shows the full
name and the share.
"""

import argparse
import collections
import html
import re
import subprocess

WIDTH = 1800
ROW = 16
SMALLEST = 0.001
FRAME = re.compile(r"^\s+[0-9a-f]+ (.+?)(?:\+0x[0-9a-f]+)? \((.+)\)$")


def stacks(perf_data):
    """Each sample's stack, outermost frame first, as symbol names (the library's when unknown)."""
    script = subprocess.run(["perf", "script", "-i", perf_data], capture_output=True, text=True, check=True).stdout
    for block in script.split("\n\n"):
        frames = []
        for line in block.splitlines()[1:]:
            found = FRAME.match(line)
            if found:
                symbol, library = found.groups()
                frames.append(library.rsplit("/", 1)[-1] if symbol == "[unknown]" else symbol)
        if frames:
            yield list(reversed(frames))


def demangled(symbols):
    names = list(symbols)
    result = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names), capture_output=True,
                            text=True, check=True).stdout.splitlines()
    return dict(zip(names, result)) if len(result) == len(names) else {name: name for name in names}


class Node:
    def __init__(self):
        self.count = 0
        self.children = collections.OrderedDict()


def tree(all_stacks):
    root = Node()
    for stack in all_stacks:
        root.count += 1
        node = root
        for frame in stack:
            node = node.children.setdefault(frame, Node())
            node.count += 1
    return root


def colour(name):
    # Warm tones, steady per name, so a function keeps its colour from graph to graph.
    value = sum(map(ord, name)) % 97
    return f"rgb({205 + value % 50},{90 + value % 110},{40 + value % 40})"


def boxes(node, names, total, depth=0, x=0.0):
    for frame, child in node.children.items():
        width = child.count / total
        if width >= SMALLEST:
            yield depth, x, width, names.get(frame, frame), child.count
            yield from boxes(child, names, total, depth + 1, x)
        x += width


def svg(root, names, title):
    placed = list(boxes(root, names, root.count))
    depth = max((entry[0] for entry in placed), default=0) + 1
    height = (depth + 3) * ROW
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="monospace" '
             f'font-size="11">', f'<text x="4" y="{ROW}">{html.escape(title)} ({root.count} samples)</text>']
    for level, x, width, name, count in placed:
        left, pixels, top = x * WIDTH, width * WIDTH, height - (level + 1) * ROW
        label = html.escape(name)
        share = f"{100 * count / root.count:.2f} %"
        parts.append(f'<g><title>{label} ({share})</title><rect x="{left:.1f}" y="{top}" width="{pixels:.1f}" '
                     f'height="{ROW - 1}" fill="{colour(name)}"/>')
        characters = int(pixels / 7)
        if characters > 3:
            shown = label if len(name) <= characters else html.escape(name[:characters - 2]) + ".."
            parts.append(f'<text x="{left + 2:.1f}" y="{top + ROW - 4}">{shown}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("perf_data")
    parser.add_argument("output")
    parser.add_argument("--title", default="")
    arguments = parser.parse_args()
    root = tree(stacks(arguments.perf_data))
    names = demangled({frame for _, _, _, frame, _ in boxes(root, {}, root.count)})
    with open(arguments.output, "w") as output:
        output.write(svg(root, names, arguments.title or arguments.perf_data))


if __name__ == "__main__":
    main()
