//! Markdown files that start with YAML front matter between `---` lines, the way Pi, Claude Code
//! and the Agent Skills specification write them:
//!
//! ```text
//! ---
//! name: pdf-tools
//! description: Extract text and tables from PDF files.
//! ---
//! # PDF tools
//! ...
//! ```

use serde_json::{Map, Value};

/// A Markdown file split into its front matter and its body.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The front matter's keys; empty without front matter.
    pub fields: Map<String, Value>,
    /// The text after the front matter, trimmed (the whole text without front matter).
    pub body: String,
}

impl Document {
    /// A string field, trimmed; `None` when missing, empty or not a string.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.fields
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }
}

/// Splits `text`. Front matter opens with `---` at the very start and closes at the next line
/// starting with `---`; without a closing line the whole text is the body. Front matter that is
/// not YAML, or not a mapping, is an error saying why.
pub fn parse(text: &str) -> Result<Document, String> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let Some(rest) = text.strip_prefix("---") else {
        return Ok(Document {
            fields: Map::new(),
            body: text.trim().to_string(),
        });
    };
    let Some(end) = rest.find("\n---") else {
        return Ok(Document {
            fields: Map::new(),
            body: text.trim().to_string(),
        });
    };
    let yaml = &rest[..end];
    let after = &rest[end + 4..];
    // The closing line may carry more dashes; the body starts on the next line.
    let body = after.split_once('\n').map_or("", |(_, body)| body);
    let fields = if yaml.trim().is_empty() {
        Map::new()
    } else {
        match serde_yaml_ng::from_str::<Value>(yaml) {
            Ok(Value::Object(map)) => map,
            Ok(Value::Null) => Map::new(),
            Ok(_) => return Err("the front matter is not a mapping of keys to values".into()),
            Err(e) => return Err(format!("the front matter is not valid YAML: {e}")),
        }
    };
    Ok(Document {
        fields,
        body: body.trim().to_string(),
    })
}

/// Like [`parse`], but front matter that is not YAML is read line by line as `key: value`
/// strings instead of failing, as Claude Code reads it: its documentation writes
/// `argument-hint: [pr-number] [priority]`, which YAML refuses. Never fails.
pub fn parse_lenient(text: &str) -> Document {
    if let Ok(doc) = parse(text) {
        return doc;
    }
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let rest = text.strip_prefix("---").unwrap_or(&text);
    let (yaml, after) = rest.split_once("\n---").unwrap_or(("", rest));
    let body = after.split_once('\n').map_or("", |(_, body)| body);
    let mut fields = Map::new();
    for line in yaml.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        if key.is_empty() || line.starts_with([' ', '\t', '-', '#']) {
            continue;
        }
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        fields.insert(key.to_string(), Value::String(value.to_string()));
    }
    Document {
        fields,
        body: body.trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_front_matter_from_body_and_keeps_every_field() {
        let doc = parse(
            "---\nname: pdf\ndescription: >\n  Reads PDFs.\nmetadata:\n  author: me\n---\n# PDF\n\nBody.\n",
        )
        .expect("parses");
        assert_eq!(doc.text("name"), Some("pdf"));
        assert_eq!(doc.text("description"), Some("Reads PDFs."));
        assert_eq!(doc.fields["metadata"]["author"], "me");
        assert_eq!(doc.body, "# PDF\n\nBody.");
    }

    #[test]
    fn without_front_matter_everything_is_body() {
        let doc = parse("Just text\n").expect("parses");
        assert!(doc.fields.is_empty());
        assert_eq!(doc.body, "Just text");
        let doc = parse("---\nnever closed\n").expect("parses");
        assert!(doc.fields.is_empty());
    }

    #[test]
    fn malformed_yaml_is_an_error_not_a_panic() {
        let err = parse("---\nname: [unclosed\n---\nbody").expect_err("bad yaml");
        assert!(err.contains("not valid YAML"), "{err}");
        let err = parse("---\n- a\n- b\n---\nbody").expect_err("a list");
        assert!(err.contains("mapping"), "{err}");
    }

    #[test]
    fn lenient_reads_what_yaml_refuses_line_by_line() {
        let doc = parse_lenient(
            "---\nargument-hint: [pr-number] [priority]\ndescription: \"Review a PR\"\n---\nBody $1\n",
        );
        assert_eq!(doc.text("argument-hint"), Some("[pr-number] [priority]"));
        assert_eq!(doc.text("description"), Some("Review a PR"));
        assert_eq!(doc.body, "Body $1");
        let doc = parse_lenient("---\ndescription: [x]\n---\nB");
        assert_eq!(
            doc.fields["description"][0], "x",
            "valid YAML is read as YAML"
        );
    }
}
