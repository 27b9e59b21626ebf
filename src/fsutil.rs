//! Safe file writes and reads: every file the kit writes goes through [`write_atomic`],
//! so a reader never sees a half-written report, vector or generated journal and a planted
//! symlink is never followed; inputs that must be files are opened with
//! [`open_regular`], so a FIFO is refused, not waited on.

use std::io::Write;
use std::path::Path;

/// Write `bytes` to `path` atomically: a temporary file with an unpredictable name,
/// created exclusively (`O_EXCL`, so a planted symlink is never followed) in the same
/// directory by the `tempfile` crate, flushed and synced, then renamed over `path`.
///
/// `path` must be a regular file or not exist: a symlink or a special file there
/// (`/dev/stdout`, a FIFO, a directory) is refused with `InvalidInput`, never replaced
/// or written through (SPEC.md 16.5).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    check_target(path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    // Checked again: the target may have been replaced since.
    check_target(path)?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(dir)
}

/// A file the kit may replace: absent, or a regular file (not a symlink).
pub fn check_target(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(m) if m.file_type().is_file() => Ok(()),
        Ok(m) => {
            let what = if m.file_type().is_symlink() {
                "a symbolic link"
            } else if m.is_dir() {
                "a directory"
            } else {
                "not a regular file"
            };
            Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{} is {what}: the kit writes regular files only, and never through a link",
                    path.display()
                ),
            ))
        }
    }
}

/// Whether two paths name the same file (device and inode), for refusing to write over
/// an input. `false` when either does not exist.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Open a file for reading only if it is a regular file, so that a FIFO or a device
/// given as an input is refused at once instead of waited on or read forever.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO does not wait for a writer; the type is checked on the
    // open file, so nothing can swap it in between.
    let f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(f)
}

/// Sync a directory, so a file created or renamed in it survives a crash. (A no-op
/// where directories cannot be opened for syncing.)
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    match std::fs::File::open(dir) {
        Ok(d) => match d.sync_all() {
            Ok(()) => Ok(()),
            // Some platforms refuse fsync on a directory handle.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => Ok(()),
            Err(e) => Err(e),
        },
        Err(e) if cfg!(windows) => {
            let _ = e;
            Ok(())
        }
        Err(e) => Err(e),
    }
}
