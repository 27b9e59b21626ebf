//! `arbitrary` impls: fuzzer bytes to recipes, recipes through the same builders as
//! the proptest strategies.
//!
//! The recipe types derive `Arbitrary` (see [`super::recipe`] and
//! [`super::malformed`]); this module adds the hand-written impls: [`JsonRecipe`]
//! (bounded recursion, so deep inputs cannot overflow the stack), [`GenConfig`], and
//! the built journals, which draw a recipe, bring it within a configuration with
//! [`GenConfig::conform`], and build it.

use arbitrary::{Arbitrary, Result, Unstructured};

use super::malformed::{self, MalformedJournal, MalformedRecipe};
use super::recipe::{GenConfig, JournalRecipe, JsonRecipe, ParentShape, Richness, TypeWeights};
use super::valid::{self, GeneratedJournal};
use crate::event::JournalProfile;

/// Deepest container nesting an arbitrary [`JsonRecipe`] has.
const ARBITRARY_JSON_DEPTH: usize = 4;

fn json_at(u: &mut Unstructured<'_>, depth: usize) -> Result<JsonRecipe> {
    let leaves_only = depth >= ARBITRARY_JSON_DEPTH;
    let choice = u.int_in_range(0..=if leaves_only { 8 } else { 10 })?;
    Ok(match choice {
        0 => JsonRecipe::Null,
        1 => JsonRecipe::Bool(u.arbitrary()?),
        2 => JsonRecipe::Int(u.arbitrary()?),
        3 => JsonRecipe::Float(u.arbitrary()?),
        4 => JsonRecipe::Str(u.arbitrary()?),
        5 => JsonRecipe::BigInt {
            negative: u.arbitrary()?,
            digits: u.arbitrary()?,
        },
        6 => JsonRecipe::HardNumber(u.arbitrary()?),
        7 => JsonRecipe::HardString(u.arbitrary()?),
        8 => JsonRecipe::DeepNest(u.arbitrary()?),
        9 => {
            let n = u.int_in_range(0..=4)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(json_at(u, depth + 1)?);
            }
            JsonRecipe::Array(items)
        }
        _ => {
            let n = u.int_in_range(0..=4)?;
            let mut members = Vec::with_capacity(n);
            for _ in 0..n {
                members.push((u.arbitrary()?, json_at(u, depth + 1)?));
            }
            JsonRecipe::Object(members)
        }
    })
}

impl<'a> Arbitrary<'a> for JsonRecipe {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        json_at(u, 0)
    }
}

impl<'a> Arbitrary<'a> for GenConfig {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let min = u.int_in_range(1..=8usize)?;
        let max = min + u.int_in_range(0..=24usize)?;
        let mut weights = TypeWeights::none();
        for tag in super::recipe::UnitTag::ALL {
            *weights.get_mut(tag) = u.int_in_range(0..=3)?;
        }
        Ok(GenConfig {
            events: min..=max,
            profile: if u.arbitrary()? {
                JournalProfile::Trace01
            } else {
                JournalProfile::Core
            },
            weights,
            parents: Option::<ParentShape>::arbitrary(u)?,
            richness: Richness::arbitrary(u)?,
            vary_style: u.arbitrary()?,
            max_deltas: u.int_in_range(0..=8)?,
        })
    }
}

/// The configuration fuzzer-built journals conform to by default: up to 32 events,
/// profile taken from the recipe.
fn fuzz_config(trace01: bool) -> GenConfig {
    GenConfig {
        events: 1..=32,
        profile: if trace01 {
            JournalProfile::Trace01
        } else {
            JournalProfile::Core
        },
        ..GenConfig::default()
    }
}

impl<'a> Arbitrary<'a> for GeneratedJournal {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let r = JournalRecipe::arbitrary(u)?;
        let cfg = fuzz_config(r.trace01);
        Ok(valid::build(&cfg.conform(r)))
    }
}

impl<'a> Arbitrary<'a> for MalformedJournal {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let mut r = MalformedRecipe::arbitrary(u)?;
        r.base = fuzz_config(r.base.trace01).conform(r.base);
        r.defects.truncate(4);
        Ok(malformed::build(&r))
    }
}

/// A valid journal from fuzzer bytes, within `cfg`.
pub fn journal_from_bytes(cfg: &GenConfig, data: &[u8]) -> Result<GeneratedJournal> {
    let mut u = Unstructured::new(data);
    let r = JournalRecipe::arbitrary(&mut u)?;
    Ok(valid::build(&cfg.conform(r)))
}

/// A malformed journal from fuzzer bytes, its base within `cfg`, at most
/// `max_defects` defects.
pub fn malformed_from_bytes(
    cfg: &GenConfig,
    max_defects: usize,
    data: &[u8],
) -> Result<MalformedJournal> {
    let mut u = Unstructured::new(data);
    let mut r = MalformedRecipe::arbitrary(&mut u)?;
    r.base = cfg.conform(r.base);
    r.defects.truncate(max_defects.max(1));
    Ok(malformed::build(&r))
}
