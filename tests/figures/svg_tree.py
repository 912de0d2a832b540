"""Reading a drawn SVG back: each slice's rectangle (or any other shape) by the first line of its tooltip."""

import xml.etree.ElementTree as ElementTree

SVG = "{http://www.w3.org/2000/svg}"


def groups_by_tooltip(svg, shape="rect"):
    root = ElementTree.fromstring(svg)
    found = {}
    for group in root.iter(f"{SVG}g"):
        title, element = group.find(f"{SVG}title"), group.find(f"{SVG}{shape}")
        if title is not None and element is not None:
            found.setdefault(title.text.split("\n")[0], (element, group))
    return found


def rect_of(svg, name):
    return groups_by_tooltip(svg)[name][0]
