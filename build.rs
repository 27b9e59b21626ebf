//! Embeds the conformance corpus (`conformance/`) in the binary, so that
//! `journal-conformance test` runs the full suite from any directory.

use std::fmt::Write as _;
use std::path::Path;

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(root, &path, out);
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
}

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let root = Path::new(&manifest).join("conformance");
    println!("cargo:rerun-if-changed=conformance");
    let mut files = Vec::new();
    walk(&root, &root, &mut files);
    files.sort();
    let mut src = String::from("&[\n");
    for rel in &files {
        // Not the corpus: the generators (`tools/`, Python and a Rust crate), docs,
        // hidden files. The loader reads vector files and the input files they name.
        if rel.ends_with(".py")
            || rel.ends_with(".md")
            || rel
                .split('/')
                .any(|part| part.starts_with('.') || part == "tools")
        {
            continue;
        }
        let abs = root.join(rel);
        println!("cargo:rerun-if-changed={}", abs.display());
        writeln!(
            src,
            "    ({rel:?}, include_bytes!({:?}) as &[u8]),",
            abs.display().to_string()
        )
        .unwrap();
    }
    src.push_str("]\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("corpus.rs");
    std::fs::write(out, src).unwrap();
}
