"""The page mkdocs-jupyter renders from an executed notebook: its styles cut to what the page uses, its kernel
reached over a local socket.

mkdocs-jupyter inlines all of JupyterLab's stylesheet (575 KB) into the page it renders; the page uses a few
dozen of its classes. ``used_css`` keeps the rules whose selectors name only classes the page has, and the
custom properties they read, so the page carries a few tens of KB of styles and Material's own elements keep
their look (JupyterLab's rules for bare elements such as ``body`` or ``pre`` are dropped).
"""

import hashlib
import json
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

STYLE = re.compile(r"<style[^>]*>(.*?)</style>", re.S)
COMMENT = re.compile(r"/\*.*?\*/", re.S)
CLASS_ATTRIBUTE = re.compile(r'class="([^"]*)"')
CLASS = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
VAR = re.compile(r"var\(\s*(--[\w-]+)")
KEPT_AT_RULES = ("@media", "@supports")  # others (@font-face, @keyframes, @import) serve widgets this page lacks
ROOT_SELECTORS = (":root",)  # where JupyterLab's themes define the custom properties the kept rules read


class Rule(NamedTuple):
    """A style rule: its selectors (a list, comma-separated) and its declarations."""

    selectors: str
    declarations: list[str]


class AtRule(NamedTuple):
    """A block such as ``@media (…)`` and the rules inside it."""

    prelude: str
    rules: list["Rule | AtRule"]


def blocks(css: str) -> list[tuple[str, str]]:
    """The top-level ``(prelude, body)`` pairs of a stylesheet without comments; a body is left as text."""
    found: list[tuple[str, str]] = []
    depth, start, prelude_start, quote = 0, 0, 0, None
    for index, char in enumerate(css):
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "{":
            if depth == 0:
                prelude, start = css[prelude_start:index].strip(), index + 1
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                found.append((prelude, css[start:index]))
                prelude_start = index + 1
        elif char == ";" and depth == 0:
            prelude_start = index + 1  # a statement such as @charset or @import: no block
    return found


def split_outside(text: str, separator: str) -> list[str]:
    """``text`` split at each ``separator`` outside strings and parentheses (a selector list's commas, not those
    of ``:is(a, b)``; a rule's semicolons, not those of a data URL), without empty parts."""
    parts: list[str] = []
    depth, quote, start = 0, None, 0
    for index, char in enumerate(text):
        if quote:
            quote = None if char == quote else quote
        elif char in "\"'":
            quote = char
        else:
            depth += (char == "(") - (char == ")")
            if char == separator and depth == 0:
                parts.append(text[start:index].strip())
                start = index + 1
    parts.append(text[start:].strip())
    return [part for part in parts if part]


def applies(selector: str, classes: set[str]) -> bool:
    """Whether ``selector`` can match on a page whose elements have only ``classes``: it names at least one
    class and all of them are there, or it is the root, where custom properties live."""
    named = CLASS.findall(re.sub(r"\[[^\]]*\]", "", selector))
    return selector in ROOT_SELECTORS or (bool(named) and all(name in classes for name in named))


def kept_rules(css: str, classes: set[str]) -> list[Rule | AtRule]:
    """The rules of ``css`` that can apply, each ``(selectors, declarations)`` with only the selectors that can,
    or ``(at-rule, [rules])`` for a kept ``@media`` block."""
    kept: list[Rule | AtRule] = []
    for prelude, body in blocks(css):
        if prelude.startswith("@"):
            if prelude.startswith(KEPT_AT_RULES) and (inner := kept_rules(body, classes)):
                kept.append(AtRule(prelude, inner))
        elif chosen := [selector for selector in split_outside(prelude, ",") if applies(selector, classes)]:
            kept.append(Rule(",".join(chosen), split_outside(body, ";")))
    return kept


def flat(rules: Sequence[Rule | AtRule]) -> Iterator[str]:
    """Every declaration of ``rules``, those inside ``@media`` blocks too."""
    for rule in rules:
        yield from flat(rule.rules) if isinstance(rule, AtRule) else rule.declarations


def property_name(declaration: str) -> str | None:
    """The custom property a declaration defines (``--jp-ui-font-size1``), or None."""
    name = declaration.partition(":")[0].strip()
    return name if name.startswith("--") else None


def read_properties(rules: Sequence[Rule | AtRule]) -> set[str]:
    """The custom properties that the ordinary declarations of ``rules`` read, and those the properties they
    read read in turn."""
    defined: dict[str, list[str]] = {}
    for declaration in flat(rules):
        if name := property_name(declaration):
            defined.setdefault(name, []).append(declaration)
    wanted = {name for declaration in flat(rules) if not property_name(declaration)
              for name in VAR.findall(declaration)}
    todo = list(wanted)
    while todo:
        for declaration in defined.get(todo.pop(), ()):
            for name in VAR.findall(declaration.partition(":")[2]):
                if name not in wanted:
                    wanted.add(name)
                    todo.append(name)
    return wanted


def rendered(rules: Sequence[Rule | AtRule], wanted: set[str]) -> str:
    """``rules`` as CSS, without the custom properties nothing reads, and without rules left empty."""
    out = []
    for rule in rules:
        if isinstance(rule, AtRule):
            prelude, body = rule.prelude, rendered(rule.rules, wanted)
        else:
            prelude, body = rule.selectors, ";".join(d for d in rule.declarations
                                                     if property_name(d) is None or property_name(d) in wanted)
        if body:
            out.append(f"{prelude}{{{body}}}")
    return "".join(out)


def page_classes(html: str) -> set[str]:
    """Every class named in ``html``'s class attributes."""
    return {name for value in CLASS_ATTRIBUTE.findall(html) for name in value.split()}


def used_css(html: str) -> str:
    """``html`` with each of its inline stylesheets cut to the rules that can apply to it."""
    classes = page_classes(html)
    sheets = [kept_rules(COMMENT.sub("", css), classes) for css in STYLE.findall(html)]
    wanted = read_properties([rule for sheet in sheets for rule in sheet])
    styles = iter(rendered(sheet, wanted) for sheet in sheets)
    return STYLE.sub(lambda _: f"<style>{css}</style>" if (css := next(styles)) else "", html)


def local_kernel_config(folder: str | os.PathLike[str]) -> Path:
    """Write an nbconvert configuration into ``folder`` that starts kernels on IPC sockets there, not on TCP
    ports (ipykernel warns that TCP is unencrypted, and the strict build counts that as a warning); return the
    folder, for ``JUPYTER_CONFIG_PATH``."""
    folder = Path(folder)
    settings = {"KernelManager": {"transport": "ipc", "ip": str(folder / "kernel")}}
    (folder / "jupyter_nbconvert_config.json").write_text(json.dumps(settings))
    return folder


def inputs_key(root: str | os.PathLike[str]) -> str:
    """A digest of what an executed notebook's outputs depend on besides its own source, which mkdocs-jupyter's
    cache key covers: profguide's code (its contents) and the guide's traces (their sizes and times)."""
    root = Path(root)
    digest = hashlib.sha256()
    for path in sorted((root / "profguide").rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + path.read_bytes())
    for path in sorted([*(root / "docs" / "traces").glob("*"), *(root / "docs" / "generated").rglob("trace*.json*")]):
        state = path.stat()
        digest.update(f"{path.relative_to(root).as_posix()} {state.st_size} {state.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def keyed_cache(cache_dir: str | os.PathLike[str], key: str) -> Path:
    """The folder of ``cache_dir`` for outputs made from inputs ``key``; folders of other keys are removed."""
    cache_dir = Path(cache_dir)
    for stale in cache_dir.glob("*/") if cache_dir.is_dir() else ():
        if stale.name != key:
            shutil.rmtree(stale, ignore_errors=True)
    return cache_dir / key
