//! Output destinations and sets of outputs (documented in [`crate::io`]).

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::temporary;

/// Symbolic links followed before a path is refused as a loop.
const MAX_LINKS: usize = 40;

/// Why an output cannot be written; names the flag and path.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutputError {
    /// The output's folder does not exist.
    #[error("{output}: the folder {folder} does not exist")]
    NoFolder {
        /// The flag and path.
        output: String,
        /// The missing folder.
        folder: String,
    },
    /// The output names a folder.
    #[error("{output}: is a folder")]
    IsFolder {
        /// The flag and path.
        output: String,
    },
    /// Two outputs of one command name the same file (or both standard output).
    #[error("{output}: the same file as {other}; name different files")]
    SameFile {
        /// The flag and path of the second.
        output: String,
        /// The flag and path of the first.
        other: String,
    },
    /// An output is a file the command reads.
    #[error("{output}: the same file as the input {input}; an input is never overwritten")]
    IsInput {
        /// The flag and path of the output.
        output: String,
        /// The input's path.
        input: String,
    },
    /// The path cannot be resolved or written.
    #[error("{output}")]
    Io {
        /// The flag and path.
        output: String,
        /// What went wrong.
        #[source]
        source: io::Error,
    },
}

/// Where one output goes (see [`crate::io`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// The process's standard output.
    Stdout,
    /// A regular file, replaced atomically (symbolic links resolved).
    Replace(PathBuf),
    /// A device, pipe, socket or descriptor, opened for appending and written in place.
    Through(PathBuf),
}

impl Destination {
    /// The destination of `path`: links followed, and what is there looked at.
    ///
    /// # Errors
    /// The error of reading a link or a file's metadata (a link loop is
    /// [`io::ErrorKind::InvalidInput`]); a folder is [`io::ErrorKind::IsADirectory`].
    pub fn of(path: &Path) -> io::Result<Destination> {
        if path == Path::new("-") {
            return Ok(Destination::Stdout);
        }
        let mut path = path.to_path_buf();
        for _ in 0..MAX_LINKS {
            if ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
                .map(Path::new)
                .contains(&path.as_path())
            {
                return Ok(Destination::Stdout);
            }
            if path.starts_with("/proc") || path.starts_with("/dev/fd") {
                return Ok(Destination::Through(path));
            }
            let meta = match fs::symlink_metadata(&path) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    return Ok(Destination::Replace(path))
                }
                other => other?,
            };
            let kind = meta.file_type();
            if kind.is_symlink() {
                let target = fs::read_link(&path)?;
                path = match path.parent() {
                    Some(folder) if target.is_relative() => folder.join(target),
                    _ => target,
                };
            } else if kind.is_file() {
                return Ok(Destination::Replace(path));
            } else if kind.is_dir() {
                return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a folder"));
            } else {
                return Ok(Destination::Through(path));
            }
        }
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "too many levels of symbolic links",
        ))
    }
}

/// What makes two outputs the same.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Identity {
    Stdout,
    /// An existing file: device and inode.
    Inode(u64, u64),
    /// A file to be created: its folder's canonical path and its name.
    Name(PathBuf, PathBuf),
}

/// Writes a streamed output's contents as they are made.
type Producer = Box<dyn Fn(&mut dyn Write) -> io::Result<()>>;

/// What an output holds: bytes made already, or a producer that makes them while they
/// are written, so that an output larger than memory never sits in it whole.
enum Contents {
    Bytes(Vec<u8>),
    Streamed(Producer),
}

impl Contents {
    fn write_to(&self, to: &mut dyn Write) -> io::Result<()> {
        match self {
            Contents::Bytes(bytes) => to.write_all(bytes),
            Contents::Streamed(produce) => {
                let mut buffered = io::BufWriter::with_capacity(1 << 16, to);
                produce(&mut buffered)?;
                buffered.flush()
            }
        }
    }
}

impl std::fmt::Debug for Contents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Contents::Bytes(bytes) => write!(f, "{} bytes", bytes.len()),
            Contents::Streamed(_) => f.write_str("streamed"),
        }
    }
}

/// One output of an [`OutputSet`].
#[derive(Debug)]
struct Planned {
    output: String,
    destination: Destination,
    identity: Identity,
    contents: Option<Contents>,
}

/// An output taken into an [`OutputSet`], to give its contents to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot(usize);

/// The outputs of one command, checked together before any is written and written as a
/// set (see [`crate::io`]).
#[derive(Debug, Default)]
pub struct OutputSet {
    planned: Vec<Planned>,
}

impl OutputSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes `path` as the output of `flag` (`"--out"`; empty for a positional path).
    ///
    /// # Errors
    /// [`OutputError`] naming the flag and path: its folder does not exist, it is a
    /// folder, it cannot be resolved, or an output taken earlier is the same file.
    pub fn add(&mut self, flag: &str, path: &Path) -> Result<Slot, OutputError> {
        let output = if flag.is_empty() {
            path.display().to_string()
        } else {
            format!("{flag} {}", path.display())
        };
        let io = |source| OutputError::Io {
            output: output.clone(),
            source,
        };
        let destination = match Destination::of(path) {
            Err(e) if e.kind() == io::ErrorKind::IsADirectory => {
                return Err(OutputError::IsFolder { output })
            }
            other => other.map_err(io)?,
        };
        let identity = match &destination {
            Destination::Stdout => Identity::Stdout,
            Destination::Replace(p) | Destination::Through(p) => match fs::metadata(p) {
                Ok(meta) => Identity::Inode(meta.dev(), meta.ino()),
                Err(_) => {
                    let folder = folder_of(p);
                    if !folder.is_dir() {
                        let folder = folder.display().to_string();
                        return Err(OutputError::NoFolder { output, folder });
                    }
                    let name = p.file_name().map(PathBuf::from).unwrap_or_default();
                    Identity::Name(fs::canonicalize(folder).map_err(io)?, name)
                }
            },
        };
        self.push(output, destination, identity)
    }

    /// Takes standard output as the output of `what` ("the report"), so that no other
    /// output of the command goes there too.
    ///
    /// # Errors
    /// [`OutputError::SameFile`] when an output taken earlier is standard output.
    pub fn add_stdout(&mut self, what: &str) -> Result<Slot, OutputError> {
        self.push(what.to_string(), Destination::Stdout, Identity::Stdout)
    }

    fn push(
        &mut self,
        output: String,
        destination: Destination,
        identity: Identity,
    ) -> Result<Slot, OutputError> {
        if let Some(other) = self.planned.iter().find(|p| p.identity == identity) {
            return Err(OutputError::SameFile {
                output,
                other: other.output.clone(),
            });
        }
        self.planned.push(Planned {
            output,
            destination,
            identity,
            contents: None,
        });
        Ok(Slot(self.planned.len() - 1))
    }

    /// Gives output `slot` its contents (an output without contents is not written).
    pub fn put(&mut self, slot: Slot, contents: impl Into<Vec<u8>>) {
        if let Some(planned) = self.planned.get_mut(slot.0) {
            planned.contents = Some(Contents::Bytes(contents.into()));
        }
    }

    /// Gives output `slot` contents that `produce` writes when the set is committed, in
    /// pieces, for outputs too large to hold in memory (`bip generate`). An error of
    /// `produce` fails the commit as a write error would: no replaced file is touched.
    pub fn put_streamed(
        &mut self,
        slot: Slot,
        produce: impl Fn(&mut dyn Write) -> io::Result<()> + 'static,
    ) {
        if let Some(planned) = self.planned.get_mut(slot.0) {
            planned.contents = Some(Contents::Streamed(Box::new(produce)));
        }
    }

    /// Refuses an output that is one of `inputs` (the same file, links followed), before
    /// the work that reads them.
    ///
    /// # Errors
    /// [`OutputError::IsInput`] naming the output and the input.
    pub fn refuse_inputs<'a>(
        &self,
        inputs: impl IntoIterator<Item = &'a Path>,
    ) -> Result<(), OutputError> {
        for input in inputs {
            let Ok(meta) = fs::metadata(input) else {
                continue;
            };
            if let Some(p) = self.same_as(meta.dev(), meta.ino()) {
                return Err(OutputError::IsInput {
                    output: p.output.clone(),
                    input: input.display().to_string(),
                });
            }
        }
        Ok(())
    }

    /// The replaced output that is the file (`dev`, `ino`), if any.
    fn same_as(&self, dev: u64, ino: u64) -> Option<&Planned> {
        self.planned.iter().find(|p| {
            matches!(p.destination, Destination::Replace(_))
                && p.identity == Identity::Inode(dev, ino)
        })
    }

    /// Writes every output given contents: the replaced files to temporaries, the
    /// written-through outputs, then the renames. Returns what goes to standard output,
    /// for the caller's writer (empty when nothing does).
    ///
    /// # Errors
    /// [`OutputError::IsInput`] for an output that is a file this process read
    /// ([`read_input`](super::read_input)), before anything is written;
    /// [`OutputError::Io`] naming the output that could not be written; no file has been
    /// replaced then (unless a rename itself failed).
    pub fn commit(self) -> Result<Vec<u8>, OutputError> {
        let mut stdout = Vec::new();
        self.commit_with(|bytes| {
            stdout = bytes.to_vec();
            Ok::<(), OutputError>(())
        })?;
        Ok(stdout)
    }

    /// Writes every output as [`OutputSet::commit`] does, handing what goes to standard
    /// output to `stdout` after the temporaries are written and before any file is
    /// replaced: when standard output fails (`> /dev/full`), no file is replaced either.
    ///
    /// # Errors
    /// As [`OutputSet::commit`], and the error of `stdout`.
    pub fn commit_with<E: From<OutputError>>(
        self,
        stdout: impl FnOnce(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut staged = Vec::new();
        let result = self
            .stage_all(&mut staged)
            .map_err(E::from)
            .and_then(|bytes| stdout(&bytes))
            .and_then(|()| rename_all(&mut staged).map_err(E::from));
        if result.is_err() {
            for (temporary, _, _) in &staged {
                temporary::discard(temporary);
            }
        }
        result
    }

    /// Writes the replaced files' temporaries (into `staged`) and the written-through
    /// outputs; returns what goes to standard output.
    fn stage_all<'a>(
        &'a self,
        staged: &mut Vec<(PathBuf, &'a Path, &'a str)>,
    ) -> Result<Vec<u8>, OutputError> {
        fn io(p: &Planned) -> impl Fn(io::Error) -> OutputError + '_ {
            move |source| OutputError::Io {
                output: p.output.clone(),
                source,
            }
        }
        for (dev, ino, input) in super::inputs_read() {
            if let Some(p) = self.same_as(dev, ino).filter(|p| p.contents.is_some()) {
                return Err(OutputError::IsInput {
                    output: p.output.clone(),
                    input,
                });
            }
        }
        for p in &self.planned {
            if let (Destination::Replace(path), Some(contents)) = (&p.destination, &p.contents) {
                let temporary = stage(path, contents, staged.len()).map_err(io(p))?;
                staged.push((temporary, path, &p.output));
            }
        }
        let mut stdout = Vec::new();
        for p in &self.planned {
            match (&p.destination, &p.contents) {
                (Destination::Through(path), Some(contents)) => {
                    let written = OpenOptions::new()
                        .append(true)
                        .open(path)
                        .and_then(|mut f| contents.write_to(&mut f));
                    written.map_err(io(p))?;
                }
                (Destination::Stdout, Some(contents)) => {
                    contents.write_to(&mut stdout).map_err(io(p))?;
                }
                _ => {}
            }
        }
        Ok(stdout)
    }
}

/// Renames each staged temporary over its file, in order, forgetting each once renamed.
fn rename_all(staged: &mut Vec<(PathBuf, &Path, &str)>) -> Result<(), OutputError> {
    while let Some((temporary, path, output)) = staged.first().cloned() {
        let renamed = fs::rename(&temporary, path);
        renamed.map_err(|source| OutputError::Io {
            output: output.to_string(),
            source,
        })?;
        temporary::forget(&temporary);
        staged.remove(0);
    }
    Ok(())
}

/// The folder a file `path` goes in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Writes `contents` to a new temporary file beside `path` and returns its path.
fn stage(path: &Path, contents: &Contents, index: usize) -> io::Result<PathBuf> {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let temporary = folder_of(path).join(format!(".{name}.{}.{n}.{index}.tmp", std::process::id()));
    temporary::register(&temporary);
    let mut file = match OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temporary)
    {
        Ok(file) => file,
        Err(e) => {
            // Not ours to remove (a name already taken).
            temporary::forget(&temporary);
            return Err(e);
        }
    };
    match contents.write_to(&mut file).and_then(|()| file.sync_all()) {
        Ok(()) => Ok(temporary),
        Err(e) => {
            temporary::discard(&temporary);
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder under the system's temporary directory.
    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bip-output-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .expect("list")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn destinations_by_what_is_at_the_path() {
        let dir = folder("kinds");
        let file = dir.join("file");
        fs::write(&file, "x").expect("file");
        std::os::unix::fs::symlink("file", dir.join("link")).expect("link");
        std::os::unix::fs::symlink("loop", dir.join("loop")).expect("loop");
        assert_eq!(
            Destination::of(Path::new("-")).ok(),
            Some(Destination::Stdout)
        );
        assert_eq!(
            Destination::of(Path::new("/dev/stdout")).ok(),
            Some(Destination::Stdout)
        );
        let null = Destination::of(Path::new("/dev/null")).ok();
        assert_eq!(null, Some(Destination::Through("/dev/null".into())));
        assert_eq!(
            Destination::of(&file).ok(),
            Some(Destination::Replace(file.clone()))
        );
        assert_eq!(
            Destination::of(&dir.join("link")).ok(),
            Some(Destination::Replace(file))
        );
        let looped = Destination::of(&dir.join("loop")).unwrap_err();
        assert_eq!(looped.kind(), io::ErrorKind::InvalidInput);
        let new = dir.join("new");
        assert_eq!(Destination::of(&new).ok(), Some(Destination::Replace(new)));
        fs::remove_dir_all(&dir).expect("clean");
    }

    #[test]
    fn two_names_of_one_file_are_refused() {
        let dir = folder("same");
        fs::write(dir.join("a"), "x").expect("file");
        fs::hard_link(dir.join("a"), dir.join("b")).expect("hard link");
        let mut set = OutputSet::new();
        set.add("--one", &dir.join("a")).expect("first");
        let e = set.add("--two", &dir.join("b")).unwrap_err();
        assert!(matches!(e, OutputError::SameFile { .. }), "{e}");
        let mut set = OutputSet::new();
        set.add("--one", &dir.join("new")).expect("first");
        let again = dir.join(".").join("new");
        assert!(matches!(
            set.add("--two", &again),
            Err(OutputError::SameFile { .. })
        ));
        fs::remove_dir_all(&dir).expect("clean");
    }

    #[test]
    fn a_failed_write_replaces_nothing_and_leaves_no_temporary() {
        let _lock = temporary::TEST_LOCK.lock();
        let dir = folder("set");
        fs::write(dir.join("kept"), "old").expect("file");
        let mut set = OutputSet::new();
        let kept = set.add("--kept", &dir.join("kept")).expect("kept");
        let full = set.add("--full", Path::new("/dev/full")).expect("device");
        set.put(kept, "new");
        set.put(full, "anything");
        let e = set.commit().unwrap_err();
        assert!(e.to_string().starts_with("--full /dev/full"), "{e}");
        assert_eq!(fs::read_to_string(dir.join("kept")).expect("kept"), "old");
        assert_eq!(names(&dir), ["kept"]);
        fs::remove_dir_all(&dir).expect("clean");
    }

    #[test]
    fn streamed_contents_are_written_whole_or_replace_nothing() {
        let _lock = temporary::TEST_LOCK.lock();
        let dir = folder("streamed");
        fs::write(dir.join("kept"), "old").expect("file");
        let mut set = OutputSet::new();
        let slot = set.add("--out", &dir.join("kept")).expect("kept");
        set.put_streamed(slot, |w| (0..3).try_for_each(|i| writeln!(w, "line {i}")));
        set.commit().expect("written");
        let text = fs::read_to_string(dir.join("kept")).expect("kept");
        assert_eq!(text, "line 0\nline 1\nline 2\n");

        let mut set = OutputSet::new();
        let slot = set.add("--out", &dir.join("kept")).expect("kept");
        set.put_streamed(slot, |w| {
            writeln!(w, "a first piece")?;
            Err(io::Error::other("the third piece could not be made"))
        });
        let e = set.commit().unwrap_err();
        let why = std::error::Error::source(&e).map(ToString::to_string);
        assert!(why.is_some_and(|w| w.contains("could not be made")), "{e}");
        assert_eq!(fs::read_to_string(dir.join("kept")).expect("kept"), text);
        assert_eq!(names(&dir), ["kept"]);
        fs::remove_dir_all(&dir).expect("clean");
    }

    #[test]
    fn an_interruption_removes_the_temporaries() {
        let _lock = temporary::TEST_LOCK.lock();
        let dir = folder("signal");
        let half = Contents::Bytes(b"half".to_vec());
        let temporary = stage(&dir.join("out"), &half, 0).expect("staged");
        assert!(temporary.exists());
        temporary::remove_all();
        assert!(names(&dir).is_empty());
        fs::remove_dir_all(&dir).expect("clean");
    }
}
