//! The todo list and the actions the `todo` tool applies to it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Todo {
    pub id: u64,
    pub text: String,
    pub done: bool,
}

/// The list as the tool's result details carry it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TodoList {
    pub todos: Vec<Todo>,
    /// The id the next item gets. Kept apart from the items so a removed item's id is never
    /// reused: the model may still refer to it, and must then hear that it is gone.
    #[serde(default)]
    pub next_id: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Add,
    Update,
    Complete,
    Remove,
    List,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    pub action: Action,
    #[serde(default)]
    pub text: Option<String>,
    #[serde(default)]
    pub id: Option<u64>,
}

impl TodoList {
    /// Repairs a list read back from the session: `next_id` always above every id in it.
    pub fn normalized(mut self) -> Self {
        let highest = self.todos.iter().map(|t| t.id).max().unwrap_or(0);
        self.next_id = self.next_id.max(highest + 1);
        self
    }

    /// Applies a request; returns one line saying what changed, or why nothing did.
    pub fn apply(&mut self, request: &Request) -> Result<String, String> {
        match request.action {
            Action::List => Ok(String::new()),
            Action::Add => {
                let text = required_text(request, "add")?;
                let id = self.next_id.max(1);
                self.next_id = id + 1;
                self.todos.push(Todo {
                    id,
                    text: text.clone(),
                    done: false,
                });
                Ok(format!("Added #{id}: {text}"))
            }
            Action::Update => {
                let text = required_text(request, "update")?;
                let todo = self.find(request, "update")?;
                todo.text = text.clone();
                Ok(format!("Updated #{}: {text}", todo.id))
            }
            Action::Complete => {
                let todo = self.find(request, "complete")?;
                todo.done = true;
                Ok(format!("Completed #{}: {}", todo.id, todo.text))
            }
            Action::Remove => {
                let todo = self.find(request, "remove")?;
                let (id, text) = (todo.id, todo.text.clone());
                self.todos.retain(|t| t.id != id);
                Ok(format!("Removed #{id}: {text}"))
            }
        }
    }

    fn find(&mut self, request: &Request, action: &str) -> Result<&mut Todo, String> {
        let Some(id) = request.id else {
            return Err(format!("`{action}` needs the `id` of a todo."));
        };
        let known: Vec<String> = self.todos.iter().map(|t| t.id.to_string()).collect();
        self.todos.iter_mut().find(|t| t.id == id).ok_or_else(|| {
            if known.is_empty() {
                format!("There is no todo #{id}: the list is empty.")
            } else {
                format!("There is no todo #{id} (ids: {}).", known.join(", "))
            }
        })
    }

    /// The list as the model and the user see it.
    pub fn render(&self) -> String {
        if self.todos.is_empty() {
            return "No todos.".into();
        }
        let done = self.todos.iter().filter(|t| t.done).count();
        let mut out = format!("Todos ({done}/{} done):", self.todos.len());
        for todo in &self.todos {
            let mark = if todo.done { "x" } else { " " };
            out.push_str(&format!("\n[{mark}] #{} {}", todo.id, todo.text));
        }
        out
    }
}

fn required_text(request: &Request, action: &str) -> Result<String, String> {
    match request.text.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => Ok(text.to_string()),
        _ => Err(format!("`{action}` needs a non-empty `text`.")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(action: Action, text: Option<&str>, id: Option<u64>) -> Request {
        Request {
            action,
            text: text.map(str::to_string),
            id,
        }
    }

    #[test]
    fn actions_change_the_list() {
        let mut list = TodoList::default().normalized();
        assert_eq!(
            list.apply(&request(Action::Add, Some("write tests"), None)),
            Ok("Added #1: write tests".into())
        );
        list.apply(&request(Action::Add, Some("ship"), None))
            .expect("add");
        list.apply(&request(Action::Complete, None, Some(1)))
            .expect("complete");
        list.apply(&request(Action::Update, Some("ship it"), Some(2)))
            .expect("update");
        assert_eq!(
            list.render(),
            "Todos (1/2 done):\n[x] #1 write tests\n[ ] #2 ship it"
        );
        list.apply(&request(Action::Remove, None, Some(1)))
            .expect("remove");
        list.apply(&request(Action::Add, Some("again"), None))
            .expect("add");
        assert_eq!(
            list.todos.iter().map(|t| t.id).collect::<Vec<_>>(),
            vec![2, 3],
            "a removed id is not reused"
        );
    }

    #[test]
    fn bad_requests_explain_themselves() {
        let mut list = TodoList::default().normalized();
        let err = list
            .apply(&request(Action::Complete, None, Some(4)))
            .expect_err("missing");
        assert!(err.contains("empty"), "{err}");
        let err = list
            .apply(&request(Action::Add, Some("  "), None))
            .expect_err("blank");
        assert!(err.contains("text"), "{err}");
        list.apply(&request(Action::Add, Some("a"), None))
            .expect("add");
        let err = list
            .apply(&request(Action::Remove, None, None))
            .expect_err("no id");
        assert!(err.contains("id"), "{err}");
        let err = list
            .apply(&request(Action::Remove, None, Some(9)))
            .expect_err("unknown");
        assert!(err.contains("ids: 1"), "{err}");
    }

    #[test]
    fn normalizing_restores_next_id() {
        let list = TodoList {
            todos: vec![Todo {
                id: 7,
                text: "x".into(),
                done: false,
            }],
            next_id: 0,
        }
        .normalized();
        assert_eq!(list.next_id, 8);
    }
}
