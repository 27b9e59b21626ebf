//! `journal-conformance scale --adapter CMD`: complexity findings (SPEC.md section 17,
//! `Q-SCALE-1`, `Q-SCALE-2`). Grows each input shape of [`journal_conformance::scale`] at
//! n, 4n and 16n through the adapter and through the in-process reference, and reports
//! where the adapter's time grows faster than the reference's.

use std::io::Write as _;
use std::time::Duration;

use crate::io::{EXIT_INVALID, EXIT_OK, EXIT_USAGE};
use journal_conformance::adapter::{Implementation, Limits, OneShot, Persistent, Reference};
use journal_conformance::ops::OpKind;
use journal_conformance::scale::{self, Plan, Row, Verdict};

/// Arguments of `scale`.
#[derive(clap::Args, Debug)]
pub struct ScaleArgs {
    /// The adapter command (as `test --adapter`).
    #[arg(long)]
    pub adapter: String,
    /// Start the adapter once per request (as `test --one-shot`).
    #[arg(long)]
    pub one_shot: bool,
    /// The smallest size (entries, events, members); then 4n and 16n.
    #[arg(long, default_value_t = scale::DEFAULT_N)]
    pub n: usize,
    /// The whole run's budget in seconds: shapes that would start after it are not measured.
    #[arg(long, default_value_t = 120.0)]
    pub budget: f64,
    /// Stop growing a shape after a request that took longer than this many seconds.
    #[arg(long, default_value_t = 10.0)]
    pub per_size: f64,
    /// Seconds one request may take before the adapter is ended (as `test --timeout`).
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Only these operations (comma-separated), e.g. `tree_inspect,validate`.
    #[arg(long, value_delimiter = ',')]
    pub ops: Vec<String>,
    /// One JSON object per shape on stdout instead of text.
    #[arg(long)]
    pub json: bool,
}

fn seconds(name: &str, v: f64) -> Result<Duration, String> {
    if v > 0.0 && v.is_finite() && v < 1e9 {
        Ok(Duration::from_secs_f64(v))
    } else {
        Err(format!("{name} must be a positive number of seconds"))
    }
}

/// Run `scale`; exit 0 with no finding, 1 with a finding (or when nothing could be
/// measured), 2 on a usage error or an adapter that does not start.
pub fn run(args: ScaleArgs) -> i32 {
    match try_run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_USAGE
        }
    }
}

fn try_run(args: ScaleArgs) -> Result<i32, String> {
    let timeout = seconds("--timeout", args.timeout)?;
    let plan = Plan {
        n: args.n.max(1),
        budget: seconds("--budget", args.budget)?,
        per_size: seconds("--per-size", args.per_size)?,
    };
    if args.n == 0 || args.n > 10_000_000 {
        return Err("--n must be between 1 and 10000000".into());
    }
    let only = OpKind::parse_list(&args.ops)?;
    let limits = Limits::with_timeout(timeout);
    let mut imp: Box<dyn Implementation> = if args.one_shot {
        Box::new(OneShot::new(&args.adapter, limits)?)
    } else {
        Box::new(Persistent::start(&args.adapter, limits)?)
    };
    let mut reference = Reference::default();
    let name = imp.info().name.clone();
    if !args.json {
        let _ = writeln!(
            std::io::stdout(),
            "scale: {name} against the reference, n = {}, {}, {} (Q-SCALE-2: a finding when the adapter's exponent exceeds the reference's by more than {})",
            plan.n,
            plan.n * 4,
            plan.n * 16,
            scale::MARGIN
        );
    }
    let json = args.json;
    let rows = scale::measure(
        imp.as_mut(),
        &mut reference,
        &plan,
        (!only.is_empty()).then_some(&only[..]),
        |row| {
            let line = if json { row_json(row) } else { row.line() };
            // A closed pipe (`scale ... | head`) stops the run; it never panics.
            writeln!(std::io::stdout(), "{line}").is_ok()
        },
    );
    let findings = rows
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Superlinear { .. }))
        .count();
    let measured = rows
        .iter()
        .filter(|r| r.verdict != Verdict::NotMeasured)
        .count();
    if !json {
        let _ = writeln!(
            std::io::stdout(),
            "scale {} for {name}: {findings} finding(s) in {} shape(s) ({} measured)",
            if findings == 0 && measured > 0 {
                "ok"
            } else {
                "FAILED"
            },
            rows.len(),
            measured
        );
    }
    Ok(if findings == 0 && measured > 0 {
        EXIT_OK
    } else {
        EXIT_INVALID
    })
}

fn float(x: f64) -> journal_conformance::json::Value {
    // Microseconds (and exponents to 3 places) are all a reading is good for.
    let x = (x * 1e6).round() / 1e6;
    journal_conformance::json::Value::Number(journal_conformance::json::Number::Float(x))
}

fn row_json(row: &Row) -> String {
    use journal_conformance::json::Value;
    let secs = |ts: &[Duration]| Value::Array(ts.iter().map(|t| float(t.as_secs_f64())).collect());
    let mut fields = vec![
        ("op", Value::String(row.op.as_str().into())),
        ("profile", Value::String(row.profile.as_str().into())),
        ("shape", Value::String(row.shape.into())),
        (
            "sizes",
            Value::Array(
                row.sizes
                    .iter()
                    .map(|&n| Value::from_u64(n as u64))
                    .collect(),
            ),
        ),
        ("adapter_seconds", secs(&row.adapter)),
        ("reference_seconds", secs(&row.reference)),
    ];
    let (verdict, exps) = match &row.verdict {
        Verdict::Superlinear { adapter, reference } => ("finding", Some((*adapter, *reference))),
        Verdict::Ok { adapter, reference } => ("ok", Some((*adapter, *reference))),
        Verdict::TooFast => ("too_fast", None),
        Verdict::NotMeasured => ("not_measured", None),
    };
    fields.push(("verdict", Value::String(verdict.into())));
    if let Some((a, r)) = exps {
        fields.push(("adapter_exponent", float(a)));
        fields.push(("reference_exponent", float(r)));
    }
    if !row.memory.is_empty() {
        fields.push((
            "adapter_peak_bytes",
            Value::Array(row.memory.iter().map(|&m| Value::from_u64(m)).collect()),
        ));
        if let Some(e) = row.memory_exponent() {
            fields.push(("memory_exponent", float(e)));
        }
    }
    if let Some(s) = &row.stopped {
        fields.push(("stopped", Value::String(s.clone())));
    }
    journal_conformance::canonical::to_string(&Value::object(fields))
}
