//! The kit's tree reference against the REAL yoagent 0.26 `Session`, in one run, on
//! 100,000-entry trees of real yoagent messages: a chain, a fan (one root, every other
//! entry its child) and a forest (1,000 chains of 100).
//!
//! For each shape and each side: `load` (yoagent: `Session::from_jsonl`; the kit: the
//! generic `Tree::load` and the `yoagent-0.26` dialect's `Session::load`), `path_ids`,
//! `path_messages`, `branch_tips`, and `tree inspect` (the kit's whole command: load and
//! the inspect view; in the dialect, the shape-only load `tree inspect` runs, one reader
//! per core) against yoagent's load + `path_ids`. Sides alternate, each
//! measurement is the median of `JC_TREE_ROUNDS` (default 5) rounds, except yoagent's
//! quadratic `path_ids`/`path_messages` on the chain, measured once.
//!
//! Run: `cargo bench --bench tree` (which runs this), or directly
//! `cargo run --release --manifest-path implementations/yoagent/Cargo.toml -p yoagent-tree-bench`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use journal_conformance::fast;
use journal_conformance::ops::Profile;
use journal_conformance::ops::{self, Operation};
use journal_conformance::tree::{yoagent as dialect, Tree};

fn message(i: usize) -> String {
    if i % 2 == 1 {
        format!(
            r#"{{"role":"user","content":[{{"type":"text","text":"question {i} about the plan"}}],"timestamp":{}}}"#,
            1000 + i
        )
    } else {
        format!(
            r#"{{"role":"assistant","content":[{{"type":"text","text":"answer {i} with some detail"}}],"stopReason":"stop","model":"claude-sonnet-5","provider":"anthropic","usage":{{"input":12,"output":34,"cacheRead":0,"cacheWrite":0,"totalTokens":46}},"timestamp":{}}}"#,
            1000 + i
        )
    }
}

fn tree(shape: &str, n: usize) -> String {
    let mut out = String::new();
    for i in 1..=n {
        let parent = match shape {
            _ if i == 1 => None,
            "chain" => Some(i - 1),
            "fan" => Some(1),
            _ if i % 100 == 1 => None,
            _ => Some(i - 1),
        };
        if i > 1 {
            out.push('\n');
        }
        let p = parent.map_or("null".to_owned(), |p| format!("\"e{p}\""));
        out.push_str(&format!(
            r#"{{"id":"e{i}","parent_id":{p},"message":{},"timestamp":{}}}"#,
            message(i),
            5000 + i
        ));
    }
    out
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let t = Instant::now();
    let r = f();
    (t.elapsed(), r)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn main() {
    let n: usize = std::env::var("JC_TREE_ENTRIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let rounds: usize = std::env::var("JC_TREE_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
        .max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "tree: the kit's reference against real yoagent 0.26.6, {n} entries, median of {rounds}, {cores} cores"
    );
    println!(
        "{:<7} {:<14} {:>12} {:>12} {:>12} {:>8} {:>8}",
        "shape", "measure", "yoagent", "kit generic", "kit dialect", "yo/gen", "yo/dia"
    );
    for shape in ["chain", "fan", "forest"] {
        let text = tree(shape, n);
        let bytes = text.as_bytes();
        let mut rows: Vec<(&str, Vec<Duration>, Vec<Duration>, Vec<Duration>)> = [
            "load",
            "path_ids",
            "path_messages",
            "branch_tips",
            "inspect",
        ]
        .iter()
        .map(|m| (*m, vec![], vec![], vec![]))
        .collect();
        let quadratic = shape == "chain";
        for round in 0..rounds {
            // yoagent
            let (t, s) = time(|| yoagent::Session::from_jsonl(&text).unwrap());
            rows[0].1.push(t);
            if !quadratic || round == 0 {
                let (tp, p) = time(|| s.path_ids());
                black_box(p);
                rows[1].1.push(tp);
                rows[4].1.push(t + tp);
                let (t, p) = time(|| s.path_messages());
                black_box(p);
                rows[2].1.push(t);
            }
            let (t, p) = time(|| s.branch_tips().len());
            black_box(p);
            rows[3].1.push(t);
            drop(s);
            // the kit, generic format
            let (t, g) = time(|| Tree::load(bytes).unwrap());
            rows[0].2.push(t);
            let (t, p) = time(|| g.path_ids().len());
            black_box(p);
            rows[1].2.push(t);
            let (t, p) = time(|| g.path_messages().len());
            black_box(p);
            rows[2].2.push(t);
            let (t, p) = time(|| g.branch_tips().len());
            black_box(p);
            rows[3].2.push(t);
            drop(g);
            let (t, v) =
                time(|| ops::execute(&Operation::TreeInspect, bytes, Profile::Core).unwrap());
            black_box(v);
            rows[4].2.push(t);
            // the kit, yoagent-0.26 dialect
            let (t, d) = time(|| dialect::Session::load(bytes).unwrap());
            rows[0].3.push(t);
            let (t, p) = time(|| d.path_ids().len());
            black_box(p);
            rows[1].3.push(t);
            let (t, p) = time(|| d.path_messages().len());
            black_box(p);
            rows[2].3.push(t);
            let (t, p) = time(|| d.branch_tips().len());
            black_box(p);
            rows[3].3.push(t);
            drop(d);
            // What `tree inspect --profile yoagent-0.26` runs once the file is read: the
            // shape-only load (one reader per core), then the view. From the bytes in
            // memory, as yoagent's `from_jsonl` reads a `&str`.
            let (t, v) = time(|| fast::yoagent::load_shape(bytes, cores).unwrap().inspect());
            black_box(v);
            rows[4].3.push(t);
        }
        for (m, y, g, d) in rows {
            let (y, g, d) = (median(y), median(g), median(d));
            println!(
                "{:<7} {:<14} {:>12} {:>12} {:>12} {:>7.1}x {:>7.1}x",
                shape,
                if m == "inspect" { "inspect*" } else { m },
                ms(y),
                ms(g),
                ms(d),
                y.as_secs_f64() / g.as_secs_f64(),
                y.as_secs_f64() / d.as_secs_f64()
            );
        }
    }
    println!("ratios > 1: the kit is faster. inspect*: the kit's `tree inspect` (load + view) against yoagent's load + path_ids.");
}
