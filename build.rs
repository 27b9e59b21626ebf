//! Embeds the conformance corpus (`conformance/`) in the binary, so that
//! `journal-conformance test` runs the full suite from any directory, and turns the rules
//! of SPEC.md into the typed table of `src/rules/` (id, title, section): a rule id that
//! SPEC.md does not define is a compile error wherever the code names one.

#[path = "src/rules/spec_text.rs"]
mod spec_text;

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
    let out_dir = std::env::var("OUT_DIR").unwrap();
    std::fs::write(Path::new(&out_dir).join("corpus.rs"), src).unwrap();
    rules(Path::new(&manifest), Path::new(&out_dir));
}

/// `OUT_DIR/rules.rs`: the table of every rule of SPEC.md, ordered by id, and one
/// constant per rule (`id::W_LINE_1`).
fn rules(manifest: &Path, out_dir: &Path) {
    let spec_path = manifest.join("SPEC.md");
    println!("cargo:rerun-if-changed={}", spec_path.display());
    println!("cargo:rerun-if-changed=src/rules/spec_text.rs");
    let spec = std::fs::read_to_string(&spec_path).unwrap();
    let rules = spec_text::parse(&spec);
    assert!(
        rules.len() < usize::from(u16::MAX),
        "SPEC.md defines too many rules"
    );
    let mut src = format!(
        "/// Every rule of SPEC.md, ordered by id.\npub(crate) static TABLE: [RuleInfo; {}] = [\n",
        rules.len()
    );
    for r in &rules {
        writeln!(
            src,
            "    RuleInfo {{ id: {:?}, title: {:?}, section: {:?} }},",
            r.id, r.title, r.section
        )
        .unwrap();
    }
    src.push_str(
        "];\n\n/// One constant per rule of SPEC.md.\npub mod id {\n    use super::Rule;\n",
    );
    for (i, r) in rules.iter().enumerate() {
        writeln!(
            src,
            "    #[doc = {:?}]\n    pub const {}: Rule = Rule({i});",
            format!("`{}`: {}", r.id, r.title),
            spec_text::const_name(&r.id)
        )
        .unwrap();
    }
    src.push_str("}\n");
    std::fs::write(out_dir.join("rules.rs"), src).unwrap();
}
