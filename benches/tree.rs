//! Session-tree lookups: the reference's id index against an O(n)-per-lookup design
//! (entries in a list, found by linear scan, as the seed's library does).
//!
//! `cargo bench --bench tree` (env `JC_TREE_ENTRIES`, default 100000).
//!
//! Then, in the same run, the reference against the REAL yoagent 0.26 `Session` on a
//! 100,000-entry chain, fan and forest (load, path_ids, path_messages, branch_tips,
//! and `tree inspect` against yoagent's load + path): that comparison lives in the
//! yoagent workspace (`implementations/yoagent/bench`, so the kit's own build never
//! compiles yoagent's HTTP stack) and this bench runs it with cargo. `JC_TREE_YOAGENT=0`
//! skips it.

use std::time::Instant;

use journal_conformance::json::Value;
use journal_conformance::tree::Tree;

/// The O(n)-per-lookup design.
struct Linear {
    entries: Vec<(String, Option<String>)>,
    head: Option<String>,
}

impl Linear {
    fn find(&self, id: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.0 == id)
    }
    fn seek(&mut self, id: &str) {
        assert!(self.find(id).is_some());
        self.head = Some(id.to_owned());
    }
    fn path_ids(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = self.head.clone();
        while let Some(id) = cur {
            cur = self.entries[self.find(&id).unwrap()].1.clone();
            out.push(id);
        }
        out.reverse();
        out
    }
    fn children(&self, id: &str) -> Vec<&str> {
        self.entries
            .iter()
            .filter(|e| e.1.as_deref() == Some(id))
            .map(|e| e.0.as_str())
            .collect()
    }
}

fn main() {
    let n: usize = std::env::var("JC_TREE_ENTRIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    // A bushy tree: each entry's parent is one of the previous 64 (depth ~ n/32).
    let mut x: u64 = 0x9E3779B97F4A7C15;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut text = String::new();
    let mut parents = Vec::with_capacity(n);
    for i in 0..n {
        let parent = if i == 0 {
            None
        } else {
            Some(i - 1 - (rnd() as usize % i.min(64)))
        };
        parents.push(parent);
        let p = parent.map_or("null".to_owned(), |p| format!("\"e{}\"", p + 1));
        text.push_str(&format!("{{\"id\":\"e{}\",\"parent_id\":{p},\"message\":{{\"text\":\"m{i}\"}},\"timestamp\":{i}}}\n", i + 1));
    }
    let t = Instant::now();
    let mut tree = Tree::load(text.as_bytes()).unwrap();
    let load = t.elapsed();
    let mut lin = Linear {
        entries: (0..n)
            .map(|i| {
                (
                    format!("e{}", i + 1),
                    parents[i].map(|p| format!("e{}", p + 1)),
                )
            })
            .collect(),
        head: Some(format!("e{n}")),
    };
    let targets: Vec<String> = (0..200)
        .map(|_| format!("e{}", 1 + rnd() as usize % n))
        .collect();

    let t = Instant::now();
    let mut depth = 0;
    for id in &targets {
        tree.seek(id).unwrap();
        depth += tree.path_ids().len();
        depth += tree.children(id).unwrap().len();
    }
    let indexed = t.elapsed();
    // The linear design is slow: time a tenth of the lookups and scale per lookup.
    let few = &targets[..targets.len() / 10];
    let t = Instant::now();
    let mut depth2 = 0;
    for id in few {
        lin.seek(id);
        depth2 += lin.path_ids().len();
        depth2 += lin.children(id).len();
    }
    let linear = t.elapsed() * (targets.len() / few.len()) as u32;
    let mut check = 0;
    for id in few {
        tree.seek(id).unwrap();
        check += tree.path_ids().len() + tree.children(id).unwrap().len();
    }
    assert_eq!(check, depth2, "both designs must agree");
    let _ = tree.append(Value::Null, 0).unwrap();
    println!(
        "session tree, {n} entries, {} seek+path_ids+children lookups (mean path {} entries)",
        targets.len(),
        depth / targets.len()
    );
    println!(
        "  load (parse + index)      {:>10.1} ms",
        load.as_secs_f64() * 1e3
    );
    println!(
        "  indexed (reference)       {:>10.3} ms  {:>10.1} µs/lookup",
        indexed.as_secs_f64() * 1e3,
        indexed.as_secs_f64() * 1e6 / targets.len() as f64
    );
    println!(
        "  linear scan (seed design) {:>10.3} ms (scaled from {} lookups)  {:>10.1} µs/lookup",
        linear.as_secs_f64() * 1e3,
        few.len(),
        linear.as_secs_f64() * 1e6 / targets.len() as f64
    );
    println!(
        "  speed-up                  {:>10.0}x",
        linear.as_secs_f64() / indexed.as_secs_f64()
    );
    if std::env::var("JC_TREE_YOAGENT").as_deref() != Ok("0") {
        against_yoagent();
    }
}

/// Run the comparison against the real yoagent crate (its own workspace).
fn against_yoagent() {
    let manifest = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/implementations/yoagent/Cargo.toml"
    );
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    println!();
    let status = std::process::Command::new(cargo)
        .args([
            "run",
            "--release",
            "--quiet",
            "--locked",
            "--manifest-path",
            manifest,
        ])
        .args(["-p", "yoagent-tree-bench"])
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => println!("the comparison against yoagent failed ({s})"),
        Err(e) => println!("the comparison against yoagent could not start: {e}"),
    }
}
