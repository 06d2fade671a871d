#!/usr/bin/python3
"""Checks rightsize's HTML and SVG reports (--format html, --format svg) for what a browser and a
reader offline need; standard library only.

Usage: check_html.py FILE...

A file is HTML when its name ends in .html or .htm or its text starts with <!DOCTYPE html> (or its
root element is <html>), SVG when its name ends in .svg or its root element is <svg>. Every file
must:
  - be UTF-8 and parse with a strict XML parser (expat): HTML is written as polyglot HTML5, so an
    unclosed tag, an unquoted attribute or an HTML-only entity such as &nbsp; is an error;
  - hold no <script>, no on* event attribute, nothing that loads or links outside the file: every
    href, src, srcset, action, ... attribute, every url(...) in a <style> or in any attribute
    (style="...", fill="url(#g)"), and every @import is a #fragment or a data: URI (so no http:,
    https:, //, file: nor relative path); no <iframe>, <object>, <embed>, <base> nor
    <meta http-equiv="refresh">;
  - have unique id attributes, and every #fragment it uses must name one of them (two inline
    charts that both define id="grad" would otherwise draw with each other's gradient);
  - SVG: its root is an <svg> in the SVG namespace (xmlns="http://www.w3.org/2000/svg"), and so is
    every <svg> inside it; in HTML an inline <svg> may carry that xmlns or omit it;
  - HTML: start with <!DOCTYPE html>, have <html lang="...">, <meta charset="utf-8">, a non-empty
    <title>, and <style> text with a prefers-color-scheme: dark rule and an @media print rule.
Prints one line per problem, "FILE: problem", and exits 1 if there was any; prints nothing and
exits 0 when every file passes. Exit 2 on a usage error.
"""

import re
import sys
import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"
# Attributes whose value is a URL that a browser may load or follow.
URL_ATTRS = {"href", "src", "srcset", "action", "formaction", "poster", "data", "background",
             "cite", "longdesc", "manifest", "ping", "codebase", "archive", "usemap", "icon",
             "lowsrc", "dynsrc", "profile"}
# Elements that embed or redirect to another document whatever their attributes.
FORBIDDEN_ELEMENTS = {"script", "iframe", "frame", "frameset", "object", "embed", "applet", "base",
                      "portal", "noscript"}
CSS_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.IGNORECASE | re.DOTALL)
CSS_IMPORT = re.compile(r"@import\b", re.IGNORECASE)
DARK = re.compile(r"prefers-color-scheme\s*:\s*dark", re.IGNORECASE)
PRINT = re.compile(r"@media\s+print\b", re.IGNORECASE)
DOCTYPE = re.compile(r"^\ufeff?\s*<!doctype\s+html\s*>", re.IGNORECASE)


def local(name):
    """The name without its {namespace} or prefix."""
    return name.rsplit("}", 1)[-1].rsplit(":", 1)[-1]


def namespace(tag):
    return tag[1:].split("}", 1)[0] if tag.startswith("{") else ""


def url_problem(value):
    """None when the URL stays inside the file (#fragment or data:), else what is wrong."""
    v = value.strip()
    if v.startswith("#") and len(v) > 1:
        return None
    if v.lower().startswith("data:"):
        return None
    return "points outside the file" if v else "is empty"


def check(path):
    problems = []

    def bad(msg):
        problems.append(f"{path}: {msg}")

    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        return [f"{path}: cannot read: {e.strerror}"]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return [f"{path}: not UTF-8 at byte {e.start}"]
    if not text.strip():
        return [f"{path}: empty"]

    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        # "mismatched tag: line 12, column 4", "undefined entity: ...", ...
        return [f"{path}: not well-formed XML: {e}"]

    lower = path.lower()
    if lower.endswith((".html", ".htm")):
        kind = "html"
    elif lower.endswith(".svg"):
        kind = "svg"
    elif DOCTYPE.match(text) or local(root.tag) == "html":
        kind = "html"
    elif local(root.tag) == "svg":
        kind = "svg"
    else:
        return [f"{path}: neither HTML (<!DOCTYPE html>) nor SVG (root <svg>): root is "
                f"<{local(root.tag)}>"]

    ids = {}
    fragments = []  # (where, id) for each #fragment used
    style_text = []

    def check_css(css, where):
        if CSS_IMPORT.search(css):
            bad(f"{where}: @import loads another file")
        for m in CSS_URL.finditer(css):
            target = m.group(2)
            why = url_problem(target)
            if why:
                bad(f"{where}: url({target}) {why}")
            elif target.startswith("#"):
                fragments.append((f"{where}: url({target})", target[1:]))

    for el in root.iter():
        if not isinstance(el.tag, str):  # comments, processing instructions
            continue
        name = local(el.tag).lower()
        if name in FORBIDDEN_ELEMENTS:
            bad(f"<{name}> element" + (" (no scripts)" if name == "script" else
                                       " (nothing embedded from outside)"))
        if name == "meta" and el.get("http-equiv", "").lower() == "refresh":
            bad("<meta http-equiv=\"refresh\"> redirects")
        if name == "svg" and (kind == "svg" or el is root) and namespace(el.tag) != SVG_NS:
            bad("<svg> without xmlns=\"http://www.w3.org/2000/svg\"")
        if name == "style":
            css = "".join(el.itertext())
            style_text.append(css)
            check_css(css, "<style>")
        for attr, value in el.attrib.items():
            a = local(attr).lower()
            if a.startswith("on"):
                bad(f"<{name} {a}=...>: event handler attribute (no scripts)")
            elif a == "id":
                if value in ids:
                    bad(f"id=\"{value}\" used twice")
                ids[value] = True
            elif a == "style" or "url(" in value.lower():
                # style="...", and SVG presentation attributes: fill="url(#g)", clip-path, ...
                check_css(value, f"<{name} {a}=...>")
            elif a in URL_ATTRS:
                why = url_problem(value)
                if why:
                    shown = value if len(value) <= 60 else value[:57] + "..."
                    bad(f"<{name} {a}=\"{shown}\">: {why} (only #fragment or data: URIs)")
                elif value.strip().startswith("#"):
                    fragments.append((f"<{name} {a}=\"{value}\">", value.strip()[1:]))
            elif value.lower().lstrip().startswith("javascript:"):
                bad(f"<{name} {a}=\"javascript:...\">: script URL")
    for where, target in fragments:
        if target not in ids:
            bad(f"{where}: no element has id=\"{target}\"")

    if kind == "svg":
        if local(root.tag) != "svg":
            bad(f"root element is <{local(root.tag)}>, not <svg>")
        return problems

    # HTML
    if not DOCTYPE.match(text):
        bad("does not start with <!DOCTYPE html>")
    if local(root.tag) != "html":
        bad(f"root element is <{local(root.tag)}>, not <html>")
    elif not root.get("lang", root.get("{http://www.w3.org/XML/1998/namespace}lang", "")).strip():
        bad("<html> has no lang attribute")
    elements = [el for el in root.iter() if isinstance(el.tag, str)]
    if not any(local(el.tag) == "meta" and el.get("charset", "").lower() == "utf-8"
               for el in elements):
        bad("no <meta charset=\"utf-8\">")
    titles = [el for el in elements if local(el.tag) == "title" and namespace(el.tag) != SVG_NS]
    if not titles or not "".join(titles[0].itertext()).strip():
        bad("no <title> (or an empty one)")
    css = "\n".join(style_text)
    if not style_text:
        bad("no <style>")
    else:
        if not DARK.search(css):
            bad("no prefers-color-scheme: dark rule in <style>")
        if not PRINT.search(css):
            bad("no @media print rule in <style>")
    return problems


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    problems = []
    for path in argv[1:]:
        problems += check(path)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
