//! One module per subcommand added since the CLI was split (the older ones still live in
//! [`crate::cli`]): each owns its clap arguments and its `run`, and `cli.rs` only holds
//! the enum variant and a one-line dispatch.

pub mod append;
pub mod branch;
pub mod canonical;
pub mod checkpoint;
pub mod fingerprint;
pub mod recover;
pub mod replay;
pub mod show;
pub mod test;
pub mod tree;
pub mod validate;
