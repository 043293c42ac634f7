//! Completion under the editor: slash commands (the host's and plugins') when the prompt starts
//! with `/`, workspace files after `@`.

use crate::editor::Editor;
use crate::protocol::CommandInfo;

/// Candidates the popup shows.
const MAX_ITEMS: usize = 8;

#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub items: Vec<Item>,
    pub selected: usize,
    /// Column where the completed word starts.
    pub start: usize,
    pub kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Command,
    File,
    /// A plugin's items (`tack:plugin/completions`): taking one never sends the prompt.
    Plugin,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// What replaces the word.
    pub text: String,
    pub label: String,
    pub detail: String,
}

/// What completes the word at the cursor, if anything does.
pub fn complete(editor: &Editor, commands: &[CommandInfo], files: &[String]) -> Option<Completion> {
    let (row, _) = editor.cursor();
    let (start, word) = editor.word_at_cursor();
    if let Some(prefix) = word.strip_prefix('/') {
        if row != 0 || start != 0 || editor.line_count() > 1 {
            return None;
        }
        let mut items: Vec<Item> = commands
            .iter()
            .filter(|c| c.name.starts_with(prefix))
            .map(|c| Item {
                text: format!("/{} ", c.name),
                label: format!("/{}", c.name),
                detail: match &c.plugin {
                    Some(plugin) => format!("{} ({plugin})", c.description),
                    None => c.description.clone(),
                },
            })
            .collect();
        items.truncate(MAX_ITEMS * 4);
        return (!items.is_empty()).then_some(Completion {
            items,
            selected: 0,
            start,
            kind: Kind::Command,
        });
    }
    let query = word.strip_prefix('@')?.to_lowercase();
    let mut scored: Vec<(u8, &String)> = files
        .iter()
        .filter_map(|path| {
            let lower = path.to_lowercase();
            let name = lower.rsplit('/').next().unwrap_or(&lower);
            let score = if name.starts_with(&query) {
                0
            } else if lower.starts_with(&query) {
                1
            } else if lower.contains(&query) {
                2
            } else {
                return None;
            };
            Some((score, path))
        })
        .collect();
    scored.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(a.1.len().cmp(&b.1.len()))
            .then(a.1.cmp(b.1))
    });
    let items: Vec<Item> = scored
        .into_iter()
        .take(MAX_ITEMS)
        .map(|(_, path)| Item {
            text: format!("@{path} "),
            label: format!("@{path}"),
            detail: String::new(),
        })
        .collect();
    (!items.is_empty()).then_some(Completion {
        items,
        selected: 0,
        start,
        kind: Kind::File,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_files() {
        let commands = vec![
            CommandInfo {
                name: "model".into(),
                description: "Pick a model".into(),
                plugin: None,
            },
            CommandInfo {
                name: "plan".into(),
                description: "Plan mode".into(),
                plugin: Some("plan-mode".into()),
            },
        ];
        let files = vec!["src/main.rs".to_string(), "README.md".to_string()];
        let mut e = Editor::default();
        e.insert_str("/p");
        let c = complete(&e, &commands, &files).expect("completion");
        assert_eq!(c.items.len(), 1);
        assert_eq!(c.items[0].text, "/plan ");
        e.clear();
        e.insert_str("look at @ma");
        let c = complete(&e, &commands, &files).expect("completion");
        assert_eq!((c.start, c.items[0].text.as_str()), (8, "@src/main.rs "));
        e.insert_str("x ");
        assert!(complete(&e, &commands, &files).is_none());
    }
}
