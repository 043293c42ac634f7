//! Plugins drawing their own blocks of the conversation (`tack:plugin/renderers`, 0.2.0): a
//! tool's calls and results by the tool's plugin, a message by the plugin that sent it. The UI
//! asks as blocks come into view and change; one task asks one block at a time, and a block
//! asked again before its turn is asked once, with its newest question, so a stream of progress
//! never queues drawings behind a plugin busy running the very tool.

use std::sync::Arc;

use tack_runtime::{Drawing, LoadedPlugin, PluginAgent, ToolCallView, ToolResultView};
use tack_tui::{PluginDrawing, RenderKey, RenderQuery, UiEvent};

use super::controller::{Controller, RenderAsk};

/// How many times a block whose plugin is busy is asked again, and how long after.
const MAX_BUSY_ATTEMPTS: u32 = 10;
const BUSY_RETRY: std::time::Duration = std::time::Duration::from_millis(300);

impl Controller {
    /// Queues a block's drawing, and starts asking unless a task already is.
    pub fn render_later(self: &Arc<Self>, key: RenderKey, columns: u16, query: RenderQuery) {
        self.queue_render((key, columns, query, 0));
    }

    fn queue_render(self: &Arc<Self>, ask: RenderAsk) {
        let start = {
            let mut queue = crate::sync::lock(&self.renderings.queue);
            let block = (ask.0.generation, ask.0.index);
            if queue.latest.insert(block, ask).is_none() {
                queue.order.push_back(block);
            }
            !std::mem::replace(&mut queue.asking, true)
        };
        if start {
            let this = Arc::clone(self);
            tokio::spawn(async move { this.render_queued().await });
        }
    }

    async fn render_queued(self: Arc<Self>) {
        loop {
            let next = {
                let mut queue = crate::sync::lock(&self.renderings.queue);
                match queue.order.pop_front() {
                    Some(block) => queue.latest.remove(&block),
                    None => {
                        queue.asking = false;
                        return;
                    }
                }
            };
            if let Some(ask) = next {
                self.render(ask).await;
            }
        }
    }

    async fn render(self: &Arc<Self>, ask: RenderAsk) {
        let (key, columns, query, attempts) = ask;
        let again = query.clone();
        let owner = match &query {
            RenderQuery::Tool { tool, .. } => self.tool_owner(tool),
            RenderQuery::Message { plugin, .. } => self.front.loaded.set.get(plugin).cloned(),
        };
        let Some(owner) = owner.filter(|o| o.disabled_reason().is_none() && o.renders()) else {
            return self.send(UiEvent::Rendered {
                key,
                drawing: None,
                never: true,
            });
        };
        let drawn = match query {
            RenderQuery::Tool {
                tool,
                call_id,
                args,
                started,
                result,
            } => {
                let call = ToolCallView {
                    tool,
                    call_id,
                    arguments: args,
                    started,
                };
                let result = result.map(|r| ToolResultView {
                    text: r.text,
                    details: r.details,
                    is_error: r.is_error,
                    partial: r.partial,
                });
                owner
                    .render_tool_call(&call, result.as_ref(), columns, key.expanded)
                    .await
                    .map(|drawn| {
                        drawn.map(|d| PluginDrawing {
                            heading: d.call,
                            body: d.result,
                        })
                    })
            }
            RenderQuery::Message {
                custom_type,
                content,
                details,
                ..
            } => owner
                .render_message(
                    &custom_type,
                    &content,
                    details.as_ref(),
                    columns,
                    key.expanded,
                )
                .await
                .map(|lines| {
                    lines.map(|body| PluginDrawing {
                        heading: None,
                        body: Some(body),
                    })
                }),
        };
        let drawing = match drawn {
            Ok(Drawing::Drawn(drawing)) => Some(drawing),
            Ok(Drawing::Declined) => None,
            // Busy with its own tool or a hook: asked again a little later, a few times (a
            // tool's card is asked again anyway when its result arrives).
            Ok(Drawing::Busy) => {
                if attempts < MAX_BUSY_ATTEMPTS {
                    let this = Arc::clone(self);
                    tokio::spawn(async move {
                        tokio::time::sleep(BUSY_RETRY).await;
                        this.queue_render((key, columns, again, attempts + 1));
                    });
                }
                return;
            }
            Err(e) => {
                self.render_failed(owner.name(), &e.to_string());
                None
            }
        };
        self.send(UiEvent::Rendered {
            key,
            drawing,
            never: false,
        });
    }

    /// The plugin whose tool `name` is now (a tool registered at run time included).
    fn tool_owner(&self, name: &str) -> Option<Arc<LoadedPlugin>> {
        let infos = PluginAgent::tool_infos(&*self.front.loaded.backends.agent);
        let plugin = infos
            .into_iter()
            .find(|info| info.spec.name == name)?
            .plugin;
        self.front.loaded.set.get(&plugin).cloned()
    }

    fn render_failed(&self, plugin: &str, error: &str) {
        tracing::warn!(plugin, error, "a plugin's drawing failed");
        if crate::sync::lock(&self.renderings.failed).insert(plugin.to_string()) {
            self.send(UiEvent::Error(format!(
                "{plugin} could not draw its block (tack draws it instead): {error}"
            )));
        }
    }
}
