#!/usr/bin/env python3
"""check_api_docs.py: every public declaration of um's headers has a doc comment.

    python3 tests/check_api_docs.py [--quiet] HEADER_DIR_OR_FILE...

Each argument is a header (*.h) or a folder searched recursively for headers
(the include folders: engine/include, driver/include, ...). For every header it
finds, at file level (extern "C" blocks included):

  - function declarations and inline function definitions, over any number of
    lines, attributes and #if'd parts included;
  - typedefs (of structs, enums, function pointers, anything), struct / union /
    enum definitions (tagged or anonymous) and variable declarations;
  - macros (#define), once per name (a macro defined in several #if branches
    needs its comment on one of them);
  - the members of every struct / union defined there (fields, nested structs)
    and the enumerators of every enum;

and fails naming FILE:LINE, the kind and the name of each one that is not
documented. Documented means, as Doxygen reads it: directly preceded by a
/** ... */ (or /*! ... */) block or by /// (//!) lines, only white space and
#if / #ifdef / #ifndef / #else / #elif / #endif lines in between; or, for
members, enumerators and macros, trailed on the line where it ends by a
///< (/**<, //!<, /*!<) comment; or inside a member group whose opening
comment has a text (/** @{ text */ ... /** @} */), which Doxygen's
DISTRIBUTE_GROUP_DOC gives to every member of the group.

Not checked: forward declarations (struct x;), include guards, names starting
with UM__ / um__ / _ (internal by the project's convention; Doxygen's
EXCLUDE_SYMBOLS hides them too), the bodies of macros and of inline functions,
and anything inside comments. Exit status: 0 all documented, 1 some are not,
2 bad arguments or no header found.
"""
import os
import re
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
KEYWORDS = {
    "const", "volatile", "static", "inline", "extern", "struct", "union", "enum", "typedef", "unsigned",
    "signed", "int", "long", "short", "char", "float", "double", "void", "restrict", "__restrict",
    "__attribute__", "size_t",
}
CONDITIONAL = re.compile(r"#\s*(if|ifdef|ifndef|else|elif|endif)\b")


def internal(name):
    return name.startswith(("UM__", "um__", "_"))


class Header:
    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.text = f.read()
        self.comments = []  # (start, end, kind) kind: "doc", "trail", "plain"
        self.directives = []  # (start, end) of each preprocessor line (continuations included)
        self.code = self._mask()
        self.groups = self._groups()
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\n", self.text)]
        self.problems = []
        self.checked = 0

    # ---- lexing -------------------------------------------------------------
    def _mask(self):
        """The text with comments, preprocessor lines and string contents blanked (newlines kept)."""
        t = self.text
        out = list(t)
        i, n = 0, len(t)
        at_line_start = True
        while i < n:
            c = t[i]
            if t.startswith("/*", i):
                j = t.find("*/", i + 2)
                j = n if j < 0 else j + 2
                self.comments.append((i, j, self._kind(t[i:j], block=True)))
                self._blank(out, i, j)
                i = j
                continue
            if t.startswith("//", i):
                j = t.find("\n", i)
                j = n if j < 0 else j
                self.comments.append((i, j, self._kind(t[i:j], block=False)))
                self._blank(out, i, j)
                i = j
                continue
            if c == "#" and at_line_start:
                # a directive: to the end of the line, following backslash continuations;
                # comments inside it are still recorded (and blanked)
                j = i
                while j < n and t[j] != "\n":
                    if t.startswith("/*", j):
                        k = t.find("*/", j + 2)
                        k = n if k < 0 else k + 2
                        self.comments.append((j, k, self._kind(t[j:k], block=True)))
                        j = k
                        continue
                    if t.startswith("//", j):
                        k = t.find("\n", j)
                        k = n if k < 0 else k
                        self.comments.append((j, k, self._kind(t[j:k], block=False)))
                        j = k
                        continue
                    if t[j] == "\\" and j + 1 < n and t[j + 1] == "\n":
                        j += 2
                        continue
                    j += 1
                self.directives.append((i, j))
                self._blank(out, i, j)
                i = j
                continue
            if c in "\"'":
                j = i + 1
                while j < n and t[j] != c and t[j] != "\n":
                    j += 2 if t[j] == "\\" else 1
                for k in range(i + 1, min(j, n)):
                    if out[k] != "\n":
                        out[k] = "_"
                i = j + 1
                at_line_start = False
                continue
            if c == "\n":
                at_line_start = True
            elif not c.isspace():
                at_line_start = False
            i += 1
        return "".join(out)

    def _groups(self):
        """Member groups with a text (/** @{ text */ ... /** @} */): with Doxygen's
        DISTRIBUTE_GROUP_DOC the text documents every declaration in the group."""
        groups, open_at = [], None
        for s, e, k in sorted(self.comments):
            c = self.text[s:e]
            if re.search(r"[@\\]\{", c) and k == "doc" and open_at is None:
                open_at = e
            elif re.search(r"[@\\]\}", c) and open_at is not None:
                groups.append((open_at, s))
                open_at = None
        return groups

    def _in_group(self, pos):
        return any(a <= pos < b for a, b in self.groups)

    @staticmethod
    def _blank(out, i, j):
        for k in range(i, j):
            if out[k] != "\n":
                out[k] = " "

    @staticmethod
    def _kind(s, block):
        # a comment that only opens or closes a member group (/** @{ */, /** @} */) documents nothing
        if not re.sub(r"^/[*/][*!/]?<?|\*/$|[@\\][{}]|[\s*]", "", s):
            return "plain"
        if block:
            if s.startswith(("/**<", "/*!<")):
                return "trail"
            if (s.startswith("/**") and not s.startswith("/**/")) or s.startswith("/*!"):
                return "doc"
            return "plain"
        if s.startswith(("///<", "//!<")):
            return "trail"
        if (s.startswith("///") and not s.startswith("////")) or s.startswith("//!"):
            return "doc"
        return "plain"

    def line_of(self, pos):
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    # ---- is it documented? ---------------------------------------------------
    def _preceded_by_doc(self, pos):
        """A doc comment ends right before pos (white space and #if-family lines may lie between)."""
        t = self.text
        ends = {e: (s, k) for s, e, k in self.comments}
        dirs = {e: s for s, e in self.directives}
        i = pos
        while True:
            while i > 0 and t[i - 1].isspace():
                i -= 1
            if i in ends:  # a plain comment, or the trailing one of the line before, documents nothing here
                return ends[i][1] == "doc"
            if i in dirs and CONDITIONAL.match(t[dirs[i]:i]):
                i = dirs[i]
                continue
            return False

    def _trailed_by_doc(self, pos):
        """A trailing doc comment (///<, /**<) starts after pos on the same line."""
        eol = self.text.find("\n", pos)
        eol = len(self.text) if eol < 0 else eol
        for s, e, k in self.comments:
            if k == "trail" and pos <= s <= eol:
                return True
        return False

    def report(self, pos, kind, name, documented):
        self.checked += 1
        if not documented:
            self.problems.append("%s:%d: %s '%s' has no doc comment (/** ... */ or /// before it%s)" % (
                self.path, self.line_of(pos), kind, name,
                "" if kind in ("function", "typedef", "struct", "union", "enum", "variable") else ", or ///< after it"))

    # ---- parsing -------------------------------------------------------------
    def _match(self, i, open_c="{", close_c="}"):
        depth = 0
        code = self.code
        for j in range(i, len(code)):
            if code[j] == open_c:
                depth += 1
            elif code[j] == close_c:
                depth -= 1
                if depth == 0:
                    return j
        raise SyntaxError("%s:%d: unbalanced '%s'" % (self.path, self.line_of(i), open_c))

    def check(self):
        self._check_macros()
        code = self.code
        n = len(code)
        i = 0
        start = None
        bodies = []
        while i < n:
            c = code[i]
            if c.isspace():
                i += 1
                continue
            if start is None:
                start = i
                bodies = []
            if c == "{":
                head = code[start:i]
                if re.fullmatch(r"\s*extern\s+\"_\"\s*", head):
                    start = None
                    i += 1
                    continue
                j = self._match(i)
                if self._strip_bodies(head, start, bodies).rstrip().endswith(")") or \
                        re.search(r"\)\s*(const\s*)?$", head):
                    self._statement(start, i, bodies, definition=True)
                    start = None
                    i = j + 1
                    continue
                bodies.append((i, j))
                i = j + 1
                continue
            if c == "}":  # the end of an extern "C" block
                start = None
                i += 1
                continue
            if c == ";":
                self._statement(start, i, bodies, definition=False)
                start = None
                i += 1
                continue
            i += 1
        return self

    def _strip_bodies(self, text, offset, bodies):
        out = list(text)
        for b0, b1 in bodies:
            for k in range(max(b0 - offset, 0), min(b1 + 1 - offset, len(out))):
                out[k] = " "
        return "".join(out)

    def _statement(self, start, end, bodies, definition):
        head = self._strip_bodies(self.code[start:end], start, bodies)
        words = IDENT.findall(head)
        if not words:
            return
        documented = self._preceded_by_doc(start) or self._trailed_by_doc(end) or self._in_group(start)
        if words[0] == "typedef":
            m = re.search(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)", head)
            name = m.group(1) if m else self._last_ident(head)
            if not internal(name):
                self.report(start, "typedef", name, documented)
            for b0, b1 in bodies:
                self._members(b0, b1)
            return
        prefix = self.code[start:bodies[0][0]] if bodies else head
        m = re.match(r"\s*(struct|union|enum)\b\s*([A-Za-z_]\w*)?\s*$", prefix)
        if m and not bodies:
            return  # a forward declaration: documented where it is defined
        if m:
            kind, tag = m.group(1), m.group(2)
            rest = IDENT.findall(self.code[bodies[-1][1] + 1:end])
            if rest:  # struct x {...} var;
                self.report(start, "variable", rest[-1], documented)
            else:
                name = tag or "(anonymous: %s)" % (self._first_enumerator(bodies[0]) or "?")
                if not internal(name):
                    self.report(start, kind, name, documented)
            for b0, b1 in bodies:
                self._members(b0, b1)
            return
        p = self._top_paren(head)
        if p is not None:
            before = IDENT.findall(head[:p])
            name = before[-1] if before else "?"
            if name == "__attribute__":
                return
            if not internal(name):
                self.report(start, "function", name, documented)
            return
        name = self._last_ident(head)
        if not internal(name):
            self.report(start, "variable", name, documented)

    @staticmethod
    def _top_paren(head):
        m = re.search(r"\(", head)
        return m.start() if m else None

    @staticmethod
    def _last_ident(head):
        h = re.sub(r"\[[^\]]*\]", " ", head)
        h = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", h, flags=re.S)
        h = re.sub(r":\s*\d+\s*$", " ", h)  # bit-field width
        ids = [w for w in IDENT.findall(h)]
        return ids[-1] if ids else "?"

    def _first_enumerator(self, body):
        ids = IDENT.findall(self.code[body[0] + 1:body[1]])
        return ids[0] if ids else None

    def _body_kind(self, b0):
        """struct, union or enum: the last such keyword between the previous ; { } and the body."""
        k = b0 - 1
        while k >= 0 and self.code[k] not in ";{}":
            k -= 1
        words = [w for w in IDENT.findall(self.code[k + 1:b0]) if w in ("struct", "union", "enum")]
        return words[-1] if words else "struct"

    def _members(self, b0, b1):
        """Fields of a struct / union body, or enumerators of an enum body."""
        is_enum = self._body_kind(b0) == "enum"
        code = self.code
        i = b0 + 1
        start = None
        inner = []
        sep = "," if is_enum else ";"
        while i < b1:
            c = code[i]
            if c.isspace():
                i += 1
                continue
            if start is None:
                start = i
                inner = []
            if c == "{":
                j = self._match(i)
                inner.append((i, j))
                i = j + 1
                continue
            if c == "(":
                i = self._match(i, "(", ")") + 1
                continue
            if c == sep:
                self._member(start, i, inner, is_enum)
                start = None
                i += 1
                continue
            i += 1
        if start is not None:
            end = start
            for k in range(b1 - 1, start - 1, -1):
                if not code[k].isspace():
                    end = k + 1
                    break
            self._member(start, end, inner, is_enum)

    def _member(self, start, end, inner, is_enum):
        text = self._strip_bodies(self.code[start:end], start, inner)
        if not IDENT.search(text):
            return
        documented = self._preceded_by_doc(start) or self._trailed_by_doc(end) or self._in_group(start)
        if is_enum:
            self.report(start, "enumerator", IDENT.findall(text)[0], documented)
            return
        m = re.search(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)", text)
        if m:
            name = m.group(1)
        else:
            # several declarators (int begin, end;) name every one
            h = re.sub(r"\[[^\]]*\]", " ", text)
            parts = h.split(",")
            names = [self._last_ident(parts[0])] + [(IDENT.findall(p) or ["?"])[-1] for p in parts[1:]]
            name = ", ".join(names)
        self.report(start, "field", name, documented)
        for b0, b1 in inner:
            self._members(b0, b1)

    def _check_macros(self):
        t = self.text
        seen = {}
        guard = None
        for s, e in self.directives:
            line = t[s:e]
            m = re.match(r"#\s*ifndef\s+(\w+)", line)
            if m and guard is None:
                guard = m.group(1)
                continue
            m = re.match(r"#\s*define\s+(\w+)", line)
            if not m:
                continue
            name = m.group(1)
            if name == guard or internal(name):
                continue
            documented = self._preceded_by_doc(s) or self._trailed_by_doc(s) or self._in_group(s)
            if name not in seen:
                seen[name] = [s, documented]
            elif documented:
                seen[name][1] = True
        for name, (s, documented) in seen.items():
            self.report(s, "macro", name, documented)


def headers(args):
    out = []
    for a in args:
        if os.path.isdir(a):
            for root, dirs, files in os.walk(a):
                dirs.sort()
                out += [os.path.join(root, f) for f in sorted(files) if f.endswith(".h")]
        elif os.path.isfile(a):
            out.append(a)
        else:
            print("check_api_docs: no such header or folder: %s" % a, file=sys.stderr)
            sys.exit(2)
    return out


def main(argv):
    quiet = "--quiet" in argv
    args = [a for a in argv if a != "--quiet"]
    if not args or any(a.startswith("-") for a in args):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    files = headers(args)
    if not files:
        print("check_api_docs: no header (*.h) under %s" % " ".join(args), file=sys.stderr)
        return 2
    problems, checked = [], 0
    for f in files:
        h = Header(f).check()
        problems += h.problems
        checked += h.checked
        if not quiet:
            print("%s: %d declarations, %d undocumented" % (f, h.checked, len(h.problems)))
    for p in problems:
        print(p)
    print("check_api_docs: %d declarations in %d headers, %d without a doc comment" % (
        checked, len(files), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
