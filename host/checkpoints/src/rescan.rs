//! Bringing the last snapshot's tree up to date from the folders a [`Watch`] saw change,
//! instead of walking the whole workspace: each changed folder's own entries are listed again
//! (an `lstat` each, a hash for what changed), a folder that appeared is walked whole, a folder
//! that went takes its files with it, and a folder whose ignore rules changed is walked again
//! whole.

use std::collections::BTreeSet;
use std::path::Path;

use crate::objects::Objects;
use crate::scan::{hash_fresh, walk, Depth, Index};
use crate::tree::Tree;
use crate::watch::{is_below, parent_of, range_below, Changed, Watch};
use crate::{Error, Options, Result};

/// Updates `tree` (the last snapshot) to the workspace as it is now, storing new contents.
/// Returns the bytes newly stored. On `Err` the tree and the watch may be half updated: the
/// caller walks everything instead.
pub(crate) fn update(
    workspace: &Path,
    options: &Options,
    index: &mut Index,
    objects: &Objects,
    watch: &Watch,
    tree: &mut Tree,
    changed: Changed,
) -> Result<u64> {
    // Shallowest first: a folder dropped or walked whole covers the changes below it.
    let mut order: Vec<(String, bool)> = changed.into_iter().collect();
    order.sort_by(|(a, _), (b, _)| depth(a).cmp(&depth(b)).then_with(|| a.cmp(b)));
    // Walked whole only after every folder that went is dropped, so that a folder moved
    // inside the workspace is watched under its new name, never forgotten under the old one.
    let mut whole: Vec<String> = Vec::new();
    let mut fresh = Vec::new();
    for (dir, rules_changed) in order {
        let covered = whole.iter().any(|w| *w == dir || is_below(&dir, w));
        if covered || !watch.watches(&dir) {
            continue;
        }
        if rules_changed {
            drop_below(tree, watch, &dir, false);
            whole.push(dir);
            continue;
        }
        // The watch is passed so that a folder no tree can name makes it give up (see `walk`).
        let found = match walk(workspace, &dir, Depth::Shallow, options, index, Some(watch)) {
            Ok(found) => found,
            Err(e @ Error::TooManyFiles { .. }) => return Err(e),
            // Gone, or no longer a folder: what it held goes with it.
            Err(_) => {
                drop_below(tree, watch, &dir, true);
                continue;
            }
        };
        let own: Vec<String> = range_below(&tree.files, &dir)
            .map(|(name, _)| name)
            .filter(|name| parent_of(name) == dir)
            .cloned()
            .collect();
        for name in own {
            tree.files.remove(&name);
        }
        tree.skipped.retain(|s| parent_of(&s.path) != dir);
        tree.files.extend(found.known);
        tree.skipped.extend(found.skipped);
        fresh.extend(found.fresh);
        let now: BTreeSet<&str> = found.dirs.iter().map(String::as_str).collect();
        for child in watch.children(&dir) {
            if !now.contains(child.as_str()) {
                drop_below(tree, watch, &child, true);
            }
        }
        whole.extend(found.dirs.into_iter().filter(|d| !watch.watches(d)));
    }
    whole.sort_by(|a, b| depth(a).cmp(&depth(b)).then_with(|| a.cmp(b)));
    let mut walked: Vec<String> = Vec::new();
    for dir in whole {
        if walked.iter().any(|w| is_below(&dir, w)) {
            continue;
        }
        let found = match walk(workspace, &dir, Depth::All, options, index, Some(watch)) {
            Ok(found) => found,
            Err(e @ Error::TooManyFiles { .. }) => return Err(e),
            Err(_) => {
                drop_below(tree, watch, &dir, true);
                continue;
            }
        };
        tree.files.extend(found.known);
        tree.skipped.extend(found.skipped);
        fresh.extend(found.fresh);
        walked.push(dir);
    }
    if watch.is_broken() {
        // A folder could not be watched, or named: only a walk of everything is whole.
        return Err(Error::Corrupt {
            store: workspace.to_path_buf(),
            detail: "the folder watch lost track of the workspace".into(),
        });
    }
    let stored = hash_fresh(workspace, fresh, tree, index, Some(objects))?;
    if tree.files.len() > options.max_files {
        return Err(Error::TooManyFiles {
            max: options.max_files,
        });
    }
    tree.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(stored)
}

/// Forgets the files and folders below `dir`, and stops watching them (`dir` too when
/// `with_dir`).
fn drop_below(tree: &mut Tree, watch: &Watch, dir: &str, with_dir: bool) {
    let names: Vec<String> = range_below(&tree.files, dir)
        .map(|(name, _)| name.clone())
        .collect();
    for name in names {
        tree.files.remove(&name);
    }
    tree.skipped.retain(|s| !is_below(&s.path, dir));
    watch.forget(dir, with_dir);
}

/// How many folders deep `dir` is (`""`, the workspace, is 0).
fn depth(dir: &str) -> usize {
    if dir.is_empty() {
        0
    } else {
        dir.matches('/').count() + 1
    }
}
