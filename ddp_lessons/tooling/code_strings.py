"""What a translation may change in a code cell: its comments and the strings it shows a learner.

The Spanish edition runs the English program. A code cell's translation replaces some of its tokens,
each a whole comment or a whole string literal (a *unit*), and nothing else: names, calls, numbers,
keys, file names, f-string fields and magics stay as the English has them, line for line.

Which tokens are units (the rule, decided from the code itself, never guessed from the words):

1. **comments** (``# ...``), except directives: ``# NBVAL_...``, ``# noqa``, ``# type:``, ``#!``,
   ``#SBATCH`` lines of a shell script, the exercise markers (``# YOUR CODE HERE``...), and comments
   without a word;
2. **docstrings** (a module's, a class's, a function's; a cell's leading string);
3. **strings the code shows**: the arguments of ``print(...)`` (and of ``warnings.warn``,
   ``Markdown``, matplotlib's ``title``, ``suptitle``, ``set_xlabel``..., ``text``, ``annotate``), an
   ``assert``'s message, the arguments of the exception a ``raise`` builds, and the value of a
   keyword named ``help``, ``description``, ``epilog``, ``label``, ``title``, ``xlabel``, ``ylabel``,
   ``suptitle`` or ending in ``_label`` or ``_title``; also through ``+``, ``%`` (its format), ``a if c else b``, ``a or b``,
   ``"...".format(...)`` and ``"sep".join([...])``. Such a string stays English when the notebook
   *reads it back*: when a string the notebook searches for (``x in text``, ``==``, ``startswith``, a
   regular expression, ``lines_with``...) occurs in it;
4. **any other string the code only shows** (a figure's panel titles written as dict keys, a table's
   labels in a list): translated only where the catalog has a pair for it, added by hand, and refused
   when the string is *data*: a subscript's key (``row["rank"]``), a comparison's operand, a searched
   string, an argument of a call (a record's name, a file name, an option) other than the shown ones
   above, a path, or a text that the notebook uses as data anywhere else.

Strings without a word (``", "``, ``"-" * 60``) are never units. A translated string keeps its kind (an
f-string stays one) and its number of lines; an f-string keeps its ``{fields}`` (order may change;
a field that is only a string, ``{'variant':<13}``, or a choice between strings,
``{'warm' if warm else 'cold'}``, may translate its words, not its format or the choice's test), a
``str.format`` or ``%`` template its placeholders. Cells start with magics: the first line of a cell
magic (``%%writefile scripts/x.py``, ``%%ranks``) and every line magic (``%ranks start 2``,
``x = %ranks_gather y``) are kept as they are; a ``%%writefile`` of a ``.py`` file is Python, of a
``.sh``/``.sbatch`` file a shell script (its ``#`` comments are units), of anything else plain text.
"""

from __future__ import annotations

import ast
import io
import re
import string
import tokenize
from collections import Counter
from dataclasses import dataclass, field

from ddp_lessons.base.exercise_format import CODE_MARKERS, CODE_SHOWS, CODE_STUB

PYTHON, SHELL, TEXT = "python", "shell", "text"
SHELL_SUFFIXES = (".sh", ".bash", ".sbatch", ".slurm")
SHELL_MAGICS = ("%%bash", "%%sh", "%%script")

COMMENT, DOCSTRING, SHOWN, OTHER = "comment", "docstring", "shown", "other"
"""Roles of a translatable token: the automatic ones (comment, docstring, shown), and `OTHER`, a string
the catalog may translate by hand (rule 4)."""
DIRECTIVE, DATA, READ_BACK, NO_WORDS = "directive", "data", "read back", "no words"
"""Roles of a token that never changes."""
AUTOMATIC = (COMMENT, DOCSTRING, SHOWN)
TRANSLATABLE = AUTOMATIC + (OTHER,)

SHOWN_CALLS = {"print", "warn", "Markdown", "title", "suptitle", "set_title", "xlabel", "ylabel", "set_xlabel",
               "set_ylabel", "text", "annotate"}
"""Calls whose string arguments a learner reads: print, a warning, matplotlib's titles, labels and notes."""
SHOWN_KEYWORDS = {"help", "description", "epilog", "label", "title", "xlabel", "ylabel", "suptitle"}
SEARCH_CALLS = {"startswith", "endswith", "find", "rfind", "index", "rindex", "count", "split", "rsplit",
                "partition", "rpartition", "replace", "removeprefix", "removesuffix", "search", "match",
                "fullmatch", "findall", "finditer", "sub", "subn", "compile", "lines_with"}
"""Calls whose string arguments are looked for in a text: what they search for is read back."""
REGEX_CALLS = {"search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "compile", "split"}
DIRECTIVES = re.compile(r"^#([^\s#]|\s*(NBVAL_\w+|noqa\b|type:|pragma\b|fmt:|pylint:|isort:|-\*-))")
"""Comments that speak to a tool, not to a reader: ``#!``, ``#SBATCH``, ``# NBVAL_...``, ``# noqa``..."""
EXERCISE_MARKERS = {CODE_MARKERS[0], CODE_MARKERS[1], CODE_SHOWS, CODE_STUB[0]}
WORD = re.compile(r"[^\W\d_]{2}")
PATH_LIKE = re.compile(r"^[\w.~-]*/[\w./{}~-]*$|^[\w-]+\.(py|ipynb|json|jsonl|pt|csv|txt|md|sh|sbatch|log|out|yaml|yml|safetensors|png)$")
LINE_MAGIC = re.compile(r"^(?P<keep>\s*(?:[\w.]+(?:\s*,\s*[\w.]+)*\s*=\s*)?)(?P<magic>[%!].*)$")


class TranslationError(ValueError):
    """A catalog's Spanish for a code token that the cell cannot take (the message says why)."""


@dataclass(frozen=True)
class Token:
    """A token of a cell: kind (``string``, ``comment`` or the tokenize name), text, and its place as
    (row, column) of its start and end in the cell's source (rows from 1, columns in characters)."""

    kind: str
    text: str
    start: tuple[int, int]
    end: tuple[int, int]


@dataclass(frozen=True)
class Literal:
    """A string or comment token of a cell, with its role (see the module docstring) and, for a
    string, its words (the constant text; an f-string's fields as ``{}``)."""

    token: Token
    role: str
    value: str
    where: str = ""
    """For `DATA` and `READ_BACK`: why (shown to a translator whose pair is refused)."""

    @property
    def translatable(self) -> bool:
        return self.role in TRANSLATABLE


@dataclass
class Cell:
    """A code cell split for translation: the kind of its body, its source with magics masked (what
    tokenize and ast read), and the rows (from 1) of the magic lines, which never change."""

    source: str
    body: str
    masked: str
    magic_rows: set[int] = field(default_factory=set)


def split(source: str) -> Cell:
    """`source` as Python, shell or plain text, magics masked so that rows and columns stay put."""
    lines = source.split("\n")
    body, rows = PYTHON, set()
    if lines[0].startswith("%%"):
        words = lines[0].split()
        if words[0] == "%%writefile":
            target = words[-1] if len(words) > 1 else ""
            body = PYTHON if target.endswith(".py") else SHELL if target.endswith(SHELL_SUFFIXES) else TEXT
        elif words[0] in SHELL_MAGICS:
            body = SHELL
        rows.add(1)
        lines[0] = ""
    if body == PYTHON:
        for number, line in enumerate(lines, start=1):
            found = LINE_MAGIC.match(line)
            if number not in rows and found:
                lines[number - 1] = found["keep"] + ("None" if found["keep"].strip() else "pass")
                rows.add(number)
        masked = "\n".join(lines)
        try:
            ast.parse(masked)
            _tokens(masked)
        except (SyntaxError, tokenize.TokenError, IndentationError):
            body = TEXT  # not Python after all (IPython syntax we do not mask): nothing in it is translated
    return Cell(source, body, "\n".join(lines), rows)


def _tokens(text: str) -> list[Token]:
    """The Python tokens of `text`, an f-string one ``string`` token on every Python version (3.12
    splits it into FSTRING_START, its parts and FSTRING_END)."""
    found: list[Token] = []
    depth, start = 0, (0, 0)
    begin, end = getattr(tokenize, "FSTRING_START", None), getattr(tokenize, "FSTRING_END", None)
    lines = text.split("\n")
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if begin is not None and token.type == begin:
            if depth == 0:
                start = token.start
            depth += 1
        elif depth:
            if token.type == end:
                depth -= 1
                if depth == 0:
                    found.append(Token("string", _span(lines, start, token.end), start, token.end))
        elif token.type == tokenize.STRING:
            found.append(Token("string", token.string, token.start, token.end))
        elif token.type == tokenize.COMMENT:
            found.append(Token("comment", token.string, token.start, token.end))
        elif token.type not in (tokenize.NL, tokenize.ENCODING):
            found.append(Token(tokenize.tok_name[token.type], token.string, token.start, token.end))
    return found


def _span(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    if start[0] == end[0]:
        return lines[start[0] - 1][start[1]:end[1]]
    return "\n".join([lines[start[0] - 1][start[1]:], *lines[start[0]:end[0] - 1], lines[end[0] - 1][:end[1]]])


def _shell_tokens(text: str) -> list[Token]:
    """A shell script as tokens: per line, the code before its comment, then the comment (a ``#`` at
    the start of a word, outside quotes and ``${...}``)."""
    found = []
    for row, line in enumerate(text.split("\n"), start=1):
        quote, braces, cut = None, 0, None
        for col, char in enumerate(line):
            if quote:
                if char == quote and line[col - 1] != "\\":
                    quote = None
            elif char in "'\"":
                quote = char
            elif char == "{" and line[col - 1:col] == "$":
                braces += 1
            elif char == "}" and braces:
                braces -= 1
            elif char == "#" and not braces and (col == 0 or line[col - 1] in " \t"):
                cut = col
                break
        code = line if cut is None else line[:cut]
        found.append(Token("line", code, (row, 0), (row, len(code))))
        if cut is not None:
            found.append(Token("comment", line[cut:], (row, cut), (row, len(line))))
    return found


def tokens(cell: Cell) -> list[Token]:
    """The tokens of a cell's body that a translation compares: Python's, or a shell script's lines
    and comments, or a plain text's lines (the magic rows are compared apart)."""
    if cell.body == PYTHON:
        return _tokens(cell.masked)
    if cell.body == SHELL:
        return _shell_tokens(cell.masked)
    return [Token("line", line, (row, 0), (row, len(line))) for row, line in enumerate(cell.masked.split("\n"), 1)]


# --- which literals are units: the roles ----------------------------------------------------------

def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str))


def words_of(node: ast.AST) -> str:
    """The constant text of a string node: a plain string's value, an f-string's parts with ``{}``
    for each field."""
    if isinstance(node, ast.Constant):
        return node.value
    return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)


def _choices(value: ast.AST) -> list[str]:
    """The strings an f-string's field may show as they are: the field itself when it is only a string
    (``{'variant':<13}``), or the branches of a choice (``{'warm' if warm else 'cold'}``), never its test."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return [value.value]
    if isinstance(value, ast.IfExp):
        return _choices(value.body) + _choices(value.orelse)
    return []


def _blank_choices(value: ast.AST) -> ast.AST:
    """`value` with the strings `_choices` names emptied: what a translation of the field keeps."""
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return ast.Constant("")
    if isinstance(value, ast.IfExp):
        return ast.IfExp(value.test, _blank_choices(value.body), _blank_choices(value.orelse))
    return value


def _field_words(node: ast.AST) -> str:
    """The words of an f-string's fields that are only a string (``{'variant':<13}``, a table's header)
    or a choice between strings (``{'warm' if warm else 'cold'}``): a catalog may translate them (their
    format specs and a choice's test stay)."""
    if not isinstance(node, ast.JoinedStr):
        return ""
    return " ".join(word for part in node.values if isinstance(part, ast.FormattedValue)
                    for word in _choices(part.value))


def _call_name(call: ast.Call) -> str | None:
    return getattr(call.func, "id", None) or getattr(call.func, "attr", None)


@dataclass
class _Tree:
    """A cell's syntax tree with each node's parent."""

    tree: ast.Module
    parent: dict[ast.AST, ast.AST]

    @classmethod
    def of(cls, masked: str) -> "_Tree":
        tree = ast.parse(masked)
        return cls(tree, {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)})

    def literals(self) -> list[ast.AST]:
        """The string literal nodes that are tokens of their own (not the parts or fields of an f-string)."""
        found = []
        for node in ast.walk(self.tree):
            if _is_str(node) and not any(isinstance(up, (ast.JoinedStr, ast.FormattedValue))
                                         for up in self.ancestors(node)):
                found.append(node)
        return found

    def ancestors(self, node: ast.AST):
        while node in self.parent:
            node = self.parent[node]
            yield node

    def docstring(self, node: ast.AST) -> bool:
        expression = self.parent.get(node)
        owner = self.parent.get(expression)
        return (isinstance(expression, ast.Expr) and
                isinstance(owner, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                and owner.body[0] is expression)

    def shown(self, node: ast.AST) -> bool:
        """True when `node` is what a print, an assert, a raise or a shown keyword shows (rule 3)."""
        parent = self.parent.get(node)
        if isinstance(parent, ast.Call):
            if node in parent.args:
                if _call_name(parent) in SHOWN_CALLS or isinstance(self.parent.get(parent), ast.Raise):
                    return True
                if _call_name(parent) == "join" and _is_str(getattr(parent.func, "value", None)):
                    return self.shown(parent)
            return False
        if isinstance(parent, ast.keyword):
            name = parent.arg or ""
            return name in SHOWN_KEYWORDS or name.endswith(("_label", "_title"))
        if isinstance(parent, ast.Assert):
            return parent.msg is node
        if isinstance(parent, ast.BinOp):
            return (isinstance(parent.op, ast.Add) or (isinstance(parent.op, ast.Mod) and parent.left is node)) \
                and self.shown(parent)
        if isinstance(parent, ast.IfExp):
            return parent.test is not node and self.shown(parent)
        if isinstance(parent, ast.BoolOp):
            return self.shown(parent)
        if isinstance(parent, ast.Attribute) and parent.attr == "format":
            call = self.parent.get(parent)
            return isinstance(call, ast.Call) and call.func is parent and self.shown(call)
        if isinstance(parent, (ast.List, ast.Tuple)) or \
                (isinstance(parent, (ast.GeneratorExp, ast.ListComp)) and parent.elt is node):
            call = self.parent.get(parent)
            return (isinstance(call, ast.Call) and _call_name(call) == "join" and parent in call.args
                    and _is_str(getattr(call.func, "value", None)) and self.shown(call))
        return False

    def data(self, node: ast.AST) -> str | None:
        """Why `node` is data (rule 4), or None: a key, a compared or searched string, a call's argument."""
        child = node
        for up in self.ancestors(node):
            if isinstance(up, ast.Subscript):
                return "a subscript's key" if child is up.slice or _inside(child, up.slice) else None
            if isinstance(up, ast.Compare):
                return "compared"
            if isinstance(up, ast.Call):
                if child is up.func:
                    return "a string whose method is called" if _call_name(up) in SEARCH_CALLS else None
                if _call_name(up) in SEARCH_CALLS:
                    return f"searched for ({_call_name(up)})"
                return f"an argument of {_call_name(up) or 'a call'}()"
            if isinstance(up, ast.keyword):
                return f"the value of {up.arg}=" if up.arg else None
            if isinstance(up, (ast.stmt, ast.Dict, ast.List, ast.Tuple, ast.Set, ast.comprehension)):
                return None
            child = up
        return None

    def searched(self) -> list[tuple[str, bool]]:
        """What the cell looks for in a text: (string, whole) with whole True for ``==`` (the text must
        equal it) and False for a substring or a regular expression's plain parts."""
        found = []
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                for op, left, right in zip(node.ops, sides, sides[1:]):
                    if isinstance(op, (ast.In, ast.NotIn)) and _is_str(left):
                        found.append((words_of(left), False))
                    elif isinstance(op, (ast.Eq, ast.NotEq)):
                        found += [(words_of(side), True) for side in (left, right) if _is_str(side)]
            elif isinstance(node, ast.Call) and _call_name(node) in SEARCH_CALLS:
                for arg in node.args:
                    if _is_str(arg):
                        text = words_of(arg)
                        if _call_name(node) in REGEX_CALLS and isinstance(node.func, ast.Attribute) \
                                and getattr(node.func.value, "id", None) == "re":
                            found += [(part, False) for part in _regex_words(text)]
                        else:
                            found.append((text, False))
        return [(text, whole) for text, whole in found if WORD.search(text)]


def _inside(node: ast.AST, tree: ast.AST) -> bool:
    return any(node is child for child in ast.walk(tree))


def _regex_words(pattern: str) -> list[str]:
    """The plain runs of a regular expression (at least 4 characters), what it surely matches."""
    plain = re.sub(r"\\.", "\0", pattern)
    return [run for run in re.split(r"[\0^$.|?*+()\[\]{}]", plain) if len(run) >= 4]


@dataclass
class Context:
    """What a whole notebook's code says about its strings: those it looks for in a text (what it
    reads back), and those it uses as data, with where (cell id)."""

    searched: list[tuple[str, bool, str]] = field(default_factory=list)
    data: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, cells: list[tuple[str, str]]) -> "Context":
        """The context of a notebook's code cells [(id, source)]."""
        context = cls()
        for cell_id, source in cells:
            cell = split(source)
            if cell.body != PYTHON:
                continue
            tree = _Tree.of(cell.masked)
            where = f"cell {cell_id}" if cell_id else "this cell"
            context.searched += [(text, whole, where) for text, whole in tree.searched()]
            for node in ast.walk(tree.tree):  # keys read inside f-string fields count: f"{row['rank']}"
                if _is_str(node) and not isinstance(tree.parent.get(node), ast.JoinedStr):
                    why = tree.data(node)
                    if why and WORD.search(words_of(node)):
                        context.data.setdefault(words_of(node), f"{where}: {why}")
        return context

    def read_back(self, words: str) -> str | None:
        """Where the notebook looks for (part of) a text whose constant words are `words`, or None.

        A searched string that is one bare word (``"rank" in row``) may test a key, not a text: it
        reads a text back only when the text is exactly that word."""
        parts = words.split("{}")
        for text, whole, where in self.searched:
            phrase = not whole and len(text) >= 4 and not re.fullmatch(r"\w+", text)
            if (whole and text == words) or (phrase and any(text in part for part in parts)):
                return f"{where} looks for {text!r} in a text"
        return None


def literals(source: str, context: Context | None = None) -> list[Literal]:
    """The string and comment tokens of a code cell, each with its role, in order; `context` is the
    notebook's (default: the cell's own)."""
    context = context or Context.of([("", source)])
    cell = split(source)
    found = []
    if cell.body == TEXT:
        return []
    if cell.body == SHELL:
        for token in tokens(cell):
            if token.kind == "comment":
                found.append(Literal(token, _comment_role(token.text), token.text))
        return found
    tree = _Tree.of(cell.masked)
    nodes = tree.literals()
    for token in tokens(cell):
        if token.kind == "comment":
            found.append(Literal(token, _comment_role(token.text), token.text))
        elif token.kind == "string":
            node = _node_at(nodes, token, cell.masked)
            found.append(_string_literal(token, node, tree, context))
    return found


def _comment_role(text: str) -> str:
    if DIRECTIVES.match(text) or text.strip() in EXERCISE_MARKERS:
        return DIRECTIVE
    return COMMENT if WORD.search(text) else NO_WORDS


def _node_at(nodes: list[ast.AST], token: Token, masked: str) -> ast.AST | None:
    """The literal node that holds `token` (implicitly concatenated strings are one node of several
    tokens); ast counts columns in UTF-8 bytes, tokenize in characters."""
    lines = masked.split("\n")
    row, col = token.start
    where = (row, len(lines[row - 1][:col].encode("utf-8")))
    for node in nodes:
        if (node.lineno, node.col_offset) <= where < (node.end_lineno, node.end_col_offset):
            return node
    return None


def _string_literal(token: Token, node: ast.AST | None, tree: _Tree, context: Context) -> Literal:
    if node is None:
        return Literal(token, DATA, "", "not found in the syntax tree")
    words = words_of(node)
    if not WORD.search(words):
        if WORD.search(_field_words(node)) and tree.shown(node) and not context.read_back(_field_words(node)):
            return Literal(token, OTHER, words)  # a table's header: its words are string-only fields
        return Literal(token, NO_WORDS, words)
    if tree.docstring(node):
        return Literal(token, DOCSTRING, words)
    if tree.shown(node):
        why = context.read_back(words)
        return Literal(token, READ_BACK, words, why) if why else Literal(token, SHOWN, words)
    why = tree.data(node) or ("a path" if PATH_LIKE.match(words) else None)
    if why:
        return Literal(token, DATA, words, why)
    why = context.read_back(words) or (f"used as data in {context.data[words]}" if words in context.data else None)
    return Literal(token, READ_BACK if why and "looks for" in why else DATA, words, why) if why \
        else Literal(token, OTHER, words)


def units(source: str, context: Context | None = None) -> list[str]:
    """The texts of the cell's automatic units (rules 1-3), each once, in order of appearance: what a
    catalog's skeleton lists for the cell."""
    seen: dict[str, None] = {}
    for literal in literals(source, context):
        if literal.role in AUTOMATIC:
            seen.setdefault(literal.token.text, None)
    return list(seen)


# --- a translation: check it, write it ---------------------------------------------------------------

def literal_end(text: str, pos: int = 0) -> int:
    """Where the string literal or comment that starts at `pos` in `text` ends (the index after it);
    raises TranslationError when none starts there or it is never closed."""
    if text.startswith("#", pos):
        end = text.find("\n", pos)
        return len(text) if end < 0 else end
    found = re.compile(r"[rRbBuUfF]{0,2}('''|\"\"\"|'|\")").match(text, pos)
    if not found:
        raise TranslationError(f"not a string literal or a comment: {text[pos:pos + 40]!r}")
    quote, i = found[1], found.end()
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(quote, i):
            return i + len(quote)
        if text[i] == "\n" and len(quote) == 1:
            break
        i += 1
    raise TranslationError(f"the string is never closed (missing {quote}): {text[pos:pos + 40]!r}")


def _prefix(literal: str) -> str:
    return "".join(sorted(re.match(r"[a-zA-Z]*", literal)[0].lower().replace("u", "")))


def _parsed(literal: str) -> ast.AST:
    try:
        node = ast.parse(literal.strip(), mode="eval").body
    except SyntaxError as error:
        raise TranslationError(f"not a valid Python string ({error.msg}): {literal}") from None
    if not _is_str(node) or literal_end(literal) != len(literal):
        raise TranslationError(f"not one Python string literal: {literal}")
    return node


def _fields(node: ast.AST) -> Counter:
    """An f-string's fields (expression, conversion, format), each as ast.dump writes it; a field that
    is only a string (``{'variant':<13}``, a table's header) or a choice between strings
    (``{'warm' if warm else 'cold'}``) counts without those words, which translate."""
    found: Counter = Counter()
    for part in getattr(node, "values", []):
        if isinstance(part, ast.FormattedValue):
            part = ast.FormattedValue(_blank_choices(part.value), part.conversion, part.format_spec)
            found[ast.dump(part)] += 1
    return found


PERCENT = re.compile(r"%(\(\w+\))?[-#0+]*(\*|\d+)?(\.(\*|\d+))?[diouxXeEfFgGcrs]")
"""A %-conversion (``%s``, ``%(name)d``, ``%.3f``); ``100% of`` is none."""


def _placeholders(text: str) -> Counter:
    """A plain string's str.format fields and %-conversions (empty when it is not a template)."""
    found: Counter = Counter()
    try:
        found.update(f"{{{name}!{conv}:{spec}}}" for _, name, spec, conv in string.Formatter().parse(text)
                     if name is not None)
    except ValueError:
        pass
    found.update(match[0] for match in PERCENT.finditer(text))
    return found


def check(english: str, spanish: str) -> None:
    """Raise TranslationError unless `spanish` can replace the token `english` (a comment or a string
    literal, as written in the cell): same kind, same number of lines, same fields."""
    if english.startswith("#"):
        if not spanish.startswith("#") or "\n" in spanish:
            raise TranslationError(f"the Spanish of a comment is a comment on one line (starting with #): {spanish}")
        return
    if spanish.count("\n") != english.count("\n"):
        raise TranslationError(f"the Spanish has {spanish.count(chr(10)) + 1} line(s), the English "
                               f"{english.count(chr(10)) + 1}: keep the lines (tracebacks then name the "
                               f"same line in both editions): {spanish}")
    theirs, mine = _parsed(english), _parsed(spanish)
    if _prefix(english) != _prefix(spanish):
        raise TranslationError(f"the Spanish must keep the English's prefix ({english[:2]}...): {spanish}")
    if isinstance(theirs, ast.JoinedStr) or isinstance(mine, ast.JoinedStr):
        if _fields(theirs) != _fields(mine):
            raise TranslationError(f"the f-string's {{fields}} must be the English's, unchanged (their order "
                                   f"may change): {english} -> {spanish}")
    elif _placeholders(theirs.value) != _placeholders(mine.value):
        raise TranslationError(f"the template's placeholders must be the English's: {english} -> {spanish}")


def translate(source: str, pairs: dict[str, str], context: Context | None = None) -> str:
    """`source` with each token whose text is a key of `pairs` replaced by its translation.

    Raises TranslationError (one message per problem) when a pair's Spanish cannot replace its
    English, or a pair translates a token that is not translatable (data, a directive)."""
    found = literals(source, context)
    problems, edits = [], []
    for english, spanish in pairs.items():
        matching = [literal for literal in found if literal.token.text == english]
        if not matching:
            continue  # the catalog's check reports a pair that matches nothing
        fixed = [literal for literal in matching if not literal.translatable]
        if fixed and spanish != english:
            literal = fixed[0]
            problems.append(f"{english}: stays English ({literal.role}"
                            + (f": {literal.where}" if literal.where else "") + ")")
            continue
        try:
            check(english, spanish)
        except TranslationError as error:
            problems.append(str(error))
            continue
        edits += [(literal.token, spanish) for literal in matching]
    if problems:
        raise TranslationError("\n".join(problems))
    lines = source.split("\n")
    for token, spanish in sorted(edits, key=lambda edit: edit[0].start, reverse=True):
        (row, col), (end_row, end_col) = token.start, token.end
        head, tail = lines[row - 1][:col], lines[end_row - 1][end_col:]
        lines[row - 1:end_row] = (head + spanish + tail).split("\n")
    return "\n".join(lines)


def differences(english: str, spanish: str, context: Context | None = None) -> list[str]:
    """How the Spanish code cell differs from the English other than in translatable tokens (empty:
    the two run the same program, line for line): the first few differences, as sentences."""
    theirs, mine = split(english), split(spanish)
    if theirs.body != mine.body:
        return [f"the cell is {mine.body} in Spanish, {theirs.body} in English (its first line differs)"]
    if english.count("\n") != spanish.count("\n"):
        return [f"{spanish.count(chr(10)) + 1} lines in Spanish, {english.count(chr(10)) + 1} in English"]
    problems = [f"line {row}: {spanish.split(chr(10))[row - 1]!r} differs from the English "
                f"{english.split(chr(10))[row - 1]!r}" for row in sorted(theirs.magic_rows | mine.magic_rows)
                if english.split("\n")[row - 1] != spanish.split("\n")[row - 1]]
    if theirs.magic_rows != mine.magic_rows:
        problems.append("the magics are not on the same lines")
    try:
        mine_tokens = tokens(mine)
    except (tokenize.TokenError, SyntaxError) as error:
        return problems + [f"the Spanish is not valid Python: {error}"]
    roles = {literal.token.start: literal for literal in literals(english, context)}
    theirs_tokens = tokens(theirs)
    if len(mine_tokens) != len(theirs_tokens):
        problems.append(f"{len(mine_tokens)} tokens in Spanish, {len(theirs_tokens)} in English")
    for a, b in zip(theirs_tokens, mine_tokens):
        if len(problems) >= 5:
            break
        literal = roles.get(a.start)
        if a.kind != b.kind or a.start[0] != b.start[0]:
            problems.append(f"line {b.start[0]}: {b.text!r} where the English has {a.text!r} (line {a.start[0]})")
        elif literal is not None and literal.translatable and a.text != b.text:
            try:
                check(a.text, b.text)
            except TranslationError as error:
                problems.append(f"line {b.start[0]}: {error}")
        elif a.text != b.text:
            why = f" (it stays English: {literal.role})" if literal is not None else ""
            problems.append(f"line {b.start[0]}: {b.text!r} where the English has {a.text!r}{why}")
    return problems
