#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

use super::*;
use crate::SkipReason;

fn store(home: &Path, workspace: &Path) -> CheckpointStore {
    CheckpointStore::open(&home.join("checkpoints"), workspace, Options::default()).unwrap()
}

fn start(store: &mut CheckpointStore, entry: &str) {
    let snap = store.snapshot().unwrap();
    store
        .record(
            "s1",
            &Record::new(RecordKind::Start, Some(entry.into()), snap.tree),
        )
        .unwrap();
}

fn end(store: &mut CheckpointStore) {
    let snap = store.snapshot().unwrap();
    store
        .record("s1", &Record::new(RecordKind::End, None, snap.tree))
        .unwrap();
}

#[test]
fn a_restore_undoes_edits_deletions_and_new_files_but_not_what_tack_never_saw() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let w = ws.path();
    fs::write(w.join("a.txt"), "one\n").unwrap();
    fs::write(w.join("b.txt"), "bee\n").unwrap();
    fs::write(w.join(".gitignore"), "*.log\n").unwrap();
    fs::write(w.join("build.log"), "old log\n").unwrap();
    let mut store = store(home.path(), w);
    start(&mut store, "e1");

    fs::write(w.join("a.txt"), "two\n").unwrap();
    fs::remove_file(w.join("b.txt")).unwrap();
    fs::create_dir_all(w.join("new/deep")).unwrap();
    fs::write(w.join("new/deep/c.txt"), "made\n").unwrap();
    fs::write(w.join("build.log"), "new log\n").unwrap();
    end(&mut store);
    fs::write(w.join("by-hand.txt"), "mine\n").unwrap();

    let current = store.current().unwrap();
    let plan = store.plan("s1", "e1", &current).unwrap();
    assert_eq!(plan.write, ["a.txt", "b.txt"]);
    assert_eq!(plan.delete, ["new/deep/c.txt"]);

    let done = store.restore("s1", "e1").unwrap();
    assert_eq!(done.written, ["a.txt", "b.txt"]);
    assert_eq!(done.deleted, ["new/deep/c.txt"]);
    assert_eq!(fs::read_to_string(w.join("a.txt")).unwrap(), "one\n");
    assert_eq!(fs::read_to_string(w.join("b.txt")).unwrap(), "bee\n");
    assert!(
        !w.join("new").exists(),
        "the folders the session made go too"
    );
    assert_eq!(fs::read_to_string(w.join("by-hand.txt")).unwrap(), "mine\n");
    assert_eq!(
        fs::read_to_string(w.join("build.log")).unwrap(),
        "new log\n"
    );
    let current = store.current().unwrap();
    assert!(store.plan("s1", "e1", &current).unwrap().is_empty());
}

#[test]
fn unchanged_files_are_stored_once_and_big_files_are_named_not_stored() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    fs::write(ws.path().join("small.txt"), "x").unwrap();
    fs::write(ws.path().join("big.bin"), vec![0u8; 64]).unwrap();
    let options = Options {
        max_file_bytes: 10,
        ..Options::default()
    };
    let mut store =
        CheckpointStore::open(&home.path().join("checkpoints"), ws.path(), options).unwrap();
    let first = store.snapshot().unwrap();
    assert_eq!(first.files, 1);
    assert_eq!(first.skipped.len(), 1);
    assert_eq!(first.skipped[0].path, "big.bin");
    assert_eq!(first.skipped[0].reason, SkipReason::TooLarge);
    let second = store.snapshot().unwrap();
    assert_eq!(second.tree, first.tree);
    assert_eq!(second.stored_bytes, 0);
}

#[test]
fn the_store_inside_the_workspace_is_not_recorded() {
    let ws = tempfile::tempdir().unwrap();
    fs::write(ws.path().join("a.txt"), "a").unwrap();
    let mut store = store(&ws.path().join(".tack"), ws.path());
    store.snapshot().unwrap();
    let again = store.snapshot().unwrap();
    assert_eq!(again.files, 1);
}

#[cfg(unix)]
#[test]
fn a_restore_never_writes_through_a_symbolic_link() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let w = ws.path();
    fs::create_dir(w.join("d")).unwrap();
    fs::write(w.join("d/f.txt"), "inside\n").unwrap();
    let mut store = store(home.path(), w);
    start(&mut store, "e1");
    fs::remove_dir_all(w.join("d")).unwrap();
    std::os::unix::fs::symlink(outside.path(), w.join("d")).unwrap();
    let err = store.restore("s1", "e1").unwrap_err().to_string();
    assert!(
        err.contains("d/f.txt") && err.contains("symbolic link"),
        "{err}"
    );
    assert!(!outside.path().join("f.txt").exists());

    // A link where a file was is replaced by the file, and its target is left alone.
    fs::remove_file(w.join("d")).unwrap();
    fs::create_dir(w.join("d")).unwrap();
    fs::write(outside.path().join("target.txt"), "theirs").unwrap();
    std::os::unix::fs::symlink(outside.path().join("target.txt"), w.join("d/f.txt")).unwrap();
    store.restore("s1", "e1").unwrap();
    assert_eq!(fs::read_to_string(w.join("d/f.txt")).unwrap(), "inside\n");
    assert!(!fs::symlink_metadata(w.join("d/f.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        fs::read_to_string(outside.path().join("target.txt")).unwrap(),
        "theirs"
    );
}

#[cfg(unix)]
#[test]
fn the_executable_bit_comes_back() {
    use std::os::unix::fs::PermissionsExt;
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let script = ws.path().join("run.sh");
    fs::write(&script, "#!/bin/sh\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let mut store = store(home.path(), ws.path());
    start(&mut store, "e1");
    fs::remove_file(&script).unwrap();
    store.restore("s1", "e1").unwrap();
    assert_eq!(
        fs::metadata(&script).unwrap().permissions().mode() & 0o777,
        0o755
    );
}

#[test]
fn a_damaged_store_is_an_error_naming_it_never_a_panic() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    fs::write(ws.path().join("a.txt"), "a").unwrap();
    let mut store = store(home.path(), ws.path());
    start(&mut store, "e1");
    let records = store.records("s1").unwrap();
    fs::write(store.tree_path(&records[0].tree), "garbage").unwrap();
    let err = store.restore("s1", "e1").unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("damaged"), "{err}");

    let sessions = store.root().join("sessions/s1.jsonl");
    fs::write(&sessions, "{not json}\n").unwrap();
    let err = store.checkpoints("s1").unwrap_err().to_string();
    assert!(err.contains("s1.jsonl line 1"), "{err}");

    let err = store.restore("s1", "nope").unwrap_err().to_string();
    assert!(err.contains("s1.jsonl"), "{err}");
}

#[test]
fn a_missing_or_altered_object_is_reported_with_its_file() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    fs::write(ws.path().join("a.txt"), "a").unwrap();
    let mut store = store(home.path(), ws.path());
    start(&mut store, "e1");
    fs::write(ws.path().join("a.txt"), "b").unwrap();
    let hash = hex::encode(Sha256::digest(b"a"));
    fs::write(store.objects.path(&hash), "tampered").unwrap();
    let err = store.restore("s1", "e1").unwrap_err().to_string();
    assert!(err.contains("does not match its hash"), "{err}");
    assert_eq!(fs::read_to_string(ws.path().join("a.txt")).unwrap(), "b");
}

#[test]
fn unknown_entries_and_sessions_have_no_checkpoint() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let mut store = store(home.path(), ws.path());
    assert!(store.checkpoints("s1").unwrap().is_empty());
    let err = store.restore("s1", "e9").unwrap_err();
    assert!(matches!(err, Error::NoCheckpoint { .. }), "{err}");
    assert!(store.records("../etc").is_err());
}

#[test]
fn ignore_rules_links_git_and_odd_names_are_honoured() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let w = ws.path();
    fs::create_dir_all(w.join(".git/info")).unwrap();
    fs::write(w.join(".git/info/exclude"), "secret.txt\n").unwrap();
    fs::write(w.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    fs::write(w.join(".gitignore"), "*.tmp\nout/\n").unwrap();
    fs::write(w.join("secret.txt"), "s").unwrap();
    fs::write(w.join("a.tmp"), "t").unwrap();
    fs::create_dir_all(w.join("out")).unwrap();
    fs::write(w.join("out/o.txt"), "o").unwrap();
    fs::create_dir_all(w.join("sub")).unwrap();
    fs::write(w.join("sub/.gitignore"), "!keep.tmp\n").unwrap();
    fs::write(w.join("sub/keep.tmp"), "k").unwrap();
    fs::write(w.join("sub/.ignore"), "local.txt\n").unwrap();
    fs::write(w.join("sub/local.txt"), "l").unwrap();
    fs::write(w.join("sub/line\nbreak.txt"), "n").unwrap();
    fs::write(w.join(".hidden"), "h").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(w.join(".hidden"), w.join("link")).unwrap();
    let mut store = store(home.path(), w);
    let snap = store.snapshot().unwrap();
    let tree = store.tree(&snap.tree).unwrap();
    let names: Vec<&str> = tree.files.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            ".gitignore",
            ".hidden",
            "sub/.gitignore",
            "sub/.ignore",
            "sub/keep.tmp"
        ]
    );
    assert_eq!(snap.skipped.len(), 1);
    assert_eq!(snap.skipped[0].reason, SkipReason::Name);
    assert_eq!(snap.skipped[0].path, "sub/line?break.txt");
}

/// The snapshot taken from the folders a watch saw change must be the one a walk of
/// everything takes, whatever the change: so each step compares the two.
#[cfg(target_os = "linux")]
#[test]
fn a_watched_snapshot_reads_only_what_changed_and_matches_a_full_walk() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let w = ws.path();
    fs::write(w.join(".gitignore"), "*.log\nout/\n").unwrap();
    for dir in ["src/a", "src/b", "docs"] {
        fs::create_dir_all(w.join(dir)).unwrap();
        for f in 0..3 {
            fs::write(w.join(format!("{dir}/f{f}.txt")), format!("{dir} {f}\n")).unwrap();
        }
    }
    fs::create_dir_all(w.join("out")).unwrap();
    let mut store = store(home.path(), w);
    store.snapshot().unwrap();
    let matches_a_walk = |store: &mut CheckpointStore, step: &str| {
        let snap = store.snapshot().unwrap();
        let watched = store.tree(&snap.tree).unwrap();
        assert_eq!(watched, store.current().unwrap(), "after: {step}");
        watched
    };

    type Change<'a> = Box<dyn Fn() + 'a>;
    let steps: Vec<(&str, Change)> = vec![
        ("nothing", Box::new(|| {})),
        (
            "an edit",
            Box::new(|| fs::write(w.join("src/a/f0.txt"), "edited\n").unwrap()),
        ),
        (
            "a file in new nested folders",
            Box::new(|| {
                fs::create_dir_all(w.join("src/new/deep")).unwrap();
                fs::write(w.join("src/new/deep/n.txt"), "new\n").unwrap();
            }),
        ),
        (
            "a file in the new folder, after it was recorded",
            Box::new(|| fs::write(w.join("src/new/deep/m.txt"), "m\n").unwrap()),
        ),
        (
            "a folder renamed",
            Box::new(|| fs::rename(w.join("src/b"), w.join("docs/b2")).unwrap()),
        ),
        (
            "a file in the renamed folder",
            Box::new(|| fs::write(w.join("docs/b2/later.txt"), "l\n").unwrap()),
        ),
        (
            "a folder deleted",
            Box::new(|| fs::remove_dir_all(w.join("src/new")).unwrap()),
        ),
        (
            "ignored files",
            Box::new(|| {
                fs::write(w.join("src/a/x.log"), "log\n").unwrap();
                fs::write(w.join("out/o.txt"), "o\n").unwrap();
            }),
        ),
        (
            "a .gitignore that ignores more",
            Box::new(|| fs::write(w.join("src/.gitignore"), "a/\n").unwrap()),
        ),
        (
            "a file in the newly ignored folder",
            Box::new(|| fs::write(w.join("src/a/f9.txt"), "9\n").unwrap()),
        ),
        (
            "the .gitignore gone again",
            Box::new(|| fs::remove_file(w.join("src/.gitignore")).unwrap()),
        ),
        (
            "a .gitignore whose rule reaches files in folders further down",
            Box::new(|| fs::write(w.join("src/.gitignore"), "f1.txt\n").unwrap()),
        ),
        (
            "that rule gone",
            Box::new(|| fs::write(w.join("src/.gitignore"), "# none\n").unwrap()),
        ),
        (
            "the root's .gitignore unignores out/",
            Box::new(|| fs::write(w.join(".gitignore"), "*.log\n").unwrap()),
        ),
        (
            "the executable bit",
            Box::new(|| {
                use std::os::unix::fs::PermissionsExt;
                fs::set_permissions(w.join("docs/f1.txt"), fs::Permissions::from_mode(0o755))
                    .unwrap();
            }),
        ),
        (
            "a file replaced by a folder",
            Box::new(|| {
                fs::remove_file(w.join("docs/f2.txt")).unwrap();
                fs::create_dir(w.join("docs/f2.txt")).unwrap();
                fs::write(w.join("docs/f2.txt/inner.txt"), "i\n").unwrap();
            }),
        ),
    ];
    for (step, change) in &steps {
        change();
        matches_a_walk(&mut store, step);
    }
    let last = matches_a_walk(&mut store, "the end");
    assert!(last.files.contains_key("out/o.txt"));
    assert!(last.files.contains_key("docs/b2/later.txt"));
    assert!(!last.files.keys().any(|f| f.starts_with("src/b/")));
    assert_eq!(
        store.full_walks, 1,
        "every later snapshot came from the watch"
    );
}

/// A change made to a file right after it was hashed, within the same clock tick, is still
/// seen: the watch reports its folder, and the racy stamp makes it hashed again.
#[cfg(target_os = "linux")]
#[test]
fn a_change_in_the_same_clock_tick_as_the_last_snapshot_is_seen() {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let w = ws.path();
    fs::write(w.join("a.txt"), "one\n").unwrap();
    let mut store = store(home.path(), w);
    store.snapshot().unwrap();
    for n in 0..20 {
        fs::write(w.join("a.txt"), format!("{n:03}\n")).unwrap();
        let snap = store.snapshot().unwrap();
        let tree = store.tree(&snap.tree).unwrap();
        let want = hex::encode(Sha256::digest(format!("{n:03}\n")));
        assert_eq!(tree.files["a.txt"].hash, want, "round {n}");
    }
    assert_eq!(store.full_walks, 1);
}

/// A folder whose name no tree can hold, made after the first snapshot: the watch cannot track
/// it, so the snapshot is a walk of everything, which names its files as left out.
#[cfg(target_os = "linux")]
#[test]
fn a_folder_with_an_unnameable_name_makes_the_watch_give_way_to_a_walk() {
    use std::os::unix::ffi::OsStrExt;
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let w = ws.path();
    fs::write(w.join("a.txt"), "a\n").unwrap();
    let mut store = store(home.path(), w);
    store.snapshot().unwrap();
    let odd = w.join(std::ffi::OsStr::from_bytes(b"odd\xff"));
    fs::create_dir(&odd).unwrap();
    fs::write(odd.join("inside.txt"), "i\n").unwrap();
    let snap = store.snapshot().unwrap();
    assert_eq!(snap.skipped.len(), 1, "{:?}", snap.skipped);
    assert_eq!(snap.skipped[0].reason, SkipReason::Name);
    assert_eq!(
        store.tree(&snap.tree).unwrap(),
        store.current().unwrap(),
        "the same as a walk of everything"
    );
    assert_eq!(store.full_walks, 2);
}
