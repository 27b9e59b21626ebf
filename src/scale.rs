//! Complexity findings (SPEC.md section 17, rules `Q-SCALE-1`, `Q-SCALE-2`): the input
//! shapes where implementations go quadratic, grown by a factor of 4, timed through any
//! [`Implementation`] and through the reference on the same bytes, and the growth exponent
//! of each fitted and compared.
//!
//! What this module owns: the shapes ([`shapes`]), the timing of one request
//! ([`time_request`]), the fit ([`exponent`]) and the judgement ([`judge`]). The command
//! (`journal-conformance scale`) only prints what [`measure`] returns.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::adapter::{Implementation, Reply};
use crate::ops::{OpKind, Operation, Profile};

/// How much faster than the reference an adapter's time may grow before it is a finding:
/// the adapter's exponent may exceed the reference's by this much ([`judge`]). An
/// O(n log n) against O(n) adds about 0.1 to an exponent; a quadratic adds 1.
pub const MARGIN: f64 = 0.5;

/// Below this time at the largest size, growth is not judged (the adapter's fixed costs,
/// process and protocol, dominate): 50 ms.
pub const FLOOR: Duration = Duration::from_millis(50);

/// The smallest size when none is given (`scale --n`, `test --scale`): then 4n and 16n.
/// At 1000 a quadratic with a real linear part (yoagent's path walk beside its JSON
/// load) read n^1.6 to n^1.8 on its last step, too near the margin; at 2000 its largest
/// request still takes about 3 s.
pub const DEFAULT_N: usize = 4000;

/// How long the reference's runs of one size may add up to before it stops repeating
/// them (at most 1000 runs): its exponent is the yardstick of every verdict, and the least
/// of many runs is the one a loaded machine disturbs least. It answers in process in
/// milliseconds, so this costs about a second per shape.
pub const REFERENCE_SPEND: Duration = Duration::from_millis(500);

/// The same for the adapter (at most 10 runs).
pub const ADAPTER_SPEND: Duration = Duration::from_millis(200);

/// Runs that add up to more than this are enough for one reading ([`time_request`]).
pub const LONG: Duration = Duration::from_secs(1);

/// One input shape for one operation.
pub struct Shape {
    /// `chain`, `fan`, `long-line`, ...
    pub name: &'static str,
    pub op: OpKind,
    pub profile: Profile,
    /// The input at size `n` and the operation to run on it.
    pub build: fn(usize) -> (Operation, Vec<u8>),
}

fn event(out: &mut String, i: usize, ty: &str, payload: &str, parent: Option<usize>) {
    let _ = write!(
        out,
        "{{\"event_id\":\"e{i}\",\"session_id\":\"s\",\"sequence\":{i},\"type\":\"{ty}\",\"payload\":{payload},\"provenance\":{{\"run_id\":\"r\"}}"
    );
    if let Some(p) = parent {
        let _ = write!(out, ",\"parent_event_id\":\"e{p}\"");
    }
    out.push_str("}\n");
}

/// A core journal of `n` events; event `i > 0` has the parent `parent(i)`.
fn journal(n: usize, parent: fn(usize) -> usize) -> Vec<u8> {
    let mut s = String::with_capacity(n * 140);
    event(&mut s, 0, "session.start", "{}", None);
    for i in 1..n.max(2) {
        let payload = format!("{{\"content\":\"message {i}\"}}");
        event(&mut s, i, "user.message", &payload, Some(parent(i)));
    }
    s.into_bytes()
}

/// Two events, the second holding one string of about `64 n` bytes.
fn long_line(n: usize) -> Vec<u8> {
    let mut s = String::new();
    event(&mut s, 0, "session.start", "{}", None);
    let text = "a\\u00e9\\n\\\"b ".repeat(n * 4);
    event(
        &mut s,
        1,
        "user.message",
        &format!("{{\"content\":\"{text}\"}}"),
        Some(0),
    );
    s.into_bytes()
}

/// A tree file of `n` entries holding real yoagent user messages (the generic format
/// takes any message, so both dialects read the same bytes);
/// entry `i > 1` has the parent `parent(i)`, and with `labels` every entry is labelled.
fn tree(n: usize, parent: fn(usize) -> Option<usize>, labels: bool) -> Vec<u8> {
    let mut s = String::with_capacity(n * 110);
    for i in 1..=n.max(2) {
        let p = parent(i).map_or("null".to_owned(), |p| format!("\"e{p}\""));
        let _ = write!(
            s,
            "{{\"id\":\"e{i}\",\"parent_id\":{p},\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"m{i}\"}}],\"timestamp\":{i}}},\"timestamp\":{i}"
        );
        if labels {
            let _ = write!(s, ",\"label\":\"l{i}\"");
        }
        s.push_str("}\n");
    }
    s.into_bytes()
}

fn chain_parent(i: usize) -> usize {
    i - 1
}
fn fan_parent(_: usize) -> usize {
    0
}
fn tree_chain(i: usize) -> Option<usize> {
    (i > 1).then(|| i - 1)
}
fn tree_fan(i: usize) -> Option<usize> {
    (i > 1).then_some(1)
}
/// Sixteen roots, each the first of a chain: a forest.
fn tree_forest(i: usize) -> Option<usize> {
    (i > 16).then(|| i - 16)
}

/// Every shape, in the order they are measured.
pub fn shapes() -> Vec<Shape> {
    let mut v = Vec::new();
    macro_rules! journal_shape {
        ($name:literal, $op:expr, $mkop:expr, $input:expr) => {
            v.push(Shape {
                name: $name,
                op: $op,
                profile: Profile::Core,
                build: |n| ($mkop(n), $input(n)),
            })
        };
    }
    // Non-capturing closures, one per (operation, shape): `build` is a plain fn.
    let (vk, rk, fk, bk) = (
        OpKind::Validate,
        OpKind::Replay,
        OpKind::Fingerprint,
        OpKind::Branch,
    );
    journal_shape!("chain", vk, |_| Operation::Validate, |n| journal(
        n,
        chain_parent
    ));
    journal_shape!("fan", vk, |_| Operation::Validate, |n| journal(
        n, fan_parent
    ));
    journal_shape!("long-line", vk, |_| Operation::Validate, long_line);
    journal_shape!("chain", rk, |_| Operation::Replay { until: None }, |n| {
        journal(n, chain_parent)
    });
    journal_shape!("fan", rk, |_| Operation::Replay { until: None }, |n| {
        journal(n, fan_parent)
    });
    journal_shape!(
        "chain",
        fk,
        |_| Operation::Fingerprint { until: None },
        |n| journal(n, chain_parent)
    );
    journal_shape!(
        "long-line",
        fk,
        |_| Operation::Fingerprint { until: None },
        long_line
    );
    journal_shape!(
        "chain",
        bk,
        |n: usize| Operation::Branch {
            at: (n / 2) as i64,
            branch_id: "b".into()
        },
        |n| journal(n, chain_parent)
    );
    v.push(Shape {
        name: "wide-object",
        op: OpKind::Canonical,
        profile: Profile::Core,
        build: |n| {
            let mut s = String::from("{");
            for i in (0..n * 4).rev() {
                let _ = write!(
                    s,
                    "{}\"k{i}\":[{i},\"\\u00e9\"]",
                    if i + 1 == n * 4 { "" } else { "," }
                );
            }
            s.push('}');
            (Operation::Canonical, s.into_bytes())
        },
    });
    for profile in [Profile::Core, Profile::Yoagent026] {
        let inspect = |name, build| Shape {
            name,
            op: OpKind::TreeInspect,
            profile,
            build,
        };
        v.push(inspect("chain", |n| {
            (Operation::TreeInspect, tree(n, tree_chain, false))
        }));
        v.push(inspect("fan", |n| {
            (Operation::TreeInspect, tree(n, tree_fan, false))
        }));
        v.push(inspect("forest", |n| {
            (Operation::TreeInspect, tree(n, tree_forest, false))
        }));
        if profile == Profile::Core {
            v.push(inspect("labels", |n| {
                (Operation::TreeInspect, tree(n, tree_fan, true))
            }));
        }
    }
    v
}

/// The time of one request: the least of its runs, because on a loaded machine noise only
/// ever adds time. At least 3 runs unless they add up to more than [`LONG`] (one run of a
/// request that takes seconds is already a precise reading of it), then more, up to
/// `max_runs`, while they add up to less than `spend`. Also the
/// least peak memory of those runs when the implementation knows it (one-shot adapters,
/// [`Implementation::peak_memory`]). `Err` when the implementation did not answer (a
/// fault: crash, hang, timeout) or answered `unsupported`.
pub fn time_request(
    imp: &mut dyn Implementation,
    op: &Operation,
    profile: Profile,
    input: &[u8],
    max_runs: u32,
    spend: Duration,
) -> Result<(Duration, Option<u64>), String> {
    let mut total = Duration::ZERO;
    let mut least = Duration::MAX;
    let mut memory: Option<u64> = None;
    let mut runs = 0u32;
    while runs == 0 || (runs < 3 && total < LONG) || (runs < max_runs && total < spend) {
        let t = Instant::now();
        let reply = imp.run(op, profile, input);
        let took = t.elapsed();
        total += took;
        least = least.min(took);
        if let Some(m) = imp.peak_memory() {
            memory = Some(memory.map_or(m, |x| x.min(m)));
        }
        runs += 1;
        match reply {
            Reply::Answer(crate::verdict::Answer::Result(_)) => {}
            // Every shape is valid (a unit test asks the reference): an error is a wrong
            // answer, and timing it would time the wrong thing.
            Reply::Answer(crate::verdict::Answer::Error { code, .. }) => {
                return Err(format!("answered the error {code} to a valid input"))
            }
            Reply::Unsupported => return Err("unsupported".into()),
            Reply::Fault(f) => return Err(f),
        }
    }
    Ok((least, memory))
}

/// The growth exponent from size `n1` (time `t1`) to `n2` (`t2`): `log(t2/t1) / log(n2/n1)`.
/// Times are floored at 1 µs so that a zero reading does not divide by zero.
pub fn exponent(n1: usize, t1: Duration, n2: usize, t2: Duration) -> f64 {
    let f = |t: Duration| t.as_secs_f64().max(1e-6);
    (f(t2) / f(t1)).ln() / (n2 as f64 / n1 as f64).ln()
}

/// One shape's measurement.
#[derive(Clone, Debug)]
pub struct Row {
    pub op: OpKind,
    pub profile: Profile,
    pub shape: &'static str,
    /// The sizes measured (n, 4n, 16n; fewer when the budget ran out or the adapter failed).
    pub sizes: Vec<usize>,
    pub adapter: Vec<Duration>,
    pub reference: Vec<Duration>,
    /// The adapter's peak resident memory in bytes at each size (one-shot adapters only;
    /// empty when it is not known). Reported, not judged.
    pub memory: Vec<u64>,
    /// Why measuring stopped early, if it did (a fault, the per-request timeout, the budget).
    pub stopped: Option<String>,
    pub verdict: Verdict,
}

/// What one row says (Q-SCALE-2).
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// The adapter's time grows as n^adapter where the reference's grows as n^reference,
    /// more than [`MARGIN`] apart: a `should`-level finding.
    Superlinear { adapter: f64, reference: f64 },
    /// Within the margin (or the reference grows as fast).
    Ok { adapter: f64, reference: f64 },
    /// Too fast to judge at the largest size ([`FLOOR`]).
    TooFast,
    /// Fewer than two sizes were measured.
    NotMeasured,
}

/// The verdict (Q-SCALE-2). The adapter's exponent is taken on the last step (4n to 16n):
/// its fixed costs (a process, the protocol) flatten the first step, so a quadratic
/// behind a slow proxy reads as n^1.2 from n to 16n. A step of 4 is noisier (a factor of 2
/// in one reading moves it by 0.5), so the whole span must also exceed the reference by
/// half the margin. The in-process reference has no fixed costs: its exponent is taken over
/// the whole span.
pub fn judge(sizes: &[usize], adapter: &[Duration], reference: &[Duration]) -> Verdict {
    let k = sizes.len().min(adapter.len()).min(reference.len());
    if k < 2 {
        return Verdict::NotMeasured;
    }
    if adapter[k - 1] < FLOOR {
        return Verdict::TooFast;
    }
    let last = exponent(sizes[k - 2], adapter[k - 2], sizes[k - 1], adapter[k - 1]);
    let span = exponent(sizes[0], adapter[0], sizes[k - 1], adapter[k - 1]);
    let r = exponent(sizes[0], reference[0], sizes[k - 1], reference[k - 1]);
    if last > r + MARGIN && span > r + MARGIN / 2.0 {
        Verdict::Superlinear {
            adapter: last,
            reference: r,
        }
    } else {
        Verdict::Ok {
            adapter: last,
            reference: r,
        }
    }
}

impl Row {
    /// `; peak memory 21.0, 24.1, 37.9 MB (n^0.2 from n to 16n)` when it was measured.
    fn memory_text(&self) -> String {
        if self.memory.len() != self.sizes.len() || self.memory.is_empty() {
            return String::new();
        }
        let mb: Vec<String> = self
            .memory
            .iter()
            .map(|&m| format!("{:.1}", m as f64 / 1e6))
            .collect();
        let growth = match self.memory_exponent() {
            Some(e) => format!(
                " (n^{e:.1} from n to {}n)",
                self.sizes[self.sizes.len() - 1] / self.sizes[0]
            ),
            None => String::new(),
        };
        format!("; peak memory {} MB{growth}", mb.join(", "))
    }

    /// The growth exponent of the peak memory from the first size to the last.
    pub fn memory_exponent(&self) -> Option<f64> {
        let k = self.memory.len().min(self.sizes.len());
        (k >= 2 && self.memory[0] > 0).then(|| {
            (self.memory[k - 1] as f64 / self.memory[0] as f64).ln()
                / (self.sizes[k - 1] as f64 / self.sizes[0] as f64).ln()
        })
    }

    /// The one-line finding or result, e.g. `tree_inspect (yoagent-0.26) on a chain grows as
    /// n^2.0 (reference n^1.0)`.
    pub fn line(&self) -> String {
        let what = format!(
            "{} ({}) on {}",
            self.op.as_str(),
            self.profile.as_str(),
            self.shape
        );
        let times = self
            .sizes
            .iter()
            .zip(self.adapter.iter().zip(&self.reference))
            .map(|(n, (t, r))| {
                format!(
                    "n={n}: {:.3} s (reference {:.4} s)",
                    t.as_secs_f64(),
                    r.as_secs_f64()
                )
            })
            .collect::<Vec<_>>()
            .join(", ");
        let stopped = self
            .stopped
            .as_ref()
            .map_or(String::new(), |s| format!("; stopped: {s}"));
        let stopped = format!("{}{stopped}", self.memory_text());
        match &self.verdict {
            Verdict::Superlinear { adapter, reference } => format!(
                "FINDING {what} grows as n^{adapter:.1} (reference n^{reference:.1}) [{times}]{stopped}"
            ),
            Verdict::Ok { adapter, reference } => {
                format!("ok      {what}: n^{adapter:.1} (reference n^{reference:.1}) [{times}]{stopped}")
            }
            Verdict::TooFast => format!("ok      {what}: under {} ms at the largest size [{times}]{stopped}", FLOOR.as_millis()),
            Verdict::NotMeasured => format!("--      {what}: not measured [{times}]{stopped}"),
        }
    }
}

/// How [`measure`] grows and bounds a run.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The smallest size; then 4n and 16n.
    pub n: usize,
    /// The whole run's wall-time budget: a shape that would start after it is not measured.
    pub budget: Duration,
    /// Growth stops at a size whose request took longer than this (the next would take
    /// 4^exponent times as long).
    pub per_size: Duration,
}

/// Measure every shape of an operation `imp` offers, at n, 4n and 16n, against `reference`.
/// `progress` gets each row as it is done, and returns whether to go on (false: the
/// reader went away, say a closed pipe).
pub fn measure(
    imp: &mut dyn Implementation,
    reference: &mut dyn Implementation,
    plan: &Plan,
    only: Option<&[OpKind]>,
    mut progress: impl FnMut(&Row) -> bool,
) -> Vec<Row> {
    let start = Instant::now();
    let mut rows = Vec::new();
    for shape in shapes() {
        if !imp_info_offers(imp, &shape) || only.is_some_and(|o| !o.contains(&shape.op)) {
            continue;
        }
        let mut row = Row {
            op: shape.op,
            profile: shape.profile,
            shape: shape.name,
            sizes: Vec::new(),
            adapter: Vec::new(),
            reference: Vec::new(),
            memory: Vec::new(),
            stopped: None,
            verdict: Verdict::NotMeasured,
        };
        for step in 0..3 {
            if start.elapsed() > plan.budget {
                row.stopped = Some("the run's --budget was spent".into());
                break;
            }
            let n = plan.n * 4usize.pow(step);
            let (op, input) = (shape.build)(n);
            // The reference in process answers small inputs in microseconds: many runs, so
            // that its least time is not one scheduler tick's noise.
            let r = match time_request(reference, &op, shape.profile, &input, 1000, REFERENCE_SPEND)
            {
                Ok((t, _)) => t,
                Err(e) => {
                    row.stopped = Some(format!("the reference did not answer at n={n}: {e}"));
                    break;
                }
            };
            match time_request(imp, &op, shape.profile, &input, 10, ADAPTER_SPEND) {
                Ok((t, m)) => {
                    row.sizes.push(n);
                    row.adapter.push(t);
                    row.reference.push(r);
                    row.memory.extend(m);
                    if t > plan.per_size && step < 2 {
                        row.stopped = Some(format!(
                            "n={n} took longer than {} s",
                            plan.per_size.as_secs_f64()
                        ));
                        break;
                    }
                }
                Err(e) => {
                    row.stopped = Some(format!("no answer at n={n}: {e}"));
                    break;
                }
            }
        }
        row.verdict = judge(&row.sizes, &row.adapter, &row.reference);
        let go_on = progress(&row);
        rows.push(row);
        if !go_on {
            break;
        }
    }
    rows
}

fn imp_info_offers(imp: &dyn Implementation, s: &Shape) -> bool {
    let info = imp.info();
    info.offers(s.op) && info.profiles.iter().any(|p| p == s.profile.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::Reference;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn the_exponent_of_a_quadratic_is_two() {
        let e = exponent(1000, 10 * MS, 4000, 160 * MS);
        assert!((e - 2.0).abs() < 1e-9, "{e}");
        assert!((exponent(1000, 10 * MS, 4000, 40 * MS) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_quadratic_against_a_linear_reference_is_a_finding_and_a_fast_one_is_not_judged() {
        let sizes = [100, 400, 1600];
        let lin = [MS, 4 * MS, 16 * MS];
        let quad = [MS, 16 * MS, 256 * MS];
        assert!(matches!(
            judge(&sizes, &quad, &lin),
            Verdict::Superlinear { .. }
        ));
        assert!(matches!(
            judge(&sizes, &[MS * 3, MS * 12, MS * 60], &lin),
            Verdict::Ok { .. }
        ));
        assert_eq!(judge(&sizes, &lin, &lin), Verdict::TooFast);
        assert_eq!(
            judge(&sizes[..1], &quad[..1], &lin[..1]),
            Verdict::NotMeasured
        );
    }

    #[test]
    fn every_shape_is_a_valid_input_the_reference_answers() {
        let mut r = Reference::default();
        for s in shapes() {
            let (op, input) = (s.build)(20);
            match r.run(&op, s.profile, &input) {
                Reply::Answer(crate::verdict::Answer::Result(_)) => {}
                other => panic!("{} {} {:?}: {other:?}", s.op.as_str(), s.name, s.profile),
            }
        }
    }
}
