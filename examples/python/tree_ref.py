"""tree_ref: session trees (SPEC.md section 15), independent Python version.

Written from SPEC.md alone (not from the Rust reference), standard library
only, Python 3.8+.  It reuses journal_ref's strict JSON parser (section 3.1)
and canonical writer (section 3.2).  Rule ids in the comments refer to
SPEC.md.

Public API:

    load(data)                      -> Tree            (15.1; raises TreeError)
    Tree.append(message, timestamp) -> new id          (T-APPEND-1)
    Tree.seek(id)                                      (T-SEEK-1)
    Tree.checkpoint(label)                             (T-CHECKPOINT-1)
    Tree.seek_checkpoint(label)                        (T-SEEKCP-1)
    Tree.path_ids(), Tree.path_messages()              (T-PATH-1)
    Tree.branch_tips(), Tree.children(id)              (T-TIPS-1)
    Tree.append_new(history, timestamp) -> count       (T-APPENDNEW-1)
    Tree.save()                     -> str             (T-SAVE-1)
    Tree.next_id()                  -> str or None     (T-NEXT-1)
    Tree.inspect()                  -> dict            (T-OPS-1 tree_inspect)
    apply_steps(tree, steps)        -> dict            (T-OPS-1 tree_apply)
    run_operation(op_object, data, profile)  -> ("result", value) | ("error", error_dict)

Errors are TreeError, a journal_ref.JournalError whose to_json() adds
`index` when it has one (T-ERR-1: history_diverged).
"""

import re

import journal_ref as jr

__all__ = [
    "TreeError", "Tree", "Entry", "OPERATIONS", "STEPS", "WHITE_SPACE", "U64_MAX",
    "id_number", "load", "apply_steps", "run_operation",
]

OPERATIONS = ("tree_inspect", "tree_apply")
U64_MAX = (1 << 64) - 1

# T-LINE-1: Unicode White_Space, spelled out.  NOT str.strip()'s default set:
# that one also strips U+001C..U+001F (str.isspace()), which are not
# White_Space and therefore stay in the line here (and make it invalid JSON).
WHITE_SPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680"
               + "".join(chr(c) for c in range(0x2000, 0x200B))
               + "\u2028\u2029\u202f\u205f\u3000")

_NUMBERED = re.compile(r"e\+?([0-9]+)")   # [0-9] is ASCII only in `re`


class TreeError(jr.JournalError):
    """A tree error (O-ERR-1), with `index` for history_diverged (T-ERR-1)."""

    def __init__(self, code, message, line=None, column=None, sequence=None, index=None):
        jr.JournalError.__init__(self, code, message, line=line, column=column,
                                 sequence=sequence)
        self.index = index

    def to_json(self):
        out = jr.JournalError.to_json(self)
        if self.index is not None:
            out["index"] = self.index
        return out


def id_number(entry_id):
    """T-NEXT-1: the number of a numbered id, or None.

    `e`, an optional `+`, one or more ASCII digits, value in 0..=2^64-1.
    Leading zeros are allowed in any amount, so the digits are stripped of
    them before int() (which refuses strings over 4300 digits).
    """
    m = _NUMBERED.fullmatch(entry_id)
    if m is None:
        return None
    digits = m.group(1).lstrip("0") or "0"
    if len(digits) > 20:
        return None
    n = int(digits)
    return n if n <= U64_MAX else None


class Entry(object):
    __slots__ = ("id", "parent", "message", "timestamp", "label", "pos", "kids", "_canon")

    def __init__(self, entry_id, parent, message, timestamp, label, pos):
        self.id = entry_id
        self.parent = parent          # the parent Entry or None (a root)
        self.message = message
        self.timestamp = timestamp
        self.label = label            # str or None
        self.pos = pos                # 0-based position in file order
        self.kids = []                # child entries, in file order
        self._canon = None

    @property
    def parent_id(self):
        return None if self.parent is None else self.parent.id

    def canon(self):
        """The canonical text of the message (section 3.2), cached."""
        if self._canon is None:
            self._canon = jr.canonical_text(self.message)
        return self._canon


def _depth(value):
    """Nesting depth: 0 for a scalar, 1 for a container of scalars (iterative)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, list):
            d += 1
            deepest = max(deepest, d)
            stack.extend((x, d) for x in v)
    return deepest


def _check_depth(message):
    """T-APPEND-1: the entry line of a message deeper than 127 would break
    C-DEPTH-1 (the saved tree would not load)."""
    if _depth(message) > jr.MAX_DEPTH - 1:
        raise TreeError("nesting_too_deep",
                        "the message is nested deeper than %d levels" % (jr.MAX_DEPTH - 1))


class Tree(object):
    """A loaded session tree: entries in file order, an id index, the head,
    the next-id counter, and a label index (label -> positions)."""

    def __init__(self):
        self.entries = []
        self.by_id = {}
        self.head = None
        self.counter = 0              # T-NEXT-1
        self._labels = {}             # label -> set of entry positions

    # ---- building
    def _add(self, entry_id, parent, message, timestamp, label):
        e = Entry(entry_id, parent, message, timestamp, None, len(self.entries))
        self.entries.append(e)
        self.by_id[entry_id] = e
        if parent is not None:
            parent.kids.append(e)
        if label is not None:
            self._set_label(e, label)
        n = id_number(entry_id)
        if n is not None and n > self.counter:
            self.counter = n
        return e

    def _set_label(self, e, label):
        if e.label is not None:
            positions = self._labels[e.label]
            positions.discard(e.pos)
            if not positions:
                del self._labels[e.label]
        e.label = label
        self._labels.setdefault(label, set()).add(e.pos)

    # ---- T-NEXT-1
    def next_id(self):
        """The id the next append gets, or None when the id space is used up."""
        if self.counter >= U64_MAX:
            return None
        return "e%d" % (self.counter + 1)

    # ---- 15.2 operations
    def append(self, message, timestamp):
        """T-APPEND-1."""
        _check_depth(message)
        new_id = self.next_id()
        if new_id is None:
            raise TreeError("id_space_exhausted",
                            "the next id would be beyond e%d" % U64_MAX)
        self.head = self._add(new_id, self.head, message, timestamp, None)
        return new_id

    def seek(self, entry_id):
        """T-SEEK-1."""
        e = self.by_id.get(entry_id)
        if e is None:
            raise TreeError("unknown_entry", "no entry with id %r" % (entry_id,))
        self.head = e

    def checkpoint(self, label):
        """T-CHECKPOINT-1."""
        if self.head is None:
            raise TreeError("empty_session", "checkpoint %r: the tree has no head" % (label,))
        self._set_label(self.head, label)

    def checkpoint_entry(self, label):
        """The entry seek_checkpoint(label) chooses (latest in file order), or None."""
        positions = self._labels.get(label)
        return self.entries[max(positions)] if positions else None

    def seek_checkpoint(self, label):
        """T-SEEKCP-1."""
        e = self.checkpoint_entry(label)
        if e is None:
            raise TreeError("unknown_checkpoint", "no entry carries the label %r" % (label,))
        self.head = e

    def path(self):
        """T-PATH-1: the entries from the root to the head, root first."""
        out = []
        e = self.head
        while e is not None:
            out.append(e)
            e = e.parent
        out.reverse()
        return out

    def path_ids(self):
        return [e.id for e in self.path()]

    def path_messages(self):
        return [e.message for e in self.path()]

    def branch_tips(self):
        """T-TIPS-1: entries that are no entry's parent, in file order."""
        return [e.id for e in self.entries if not e.kids]

    def children(self, entry_id):
        """T-TIPS-1: ids of the entries whose parent is `entry_id`, in file order."""
        e = self.by_id.get(entry_id)
        return [] if e is None else [k.id for k in e.kids]

    def append_new(self, history, timestamp):
        """T-APPENDNEW-1.  Nothing is appended on failure."""
        path = self.path()
        if len(history) < len(path):
            raise TreeError("history_diverged",
                            "history has %d messages, the path to the head %d"
                            % (len(history), len(path)), index=len(history))
        for i, e in enumerate(path):
            if jr.canonical_text(history[i]) != e.canon():
                raise TreeError("history_diverged",
                                "history differs from the path at index %d" % i, index=i)
        new = history[len(path):]
        for message in new:        # every depth check before the id check
            _check_depth(message)
        if len(new) > U64_MAX - self.counter:
            raise TreeError("id_space_exhausted",
                            "appending %d entries would go beyond e%d" % (len(new), U64_MAX))
        for message in new:
            self.append(message, timestamp)
        return len(new)

    def save(self):
        """T-SAVE-1: one line per entry, joined by \\n, no final newline."""
        return "\n".join(_entry_line(e) for e in self.entries)

    def inspect(self):
        """T-OPS-1 tree_inspect."""
        return {
            "head": None if self.head is None else self.head.id,
            "path_ids": self.path_ids(),
            "branch_tips": self.branch_tips(),
            "children": {e.id: [k.id for k in e.kids] for e in self.entries},
            "entry_count": len(self.entries),
            "labels": {label: self.entries[max(pos)].id for label, pos in self._labels.items()},
            "next_id": self.next_id(),
        }


def _entry_line(e):
    s = jr.canonical_text   # on a str: C-STR-1 / C-STR-2
    parts = ['{"id":', s(e.id),
             ',"parent_id":', "null" if e.parent is None else s(e.parent.id),
             ',"message":', e.canon(),
             ',"timestamp":', str(e.timestamp)]
    if e.label is not None:
        parts += [',"label":', s(e.label)]
    parts.append("}")
    return "".join(parts)


# ---------------------------------------------------------------------------
# 15.1 loading
# ---------------------------------------------------------------------------

def _is_u64(v):
    return type(v) is int and 0 <= v <= U64_MAX


def _check_entry(v):
    """T-ENTRY-1, members in its order; an error message or None."""
    if type(v) is not dict:
        return "an entry must be a JSON object"
    if "id" not in v:
        return "id is required"
    if type(v["id"]) is not str:
        return "id must be a string"
    if "parent_id" in v and v["parent_id"] is not None and type(v["parent_id"]) is not str:
        return "parent_id must be a string or null"
    if "message" not in v:
        return "message is required"
    if "timestamp" not in v:
        return "timestamp is required"
    if not _is_u64(v["timestamp"]):
        return "timestamp must be an integer in 0..=18446744073709551615"
    if "label" in v and v["label"] is not None and type(v["label"]) is not str:
        return "label must be a string or null"
    return None


def load(data):
    """Load a tree file (bytes): T-LINE-1, T-LINE-2, T-ENTRY-1, T-ID-1,
    T-PARENT-1 per line in that order (T-ORDER-1); T-HEAD-1; T-NEXT-1."""
    tree = Tree()
    for lineno, raw in enumerate(bytes(data).split(b"\n"), 1):   # T-LINE-1: \n only
        try:
            text = raw.decode("utf-8")                              # T-LINE-2
        except UnicodeDecodeError as exc:
            raise TreeError("invalid_utf8", "invalid UTF-8 byte 0x%02X" % raw[exc.start],
                            line=lineno, column=exc.start + 1)
        body = text.strip(WHITE_SPACE)                              # T-LINE-1
        if not body:
            continue                                                # T-BLANK-1
        lead = len(text[:len(text) - len(text.lstrip(WHITE_SPACE))].encode("utf-8"))
        if body[0] == "\ufeff":
            raise TreeError("unexpected_bom", "line starts with U+FEFF",
                            line=lineno, column=lead + 1)
        try:
            v = jr.parse_json(body.encode("utf-8"))
        except jr._ParseError as exc:
            raise TreeError(exc.code, exc.message, line=lineno, column=lead + exc.offset + 1)
        msg = _check_entry(v)                                       # T-ENTRY-1
        if msg:
            raise TreeError("malformed_entry", msg, line=lineno)
        entry_id = v["id"]
        if entry_id in tree.by_id:                                  # T-ID-1
            raise TreeError("duplicate_entry_id", "entry id %r used before" % (entry_id,),
                            line=lineno)
        parent_id = v.get("parent_id")
        parent = None
        if parent_id is not None:                                   # T-PARENT-1
            parent = tree.by_id.get(parent_id)
            if parent is None:
                raise TreeError("unknown_parent",
                                "entry %r: parent_id %r is not an earlier entry"
                                % (entry_id, parent_id), line=lineno)
        tree._add(entry_id, parent, v["message"], v["timestamp"], v.get("label"))
    tree.head = tree.entries[-1] if tree.entries else None          # T-HEAD-1
    return tree


# ---------------------------------------------------------------------------
# 15.3 operations as data
# ---------------------------------------------------------------------------

# step name -> its members besides "step" (all required, no others)
STEPS = {
    "append": ("message", "timestamp"),
    "seek": ("id",),
    "checkpoint": ("label",),
    "seek_checkpoint": ("label",),
    "append_new": ("history", "timestamp"),
    "save_load": (),
}


def _check_steps(steps):
    """Shape of the `ops` array; OperationError (not a tree error) if bad."""
    if type(steps) is not list:
        raise jr.OperationError("tree_apply: ops must be an array")
    for i, step in enumerate(steps):
        if type(step) is not dict or type(step.get("step")) is not str:
            raise jr.OperationError("ops[%d]: a step is an object with a string member 'step'" % i)
        name = step["step"]
        if name not in STEPS:
            raise jr.OperationError("ops[%d]: unknown step %r" % (i, name))
        members = STEPS[name]
        for m in members:
            if m not in step:
                raise jr.OperationError("ops[%d]: %s needs member %r" % (i, name, m))
        for m in step:
            if m != "step" and m not in members:
                raise jr.OperationError("ops[%d]: %s does not take member %r" % (i, name, m))
        # The spec gives these no error code; a timestamp must be one that
        # T-ENTRY-1 can load back (T-ROUND-1).
        if "timestamp" in step and not _is_u64(step["timestamp"]):
            raise jr.OperationError("ops[%d]: timestamp must be an integer in 0..=2^64-1" % i)
        for m in ("id", "label"):
            if m in step and type(step[m]) is not str:
                raise jr.OperationError("ops[%d]: %s must be a string" % (i, m))
        if "history" in step and type(step["history"]) is not list:
            raise jr.OperationError("ops[%d]: history must be an array" % i)


def _step_error(exc):
    """T-ERR-1: a failed step's element of results: its code, and `index` for
    history_diverged (nothing else, so results compare exactly)."""
    e = {"code": exc.code}
    if exc.index is not None:
        e["index"] = exc.index
    return {"error": e}


def apply_steps(tree, steps):
    """T-OPS-1 tree_apply on a loaded tree.  A failing step changes nothing
    (every step checks before it changes anything), its element of results is
    {"error": {"code": ...}} (T-ERR-1), and the remaining steps go on."""
    _check_steps(steps)
    results = []
    for i, step in enumerate(steps):
        name = step["step"]
        try:
            if name == "append":
                results.append(tree.append(step["message"], step["timestamp"]))
            elif name == "seek":
                tree.seek(step["id"])
                results.append(None)
            elif name == "checkpoint":
                tree.checkpoint(step["label"])
                results.append(None)
            elif name == "seek_checkpoint":
                tree.seek_checkpoint(step["label"])
                results.append(None)
            elif name == "append_new":
                results.append(tree.append_new(step["history"], step["timestamp"]))
            else:  # save_load: T-ROUND-1
                tree = load(tree.save().encode("utf-8"))
                results.append(None)
        except TreeError as exc:
            results.append(_step_error(exc))
    return {"results": results, "tree": tree.save()}


_OP_MEMBERS = {"tree_inspect": (), "tree_apply": ("ops",)}


def run_operation(op, data, profile="core"):
    """Run a tree operation object (T-OPS-1) on input bytes.

    Returns ("result", value) or ("error", error object).  Raises
    journal_ref.OperationError if the operation object is malformed.  The
    profile does not matter to trees (section 15), but must be a known one.
    """
    if type(op) is not dict or op.get("op") not in _OP_MEMBERS:
        raise jr.OperationError("not a tree operation: %r" % (op,))
    name = op["op"]
    for member in _OP_MEMBERS[name]:
        if member not in op:
            raise jr.OperationError("%s needs member %r" % (name, member))
    for member in op:
        if member != "op" and member not in _OP_MEMBERS[name]:
            raise jr.OperationError("%s does not take member %r" % (name, member))
    if profile not in jr.PROFILES:
        raise jr.OperationError("unknown profile %r" % (profile,))
    if name == "tree_apply":
        _check_steps(op["ops"])
    try:
        tree = load(data)
        if name == "tree_inspect":
            result = tree.inspect()
        else:
            result = apply_steps(tree, op["ops"])
    except TreeError as exc:
        return "error", exc.to_json()
    return "result", result
