"""yoagent's Session semantics (seed 004) in plain Python: the oracle for tree vectors.

Written from the seed's description and SPEC.md section 15, independently of the Rust
reference. Only valid inputs and operation sequences are given to it; the expected ERROR
of an invalid case is written by hand in build_tree.py.
"""
import json

# Unicode White_Space (what Rust's str::trim removes); NOT Python's str.isspace().
WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
U64_MAX = 2 ** 64 - 1


def canon(v):
    return json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def id_number(i):
    if not i.startswith("e"):
        return None
    rest = i[1:]
    if rest.startswith("+"):
        rest = rest[1:]
    if not rest or not all("0" <= c <= "9" for c in rest):
        return None
    digits = rest.lstrip("0") or "0"
    if len(digits) > 20:
        return None
    n = int(digits)
    return n if n <= U64_MAX else None


class Tree:
    def __init__(self):
        self.entries = []  # dicts: id, parent_id, message, timestamp, label
        self.head = None
        self.counter = 0

    @classmethod
    def load(cls, text):
        t = cls()
        for line in text.split("\n"):
            line = line.strip(WHITE_SPACE)
            if not line:
                continue
            obj = json.loads(line)
            e = {"id": obj["id"], "parent_id": obj.get("parent_id"), "message": obj["message"],
                 "timestamp": obj["timestamp"], "label": obj.get("label")}
            t.entries.append(e)
            n = id_number(e["id"])
            if n is not None:
                t.counter = max(t.counter, n)
        t.head = t.entries[-1]["id"] if t.entries else None
        return t

    def find(self, i):
        for e in self.entries:
            if e["id"] == i:
                return e
        return None

    def next_id(self):
        return None if self.counter == U64_MAX else "e%d" % (self.counter + 1)

    def append(self, message, timestamp):
        self.counter += 1
        i = "e%d" % self.counter
        self.entries.append({"id": i, "parent_id": self.head, "message": message, "timestamp": timestamp, "label": None})
        self.head = i
        return i

    def path_ids(self):
        out, cur = [], self.head
        while cur is not None:
            out.append(cur)
            cur = self.find(cur)["parent_id"]
        return out[::-1]

    def children(self, i):
        return [e["id"] for e in self.entries if e["parent_id"] == i]

    def branch_tips(self):
        parents = {e["parent_id"] for e in self.entries}
        return [e["id"] for e in self.entries if e["id"] not in parents]

    def labels(self):
        out = {}
        for e in self.entries:  # later entries overwrite: the latest wins
            if e["label"] is not None:
                out[e["label"]] = e["id"]
        # order members by first appearance of the label's winning entry is irrelevant (JSON object)
        return out

    def inspect(self):
        return {"head": self.head, "path_ids": self.path_ids(), "branch_tips": self.branch_tips(),
                "children": {e["id"]: self.children(e["id"]) for e in self.entries},
                "entry_count": len(self.entries), "labels": self.labels(), "next_id": self.next_id()}

    def save(self):
        lines = []
        for e in self.entries:
            s = '{"id":%s,"parent_id":%s,"message":%s,"timestamp":%d' % (
                json.dumps(e["id"], ensure_ascii=False),
                "null" if e["parent_id"] is None else json.dumps(e["parent_id"], ensure_ascii=False),
                canon(e["message"]), e["timestamp"])
            if e["label"] is not None:
                s += ',"label":%s' % json.dumps(e["label"], ensure_ascii=False)
            lines.append(s + "}")
        return "\n".join(lines)

    def step(self, st):
        """One step of tree_apply; a failing step returns {"error": {...}} and changes
        nothing (SPEC T-OPS-1 / T-ERR-1), checked before anything is changed."""
        k = st["step"]
        if k == "append":
            if depth(st["message"]) > 127:
                return err("nesting_too_deep")
            if self.counter == U64_MAX:
                return err("id_space_exhausted")
            return self.append(st["message"], st["timestamp"])
        if k == "seek":
            if self.find(st["id"]) is None:
                return err("unknown_entry")
            self.head = st["id"]
        elif k == "checkpoint":
            if self.head is None:
                return err("empty_session")
            self.find(self.head)["label"] = st["label"]
        elif k == "seek_checkpoint":
            hits = [e for e in self.entries if e["label"] == st["label"]]
            if not hits:
                return err("unknown_checkpoint")
            self.head = hits[-1]["id"]
        elif k == "append_new":
            path = [canon(self.find(i)["message"]) for i in self.path_ids()]
            hist = st["history"]
            if len(hist) < len(path):  # the length rule comes first
                return err("history_diverged", len(hist))
            for i, p in enumerate(path):
                if canon(hist[i]) != p:
                    return err("history_diverged", i)
            new = hist[len(path):]
            if any(depth(m) > 127 for m in new):
                return err("nesting_too_deep")
            if self.counter + len(new) > U64_MAX:
                return err("id_space_exhausted")
            for m in new:
                self.append(m, st["timestamp"])
            return len(new)
        elif k == "save_load":
            t = Tree.load(self.save())
            self.entries, self.head, self.counter = t.entries, t.head, t.counter
        return None


def depth(v):
    """Nesting depth: 0 for a scalar, 1 + the deepest member for a container."""
    if isinstance(v, dict):
        return 1 + max((depth(x) for x in v.values()), default=0)
    if isinstance(v, list):
        return 1 + max((depth(x) for x in v), default=0)
    return 0


def err(code, index=None):
    e = {"code": code}
    if index is not None:
        e["index"] = index
    return {"error": e}


def apply(text, steps):
    t = Tree.load(text)
    results = [t.step(s) for s in steps]
    return {"results": results, "tree": t.save()}
