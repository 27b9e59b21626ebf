#!/usr/bin/env python3
"""Single-fault variants of the independent Python implementation, judged by the corpus.

The corpus's strength measured from outside the reference (issue 19): every mutant of
`examples/python/{journal_ref,tree_ref,store_ref}.py` that this tool makes is ONE small
change of the kind an afternoon port gets wrong (a comparison off by one, `and` for
`or`, a check left out, a constant moved, a branch inverted), and the kit's fixed
corpus runs against it through `examples/python/adapter.py`. A mutant is *caught* when
that run fails (exit 1), *missed* when it passes (exit 0): a wrong implementation that
the corpus calls conformant, unless the change makes no observable difference.

    python3 conformance/tools/py_mutants.py --kit target/release/journal-conformance \\
        [--file journal_ref.py ...] [--shard K/N] [--properties N] [--out DIR]

It works on a scratch copy of `examples/python/` (the checkout is never written), checks
that the unmutated copy passes first, and prints one line per mutant; the misses also go
to `DIR/missed.txt` with the mutated line. Standard library only; no third-party
mutation tool is needed because the mutants are plain `ast` rewrites.
"""

import argparse
import ast
import copy
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "examples", "python")
FILES = ["journal_ref.py", "tree_ref.py", "store_ref.py"]

SWAP_CMP = {
    ast.Lt: [ast.LtE], ast.LtE: [ast.Lt], ast.Gt: [ast.GtE], ast.GtE: [ast.Gt],
    ast.Eq: [ast.NotEq], ast.NotEq: [ast.Eq], ast.In: [ast.NotIn], ast.NotIn: [ast.In],
    ast.Is: [ast.IsNot], ast.IsNot: [ast.Is],
}
SWAP_BIN = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.FloorDiv: ast.Mult,
            ast.Mod: ast.FloorDiv, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd,
            ast.LShift: ast.RShift, ast.RShift: ast.LShift}


def docstring(node, parent):
    return (isinstance(parent, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
            and parent.body and parent.body[0] is node and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))


def points(tree):
    """Every (index, description, line) a mutation can take, in source order. The index
    numbers the nodes of one walk, so `apply` finds the same node in a fresh copy."""
    out = []
    parents = {}
    for p in ast.walk(tree):
        for c in ast.iter_child_nodes(p):
            parents[c] = p
    for i, node in enumerate(ast.walk(tree)):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                for new in SWAP_CMP.get(type(op), []):
                    out.append((i, ("cmp", k, new), "%s as %s" % (type(op).__name__, new.__name__), line))
        elif isinstance(node, ast.BinOp) and type(node.op) in SWAP_BIN:
            new = SWAP_BIN[type(node.op)]
            out.append((i, ("bin", new), "%s as %s" % (type(node.op).__name__, new.__name__), line))
        elif isinstance(node, ast.BoolOp):
            new = ast.Or if isinstance(node.op, ast.And) else ast.And
            out.append((i, ("bool", new), "%s as %s" % (type(node.op).__name__, new.__name__), line))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            out.append((i, ("unnot",), "`not` dropped", line))
        elif isinstance(node, (ast.If, ast.While)):
            out.append((i, ("negate",), "%s condition negated" % type(node).__name__.lower(), line))
        elif isinstance(node, ast.Constant) and type(node.value) is int and not docstring(node, parents.get(node)):
            if abs(node.value) < 1 << 20:
                out.append((i, ("int", node.value + 1), "%d as %d" % (node.value, node.value + 1), line))
                out.append((i, ("int", node.value - 1), "%d as %d" % (node.value, node.value - 1), line))
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            out.append((i, ("bool-const",), "%s as %s" % (node.value, not node.value), line))
        elif isinstance(node, (ast.Raise, ast.Continue, ast.Break)):
            out.append((i, ("stmt-pass",), "%s replaced by pass" % type(node).__name__.lower(), line))
        elif (isinstance(node, ast.Return) and node.value is not None
              and not (isinstance(node.value, ast.Constant) and node.value.value is None)):
            out.append((i, ("return-none",), "return value replaced by None", line))
    return out


class Apply(ast.NodeTransformer):
    def __init__(self, index, how):
        self.index, self.how = index, how
        self.ids = {}

    def visit(self, node):
        if self.ids.get(id(node)) == self.index:
            return self.mutate(node)
        return self.generic_visit(node)

    def mutate(self, node):
        kind = self.how[0]
        if kind == "cmp":
            node.ops[self.how[1]] = self.how[2]()
        elif kind == "bin":
            node.op = self.how[1]()
        elif kind == "bool":
            node.op = self.how[1]()
        elif kind == "unnot":
            return node.operand
        elif kind == "negate":
            node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        elif kind == "int":
            node.value = self.how[1]
        elif kind == "bool-const":
            node.value = not node.value
        elif kind == "stmt-pass":
            return ast.Pass()
        elif kind == "return-none":
            node.value = ast.Constant(value=None)
        return node


def mutated_source(tree, index, how):
    t = copy.deepcopy(tree)
    a = Apply(index, how)
    for i, node in enumerate(ast.walk(t)):
        a.ids[id(node)] = i
    t = a.visit(t)
    ast.fix_missing_locations(t)
    return ast.unparse(t)


def run_kit(kit, work, properties, timeout):
    # --fail-fast: one failed case decides, and a variant that hangs is ended by the kit's
    # own per-check --timeout (the kit ends the adapter it started; a SIGKILL of the kit
    # could not, the adapter being in a process group of its own).
    cmd = [kit, "test", "--format", "terse", "--fail-fast", "--timeout", "10",
           "--properties", str(properties),
           "--adapter", "python3 %s" % os.path.join(work, "adapter.py")]
    # Its own process group, so that a timeout ends the adapter it started too.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT,
                         start_new_session=True)
    try:
        stdout, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # SIGTERM first: the kit ends its adapter and exits; then nothing is left to kill.
        os.killpg(p.pid, signal.SIGTERM)
        try:
            p.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
        return "timeout", ""
    tail = stdout.decode("utf-8", "replace").strip().splitlines()
    tail = tail[-1] if tail else ""
    return {0: "missed", 1: "caught"}.get(p.returncode, "error %d" % p.returncode), tail


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kit", required=True, help="the journal-conformance binary")
    ap.add_argument("--file", action="append", choices=FILES, help="only these files")
    ap.add_argument("--shard", default="0/1", help="K/N: every N-th mutant from the K-th")
    ap.add_argument("--properties", type=int, default=0,
                    help="the differential phase's cases (0: the fixed corpus alone)")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    ap.add_argument("--out", help="directory for missed.txt (default: none)")
    args = ap.parse_args()
    k, n = (int(x) for x in args.shard.split("/"))
    files = args.file or FILES

    work = tempfile.mkdtemp(prefix="py-mutants-")
    try:
        for f in os.listdir(SRC):
            if f.endswith(".py"):
                shutil.copy(os.path.join(SRC, f), work)
        trees = {f: ast.parse(open(os.path.join(SRC, f)).read()) for f in files}
        for f in files:  # ast.unparse drops comments and layout: the baseline must pass as unparsed
            with open(os.path.join(work, f), "w") as out:
                out.write(ast.unparse(trees[f]))
        todo = []
        for f in files:
            for (i, how, desc, line) in points(trees[f]):
                todo.append((f, i, how, desc, line))
        todo = [t for j, t in enumerate(todo) if j % n == k]
        if args.list:
            for f, _, _, desc, line in todo:
                print("%s:%d: %s" % (f, line, desc))
            print("%d mutants" % len(todo))
            return 0
        status, tail = run_kit(args.kit, work, args.properties, args.timeout)
        if status != "missed":
            print("the unmutated copy does not pass (%s): %s" % (status, tail))
            return 2
        counts = {}
        missed = []
        start = time.time()
        for j, (f, i, how, desc, line) in enumerate(todo):
            with open(os.path.join(work, f), "w") as out:
                out.write(mutated_source(trees[f], i, how))
            status, tail = run_kit(args.kit, work, args.properties, args.timeout)
            with open(os.path.join(work, f), "w") as out:
                out.write(ast.unparse(trees[f]))
            counts[status] = counts.get(status, 0) + 1
            src_line = open(os.path.join(SRC, f)).read().splitlines()[line - 1].strip() if line else ""
            print("%-8s %s:%d: %s   | %s" % (status.upper(), f, line, desc, src_line), flush=True)
            if status == "missed":
                missed.append("%s:%d: %s   | %s" % (f, line, desc, src_line))
        print("%d mutants in %.0f s: %s" % (len(todo), time.time() - start,
                                            ", ".join("%d %s" % (v, s) for s, v in sorted(counts.items()))))
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "missed.txt"), "w") as out:
                out.write("".join(m + "\n" for m in missed))
        return 1 if missed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
