//! How the agent definitions are shown: to the model in the task tool's description and schema,
//! to the user by `/agents`.

use tack_sdk::serde_json::{json, Value};

use crate::definitions::AgentDef;

pub fn tool_description(agents: &[AgentDef]) -> String {
    let mut text = String::from(
        "Hand a self-contained piece of work to a sub-agent: a fresh agent with its own context \
         that works on it with tools and returns only its final answer. Use it for searches and \
         investigations whose details the conversation does not need, and call it several times \
         in one message to run sub-agents in parallel. The sub-agent sees nothing of this \
         conversation: put everything it needs in `prompt`, and say what its answer should \
         contain.",
    );
    if !agents.is_empty() {
        text.push_str("\n\nAgents (`agent`; leave it out for a general agent with your tools):");
        for agent in agents {
            text.push_str(&format!("\n- {}: {}", agent.name, agent.description));
        }
    }
    text
}

pub fn schema(agents: &[AgentDef]) -> Value {
    let mut agent = json!({
        "type": "string",
        "description": "The defined agent to run; leave out for a general agent"
    });
    if !agents.is_empty() {
        let names: Vec<&str> = agents.iter().map(|a| a.name.as_str()).collect();
        agent["enum"] = json!(names);
    }
    json!({
        "type": "object",
        "properties": {
            "description": {
                "type": "string",
                "description": "A short (3-6 word) label for the user"
            },
            "prompt": {
                "type": "string",
                "description": "The whole task, with every detail the sub-agent needs"
            },
            "agent": agent,
        },
        "required": ["description", "prompt"],
        "additionalProperties": false
    })
}

/// `/agents`.
pub fn command_text(agents: &[AgentDef]) -> String {
    if agents.is_empty() {
        return "No agents are defined. Add Markdown files with `name` and `description` front \
                matter to <tack home>/agents/ or a trusted project's .tack/agents/."
            .into();
    }
    let mut lines = vec![format!(
        "{} agent{}:",
        agents.len(),
        if agents.len() == 1 { "" } else { "s" }
    )];
    for agent in agents {
        let tools = agent
            .tools
            .as_ref()
            .map_or("the session's tools".to_string(), |t| t.join(", "));
        let model = agent.model.as_deref().unwrap_or("the session's model");
        lines.push(format!(
            "- {} ({}): {}\n  tools: {tools}; model: {model}; {}",
            agent.name,
            agent.scope,
            agent.description,
            agent.file.display()
        ));
    }
    lines.join("\n")
}
