//! Fixtures for tests that run the tools against a real directory (natively; the file tools use
//! only std::fs, which behaves the same inside the sandbox).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use tack_sdk::serde_json::{self, Value};
use tack_sdk::{ToolCall, ToolResult};

use crate::paths::Workspace;

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A scratch workspace removed on drop.
pub struct TempWorkspace {
    pub root: PathBuf,
    pub ws: Workspace,
}

impl TempWorkspace {
    pub fn new() -> Self {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let root = std::env::temp_dir().join(format!("core-tools-test-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("create temp workspace");
        let ws = Workspace::new(root.to_str().expect("utf-8 temp dir"), None).expect("absolute");
        Self { root, ws }
    }

    pub fn file(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(&path, content).expect("write fixture");
        path
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.root.join(rel)).expect("read back")
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}

impl Drop for TempWorkspace {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

pub fn call(name: &str, args: Value) -> ToolCall {
    ToolCall {
        id: "call_1".to_string(),
        name: name.to_string(),
        arguments: args.to_string(),
    }
}

pub fn text(result: &ToolResult) -> String {
    result.text_content()
}

pub fn details(result: &ToolResult) -> Value {
    result
        .details
        .as_deref()
        .map(|d| serde_json::from_str(d).expect("details are JSON"))
        .unwrap_or(Value::Null)
}

pub fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}
