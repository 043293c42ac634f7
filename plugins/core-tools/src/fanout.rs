//! Running pieces of one tool call at the same time, through the host's `tasks` interface: each
//! task runs on another instance of this plugin (see `CoreTools::run_task`). Natively (unit
//! tests) there is no host, so tasks run here, one after another, through the same code.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tack_sdk::serde_json;

use crate::paths::Workspace;
use crate::{find, grep};

/// A piece of a tool call, as a task instance receives it.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Task {
    Grep(grep::Task),
    Find(find::Task),
}

/// What a task instance keeps between tasks.
#[derive(Default)]
pub struct TaskCache {
    pub grep: grep::TaskCache,
    pub find: find::TaskCache,
}

/// The value last built for a key: the tasks of one call share their pattern, and compiling it
/// can cost more than the task's own piece of work.
pub struct Latest<K, V>(Option<(K, V)>);

impl<K, V> Default for Latest<K, V> {
    fn default() -> Self {
        Self(None)
    }
}

impl<K: PartialEq + Clone, V> Latest<K, V> {
    /// The value kept for `key`, or the one `build` makes (kept in its place, with a copy of
    /// `key`: only a miss pays for one).
    pub fn get_or_try_build<E>(
        &mut self,
        key: &K,
        build: impl FnOnce() -> Result<V, E>,
    ) -> Result<&V, E> {
        if !matches!(&self.0, Some((kept, _)) if kept == key) {
            self.0 = None;
        }
        let (_, value) = match &mut self.0 {
            Some(entry) => entry,
            empty => empty.insert((key.clone(), build()?)),
        };
        Ok(value)
    }
}

/// Runs one task (on whichever instance the host chose).
pub fn run_task(ws: &Workspace, cache: &mut TaskCache, input: &[u8]) -> Result<Vec<u8>, String> {
    let task: Task =
        serde_json::from_slice(input).map_err(|e| format!("malformed core-tools task: {e}"))?;
    match task {
        Task::Grep(task) => grep::run_task(ws, &mut cache.grep, task),
        Task::Find(task) => find::run_task(ws, &mut cache.find, task),
    }
}

/// How many tasks the host runs at once.
pub fn parallelism() -> usize {
    #[cfg(all(target_os = "wasi", target_env = "p2"))]
    {
        usize::try_from(tack_sdk::tasks::parallelism()).unwrap_or(1)
    }
    #[cfg(not(all(target_os = "wasi", target_env = "p2")))]
    {
        // Pretend to have cores, so native tests take the split path.
        2
    }
}

/// Runs every task of `tool` and returns their findings in task order; the first task that
/// failed fails the whole call. Should the host refuse to fan out, the tasks run here, one after
/// another.
pub fn run<T: DeserializeOwned>(
    ws: &Workspace,
    tool: &str,
    tasks: &[Task],
) -> Result<Vec<T>, String> {
    run_raw(ws, tasks)?
        .into_iter()
        .map(|output| {
            let output = output.map_err(|e| format!("{tool} failed on part of the tree: {e}"))?;
            serde_json::from_slice(&output)
                .map_err(|e| format!("{tool} could not read a task's findings: {e}"))
        })
        .collect()
}

fn run_raw(ws: &Workspace, tasks: &[Task]) -> Result<Vec<Result<Vec<u8>, String>>, String> {
    let mut inputs = Vec::with_capacity(tasks.len());
    for task in tasks {
        inputs.push(serde_json::to_vec(task).map_err(|e| e.to_string())?);
    }
    #[cfg(all(target_os = "wasi", target_env = "p2"))]
    if let Ok(outputs) = tack_sdk::tasks::run(&inputs) {
        return Ok(outputs);
    }
    let mut cache = TaskCache::default();
    Ok(inputs
        .iter()
        .map(|input| run_task(ws, &mut cache, input))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::Latest;

    #[test]
    fn latest_builds_once_per_key_and_keeps_only_the_last() {
        let mut latest: Latest<&str, String> = Latest::default();
        let mut builds = 0;
        let mut get = |latest: &mut Latest<&str, String>, key: &'static str| {
            latest
                .get_or_try_build(&key, || {
                    builds += 1;
                    Ok::<_, String>(key.to_uppercase())
                })
                .cloned()
        };
        assert_eq!(get(&mut latest, "a"), Ok("A".to_string()));
        assert_eq!(get(&mut latest, "a"), Ok("A".to_string()));
        assert_eq!(get(&mut latest, "b"), Ok("B".to_string()));
        assert_eq!(get(&mut latest, "a"), Ok("A".to_string()));
        assert_eq!(builds, 3);
        // A failed build keeps nothing, and the error reaches the caller.
        let failed = latest.get_or_try_build(&"c", || Err::<String, _>("bad pattern"));
        assert_eq!(failed, Err("bad pattern"));
        assert_eq!(
            latest.get_or_try_build(&"a", || Ok::<_, &str>("rebuilt".to_string())),
            Ok(&"rebuilt".to_string())
        );
    }
}
