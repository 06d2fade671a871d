#!/usr/bin/env python3
"""The sizes the house keeps (docs/architecture.md, "Sizes"): no source file over 800 lines, no
function of the library, the CLI or the benchmarks over 150 lines, no src/cli/cmd_*.cpp over 300 lines, and no command choosing its renderer
by comparing format strings (each picks it from a table).

    tests/house/sizes.py [ROOT]          exit 1 and one line per excess, else exit 0
    tests/house/sizes.py --list [ROOT]   every function over 100 lines, longest first

Functions are found by a small scanner, not a compiler: comments and literals are blanked, and a
brace block is a function body when every block around it is a namespace, class or extern block
and its header (the text since the previous ';', '{' or '}') ends in a parameter list, its
qualifiers or a constructor's initializers. Lambdas count as part of the function they are in.
"""
import pathlib
import re
import sys

MAX_FILE_LINES = 800
MAX_FUNCTION_LINES = 150
MAX_COMMAND_LINES = 300
SOURCES = ("src", "include", "bench", "tests/unit", "tests/cli", "tests/fuzz", "tests/support",
           "tests/reference")
FUNCTION_ROOTS = ("src", "include", "bench")


def blank_comments_and_literals(text):
    """The text with comments, strings and character literals replaced by spaces (newlines
    kept, so line numbers hold)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and not (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^()\\ ]{0,16})\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


SCOPE_HEADER = re.compile(r"\b(namespace|class|struct|union|enum)\b[^()]*$|\bextern\s*$", re.S)
FUNCTION_HEADER = re.compile(
    r"\)\s*(const|noexcept|override|final|mutable|&|&&|\s)*(->[^;{}]*)?$"  # f(...) const -> T
    r"|\)\s*:\s*[\w:]+\s*[({][^;]*$",  # a constructor's initializers
    re.S)


def functions(text):
    """(name, first line, last line) of every function body in `text`."""
    code = blank_comments_and_literals(text)
    stack = []  # per open block: "scope", "function" or "other"
    header_start = 0
    found = []
    line_of = lambda pos: code.count("\n", 0, pos) + 1
    starts = []
    for pos, c in enumerate(code):
        if c == "{":
            header = code[header_start:pos]
            stripped = re.sub(r"\s+", " ", header).strip()
            at_scope = all(kind == "scope" for kind in stack)
            if at_scope and SCOPE_HEADER.search(stripped) and "=" not in stripped.split("(")[0]:
                stack.append("scope")
            elif at_scope and FUNCTION_HEADER.search(stripped) and not re.search(r"=\s*$", stripped):
                stack.append("function")
                first = header_start + len(header) - len(header.lstrip())
                name = re.findall(r"([~\w:]+)\s*\(", stripped)
                starts.append((name[0] if name else "?", line_of(first)))
            else:
                stack.append("other")
            header_start = pos + 1
        elif c == "}":
            kind = stack.pop() if stack else "other"
            if kind == "function":
                name, first = starts.pop()
                found.append((name, first, line_of(pos)))
            header_start = pos + 1
        elif c == ";":
            header_start = pos + 1
    return found


def source_files(root):
    for top in SOURCES:
        for path in sorted((root / top).rglob("*")):
            if path.suffix in (".cpp", ".hpp", ".h", ".cc") and path.is_file():
                yield path


def main(argv):
    listing = "--list" in argv
    args = [a for a in argv if a != "--list"]
    root = pathlib.Path(args[0] if args else pathlib.Path(__file__).resolve().parents[2])
    problems = []
    long_functions = []
    for path in source_files(root):
        rel = path.relative_to(root)
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.count("\n") + (0 if text.endswith("\n") else 1)
        if lines > MAX_FILE_LINES:
            problems.append(f"{rel}: {lines} lines (at most {MAX_FILE_LINES}: split it along its seams)")
        if rel.parts[:2] == ("src", "cli") and rel.name.startswith("cmd_") and lines > MAX_COMMAND_LINES:
            problems.append(f"{rel}: {lines} lines (a command at most {MAX_COMMAND_LINES}: the "
                            "library computes, the command parses and renders)")
        if rel.parts[:2] == ("src", "cli"):
            for number, line in enumerate(text.splitlines(), 1):
                if re.search(r"\bformat\s*==\s*\"", line):
                    problems.append(f"{rel}:{number}: a format chosen by comparing strings (pick "
                                    "the renderer from a table)")
        if rel.parts[0] not in FUNCTION_ROOTS:
            continue  # tests: a table of cases may be long; their files may not
        for name, first, last in functions(text):
            length = last - first + 1
            if length > 100:
                long_functions.append((length, f"{rel}:{first}", name))
            if length > MAX_FUNCTION_LINES:
                problems.append(f"{rel}:{first}: {name} is {length} lines (at most "
                                f"{MAX_FUNCTION_LINES}: give its steps names)")
    if listing:
        for length, where, name in sorted(long_functions, reverse=True):
            print(f"{length:5} {where} {name}")
        return 0
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
