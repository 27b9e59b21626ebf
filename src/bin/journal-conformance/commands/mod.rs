//! One module per subcommand, as cargo's `src/bin/cargo/commands/`: each owns its clap
//! arguments (where they are its own) and its `run`; [`crate::cli`] holds the enum
//! variant and a one-line dispatch, and [`crate::io`] the helpers the commands share
//! ([`crate::io::open_input`], [`crate::io::diagnostic`], the exit statuses, ...).

pub mod append;
pub mod branch;
pub mod canonical;
pub mod checkpoint;
pub mod fingerprint;
pub mod fuzz;
pub mod generate;
pub mod golden;
pub mod recover;
pub mod replay;
pub mod scale;
pub mod serve;
pub mod show;
pub mod summary;
pub mod test;
pub mod tree;
pub mod validate;
