//! One file per subcommand (new subcommands live here; older ones are in `cli.rs`).

pub mod test;
