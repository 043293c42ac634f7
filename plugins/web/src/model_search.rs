//! `web_search` through a model provider's own search: Anthropic's `web_search` server tool,
//! OpenAI's `web_search` tool of the Responses API, and Gemini's grounding with Google Search.
//! For a user who has a model key and no search key: one request to a small model of that
//! provider with its search switched on, its results read back out of the answer.
//!
//! The results are the provider's, not the model's: the list comes from the search's own result
//! blocks (Anthropic's `web_search_tool_result`, OpenAI's citations and sources, Gemini's
//! grounding chunks), and a snippet is the text the model cited from that page. An answer
//! without a search in it is an error, never results: a model that answered from memory has
//! found nothing.

use serde_json::{json, Value};

use crate::search::Hit;

/// The providers whose search `web_search` can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Anthropic,
    OpenAi,
    Gemini,
}

/// What the model is told: search, then report what the pages say. Its answer is a summary the
/// agent's own model reads beside the results.
const INSTRUCTIONS: &str = "You are the web search tool of a coding agent. Search the web for the \
    query you are given, exactly once, then report briefly what the results say about it, citing \
    them. Never answer from memory, and do not ask questions.";

/// The most output tokens the searching model may spend on its summary.
const SUMMARY_TOKENS: u32 = 2048;

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Provider::Anthropic => "Anthropic web search",
            Provider::OpenAi => "OpenAI web search",
            Provider::Gemini => "Google Search (Gemini)",
        }
    }

    pub fn default_base(self) -> &'static str {
        match self {
            Provider::Anthropic => "https://api.anthropic.com",
            Provider::OpenAi => "https://api.openai.com",
            Provider::Gemini => "https://generativelanguage.googleapis.com",
        }
    }

    /// The model that searches unless `search_model` names another: each provider's small
    /// model that has the search tool.
    pub fn default_model(self) -> &'static str {
        match self {
            Provider::Anthropic => "claude-haiku-4-5",
            Provider::OpenAi => "gpt-5-mini",
            Provider::Gemini => "gemini-2.5-flash",
        }
    }

    /// The path below the base URL; Gemini's names the model.
    pub fn path(self, model: &str) -> String {
        match self {
            Provider::Anthropic => "v1/messages".into(),
            Provider::OpenAi => "v1/responses".into(),
            Provider::Gemini => format!("v1beta/models/{model}:generateContent"),
        }
    }

    /// The request body for `query` on `model`.
    pub fn body(self, query: &str, model: &str) -> Value {
        match self {
            Provider::Anthropic => json!({
                "model": model,
                "max_tokens": SUMMARY_TOKENS,
                "system": INSTRUCTIONS,
                "messages": [{ "role": "user", "content": query }],
                "tools": [{ "type": "web_search_20250305", "name": "web_search", "max_uses": 1 }],
            }),
            Provider::OpenAi => {
                let mut body = json!({
                    "model": model,
                    "instructions": INSTRUCTIONS,
                    "input": query,
                    "tools": [{ "type": "web_search" }],
                    "include": ["web_search_call.action.sources"],
                    "max_output_tokens": SUMMARY_TOKENS,
                    "store": false,
                });
                // A reasoning model would spend the output budget thinking about a search;
                // the others refuse the parameter.
                if model.starts_with("gpt-5") || model.starts_with('o') {
                    body["reasoning"] = json!({ "effort": "low" });
                }
                body
            }
            Provider::Gemini => json!({
                "systemInstruction": { "parts": [{ "text": INSTRUCTIONS }] },
                "contents": [{ "role": "user", "parts": [{ "text": query }] }],
                "tools": [{ "google_search": {} }],
                "generationConfig": { "maxOutputTokens": SUMMARY_TOKENS },
            }),
        }
    }

    /// The results and summary in a provider's answer, or why it holds none.
    pub fn read(self, answer: &Value) -> Result<Found, String> {
        match self {
            Provider::Anthropic => anthropic(answer),
            Provider::OpenAi => openai(answer),
            Provider::Gemini => gemini(answer),
        }
    }
}

/// What one search found.
#[derive(Debug, Default)]
pub struct Found {
    pub hits: Vec<Hit>,
    /// The searching model's report of the results.
    pub summary: String,
    /// The queries the model searched for (it may rephrase the one it was given).
    pub queries: Vec<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Found {
    /// Adds `url` unless it is there, and gives it `snippet` if it has none yet.
    fn note(&mut self, url: &str, title: Option<&str>, snippet: Option<&str>) {
        let url = url.trim();
        if url.is_empty() {
            return;
        }
        let index = match self.hits.iter().position(|hit| hit.url == url) {
            Some(index) => index,
            None => {
                self.hits.push(Hit {
                    title: String::new(),
                    url: url.to_string(),
                    snippet: String::new(),
                });
                self.hits.len() - 1
            }
        };
        let hit = &mut self.hits[index];
        if hit.title.is_empty() {
            if let Some(title) = title.map(str::trim).filter(|t| !t.is_empty()) {
                hit.title = crate::search::plain(title);
            }
        }
        if hit.snippet.is_empty() {
            if let Some(snippet) = snippet.map(str::trim).filter(|s| !s.is_empty()) {
                hit.snippet = crate::search::plain(snippet);
            }
        }
    }

    fn finish(mut self, provider: Provider) -> Result<Found, String> {
        if self.queries.is_empty() {
            return Err(format!(
                "the model answered without searching, so {} found nothing; try again, or set \
                 search_model to a model that has the provider's search tool",
                provider.name()
            ));
        }
        for hit in &mut self.hits {
            if hit.title.is_empty() {
                hit.title = hit.url.clone();
            }
        }
        self.summary = self.summary.trim().to_string();
        Ok(self)
    }
}

fn text(value: &Value, pointer: &str) -> Option<String> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn count(value: &Value, pointer: &str) -> u64 {
    value.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

/// Anthropic's Messages answer: `server_tool_use` blocks are the searches, each
/// `web_search_tool_result` holds its results (or an error), and the text blocks after them
/// cite the pages (`web_search_result_location`, with the text cited).
fn anthropic(answer: &Value) -> Result<Found, String> {
    let mut found = Found {
        input_tokens: count(answer, "/usage/input_tokens"),
        output_tokens: count(answer, "/usage/output_tokens"),
        ..Found::default()
    };
    let blocks = answer
        .get("content")
        .and_then(Value::as_array)
        .ok_or("Anthropic's answer has no content")?;
    let mut summary: Vec<String> = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("server_tool_use") if block["name"] == "web_search" => {
                found
                    .queries
                    .push(text(block, "/input/query").unwrap_or_default());
            }
            Some("web_search_tool_result") => {
                let content = &block["content"];
                if let Some(code) = text(content, "/error_code") {
                    return Err(format!("Anthropic's web search failed: {code}"));
                }
                for result in content.as_array().into_iter().flatten() {
                    if let Some(url) = result.get("url").and_then(Value::as_str) {
                        found.note(url, result.get("title").and_then(Value::as_str), None);
                    }
                }
                // What the model said before the results is its plan, not a report of them.
                summary.clear();
            }
            Some("text") => {
                for citation in block["citations"].as_array().into_iter().flatten() {
                    if let Some(url) = citation.get("url").and_then(Value::as_str) {
                        found.note(
                            url,
                            citation.get("title").and_then(Value::as_str),
                            citation.get("cited_text").and_then(Value::as_str),
                        );
                    }
                }
                if let Some(words) = block.get("text").and_then(Value::as_str) {
                    summary.push(words.to_string());
                }
            }
            _ => {}
        }
    }
    found.summary = summary.concat();
    found.finish(Provider::Anthropic)
}

/// OpenAI's Responses answer: `web_search_call` items are the searches (with the sources
/// consulted, when asked for), and the message's `url_citation` annotations mark the text each
/// page supports.
fn openai(answer: &Value) -> Result<Found, String> {
    let mut found = Found {
        input_tokens: count(answer, "/usage/input_tokens"),
        output_tokens: count(answer, "/usage/output_tokens"),
        ..Found::default()
    };
    let items = answer
        .get("output")
        .and_then(Value::as_array)
        .ok_or("OpenAI's answer has no output")?;
    let mut sources: Vec<String> = Vec::new();
    for item in items {
        match item.get("type").and_then(Value::as_str) {
            Some("web_search_call") => {
                if item["status"] == "failed" {
                    return Err("OpenAI's web search failed".into());
                }
                let action = &item["action"];
                if let Some(query) = action.get("query").and_then(Value::as_str) {
                    found.queries.push(query.to_string());
                } else if action["type"] == "search" || action.is_null() {
                    found.queries.push(String::new());
                }
                for source in action["sources"].as_array().into_iter().flatten() {
                    if let Some(url) = source.get("url").and_then(Value::as_str) {
                        sources.push(url.to_string());
                    }
                }
            }
            Some("message") => {
                for part in item["content"].as_array().into_iter().flatten() {
                    let Some(words) = part.get("text").and_then(Value::as_str) else {
                        continue;
                    };
                    for note in part["annotations"].as_array().into_iter().flatten() {
                        if note["type"] != "url_citation" {
                            continue;
                        }
                        let Some(url) = note.get("url").and_then(Value::as_str) else {
                            continue;
                        };
                        // OpenAI counts characters, not bytes.
                        let start = note["start_index"].as_u64().unwrap_or(0) as usize;
                        let at = words
                            .char_indices()
                            .nth(start)
                            .map_or(words.len(), |(at, _)| at);
                        found.note(
                            url,
                            note.get("title").and_then(Value::as_str),
                            sentence_before(words, at).as_deref(),
                        );
                    }
                    found.summary.push_str(words);
                }
            }
            _ => {}
        }
    }
    // Pages it read but cited nowhere still belong to the results, after the cited ones.
    for url in sources {
        found.note(&url, None, None);
    }
    found.finish(Provider::OpenAi)
}

/// Gemini's answer with grounding: `webSearchQueries` are the searches, `groundingChunks` the
/// pages, and `groundingSupports` the segments of the answer each page supports.
fn gemini(answer: &Value) -> Result<Found, String> {
    let mut found = Found {
        input_tokens: count(answer, "/usageMetadata/promptTokenCount"),
        output_tokens: count(answer, "/usageMetadata/candidatesTokenCount")
            + count(answer, "/usageMetadata/thoughtsTokenCount"),
        ..Found::default()
    };
    let candidate = answer
        .pointer("/candidates/0")
        .ok_or("Gemini's answer has no candidate")?;
    for part in candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if part["thought"] == true {
            continue;
        }
        if let Some(words) = part.get("text").and_then(Value::as_str) {
            found.summary.push_str(words);
        }
    }
    let grounding = &candidate["groundingMetadata"];
    for query in grounding["webSearchQueries"]
        .as_array()
        .into_iter()
        .flatten()
    {
        found
            .queries
            .push(query.as_str().unwrap_or_default().to_string());
    }
    let chunks: Vec<&Value> = grounding["groundingChunks"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    let mut snippets: Vec<Option<String>> = vec![None; chunks.len()];
    for support in grounding["groundingSupports"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let Some(segment) = support.pointer("/segment/text").and_then(Value::as_str) else {
            continue;
        };
        for index in support["groundingChunkIndices"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(slot) = index
                .as_u64()
                .and_then(|i| snippets.get_mut(i as usize))
                .filter(|slot| slot.is_none())
            {
                *slot = Some(segment.to_string());
            }
        }
    }
    for (chunk, snippet) in chunks.iter().zip(&snippets) {
        if let Some(url) = chunk.pointer("/web/uri").and_then(Value::as_str) {
            found.note(
                url,
                chunk.pointer("/web/title").and_then(Value::as_str),
                snippet.as_deref(),
            );
        }
    }
    found.finish(Provider::Gemini)
}

/// The sentence of `text` that ends where a citation starts (at byte `end`): what the page is
/// cited for. A sentence ends at `.`, `!` or `?` before white space (not in "3.14"), or at a
/// line break.
fn sentence_before(text: &str, end: usize) -> Option<String> {
    let mut end = end.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = text[..end].trim_end_matches([' ', '(', '[']);
    let body = before.trim_end_matches(['.', '!', '?']);
    let mut start = 0;
    let mut previous = None;
    for (at, c) in body.char_indices() {
        let ends_sentence = matches!(previous, Some('.' | '!' | '?')) && c.is_whitespace();
        if ends_sentence || c == '\n' {
            start = at;
        }
        previous = Some(c);
    }
    let sentence = before[start..].trim();
    (!sentence.is_empty()).then(|| sentence.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_results_take_their_snippets_from_the_citations() {
        let answer = json!({
            "content": [
                { "type": "text", "text": "I'll search for that." },
                { "type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
                  "input": { "query": "wasmtime 48 release" } },
                { "type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                    { "type": "web_search_result", "url": "https://a.example/48", "title": "Wasmtime 48",
                      "encrypted_content": "xyz", "page_age": "3 days ago" },
                    { "type": "web_search_result", "url": "https://b.example/", "title": "Other",
                      "encrypted_content": "abc" }
                ] },
                { "type": "text", "text": "Wasmtime 48 shipped", "citations": [
                    { "type": "web_search_result_location", "url": "https://a.example/48",
                      "title": "Wasmtime 48", "cited_text": "Wasmtime 48.0.0 was released today.",
                      "encrypted_index": "e" }
                ] },
                { "type": "text", "text": " last week." }
            ],
            "usage": { "input_tokens": 2100, "output_tokens": 90 }
        });
        let found = Provider::Anthropic
            .read(&answer)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(found.queries, ["wasmtime 48 release"]);
        assert_eq!(found.hits.len(), 2);
        assert_eq!(found.hits[0].snippet, "Wasmtime 48.0.0 was released today.");
        assert_eq!(found.hits[1].snippet, "");
        assert_eq!(found.summary, "Wasmtime 48 shipped last week.");
        assert_eq!((found.input_tokens, found.output_tokens), (2100, 90));
    }

    #[test]
    fn an_answer_without_a_search_or_with_a_failed_one_is_an_error() {
        let memory = json!({ "content": [{ "type": "text", "text": "From memory: ..." }] });
        let err = Provider::Anthropic.read(&memory).err().unwrap_or_default();
        assert!(err.contains("without searching"), "{err}");
        let failed = json!({ "content": [
            { "type": "server_tool_use", "id": "s", "name": "web_search", "input": { "query": "q" } },
            { "type": "web_search_tool_result", "tool_use_id": "s",
              "content": { "type": "web_search_tool_result_error", "error_code": "too_many_requests" } }
        ] });
        let err = Provider::Anthropic.read(&failed).err().unwrap_or_default();
        assert!(err.contains("too_many_requests"), "{err}");
        let gemini = json!({ "candidates": [{ "content": { "parts": [{ "text": "hi" }] } }] });
        assert!(Provider::Gemini.read(&gemini).is_err());
    }

    #[test]
    fn openai_results_are_the_cited_pages_then_the_other_sources() {
        let text = "Rust 1.90 is out — finally. It makes lld the default linker on Linux ([blog.rust-lang.org](https://blog.rust-lang.org/x)).";
        // A character index, as OpenAI gives it (the dash is three bytes).
        let start = text[..text.find("([").unwrap_or(0)].chars().count();
        let answer = json!({
            "output": [
                { "type": "reasoning", "id": "rs_1", "summary": [] },
                { "type": "web_search_call", "id": "ws_1", "status": "completed",
                  "action": { "type": "search", "query": "rust 1.90 release",
                              "sources": [{ "type": "url", "url": "https://news.example/rust" },
                                          { "type": "url", "url": "https://blog.rust-lang.org/x" }] } },
                { "type": "message", "role": "assistant", "content": [
                    { "type": "output_text", "text": text, "annotations": [
                        { "type": "url_citation", "start_index": start, "end_index": text.len() - 1,
                          "url": "https://blog.rust-lang.org/x", "title": "Announcing Rust 1.90" }
                    ] }
                ] }
            ],
            "usage": { "input_tokens": 5000, "output_tokens": 200 }
        });
        let found = Provider::OpenAi
            .read(&answer)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(found.queries, ["rust 1.90 release"]);
        let urls: Vec<&str> = found.hits.iter().map(|h| h.url.as_str()).collect();
        assert_eq!(
            urls,
            ["https://blog.rust-lang.org/x", "https://news.example/rust"]
        );
        assert_eq!(found.hits[0].title, "Announcing Rust 1.90");
        assert_eq!(
            found.hits[0].snippet,
            "It makes lld the default linker on Linux"
        );
        assert_eq!(found.hits[1].title, "https://news.example/rust");
    }

    #[test]
    fn gemini_results_are_its_grounding_chunks_with_the_segments_they_support() {
        let answer = json!({
            "candidates": [{
                "content": { "role": "model", "parts": [{ "text": "Zig 0.15 changed the build API." }] },
                "groundingMetadata": {
                    "webSearchQueries": ["zig 0.15 build api"],
                    "groundingChunks": [
                        { "web": { "uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/a", "title": "ziglang.org" } },
                        { "web": { "uri": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/b", "title": "github.com" } }
                    ],
                    "groundingSupports": [
                        { "segment": { "startIndex": 0, "endIndex": 31, "text": "Zig 0.15 changed the build API." },
                          "groundingChunkIndices": [1] }
                    ]
                }
            }],
            "usageMetadata": { "promptTokenCount": 40, "candidatesTokenCount": 12, "thoughtsTokenCount": 30 }
        });
        let found = Provider::Gemini
            .read(&answer)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(found.hits.len(), 2);
        assert_eq!(found.hits[0].title, "ziglang.org");
        assert_eq!(found.hits[0].snippet, "");
        assert_eq!(found.hits[1].snippet, "Zig 0.15 changed the build API.");
        assert_eq!(found.output_tokens, 42);
    }

    #[test]
    fn a_citation_is_given_the_sentence_it_ends() {
        assert_eq!(
            sentence_before("One. Two three (", 16).as_deref(),
            Some("Two three")
        );
        assert_eq!(sentence_before("Only", 4).as_deref(), Some("Only"));
        assert_eq!(
            sentence_before("So. Python 3.14 is out (", 24).as_deref(),
            Some("Python 3.14 is out")
        );
        assert_eq!(sentence_before("é", 1).as_deref(), None);
    }
}
