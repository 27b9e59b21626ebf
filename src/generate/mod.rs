//! Generators of valid and malformed journals (SPEC.md's rules as properties).
//!
//! This module owns the kit's generated traces: valid journals of configurable size
//! and shape, each carrying the projection it must replay to, computed by the
//! generator from what it put in (never by the reference reducer); malformed journals,
//! one [`Defect`] class per error the spec names, each labelled with the [`Expected`]
//! error code, line and sequence, and combinations of defects labelled by the
//! precedence rule; proptest strategies and `arbitrary` impls for both, sharing one
//! deterministic builder; and the `generate` command that writes them as vector files.
//!
//! | piece | what it is |
//! |---|---|
//! | [`recipe`] | plain-data recipes ([`JournalRecipe`], [`GenConfig`], [`WriteStyle`]) |
//! | [`values`] | payload values, the hard canonical cases |
//! | [`writer`] | the exact-bytes writer (key order, whitespace, escapes, numbers) |
//! | [`valid`] | recipe to [`GeneratedJournal`] with its expected projection |
//! | [`malformed`] | [`Defect`], [`MalformedRecipe`] to [`MalformedJournal`] and its [`Expected`] label |
//! | [`strategies`] | proptest strategies over recipes |
//! | [`arbitrary_impls`] | `arbitrary` impls over the same recipes |
//! | [`vector`] | generated journals as vector-format cases |
//! | [`cli`] | `journal-conformance generate` |
//!

pub mod arbitrary_impls;
pub mod cli;
pub mod malformed;
pub mod recipe;
pub mod strategies;
pub mod valid;
pub mod values;
pub mod vector;
pub mod writer;

pub use arbitrary_impls::{journal_from_bytes, malformed_from_bytes};
pub use malformed::{Defect, DefectRecipe, Expected, MalformedJournal, MalformedRecipe, Planted};
pub use recipe::{
    GenConfig, JournalRecipe, JsonRecipe, ParentShape, Richness, TypeWeights, UnitKind, UnitRecipe,
    UnitTag, WriteStyle,
};
pub use strategies::{
    any_malformed_journal, combined_malformed_journal, journal_recipe, malformed_journal,
    valid_journal,
};
pub use valid::{Effect, GeneratedJournal, StreamInfo};
