//! Proptest strategies: recipes drawn within a [`GenConfig`], built into journals.
//!
//! Every strategy generates a recipe and maps it through the deterministic builders,
//! so shrinking works on the recipe (fewer units, shorter strings, smaller position
//! and variant selectors) and the builder re-applies everything, defects included.

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;

use super::malformed::{self, Defect, DefectRecipe, MalformedJournal, MalformedRecipe};
use super::recipe::{
    Accumulated, DeltaFinal, Escaping, GenConfig, IdStyle, JournalRecipe, JsonRecipe, KeyOrder,
    NumberSpelling, ParentShape, ResponseMarker, Richness, Spacing, UnitKind, UnitRecipe, UnitTag,
    UnknownType, WriteStyle,
};
use super::valid::{self, GeneratedJournal};
use super::values::{HARD_NUMBERS, HARD_STRINGS};
use crate::event::JournalProfile;

/// Characters that are individually hard for writers and parsers.
const HARD_CHARS: &[char] = &[
    '\u{0}',
    '\u{1}',
    '\u{1f}',
    '\n',
    '\r',
    '\t',
    '\u{8}',
    '\u{c}',
    '"',
    '\\',
    '/',
    '\u{7f}',
    '\u{80}',
    '\u{85}',
    '\u{a0}',
    '\u{2028}',
    '\u{2029}',
    '\u{feff}',
    '😀',
    '𝄞',
    '\u{301}',
    'é',
    '\u{e000}',
    '\u{ffff}',
    '\u{10ffff}',
    '｡',
    '中',
    '\u{200b}',
];

fn char_strategy(r: Richness) -> BoxedStrategy<char> {
    let letters = proptest::char::range('a', 'z');
    match r {
        Richness::Minimal => prop_oneof![8 => letters, 1 => Just(' ')].boxed(),
        Richness::Typical => prop_oneof![
            8 => letters,
            2 => Just(' '),
            1 => proptest::char::range('\u{a0}', '\u{2fff}'),
            1 => select(&['é', '中', '😀', 'ß', 'ø'][..]),
        ]
        .boxed(),
        Richness::Hard => prop_oneof![
            6 => letters,
            1 => Just(' '),
            2 => any::<char>(),
            3 => select(HARD_CHARS),
        ]
        .boxed(),
    }
}

/// Text of up to `max_len` characters at richness `r`.
pub fn text(r: Richness, max_len: usize) -> BoxedStrategy<String> {
    let chars = vec(char_strategy(r), 0..=max_len).prop_map(String::from_iter);
    match r {
        Richness::Hard => prop_oneof![
            8 => chars,
            1 => select(HARD_STRINGS).prop_map(str::to_owned),
        ]
        .boxed(),
        _ => chars.boxed(),
    }
}

/// A JSON value recipe at richness `r`.
pub fn json(r: Richness) -> BoxedStrategy<JsonRecipe> {
    let leaf = match r {
        Richness::Minimal => prop_oneof![
            Just(JsonRecipe::Null),
            any::<bool>().prop_map(JsonRecipe::Bool),
            (0i64..1000).prop_map(JsonRecipe::Int),
            text(r, 6).prop_map(JsonRecipe::Str),
        ]
        .boxed(),
        Richness::Typical => prop_oneof![
            1 => Just(JsonRecipe::Null),
            1 => any::<bool>().prop_map(JsonRecipe::Bool),
            2 => any::<i64>().prop_map(JsonRecipe::Int),
            2 => (-1e6f64..1e6).prop_map(JsonRecipe::Float),
            3 => text(r, 10).prop_map(JsonRecipe::Str),
        ]
        .boxed(),
        Richness::Hard => prop_oneof![
            1 => Just(JsonRecipe::Null),
            1 => any::<bool>().prop_map(JsonRecipe::Bool),
            2 => any::<i64>().prop_map(JsonRecipe::Int),
            2 => any::<f64>().prop_map(JsonRecipe::Float),
            3 => text(r, 10).prop_map(JsonRecipe::Str),
            3 => (0..HARD_NUMBERS as u8).prop_map(JsonRecipe::HardNumber),
            2 => any::<u8>().prop_map(JsonRecipe::HardString),
            1 => (any::<bool>(), vec(proptest::char::range('0', '9'), 0..60))
                .prop_map(|(negative, d)| JsonRecipe::BigInt { negative, digits: d.into_iter().collect() }),
        ]
        .boxed(),
    };
    let key = key(r);
    let tree = leaf.prop_recursive(3, 24, 4, move |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(JsonRecipe::Array),
            vec((key.clone(), inner), 0..4).prop_map(JsonRecipe::Object),
        ]
    });
    if r == Richness::Hard {
        prop_oneof![40 => tree, 1 => any::<u8>().prop_map(JsonRecipe::DeepNest)].boxed()
    } else {
        tree.boxed()
    }
}

/// An object key at richness `r`.
pub fn key(r: Richness) -> BoxedStrategy<String> {
    match r {
        Richness::Minimal => vec(proptest::char::range('a', 'z'), 1..6)
            .prop_map(String::from_iter)
            .boxed(),
        _ => prop_oneof![
            4 => vec(proptest::char::range('a', 'z'), 1..8).prop_map(String::from_iter),
            2 => text(r, 6),
            1 => select(HARD_STRINGS).prop_map(str::to_owned),
        ]
        .boxed(),
    }
}

/// A write style (the plain one when `vary` is false).
pub fn write_style(vary: bool) -> BoxedStrategy<WriteStyle> {
    if !vary {
        return Just(WriteStyle::plain()).boxed();
    }
    (
        select(
            &[
                KeyOrder::Insertion,
                KeyOrder::Sorted,
                KeyOrder::Reversed,
                KeyOrder::Shuffled,
            ][..],
        ),
        select(&[Spacing::Compact, Spacing::Spaces, Spacing::Mixed][..]),
        select(&[Escaping::Minimal, Escaping::Ascii, Escaping::Mixed][..]),
        select(&[NumberSpelling::Repr, NumberSpelling::Mixed][..]),
        any::<bool>(),
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(
            |(keys, spacing, escapes, numbers, crlf, final_newline, seed)| WriteStyle {
                keys,
                spacing,
                escapes,
                numbers,
                crlf,
                final_newline,
                seed,
            },
        )
        .boxed()
}

fn unit_kind(tag: UnitTag, cfg: &GenConfig) -> BoxedStrategy<UnitKind> {
    let r = cfg.richness;
    let t = move |n| text(r, n);
    let plain = r == Richness::Minimal;
    match tag {
        UnitTag::SessionStart => Just(UnitKind::SessionStart).boxed(),
        UnitTag::SessionStop => proptest::option::of(t(12))
            .prop_map(|reason| UnitKind::SessionStop { reason })
            .boxed(),
        UnitTag::UserMessage => proptest::option::weighted(0.9, t(24))
            .prop_map(|content| UnitKind::UserMessage { content })
            .boxed(),
        UnitTag::ModelRequest => Just(UnitKind::ModelRequest).boxed(),
        UnitTag::ModelResponse => {
            let marker = if plain {
                Just(ResponseMarker::None).boxed()
            } else {
                prop_oneof![
                    6 => Just(ResponseMarker::None),
                    1 => Just(ResponseMarker::FinalTrue),
                    1 => Just(ResponseMarker::FinalFalse),
                    1 => t(8).prop_map(ResponseMarker::FinalWithAccumulated),
                ]
                .boxed()
            };
            (t(24), marker)
                .prop_map(|(content, marker)| UnitKind::ModelResponse { content, marker })
                .boxed()
        }
        UnitTag::Stream => {
            let delta_final = if plain {
                Just(DeltaFinal::False).boxed()
            } else {
                prop_oneof![
                    6 => Just(DeltaFinal::False),
                    2 => Just(DeltaFinal::Absent),
                    2 => any::<u8>().prop_map(DeltaFinal::NotTrue),
                ]
                .boxed()
            };
            let accumulated = if plain {
                Just(Accumulated::Concat).boxed()
            } else {
                prop_oneof![
                    8 => Just(Accumulated::Concat),
                    1 => Just(Accumulated::Missing),
                    1 => t(8).prop_map(Accumulated::Other),
                ]
                .boxed()
            };
            (
                vec(t(8), 0..=cfg.max_deltas),
                delta_final,
                any::<bool>(),
                accumulated,
            )
                .prop_map(
                    |(deltas, delta_final, partial, accumulated)| UnitKind::Stream {
                        deltas,
                        delta_final,
                        partial,
                        accumulated,
                    },
                )
                .boxed()
        }
        UnitTag::ToolRequest => (t(10), json(r))
            .prop_map(|(tool, arguments)| UnitKind::ToolRequest { tool, arguments })
            .boxed(),
        UnitTag::ToolResult => vec((key(r), json(r)), 0..4)
            .prop_map(|fields| UnitKind::ToolResult { fields })
            .boxed(),
        UnitTag::Unknown => (
            prop_oneof![
                3 => any::<u8>().prop_map(UnknownType::Listed),
                1 => t(12).prop_map(UnknownType::Custom),
            ],
            proptest::option::of(json(r)),
        )
            .prop_map(|(name, content)| UnitKind::Unknown { name, content })
            .boxed(),
        UnitTag::ReplayRecord => Just(UnitKind::ReplayRecord).boxed(),
        UnitTag::BranchRecord => (t(10), any::<u32>())
            .prop_map(|(branch_id, fork)| UnitKind::BranchRecord { branch_id, fork })
            .boxed(),
    }
}

/// One unit under `cfg`'s type weights and richness.
pub fn unit(cfg: &GenConfig) -> BoxedStrategy<UnitRecipe> {
    let kinds: Vec<(u32, BoxedStrategy<UnitKind>)> = cfg
        .weights
        .nonzero()
        .into_iter()
        .map(|(w, tag)| (w, unit_kind(tag, cfg)))
        .collect();
    let kind = proptest::strategy::Union::new_weighted(kinds);
    let extras = match cfg.richness {
        Richness::Minimal => Just(Vec::new()).boxed(),
        Richness::Typical => vec((key(cfg.richness), json(cfg.richness)), 0..2).boxed(),
        Richness::Hard => vec((key(cfg.richness), json(cfg.richness)), 0..3).boxed(),
    };
    (kind, any::<u32>(), any::<u32>(), extras)
        .prop_map(|(kind, parent, flavor, extra)| UnitRecipe {
            kind,
            parent,
            flavor,
            extra,
        })
        .boxed()
}

/// A journal recipe under `cfg`.
pub fn journal_recipe(cfg: &GenConfig) -> BoxedStrategy<JournalRecipe> {
    let (min, max) = cfg.bounds();
    let parents = match cfg.parents {
        Some(p) => Just(p).boxed(),
        None => select(&ParentShape::ALL[..]).boxed(),
    };
    let ids = select(
        &[
            IdStyle::Padded,
            IdStyle::Hex,
            IdStyle::Unicode,
            IdStyle::Numeric,
        ][..],
    );
    let trace01 = cfg.profile == JournalProfile::Trace01;
    let r = cfg.richness;
    (
        parents,
        ids,
        text(r, 12),
        text(r, 12),
        any::<u32>(),
        vec(unit(cfg), min..=max),
        write_style(cfg.vary_style),
    )
        .prop_map(
            move |(parents, ids, session, run, envelope, units, style)| JournalRecipe {
                trace01,
                parents,
                ids,
                session,
                run,
                envelope,
                max_events: max as u16,
                units,
                style,
            },
        )
        .boxed()
}

/// Valid journals under `cfg`, each with its expected projection.
pub fn valid_journal(cfg: &GenConfig) -> BoxedStrategy<GeneratedJournal> {
    journal_recipe(cfg).prop_map(|r| valid::build(&r)).boxed()
}

/// The base configuration for malformed journals: at least two events.
fn base_config(cfg: &GenConfig) -> GenConfig {
    let (min, max) = cfg.bounds();
    GenConfig {
        events: min.max(2)..=max.max(2),
        ..cfg.clone()
    }
}

/// One defect of class `defect` with shrinkable position and variant selectors.
pub fn defect_recipe(defect: Defect) -> BoxedStrategy<DefectRecipe> {
    (any::<u32>(), any::<u32>())
        .prop_map(move |(position, variant)| DefectRecipe {
            defect,
            position,
            variant,
        })
        .boxed()
}

/// Recipes of journals with one defect of class `defect`.
pub fn malformed_recipe(defect: Defect, cfg: &GenConfig) -> BoxedStrategy<MalformedRecipe> {
    (
        journal_recipe(&base_config(cfg)),
        defect_recipe(defect),
        any::<u32>(),
    )
        .prop_map(|(base, d, op)| MalformedRecipe {
            base,
            defects: vec![d],
            op,
        })
        .boxed()
}

/// Journals (with operation and label) with one defect of class `defect`.
pub fn malformed_journal(defect: Defect, cfg: &GenConfig) -> BoxedStrategy<MalformedJournal> {
    malformed_recipe(defect, cfg)
        .prop_map(|r| malformed::build(&r))
        .boxed()
}

/// Journals with one defect of any class.
pub fn any_malformed_journal(cfg: &GenConfig) -> BoxedStrategy<MalformedJournal> {
    (
        journal_recipe(&base_config(cfg)),
        select(Defect::all()),
        any::<u32>(),
        any::<u32>(),
        any::<u32>(),
    )
        .prop_map(|(base, defect, position, variant, op)| {
            malformed::build(&MalformedRecipe {
                base,
                defects: vec![DefectRecipe {
                    defect,
                    position,
                    variant,
                }],
                op,
            })
        })
        .boxed()
}

/// Recipes of journals with 1 to `max_defects` defects of any classes.
pub fn combined_recipe(cfg: &GenConfig, max_defects: usize) -> BoxedStrategy<MalformedRecipe> {
    let one = (select(Defect::all()), any::<u32>(), any::<u32>()).prop_map(
        |(defect, position, variant)| DefectRecipe {
            defect,
            position,
            variant,
        },
    );
    (
        journal_recipe(&base_config(cfg)),
        vec(one, 1..=max_defects.max(1)),
        any::<u32>(),
    )
        .prop_map(|(base, defects, op)| MalformedRecipe { base, defects, op })
        .boxed()
}

/// Journals with several defects, labelled with every planted code and the one the
/// precedence rule picks.
pub fn combined_malformed_journal(
    cfg: &GenConfig,
    max_defects: usize,
) -> BoxedStrategy<MalformedJournal> {
    combined_recipe(cfg, max_defects)
        .prop_map(|r| malformed::build(&r))
        .boxed()
}
