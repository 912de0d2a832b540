"""Reading a drawn SVG back: each slice's rectangle by the first line of its tooltip."""

import xml.etree.ElementTree as ElementTree

SVG = "{http://www.w3.org/2000/svg}"


def groups_by_tooltip(svg):
    root = ElementTree.fromstring(svg)
    found = {}
    for group in root.iter(f"{SVG}g"):
        title, rect = group.find(f"{SVG}title"), group.find(f"{SVG}rect")
        if title is not None and rect is not None:
            found.setdefault(title.text.split("\n")[0], (rect, group))
    return found


def rect_of(svg, name):
    return groups_by_tooltip(svg)[name][0]
