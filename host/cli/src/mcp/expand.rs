//! `${VAR}` and `${VAR:-default}` in a server's command, arguments and variables, as Claude Code
//! expands them in `.mcp.json`, so that a file shared in a repository names a token without
//! holding it.

/// Why a text could not be expanded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpandError {
    #[error("`${{{0}}}` is not set and has no default (`${{{0}:-default}}`)")]
    Unset(String),
    #[error("`${{` without its closing `}}` in `{0}`")]
    Unclosed(String),
}

/// `text` with every `${NAME}` replaced by `lookup(NAME)`, or by the default after `:-`
/// when that is `None`. A `$` not followed by `{` stays as it is.
pub fn expand(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(ExpandError::Unclosed(text.to_string()));
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        match (lookup(name), default) {
            (Some(value), _) => out.push_str(&value),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(ExpandError::Unset(name.to_string())),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_defaults_and_plain_dollars() {
        let lookup = |name: &str| (name == "A").then(|| "1".to_string());
        assert_eq!(expand("x${A}y", &lookup), Ok("x1y".into()));
        assert_eq!(expand("${B:-two}/${A}", &lookup), Ok("two/1".into()));
        assert_eq!(expand("$A and $", &lookup), Ok("$A and $".into()));
        assert_eq!(expand("${B}", &lookup), Err(ExpandError::Unset("B".into())));
        assert!(matches!(
            expand("${A", &lookup),
            Err(ExpandError::Unclosed(_))
        ));
    }
}
